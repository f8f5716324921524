//! The exponential functions, for `f32` and `f64` from one generic source: `exp`, `exp2`, and
//! the hyperbolic functions `sinh`, `cosh`, `tanh` on `expm1` (the logarithms and `powf`, which
//! share the constants and the reduction, are in [`super::log`]).
//!
//! # Method
//!
//! `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2`: `ln 2` is split into a head with its low bits cleared
//! (32 significant bits in `f64`, 16 in `f32`), so that `n·head` is exact for every `n` the
//! functions meet and `x - n·head` is exact, a middle part (the rest of the rounded `ln 2`, exact)
//! and a tail (the next `f64`/`f32` of `ln 2`). Then `exp(r) - 1` as a pair ([`em1`]): in `f64`
//! the Taylor series to `r¹⁴/14!` (truncation under 2⁻⁶² relative) with the final sum exact; in
//! `f32` `r + r²/2` exactly and the rest a Taylor series to `r⁹/9!` (under 2⁻³⁵). The result is
//! `(1 + e)·2ⁿ`, scaled without overflow or underflow before the product does: in `f64` by two
//! normal powers of two ([`scale`]), in `f32` by the exact `ldexp` of [`super::exact`]. `expm1`
//! for the hyperbolic functions is `2ⁿ·(exp(r) - 1) + (2ⁿ - 1)` summed exactly, and their
//! quotients are divided as pairs ([`div_dd`]) corrected by the exact residual.
//!
//! Every exact step keeps the defences of [`super::exact`] against relaxed GPU compilers: the
//! error-free sums and products route their operands through the opaque identity, NaN is tested
//! on the bits, integers are found with `floor` (lavapipe's f64 `round` and `trunc` are wrong
//! from 2²⁴ on), and infinities come from constants.
//!
//! # Accuracy
//!
//! In `f64` every result is within 1 ulp of the exact value (0.65 ulp the most seen for `exp`
//! and `cosh`, 0.74 for `sinh`, 0.73 for `tanh`, 0.64 for `exp2`), in `f32` within 1 ulp over
//! the whole range, subnormal results included. Special values (NaN, ±∞, ±0 with its sign,
//! overflow to ∞, underflow to 0) follow Rust.

use super::dd::{div_dd, horner, inv_factorial};
use super::exact::{fast_two_sum, ldexp, two_prod, two_sum};
use super::float::{bind, call2, is_nan_bits, name, not, pow2, LibFloat};
use rokkos_core::ir::build::{select, Expr, Func, FuncScope, FunctionBuilder};
use std::f64::consts;

/// Bit patterns of `f64` constants that `std` has no name for (tails of double-double constants,
/// from mpmath at 2000 bits: the double nearest to `value - head`).
mod bits {
    /// `ln 2 - LN_2`.
    pub const LN2_LO: u64 = 0x3c7a_bc9e_3b39_803f;
    /// `1/ln 2 - LOG2_E`.
    pub const LOG2_E_LO: u64 = 0x3c77_77d0_ffda_0d24;
    /// `1/ln 10 - LOG10_E`.
    pub const LOG10_E_LO: u64 = 0x3c69_5355_baaa_fad3;
}

/// Whether `T` is `f32` (the two types differ in some constants and cores).
pub(super) fn is_f32<T: LibFloat>() -> bool {
    T::MANT == 23
}

/// `c` as an `f32` pair: the nearest `f32` and the `f32` nearest to what is left (from `f64`, so
/// the pair carries about 48 bits of `c`).
fn split32(c: f64) -> (f64, f64) {
    let hi = c as f32;
    (f64::from(hi), f64::from((c - f64::from(hi)) as f32))
}

