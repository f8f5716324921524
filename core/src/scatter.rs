//! The storage of a scatter-add container (Kokkos' `ScatterView`) and what a kernel gets for it.
//!
//! A [`ScatterStorage`] holds the array that many work items *contribute* to with one operation
//! ([`Sum`], [`Prod`], [`Min`] or [`Max`], the type parameter `Op`). On a host backend that runs
//! work items on several threads it holds `concurrency + 1` copies of the array: each thread that
//! contributes during a launch claims one copy of its own and updates it with plain loads and
//! stores (no atomics, no cache line shared between threads); a thread that finds every copy
//! claimed (more threads than the space's concurrency, e.g. a launch from inside a larger rayon
//! pool) updates the last copy atomically. On a serial launch (all work items on one thread) and
//! on device backends there is one copy: plain updates on serial, the IR's atomics on devices.
//! The copies are combined into a target View by `rokkos_containers::ScatterView::contribute_into`.
//!
//! Inside a `#[kernel]` the parameter `h: ScatterSum<T>` (or `ScatterProd`, `ScatterMin`,
//! `ScatterMax`, with an optional rank: `ScatterSum<f64, 2>`) is a [`ScatterAccess`]: the kernel
//! may contribute to any index (`h.atomic_add(i, x)` for a sum, `h.atomic_mul` for a product,
//! `h.atomic_min` / `h.atomic_max`), and may neither read nor plainly write it.
//!
//! Soundness: a copy is used by one thread at a time. A launch holds both allocations exclusively
//! until it returns (the launch's argument holds, as for a `ViewMut`), so no host guard, copy or
//! other launch touches them meanwhile; binding the kernel's body starts a new *epoch*, and a
//! thread's claim of a copy (a compare-and-swap on the epoch's counter) is valid for that epoch
//! only. A host backend makes one body per launch (the [`crate::HostBackend`] contract).

use crate::access::sequential_bind;
use crate::atomic::AtomicScalar;
use crate::error::Result;
use crate::failure::raise_out_of_bounds;
use crate::index::{in_bounds, ViewIndex};
use crate::ir::AtomicOp;
use crate::kernel::{ViewArg, ViewBinding};
use crate::layout::{Layout, LayoutRight};
use crate::reducer::{Max, Min, Prod, Sum};
use crate::scalar::Scalar;
use crate::space::{ExecutionSpace, MemorySpace};
use crate::view::View;
use bytemuck::Pod;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::reducer::Sum {}
    impl Sealed for crate::reducer::Prod {}
    impl Sealed for crate::reducer::Min {}
    impl Sealed for crate::reducer::Max {}
}

/// The operation of a scatter container: [`Sum`], [`Prod`], [`Min`] or [`Max`] (Kokkos'
/// `ScatterSum`, `ScatterProd`, `ScatterMin`, `ScatterMax`).
///
/// ```
/// use rokkos_core::scatter::ScatterOp;
/// use rokkos_core::{Max, Sum};
/// assert_eq!(<Sum as ScatterOp>::identity::<i32>(), 0);
/// assert_eq!(<Max as ScatterOp>::identity::<i32>(), i32::MIN);
/// ```
pub trait ScatterOp: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// The atomic read-modify-write a contribution is.
    const ATOMIC: AtomicOp;
    /// The operation's name, as the kernel parameter type spells it (`"Sum"`).
    const NAME: &'static str;
    /// The value every copy starts from: `x op identity == x`.
    fn identity<T: Scalar>() -> T;
}

impl ScatterOp for Sum {
    const ATOMIC: AtomicOp = AtomicOp::Add;
    const NAME: &'static str = "Sum";
    fn identity<T: Scalar>() -> T {
        T::ZERO
    }
}
impl ScatterOp for Prod {
    const ATOMIC: AtomicOp = AtomicOp::Mul;
    const NAME: &'static str = "Prod";
    fn identity<T: Scalar>() -> T {
        T::ONE
    }
}
impl ScatterOp for Min {
    const ATOMIC: AtomicOp = AtomicOp::Min;
    const NAME: &'static str = "Min";
    fn identity<T: Scalar>() -> T {
        T::HIGHEST
    }
}
impl ScatterOp for Max {
    const ATOMIC: AtomicOp = AtomicOp::Max;
    const NAME: &'static str = "Max";
    fn identity<T: Scalar>() -> T {
        T::LOWEST
    }
}

