//! Transcendental functions on `f64`, written in WGSL: SPIR-V's GLSL.std.450 defines them for 16-
//! and 32-bit floats only, so the emitter brings its own f64 math library. Each function is one
//! helper (`rk_f64_sin`, ...) built on shared cores registered the same way: exact sums and
//! products, `exp` of a reduced argument, `ln` in double-double, the reduction by π/2 and the
//! polynomial kernels of sin/cos, atan and asin.
//!
//! # Method
//!
//! - `exp`, `exp2`, `powf`, `sinh`, `cosh`, `tanh`: `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2` (a
//!   32-bit head of ln 2 times `n` is exact, so `x - n·head` is exact), `exp(r) - 1` by its Taylor
//!   series to `r¹⁴/14!` returned as a double-double, then `·2ⁿ` in two exact halves so that
//!   neither factor overflows or underflows before the product does. `expm1` for the hyperbolic
//!   functions is `2ⁿ·(exp(r) - 1) + (2ⁿ - 1)` summed exactly.
//! - `ln`, `log2`, `log10`, `powf`: `x = 2ᵉ·m` with `m ∈ [√½, √2)`, `ln m = 2·atanh(s)` with
//!   `s = (m - 1)/(m + 1)`, series to `s²⁵`, the leading terms in double-double. The result is a
//!   double-double with a relative error near 2⁻⁶⁵, so `powf = exp(y·ln x)` stays within about an
//!   ulp even when `|y·ln x|` approaches 709; `log2` and `log10` multiply by a double-double 1/ln 2
//!   and 1/ln 10 (not a rounded constant), so powers of 2 and 10 give exact results.
//! - `sin`, `cos`, `tan`: `x = n·π/2 + r`. For `|x| < 1.6e6` Cody–Waite with π/2 in four parts
//!   (three of 33 bits, whose products with `n < 2²⁰` are exact, and a fourth of 53 bits: 152 bits
//!   in all); beyond, Payne–Hanek in 32-bit integer arithmetic with 1184 bits of 2/π, so the
//!   reduced argument is accurate over the whole finite range. `r` is a double-double; the kernels
//!   are Taylor series on `|r| ≤ π/4`; `tan` divides the double-double sine by the cosine.
//! - `atan`: `atan(a) = atan(c) + atan((a - c)/(1 + a·c))` with `c ∈ {0, ½, 1, 2, ∞}`, so the
//!   reduced argument is at most ¼; `atan2` divides in double-double and places the quadrant,
//!   with every signed-zero and infinity case of C99 (which Rust follows).
//! - `asin`, `acos`: a polynomial on `|x| ≤ ½`, and `asin x = π/2 - 2·asin(√((1 - x)/2))` beyond,
//!   with the square root corrected by its exact residual.
//! - `cbrt`: an exponent-thirds first guess, two Halley steps, then a Newton step on the exact
//!   residual `x - y³`. `hypot`: `√(a² + b²)` with the squares and sum in double-double, scaled by
//!   2^±600 first so that nothing overflows or underflows.
//!
//! The polynomials for atan and asin were fitted offline (Chebyshev interpolation in 256-bit
//! arithmetic with mpmath; the bit patterns are below) and keep the approximation error under
//! 2⁻⁵⁵ of the correction term; every other polynomial is a Taylor series whose coefficients are
//! computed here. Constants are printed from `f64` values through [`super::lit`] (WGSL's spelling), so nothing is
//! rounded twice.
//!
//! # What the compiler may do, and how the code copes
//!
//! Error-free transformations (`two_sum`, `two_prod`) are the backbone, and GPU compilers treat
//! WGSL float arithmetic as relaxed. Mesa's lavapipe, for one, rewrites `(a + b) - a` into `b`,
//! `x - x` into 0, moves constants out of sums (`(t - p) - e` with `t = 0.5 - 0.5·x` is evaluated
//! as `((-0.5·x - p) - e) + 0.5`) and lowers f64 `fma` to an unfused multiply and add (all
//! observed). So:
//! - the exact sums and the exact differences of the corrections route their operands and partial
//!   results through `rk_f64_opq`, an identity the optimiser cannot see through (an integer
//!   operation on the bits), so each is evaluated as written;
//! - products are Dekker's, on halves made by rounding the significand to 26 bits with integer
//!   operations on the bits (not Veltkamp's splitting, whose `c - (c - a)` a compiler can fold or
//!   fuse), so every partial product is exact; the product itself goes through the opaque
//!   identity, so that a compiler which fuses multiply-adds cannot fold it into the error term.
//!   Where `fma` is fused the code is equally right; it never relies on it. These error-free
//!   transformations are the shared ones of [`super::exact`];
//! - NaN is tested on its bits (a Vulkan driver may fold a self-comparison away), never produced by
//!   `x - x` or `0 * x`, and infinities and NaN come from constants;
//! - integers are found with `floor` (`floor(v + 0.5)` to round): lavapipe's f64 `trunc` and
//!   `round` return their argument unchanged from 2²⁴ on, as if it were an f32.
//!
//! # Accuracy
//!
//! On lavapipe, over the inputs of `tests/math_f64.rs` and 20 000 to 80 000 more random ones per
//! function checked offline against mpmath, every result is within 1 ulp of the exact value
//! (faithful), most within half an ulp (correctly rounded); the largest errors seen, in ulps:
//! tan 0.87, sinh 0.74, tanh 0.73, sin 0.73, cos 0.70, cosh and exp 0.65, exp2 0.64, powf 0.62
//! (with `|y·ln x|` up to 745), asin 0.62, acos 0.59, atan and atan2 0.53, and 0.50 for ln, log2,
//! log10, cbrt and hypot. That holds for sin, cos and tan over the whole finite range (there is no
//! cut-off: beyond 1.6e6 the reduction is Payne–Hanek). Against Rust's `std` (glibc), which has
//! its own errors, the distance is at most 1 ulp, 2 for sinh, cosh, tanh and log10 (glibc's are
//! documented at 2 ulp). Results in the subnormal range may be rounded twice (to 53 bits, then
//! when scaled), so they can be 1 ulp off; lavapipe keeps subnormals (no flushing). Special values
//! (NaN, ±∞, ±0 with its sign, overflow to ∞, underflow to 0, domain errors to NaN) follow Rust.

