//! Expressions: typed trees evaluated to one scalar value.
//!
//! Operands are evaluated left to right, each exactly once, except that `&&` / `||` skip their right
//! operand when the left decides. Expressions have no side effects except [`Expr::Atomic`] (and a
//! [`Expr::Call`] of a function that itself has none, as functions cannot reach Views). [`Expr::Select`]
//! evaluates all three operands (as WGSL's `select`): the macro uses it for `if c { a } else { b }`
//! only when both branches are plain values, and lowers other `if` expressions to statements.

use crate::ops::{AtomicOp, AtomicResult, BinaryOp, MathFn, TeamQuery, UnaryOp, ViewRef};
use crate::stmt::LocalDecl;
use crate::types::{ScalarType, Value};
use crate::Kernel;

/// A local variable (or local array) of the kernel body or of one helper function: an index into
/// [`Kernel::locals`] or [`crate::Function::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalId(pub u32);

/// A scalar parameter: an index into [`Kernel::scalars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScalarParamId(pub u32);

/// A helper function: an index into [`Kernel::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FuncId(pub u32);

/// A constant table: an index into [`Kernel::tables`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableId(pub u32);

/// One field of one accumulator: accumulator `acc` of [`Kernel::accumulators`], field `field` of its
/// [`crate::AccShape::fields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccField {
    /// The accumulator.
    pub acc: u32,
    /// The field (0 for a scalar accumulator).
    pub field: u32,
}

/// An atomic operation on one element (an expression or a statement).
#[derive(Clone, Debug, PartialEq)]
pub struct AtomicAccess {
    /// The operation.
    pub op: AtomicOp,
    /// The View (writable parameter or scratch).
    pub view: ViewRef,
    /// The logical multi-index, one integer per dimension.
    pub index: Vec<Expr>,
    /// The value arguments ([`AtomicOp::arg_count`] of them), of the element type.
    pub args: Vec<Expr>,
    /// What the access yields as an expression: the old value or the one stored (ignored in a
    /// statement).
    pub result: AtomicResult,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A constant.
    Lit(Value),
    /// The current value of a scalar local (reading one not yet assigned is an error).
    Local(LocalId),
    /// A scalar parameter.
    Param(ScalarParamId),
    /// Component `k` of the work index (`u64`): `i` of a range, `(i, j, ..)[k]` of an MDRange.
    WorkIndex(u32),
    /// The current value of an accumulator field (a reduction's `*acc`, a scan's `*partial`).
    AccRead(AccField),
    /// `lhs op rhs`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `op arg`.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        arg: Box<Expr>,
    },
    /// `arg as ty`, with Rust's `as` semantics (float to integer saturates, NaN gives 0; integer
    /// to narrower integer truncates; integer to float rounds to nearest; `bool` to integer is 0 or 1).
    Cast {
        /// Target type.
        ty: ScalarType,
        /// The operand.
        arg: Box<Expr>,
    },
    /// `if cond { on_true } else { on_false }`, all three evaluated.
    Select {
        /// A `bool`.
        cond: Box<Expr>,
        /// Value when `cond` holds.
        on_true: Box<Expr>,
        /// Value otherwise.
        on_false: Box<Expr>,
    },
    /// A math intrinsic; `args[0]` is the receiver.
    Math {
        /// The function.
        func: MathFn,
        /// Its arguments.
        args: Vec<Expr>,
    },
    /// `view[index]`: one element, by logical multi-index.
    Load {
        /// The View.
        view: ViewRef,
        /// One integer per dimension.
        index: Vec<Expr>,
    },
    /// `view.extent(dim)` (`u64`; 0 past the rank).
    Extent {
        /// The View.
        view: ViewRef,
        /// The dimension.
        dim: u32,
    },
    /// `array[index]` of a local array.
    ArrayLoad {
        /// The local array.
        array: LocalId,
        /// An integer index.
        index: Box<Expr>,
    },
    /// `table[index]` of a constant table ([`Kernel::tables`]): read-only data fixed when the kernel
    /// is recorded, readable from the kernel body and from helper functions. An index at or past
    /// the table's length is an out-of-bounds error of the work item, as for a local array.
    TableLoad {
        /// The table.
        table: TableId,
        /// An integer index.
        index: Box<Expr>,
    },
    /// A call of a helper function, returning its value.
    Call {
        /// The function.
        func: FuncId,
        /// Its arguments, one per parameter.
        args: Vec<Expr>,
    },
    /// A team member query (`u64`).
    Team(TeamQuery),
    /// The `final` flag of a scan kernel (`bool`).
    IsFinal,
    /// An atomic read-modify-write, yielding the element's previous value (or, with
    /// [`AtomicResult::New`], the value it stored).
    Atomic(Box<AtomicAccess>),
}

