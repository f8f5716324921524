//! The WGSL templates that the f32 and f64 libraries share: the functions whose algorithm is the
//! same in both types, written once in [`super::typed`]'s spelling (`@T`, `@F`, ...) with each
//! library's named constants and parameters as `$NAME` (thresholds such as `$HYP_SMALL`, the
//! scaling helper `$SCALE`: `ldexp` in f32, `scale` in f64). What differs in substance (the
//! reductions, the sine kernel, the logarithm's and cube root's bit manipulation, `atan2`'s and
//! `hypot`'s scalings) stays in the libraries.

/// `(n.x + n.y) / (d.x + d.y)`: the quotient, corrected by the exact residual.
pub(super) const DIV_DD: &str = "fn rk_@T_div_dd(n: vec2<@T>, d: vec2<@T>) -> vec2<@T> {
    let nx = rk_@T_opq(n.x);
    let q = rk_@T_opq(nx / d.x);
    let p = rk_@T_two_prod(q, d.x);
    return vec2<@T>(q, (rk_@T_opq(nx - p.x) - p.y + (n.y - q * d.y)) / d.x);
}
";

/// `exp(x)·2ˢ` inside the range where it is finite and not zero.
pub(super) const EXP_SCALED: &str = "fn rk_@T_exp_scaled(x: @T, s: i32) -> @T {
    let n = floor(x * $LOG2_E + 0.5@F);
    let hi = x - n * $LN2_HI;
    let lo = -(n * $LN2_MID + n * $LN2_LO);
    let e = rk_@T_em1(hi, lo);
    let y = rk_@T_fast_two_sum(1.0@F, e.x);
    return rk_@T_$SCALE(y.x + (y.y + e.y), i32(n) + s);
}
";

/// `exp`: NaN passes, overflow to ∞, underflow to 0.
pub(super) const EXP: &str = "fn rk_@T_exp(x: @T) -> @T {
    if (@ISNAN(x)) { return x; }
    if (x > $EXP_OVER) { return $INF; }
    if (x < $EXP_UNDER) { return 0.0@F; }
    return rk_@T_exp_scaled(x, 0i);
}
";

/// `exp2`: `2ⁿ·2ʳ` with `|r| ≤ ½` and `2ʳ = exp(r·ln 2)`.
pub(super) const EXP2: &str = "fn rk_@T_exp2(x: @T) -> @T {
    if (@ISNAN(x)) { return x; }
    if (x > $EXP2_OVER) { return $INF; }
    if (x < $EXP2_UNDER) { return 0.0@F; }
    let n = floor(x + 0.5@F);
    let r = x - n;
    let p = rk_@T_two_prod(r, $LN2);
    let e = rk_@T_em1(p.x, p.y + r * $LN2_LO);
    let y = rk_@T_fast_two_sum(1.0@F, e.x);
    return rk_@T_$SCALE(y.x + (y.y + e.y), i32(n));
}
";

/// `exp(x) - 1` as a pair: `2ⁿ·e + (2ⁿ - 1)` with `e = exp(r) - 1`.
pub(super) const EXPM1_DD: &str = "fn rk_@T_expm1_dd(x: @T) -> vec2<@T> {
    let n = floor(x * $LOG2_E + 0.5@F);
    let hi = x - n * $LN2_HI;
    let lo = -(n * $LN2_MID + n * $LN2_LO);
    let e = rk_@T_em1(hi, lo);
    let p = rk_@T_pow2(i32(n));
    let a = rk_@T_two_sum(p - 1.0@F, p * e.x);
    return rk_@T_fast_two_sum(a.x, a.y + p * e.y);
}
";

/// `sinh` from `expm1` below `HYP_SMALL`, from `exp(a)/2` above.
pub(super) const SINH: &str = "fn rk_@T_sinh(x: @T) -> @T {
    let a = abs(x);
    // Below the threshold sinh x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= $SINH_TINY)) { return x; }
    var r = $INF;
    if (a < $HYP_SMALL) {
        // sinh a = (t + t / (1 + t)) / 2 with t = expm1(a), in @DD.
        let t = rk_@T_expm1_dd(a);
        let e = rk_@T_two_sum(1.0@F, t.x);
        let q = rk_@T_div_dd(t, vec2<@T>(e.x, e.y + t.y));
        let s = rk_@T_two_sum(t.x, q.x);
        r = 0.5@F * (s.x + (s.y + (t.y + q.y)));
    } else if (a <= $HYP_BIG) {
        r = rk_@T_exp_scaled(a, -1i);
    }
    return select(r, -r, x < 0.0@F);
}
";

