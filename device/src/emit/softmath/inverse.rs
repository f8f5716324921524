//! The inverse trigonometric functions `atan`, `atan2`, `asin` and `acos`, for `f32` and `f64`
//! from one generic source (the types differ only in their constants and polynomials, and in
//! `atan2`'s exact scaling: [`TrigFloat`]).
//!
//! # Method
//!
//! - `atan`: `atan(a) = atan(c) + atan((a - c)/(1 + a·c))` with `c ∈ {0, ½, 1, 2, ∞}`, so the
//!   reduced argument is at most ¼ and a pair (the numerators are exact, the denominators carry
//!   their rounding error); `atan u = u + u·z·R(z)`, `R` fitted in `f64` (Chebyshev interpolation
//!   in 256-bit arithmetic with mpmath, approximation error 2⁻⁵⁵·⁶), Taylor to `u¹⁵/15` in `f32`.
//! - `atan2` scales both arguments near 1 (exactly) and divides them as pairs, then places the
//!   quadrant, with every signed-zero and infinity case of C99 (which Rust follows).
//! - `asin`, `acos`: a polynomial on `|x| ≤ ½` (fitted in `f64`, Taylor to `x²⁵` in `f32`), and
//!   `asin x = π/2 - 2·asin(√((1 - x)/2))` beyond, with the square root corrected by its exact
//!   residual.
//!
//! # Accuracy
//!
//! `f64`: within 1 ulp of the exact value (on lavapipe, over the inputs of `tests/math_f64.rs`
//! and tens of thousands more per function checked offline against mpmath: asin 0.62 ulp, acos
//! 0.59, atan and atan2 0.53 the largest seen); `f32`: within 1 ulp over the whole range.
//! Special values (NaN, ±∞, ±0 with its sign, domain errors to NaN) follow Rust.

use super::dd::{div_dd, horner};
use super::exact::{fast_two_sum, o, two_prod, two_sum};
use super::float::{bind, call1, is_nan_bits, name, not, sign_bit, LibFloat};
use super::trig::TrigFloat;
use rokkos_core::ir::build::{select, Expr, Func, FuncScope, FunctionBuilder};

/// `atan(a + al)` for `a ≥ 0` (up to `atan_big`) as a pair, written into `f`'s body:
/// `atan(c) + atan(u)` with `u = (a - c)/(1 + a·c)`, `c ∈ {0, ½, 1, 2, ∞}`, `|u| ≤ ¼`; `u` is a
/// pair ([`div_dd`]), `atan u = u + u·z·R(z)` with `z = u²`, and `al` enters by the derivative
/// `1/(1 + a²)`.
fn atan_dd<T: TrigFloat>(
    f: &mut FunctionBuilder<'_>,
    a: Expr<T>,
    al: Expr<T>,
) -> (Expr<T>, Expr<T>) {
    let k = T::consts();
    let a = bind(f, "ad_a", a);
    let al = bind(f, "ad_al", al);
    let base_x = f.let_("ad_bx", T::c(0.0));
    let base_y = f.let_("ad_by", T::c(0.0));
    let num = f.let_("ad_num", a.clone());
    let den_x = f.let_("ad_dx", T::c(1.0));
    let den_y = f.let_("ad_dy", T::c(0.0));
    let set = |f: &mut FunctionBuilder<'_>, base: (f64, f64), n: Expr<T>, d: (Expr<T>, Expr<T>)| {
        f.assign(base_x, T::c(base.0));
        f.assign(base_y, T::c(base.1));
        f.assign(num, n);
        f.assign(den_x, d.0);
        f.assign(den_y, d.1);
    };
    f.if_(a.clone().gt(T::c(4.0)));
    set(f, k.pio2, T::c(-1.0), (a.clone(), T::c(0.0)));
    f.else_();
    f.if_(a.clone().gt(T::c(k.four_thirds)));
    let d = fast_two_sum(f, T::c(2.0) * a.clone(), T::c(1.0));
    set(f, k.atan_two, a.clone() - T::c(2.0), d);
    f.else_();
    f.if_(a.clone().gt(T::c(0.75)));
    let d = two_sum(f, a.clone(), T::c(1.0));
    set(f, k.pio4, a.clone() - T::c(1.0), d);
    f.else_();
    f.if_(a.clone().gt(T::c(0.25)));
    let d = fast_two_sum(f, T::c(2.0), a.clone());
    set(f, k.atan_half, T::c(2.0) * a.clone() - T::c(1.0), d);
    f.end();
    f.end();
    f.end();
    f.end();
    let (ux, uy) = div_dd(f, (num.get(), T::c(0.0)), (den_x.get(), den_y.get()));
    let z = bind(f, "ad_z", ux.clone() * ux.clone());
    let poly = horner(&z, &k.atan_r);
    let tail = bind(
        f,
        "ad_tail",
        ux.clone() * z.clone() * poly + uy * (T::c(1.0) - z) + al / (T::c(1.0) + a.clone() * a),
    );
    let (sx, sy) = two_sum(f, base_x.get(), ux);
    let hi = bind(f, "ad_hi", sy + (base_y.get() + tail));
    (sx, hi)
}

