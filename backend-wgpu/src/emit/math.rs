//! Math intrinsics (`ir::ops::math`).
//!
//! Exact functions are spelled out where WGSL's namesake differs from Rust: `min`/`max` of floats
//! ignore a NaN operand and return the receiver of equal operands, `clamp` keeps a NaN receiver and
//! fails on bad bounds, `round` is half away from zero, `fract` is `x - trunc(x)`, `signum` keeps
//! the sign of zero, `powi` multiplies by repeated squaring like compiler-rt's `__powi*f2`, and
//! `mul_add` is a correctly rounded fused multiply-add ([`super::exact`]). Transcendental functions
//! are software libraries for both float types ([`super::math_f32`], [`super::math_f64`]): WGSL's
//! f32 built-ins lose NaN, flush subnormals and may be thousands of ulps off, and SPIR-V's
//! GLSL.std.450 has no 64-bit ones.

use super::{EmitError, Helpers};
use rokkos_core::ir::{MathFn, ScalarType, Value};

fn one(t: ScalarType) -> String {
    super::lit(match t {
        ScalarType::F32 => Value::F32(1.0),
        _ => Value::F64(1.0),
    })
}
fn zero(t: ScalarType) -> String {
    super::lit(Value::zero(t))
}
/// A call of `func` on `xs` (types `tys`, receiver first); `checks`: the kernel's overflow
/// checks (integer `abs` of `MIN` fails with them).
pub(crate) fn call(
    h: &mut Helpers,
    func: MathFn,
    tys: &[ScalarType],
    xs: &[String],
    checks: bool,
) -> Result<String, EmitError> {
    use MathFn as M;
    let t = tys[0];
    let tn = super::wty(t);
    let x = xs[0].as_str();
    let a = |i: usize| xs[i].as_str();

    let tr = if matches!(func, M::Trunc | M::Round | M::Fract) {
        trunc_fn(h, t)
    } else {
        "trunc"
    };
    let mut helper = |name: String, def: String| -> String {
        h.add(&name, || def);
        name
    };
    Ok(match func {
        // WGSL's built-ins are not Rust's (f32: NaN lost, subnormals flushed, thousands of ulp
        // allowed; f64: absent), so both types have a software library.
        M::Cbrt
        | M::Sin
        | M::Cos
        | M::Tan
        | M::Asin
        | M::Acos
        | M::Atan
        | M::Atan2
        | M::Sinh
        | M::Cosh
        | M::Tanh
        | M::Exp
        | M::Exp2
        | M::Ln
        | M::Log2
        | M::Log10
        | M::Powf
        | M::Hypot => {
            let lib = if t == ScalarType::F64 {
                super::math_f64::call(h, func, xs)
            } else {
                super::math_f32::call(h, func, xs)
            };
            lib.ok_or_else(|| {
                EmitError::Unsupported(format!("{t} `{}` has no WGSL implementation", func.name()))
            })?
        }
        M::Sqrt => format!("sqrt({x})"),
        M::Powi => {
            let n = helper(
                format!("rk_powi_{tn}"),
                format!(
                    "fn rk_powi_{tn}(a0: {tn}, b0: i32) -> {tn} {{\n    var a = a0; var b = b0; let recip = b < 0i; var r = {one};\n    loop {{\n        if ((b & 1i) != 0i) {{ r = r * a; }}\n        b = b / 2i;\n        if (b == 0i) {{ break; }}\n        a = a * a;\n    }}\n    return select(r, {one} / r, recip);\n}}\n",
                    one = one(t)
                ),
            );
            format!("{n}({x}, {})", a(1))
        }
        M::Abs if checks && t.is_signed_int() => {
            format!("{}({x})", super::arith::checked_neg(h, t, true))
        }
        M::Abs => format!("abs({x})"),
        M::Min | M::Max if t.is_float() => {
            // A NaN operand gives the other one; of equal operands (0.0 and -0.0) the receiver,
            // as Rust on x86-64 (`ir::ops::math`). WGSL's own min/max leave both open.
            let (nm, op) = if func == M::Min {
                ("min", "<")
            } else {
                ("max", ">")
            };
            let n = helper(
                format!("rk_f{nm}_{tn}"),
                format!(
                    "fn rk_f{nm}_{tn}(x: {tn}, y: {tn}) -> {tn} {{\n    if (!(x == x) || y {op} x) {{ return y; }}\n    return x;\n}}\n"
                ),
            );
            format!("{n}({x}, {})", a(1))
        }
        M::Min => format!("min({x}, {})", a(1)),
        M::Max => format!("max({x}, {})", a(1)),
        M::Clamp => {
            // `lo > hi` (or a NaN bound) fails as Rust's assertion does; the bounds' bits go into
            // the error record so that the message can print them.
            let code = CLAMP_CODE + t as u32;
            let bits = |v: &str| match t {
                ScalarType::I32 | ScalarType::F32 => format!("u64(bitcast<u32>({v}))"),
                ScalarType::U32 => format!("u64({v})"),
                _ => format!("bitcast<u64>({v})"),
            };
            let n = helper(
                format!("rk_clamp_{tn}"),
                format!(
                    "fn rk_clamp_{tn}(x: {tn}, lo: {tn}, hi: {tn}) -> {tn} {{\n    if (!(lo <= hi)) {{ if (rk_oob_begin({code}u, 2u)) {{ rk_oob_idx(0u, {}); rk_oob_idx(1u, {}); }} }}\n    if (x < lo) {{ return lo; }}\n    if (x > hi) {{ return hi; }}\n    return x;\n}}\n",
                    bits("lo"),
                    bits("hi")
                ),
            );
            format!("{n}({x}, {}, {})", a(1), a(2))
        }
        M::Floor => format!("floor({x})"),
        M::Ceil => format!("ceil({x})"),
        M::Trunc => format!("{tr}({x})"),
        M::Round => {
            let n = helper(
                format!("rk_round_{tn}"),
                format!(
                    "fn rk_round_{tn}(x: {tn}) -> {tn} {{\n    let t = {tr}(x);\n    if (abs(x - t) >= 0.5) {{ return t + select(-{one}, {one}, x > 0.0); }}\n    return t;\n}}\n",
                    one = one(t)
                ),
            );
            format!("{n}({x})")
        }
        M::Fract => {
            let n = helper(
                format!("rk_fract_{tn}"),
                format!("fn rk_fract_{tn}(x: {tn}) -> {tn} {{ return x - {tr}(x); }}\n"),
            );
            format!("{n}({x})")
        }
        // Fused in every case: WGSL's `fma` need not be (lavapipe's f64 one is not).
        M::MulAdd => format!("{}({x}, {}, {})", super::exact::fma(h, t), a(1), a(2)),
        M::Signum if t.is_float() => {
            let n = helper(
                format!("rk_signum_{tn}"),
                format!(
                    "fn rk_signum_{tn}(x: {tn}) -> {tn} {{\n    if (!(x == x)) {{ return x; }}\n    if (x > 0.0 || (x == 0.0 && {one} / x > 0.0)) {{ return {one}; }}\n    return -{one};\n}}\n",
                    one = one(t)
                ),
            );
            format!("{n}({x})")
        }
        M::Signum => {
            let (z, o) = (zero(t), super::lit(Value::from_bits(t, 1)));
            let n = helper(
                format!("rk_isignum_{tn}"),
                format!("fn rk_isignum_{tn}(x: {tn}) -> {tn} {{ return select(select({z}, -{o}, x < {z}), {o}, x > {z}); }}\n"),
            );
            format!("{n}({x})")
        }
        M::Recip => format!("({} / {x})", one(t)),
    })
}