/// `cosh` from `expm1` below `HYP_SMALL`, from `exp(a)/2` above.
pub(super) const COSH: &str = "fn rk_@T_cosh(x: @T) -> @T {
    let a = abs(x);
    if (@ISNAN(a)) { return x; }
    if (a < $HYP_SMALL) {
        // cosh a = (E + 1/E) / 2 with E = 1 + expm1(a), in @DD.
        let t = rk_@T_expm1_dd(a);
        let e = rk_@T_two_sum(1.0@F, t.x);
        let d = vec2<@T>(e.x, e.y + t.y);
        let r = rk_@T_div_dd(vec2<@T>(1.0@F, 0.0@F), d);
        let s = rk_@T_two_sum(d.x, r.x);
        return 0.5@F * (s.x + (s.y + (d.y + r.y)));
    }
    if (a <= $HYP_BIG) { return rk_@T_exp_scaled(a, -1i); }
    return $INF;
}
";

/// `tanh` from `expm1(2a)` below `TANH_SMALL`, ±1 above.
pub(super) const TANH: &str = "fn rk_@T_tanh(x: @T) -> @T {
    let a = abs(x);
    // Below the threshold tanh x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= $TANH_TINY)) { return x; }
    var r = 1.0@F;
    if (a < $TANH_SMALL) {
        // tanh a = t / (t + 2) with t = expm1(2a), in @DD.
        let t = rk_@T_expm1_dd(2.0@F * a);
        let d = rk_@T_two_sum(t.x, 2.0@F);
        let q = rk_@T_div_dd(t, vec2<@T>(d.x, d.y + t.y));
        r = q.x + q.y;
    }
    return select(r, -r, x < 0.0@F);
}
";

/// `ln x` as a pair for finite `x > 0`.
pub(super) const LOG_DD: &str = "fn rk_@T_log_dd(x: @T) -> vec2<@T> {
    let p = rk_@T_log_parts(x);
    let e = p.x;
    let a = rk_@T_two_sum(e * $LN2_HI, p.y);
    return rk_@T_fast_two_sum(a.x, a.y + (e * $LN2_MID + (p.z + e * $LN2_LO)));
}
";

/// `powf` with C99's special cases, `exp(y·ln|x|)` in general.
pub(super) const POWF: &str = "fn rk_@T_pow_core(x: @T, y: @T) -> @T {
    let l = rk_@T_log_dd(x);
    let p = rk_@T_two_prod(y, l.x);
    if (p.x > $EXP_OVER) { return $INF; }
    if (p.x < $EXP_UNDER) { return 0.0@F; }
    let n = floor(p.x * $LOG2_E + 0.5@F);
    let hi = p.x - n * $LN2_HI;
    let lo = (p.y + y * l.y) - (n * $LN2_MID + n * $LN2_LO);
    let e = rk_@T_em1(hi, lo);
    let w = rk_@T_fast_two_sum(1.0@F, e.x);
    return rk_@T_$SCALE(w.x + (w.y + e.y), i32(n));
}
fn rk_@T_powf(x: @T, y: @T) -> @T {
    if (y == 0.0@F || x == 1.0@F) { return 1.0@F; }
    if (@ISNAN(x) || @ISNAN(y)) { return $NAN; }
    let ax = abs(x);
    let ay = abs(y);
    if (ay == $INF) {
        if (ax == 1.0@F) { return 1.0@F; }
        return select(0.0@F, $INF, (ax > 1.0@F) == (y > 0.0@F));
    }
    let xneg = @SIGNBIT(x);
    let yint = floor(y) == y;
    let odd = xneg && yint && ay < $POW_INT_LIMIT && !(floor(0.5@F * y) == 0.5@F * y);
    var r: @T;
    if (ax == 0.0@F) {
        r = select(0.0@F, $INF, y < 0.0@F);
    } else if (ax == $INF) {
        r = select($INF, 0.0@F, y < 0.0@F);
    } else {
        if (xneg && !yint) { return $NAN; }
        r = rk_@T_pow_core(ax, y);
    }
    return select(r, -r, odd);
}
";

/// The cosine kernel on `|h| ≤ π/4`: `1 - h²/2` exactly, the Taylor series in `$POLY`.
pub(super) const COS_K: &str = "fn rk_@T_cos_k(h: @T, l: @T) -> vec2<@T> {
    let z = rk_@T_two_prod(h, h);
    let w = rk_@T_fast_two_sum(1.0@F, -0.5@F * z.x);
    return vec2<@T>(w.x, w.y + (z.x * z.x * $POLY - (0.5@F * z.y + h * l)));
}
";