use super::{templates, MathHelpers};
use rokkos_core::ir::{MathFn, ScalarType, Value};
use std::f64::consts;

/// Bit patterns of constants that `std` has no name for (tails of double-double constants, from
/// mpmath at 2000 bits: the double nearest to `value - head`).
mod bits {
    /// `ln 2 - LN_2`.
    pub const LN2_LO: u64 = 0x3c7a_bc9e_3b39_803f;
    /// `1/ln 2 - LOG2_E`.
    pub const LOG2_E_LO: u64 = 0x3c77_77d0_ffda_0d24;
    /// `1/ln 10 - LOG10_E`.
    pub const LOG10_E_LO: u64 = 0x3c69_5355_baaa_fad3;
    /// `π/2 - FRAC_PI_2`.
    pub const PIO2_LO: u64 = 0x3c91_a626_3314_5c07;
    /// The double nearest to `3π/4`.
    pub const PI3O4: u64 = 0x4002_d97c_7f33_21d2;
    /// `atan(½)` as a double-double.
    pub const ATAN_HALF: (u64, u64) = (0x3fdd_ac67_0561_bb4f, 0x3c7a_2b7f_222f_65e2);
    /// `atan(2)` as a double-double.
    pub const ATAN_TWO: (u64, u64) = (0x3ff1_b6e1_92eb_be44, 0x3c9b_1b46_6a88_828e);
    /// π/2 as 33 + 33 + 33 + 53 bits (the first three truncated, the last rounded): `n·part`
    /// is exact for the first three while `|n| < 2²⁰`.
    pub const PIO2_PARTS: [u64; 4] = [
        0x3ff9_21fb_5440_0000,
        0x3dd0_b461_1a60_0000,
        0x3ba3_198a_2e00_0000,
        0x397b_839a_2520_49c1,
    ];
    /// `R(z)` of `asin(x) = x + x·z·R(z)`, `z = x² ∈ [0, ¼]`, lowest degree first (degree 12;
    /// approximation error 2⁻⁵⁵·³ absolute).
    pub const ASIN_R: [u64; 13] = [
        0x3fc5555555555556,
        0x3fb3333333332eca,
        0x3fa6db6db6e31f13,
        0x3f9f1c71c1db0623,
        0x3f96e8bb1c8209a2,
        0x3f91c4d35cf95421,
        0x3f8c9cf07674736a,
        0x3f8782651caa6547,
        0x3f852420b04b37be,
        0x3f765a9c4dfcf8b2,
        0x3f91d189408314ee,
        0xbf8e6aaa8a0a04cc,
        0x3f9d72b2bc8155f8,
    ];
    /// `R(z)` of `atan(u) = u + u·z·R(z)`, `z = u² ∈ [0, 1/16]`, lowest degree first (degree 8;
    /// approximation error 2⁻⁵⁵·⁶ absolute).
    pub const ATAN_R: [u64; 9] = [
        0xbfd5555555555555,
        0x3fc9999999999819,
        0xbfc249249246a320,
        0x3fbc71c71937c71b,
        0xbfb745d069641c85,
        0x3fb3b10a743ad56d,
        0xbfb10bd65ecddbdb,
        0x3fad7490973936c1,
        0xbfa50271856f7796,
    ];
    /// The binary digits of 2/π (shared with the f32 library).
    pub(crate) use super::super::TWO_OVER_PI;
}

/// `ln 2` with its low 21 mantissa bits cleared (32 significant bits): `n·LN2_HI` is exact for
/// `|n| < 2²¹`.
fn ln2_hi() -> f64 {
    f64::from_bits(consts::LN_2.to_bits() & !0x1f_ffff)
}

