//! Exact floating-point building blocks in WGSL, for `f32` and `f64` alike: the opaque identity,
//! error-free sums and products (`two_sum`, `two_prod`) and an exact `ldexp`. The f32 and f64 math
//! libraries ([`super::f32`], [`super::f64`]) use them; every helper is generated from one
//! template per type, named `rk_<type>_<name>`. (The correctly rounded `mul_add` is the IR
//! library's, `crate::emit::softmath`.)
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
