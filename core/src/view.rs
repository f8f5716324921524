//! `View`: a reference-counted, labelled, multidimensional array in a memory space.
//!
//! Clones are shallow: they share the allocation, as in Kokkos. A View handle is `Send` and
//! `Sync` (when its element type and memory space are): it can move into a `std::thread`, a rayon
//! task or an async task. Parallelism on its elements happens inside kernels, which receive
//! accessors checked at launch. Host code reads and writes elements with [`View::get`] /
//! [`View::set`] or through the borrow guards [`View::host`] / [`View::host_mut`] (or
//! [`View::try_host`] / [`View::try_host_mut`]), which, like a `RwLock` that never waits, refuse
//! when they would alias a live guard or a launch in progress on any thread (a launch holds its
//! arguments' allocations until it returns; see [`crate::launch`]). The allocation's borrow flag
//! is atomic, and every access claims it with one atomic read-modify-write before it touches the
//! memory, so a guard on one thread and a launch on another exclude each other: whichever claims
//! the flag first wins, and the other panics (guards) or answers `Err(Aliasing)` (launches,
//! copies). Every constructor refuses shapes whose element count, span or byte size
//! overflows (`Err(OutOfMemory)`), so sizes and offsets of a View never overflow. An allocation
//! may carry an access watch ([`View::watch`], [`crate::watch`]) that every such access consults
//! once the flag is held: when it refuses, launches and copies answer its error, the `try_*`
//! guards too, and `host()`, `host_mut()`, `get` and `set` panic with it.
//!
//! ```
//! use rokkos_core::{View, LayoutLeft};
//! let a = View::<f64, 2>::new("a", [2, 3]).unwrap();
//! a.set((1, 2), 4.0);
//! let b = a.clone(); // shares the data
//! assert_eq!(b.get((1, 2)), 4.0);
//! let c = View::<f64, 2, LayoutLeft>::from_fn("c", [2, 3], |[i, j]| (10 * i + j) as f64).unwrap();
//! assert_eq!(c.strides(), [1, 2]);
//! assert_eq!(c.host()[(1, 2)], 12.0);
//! ```

use crate::access::{ReadAccess, WriteAccess};
use crate::borrow::{BorrowFlag, Hold};
use crate::error::{Error, Result};
use crate::index::{fmt_index, in_bounds, ViewIndex};
use crate::kernel::ViewArg;
use crate::layout::{
    checked_span, element_count, span_of, strides_are_injective, Layout, LayoutKind, LayoutRight,
    LayoutStride,
};
use crate::space::{HostAccessible, HostBuffer, HostSpace, MemorySpace};
use crate::watch::{observe, Access, AccessKind, AccessWatch, WatchRef};
use bytemuck::Pod;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::sync::{Arc, OnceLock};

pub(crate) struct Allocation<S: MemorySpace> {
    pub(crate) buffer: S::Buffer,
    pub(crate) space: S,
    pub(crate) label: String,
    borrow: BorrowFlag,
    /// For a host alias of another allocation's memory (`create_mirror_view` of a View whose
    /// memory is host memory, [`crate::space::HostStorage`]): that allocation, kept alive as long
    /// as this one, whose borrow flag this one uses instead of its own, so that guards, copies and
    /// launches through either exclude each other. Declared after `buffer`: dropped after it.
    alias: Option<Aliased>,
    /// The watch of this allocation's accesses ([`crate::watch`]), set at most once.
    watch: OnceLock<Arc<dyn AccessWatch>>,
}

impl<S: MemorySpace> Allocation<S> {
    /// The borrow flag every access to this allocation's memory claims.
    #[inline]
    pub(crate) fn flag(&self) -> &BorrowFlag {
        match &self.alias {
            Some(a) => a.0.flag(),
            None => &self.borrow,
        }
    }
    /// The watch accesses to this allocation report to: its own, or else (a host alias) the
    /// aliased allocation's, since the alias's memory is that allocation's.
    #[inline]
    pub(crate) fn watch(&self) -> Option<&dyn AccessWatch> {
        match (self.watch.get(), &self.alias) {
            (Some(w), _) => Some(&**w),
            (None, Some(a)) => a.0.watch(),
            (None, None) => None,
        }
    }
}

/// An allocation whose borrow flag a host alias shares (see [`Allocation::flag`]).
trait FlagOwner {
    fn flag(&self) -> &BorrowFlag;
    fn watch(&self) -> Option<&dyn AccessWatch>;
}
impl<S: MemorySpace> FlagOwner for Allocation<S> {
    fn flag(&self) -> &BorrowFlag {
        Allocation::flag(self)
    }
    fn watch(&self) -> Option<&dyn AccessWatch> {
        Allocation::watch(self)
    }
}

/// The allocation a host alias keeps alive: only its flag is used, and it is dropped with the
/// alias.
struct Aliased(Arc<dyn FlagOwner>);
// SAFETY: an `Aliased` is only made from a `HostSpace` allocation (`HostSpace` and `HostBuffer`
// are `Send` and `Sync`) or from one whose space answered a `HostStorage`, whose `unsafe`
// contract says that space and its buffer type are `Send` and `Sync`; its watch is `Send + Sync`
// (`AccessWatch`'s bounds); its label is a `String` and its flag an atomic. So the allocation may
// be shared and dropped on any thread, as a View of it may be when that holds.
unsafe impl Send for Aliased {}
// SAFETY: as above.
unsafe impl Sync for Aliased {}

/// The allocation a `parallel_reduce_into` result lives in, for the launch to hold.
#[derive(Clone, Copy)]
pub(crate) struct ResultArg<'a> {
    pub(crate) borrow: &'a BorrowFlag,
    pub(crate) label: &'a str,
    /// The bytes of the allocation the result element occupies: `start..end`.
    pub(crate) bytes: (usize, usize),
    /// The allocation's watch ([`crate::watch`]).
    pub(crate) watch: Option<&'a dyn AccessWatch>,
}

