//! Exact floating-point building blocks in WGSL, for `f32` and `f64` alike: the opaque identity,
//! error-free sums and products (`two_sum`, `two_prod`), a sum rounded to odd, an exact `ldexp`, and
//! the correctly rounded fused multiply-add built from them. The f32 and f64 math libraries
//! ([`super::f32`], [`super::f64`]) and `mul_add` use them; every helper is generated
//! from one template per type, named `rk_<type>_<name>`.
//!
//! GPU compilers treat WGSL float arithmetic as relaxed: they may reassociate, cancel `(a + b) - a`,
//! and fuse or split multiply-adds (Mesa's lavapipe lowers f64 `fma` to a multiply and an add). So
//! every operand and partial result that an error-free transformation combines again goes through
//! `rk_<t>_opq`, an integer operation on the bits that the optimiser cannot see through, and the
//! halves of a product are made by integer rounding of the bits (not Veltkamp's `c - (c - a)`,
//! which a compiler can fold). Nothing here relies on `fma` being fused, or unfused.

use super::MathHelpers;
use rokkos_core::ir::ScalarType;

/// The spelling of one float type in the templates.
struct Ty {
    /// `f32` / `f64`.
    t: &'static str,
    /// Its bits: `u32` / `u64`.
    u: &'static str,
    /// Float literal suffix.
    lf: &'static str,
    /// Unsigned literal suffix.
    lu: &'static str,
    /// Stored significand bits (23 / 52).
    mant: u32,
    /// Exponent bias (127 / 1023).
    bias: i32,
}

fn ty(t: ScalarType) -> Ty {
    if t == ScalarType::F32 {
        Ty {
            t: "f32",
            u: "u32",
            lf: "f",
            lu: "u",
            mant: 23,
            bias: 127,
        }
    } else {
        Ty {
            t: "f64",
            u: "u64",
            lf: "lf",
            lu: "lu",
            mant: 52,
            bias: 1023,
        }
    }
}

/// `src` with `T`, `U`, `LF`, `LU`, `MANT`, `BIAS` (as `$T`, ...) replaced for `t`.
fn expand(t: &Ty, src: &str) -> String {
    src.replace("$T", t.t)
        .replace("$U", t.u)
        .replace("$LF", t.lf)
        .replace("$LU", t.lu)
        .replace("$MANT", &t.mant.to_string())
        .replace("$BIAS", &t.bias.to_string())
        .replace("$SIGN", if t.t == "f32" { "31" } else { "63" })
}

fn def(h: &mut impl MathHelpers, t: ScalarType, name: &str, src: &str) -> String {
    let tt = ty(t);
    let full = format!("rk_{}_{name}", tt.t);
    h.add_wgsl(&full, || expand(&tt, src))
}

/// The opaque identity `rk_<t>_opq`. The bit pattern it compares with is a NaN that nothing here
/// produces; if it came in, a NaN would still come out.
pub fn opq(h: &mut impl MathHelpers, t: ScalarType) -> String {
    let magic = if t == ScalarType::F32 {
        "0x7fc0beefu"
    } else {
        "0x7ff8dead0000beeflu"
    };
    def(
        h,
        t,
        "opq",
        &format!(
            "fn rk_$T_opq(x: $T) -> $T {{
    let b = bitcast<$U>(x);
    return bitcast<$T>(b ^ $U(b == {magic}));
}}
"
        ),
    )
}

/// `two_sum(a, b) = (s, e)`: `s = fl(a + b)` and `s + e = a + b` exactly (Knuth), and
/// `fast_two_sum` for `|a| ≥ |b|` (Dekker). Every operand and every partial result that is
/// combined again goes through the opaque identity: the compiler would otherwise cancel
/// `(s - a) - b` or reorder a sum around a constant inside an operand.
pub fn two_sum(h: &mut impl MathHelpers, t: ScalarType) -> String {
    opq(h, t);
    def(
        h,
        t,
        "two_sum",
        "fn rk_$T_two_sum(a0: $T, b0: $T) -> vec2<$T> {
    let a = rk_$T_opq(a0);
    let b = rk_$T_opq(b0);
    let s = a + b;
    let bv = rk_$T_opq(rk_$T_opq(s) - a);
    let av = rk_$T_opq(s - bv);
    return vec2<$T>(s, rk_$T_opq(a - av) + rk_$T_opq(b - bv));
}
fn rk_$T_fast_two_sum(a0: $T, b0: $T) -> vec2<$T> {
    let a = rk_$T_opq(a0);
    let b = rk_$T_opq(b0);
    let s = a + b;
    return vec2<$T>(s, b - rk_$T_opq(rk_$T_opq(s) - a));
}
",
    )
}

