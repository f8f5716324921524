//! Math intrinsics (`ir::ops::math`).
//!
//! Float predicates (`is_nan`, `is_finite`, the NaN and sign tests of `min`, `max` and `signum`)
//! read the bits: comparisons such as `x != x` or `x - x == x - x` are what a compiler that treats
//! float arithmetic as relaxed folds (lavapipe folded `is_finite(∞)` to true).
//!
//! Exact functions are spelled out where WGSL's namesake differs from Rust: `min`/`max` of floats
//! ignore a NaN operand and return the receiver of equal operands, `clamp` keeps a NaN receiver and
//! fails on bad bounds, `round` is half away from zero, `fract` is `x - trunc(x)`, `signum` keeps
//! the sign of zero, `powi` multiplies by repeated squaring like compiler-rt's `__powi*f2`, and
//! `mul_add` is a correctly rounded fused multiply-add. That one and the transcendental functions
//! are the software library's (`rokkos_device::emit::softmath`, written once as IR, for both float
//! types): the pass [`software`] selects for turns a kernel's calls of them into calls of the
//! library's functions before the walk, which writes those as it writes any helper function.
//! WGSL's f32 built-ins lose NaN, flush subnormals and may be thousands of ulps off, and SPIR-V's
//! GLSL.std.450 has no 64-bit ones.

use super::{EmitError, Helpers};
use rokkos_core::ir::{MathFn, ScalarType, Value};
use rokkos_device::emit::codes;

