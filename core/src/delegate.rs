//! Handing a launch to another execution space: how a space chosen at run time (the facade's
//! `Device`) runs each launch on the backend it stands for, with kernels whose Views live in its
//! own memory space (a union of the backends' memories).
//!
//! A launch token made for the run-time space `D` reaches `D`'s pattern method, which calls
//! [`Launch::delegate`] with the same policy built for the chosen backend `E`
//! (`RangePolicy::with_space` and siblings) and the pattern method to run there ([`For`],
//! [`Reduce`], [`ReduceInto`], [`Scan`]):
//!
//! ```ignore
//! let policy = launch.policy().with_space(&backend);
//! launch.delegate(&policy, Reduce(reducer))
//! ```
//!
//! `delegate`:
//!
//! 1. validates that policy against `E`'s own limits (a token validated against `D`'s limits
//!    proves nothing about `E`'s; they agree when `D` asks `E`, and the check is cheap);
//! 2. projects every View argument's buffer of `D`'s memory onto a buffer of `E`'s memory through
//!    the `unsafe` trait [`ProjectMemory`], and answers `Err(InvalidArgument)` naming the View when
//!    one does not project (a View allocated for another backend);
//! 3. calls `E`'s own pattern method itself, with a token for the kernel seen through
//!    [`Delegated`], whose memory space is `E`'s: the same label, the new policy, the same kernel
//!    value, and the *same* hold on the same argument allocations, taken by `crate::pattern`
//!    before `D`'s method was called.
//!
//! What stays true: only core makes tokens (there is still no public constructor, and
//! [`Delegated`] cannot be built outside this module); the aliasing checks and holds cover exactly
//! the buffers `E` receives, because a projection is the very storage of the buffer it projects
//! (the `unsafe` contract of [`ProjectMemory`]: safe code cannot make one up); and a native body
//! runs over host memory only: [`Launch::for_body`] needs `E`'s memory to be
//! [`HostAccessible`](crate::HostAccessible), and step 2 proved every argument projects into it.
//!
//! **Why the token is consumed and the pattern is a value.** `ExecutionSpace` is a safe trait: any
//! user type can implement it and receive tokens. A token it could delegate twice, or a delegated
//! token it could hold itself, would let it call [`Launch::for_body`] of a [`HostBackend`]
//! space's token and run the `Sync` native body on two threads at once: two runs of one work item
//! at the same time, which owner computes does not cover. So `delegate` takes the token by value,
//! and the delegated token never reaches user code: [`DelegatePattern`] is sealed, its one method
//! takes a value only this module can make, and each implementation hands the token straight to
//! the target space's own pattern method. A token for a [`HostBackend`] space's policy therefore
//! reaches only that space's pattern methods (called by `crate::pattern` or here), which is what
//! the `HostBackend` contract promises about. A user space may still delegate to another user
//! space (which gets no native body) or to a backend with a different policy of the same work
//! kind: that is its own semantics, and every work item the backend runs is still run once at a
//! time and bounds checked.
//!
//! [`HostBackend`]: crate::HostBackend

use crate::error::{Error, Result};
use crate::kernel::{
    ForKernel, Kernel, KernelArg, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
    ViewArg, ViewBinding, WorkKind,
};
use crate::launch::Launch;
use crate::policy::{MDRangePolicy, Policy, RangePolicy, TeamPolicy};
use crate::reducer::Reducer;
use crate::space::{ExecutionSpace, MemorySpace, ResultSlot};
use std::marker::PhantomData;

/// A memory space whose buffers may each be the storage of a buffer of memory space `M`: what lets
/// a launch of a kernel over this space's Views run on an execution space whose memory is `M`
/// ([`Launch::delegate`]).
///
/// # Safety
/// When [`ProjectMemory::project`] returns `Some(m)` for a buffer `b`, `m` is the storage of `b`
/// itself (for example a field of it), alive as long as `b`: every access through `m` is an
/// access to `b`'s allocation, which launches check and hold as `b`'s. Two distinct buffers never
/// project to the same `M::Buffer`. `Self::host_ptr(b)` is `M::host_ptr(m)` (a native body reaches
/// the data through `Self::host_ptr`, and relies on `M`'s promises when `M` is
/// [`HostAccessible`](crate::HostAccessible)), and `Self::read_bytes` / `write_bytes` on `b` act
/// on the same bytes as `M`'s on `m`.
pub unsafe trait ProjectMemory<M: MemorySpace>: MemorySpace {
    /// The buffer of `M` that is `buffer`'s storage, or `None` when `buffer` belongs to another
    /// memory.
    fn project(buffer: &Self::Buffer) -> Option<&M::Buffer>;
}

