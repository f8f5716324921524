fn rk_f64_acos(x: f64) -> f64 {
    let a = abs(x);
    if (!(a <= 1.0lf)) { return f64(rk_f32_bits(2143289344u)); }
    if (a <= 0.5lf) {
        // pi/2 - asin x
        let z = x * x;
        let d = rk_f64_two_sum(1.5707963267948966e0lf, -x);
        return d.x + (d.y + (6.123233995736766e-17lf - x * z * rk_f64_asin_r(z)));
    }
    // acos x = 2 asin(s) for x > 0 and pi - 2 asin(s) for x < 0, s = sqrt((1 - |x|)/2)
    let s = rk_f64_sqrt_half(a);
    let w = s.x * s.z * rk_f64_asin_r(s.z);
    if (x > 0.0lf) { return 2.0lf * s.x + 2.0lf * (s.y + w); }
    let d = rk_f64_two_sum(3.141592653589793e0lf, -2.0lf * s.x);
    return d.x + (d.y + (1.2246467991473532e-16lf - 2.0lf * (s.y + w)));
}

fn rk_f64_asin(x: f64) -> f64 {
    let a = abs(x);
    if (!(a <= 1.0lf)) { return f64(rk_f32_bits(2143289344u)); }
    // Below the threshold asin x = x to within half an ulp, and keeps -0.
    if (a < 1.4901161193847656e-8lf) { return x; }
    if (a <= 0.5lf) {
        let z = x * x;
        return x + x * z * rk_f64_asin_r(z);
    }
    // asin a = pi/2 - 2 asin(s), s = sqrt((1 - a)/2)
    let s = rk_f64_sqrt_half(a);
    let w = s.x * s.z * rk_f64_asin_r(s.z);
    let d = rk_f64_two_sum(1.5707963267948966e0lf, -2.0lf * s.x);
    let v = d.x + (d.y + (6.123233995736766e-17lf - 2.0lf * (s.y + w)));
    return select(v, -v, x < 0.0lf);
}

fn rk_f64_asin_r(z: f64) -> f64 { return fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(2.8757851367421566e-2lf, z, -1.4851887071247204e-2lf), z, 1.740087944269402e-2lf), z, 5.457506718640358e-3lf), z, 1.032281435018578e-2lf), z, 1.1479177415184906e-2lf), z, 1.3971212973552933e-2lf), z, 1.7352392720869973e-2lf), z, 2.237217294214989e-2lf), z, 3.0381944138531247e-2lf), z, 4.464285714635543e-2lf), z, 7.499999999998433e-2lf), z, 1.6666666666666669e-1lf); }
fn rk_f64_sqrt_half(a: f64) -> vec3<f64> {
    let t = rk_f64_opq(0.5lf * (1.0lf - a));
    if (t == 0.0lf) { return vec3<f64>(0.0lf, 0.0lf, 0.0lf); }
    let s = rk_f64_opq(sqrt(t));
    let p = rk_f64_two_prod(s, s);
    return vec3<f64>(s, (rk_f64_opq(t - p.x) - p.y) / (2.0lf * s), t);
}

fn rk_f64_atan(x: f64) -> f64 {
    let a = abs(x);
    // Below the threshold atan x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= 7.450580596923828e-9lf)) { return x; }
    var v = 1.5707963267948966e0lf;
    if (a <= 1.152921504606847e18lf) {
        let t = rk_f64_atan_dd(a, 0.0lf);
        v = t.x + t.y;
    }
    return select(v, -v, x < 0.0lf);
}

