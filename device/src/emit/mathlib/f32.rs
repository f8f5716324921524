//! Transcendental functions on `f32`, written in WGSL with `f32` and integer arithmetic only (an
//! adapter without SHADER_F64 runs them): WGSL's built-ins lose NaN (`atan(NaN) = 0`), flush
//! subnormals (`ln`, `cbrt`), get special values wrong (`powf(-inf, 0.5)`, `sinh(-0.0)`) and are
//! allowed thousands of ulps of error (`asin`, `atan`). Each function is one helper
//! (`rk_f32_sin`, ...) on shared cores, the structure of the f64 library ([`super::f64`]) in
//! "double-float" arithmetic (a value as an unevaluated sum of two `f32`s, about 48 bits), with the
//! error-free transformations of [`super::exact`].
//!
//! The WGSL target uses this library; the CUDA target does not, as CUDA has native functions that
//! meet the contract (`rokkos-cuda`'s `emit::ops`): `logf`, `log2f` and `cbrtf` are documented
//! within 1 ulp (CUDA Math API, single-precision appendix); the others (`sinf` 2 ulp, `tanf` 4,
//! `powf` 4, ...) are documented above it, so an f32 call there is CUDA's f64 function on the
//! exactly widened arguments, rounded once (at most 2 f64 ulps off, far inside an f32 ulp). Both
//! are faster on NVIDIA hardware than double-float arithmetic in `f32`.
//!
//! # Method
//!
//! - `exp`, `exp2`, `powf`, `sinh`, `cosh`, `tanh`: `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2` (a
//!   16-bit head of ln 2 times `|n| < 2⁸` is exact), `exp(r) - 1` as a double-float (`r + r²/2`
//!   exactly, the rest a Taylor series to `r⁹/9!`), then `·2ⁿ` by an exact `ldexp`. The hyperbolic
//!   functions take `expm1` as a double-float, `2ⁿ·(exp(r) - 1) + (2ⁿ - 1)`.
//! - `ln`, `log2`, `log10`, `powf`: `x = 2ᵉ·m` with `m ∈ [√½, √2)`, `ln m = 2s + s³·T(s²)` with
//!   `s = (m - 1)/(m + 1)` and the leading terms in double-float; `log2` and `log10` multiply by
//!   double-float constants, so powers of 2 and 10 give exact results; `powf = exp(y·ln x)` with
//!   `y·ln x` in double-float.
//! - `sin`, `cos`, `tan`: `x = n·π/2 + r` by Payne–Hanek in 32-bit integer limbs for every
//!   `|x| > π/4` (the 24-bit significand times six words of 2/π: a 96-bit fraction, normalised so
//!   that `r` keeps 48 significant bits however close `x` is to a multiple of π/2); the kernels are
//!   Taylor series on `|r| ≤ π/4` with the leading term of the sine's correction (`r³/6`) and the
//!   cosine's `1 - r²/2` in double-float; `tan` divides the two in double-float.
//! - `atan`: `atan(a) = atan(c) + atan((a - c)/(1 + a·c))`, `c ∈ {0, ½, 1, 2, ∞}`, the quotient in
//!   double-float; `atan2` scales both arguments and divides in double-float, with every signed-zero
//!   and infinity case of C99 (which Rust follows).
//! - `asin`, `acos`: a Taylor series on `|x| ≤ ½`, `asin x = π/2 - 2·asin(√((1 - x)/2))` beyond, the
//!   square root corrected by its exact residual.
//! - `cbrt`: an exponent-thirds first guess, two Halley steps, a Newton step on the exact residual.
//!   `hypot`: `√(a² + b²)` with the squares and the sum in double-float, scaled into
//!   `[2^-49, 2^50]` first.
//!
//! Divisions and square roots are always corrected by an exact residual, so the results do not
//! depend on the adapter's precision for them (Vulkan allows 2.5 ulp for f32 division).
//!
//! # Accuracy
//!
//! Every result is within 1 ulp of the exact value over the whole finite range, subnormal
//! arguments and results included (`tests/wgpu_f32_math.rs` measures it against the exact value
//! and against Rust's own `f32` functions and prints the largest errors). Special values (NaN,
//! ±∞, ±0 with its sign, overflow to ∞, underflow to 0, domain errors to NaN) follow Rust.

use super::{exact, inv_factorial, library_text, templates, MathHelpers, TWO_OVER_PI};
use rokkos_core::ir::{MathFn, ScalarType, Value};
use std::f64::consts;

const F32: ScalarType = ScalarType::F32;

/// `c` as a double-float: the nearest `f32` and the `f32` nearest to what is left (from `f64`, so
/// the pair carries about 48 bits of `c`).
fn split(c: f64) -> (f32, f32) {
    let hi = c as f32;
    (hi, (c - hi as f64) as f32)
}

