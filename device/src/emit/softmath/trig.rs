//! The trigonometric functions `sin`, `cos` and `tan`, for `f32` and `f64`: one generic source for
//! the functions and the cosine kernel, the type's own reduction by π/2 and sine kernel
//! ([`TrigFloat`]), which differ in substance between the types.
//!
//! # Method
//!
//! `x = n·π/2 + r` with `|r| ≤ π/4` (slightly more where `x·2/π` rounds across a half-integer),
//! `r` as a pair; the kernels are Taylor series on `|r| ≤ π/4` returning pairs; `tan` divides the
//! sine by the cosine as pairs ([`super::dd::div_dd`]).
//!
//! - `f64`: for `|x| < 1.6e6` Cody–Waite with π/2 in four parts (three of 33 bits, whose products
//!   with `n < 2²⁰` are exact, and a fourth of 53 bits: 152 bits in all); beyond, Payne–Hanek in
//!   32-bit limbs with 64-bit products and 1184 bits of 2/π, so that the reduced argument is
//!   accurate over the whole finite range. The sine kernel is Taylor to `r¹⁷/17!`, the cosine's
//!   `1 - r²/2` exact and the rest Taylor to `r¹⁸/18!`.
//! - `f32`: Payne–Hanek for every `|x| > π/4` in 32-bit integers only (the 24-bit significand times
//!   six words of 2/π: a 96-bit fraction, normalised so that `r` keeps 48 significant bits however
//!   close `x` is to a multiple of π/2), so that it runs without 64-bit integers; the sine kernel
//!   carries `r - r³/6` in double-float, the cosine kernel `1 - r²/2`.
//!
//! The reductions and kernels return pairs, so they are written into the calling function's body
//! (the IR's functions return one value); each of `sin`, `cos`, `tan` is one library function.
//! Every exact step keeps the defences of [`super::exact`] against relaxed GPU compilers (the
//! opaque identity around the error-free sums and products, integers found with `floor`, NaN
//! from constants, never from `x - x`).
//!
//! # Accuracy
//!
//! `f64`: within 1 ulp of the exact value over the whole finite range (on lavapipe, over the
//! inputs of `tests/math_f64.rs` and 20 000 to 80 000 more per function checked offline against
//! mpmath: tan 0.87 ulp, sin 0.73, cos 0.70 the largest seen). `f32`: within 1 ulp of the exact
//! value over the whole finite range. Special values (NaN, ±∞ to NaN, ±0 with its sign) follow
//! Rust.

use super::dd::{div_dd, horner, inv_factorial};
use super::exact::{fast_two_sum, ldexp, two_prod, two_sum};
use super::float::{array_at, array_set, bind, call1, call2, name, not, pow2, table_at, LibFloat};
use rokkos_core::ir::build::{select, Expr, Func, FuncScope, FunctionBuilder, Var};
use std::f64::consts;

/// The binary digits of 2/π, 32 per word, after the binary point (the Payne–Hanek reductions of
/// both types read them, from a constant table that starts with two zero words).
const TWO_OVER_PI: [u32; 37] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];

/// Bit patterns of `f64` constants that `std` has no name for (tails of double-double constants,
/// from mpmath at 2000 bits: the double nearest to `value - head`), and the fitted polynomials.
mod bits {
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
    /// approximation error 2⁻⁵⁵·³ absolute; Chebyshev interpolation in 256-bit arithmetic with
    /// mpmath).
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
    /// approximation error 2⁻⁵⁵·⁶ absolute; fitted as [`ASIN_R`]).
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
}

/// The constants of the trigonometric and inverse trigonometric functions of one float type,
/// each exactly representable in it (so that [`LibFloat::c`] does not round them again); pairs
/// are a head and the rounded rest.
pub(super) struct Consts {
    /// The largest finite value (beyond it, ±∞ and NaN give NaN).
    pub max: f64,
    /// π/4 as a pair.
    pub pio4: (f64, f64),
    /// π/2 as a pair.
    pub pio2: (f64, f64),
    /// π as a pair.
    pub pi: (f64, f64),
    /// 3π/4, rounded.
    pub pi3o4: f64,
    /// `atan(½)` as a pair.
    pub atan_half: (f64, f64),
    /// `atan(2)` as a pair.
    pub atan_two: (f64, f64),
    /// 4/3 rounded: the boundary between `atan_dd`'s `c = 1` and `c = 2`.
    pub four_thirds: f64,
    /// Below it `sin x` is `x` to within half an ulp (and keeps -0).
    pub sin_tiny: f64,
    /// Below it `cos x` is 1 to within half an ulp.
    pub cos_tiny: f64,
    /// Below it `tan x` is `x` to within half an ulp.
    pub tan_tiny: f64,
    /// Below it `asin x` is `x` to within half an ulp.
    pub asin_tiny: f64,
    /// Below it `atan x` is `x` to within half an ulp.
    pub atan_tiny: f64,
    /// Above it `atan x` is ±π/2 to within half an ulp.
    pub atan_big: f64,
    /// The cosine kernel's Taylor coefficients from `h⁴/4!` on, in `h²`.
    pub cos_poly: Vec<f64>,
    /// `R` of `atan u = u + u·z·R(z)` (`z = u² ≤ 1/16`), lowest degree first.
    pub atan_r: Vec<f64>,
    /// `R` of `asin x = x + x·z·R(z)` (`z = x² ≤ ¼`), lowest degree first.
    pub asin_r: Vec<f64>,
    /// `atan2`: below it (the larger of `|x|`, `|y|`) both arguments are scaled by
    /// `atan2_up`, so that both are normal where the quotient is formed.
    pub atan2_small: f64,
    /// `atan2`'s exact scale factor for tiny argument pairs.
    pub atan2_up: f64,
    /// `atan2`: arguments whose binades are further apart give ±π/2 or the plain quotient.
    pub atan2_far: i32,
}