/// The named constants the WGSL templates use as `$NAME`.
fn constant(name: &str) -> Option<f64> {
    let f = f64::from_bits;
    Some(match name {
        "INF" => f64::INFINITY,
        "NAN" => f64::NAN,
        "MAX" => f64::MAX,
        "MIN_POSITIVE" => f64::MIN_POSITIVE,
        "SQRT_2" => consts::SQRT_2,
        "LN2" => consts::LN_2,
        "LN2_HI" => ln2_hi(),
        // Exact: the low 21 bits of LN_2.
        "LN2_MID" => consts::LN_2 - ln2_hi(),
        "LN2_LO" => f(bits::LN2_LO),
        "LOG2_E" => consts::LOG2_E,
        "LOG2_E_LO" => f(bits::LOG2_E_LO),
        "LOG10_E" => consts::LOG10_E,
        "LOG10_E_LO" => f(bits::LOG10_E_LO),
        "PIO2" => consts::FRAC_PI_2,
        "PIO2_LO" => f(bits::PIO2_LO),
        "PI" => consts::PI,
        "PI_LO" => 2.0 * f(bits::PIO2_LO),
        "PIO4" => consts::FRAC_PI_4,
        "PIO4_LO" => 0.5 * f(bits::PIO2_LO),
        "PI3O4" => f(bits::PI3O4),
        "ATAN_HALF" => f(bits::ATAN_HALF.0),
        "ATAN_HALF_LO" => f(bits::ATAN_HALF.1),
        "ATAN_TWO" => f(bits::ATAN_TWO.0),
        "ATAN_TWO_LO" => f(bits::ATAN_TWO.1),
        "FRAC_2_PI" => consts::FRAC_2_PI,
        "CW1" => f(bits::PIO2_PARTS[0]),
        "CW2" => f(bits::PIO2_PARTS[1]),
        "CW3" => f(bits::PIO2_PARTS[2]),
        "CW4" => f(bits::PIO2_PARTS[3]),
        "TWO_THIRDS" => 2.0 / 3.0,
        // Below these, sin, asin and sinh are x, cos is 1, tan and atan are x, tanh is x, to
        // within half an ulp; above ATAN_BIG atan is ±π/2; from POW_INT_LIMIT on every f64 is
        // an even integer.
        "SIN_TINY" | "ASIN_TINY" | "SINH_TINY" => 2f64.powi(-26),
        "COS_TINY" | "TAN_TINY" | "ATAN_TINY" => 2f64.powi(-27),
        "TANH_TINY" => 2f64.powi(-28),
        "ATAN_BIG" => 2f64.powi(60),
        "POW_INT_LIMIT" => 2f64.powi(53),
        _ if name.starts_with("TWO_P") || name.starts_with("TWO_M") => {
            // Powers of two, exact: TWO_P54 = 2^54, TWO_M26 = 2^-26.
            let k: i32 = name[5..].parse().ok()?;
            2f64.powi(if name.as_bytes()[4] == b'P' { k } else { -k })
        }
        // 2/3 - TWO_THIRDS: the residual 2 - 3·(2/3 rounded) is exact under a fused multiply-add.
        "TWO_THIRDS_LO" => (-3.0f64).mul_add(2.0 / 3.0, 2.0) / 3.0,
        _ => return None,
    })
}

use super::inv_factorial;

/// A Horner evaluation of `Σ c[i]·xⁱ` with `fma`.
fn horner(x: &str, c: &[f64]) -> String {
    let c: Vec<Value> = c.iter().map(|&v| Value::F64(v)).collect();
    super::horner(x, &c)
}

/// `src` with every `$NAME` replaced: by the snippet `NAME` of `snippets`, else by the WGSL literal
/// of [`constant`] `NAME`.
fn wgsl(src: &str, snippets: &[(&str, String)]) -> String {
    super::library_text(src, ScalarType::F64, snippets, PARAMS, |n| {
        constant(n).map(Value::F64)
    })
}

/// The parameters of the shared templates ([`templates`]) spelled for `f64`: the ranges of the
/// exponential functions (beyond them the result is ∞ or 0), the thresholds of `sinh`, `cosh`,
/// `tanh` and `atan_dd`, and `scale` as the scaling helper.
const PARAMS: &[(&str, &str)] = &[
    ("SCALE", "scale"),
    ("EXP_OVER", "710.0lf"),
    ("EXP_UNDER", "-746.0lf"),
    ("EXP2_OVER", "1025.0lf"),
    ("EXP2_UNDER", "-1076.0lf"),
    ("HYP_SMALL", "22.0lf"),
    ("HYP_BIG", "711.0lf"),
    ("TANH_SMALL", "22.0lf"),
    ("FOUR_THIRDS", "1.3333333333333333lf"),
];

/// Registers helper `name` (whose text is `src` after [`wgsl`]) and returns its name.
fn def(h: &mut impl MathHelpers, name: &str, src: &str, snippets: &[(&str, String)]) -> String {
    h.add_wgsl(name, || wgsl(src, snippets))
}

// ---------------------------------------------------------------------------------------------
// Exact arithmetic.

/// `two_sum` and `fast_two_sum`, and the exact `two_prod` (with the opaque identity): the shared ones of
/// [`super::exact`] (see the module documentation there for why they survive relaxed compilers).
fn two_sum(h: &mut impl MathHelpers) -> String {
    super::exact::two_sum(h, ScalarType::F64)
}
fn two_prod(h: &mut impl MathHelpers) -> String {
    super::exact::two_prod(h, ScalarType::F64)
}

