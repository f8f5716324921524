//! `cbrt` and `hypot`, for `f32` and `f64` from one generic source (the two differ only in the
//! constants below).

use super::exact::{fast_two_sum, ldexp, o, two_prod};
use super::float::{bind, call2, name, pow2, LibFloat};
use rokkos_core::ir::build::{select, Expr, Func, FuncScope};

/// The type's constants of `cbrt` and `hypot`.
struct RootConsts {
    /// Subnormals are scaled by `2^SUB` first.
    sub: i32,
    /// `k = (e + 3·K) / 3 - K` is `floor(e / 3)` for every exponent `e` (the division of a
    /// positive number truncates as a floor).
    k: i32,
    /// The first guess of `∛m` is `bits(m) / 3 + MAGIC` (the bits of 1.0 map to themselves).
    magic: u64,
    /// `hypot` scales operands above `2^BIG` by `2^-DOWN`, below `2^-BIG` by `2^UP`, so that
    /// the squares and their errors stay normal.
    big: i32,
    down: i32,
    up: i32,
}

fn consts<T: LibFloat>() -> RootConsts {
    if T::MANT == 23 {
        RootConsts {
            sub: 24,
            k: 100,
            magic: 0x2a55_5556,
            big: 50,
            down: 80,
            up: 100,
        }
    } else {
        RootConsts {
            sub: 54,
            k: 1000,
            magic: 0x2aa0_0000_0000_0000,
            big: 300,
            down: 600,
            up: 600,
        }
    }
}

/// `rk_<t>_cbrt(x)`: `|x| = m·2^(3k)` with `m ∈ [1, 8)` (so nothing below can overflow or
/// underflow; subnormals are scaled first), a first guess for `∛m` from a third of its bits
/// (within 7%), two Halley steps (cubic convergence), and a Newton step on the exact residual
/// `m - y³`.
pub(crate) fn cbrt<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("cbrt"), |f| {
        let c = consts::<T>();
        let (mant, bias) = (T::MANT, T::BIAS);
        let x = f.param::<T>("x");
        let a = bind(f, "a", x.get().abs());
        // ±0, ±inf and NaN are their own cube roots.
        let max = Expr::<T>::from_bits(T::u(((2 * bias as u64) << mant) | ((1 << mant) - 1)));
        f.if_(a.clone().eq_(T::c(0.0)).or(!a.clone().le(max)));
        f.return_value(x.get());
        f.end();
        let v = f.let_("v", a.clone());
        let e = f.let_("e", Expr::lit(-bias));
        f.if_(v.get().lt(pow2::<T>(1 - bias)));
        f.assign(v, v.get() * pow2::<T>(c.sub));
        f.assign(e, e.get() - c.sub);
        f.end();
        let b = bind(f, "b", v.get().to_bits());
        f.assign(e, e.get() + (b.clone() >> mant).cast::<i32>());
        let k = bind(f, "k", (e.get() + 3 * c.k) / 3 - c.k);
        let m = bind(
            f,
            "m",
            Expr::<T>::from_bits(
                (b & T::u((1 << mant) - 1))
                    | ((e.get() - k.clone() * 3 + bias).cast::<T::Bits>() << mant),
            ),
        );
        let y = f.let_(
            "y",
            Expr::<T>::from_bits(m.clone().to_bits() / T::u(3) + T::u(c.magic)),
        );
        for _ in 0..2 {
            let cube = bind(f, "c", y.get() * y.get() * y.get());
            f.assign(
                y,
                y.get() * ((cube.clone() + T::c(2.0) * m.clone()) / (T::c(2.0) * cube + m.clone())),
            );
        }
        let (y2x, y2y) = two_prod(f, y.get(), y.get());
        let (y3x, y3y) = two_prod(f, y2x.clone(), y.get());
        let resid = o(f, m - y3x);
        f.assign(
            y,
            y.get() + (resid - (y3y + y2y * y.get())) / (T::c(3.0) * y2x),
        );
        let r = bind(f, "r", y.get() * pow2::<T>(k));
        f.return_value(select(x.get().lt(T::c(0.0)), -r.clone(), r));
    })
}

/// `rk_<t>_hypot(x, y)`: `√(x² + y²)` with the squares and their sum in double-length arithmetic
/// (exact products, then an exact sum), the square root corrected by its exact residual, the
/// operands scaled by a power of two first so that nothing overflows or underflows, and the
/// result scaled back rounding once. An infinite operand gives `+∞` even with a NaN (C99).
pub(crate) fn hypot<T: LibFloat>(s: &mut impl FuncScope) -> Func<T> {
    s.func::<T>(&name::<T>("hypot"), |f| {
        let c = consts::<T>();
        let ld = ldexp::<T>(f);
        let x = f.param::<T>("x");
        let y = f.param::<T>("y");
        let a = bind(f, "a", x.get().abs());
        let b = bind(f, "b", y.get().abs());
        let inf = Expr::<T>::from_bits(T::u((2 * T::BIAS as u64 + 1) << T::MANT));
        f.if_(a.clone().eq_(inf.clone()).or(b.clone().eq_(inf.clone())));
        f.return_value(inf.clone());
        f.end();
        let nan_bits = |v: Expr<T>| v.to_bits().gt(inf.clone().to_bits());
        f.if_(nan_bits(a.clone()).or(nan_bits(b.clone())));
        f.return_value(Expr::<T>::from_bits(
            inf.clone().to_bits() | T::u(1 << (T::MANT - 1)),
        ));
        f.end();
        let m = f.let_("m", a.clone().max(b.clone()));
        let sm = f.let_("s", a.min(b));
        f.if_(m.get().eq_(T::c(0.0)));
        f.return_value(T::c(0.0));
        f.end();
        let k = f.let_("k", 0i32);
        f.if_(m.get().gt(pow2::<T>(c.big)));
        f.assign(m, m.get() * pow2::<T>(-c.down));
        f.assign(sm, sm.get() * pow2::<T>(-c.down));
        f.assign(k, Expr::lit(c.down));
        f.else_();
        f.if_(m.get().lt(pow2::<T>(-c.big)));
        f.assign(m, m.get() * pow2::<T>(c.up));
        f.assign(sm, sm.get() * pow2::<T>(c.up));
        f.assign(k, Expr::lit(-c.up));
        f.end();
        f.end();
        let (m2x, m2y) = two_prod(f, m.get(), m.get());
        let (s2x, s2y) = two_prod(f, sm.get(), sm.get());
        let (tx, ty) = fast_two_sum(f, m2x, s2x);
        let (ux, uy) = fast_two_sum(f, tx, ty + (m2y + s2y));
        let r = o(f, ux.clone().sqrt());
        let r = bind(f, "r", r);
        let (rrx, rry) = two_prod(f, r.clone(), r.clone());
        let resid = o(f, ux - rrx);
        let root = r.clone() + ((resid - rry) + uy) / (T::c(2.0) * r);
        f.return_value(call2(ld, root, k.get()));
    })
}