/// ln 2 rounded to `f32`, with its low 8 bits cleared (16 significant bits): `n·LN2_HI` is exact for
/// `|n| < 2⁸`, every `n` the exponential functions meet.
fn ln2_hi() -> f32 {
    f32::from_bits((consts::LN_2 as f32).to_bits() & !0xff)
}

/// The named constants of the templates (`$NAME`).
fn constant(name: &str) -> Option<f32> {
    Some(match name {
        "INF" => f32::INFINITY,
        "NAN" => f32::NAN,
        "MAX" => f32::MAX,
        "MIN_POSITIVE" => f32::MIN_POSITIVE,
        "SQRT_2" => consts::SQRT_2 as f32,
        "LN2" => consts::LN_2 as f32,
        "LN2_HI" => ln2_hi(),
        // Exact: the low 8 bits of LN2.
        "LN2_MID" => consts::LN_2 as f32 - ln2_hi(),
        "LN2_LO" => split(consts::LN_2).1,
        "LOG2_E" => split(consts::LOG2_E).0,
        "LOG2_E_LO" => split(consts::LOG2_E).1,
        "LOG10_E" => split(consts::LOG10_E).0,
        "LOG10_E_LO" => split(consts::LOG10_E).1,
        "PIO2" => split(consts::FRAC_PI_2).0,
        "PIO2_LO" => split(consts::FRAC_PI_2).1,
        "PI" => split(consts::PI).0,
        "PI_LO" => split(consts::PI).1,
        "PIO4" => split(consts::FRAC_PI_4).0,
        "PIO4_LO" => split(consts::FRAC_PI_4).1,
        "PI3O4" => (3.0 * consts::FRAC_PI_4) as f32,
        "ATAN_HALF" => split(0.5f64.atan()).0,
        "ATAN_HALF_LO" => split(0.5f64.atan()).1,
        "ATAN_TWO" => split(2f64.atan()).0,
        "ATAN_TWO_LO" => split(2f64.atan()).1,
        "SIXTH" => split(-1.0 / 6.0).0,
        "SIXTH_LO" => split(-1.0 / 6.0).1,
        "TWO_THIRDS" => split(2.0 / 3.0).0,
        "TWO_THIRDS_LO" => split(2.0 / 3.0).1,
        // Below these, sin, tan, asin, atan, sinh and tanh are x and cos is 1, to within half an
        // ulp; above ATAN_BIG atan is ±π/2; from POW_INT_LIMIT on every f32 is an even integer.
        "SIN_TINY" | "COS_TINY" | "TAN_TINY" | "ASIN_TINY" | "ATAN_TINY" | "SINH_TINY"
        | "TANH_TINY" => 2f32.powi(-12),
        "ATAN_BIG" => 2f32.powi(26),
        "POW_INT_LIMIT" => 2f32.powi(24),
        _ if name.starts_with("TWO_P") || name.starts_with("TWO_M") => {
            // Powers of two, exact: TWO_P24 = 2^24, TWO_M12 = 2^-12.
            let k: i32 = name[5..].parse().ok()?;
            2f32.powi(if name.as_bytes()[4] == b'P' { k } else { -k })
        }
        _ => return None,
    })
}

/// A Horner polynomial in `x` with the `f32` roundings of `c`.
fn horner(x: &str, c: &[f64]) -> String {
    let c: Vec<Value> = c.iter().map(|&v| Value::F32(v as f32)).collect();
    super::horner(x, &c)
}

/// Registers helper `name` (whose text is `src` with the constants and `snippets` filled in).
fn def(h: &mut impl MathHelpers, name: &str, src: &str, snippets: &[(&str, String)]) -> String {
    h.add_wgsl(name, || {
        library_text(src, F32, snippets, PARAMS, |n| constant(n).map(Value::F32))
    })
}

/// The parameters of the shared templates ([`templates`]) spelled for `f32`: the ranges of the
/// exponential functions (beyond them the result is ∞ or 0), the thresholds of `sinh`, `cosh`,
/// `tanh` and `atan_dd`, and `ldexp` as the scaling helper.
const PARAMS: &[(&str, &str)] = &[
    ("SCALE", "ldexp"),
    ("EXP_OVER", "90.0f"),
    ("EXP_UNDER", "-104.0f"),
    ("EXP2_OVER", "129.0f"),
    ("EXP2_UNDER", "-151.0f"),
    ("HYP_SMALL", "12.0f"),
    ("HYP_BIG", "90.0f"),
    ("TANH_SMALL", "10.0f"),
    ("FOUR_THIRDS", "1.3333334f"),
];

/// The exact building blocks and `rk_f32_pow2(k)` (`2ᵏ` for `-126 ≤ k ≤ 127`).
fn basics(h: &mut impl MathHelpers) {
    exact::two_sum(h, F32);
    exact::two_prod(h, F32);
    exact::ldexp(h, F32);
    def(
        h,
        "rk_f32_pow2",
        "fn rk_f32_pow2(k: i32) -> f32 { return bitcast<f32>(u32(k + 127i) << 23u); }\n",
        &[],
    );
}

