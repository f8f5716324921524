//! Bitwise operators (`ir::ops::bitwise`): `& | ^` on integers and `bool`, shifts, `!` on
//! integers.
//!
//! A shift amount at or beyond the width of the shifted value (a negative one included, compared
//! as unsigned like Rust does) fails the work item in a kernel with overflow checks; otherwise the
//! amount is masked to the width (Rust's `wrapping_shl`/`wrapping_shr`, what `<<` does in release
//! builds).

use super::{arith, Helpers};
use rokkos_core::ir::{BitwiseOp, ScalarType, Value};

/// `l op r` with `l: lt`, `r: rt`; `checks`: the kernel's overflow checks.
pub(crate) fn binary(
    h: &mut Helpers,
    op: BitwiseOp,
    lt: ScalarType,
    rt: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
) -> String {
    match op {
        // WGSL has no `^` on bool: inequality is exclusive or.
        BitwiseOp::Xor if lt == ScalarType::Bool => format!("({l} != {r})"),
        BitwiseOp::And | BitwiseOp::Or | BitwiseOp::Xor => format!("({l} {} {r})", op.symbol()),
        BitwiseOp::Shl | BitwiseOp::Shr if checks => {
            format!("{}({l}, {r})", checked_shift(h, op, lt, rt))
        }
        BitwiseOp::Shl | BitwiseOp::Shr => {
            // The amount is masked to the width of the shifted value (Rust's wrapping_shl/shr),
            // in the amount's own type, then converted to the u32 WGSL takes.
            let mask = lt.bits() - 1;
            let m = super::lit(Value::from_bits(rt, mask as u64));
            in_range(lt, op, format!("({l} {} u32({r} & {m}))", op.symbol()))
        }
    }
}

/// The helper of a shift of a `lt` by a `rt` amount that fails when the amount, as an unsigned
/// number of its own width, is not below the width of `lt`.
fn checked_shift(h: &mut Helpers, op: BitwiseOp, lt: ScalarType, rt: ScalarType) -> String {
    let shl = op == BitwiseOp::Shl;
    let name = format!(
        "rk_c{}_{}_{}",
        if shl { "shl" } else { "shr" },
        lt.name(),
        rt.name()
    );
    let on_ovf = arith::fail(h, rokkos_device::emit::rules::shift_failure(op));
    // The amount's bits, zero-extended: a negative i32 is 2^32 - |n| as Rust compares it.
    // A 32-bit amount is compared in 32 bits (no 64-bit integer needed).
    let (amount, width) = match rt {
        ScalarType::I32 => ("bitcast<u32>(n)", format!("{}u", lt.bits())),
        ScalarType::I64 => ("bitcast<u64>(n)", format!("{}lu", lt.bits())),
        ScalarType::U64 => ("n", format!("{}lu", lt.bits())),
        _ => ("u32(n)", format!("{}u", lt.bits())),
    };
    let mask = super::lit(Value::from_bits(rt, lt.bits() as u64 - 1));
    let shifted = in_range(lt, op, format!("(a {} u32(n & {mask}))", op.symbol()));
    h.add(&name, || {
        format!(
            "fn {name}(a: {}, n: {}) -> {} {{\n    if ({amount} >= {width}) {{ {on_ovf}; }}\n    return {shifted};\n}}\n",
            super::wty(lt),
            super::wty(rt),
            super::wty(lt),
        )
    })
}

/// `!a` on an integer of type `t`: the complement (of the type's bits only for `u8` / `u16`, held
/// in a `u32`).
pub(crate) fn not(t: ScalarType, a: &str) -> String {
    // A sign-extended `i8` / `i16` complements to one (`emit::packed`).
    if super::packed::is_packed(t) && !super::packed::is_signed_packed(t) {
        format!("(({a}) ^ {})", super::packed::max_lit(t))
    } else {
        format!("(~({a}))")
    }
}

/// A shift's result kept in range: `<<` on a `u8` / `u16` (held in a `u32`) drops the bits
/// shifted past the type's width, on an `i8` / `i16` (held in an `i32`) keeps the low bits
/// sign-extended; `>>` of an in-range value stays in range.
fn in_range(t: ScalarType, op: BitwiseOp, shifted: String) -> String {
    if op == BitwiseOp::Shl && super::packed::is_signed_packed(t) {
        super::packed::wrap_signed(t, &shifted)
    } else if op == BitwiseOp::Shl && super::packed::is_packed(t) {
        format!("({shifted} & {})", super::packed::max_lit(t))
    } else {
        shifted
    }
}