/// A multidimensional array of `T` with rank `R`, layout `L`, in memory space `S`.
pub struct View<T: Pod, const R: usize = 1, L: Layout = LayoutRight, S: MemorySpace = HostSpace> {
    pub(crate) alloc: Arc<Allocation<S>>,
    pub(crate) offset: usize,
    pub(crate) extents: [usize; R],
    pub(crate) strides: [usize; R],
    _p: PhantomData<(T, L)>,
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> Clone for View<T, R, L, S> {
    fn clone(&self) -> Self {
        View {
            alloc: self.alloc.clone(),
            offset: self.offset,
            extents: self.extents,
            strides: self.strides,
            _p: PhantomData,
        }
    }
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> std::fmt::Debug for View<T, R, L, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "View<{}, {R}, {:?}, {}>(\"{}\", extents {}, strides {})",
            std::any::type_name::<T>(),
            L::KIND,
            S::NAME,
            self.label(),
            fmt_index(&self.extents),
            fmt_index(&self.strides)
        )
    }
}

fn default_strides<L: Layout, const R: usize>(extents: &[usize; R]) -> [usize; R] {
    L::contiguous_strides(extents)
        .unwrap_or_else(|| LayoutRight::contiguous_strides(extents).expect("right strides"))
}

/// `Err(OutOfMemory)` for a shape whose element count, span or byte size does not fit (`usize`,
/// and `isize::MAX` bytes, the most one allocation can hold).
fn too_large(label: &str) -> Error {
    Error::OutOfMemory {
        label: label.to_string(),
        bytes: usize::MAX,
    }
}

/// The byte size of `count` elements of `T`, when it fits in one allocation.
fn bytes_for<T>(label: &str, count: usize) -> Result<usize> {
    count
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| too_large(label))
}

