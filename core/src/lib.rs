//! rokkos-core: execution and memory spaces, Views and layouts, policies, parallel patterns,
//! reducers, atomics and the kernel contract. No backend code lives here; backends implement
//! [`ExecutionSpace`] and the `rokkos` facade ties them together.

#![warn(missing_docs)]

pub mod access;
pub mod atomic;
mod borrow;
mod copy;
pub mod delegate;
pub mod error;
mod failure;
pub mod host_iter;
pub mod index;
mod injective;
pub mod ir {
    //! The kernel IR ([`rokkos_ir`], re-exported whole) and its reference evaluator, [`eval`]: an
    //! execution space that runs an IR kernel on the host, so it lives here, above the IR crate.
    pub use rokkos_ir::*;
    pub mod eval;
}
pub mod kernel;
#[doc(hidden)]
pub mod kernel_math;
pub mod launch;
pub mod layout;
#[cfg(feature = "ndarray")]
pub mod ndarray_interop;
pub mod pattern;
pub mod policy;
pub mod profiling;
mod ranges;
pub mod reducer;
pub mod scalar;
pub mod scatter;
pub mod space;
pub mod team;
mod view;
pub mod watch;

pub use access::{ReadAccess, WriteAccess};
pub use atomic::{AtomicBits, AtomicScalar, AtomicUnsigned};
pub use bytemuck::{Pod, Zeroable};
pub use copy::{
    create_mirror, create_mirror_in, create_mirror_view, create_mirror_view_and_copy,
    create_mirror_view_and_copy_in, create_mirror_view_in, deep_copy, deep_copy_on, fill, fill_on,
};
pub use delegate::{Delegated, ProjectMemory};
pub use error::{Error, Result};
pub use index::ViewIndex;
pub use injective::{IndexElem, InjectiveView};
pub use kernel::{
    ForBody, ForKernel, Kernel, KernelArg, KernelIr, MDWork, RangeWork, ReduceBody, ReduceKernel,
    ScanBody, ScanKernel, TeamWork, ViewArg, ViewBinding, WorkKind,
};
pub use launch::Launch;
pub use layout::{Layout, LayoutKind, LayoutLeft, LayoutRight, LayoutStride};
pub use pattern::{
    parallel_for, parallel_reduce, parallel_reduce_into, parallel_scan, parallel_scan_into,
    parallel_scan_with, parallel_scan_with_into,
};
pub use policy::{
    Iterate, MDRangePolicy, Policy, RangePolicy, Schedule, ScratchRequest, TeamPattern, TeamPolicy,
    TeamSize,
};
pub use ranges::DisjointRanges;
pub use reducer::{
    AccValue, BAnd, BOr, Custom, JoinKind, LAnd, LOr, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxLoc,
    MinMaxLocVal, MinMaxVal, Prod, Reducer, ReducerExt, Sum, ValLoc, WithFinal,
};
pub use scalar::{Bits, Float, Scalar};
pub use space::{
    ExecutionSpace, HostAccessible, HostBackend, HostBuffer, HostSpace, HostStorage, MemorySpace,
    ResultSlot, TeamLimits,
};
pub use team::{
    scratch_size, IntoNestedRange, MdIndices, NestedIndices, ScratchArena, ScratchPool, TeamMember,
};
pub use view::{HostMut, HostRef, IntoSliceArg, SliceArg, SubviewSpec, View};
