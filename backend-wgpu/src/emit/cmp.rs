//! Comparisons (`ir::ops::cmp`).
//!
//! Float `!=` is written `!(a == b)` so that it is true for NaN operands whatever ordered/unordered
//! instruction the target picks; `bool` orderings (`false < true`) are spelled out, as WGSL orders
//! only numbers.

use rokkos_core::ir::{CmpOp, ScalarType};

/// `l op r` for operands of type `t`.
pub(crate) fn binary(op: CmpOp, t: ScalarType, l: &str, r: &str) -> String {
    if t == ScalarType::Bool {
        return match op {
            CmpOp::Eq => format!("({l} == {r})"),
            CmpOp::Ne => format!("({l} != {r})"),
            CmpOp::Lt => format!("(!({l}) && ({r}))"),
            CmpOp::Le => format!("(!({l}) || ({r}))"),
            CmpOp::Gt => format!("(({l}) && !({r}))"),
            CmpOp::Ge => format!("(({l}) || !({r}))"),
        };
    }
    if t.is_float() && op == CmpOp::Ne {
        return format!("(!({l} == {r}))");
    }
    format!("({l} {} {r})", op.symbol())
}