/// A kernel whose Views live in a memory space that projects onto `M` ([`ProjectMemory`]), seen
/// as a kernel over `M`: what [`Launch::delegate`] hands the target execution space. Its IR,
/// name, arguments and native body are the kernel's own; only the buffers are projected. Built by
/// [`Launch::delegate`] only, after every View argument was seen to project.
pub struct Delegated<'a, K, M> {
    kernel: &'a K,
    _memory: PhantomData<fn() -> M>,
}

impl<K: Kernel, M: MemorySpace> Kernel for Delegated<'_, K, M>
where
    K::Space: ProjectMemory<M>,
{
    const NAME: &'static str = K::NAME;
    type Space = M;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        self.kernel.visit_views(f)
    }
}

impl<K: KernelIr, M: MemorySpace> KernelIr for Delegated<'_, K, M>
where
    K::Space: ProjectMemory<M>,
{
    fn build_ir() -> std::result::Result<crate::ir::Kernel, crate::ir::build::BuildError> {
        K::build_ir()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, M>)) {
        self.kernel.visit_args(&mut |a| match a {
            KernelArg::View(v) => {
                // Every View projected when the launch was delegated; a kernel value that reports
                // other Views the second time is left without them, which the device backend's
                // argument count check refuses.
                if let Some(b) = project_binding(v) {
                    f(KernelArg::View(b))
                }
            }
            KernelArg::Scalar(s) => f(KernelArg::Scalar(s)),
        })
    }
}

fn project_binding<S: ProjectMemory<M>, M: MemorySpace>(
    v: ViewBinding<'_, S>,
) -> Option<ViewBinding<'_, M>> {
    Some(ViewBinding {
        param: v.param,
        label: v.label,
        buffer: S::project(v.buffer)?,
        elem: v.elem,
        offset: v.offset,
        extents: v.extents,
        strides: v.strides,
        writable: v.writable,
    })
}

impl<W: WorkKind, K: ForKernel<W>, M: MemorySpace> ForKernel<W> for Delegated<'_, K, M>
where
    K::Space: ProjectMemory<M>,
{
    type Body<'b>
        = K::Body<'b>
    where
        Self: 'b;
    #[inline]
    unsafe fn bind(&self) -> K::Body<'_> {
        // SAFETY: our caller's contract (`M` host accessible, arguments checked and held, run as
        // `HostBackend` says) carries over to `K`: `Launch::delegate` built `self` only after
        // every View argument of `K` projected onto a buffer of `M`, so `K::Space::host_ptr` of
        // each is `M::host_ptr` of host-accessible storage (`ProjectMemory`'s contract).
        unsafe { self.kernel.bind() }
    }
}

impl<W: WorkKind, K: ReduceKernel<W>, M: MemorySpace> ReduceKernel<W> for Delegated<'_, K, M>
where
    K::Space: ProjectMemory<M>,
{
    type Value = K::Value;
    type Body<'b>
        = K::Body<'b>
    where
        Self: 'b;
    #[inline]
    unsafe fn bind(&self) -> K::Body<'_> {
        // SAFETY: as in `ForKernel::bind` above.
        unsafe { self.kernel.bind() }
    }
}

impl<W: WorkKind, K: ScanKernel<W>, M: MemorySpace> ScanKernel<W> for Delegated<'_, K, M>
where
    K::Space: ProjectMemory<M>,
{
    type Value = K::Value;
    type Body<'b>
        = K::Body<'b>
    where
        Self: 'b;
    #[inline]
    unsafe fn bind(&self) -> K::Body<'_> {
        // SAFETY: as in `ForKernel::bind` above.
        unsafe { self.kernel.bind() }
    }
}

/// The memory space of policy `P`'s execution space.
type MemoryOf<P> = <<P as Policy>::Space as ExecutionSpace>::Memory;

mod sealed {
    /// Only this module's pattern values ([`super::For`], [`super::Reduce`],
    /// [`super::ReduceInto`], [`super::Scan`]) implement [`super::DelegatePattern`].
    pub trait Sealed {}
    /// The proof that core itself calls [`super::DelegatePattern::__run`]: nothing outside this
    /// module can name or build one, so no user code can run a delegated token's pattern method.
    pub struct Seal;
}

