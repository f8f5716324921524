//! Arithmetic (`ir::ops::arith`): `+ - * / %`, the wrapping methods, and negation.
//!
//! WGSL integer arithmetic wraps (two's complement). The IR's failures ([`Failure`]) are spelled
//! out as helper functions that test the operands, record the failure ([`fail`]) and return the
//! wrapped value, so that the work item goes on harmlessly while the launch reports
//! `Error::KernelFailed` with Rust's message:
//!
//! - `/` and `%` always check a divisor that is not a literal for zero, and a signed one for `-1`
//!   with the dividend at `MIN` (WGSL itself defines `x / 0 == x` and `MIN / -1 == MIN`);
//! - with the kernel's overflow checks, `+ - *` and `-x` check for overflow: signed sums by the
//!   signs (`(a ^ r) & (b ^ r) < 0`), unsigned ones by carry (`r < a`), 32-bit products in 64
//!   bits, 64-bit ones by dividing back (`r / a != b`).
//!
//! A C emitter follows the same rules with the same tests. Float `+ - * /` are WGSL's; float `%` is
//! exact ([`rem_float`]).

use super::Helpers;
use rokkos_core::ir::{ArithOp, Failure, ScalarType, Value};
use rokkos_device::emit::codes;
use rokkos_device::emit::rules::{self, IntArith};

/// A WGSL statement recording failure `f` of the work item (the launch's first failure wins).
pub(crate) fn fail(h: &mut Helpers, f: Failure) -> String {
    h.add("rk_fail", || {
        "fn rk_fail(code: u32) { _ = rk_oob_begin(code, 0u); }\n".to_string()
    });
    format!("rk_fail({}u)", codes::failure(f))
}

/// The WGSL literal of `x` in type `t` (an integer type).
fn int_lit(t: ScalarType, x: i64) -> String {
    super::lit(match t {
        ScalarType::I32 => Value::I32(x as i32),
        ScalarType::U32 => Value::U32(x as u32),
        ScalarType::I64 => Value::I64(x),
        _ => Value::U64(x as u64),
    })
}

/// `MIN` of the signed integer type `t`.
fn min_lit(t: ScalarType) -> String {
    super::lit(rules::saturation(t).min)
}

/// `l op r` for operands of type `t`. `checks`: the kernel's overflow checks; `r_lit`: the
/// divisor when it is a literal (a check it makes unnecessary is left out).
pub(crate) fn binary(
    h: &mut Helpers,
    op: ArithOp,
    t: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
    r_lit: Option<Value>,
) -> String {
    let base = op.base();
    if super::packed::is_packed(t) {
        return super::packed::arith(h, op, t, l, r, checks, r_lit);
    }
    if t.is_float() {
        return if base == ArithOp::Rem {
            format!("{}({l}, {r})", rem_float(h, t))
        } else {
            format!("({l} {} {r})", base.symbol())
        };
    }
    let name = match rules::int_arith(op, t, checks, r_lit) {
        IntArith::Plain | IntArith::Wrapping if base == ArithOp::Rem && t.is_signed_int() => {
            signed_rem(h, t)
        }
        IntArith::Plain | IntArith::Wrapping => return format!("({l} {} {r})", base.symbol()),
        IntArith::DivRem { zero, overflow } => div_rem(h, base, t, zero, overflow),
        IntArith::Checked(f) if base == ArithOp::Mul => mul(h, t, f),
        IntArith::Checked(f) => add_sub(h, base, t, f),
    };
    format!("{name}({l}, {r})")
}

/// The checked `/` or `%` helper of integer type `t`.
fn div_rem(h: &mut Helpers, op: ArithOp, t: ScalarType, zero_f: Failure, ovf_f: Failure) -> String {
    let (tn, div) = (t.name(), op == ArithOp::Div);
    let name = format!("rk_{}_{tn}", if div { "div" } else { "rem" });
    let (on_zero, on_ovf) = (fail(h, zero_f), fail(h, ovf_f));
    let zero = int_lit(t, 0);
    let overflow = if t.is_signed_int() {
        format!(
            "    if (b == {} && a == {}) {{ {on_ovf}; return {}; }}\n",
            int_lit(t, -1),
            min_lit(t),
            if div { "a" } else { zero.as_str() }
        )
    } else {
        String::new()
    };
    let result = if !div && t.is_signed_int() {
        format!("{}(a, b)", signed_rem(h, t))
    } else {
        format!("a {} b", op.symbol())
    };
    h.add(&name, || {
        format!(
            "fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n    if (b == {zero}) {{ {on_zero}; return {zero}; }}\n{overflow}    return {result};\n}}\n"
        )
    })
}