fn rk_f64_atan2(y: f64, x: f64) -> f64 {
    if (((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || ((bitcast<u64>(y) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return f64(rk_f32_bits(2143289344u)); }
    let ax = abs(x);
    let ay = abs(y);
    let xneg = (bitcast<u64>(x) >> 63u) == 1lu;
    var v: f64;
    if (ay == 0.0lf) {
        v = select(0.0lf, 3.141592653589793e0lf, xneg);
    } else if (ax == 0.0lf) {
        v = 1.5707963267948966e0lf;
    } else if (ay == f64(rk_f32_bits(2139095040u))) {
        v = select(1.5707963267948966e0lf, select(7.853981633974483e-1lf, 2.356194490192345e0lf, xneg), ax == f64(rk_f32_bits(2139095040u)));
    } else if (ax == f64(rk_f32_bits(2139095040u))) {
        v = select(0.0lf, 3.141592653589793e0lf, xneg);
    } else {
        // Exponents from the bits (both normal where it matters: a subnormal pair is scaled
        // up first, and a subnormal beside a normal number lands in the d < -60 case).
        var sx = ax;
        var sy = ay;
        if (max(ax, ay) < 1.1830521861667747e-271lf) { sx = sx * 1.0715086071862673e301lf; sy = sy * 1.0715086071862673e301lf; }
        let ex = i32(bitcast<u64>(sx) >> 52u);
        let d = i32(bitcast<u64>(sy) >> 52u) - ex;
        var z: vec2<f64>;
        if (d > 60i) {
            z = vec2<f64>(1.5707963267948966e0lf, 6.123233995736766e-17lf);
        } else if (d < -60i) {
            z = vec2<f64>(ay / ax, 0.0lf);
        } else {
            // Both scaled by the same power of two, |x| into [1, 2): exact.
            let k = 1023i - ex;
            let q = rk_f64_div_dd(vec2<f64>(rk_f64_scale(sy, k), 0.0lf), vec2<f64>(rk_f64_scale(sx, k), 0.0lf));
            z = rk_f64_atan_dd(q.x, q.y);
        }
        if (xneg) {
            let p = rk_f64_two_sum(3.141592653589793e0lf, -z.x);
            v = p.x + (p.y + (1.2246467991473532e-16lf - z.y));
        } else {
            v = z.x + z.y;
        }
    }
    return select(v, -v, (bitcast<u64>(y) >> 63u) == 1lu);
}

fn rk_f64_atan_dd(a: f64, al: f64) -> vec2<f64> {
    var base = vec2<f64>(0.0lf, 0.0lf);
    var num = a;
    var den = vec2<f64>(1.0lf, 0.0lf);
    if (a > 4.0lf) {
        base = vec2<f64>(1.5707963267948966e0lf, 6.123233995736766e-17lf);
        num = -1.0lf;
        den = vec2<f64>(a, 0.0lf);
    } else if (a > 1.3333333333333333lf) {
        base = vec2<f64>(1.1071487177940904e0lf, 9.40447137356638e-17lf);
        num = a - 2.0lf;
        den = rk_f64_fast_two_sum(2.0lf * a, 1.0lf);
    } else if (a > 0.75lf) {
        base = vec2<f64>(7.853981633974483e-1lf, 3.061616997868383e-17lf);
        num = a - 1.0lf;
        den = rk_f64_two_sum(a, 1.0lf);
    } else if (a > 0.25lf) {
        base = vec2<f64>(4.636476090008061e-1lf, 2.2698777452961687e-17lf);
        num = 2.0lf * a - 1.0lf;
        den = rk_f64_fast_two_sum(2.0lf, a);
    }
    let u = rk_f64_div_dd(vec2<f64>(num, 0.0lf), den);
    let z = u.x * u.x;
    let tail = u.x * z * fma(fma(fma(fma(fma(fma(fma(fma(-4.1034266985419496e-2lf, z, 5.7529943904780285e-2lf), z, -6.658687414697743e-2lf), z, 7.692017877237385e-2lf), z, -9.090902874969416e-2lf), z, 1.1111111035986847e-1lf), z, -1.428571428525851e-1lf), z, 1.9999999999998933e-1lf), z, -3.333333333333333e-1lf) + u.y * (1.0lf - z) + al / (1.0lf + a * a);
    let s = rk_f64_two_sum(base.x, u.x);
    return vec2<f64>(s.x, s.y + (base.y + tail));
}

fn rk_f64_cbrt(x: f64) -> f64 {
    let a = abs(x);
    // ±0, ±inf and NaN are their own cube roots.
    if (a == 0.0lf || !(a <= 1.7976931348623157e308lf)) { return x; }
    var v = a;
    var e = -1023i;
    if (v < 2.2250738585072014e-308lf) { v = v * 1.8014398509481984e16lf; e = e - 54i; }
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

fn rk_f64_cos(x: f64) -> f64 {
    if (abs(x) < 7.450580596923828e-9lf) { return 1.0lf; }
    if (!(abs(x) <= 1.7976931348623157e308lf)) { return f64(rk_f32_bits(2143289344u)); }
    let r = rk_f64_rem_pio2(x);
    let q = i32(r.z) & 3i;
    var v: vec2<f64>;
    if ((q & 1i) == 0i) { v = rk_f64_cos_k(r.x, r.y); } else { v = rk_f64_sin_k(r.x, r.y); }
    let s = v.x + v.y;
    return select(s, -s, q == 1i || q == 2i);
}

fn rk_f64_cos_k(h: f64, l: f64) -> vec2<f64> {
    let z = rk_f64_two_prod(h, h);
    let w = rk_f64_fast_two_sum(1.0lf, -0.5lf * z.x);
    return vec2<f64>(w.x, w.y + (z.x * z.x * fma(fma(fma(fma(fma(fma(fma(-1.5619206968586225e-16lf, z.x, 4.779477332387385e-14lf), z.x, -1.1470745597729725e-11lf), z.x, 2.08767569878681e-9lf), z.x, -2.755731922398589e-7lf), z.x, 2.48015873015873e-5lf), z.x, -1.388888888888889e-3lf), z.x, 4.1666666666666664e-2lf) - (0.5lf * z.y + h * l)));
}

fn rk_f64_cosh(x: f64) -> f64 {
    let a = abs(x);
    if (((bitcast<u64>(a) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return x; }
    if (a < 22.0lf) {
        // cosh a = (E + 1/E) / 2 with E = 1 + expm1(a), in double-double.
        let t = rk_f64_expm1_dd(a);
        let e = rk_f64_two_sum(1.0lf, t.x);
        let d = vec2<f64>(e.x, e.y + t.y);
        let r = rk_f64_div_dd(vec2<f64>(1.0lf, 0.0lf), d);
        let s = rk_f64_two_sum(d.x, r.x);
        return 0.5lf * (s.x + (s.y + (d.y + r.y)));
    }
    if (a <= 711.0lf) { return rk_f64_exp_scaled(a, -1i); }
    return f64(rk_f32_bits(2139095040u));
}

fn rk_f64_div_dd(n: vec2<f64>, d: vec2<f64>) -> vec2<f64> {
    let nx = rk_f64_opq(n.x);
    let q = rk_f64_opq(nx / d.x);
    let p = rk_f64_two_prod(q, d.x);
    return vec2<f64>(q, (rk_f64_opq(nx - p.x) - p.y + (n.y - q * d.y)) / d.x);
}

fn rk_f64_em1(hi: f64, lo: f64) -> vec2<f64> {
    let r = hi + lo;
    let p = r * r * fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(1.1470745597729725e-11lf, r, 1.6059043836821613e-10lf), r, 2.08767569878681e-9lf), r, 2.505210838544172e-8lf), r, 2.755731922398589e-7lf), r, 2.7557319223985893e-6lf), r, 2.48015873015873e-5lf), r, 1.984126984126984e-4lf), r, 1.388888888888889e-3lf), r, 8.333333333333333e-3lf), r, 4.1666666666666664e-2lf), r, 1.6666666666666666e-1lf), r, 5e-1lf);
    return rk_f64_two_sum(hi, lo + p);
}