/// Bits of a claim word holding the number of copies claimed in the epoch (the rest is the epoch).
const COUNT_BITS: u32 = 24;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// Most copies a storage makes (a claim counter must fit its bits).
const MAX_COPIES: usize = 1 << 16;

/// The next epoch (never 0: an empty claim cache entry).
fn next_epoch() -> u64 {
    static EPOCH: AtomicU64 = AtomicU64::new(1);
    loop {
        let e = EPOCH.fetch_add(1, Ordering::Relaxed) & ((1 << (64 - COUNT_BITS)) - 1);
        if e != 0 {
            return e;
        }
    }
}

/// The duplicated storage of a scatter container; see the [module documentation](self).
///
/// Users make it through `rokkos_containers::ScatterView`, which derefs to it, so that a
/// `&ScatterView` is passed to a kernel's constructor as it is.
///
/// ```
/// use rokkos_core::scatter::ScatterStorage;
/// use rokkos_core::{HostSpace, Min};
/// let s = ScatterStorage::<i32, 1, Min, HostSpace>::new_in(&HostSpace, "lo", [4], 3)?;
/// assert_eq!((s.extents(), s.copies(), s.label()), ([4], 3, "lo"));
/// // Every copy starts at the identity of the operation.
/// assert!(s.first().to_vec().iter().all(|&x| x == i32::MAX));
/// # Ok::<(), rokkos_core::Error>(())
/// ```
pub struct ScatterStorage<T: Pod, const R: usize, Op, S: MemorySpace> {
    first: View<T, R, LayoutRight, S>,
    rest: View<T, 1, LayoutRight, S>,
    copies: usize,
    /// `epoch << COUNT_BITS | copies claimed`, shared by clones.
    claims: Arc<AtomicU64>,
    _op: PhantomData<Op>,
}

impl<T: Pod, const R: usize, Op, S: MemorySpace> Clone for ScatterStorage<T, R, Op, S> {
    fn clone(&self) -> Self {
        ScatterStorage {
            first: self.first.clone(),
            rest: self.rest.clone(),
            copies: self.copies,
            claims: self.claims.clone(),
            _op: PhantomData,
        }
    }
}

impl<T: Pod, const R: usize, Op, S: MemorySpace> std::fmt::Debug for ScatterStorage<T, R, Op, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScatterStorage")
            .field("label", &self.first.label())
            .field("extents", &self.first.extents())
            .field("copies", &self.copies)
            .finish()
    }
}

