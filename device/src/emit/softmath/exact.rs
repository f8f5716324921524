//! Exact floating-point building blocks, for `f32` and `f64` from one generic source: the opaque
//! identity, error-free sums and products (`two_sum`, `two_prod`), a sum rounded to odd, an
//! exact `ldexp`, and the correctly rounded fused multiply-add built from them.
//!
//! GPU compilers treat float arithmetic as relaxed: they may reassociate, cancel `(a + b) - a`,
//! and fuse or split multiply-adds (Mesa's lavapipe lowers f64 `fma` to a multiply and an add). So
//! every operand and partial result that an error-free transformation combines again goes through
//! [`opq`], an integer operation on the bits that the optimiser cannot see through, and the halves
//! of a product are made by integer rounding of the bits (not Veltkamp's `c - (c - a)`, which a
//! compiler can fold). Nothing here relies on `fma` being fused, or unfused.
//!
//! The pair-valued blocks (`two_sum`, `fast_two_sum`, `two_prod`) are written into the calling
//! function's body (the IR's functions return one value); the others are library functions.

use super::float::{bind, call1, call2, exp_field, name, not, sign_shift, LibFloat};
use rokkos_core::ir::build::{select, Expr, Func, FuncScope, FunctionBuilder};

/// The opaque identity `rk_<t>_opq`: `x` itself, through its bits. The pattern it compares with
/// is a NaN that nothing here produces; if it came in, a NaN would still come out.
pub(crate) fn opq<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("opq"), |f| {
        let x = f.param::<T>("x");
        let b = bind(f, "b", x.get().to_bits());
        let hit = b.clone().eq_(T::u(T::MAGIC_NAN)).cast::<T::Bits>();
        f.return_value(Expr::<T>::from_bits(b ^ hit));
    })
}

/// `opq(x)`, the function defined in `f`'s scope.
pub(crate) fn o<T: LibFloat>(f: &mut FunctionBuilder<'_>, x: impl Into<Expr<T>>) -> Expr<T> {
    let op = opq::<T>(f);
    call1(op, x.into())
}

/// `two_sum(a, b) = (s, e)`: `s = fl(a + b)` and `s + e = a + b` exactly (Knuth). Every operand
/// and every partial result that is combined again goes through the opaque identity: the
/// compiler would otherwise cancel `(s - a) - b` or reorder a sum around a constant inside an
/// operand.
pub(crate) fn two_sum<T: LibFloat>(
    f: &mut FunctionBuilder<'_>,
    a: Expr<T>,
    b: Expr<T>,
) -> (Expr<T>, Expr<T>) {
    let a = o(f, a);
    let a = bind(f, "ts_a", a);
    let b = o(f, b);
    let b = bind(f, "ts_b", b);
    let s = bind(f, "ts_s", a.clone() + b.clone());
    let sa = o(f, s.clone());
    let bv = o(f, sa - a.clone());
    let bv = bind(f, "ts_bv", bv);
    let av = o(f, s.clone() - bv.clone());
    let av = bind(f, "ts_av", av);
    let ea = o(f, a - av);
    let eb = o(f, b - bv);
    let e = bind(f, "ts_e", ea + eb);
    (s, e)
}

/// `fast_two_sum(a, b) = (s, e)` for `|a| ≥ |b|` (Dekker).
pub(crate) fn fast_two_sum<T: LibFloat>(
    f: &mut FunctionBuilder<'_>,
    a: Expr<T>,
    b: Expr<T>,
) -> (Expr<T>, Expr<T>) {
    let a = o(f, a);
    let a = bind(f, "fs_a", a);
    let b = o(f, b);
    let b = bind(f, "fs_b", b);
    let s = bind(f, "fs_s", a.clone() + b.clone());
    let sa = o(f, s.clone());
    let d = o(f, sa - a);
    let e = bind(f, "fs_e", b - d);
    (s, e)
}