/// `(n.x + n.y) / (d.x + d.y)` as a double-float: the quotient, corrected by the exact residual.
fn div_dd(h: &mut impl MathHelpers) -> String {
    basics(h);
    def(h, "rk_f32_div_dd", templates::DIV_DD, &[])
}

// ---------------------------------------------------------------------------------------------
// exp and friends.

/// `exp(hi + lo) - 1` as a double-float for `|hi + lo| ≤ 0.35` (`lo` need not be below an ulp of
/// `hi`): `hi + hi²/2` exactly, the rest (`lo`, `lo·(hi + lo/2)`, and the Taylor series from
/// `r³/3!` to `r⁹/9!` in `r = hi + lo`, truncated under 2⁻³⁵) in `f32`.
fn em1(h: &mut impl MathHelpers) -> String {
    basics(h);
    let c: Vec<f64> = (3..=9).map(inv_factorial).collect();
    def(
        h,
        "rk_f32_em1",
        "fn rk_f32_em1(hi: f32, lo: f32) -> vec2<f32> {
    let r = hi + lo;
    let z = rk_f32_two_prod(hi, hi);
    let t = 0.5f * z.y + lo * (hi + 0.5f * lo) + r * r * r * $POLY;
    let s = rk_f32_fast_two_sum(hi, 0.5f * z.x);
    return rk_f32_fast_two_sum(s.x, s.y + (lo + t));
}
",
        &[("POLY", horner("r", &c))],
    )
}

/// `exp(x)·2ˢ` for `-104 ≤ x ≤ 90`.
fn exp_scaled(h: &mut impl MathHelpers) -> String {
    em1(h);
    def(h, "rk_f32_exp_scaled", templates::EXP_SCALED, &[])
}

fn exp(h: &mut impl MathHelpers) -> String {
    exp_scaled(h);
    def(h, "rk_f32_exp", templates::EXP, &[])
}

fn exp2(h: &mut impl MathHelpers) -> String {
    em1(h);
    def(h, "rk_f32_exp2", templates::EXP2, &[])
}

/// `exp(x) - 1` as a double-float for `|x| ≤ 21`: `2ⁿ·e + (2ⁿ - 1)` with `e = exp(r) - 1`.
fn expm1_dd(h: &mut impl MathHelpers) -> String {
    em1(h);
    def(h, "rk_f32_expm1_dd", templates::EXPM1_DD, &[])
}

fn sinh(h: &mut impl MathHelpers) -> String {
    expm1_dd(h);
    exp_scaled(h);
    div_dd(h);
    def(h, "rk_f32_sinh", templates::SINH, &[])
}

fn cosh(h: &mut impl MathHelpers) -> String {
    expm1_dd(h);
    exp_scaled(h);
    div_dd(h);
    def(h, "rk_f32_cosh", templates::COSH, &[])
}

fn tanh(h: &mut impl MathHelpers) -> String {
    expm1_dd(h);
    div_dd(h);
    def(h, "rk_f32_tanh", templates::TANH, &[])
}

// ---------------------------------------------------------------------------------------------
// Logarithms and powf.

/// `x = 2ᵉ·m`, `m ∈ [√½, √2)`: returns `(e, ln m as a double-float)` for finite `x > 0`
/// (subnormals scaled by 2²⁴ first). `ln m = 2s + s³·T(s²)`, `s = (m - 1)/(m + 1)`,
/// `T(z) = Σ 2zᵏ/(2k + 3)` to `k = 6` (truncation under 2⁻³⁸ of the result); `s`, `s²`, `s³`
/// and `T`'s leading 2/3 are carried in double-float.
fn log_parts(h: &mut impl MathHelpers) -> String {
    basics(h);
    let q: Vec<f64> = (1..=6).map(|k| 2.0 / f64::from(2 * k + 3)).collect();
    def(
        h,
        "rk_f32_log_parts",
        "fn rk_f32_log_parts(x: f32) -> vec3<f32> {
    var v = x;
    var e = -127i;
    if (v < $MIN_POSITIVE) { v = v * $TWO_P24; e = e - 24i; }
    let b = bitcast<u32>(v);
    e = e + i32(b >> 23u);
    var m = bitcast<f32>((b & 0x7fffffu) | 0x3f800000u);
    if (m > $SQRT_2) { m = 0.5f * m; e = e + 1i; }
    let f = rk_f32_opq(m - 1.0f);
    let d = rk_f32_fast_two_sum(2.0f, f);
    let sh = rk_f32_opq(f / d.x);
    let sd = rk_f32_two_prod(sh, d.x);
    let sl = ((rk_f32_opq(f - sd.x) - sd.y) - sh * d.y) / d.x;
    let z = rk_f32_two_prod(sh, sh);
    let zl = z.y + 2.0f * sh * sl;
    let q = $POLY;
    let t = rk_f32_fast_two_sum($TWO_THIRDS, z.x * q);
    let tl = t.y + ($TWO_THIRDS_LO + zl * q);
    let sz = rk_f32_two_prod(sh, z.x);
    let szl = sz.y + (sh * zl + sl * z.x);
    let p = rk_f32_two_prod(sz.x, t.x);
    let pl = p.y + (sz.x * tl + szl * t.x);
    let a = rk_f32_fast_two_sum(2.0f * sh, p.x);
    let r = rk_f32_fast_two_sum(a.x, a.y + (2.0f * sl + pl));
    return vec3<f32>(f32(e), r.x, r.y);
}
",
        &[("POLY", horner("z.x", &q))],
    )
}