/// `(n.x + n.y) / (d.x + d.y)` as a double-double (quotient, correction from the exact residual).
fn div_dd(h: &mut impl MathHelpers) -> String {
    two_prod(h);
    def(h, "rk_f64_div_dd", templates::DIV_DD, &[])
}

/// `y·2ᵏ` rounded once: `2^(k/2)` and `2^(k - k/2)` are normal, `y·2^(k/2)` is exact for `y`
/// near 1, and the second product rounds (to ∞, a subnormal or 0 as the exact value says).
fn scale(h: &mut impl MathHelpers) -> String {
    def(
        h,
        "rk_f64_scale",
        "fn rk_f64_pow2(k: i32) -> f64 { return bitcast<f64>(u64(k + 1023i) << 52u); }
fn rk_f64_scale(y: f64, k: i32) -> f64 {
    let kk = clamp(k, -2000i, 2000i);
    let k1 = kk / 2i;
    return (y * rk_f64_pow2(k1)) * rk_f64_pow2(kk - k1);
}
",
        &[],
    )
}

// ---------------------------------------------------------------------------------------------
// exp and friends.

/// `exp(hi + lo) - 1` as a double-double for `|hi + lo| ≤ ln 2 / 2` (Taylor to r¹⁴/14!: the
/// truncation is under 2⁻⁶² relative).
fn em1(h: &mut impl MathHelpers) -> String {
    two_sum(h);
    let c: Vec<f64> = (2..=14).map(inv_factorial).collect();
    def(
        h,
        "rk_f64_em1",
        "fn rk_f64_em1(hi: f64, lo: f64) -> vec2<f64> {
    let r = hi + lo;
    let p = r * r * $POLY;
    return rk_f64_two_sum(hi, lo + p);
}
",
        &[("POLY", horner("r", &c))],
    )
}

/// `exp(x)·2ˢ` for `-746 ≤ x ≤ 711`.
fn exp_scaled(h: &mut impl MathHelpers) -> String {
    em1(h);
    scale(h);
    def(h, "rk_f64_exp_scaled", templates::EXP_SCALED, &[])
}

fn exp(h: &mut impl MathHelpers) -> String {
    exp_scaled(h);
    def(h, "rk_f64_exp", templates::EXP, &[])
}

fn exp2(h: &mut impl MathHelpers) -> String {
    em1(h);
    scale(h);
    two_prod(h);
    def(h, "rk_f64_exp2", templates::EXP2, &[])
}

/// `exp(x) - 1` as a double-double for `|x| ≤ 45`: `2ⁿ·e + (2ⁿ - 1)` with `e = exp(r) - 1`
/// (`2ⁿ - 1` is exact for `n ≤ 53` and negligible beyond).
fn expm1_dd(h: &mut impl MathHelpers) -> String {
    em1(h);
    scale(h);
    def(h, "rk_f64_expm1_dd", templates::EXPM1_DD, &[])
}

fn sinh(h: &mut impl MathHelpers) -> String {
    expm1_dd(h);
    exp_scaled(h);
    div_dd(h);
    def(h, "rk_f64_sinh", templates::SINH, &[])
}

fn cosh(h: &mut impl MathHelpers) -> String {
    expm1_dd(h);
    exp_scaled(h);
    div_dd(h);
    def(h, "rk_f64_cosh", templates::COSH, &[])
}

fn tanh(h: &mut impl MathHelpers) -> String {
    expm1_dd(h);
    div_dd(h);
    def(h, "rk_f64_tanh", templates::TANH, &[])
}

// ---------------------------------------------------------------------------------------------
// Logarithms and powf.

/// `x = 2ᵉ·m`, `m ∈ [√½, √2)`: returns `(e, ln m as a double-double)` for finite `x > 0`.
/// `ln m = 2s + s³·T(s²)`, `s = (m - 1)/(m + 1)`, `T(z) = Σ 2zᵏ/(2k + 3)` to `k = 11` (truncation
/// below 2⁻⁷⁰ of the result); `s`, `s²`, `s³` and `T`'s leading 2/3 are carried in
/// double-double, the rest of `T` (under 2⁻⁶ of it) in double.
fn log_parts(h: &mut impl MathHelpers) -> String {
    two_sum(h);
    two_prod(h);
    let q: Vec<f64> = (1..=11).map(|k| 2.0 / f64::from(2 * k + 3)).collect();
    def(
        h,
        "rk_f64_log_parts",
        "fn rk_f64_log_parts(x: f64) -> vec3<f64> {
    var v = x;
    var e = -1023i;
    if (v < $MIN_POSITIVE) { v = v * $TWO_P54; e = e - 54i; }
    let b = bitcast<u64>(v);
    e = e + i32(b >> 52u);
    var m = bitcast<f64>((b & 0xffffffffffffflu) | 0x3ff0000000000000lu);
    if (m > $SQRT_2) { m = 0.5lf * m; e = e + 1i; }
    let f = rk_f64_opq(m - 1.0lf);
    let d = rk_f64_fast_two_sum(2.0lf, f);
    let sh = rk_f64_opq(f / d.x);
    let sd = rk_f64_two_prod(sh, d.x);
    let sl = ((rk_f64_opq(f - sd.x) - sd.y) - sh * d.y) / d.x;
    let z = rk_f64_two_prod(sh, sh);
    let zl = z.y + 2.0lf * sh * sl;
    let q = $POLY;
    let t = rk_f64_fast_two_sum($TWO_THIRDS, z.x * q);
    let tl = t.y + ($TWO_THIRDS_LO + zl * q);
    let sz = rk_f64_two_prod(sh, z.x);
    let szl = sz.y + (sh * zl + sl * z.x);
    let p = rk_f64_two_prod(sz.x, t.x);
    let pl = p.y + (sz.x * tl + szl * t.x);
    let a = rk_f64_fast_two_sum(2.0lf * sh, p.x);
    let r = rk_f64_fast_two_sum(a.x, a.y + (2.0lf * sl + pl));
    return vec3<f64>(f64(e), r.x, r.y);
}
",
        &[("POLY", horner("z.x", &q))],
    )
}