/// `rk_<t>_split(a)`: the significand of `a` rounded to half its width (12 of 24 bits, 26 of 53)
/// by integer arithmetic on the bits.
fn split<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    let (round, mask) = if T::MANT == 23 {
        (0x800, 0xffff_f000)
    } else {
        (0x400_0000, 0xffff_ffff_f800_0000)
    };
    s.func::<T>(&name::<T>("split"), |f| {
        let a = f.param::<T>("a");
        f.return_value(Expr::<T>::from_bits(
            (a.get().to_bits() + T::u(round)) & T::u(mask),
        ));
    })
}

/// `two_prod(a, b) = (p, e)`: `p = fl(a·b)` and `p + e = a·b` exactly while `a·b` and its error
/// stay in the normal range (Dekker's product). The halves are the significand rounded to half
/// its width and the remainder, which then fits the other half with its sign, so that every
/// partial product is exact.
pub(crate) fn two_prod<T: LibFloat>(
    f: &mut FunctionBuilder<'_>,
    a: Expr<T>,
    b: Expr<T>,
) -> (Expr<T>, Expr<T>) {
    let sp = split::<T>(f);
    let a = bind(f, "tp_a", a);
    let b = bind(f, "tp_b", b);
    let p = bind(f, "tp_p", a.clone() * b.clone());
    let ah = bind(f, "tp_ah", call1(sp, a.clone()));
    let al = bind(f, "tp_al", a - ah.clone());
    let bh = bind(f, "tp_bh", call1(sp, b.clone()));
    let bl = bind(f, "tp_bl", b - bh.clone());
    let po = o(f, p.clone());
    let e = bind(
        f,
        "tp_e",
        ((ah.clone() * bh.clone() - po) + ah * bl.clone() + al.clone() * bh) + al * bl,
    );
    (p, e)
}

/// `rk_<t>_ldexp(y, k)`: `y·2ᵏ` rounded once, for any `k` (overflow to ±∞, underflow to a
/// subnormal or ±0 as the exact value says). `y` is rebuilt with its exponent moved; only a result
/// below the normal range is made by one multiplication, which is where it rounds.
pub(crate) fn ldexp<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("ldexp"), |f| {
        let (m, bias) = (T::MANT, T::BIAS);
        let y0 = f.param::<T>("y0");
        let k0 = f.param::<i32>("k0");
        let y = f.let_("y", y0.get());
        let k = f.let_("k", k0.get());
        let b = f.let_("b", y.get().to_bits());
        let e = f.let_("e", exp_field::<T>(y.get()));
        // Zero, infinity and NaN keep their value; a subnormal is made normal first.
        f.if_(y.get().eq_(T::c(0.0)).or(e.get().eq_(bias + 1)));
        f.return_value(y.get());
        f.end();
        f.if_(e.get().eq_(-bias));
        f.assign(y, y.get() * super::float::pow2::<T>(m + 1));
        f.assign(k, k.get() - (m + 1));
        f.assign(b, y.get().to_bits());
        f.assign(e, exp_field::<T>(y.get()));
        f.end();
        let fe = bind(
            f,
            "f",
            (e.get() + k.get()).clamp(-2 * bias - m - 4, 2 * bias + 2),
        );
        let sig = bind(f, "sig", b.get() & T::u((1u64 << m) - 1));
        let sign = bind(f, "sign", b.get() & T::u(1u64 << sign_shift::<T>()));
        f.if_(fe.clone().gt(bias));
        f.return_value(Expr::<T>::from_bits(
            sign.clone() | (T::u(2 * bias as u64 + 1) << m),
        ));
        f.end();
        f.if_(fe.clone().ge(1 - bias));
        f.return_value(Expr::<T>::from_bits(
            sign.clone() | ((fe.clone() + bias).cast::<T::Bits>() << m) | sig.clone(),
        ));
        f.end();
        // Below the normal range: the significand at the smallest normal exponent, times a power
        // of two that is itself normal (the product is far below the smallest subnormal when not).
        let mm = bind(f, "m", Expr::<T>::from_bits(sign | (T::u(1) << m) | sig));
        let d = bind(f, "d", (fe - (1 - bias)).max(-(m + 3)));
        f.return_value(mm * super::float::pow2::<T>(d));
    })
}

