fn rk_f32_acos(x: f32) -> f32 {
    let a = abs(x);
    if (!(a <= 1.0f)) { return rk_f32_bits(2143289344u); }
    if (a <= 0.5f) {
        // pi/2 - asin x
        let z = x * x;
        let d = rk_f32_two_sum(1.5707964e0f, -x);
        return d.x + (d.y + (-4.371139e-8f - x * z * rk_f32_asin_r(z)));
    }
    // acos x = 2 asin(s) for x > 0 and pi - 2 asin(s) for x < 0, s = sqrt((1 - |x|)/2)
    let s = rk_f32_sqrt_half(a);
    let w = s.x * s.z * rk_f32_asin_r(s.z);
    if (x > 0.0f) { return 2.0f * s.x + 2.0f * (s.y + w); }
    let d = rk_f32_two_sum(3.1415927e0f, -2.0f * s.x);
    return d.x + (d.y + (-8.742278e-8f - 2.0f * (s.y + w)));
}

fn rk_f32_asin(x: f32) -> f32 {
    let a = abs(x);
    if (!(a <= 1.0f)) { return rk_f32_bits(2143289344u); }
    // Below the threshold asin x = x to within half an ulp, and keeps -0.
    if (a < 2.4414063e-4f) { return x; }
    if (a <= 0.5f) {
        let z = x * x;
        return x + x * z * rk_f32_asin_r(z);
    }
    // asin a = pi/2 - 2 asin(s), s = sqrt((1 - a)/2)
    let s = rk_f32_sqrt_half(a);
    let w = s.x * s.z * rk_f32_asin_r(s.z);
    let d = rk_f32_two_sum(1.5707964e0f, -2.0f * s.x);
    let v = d.x + (d.y + (-4.371139e-8f - 2.0f * (s.y + w)));
    return select(v, -v, x < 0.0f);
}

fn rk_f32_asin_r(z: f32) -> f32 { return fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(fma(6.4472104e-3f, z, 7.312526e-3f), z, 8.390335e-3f), z, 9.761609e-3f), z, 1.1551801e-2f), z, 1.3964844e-2f), z, 1.7352764e-2f), z, 2.2372158e-2f), z, 3.0381944e-2f), z, 4.464286e-2f), z, 7.5e-2f), z, 1.6666667e-1f); }
fn rk_f32_sqrt_half(a: f32) -> vec3<f32> {
    let t = rk_f32_opq(0.5f * (1.0f - a));
    if (t == 0.0f) { return vec3<f32>(0.0f, 0.0f, 0.0f); }
    let s = rk_f32_opq(sqrt(t));
    let p = rk_f32_two_prod(s, s);
    return vec3<f32>(s, (rk_f32_opq(t - p.x) - p.y) / (2.0f * s), t);
}

fn rk_f32_atan(x: f32) -> f32 {
    let a = abs(x);
    // Below the threshold atan x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= 2.4414063e-4f)) { return x; }
    var v = 1.5707964e0f;
    if (a <= 6.7108864e7f) {
        let t = rk_f32_atan_dd(a, 0.0f);
        v = t.x + t.y;
    }
    return select(v, -v, x < 0.0f);
}

