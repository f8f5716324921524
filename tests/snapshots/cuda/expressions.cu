// rokkos kernel `expressions` (IR hash 26c23ec82e062a6b)
typedef unsigned char u8;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;
struct rk_P {
    u32* err;
    u32 launch;
    f64* v0;
    u64 v0_off;
    u64 v0_e0;
    u64 v0_s0;
    u32* v1;
    u64 v1_off;
    u64 v1_e0;
    u64 v1_s0;
    const f64* v2;
    u64 v2_off;
    u64 v2_e0;
    u64 v2_s0;
    i32 s0;
    f64 s1;
    u64 begin;
    u64 n;
};
// The launch's error record: the first failure of the launch wins it.
__device__ __forceinline__ u32* rk_slot(const rk_P& P) { return P.err + (P.launch % 64u) * 20u; }
__device__ __forceinline__ bool rk_oob_begin(const rk_P& P, u32 code, u32 rank) {
    u32* s = rk_slot(P);
    if (atomicMax(s, 1u) == 0u) {
        atomicExch(s + 1, P.launch);
        atomicExch(s + 2, code);
        atomicExch(s + 3, rank);
        return true;
    }
    return false;
}
// Whether this launch has recorded a failure: the entry's loops test it between trips and
// leave (a volatile read: another block may have written the record meanwhile).
__device__ __forceinline__ bool rk_stopped(const rk_P& P) { return *(volatile const u32*)rk_slot(P) != 0u; }
__device__ __forceinline__ void rk_oob_idx(const rk_P& P, u32 d, u64 i) {
    u32* s = rk_slot(P);
    atomicExch(s + 4 + 2 * d, (u32)(i & 0xffffffffull));
    atomicExch(s + 5 + 2 * d, (u32)(i >> 32));
}
__device__ __forceinline__ void rk_fail(const rk_P& P, u32 code) { (void)rk_oob_begin(P, code, 0u); }
__device__ __forceinline__ u64 rk_aix(const rk_P& P, u64 i, u64 n, u32 code) {
    if (i >= n) {
        if (rk_oob_begin(P, code, 1u)) { rk_oob_idx(P, 0u, i); }
        return 0ull;
    }
    return i;
}
__device__ __forceinline__ bool rk_aok(const rk_P& P, u64 i, u64 n, u32 code) {
    if (i >= n) {
        if (rk_oob_begin(P, code, 1u)) { rk_oob_idx(P, 0u, i); }
        return false;
    }
    return true;
}
// All three operands evaluated, as the IR's select.
template <class T> __device__ __forceinline__ T rk_sel(bool c, T t, T f) { return c ? t : f; }
// Two's complement wrapping through the unsigned type of the same width.
template <class T> struct rk_ut;
// u8 and u16 compute in u32 (their C promotion to int could overflow a product) and truncate.
template <> struct rk_ut<u8> { typedef u32 t; };
template <> struct rk_ut<u16> { typedef u32 t; };
template <> struct rk_ut<i32> { typedef u32 t; };
template <> struct rk_ut<u32> { typedef u32 t; };
template <> struct rk_ut<i64> { typedef u64 t; };
template <> struct rk_ut<u64> { typedef u64 t; };
template <class T> __device__ __forceinline__ T rk_wadd(T a, T b) { typedef typename rk_ut<T>::t U; return (T)((U)a + (U)b); }
template <class T> __device__ __forceinline__ T rk_wsub(T a, T b) { typedef typename rk_ut<T>::t U; return (T)((U)a - (U)b); }
template <class T> __device__ __forceinline__ T rk_wmul(T a, T b) { typedef typename rk_ut<T>::t U; return (T)((U)a * (U)b); }
template <class T> __device__ __forceinline__ T rk_wneg(T a) { typedef typename rk_ut<T>::t U; return (T)((U)0 - (U)a); }
template <class T> __device__ __forceinline__ T rk_wshl(T a, u32 n) { typedef typename rk_ut<T>::t U; return (T)((U)a << n); }
// Arithmetic for signed types, logical for unsigned ones (NVCC's signed >> is arithmetic).
template <class T> __device__ __forceinline__ T rk_wshr(T a, u32 n) { return (T)(a >> n); }
template <class T> __device__ __forceinline__ T rk_imin(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T rk_imax(T a, T b) { return b > a ? b : a; }
__device__ __forceinline__ f32 rk_f32_bits(u32 b) { return __uint_as_float(b); }
__device__ __forceinline__ f64 rk_f64_bits(u64 b) { return __longlong_as_double((long long)b); }
// The WGSL built-ins the math library uses.
template <class T> struct rk_vec2 { T x, y; __device__ __forceinline__ rk_vec2() : x(0), y(0) {} __device__ __forceinline__ rk_vec2(T a, T b) : x(a), y(b) {} __device__ __forceinline__ rk_vec2 operator-() const { return rk_vec2(-x, -y); } };
template <class T> struct rk_vec3 { T x, y, z; __device__ __forceinline__ rk_vec3() : x(0), y(0), z(0) {} __device__ __forceinline__ rk_vec3(T a, T b, T c) : x(a), y(b), z(c) {} __device__ __forceinline__ rk_vec3 operator-() const { return rk_vec3(-x, -y, -z); } };
template <class T> struct rk_bits_of;
template <> struct rk_bits_of<f64> { static __device__ __forceinline__ u64 to(f64 x) { return (u64)__double_as_longlong(x); } };
template <> struct rk_bits_of<f32> { static __device__ __forceinline__ u32 to(f32 x) { return __float_as_uint(x); } };
template <> struct rk_bits_of<u64> { static __device__ __forceinline__ u64 to(u64 x) { return x; } };
template <> struct rk_bits_of<i64> { static __device__ __forceinline__ u64 to(i64 x) { return (u64)x; } };
template <> struct rk_bits_of<u32> { static __device__ __forceinline__ u32 to(u32 x) { return x; } };
template <> struct rk_bits_of<i32> { static __device__ __forceinline__ u32 to(i32 x) { return (u32)x; } };
template <class T> struct rk_from_bits;
template <> struct rk_from_bits<f64> { static __device__ __forceinline__ f64 from(u64 b) { return __longlong_as_double((long long)b); } };
template <> struct rk_from_bits<f32> { static __device__ __forceinline__ f32 from(u32 b) { return __uint_as_float(b); } };
template <> struct rk_from_bits<u64> { static __device__ __forceinline__ u64 from(u64 b) { return b; } };
template <> struct rk_from_bits<i64> { static __device__ __forceinline__ i64 from(u64 b) { return (i64)b; } };
template <> struct rk_from_bits<u32> { static __device__ __forceinline__ u32 from(u32 b) { return b; } };
template <> struct rk_from_bits<i32> { static __device__ __forceinline__ i32 from(u32 b) { return (i32)b; } };
template <class T, class F> __device__ __forceinline__ T rk_bitcast(F x) { return rk_from_bits<T>::from(rk_bits_of<F>::to(x)); }
template <class T> __device__ __forceinline__ T rk_select(T f, T t, bool c) { return c ? t : f; }
template <class T> __device__ __forceinline__ T rk_min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T rk_max(T a, T b) { return b > a ? b : a; }
__device__ __forceinline__ f64 rk_min(f64 a, f64 b) { return fmin(a, b); }
__device__ __forceinline__ f64 rk_max(f64 a, f64 b) { return fmax(a, b); }
__device__ __forceinline__ f32 rk_min(f32 a, f32 b) { return fminf(a, b); }
__device__ __forceinline__ f32 rk_max(f32 a, f32 b) { return fmaxf(a, b); }
template <class T> __device__ __forceinline__ T rk_clamp(T x, T lo, T hi) { return rk_min(rk_max(x, lo), hi); }
__device__ __forceinline__ i32 rk_abs(i32 x) { return x < 0 ? (i32)(0u - (u32)x) : x; }
__device__ __forceinline__ f64 rk_abs(f64 x) { return fabs(x); }
__device__ __forceinline__ f32 rk_abs(f32 x) { return fabsf(x); }
__device__ __forceinline__ f64 rk_floor(f64 x) { return floor(x); }
__device__ __forceinline__ f32 rk_floor(f32 x) { return floorf(x); }
__device__ __forceinline__ f64 rk_ceil(f64 x) { return ceil(x); }
__device__ __forceinline__ f32 rk_ceil(f32 x) { return ceilf(x); }
__device__ __forceinline__ f64 rk_trunc(f64 x) { return trunc(x); }
__device__ __forceinline__ f32 rk_trunc(f32 x) { return truncf(x); }
__device__ __forceinline__ f64 rk_sqrt(f64 x) { return sqrt(x); }
__device__ __forceinline__ f32 rk_sqrt(f32 x) { return sqrtf(x); }
__device__ __forceinline__ f64 rk_fma(f64 a, f64 b, f64 c) { return fma(a, b, c); }
__device__ __forceinline__ f32 rk_fma(f32 a, f32 b, f32 c) { return fmaf(a, b, c); }

__device__ f64 rk_f64_atan2(f64 y, f64 x);
__device__ rk_vec2<f64> rk_f64_atan_dd(f64 a, f64 al);
__device__ f64 rk_f64_cos(f64 x);
__device__ rk_vec2<f64> rk_f64_cos_k(f64 h, f64 l);
__device__ rk_vec2<f64> rk_f64_div_dd(rk_vec2<f64> n, rk_vec2<f64> d);
__device__ rk_vec2<f64> rk_f64_fast_two_sum(f64 a0, f64 b0);
__device__ f64 rk_f64_hypot(f64 x, f64 y);
__device__ f64 rk_f64_opq(f64 x);
__device__ f64 rk_f64_pow2(i32 k);
__device__ rk_vec3<f64> rk_f64_rem_pio2(f64 x);
__device__ rk_vec3<f64> rk_f64_rem_pio2_large(f64 x);
__device__ f64 rk_f64_scale(f64 y, i32 k);
__device__ f64 rk_f64_sin(f64 x);
__device__ rk_vec2<f64> rk_f64_sin_k(f64 h, f64 l);
__device__ f64 rk_f64_split(f64 a);
__device__ rk_vec2<f64> rk_f64_two_prod(f64 a, f64 b);
__device__ rk_vec2<f64> rk_f64_two_sum(f64 a0, f64 b0);

__device__ __forceinline__ u32 rk_cadd_u32(const rk_P& P, u32 a, u32 b) {
    const u32 r = rk_wadd<u32>(a, b);
    if (r < a) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ f64 rk_clamp_f64(const rk_P& P, f64 x, f64 lo, f64 hi) {
    if (!(lo <= hi)) { if (rk_oob_begin(P, 4206u, 2u)) { rk_oob_idx(P, 0u, (u64)__double_as_longlong(lo)); rk_oob_idx(P, 1u, (u64)__double_as_longlong(hi)); } }
    if (x < lo) { return lo; }
    if (x > hi) { return hi; }
    return x;
}

__device__ __forceinline__ i32 rk_cmul_i32(const rk_P& P, i32 a, i32 b) {
    const i32 r = rk_wmul<i32>(a, b);
    if ((i64)a * (i64)b != (i64)r) { rk_fail(P, 4102u); }
    return r;
}

__device__ __forceinline__ u32 rk_cshl_u32_i32(const rk_P& P, u32 a, i32 n) {
    if ((u64)(u32)n >= 32ull) { rk_fail(P, 4104u); }
    return rk_wshl<u32>(a, (u32)(n & 31));
}

__device__ __forceinline__ u32 rk_cshr_u32_i32(const rk_P& P, u32 a, i32 n) {
    if ((u64)(u32)n >= 32ull) { rk_fail(P, 4105u); }
    return rk_wshr<u32>(a, (u32)(n & 31));
}

__device__ __forceinline__ i32 rk_csub_i32(const rk_P& P, i32 a, i32 b) {
    const i32 r = rk_wsub<i32>(a, b);
    if (((a ^ b) & (a ^ r)) < 0) { rk_fail(P, 4101u); }
    return r;
}

__device__ f64 rk_f64_atan2(f64 y, f64 x) {
    if (((rk_bitcast<u64>(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) || ((rk_bitcast<u64>(y) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)) { return f64(rk_f32_bits(2143289344u)); }
    const auto ax = rk_abs(x);
    const auto ay = rk_abs(y);
    const auto xneg = (rk_bitcast<u64>(x) >> 63u) == 1ull;
    f64 v{};
    if (ay == 0.0) {
        v = rk_select(0.0, 3.141592653589793e0, xneg);
    } else if (ax == 0.0) {
        v = 1.5707963267948966e0;
    } else if (ay == f64(rk_f32_bits(2139095040u))) {
        v = rk_select(1.5707963267948966e0, rk_select(7.853981633974483e-1, 2.356194490192345e0, xneg), ax == f64(rk_f32_bits(2139095040u)));
    } else if (ax == f64(rk_f32_bits(2139095040u))) {
        v = rk_select(0.0, 3.141592653589793e0, xneg);
    } else {
        // Exponents from the bits (both normal where it matters: a subnormal pair is scaled
        // up first, and a subnormal beside a normal number lands in the d < -60 case).
        auto sx = ax;
        auto sy = ay;
        if (rk_max(ax, ay) < 1.1830521861667747e-271) { sx = sx * 1.0715086071862673e301; sy = sy * 1.0715086071862673e301; }
        const auto ex = i32(rk_bitcast<u64>(sx) >> 52u);
        const auto d = i32(rk_bitcast<u64>(sy) >> 52u) - ex;
        rk_vec2<f64> z{};
        if (d > 60) {
            z = rk_vec2<f64>(1.5707963267948966e0, 6.123233995736766e-17);
        } else if (d < -60) {
            z = rk_vec2<f64>(ay / ax, 0.0);
        } else {
            // Both scaled by the same power of two, |x| into [1, 2): exact.
            const auto k = 1023 - ex;
            const auto q = rk_f64_div_dd(rk_vec2<f64>(rk_f64_scale(sy, k), 0.0), rk_vec2<f64>(rk_f64_scale(sx, k), 0.0));
            z = rk_f64_atan_dd(q.x, q.y);
        }
        if (xneg) {
            const auto p = rk_f64_two_sum(3.141592653589793e0, -z.x);
            v = p.x + (p.y + (1.2246467991473532e-16 - z.y));
        } else {
            v = z.x + z.y;
        }
    }
    return rk_select(v, -v, (rk_bitcast<u64>(y) >> 63u) == 1ull);
}

__device__ rk_vec2<f64> rk_f64_atan_dd(f64 a, f64 al) {
    auto base = rk_vec2<f64>(0.0, 0.0);
    auto num = a;
    auto den = rk_vec2<f64>(1.0, 0.0);
    if (a > 4.0) {
        base = rk_vec2<f64>(1.5707963267948966e0, 6.123233995736766e-17);
        num = -1.0;
        den = rk_vec2<f64>(a, 0.0);
    } else if (a > 1.3333333333333333) {
        base = rk_vec2<f64>(1.1071487177940904e0, 9.40447137356638e-17);
        num = a - 2.0;
        den = rk_f64_fast_two_sum(2.0 * a, 1.0);
    } else if (a > 0.75) {
        base = rk_vec2<f64>(7.853981633974483e-1, 3.061616997868383e-17);
        num = a - 1.0;
        den = rk_f64_two_sum(a, 1.0);
    } else if (a > 0.25) {
        base = rk_vec2<f64>(4.636476090008061e-1, 2.2698777452961687e-17);
        num = 2.0 * a - 1.0;
        den = rk_f64_fast_two_sum(2.0, a);
    }
    const auto u = rk_f64_div_dd(rk_vec2<f64>(num, 0.0), den);
    const auto z = u.x * u.x;
    const auto tail = u.x * z * rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(-4.1034266985419496e-2, z, 5.7529943904780285e-2), z, -6.658687414697743e-2), z, 7.692017877237385e-2), z, -9.090902874969416e-2), z, 1.1111111035986847e-1), z, -1.428571428525851e-1), z, 1.9999999999998933e-1), z, -3.333333333333333e-1) + u.y * (1.0 - z) + al / (1.0 + a * a);
    const auto s = rk_f64_two_sum(base.x, u.x);
    return rk_vec2<f64>(s.x, s.y + (base.y + tail));
}