/// `ln x` as a double-double for finite `x > 0`.
fn log_dd(h: &mut impl MathHelpers) -> String {
    log_parts(h);
    def(h, "rk_f64_log_dd", templates::LOG_DD, &[])
}

fn ln(h: &mut impl MathHelpers) -> String {
    log_dd(h);
    def(h, "rk_f64_ln", &templates::ln(), &[])
}

fn log2(h: &mut impl MathHelpers) -> String {
    log_parts(h);
    def(h, "rk_f64_log2", &templates::log2(), &[])
}

fn log10(h: &mut impl MathHelpers) -> String {
    log_dd(h);
    def(h, "rk_f64_log10", &templates::log10(), &[])
}

/// `powf` as Rust (C99 `pow`): `y = ±0` or `x = 1` give 1 (even with NaN), NaN otherwise
/// propagates, `(-1)^±∞ = 1`, the zero and infinity cases keep the sign of `x` for odd integer
/// `y`, a negative `x` needs an integer `y` (else NaN). The general case is `exp(y·ln|x|)` with
/// `y·ln|x|` in double-double.
fn powf(h: &mut impl MathHelpers) -> String {
    log_dd(h);
    em1(h);
    scale(h);
    def(h, "rk_f64_powf", templates::POWF, &[])
}

// ---------------------------------------------------------------------------------------------
// Trigonometric functions.

/// `x = n·π/2 + r`: returns `(r as a double-double, n)`, `|r| ≤ π/4` (slightly more where
/// `x·2/π` rounds across a half-integer). Cody–Waite below 1.6e6 (`|n| < 2²⁰`), Payne–Hanek above.
fn rem_pio2(h: &mut impl MathHelpers) -> String {
    two_sum(h);
    rem_pio2_large(h);
    def(
        h,
        "rk_f64_rem_pio2",
        "fn rk_f64_rem_pio2(x: f64) -> vec3<f64> {
    if (abs(x) <= $PIO4) { return vec3<f64>(x, 0.0lf, 0.0lf); }
    if (abs(x) >= 1.6e6lf) { return rk_f64_rem_pio2_large(x); }
    let n = floor(x * $FRAC_2_PI + 0.5lf);
    // n·CW1, n·CW2, n·CW3 are exact and x - n·CW1 is exact (Sterbenz).
    let s1 = rk_f64_two_sum(x - n * $CW1, -(n * $CW2));
    let s2 = rk_f64_two_sum(s1.x, -(n * $CW3));
    let r = rk_f64_two_sum(s2.x, (s1.y + s2.y) - n * $CW4);
    return vec3<f64>(r.x, r.y, n);
}
",
        &[],
    )
}