/// Checks that a shape's element count fits in `usize` and its bytes in one allocation, and that
/// its non-zero extents multiply to at most `isize::MAX` (so an empty View, of no elements, still
/// has the shape of an array some memory could hold, as `ndarray` and slices require); returns
/// the element count. Every constructor goes through it, so `size()`, `span()` and byte offsets of
/// a View never overflow, and subviews only shrink a checked shape.
fn checked_count<T>(label: &str, extents: &[usize]) -> Result<usize> {
    let n = element_count(extents).ok_or_else(|| too_large(label))?;
    bytes_for::<T>(label, n)?;
    extents
        .iter()
        .filter(|&&e| e != 0)
        .try_fold(1usize, |a, &e| a.checked_mul(e))
        .filter(|&p| p <= isize::MAX as usize)
        .ok_or_else(|| too_large(label))?;
    Ok(n)
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> View<T, R, L, S> {
    fn from_parts(
        space: &S,
        label: &str,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Result<Self> {
        checked_count::<T>(label, &extents)?;
        let span = checked_span(&extents, &strides).ok_or_else(|| too_large(label))?;
        let bytes = bytes_for::<T>(label, span)?;
        let buffer = space.allocate(label, bytes, std::mem::align_of::<T>())?;
        crate::profiling::each(|h| h.allocate(S::NAME, label, bytes));
        Ok(Self::wrap(space.clone(), buffer, label, extents, strides))
    }

    fn wrap(
        space: S,
        buffer: S::Buffer,
        label: &str,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Self {
        Self::wrap_flag(
            space,
            buffer,
            label,
            extents,
            strides,
            BorrowFlag::default(),
        )
    }

    fn wrap_flag(
        space: S,
        buffer: S::Buffer,
        label: &str,
        extents: [usize; R],
        strides: [usize; R],
        borrow: BorrowFlag,
    ) -> Self {
        let alloc = Allocation {
            buffer,
            space,
            label: label.to_string(),
            borrow,
            alias: None,
            watch: OnceLock::new(),
        };
        View {
            alloc: Arc::new(alloc),
            offset: 0,
            extents,
            strides,
            _p: PhantomData,
        }
    }

    /// Allocates a zero-filled View in `space`. `LayoutStride` Views get row-major strides.
    pub fn new_in(space: &S, label: &str, extents: [usize; R]) -> Result<Self> {
        checked_count::<T>(label, &extents)?;
        Self::from_parts(space, label, extents, default_strides::<L, R>(&extents))
    }

    /// Allocates a zero-filled View in the memory of execution space `space` (Kokkos'
    /// `View<T*, ExecSpace>("label", n)`).
    ///
    /// ```
    /// use rokkos_core::{ExecutionSpace, View, LayoutRight, HostSpace};
    /// # #[derive(Clone, Debug)] struct Host;
    /// # fn make<E: ExecutionSpace<Memory = HostSpace>>(space: &E) -> rokkos_core::Result<()> {
    /// let x = View::<f64, 1, LayoutRight, HostSpace>::new_on(space, "x", [8])?;
    /// assert_eq!(x.extents(), [8]);
    /// # Ok(()) }
    /// ```
    pub fn new_on<E: crate::ExecutionSpace<Memory = S>>(
        space: &E,
        label: &str,
        extents: [usize; R],
    ) -> Result<Self> {
        Self::new_in(&space.memory_space(), label, extents)
    }

    /// Allocates a View without an initialisation pass (Kokkos' `WithoutInitializing`).
    ///
    /// Device spaces skip the fill. Host memory is still zero (reading uninitialised memory would be
    /// undefined behaviour in Rust), but it comes from untouched pages, so no pass over it is made and
    /// the first kernel that writes it is the first to touch it.
    pub fn new_uninit_in(space: &S, label: &str, extents: [usize; R]) -> Result<Self> {
        Self::new_in(space, label, extents)
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.alloc.label
    }
    /// Extents of every dimension.
    pub fn extents(&self) -> [usize; R] {
        self.extents
    }
    /// Extent of dimension `k` (0 for `k >= R`, so that rank-generic code can ask freely).
    pub fn extent(&self, k: usize) -> usize {
        self.extents.get(k).copied().unwrap_or(0)
    }
    /// Strides (in elements) of every dimension.
    pub fn strides(&self) -> [usize; R] {
        self.strides
    }
    /// Stride of dimension `k` (0 for `k >= R`).
    pub fn stride(&self, k: usize) -> usize {
        self.strides.get(k).copied().unwrap_or(0)
    }
    /// The rank.
    pub const fn rank(&self) -> usize {
        R
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.extents.iter().product()
    }
    /// Number of elements between the first and one past the last addressed element.
    pub fn span(&self) -> usize {
        span_of(&self.extents, &self.strides)
    }
    /// True when the elements occupy exactly `size()` consecutive slots.
    pub fn is_contiguous(&self) -> bool {
        self.span() == self.size()
    }
    /// The layout.
    pub fn layout(&self) -> LayoutKind {
        L::KIND
    }
    /// Number of View handles sharing this allocation.
    pub fn use_count(&self) -> usize {
        Arc::strong_count(&self.alloc)
    }
    /// The memory space holding the data.
    pub fn memory_space(&self) -> &S {
        &self.alloc.space
    }
    /// True when both Views address the same allocation.
    pub fn shares_allocation_with<U: Pod, const R2: usize, L2: Layout>(
        &self,
        other: &View<U, R2, L2, S>,
    ) -> bool {
        Arc::ptr_eq(&self.alloc, &other.alloc)
    }

    /// The same View seen through `LayoutStride` (always possible).
    pub fn to_layout_stride(&self) -> View<T, R, LayoutStride, S> {
        View {
            alloc: self.alloc.clone(),
            offset: self.offset,
            extents: self.extents,
            strides: self.strides,
            _p: PhantomData,
        }
    }

    /// The same View seen through layout `L2`, when its strides are exactly `L2`'s contiguous strides
    /// for these extents; otherwise `Err(ShapeMismatch)`.
    pub fn try_layout<L2: Layout>(&self) -> Result<View<T, R, L2, S>> {
        let ok = match L2::contiguous_strides(&self.extents) {
            None => true,
            Some(s) => (0..R).all(|k| self.extents[k] <= 1 || s[k] == self.strides[k]),
        };
        if !ok {
            return Err(Error::shape(format!(
                "View `{}` with strides {} is not {:?}",
                self.label(),
                fmt_index(&self.strides),
                L2::KIND
            )));
        }
        Ok(View {
            alloc: self.alloc.clone(),
            offset: self.offset,
            extents: self.extents,
            strides: self.strides,
            _p: PhantomData,
        })
    }

    /// A View of part of this one: one argument per dimension, each an index (`usize`, drops the
    /// dimension), a range (`a..b`, `a..`, `..b`, `a..=b`) or `..` (all). The result has rank `R2`,
    /// the number of dimensions kept (checked: `Err(ShapeMismatch)` when it differs), and
    /// `LayoutStride`; use [`View::try_layout`] to get a contiguous layout back.
    ///
    /// ```
    /// use rokkos_core::{View, LayoutStride};
    /// let a = View::<i32, 3>::from_fn("a", [2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as i32).unwrap();
    /// let s: View<i32, 2, LayoutStride> = a.subview((1, .., 1..3)).unwrap();
    /// assert_eq!(s.extents(), [3, 2]);
    /// assert_eq!(s.get((2, 1)), 122);
    /// ```
    pub fn subview<const R2: usize>(
        &self,
        spec: impl SubviewSpec<R>,
    ) -> Result<View<T, R2, LayoutStride, S>> {
        let args = spec.into_args();
        let mut extents = [0usize; R2];
        let mut strides = [0usize; R2];
        // (first index, stride) of every dimension, for the offset of a non-empty result.
        let mut starts = [(0usize, 0usize); R];
        let mut kept = 0usize;
        let bad = |what: String| {
            Err(Error::shape(format!(
                "subview of `{}`: {what}",
                self.label()
            )))
        };
        for (k, arg) in args.iter().enumerate() {
            let e = self.extents[k];
            let (a, len) = match *arg {
                SliceArg::Index(i) => {
                    if i >= e {
                        return bad(format!("index {i} out of extent {e} in dimension {k}"));
                    }
                    starts[k] = (i, self.strides[k]);
                    continue;
                }
                SliceArg::Range(a, b) => {
                    let b = b.unwrap_or(e);
                    if a > b || b > e {
                        return bad(format!(
                            "range {a}..{b} outside extent {e} in dimension {k}"
                        ));
                    }
                    (a, b - a)
                }
                SliceArg::RangeInclusive(a, b) => {
                    // `b < e` first: then `b + 1` cannot overflow.
                    if b >= e || a > b + 1 {
                        return bad(format!(
                            "range {a}..={b} outside extent {e} in dimension {k}"
                        ));
                    }
                    (a, b + 1 - a)
                }
            };
            if kept < R2 {
                extents[kept] = len;
                strides[kept] = self.strides[k];
            }
            kept += 1;
            starts[k] = (a, self.strides[k]);
        }
        if kept != R2 {
            return bad(format!(
                "keeps {kept} dimensions but the result was asked to have rank {R2}"
            ));
        }
        // An empty result keeps this View's offset: its own first index may lie past the
        // allocation (e.g. `1..1` of an extent-1 dimension next to a non-empty one), and a View's
        // offset must stay inside its allocation.
        let offset = if extents.contains(&0) {
            self.offset
        } else {
            // Every start is below its extent here, so the sum stays inside this View's span;
            // checked all the same.
            starts
                .iter()
                .try_fold(self.offset, |o, &(a, st)| o.checked_add(a.checked_mul(st)?))
                .ok_or_else(|| {
                    Error::shape(format!("subview of `{}`: offset overflows", self.label()))
                })?
        };
        Ok(View {
            alloc: self.alloc.clone(),
            offset,
            extents,
            strides,
            _p: PhantomData,
        })
    }

    fn byte_range(&self) -> (usize, usize) {
        let sz = std::mem::size_of::<T>();
        (self.offset * sz, (self.offset + self.span()) * sz)
    }

    /// Describes this View as a kernel argument (used by `#[rokkos::kernel]`).
    #[doc(hidden)]
    pub fn __kernel_arg(&self, param: &'static str, writable: bool) -> ViewArg<'_> {
        ViewArg {
            param,
            label: &self.alloc.label,
            allocation: Arc::as_ptr(&self.alloc) as *const u8 as usize,
            bytes: self.byte_range(),
            writable,
            borrow: self.alloc.flag(),
            watch: self.alloc.watch().map(WatchRef),
        }
    }

    /// The allocation of this View, as a `parallel_reduce_into` result the launch holds.
    pub(crate) fn result_arg(&self) -> ResultArg<'_> {
        ResultArg {
            borrow: self.alloc.flag(),
            label: &self.alloc.label,
            bytes: self.byte_range(),
            watch: self.alloc.watch(),
        }
    }

    /// Attaches `watch` to this View's allocation: from now on every access to it, through any
    /// View of it (clones, subviews, host mirrors aliasing its memory), reports to `watch`, which
    /// may refuse it (see [`crate::watch`], with an example). `Err(InvalidArgument)` when the
    /// allocation has a watch already (one owner per allocation).
    pub fn watch(&self, watch: Arc<dyn AccessWatch>) -> Result<()> {
        self.alloc.watch.set(watch).map_err(|_| {
            Error::InvalidArgument(format!(
                "View `{}` is watched already (an allocation has one watch)",
                self.label()
            ))
        })
    }

    /// Whether accesses to this View report to a watch ([`View::watch`]): its allocation's own,
    /// or, for a host mirror aliasing another allocation's memory, that allocation's.
    pub fn is_watched(&self) -> bool {
        self.alloc.watch().is_some()
    }

    /// A second host View of this View's memory when that memory is host memory (a `HostSpace`
    /// View, or a View whose space keeps it in host memory such as a `DeviceView` of a `Device`
    /// on serial or rayon), else `None`. It has the same elements, label and borrow flag (guards,
    /// copies and launches through either exclude each other as on one View, and `deep_copy`
    /// between the two moves nothing) but an allocation record of its own, so it can carry a
    /// watch of its own ([`View::watch`]); until it does, it reports to this View's.
    ///
    /// ```
    /// use rokkos_core::View;
    /// let a = View::<u8>::new("a", [3]).unwrap();
    /// let b = a.host_twin().unwrap();
    /// b.set(1, 7);
    /// assert_eq!(a.get(1), 7);
    /// assert!(!b.shares_allocation_with(&a));
    /// ```
    pub fn host_twin(&self) -> Option<View<T, R, L, HostSpace>> {
        if let Some(h) = (&self.alloc.buffer as &dyn std::any::Any).downcast_ref::<HostBuffer>() {
            if std::any::TypeId::of::<S>() == std::any::TypeId::of::<HostSpace>() {
                // A `HostSpace` buffer is its own host storage: the alias addresses exactly
                // this View's bytes, as `host_alias` does for a `HostStorage`.
                return Some(self.alias_over(HostBuffer::alias_of(h)));
            }
        }
        self.host_alias()
    }

    /// The View as a device backend binds it (see [`crate::kernel::ViewBinding`]).
    #[doc(hidden)]
    pub fn __binding(
        &self,
        param: &'static str,
        writable: bool,
    ) -> crate::kernel::ViewBinding<'_, S>
    where
        T: crate::ir::build::IrScalar,
    {
        crate::kernel::ViewBinding {
            param,
            label: &self.alloc.label,
            buffer: &self.alloc.buffer,
            elem: T::TYPE,
            offset: self.offset,
            extents: &self.extents,
            strides: &self.strides,
            writable,
        }
    }

    /// The host address of element `[0; R]` (for views handed to other array libraries).
    #[cfg(feature = "ndarray")]
    pub(crate) fn host_ptr_at_origin(&self) -> *mut T {
        self.raw_ptr()
    }

    fn raw_ptr(&self) -> *mut T {
        match S::host_ptr(&self.alloc.buffer) {
            // SAFETY: offset is within the allocation (every constructor keeps offset + span inside it).
            Some(p) => unsafe { (p.as_ptr() as *mut T).add(self.offset) },
            None => std::ptr::NonNull::dangling().as_ptr(),
        }
    }

    /// Read accessor for a kernel's native body.
    ///
    /// # Safety
    /// `S::host_ptr` of this View's buffer must keep [`HostAccessible`]'s promises (`S` is host
    /// accessible, or the buffer projects onto host-accessible memory: [`crate::ProjectMemory`]),
    /// and nothing may write the View while the accessor lives.
    #[doc(hidden)]
    pub unsafe fn __read_access(&self, kernel: &'static str) -> ReadAccess<'_, T, R, L> {
        ReadAccess::new(
            self.raw_ptr(),
            self.extents,
            self.strides,
            &self.alloc.label,
            kernel,
        )
    }

    /// Write accessor for a kernel's native body.
    ///
    /// # Safety
    /// As for [`View::__read_access`] about `S`, and nothing else may access the View while the
    /// accessor lives except through the accessor under the owner-computes rule.
    #[doc(hidden)]
    pub unsafe fn __write_access(&self, kernel: &'static str) -> WriteAccess<'_, T, R, L> {
        WriteAccess::new(
            self.raw_ptr(),
            self.extents,
            self.strides,
            &self.alloc.label,
            kernel,
        )
    }

    pub(crate) fn buffer(&self) -> &S::Buffer {
        &self.alloc.buffer
    }

    /// Whether `self` and `other` address exactly the same elements (one allocation, or a host
    /// alias of it, at the same offset with the same strides; the caller compares the extents).
    pub(crate) fn same_elements_as<U: Pod, L2: Layout, S2: MemorySpace>(
        &self,
        other: &View<U, R, L2, S2>,
    ) -> bool {
        std::ptr::eq(self.alloc.flag(), other.alloc.flag())
            && std::mem::size_of::<T>() == std::mem::size_of::<U>()
            && self.offset == other.offset
            && self.strides == other.strides
    }

    /// This View as a host View of the same memory, when its memory space keeps its buffer in
    /// ordinary host memory ([`MemorySpace::host_storage`]): same elements, same label, and the
    /// same borrow flag, so that guards on the host View and launches or copies through this one
    /// exclude each other as they would on one View.
    pub(crate) fn host_alias(&self) -> Option<View<T, R, L, HostSpace>> {
        let storage = S::host_storage(&self.alloc.buffer)?;
        // The offset and strides address the host buffer exactly as they address this View's
        // own (`HostStorage::new`'s contract: the same bytes from the same base), so the span
        // checked when this View was made lies in it.
        Some(self.alias_over(HostBuffer::alias_of(storage.host())))
    }

    /// A host View over `buffer`, an alias of this View's own bytes, sharing its borrow flag and
    /// keeping its allocation alive.
    fn alias_over(&self, buffer: HostBuffer) -> View<T, R, L, HostSpace> {
        let alloc = Allocation {
            buffer,
            space: HostSpace,
            label: self.alloc.label.clone(),
            borrow: BorrowFlag::default(),
            alias: Some(Aliased(self.alloc.clone())),
            watch: OnceLock::new(),
        };
        View {
            alloc: Arc::new(alloc),
            offset: self.offset,
            extents: self.extents,
            strides: self.strides,
            _p: PhantomData,
        }
    }
}

impl<T: Pod, const R: usize> View<T, R, LayoutStride, HostSpace> {
    /// Allocates a zero-filled host View with explicit strides; see [`View::new_strided_in`].
    pub fn new_strided(label: &str, extents: [usize; R], strides: [usize; R]) -> Result<Self> {
        Self::new_strided_in(&HostSpace, label, extents, strides)
    }
}

impl<T: Pod, const R: usize, S: MemorySpace> View<T, R, LayoutStride, S> {
    /// Allocates a zero-filled View with explicit strides in `space`; `Err(InvalidArgument)` when two
    /// indices would share an element, `Err(OutOfMemory)` when the span (or the element count or
    /// byte size) overflows.
    pub fn new_strided_in(
        space: &S,
        label: &str,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Result<Self> {
        // First: the injectivity check also fails when the span overflows, and would call that
        // an overlap.
        checked_count::<T>(label, &extents)?;
        checked_span(&extents, &strides).ok_or_else(|| too_large(label))?;
        if !strides_are_injective(&extents, &strides) {
            return Err(Error::InvalidArgument(format!(
                "strides {} overlap for extents {} (View `{label}`)",
                fmt_index(&strides),
                fmt_index(&extents)
            )));
        }
        Self::from_parts(space, label, extents, strides)
    }
}

impl<T: Pod, const R: usize, L: Layout> View<T, R, L, HostSpace> {
    /// A zero-filled host View in memory that `allocate(bytes, align)` provides (a mirror's, from
    /// [`MemorySpace::allocate_mirror`]); `Err(InvalidArgument)` when that memory is too short or
    /// misaligned for the View.
    pub(crate) fn with_host_memory(
        label: &str,
        extents: [usize; R],
        allocate: impl FnOnce(usize, usize) -> Result<HostBuffer>,
    ) -> Result<Self> {
        checked_count::<T>(label, &extents)?;
        let strides = default_strides::<L, R>(&extents);
        let span = checked_span(&extents, &strides).ok_or_else(|| too_large(label))?;
        let bytes = bytes_for::<T>(label, span)?;
        let align = std::mem::align_of::<T>();
        let buffer = allocate(bytes, align)?;
        if buffer.len_bytes() < bytes || buffer.addr() % align != 0 {
            return Err(Error::InvalidArgument(format!(
                "host memory for View `{label}`: {} bytes at address {:#x}, needed {bytes} aligned to {align}",
                buffer.len_bytes(),
                buffer.addr()
            )));
        }
        crate::profiling::each(|h| h.allocate(HostSpace::NAME, label, bytes));
        Ok(Self::wrap(HostSpace, buffer, label, extents, strides))
    }

    /// A View over `buffer` (adopted host memory) with the given addressing. The caller checked
    /// that `offset` plus the span of `extents` / `strides` lies inside `buffer`, and that the
    /// strides are injective.
    #[cfg(feature = "ndarray")]
    pub(crate) fn adopt(
        buffer: HostBuffer,
        label: &str,
        extents: [usize; R],
        strides: [usize; R],
        offset: usize,
    ) -> Self {
        let mut v = Self::wrap(HostSpace, buffer, label, extents, strides);
        v.offset = offset;
        v
    }

    /// Allocates a zero-filled host View.
    pub fn new(label: &str, extents: [usize; R]) -> Result<Self> {
        Self::new_in(&HostSpace, label, extents)
    }
    /// Allocates a host View without an initialisation pass; see [`View::new_uninit_in`].
    pub fn new_uninit(label: &str, extents: [usize; R]) -> Result<Self> {
        Self::new_uninit_in(&HostSpace, label, extents)
    }
    /// A host View filled with `f(index)`.
    pub fn from_fn(
        label: &str,
        extents: [usize; R],
        mut f: impl FnMut([usize; R]) -> T,
    ) -> Result<Self> {
        let v = Self::new(label, extents)?;
        {
            let mut g = v.host_mut();
            crate::index::for_each_index(&extents, |idx| g[*idx] = f(*idx));
        }
        Ok(v)
    }
    /// Adopts `data` without copying; it is read in the View's layout order (`LayoutStride` Views
    /// get row-major strides). `Err(ShapeMismatch)` when its length is not the element count,
    /// `Err(OutOfMemory)` when the element count overflows `usize`.
    pub fn from_vec(label: &str, extents: [usize; R], data: Vec<T>) -> Result<Self> {
        let n = checked_count::<T>(label, &extents)?;
        if data.len() != n {
            return Err(Error::shape(format!(
                "View `{label}` with extents {} needs {n} elements, got {}",
                fmt_index(&extents),
                data.len()
            )));
        }
        Ok(Self::wrap(
            HostSpace,
            HostBuffer::from_vec(data),
            label,
            extents,
            default_strides::<L, R>(&extents),
        ))
    }
    /// An unmanaged View over caller memory that lives for the rest of the program (for example a
    /// leaked `Box` or a `static mut` region handed out once). For temporary caller data, adopt it with
    /// [`View::from_vec`] instead: that costs no copy either. `Err(ShapeMismatch)` when the
    /// slice's length is not the element count, `Err(OutOfMemory)` when that count overflows.
    pub fn unmanaged(label: &str, data: &'static mut [T], extents: [usize; R]) -> Result<Self> {
        let n = checked_count::<T>(label, &extents)?;
        if data.len() != n {
            return Err(Error::shape(format!(
                "unmanaged View `{label}` with extents {} needs {n} elements, got {}",
                fmt_index(&extents),
                data.len()
            )));
        }
        Ok(Self::wrap(
            HostSpace,
            HostBuffer::from_static(data),
            label,
            extents,
            default_strides::<L, R>(&extents),
        ))
    }

    /// A read-only unmanaged View over caller memory that lives for the rest of the program and
    /// that nothing may write (memory another owner lends only for reading, such as a read-only
    /// NumPy array or a mapped file). Kernels may take it as a read-only parameter and host code
    /// may read it; every write is refused: a kernel taking it as a writable parameter, a
    /// `deep_copy` or `fill` into it, `host_mut()` and `set` answer `Err(Aliasing)` (or panic,
    /// for the panicking guards) saying that the View is read-only. `Err(ShapeMismatch)` when
    /// the slice's length is not the element count, `Err(OutOfMemory)` when that count overflows.
    ///
    /// ```
    /// use rokkos_core::View;
    /// static DATA: [f64; 4] = [1.0, 2.0, 3.0, 4.0];
    /// let v = View::<f64, 2>::unmanaged_read_only("data", &DATA, [2, 2])?;
    /// assert_eq!(v.get((1, 0)), 3.0);
    /// assert!(v.try_host_mut().is_err());
    /// assert!(rokkos_core::fill(&v, 0.0).is_err());
    /// assert_eq!(v.to_vec(), DATA);
    /// # Ok::<(), rokkos_core::Error>(())
    /// ```
    pub fn unmanaged_read_only(
        label: &str,
        data: &'static [T],
        extents: [usize; R],
    ) -> Result<Self> {
        let n = checked_count::<T>(label, &extents)?;
        if data.len() != n {
            return Err(Error::shape(format!(
                "unmanaged View `{label}` with extents {} needs {n} elements, got {}",
                fmt_index(&extents),
                data.len()
            )));
        }
        Ok(Self::wrap_flag(
            HostSpace,
            HostBuffer::from_static_read_only(data),
            label,
            extents,
            default_strides::<L, R>(&extents),
            BorrowFlag::read_only(),
        ))
    }
}

#[cold]
#[inline(never)]
fn host_oob(label: &str, idx: &[usize], extents: &[usize]) -> ! {
    panic!(
        "index {} out of bounds for View `{label}` with extents {}",
        fmt_index(idx),
        fmt_index(extents)
    )
}

/// Why a write to a [`View::unmanaged_read_only`] View is refused.
pub(crate) const READ_ONLY: &str =
    "is read-only (an unmanaged View over memory lent only for reading): nothing may write it";

#[cold]
#[inline(never)]
fn borrow_conflict(label: &str, what: &str) -> ! {
    panic!("View `{label}`: {what}")
}

#[cold]
#[inline(never)]
fn watch_refused(e: &Error) -> ! {
    panic!("{e}")
}

impl<T: Pod, const R: usize, L: Layout, S: HostAccessible> View<T, R, L, S> {
    #[inline(always)]
    fn host_offset(&self, idx: &[usize; R]) -> usize {
        if !in_bounds(idx, &self.extents) {
            host_oob(self.label(), idx, &self.extents);
        }
        L::offset(idx, &self.strides)
    }

    /// Reads one element. Panics, like slice indexing, when the index is out of bounds, and, like
    /// `RefCell`, when a [`View::host_mut`] guard on the allocation (or a launch writing it) is
    /// alive, on any thread.
    #[inline]
    pub fn get<I: ViewIndex<R>>(&self, i: I) -> T {
        let off = self.host_offset(&i.to_array());
        // Held for the read itself: another thread may be about to start a launch on the View.
        let Some(_hold) = Hold::shared(self.alloc.flag()) else {
            borrow_conflict(
                self.label(),
                "read while a host_mut() guard (or a launch writing it) is alive",
            );
        };
        self.host_access_or_panic("get", false);
        // SAFETY: in bounds; the shared hold excludes every writer and `&mut` for the read.
        unsafe { *self.raw_ptr().add(off) }
    }

    /// Writes one element. Panics, like slice indexing, when the index is out of bounds, and, like
    /// `RefCell`, when a host guard on the allocation (or a launch using it) is alive, on any
    /// thread.
    #[inline]
    pub fn set<I: ViewIndex<R>>(&self, i: I, v: T) {
        let off = self.host_offset(&i.to_array());
        let Some(_hold) = Hold::exclusive(self.alloc.flag()) else {
            borrow_conflict(
                self.label(),
                if self.alloc.flag().is_read_only() {
                    READ_ONLY
                } else {
                    "written while a host()/host_mut() guard (or a launch using it) is alive"
                },
            );
        };
        self.host_access_or_panic("set", true);
        // SAFETY: in bounds; the exclusive hold excludes every other access for the write.
        unsafe { *self.raw_ptr().add(off) = v }
    }

    /// Shared host access: indexing returns references. Panics, like `RefCell::borrow`, while a
    /// [`View::host_mut`] guard on the allocation (or a launch writing it) is alive.
    pub fn host(&self) -> HostRef<'_, T, R, L, S> {
        match Hold::shared(self.alloc.flag()) {
            Some(hold) => {
                self.host_access_or_panic("host()", false);
                HostRef {
                    view: self,
                    _hold: hold,
                }
            }
            None => borrow_conflict(
                self.label(),
                "host() while a host_mut() guard (or a launch writing it) is alive",
            ),
        }
    }

    /// As [`View::host`], answering `Err(Aliasing)` instead of panicking while a conflicting
    /// guard or launch is alive (for code that shares the View between threads).
    pub fn try_host(&self) -> Result<HostRef<'_, T, R, L, S>> {
        match Hold::shared(self.alloc.flag()) {
            Some(hold) => {
                self.host_access("try_host()", false)?;
                Ok(HostRef {
                    view: self,
                    _hold: hold,
                })
            }
            None => Err(self.guard_conflict("host()")),
        }
    }

    /// As [`View::host_mut`], answering `Err(Aliasing)` instead of panicking while any other
    /// guard or launch on the allocation is alive.
    pub fn try_host_mut(&self) -> Result<HostMut<'_, T, R, L, S>> {
        match Hold::exclusive(self.alloc.flag()) {
            Some(hold) => {
                self.host_access("try_host_mut()", true)?;
                Ok(HostMut {
                    view: self,
                    _hold: hold,
                })
            }
            None => Err(self.guard_conflict("host_mut()")),
        }
    }

    /// Reports a host access to the allocation's watch ([`crate::watch`]), if it has one; the
    /// caller holds the flag.
    #[inline(always)]
    fn host_access(&self, op: &'static str, write: bool) -> Result<()> {
        let Some(w) = self.alloc.watch() else {
            return Ok(());
        };
        let access = Access {
            kind: AccessKind::Host { op },
            write,
            label: self.label(),
        };
        observe(Some(w), access)
    }

    /// As [`View::host_access`], panicking with the watch's error (as on a conflicting guard).
    #[inline(always)]
    fn host_access_or_panic(&self, op: &'static str, write: bool) {
        if let Err(e) = self.host_access(op, write) {
            watch_refused(&e);
        }
    }

    #[cold]
    fn guard_conflict(&self, what: &str) -> Error {
        let why = if self.alloc.flag().is_read_only() {
            READ_ONLY
        } else {
            "is borrowed by another host guard or a launch in progress"
        };
        Error::Aliasing {
            kernel: what.to_string(),
            reason: format!("View `{}` {why}", self.label()),
        }
    }

    /// Exclusive host access: indexing returns mutable references. Panics, like
    /// `RefCell::borrow_mut`, while any other guard on the allocation (or a launch using it) is
    /// alive.
    pub fn host_mut(&self) -> HostMut<'_, T, R, L, S> {
        match Hold::exclusive(self.alloc.flag()) {
            Some(hold) => {
                self.host_access_or_panic("host_mut()", true);
                HostMut {
                    view: self,
                    _hold: hold,
                }
            }
            None => borrow_conflict(
                self.label(),
                if self.alloc.flag().is_read_only() {
                    READ_ONLY
                } else {
                    "host_mut() while another host guard (or a launch using it) is alive"
                },
            ),
        }
    }

    /// The elements in row-major index order (whatever the layout).
    pub fn to_vec(&self) -> Vec<T> {
        let g = self.host();
        let mut out = Vec::with_capacity(self.size());
        crate::index::for_each_index(&self.extents, |idx| out.push(g[*idx]));
        out
    }
}

/// Shared host borrow of a View's elements; see [`View::host`].
pub struct HostRef<'a, T: Pod, const R: usize, L: Layout, S: HostAccessible> {
    view: &'a View<T, R, L, S>,
    _hold: Hold<'a>,
}

/// Exclusive host borrow of a View's elements; see [`View::host_mut`].
pub struct HostMut<'a, T: Pod, const R: usize, L: Layout, S: HostAccessible> {
    view: &'a View<T, R, L, S>,
    _hold: Hold<'a>,
}