/// `two_prod(a, b) = (p, e)`: `p = fl(a·b)` and `p + e = a·b` exactly while `a·b` and its error
/// stay in the normal range (Dekker's product). The halves are the significand rounded to half
/// its width (12 of 24 bits, 26 of 53) by integer arithmetic on the bits, and the remainder, which
/// then fits the other half with its sign, so that every partial product is exact.
pub fn two_prod(h: &mut impl MathHelpers, t: ScalarType) -> String {
    opq(h, t);
    let (round, mask) = if t == ScalarType::F32 {
        ("0x800u", "0xfffff000u")
    } else {
        ("0x4000000lu", "0xfffffffff8000000lu")
    };
    def(
        h,
        t,
        "two_prod",
        &format!(
            "fn rk_$T_split(a: $T) -> $T {{ return bitcast<$T>((bitcast<$U>(a) + {round}) & {mask}); }}
fn rk_$T_two_prod(a: $T, b: $T) -> vec2<$T> {{
    let p = a * b;
    let ah = rk_$T_split(a);
    let al = a - ah;
    let bh = rk_$T_split(b);
    let bl = b - bh;
    return vec2<$T>(p, ((ah * bh - rk_$T_opq(p)) + ah * bl + al * bh) + al * bl);
}}
"
        ),
    )
}

/// `rk_<t>_ldexp(y, k)`: `y·2ᵏ` rounded once, for any `k` (overflow to ±∞, underflow to a
/// subnormal or ±0 as the exact value says). `y` is rebuilt with its exponent moved; only a result
/// below the normal range is made by one multiplication, which is where it rounds.
pub fn ldexp(h: &mut impl MathHelpers, t: ScalarType) -> String {
    let src = "fn rk_$T_ldexp(y0: $T, k0: i32) -> $T {
    var y = y0;
    var k = k0;
    var b = bitcast<$U>(y);
    var e = i32((b >> $MANTu) & $U(2 * $BIAS + 1)) - $BIAS;
    // Zero, infinity and NaN keep their value; a subnormal is made normal first.
    if (y == 0.0$LF || e == $BIAS + 1) { return y; }
    if (e == -$BIAS) {
        y = y * bitcast<$T>($U($BIAS + $MANT + 1) << $MANTu);
        k = k - ($MANT + 1);
        b = bitcast<$U>(y);
        e = i32((b >> $MANTu) & $U(2 * $BIAS + 1)) - $BIAS;
    }
    let f = clamp(e + k, -2 * $BIAS - $MANT - 4, 2 * $BIAS + 2);
    let sig = b & (($U(1) << $MANTu) - $U(1));
    let sign = b & ($U(1) << $SIGNu);
    if (f > $BIAS) { return bitcast<$T>(sign | ($U(2 * $BIAS + 1) << $MANTu)); }
    if (f >= 1 - $BIAS) { return bitcast<$T>(sign | ($U(f + $BIAS) << $MANTu) | sig); }
    // Below the normal range: the significand at the smallest normal exponent, times a power
    // of two that is itself normal (the product is far below the smallest subnormal when not).
    let m = bitcast<$T>(sign | ($U(1) << $MANTu) | sig);
    let d = max(f - (1 - $BIAS), -($MANT + 3));
    return m * bitcast<$T>($U(d + $BIAS) << $MANTu);
}
";
    def(h, t, "ldexp", src)
}

/// `rk_<t>_ro_add(x, y)`: `x + y` rounded to odd (the nearest value with an odd significand when the
/// sum is inexact): the exact sum from `two_sum`, then one step toward the exact value when the
/// rounded sum is even and not exact.
pub fn ro_add(h: &mut impl MathHelpers, t: ScalarType) -> String {
    two_sum(h, t);
    def(
        h,
        t,
        "ro_add",
        "fn rk_$T_ro_add(x: $T, y: $T) -> $T {
    let s = rk_$T_two_sum(x, y);
    var b = bitcast<$U>(s.x);
    if (!(s.y == 0.0$LF) && (b & $U(1)) == $U(0)) {
        if ((s.y > 0.0$LF) == (s.x > 0.0$LF)) { b = b + $U(1); } else { b = b - $U(1); }
    }
    return bitcast<$T>(b);
}
",
    )
}