/// The WGSL function truncating a float of type `t` toward zero. On `f64` it is `floor` or `ceil`
/// by sign: Mesa's lavapipe returns its argument unchanged from f64 `trunc` (and `round`) for
/// |x| >= 2^24, while its `floor` and `ceil` are exact.
fn trunc_fn(h: &mut Helpers, t: ScalarType) -> &'static str {
    if t != ScalarType::F64 {
        return "trunc";
    }
    h.add("rk_trunc_f64", || {
        "fn rk_trunc_f64(x: f64) -> f64 { return select(ceil(x), floor(x), x >= 0.0lf); }\n"
            .to_string()
    });
    "rk_trunc_f64"
}

/// `ERR` code of a `clamp` with `min > max` (or a NaN bound): `CLAMP_CODE + ScalarType as u32`,
/// with the bounds' bits as the two index words.
const CLAMP_CODE: u32 = 4200;

/// The error a work item recorded with a code of this module, for `kernel`: Rust's assertion
/// message, the bounds printed as Rust prints them.
pub(crate) fn device_error(kernel: &str, code: u32, index: &[u64]) -> Option<rokkos_core::Error> {
    let t = *ScalarType::ALL.get(code.checked_sub(CLAMP_CODE)? as usize)?;
    let bound = |k: usize| Value::from_bits(t, index.get(k).copied().unwrap_or(0));
    let (lo, hi) = (bound(0), bound(1));
    let reason = match (lo, hi) {
        (Value::F32(lo), Value::F32(hi)) => {
            format!("min > max, or either was NaN. min = {lo:?}, max = {hi:?}")
        }
        (Value::F64(lo), Value::F64(hi)) => {
            format!("min > max, or either was NaN. min = {lo:?}, max = {hi:?}")
        }
        _ => format!("min > max. min = {}, max = {}", int_text(lo), int_text(hi)),
    };
    Some(rokkos_core::Error::KernelFailed {
        kernel: kernel.to_string(),
        reason,
    })
}

/// An integer value as Rust's `Display` prints it (no type suffix).
fn int_text(v: Value) -> String {
    match v {
        Value::I32(x) => x.to_string(),
        Value::U32(x) => x.to_string(),
        Value::I64(x) => x.to_string(),
        Value::U64(x) => x.to_string(),
        other => other.to_string(),
    }
}