impl<'a, T: Pod, const R: usize, L: Layout, S: HostAccessible> HostRef<'a, T, R, L, S> {
    /// The View this guard borrows.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    pub(crate) fn view(&self) -> &'a View<T, R, L, S> {
        self.view
    }
}
impl<'a, T: Pod, const R: usize, L: Layout, S: HostAccessible> HostMut<'a, T, R, L, S> {
    /// The View this guard borrows.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    pub(crate) fn view(&self) -> &'a View<T, R, L, S> {
        self.view
    }
}

impl<T: Pod, const R: usize, L: Layout, S: HostAccessible> HostRef<'_, T, R, L, S> {
    /// The elements as a slice in memory order, when the View is contiguous.
    pub fn as_slice(&self) -> Option<&[T]> {
        // SAFETY: contiguous: `size` consecutive elements from the View's start; shared borrow held.
        self.view
            .is_contiguous()
            .then(|| unsafe { std::slice::from_raw_parts(self.view.raw_ptr(), self.view.size()) })
    }
}
impl<T: Pod, const R: usize, L: Layout, S: HostAccessible> HostMut<'_, T, R, L, S> {
    /// The elements as a slice in memory order, when the View is contiguous.
    pub fn as_slice(&self) -> Option<&[T]> {
        // SAFETY: as `HostRef::as_slice`; exclusive borrow held.
        self.view
            .is_contiguous()
            .then(|| unsafe { std::slice::from_raw_parts(self.view.raw_ptr(), self.view.size()) })
    }
    /// The elements as a mutable slice in memory order, when the View is contiguous.
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        // SAFETY: as above; `&mut self` makes the slice unique among this guard's borrows.
        self.view.is_contiguous().then(|| unsafe {
            std::slice::from_raw_parts_mut(self.view.raw_ptr(), self.view.size())
        })
    }
}

