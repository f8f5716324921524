//! Logic (`ir::ops::logic`): short-circuit `&&` / `||` (WGSL's are short-circuit too) and `!`.

use rokkos_core::ir::LogicOp;

/// `l op r`.
pub(crate) fn binary(op: LogicOp, l: &str, r: &str) -> String {
    format!("({l} {} {r})", op.symbol())
}

/// `!a` on `bool`.
pub(crate) fn not(a: &str) -> String {
    format!("(!({a}))")
}