/// The helper computing a signed `a % b` (`b != 0`) on the operands' magnitudes, returning its
/// name. WGSL defines `%` on negative operands as Rust does, but naga writes it as GLSL's `%`,
/// whose result the GLSL specification leaves undefined when an operand is negative (Mesa's GL
/// driver gives `1 % -1 == 1`); the unsigned remainder is defined everywhere, and the result takes
/// the dividend's sign, as Rust's does. `MIN % -1` is 0 here, as wrapping gives.
pub(crate) fn signed_rem(h: &mut Helpers, t: ScalarType) -> String {
    let tn = t.name();
    let un = if t == ScalarType::I32 { "u32" } else { "u64" };
    let zero = int_lit(t, 0);
    let name = format!("rk_srem_{tn}");
    h.add(&name, || {
        format!(
            "fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n    let ua = select({un}(a), {un}(0) - {un}(a), a < {zero});\n    let ub = select({un}(b), {un}(0) - {un}(b), b < {zero});\n    let r = {tn}(ua % ub);\n    return select(r, -r, a < {zero});\n}}\n"
        )
    })
}

/// The overflow-checked `+` or `-` helper of integer type `t`.
fn add_sub(h: &mut Helpers, op: ArithOp, t: ScalarType, f: Failure) -> String {
    let (tn, add) = (t.name(), op == ArithOp::Add);
    let name = format!("rk_c{}_{tn}", if add { "add" } else { "sub" });
    let on_ovf = fail(h, f);
    let test = match (t.is_signed_int(), add) {
        // The sign of the result differs from both operands' (add) or from the minuend's while
        // the operands' signs differ (sub).
        (true, true) => format!("((a ^ r) & (b ^ r)) < {}", int_lit(t, 0)),
        (true, false) => format!("((a ^ b) & (a ^ r)) < {}", int_lit(t, 0)),
        (false, true) => "r < a".to_string(),
        (false, false) => "b > a".to_string(),
    };
    h.add(&name, || {
        format!(
            "fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n    let r = a {} b;\n    if ({test}) {{ {on_ovf}; }}\n    return r;\n}}\n",
            op.symbol()
        )
    })
}

/// The overflow-checked `*` helper of integer type `t`.
fn mul(h: &mut Helpers, t: ScalarType, f: Failure) -> String {
    let tn = t.name();
    let name = format!("rk_cmul_{tn}");
    let on_ovf = fail(h, f);
    // Every test stays in the operands' width, so that 32-bit types need no 64-bit integers.
    let test = match t {
        // As for i64 below: dividing back is exact unless `a` is -1.
        ScalarType::I32 => {
            "(a == -1i && b == (-2147483647i - 1i)) || (a != 0i && a != -1i && r / a != b)"
                .to_string()
        }
        ScalarType::U32 => "a != 0u && r / a != b".to_string(),
        // Dividing back is exact unless `a` is -1, where only `MIN` overflows (and `MIN / -1`
        // would wrap).
        ScalarType::I64 => {
            "(a == -1li && b == (-9223372036854775807li - 1li)) || (a != 0li && a != -1li && r / a != b)"
                .to_string()
        }
        _ => "a != 0lu && r / a != b".to_string(),
    };
    h.add(&name, || {
        format!(
            "fn {name}(a: {tn}, b: {tn}) -> {tn} {{\n    let r = a * b;\n    if ({test}) {{ {on_ovf}; }}\n    return r;\n}}\n"
        )
    })
}

/// `-a` of type `t`: wrapping, or failing at `MIN` with overflow checks.
pub(crate) fn neg(h: &mut Helpers, t: ScalarType, a: &str, checks: bool) -> String {
    if !(checks && t.is_signed_int()) {
        return in_range(t, format!("(-({a}))"));
    }
    format!("{}({a})", checked_neg(h, t, false))
}

/// The helper of `-a` (or `abs(a)` when `abs`) for `a` of signed integer type `t` that fails with
/// [`Failure::NegOverflow`] at `MIN` (overflow checks on), returning its name.
pub(crate) fn checked_neg(h: &mut Helpers, t: ScalarType, abs: bool) -> String {
    let (name, value) = if abs {
        (format!("rk_cabs_{}", t.name()), "abs(a)")
    } else {
        (format!("rk_cneg_{}", t.name()), "-a")
    };
    let value = in_range(t, value.to_string());
    let tn = super::wty(t);
    let on_ovf = fail(h, Failure::NegOverflow);
    let min = min_lit(t);
    h.add(&name, || {
        format!(
            "fn {name}(a: {tn}) -> {tn} {{\n    if (a == {min}) {{ {on_ovf}; }}\n    return {value};\n}}\n"
        )
    })
}

/// `x`, the `-` or `abs` of a value of type `t`, kept in range: `MIN` of an `i8` / `i16` (held in
/// an `i32`, see `emit::packed`) negates to `MAX + 1`, which wraps back to `MIN` as in Rust.
pub(crate) fn in_range(t: ScalarType, x: String) -> String {
    if super::packed::is_signed_packed(t) {
        super::packed::wrap_signed(t, &x)
    } else {
        x
    }
}