fn one(t: ScalarType) -> String {
    super::lit(match t {
        ScalarType::F32 => Value::F32(1.0),
        _ => Value::F64(1.0),
    })
}
fn zero(t: ScalarType) -> String {
    super::lit(Value::zero(t))
}
/// Whether a kernel's call of `func` on `ty` is the software library's
/// (`rokkos_device::emit::softmath`): `mul_add`, fused in every case, where WGSL's `fma` need
/// not be (lavapipe's f64 one is not), and the transcendental functions, which WGSL's built-ins
/// do not give within the precision contract (f32) or at all (f64).
pub(crate) fn software(func: MathFn, ty: ScalarType) -> bool {
    ty.is_float() && (func == MathFn::MulAdd || func.is_transcendental())
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
        // The pass before the walk ([`software`]) replaced every one by a call of the library.
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
            return Err(EmitError::Unsupported(format!(
                "{t} `{}` reached the WGSL writer without the software library's pass",
                func.name()
            )))
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
        M::Abs => super::arith::in_range(t, format!("abs({x})")),
        M::Min | M::Max if t.is_float() => {
            // A NaN operand gives the other one; of equal operands (0.0 and -0.0) the receiver,
            // as Rust on x86-64 (`ir::ops::math`). WGSL's own min/max leave both open.
            let (nm, op) = if func == M::Min {
                ("min", "<")
            } else {
                ("max", ">")
            };
            let nan = is_nan(h, t);
            let n = h.add(&format!("rk_f{nm}_{tn}"), || {
                format!(
                    "fn rk_f{nm}_{tn}(x: {tn}, y: {tn}) -> {tn} {{\n    if ({nan}(x) || y {op} x) {{ return y; }}\n    return x;\n}}\n"
                )
            });
            format!("{n}({x}, {})", a(1))
        }
        M::Min => format!("min({x}, {})", a(1)),
        M::Max => format!("max({x}, {})", a(1)),
        M::Clamp => {
            // `lo > hi` (or a NaN bound) fails as Rust's assertion does; the bounds' bits go into
            // the error record so that the message can print them.
            let code = codes::CLAMP_CODE + t as u32;
            // Two words each (low, high), so that 32-bit types need no 64-bit integer.
            let bits = |v: &str| match t {
                ScalarType::I32 | ScalarType::F32 => format!("bitcast<u32>({v}), 0u"),
                ScalarType::U32 => format!("{v}, 0u"),
                _ => {
                    format!("u32(bitcast<u64>({v}) & 0xfffffffflu), u32(bitcast<u64>({v}) >> 32u)")
                }
            };
            // A NaN `x` is returned as it is, tested on its bits: Mesa's GL driver turns the two
            // comparisons into `min`/`max`, which give a bound for NaN.
            let nan = if t.is_float() {
                format!("    if ({}) {{ return x; }}\n", nan_bits_test(t, "x"))
            } else {
                String::new()
            };
            let n = helper(
                format!("rk_clamp_{tn}"),
                format!(
                    "fn rk_clamp_{tn}(x: {tn}, lo: {tn}, hi: {tn}) -> {tn} {{\n    if (!(lo <= hi)) {{ if (rk_oob_begin({code}u, 2u)) {{ rk_oob_w(0u, {}); rk_oob_w(1u, {}); }} }}\n{nan}    if (x < lo) {{ return lo; }}\n    if (x > hi) {{ return hi; }}\n    return x;\n}}\n",
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
        // A kernel's own `mul_add` is the library's correctly rounded one ([`software`]); what
        // reaches here is the library's, whose polynomials are accurate fused or not.
        M::MulAdd => format!("fma({x}, {}, {})", a(1), a(2)),
        M::Signum if t.is_float() => {
            // The sign bit decides, as in Rust (`-0.0` and NaN with the sign set give -1 and
            // NaN): a comparison with 0 and `1 / x` is what a relaxed compiler may rewrite.
            let nan = is_nan(h, t);
            let (u, _) = float_bits(t);
            let sign = if t == ScalarType::F64 {
                "0x8000000000000000lu"
            } else {
                "0x80000000u"
            };
            let n = h.add(&format!("rk_signum_{tn}"), || {
                format!(
                    "fn rk_signum_{tn}(x: {tn}) -> {tn} {{\n    if ({nan}(x)) {{ return x; }}\n    return select({one}, -{one}, (bitcast<{u}>(x) & {sign}) != {zero});\n}}\n",
                    one = one(t),
                    zero = if t == ScalarType::F64 { "0lu" } else { "0u" },
                )
            });
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
        M::IsNan => format!("{}({x})", is_nan(h, t)),
        // WGSL's `bitcast` keeps every bit; `f64` / `u64` exist only with SHADER_F64 and
        // SHADER_INT64, which `check_caps` requires of a kernel using them.
        M::ToBits => format!("bitcast<{}>({x})", float_bits(t).0),
        M::FromBits => format!(
            "bitcast<{}>({x})",
            if t == ScalarType::U64 { "f64" } else { "f32" }
        ),
        M::IsFinite => {
            let (u, exp) = float_bits(t);
            let n = helper(
                format!("rk_isfinite_{tn}"),
                format!("fn rk_isfinite_{tn}(x: {tn}) -> bool {{ return (bitcast<{u}>(x) & {exp}) != {exp}; }}\n"),
            );
            format!("{n}({x})")
        }
    })
}

/// The unsigned type of a float's bits, and the mask of its exponent field (the bits of ∞).
fn float_bits(t: ScalarType) -> (&'static str, &'static str) {
    if t == ScalarType::F64 {
        ("u64", "0x7ff0000000000000lu")
    } else {
        ("u32", "0x7f800000u")
    }
}

/// The WGSL function testing a float of type `t` for NaN from its bits (see [`nan_bits_test`]).
pub(crate) fn is_nan(h: &mut Helpers, t: ScalarType) -> String {
    let tn = t.name();
    let test = nan_bits_test(t, "x");
    h.add(&format!("rk_isnan_{tn}"), || {
        format!("fn rk_isnan_{tn}(x: {tn}) -> bool {{ return {test}; }}\n")
    })
}

/// A WGSL expression that is true when `x` (a float of type `t`, or any other scalar: then
/// `false`) is NaN, tested on its bits: exponent all ones and a non-zero significand. A comparison
/// (`x != x`, `!(x == x)`) is what a compiler that treats float arithmetic as relaxed may fold
/// away, and Vulkan lets drivers assume that operands are not NaN unless a shader asks otherwise,
/// which naga's SPIR-V does not.
pub(crate) fn nan_bits_test(t: ScalarType, x: &str) -> String {
    if !t.is_float() {
        return "false".to_string();
    }
    let (u, exp) = float_bits(t);
    let abs = if t == ScalarType::F64 {
        "0x7ffffffffffffffflu"
    } else {
        "0x7fffffffu"
    };
    format!("((bitcast<{u}>({x}) & {abs}) > {exp})")
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
