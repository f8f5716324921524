//! The kernel IR: what `#[rokkos::kernel]` records of a kernel body for the GPU backends.
//!
//! The macro expands a kernel body twice: into native Rust for the host backends, and into calls of the
//! typed [`build`] API that record this IR when run. The CUDA C and WGSL emitters generate source from a
//! [`Kernel`] after [`valid::validate`] accepted it and described it in a [`valid::KernelInfo`]; the
//! reference evaluator (`rokkos_ir::eval`, an execution space and so above this crate) runs it on
//! the host so that tests prove, without a GPU, that the IR means what the native body does. [`Kernel::stable_hash`] keys the compiled-kernel caches; [`Kernel`]'s `Display`
//! prints it for error messages and snapshots.
//!
//! # Evaluation semantics
//!
//! The meaning of an IR kernel is the meaning of the Rust body it was recorded from, run once per work
//! item (a range index, an MDRange multi-index, or a team member):
//!
//! - **Structured control flow.** A body is a [`Block`] of [`Stmt`]s run in order; `if`, counted `for`,
//!   `while`, `loop`, `break`, `continue` and `return` behave as in Rust. There is no `goto`, so every
//!   construct has one entry and one exit, which both CUDA C and WGSL can express directly.
//! - **Expressions are trees** ([`Expr`]) evaluated left to right, each operand once, with Rust's
//!   short-circuit `&&` / `||`. They have no side effects except atomics ([`Expr::Atomic`]); loads
//!   read memory as it is when they are evaluated. There is no sharing of sub-expressions: a value used
//!   twice is either recomputed or bound to a local by a `let`.
//! - **Types** are the seven [`ScalarType`]s; Rust's `usize` is `u64` and `isize` is `i64`. Every
//!   operator takes operands of one type (shift amounts excepted) and there are no implicit
//!   conversions: [`Expr::Cast`] is Rust's `as`.
//! - **Integers** are two's complement. Overflow of `+ - *`, negation, `abs` and shifts by the
//!   width or more makes the work item fail in a kernel recorded with [`Kernel::overflow_checks`]
//!   (Rust's debug builds panic) and wraps otherwise (release builds; shift amounts are then masked
//!   to the width); an integer division or remainder by zero, `MIN / -1` and `MIN % -1` fail in
//!   every build ([`ops::arith`], [`ops::Failure`]).
//! - **A failing work item** is what a Rust panic is on the native path: the reference evaluator
//!   returns `EvalError::Failed` (or `EvalError::OutOfBounds`) with Rust's message,
//!   and a device launch reports `Error::KernelFailed` (or `Error::OutOfBounds`) with the same
//!   text. Other work items may or may not have run; the Views they wrote may hold partial results.
//! - **Floats are IEEE 754** binary32 / binary64 with round-to-nearest; math intrinsics mean the Rust
//!   method of the same name ([`ops::math`]).
//! - **Views** are addressed by logical multi-index; offsets come from the runtime strides of each
//!   argument ([`ops::memory`]), so one compiled kernel serves every shape and layout. An index outside
//!   the extents is an error of the work item (`Err(OutOfBounds)` natively and from a checked GPU
//!   launch, `EvalError::OutOfBounds` in the evaluator).
//! - **Reductions and scans** see their accumulators as typed fields ([`Kernel::accumulators`]): the
//!   body reads and writes them like locals; the pattern's reducer combines the partial results of
//!   different work items. A scan kernel's body also reads the `final` flag ([`Expr::IsFinal`]): when
//!   it is true, the accumulator holds, on entry, the exclusive prefix of the work items before this one.
//! - **Teams**: the nested constructs of [`Stmt`] ([`Stmt::NestedFor`], [`Stmt::Barrier`], ...) mean
//!   what `rokkos_core::TeamMember`'s methods mean; on host backends a team has one thread.

pub mod build;
pub mod expr;
mod hash;
pub mod ops;
mod print;
pub mod samples;
pub mod scalar;
pub use print::access_text;
pub mod stmt;
pub mod types;
pub mod valid;