impl<T: Pod, const R: usize, L: Layout, S: HostAccessible, I: ViewIndex<R>> std::ops::Index<I>
    for HostRef<'_, T, R, L, S>
{
    type Output = T;
    #[inline]
    fn index(&self, i: I) -> &T {
        let off = self.view.host_offset(&i.to_array());
        // SAFETY: in bounds; shared borrow held.
        unsafe { &*self.view.raw_ptr().add(off) }
    }
}
impl<T: Pod, const R: usize, L: Layout, S: HostAccessible, I: ViewIndex<R>> std::ops::Index<I>
    for HostMut<'_, T, R, L, S>
{
    type Output = T;
    #[inline]
    fn index(&self, i: I) -> &T {
        let off = self.view.host_offset(&i.to_array());
        // SAFETY: in bounds; exclusive borrow held.
        unsafe { &*self.view.raw_ptr().add(off) }
    }
}
impl<T: Pod, const R: usize, L: Layout, S: HostAccessible, I: ViewIndex<R>> std::ops::IndexMut<I>
    for HostMut<'_, T, R, L, S>
{
    #[inline]
    fn index_mut(&mut self, i: I) -> &mut T {
        let off = self.view.host_offset(&i.to_array());
        // SAFETY: in bounds; exclusive borrow held and `&mut self` makes the reference unique.
        unsafe { &mut *self.view.raw_ptr().add(off) }
    }
}