/// `ln x` as a double-float for finite `x > 0`.
fn log_dd(h: &mut impl MathHelpers) -> String {
    log_parts(h);
    def(h, "rk_f32_log_dd", templates::LOG_DD, &[])
}

fn ln(h: &mut impl MathHelpers) -> String {
    log_dd(h);
    def(h, "rk_f32_ln", &templates::ln(), &[])
}

fn log2(h: &mut impl MathHelpers) -> String {
    log_parts(h);
    def(h, "rk_f32_log2", &templates::log2(), &[])
}

fn log10(h: &mut impl MathHelpers) -> String {
    log_dd(h);
    def(h, "rk_f32_log10", &templates::log10(), &[])
}

/// `powf` as Rust (C99 `pow`): `y = ±0` or `x = 1` give 1 (even with NaN), NaN otherwise
/// propagates, `(-1)^±∞ = 1`, the zero and infinity cases keep the sign of `x` for odd integer
/// `y` (so `powf(-∞, 0.5) = +∞`), a negative finite `x` needs an integer `y` (else NaN). The
/// general case is `exp(y·ln|x|)` with `y·ln|x|` in double-float.
fn powf(h: &mut impl MathHelpers) -> String {
    log_dd(h);
    em1(h);
    def(h, "rk_f32_powf", templates::POWF, &[])
}

// ---------------------------------------------------------------------------------------------
// Trigonometric functions.

/// `x = n·π/2 + r`: returns `(r as a double-float, n)`, `|r| ≤ π/4`. Payne–Hanek for every
/// `|x| > π/4`: `|x| = M·2^ex` (M a 24-bit integer); the product of `M·2^ρ` with six 32-bit words
/// of 2/π, starting where the integer part reaches 2² (earlier words only add multiples of 4),
/// gives `x·2/π mod 4` with 96 fraction bits (the words left out weigh under 2⁻¹⁵⁰). The fraction
/// is rounded to the nearest quadrant, negated when it was above ½, and normalised before it
/// becomes a double-float, so `r` keeps 48 significant bits however small it is.
fn rem_pio2(h: &mut impl MathHelpers) -> String {
    basics(h);
    exact::mac_u32(h);
    let words = std::iter::repeat_n(0u32, 2)
        .chain(TWO_OVER_PI.iter().copied().take(8))
        .map(|w| format!("{w:#010x}u"))
        .collect::<Vec<_>>();
    let table = format!(
        "const RK_F32_TWO_OVER_PI = array<u32, {}>({});\n",
        words.len(),
        words.join(", ")
    );
    let src = table
        + "fn rk_f32_rem_pio2(x: f32) -> vec3<f32> {
    if (abs(x) <= $PIO4) { return vec3<f32>(x, 0.0f, 0.0f); }
    let b = bitcast<u32>(x);
    let mant = (b & 0x7fffffu) | 0x800000u;
    // |x| = mant·2^ex with ex >= -24 here; the table starts with two zero words.
    let sh = i32((b >> 23u) & 0xffu) - 150i + 32i;
    let q = sh / 32i;
    let rho = u32(sh % 32i);
    // M·2^rho in two 32-bit limbs (the high one shifted in two steps: a shift by 32 is not one).
    var m: array<u32, 2>;
    m[0] = mant << rho;
    m[1] = (mant >> 1u) >> (31u - rho);
    // acc = Σ_j (M·2^rho)·T[q + j]·2^(32·(7 - j)); the integer part of x·2/π is at limb 7.
    var acc: array<u32, 10>;
    for (var j = 0i; j < 6i; j = j + 1i) {
        let w = RK_F32_TWO_OVER_PI[q + j];
        var carry = 0u;
        var pos = 7i - j;
        for (var k = 0i; k < 2i; k = k + 1i) {
            let t = rk_u32_mac(acc[pos], m[k], w, carry);
            acc[pos] = t.x;
            carry = t.y;
            pos = pos + 1i;
        }
        loop {
            if (carry == 0u || pos >= 10i) { break; }
            let t = acc[pos] + carry;
            carry = select(0u, 1u, t < carry);
            acc[pos] = t;
            pos = pos + 1i;
        }
    }
    // The 96-bit fraction, rounded to the nearest quadrant: above 1/2 it becomes 1 - f (negated).
    var f2 = acc[6];
    var f1 = acc[5];
    var f0 = acc[4];
    let up = f2 >= 0x80000000u;
    var n = i32(acc[7] & 3u) + select(0i, 1i, up);
    if (up) {
        f2 = ~f2;
        f1 = ~f1;
        f0 = ~f0 + 1u;
        if (f0 == 0u) { f1 = f1 + 1u; if (f1 == 0u) { f2 = f2 + 1u; } }
    }
    // Normalise: the leading one to bit 31 of f2, counting the shift in e.
    var e = 0i;
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = 0u; e = 32i; }
    if (f2 == 0u) { f2 = f1; f1 = 0u; e = 64i; }
    let z = countLeadingZeros(f2);
    if (z > 0u && z < 32u) {
        f2 = (f2 << z) | (f1 >> (32u - z));
        f1 = (f1 << z) | (f0 >> (32u - z));
    }
    e = e + i32(z);
    // |f| = (f2·2^-32 + f1·2^-64)·2^-e: 48 bits as two exact f32s, then r = f·π/2.
    let fh = f32(f2 >> 8u) * $TWO_M24;
    let fl = f32(((f2 & 0xffu) << 16u) | (f1 >> 16u)) * $TWO_M48;
    let s = rk_f32_fast_two_sum(fh, fl);
    let p = rk_f32_two_prod(s.x, $PIO2);
    var r = rk_f32_fast_two_sum(p.x, p.y + (s.x * $PIO2_LO + s.y * $PIO2));
    let k = rk_f32_pow2(-e);
    r = vec2<f32>(r.x * k, r.y * k);
    if (up) { r = -r; }
    if (x < 0.0f) { r = -r; n = -n; }
    return vec3<f32>(r.x, r.y, f32(n));
}
";
    def(h, "rk_f32_rem_pio2", &src, &[])
}