/// The exact float remainder helper of type `t` (`fmod`, see `ir::ops::arith`), returning its name.
///
/// `x % y` for finite `x`, `y ≠ 0` with `|x| > |y|` is `x - n·y` for an integer `n`: with the
/// significands as integers `mx`, `my` and exponents `ex ≥ ey`, it is `(mx·2^(ex-ey) mod my)·2^ey`,
/// computed exactly in integers of the float's width by taking the exponent difference in steps
/// small enough that `mx·2^step` cannot overflow, reducing modulo `my` after each. The result is then made a float
/// again; it is exact, so it is never rounded (a subnormal result is built from its bits). Only
/// integer operations touch the value, so no compiler's float optimisation can disturb it, and the
/// `f32` helper uses no `f64`.
pub(crate) fn rem_float(h: &mut Helpers, t: ScalarType) -> &'static str {
    if t == ScalarType::F32 {
        h.add("rk_frem_f32", || FREM_F32.to_string());
        "rk_frem_f32"
    } else {
        h.add("rk_frem_f64", || FREM_F64.to_string());
        "rk_frem_f64"
    }
}

/// `fmod` on `f32`: significands of 24 bits, so a 32-bit remainder takes 8 exponent steps at a
/// time (at most 32 trips from 2^127 down to 2^-149), and the helper needs no 64-bit integer
/// (adapters without SHADER_INT64 run it).
const FREM_F32: &str = "fn rk_frem_f32(x: f32, y: f32) -> f32 {
    let bx = bitcast<u32>(x);
    let by = bitcast<u32>(y);
    let sx = bx & 0x80000000u;
    let ax = bx & 0x7fffffffu;
    let ay = by & 0x7fffffffu;
    // NaN operands, x infinite, y zero: NaN.
    if (ax >= 0x7f800000u || ay > 0x7f800000u || ay == 0u) { return bitcast<f32>(0x7fc00000u); }
    // |x| < |y| (y infinite included): x itself, its sign kept.
    if (ax < ay) { return x; }
    var ex = i32(ax >> 23u);
    var ey = i32(ay >> 23u);
    var mx = ax & 0x7fffffu;
    var my = ay & 0x7fffffu;
    if (ex == 0i) { ex = 1i; } else { mx = mx | 0x800000u; }
    if (ey == 0i) { ey = 1i; } else { my = my | 0x800000u; }
    var d = ex - ey;
    loop {
        mx = mx % my;
        if (d == 0i || mx == 0u) { break; }
        let s = min(d, 8i);
        mx = mx << u32(s);
        d = d - s;
    }
    if (mx == 0u) { return bitcast<f32>(sx); }
    // Normalise: the result's exponent is ey minus the shift that brings the leading bit to 23,
    // or the subnormal encoding (exponent field 0) when that would go below 1.
    var e = ey;
    var m = mx;
    loop {
        if (m >= 0x800000u || e == 1i) { break; }
        m = m << 1u;
        e = e - 1i;
    }
    if (m < 0x800000u) { return bitcast<f32>(sx | m); }
    return bitcast<f32>(sx | (u32(e) << 23u) | (m & 0x7fffffu));
}
";

/// `fmod` on `f64`: significands of 53 bits, so a 64-bit remainder takes 11 exponent steps at a
/// time (at most 191 trips from 2^1023 down to 2^-1074).
const FREM_F64: &str = "fn rk_frem_f64(x: f64, y: f64) -> f64 {
    let bx = bitcast<u64>(x);
    let by = bitcast<u64>(y);
    let sx = bx & 0x8000000000000000lu;
    let ax = bx & 0x7ffffffffffffffflu;
    let ay = by & 0x7ffffffffffffffflu;
    if (ax >= 0x7ff0000000000000lu || ay > 0x7ff0000000000000lu || ay == 0lu) {
        return bitcast<f64>(0x7ff8000000000000lu);
    }
    if (ax < ay) { return x; }
    var ex = i32(ax >> 52u);
    var ey = i32(ay >> 52u);
    var mx = ax & 0xffffffffffffflu;
    var my = ay & 0xffffffffffffflu;
    if (ex == 0i) { ex = 1i; } else { mx = mx | 0x10000000000000lu; }
    if (ey == 0i) { ey = 1i; } else { my = my | 0x10000000000000lu; }
    var d = ex - ey;
    loop {
        mx = mx % my;
        if (d == 0i || mx == 0lu) { break; }
        let s = min(d, 11i);
        mx = mx << u32(s);
        d = d - s;
    }
    if (mx == 0lu) { return bitcast<f64>(sx); }
    var e = ey;
    var m = mx;
    loop {
        if (m >= 0x10000000000000lu || e == 1i) { break; }
        m = m << 1u;
        e = e - 1i;
    }
    if (m < 0x10000000000000lu) { return bitcast<f64>(sx | m); }
    return bitcast<f64>(sx | (u64(e) << 52u) | (m & 0xffffffffffffflu));
}
";