/// `c` as an `f32` pair: the nearest `f32` and the `f32` nearest to what is left (from `f64`, so
/// the pair carries about 48 bits of `c`).
fn split32(c: f64) -> (f64, f64) {
    let hi = c as f32;
    (f64::from(hi), f64::from((c - f64::from(hi)) as f32))
}

/// `(-1)^k / (2k + 1)!` for `k` in `ks`: the sine's Taylor coefficients.
fn sin_coefficients(ks: std::ops::RangeInclusive<u32>) -> Vec<f64> {
    ks.map(|k| {
        let s = if k % 2 == 1 { -1.0 } else { 1.0 };
        s * inv_factorial(2 * k + 1)
    })
    .collect()
}

/// `(-1)^k / (2k)!` for `k` in `ks`: the cosine's Taylor coefficients.
fn cos_coefficients(ks: std::ops::RangeInclusive<u32>) -> Vec<f64> {
    ks.map(|k| {
        let s = if k % 2 == 0 { 1.0 } else { -1.0 };
        s * inv_factorial(2 * k)
    })
    .collect()
}

/// A float type's own parts of the trigonometric functions: its constants, its reduction by π/2
/// and its sine kernel (written into the calling function's body), and `atan2`'s exact scaling.
pub(super) trait TrigFloat: LibFloat {
    /// The constants of this type.
    fn consts() -> Consts;
    /// `x = n·π/2 + r` for a finite `x`: `(r as a pair, n)`, `|r| ≤ π/4` (slightly more where
    /// `x·2/π` rounds across a half-integer); `x` itself with `n = 0` for `|x| ≤ π/4`.
    fn rem_pio2(f: &mut FunctionBuilder<'_>, x: Expr<Self>) -> (Expr<Self>, Expr<Self>, Expr<i32>);
    /// `sin(h + l)` for `|h| ≤ π/4` (a little more in `f64`), `|l| ≤ ulp(h)`, as a pair.
    fn sin_k(f: &mut FunctionBuilder<'_>, h: Expr<Self>, l: Expr<Self>)
        -> (Expr<Self>, Expr<Self>);
    /// `(y·2ᵏ, x·2ᵏ)`, exact for the `atan2` arguments it is used on (both normal, `x·2ᵏ` in
    /// `[1, 2)`, their binades at most [`Consts::atan2_far`] apart).
    fn atan2_scale(
        f: &mut FunctionBuilder<'_>,
        y: Expr<Self>,
        x: Expr<Self>,
        k: Expr<i32>,
    ) -> (Expr<Self>, Expr<Self>);
}

impl TrigFloat for f64 {
    fn consts() -> Consts {
        let f = f64::from_bits;
        Consts {
            max: f64::MAX,
            pio4: (consts::FRAC_PI_4, 0.5 * f(bits::PIO2_LO)),
            pio2: (consts::FRAC_PI_2, f(bits::PIO2_LO)),
            pi: (consts::PI, 2.0 * f(bits::PIO2_LO)),
            pi3o4: f(bits::PI3O4),
            atan_half: (f(bits::ATAN_HALF.0), f(bits::ATAN_HALF.1)),
            atan_two: (f(bits::ATAN_TWO.0), f(bits::ATAN_TWO.1)),
            four_thirds: 4.0 / 3.0,
            sin_tiny: 2f64.powi(-26),
            cos_tiny: 2f64.powi(-27),
            tan_tiny: 2f64.powi(-27),
            asin_tiny: 2f64.powi(-26),
            atan_tiny: 2f64.powi(-27),
            atan_big: 2f64.powi(60),
            cos_poly: cos_coefficients(2..=9),
            atan_r: bits::ATAN_R.iter().map(|&b| f(b)).collect(),
            asin_r: bits::ASIN_R.iter().map(|&b| f(b)).collect(),
            atan2_small: 2f64.powi(-900),
            atan2_up: 2f64.powi(1000),
            atan2_far: 60,
        }
    }

    /// Cody–Waite below 1.6e6 (`|n| < 2²⁰`), Payne–Hanek ([`rem_pio2_large_f64`]) above.
    fn rem_pio2(f: &mut FunctionBuilder<'_>, x: Expr<f64>) -> (Expr<f64>, Expr<f64>, Expr<i32>) {
        let k = Self::consts();
        let cw = bits::PIO2_PARTS.map(f64::from_bits);
        let x = bind(f, "rp_x", x);
        let rh = f.let_("rp_h", x.clone());
        let rl = f.let_("rp_l", 0.0f64);
        let n = f.let_("rp_n", 0i32);
        f.if_(not(x.clone().abs().le(k.pio4.0)));
        f.if_(x.clone().abs().ge(1.6e6));
        rem_pio2_large_f64(f, x.clone(), rh, rl, n);
        f.else_();
        let nf = bind(f, "cw_n", (x.clone() * consts::FRAC_2_PI + 0.5).floor());
        // n·CW1, n·CW2, n·CW3 are exact and x - n·CW1 is exact (Sterbenz).
        let (s1x, s1y) = two_sum(f, x - nf.clone() * cw[0], -(nf.clone() * cw[1]));
        let (s2x, s2y) = two_sum(f, s1x, -(nf.clone() * cw[2]));
        let (rx, ry) = two_sum(f, s2x, (s1y + s2y) - nf.clone() * cw[3]);
        f.assign(rh, rx);
        f.assign(rl, ry);
        f.assign(n, nf.cast::<i32>());
        f.end();
        f.end();
        (rh.get(), rl.get(), n.get())
    }

    /// Taylor to `h¹⁷/17!` (truncation under 2⁻⁶² relative for `|h| ≤ 0.8`), the `l` term by
    /// `cos h ≈ 1 - h²/2`; the head is `h` itself.
    fn sin_k(f: &mut FunctionBuilder<'_>, h: Expr<f64>, l: Expr<f64>) -> (Expr<f64>, Expr<f64>) {
        let h = bind(f, "sk_h", h);
        let z = bind(f, "sk_z", h.clone() * h.clone());
        let poly = horner(&z, &sin_coefficients(1..=8));
        let tail = bind(
            f,
            "sk_t",
            h.clone() * z.clone() * poly + l * (1.0 - 0.5 * z),
        );
        (h, tail)
    }

    /// `rk_f64_scale`'s two exact halves, inline: `2^(k/2)` and `2^(k - k/2)` are normal.
    fn atan2_scale(
        f: &mut FunctionBuilder<'_>,
        y: Expr<f64>,
        x: Expr<f64>,
        k: Expr<i32>,
    ) -> (Expr<f64>, Expr<f64>) {
        let kk = bind(f, "sc_k", k.clamp(-2000, 2000));
        let k1 = bind(f, "sc_k1", kk.clone() / 2);
        let k2 = bind(f, "sc_k2", kk - k1.clone());
        let scale = |v: Expr<f64>| (v * pow2::<f64>(k1.clone())) * pow2::<f64>(k2.clone());
        (scale(y), scale(x))
    }
}

/// Payne–Hanek for `|x| ≥ 2²⁰`, into `rh`, `rl`, `n`: `x = M·2^ex` (M a 53-bit integer), the
/// product of `M·2^ρ` with eight 32-bit words of 2/π starting where the integer part reaches 2²
/// (earlier words only add multiples of 4) gives `x·2/π mod 4` with 128 fraction bits (the words
/// left out weigh under 2⁻¹³⁹), enough for the closest approach of a double to a multiple of π/2
/// (about 2⁻⁶¹). The limbs are 32-bit, their products and carries 64-bit (exact: a limb sum
/// `acc + m·w + carry` is at most `2⁶⁴ - 1`).
fn rem_pio2_large_f64(
    f: &mut FunctionBuilder<'_>,
    x: Expr<f64>,
    rh: Var<f64>,
    rl: Var<f64>,
    n: Var<i32>,
) {
    let k = <f64 as TrigFloat>::consts();
    let words: Vec<u32> = [0, 0].into_iter().chain(TWO_OVER_PI).collect();
    let table = f.table::<u32>("rk_f64_two_over_pi", &words);
    let b = bind(f, "pl_b", x.clone().to_bits());
    let mant = bind(
        f,
        "pl_mant",
        (b.clone() & 0x000f_ffff_ffff_ffffu64) | 0x0010_0000_0000_0000u64,
    );
    // |x| = mant·2^ex; the table starts with two zero words so that ex + 32 >= 0.
    let sh = bind(f, "pl_sh", ((b >> 52) & 0x7ffu64).cast::<i32>() - 1075 + 32);
    let q = bind(f, "pl_q", sh.clone() / 32);
    let rho = bind(f, "pl_rho", (sh % 32).cast::<u32>());
    // M·2^rho in three 32-bit limbs (the top one shifted in two steps: a shift by 64 is not one,
    // and for rho = 0 the two steps give 0).
    let ms = bind(f, "pl_ms", mant.clone() << rho.clone());
    let m = f.array_from::<u32>(
        "pl_m",
        vec![
            (ms.clone() & 0xffff_ffffu64).cast::<u32>(),
            (ms >> 32).cast::<u32>(),
            ((mant >> 1) >> (Expr::lit(63u32) - rho)).cast::<u32>(),
        ],
    );
    // acc = Σ_j (M·2^rho)·T[q + j]·2^(32·(7 - j)); the integer part of x·2/π is at limb 7.
    let acc = f.array_fill::<u32>("pl_acc", 12, 0u32);
    let j = f.for_range::<i32>("pl_j", 0, 8);
    let w = bind(
        f,
        "pl_w",
        table_at(table, q.clone() + j.get()).cast::<u64>(),
    );
    let carry = f.let_("pl_carry", 0u64);
    let pos = f.let_("pl_pos", Expr::lit(7i32) - j.get());
    let kk = f.for_range::<i32>("pl_k", 0, 3);
    let t = bind(
        f,
        "pl_t",
        array_at(acc, pos.get())
            .cast::<u64>()
            .wrapping_add(array_at(m, kk.get()).cast::<u64>().wrapping_mul(w.clone()))
            .wrapping_add(carry.get()),
    );
    array_set(
        f,
        acc,
        pos.get(),
        (t.clone() & 0xffff_ffffu64).cast::<u32>(),
    );
    f.assign(carry, t >> 32);
    f.assign(pos, pos.get() + 1);
    f.end();
    f.loop_();
    f.if_(carry.get().eq_(0u64).or(pos.get().ge(12)));
    f.break_();
    f.end();
    let t = bind(
        f,
        "pl_t",
        array_at(acc, pos.get())
            .cast::<u64>()
            .wrapping_add(carry.get()),
    );
    array_set(
        f,
        acc,
        pos.get(),
        (t.clone() & 0xffff_ffffu64).cast::<u32>(),
    );
    f.assign(carry, t >> 32);
    f.assign(pos, pos.get() + 1);
    f.end();
    f.end();
    // The fraction f in [-1/2, 1/2) (rounding the quotient to the nearest integer).
    let limb = |i: i32| array_at(acc, i).cast::<f64>();
    let up = bind(f, "pl_up", array_at(acc, 6i32).ge(0x8000_0000u32));
    let nn = bind(
        f,
        "pl_n",
        (array_at(acc, 7i32) & 3u32).cast::<i32>() + select(up.clone(), 1i32, 0i32),
    );
    let f1 = bind(
        f,
        "pl_f1",
        limb(6) * 2f64.powi(-32) - select(up, 1.0f64, 0.0f64),
    );
    let (s1x, s1y) = two_sum(f, f1, limb(5) * 2f64.powi(-64));
    let (s2x, s2y) = two_sum(f, s1x, limb(4) * 2f64.powi(-96));
    let (fx, fy) = fast_two_sum(f, s2x, (s1y + s2y) + limb(3) * 2f64.powi(-128));
    // r = f·π/2
    let (px, py) = two_prod(f, fx.clone(), Expr::lit(k.pio2.0));
    let (rx, ry) = fast_two_sum(f, px, py + (fx * k.pio2.1 + fy * k.pio2.0));
    f.assign(rh, rx);
    f.assign(rl, ry);
    f.assign(n, nn);
    f.if_(x.lt(0.0));
    f.assign(rh, -rh.get());
    f.assign(rl, -rl.get());
    f.assign(n, -n.get());
    f.end();
}

impl TrigFloat for f32 {
    fn consts() -> Consts {
        // c_k = (2k)! / (4^k (k!)^2 (2k + 1)), k = 1..12: asin's Taylor series.
        let mut asin_r = Vec::new();
        let mut binom = 1.0f64;
        for k in 1..=12u32 {
            binom *= f64::from(2 * k - 1) / f64::from(2 * k);
            asin_r.push(binom / f64::from(2 * k + 1));
        }
        Consts {
            max: f64::from(f32::MAX),
            pio4: split32(consts::FRAC_PI_4),
            pio2: split32(consts::FRAC_PI_2),
            pi: split32(consts::PI),
            pi3o4: f64::from((3.0 * consts::FRAC_PI_4) as f32),
            atan_half: split32(0.5f64.atan()),
            atan_two: split32(2f64.atan()),
            four_thirds: f64::from(4.0f32 / 3.0),
            sin_tiny: 2f64.powi(-12),
            cos_tiny: 2f64.powi(-12),
            tan_tiny: 2f64.powi(-12),
            asin_tiny: 2f64.powi(-12),
            atan_tiny: 2f64.powi(-12),
            atan_big: 2f64.powi(26),
            cos_poly: cos_coefficients(2..=6),
            // atan's Taylor series to u¹⁵/15.
            atan_r: (0..7)
                .map(|k| {
                    let s = if k % 2 == 0 { -1.0 } else { 1.0 };
                    s / f64::from(2 * k + 3)
                })
                .collect(),
            asin_r,
            atan2_small: 2f64.powi(-100),
            atan2_up: 2f64.powi(100),
            atan2_far: 28,
        }
    }

    /// Payne–Hanek for every `|x| > π/4`: `|x| = M·2^ex` (M a 24-bit integer); the product of
    /// `M·2^ρ` with six 32-bit words of 2/π, starting where the integer part reaches 2² (earlier
    /// words only add multiples of 4), gives `x·2/π mod 4` with 96 fraction bits (the words left
    /// out weigh under 2⁻¹⁵⁰), in 32-bit integers only ([`mac`]). The fraction is rounded to the
    /// nearest quadrant, negated when it was above ½, and normalised before it becomes a
    /// double-float, so `r` keeps 48 significant bits however small it is.
    fn rem_pio2(f: &mut FunctionBuilder<'_>, x: Expr<f32>) -> (Expr<f32>, Expr<f32>, Expr<i32>) {
        let k = Self::consts();
        let clz = clz(f);
        let x = bind(f, "rp_x", x);
        let rh = f.let_("rp_h", x.clone());
        let rl = f.let_("rp_l", 0.0f32);
        let n = f.let_("rp_n", 0i32);
        f.if_(not(x.clone().abs().le(f32::c(k.pio4.0))));
        let words: Vec<u32> = [0, 0]
            .into_iter()
            .chain(TWO_OVER_PI.into_iter().take(8))
            .collect();
        let table = f.table::<u32>("rk_f32_two_over_pi", &words);
        let b = bind(f, "pr_b", x.clone().to_bits());
        let mant = bind(f, "pr_mant", (b.clone() & 0x7f_ffffu32) | 0x80_0000u32);
        // |x| = mant·2^ex with ex >= -24 here; the table starts with two zero words.
        let sh = bind(f, "pr_sh", ((b >> 23) & 0xffu32).cast::<i32>() - 150 + 32);
        let q = bind(f, "pr_q", sh.clone() / 32);
        let rho = bind(f, "pr_rho", (sh % 32).cast::<u32>());
        // M·2^rho in two 32-bit limbs (the high one shifted in two steps: a shift by 32 is not
        // one).
        let m = f.array_from::<u32>(
            "pr_m",
            vec![
                mant.clone() << rho.clone(),
                (mant >> 1) >> (Expr::lit(31u32) - rho),
            ],
        );
        // acc = Σ_j (M·2^rho)·T[q + j]·2^(32·(7 - j)); the integer part of x·2/π is at limb 7.
        let acc = f.array_fill::<u32>("pr_acc", 10, 0u32);
        let j = f.for_range::<i32>("pr_j", 0, 6);
        let w = bind(f, "pr_w", table_at(table, q.clone() + j.get()));
        let carry = f.let_("pr_carry", 0u32);
        let pos = f.let_("pr_pos", Expr::lit(7i32) - j.get());
        let kk = f.for_range::<i32>("pr_k", 0, 2);
        let (lo, hi) = mac(
            f,
            array_at(acc, pos.get()),
            array_at(m, kk.get()),
            w.clone(),
            carry.get(),
        );
        array_set(f, acc, pos.get(), lo);
        f.assign(carry, hi);
        f.assign(pos, pos.get() + 1);
        f.end();
        f.loop_();
        f.if_(carry.get().eq_(0u32).or(pos.get().ge(10)));
        f.break_();
        f.end();
        let t = bind(
            f,
            "pr_t",
            array_at(acc, pos.get()).wrapping_add(carry.get()),
        );
        f.assign(carry, select(t.clone().lt(carry.get()), 1u32, 0u32));
        array_set(f, acc, pos.get(), t);
        f.assign(pos, pos.get() + 1);
        f.end();
        f.end();
        // The 96-bit fraction, rounded to the nearest quadrant: above 1/2 it becomes 1 - f
        // (negated).
        let f2 = f.let_("pr_f2", array_at(acc, 6i32));
        let f1 = f.let_("pr_f1", array_at(acc, 5i32));
        let f0 = f.let_("pr_f0", array_at(acc, 4i32));
        let up = bind(f, "pr_up", f2.get().ge(0x8000_0000u32));
        f.assign(
            n,
            (array_at(acc, 7i32) & 3u32).cast::<i32>() + select(up.clone(), 1i32, 0i32),
        );
        f.if_(up.clone());
        f.assign(f2, !f2.get());
        f.assign(f1, !f1.get());
        f.assign(f0, (!f0.get()).wrapping_add(1u32));
        f.if_(f0.get().eq_(0u32));
        f.assign(f1, f1.get().wrapping_add(1u32));
        f.if_(f1.get().eq_(0u32));
        f.assign(f2, f2.get().wrapping_add(1u32));
        f.end();
        f.end();
        f.end();
        // Normalise: the leading one to bit 31 of f2, counting the shift in e.
        let e = f.let_("pr_e", 0i32);
        f.if_(f2.get().eq_(0u32));
        f.assign(f2, f1.get());
        f.assign(f1, f0.get());
        f.assign(f0, 0u32);
        f.assign(e, 32i32);
        f.end();
        f.if_(f2.get().eq_(0u32));
        f.assign(f2, f1.get());
        f.assign(f1, 0u32);
        f.assign(e, 64i32);
        f.end();
        let z = bind(f, "pr_z", call1::<u32, u32>(clz, f2.get()));
        f.if_(z.clone().gt(0u32).and(z.clone().lt(32u32)));
        f.assign(
            f2,
            (f2.get() << z.clone()) | (f1.get() >> (Expr::lit(32u32) - z.clone())),
        );
        f.assign(
            f1,
            (f1.get() << z.clone()) | (f0.get() >> (Expr::lit(32u32) - z.clone())),
        );
        f.end();
        f.assign(e, e.get() + z.cast::<i32>());
        // |f| = (f2·2^-32 + f1·2^-64)·2^-e: 48 bits as two exact f32s, then r = f·π/2.
        let fh = bind(f, "pr_fh", (f2.get() >> 8).cast::<f32>() * 2f32.powi(-24));
        let fl = bind(
            f,
            "pr_fl",
            (((f2.get() & 0xffu32) << 16) | (f1.get() >> 16)).cast::<f32>() * 2f32.powi(-48),
        );
        let (sx, sy) = fast_two_sum(f, fh, fl);
        let pio2 = (f32::c(k.pio2.0), f32::c(k.pio2.1));
        let (px, py) = two_prod(f, sx.clone(), pio2.0.clone());
        let (rx, ry) = fast_two_sum(f, px, py + (sx * pio2.1 + sy * pio2.0));
        let scale = bind(f, "pr_k", pow2::<f32>(-e.get()));
        f.assign(rh, rx * scale.clone());
        f.assign(rl, ry * scale);
        f.if_(up);
        f.assign(rh, -rh.get());
        f.assign(rl, -rl.get());
        f.end();
        f.if_(x.lt(0.0f32));
        f.assign(rh, -rh.get());
        f.assign(rl, -rl.get());
        f.assign(n, -n.get());
        f.end();
        f.end();
        (rh.get(), rl.get(), n.get())
    }

    /// `h - h³/6` with `h³/6` in double-float, the Taylor series from `h⁵/5!` to `h¹³/13!`
    /// (truncation under 2⁻³⁶ relative), and the `l` term by `cos h ≈ 1 - h²/2`.
    fn sin_k(f: &mut FunctionBuilder<'_>, h: Expr<f32>, l: Expr<f32>) -> (Expr<f32>, Expr<f32>) {
        let (sixth, sixth_lo) = split32(-1.0 / 6.0);
        let (sixth, sixth_lo) = (f32::c(sixth), f32::c(sixth_lo));
        let h = bind(f, "sk_h", h);
        let (zx, zy) = two_prod(f, h.clone(), h.clone());
        let (ux, uy) = two_prod(f, h.clone(), zx.clone());
        let (cx, cy) = two_prod(f, ux.clone(), sixth.clone());
        let poly = horner(&zx, &sin_coefficients(2..=6));
        let t = bind(
            f,
            "sk_t",
            cy + (ux.clone() * sixth_lo + (uy + h.clone() * zy) * sixth) + ux * zx.clone() * poly,
        );
        let (sx, sy) = fast_two_sum(f, h, cx);
        let tail = bind(
            f,
            "sk_tail",
            sy + (t + l * (f32::c(1.0) - f32::c(0.5) * zx)),
        );
        (sx, tail)
    }

    /// The exact `ldexp` of [`super::exact`].
    fn atan2_scale(
        f: &mut FunctionBuilder<'_>,
        y: Expr<f32>,
        x: Expr<f32>,
        k: Expr<i32>,
    ) -> (Expr<f32>, Expr<f32>) {
        let ld = ldexp::<f32>(f);
        (call2(ld, y, k.clone()), call2(ld, x, k))
    }
}

/// `c + a·b + d` for `u32` operands as its (low, high) words, in 32-bit integers only (written
/// into the calling function's body), so that the multi-word arithmetic of the Payne–Hanek
/// reduction runs on a target without 64-bit integers. The product is made from the four
/// products of the 16-bit halves, each exact in 32 bits; the sum is at most `2⁶⁴ - 1`, so the
/// high word never overflows.
fn mac(
    f: &mut FunctionBuilder<'_>,
    c: Expr<u32>,
    a: Expr<u32>,
    b: Expr<u32>,
    d: Expr<u32>,
) -> (Expr<u32>, Expr<u32>) {
    let c = bind(f, "mac_c", c);
    let a = bind(f, "mac_a", a);
    let b = bind(f, "mac_b", b);
    let d = bind(f, "mac_d", d);
    let al = bind(f, "mac_al", a.clone() & 0xffffu32);
    let ah = bind(f, "mac_ah", a >> 16);
    let bl = bind(f, "mac_bl", b.clone() & 0xffffu32);
    let bh = bind(f, "mac_bh", b >> 16);
    let ll = bind(f, "mac_ll", al.clone().wrapping_mul(bl.clone()));
    let lh = bind(f, "mac_lh", al.wrapping_mul(bh.clone()));
    let hl = bind(f, "mac_hl", ah.clone().wrapping_mul(bl));
    // The middle column holds at most 3·(2^16 - 1).
    let mid = bind(
        f,
        "mac_mid",
        (ll.clone() >> 16)
            .wrapping_add(lh.clone() & 0xffffu32)
            .wrapping_add(hl.clone() & 0xffffu32),
    );
    let lo = bind(f, "mac_lo", (mid.clone() << 16) | (ll & 0xffffu32));
    let hi = bind(
        f,
        "mac_hi",
        ah.wrapping_mul(bh)
            .wrapping_add(lh >> 16)
            .wrapping_add(hl >> 16)
            .wrapping_add(mid >> 16),
    );
    let s = bind(f, "mac_s", lo.wrapping_add(c.clone()));
    let t = bind(f, "mac_t", s.clone().wrapping_add(d.clone()));
    let hi = bind(
        f,
        "mac_h",
        hi.wrapping_add(select(s.lt(c), 1u32, 0u32))
            .wrapping_add(select(t.clone().lt(d), 1u32, 0u32)),
    );
    (t, hi)
}

/// `rk_u32_clz(x)`: the number of leading zero bits of `x` (32 for 0), by halving the search.
fn clz(s: &mut impl FuncScope) -> Func<u32> {
    s.func::<u32>("rk_u32_clz", |f| {
        let x = f.param::<u32>("x");
        let v = f.let_("v", x.get());
        let z = f.let_("z", 0u32);
        f.if_(v.get().eq_(0u32));
        f.return_value(32u32);
        f.end();
        for (bits, below) in [
            (16, 0xffffu32),
            (8, 0xff_ffff),
            (4, 0xfff_ffff),
            (2, 0x3fff_ffff),
            (1, 0x7fff_ffff),
        ] {
            f.if_(v.get().le(below));
            f.assign(z, z.get() + bits as u32);
            f.assign(v, v.get() << bits);
            f.end();
        }
        f.return_value(z.get());
    })
}

/// The cosine kernel on `|h| ≤ π/4`, `cos(h + l)` as a pair: `1 - h²/2` exactly (`h²` by
/// `two_prod`), the Taylor series from `h⁴/4!` ([`Consts::cos_poly`]), and `-h·l`.
fn cos_k<T: TrigFloat>(f: &mut FunctionBuilder<'_>, h: Expr<T>, l: Expr<T>) -> (Expr<T>, Expr<T>) {
    let h = bind(f, "ck_h", h);
    let (zx, zy) = two_prod(f, h.clone(), h.clone());
    let (wx, wy) = fast_two_sum(f, T::c(1.0), T::c(-0.5) * zx.clone());
    let poly = horner(&zx, &T::consts().cos_poly);
    let tail = bind(
        f,
        "ck_t",
        wy + (zx.clone() * zx * poly - (T::c(0.5) * zy + h * l)),
    );
    (wx, tail)
}

/// The shared start of sin, cos and tan, as library function `rk_<t>_<which>`: below `tiny` the
/// result is `tiny_result(x)`; NaN and `±∞` give NaN; then the reduction by π/2 and `body` on `r`
/// (a pair) and the quadrant `q = n mod 4`.
fn trig<T: TrigFloat>(
    s: &mut impl FuncScope,
    which: &str,
    tiny: f64,
    tiny_result: fn(Expr<T>) -> Expr<T>,
    body: fn(&mut FunctionBuilder<'_>, Expr<T>, Expr<T>, Expr<i32>),
) -> Func<T> {
    s.func::<T>(&name::<T>(which), |f| {
        let x = f.param::<T>("x").get();
        let ax = bind(f, "ax", x.clone().abs());
        f.if_(ax.clone().lt(T::c(tiny)));
        f.return_value(tiny_result(x.clone()));
        f.end();
        f.if_(not(ax.le(T::c(T::consts().max))));
        f.return_value(T::c(f64::NAN));
        f.end();
        let (rh, rl, n) = T::rem_pio2(f, x);
        let q = bind(f, "q", n & 3i32);
        body(f, rh, rl, q);
    })
}

/// `(sin_k or cos_k)(h, l)` summed: the sine kernel when `sine`, else the cosine's.
fn kernel_sum<T: TrigFloat>(
    f: &mut FunctionBuilder<'_>,
    sine: Expr<bool>,
    h: Expr<T>,
    l: Expr<T>,
) -> Expr<T> {
    let vx = f.declare::<T>("vx");
    let vy = f.declare::<T>("vy");
    f.if_(sine);
    let (a, b) = T::sin_k(f, h.clone(), l.clone());
    f.assign(vx, a);
    f.assign(vy, b);
    f.else_();
    let (a, b) = cos_k(f, h, l);
    f.assign(vx, a);
    f.assign(vy, b);
    f.end();
    bind(f, "s", vx.get() + vy.get())
}

/// `rk_<t>_sin(x)`: `x` itself below `sin_tiny` (which keeps -0), else the kernel of its quadrant.
pub(super) fn sin<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    trig::<T>(
        s,
        "sin",
        T::consts().sin_tiny,
        |x| x,
        |f, rh, rl, q| {
            let v = kernel_sum(f, (q.clone() & 1i32).eq_(0i32), rh, rl);
            f.return_value(select(q.ge(2i32), -v.clone(), v));
        },
    )
}

/// `rk_<t>_cos(x)`: 1 below `cos_tiny`, else the kernel of its quadrant.
pub(super) fn cos<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    trig::<T>(
        s,
        "cos",
        T::consts().cos_tiny,
        |_| T::c(1.0),
        |f, rh, rl, q| {
            let v = kernel_sum(f, (q.clone() & 1i32).ne_(0i32), rh, rl);
            f.return_value(select(q.clone().eq_(1i32).or(q.eq_(2i32)), -v.clone(), v));
        },
    )
}

/// `rk_<t>_tan(x)`: `x` itself below `tan_tiny`, else sin/cos (or -cos/sin) divided as pairs.
pub(super) fn tan<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    trig::<T>(
        s,
        "tan",
        T::consts().tan_tiny,
        |x| x,
        |f, rh, rl, q| {
            let odd = bind(f, "odd", (q & 1i32).eq_(1i32));
            let (sx, sy) = T::sin_k(f, rh.clone(), rl.clone());
            let (cx, cy) = cos_k(f, rh, rl);
            let (snx, sny) = fast_two_sum(f, sx, sy);
            let (cnx, cny) = fast_two_sum(f, cx, cy);
            // tan = sin/cos in even quadrants, -cos/sin in odd ones.
            let pick = |a: &Expr<T>, b: &Expr<T>| select(odd.clone(), b.clone(), a.clone());
            let num = (pick(&snx, &cnx), pick(&sny, &cny));
            let den = (pick(&cnx, &snx), pick(&cny, &sny));
            let (tx, ty) = div_dd(f, num, den);
            let v = bind(f, "v", tx + ty);
            f.return_value(select(odd, -v.clone(), v));
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::lower_math;
    use super::super::tests::eval_lib;
    use super::*;
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::eval::{eval_for, ArgValue, Buffer, WorkSet};
    use rokkos_core::ir::{Access, Expr as IrExpr, MathFn, WorkKind};

    /// The constants are what their names say.
    #[test]
    fn constants() {
        let k = <f64 as TrigFloat>::consts();
        // Tails are below half an ulp of their heads.
        for (h, l) in [k.pio2, k.pi, k.pio4, k.atan_half, k.atan_two] {
            assert!(l != 0.0 && l.abs() <= f64::EPSILON * h.abs() / 2.0, "{h}");
        }
        // sin(π rounded) = π - PI: glibc's sin is correctly rounded there.
        assert_eq!(consts::PI.sin(), k.pi.1);
        assert_eq!(0.5f64.atan(), k.atan_half.0);
        assert_eq!(2f64.atan(), k.atan_two.0);
        assert_eq!((-1f64).atan2(-1.0).abs(), k.pi3o4);
        assert_eq!(k.four_thirds, 1.333_333_333_333_333_3);
        // The π/2 parts: 33 significant bits each for the first three, and they sum to π/2.
        let cw = bits::PIO2_PARTS.map(f64::from_bits);
        for p in &bits::PIO2_PARTS[..3] {
            assert_eq!(p & ((1 << 20) - 1), 0);
        }
        assert_eq!(cw[0] + cw[1], consts::FRAC_PI_2);
        assert_eq!(
            ((cw[1] - (consts::FRAC_PI_2 - cw[0])) + cw[2]) + cw[3],
            k.pio2.1
        );
        // 2/π: the first 64 bits round to FRAC_2_PI.
        let w = ((TWO_OVER_PI[0] as u64) << 32) | TWO_OVER_PI[1] as u64;
        assert_eq!(w as f64 / 2f64.powi(64), consts::FRAC_2_PI);
        let k = <f32 as TrigFloat>::consts();
        for (h, l) in [k.pio2, k.pi, k.pio4, k.atan_half, k.atan_two] {
            assert!(
                l != 0.0 && l.abs() <= f64::from(f32::EPSILON) * h.abs() / 2.0,
                "{h}"
            );
            assert_eq!(h, f64::from(h as f32));
            assert_eq!(l, f64::from(l as f32));
        }
        assert_eq!(k.four_thirds as f32, 1.333_333_4f32);
    }

    /// `f(x)` for the library's `f` on the evaluator, in a kernel with overflow checks (so that
    /// the integer arithmetic of the reductions is checked: a wrap it did not mean fails).
    fn eval_checked<T>(func: MathFn, xs: &[Vec<T>]) -> Vec<T>
    where
        T: LibFloat + Default,
        for<'a> Buffer<'a>: From<&'a mut Vec<T>>,
    {
        let n = xs[0].len();
        let mut k = KernelBuilder::new("lib", WorkKind::Range);
        k.overflow_checks(true);
        let out = k.view::<T>("out", 1, Access::Writable);
        let ins: Vec<_> = (0..xs.len())
            .map(|j| k.view::<T>(&format!("x{j}"), 1, Access::ReadOnly))
            .collect();
        let i = k.work_index(0);
        let args = ins.iter().map(|v| v.load(i.clone()).into_ir()).collect();
        k.store(out, i, Expr::<T>::from_ir(IrExpr::Math { func, args }));
        let kernel = k.finish().expect("kernel");
        let lowered = lower_math(&kernel, |f, t| f == func && t == T::TYPE).expect("lowered");
        let mut res = vec![T::default(); n];
        let mut ins = xs.to_vec();
        let mut args = vec![ArgValue::view(&mut res, &[n])];
        for x in ins.iter_mut() {
            args.push(ArgValue::view(x, &[n]));
        }
        let work = WorkSet::Range {
            begin: 0,
            end: n as u64,
        };
        eval_for(&lowered, &work, &mut args).expect("evaluated with overflow checks");
        res
    }

    /// The error of `got` against the exact `want`, in ulps of f32 at `want`.
    fn ulps32(got: f32, want: f64) -> f64 {
        let e = want.abs().log2().floor().max(-126.0);
        (f64::from(got) - want).abs() / 2f64.powi(e as i32 - 23)
    }

    /// The f32 functions at the floats nearest to multiples of π/2 (the hardest cases for the
    /// reduction: the reduced argument is tiny and must keep its significant bits), their
    /// neighbours, every binade's ends and f32::MAX, within 1 ulp of the exact value (the f64
    /// function of the widened argument), with overflow checks on.
    #[test]
    fn f32_near_multiples_of_pi_over_2() {
        let mut xs: Vec<f32> = (1..6000u64)
            .chain((1..3000).map(|k| k * 1_000_003))
            .map(|k| (k as f64 * consts::FRAC_PI_2) as f32)
            .collect();
        xs.extend(
            [
                0x4afd_0ad8u32,
                0x5922_aa80,
                0x5d08_0000,
                0x6d0c_28d7,
                0x7a54_0000,
            ]
            .map(f32::from_bits),
        );
        for e in 126u32..=254 {
            xs.push(f32::from_bits(e << 23));
            xs.push(f32::from_bits((e << 23) | 0x7f_ffff));
        }
        let near: Vec<f32> = xs
            .iter()
            .flat_map(|x| [-1i32, 1].map(|d| f32::from_bits(x.to_bits().wrapping_add_signed(d))))
            .collect();
        xs.extend(near);
        xs.push(f32::MAX);
        xs.retain(|x| x.is_finite());
        let neg: Vec<f32> = xs.iter().map(|x| -x).collect();
        xs.extend(neg);
        for (func, exact) in [
            (MathFn::Sin, f64::sin as fn(f64) -> f64),
            (MathFn::Cos, f64::cos),
            (MathFn::Tan, f64::tan),
        ] {
            let got = eval_checked::<f32>(func, &[xs.clone()]);
            for (&x, &g) in xs.iter().zip(&got) {
                let want = exact(f64::from(x));
                assert!(
                    ulps32(g, want) <= 1.0,
                    "{}({x:e}) = {g:e}, exact {want:e}",
                    func.name()
                );
            }
        }
    }

    /// Every function of this family on both types, with overflow checks, gives what it gives
    /// without them (no integer step wraps unintended), over arguments of every binade.
    #[test]
    fn no_overflow_in_checked_kernels() {
        let mut r = super::super::tests::Rng(0x2545_f491_4f6c_dd1d);
        let x64: Vec<f64> = (0..3000).map(|_| f64::from_bits(r.next())).collect();
        let y64: Vec<f64> = (0..3000).map(|_| f64::from_bits(r.next())).collect();
        let x32: Vec<f32> = x64
            .iter()
            .map(|x| f32::from_bits(x.to_bits() as u32))
            .collect();
        let y32: Vec<f32> = y64
            .iter()
            .map(|x| f32::from_bits(x.to_bits() as u32))
            .collect();
        for func in [
            MathFn::Sin,
            MathFn::Cos,
            MathFn::Tan,
            MathFn::Asin,
            MathFn::Acos,
            MathFn::Atan,
            MathFn::Atan2,
        ] {
            let two = func.arity() == 2;
            let a64 = if two {
                vec![y64.clone(), x64.clone()]
            } else {
                vec![x64.clone()]
            };
            let a32 = if two {
                vec![y32.clone(), x32.clone()]
            } else {
                vec![x32.clone()]
            };
            let bits64 = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let bits32 = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits64(eval_checked::<f64>(func, &a64)),
                bits64(eval_lib::<f64>(func, &a64)),
                "f64 {}",
                func.name()
            );
            assert_eq!(
                bits32(eval_checked::<f32>(func, &a32)),
                bits32(eval_lib::<f32>(func, &a32)),
                "f32 {}",
                func.name()
            );
        }
    }

    /// `mac` as the library writes it is `c + a·b + d` exactly, at the edges of its halves and at
    /// random, on the evaluator (with overflow checks: its wrapping is all meant).
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
        let mut r = super::super::tests::Rng(0x9e37_79b9_7f4a_7c15);
        cases.extend((0..4000).map(|_| {
            let (x, y) = (r.next(), r.next());
            [x as u32, (x >> 32) as u32, y as u32, (y >> 32) as u32]
        }));
        let n = cases.len();
        let mut k = KernelBuilder::new("mac", WorkKind::Range);
        k.overflow_checks(true);
        let out = k.view::<u32>("out", 1, Access::Writable);
        let ins: Vec<_> = (0..4)
            .map(|j| k.view::<u32>(&format!("x{j}"), 1, Access::ReadOnly))
            .collect();
        let halves: Vec<Func<u32>> = (0..2)
            .map(|h| {
                k.func::<u32>(&format!("mac{h}"), |f| {
                    let p: Vec<Expr<u32>> = (0..4)
                        .map(|j| f.param::<u32>(&format!("p{j}")).get())
                        .collect();
                    let (lo, hi) = mac(f, p[0].clone(), p[1].clone(), p[2].clone(), p[3].clone());
                    f.return_value(if h == 0 { lo } else { hi });
                })
            })
            .collect();
        let i = k.work_index(0);
        let args = || {
            ins.iter()
                .map(|v| v.load(i.clone()).into_ir())
                .collect::<Vec<_>>()
        };
        let lo = halves[0].call(args());
        let hi = halves[1].call(args());
        k.store(out, i.clone() * 2usize, lo);
        k.store(out, i.clone() * 2usize + 1usize, hi);
        let kernel = k.finish().expect("kernel");
        let mut res = vec![0u32; 2 * n];
        let mut cols: Vec<Vec<u32>> = (0..4)
            .map(|j| cases.iter().map(|c| c[j]).collect())
            .collect();
        let mut args = vec![ArgValue::view(&mut res, &[2 * n])];
        for c in cols.iter_mut() {
            args.push(ArgValue::view(c, &[n]));
        }
        let work = WorkSet::Range {
            begin: 0,
            end: n as u64,
        };
        eval_for(&kernel, &work, &mut args).expect("evaluated");
        for (i, [c, a, b, d]) in cases.into_iter().enumerate() {
            let want = u64::from(c) + u64::from(a) * u64::from(b) + u64::from(d);
            let got = (u64::from(res[2 * i + 1]) << 32) | u64::from(res[2 * i]);
            assert_eq!(got, want, "{c} + {a}·{b} + {d}");
        }
    }
}