/// `sin(h + l)` for `|h| ≤ π/4`, `|l| ≤ ulp(h)`, as `(head, tail)`: `h - h³/6` with `h³/6` in
/// double-float, the Taylor series from `h⁵/5!` to `h¹³/13!` (truncation under 2⁻³⁶ relative), and
/// the `l` term by `cos h ≈ 1 - h²/2`.
fn sin_kernel(h: &mut impl MathHelpers) -> String {
    basics(h);
    let c: Vec<f64> = (2..=6)
        .map(|k| {
            let s = if k % 2 == 1 { -1.0 } else { 1.0 };
            s * inv_factorial(2 * k + 1)
        })
        .collect();
    def(
        h,
        "rk_f32_sin_k",
        "fn rk_f32_sin_k(h: f32, l: f32) -> vec2<f32> {
    let z = rk_f32_two_prod(h, h);
    let u = rk_f32_two_prod(h, z.x);
    let c = rk_f32_two_prod(u.x, $SIXTH);
    let t = c.y + (u.x * $SIXTH_LO + (u.y + h * z.y) * $SIXTH) + u.x * z.x * $POLY;
    let s = rk_f32_fast_two_sum(h, c.x);
    return vec2<f32>(s.x, s.y + (t + l * (1.0f - 0.5f * z.x)));
}
",
        &[("POLY", horner("z.x", &c))],
    )
}

/// `cos(h + l)` for `|h| ≤ π/4` as `(head, tail)`: `1 - h²/2` exactly (`h²` by `two_prod`), then
/// Taylor from `h⁴/4!` to `h¹²/12!`, and `-h·l`.
fn cos_kernel(h: &mut impl MathHelpers) -> String {
    basics(h);
    let c: Vec<f64> = (2..=6)
        .map(|k| {
            let s = if k % 2 == 0 { 1.0 } else { -1.0 };
            s * inv_factorial(2 * k)
        })
        .collect();
    def(
        h,
        "rk_f32_cos_k",
        templates::COS_K,
        &[("POLY", horner("z.x", &c))],
    )
}

trig_functions!("f32");

// ---------------------------------------------------------------------------------------------
// Inverse trigonometric functions.

/// `atan(a + al)` for `a ≥ 0` as `(head, tail)`: `atan(c) + atan(u)` with `u = (a - c)/(1 + a·c)`,
/// `c ∈ {0, ½, 1, 2, ∞}`, `|u| ≤ ¼`; `u` is a double-float (the numerators are exact, the
/// denominators carry their rounding error); `atan u = u + u·z·R(z)`, Taylor to `u¹⁵/15`.
fn atan_dd(h: &mut impl MathHelpers) -> String {
    div_dd(h);
    let r: Vec<f64> = (0..7)
        .map(|k| {
            let s = if k % 2 == 0 { -1.0 } else { 1.0 };
            s / f64::from(2 * k + 3)
        })
        .collect();
    def(
        h,
        "rk_f32_atan_dd",
        templates::ATAN_DD,
        &[("POLY", horner("z", &r))],
    )
}

