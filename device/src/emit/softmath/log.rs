//! The logarithms and `powf`, for `f32` and `f64` from one generic source.
//!
//! # Method
//!
//! `x = 2ᵉ·m` with `m ∈ [√½, √2)` (a subnormal scaled up first), `ln m = 2s + s³·T(s²)` with
//! `s = (m - 1)/(m + 1)` and `T(z) = Σ 2zᵏ/(2k + 3)` (to `k = 11` in `f64`, truncation below 2⁻⁷⁰
//! of the result; to `k = 6` in `f32`, under 2⁻³⁸), `s`, `s²`, `s³` and `T`'s leading 2/3 carried
//! as pairs ([`log_parts`]). `ln x = e·ln 2 + ln m` is then a pair with a relative error near 2⁻⁶⁵
//! in `f64` ([`log_dd`]), so `powf = exp(y·ln x)` stays within about an ulp even when `|y·ln x|`
//! approaches the overflow threshold; `log2` and `log10` multiply by `1/ln 2` and `1/ln 10` as
//! pairs (not rounded constants), so powers of 2 and 10 give exact results. The exponential of
//! `powf` is the reduction and `exp(r) - 1` of [`super::exp`].
//!
//! # Accuracy
//!
//! In `f64` `ln`, `log2` and `log10` are within half an ulp of the exact value over the inputs
//! checked (0.50 the most), `powf` within 0.62 ulp with `|y·ln x|` up to 745; in `f32` every
//! result is within 1 ulp. Special values follow Rust: NaN and negative arguments of the
//! logarithms give NaN, ±0 gives -∞, +∞ gives +∞; `powf` has C99's cases (see [`powf`]).

use super::dd::horner;
use super::exact::{fast_two_sum, o, two_prod, two_sum};
use super::exp::{consts, em1, is_f32, scale_sum};
use super::float::{bind, call2, is_nan_bits, name, not, sign_bit, LibFloat};
use rokkos_core::ir::build::{select, Expr, Func, FuncScope, FunctionBuilder};
use std::f64::consts as c64;

/// `x = 2ᵉ·m`, `m ∈ [√½, √2)`, written into `f` for finite `x > 0`: `(e, ln m as a pair)`, `e`
/// as a float. `ln m = 2s + s³·T(s²)`, `s = (m - 1)/(m + 1)` (see the module documentation); `s`,
/// `s²`, `s³` and `T`'s leading 2/3 are carried as pairs, the rest of `T` (under 2⁻⁶ of it) in
/// one float. The quotient `s` is corrected by its exact residual.
fn log_parts<T: LibFloat>(f: &mut FunctionBuilder<'_>, x: Expr<T>) -> (Expr<T>, Expr<T>, Expr<T>) {
    let k = consts::<T>();
    let terms = if is_f32::<T>() { 6 } else { 11 };
    let q: Vec<f64> = (1..=terms).map(|k| 2.0 / f64::from(2 * k + 3)).collect();
    let v = f.let_("lp_v", x);
    let e = f.let_("lp_e", -T::BIAS);
    f.if_(v.get().lt(T::c(k.min_positive)));
    f.assign(v, v.get() * T::c(k.subnormal_up.0));
    f.assign(e, e.get() - k.subnormal_up.1);
    f.end();
    let b = bind(f, "lp_b", v.get().to_bits());
    f.assign(e, e.get() + (b.clone() >> T::MANT).cast::<i32>());
    let m = f.let_(
        "lp_m",
        Expr::<T>::from_bits((b & T::u((1u64 << T::MANT) - 1)) | T::u((T::BIAS as u64) << T::MANT)),
    );
    f.if_(m.get().gt(T::c(c64::SQRT_2)));
    f.assign(m, T::c(0.5) * m.get());
    f.assign(e, e.get() + 1i32);
    f.end();
    let fm = o(f, m.get() - T::c(1.0));
    let fm = bind(f, "lp_f", fm);
    let (dx, dy) = fast_two_sum(f, T::c(2.0), fm.clone());
    let sh = o(f, fm.clone() / dx.clone());
    let sh = bind(f, "lp_sh", sh);
    let (sdx, sdy) = two_prod(f, sh.clone(), dx.clone());
    let res = o(f, fm - sdx);
    let sl = bind(f, "lp_sl", ((res - sdy) - sh.clone() * dy) / dx);
    let (zx, zy) = two_prod(f, sh.clone(), sh.clone());
    let zl = bind(f, "lp_zl", zy + T::c(2.0) * sh.clone() * sl.clone());
    let qv = bind(f, "lp_q", horner(&zx, &q));
    let (tx, ty) = fast_two_sum(f, T::c(k.two_thirds.0), zx.clone() * qv.clone());
    let tl = bind(f, "lp_tl", ty + (T::c(k.two_thirds.1) + zl.clone() * qv));
    let (szx, szy) = two_prod(f, sh.clone(), zx.clone());
    let szl = bind(f, "lp_szl", szy + (sh.clone() * zl + sl.clone() * zx));
    let (px, py) = two_prod(f, szx.clone(), tx.clone());
    let pl = bind(f, "lp_pl", py + (szx * tl + szl * tx));
    let (ax, ay) = fast_two_sum(f, T::c(2.0) * sh, px);
    let (rx, ry) = fast_two_sum(f, ax, ay + (T::c(2.0) * sl + pl));
    let ef = bind(f, "lp_ef", e.get().cast::<T>());
    (ef, rx, ry)
}