impl<T, const R: usize, Op, S> ScatterStorage<T, R, Op, S>
where
    T: Pod + Scalar + AtomicScalar,
    Op: ScatterOp,
    S: MemorySpace,
{
    /// Storage of `extents` in `space` with `copies` copies (at least 1; more than 65536 are
    /// refused), each holding the operation's identity. `Err(OutOfMemory)` /
    /// `Err(InvalidArgument)` as for a View of `copies` times the elements.
    pub fn new_in(space: &S, label: &str, extents: [usize; R], copies: usize) -> Result<Self> {
        if copies == 0 || copies > MAX_COPIES {
            return Err(crate::Error::InvalidArgument(format!(
                "ScatterView `{label}`: {copies} copies (1 to {MAX_COPIES})"
            )));
        }
        let n = extents.iter().try_fold(1usize, |a, &e| a.checked_mul(e));
        let rest_len = n.and_then(|n| n.checked_mul(copies - 1)).ok_or_else(|| {
            crate::Error::InvalidArgument(format!(
                "ScatterView `{label}`: {copies} copies of extents {extents:?} overflow usize"
            ))
        })?;
        let first = View::new_in(space, label, extents)?;
        let rest = View::new_in(space, &format!("{label} (copies)"), [rest_len])?;
        let s = ScatterStorage {
            first,
            rest,
            copies,
            claims: Arc::new(AtomicU64::new(0)),
            _op: PhantomData,
        };
        s.reset()?;
        Ok(s)
    }

    /// Storage for launches on `space`: one copy per thread plus one on a host space that runs
    /// work items on several threads, one copy otherwise (serial, device memory).
    ///
    /// ```
    /// use rokkos_core::scatter::ScatterStorage;
    /// use rokkos_core::{ExecutionSpace, HostSpace, Sum};
    /// # fn make<E: ExecutionSpace<Memory = HostSpace>>(space: &E) -> rokkos_core::Result<()> {
    /// let s = ScatterStorage::<f64, 1, Sum, HostSpace>::new(space, "h", [16])?;
    /// assert!(s.copies() >= 1);
    /// # Ok(()) }
    /// ```
    pub fn new<E: ExecutionSpace<Memory = S>>(
        space: &E,
        label: &str,
        extents: [usize; R],
    ) -> Result<Self> {
        let copies = copies_for(space, label)?;
        Self::new_in(&space.memory_space(), label, extents, copies)
    }

    /// Storage for launches on `space` whose first copy *is* `view` (Kokkos makes a
    /// `ScatterView` of an existing View this way): contributions a launch makes to copy 0 go
    /// straight into `view`'s elements, which keep the values they hold (they are not reset);
    /// the other copies (as many as [`ScatterStorage::new`] makes) start at the identity.
    /// `view` must be row-major (its strides those of a `LayoutRight` View of its extents, as
    /// every `LayoutRight` View and every rank-1 contiguous View has): `Err(ShapeMismatch)`
    /// naming it otherwise. `Err(OutOfMemory)` when the other copies do not fit.
    ///
    /// ```
    /// use rokkos_core::ir::eval::{EvalMemory, IrEval};
    /// use rokkos_core::scatter::ScatterStorage;
    /// use rokkos_core::{create_mirror_view_and_copy, LayoutLeft, LayoutRight, Sum, View};
    /// let v = View::<i32, 1, LayoutRight, EvalMemory>::new_in(&EvalMemory, "v", [3])?;
    /// v.fill(7)?;
    /// let s = ScatterStorage::<i32, 1, Sum, EvalMemory>::over(&IrEval, &v)?;
    /// assert!(s.first_is(&v) && s.first().shares_allocation_with(&v));
    /// assert_eq!(create_mirror_view_and_copy(s.first())?.to_vec(), [7, 7, 7]); // kept
    /// let left = View::<i32, 2, LayoutLeft, EvalMemory>::new_in(&EvalMemory, "left", [2, 2])?;
    /// assert!(ScatterStorage::<i32, 2, Sum, EvalMemory>::over(&IrEval, &left).is_err());
    /// # Ok::<(), rokkos_core::Error>(())
    /// ```
    pub fn over<E: ExecutionSpace<Memory = S>, L: Layout>(
        space: &E,
        view: &View<T, R, L, S>,
    ) -> Result<Self> {
        let label = view.label();
        let first = view.try_layout::<LayoutRight>().map_err(|_| {
            crate::Error::shape(format!(
                "a ScatterView over View `{label}`: its strides {:?} for extents {:?} are not row-major, and the ScatterView's copies are (make the View LayoutRight, or make the ScatterView with `new` and `contribute_into` the View)",
                view.strides(),
                view.extents()
            ))
        })?;
        let copies = copies_for(space, label)?;
        let extents = view.extents();
        let rest_len = extents
            .iter()
            .try_fold(copies - 1, |a, &e| a.checked_mul(e))
            .ok_or_else(|| {
                crate::Error::InvalidArgument(format!(
                    "ScatterView `{label}`: {copies} copies of extents {extents:?} overflow usize"
                ))
            })?;
        let rest = View::new_in(
            &space.memory_space(),
            &format!("{label} (copies)"),
            [rest_len],
        )?;
        rest.fill(Op::identity::<T>())?;
        Ok(ScatterStorage {
            first,
            rest,
            copies,
            claims: Arc::new(AtomicU64::new(0)),
            _op: PhantomData,
        })
    }

    /// Sets every copy back to the identity of the operation (Kokkos' `reset`): contributions
    /// made so far are dropped. `Err(Aliasing)` while a launch or host guard uses the storage.
    ///
    /// ```
    /// use rokkos_core::scatter::ScatterStorage;
    /// use rokkos_core::{HostSpace, Prod};
    /// let s = ScatterStorage::<f32, 1, Prod, HostSpace>::new_in(&HostSpace, "p", [2], 2)?;
    /// s.first().fill(5.0)?;
    /// s.reset()?;
    /// assert_eq!(s.first().to_vec(), [1.0, 1.0]);
    /// let guard = s.rest().host();
    /// assert!(s.reset().is_err()); // a host guard holds the copies
    /// # drop(guard);
    /// # Ok::<(), rokkos_core::Error>(())
    /// ```
    pub fn reset(&self) -> Result<()> {
        let id = Op::identity::<T>();
        self.first.fill(id)?;
        self.rest.fill(id)
    }
}