pub use expr::{AccField, AtomicAccess, Expr, FuncId, LocalId, ScalarParamId, TableId};
pub use ops::{
    Access, ArithOp, AtomicOp, AtomicResult, BinaryOp, BitwiseOp, CmpOp, Failure, LogicOp, MathFn,
    NestedKind, ReducerKind, ScratchDecl, ScratchId, ScratchScope, SingleKind, TeamQuery, UnaryOp,
    ViewId, ViewParam, ViewRef,
};
pub use scalar::{Bits, Scalar};
pub use stmt::{ArrayInit, Block, LocalDecl, Stmt};
pub use types::{ScalarType, Value};

/// The iteration space of a kernel (the policy kind it is written for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WorkKind {
    /// A `RangePolicy`: work index `i: usize`.
    Range,
    /// A rank-`N` `MDRangePolicy` (`2..=6`): work index `(i0, .., iN-1)`.
    MDRange(u32),
    /// A `TeamPolicy`: a team member handle, no work index.
    Team,
}

impl WorkKind {
    /// Number of work-index components ([`Expr::WorkIndex`] takes `0..rank`).
    pub fn index_rank(self) -> u32 {
        match self {
            WorkKind::Range => 1,
            WorkKind::MDRange(n) => n,
            WorkKind::Team => 0,
        }
    }
}

/// A scalar parameter (passed by value).
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarParam {
    /// Name in the kernel signature.
    pub name: String,
    /// Its type.
    pub ty: ScalarType,
}

/// The shape of one accumulator value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccShape {
    /// A plain scalar (`Sum`, `Prod`, `Min`, `Max`, `LAnd`, ... reducers).
    Scalar(ScalarType),
    /// `ValLoc<T>`: fields `val: T`, `loc: u64` (`MinLoc`, `MaxLoc`).
    ValLoc(ScalarType),
    /// `MinMaxVal<T>`: fields `min: T`, `max: T` (`MinMax`).
    MinMaxVal(ScalarType),
}

impl AccShape {
    /// The fields, in order, with their types (a scalar has one field named `value`).
    pub fn fields(self) -> Vec<(&'static str, ScalarType)> {
        match self {
            AccShape::Scalar(t) => vec![("value", t)],
            AccShape::ValLoc(t) => vec![("val", t), ("loc", ScalarType::U64)],
            AccShape::MinMaxVal(t) => vec![("min", t), ("max", t)],
        }
    }
}

/// An accumulator of a reduction (one per reducer) or the partial value of a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct Accumulator {
    /// Name in the kernel signature.
    pub name: String,
    /// Its shape.
    pub shape: AccShape,
}

/// A helper function (`#[rokkos::func]`): scalar parameters, one scalar result, no access to Views.
/// A function may call only functions declared before it, so there is no recursion.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// Its parameters: locals of [`Function::locals`], bound to the arguments on entry.
    pub params: Vec<LocalId>,
    /// The result type.
    pub ret: ScalarType,
    /// Its locals table (parameters included).
    pub locals: Vec<LocalDecl>,
    /// The body; every path ends in `return value`.
    pub body: Block,
}

/// A constant table: values fixed when the kernel is recorded, read with [`Expr::TableLoad`] by the
/// kernel body and its helper functions (Kokkos kernels use `constexpr` arrays for the same: the
/// coefficients of a polynomial, the bits of 2/π of a trigonometric argument reduction). The
/// device backends emit each table once per module (a WGSL module-scope `const` array, a CUDA
/// `static const` array at file scope), so no launch uploads it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstTable {
    /// A name for printing (emitted source names tables by index).
    pub name: String,
    /// The element type.
    pub ty: ScalarType,
    /// The elements: at least one and at most [`ConstTable::MAX_LEN`], each of type `ty`.
    pub values: Vec<Value>,
}

impl ConstTable {
    /// The longest table the validator accepts: tables are for small constant data that every
    /// work item may read (the devices keep them in constant or instruction memory); larger data
    /// belongs in a View.
    pub const MAX_LEN: usize = 1 << 16;
}