/// `rk_<t>_ro_add(x, y)`: `x + y` rounded to odd (the nearest value with an odd significand when
/// the sum is inexact): the exact sum from [`two_sum`], then one step toward the exact value when
/// the rounded sum is even and not exact.
pub(crate) fn ro_add<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("ro_add"), |f| {
        let x = f.param::<T>("x");
        let y = f.param::<T>("y");
        let (sx, sy) = two_sum(f, x.get(), y.get());
        let b = f.let_("b", sx.clone().to_bits());
        f.if_(not(sy.clone().eq_(T::c(0.0))).and((b.get() & T::u(1)).eq_(T::u(0))));
        f.if_(sy.gt(T::c(0.0)).eq_(sx.gt(T::c(0.0))));
        f.assign(b, b.get() + T::u(1));
        f.else_();
        f.assign(b, b.get() - T::u(1));
        f.end();
        f.end();
        f.return_value(Expr::<T>::from_bits(b.get()));
    })
}

/// `rk_<t>_with_exp(x, e)`: `x` with its exponent field set to `e` (a normal exponent).
fn with_exp<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("with_exp"), |f| {
        let x = f.param::<T>("x");
        let e = f.param::<i32>("e");
        let field = T::u(2 * T::BIAS as u64 + 1) << T::MANT;
        f.return_value(Expr::<T>::from_bits(
            (x.get().to_bits() & !field) | ((e.get() + T::BIAS).cast::<T::Bits>() << T::MANT),
        ));
    })
}

