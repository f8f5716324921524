//! Arithmetic (`ir::ops::arith`): `+ - * / %` and negation.
//!
//! WGSL integer arithmetic wraps (two's complement) like the IR. WGSL defines `x / 0 == x`,
//! `x % 0 == 0`, `MIN / -1 == MIN` and `MIN % -1 == 0`; the IR agrees on the last two and calls
//! division by zero an error of the work item, so an integer `/` or `%` whose divisor is not a
//! non-zero literal checks it and records the error ([`DIV_CODE`]), as the evaluator fails and
//! Rust panics. Float `%` is the truncated remainder (`fmod`), as in Rust.

use super::Helpers;
use rokkos_core::ir::{ArithOp, ScalarType};

/// `ERR` code of an integer division or remainder by zero.
pub(crate) const DIV_CODE: u32 = 4001;

/// `l op r` for operands of type `t`; `r_nonzero`: the divisor is a non-zero literal.
pub(crate) fn binary(
    h: &mut Helpers,
    op: ArithOp,
    t: ScalarType,
    l: &str,
    r: &str,
    r_nonzero: bool,
) -> String {
    let checked = matches!(op, ArithOp::Div | ArithOp::Rem) && !t.is_float() && !r_nonzero;
    if !checked {
        return format!("({l} {} {r})", op.symbol());
    }
    let (tn, sym) = (t.name(), op.symbol());
    let name = format!("rk_{}_{tn}", if op == ArithOp::Div { "div" } else { "rem" });
    let zero = super::lit(rokkos_core::ir::Value::zero(t));
    h.add(&name, || {
        format!(
            "fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n    if (b == {zero}) {{ rk_oob_begin({DIV_CODE}u, 0u); return {zero}; }}\n    return a {sym} b;\n}}\n"
        )
    });
    format!("{name}({l}, {r})")
}

/// The error a work item recorded with [`DIV_CODE`], for `kernel`.
pub(crate) fn device_error(kernel: &str, code: u32) -> Option<rokkos_core::Error> {
    (code == DIV_CODE).then(|| {
        rokkos_core::Error::InvalidArgument(format!("kernel `{kernel}`: integer division by zero"))
    })
}

/// `-a` (wrapping for signed integers).
pub(crate) fn neg(a: &str) -> String {
    format!("(-({a}))")
}