fn rk_f32_atan2(y: f32, x: f32) -> f32 {
    if (((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u) || ((bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u)) { return rk_f32_bits(2143289344u); }
    let ax = abs(x);
    let ay = abs(y);
    let xneg = (bitcast<u32>(x) >> 31u) == 1u;
    var v: f32;
    if (ay == 0.0f) {
        v = select(0.0f, 3.1415927e0f, xneg);
    } else if (ax == 0.0f) {
        v = 1.5707964e0f;
    } else if (ay == rk_f32_bits(2139095040u)) {
        v = select(1.5707964e0f, select(7.853982e-1f, 2.3561945e0f, xneg), ax == rk_f32_bits(2139095040u));
    } else if (ax == rk_f32_bits(2139095040u)) {
        v = select(0.0f, 3.1415927e0f, xneg);
    } else {
        // Exponents from the bits (both normal where it matters: a subnormal pair is scaled
        // up first, and a subnormal beside a normal number lands in the d < -28 case).
        var sx = ax;
        var sy = ay;
        if (max(ax, ay) < 7.888609e-31f) { sx = sx * 1.2676506e30f; sy = sy * 1.2676506e30f; }
        let ex = i32(bitcast<u32>(sx) >> 23u);
        let d = i32(bitcast<u32>(sy) >> 23u) - ex;
        var z: vec2<f32>;
        if (d > 28i) {
            z = vec2<f32>(1.5707964e0f, -4.371139e-8f);
        } else if (d < -28i) {
            z = vec2<f32>(ay / ax, 0.0f);
        } else {
            // Both scaled by the same power of two, |x| into [1, 2): exact.
            let k = 127i - ex;
            let q = rk_f32_div_dd(vec2<f32>(rk_f32_ldexp(sy, k), 0.0f), vec2<f32>(rk_f32_ldexp(sx, k), 0.0f));
            z = rk_f32_atan_dd(q.x, q.y);
        }
        if (xneg) {
            let p = rk_f32_two_sum(3.1415927e0f, -z.x);
            v = p.x + (p.y + (-8.742278e-8f - z.y));
        } else {
            v = z.x + z.y;
        }
    }
    return select(v, -v, (bitcast<u32>(y) >> 31u) == 1u);
}

fn rk_f32_atan_dd(a: f32, al: f32) -> vec2<f32> {
    var base = vec2<f32>(0.0f, 0.0f);
    var num = a;
    var den = vec2<f32>(1.0f, 0.0f);
    if (a > 4.0f) {
        base = vec2<f32>(1.5707964e0f, -4.371139e-8f);
        num = -1.0f;
        den = vec2<f32>(a, 0.0f);
    } else if (a > 1.3333334f) {
        base = vec2<f32>(1.1071488e0f, -4.872355e-8f);
        num = a - 2.0f;
        den = rk_f32_fast_two_sum(2.0f * a, 1.0f);
    } else if (a > 0.75f) {
        base = vec2<f32>(7.853982e-1f, -2.1855694e-8f);
        num = a - 1.0f;
        den = rk_f32_two_sum(a, 1.0f);
    } else if (a > 0.25f) {
        base = vec2<f32>(4.636476e-1f, 5.0121587e-9f);
        num = 2.0f * a - 1.0f;
        den = rk_f32_fast_two_sum(2.0f, a);
    }
    let u = rk_f32_div_dd(vec2<f32>(num, 0.0f), den);
    let z = u.x * u.x;
    let tail = u.x * z * fma(fma(fma(fma(fma(fma(-6.666667e-2f, z, 7.692308e-2f), z, -9.090909e-2f), z, 1.1111111e-1f), z, -1.4285715e-1f), z, 2e-1f), z, -3.3333334e-1f) + u.y * (1.0f - z) + al / (1.0f + a * a);
    let s = rk_f32_two_sum(base.x, u.x);
    return vec2<f32>(s.x, s.y + (base.y + tail));
}

fn rk_f32_cbrt(x: f32) -> f32 {
    let a = abs(x);
    // ±0, ±inf and NaN are their own cube roots.
    if (a == 0.0f || !(a <= 3.4028235e38f)) { return x; }
    var v = a;
    var e = -127i;
    if (v < 1.1754944e-38f) { v = v * 1.6777216e7f; e = e - 24i; }
    let b = bitcast<u32>(v);
    e = e + i32(b >> 23u);
    let k = (e + 300i) / 3i - 100i;
    let m = bitcast<f32>((b & 0x7fffffu) | (u32(e - 3i * k + 127i) << 23u));
    // The bits of 1.0 map to themselves.
    var y = bitcast<f32>(bitcast<u32>(m) / 3u + 0x2a555556u);
    for (var i = 0i; i < 2i; i = i + 1i) {
        let c = y * y * y;
        y = y * ((c + 2.0f * m) / (2.0f * c + m));
    }
    let y2 = rk_f32_two_prod(y, y);
    let y3 = rk_f32_two_prod(y2.x, y);
    y = y + (rk_f32_opq(m - y3.x) - (y3.y + y2.y * y)) / (3.0f * y2.x);
    let r = y * rk_f32_pow2(k);
    return select(r, -r, x < 0.0f);
}

fn rk_f32_cos(x: f32) -> f32 {
    if (abs(x) < 2.4414063e-4f) { return 1.0f; }
    if (!(abs(x) <= 3.4028235e38f)) { return rk_f32_bits(2143289344u); }
    let r = rk_f32_rem_pio2(x);
    let q = i32(r.z) & 3i;
    var v: vec2<f32>;
    if ((q & 1i) == 0i) { v = rk_f32_cos_k(r.x, r.y); } else { v = rk_f32_sin_k(r.x, r.y); }
    let s = v.x + v.y;
    return select(s, -s, q == 1i || q == 2i);
}

fn rk_f32_cos_k(h: f32, l: f32) -> vec2<f32> {
    let z = rk_f32_two_prod(h, h);
    let w = rk_f32_fast_two_sum(1.0f, -0.5f * z.x);
    return vec2<f32>(w.x, w.y + (z.x * z.x * fma(fma(fma(fma(2.0876756e-9f, z.x, -2.755732e-7f), z.x, 2.4801588e-5f), z.x, -1.3888889e-3f), z.x, 4.1666668e-2f) - (0.5f * z.y + h * l)));
}

fn rk_f32_cosh(x: f32) -> f32 {
    let a = abs(x);
    if (((bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u)) { return x; }
    if (a < 12.0f) {
        // cosh a = (E + 1/E) / 2 with E = 1 + expm1(a), in double-float.
        let t = rk_f32_expm1_dd(a);
        let e = rk_f32_two_sum(1.0f, t.x);
        let d = vec2<f32>(e.x, e.y + t.y);
        let r = rk_f32_div_dd(vec2<f32>(1.0f, 0.0f), d);
        let s = rk_f32_two_sum(d.x, r.x);
        return 0.5f * (s.x + (s.y + (d.y + r.y)));
    }
    if (a <= 90.0f) { return rk_f32_exp_scaled(a, -1i); }
    return rk_f32_bits(2139095040u);
}

fn rk_f32_div_dd(n: vec2<f32>, d: vec2<f32>) -> vec2<f32> {
    let nx = rk_f32_opq(n.x);
    let q = rk_f32_opq(nx / d.x);
    let p = rk_f32_two_prod(q, d.x);
    return vec2<f32>(q, (rk_f32_opq(nx - p.x) - p.y + (n.y - q * d.y)) / d.x);
}

fn rk_f32_em1(hi: f32, lo: f32) -> vec2<f32> {
    let r = hi + lo;
    let z = rk_f32_two_prod(hi, hi);
    let t = 0.5f * z.y + lo * (hi + 0.5f * lo) + r * r * r * fma(fma(fma(fma(fma(fma(2.7557319e-6f, r, 2.4801588e-5f), r, 1.984127e-4f), r, 1.3888889e-3f), r, 8.333334e-3f), r, 4.1666668e-2f), r, 1.6666667e-1f);
    let s = rk_f32_fast_two_sum(hi, 0.5f * z.x);
    return rk_f32_fast_two_sum(s.x, s.y + (lo + t));
}

fn rk_f32_exp(x: f32) -> f32 {
    if (((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u)) { return x; }
    if (x > 90.0f) { return rk_f32_bits(2139095040u); }
    if (x < -104.0f) { return 0.0f; }
    return rk_f32_exp_scaled(x, 0i);
}

fn rk_f32_exp2(x: f32) -> f32 {
    if (((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u)) { return x; }
    if (x > 129.0f) { return rk_f32_bits(2139095040u); }
    if (x < -151.0f) { return 0.0f; }
    let n = floor(x + 0.5f);
    let r = x - n;
    let p = rk_f32_two_prod(r, 6.931472e-1f);
    let e = rk_f32_em1(p.x, p.y + r * -1.9046542e-9f);
    let y = rk_f32_fast_two_sum(1.0f, e.x);
    return rk_f32_ldexp(y.x + (y.y + e.y), i32(n));
}

fn rk_f32_exp_scaled(x: f32, s: i32) -> f32 {
    let n = floor(x * 1.442695e0f + 0.5f);
    let hi = x - n * 6.9314575e-1f;
    let lo = -(n * 1.4305115e-6f + n * -1.9046542e-9f);
    let e = rk_f32_em1(hi, lo);
    let y = rk_f32_fast_two_sum(1.0f, e.x);
    return rk_f32_ldexp(y.x + (y.y + e.y), i32(n) + s);
}

fn rk_f32_expm1_dd(x: f32) -> vec2<f32> {
    let n = floor(x * 1.442695e0f + 0.5f);
    let hi = x - n * 6.9314575e-1f;
    let lo = -(n * 1.4305115e-6f + n * -1.9046542e-9f);
    let e = rk_f32_em1(hi, lo);
    let p = rk_f32_pow2(i32(n));
    let a = rk_f32_two_sum(p - 1.0f, p * e.x);
    return rk_f32_fast_two_sum(a.x, a.y + p * e.y);
}

fn rk_f32_hypot(x: f32, y: f32) -> f32 {
    let a = abs(x);
    let b = abs(y);
    if (a == rk_f32_bits(2139095040u) || b == rk_f32_bits(2139095040u)) { return rk_f32_bits(2139095040u); }
    if (((bitcast<u32>(a) & 0x7fffffffu) > 0x7f800000u) || ((bitcast<u32>(b) & 0x7fffffffu) > 0x7f800000u)) { return rk_f32_bits(2143289344u); }
    var m = max(a, b);
    var s = min(a, b);
    if (m == 0.0f) { return 0.0f; }
    var k = 0i;
    // Into [2^-49, 2^50]: the squares and their errors stay normal.
    if (m > 1.1258999e15f) { m = m * 8.271806e-25f; s = s * 8.271806e-25f; k = 80i; }
    else if (m < 8.881784e-16f) { m = m * 1.2676506e30f; s = s * 1.2676506e30f; k = -100i; }
    let m2 = rk_f32_two_prod(m, m);
    let s2 = rk_f32_two_prod(s, s);
    let t = rk_f32_fast_two_sum(m2.x, s2.x);
    let u = rk_f32_fast_two_sum(t.x, t.y + (m2.y + s2.y));
    let r = rk_f32_opq(sqrt(u.x));
    let rr = rk_f32_two_prod(r, r);
    return rk_f32_ldexp(r + ((rk_f32_opq(u.x - rr.x) - rr.y) + u.y) / (2.0f * r), k);
}

fn rk_f32_ldexp(y0: f32, k0: i32) -> f32 {
    var y = y0;
    var k = k0;
    var b = bitcast<u32>(y);
    var e = i32((b >> 23u) & u32(2 * 127 + 1)) - 127;
    // Zero, infinity and NaN keep their value; a subnormal is made normal first.
    if (y == 0.0f || e == 127 + 1) { return y; }
    if (e == -127) {
        y = y * bitcast<f32>(u32(127 + 23 + 1) << 23u);
        k = k - (23 + 1);
        b = bitcast<u32>(y);
        e = i32((b >> 23u) & u32(2 * 127 + 1)) - 127;
    }
    let f = clamp(e + k, -2 * 127 - 23 - 4, 2 * 127 + 2);
    let sig = b & ((u32(1) << 23u) - u32(1));
    let sign = b & (u32(1) << 31u);
    if (f > 127) { return bitcast<f32>(sign | (u32(2 * 127 + 1) << 23u)); }
    if (f >= 1 - 127) { return bitcast<f32>(sign | (u32(f + 127) << 23u) | sig); }
    // Below the normal range: the significand at the smallest normal exponent, times a power
    // of two that is itself normal (the product is far below the smallest subnormal when not).
    let m = bitcast<f32>(sign | (u32(1) << 23u) | sig);
    let d = max(f - (1 - 127), -(23 + 3));
    return m * bitcast<f32>(u32(d + 127) << 23u);
}

fn rk_f32_ln(x: f32) -> f32 {
    if (!(x >= 0.0f)) { return rk_f32_bits(2143289344u); }
    if (x == 0.0f) { return -rk_f32_bits(2139095040u); }
    if (x == rk_f32_bits(2139095040u)) { return x; }
    let l = rk_f32_log_dd(x);
    return l.x + l.y;
}

fn rk_f32_log10(x: f32) -> f32 {
    if (!(x >= 0.0f)) { return rk_f32_bits(2143289344u); }
    if (x == 0.0f) { return -rk_f32_bits(2139095040u); }
    if (x == rk_f32_bits(2139095040u)) { return x; }
    let l = rk_f32_log_dd(x);
    let q = rk_f32_two_prod(l.x, 4.342945e-1f);
    return q.x + (q.y + (l.x * -1.010305e-8f + l.y * 4.342945e-1f));
}

fn rk_f32_log2(x: f32) -> f32 {
    if (!(x >= 0.0f)) { return rk_f32_bits(2143289344u); }
    if (x == 0.0f) { return -rk_f32_bits(2139095040u); }
    if (x == rk_f32_bits(2139095040u)) { return x; }
    let p = rk_f32_log_parts(x);
    let q = rk_f32_two_prod(p.y, 1.442695e0f);
    let s = rk_f32_two_sum(p.x, q.x);
    return s.x + (s.y + (q.y + (p.y * 1.925963e-8f + p.z * 1.442695e0f)));
}

fn rk_f32_log_dd(x: f32) -> vec2<f32> {
    let p = rk_f32_log_parts(x);
    let e = p.x;
    let a = rk_f32_two_sum(e * 6.9314575e-1f, p.y);
    return rk_f32_fast_two_sum(a.x, a.y + (e * 1.4305115e-6f + (p.z + e * -1.9046542e-9f)));
}

fn rk_f32_log_parts(x: f32) -> vec3<f32> {
    var v = x;
    var e = -127i;
    if (v < 1.1754944e-38f) { v = v * 1.6777216e7f; e = e - 24i; }
    let b = bitcast<u32>(v);
    e = e + i32(b >> 23u);
    var m = bitcast<f32>((b & 0x7fffffu) | 0x3f800000u);
    if (m > 1.4142135e0f) { m = 0.5f * m; e = e + 1i; }
    let f = rk_f32_opq(m - 1.0f);
    let d = rk_f32_fast_two_sum(2.0f, f);
    let sh = rk_f32_opq(f / d.x);
    let sd = rk_f32_two_prod(sh, d.x);
    let sl = ((rk_f32_opq(f - sd.x) - sd.y) - sh * d.y) / d.x;
    let z = rk_f32_two_prod(sh, sh);
    let zl = z.y + 2.0f * sh * sl;
    let q = fma(fma(fma(fma(fma(1.3333334e-1f, z.x, 1.5384616e-1f), z.x, 1.8181819e-1f), z.x, 2.2222222e-1f), z.x, 2.857143e-1f), z.x, 4e-1f);
    let t = rk_f32_fast_two_sum(6.666667e-1f, z.x * q);
    let tl = t.y + (-1.9868216e-8f + zl * q);
    let sz = rk_f32_two_prod(sh, z.x);
    let szl = sz.y + (sh * zl + sl * z.x);
    let p = rk_f32_two_prod(sz.x, t.x);
    let pl = p.y + (sz.x * tl + szl * t.x);
    let a = rk_f32_fast_two_sum(2.0f * sh, p.x);
    let r = rk_f32_fast_two_sum(a.x, a.y + (2.0f * sl + pl));
    return vec3<f32>(f32(e), r.x, r.y);
}

fn rk_f32_opq(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    return bitcast<f32>(b ^ u32(b == 0x7fc0beefu));
}

fn rk_f32_pow2(k: i32) -> f32 { return bitcast<f32>(u32(k + 127i) << 23u); }

fn rk_f32_pow_core(x: f32, y: f32) -> f32 {
    let l = rk_f32_log_dd(x);
    let p = rk_f32_two_prod(y, l.x);
    if (p.x > 90.0f) { return rk_f32_bits(2139095040u); }
    if (p.x < -104.0f) { return 0.0f; }
    let n = floor(p.x * 1.442695e0f + 0.5f);
    let hi = p.x - n * 6.9314575e-1f;
    let lo = (p.y + y * l.y) - (n * 1.4305115e-6f + n * -1.9046542e-9f);
    let e = rk_f32_em1(hi, lo);
    let w = rk_f32_fast_two_sum(1.0f, e.x);
    return rk_f32_ldexp(w.x + (w.y + e.y), i32(n));
}
fn rk_f32_powf(x: f32, y: f32) -> f32 {
    if (y == 0.0f || x == 1.0f) { return 1.0f; }
    if (((bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u) || ((bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u)) { return rk_f32_bits(2143289344u); }
    let ax = abs(x);
    let ay = abs(y);
    if (ay == rk_f32_bits(2139095040u)) {
        if (ax == 1.0f) { return 1.0f; }
        return select(0.0f, rk_f32_bits(2139095040u), (ax > 1.0f) == (y > 0.0f));
    }
    let xneg = (bitcast<u32>(x) >> 31u) == 1u;
    let yint = floor(y) == y;
    let odd = xneg && yint && ay < 1.6777216e7f && !(floor(0.5f * y) == 0.5f * y);
    var r: f32;
    if (ax == 0.0f) {
        r = select(0.0f, rk_f32_bits(2139095040u), y < 0.0f);
    } else if (ax == rk_f32_bits(2139095040u)) {
        r = select(rk_f32_bits(2139095040u), 0.0f, y < 0.0f);
    } else {
        if (xneg && !yint) { return rk_f32_bits(2143289344u); }
        r = rk_f32_pow_core(ax, y);
    }
    return select(r, -r, odd);
}

const RK_F32_TWO_OVER_PI = array<u32, 10>(0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u);
fn rk_f32_rem_pio2(x: f32) -> vec3<f32> {
    if (abs(x) <= 7.853982e-1f) { return vec3<f32>(x, 0.0f, 0.0f); }
    let b = bitcast<u32>(x);
    let mant = (b & 0x7fffffu) | 0x800000u;
    // |x| = mant·2^ex with ex >= -24 here; the table starts with two zero words.
    let sh = i32((b >> 23u) & 0xffu) - 150i + 32i;
    let q = sh / 32i;
    let rho = u32(sh % 32i);
    // M·2^rho in two 32-bit limbs (the high one shifted in two steps: a shift by 32 is not one).
    var m: array<u32, 2>;
    m[0] = mant << rho;
    m[1] = (mant >> 1u) >> (31u - rho);
    // acc = Σ_j (M·2^rho)·T[q + j]·2^(32·(7 - j)); the integer part of x·2/π is at limb 7.
    var acc: array<u32, 10>;
    for (var j = 0i; j < 6i; j = j + 1i) {
        let w = RK_F32_TWO_OVER_PI[q + j];
        var carry = 0u;
        var pos = 7i - j;
        for (var k = 0i; k < 2i; k = k + 1i) {
            let t = rk_u32_mac(acc[pos], m[k], w, carry);
            acc[pos] = t.x;
            carry = t.y;
            pos = pos + 1i;
        }
        loop {
            if (carry == 0u || pos >= 10i) { break; }
            let t = acc[pos] + carry;
            carry = select(0u, 1u, t < carry);
            acc[pos] = t;
            pos = pos + 1i;
        }
    }
    // The 96-bit fraction, rounded to the nearest quadrant: above 1/2 it becomes 1 - f (negated).
    var f2 = acc[6];
    var f1 = acc[5];
    var f0 = acc[4];
    let up = f2 >= 0x80000000u;
    var n = i32(acc[7] & 3u) + select(0i, 1i, up);
    if (up) {
        f2 = ~f2;
        f1 = ~f1;
        f0 = ~f0 + 1u;
        if (f0 == 0u) { f1 = f1 + 1u; if (f1 == 0u) { f2 = f2 + 1u; } }
    }
    // Normalise: the leading one to bit 31 of f2, counting the shift in e.
    var e = 0i;
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = 0u; e = 32i; }
    if (f2 == 0u) { f2 = f1; f1 = 0u; e = 64i; }
    let z = countLeadingZeros(f2);
    if (z > 0u && z < 32u) {
        f2 = (f2 << z) | (f1 >> (32u - z));
        f1 = (f1 << z) | (f0 >> (32u - z));
    }
    e = e + i32(z);
    // |f| = (f2·2^-32 + f1·2^-64)·2^-e: 48 bits as two exact f32s, then r = f·π/2.
    let fh = f32(f2 >> 8u) * 5.9604645e-8f;
    let fl = f32(((f2 & 0xffu) << 16u) | (f1 >> 16u)) * 3.5527137e-15f;
    let s = rk_f32_fast_two_sum(fh, fl);
    let p = rk_f32_two_prod(s.x, 1.5707964e0f);
    var r = rk_f32_fast_two_sum(p.x, p.y + (s.x * -4.371139e-8f + s.y * 1.5707964e0f));
    let k = rk_f32_pow2(-e);
    r = vec2<f32>(r.x * k, r.y * k);
    if (up) { r = -r; }
    if (x < 0.0f) { r = -r; n = -n; }
    return vec3<f32>(r.x, r.y, f32(n));
}

fn rk_f32_sin(x: f32) -> f32 {
    if (abs(x) < 2.4414063e-4f) { return x; }
    if (!(abs(x) <= 3.4028235e38f)) { return rk_f32_bits(2143289344u); }
    let r = rk_f32_rem_pio2(x);
    let q = i32(r.z) & 3i;
    var v: vec2<f32>;
    if ((q & 1i) == 0i) { v = rk_f32_sin_k(r.x, r.y); } else { v = rk_f32_cos_k(r.x, r.y); }
    let s = v.x + v.y;
    return select(s, -s, q >= 2i);
}

fn rk_f32_sin_k(h: f32, l: f32) -> vec2<f32> {
    let z = rk_f32_two_prod(h, h);
    let u = rk_f32_two_prod(h, z.x);
    let c = rk_f32_two_prod(u.x, -1.6666667e-1f);
    let t = c.y + (u.x * 4.967054e-9f + (u.y + h * z.y) * -1.6666667e-1f) + u.x * z.x * fma(fma(fma(fma(1.6059044e-10f, z.x, -2.5052108e-8f), z.x, 2.7557319e-6f), z.x, -1.984127e-4f), z.x, 8.333334e-3f);
    let s = rk_f32_fast_two_sum(h, c.x);
    return vec2<f32>(s.x, s.y + (t + l * (1.0f - 0.5f * z.x)));
}

fn rk_f32_sinh(x: f32) -> f32 {
    let a = abs(x);
    // Below the threshold sinh x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= 2.4414063e-4f)) { return x; }
    var r = rk_f32_bits(2139095040u);
    if (a < 12.0f) {
        // sinh a = (t + t / (1 + t)) / 2 with t = expm1(a), in double-float.
        let t = rk_f32_expm1_dd(a);
        let e = rk_f32_two_sum(1.0f, t.x);
        let q = rk_f32_div_dd(t, vec2<f32>(e.x, e.y + t.y));
        let s = rk_f32_two_sum(t.x, q.x);
        r = 0.5f * (s.x + (s.y + (t.y + q.y)));
    } else if (a <= 90.0f) {
        r = rk_f32_exp_scaled(a, -1i);
    }
    return select(r, -r, x < 0.0f);
}

fn rk_f32_tan(x: f32) -> f32 {
    if (abs(x) < 2.4414063e-4f) { return x; }
    if (!(abs(x) <= 3.4028235e38f)) { return rk_f32_bits(2143289344u); }
    let r = rk_f32_rem_pio2(x);
    let q = i32(r.z) & 3i;
    let odd = (q & 1i) == 1i;
    let s = rk_f32_sin_k(r.x, r.y);
    let c = rk_f32_cos_k(r.x, r.y);
    let sn = rk_f32_fast_two_sum(s.x, s.y);
    let cn = rk_f32_fast_two_sum(c.x, c.y);
    // tan = sin/cos in even quadrants, -cos/sin in odd ones.
    let t = rk_f32_div_dd(select(sn, cn, odd), select(cn, sn, odd));
    let v = t.x + t.y;
    return select(v, -v, odd);
}

fn rk_f32_tanh(x: f32) -> f32 {
    let a = abs(x);
    // Below the threshold tanh x = x to within half an ulp (and keeps -0); NaN passes too.
    if (!(a >= 2.4414063e-4f)) { return x; }
    var r = 1.0f;
    if (a < 10.0f) {
        // tanh a = t / (t + 2) with t = expm1(2a), in double-float.
        let t = rk_f32_expm1_dd(2.0f * a);
        let d = rk_f32_two_sum(t.x, 2.0f);
        let q = rk_f32_div_dd(t, vec2<f32>(d.x, d.y + t.y));
        r = q.x + q.y;
    }
    return select(r, -r, x < 0.0f);
}

fn rk_f32_split(a: f32) -> f32 { return bitcast<f32>((bitcast<u32>(a) + 0x800u) & 0xfffff000u); }
fn rk_f32_two_prod(a: f32, b: f32) -> vec2<f32> {
    let p = a * b;
    let ah = rk_f32_split(a);
    let al = a - ah;
    let bh = rk_f32_split(b);
    let bl = b - bh;
    return vec2<f32>(p, ((ah * bh - rk_f32_opq(p)) + ah * bl + al * bh) + al * bl);
}

fn rk_f32_two_sum(a0: f32, b0: f32) -> vec2<f32> {
    let a = rk_f32_opq(a0);
    let b = rk_f32_opq(b0);
    let s = a + b;
    let bv = rk_f32_opq(rk_f32_opq(s) - a);
    let av = rk_f32_opq(s - bv);
    return vec2<f32>(s, rk_f32_opq(a - av) + rk_f32_opq(b - bv));
}
fn rk_f32_fast_two_sum(a0: f32, b0: f32) -> vec2<f32> {
    let a = rk_f32_opq(a0);
    let b = rk_f32_opq(b0);
    let s = a + b;
    return vec2<f32>(s, b - rk_f32_opq(rk_f32_opq(s) - a));
}

fn rk_u32_mac(c: u32, a: u32, b: u32, d: u32) -> vec2<u32> {
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