/// `parallel_for`: [`Launch::delegate`] runs the target space's `for_range`, `for_mdrange` or
/// `for_team` (by the policy type).
#[derive(Debug, Clone, Copy, Default)]
pub struct For;

/// `parallel_reduce` with this reducer: [`Launch::delegate`] runs the target space's
/// `reduce_range`, `reduce_mdrange` or `reduce_team` and answers the reduced value.
#[derive(Debug)]
pub struct Reduce<'r, Rd>(pub &'r Rd);

/// `parallel_reduce_into` with this reducer and the result slot the delegating space received:
/// [`Launch::delegate`] projects the slot onto the target space's memory (`Err(InvalidArgument)`
/// when the result View was allocated for another backend) and runs its `reduce_*_into`.
pub struct ReduceInto<'r, 's, Rd, M: MemorySpace>(pub &'r Rd, pub ResultSlot<'s, M>);

impl<Rd, M: MemorySpace> std::fmt::Debug for ReduceInto<'_, '_, Rd, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReduceInto")
            .field("byte_offset", &self.1.byte_offset())
            .finish_non_exhaustive()
    }
}

/// `parallel_scan` with this reducer: [`Launch::delegate`] runs the target space's `scan_range`
/// and answers the total.
#[derive(Debug)]
pub struct Scan<'r, Rd>(pub &'r Rd);

/// Which pattern method of the target space a delegated launch runs ([`For`], [`Reduce`],
/// [`ReduceInto`], [`Scan`]), for a policy type `P` of that space and the delegating launch's
/// kernel `K`. Sealed, and its one method takes a value only core can make: the delegated token
/// goes straight from [`Launch::delegate`] to the target space's own pattern method, never
/// through user code.
pub trait DelegatePattern<P: Policy, K: Kernel>: sealed::Sealed {
    /// What the pattern method answers.
    type Output;
    /// Runs the pattern method of `launch.policy().space()` with `launch`. Called by
    /// [`Launch::delegate`] only (`seal` cannot be made elsewhere).
    #[doc(hidden)]
    fn __run(
        self,
        launch: Launch<'_, P, Delegated<'_, K, MemoryOf<P>>>,
        seal: sealed::Seal,
    ) -> Result<Self::Output>
    where
        K::Space: ProjectMemory<MemoryOf<P>>;
}

impl sealed::Sealed for For {}
impl<Rd> sealed::Sealed for Reduce<'_, Rd> {}
impl<Rd, M: MemorySpace> sealed::Sealed for ReduceInto<'_, '_, Rd, M> {}
impl<Rd> sealed::Sealed for Scan<'_, Rd> {}

/// The [`DelegatePattern`] impls of one policy type: `$for`, `$reduce`, `$into` are the target
/// space's pattern methods for it.
macro_rules! delegate_patterns {
    ($policy:ty, $work:ty, $for:ident, $reduce:ident, $into:ident $(, const $n:ident)?) => {
        impl<E: ExecutionSpace, $(const $n: usize,)? K> DelegatePattern<$policy, K> for For
        where
            K: ForKernel<$work> + KernelIr,
        {
            type Output = ();
            #[inline]
            fn __run(
                self,
                launch: Launch<'_, $policy, Delegated<'_, K, E::Memory>>,
                _: sealed::Seal,
            ) -> Result<()>
            where
                K::Space: ProjectMemory<E::Memory>,
            {
                launch.policy().space().$for(launch)
            }
        }
        impl<E: ExecutionSpace, $(const $n: usize,)? K, Rd> DelegatePattern<$policy, K>
            for Reduce<'_, Rd>
        where
            K: ReduceKernel<$work> + KernelIr,
            Rd: Reducer<K::Value>,
        {
            type Output = K::Value;
            #[inline]
            fn __run(
                self,
                launch: Launch<'_, $policy, Delegated<'_, K, E::Memory>>,
                _: sealed::Seal,
            ) -> Result<K::Value>
            where
                K::Space: ProjectMemory<E::Memory>,
            {
                launch.policy().space().$reduce(launch, self.0)
            }
        }
        impl<E: ExecutionSpace, $(const $n: usize,)? K, Rd, M> DelegatePattern<$policy, K>
            for ReduceInto<'_, '_, Rd, M>
        where
            M: MemorySpace,
            K: ReduceKernel<$work, Space = M> + KernelIr,
            K::Value: bytemuck::Pod,
            Rd: Reducer<K::Value>,
        {
            type Output = ();
            #[inline]
            fn __run(
                self,
                launch: Launch<'_, $policy, Delegated<'_, K, E::Memory>>,
                _: sealed::Seal,
            ) -> Result<()>
            where
                K::Space: ProjectMemory<E::Memory>,
            {
                let slot = self.1.project::<E::Memory>()?;
                launch.policy().space().$into(launch, self.0, slot)
            }
        }
    };
}
delegate_patterns!(
    RangePolicy<E>,
    RangeWork,
    for_range,
    reduce_range,
    reduce_range_into
);
delegate_patterns!(MDRangePolicy<E, N>, MDWork<N>, for_mdrange, reduce_mdrange, reduce_mdrange_into, const N);
delegate_patterns!(
    TeamPolicy<E>,
    TeamWork,
    for_team,
    reduce_team,
    reduce_team_into
);

