//! Memory: View parameters, team scratch Views, and how loads and stores address them.
//!
//! Loads, stores and atomics carry the *logical* multi-index (one integer expression per dimension),
//! never an offset. A backend computes the offset `sum(index[k] * stride[k])` from the extents and
//! strides it passes to the kernel at launch, and checks bounds against the extents where asked to, so one
//! compiled kernel serves every shape and every layout (`LayoutRight`, `LayoutLeft`, `LayoutStride`).
//! Scratch Views are `LayoutRight` with the extents given where they are allocated.

use crate::types::ScalarType;

/// Index of a View parameter in [`crate::Kernel::views`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ViewId(pub u32);

/// Index of a scratch allocation in [`crate::Kernel::scratch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScratchId(pub u32);

/// What a load, store or atomic addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ViewRef {
    /// A View parameter of the kernel.
    Param(ViewId),
    /// A scratch View allocated by a [`crate::Stmt::Scratch`].
    Scratch(ScratchId),
}

/// Whether a kernel may write a View parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// Loads only (a `View<T>` argument).
    ReadOnly,
    /// Loads, stores and atomics (a `ViewMut<T>` argument).
    Writable,
}

/// A View parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewParam {
    /// Name in the kernel signature.
    pub name: String,
    /// Element type (numeric).
    pub elem: ScalarType,
    /// Number of dimensions (0..=8).
    pub rank: u32,
    /// Read-only or writable.
    pub access: Access,
    /// Whether the kernel applies atomics to it (the backend may need an atomic binding type).
    pub used_atomically: bool,
}

/// Who shares a scratch allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScratchScope {
    /// One allocation per team, shared by its threads (`team_scratch`).
    Team,
    /// One allocation per thread (`thread_scratch`).
    Thread,
}

/// A scratch View: declared once per kernel, allocated where its [`crate::Stmt::Scratch`] runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ScratchDecl {
    /// Element type (numeric).
    pub elem: ScalarType,
    /// Number of dimensions (the number of extents at allocation).
    pub rank: u32,
    /// Scratch level: 0 (fast, small: shared memory) or 1 (large: global pool).
    pub level: u32,
    /// Per team or per thread.
    pub scope: ScratchScope,
}