fn rk_f64_exp(x: f64) -> f64 {
    if (((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return x; }
    if (x > 710.0lf) { return f64(rk_f32_bits(2139095040u)); }
    if (x < -746.0lf) { return 0.0lf; }
    return rk_f64_exp_scaled(x, 0i);
}

fn rk_f64_exp2(x: f64) -> f64 {
    if (((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return x; }
    if (x > 1025.0lf) { return f64(rk_f32_bits(2139095040u)); }
    if (x < -1076.0lf) { return 0.0lf; }
    let n = floor(x + 0.5lf);
    let r = x - n;
    let p = rk_f64_two_prod(r, 6.931471805599453e-1lf);
    let e = rk_f64_em1(p.x, p.y + r * 2.3190468138462996e-17lf);
    let y = rk_f64_fast_two_sum(1.0lf, e.x);
    return rk_f64_scale(y.x + (y.y + e.y), i32(n));
}

fn rk_f64_exp_scaled(x: f64, s: i32) -> f64 {
    let n = floor(x * 1.4426950408889634e0lf + 0.5lf);
    let hi = x - n * 6.931471803691238e-1lf;
    let lo = -(n * 1.9082146973659064e-10lf + n * 2.3190468138462996e-17lf);
    let e = rk_f64_em1(hi, lo);
    let y = rk_f64_fast_two_sum(1.0lf, e.x);
    return rk_f64_scale(y.x + (y.y + e.y), i32(n) + s);
}

fn rk_f64_expm1_dd(x: f64) -> vec2<f64> {
    let n = floor(x * 1.4426950408889634e0lf + 0.5lf);
    let hi = x - n * 6.931471803691238e-1lf;
    let lo = -(n * 1.9082146973659064e-10lf + n * 2.3190468138462996e-17lf);
    let e = rk_f64_em1(hi, lo);
    let p = rk_f64_pow2(i32(n));
    let a = rk_f64_two_sum(p - 1.0lf, p * e.x);
    return rk_f64_fast_two_sum(a.x, a.y + p * e.y);
}

fn rk_f64_hypot(x: f64, y: f64) -> f64 {
    let a = abs(x);
    let b = abs(y);
    if (a == f64(rk_f32_bits(2139095040u)) || b == f64(rk_f32_bits(2139095040u))) { return f64(rk_f32_bits(2139095040u)); }
    if (((bitcast<u64>(a) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || ((bitcast<u64>(b) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return f64(rk_f32_bits(2143289344u)); }
    var m = max(a, b);
    var s = min(a, b);
    if (m == 0.0lf) { return 0.0lf; }
    var k = 0i;
    if (m > 2.037035976334486e90lf) { m = m * 2.409919865102884e-181lf; s = s * 2.409919865102884e-181lf; k = 600i; }
    else if (m < 4.909093465297727e-91lf) { m = m * 4.149515568880993e180lf; s = s * 4.149515568880993e180lf; k = -600i; }
    let m2 = rk_f64_two_prod(m, m);
    let s2 = rk_f64_two_prod(s, s);
    let t = rk_f64_fast_two_sum(m2.x, s2.x);
    let u = rk_f64_fast_two_sum(t.x, t.y + (m2.y + s2.y));
    let r = rk_f64_opq(sqrt(u.x));
    let rr = rk_f64_two_prod(r, r);
    return rk_f64_scale(r + ((rk_f64_opq(u.x - rr.x) - rr.y) + u.y) / (2.0lf * r), k);
}

fn rk_f64_ln(x: f64) -> f64 {
    if (!(x >= 0.0lf)) { return f64(rk_f32_bits(2143289344u)); }
    if (x == 0.0lf) { return -f64(rk_f32_bits(2139095040u)); }
    if (x == f64(rk_f32_bits(2139095040u))) { return x; }
    let l = rk_f64_log_dd(x);
    return l.x + l.y;
}

fn rk_f64_log10(x: f64) -> f64 {
    if (!(x >= 0.0lf)) { return f64(rk_f32_bits(2143289344u)); }
    if (x == 0.0lf) { return -f64(rk_f32_bits(2139095040u)); }
    if (x == f64(rk_f32_bits(2139095040u))) { return x; }
    let l = rk_f64_log_dd(x);
    let q = rk_f64_two_prod(l.x, 4.342944819032518e-1lf);
    return q.x + (q.y + (l.x * 1.098319650216765e-17lf + l.y * 4.342944819032518e-1lf));
}

fn rk_f64_log2(x: f64) -> f64 {
    if (!(x >= 0.0lf)) { return f64(rk_f32_bits(2143289344u)); }
    if (x == 0.0lf) { return -f64(rk_f32_bits(2139095040u)); }
    if (x == f64(rk_f32_bits(2139095040u))) { return x; }
    let p = rk_f64_log_parts(x);
    let q = rk_f64_two_prod(p.y, 1.4426950408889634e0lf);
    let s = rk_f64_two_sum(p.x, q.x);
    return s.x + (s.y + (q.y + (p.y * 2.0355273740931033e-17lf + p.z * 1.4426950408889634e0lf)));
}

fn rk_f64_log_dd(x: f64) -> vec2<f64> {
    let p = rk_f64_log_parts(x);
    let e = p.x;
    let a = rk_f64_two_sum(e * 6.931471803691238e-1lf, p.y);
    return rk_f64_fast_two_sum(a.x, a.y + (e * 1.9082146973659064e-10lf + (p.z + e * 2.3190468138462996e-17lf)));
}

fn rk_f64_log_parts(x: f64) -> vec3<f64> {
    var v = x;
    var e = -1023i;
    if (v < 2.2250738585072014e-308lf) { v = v * 1.8014398509481984e16lf; e = e - 54i; }
    let b = bitcast<u64>(v);
    e = e + i32(b >> 52u);
    var m = bitcast<f64>((b & 0xffffffffffffflu) | 0x3ff0000000000000lu);
    if (m > 1.4142135623730951e0lf) { m = 0.5lf * m; e = e + 1i; }
    let f = rk_f64_opq(m - 1.0lf);
    let d = rk_f64_fast_two_sum(2.0lf, f);
    let sh = rk_f64_opq(f / d.x);
    let sd = rk_f64_two_prod(sh, d.x);
    let sl = ((rk_f64_opq(f - sd.x) - sd.y) - sh * d.y) / d.x;
    let z = rk_f64_two_prod(sh, sh);
    let zl = z.y + 2.0lf * sh * sl;
    let q = fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(8e-2lf, z.x, 8.695652173913043e-2lf), z.x, 9.523809523809523e-2lf), z.x, 1.0526315789473684e-1lf), z.x, 1.1764705882352941e-1lf), z.x, 1.3333333333333333e-1lf), z.x, 1.5384615384615385e-1lf), z.x, 1.8181818181818182e-1lf), z.x, 2.222222222222222e-1lf), z.x, 2.857142857142857e-1lf), z.x, 4e-1lf);
    let t = rk_f64_fast_two_sum(6.666666666666666e-1lf, z.x * q);
    let tl = t.y + (3.700743415417188e-17lf + zl * q);
    let sz = rk_f64_two_prod(sh, z.x);
    let szl = sz.y + (sh * zl + sl * z.x);
    let p = rk_f64_two_prod(sz.x, t.x);
    let pl = p.y + (sz.x * tl + szl * t.x);
    let a = rk_f64_fast_two_sum(2.0lf * sh, p.x);
    let r = rk_f64_fast_two_sum(a.x, a.y + (2.0lf * sl + pl));
    return vec3<f64>(f64(e), r.x, r.y);
}