/// One subview argument: an index (drops the dimension) or a range (keeps it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceArg {
    /// A single index.
    Index(usize),
    /// `start..end` (`None`: to the extent).
    Range(usize, Option<usize>),
    /// `start..=end`, kept apart from [`SliceArg::Range`] so that an end of `usize::MAX` needs no
    /// `+ 1` (it is out of every extent, and `subview` says so).
    RangeInclusive(usize, usize),
}

/// Converts subview arguments.
pub trait IntoSliceArg {
    /// The argument.
    fn into_slice_arg(self) -> SliceArg;
}
impl IntoSliceArg for usize {
    fn into_slice_arg(self) -> SliceArg {
        SliceArg::Index(self)
    }
}
impl IntoSliceArg for SliceArg {
    fn into_slice_arg(self) -> SliceArg {
        self
    }
}

/// The [`SliceArg`] of a range given by its bounds; never overflows.
fn slice_of_bounds(start: Bound<&usize>, end: Bound<&usize>) -> SliceArg {
    let a = match start {
        Bound::Included(&a) => a,
        // No range type handed to `subview` has an excluded start; saturating keeps a start of
        // `usize::MAX` out of every non-empty extent all the same.
        Bound::Excluded(&a) => a.saturating_add(1),
        Bound::Unbounded => 0,
    };
    match end {
        Bound::Included(&b) => SliceArg::RangeInclusive(a, b),
        Bound::Excluded(&b) => SliceArg::Range(a, Some(b)),
        Bound::Unbounded => SliceArg::Range(a, None),
    }
}