/// `atan(a + al)` for `a ≥ 0` by `atan(c) + atan((a - c)/(1 + a·c))`, `c ∈ {0, ½, 1, 2, ∞}`.
pub(super) const ATAN_DD: &str = "fn rk_@T_atan_dd(a: @T, al: @T) -> vec2<@T> {
    var base = vec2<@T>(0.0@F, 0.0@F);
    var num = a;
    var den = vec2<@T>(1.0@F, 0.0@F);
    if (a > 4.0@F) {
        base = vec2<@T>($PIO2, $PIO2_LO);
        num = -1.0@F;
        den = vec2<@T>(a, 0.0@F);
    } else if (a > $FOUR_THIRDS) {
        base = vec2<@T>($ATAN_TWO, $ATAN_TWO_LO);
        num = a - 2.0@F;
        den = rk_@T_fast_two_sum(2.0@F * a, 1.0@F);
    } else if (a > 0.75@F) {
        base = vec2<@T>($PIO4, $PIO4_LO);
        num = a - 1.0@F;
        den = rk_@T_two_sum(a, 1.0@F);
    } else if (a > 0.25@F) {
        base = vec2<@T>($ATAN_HALF, $ATAN_HALF_LO);
        num = 2.0@F * a - 1.0@F;
        den = rk_@T_fast_two_sum(2.0@F, a);
    }
    let u = rk_@T_div_dd(vec2<@T>(num, 0.0@F), den);
    let z = u.x * u.x;
    let tail = u.x * z * $POLY + u.y * (1.0@F - z) + al / (1.0@F + a * a);
    let s = rk_@T_two_sum(base.x, u.x);
    return vec2<@T>(s.x, s.y + (base.y + tail));
}
";

/// `atan`: `x` itself below `ATAN_TINY`, ±π/2 above `ATAN_BIG`.
pub(super) const ATAN: &str = "fn rk_@T_atan(x: @T) -> @T {
    let a = abs(x);
    // Below the threshold atan x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= $ATAN_TINY)) { return x; }
    var v = $PIO2;
    if (a <= $ATAN_BIG) {
        let t = rk_@T_atan_dd(a, 0.0@F);
        v = t.x + t.y;
    }
    return select(v, -v, x < 0.0@F);
}
";

/// `R` of `asin x = x + x·z·R(z)` (`$POLY`) and the half-angle argument `√((1 - a)/2)` with its correction.
pub(super) const ASIN_R: &str = "fn rk_@T_asin_r(z: @T) -> @T { return $POLY; }
fn rk_@T_sqrt_half(a: @T) -> vec3<@T> {
    let t = rk_@T_opq(0.5@F * (1.0@F - a));
    if (t == 0.0@F) { return vec3<@T>(0.0@F, 0.0@F, 0.0@F); }
    let s = rk_@T_opq(sqrt(t));
    let p = rk_@T_two_prod(s, s);
    return vec3<@T>(s, (rk_@T_opq(t - p.x) - p.y) / (2.0@F * s), t);
}
";

/// `asin`: a polynomial on `|x| ≤ ½`, `π/2 - 2·asin(√((1 - |x|)/2))` beyond.
pub(super) const ASIN: &str = "fn rk_@T_asin(x: @T) -> @T {
    let a = abs(x);
    if (!(a <= 1.0@F)) { return $NAN; }
    // Below the threshold asin x = x to within half an ulp, and keeps -0.
    if (a < $ASIN_TINY) { return x; }
    if (a <= 0.5@F) {
        let z = x * x;
        return x + x * z * rk_@T_asin_r(z);
    }
    // asin a = pi/2 - 2 asin(s), s = sqrt((1 - a)/2)
    let s = rk_@T_sqrt_half(a);
    let w = s.x * s.z * rk_@T_asin_r(s.z);
    let d = rk_@T_two_sum($PIO2, -2.0@F * s.x);
    let v = d.x + (d.y + ($PIO2_LO - 2.0@F * (s.y + w)));
    return select(v, -v, x < 0.0@F);
}
";

/// `acos`: `π/2 - asin x` on `|x| ≤ ½`, `2·asin(√((1 - |x|)/2))` (or π minus it) beyond.
pub(super) const ACOS: &str = "fn rk_@T_acos(x: @T) -> @T {
    let a = abs(x);
    if (!(a <= 1.0@F)) { return $NAN; }
    if (a <= 0.5@F) {
        // pi/2 - asin x
        let z = x * x;
        let d = rk_@T_two_sum($PIO2, -x);
        return d.x + (d.y + ($PIO2_LO - x * z * rk_@T_asin_r(z)));
    }
    // acos x = 2 asin(s) for x > 0 and pi - 2 asin(s) for x < 0, s = sqrt((1 - |x|)/2)
    let s = rk_@T_sqrt_half(a);
    let w = s.x * s.z * rk_@T_asin_r(s.z);
    if (x > 0.0@F) { return 2.0@F * s.x + 2.0@F * (s.y + w); }
    let d = rk_@T_two_sum($PI, -2.0@F * s.x);
    return d.x + (d.y + ($PI_LO - 2.0@F * (s.y + w)));
}
";