__device__ f64 rk_f64_cos(f64 x) {
    if (rk_abs(x) < 7.450580596923828e-9) { return 1.0; }
    if (!(rk_abs(x) <= 1.7976931348623157e308)) { return f64(rk_f32_bits(2143289344u)); }
    const auto r = rk_f64_rem_pio2(x);
    const auto q = i32(r.z) & 3;
    rk_vec2<f64> v{};
    if ((q & 1) == 0) { v = rk_f64_cos_k(r.x, r.y); } else { v = rk_f64_sin_k(r.x, r.y); }
    const auto s = v.x + v.y;
    return rk_select(s, -s, q == 1 || q == 2);
}

__device__ rk_vec2<f64> rk_f64_cos_k(f64 h, f64 l) {
    const auto z = rk_f64_two_prod(h, h);
    const auto w = rk_f64_fast_two_sum(1.0, -0.5 * z.x);
    return rk_vec2<f64>(w.x, w.y + (z.x * z.x * rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(-1.5619206968586225e-16, z.x, 4.779477332387385e-14), z.x, -1.1470745597729725e-11), z.x, 2.08767569878681e-9), z.x, -2.755731922398589e-7), z.x, 2.48015873015873e-5), z.x, -1.388888888888889e-3), z.x, 4.1666666666666664e-2) - (0.5 * z.y + h * l)));
}

