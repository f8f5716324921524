//! Handing a launch to another execution space: how a space chosen at run time (the facade's
//! `Device`) runs each launch on the backend it stands for, with kernels whose Views live in its
//! own memory space (a union of the backends' memories).
//!
//! A launch token made for the run-time space `D` reaches `D`'s pattern method, which calls
//! [`Launch::delegate`] with the same policy built for the chosen backend `E`
//! (`RangePolicy::with_space` and siblings). `delegate`:
//!
//! 1. validates that policy against `E`'s own limits (a token validated against `D`'s limits
//!    proves nothing about `E`'s; they agree when `D` asks `E`, and the check is cheap);
//! 2. projects every View argument's buffer of `D`'s memory onto a buffer of `E`'s memory through
//!    the `unsafe` trait [`ProjectMemory`], and answers `Err(InvalidArgument)` naming the View when
//!    one does not project (a View allocated for another backend);
//! 3. hands `E` a token for the kernel seen through [`Delegated`], whose memory space is `E`'s:
//!    the same label, the new policy, the same kernel value, and the *same* hold on the same
//!    argument allocations, taken by `crate::pattern` before `D`'s method was called.
//!
//! What stays true: only core makes tokens (there is still no public constructor, and
//! [`Delegated`] cannot be built outside this module); the aliasing checks and holds cover exactly
//! the buffers `E` receives, because a projection is the very storage of the buffer it projects
//! (the `unsafe` contract of [`ProjectMemory`]: safe code cannot make one up); and a native body
//! runs over host memory only: [`Launch::for_body`] needs `E`'s memory to be
//! [`HostAccessible`](crate::HostAccessible), and step 2 proved every argument projects into it.

use crate::error::{Error, Result};
use crate::kernel::{
    ForKernel, Kernel, KernelArg, KernelIr, ReduceKernel, ScanKernel, ViewArg, ViewBinding,
    WorkKind,
};
use crate::launch::Launch;
use crate::policy::Policy;
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

impl<'a, P: Policy, K: KernelIr> Launch<'a, P, K> {
    /// Runs this launch on the execution space of `policy` (the same work, built for that space:
    /// `RangePolicy::with_space` and siblings): validates `policy` against that space's limits
    /// (`Err(InvalidPolicy)`), projects every View argument onto that space's memory
    /// (`Err(InvalidArgument)` naming a View that lives elsewhere), then calls `run` with a token
    /// for the projected kernel that keeps this launch's hold on the arguments. See the module
    /// documentation.
    #[inline]
    pub fn delegate<P2, R>(
        &self,
        policy: &P2,
        run: impl FnOnce(Launch<'_, P2, Delegated<'a, K, MemoryOf<P2>>>) -> Result<R>,
    ) -> Result<R>
    where
        P2: Policy<Work = P::Work>,
        K::Space: ProjectMemory<MemoryOf<P2>>,
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
        run(self.reissue(policy, &kernel))
    }
}

impl<'a, M: MemorySpace> ResultSlot<'a, M> {
    /// The same result element seen as a slot of memory space `M2` (for a delegated launch), or
    /// `Err(InvalidArgument)` when the result View was allocated for another backend.
    pub fn project<M2: MemorySpace>(&self) -> Result<ResultSlot<'a, M2>>
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