fn atan(h: &mut impl MathHelpers) -> String {
    atan_dd(h);
    def(h, "rk_f32_atan", templates::ATAN, &[])
}

/// `y.atan2(x)`: NaN → NaN; `y = ±0`: ±0 for `x` = +0 or positive, ±π for `x` = -0 or negative;
/// `x = ±0`: ±π/2; `y = ±∞`: ±π/4, ±3π/4 or ±π/2; `x = ±∞`: ±0 or ±π. Otherwise `atan(|y/x|)`
/// with the quotient in double-float (both arguments scaled near 1 first), placed in its quadrant.
fn atan2(h: &mut impl MathHelpers) -> String {
    atan_dd(h);
    def(
        h,
        "rk_f32_atan2",
        "fn rk_f32_atan2(y: f32, x: f32) -> f32 {
    if (((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u) || ((bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u)) { return $NAN; }
    let ax = abs(x);
    let ay = abs(y);
    let xneg = (bitcast<u32>(x) >> 31u) == 1u;
    var v: f32;
    if (ay == 0.0f) {
        v = select(0.0f, $PI, xneg);
    } else if (ax == 0.0f) {
        v = $PIO2;
    } else if (ay == $INF) {
        v = select($PIO2, select($PIO4, $PI3O4, xneg), ax == $INF);
    } else if (ax == $INF) {
        v = select(0.0f, $PI, xneg);
    } else {
        // Exponents from the bits (both normal where it matters: a subnormal pair is scaled
        // up first, and a subnormal beside a normal number lands in the d < -28 case).
        var sx = ax;
        var sy = ay;
        if (max(ax, ay) < $TWO_M100) { sx = sx * $TWO_P100; sy = sy * $TWO_P100; }
        let ex = i32(bitcast<u32>(sx) >> 23u);
        let d = i32(bitcast<u32>(sy) >> 23u) - ex;
        var z: vec2<f32>;
        if (d > 28i) {
            z = vec2<f32>($PIO2, $PIO2_LO);
        } else if (d < -28i) {
            z = vec2<f32>(ay / ax, 0.0f);
        } else {
            // Both scaled by the same power of two, |x| into [1, 2): exact.
            let k = 127i - ex;
            let q = rk_f32_div_dd(vec2<f32>(rk_f32_ldexp(sy, k), 0.0f), vec2<f32>(rk_f32_ldexp(sx, k), 0.0f));
            z = rk_f32_atan_dd(q.x, q.y);
        }
        if (xneg) {
            let p = rk_f32_two_sum($PI, -z.x);
            v = p.x + (p.y + ($PI_LO - z.y));
        } else {
            v = z.x + z.y;
        }
    }
    return select(v, -v, (bitcast<u32>(y) >> 31u) == 1u);
}
",
        &[],
    )
}

/// `R` of `asin x = x + x·z·R(z)` (Taylor, `z = x² ≤ ¼`, to `x²⁵`) and the half-angle argument:
/// for `a ∈ (½, 1]`, `t = (1 - a)/2` (exact), `s = √t` and its correction `(t - s²)/(2s)` from
/// the exact residual.
fn asin_parts(h: &mut impl MathHelpers) -> String {
    basics(h);
    // c_k = (2k)! / (4^k (k!)^2 (2k + 1)), k = 1..12.
    let mut r = Vec::new();
    let mut binom = 1.0f64;
    for k in 1..=12u32 {
        binom *= f64::from(2 * k - 1) / f64::from(2 * k);
        r.push(binom / f64::from(2 * k + 1));
    }
    def(
        h,
        "rk_f32_asin_r",
        templates::ASIN_R,
        &[("POLY", horner("z", &r))],
    )
}

fn asin(h: &mut impl MathHelpers) -> String {
    asin_parts(h);
    def(h, "rk_f32_asin", templates::ASIN, &[])
}

fn acos(h: &mut impl MathHelpers) -> String {
    asin_parts(h);
    def(h, "rk_f32_acos", templates::ACOS, &[])
}

// ---------------------------------------------------------------------------------------------
// cbrt and hypot.

/// `cbrt`: `|x| = m·2^(3k)` with `m ∈ [1, 8)` (subnormals scaled by 2²⁴ first), a first guess for
/// `∛m` from a third of its bits, two Halley steps, and a Newton step on the exact residual
/// `m - y³`.
fn cbrt(h: &mut impl MathHelpers) -> String {
    basics(h);
    def(
        h,
        "rk_f32_cbrt",
        "fn rk_f32_cbrt(x: f32) -> f32 {
    let a = abs(x);
    // ±0, ±inf and NaN are their own cube roots.
    if (a == 0.0f || !(a <= $MAX)) { return x; }
    var v = a;
    var e = -127i;
    if (v < $MIN_POSITIVE) { v = v * $TWO_P24; e = e - 24i; }
    let b = bitcast<u32>(v);
    e = e + i32(b >> 23u);
    let k = (e + 300i) / 3i - 100i;
    let m = bitcast<f32>((b & 0x7fffffu) | (u32(e - 3i * k + 127i) << 23u));
    // The bits of 1.0 map to themselves.
    var y = bitcast<f32>(bitcast<u32>(m) / 3u + 0x2a555556u);
    for (var i = 0i; i < 2i; i = i + 1i) {
        let c = y * y * y;
        y = y * ((c + 2.0f * m) / (2.0f * c + m));
    }
    let y2 = rk_f32_two_prod(y, y);
    let y3 = rk_f32_two_prod(y2.x, y);
    y = y + (rk_f32_opq(m - y3.x) - (y3.y + y2.y * y)) / (3.0f * y2.x);
    let r = y * rk_f32_pow2(k);
    return select(r, -r, x < 0.0f);
}
",
        &[],
    )
}