/// The constants of the exponential functions and logarithms of one float type, each exactly
/// representable in it (so that [`LibFloat::c`] does not round them again).
pub(super) struct Consts {
    /// `ln 2` rounded.
    pub ln2: f64,
    /// `ln 2` rounded with its low bits cleared (21 of `f64`: 32 significant bits; 8 of `f32`:
    /// 16): `n·LN2_HI` is exact for `|n| < 2²¹` (`2⁸`), every `n` the functions meet.
    pub ln2_hi: f64,
    /// `ln2 - ln2_hi`, exact: the low bits of the rounded `ln 2`.
    pub ln2_mid: f64,
    /// `ln 2 - ln2`, rounded: the tail of `ln 2` as a pair.
    pub ln2_lo: f64,
    /// `1/ln 2` as a pair.
    pub log2_e: (f64, f64),
    /// `1/ln 10` as a pair.
    pub log10_e: (f64, f64),
    /// `2/3` as a pair (the leading coefficient of the logarithm's series).
    pub two_thirds: (f64, f64),
    /// Above it `exp` is `∞`.
    pub exp_over: f64,
    /// Below it `exp` is `0`.
    pub exp_under: f64,
    /// Above it `exp2` is `∞`.
    pub exp2_over: f64,
    /// Below it `exp2` is `0`.
    pub exp2_under: f64,
    /// Below it `sinh` and `cosh` take `expm1`.
    pub hyp_small: f64,
    /// Up to it `sinh` and `cosh` are `exp(a)/2`, beyond `∞`.
    pub hyp_big: f64,
    /// Below it `tanh` takes `expm1(2a)`; above it is ±1.
    pub tanh_small: f64,
    /// Below it `sinh x` is `x` to within half an ulp.
    pub sinh_tiny: f64,
    /// Below it `tanh x` is `x` to within half an ulp.
    pub tanh_tiny: f64,
    /// From it on every float is an even integer.
    pub pow_int_limit: f64,
    /// The smallest normal number.
    pub min_positive: f64,
    /// The power of two that makes a subnormal normal, with its exponent: `2⁵⁴` / `2²⁴`.
    pub subnormal_up: (f64, i32),
}

/// The constants of `T`.
pub(super) fn consts<T: LibFloat>() -> Consts {
    if is_f32::<T>() {
        let ln2 = consts::LN_2 as f32;
        let ln2_hi = f32::from_bits(ln2.to_bits() & !0xff);
        Consts {
            ln2: f64::from(ln2),
            ln2_hi: f64::from(ln2_hi),
            ln2_mid: f64::from(ln2 - ln2_hi),
            ln2_lo: split32(consts::LN_2).1,
            log2_e: split32(consts::LOG2_E),
            log10_e: split32(consts::LOG10_E),
            two_thirds: split32(2.0 / 3.0),
            exp_over: 90.0,
            exp_under: -104.0,
            exp2_over: 129.0,
            exp2_under: -151.0,
            hyp_small: 12.0,
            hyp_big: 90.0,
            tanh_small: 10.0,
            sinh_tiny: 2f64.powi(-12),
            tanh_tiny: 2f64.powi(-12),
            pow_int_limit: 2f64.powi(24),
            min_positive: f64::from(f32::MIN_POSITIVE),
            subnormal_up: (2f64.powi(24), 24),
        }
    } else {
        let ln2_hi = f64::from_bits(consts::LN_2.to_bits() & !0x1f_ffff);
        let f = f64::from_bits;
        Consts {
            ln2: consts::LN_2,
            ln2_hi,
            ln2_mid: consts::LN_2 - ln2_hi,
            ln2_lo: f(bits::LN2_LO),
            log2_e: (consts::LOG2_E, f(bits::LOG2_E_LO)),
            log10_e: (consts::LOG10_E, f(bits::LOG10_E_LO)),
            // 2/3 - TWO_THIRDS: the residual 2 - 3·(2/3 rounded) is exact under a fused
            // multiply-add.
            two_thirds: (2.0 / 3.0, (-3.0f64).mul_add(2.0 / 3.0, 2.0) / 3.0),
            exp_over: 710.0,
            exp_under: -746.0,
            exp2_over: 1025.0,
            exp2_under: -1076.0,
            hyp_small: 22.0,
            hyp_big: 711.0,
            tanh_small: 22.0,
            sinh_tiny: 2f64.powi(-26),
            tanh_tiny: 2f64.powi(-28),
            pow_int_limit: 2f64.powi(53),
            min_positive: f64::MIN_POSITIVE,
            subnormal_up: (2f64.powi(54), 54),
        }
    }
}

/// `rk_f64_scale(y, k)`: `y·2ᵏ` rounded once: `2^(k/2)` and `2^(k - k/2)` are normal, `y·2^(k/2)`
/// is exact for `y` near 1, and the second product rounds (to ∞, a subnormal or 0 as the exact
/// value says). The `f32` library scales with the exact [`ldexp`] instead.
fn scale<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    if is_f32::<T>() {
        return ldexp::<T>(s);
    }
    s.func::<T>(&name::<T>("scale"), |f| {
        let y = f.param::<T>("y");
        let k = f.param::<i32>("k");
        let kk = bind(f, "kk", k.get().clamp(-2000i32, 2000i32));
        let k1 = bind(f, "k1", kk.clone() / 2i32);
        f.return_value((y.get() * pow2::<T>(k1.clone())) * pow2::<T>(kk - k1));
    })
}

