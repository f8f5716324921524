//! Comparisons: `== != < <= > >=` on two operands of one type, giving `bool`.
//!
//! Floats compare as IEEE 754 (every comparison with a NaN is false except `!=`); `false < true`.

use crate::types::ScalarType;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CmpOp {
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
}

impl CmpOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    /// Result type (`bool`) when both operands have one type; `None` otherwise.
    pub fn result_type(self, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
        (l == r).then_some(ScalarType::Bool)
    }
}