__device__ rk_vec2<f64> rk_f64_div_dd(rk_vec2<f64> n, rk_vec2<f64> d) {
    const auto nx = rk_f64_opq(n.x);
    const auto q = rk_f64_opq(nx / d.x);
    const auto p = rk_f64_two_prod(q, d.x);
    return rk_vec2<f64>(q, (rk_f64_opq(nx - p.x) - p.y + (n.y - q * d.y)) / d.x);
}

__device__ f64 rk_f64_hypot(f64 x, f64 y) {
    const auto a = rk_abs(x);
    const auto b = rk_abs(y);
    if (a == f64(rk_f32_bits(2139095040u)) || b == f64(rk_f32_bits(2139095040u))) { return f64(rk_f32_bits(2139095040u)); }
    if (((rk_bitcast<u64>(a) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) || ((rk_bitcast<u64>(b) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)) { return f64(rk_f32_bits(2143289344u)); }
    auto m = rk_max(a, b);
    auto s = rk_min(a, b);
    if (m == 0.0) { return 0.0; }
    auto k = 0;
    if (m > 2.037035976334486e90) { m = m * 2.409919865102884e-181; s = s * 2.409919865102884e-181; k = 600; }
    else if (m < 4.909093465297727e-91) { m = m * 4.149515568880993e180; s = s * 4.149515568880993e180; k = -600; }
    const auto m2 = rk_f64_two_prod(m, m);
    const auto s2 = rk_f64_two_prod(s, s);
    const auto t = rk_f64_fast_two_sum(m2.x, s2.x);
    const auto u = rk_f64_fast_two_sum(t.x, t.y + (m2.y + s2.y));
    const auto r = rk_f64_opq(rk_sqrt(u.x));
    const auto rr = rk_f64_two_prod(r, r);
    return rk_f64_scale(r + ((rk_f64_opq(u.x - rr.x) - rr.y) + u.y) / (2.0 * r), k);
}

__device__ f64 rk_f64_opq(f64 x) {
    const auto b = rk_bitcast<u64>(x);
    return rk_bitcast<f64>(b ^ u64(b == 0x7ff8dead0000beefull));
}

__device__ rk_vec3<f64> rk_f64_rem_pio2(f64 x) {
    if (rk_abs(x) <= 7.853981633974483e-1) { return rk_vec3<f64>(x, 0.0, 0.0); }
    if (rk_abs(x) >= 1.6e6) { return rk_f64_rem_pio2_large(x); }
    const auto n = rk_floor(x * 6.366197723675814e-1 + 0.5);
    // n·CW1, n·CW2, n·CW3 are exact and x - n·CW1 is exact (Sterbenz).
    const auto s1 = rk_f64_two_sum(x - n * 1.5707963267341256e0, -(n * 6.077100506303966e-11));
    const auto s2 = rk_f64_two_sum(s1.x, -(n * 2.0222662487111665e-21));
    const auto r = rk_f64_two_sum(s2.x, (s1.y + s2.y) - n * 8.4784276603689e-32);
    return rk_vec3<f64>(r.x, r.y, n);
}

__device__ const u32 RK_F64_TWO_OVER_PI[39] = {0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u};
__device__ rk_vec3<f64> rk_f64_rem_pio2_large(f64 x) {
    const auto b = rk_bitcast<u64>(x);
    const auto mant = (b & 0xfffffffffffffull) | 0x0010000000000000ull;
    // |x| = mant·2^ex; the table starts with two zero words so that ex + 32 >= 0.
    const auto sh = i32((b >> 52u) & 0x7ffull) - 1075 + 32;
    const auto q = sh / 32;
    const auto rho = u32(sh % 32);
    // M·2^rho in three 32-bit limbs.
    u32 m[3] = {};
    m[0] = u32((mant << rho) & 0xffffffffull);
    m[1] = u32((mant << rho) >> 32u);
    m[2] = rk_select(u32(mant >> (64u - rho)), 0u, rho == 0u);
    // acc = Σ_j (M·2^rho)·T[q + j]·2^(32·(7 - j)); the integer part of x·2/π is at limb 7.
    u32 acc[12] = {};
    for (auto j = 0; j < 8; j = j + 1) {
        const auto w = u64(RK_F64_TWO_OVER_PI[q + j]);
        auto carry = 0ull;
        auto pos = 7 - j;
        for (auto k = 0; k < 3; k = k + 1) {
            const auto t = u64(acc[pos]) + u64(m[k]) * w + carry;
            acc[pos] = u32(t & 0xffffffffull);
            carry = t >> 32u;
            pos = pos + 1;
        }
        for (;;) {
            if (carry == 0ull || pos >= 12) { break; }
            const auto t = u64(acc[pos]) + carry;
            acc[pos] = u32(t & 0xffffffffull);
            carry = t >> 32u;
            pos = pos + 1;
        }
    }
    // The fraction f in [-1/2, 1/2) (rounding the quotient to the nearest integer).
    const auto up = acc[6] >= 0x80000000u;
    auto n = i32(acc[7] & 3u) + rk_select(0, 1, up);
    const auto f1 = f64(acc[6]) * 2.3283064365386963e-10 - rk_select(0.0, 1.0, up);
    const auto s1 = rk_f64_two_sum(f1, f64(acc[5]) * 5.421010862427522e-20);
    const auto s2 = rk_f64_two_sum(s1.x, f64(acc[4]) * 1.262177448353619e-29);
    const auto f = rk_f64_fast_two_sum(s2.x, (s1.y + s2.y) + f64(acc[3]) * 2.938735877055719e-39);
    // r = f·π/2
    const auto p = rk_f64_two_prod(f.x, 1.5707963267948966e0);
    auto r = rk_f64_fast_two_sum(p.x, p.y + (f.x * 6.123233995736766e-17 + f.y * 1.5707963267948966e0));
    if (x < 0.0) { r = -r; n = -n; }
    return rk_vec3<f64>(r.x, r.y, f64(n));
}

__device__ f64 rk_f64_pow2(i32 k) { return rk_bitcast<f64>(u64(k + 1023) << 52u); }
__device__ f64 rk_f64_scale(f64 y, i32 k) {
    const auto kk = rk_clamp(k, -2000, 2000);
    const auto k1 = kk / 2;
    return (y * rk_f64_pow2(k1)) * rk_f64_pow2(kk - k1);
}

__device__ f64 rk_f64_sin(f64 x) {
    if (rk_abs(x) < 1.4901161193847656e-8) { return x; }
    if (!(rk_abs(x) <= 1.7976931348623157e308)) { return f64(rk_f32_bits(2143289344u)); }
    const auto r = rk_f64_rem_pio2(x);
    const auto q = i32(r.z) & 3;
    rk_vec2<f64> v{};
    if ((q & 1) == 0) { v = rk_f64_sin_k(r.x, r.y); } else { v = rk_f64_cos_k(r.x, r.y); }
    const auto s = v.x + v.y;
    return rk_select(s, -s, q >= 2);
}

__device__ rk_vec2<f64> rk_f64_sin_k(f64 h, f64 l) {
    const auto z = h * h;
    return rk_vec2<f64>(h, h * z * rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(rk_fma(2.8114572543455206e-15, z, -7.647163731819816e-13), z, 1.6059043836821613e-10), z, -2.505210838544172e-8), z, 2.7557319223985893e-6), z, -1.984126984126984e-4), z, 8.333333333333333e-3), z, -1.6666666666666666e-1) + l * (1.0 - 0.5 * z));
}