/// `rk_<t>_atan(x)`: `x` itself below `atan_tiny`, ±π/2 above `atan_big`.
pub(super) fn atan<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("atan"), |f| {
        let k = T::consts();
        let x = f.param::<T>("x").get();
        let a = bind(f, "a", x.clone().abs());
        // Below the threshold atan x = x to within half an ulp (and keeps -0); NaN passes too.
        f.if_(not(a.clone().ge(T::c(k.atan_tiny))));
        f.return_value(x.clone());
        f.end();
        let v = f.let_("v", T::c(k.pio2.0));
        f.if_(a.clone().le(T::c(k.atan_big)));
        let (tx, ty) = atan_dd(f, a, T::c(0.0));
        f.assign(v, tx + ty);
        f.end();
        f.return_value(select(x.lt(T::c(0.0)), -v.get(), v.get()));
    })
}

/// `rk_<t>_atan2(y, x)` (Rust's `y.atan2(x)`): NaN → NaN; `y = ±0`: ±0 for `x` = +0 or positive,
/// ±π for `x` = -0 or negative; `x = ±0`: ±π/2; `y = ±∞`: ±π/4, ±3π/4 or ±π/2; `x = ±∞`: ±0 or
/// ±π. Otherwise `atan(|y/x|)` with the quotient as a pair (both arguments scaled exactly near 1
/// first), placed in its quadrant. The exponents come from the bits: both are normal where it
/// matters (a pair below `atan2_small` is scaled up first, and a subnormal beside a normal number
/// lands in the far-apart case). (No `frexp`: naga types its exponent for f64 as `i64`, which
/// WGSL does not specify.)
pub(super) fn atan2<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("atan2"), |f| {
        let k = T::consts();
        let y = f.param::<T>("y").get();
        let x = f.param::<T>("x").get();
        f.if_(is_nan_bits(x.clone()).or(is_nan_bits(y.clone())));
        f.return_value(T::c(f64::NAN));
        f.end();
        let ax = bind(f, "ax", x.clone().abs());
        let ay = bind(f, "ay", y.clone().abs());
        let xneg = bind(f, "xneg", sign_bit(x));
        let inf = || T::c(f64::INFINITY);
        let v = f.declare::<T>("v");
        f.if_(ay.clone().eq_(T::c(0.0)));
        f.assign(v, select(xneg.clone(), T::c(k.pi.0), T::c(0.0)));
        f.else_();
        f.if_(ax.clone().eq_(T::c(0.0)));
        f.assign(v, T::c(k.pio2.0));
        f.else_();
        f.if_(ay.clone().eq_(inf()));
        f.assign(
            v,
            select(
                ax.clone().eq_(inf()),
                select(xneg.clone(), T::c(k.pi3o4), T::c(k.pio4.0)),
                T::c(k.pio2.0),
            ),
        );
        f.else_();
        f.if_(ax.clone().eq_(inf()));
        f.assign(v, select(xneg.clone(), T::c(k.pi.0), T::c(0.0)));
        f.else_();
        let sx = f.let_("sx", ax.clone());
        let sy = f.let_("sy", ay.clone());
        f.if_(ax.clone().max(ay.clone()).lt(T::c(k.atan2_small)));
        f.assign(sx, sx.get() * T::c(k.atan2_up));
        f.assign(sy, sy.get() * T::c(k.atan2_up));
        f.end();
        let ex = bind(f, "ex", (sx.get().to_bits() >> T::MANT).cast::<i32>());
        let d = bind(
            f,
            "d",
            (sy.get().to_bits() >> T::MANT).cast::<i32>() - ex.clone(),
        );
        let zx = f.declare::<T>("zx");
        let zy = f.declare::<T>("zy");
        f.if_(d.clone().gt(k.atan2_far));
        f.assign(zx, T::c(k.pio2.0));
        f.assign(zy, T::c(k.pio2.1));
        f.else_();
        f.if_(d.lt(-k.atan2_far));
        f.assign(zx, ay / ax);
        f.assign(zy, T::c(0.0));
        f.else_();
        // Both scaled by the same power of two, |x| into [1, 2): exact.
        let kk = bind(f, "k", Expr::lit(T::BIAS) - ex);
        let (ny, nx) = T::atan2_scale(f, sy.get(), sx.get(), kk);
        let (qx, qy) = div_dd(f, (ny, T::c(0.0)), (nx, T::c(0.0)));
        let (tx, ty) = atan_dd(f, qx, qy);
        f.assign(zx, tx);
        f.assign(zy, ty);
        f.end();
        f.end();
        f.if_(xneg);
        let (px, py) = two_sum(f, T::c(k.pi.0), -zx.get());
        f.assign(v, px + (py + (T::c(k.pi.1) - zy.get())));
        f.else_();
        f.assign(v, zx.get() + zy.get());
        f.end();
        f.end();
        f.end();
        f.end();
        f.end();
        f.return_value(select(sign_bit(y), -v.get(), v.get()));
    })
}

