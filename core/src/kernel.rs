//! The contract between `#[rokkos::kernel]` and the backends.
//!
//! For each kernel function the macro generates a *kernel value* (a struct holding references to the
//! argument Views and copies of the scalars) that implements [`Kernel`] and one of [`ForKernel`],
//! [`ReduceKernel`] or [`ScanKernel`] for its work kind ([`RangeWork`], [`MDWork`], [`TeamWork`]).
//! Host backends call `bind` to obtain the *native body*: the kernel's statements as ordinary Rust over
//! raw accessors ([`crate::access`]), `Sync`, with no per-element dispatch or allocation.
//!
//! The native body is sound to run from many threads at once because the macro admits only writes
//! that no two work items can share (see the crate documentation, "Soundness"), `crate::launch`
//! rejects launches whose writable arguments overlap another argument and holds every argument
//! allocation while the launch runs, and a [`crate::space::HostBackend`] never runs one work item
//! twice at once. Only core calls `bind`, through the launch token ([`crate::launch::Launch`]).

use crate::borrow::BorrowFlag;
use crate::space::MemorySpace;
use crate::team::TeamMember;

/// What one work item is handed: a kind of iteration space.
pub trait WorkKind: 'static {
    /// The value a kernel body receives per work item.
    type Item<'t>;
}

/// Work items of a [`crate::RangePolicy`]: one `usize` index.
#[derive(Debug, Clone, Copy)]
pub struct RangeWork;
/// Work items of a rank-`N` [`crate::MDRangePolicy`]: `[usize; N]`.
#[derive(Debug, Clone, Copy)]
pub struct MDWork<const N: usize>;
/// Work items of a [`crate::TeamPolicy`]: a team member handle.
#[derive(Debug, Clone, Copy)]
pub struct TeamWork;

impl WorkKind for RangeWork {
    type Item<'t> = usize;
}
impl<const N: usize> WorkKind for MDWork<N> {
    type Item<'t> = [usize; N];
}
impl WorkKind for TeamWork {
    type Item<'t> = &'t TeamMember<'t>;
}

/// One View argument of a kernel, as seen by the launch-time argument checks.
#[derive(Debug, Clone, Copy)]
pub struct ViewArg<'a> {
    /// Parameter name in the kernel signature.
    pub param: &'static str,
    /// The View's label.
    pub label: &'a str,
    /// Identity of the allocation (equal for Views sharing memory).
    pub allocation: usize,
    /// Bytes of the allocation the View can touch: `start..end`.
    pub bytes: (usize, usize),
    /// Whether the kernel may write through it.
    pub writable: bool,
    /// The allocation's borrow flag, held by the launch (never reachable outside core).
    pub(crate) borrow: &'a BorrowFlag,
    /// The allocation's watch ([`crate::watch`]), asked by the launch once the flag is held.
    pub(crate) watch: Option<crate::watch::WatchRef<'a>>,
}

/// Common facts of every generated kernel value.
pub trait Kernel {
    /// The kernel's name (the function name).
    const NAME: &'static str;
    /// The memory space all of its View arguments live in.
    type Space: MemorySpace;
    /// Calls `f` once per View argument.
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>));
}

/// One View argument as a device backend binds it: its storage, element type and addressing.
///
/// Element `idx` of the View is element `offset + sum(idx[k] * strides[k])` of `buffer`; extents and
/// strides are passed to the compiled kernel at launch, so one compiled kernel serves every shape.
pub struct ViewBinding<'a, S: MemorySpace> {
    /// Parameter name in the kernel signature.
    pub param: &'static str,
    /// The View's label (for messages).
    pub label: &'a str,
    /// The allocation.
    pub buffer: &'a S::Buffer,
    /// The IR element type.
    pub elem: crate::ir::ScalarType,
    /// Offset of element `[0; R]` from the start of the allocation, in elements.
    pub offset: usize,
    /// Extent of each dimension.
    pub extents: &'a [usize],
    /// Stride of each dimension, in elements.
    pub strides: &'a [usize],
    /// Whether the kernel may write through it.
    pub writable: bool,
}