__device__ f64 rk_f64_split(f64 a) { return rk_bitcast<f64>((rk_bitcast<u64>(a) + 0x4000000ull) & 0xfffffffff8000000ull); }
__device__ rk_vec2<f64> rk_f64_two_prod(f64 a, f64 b) {
    const auto p = a * b;
    const auto ah = rk_f64_split(a);
    const auto al = a - ah;
    const auto bh = rk_f64_split(b);
    const auto bl = b - bh;
    return rk_vec2<f64>(p, ((ah * bh - rk_f64_opq(p)) + ah * bl + al * bh) + al * bl);
}

__device__ rk_vec2<f64> rk_f64_two_sum(f64 a0, f64 b0) {
    const auto a = rk_f64_opq(a0);
    const auto b = rk_f64_opq(b0);
    const auto s = a + b;
    const auto bv = rk_f64_opq(rk_f64_opq(s) - a);
    const auto av = rk_f64_opq(s - bv);
    return rk_vec2<f64>(s, rk_f64_opq(a - av) + rk_f64_opq(b - bv));
}
__device__ rk_vec2<f64> rk_f64_fast_two_sum(f64 a0, f64 b0) {
    const auto a = rk_f64_opq(a0);
    const auto b = rk_f64_opq(b0);
    const auto s = a + b;
    return rk_vec2<f64>(s, b - rk_f64_opq(rk_f64_opq(s) - a));
}