/// `rk_<t>_asin_r(z)`: `R` of `asin x = x + x·z·R(z)`, `z = x² ≤ ¼` ([`super::trig::Consts::asin_r`]).
fn asin_r<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("asin_r"), |f| {
        let z = f.param::<T>("z").get();
        f.return_value(horner(&z, &T::consts().asin_r));
    })
}

/// The half-angle argument for `a ∈ (½, 1]`, written into `f`'s body: `t = (1 - a)/2` (exact),
/// `s = √t` and its correction `(t - s²)/(2s)` from the exact residual, as `(s, correction, t)`
/// (all 0 for `a = 1`).
fn sqrt_half<T: LibFloat>(f: &mut FunctionBuilder<'_>, a: Expr<T>) -> (Expr<T>, Expr<T>, Expr<T>) {
    let t = o(f, T::c(0.5) * (T::c(1.0) - a));
    let t = bind(f, "sh_t", t);
    let hx = f.let_("sh_s", T::c(0.0));
    let hy = f.let_("sh_c", T::c(0.0));
    let hz = f.let_("sh_z", T::c(0.0));
    f.if_(not(t.clone().eq_(T::c(0.0))));
    let s = o(f, t.clone().sqrt());
    let s = bind(f, "sh_r", s);
    let (px, py) = two_prod(f, s.clone(), s.clone());
    let r = o(f, t.clone() - px);
    f.assign(hx, s.clone());
    f.assign(hy, (r - py) / (T::c(2.0) * s));
    f.assign(hz, t);
    f.end();
    (hx.get(), hy.get(), hz.get())
}