/// `ln x` as a pair, written into `f`, for finite `x > 0`: `e·ln 2 + ln m` of [`log_parts`],
/// with `ln 2` in three parts (the head's product with `e` exact).
fn log_dd<T: LibFloat>(f: &mut FunctionBuilder<'_>, x: Expr<T>) -> (Expr<T>, Expr<T>) {
    let k = consts::<T>();
    let (e, py, pz) = log_parts(f, x);
    let (ax, ay) = two_sum(f, e.clone() * T::c(k.ln2_hi), py);
    fast_two_sum(
        f,
        ax,
        ay + (e.clone() * T::c(k.ln2_mid) + (pz + e * T::c(k.ln2_lo))),
    )
}

/// The special cases the logarithms share, written into `f`: NaN and negative arguments give
/// NaN, ±0 gives -∞, +∞ gives +∞.
fn log_special<T: LibFloat>(f: &mut FunctionBuilder<'_>, x: Expr<T>) {
    f.if_(not(x.clone().ge(T::c(0.0))));
    f.return_value(T::c(f64::NAN));
    f.end();
    f.if_(x.clone().eq_(T::c(0.0)));
    f.return_value(-T::c(f64::INFINITY));
    f.end();
    f.if_(x.clone().eq_(T::c(f64::INFINITY)));
    f.return_value(x);
    f.end();
}

/// `rk_<t>_ln(x)`: the pair of [`log_dd`], summed.
pub(super) fn ln<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("ln"), |f| {
        let x = f.param::<T>("x");
        log_special(f, x.get());
        let (lx, ly) = log_dd(f, x.get());
        f.return_value(lx + ly);
    })
}

/// `rk_<t>_log2(x)`: `e + ln(m)·log2(e)` with `1/ln 2` as a pair, so powers of two are exact.
pub(super) fn log2<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("log2"), |f| {
        let k = consts::<T>();
        let x = f.param::<T>("x");
        log_special(f, x.get());
        let (e, py, pz) = log_parts(f, x.get());
        let (qx, qy) = two_prod(f, py.clone(), T::c(k.log2_e.0));
        let (sx, sy) = two_sum(f, e, qx);
        f.return_value(sx + (sy + (qy + (py * T::c(k.log2_e.1) + pz * T::c(k.log2_e.0)))));
    })
}

/// `rk_<t>_log10(x)`: `ln x · log10(e)` with `1/ln 10` as a pair.
pub(super) fn log10<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("log10"), |f| {
        let k = consts::<T>();
        let x = f.param::<T>("x");
        log_special(f, x.get());
        let (lx, ly) = log_dd(f, x.get());
        let (qx, qy) = two_prod(f, lx.clone(), T::c(k.log10_e.0));
        f.return_value(qx + (qy + (lx * T::c(k.log10_e.1) + ly * T::c(k.log10_e.0))));
    })
}