impl<S: MemorySpace> std::fmt::Debug for ViewBinding<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewBinding")
            .field("param", &self.param)
            .field("label", &self.label)
            .field("elem", &self.elem)
            .field("offset", &self.offset)
            .field("extents", &self.extents)
            .field("strides", &self.strides)
            .field("writable", &self.writable)
            .finish()
    }
}

/// One kernel argument, in the IR's parameter order (see [`KernelIr::visit_args`]).
#[derive(Debug)]
pub enum KernelArg<'a, S: MemorySpace> {
    /// A View parameter.
    View(ViewBinding<'a, S>),
    /// A scalar parameter's value.
    Scalar(crate::ir::Value),
}

/// The kernel IR of a generated kernel value, and its arguments: what device backends compile and bind.
///
/// `#[rokkos::kernel]` implements it for every kernel value: `build_ir` replays the kernel body,
/// statement by statement, against the typed [`crate::ir::build`] API. The IR depends only on the
/// kernel's type parameters (not on the Views' layouts or memory space, nor on argument values).
/// It returns [`crate::ir::build::BuildError::Unsupported`] for a kernel that host backends run
/// but the IR cannot express (see the `rokkos` crate documentation of `#[kernel]`).
pub trait KernelIr: Kernel {
    /// Records the kernel's IR (not yet validated: see [`crate::ir::valid::validate`]).
    fn build_ir() -> Result<crate::ir::Kernel, crate::ir::build::BuildError>;
    /// [`KernelIr::build_ir`] of this kernel value's type.
    fn ir(&self) -> Result<crate::ir::Kernel, crate::ir::build::BuildError>
    where
        Self: Sized,
    {
        Self::build_ir()
    }
    /// Calls `f` once per argument, in the IR's parameter order: first every View parameter
    /// (the IR's `views`, in signature order), then every scalar parameter (the IR's `scalars`).
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, Self::Space>));
}

/// A `parallel_for` kernel over work kind `W`.
pub trait ForKernel<W: WorkKind>: Kernel {
    /// The native body.
    type Body<'a>: ForBody<W>
    where
        Self: 'a;
    /// Builds the native body.
    ///
    /// # Safety
    /// `Self::Space` must be host accessible (or every View argument's buffer project onto
    /// host-accessible memory, see [`crate::delegate`]); the arguments [`Kernel::visit_views`] reports must
    /// have passed the launch checks (no writable argument overlaps another) and be held (see
    /// [`crate::launch`]) for as long as the body lives; the body must be run as
    /// [`crate::space::HostBackend`] says. Core calls it from [`crate::launch::Launch::for_body`]
    /// and its siblings, which establish all of this; nothing else should.
    #[doc(hidden)]
    unsafe fn bind(&self) -> Self::Body<'_>;
}

/// The native body of a `parallel_for` kernel.
pub trait ForBody<W: WorkKind>: Sync {
    /// Runs the kernel for one work item.
    fn call(&self, work: W::Item<'_>);
    /// True when every access the body makes at an index derived from the work item alone (each
    /// component a work index plus or minus a literal, or a literal: `a[i]`, `u[(i - 1, j)]`,
    /// `q[(i, 2)]`) is in bounds for every work item of the box `first..=last` (componentwise;
    /// the caller passes `first <= last`). Range and MDRange kernels only. Host runners check this
    /// once per chunk or tile and then call [`ForBody::__call_unchecked`], whose loop has none of
    /// those per-element bounds checks and vectorises; when it is false they call
    /// [`ForBody::call`], which checks every access and reports the first one out of bounds.
    #[doc(hidden)]
    #[inline(always)]
    fn __in_bounds(&self, _first: W::Item<'_>, _last: W::Item<'_>) -> bool {
        false
    }
    /// [`ForBody::call`] with the accesses at the bare work index unchecked.
    ///
    /// # Safety
    /// `__in_bounds` returned true for a box containing this work item.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn __call_unchecked(&self, work: W::Item<'_>) {
        self.call(work)
    }
}