fn hypot(h: &mut impl MathHelpers) -> String {
    basics(h);
    def(
        h,
        "rk_f32_hypot",
        "fn rk_f32_hypot(x: f32, y: f32) -> f32 {
    let a = abs(x);
    let b = abs(y);
    if (a == $INF || b == $INF) { return $INF; }
    if (((bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u) || ((bitcast<u32>(b) & 0x7fffffffu) > 0x7f800000u)) { return $NAN; }
    var m = max(a, b);
    var s = min(a, b);
    if (m == 0.0f) { return 0.0f; }
    var k = 0i;
    // Into [2^-49, 2^50]: the squares and their errors stay normal.
    if (m > $TWO_P50) { m = m * $TWO_M80; s = s * $TWO_M80; k = 80i; }
    else if (m < $TWO_M50) { m = m * $TWO_P100; s = s * $TWO_P100; k = -100i; }
    let m2 = rk_f32_two_prod(m, m);
    let s2 = rk_f32_two_prod(s, s);
    let t = rk_f32_fast_two_sum(m2.x, s2.x);
    let u = rk_f32_fast_two_sum(t.x, t.y + (m2.y + s2.y));
    let r = rk_f32_opq(sqrt(u.x));
    let rr = rk_f32_two_prod(r, r);
    return rk_f32_ldexp(r + ((rk_f32_opq(u.x - rr.x) - rr.y) + u.y) / (2.0f * r), k);
}
",
        &[],
    )
}