/// `rk_<t>_asin(x)`: a polynomial on `|x| ≤ ½`, `π/2 - 2·asin(√((1 - |x|)/2))` beyond; NaN
/// outside `[-1, 1]`.
pub(super) fn asin<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("asin"), |f| {
        let k = T::consts();
        let r = asin_r::<T>(f);
        let x = f.param::<T>("x").get();
        let a = bind(f, "a", x.clone().abs());
        f.if_(not(a.clone().le(T::c(1.0))));
        f.return_value(T::c(f64::NAN));
        f.end();
        // Below the threshold asin x = x to within half an ulp, and keeps -0.
        f.if_(a.clone().lt(T::c(k.asin_tiny)));
        f.return_value(x.clone());
        f.end();
        f.if_(a.clone().le(T::c(0.5)));
        let z = bind(f, "z", x.clone() * x.clone());
        f.return_value(x.clone() + x.clone() * z.clone() * call1(r, z));
        f.end();
        // asin a = pi/2 - 2 asin(s), s = sqrt((1 - a)/2)
        let (sx, sy, sz) = sqrt_half(f, a);
        let w = bind(f, "w", sx.clone() * sz.clone() * call1(r, sz));
        let (dx, dy) = two_sum(f, T::c(k.pio2.0), T::c(-2.0) * sx);
        let v = bind(f, "v", dx + (dy + (T::c(k.pio2.1) - T::c(2.0) * (sy + w))));
        f.return_value(select(x.lt(T::c(0.0)), -v.clone(), v));
    })
}

/// `rk_<t>_acos(x)`: `π/2 - asin x` on `|x| ≤ ½`, `2·asin(√((1 - |x|)/2))` (or π minus it)
/// beyond; NaN outside `[-1, 1]`.
pub(super) fn acos<T: TrigFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("acos"), |f| {
        let k = T::consts();
        let r = asin_r::<T>(f);
        let x = f.param::<T>("x").get();
        let a = bind(f, "a", x.clone().abs());
        f.if_(not(a.clone().le(T::c(1.0))));
        f.return_value(T::c(f64::NAN));
        f.end();
        f.if_(a.clone().le(T::c(0.5)));
        // pi/2 - asin x
        let z = bind(f, "z", x.clone() * x.clone());
        let (dx, dy) = two_sum(f, T::c(k.pio2.0), -x.clone());
        f.return_value(dx + (dy + (T::c(k.pio2.1) - x.clone() * z.clone() * call1(r, z))));
        f.end();
        // acos x = 2 asin(s) for x > 0 and pi - 2 asin(s) for x < 0, s = sqrt((1 - |x|)/2)
        let (sx, sy, sz) = sqrt_half(f, a);
        let w = bind(f, "w", sx.clone() * sz.clone() * call1(r, sz));
        let tail = bind(f, "sw", sy + w);
        f.if_(x.gt(T::c(0.0)));
        f.return_value(T::c(2.0) * sx.clone() + T::c(2.0) * tail.clone());
        f.end();
        let (dx, dy) = two_sum(f, T::c(k.pi.0), T::c(-2.0) * sx);
        f.return_value(dx + (dy + (T::c(k.pi.1) - T::c(2.0) * tail)));
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::eval_lib;
    use rokkos_core::ir::MathFn;

    /// atan2's special cases, bit for bit against Rust (the evaluator runs the library).
    #[test]
    fn atan2_special_cases() {
        let vals = [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            5e-324,
            -5e-324,
            f64::MAX,
            1e-310,
        ];
        let (mut ys, mut xs) = (Vec::new(), Vec::new());
        for &y in &vals {
            for &x in &vals {
                ys.push(y);
                xs.push(x);
            }
        }
        let got = eval_lib::<f64>(MathFn::Atan2, &[ys.clone(), xs.clone()]);
        for i in 0..ys.len() {
            let want = ys[i].atan2(xs[i]);
            if want.is_nan() {
                assert!(got[i].is_nan(), "atan2({:e}, {:e})", ys[i], xs[i]);
            } else if want == 0.0 || want.is_infinite() || ys[i] == 0.0 || !ys[i].is_finite() {
                assert_eq!(
                    got[i].to_bits(),
                    want.to_bits(),
                    "atan2({:e}, {:e})",
                    ys[i],
                    xs[i]
                );
            } else {
                let d = (got[i].to_bits() as i64 - want.to_bits() as i64).abs();
                assert!(
                    d <= 1,
                    "atan2({:e}, {:e}) = {:e}, want {:e}",
                    ys[i],
                    xs[i],
                    got[i],
                    want
                );
            }
        }
    }
}