/// `rk_<t>_fma(a, b, c)`: `a·b + c` rounded once (Rust's `mul_add`), whatever the adapter's `fma`
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
pub fn fma(h: &mut impl MathHelpers, t: ScalarType) -> String {
    two_prod(h, t);
    ro_add(h, t);
    ldexp(h, t);
    let src = "fn rk_$T_exp_of(x: $T) -> i32 { return i32((bitcast<$U>(x) >> $MANTu) & $U(2 * $BIAS + 1)) - $BIAS; }
fn rk_$T_with_exp(x: $T, e: i32) -> $T {
    let b = bitcast<$U>(x);
    return bitcast<$T>((b & ~($U(2 * $BIAS + 1) << $MANTu)) | ($U(e + $BIAS) << $MANTu));
}
fn rk_$T_fma(a0: $T, b0: $T, c0: $T) -> $T {
    let lim = bitcast<$T>(($U(2 * $BIAS + 1) << $MANTu) - $U(1));
    // NaN or an infinity among a and b, or a zero product: IEEE's own sum is the fused result.
    if (!(abs(a0) <= lim) || !(abs(b0) <= lim) || a0 == 0.0$LF || b0 == 0.0$LF) { return a0 * b0 + c0; }
    // A finite product and an infinite (or NaN) c: c.
    if (!(abs(c0) <= lim)) { return c0; }
    // c = ±0 leaves the product rounded once, its sign the exact product's.
    if (c0 == 0.0$LF) { return a0 * b0; }
    // Subnormal operands are made normal first.
    let up = bitcast<$T>($U($BIAS + $MANT + 1) << $MANTu);
    var a = a0; var b = b0; var c = c0; var ea = 0; var eb = 0; var ec = 0;
    if (rk_$T_exp_of(a) == -$BIAS) { a = a * up; ea = -($MANT + 1); }
    if (rk_$T_exp_of(b) == -$BIAS) { b = b * up; eb = -($MANT + 1); }
    if (rk_$T_exp_of(c) == -$BIAS) { c = c * up; ec = -($MANT + 1); }
    ea = ea + rk_$T_exp_of(a);
    eb = eb + rk_$T_exp_of(b);
    ec = ec + rk_$T_exp_of(c);
    let e = ea + eb;
    let far = 2 * $MANT + 8;
    if (ec - e > far) { return c0; }
    let a1 = rk_$T_with_exp(a, 0);
    let b1 = rk_$T_with_exp(b, 0);
    // A c that cannot change the rounding stands in as a tiny number of its sign.
    var c1 = rk_$T_with_exp(select(1.0$LF, -1.0$LF, c < 0.0$LF), -far - 2);
    if (ec - e >= -far - 2) { c1 = rk_$T_with_exp(c, ec - e); }
    let u = rk_$T_two_prod(a1, b1);
    let th = rk_$T_two_sum(c1, u.x);
    let v = rk_$T_ro_add(th.y, u.y);
    let r = rk_$T_opq(th.x) + rk_$T_opq(v);
    // r is 0 only for an exact zero sum, which is +0 in round-to-nearest.
    if (r == 0.0$LF || rk_$T_exp_of(r) + e >= 1 - $BIAS) { return rk_$T_ldexp(r, e); }
    // One binade below the normal range the scaling drops one bit only, too few for rounding to
    // odd first: the sum is rounded to nearest here from its exact parts. With
    // S = th.x + th.y + u.y = h.x + h.y + w.y exactly, a p-bit h.x with an even significand is a
    // result; an odd one is the midpoint of two results, and the sign of the rest (|rest| below
    // one p-bit ulp) says which, a zero rest leaving the tie to ldexp's rounding to even.
    let w = rk_$T_two_sum(th.y, u.y);
    let hs = rk_$T_two_sum(th.x, w.x);
    if (rk_$T_exp_of(hs.x) + e == -$BIAS) {
        let rest = rk_$T_opq(hs.y) + rk_$T_opq(w.y);
        var hb = bitcast<$U>(hs.x);
        if ((hb & $U(1)) != $U(0) && rest != 0.0$LF) {
            if ((rest > 0.0$LF) == (hs.x > 0.0$LF)) { hb = hb + $U(1); } else { hb = hb - $U(1); }
        }
        return rk_$T_ldexp(bitcast<$T>(hb), e);
    }
    return rk_$T_ldexp(rk_$T_ro_add(th.x, v), e);
}
";
    def(h, t, "fma", src)
}

/// `rk_u32_mac(c, a, b, d)`: `c + a·b + d` for `u32` operands as its (low, high) words, in 32-bit
/// integers only, so that multi-word arithmetic (the Payne–Hanek reductions) runs on a target
/// without 64-bit integers (WGSL without SHADER_INT64). The product is made from the four products
/// of the 16-bit halves, each exact in 32 bits; the sum is at most `2⁶⁴ - 1`, so the high word
/// never overflows.
pub fn mac_u32(h: &mut impl MathHelpers) -> String {
    h.add_wgsl("rk_u32_mac", || {
        "fn rk_u32_mac(c: u32, a: u32, b: u32, d: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    // The middle column holds at most 3·(2^16 - 1).
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    let lo = (mid << 16u) | (ll & 0xffffu);
    let hi = ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
    let s = lo + c;
    let t = s + d;
    return vec2<u32>(t, hi + select(0u, 1u, s < c) + select(0u, 1u, t < d));
}
"
        .to_string()
    })
}
