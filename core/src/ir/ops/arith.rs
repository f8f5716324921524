//! Arithmetic operators: `+ - * / %` on numeric operands of one type.
//!
//! Integers wrap (two's complement, as Rust's `wrapping_*`); division or remainder by zero is an error of
//! the work item (Rust panics; GPU emitters must not rely on any particular result); `MIN / -1` wraps to
//! `MIN` and `MIN % -1` is `0`. Floats follow IEEE 754 (`%` is the truncated remainder, C's `fmod`).

use crate::ir::types::ScalarType;

/// A binary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ArithOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` (integers truncate toward zero).
    Div,
    /// `a % b` (sign of the dividend).
    Rem,
}

impl ArithOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
        }
    }
    /// Result type for operands `l` and `r`: both numeric and equal; `None` when ill-typed.
    pub fn result_type(self, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
        (l == r && l.is_numeric()).then_some(l)
    }
}
