//! Arithmetic (`ir::ops::arith`): `+ - * / %` and negation.
//!
//! WGSL integer arithmetic wraps (two's complement) like the IR. WGSL defines `x / 0 == x`,
//! `x % 0 == 0`, `MIN / -1 == MIN` and `MIN % -1 == 0`; the IR calls division by zero an error of the
//! work item that GPU code must not rely on, and agrees on the other two. Float `%` is the truncated
//! remainder (`fmod`), as in Rust.

use rokkos_core::ir::{ArithOp, ScalarType};

/// `l op r` for operands of type `_t`.
pub(crate) fn binary(op: ArithOp, _t: ScalarType, l: &str, r: &str) -> String {
    format!("({l} {} {r})", op.symbol())
}

/// `-a` (wrapping for signed integers).
pub(crate) fn neg(a: &str) -> String {
    format!("(-({a}))")
}