/// A `parallel_reduce` kernel over work kind `W` accumulating a `Value`.
pub trait ReduceKernel<W: WorkKind>: Kernel {
    /// The accumulated value (a tuple when the kernel has several accumulators).
    type Value: crate::reducer::AccValue + Copy + Send + Sync + 'static;
    /// The native body.
    type Body<'a>: ReduceBody<W, Self::Value>
    where
        Self: 'a;
    /// Builds the native body.
    ///
    /// # Safety
    /// As for [`ForKernel::bind`].
    #[doc(hidden)]
    unsafe fn bind(&self) -> Self::Body<'_>;
}

/// The native body of a `parallel_reduce` kernel.
pub trait ReduceBody<W: WorkKind, A>: Sync {
    /// Runs the kernel for one work item, folding into `acc`.
    fn call(&self, work: W::Item<'_>, acc: &mut A);
    /// As [`ForBody::__in_bounds`].
    #[doc(hidden)]
    #[inline(always)]
    fn __in_bounds(&self, _first: W::Item<'_>, _last: W::Item<'_>) -> bool {
        false
    }
    /// [`ReduceBody::call`] with the accesses at the bare work index unchecked.
    ///
    /// # Safety
    /// `__in_bounds` returned true for a box containing this work item.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn __call_unchecked(&self, work: W::Item<'_>, acc: &mut A) {
        self.call(work, acc)
    }
}

/// A `parallel_scan` kernel over work kind `W`.
pub trait ScanKernel<W: WorkKind>: Kernel {
    /// The scanned value.
    type Value: crate::reducer::AccValue + Copy + Send + Sync + 'static;
    /// The native body.
    type Body<'a>: ScanBody<W, Self::Value>
    where
        Self: 'a;
    /// Builds the native body.
    ///
    /// # Safety
    /// As for [`ForKernel::bind`].
    #[doc(hidden)]
    unsafe fn bind(&self) -> Self::Body<'_>;
}

/// The native body of a `parallel_scan` kernel.
pub trait ScanBody<W: WorkKind, A>: Sync {
    /// Runs the kernel for one work item: `partial` holds the exclusive prefix on entry when
    /// `is_final`, and the kernel adds its own contribution.
    fn call(&self, work: W::Item<'_>, partial: &mut A, is_final: bool);
    /// As [`ForBody::__in_bounds`].
    #[doc(hidden)]
    #[inline(always)]
    fn __in_bounds(&self, _first: W::Item<'_>, _last: W::Item<'_>) -> bool {
        false
    }
    /// [`ScanBody::call`] with the accesses at the bare work index unchecked.
    ///
    /// # Safety
    /// `__in_bounds` returned true for a box containing this work item.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn __call_unchecked(&self, work: W::Item<'_>, partial: &mut A, is_final: bool) {
        self.call(work, partial, is_final)
    }
}

/// The marker type `#[rokkos::func] fn f` defines beside `f` (a braced struct named `f`), whose
/// associated functions `native` (a call of `f`) and `ir` (`f` recorded into a kernel's IR) are
/// what kernels call on the host and record for the devices. Kernels require this trait of every
/// marker they reach.
///
/// # Safety
/// `native` and `ir` describe one function: for all arguments, `ir`'s IR computes what `native`
/// returns (`#[func]`'s expansion implements it for the two it generates from one body). A
/// marker written by hand that breaks this makes host and device backends disagree.
#[doc(hidden)]
pub unsafe trait FuncMarker {}

/// Compiles only for a [`FuncMarker`]: what `#[kernel]` and `#[func]` bodies call before each
/// `#[func]` they call. Does nothing at run time.
#[doc(hidden)]
#[inline(always)]
pub const fn func_marker<M: FuncMarker>() {}