impl<E: ExecutionSpace, K, Rd> DelegatePattern<RangePolicy<E>, K> for Scan<'_, Rd>
where
    K: ScanKernel<RangeWork> + KernelIr,
    Rd: Reducer<K::Value>,
{
    type Output = K::Value;
    #[inline]
    fn __run(
        self,
        launch: Launch<'_, RangePolicy<E>, Delegated<'_, K, E::Memory>>,
        _: sealed::Seal,
    ) -> Result<K::Value>
    where
        K::Space: ProjectMemory<E::Memory>,
    {
        launch.policy().space().scan_range(launch, self.0)
    }
}

impl<'a, P: Policy, K: KernelIr> Launch<'a, P, K> {
    /// Runs this launch on the execution space of `policy` (the same work, built for that space:
    /// `RangePolicy::with_space` and siblings), with that space's pattern method `pattern`
    /// ([`For`], [`Reduce`], [`ReduceInto`], [`Scan`]): validates `policy` against that space's
    /// limits (`Err(InvalidPolicy)`), projects every View argument onto that space's memory
    /// (`Err(InvalidArgument)` naming a View that lives elsewhere), then calls the pattern method
    /// itself with a token for the projected kernel that keeps this launch's hold on the
    /// arguments, and answers what it answers. See the module documentation.
    ///
    /// The token is consumed: one launch runs its work items once, on one space.
    #[inline]
    pub fn delegate<P2, D>(self, policy: &P2, pattern: D) -> Result<D::Output>
    where
        P2: Policy<Work = P::Work>,
        K::Space: ProjectMemory<MemoryOf<P2>>,
        D: DelegatePattern<P2, K>,
    {
        policy.check(self.label())?;
        let mut stray: Option<&str> = None;
        self.kernel().visit_args(&mut |a| {
            if let KernelArg::View(v) = a {
                if stray.is_none()
                    && <K::Space as ProjectMemory<MemoryOf<P2>>>::project(v.buffer).is_none()
                {
                    stray = Some(v.label);
                }
            }
        });
        if let Some(label) = stray {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: View `{label}` was allocated for another backend than `{}`, which runs the launch; \
                 allocate it on this execution space (`View::new_on`) or copy it there \
                 (`create_mirror_view_and_copy_in`)",
                K::NAME,
                policy.space_name()
            )));
        }
        let kernel = Delegated {
            kernel: self.kernel(),
            _memory: PhantomData,
        };
        pattern.__run(self.reissue(policy, &kernel), sealed::Seal)
    }
}

impl<'a, M: MemorySpace> ResultSlot<'a, M> {
    /// The same result element seen as a slot of memory space `M2` (for a delegated launch, by
    /// [`ReduceInto`]), or `Err(InvalidArgument)` when the result View was allocated for another
    /// backend. Consumes the slot: one slot per launch, written once.
    pub(crate) fn project<M2: MemorySpace>(self) -> Result<ResultSlot<'a, M2>>
    where
        M: ProjectMemory<M2>,
    {
        let buffer = M::project(self.buffer()).ok_or_else(|| {
            Error::InvalidArgument(
                "the result View of parallel_reduce_into was allocated for another backend than the one running the launch"
                    .to_string(),
            )
        })?;
        Ok(self.with_buffer(buffer))
    }
}