/// How many copies [`ScatterStorage::new`] makes for launches on `space`: one per thread plus one
/// on a host space that runs work items on several threads, one otherwise.
fn copies_for<E: ExecutionSpace>(space: &E, label: &str) -> Result<usize> {
    let probe = View::<u8, 1, LayoutRight, E::Memory>::new_in(&space.memory_space(), label, [0])?;
    let host = <E::Memory as MemorySpace>::host_ptr(probe.buffer()).is_some();
    let threads = space.concurrency().min(MAX_COPIES - 1);
    Ok(if host && threads > 1 { threads + 1 } else { 1 })
}

impl<T: Pod, const R: usize, Op, S: MemorySpace> ScatterStorage<T, R, Op, S> {
    /// Whether `view` addresses exactly the elements of the first copy: the View a storage made
    /// by [`ScatterStorage::over`] aliases (or a handle of the first copy itself).
    ///
    /// ```
    /// use rokkos_core::scatter::ScatterStorage;
    /// use rokkos_core::{HostSpace, Max, View};
    /// let s = ScatterStorage::<f32, 2, Max, HostSpace>::new_in(&HostSpace, "s", [2, 3], 2)?;
    /// assert!(s.first_is(s.first()) && s.first_is(&s.first().to_layout_stride()));
    /// assert!(!s.first_is(&View::<f32, 2>::new("w", [2, 3])?));
    /// // Part of the first copy is not the first copy.
    /// assert!(!s.first_is(&s.first().subview::<2>((0..1, ..))?));
    /// # Ok::<(), rokkos_core::Error>(())
    /// ```
    pub fn first_is<L: Layout>(&self, view: &View<T, R, L, S>) -> bool {
        self.first.same_elements_as(view) && self.first.extents() == view.extents()
    }

    /// Extents of the array contributed to.
    pub fn extents(&self) -> [usize; R] {
        self.first.extents()
    }
    /// The label.
    pub fn label(&self) -> &str {
        self.first.label()
    }
    /// Number of copies (1 where contributions are not duplicated).
    pub fn copies(&self) -> usize {
        self.copies
    }
    /// The first copy (on device backends the only one).
    pub fn first(&self) -> &View<T, R, LayoutRight, S> {
        &self.first
    }
    /// The other copies, one after another, each laid out as the first (row-major); empty when
    /// there is one copy.
    ///
    /// ```
    /// use rokkos_core::scatter::ScatterStorage;
    /// use rokkos_core::{HostSpace, Sum};
    /// let s = ScatterStorage::<u32, 2, Sum, HostSpace>::new_in(&HostSpace, "f", [4, 3], 3)?;
    /// assert_eq!(s.rest().extents(), [2 * 4 * 3]);
    /// # Ok::<(), rokkos_core::Error>(())
    /// ```
    pub fn rest(&self) -> &View<T, 1, LayoutRight, S> {
        &self.rest
    }