/// `(y·2ⁿ)` of the exponential functions' result `y = 1 + e` (`e` a pair): the scaling helper of
/// `T` ([`scale`]) on the sum rounded once.
pub(super) fn scale_sum<T: LibFloat>(
    f: &mut FunctionBuilder<'_>,
    e: (Expr<T>, Expr<T>),
    n: Expr<i32>,
) -> Expr<T> {
    let sc = scale::<T>(f);
    let (yx, yy) = fast_two_sum(f, T::c(1.0), e.0);
    call2(sc, yx + (yy + e.1), n)
}

/// `exp(hi + lo) - 1` as a pair, written into `f`, for `|hi + lo| ≤ ln 2 / 2` (`lo` need not be
/// below an ulp of `hi`). `f64`: the Taylor series to `r¹⁴/14!` (truncation under 2⁻⁶² relative)
/// and the sum `hi + (lo + p)` exact. `f32`: `hi + hi²/2` exactly, the rest (`lo`,
/// `lo·(hi + lo/2)`, and the Taylor series from `r³/3!` to `r⁹/9!` in `r = hi + lo`, truncated
/// under 2⁻³⁵) in `f32`.
pub(super) fn em1<T: LibFloat>(
    f: &mut FunctionBuilder<'_>,
    hi: Expr<T>,
    lo: Expr<T>,
) -> (Expr<T>, Expr<T>) {
    let hi = bind(f, "em_hi", hi);
    let lo = bind(f, "em_lo", lo);
    let r = bind(f, "em_r", hi.clone() + lo.clone());
    if is_f32::<T>() {
        let c: Vec<f64> = (3..=9).map(inv_factorial).collect();
        let (zx, zy) = two_prod(f, hi.clone(), hi.clone());
        let t = bind(
            f,
            "em_t",
            (T::c(0.5) * zy + lo.clone() * (hi.clone() + T::c(0.5) * lo.clone()))
                + r.clone() * r.clone() * r.clone() * horner(&r, &c),
        );
        let (sx, sy) = fast_two_sum(f, hi, T::c(0.5) * zx);
        fast_two_sum(f, sx, sy + (lo + t))
    } else {
        let c: Vec<f64> = (2..=14).map(inv_factorial).collect();
        let p = bind(f, "em_p", r.clone() * r.clone() * horner(&r, &c));
        two_sum(f, hi, lo + p)
    }
}

/// The reduction `x = n·ln 2 + (hi + lo)` of `exp` and `expm1`: `(n, hi, lo)`, `n` the nearest
/// integer to `x/ln 2` (by `floor`), `hi = x - n·LN2_HI` exact.
fn reduce<T: LibFloat>(f: &mut FunctionBuilder<'_>, x: Expr<T>) -> (Expr<T>, Expr<T>, Expr<T>) {
    let k = consts::<T>();
    let n = bind(f, "n", (x.clone() * T::c(k.log2_e.0) + T::c(0.5)).floor());
    let hi = bind(f, "hi", x - n.clone() * T::c(k.ln2_hi));
    let lo = bind(
        f,
        "lo",
        -(n.clone() * T::c(k.ln2_mid) + n.clone() * T::c(k.ln2_lo)),
    );
    (n, hi, lo)
}

/// `rk_<t>_exp_scaled(x, s)`: `exp(x)·2ˢ` inside the range where it is finite and not zero
/// (`-746 ≤ x ≤ 711` in `f64`, `-104 ≤ x ≤ 90` in `f32`).
fn exp_scaled<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("exp_scaled"), |f| {
        let x = f.param::<T>("x");
        let sh = f.param::<i32>("s");
        let (n, hi, lo) = reduce(f, x.get());
        let e = em1(f, hi, lo);
        let r = scale_sum(f, e, n.cast::<i32>() + sh.get());
        f.return_value(r);
    })
}

/// `rk_<t>_exp(x)`: NaN passes, overflow to ∞, underflow to 0, else [`exp_scaled`].
pub(super) fn exp<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("exp"), |f| {
        let k = consts::<T>();
        let es = exp_scaled::<T>(f);
        let x = f.param::<T>("x");
        f.if_(is_nan_bits(x.get()));
        f.return_value(x.get());
        f.end();
        f.if_(x.get().gt(T::c(k.exp_over)));
        f.return_value(T::c(f64::INFINITY));
        f.end();
        f.if_(x.get().lt(T::c(k.exp_under)));
        f.return_value(T::c(0.0));
        f.end();
        f.return_value(call2(es, x.get(), 0i32));
    })
}

