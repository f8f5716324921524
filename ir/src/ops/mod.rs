//! Operators and intrinsics of the IR, one file per family (as the emitters' `emit/<family>.rs`).
//!
//! Each family states its operand types and result type (`result_type`), which the validator
//! (`crate::valid::types`) applies, and its exact semantics, which the reference evaluator
//! (`crate::eval`) implements and the emitters reproduce.

pub mod arith;
pub mod atomic;
pub mod bitwise;
pub mod cmp;
pub mod failure;
pub mod logic;
pub mod math;
pub mod memory;
pub mod team;

use crate::types::ScalarType;

pub use arith::ArithOp;
pub use atomic::{AtomicOp, AtomicResult};
pub use bitwise::BitwiseOp;
pub use cmp::CmpOp;
pub use failure::Failure;
pub use logic::LogicOp;
pub use math::MathFn;
pub use memory::{Access, ScratchDecl, ScratchId, ScratchScope, ViewId, ViewParam, ViewRef};
pub use team::{NestedKind, ReducerKind, SingleKind, TeamQuery};

/// A binary operator, by family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BinaryOp {
    /// `+ - * / %`.
    Arith(ArithOp),
    /// `& | ^ << >>`.
    Bitwise(BitwiseOp),
    /// `== != < <= > >=`.
    Cmp(CmpOp),
    /// `&& ||` (short-circuit).
    Logic(LogicOp),
}

impl BinaryOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Arith(op) => op.symbol(),
            BinaryOp::Bitwise(op) => op.symbol(),
            BinaryOp::Cmp(op) => op.symbol(),
            BinaryOp::Logic(op) => op.symbol(),
        }
    }
    /// Result type for operands `l` and `r`; `None` when ill-typed.
    pub fn result_type(self, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
        match self {
            BinaryOp::Arith(op) => op.result_type(l, r),
            BinaryOp::Bitwise(op) => op.result_type(l, r),
            BinaryOp::Cmp(op) => op.result_type(l, r),
            BinaryOp::Logic(op) => op.result_type(l, r),
        }
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnaryOp {
    /// `-x` (arithmetic family): signed integers and floats. `-MIN` of an integer fails with
    /// [`Failure::NegOverflow`] in a kernel with overflow checks and wraps to `MIN` otherwise.
    Neg,
    /// `!x`: bitwise complement of an integer (bitwise family), logical negation of a `bool` (logic family).
    Not,
}

impl UnaryOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
        }
    }
    /// Result type for an operand of type `t`; `None` when ill-typed.
    pub fn result_type(self, t: ScalarType) -> Option<ScalarType> {
        match self {
            UnaryOp::Neg => t.is_signed().then_some(t),
            UnaryOp::Not => (t.is_int() || t == ScalarType::Bool).then_some(t),
        }
    }
}