    /// Both allocations as a kernel's writable arguments, for the launch's checks and holds.
    #[doc(hidden)]
    pub fn __visit_args<'a>(&'a self, param: &'static str, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.first.__kernel_arg(param, true));
        f(self.rest.__kernel_arg(param, true));
    }

    /// The first copy as a device backend binds it: contributions there are the IR's atomics.
    #[doc(hidden)]
    pub fn __binding(&self, param: &'static str, writable: bool) -> ViewBinding<'_, S>
    where
        T: crate::ir::build::IrScalar,
    {
        self.first.__binding(param, writable)
    }

    /// The accessor of a kernel's native body; starts a new epoch of claims.
    ///
    /// # Safety
    /// As for [`View::__write_access`]: the storage's memory is host accessible and held
    /// exclusively by the launch, which makes one body from this accessor and its copies, and
    /// runs it only while the pattern method runs.
    #[doc(hidden)]
    pub unsafe fn __scatter_access(&self, kernel: &'static str) -> ScatterAccess<'_, T, R, Op> {
        // SAFETY: the caller's promise, passed on.
        let (first, rest) = unsafe {
            (
                self.first.__write_access(kernel),
                self.rest.__write_access(kernel),
            )
        };
        let epoch = next_epoch();
        self.claims.store(epoch << COUNT_BITS, Ordering::Release);
        let extents = self.first.extents();
        let mode = if sequential_bind() {
            Mode::Plain
        } else if self.copies == 1 {
            Mode::Atomic
        } else {
            Mode::Duplicated
        };
        ScatterAccess {
            first: first.ptr(),
            rest: rest.ptr(),
            n: extents.iter().product(),
            plain: self.copies - 1,
            extents,
            strides: self.first.strides(),
            label: self.first.label(),
            kernel,
            claims: &self.claims,
            epoch,
            mode,
            _p: PhantomData,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Work items one at a time on one thread: plain updates of the first copy.
    Plain,
    /// One copy, several threads: atomics on it.
    Atomic,
    /// A copy per thread (plain), the last copy for threads that find none free (atomic).
    Duplicated,
}

thread_local! {
    /// The copies this thread claimed, by epoch (a few, for kernels with several scatter
    /// arguments): the epoch (0: an empty entry), the copy's first element's address, and whether
    /// the copy is the thread's own (plain updates) rather than the shared atomic one. The address
    /// rather than the copy's number, so that a contribution finds its element with one add.
    static CLAIMED: [Cell<(u64, usize, bool)>; 4] =
        const { [const { Cell::new((0, 0, false)) }; 4] };
}

/// What a `ScatterSum<T>` / `ScatterProd<T>` / `ScatterMin<T>` / `ScatterMax<T>` kernel
/// parameter is in the native body: contributions only.
///
/// ```
/// use rokkos_core::scatter::ScatterStorage;
/// use rokkos_core::{HostSpace, Sum};
/// let s = ScatterStorage::<u32, 1, Sum, HostSpace>::new_in(&HostSpace, "h", [3], 2)?;
/// // SAFETY: nothing else uses the storage while the accessor lives.
/// let h = unsafe { s.__scatter_access("doc") };
/// h.atomic_add(1, 5); // in a kernel: `h.atomic_add(bin, 5)`
/// h.atomic_add(1, 2);
/// assert_eq!((h.extent(0), h.size()), (3, 3));
/// # Ok::<(), rokkos_core::Error>(())
/// ```
pub struct ScatterAccess<'a, T, const R: usize, Op> {
    first: *mut T,
    rest: *mut T,
    n: usize,
    /// Copies a thread may claim (plain updates); copy `plain` is the atomic one.
    plain: usize,
    extents: [usize; R],
    strides: [usize; R],
    label: &'a str,
    kernel: &'static str,
    claims: &'a AtomicU64,
    epoch: u64,
    mode: Mode,
    _p: PhantomData<(&'a T, Op)>,
}

impl<T, const R: usize, Op> Clone for ScatterAccess<'_, T, R, Op> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize, Op> Copy for ScatterAccess<'_, T, R, Op> {}

// SAFETY: threads update distinct copies with plain accesses (each copy is claimed by one thread
// per epoch, see the module documentation) and the shared copy atomically.
unsafe impl<T: Send, const R: usize, Op> Sync for ScatterAccess<'_, T, R, Op> {}
unsafe impl<T: Send, const R: usize, Op> Send for ScatterAccess<'_, T, R, Op> {}

impl<T: AtomicScalar, const R: usize, Op: ScatterOp> ScatterAccess<'_, T, R, Op> {
    /// Extent of dimension `k` (0 past the rank).
    #[inline(always)]
    pub fn extent(&self, k: usize) -> usize {
        if k < R {
            self.extents[k]
        } else {
            0
        }
    }
    /// Number of elements.
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.n
    }

    /// The copy this thread updates in this epoch: its first element, and whether it is the
    /// thread's own.
    #[inline(always)]
    fn copy(&self) -> (*mut T, bool) {
        let hit = CLAIMED.with(|c| {
            c.iter()
                .map(Cell::get)
                .find(|&(e, _, _)| e == self.epoch)
                .map(|(_, base, own)| (base as *mut T, own))
        });
        match hit {
            Some(copy) => copy,
            // By value, not `&self`: an accessor whose address escapes into a call that is not
            // inlined is copied to the stack for every work item.
            None => {
                let c = claim(self.claims, self.epoch, self.plain);
                // SAFETY: copy `c <= plain` exists: copy 0 is `first`, copy `c >= 1` starts at
                // `rest + (c - 1) * n`.
                let base = if c == 0 {
                    self.first
                } else {
                    unsafe { self.rest.add((c - 1) * self.n) }
                };
                let own = c < self.plain;
                remember(self.epoch, base as usize, own);
                (base, own)
            }
        }
    }
    #[inline(always)]
    fn contribute(&self, i: [usize; R], op: AtomicOp, v: T, atomic: unsafe fn(*mut T, T) -> T) {
        if !in_bounds(&i, &self.extents) {
            out_of_bounds(self.kernel, self.label, i, self.extents);
        }
        let off = LayoutRight::offset(&i, &self.strides);
        let (p, plain) = match self.mode {
            Mode::Plain => (unsafe { self.first.add(off) }, true),
            Mode::Atomic => (unsafe { self.first.add(off) }, false),
            Mode::Duplicated => {
                let (base, own) = self.copy();
                // SAFETY: `off < n` (in bounds, row-major) inside a copy of `n` elements.
                (unsafe { base.add(off) }, own)
            }
        };
        if plain && T::__plain_ok(op, v) {
            // SAFETY: in bounds and aligned; only this thread accesses this copy in this epoch
            // (or the launch runs its work items one at a time on this thread).
            unsafe { p.write(T::__stored(op, p.read(), v)) }
        } else {
            // SAFETY: in bounds and aligned; every concurrent access to the element is atomic.
            unsafe {
                atomic(p, v);
            }
        }
    }
}

/// The copy this thread updates in `epoch`: its own (`< plain`), claimed from `claims`, or the
/// atomic one (`plain`) when none is left.
#[cold]
#[inline(never)]
fn claim(claims: &AtomicU64, epoch: u64, plain: usize) -> usize {
    let mut w = claims.load(Ordering::Acquire);
    loop {
        let claimed = (w & COUNT_MASK) as usize;
        if w >> COUNT_BITS != epoch || claimed >= plain {
            return plain;
        }
        match claims.compare_exchange_weak(w, w + 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return claimed,
            Err(now) => w = now,
        }
    }
}

/// Puts a claimed copy first in the thread's [`CLAIMED`] cache (the oldest entry makes room).
#[cold]
#[inline(never)]
fn remember(epoch: u64, base: usize, own: bool) {
    CLAIMED.with(|c| {
        for k in (1..c.len()).rev() {
            c[k].set(c[k - 1].get());
        }
        c[0].set((epoch, base, own));
    });
}

#[cold]
#[inline(never)]
fn out_of_bounds<const R: usize>(
    kernel: &'static str,
    view: &str,
    idx: [usize; R],
    extents: [usize; R],
) -> ! {
    raise_out_of_bounds(kernel, view, &idx, &extents)
}

impl<T: AtomicScalar, const R: usize> ScatterAccess<'_, T, R, Sum> {
    /// Adds `v` to element `i` (wrapping for integers): Kokkos' `access(i) += v`.
    #[inline(always)]
    pub fn atomic_add<I: ViewIndex<R>>(&self, i: I, v: T) {
        self.contribute(i.to_array(), AtomicOp::Add, v, T::fetch_add);
    }
    /// Subtracts `v` from element `i` (wrapping for integers): Kokkos' `access(i) -= v`.
    #[inline(always)]
    pub fn atomic_sub<I: ViewIndex<R>>(&self, i: I, v: T) {
        self.contribute(i.to_array(), AtomicOp::Sub, v, T::fetch_sub);
    }
}
impl<T: AtomicScalar, const R: usize> ScatterAccess<'_, T, R, Prod> {
    /// Multiplies element `i` by `v` (wrapping for integers): Kokkos' `access(i) *= v`.
    #[inline(always)]
    pub fn atomic_mul<I: ViewIndex<R>>(&self, i: I, v: T) {
        self.contribute(i.to_array(), AtomicOp::Mul, v, T::fetch_mul);
    }
}
impl<T: AtomicScalar, const R: usize> ScatterAccess<'_, T, R, Min> {
    /// Replaces element `i` by the minimum of it and `v`: Kokkos' `access(i).update(v)`.
    #[inline(always)]
    pub fn atomic_min<I: ViewIndex<R>>(&self, i: I, v: T) {
        self.contribute(i.to_array(), AtomicOp::Min, v, T::fetch_min);
    }
}
impl<T: AtomicScalar, const R: usize> ScatterAccess<'_, T, R, Max> {
    /// Replaces element `i` by the maximum of it and `v`: Kokkos' `access(i).update(v)`.
    #[inline(always)]
    pub fn atomic_max<I: ViewIndex<R>>(&self, i: I, v: T) {
        self.contribute(i.to_array(), AtomicOp::Max, v, T::fetch_max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::HostSpace;

    /// Threads contributing at once each get a copy of their own; the sums of the copies are
    /// the plain sums, also with more threads than plain copies (the rest go atomic).
    #[test]
    fn threads_claim_distinct_copies() {
        for copies in [1, 2, 3, 9] {
            let s = ScatterStorage::<u64, 1, Sum, HostSpace>::new_in(&HostSpace, "s", [5], copies)
                .unwrap();
            // SAFETY: nothing else uses the storage while the accessor lives.
            let h = unsafe { s.__scatter_access("t") };
            std::thread::scope(|sc| {
                for t in 0..6u64 {
                    sc.spawn(move || {
                        for k in 0..1000u64 {
                            h.atomic_add((k % 5) as usize, t + 1);
                        }
                    });
                }
            });
            let mut total = s.first.to_vec();
            let rest = s.rest.to_vec();
            for c in rest.chunks(5) {
                for (a, b) in total.iter_mut().zip(c) {
                    *a += b;
                }
            }
            assert_eq!(total, vec![200 * 21; 5], "{copies} copies");
        }
    }
}