/// `rk_<t>_fma(a, b, c)`: `a·b + c` rounded once (Rust's `mul_add`), whatever the device's `fma`
/// does. Boldo and Melquiond's emulation ("Emulation of FMA and correctly rounded sums: proved
/// algorithms using rounding to odd", IEEE TC 2008): `(uh, ul) = a·b` exactly, `(th, tl) = c + uh`
/// exactly, `v = tl + ul` rounded to odd, result `th + v` rounded to nearest. It needs every step in
/// the normal range, so `a` and `b` are first scaled to `[1, 2)` by their exponents `ea`, `eb` and
/// `c` by `2^-(ea+eb)`, and the result scaled back with [`ldexp`]. Where the result is subnormal the
/// final sum is also rounded to odd and the one rounding happens in the scaling (rounding to odd
/// with two extra bits, then to nearest, is rounding to nearest). A `c` that cannot affect the
/// rounding (more than `2·MANT + 8` binades below `a·b`) only contributes its sign, as a tiny
/// stand-in; one whose binade is that far above `a·b` is the result. Zeros, infinities and NaN take
/// IEEE's rules directly.
pub(crate) fn fma<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("fma"), |f| {
        let (m, bias) = (T::MANT, T::BIAS);
        let ro = ro_add::<T>(f);
        let ld = ldexp::<T>(f);
        let we = with_exp::<T>(f);
        let a0 = f.param::<T>("a0");
        let b0 = f.param::<T>("b0");
        let c0 = f.param::<T>("c0");
        let lim = Expr::<T>::from_bits((T::u(2 * bias as u64 + 1) << m) - T::u(1));
        let finite = |x: Expr<T>| x.abs().le(lim.clone());
        // NaN or an infinity among a and b, or a zero product: IEEE's own sum is the fused result.
        f.if_(
            not(finite(a0.get()))
                .or(not(finite(b0.get())))
                .or(a0.get().eq_(T::c(0.0)))
                .or(b0.get().eq_(T::c(0.0))),
        );
        f.return_value(a0.get() * b0.get() + c0.get());
        f.end();
        // A finite product and an infinite (or NaN) c: c.
        f.if_(not(finite(c0.get())));
        f.return_value(c0.get());
        f.end();
        // c = ±0 leaves the product rounded once, its sign the exact product's.
        f.if_(c0.get().eq_(T::c(0.0)));
        f.return_value(a0.get() * b0.get());
        f.end();
        // Subnormal operands are made normal first.
        let up = super::float::pow2::<T>(m + 1);
        let a = f.let_("a", a0.get());
        let b = f.let_("b", b0.get());
        let c = f.let_("c", c0.get());
        let ea = f.let_("ea", 0i32);
        let eb = f.let_("eb", 0i32);
        let ec = f.let_("ec", 0i32);
        for (v, ev) in [(a, ea), (b, eb), (c, ec)] {
            f.if_(exp_field::<T>(v.get()).eq_(-bias));
            f.assign(v, v.get() * up.clone());
            f.assign(ev, Expr::lit(-(m + 1)));
            f.end();
            f.assign(ev, ev.get() + exp_field::<T>(v.get()));
        }
        let e = bind(f, "e", ea.get() + eb.get());
        let far = 2 * m + 8;
        f.if_((ec.get() - e.clone()).gt(far));
        f.return_value(c0.get());
        f.end();
        let a1 = bind(f, "a1", call2(we, a.get(), 0i32));
        let b1 = bind(f, "b1", call2(we, b.get(), 0i32));
        // A c that cannot change the rounding stands in as a tiny number of its sign.
        let c1 = f.let_(
            "c1",
            call2(
                we,
                select(c.get().lt(T::c(0.0)), T::c(-1.0), T::c(1.0)),
                Expr::lit(-far - 2),
            ),
        );
        f.if_((ec.get() - e.clone()).ge(-far - 2));
        f.assign(c1, call2(we, c.get(), ec.get() - e.clone()));
        f.end();
        let (ux, uy) = two_prod(f, a1, b1);
        let (thx, thy) = two_sum(f, c1.get(), ux);
        let v = bind(f, "v", call2(ro, thy.clone(), uy.clone()));
        let r = o(f, thx.clone()) + o(f, v.clone());
        let r = bind(f, "r", r);
        // r is 0 only for an exact zero sum, which is +0 in round-to-nearest.
        f.if_(
            r.clone()
                .eq_(T::c(0.0))
                .or((exp_field::<T>(r.clone()) + e.clone()).ge(1 - bias)),
        );
        f.return_value(call2(ld, r, e.clone()));
        f.end();
        // One binade below the normal range the scaling drops one bit only, too few for rounding
        // to odd first: the sum is rounded to nearest here from its exact parts. With
        // S = th.x + th.y + u.y = h.x + h.y + w.y exactly, a p-bit h.x with an even significand is
        // a result; an odd one is the midpoint of two results, and the sign of the rest (|rest|
        // below one p-bit ulp) says which, a zero rest leaving the tie to ldexp's rounding to even.
        let (wx, wy) = two_sum(f, thy, uy);
        let (hx, hy) = two_sum(f, thx.clone(), wx);
        f.if_((exp_field::<T>(hx.clone()) + e.clone()).eq_(-bias));
        let rest = o(f, hy) + o(f, wy);
        let rest = bind(f, "rest", rest);
        let hb = f.let_("hb", hx.clone().to_bits());
        f.if_(
            (hb.get() & T::u(1))
                .ne_(T::u(0))
                .and(rest.clone().ne_(T::c(0.0))),
        );
        f.if_(rest.gt(T::c(0.0)).eq_(hx.gt(T::c(0.0))));
        f.assign(hb, hb.get() + T::u(1));
        f.else_();
        f.assign(hb, hb.get() - T::u(1));
        f.end();
        f.end();
        f.return_value(call2(ld, Expr::<T>::from_bits(hb.get()), e.clone()));
        f.end();
        f.return_value(call2(ld, call2(ro, thx, v), e));
    })
}