/// `rk_<t>_pow_core(x, y)`: `exp(y·ln x)` for finite `x > 0`, with `y·ln x` a pair (the product
/// of `y` and `ln x`'s head exact, plus `y` times its tail), overflow to ∞ and underflow to 0.
fn pow_core<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("pow_core"), |f| {
        let k = consts::<T>();
        let x = f.param::<T>("x");
        let y = f.param::<T>("y");
        let (lx, ly) = log_dd(f, x.get());
        let (px, py) = two_prod(f, y.get(), lx);
        f.if_(px.clone().gt(T::c(k.exp_over)));
        f.return_value(T::c(f64::INFINITY));
        f.end();
        f.if_(px.clone().lt(T::c(k.exp_under)));
        f.return_value(T::c(0.0));
        f.end();
        let n = bind(f, "n", (px.clone() * T::c(k.log2_e.0) + T::c(0.5)).floor());
        let hi = bind(f, "hi", px - n.clone() * T::c(k.ln2_hi));
        let lo = bind(
            f,
            "lo",
            (py + y.get() * ly) - (n.clone() * T::c(k.ln2_mid) + n.clone() * T::c(k.ln2_lo)),
        );
        let e = em1(f, hi, lo);
        let r = scale_sum(f, e, n.cast::<i32>());
        f.return_value(r);
    })
}

/// `rk_<t>_powf(x, y)` as Rust (C99 `pow`): `y = ±0` or `x = 1` give 1 (even with NaN), NaN
/// otherwise propagates, `(-1)^±∞ = 1`, the zero and infinity cases keep the sign of `x` for odd
/// integer `y` (so `powf(-∞, 0.5) = +∞`), a negative finite `x` needs an integer `y` (else NaN).
/// The general case is [`pow_core`] of `|x|`, negated for a negative `x` and an odd `y`.
pub(super) fn powf<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("powf"), |f| {
        let k = consts::<T>();
        let core = pow_core::<T>(f);
        let x = f.param::<T>("x");
        let y = f.param::<T>("y");
        let inf = || T::c(f64::INFINITY);
        f.if_(y.get().eq_(T::c(0.0)).or(x.get().eq_(T::c(1.0))));
        f.return_value(T::c(1.0));
        f.end();
        f.if_(is_nan_bits(x.get()).or(is_nan_bits(y.get())));
        f.return_value(T::c(f64::NAN));
        f.end();
        let ax = bind(f, "ax", x.get().abs());
        let ay = bind(f, "ay", y.get().abs());
        f.if_(ay.clone().eq_(inf()));
        f.if_(ax.clone().eq_(T::c(1.0)));
        f.return_value(T::c(1.0));
        f.end();
        f.return_value(select(
            ax.clone().gt(T::c(1.0)).eq_(y.get().gt(T::c(0.0))),
            inf(),
            T::c(0.0),
        ));
        f.end();
        let xneg = bind(f, "xneg", sign_bit(x.get()));
        let yint = bind(f, "yint", y.get().floor().eq_(y.get()));
        let half = bind(f, "half", T::c(0.5) * y.get());
        let odd = bind(
            f,
            "odd",
            xneg.clone()
                .and(yint.clone())
                .and(ay.lt(T::c(k.pow_int_limit)))
                .and(not(half.clone().floor().eq_(half))),
        );
        let r = f.declare::<T>("r");
        f.if_(ax.clone().eq_(T::c(0.0)));
        f.assign(r, select(y.get().lt(T::c(0.0)), inf(), T::c(0.0)));
        f.else_();
        f.if_(ax.clone().eq_(inf()));
        f.assign(r, select(y.get().lt(T::c(0.0)), T::c(0.0), inf()));
        f.else_();
        f.if_(xneg.and(not(yint)));
        f.return_value(T::c(f64::NAN));
        f.end();
        f.assign(r, call2(core, ax, y.get()));
        f.end();
        f.end();
        f.return_value(select(odd, -r.get(), r.get()));
    })
}