library_call!("f32");

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole library as the WGSL target emits it against `snapshots/f32.wgsl`.
    #[test]
    fn f32_library_snapshot() {
        super::super::snapshot::check("f32", call);
    }

    /// `rk_u32_mac` as written in WGSL (wrapping 32-bit operations, in the same order).
    fn mac(c: u32, a: u32, b: u32, d: u32) -> (u32, u32) {
        let (al, ah, bl, bh) = (a & 0xffff, a >> 16, b & 0xffff, b >> 16);
        let (ll, lh, hl) = (al * bl, al * bh, ah * bl);
        let mid = (ll >> 16) + (lh & 0xffff) + (hl & 0xffff);
        let lo = (mid << 16) | (ll & 0xffff);
        let hi = ah * bh + (lh >> 16) + (hl >> 16) + (mid >> 16);
        let s = lo.wrapping_add(c);
        let t = s.wrapping_add(d);
        (t, hi + u32::from(s < c) + u32::from(t < d))
    }

    /// The limbs of `x·2/π` that `rk_f32_rem_pio2` accumulates (`|x| > π/4`), in 32-bit limbs as
    /// the WGSL does now (`wide: false`) or in 64-bit integers as it did before (`wide: true`).
    fn limbs(x: f32, wide: bool) -> [u32; 10] {
        let table: Vec<u32> = [0, 0]
            .into_iter()
            .chain(TWO_OVER_PI.into_iter().take(8))
            .collect();
        let b = x.to_bits();
        let mant = (b & 0x7f_ffff) | 0x80_0000;
        let sh = ((b >> 23) & 0xff) as i32 - 150 + 32;
        let (q, rho) = ((sh / 32) as usize, (sh % 32) as u32);
        let m = if wide {
            let ms = u64::from(mant) << rho;
            [ms as u32, (ms >> 32) as u32]
        } else {
            [mant << rho, (mant >> 1) >> (31 - rho)]
        };
        let mut acc = [0u32; 10];
        for j in 0..6 {
            let w = table[q + j];
            let mut pos = 7 - j;
            if wide {
                let mut carry = 0u64;
                for mk in m {
                    let t = u64::from(acc[pos]) + u64::from(mk) * u64::from(w) + carry;
                    (acc[pos], carry) = (t as u32, t >> 32);
                    pos += 1;
                }
                while carry != 0 && pos < 10 {
                    let t = u64::from(acc[pos]) + carry;
                    (acc[pos], carry) = (t as u32, t >> 32);
                    pos += 1;
                }
            } else {
                let mut carry = 0u32;
                for mk in m {
                    (acc[pos], carry) = mac(acc[pos], mk, w, carry);
                    pos += 1;
                }
                while carry != 0 && pos < 10 {
                    let t = acc[pos].wrapping_add(carry);
                    carry = u32::from(t < carry);
                    acc[pos] = t;
                    pos += 1;
                }
            }
        }
        acc
    }

    /// `rk_u32_mac` is `c + a·b + d` exactly, at the edges of its halves and at random.
    #[test]
    fn mac_is_exact() {
        let edges = [
            0u32,
            1,
            0xffff,
            0x1_0000,
            0x1_ffff,
            0x8000_0000,
            0xffff_0000,
            u32::MAX,
        ];
        let mut r = 0x2545_f491_4f6c_dd1du64;
        let mut rand = || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r as u32
        };
        let mut cases: Vec<[u32; 4]> = Vec::new();
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        cases.push([c, a, b, d]);
                    }
                }
            }
        }
        cases.extend((0..100_000).map(|_| [rand(), rand(), rand(), rand()]));
        for [c, a, b, d] in cases {
            let want = u64::from(c) + u64::from(a) * u64::from(b) + u64::from(d);
            let (lo, hi) = mac(c, a, b, d);
            assert_eq!(
                (u64::from(hi) << 32) | u64::from(lo),
                want,
                "{c} + {a}·{b} + {d}"
            );
        }
    }

    /// The 32-bit-limb Payne–Hanek product is the 64-bit one's, limb for limb (so the reduced
    /// argument and quadrant, computed from those limbs by unchanged code, are bit for bit the
    /// same): every binade above π/4 with random significands and both ends, the floats nearest
    /// to multiples of π/2 (the hardest cases for the reduction), and their neighbours.
    #[test]
    fn reduction_limbs_match_the_64_bit_ones() {
        let mut xs: Vec<f32> = Vec::new();
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for e in 126u32..=254 {
            xs.push(f32::from_bits(e << 23));
            xs.push(f32::from_bits((e << 23) | 0x7f_ffff));
            for _ in 0..2000 {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                xs.push(f32::from_bits((e << 23) | (r as u32 & 0x7f_ffff)));
            }
        }
        for k in (1..200_000u64).chain((1..2000).map(|k| k * 1_000_003)) {
            xs.push((k as f64 * consts::FRAC_PI_2) as f32);
        }
        for b in [
            0x4afd_0ad8u32,
            0x5922_aa80,
            0x5d08_0000,
            0x6d0c_28d7,
            0x7a54_0000,
        ] {
            xs.push(f32::from_bits(b));
        }
        let near: Vec<f32> = xs
            .iter()
            .flat_map(|x| [-1i32, 1].map(|d| f32::from_bits(x.to_bits().wrapping_add_signed(d))))
            .collect();
        xs.extend(near);
        xs.push(f32::MAX);
        let mut n = 0;
        for x in xs {
            if !(x.abs() > consts::FRAC_PI_4 as f32 && x.is_finite()) {
                continue;
            }
            n += 1;
            assert_eq!(limbs(x, false), limbs(x, true), "x = {x:e}");
        }
        assert!(n > 600_000, "{n} arguments");
    }

    /// The constants are what their names say.
    #[test]
    fn constants() {
        let c = |n: &str| constant(n).unwrap();
        assert_eq!(c("LN2_HI") + c("LN2_MID"), consts::LN_2 as f32);
        assert_eq!(c("LN2_HI").to_bits() & 0xff, 0);
        for (hi, lo) in [
            ("LN2", "LN2_LO"),
            ("LOG2_E", "LOG2_E_LO"),
            ("LOG10_E", "LOG10_E_LO"),
            ("PIO2", "PIO2_LO"),
            ("PI", "PI_LO"),
            ("ATAN_HALF", "ATAN_HALF_LO"),
            ("ATAN_TWO", "ATAN_TWO_LO"),
            ("TWO_THIRDS", "TWO_THIRDS_LO"),
            ("SIXTH", "SIXTH_LO"),
        ] {
            let (h, l) = (c(hi) as f64, c(lo) as f64);
            assert!(
                l != 0.0 && l.abs() <= f32::EPSILON as f64 * h.abs() / 2.0,
                "{hi}"
            );
        }
        assert_eq!(c("TWO_M12"), 2f32.powi(-12));
        assert_eq!(c("TWO_P100"), 2f32.powi(100));
    }
}