/// The match of [`Expr::for_each_child`] and [`Expr::for_each_child_mut`]: one text for shared and
/// exclusive borrows, so that the two cannot visit different children.
macro_rules! expr_children {
    ($e:expr, $f:ident, $iter:ident, $($r:tt)+) => {
        match $e {
            Expr::Lit(_)
            | Expr::Local(_)
            | Expr::Param(_)
            | Expr::WorkIndex(_)
            | Expr::AccRead(_)
            | Expr::Extent { .. }
            | Expr::Team(_)
            | Expr::IsFinal => {}
            Expr::Binary { lhs, rhs, .. } => {
                $f(lhs);
                $f(rhs);
            }
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => $f(arg),
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                $f(cond);
                $f(on_true);
                $f(on_false);
            }
            Expr::Math { args, .. } | Expr::Call { args, .. } => args.$iter().for_each($f),
            Expr::Load { index, .. } => index.$iter().for_each($f),
            Expr::ArrayLoad { index, .. } | Expr::TableLoad { index, .. } => $f(index),
            Expr::Atomic(a) => a.index.$iter().chain($($r)+ a.args).for_each($f),
        }
    };
}

impl Expr {
    /// Calls `f` on each direct sub-expression, in evaluation order.
    pub fn for_each_child(&self, mut f: impl FnMut(&Expr)) {
        expr_children!(self, f, iter, &)
    }

    /// [`Expr::for_each_child`], for rewriting the children (an IR pass).
    pub fn for_each_child_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        expr_children!(self, f, iter_mut, &mut)
    }

    /// Calls `f` on this expression and every sub-expression, parents first.
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        self.for_each_child(|c| c.walk(f));
    }

    /// The expression's type, looking names up in `kernel` and in `locals` (the locals of the body
    /// being typed: [`Kernel::locals`] or a function's); `None` when the expression is ill-formed.
    /// Total on expressions of a validated kernel.
    pub fn ty(&self, kernel: &Kernel, locals: &[LocalDecl]) -> Option<ScalarType> {
        let ty = |e: &Expr| e.ty(kernel, locals);
        match self {
            Expr::Lit(v) => Some(v.ty()),
            Expr::Local(l) | Expr::ArrayLoad { array: l, .. } => {
                locals.get(l.0 as usize).map(|d| d.ty)
            }
            Expr::Param(p) => kernel.scalars.get(p.0 as usize).map(|s| s.ty),
            Expr::TableLoad { table, .. } => kernel.tables.get(table.0 as usize).map(|t| t.ty),
            Expr::WorkIndex(_) | Expr::Extent { .. } | Expr::Team(_) => Some(ScalarType::U64),
            Expr::AccRead(f) => kernel.acc_field_type(*f),
            Expr::Binary { op, lhs, rhs } => op.result_type(ty(lhs)?, ty(rhs)?),
            Expr::Unary { op, arg } => op.result_type(ty(arg)?),
            Expr::Cast { ty: to, arg } => to.can_cast_from(ty(arg)?).then_some(*to),
            Expr::Select { on_true, .. } => ty(on_true),
            Expr::Math { func, args } => {
                let tys: Option<Vec<_>> = args.iter().map(ty).collect();
                func.result_type(&tys?)
            }
            Expr::Load { view, .. } => kernel.view_elem(*view),
            Expr::Atomic(a) => kernel.view_elem(a.view),
            Expr::Call { func, .. } => kernel.functions.get(func.0 as usize).map(|f| f.ret),
            Expr::IsFinal => Some(ScalarType::Bool),
        }
    }
}