/// One kernel: signature, tables and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The kernel's name (the Rust function name).
    pub name: String,
    /// The policy kind.
    pub work: WorkKind,
    /// View parameters ([`ViewId`] indexes them).
    pub views: Vec<ViewParam>,
    /// Scalar parameters ([`ScalarParamId`] indexes them).
    pub scalars: Vec<ScalarParam>,
    /// Accumulators: none for a `parallel_for` kernel, one per reducer for `parallel_reduce`, the partial
    /// value for `parallel_scan`.
    pub accumulators: Vec<Accumulator>,
    /// Whether this is a scan kernel (one accumulator, reads [`Expr::IsFinal`]).
    pub is_scan: bool,
    /// Scratch Views ([`ScratchId`] indexes them), allocated by [`Stmt::Scratch`].
    pub scratch: Vec<ScratchDecl>,
    /// Locals of the body ([`LocalId`] indexes them).
    pub locals: Vec<LocalDecl>,
    /// The body, run once per work item.
    pub body: Block,
    /// Helper functions ([`FuncId`] indexes them).
    pub functions: Vec<Function>,
    /// Constant tables ([`TableId`] indexes them), shared by the body and the helper functions.
    pub tables: Vec<ConstTable>,
    /// Whether integer overflow of `+ - *`, unary `-`, `abs`, `<<` and `>>` makes the work item fail
    /// (as Rust's overflow checks do) instead of wrapping: `#[rokkos::kernel]` sets it to
    /// `cfg!(debug_assertions)` evaluated in the kernel's own crate, so every backend treats overflow
    /// as that crate's native code does (Cargo's `overflow-checks` follows `debug-assertions` unless a
    /// profile sets it apart). Part of the hash and the printed form: the two modes compile to
    /// different device code. See [`ops::arith`] and [`ops::Failure`].
    pub overflow_checks: bool,
}

/// Which parallel pattern a kernel is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// `parallel_for`: no accumulator.
    For,
    /// `parallel_reduce`.
    Reduce,
    /// `parallel_scan`.
    Scan,
}

impl Kernel {
    /// The pattern the kernel is for.
    pub fn pattern(&self) -> Pattern {
        if self.is_scan {
            Pattern::Scan
        } else if self.accumulators.is_empty() {
            Pattern::For
        } else {
            Pattern::Reduce
        }
    }
    /// The element type of a View parameter or scratch View; `None` for an unknown id.
    pub fn view_elem(&self, view: ViewRef) -> Option<ScalarType> {
        match view {
            ViewRef::Param(v) => self.views.get(v.0 as usize).map(|p| p.elem),
            ViewRef::Scratch(s) => self.scratch.get(s.0 as usize).map(|d| d.elem),
        }
    }
    /// The rank of a View parameter or scratch View; `None` for an unknown id.
    pub fn view_rank(&self, view: ViewRef) -> Option<u32> {
        match view {
            ViewRef::Param(v) => self.views.get(v.0 as usize).map(|p| p.rank),
            ViewRef::Scratch(s) => self.scratch.get(s.0 as usize).map(|d| d.rank),
        }
    }
    /// The type of an accumulator field; `None` for an unknown one.
    pub fn acc_field_type(&self, f: AccField) -> Option<ScalarType> {
        let acc = self.accumulators.get(f.acc as usize)?;
        acc.shape.fields().get(f.field as usize).map(|&(_, t)| t)
    }
    /// All accumulator fields, flattened in order: what `eval_reduce` takes and returns.
    pub fn acc_fields(&self) -> Vec<(AccField, ScalarType)> {
        let mut out = Vec::new();
        for (a, acc) in self.accumulators.iter().enumerate() {
            for (f, (_, t)) in acc.shape.fields().into_iter().enumerate() {
                out.push((
                    AccField {
                        acc: a as u32,
                        field: f as u32,
                    },
                    t,
                ));
            }
        }
        out
    }
}