macro_rules! range_arg {
    ($($t:ty),*) => {$(
        impl IntoSliceArg for $t {
            fn into_slice_arg(self) -> SliceArg {
                slice_of_bounds(self.start_bound(), self.end_bound())
            }
        }
    )*};
}
range_arg!(
    std::ops::Range<usize>,
    std::ops::RangeInclusive<usize>,
    std::ops::RangeFrom<usize>,
    std::ops::RangeTo<usize>,
    std::ops::RangeToInclusive<usize>,
    std::ops::RangeFull
);

/// The per-dimension arguments of [`View::subview`]: a tuple (or array) of [`IntoSliceArg`] values.
pub trait SubviewSpec<const R: usize> {
    /// The arguments.
    fn into_args(self) -> [SliceArg; R];
}
impl<A: IntoSliceArg, const R: usize> SubviewSpec<R> for [A; R] {
    fn into_args(self) -> [SliceArg; R] {
        self.map(|a| a.into_slice_arg())
    }
}
macro_rules! tuple_spec {
    ($r:literal; $($t:ident $v:ident),+) => {
        impl<$($t: IntoSliceArg),+> SubviewSpec<$r> for ($($t,)+) {
            fn into_args(self) -> [SliceArg; $r] {
                let ($($v,)+) = self;
                [$($v.into_slice_arg()),+]
            }
        }
    };
}
tuple_spec!(1; A a);
tuple_spec!(2; A a, B b);
tuple_spec!(3; A a, B b, C c);
tuple_spec!(4; A a, B b, C c, D d);
tuple_spec!(5; A a, B b, C c, D d, E e);
tuple_spec!(6; A a, B b, C c, D d, E e, F f);
tuple_spec!(7; A a, B b, C c, D d, E e, F f, G g);
tuple_spec!(8; A a, B b, C c, D d, E e, F f, G g, H h);

