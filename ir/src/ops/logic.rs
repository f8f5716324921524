//! Short-circuit logical operators `&&` and `||` on `bool`.
//!
//! The right operand is evaluated only when the left does not decide the result, as in Rust; this
//! matters when it contains an atomic or could fail (a division by zero, an out-of-bounds load).

use crate::types::ScalarType;

/// A short-circuit logical operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogicOp {
    /// `a && b`.
    And,
    /// `a || b`.
    Or,
}

impl LogicOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            LogicOp::And => "&&",
            LogicOp::Or => "||",
        }
    }
    /// Result type (`bool`) when both operands are `bool`; `None` otherwise.
    pub fn result_type(self, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
        (l == ScalarType::Bool && r == ScalarType::Bool).then_some(ScalarType::Bool)
    }
}