/// `rk_<t>_exp2(x)`: `2ⁿ·2ʳ` with `n` the nearest integer, `|r| ≤ ½` and `2ʳ = exp(r·ln 2)`,
/// `r·ln 2` exact as a pair plus the tail of `ln 2`.
pub(super) fn exp2<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("exp2"), |f| {
        let k = consts::<T>();
        let x = f.param::<T>("x");
        f.if_(is_nan_bits(x.get()));
        f.return_value(x.get());
        f.end();
        f.if_(x.get().gt(T::c(k.exp2_over)));
        f.return_value(T::c(f64::INFINITY));
        f.end();
        f.if_(x.get().lt(T::c(k.exp2_under)));
        f.return_value(T::c(0.0));
        f.end();
        let n = bind(f, "n", (x.get() + T::c(0.5)).floor());
        let r = bind(f, "r", x.get() - n.clone());
        let (px, py) = two_prod(f, r.clone(), T::c(k.ln2));
        let e = em1(f, px, py + r * T::c(k.ln2_lo));
        let y = scale_sum(f, e, n.cast::<i32>());
        f.return_value(y);
    })
}

/// `exp(x) - 1` as a pair, written into `f`, for `0 ≤ x ≤ 45` (`f64`) or `21` (`f32`):
/// `2ⁿ·e + (2ⁿ - 1)` with `e = exp(r) - 1` (`2ⁿ - 1` is exact while `n` is below the significand's
/// width, and negligible beyond).
fn expm1_dd<T: LibFloat>(f: &mut FunctionBuilder<'_>, x: Expr<T>) -> (Expr<T>, Expr<T>) {
    let (n, hi, lo) = reduce(f, x);
    let (ex, ey) = em1(f, hi, lo);
    let p = bind(f, "p", pow2::<T>(n.cast::<i32>()));
    let (ax, ay) = two_sum(f, p.clone() - T::c(1.0), p.clone() * ex);
    fast_two_sum(f, ax, ay + p * ey)
}

/// `select(r, -r, negative)` of the odd functions: `r` with the sign of `x`.
fn with_sign_of<T: LibFloat>(r: Expr<T>, x: Expr<T>) -> Expr<T> {
    select(x.lt(T::c(0.0)), -r.clone(), r)
}

/// `rk_<t>_sinh(x)`: `x` itself below `SINH_TINY` (keeping -0; NaN passes too); below
/// `HYP_SMALL` `(t + t/(1 + t))/2` with `t = expm1(|x|)` as pairs; up to `HYP_BIG` `exp(|x|)/2`;
/// beyond ∞; with the sign of `x`.
pub(super) fn sinh<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("sinh"), |f| {
        let k = consts::<T>();
        let es = exp_scaled::<T>(f);
        let x = f.param::<T>("x");
        let a = bind(f, "a", x.get().abs());
        f.if_(not(a.clone().ge(T::c(k.sinh_tiny))));
        f.return_value(x.get());
        f.end();
        let r = f.let_("r", T::c(f64::INFINITY));
        f.if_(a.clone().lt(T::c(k.hyp_small)));
        let (tx, ty) = expm1_dd(f, a.clone());
        let (ex, ey) = two_sum(f, T::c(1.0), tx.clone());
        let (qx, qy) = div_dd(f, (tx.clone(), ty.clone()), (ex, ey + ty.clone()));
        let (sx, sy) = two_sum(f, tx, qx);
        f.assign(r, T::c(0.5) * (sx + (sy + (ty + qy))));
        f.else_();
        f.if_(a.clone().le(T::c(k.hyp_big)));
        f.assign(r, call2(es, a, -1i32));
        f.end();
        f.end();
        f.return_value(with_sign_of(r.get(), x.get()));
    })
}