/// Payne–Hanek for `|x| ≥ 2²⁰`: `x = M·2^ex` (M a 53-bit integer), the product of `M·2^ρ` with
/// eight 32-bit words of 2/π starting where the integer part reaches 2² (earlier words only add
/// multiples of 4) gives `x·2/π mod 4` with 128 fraction bits (the words left out weigh under
/// 2⁻¹³⁹), enough for the closest approach of a double to a multiple of π/2 (about 2⁻⁶¹).
fn rem_pio2_large(h: &mut impl MathHelpers) -> String {
    two_sum(h);
    two_prod(h);
    let words = std::iter::repeat_n(0u32, 2)
        .chain(bits::TWO_OVER_PI)
        .map(|w| format!("{w:#010x}u"))
        .collect::<Vec<_>>();
    let table = format!(
        "const RK_F64_TWO_OVER_PI = array<u32, {}>({});\n",
        words.len(),
        words.join(", ")
    );
    let src = table
        + "fn rk_f64_rem_pio2_large(x: f64) -> vec3<f64> {
    let b = bitcast<u64>(x);
    let mant = (b & 0xffffffffffffflu) | 0x0010000000000000lu;
    // |x| = mant·2^ex; the table starts with two zero words so that ex + 32 >= 0.
    let sh = i32((b >> 52u) & 0x7fflu) - 1075i + 32i;
    let q = sh / 32i;
    let rho = u32(sh % 32i);
    // M·2^rho in three 32-bit limbs.
    var m: array<u32, 3>;
    m[0] = u32((mant << rho) & 0xfffffffflu);
    m[1] = u32((mant << rho) >> 32u);
    m[2] = select(u32(mant >> (64u - rho)), 0u, rho == 0u);
    // acc = Σ_j (M·2^rho)·T[q + j]·2^(32·(7 - j)); the integer part of x·2/π is at limb 7.
    var acc: array<u32, 12>;
    for (var j = 0i; j < 8i; j = j + 1i) {
        let w = u64(RK_F64_TWO_OVER_PI[q + j]);
        var carry = 0lu;
        var pos = 7i - j;
        for (var k = 0i; k < 3i; k = k + 1i) {
            let t = u64(acc[pos]) + u64(m[k]) * w + carry;
            acc[pos] = u32(t & 0xfffffffflu);
            carry = t >> 32u;
            pos = pos + 1i;
        }
        loop {
            if (carry == 0lu || pos >= 12i) { break; }
            let t = u64(acc[pos]) + carry;
            acc[pos] = u32(t & 0xfffffffflu);
            carry = t >> 32u;
            pos = pos + 1i;
        }
    }
    // The fraction f in [-1/2, 1/2) (rounding the quotient to the nearest integer).
    let up = acc[6] >= 0x80000000u;
    var n = i32(acc[7] & 3u) + select(0i, 1i, up);
    let f1 = f64(acc[6]) * $TWO_M32 - select(0.0lf, 1.0lf, up);
    let s1 = rk_f64_two_sum(f1, f64(acc[5]) * $TWO_M64);
    let s2 = rk_f64_two_sum(s1.x, f64(acc[4]) * $TWO_M96);
    let f = rk_f64_fast_two_sum(s2.x, (s1.y + s2.y) + f64(acc[3]) * $TWO_M128);
    // r = f·π/2
    let p = rk_f64_two_prod(f.x, $PIO2);
    var r = rk_f64_fast_two_sum(p.x, p.y + (f.x * $PIO2_LO + f.y * $PIO2));
    if (x < 0.0lf) { r = -r; n = -n; }
    return vec3<f64>(r.x, r.y, f64(n));
}
";
    def(h, "rk_f64_rem_pio2_large", &src, &[])
}

/// `sin(h + l)` for `|h| ≤ 0.8`, `|l| ≤ ulp(h)`, as `(h, tail)`: Taylor to `r¹⁷/17!` (truncation
/// under 2⁻⁶² relative), the `l` term by `cos h ≈ 1 - h²/2`.
fn sin_kernel(h: &mut impl MathHelpers) -> String {
    let c: Vec<f64> = (1..=8)
        .map(|k| {
            let s = if k % 2 == 1 { -1.0 } else { 1.0 };
            s * inv_factorial(2 * k + 1)
        })
        .collect();
    def(
        h,
        "rk_f64_sin_k",
        "fn rk_f64_sin_k(h: f64, l: f64) -> vec2<f64> {
    let z = h * h;
    return vec2<f64>(h, h * z * $POLY + l * (1.0lf - 0.5lf * z));
}
",
        &[("POLY", horner("z", &c))],
    )
}

/// `cos(h + l)` for `|h| ≤ 0.8` as `(head, tail)`: `1 - h²/2` exactly (`h²` by `two_prod`), then
/// Taylor from `h⁴/4!` to `h¹⁸/18!`, and `-h·l`.
fn cos_kernel(h: &mut impl MathHelpers) -> String {
    two_sum(h);
    two_prod(h);
    let c: Vec<f64> = (2..=9)
        .map(|k| {
            let s = if k % 2 == 0 { 1.0 } else { -1.0 };
            s * inv_factorial(2 * k)
        })
        .collect();
    def(
        h,
        "rk_f64_cos_k",
        templates::COS_K,
        &[("POLY", horner("z.x", &c))],
    )
}

trig_functions!("f64");

// ---------------------------------------------------------------------------------------------
// Inverse trigonometric functions.

/// `atan(a + al)` for `a ≥ 0` (`a ≤ 2⁶⁰`) as `(head, tail)`: `atan(c) + atan(u)` with
/// `u = (a - c)/(1 + a·c)`, `c ∈ {0, ½, 1, 2, ∞}`, `|u| ≤ ¼`; `u` is a double-double (the
/// numerators are exact, the denominators carry their rounding error).
fn atan_dd(h: &mut impl MathHelpers) -> String {
    div_dd(h);
    two_sum(h);
    let r: Vec<f64> = bits::ATAN_R.iter().map(|&b| f64::from_bits(b)).collect();
    def(
        h,
        "rk_f64_atan_dd",
        templates::ATAN_DD,
        &[("POLY", horner("z", &r))],
    )
}

fn atan(h: &mut impl MathHelpers) -> String {
    atan_dd(h);
    def(h, "rk_f64_atan", templates::ATAN, &[])
}