#[cfg(test)]
mod tests {
    use super::*;

    /// An element type aligned beyond the allocator's 64 bytes.
    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C, align(128))]
    struct Wide([u8; 128]);
    // SAFETY: an array of bytes with no padding (its size is its alignment), valid for any bits.
    unsafe impl bytemuck::Zeroable for Wide {}
    // SAFETY: as above.
    unsafe impl bytemuck::Pod for Wide {}

    /// `slice::from_raw_parts` (behind `as_slice` / `as_mut_slice`) needs a non-null pointer
    /// aligned for `T` even for an empty slice, and at most `isize::MAX` bytes: every host View's
    /// element pointer is one, whether it was allocated (empty: a dangling pointer aligned to the
    /// element, 64 bytes at least), adopted from a `Vec` (empty: the Vec's own dangling pointer),
    /// or an empty subview at the end of its allocation.
    #[test]
    fn host_slices_meet_from_raw_parts_preconditions() {
        fn check<T: Pod, const R: usize, L: Layout>(v: &View<T, R, L, HostSpace>, n: usize) {
            let mut g = v.host_mut();
            let s = g.as_mut_slice().expect("contiguous");
            assert_eq!(s.len(), n);
            let p = s.as_ptr() as usize;
            assert!(p != 0 && p % std::mem::align_of::<T>() == 0, "{p:#x}");
            assert!(std::mem::size_of_val(s) <= isize::MAX as usize);
        }
        check(&View::<Wide, 1>::new("w", [0]).unwrap(), 0);
        check(&View::<Wide, 1>::new("w", [3]).unwrap(), 3);
        check(&View::<Wide, 1>::from_vec("w", [0], Vec::new()).unwrap(), 0);
        check(&View::<u8, 2>::new("b", [0, 7]).unwrap(), 0);
        let a = View::<f64, 2>::from_fn("a", [3, 4], |[i, j]| (i * 4 + j) as f64).unwrap();
        let tail = a
            .subview::<2>((3..3, ..))
            .unwrap()
            .try_layout::<LayoutRight>()
            .unwrap();
        check(&tail, 0);
        let rows = a
            .subview::<2>((1..3, ..))
            .unwrap()
            .try_layout::<LayoutRight>()
            .unwrap();
        check(&rows, 8);
        assert_eq!(rows.host().as_slice().unwrap()[0], 4.0);
    }

    /// Strides whose span overflows are refused as such, not as an overlap; an empty View takes
    /// any strides.
    #[test]
    fn strided_span_overflow_is_not_an_overlap() {
        let r = View::<u8, 2, LayoutStride>::new_strided("wide", [3, 2], [usize::MAX / 2, 1]);
        match r {
            Err(e @ Error::OutOfMemory { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("`wide`") && msg.contains("span"), "{msg}");
                assert!(!msg.contains("overlap"), "{msg}");
            }
            other => panic!("expected OutOfMemory, got {other:?}"),
        }
        let r = View::<u8, 2, LayoutStride>::new_strided("bad", [3, 2], [1, 1]);
        assert!(
            matches!(&r, Err(Error::InvalidArgument(m)) if m.contains("overlap")),
            "{r:?}"
        );
        let empty = View::<u8, 2, LayoutStride>::new_strided("empty", [0, 3], [1, usize::MAX]);
        assert_eq!(empty.unwrap().span(), 0);
    }
}