/// `rk_<t>_cosh(x)`: NaN passes; below `HYP_SMALL` `(E + 1/E)/2` with `E = 1 + expm1(|x|)` as
/// pairs; up to `HYP_BIG` `exp(|x|)/2`; beyond ∞.
pub(super) fn cosh<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("cosh"), |f| {
        let k = consts::<T>();
        let es = exp_scaled::<T>(f);
        let x = f.param::<T>("x");
        let a = bind(f, "a", x.get().abs());
        f.if_(is_nan_bits(a.clone()));
        f.return_value(x.get());
        f.end();
        f.if_(a.clone().lt(T::c(k.hyp_small)));
        let (tx, ty) = expm1_dd(f, a.clone());
        let (ex, ey) = two_sum(f, T::c(1.0), tx);
        let dx = bind(f, "dx", ex);
        let dy = bind(f, "dy", ey + ty);
        let (rx, ry) = div_dd(f, (T::c(1.0), T::c(0.0)), (dx.clone(), dy.clone()));
        let (sx, sy) = two_sum(f, dx, rx);
        f.return_value(T::c(0.5) * (sx + (sy + (dy + ry))));
        f.end();
        f.if_(a.clone().le(T::c(k.hyp_big)));
        f.return_value(call2(es, a, -1i32));
        f.end();
        f.return_value(T::c(f64::INFINITY));
    })
}

/// `rk_<t>_tanh(x)`: `x` itself below `TANH_TINY` (keeping -0; NaN passes too); below
/// `TANH_SMALL` `t/(t + 2)` with `t = expm1(2|x|)` as pairs; beyond ±1.
pub(super) fn tanh<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("tanh"), |f| {
        let k = consts::<T>();
        let x = f.param::<T>("x");
        let a = bind(f, "a", x.get().abs());
        f.if_(not(a.clone().ge(T::c(k.tanh_tiny))));
        f.return_value(x.get());
        f.end();
        let r = f.let_("r", T::c(1.0));
        f.if_(a.clone().lt(T::c(k.tanh_small)));
        let (tx, ty) = expm1_dd(f, T::c(2.0) * a);
        let (dx, dy) = two_sum(f, tx.clone(), T::c(2.0));
        let (qx, qy) = div_dd(f, (tx, ty.clone()), (dx, dy + ty));
        f.assign(r, qx + qy);
        f.end();
        f.return_value(with_sign_of(r.get(), x.get()));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constants are what their names say, in both types.
    #[test]
    fn constants() {
        for (k, f32) in [(consts::<f32>(), true), (consts::<f64>(), false)] {
            let (eps, low) = if f32 {
                (f64::from(f32::EPSILON), 0xff_u64)
            } else {
                (f64::EPSILON, 0x1f_ffff)
            };
            // Each is exact in its type.
            for v in [
                k.ln2,
                k.ln2_hi,
                k.ln2_mid,
                k.ln2_lo,
                k.log2_e.0,
                k.log2_e.1,
                k.log10_e.0,
                k.log10_e.1,
                k.two_thirds.0,
                k.two_thirds.1,
            ] {
                assert!(!f32 || f64::from(v as f32) == v, "{v:e} is not an f32");
            }
            // The ln 2 split: exact, and the head has its low bits cleared.
            assert_eq!(k.ln2_hi + k.ln2_mid, k.ln2);
            let hi_bits = if f32 {
                u64::from((k.ln2_hi as f32).to_bits())
            } else {
                k.ln2_hi.to_bits()
            };
            assert_eq!(hi_bits & low, 0);
            // Tails are below half an ulp of their heads, and not zero.
            for (h, l) in [
                (k.ln2, k.ln2_lo),
                (k.log2_e.0, k.log2_e.1),
                (k.log10_e.0, k.log10_e.1),
                (k.two_thirds.0, k.two_thirds.1),
            ] {
                assert!(l != 0.0 && l.abs() <= eps * h.abs() / 2.0, "{h:e} {l:e}");
            }
            // 1/ln 2 as a pair: (hi + lo)·ln 2 = 1 to far more than the type's precision.
            let p = k.log2_e.0 * std::f64::consts::LN_2;
            let e = k.log2_e.0.mul_add(std::f64::consts::LN_2, -p)
                + k.log2_e.0 * f64::from_bits(bits::LN2_LO)
                + k.log2_e.1 * std::f64::consts::LN_2;
            assert!(((p - 1.0) + e).abs() < eps * eps, "{}", (p - 1.0) + e);
            // The subnormal scaling is the power of two it says.
            assert_eq!(k.subnormal_up.0, 2f64.powi(k.subnormal_up.1));
        }
    }

    #[test]
    fn taylor_coefficients() {
        assert_eq!(inv_factorial(2), 0.5);
        assert_eq!(inv_factorial(3), 1.0 / 6.0);
        assert_eq!(inv_factorial(0), 1.0);
    }
}