/// `y.atan2(x)`: NaN → NaN; `y = ±0`: ±0 for `x` = +0 or positive, ±π for `x` = -0 or negative;
/// `x = ±0`: ±π/2; `y = ±∞`: ±π/4, ±3π/4 or ±π/2; `x = ±∞`: ±0 or ±π. Otherwise `atan(|y/x|)`
/// with the quotient in double-double (both scaled near 1 first), placed in its quadrant. (No
/// `frexp`: naga types its exponent for f64 as `i64`, which WGSL does not specify.)
fn atan2(h: &mut impl MathHelpers) -> String {
    atan_dd(h);
    scale(h);
    def(
        h,
        "rk_f64_atan2",
        "fn rk_f64_atan2(y: f64, x: f64) -> f64 {
    if (((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || ((bitcast<u64>(y) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return $NAN; }
    let ax = abs(x);
    let ay = abs(y);
    let xneg = (bitcast<u64>(x) >> 63u) == 1lu;
    var v: f64;
    if (ay == 0.0lf) {
        v = select(0.0lf, $PI, xneg);
    } else if (ax == 0.0lf) {
        v = $PIO2;
    } else if (ay == $INF) {
        v = select($PIO2, select($PIO4, $PI3O4, xneg), ax == $INF);
    } else if (ax == $INF) {
        v = select(0.0lf, $PI, xneg);
    } else {
        // Exponents from the bits (both normal where it matters: a subnormal pair is scaled
        // up first, and a subnormal beside a normal number lands in the d < -60 case).
        var sx = ax;
        var sy = ay;
        if (max(ax, ay) < $TWO_M900) { sx = sx * $TWO_P1000; sy = sy * $TWO_P1000; }
        let ex = i32(bitcast<u64>(sx) >> 52u);
        let d = i32(bitcast<u64>(sy) >> 52u) - ex;
        var z: vec2<f64>;
        if (d > 60i) {
            z = vec2<f64>($PIO2, $PIO2_LO);
        } else if (d < -60i) {
            z = vec2<f64>(ay / ax, 0.0lf);
        } else {
            // Both scaled by the same power of two, |x| into [1, 2): exact.
            let k = 1023i - ex;
            let q = rk_f64_div_dd(vec2<f64>(rk_f64_scale(sy, k), 0.0lf), vec2<f64>(rk_f64_scale(sx, k), 0.0lf));
            z = rk_f64_atan_dd(q.x, q.y);
        }
        if (xneg) {
            let p = rk_f64_two_sum($PI, -z.x);
            v = p.x + (p.y + ($PI_LO - z.y));
        } else {
            v = z.x + z.y;
        }
    }
    return select(v, -v, (bitcast<u64>(y) >> 63u) == 1lu);
}
",
        &[],
    )
}

/// `R` of asin (see [`bits::ASIN_R`]) and the half-angle argument: for `a ∈ (½, 1]`,
/// `t = (1 - a)/2` (exact), `s = √t` and its correction `(t - s²)/(2s)` from the exact residual.
fn asin_parts(h: &mut impl MathHelpers) -> String {
    two_prod(h);
    two_sum(h);
    let r: Vec<f64> = bits::ASIN_R.iter().map(|&b| f64::from_bits(b)).collect();
    def(
        h,
        "rk_f64_asin_r",
        templates::ASIN_R,
        &[("POLY", horner("z", &r))],
    )
}

fn asin(h: &mut impl MathHelpers) -> String {
    asin_parts(h);
    def(h, "rk_f64_asin", templates::ASIN, &[])
}

fn acos(h: &mut impl MathHelpers) -> String {
    asin_parts(h);
    def(h, "rk_f64_acos", templates::ACOS, &[])
}

// ---------------------------------------------------------------------------------------------
// cbrt and hypot.

/// `cbrt`: `|x| = m·2^(3k)` with `m ∈ [1, 8)` (so nothing below can overflow or underflow), a
/// first guess for `∛m` from a third of its bits (within 7%), two Halley steps (cubic
/// convergence: 2⁻³⁵ after them), and a Newton step on the exact residual `m - y³`.
fn cbrt(h: &mut impl MathHelpers) -> String {
    two_prod(h);
    scale(h);
    def(
        h,
        "rk_f64_cbrt",
        "fn rk_f64_cbrt(x: f64) -> f64 {
    let a = abs(x);
    // ±0, ±inf and NaN are their own cube roots.
    if (a == 0.0lf || !(a <= $MAX)) { return x; }
    var v = a;
    var e = -1023i;
    if (v < $MIN_POSITIVE) { v = v * $TWO_P54; e = e - 54i; }
    let b = bitcast<u64>(v);
    e = e + i32(b >> 52u);
    let k = (e + 3000i) / 3i - 1000i;
    let m = bitcast<f64>((b & 0xffffffffffffflu) | (u64(e - 3i * k + 1023i) << 52u));
    // The bits of 1.0 map to themselves.
    var y = bitcast<f64>(bitcast<u64>(m) / 3lu + 0x2aa0000000000000lu);
    for (var i = 0i; i < 2i; i = i + 1i) {
        let c = y * y * y;
        y = y * ((c + 2.0lf * m) / (2.0lf * c + m));
    }
    let y2 = rk_f64_two_prod(y, y);
    let y3 = rk_f64_two_prod(y2.x, y);
    y = y + (rk_f64_opq(m - y3.x) - (y3.y + y2.y * y)) / (3.0lf * y2.x);
    let r = y * rk_f64_pow2(k);
    return select(r, -r, x < 0.0lf);
}
",
        &[],
    )
}

fn hypot(h: &mut impl MathHelpers) -> String {
    two_sum(h);
    two_prod(h);
    scale(h);
    def(
        h,
        "rk_f64_hypot",
        "fn rk_f64_hypot(x: f64, y: f64) -> f64 {
    let a = abs(x);
    let b = abs(y);
    if (a == $INF || b == $INF) { return $INF; }
    if (((bitcast<u64>(a) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || ((bitcast<u64>(b) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return $NAN; }
    var m = max(a, b);
    var s = min(a, b);
    if (m == 0.0lf) { return 0.0lf; }
    var k = 0i;
    if (m > $TWO_P300) { m = m * $TWO_M600; s = s * $TWO_M600; k = 600i; }
    else if (m < $TWO_M300) { m = m * $TWO_P600; s = s * $TWO_P600; k = -600i; }
    let m2 = rk_f64_two_prod(m, m);
    let s2 = rk_f64_two_prod(s, s);
    let t = rk_f64_fast_two_sum(m2.x, s2.x);
    let u = rk_f64_fast_two_sum(t.x, t.y + (m2.y + s2.y));
    let r = rk_f64_opq(sqrt(u.x));
    let rr = rk_f64_two_prod(r, r);
    return rk_f64_scale(r + ((rk_f64_opq(u.x - rr.x) - rr.y) + u.y) / (2.0lf * r), k);
}
",
        &[],
    )
}

library_call!("f64");

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole library as the WGSL target emits it against `snapshots/f64.wgsl`.
    #[test]
    fn f64_library_snapshot() {
        super::super::snapshot::check("f64", call);
    }

    /// The constants are what their names say.
    #[test]
    fn constants() {
        let c = |n: &str| constant(n).unwrap();
        // The ln 2 split: exact, and the head times any |n| < 2^21 is exact.
        assert_eq!(c("LN2_HI") + c("LN2_MID"), consts::LN_2);
        assert_eq!(c("LN2_HI").to_bits() & 0x1f_ffff, 0);
        // Tails are below half an ulp of their heads.
        for (hi, lo) in [
            ("LN2", "LN2_LO"),
            ("LOG2_E", "LOG2_E_LO"),
            ("LOG10_E", "LOG10_E_LO"),
            ("PIO2", "PIO2_LO"),
            ("PI", "PI_LO"),
            ("ATAN_HALF", "ATAN_HALF_LO"),
            ("ATAN_TWO", "ATAN_TWO_LO"),
            ("TWO_THIRDS", "TWO_THIRDS_LO"),
        ] {
            let (h, l) = (c(hi), c(lo));
            assert!(l != 0.0 && l.abs() <= f64::EPSILON * h.abs() / 2.0, "{hi}");
        }
        // sin(π rounded) = π - PI: glibc's sin is correctly rounded there.
        assert_eq!(consts::PI.sin(), c("PI_LO"));
        assert_eq!(0.5f64.atan(), c("ATAN_HALF"));
        assert_eq!(2f64.atan(), c("ATAN_TWO"));
        assert_eq!((-1f64).atan2(-1.0).abs(), c("PI3O4"));
        // 1/ln 2 and 1/ln 10 as double-doubles: (hi + lo)·ln 2 = 1 to double-double accuracy.
        let p = c("LOG2_E") * c("LN2");
        let e = c("LOG2_E").mul_add(c("LN2"), -p)
            + c("LOG2_E") * c("LN2_LO")
            + c("LOG2_E_LO") * c("LN2");
        assert!(((p - 1.0) + e).abs() < 1e-31, "{}", (p - 1.0) + e);
        // The π/2 parts: 33 significant bits each for the first three, and they sum to π/2.
        for k in 0..3 {
            assert_eq!(bits::PIO2_PARTS[k] & ((1 << 20) - 1), 0);
        }
        assert_eq!(c("CW1") + c("CW2"), consts::FRAC_PI_2);
        assert_eq!(
            ((c("CW2") - (consts::FRAC_PI_2 - c("CW1"))) + c("CW3")) + c("CW4"),
            c("PIO2_LO")
        );
        // 2/π: the first 64 bits round to FRAC_2_PI.
        let w = ((bits::TWO_OVER_PI[0] as u64) << 32) | bits::TWO_OVER_PI[1] as u64;
        assert_eq!(w as f64 / 2f64.powi(64), consts::FRAC_2_PI);
    }

    #[test]
    fn taylor_coefficients() {
        assert_eq!(inv_factorial(2), 0.5);
        assert_eq!(inv_factorial(3), 1.0 / 6.0);
        assert_eq!(horner("z", &[1.0, 2.0]), "fma(2e0lf, z, 1e0lf)");
        assert_eq!(
            wgsl("$LN2 + $X", &[("X", "y".into())]),
            "6.931471805599453e-1lf + y"
        );
    }
}
