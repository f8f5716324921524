//! Bitwise operators (`ir::ops::bitwise`): `& | ^` on integers and `bool`, masked shifts, `!` on
//! integers.

use rokkos_core::ir::{BitwiseOp, ScalarType};

/// `l op r` with `l: lt`, `r: rt`.
pub(crate) fn binary(op: BitwiseOp, lt: ScalarType, rt: ScalarType, l: &str, r: &str) -> String {
    match op {
        // WGSL has no `^` on bool: inequality is exclusive or.
        BitwiseOp::Xor if lt == ScalarType::Bool => format!("({l} != {r})"),
        BitwiseOp::And | BitwiseOp::Or | BitwiseOp::Xor => format!("({l} {} {r})", op.symbol()),
        BitwiseOp::Shl | BitwiseOp::Shr => {
            // The amount is masked to the width of the shifted value (Rust's wrapping_shl/shr),
            // in the amount's own type, then converted to the u32 WGSL takes.
            let mask = lt.bits() - 1;
            let m = super::lit(rokkos_core::ir::Value::from_bits(rt, mask as u64));
            format!("({l} {} u32({r} & {m}))", op.symbol())
        }
    }
}

/// `!a` on an integer: the complement.
pub(crate) fn not(a: &str) -> String {
    format!("(~({a}))")
}