__device__ __forceinline__ f64 rk_fmax_f64(f64 x, f64 y) {
    if (!(x == x) || y > x) { return y; }
    return x;
}

__device__ __forceinline__ f64 rk_ld0(const rk_P& P, u64 i0) {
    if (i0 >= P.v0_e0) {
        if (rk_oob_begin(P, 0u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return 0.0;
    }
    return P.v0[P.v0_off + i0 * P.v0_s0];
}

__device__ __forceinline__ u32 rk_ld1(const rk_P& P, u64 i0) {
    if (i0 >= P.v1_e0) {
        if (rk_oob_begin(P, 1u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return 0u;
    }
    return P.v1[P.v1_off + i0 * P.v1_s0];
}

__device__ __forceinline__ f64 rk_ld2(const rk_P& P, u64 i0) {
    if (i0 >= P.v2_e0) {
        if (rk_oob_begin(P, 2u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return 0.0;
    }
    return P.v2[P.v2_off + i0 * P.v2_s0];
}

__device__ __forceinline__ f64 rk_powi_f64(f64 a, i32 b) {
    const bool recip = b < 0; f64 r = 1.0;
    for (;;) {
        if ((b & 1) != 0) { r = r * a; }
        b = b / 2;
        if (b == 0) { break; }
        a = a * a;
    }
    return recip ? 1.0 / r : r;
}

__device__ __forceinline__ f64 rk_signum_f64(f64 x) {
    if (!(x == x)) { return x; }
    return copysign(1.0, x);
}

__device__ __forceinline__ void rk_st0(const rk_P& P, u64 i0, f64 x) {
    if (i0 >= P.v0_e0) {
        if (rk_oob_begin(P, 0u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return;
    }
    P.v0[P.v0_off + i0 * P.v0_s0] = x;
}

__device__ __forceinline__ void rk_st1(const rk_P& P, u64 i0, u32 x) {
    if (i0 >= P.v1_e0) {
        if (rk_oob_begin(P, 1u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return;
    }
    P.v1[P.v1_off + i0 * P.v1_s0] = x;
}

__device__ __forceinline__ void rk_work(const rk_P& P, const u64 w0) {
    f64 l0 = 0.0;
    i32 l1 = 0;
    f64 l2 = 0.0;
    f64 l3 = 0.0;
    f64 l4 = 0.0;
    f64 l5 = 0.0;
    f64 l6[3] = {};
    f64 l7[3] = {};
    u64 l8 = 0ull;
    bool l9 = false;
    f64 l10 = 0.0;
    f64 l11 = 0.0;
    u32 l12 = 0u;
    l0 = rk_ld2(P, w0);
    l1 = rk_csub_i32(P, rk_cmul_i32(P, ((i32)(w0)), P.s0), 3);
    l2 = (l0 * (5e-1));
    l3 = (1.5e0);
    l4 = (((sqrt(fabs(l0)) + (rk_f64_sin(l0) * rk_f64_cos(l0))) - exp(l2)) + rk_f64_atan2(l0, l3));
    l4 = (l4 + ((rk_powi_f64(rk_fmax_f64(l0, P.s1), 2) + fma(l0, (2e0), (-1e0))) + rk_signum_f64(((f64)(l1)))));
    l4 = (l4 + ((((l0 * (5.729577951308232e1)) * (1.7453292519943295e-2)) - log(rk_f64_hypot(l0, P.s1))) + tanh(rk_clamp_f64(P, l0, (-5e-1), (5e-1)))));
    if ((((i32)(l1 % 2)) == 0)) {
        l5 = (1e0);
    } else {
        l5 = (((f64)(rk_sel((((i32)(l1 % 5)) < 0), rk_wadd<i32>(((i32)(l1 % 5)), rk_sel((5 < 0), rk_wsub<i32>(0, 5), 5)), ((i32)(l1 % 5))))) * (3.141592653589793e0));
    }
    l4 = (l4 - l5);
    {
      const f64 t0 = l0;
      const f64 t1 = ((2e0) * l0);
      const f64 t2 = (-(l0));
      l6[0] = t0;
      l6[1] = t1;
      l6[2] = t2;
    }
    { const f64 t3 = 0.0;
      l7[0] = t3;
      l7[1] = t3;
      l7[2] = t3;
    }
    { const u64 t4 = 0ull; const u64 t5 = 3ull; const u64 t8 = 1ull; const u64 t6 = (u64)t8;
      if (t4 < t5 && t8 > 0ull) { u64 t7 = t4;
      do {
        l8 = t7;
            { const u64 t9 = l8; const auto t10 = (l6[rk_aix(P, l8, 3ull, 1006u)] * (((f64)(l8)) + (1e0)));
              if (rk_aok(P, t9, 3ull, 1007u)) { l7[t9] = t10; } }
      } while (!(((u64)t5 - (u64)t7) <= t6) && (t7 = (u64)((u64)t7 + t6), true)); }
    }
    l9 = (((((l0 < 0.0) && (l1 > 0)) || (P.s0 == 0)) || (!(((bool)isfinite(l0))))) || ((bool)isnan(l0)));
    l10 = (l7[rk_aix(P, ((u64)(w0 % 3ull)), 3ull, 1007u)] + ((f64)(((i32)((l9) ? 1 : 0)))));
    l11 = floor(l0);
    l4 = (l4 + ((l10 + (l11 * l11)) - (2.220446049250313e-16)));
    rk_st0(P, w0, l4);
    rk_st0(P, w0, (rk_ld0(P, w0) * (5e-1)));
    l12 = ((u32) (((u32)(w0)) ^ 90u));
    rk_st1(P, w0, rk_cadd_u32(P, ((u32)(rk_wmul<u32>(((u32) (rk_cshr_u32_i32(P, rk_cshl_u32_i32(P, l12, 3), 1) | ((u32) (l12 & 3u)))), 2654435761u) % 1000u)), ((u32) (((u32) ~(l12)) & 7u))));
    rk_st1(P, w0, rk_cadd_u32(P, rk_ld1(P, w0), rk_wadd<u32>(((u32)(P.s0)), l12)));
}
extern "C" __global__ void __launch_bounds__(256) rk_main(const rk_P P) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < P.n; i += stride) {
        const bool rk_st0 = rk_stopped(P);
        rk_work(P, P.begin + i);
        if (rk_st0) { break; }
    }
}