fn rk_f64_opq(x: f64) -> f64 {
    let b = bitcast<u64>(x);
    return bitcast<f64>(b ^ u64(b == 0x7ff8dead0000beeflu));
}

fn rk_f64_pow_core(x: f64, y: f64) -> f64 {
    let l = rk_f64_log_dd(x);
    let p = rk_f64_two_prod(y, l.x);
    if (p.x > 710.0lf) { return f64(rk_f32_bits(2139095040u)); }
    if (p.x < -746.0lf) { return 0.0lf; }
    let n = floor(p.x * 1.4426950408889634e0lf + 0.5lf);
    let hi = p.x - n * 6.931471803691238e-1lf;
    let lo = (p.y + y * l.y) - (n * 1.9082146973659064e-10lf + n * 2.3190468138462996e-17lf);
    let e = rk_f64_em1(hi, lo);
    let w = rk_f64_fast_two_sum(1.0lf, e.x);
    return rk_f64_scale(w.x + (w.y + e.y), i32(n));
}
fn rk_f64_powf(x: f64, y: f64) -> f64 {
    if (y == 0.0lf || x == 1.0lf) { return 1.0lf; }
    if (((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) || ((bitcast<u64>(y) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)) { return f64(rk_f32_bits(2143289344u)); }
    let ax = abs(x);
    let ay = abs(y);
    if (ay == f64(rk_f32_bits(2139095040u))) {
        if (ax == 1.0lf) { return 1.0lf; }
        return select(0.0lf, f64(rk_f32_bits(2139095040u)), (ax > 1.0lf) == (y > 0.0lf));
    }
    let xneg = (bitcast<u64>(x) >> 63u) == 1lu;
    let yint = floor(y) == y;
    let odd = xneg && yint && ay < 9.007199254740992e15lf && !(floor(0.5lf * y) == 0.5lf * y);
    var r: f64;
    if (ax == 0.0lf) {
        r = select(0.0lf, f64(rk_f32_bits(2139095040u)), y < 0.0lf);
    } else if (ax == f64(rk_f32_bits(2139095040u))) {
        r = select(f64(rk_f32_bits(2139095040u)), 0.0lf, y < 0.0lf);
    } else {
        if (xneg && !yint) { return f64(rk_f32_bits(2143289344u)); }
        r = rk_f64_pow_core(ax, y);
    }
    return select(r, -r, odd);
}

fn rk_f64_rem_pio2(x: f64) -> vec3<f64> {
    if (abs(x) <= 7.853981633974483e-1lf) { return vec3<f64>(x, 0.0lf, 0.0lf); }
    if (abs(x) >= 1.6e6lf) { return rk_f64_rem_pio2_large(x); }
    let n = floor(x * 6.366197723675814e-1lf + 0.5lf);
    // n·CW1, n·CW2, n·CW3 are exact and x - n·CW1 is exact (Sterbenz).
    let s1 = rk_f64_two_sum(x - n * 1.5707963267341256e0lf, -(n * 6.077100506303966e-11lf));
    let s2 = rk_f64_two_sum(s1.x, -(n * 2.0222662487111665e-21lf));
    let r = rk_f64_two_sum(s2.x, (s1.y + s2.y) - n * 8.4784276603689e-32lf);
    return vec3<f64>(r.x, r.y, n);
}

const RK_F64_TWO_OVER_PI = array<u32, 39>(0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u);
fn rk_f64_rem_pio2_large(x: f64) -> vec3<f64> {
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
    let f1 = f64(acc[6]) * 2.3283064365386963e-10lf - select(0.0lf, 1.0lf, up);
    let s1 = rk_f64_two_sum(f1, f64(acc[5]) * 5.421010862427522e-20lf);
    let s2 = rk_f64_two_sum(s1.x, f64(acc[4]) * 1.262177448353619e-29lf);
    let f = rk_f64_fast_two_sum(s2.x, (s1.y + s2.y) + f64(acc[3]) * 2.938735877055719e-39lf);
    // r = f·π/2
    let p = rk_f64_two_prod(f.x, 1.5707963267948966e0lf);
    var r = rk_f64_fast_two_sum(p.x, p.y + (f.x * 6.123233995736766e-17lf + f.y * 1.5707963267948966e0lf));
    if (x < 0.0lf) { r = -r; n = -n; }
    return vec3<f64>(r.x, r.y, f64(n));
}

fn rk_f64_pow2(k: i32) -> f64 { return bitcast<f64>(u64(k + 1023i) << 52u); }
fn rk_f64_scale(y: f64, k: i32) -> f64 {
    let kk = clamp(k, -2000i, 2000i);
    let k1 = kk / 2i;
    return (y * rk_f64_pow2(k1)) * rk_f64_pow2(kk - k1);
}

fn rk_f64_sin(x: f64) -> f64 {
    if (abs(x) < 1.4901161193847656e-8lf) { return x; }
    if (!(abs(x) <= 1.7976931348623157e308lf)) { return f64(rk_f32_bits(2143289344u)); }
    let r = rk_f64_rem_pio2(x);
    let q = i32(r.z) & 3i;
    var v: vec2<f64>;
    if ((q & 1i) == 0i) { v = rk_f64_sin_k(r.x, r.y); } else { v = rk_f64_cos_k(r.x, r.y); }
    let s = v.x + v.y;
    return select(s, -s, q >= 2i);
}

fn rk_f64_sin_k(h: f64, l: f64) -> vec2<f64> {
    let z = h * h;
    return vec2<f64>(h, h * z * fma(fma(fma(fma(fma(fma(fma(2.8114572543455206e-15lf, z, -7.647163731819816e-13lf), z, 1.6059043836821613e-10lf), z, -2.505210838544172e-8lf), z, 2.7557319223985893e-6lf), z, -1.984126984126984e-4lf), z, 8.333333333333333e-3lf), z, -1.6666666666666666e-1lf) + l * (1.0lf - 0.5lf * z));
}

fn rk_f64_sinh(x: f64) -> f64 {
    let a = abs(x);
    // Below the threshold sinh x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= 1.4901161193847656e-8lf)) { return x; }
    var r = f64(rk_f32_bits(2139095040u));
    if (a < 22.0lf) {
        // sinh a = (t + t / (1 + t)) / 2 with t = expm1(a), in double-double.
        let t = rk_f64_expm1_dd(a);
        let e = rk_f64_two_sum(1.0lf, t.x);
        let q = rk_f64_div_dd(t, vec2<f64>(e.x, e.y + t.y));
        let s = rk_f64_two_sum(t.x, q.x);
        r = 0.5lf * (s.x + (s.y + (t.y + q.y)));
    } else if (a <= 711.0lf) {
        r = rk_f64_exp_scaled(a, -1i);
    }
    return select(r, -r, x < 0.0lf);
}

fn rk_f64_tan(x: f64) -> f64 {
    if (abs(x) < 7.450580596923828e-9lf) { return x; }
    if (!(abs(x) <= 1.7976931348623157e308lf)) { return f64(rk_f32_bits(2143289344u)); }
    let r = rk_f64_rem_pio2(x);
    let q = i32(r.z) & 3i;
    let odd = (q & 1i) == 1i;
    let s = rk_f64_sin_k(r.x, r.y);
    let c = rk_f64_cos_k(r.x, r.y);
    let sn = rk_f64_fast_two_sum(s.x, s.y);
    let cn = rk_f64_fast_two_sum(c.x, c.y);
    // tan = sin/cos in even quadrants, -cos/sin in odd ones.
    let t = rk_f64_div_dd(select(sn, cn, odd), select(cn, sn, odd));
    let v = t.x + t.y;
    return select(v, -v, odd);
}

fn rk_f64_tanh(x: f64) -> f64 {
    let a = abs(x);
    // Below the threshold tanh x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= 3.725290298461914e-9lf)) { return x; }
    var r = 1.0lf;
    if (a < 22.0lf) {
        // tanh a = t / (t + 2) with t = expm1(2a), in double-double.
        let t = rk_f64_expm1_dd(2.0lf * a);
        let d = rk_f64_two_sum(t.x, 2.0lf);
        let q = rk_f64_div_dd(t, vec2<f64>(d.x, d.y + t.y));
        r = q.x + q.y;
    }
    return select(r, -r, x < 0.0lf);
}

fn rk_f64_split(a: f64) -> f64 { return bitcast<f64>((bitcast<u64>(a) + 0x4000000lu) & 0xfffffffff8000000lu); }
fn rk_f64_two_prod(a: f64, b: f64) -> vec2<f64> {
    let p = a * b;
    let ah = rk_f64_split(a);
    let al = a - ah;
    let bh = rk_f64_split(b);
    let bl = b - bh;
    return vec2<f64>(p, ((ah * bh - rk_f64_opq(p)) + ah * bl + al * bh) + al * bl);
}

fn rk_f64_two_sum(a0: f64, b0: f64) -> vec2<f64> {
    let a = rk_f64_opq(a0);
    let b = rk_f64_opq(b0);
    let s = a + b;
    let bv = rk_f64_opq(rk_f64_opq(s) - a);
    let av = rk_f64_opq(s - bv);
    return vec2<f64>(s, rk_f64_opq(a - av) + rk_f64_opq(b - bv));
}
fn rk_f64_fast_two_sum(a0: f64, b0: f64) -> vec2<f64> {
    let a = rk_f64_opq(a0);
    let b = rk_f64_opq(b0);
    let s = a + b;
    return vec2<f64>(s, b - rk_f64_opq(rk_f64_opq(s) - a));
}