/// The shared start of sin, cos and tan: the tiny-argument test `tiny`, NaN and `±∞` give NaN,
/// then the reduction by π/2 and `body` on `r` (a pair) and the quadrant `q`.
pub(super) fn trig(name: &str, tiny: &str, body: &str) -> String {
    format!(
        "fn {name}(x: @T) -> @T {{
    {tiny}
    if (!(abs(x) <= $MAX)) {{ return $NAN; }}
    let r = rk_@T_rem_pio2(x);
    let q = i32(r.z) & 3i;
{body}}}
"
    )
}

/// `sin`: `x` itself below `SIN_TINY` (which keeps -0), else the kernel of its quadrant.
pub(super) const SIN: (&str, &str) = (
    "if (abs(x) < $SIN_TINY) { return x; }",
    "    var v: vec2<@T>;
    if ((q & 1i) == 0i) { v = rk_@T_sin_k(r.x, r.y); } else { v = rk_@T_cos_k(r.x, r.y); }
    let s = v.x + v.y;
    return select(s, -s, q >= 2i);
",
);

/// `cos`: 1 below `COS_TINY`, else the kernel of its quadrant.
pub(super) const COS: (&str, &str) = (
    "if (abs(x) < $COS_TINY) { return 1.0@F; }",
    "    var v: vec2<@T>;
    if ((q & 1i) == 0i) { v = rk_@T_cos_k(r.x, r.y); } else { v = rk_@T_sin_k(r.x, r.y); }
    let s = v.x + v.y;
    return select(s, -s, q == 1i || q == 2i);
",
);

/// `tan`: `x` itself below `TAN_TINY`, else sin/cos (or -cos/sin) divided as pairs.
pub(super) const TAN: (&str, &str) = (
    "if (abs(x) < $TAN_TINY) { return x; }",
    "    let odd = (q & 1i) == 1i;
    let s = rk_@T_sin_k(r.x, r.y);
    let c = rk_@T_cos_k(r.x, r.y);
    let sn = rk_@T_fast_two_sum(s.x, s.y);
    let cn = rk_@T_fast_two_sum(c.x, c.y);
    // tan = sin/cos in even quadrants, -cos/sin in odd ones.
    let t = rk_@T_div_dd(select(sn, cn, odd), select(cn, sn, odd));
    let v = t.x + t.y;
    return select(v, -v, odd);
",
);

/// The shared special cases of the logarithms: NaN and negative → NaN, ±0 → -∞, +∞ → +∞.
const LOG_SPECIAL: &str = "    if (!(x >= 0.0@F)) { return $NAN; }
    if (x == 0.0@F) { return -$INF; }
    if (x == $INF) { return x; }
";

/// `ln`: the pair of `rk_@T_log_dd`, summed.
pub(super) fn ln() -> String {
    format!("fn rk_@T_ln(x: @T) -> @T {{\n{LOG_SPECIAL}    let l = rk_@T_log_dd(x);\n    return l.x + l.y;\n}}\n")
}

/// `log2`: `e + ln(m)·log2(e)` with `1/ln 2` as a pair, so powers of two are exact.
pub(super) fn log2() -> String {
    format!(
        "fn rk_@T_log2(x: @T) -> @T {{
{LOG_SPECIAL}    let p = rk_@T_log_parts(x);
    let q = rk_@T_two_prod(p.y, $LOG2_E);
    let s = rk_@T_two_sum(p.x, q.x);
    return s.x + (s.y + (q.y + (p.y * $LOG2_E_LO + p.z * $LOG2_E)));
}}
"
    )
}

/// `log10`: `ln x · log10(e)` with `1/ln 10` as a pair.
pub(super) fn log10() -> String {
    format!(
        "fn rk_@T_log10(x: @T) -> @T {{
{LOG_SPECIAL}    let l = rk_@T_log_dd(x);
    let q = rk_@T_two_prod(l.x, $LOG10_E);
    return q.x + (q.y + (l.x * $LOG10_E_LO + l.y * $LOG10_E));
}}
"
    )
}
