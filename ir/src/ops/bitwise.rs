//! Bitwise operators: `& | ^` on integers or `bool` (non-short-circuit), `<< >>` on integers.
//!
//! Shifts take any integer type as the amount and keep the type of the shifted value; the amount is
//! masked to the width (as Rust's `wrapping_shl` / `wrapping_shr`, which is what `<<` does in release
//! builds). `>>` is arithmetic on signed and logical on unsigned integers.

use crate::types::ScalarType;

/// A binary bitwise operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BitwiseOp {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `a << b`, amount masked to the width of `a`.
    Shl,
    /// `a >> b`, amount masked to the width of `a`.
    Shr,
}

impl BitwiseOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            BitwiseOp::And => "&",
            BitwiseOp::Or => "|",
            BitwiseOp::Xor => "^",
            BitwiseOp::Shl => "<<",
            BitwiseOp::Shr => ">>",
        }
    }
    /// Result type for operands `l` and `r`; `None` when ill-typed.
    pub fn result_type(self, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
        match self {
            BitwiseOp::And | BitwiseOp::Or | BitwiseOp::Xor => {
                (l == r && (l.is_int() || l == ScalarType::Bool)).then_some(l)
            }
            BitwiseOp::Shl | BitwiseOp::Shr => (l.is_int() && r.is_int()).then_some(l),
        }
    }
}
