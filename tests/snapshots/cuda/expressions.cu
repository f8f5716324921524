// rokkos kernel `expressions` (IR hash 26c23ec82e062a6b)
typedef unsigned char u8;
typedef unsigned short u16;
typedef signed char i8;
typedef short i16;
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
// The narrow types compute in u32 (their C promotion to int could overflow a product) and
// truncate, which keeps the low bits: Rust's wrapping result.
template <> struct rk_ut<u8> { typedef u32 t; };
template <> struct rk_ut<u16> { typedef u32 t; };
template <> struct rk_ut<i8> { typedef u32 t; };
template <> struct rk_ut<i16> { typedef u32 t; };
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
__device__ __forceinline__ i32 rk_cadd_i32(const rk_P& P, i32 a, i32 b) {
    const i32 r = rk_wadd<i32>(a, b);
    if (((a ^ r) & (b ^ r)) < 0) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ u32 rk_cadd_u32(const rk_P& P, u32 a, u32 b) {
    const u32 r = rk_wadd<u32>(a, b);
    if (r < a) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ u64 rk_cadd_u64(const rk_P& P, u64 a, u64 b) {
    const u64 r = rk_wadd<u64>(a, b);
    if (r < a) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ f64 rk_clamp_f64(const rk_P& P, f64 x, f64 lo, f64 hi) {
    if (!(lo <= hi)) { if (rk_oob_begin(P, 4206u, 2u)) { rk_oob_idx(P, 0u, (u64)__double_as_longlong(lo)); rk_oob_idx(P, 1u, (u64)__double_as_longlong(hi)); } }
    if (x < lo) { return lo; }
    if (x > hi) { return hi; }
    return x;
}

__device__ __forceinline__ i32 rk_clamp_i32(const rk_P& P, i32 x, i32 lo, i32 hi) {
    if (!(lo <= hi)) { if (rk_oob_begin(P, 4201u, 2u)) { rk_oob_idx(P, 0u, (u64)(u32)lo); rk_oob_idx(P, 1u, (u64)(u32)hi); } }
    if (x < lo) { return lo; }
    if (x > hi) { return hi; }
    return x;
}

__device__ __forceinline__ i32 rk_cmul_i32(const rk_P& P, i32 a, i32 b) {
    const i32 r = rk_wmul<i32>(a, b);
    if ((i64)a * (i64)b != (i64)r) { rk_fail(P, 4102u); }
    return r;
}

__device__ __forceinline__ i32 rk_cneg_i32(const rk_P& P, i32 a) {
    if (a == (-2147483647 - 1)) { rk_fail(P, 4103u); }
    return rk_wneg<i32>(a);
}

__device__ __forceinline__ u32 rk_cshl_u32_i32(const rk_P& P, u32 a, i32 n) {
    if ((u64)(u32)n >= 32ull) { rk_fail(P, 4104u); }
    return rk_wshl<u32>(a, (u32)(n & 31));
}

__device__ __forceinline__ u64 rk_cshl_u64_i32(const rk_P& P, u64 a, i32 n) {
    if ((u64)(u32)n >= 64ull) { rk_fail(P, 4104u); }
    return rk_wshl<u64>(a, (u32)(n & 63));
}

__device__ __forceinline__ u64 rk_cshl_u64_u32(const rk_P& P, u64 a, u32 n) {
    if ((u64)n >= 64ull) { rk_fail(P, 4104u); }
    return rk_wshl<u64>(a, (u32)(n & 63u));
}

__device__ __forceinline__ u32 rk_cshr_u32_i32(const rk_P& P, u32 a, i32 n) {
    if ((u64)(u32)n >= 32ull) { rk_fail(P, 4105u); }
    return rk_wshr<u32>(a, (u32)(n & 31));
}

__device__ __forceinline__ u64 rk_cshr_u64_i32(const rk_P& P, u64 a, i32 n) {
    if ((u64)(u32)n >= 64ull) { rk_fail(P, 4105u); }
    return rk_wshr<u64>(a, (u32)(n & 63));
}

__device__ __forceinline__ u64 rk_cshr_u64_u32(const rk_P& P, u64 a, u32 n) {
    if ((u64)n >= 64ull) { rk_fail(P, 4105u); }
    return rk_wshr<u64>(a, (u32)(n & 63u));
}

__device__ __forceinline__ i32 rk_csub_i32(const rk_P& P, i32 a, i32 b) {
    const i32 r = rk_wsub<i32>(a, b);
    if (((a ^ b) & (a ^ r)) < 0) { rk_fail(P, 4101u); }
    return r;
}

__device__ __forceinline__ u32 rk_csub_u32(const rk_P& P, u32 a, u32 b) {
    const u32 r = rk_wsub<u32>(a, b);
    if (b > a) { rk_fail(P, 4101u); }
    return r;
}

__device__ __forceinline__ i32 rk_cvt_f64_i32(f64 x) {
    if (!(x == x)) { return 0; }
    if (x >= (2.147483648e9)) { return 2147483647; }
    if (x < (-2.147483648e9)) { return (-2147483647 - 1); }
    return (i32)x;
}

__device__ __forceinline__ f64 rk_fmax_f64(f64 x, f64 y) {
    if (!(x == x) || y > x) { return y; }
    return x;
}

__device__ __forceinline__ f64 rk_fmin_f64(f64 x, f64 y) {
    if (!(x == x) || y < x) { return y; }
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

__device__ __forceinline__ f64 uf0(const rk_P& P, f64 p0);
__device__ __forceinline__ f64 uf1(const rk_P& P, f64 p0);
__device__ __forceinline__ f64 uf2(const rk_P& P, f64 p0);
__device__ __forceinline__ f64 uf3(const rk_P& P, f64 p0);
__device__ __forceinline__ f64 uf4(const rk_P& P, f64 p0, f64 p1);
__device__ __forceinline__ f64 uf5(const rk_P& P, f64 p0, i32 p1);
__device__ __forceinline__ f64 uf6(const rk_P& P, f64 p0, f64 p1);
__device__ const u32 ct0[39] = {0u, 0u, 2734261102u, 1313084713u, 4230436817u, 4113882560u, 3680671129u, 1011060801u, 4266746795u, 3736847713u, 3072618042u, 1112396512u, 105459434u, 164729372u, 4263373596u, 2972297022u, 3900847605u, 784024708u, 3919343654u, 3026157121u, 965858873u, 2203269620u, 2625920907u, 3187222587u, 536385535u, 3724908559u, 4012839307u, 1510632735u, 1832287951u, 667617719u, 1330003814u, 2657085997u, 1965537991u, 3957715323u, 1023883767u, 2320667370u, 1811636145u, 529358088u, 1443049542u};
__device__ __forceinline__ f64 uf0(const rk_P& P, f64 p0) {
    f64 l0 = 0.0;
    u64 l1 = 0ull;
    l0 = p0;
    l1 = ((u64)__double_as_longlong(l0));
    return __longlong_as_double((long long)(((u64) (l1 ^ ((u64)(((l1 == 9221365071651847919ull)) ? 1 : 0))))));
}
__device__ __forceinline__ f64 uf1(const rk_P& P, f64 p0) {
    f64 l0 = 0.0;
    l0 = p0;
    return __longlong_as_double((long long)(((u64) (rk_cadd_u64(P, ((u64)__double_as_longlong(l0)), 67108864ull) & 18446744073575333888ull))));
}
__device__ __forceinline__ f64 uf2(const rk_P& P, f64 p0) {
    f64 l0 = 0.0;
    f64 l1 = 0.0;
    f64 l2 = 0.0;
    f64 l3 = 0.0;
    f64 l4 = 0.0;
    i32 l5 = 0;
    u64 l6 = 0ull;
    u64 l7 = 0ull;
    i32 l8 = 0;
    i32 l9 = 0;
    u32 l10 = 0u;
    u64 l11 = 0ull;
    u32 l12[3] = {};
    u32 l13[12] = {};
    i32 l14 = 0;
    u64 l15 = 0ull;
    u64 l16 = 0ull;
    i32 l17 = 0;
    i32 l18 = 0;
    u64 l19 = 0ull;
    u64 l20 = 0ull;
    bool l21 = false;
    i32 l22 = 0;
    f64 l23 = 0.0;
    f64 l24 = 0.0;
    f64 l25 = 0.0;
    f64 l26 = 0.0;
    f64 l27 = 0.0;
    f64 l28 = 0.0;
    f64 l29 = 0.0;
    f64 l30 = 0.0;
    f64 l31 = 0.0;
    f64 l32 = 0.0;
    f64 l33 = 0.0;
    f64 l34 = 0.0;
    f64 l35 = 0.0;
    f64 l36 = 0.0;
    f64 l37 = 0.0;
    f64 l38 = 0.0;
    f64 l39 = 0.0;
    f64 l40 = 0.0;
    f64 l41 = 0.0;
    f64 l42 = 0.0;
    f64 l43 = 0.0;
    f64 l44 = 0.0;
    f64 l45 = 0.0;
    f64 l46 = 0.0;
    f64 l47 = 0.0;
    f64 l48 = 0.0;
    f64 l49 = 0.0;
    f64 l50 = 0.0;
    f64 l51 = 0.0;
    f64 l52 = 0.0;
    f64 l53 = 0.0;
    f64 l54 = 0.0;
    f64 l55 = 0.0;
    f64 l56 = 0.0;
    f64 l57 = 0.0;
    f64 l58 = 0.0;
    f64 l59 = 0.0;
    f64 l60 = 0.0;
    f64 l61 = 0.0;
    f64 l62 = 0.0;
    f64 l63 = 0.0;
    f64 l64 = 0.0;
    f64 l65 = 0.0;
    f64 l66 = 0.0;
    f64 l67 = 0.0;
    f64 l68 = 0.0;
    f64 l69 = 0.0;
    f64 l70 = 0.0;
    i32 l71 = 0;
    f64 l72 = 0.0;
    f64 l73 = 0.0;
    f64 l74 = 0.0;
    f64 l75 = 0.0;
    f64 l76 = 0.0;
    f64 l77 = 0.0;
    f64 l78 = 0.0;
    f64 l79 = 0.0;
    f64 l80 = 0.0;
    f64 l81 = 0.0;
    f64 l82 = 0.0;
    f64 l83 = 0.0;
    f64 l84 = 0.0;
    f64 l85 = 0.0;
    f64 l86 = 0.0;
    f64 l87 = 0.0;
    f64 l88 = 0.0;
    f64 l89 = 0.0;
    f64 l90 = 0.0;
    f64 l91 = 0.0;
    l0 = p0;
    l1 = fabs(l0);
    if ((l1 < (1.4901161193847656e-8))) {
        return l0;
    }
    if ((!((l1 <= (1.7976931348623157e308))))) {
        return rk_f64_bits(9221120237041090560ull);
    }
    l2 = l0;
    l3 = l2;
    l4 = 0.0;
    l5 = 0;
    if ((!((fabs(l2) <= (7.853981633974483e-1))))) {
        if ((fabs(l2) >= (1.6e6))) {
            l6 = ((u64)__double_as_longlong(l2));
            l7 = ((u64) (((u64) (l6 & 4503599627370495ull)) | 4503599627370496ull));
            l8 = rk_cadd_i32(P, rk_csub_i32(P, ((i32)(((u64) (rk_cshr_u64_i32(P, l6, 52) & 2047ull)))), 1075), 32);
            l9 = ((i32)(l8 / 32));
            l10 = ((u32)(((i32)(l8 % 32))));
            l11 = rk_cshl_u64_u32(P, l7, l10);
            {
              const u32 t0 = ((u32)(((u64) (l11 & 4294967295ull))));
              const u32 t1 = ((u32)(rk_cshr_u64_i32(P, l11, 32)));
              const u32 t2 = ((u32)(rk_cshr_u64_u32(P, rk_cshr_u64_i32(P, l7, 1), rk_csub_u32(P, 63u, l10))));
              l12[0] = t0;
              l12[1] = t1;
              l12[2] = t2;
            }
            { const u32 t3 = 0u;
              l13[0] = t3;
              l13[1] = t3;
              l13[2] = t3;
              l13[3] = t3;
              l13[4] = t3;
              l13[5] = t3;
              l13[6] = t3;
              l13[7] = t3;
              l13[8] = t3;
              l13[9] = t3;
              l13[10] = t3;
              l13[11] = t3;
            }
            { const i32 t4 = 0; const i32 t5 = 8; const i32 t8 = 1; const u32 t6 = (u32)t8;
              if (t4 < t5 && t8 > 0) { i32 t7 = t4;
              do {
                l14 = t7;
                    l15 = ((u64)(ct0[rk_aix(P, ((u64)(rk_cadd_i32(P, l9, l14))), 39ull, 5000u)]));
                    l16 = 0ull;
                    l17 = rk_csub_i32(P, 7, l14);
                    { const i32 t9 = 0; const i32 t10 = 3; const i32 t13 = 1; const u32 t11 = (u32)t13;
                      if (t9 < t10 && t13 > 0) { i32 t12 = t9;
                      do {
                        l18 = t12;
                            l19 = rk_wadd<u64>(rk_wadd<u64>(((u64)(l13[rk_aix(P, ((u64)(l17)), 12ull, 1013u)])), rk_wmul<u64>(((u64)(l12[rk_aix(P, ((u64)(l18)), 3ull, 1012u)])), l15)), l16);
                            { const u64 t14 = ((u64)(l17)); const auto t15 = ((u32)(((u64) (l19 & 4294967295ull))));
                              if (rk_aok(P, t14, 12ull, 1013u)) { l13[t14] = t15; } }
                            l16 = rk_cshr_u64_i32(P, l19, 32);
                            l17 = rk_cadd_i32(P, l17, 1);
                      } while (!(((u32)t10 - (u32)t12) <= t11) && (t12 = (i32)((u32)t12 + t11), true)); }
                    }
                    for (;;) {
                        if (((l16 == 0ull) || (l17 >= 12))) {
                            break;
                        }
                        l20 = rk_wadd<u64>(((u64)(l13[rk_aix(P, ((u64)(l17)), 12ull, 1013u)])), l16);
                        { const u64 t17 = ((u64)(l17)); const auto t18 = ((u32)(((u64) (l20 & 4294967295ull))));
                          if (rk_aok(P, t17, 12ull, 1013u)) { l13[t17] = t18; } }
                        l16 = rk_cshr_u64_i32(P, l20, 32);
                        l17 = rk_cadd_i32(P, l17, 1);
                    }
              } while (!(((u32)t5 - (u32)t7) <= t6) && (t7 = (i32)((u32)t7 + t6), true)); }
            }
            l21 = (l13[rk_aix(P, ((u64)(6)), 12ull, 1013u)] >= 2147483648u);
            l22 = rk_cadd_i32(P, ((i32)(((u32) (l13[rk_aix(P, ((u64)(7)), 12ull, 1013u)] & 3u)))), rk_sel(l21, 1, 0));
            l23 = ((((f64)(l13[rk_aix(P, ((u64)(6)), 12ull, 1013u)])) * (2.3283064365386963e-10)) - rk_sel(l21, (1e0), 0.0));
            l24 = uf0(P, l23);
            l25 = uf0(P, (((f64)(l13[rk_aix(P, ((u64)(5)), 12ull, 1013u)])) * (5.421010862427522e-20)));
            l26 = (l24 + l25);
            l27 = uf0(P, (uf0(P, l26) - l24));
            l28 = uf0(P, (l26 - l27));
            l29 = (uf0(P, (l24 - l28)) + uf0(P, (l25 - l27)));
            l30 = uf0(P, l26);
            l31 = uf0(P, (((f64)(l13[rk_aix(P, ((u64)(4)), 12ull, 1013u)])) * (1.262177448353619e-29)));
            l32 = (l30 + l31);
            l33 = uf0(P, (uf0(P, l32) - l30));
            l34 = uf0(P, (l32 - l33));
            l35 = (uf0(P, (l30 - l34)) + uf0(P, (l31 - l33)));
            l36 = uf0(P, l32);
            l37 = uf0(P, ((l29 + l35) + (((f64)(l13[rk_aix(P, ((u64)(3)), 12ull, 1013u)])) * (2.938735877055719e-39))));
            l38 = (l36 + l37);
            l39 = (l37 - uf0(P, (uf0(P, l38) - l36)));
            l40 = l38;
            l41 = (1.5707963267948966e0);
            l42 = (l40 * l41);
            l43 = uf1(P, l40);
            l44 = (l40 - l43);
            l45 = uf1(P, l41);
            l46 = (l41 - l45);
            l47 = (((((l43 * l45) - uf0(P, l42)) + (l43 * l46)) + (l44 * l45)) + (l44 * l46));
            l48 = uf0(P, l42);
            l49 = uf0(P, (l47 + ((l38 * (6.123233995736766e-17)) + (l39 * (1.5707963267948966e0)))));
            l50 = (l48 + l49);
            l51 = (l49 - uf0(P, (uf0(P, l50) - l48)));
            l3 = l50;
            l4 = l51;
            l5 = l22;
            if ((l2 < 0.0)) {
                l3 = (-(l3));
                l4 = (-(l4));
                l5 = rk_cneg_i32(P, l5);
            }
        } else {
            l52 = floor(((l2 * (6.366197723675814e-1)) + (5e-1)));
            l53 = uf0(P, (l2 - (l52 * (1.5707963267341256e0))));
            l54 = uf0(P, (-((l52 * (6.077100506303966e-11)))));
            l55 = (l53 + l54);
            l56 = uf0(P, (uf0(P, l55) - l53));
            l57 = uf0(P, (l55 - l56));
            l58 = (uf0(P, (l53 - l57)) + uf0(P, (l54 - l56)));
            l59 = uf0(P, l55);
            l60 = uf0(P, (-((l52 * (2.0222662487111665e-21)))));
            l61 = (l59 + l60);
            l62 = uf0(P, (uf0(P, l61) - l59));
            l63 = uf0(P, (l61 - l62));
            l64 = (uf0(P, (l59 - l63)) + uf0(P, (l60 - l62)));
            l65 = uf0(P, l61);
            l66 = uf0(P, ((l58 + l64) - (l52 * (8.4784276603689e-32))));
            l67 = (l65 + l66);
            l68 = uf0(P, (uf0(P, l67) - l65));
            l69 = uf0(P, (l67 - l68));
            l70 = (uf0(P, (l65 - l69)) + uf0(P, (l66 - l68)));
            l3 = l67;
            l4 = l70;
            l5 = rk_cvt_f64_i32(l52);
        }
    }
    l71 = ((i32) (l5 & 3));
    if ((((i32) (l71 & 1)) == 0)) {
        l74 = l3;
        l75 = (l74 * l74);
        l76 = (((l74 * l75) * fma(fma(fma(fma(fma(fma(fma((2.8114572543455206e-15), l75, (-7.647163731819816e-13)), l75, (1.6059043836821613e-10)), l75, (-2.505210838544172e-8)), l75, (2.7557319223985893e-6)), l75, (-1.984126984126984e-4)), l75, (8.333333333333333e-3)), l75, (-1.6666666666666666e-1))) + (l4 * ((1e0) - ((5e-1) * l75))));
        l72 = l74;
        l73 = l76;
    } else {
        l77 = l3;
        l78 = l77;
        l79 = l77;
        l80 = (l78 * l79);
        l81 = uf1(P, l78);
        l82 = (l78 - l81);
        l83 = uf1(P, l79);
        l84 = (l79 - l83);
        l85 = (((((l81 * l83) - uf0(P, l80)) + (l81 * l84)) + (l82 * l83)) + (l82 * l84));
        l86 = uf0(P, (1e0));
        l87 = uf0(P, ((-5e-1) * l80));
        l88 = (l86 + l87);
        l89 = (l87 - uf0(P, (uf0(P, l88) - l86)));
        l90 = (l89 + (((l80 * l80) * fma(fma(fma(fma(fma(fma(fma((-1.5619206968586225e-16), l80, (4.779477332387385e-14)), l80, (-1.1470745597729725e-11)), l80, (2.08767569878681e-9)), l80, (-2.755731922398589e-7)), l80, (2.48015873015873e-5)), l80, (-1.388888888888889e-3)), l80, (4.1666666666666664e-2))) - (((5e-1) * l85) + (l77 * l4))));
        l72 = l88;
        l73 = l90;
    }
    l91 = (l72 + l73);
    return rk_sel((l71 >= 2), (-(l91)), l91);
}
__device__ __forceinline__ f64 uf3(const rk_P& P, f64 p0) {
    f64 l0 = 0.0;
    f64 l1 = 0.0;
    f64 l2 = 0.0;
    f64 l3 = 0.0;
    f64 l4 = 0.0;
    i32 l5 = 0;
    u64 l6 = 0ull;
    u64 l7 = 0ull;
    i32 l8 = 0;
    i32 l9 = 0;
    u32 l10 = 0u;
    u64 l11 = 0ull;
    u32 l12[3] = {};
    u32 l13[12] = {};
    i32 l14 = 0;
    u64 l15 = 0ull;
    u64 l16 = 0ull;
    i32 l17 = 0;
    i32 l18 = 0;
    u64 l19 = 0ull;
    u64 l20 = 0ull;
    bool l21 = false;
    i32 l22 = 0;
    f64 l23 = 0.0;
    f64 l24 = 0.0;
    f64 l25 = 0.0;
    f64 l26 = 0.0;
    f64 l27 = 0.0;
    f64 l28 = 0.0;
    f64 l29 = 0.0;
    f64 l30 = 0.0;
    f64 l31 = 0.0;
    f64 l32 = 0.0;
    f64 l33 = 0.0;
    f64 l34 = 0.0;
    f64 l35 = 0.0;
    f64 l36 = 0.0;
    f64 l37 = 0.0;
    f64 l38 = 0.0;
    f64 l39 = 0.0;
    f64 l40 = 0.0;
    f64 l41 = 0.0;
    f64 l42 = 0.0;
    f64 l43 = 0.0;
    f64 l44 = 0.0;
    f64 l45 = 0.0;
    f64 l46 = 0.0;
    f64 l47 = 0.0;
    f64 l48 = 0.0;
    f64 l49 = 0.0;
    f64 l50 = 0.0;
    f64 l51 = 0.0;
    f64 l52 = 0.0;
    f64 l53 = 0.0;
    f64 l54 = 0.0;
    f64 l55 = 0.0;
    f64 l56 = 0.0;
    f64 l57 = 0.0;
    f64 l58 = 0.0;
    f64 l59 = 0.0;
    f64 l60 = 0.0;
    f64 l61 = 0.0;
    f64 l62 = 0.0;
    f64 l63 = 0.0;
    f64 l64 = 0.0;
    f64 l65 = 0.0;
    f64 l66 = 0.0;
    f64 l67 = 0.0;
    f64 l68 = 0.0;
    f64 l69 = 0.0;
    f64 l70 = 0.0;
    i32 l71 = 0;
    f64 l72 = 0.0;
    f64 l73 = 0.0;
    f64 l74 = 0.0;
    f64 l75 = 0.0;
    f64 l76 = 0.0;
    f64 l77 = 0.0;
    f64 l78 = 0.0;
    f64 l79 = 0.0;
    f64 l80 = 0.0;
    f64 l81 = 0.0;
    f64 l82 = 0.0;
    f64 l83 = 0.0;
    f64 l84 = 0.0;
    f64 l85 = 0.0;
    f64 l86 = 0.0;
    f64 l87 = 0.0;
    f64 l88 = 0.0;
    f64 l89 = 0.0;
    f64 l90 = 0.0;
    f64 l91 = 0.0;
    l0 = p0;
    l1 = fabs(l0);
    if ((l1 < (7.450580596923828e-9))) {
        return (1e0);
    }
    if ((!((l1 <= (1.7976931348623157e308))))) {
        return rk_f64_bits(9221120237041090560ull);
    }
    l2 = l0;
    l3 = l2;
    l4 = 0.0;
    l5 = 0;
    if ((!((fabs(l2) <= (7.853981633974483e-1))))) {
        if ((fabs(l2) >= (1.6e6))) {
            l6 = ((u64)__double_as_longlong(l2));
            l7 = ((u64) (((u64) (l6 & 4503599627370495ull)) | 4503599627370496ull));
            l8 = rk_cadd_i32(P, rk_csub_i32(P, ((i32)(((u64) (rk_cshr_u64_i32(P, l6, 52) & 2047ull)))), 1075), 32);
            l9 = ((i32)(l8 / 32));
            l10 = ((u32)(((i32)(l8 % 32))));
            l11 = rk_cshl_u64_u32(P, l7, l10);
            {
              const u32 t0 = ((u32)(((u64) (l11 & 4294967295ull))));
              const u32 t1 = ((u32)(rk_cshr_u64_i32(P, l11, 32)));
              const u32 t2 = ((u32)(rk_cshr_u64_u32(P, rk_cshr_u64_i32(P, l7, 1), rk_csub_u32(P, 63u, l10))));
              l12[0] = t0;
              l12[1] = t1;
              l12[2] = t2;
            }
            { const u32 t3 = 0u;
              l13[0] = t3;
              l13[1] = t3;
              l13[2] = t3;
              l13[3] = t3;
              l13[4] = t3;
              l13[5] = t3;
              l13[6] = t3;
              l13[7] = t3;
              l13[8] = t3;
              l13[9] = t3;
              l13[10] = t3;
              l13[11] = t3;
            }
            { const i32 t4 = 0; const i32 t5 = 8; const i32 t8 = 1; const u32 t6 = (u32)t8;
              if (t4 < t5 && t8 > 0) { i32 t7 = t4;
              do {
                l14 = t7;
                    l15 = ((u64)(ct0[rk_aix(P, ((u64)(rk_cadd_i32(P, l9, l14))), 39ull, 5000u)]));
                    l16 = 0ull;
                    l17 = rk_csub_i32(P, 7, l14);
                    { const i32 t9 = 0; const i32 t10 = 3; const i32 t13 = 1; const u32 t11 = (u32)t13;
                      if (t9 < t10 && t13 > 0) { i32 t12 = t9;
                      do {
                        l18 = t12;
                            l19 = rk_wadd<u64>(rk_wadd<u64>(((u64)(l13[rk_aix(P, ((u64)(l17)), 12ull, 1013u)])), rk_wmul<u64>(((u64)(l12[rk_aix(P, ((u64)(l18)), 3ull, 1012u)])), l15)), l16);
                            { const u64 t14 = ((u64)(l17)); const auto t15 = ((u32)(((u64) (l19 & 4294967295ull))));
                              if (rk_aok(P, t14, 12ull, 1013u)) { l13[t14] = t15; } }
                            l16 = rk_cshr_u64_i32(P, l19, 32);
                            l17 = rk_cadd_i32(P, l17, 1);
                      } while (!(((u32)t10 - (u32)t12) <= t11) && (t12 = (i32)((u32)t12 + t11), true)); }
                    }
                    for (;;) {
                        if (((l16 == 0ull) || (l17 >= 12))) {
                            break;
                        }
                        l20 = rk_wadd<u64>(((u64)(l13[rk_aix(P, ((u64)(l17)), 12ull, 1013u)])), l16);
                        { const u64 t17 = ((u64)(l17)); const auto t18 = ((u32)(((u64) (l20 & 4294967295ull))));
                          if (rk_aok(P, t17, 12ull, 1013u)) { l13[t17] = t18; } }
                        l16 = rk_cshr_u64_i32(P, l20, 32);
                        l17 = rk_cadd_i32(P, l17, 1);
                    }
              } while (!(((u32)t5 - (u32)t7) <= t6) && (t7 = (i32)((u32)t7 + t6), true)); }
            }
            l21 = (l13[rk_aix(P, ((u64)(6)), 12ull, 1013u)] >= 2147483648u);
            l22 = rk_cadd_i32(P, ((i32)(((u32) (l13[rk_aix(P, ((u64)(7)), 12ull, 1013u)] & 3u)))), rk_sel(l21, 1, 0));
            l23 = ((((f64)(l13[rk_aix(P, ((u64)(6)), 12ull, 1013u)])) * (2.3283064365386963e-10)) - rk_sel(l21, (1e0), 0.0));
            l24 = uf0(P, l23);
            l25 = uf0(P, (((f64)(l13[rk_aix(P, ((u64)(5)), 12ull, 1013u)])) * (5.421010862427522e-20)));
            l26 = (l24 + l25);
            l27 = uf0(P, (uf0(P, l26) - l24));
            l28 = uf0(P, (l26 - l27));
            l29 = (uf0(P, (l24 - l28)) + uf0(P, (l25 - l27)));
            l30 = uf0(P, l26);
            l31 = uf0(P, (((f64)(l13[rk_aix(P, ((u64)(4)), 12ull, 1013u)])) * (1.262177448353619e-29)));
            l32 = (l30 + l31);
            l33 = uf0(P, (uf0(P, l32) - l30));
            l34 = uf0(P, (l32 - l33));
            l35 = (uf0(P, (l30 - l34)) + uf0(P, (l31 - l33)));
            l36 = uf0(P, l32);
            l37 = uf0(P, ((l29 + l35) + (((f64)(l13[rk_aix(P, ((u64)(3)), 12ull, 1013u)])) * (2.938735877055719e-39))));
            l38 = (l36 + l37);
            l39 = (l37 - uf0(P, (uf0(P, l38) - l36)));
            l40 = l38;
            l41 = (1.5707963267948966e0);
            l42 = (l40 * l41);
            l43 = uf1(P, l40);
            l44 = (l40 - l43);
            l45 = uf1(P, l41);
            l46 = (l41 - l45);
            l47 = (((((l43 * l45) - uf0(P, l42)) + (l43 * l46)) + (l44 * l45)) + (l44 * l46));
            l48 = uf0(P, l42);
            l49 = uf0(P, (l47 + ((l38 * (6.123233995736766e-17)) + (l39 * (1.5707963267948966e0)))));
            l50 = (l48 + l49);
            l51 = (l49 - uf0(P, (uf0(P, l50) - l48)));
            l3 = l50;
            l4 = l51;
            l5 = l22;
            if ((l2 < 0.0)) {
                l3 = (-(l3));
                l4 = (-(l4));
                l5 = rk_cneg_i32(P, l5);
            }
        } else {
            l52 = floor(((l2 * (6.366197723675814e-1)) + (5e-1)));
            l53 = uf0(P, (l2 - (l52 * (1.5707963267341256e0))));
            l54 = uf0(P, (-((l52 * (6.077100506303966e-11)))));
            l55 = (l53 + l54);
            l56 = uf0(P, (uf0(P, l55) - l53));
            l57 = uf0(P, (l55 - l56));
            l58 = (uf0(P, (l53 - l57)) + uf0(P, (l54 - l56)));
            l59 = uf0(P, l55);
            l60 = uf0(P, (-((l52 * (2.0222662487111665e-21)))));
            l61 = (l59 + l60);
            l62 = uf0(P, (uf0(P, l61) - l59));
            l63 = uf0(P, (l61 - l62));
            l64 = (uf0(P, (l59 - l63)) + uf0(P, (l60 - l62)));
            l65 = uf0(P, l61);
            l66 = uf0(P, ((l58 + l64) - (l52 * (8.4784276603689e-32))));
            l67 = (l65 + l66);
            l68 = uf0(P, (uf0(P, l67) - l65));
            l69 = uf0(P, (l67 - l68));
            l70 = (uf0(P, (l65 - l69)) + uf0(P, (l66 - l68)));
            l3 = l67;
            l4 = l70;
            l5 = rk_cvt_f64_i32(l52);
        }
    }
    l71 = ((i32) (l5 & 3));
    if ((((i32) (l71 & 1)) != 0)) {
        l74 = l3;
        l75 = (l74 * l74);
        l76 = (((l74 * l75) * fma(fma(fma(fma(fma(fma(fma((2.8114572543455206e-15), l75, (-7.647163731819816e-13)), l75, (1.6059043836821613e-10)), l75, (-2.505210838544172e-8)), l75, (2.7557319223985893e-6)), l75, (-1.984126984126984e-4)), l75, (8.333333333333333e-3)), l75, (-1.6666666666666666e-1))) + (l4 * ((1e0) - ((5e-1) * l75))));
        l72 = l74;
        l73 = l76;
    } else {
        l77 = l3;
        l78 = l77;
        l79 = l77;
        l80 = (l78 * l79);
        l81 = uf1(P, l78);
        l82 = (l78 - l81);
        l83 = uf1(P, l79);
        l84 = (l79 - l83);
        l85 = (((((l81 * l83) - uf0(P, l80)) + (l81 * l84)) + (l82 * l83)) + (l82 * l84));
        l86 = uf0(P, (1e0));
        l87 = uf0(P, ((-5e-1) * l80));
        l88 = (l86 + l87);
        l89 = (l87 - uf0(P, (uf0(P, l88) - l86)));
        l90 = (l89 + (((l80 * l80) * fma(fma(fma(fma(fma(fma(fma((-1.5619206968586225e-16), l80, (4.779477332387385e-14)), l80, (-1.1470745597729725e-11)), l80, (2.08767569878681e-9)), l80, (-2.755731922398589e-7)), l80, (2.48015873015873e-5)), l80, (-1.388888888888889e-3)), l80, (4.1666666666666664e-2))) - (((5e-1) * l85) + (l77 * l4))));
        l72 = l88;
        l73 = l90;
    }
    l91 = (l72 + l73);
    return rk_sel(((l71 == 1) || (l71 == 2)), (-(l91)), l91);
}
__device__ __forceinline__ f64 uf4(const rk_P& P, f64 p0, f64 p1) {
    f64 l0 = 0.0;
    f64 l1 = 0.0;
    f64 l2 = 0.0;
    f64 l3 = 0.0;
    bool l4 = false;
    f64 l5 = 0.0;
    f64 l6 = 0.0;
    f64 l7 = 0.0;
    i32 l8 = 0;
    i32 l9 = 0;
    f64 l10 = 0.0;
    f64 l11 = 0.0;
    i32 l12 = 0;
    i32 l13 = 0;
    i32 l14 = 0;
    i32 l15 = 0;
    f64 l16 = 0.0;
    f64 l17 = 0.0;
    f64 l18 = 0.0;
    f64 l19 = 0.0;
    f64 l20 = 0.0;
    f64 l21 = 0.0;
    f64 l22 = 0.0;
    f64 l23 = 0.0;
    f64 l24 = 0.0;
    f64 l25 = 0.0;
    f64 l26 = 0.0;
    f64 l27 = 0.0;
    f64 l28 = 0.0;
    f64 l29 = 0.0;
    f64 l30 = 0.0;
    f64 l31 = 0.0;
    f64 l32 = 0.0;
    f64 l33 = 0.0;
    f64 l34 = 0.0;
    f64 l35 = 0.0;
    f64 l36 = 0.0;
    f64 l37 = 0.0;
    f64 l38 = 0.0;
    f64 l39 = 0.0;
    f64 l40 = 0.0;
    f64 l41 = 0.0;
    f64 l42 = 0.0;
    f64 l43 = 0.0;
    f64 l44 = 0.0;
    f64 l45 = 0.0;
    f64 l46 = 0.0;
    f64 l47 = 0.0;
    f64 l48 = 0.0;
    f64 l49 = 0.0;
    f64 l50 = 0.0;
    f64 l51 = 0.0;
    f64 l52 = 0.0;
    f64 l53 = 0.0;
    f64 l54 = 0.0;
    f64 l55 = 0.0;
    f64 l56 = 0.0;
    f64 l57 = 0.0;
    f64 l58 = 0.0;
    f64 l59 = 0.0;
    f64 l60 = 0.0;
    f64 l61 = 0.0;
    f64 l62 = 0.0;
    f64 l63 = 0.0;
    f64 l64 = 0.0;
    f64 l65 = 0.0;
    f64 l66 = 0.0;
    f64 l67 = 0.0;
    f64 l68 = 0.0;
    f64 l69 = 0.0;
    f64 l70 = 0.0;
    f64 l71 = 0.0;
    f64 l72 = 0.0;
    f64 l73 = 0.0;
    f64 l74 = 0.0;
    f64 l75 = 0.0;
    f64 l76 = 0.0;
    f64 l77 = 0.0;
    f64 l78 = 0.0;
    f64 l79 = 0.0;
    l0 = p0;
    l1 = p1;
    if (((((u64) (((u64)__double_as_longlong(l1)) & 9223372036854775807ull)) > 9218868437227405312ull) || (((u64) (((u64)__double_as_longlong(l0)) & 9223372036854775807ull)) > 9218868437227405312ull))) {
        return rk_f64_bits(9221120237041090560ull);
    }
    l2 = fabs(l1);
    l3 = fabs(l0);
    l4 = (rk_cshr_u64_i32(P, ((u64)__double_as_longlong(l1)), 63) == 1ull);
    if ((l3 == 0.0)) {
        l5 = rk_sel(l4, (3.141592653589793e0), 0.0);
    } else {
        if ((l2 == 0.0)) {
            l5 = (1.5707963267948966e0);
        } else {
            if ((l3 == rk_f64_bits(9218868437227405312ull))) {
                l5 = rk_sel((l2 == rk_f64_bits(9218868437227405312ull)), rk_sel(l4, (2.356194490192345e0), (7.853981633974483e-1)), (1.5707963267948966e0));
            } else {
                if ((l2 == rk_f64_bits(9218868437227405312ull))) {
                    l5 = rk_sel(l4, (3.141592653589793e0), 0.0);
                } else {
                    l6 = l2;
                    l7 = l3;
                    if ((rk_fmax_f64(l2, l3) < (1.1830521861667747e-271))) {
                        l6 = (l6 * (1.0715086071862673e301));
                        l7 = (l7 * (1.0715086071862673e301));
                    }
                    l8 = ((i32)(rk_cshr_u64_i32(P, ((u64)__double_as_longlong(l6)), 52)));
                    l9 = rk_csub_i32(P, ((i32)(rk_cshr_u64_i32(P, ((u64)__double_as_longlong(l7)), 52))), l8);
                    if ((l9 > 60)) {
                        l10 = (1.5707963267948966e0);
                        l11 = (6.123233995736766e-17);
                    } else {
                        if ((l9 < -60)) {
                            l10 = (l3 / l2);
                            l11 = 0.0;
                        } else {
                            l12 = rk_csub_i32(P, 1023, l8);
                            l13 = rk_clamp_i32(P, l12, -2000, 2000);
                            l14 = ((i32)(l13 / 2));
                            l15 = rk_csub_i32(P, l13, l14);
                            l16 = uf0(P, ((l7 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, l14, 1023))), 52)))) * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, l15, 1023))), 52)))));
                            l17 = 0.0;
                            l18 = ((l6 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, l14, 1023))), 52)))) * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, l15, 1023))), 52))));
                            l19 = 0.0;
                            l20 = uf0(P, (l16 / l18));
                            l21 = l20;
                            l22 = l18;
                            l23 = (l21 * l22);
                            l24 = uf1(P, l21);
                            l25 = (l21 - l24);
                            l26 = uf1(P, l22);
                            l27 = (l22 - l26);
                            l28 = (((((l24 * l26) - uf0(P, l23)) + (l24 * l27)) + (l25 * l26)) + (l25 * l27));
                            l29 = (((uf0(P, (l16 - l23)) - l28) + (l17 - (l20 * l19))) / l18);
                            l30 = l20;
                            l31 = l29;
                            l32 = 0.0;
                            l33 = 0.0;
                            l34 = l30;
                            l35 = (1e0);
                            l36 = 0.0;
                            if ((l30 > (4e0))) {
                                l32 = (1.5707963267948966e0);
                                l33 = (6.123233995736766e-17);
                                l34 = (-1e0);
                                l35 = l30;
                                l36 = 0.0;
                            } else {
                                if ((l30 > (1.3333333333333333e0))) {
                                    l37 = uf0(P, ((2e0) * l30));
                                    l38 = uf0(P, (1e0));
                                    l39 = (l37 + l38);
                                    l40 = (l38 - uf0(P, (uf0(P, l39) - l37)));
                                    l32 = (1.1071487177940904e0);
                                    l33 = (9.40447137356638e-17);
                                    l34 = (l30 - (2e0));
                                    l35 = l39;
                                    l36 = l40;
                                } else {
                                    if ((l30 > (7.5e-1))) {
                                        l41 = uf0(P, l30);
                                        l42 = uf0(P, (1e0));
                                        l43 = (l41 + l42);
                                        l44 = uf0(P, (uf0(P, l43) - l41));
                                        l45 = uf0(P, (l43 - l44));
                                        l46 = (uf0(P, (l41 - l45)) + uf0(P, (l42 - l44)));
                                        l32 = (7.853981633974483e-1);
                                        l33 = (3.061616997868383e-17);
                                        l34 = (l30 - (1e0));
                                        l35 = l43;
                                        l36 = l46;
                                    } else {
                                        if ((l30 > (2.5e-1))) {
                                            l47 = uf0(P, (2e0));
                                            l48 = uf0(P, l30);
                                            l49 = (l47 + l48);
                                            l50 = (l48 - uf0(P, (uf0(P, l49) - l47)));
                                            l32 = (4.636476090008061e-1);
                                            l33 = (2.2698777452961687e-17);
                                            l34 = (((2e0) * l30) - (1e0));
                                            l35 = l49;
                                            l36 = l50;
                                        }
                                    }
                                }
                            }
                            l51 = uf0(P, l34);
                            l52 = 0.0;
                            l53 = l35;
                            l54 = l36;
                            l55 = uf0(P, (l51 / l53));
                            l56 = l55;
                            l57 = l53;
                            l58 = (l56 * l57);
                            l59 = uf1(P, l56);
                            l60 = (l56 - l59);
                            l61 = uf1(P, l57);
                            l62 = (l57 - l61);
                            l63 = (((((l59 * l61) - uf0(P, l58)) + (l59 * l62)) + (l60 * l61)) + (l60 * l62));
                            l64 = (((uf0(P, (l51 - l58)) - l63) + (l52 - (l55 * l54))) / l53);
                            l65 = (l55 * l55);
                            l66 = ((((l55 * l65) * fma(fma(fma(fma(fma(fma(fma(fma((-4.1034266985419496e-2), l65, (5.7529943904780285e-2)), l65, (-6.658687414697743e-2)), l65, (7.692017877237385e-2)), l65, (-9.090902874969416e-2)), l65, (1.1111111035986847e-1)), l65, (-1.428571428525851e-1)), l65, (1.9999999999998933e-1)), l65, (-3.333333333333333e-1))) + (l64 * ((1e0) - l65))) + (l31 / ((1e0) + (l30 * l30))));
                            l67 = uf0(P, l32);
                            l68 = uf0(P, l55);
                            l69 = (l67 + l68);
                            l70 = uf0(P, (uf0(P, l69) - l67));
                            l71 = uf0(P, (l69 - l70));
                            l72 = (uf0(P, (l67 - l71)) + uf0(P, (l68 - l70)));
                            l73 = (l72 + (l33 + l66));
                            l10 = l69;
                            l11 = l73;
                        }
                    }
                    if (l4) {
                        l74 = uf0(P, (3.141592653589793e0));
                        l75 = uf0(P, (-(l10)));
                        l76 = (l74 + l75);
                        l77 = uf0(P, (uf0(P, l76) - l74));
                        l78 = uf0(P, (l76 - l77));
                        l79 = (uf0(P, (l74 - l78)) + uf0(P, (l75 - l77)));
                        l5 = (l76 + (l79 + ((1.2246467991473532e-16) - l11)));
                    } else {
                        l5 = (l10 + l11);
                    }
                }
            }
        }
    }
    return rk_sel((rk_cshr_u64_i32(P, ((u64)__double_as_longlong(l0)), 63) == 1ull), (-(l5)), l5);
}
__device__ __forceinline__ f64 uf5(const rk_P& P, f64 p0, i32 p1) {
    f64 l0 = 0.0;
    i32 l1 = 0;
    f64 l2 = 0.0;
    i32 l3 = 0;
    u64 l4 = 0ull;
    i32 l5 = 0;
    i32 l6 = 0;
    u64 l7 = 0ull;
    u64 l8 = 0ull;
    f64 l9 = 0.0;
    i32 l10 = 0;
    l0 = p0;
    l1 = p1;
    l2 = l0;
    l3 = l1;
    l4 = ((u64)__double_as_longlong(l2));
    l5 = rk_csub_i32(P, ((i32)(((u64) (rk_cshr_u64_i32(P, ((u64)__double_as_longlong(l2)), 52) & 2047ull)))), 1023);
    if (((l2 == 0.0) || (l5 == 1024))) {
        return l2;
    }
    if ((l5 == -1023)) {
        l2 = (l2 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, 53, 1023))), 52))));
        l3 = rk_csub_i32(P, l3, 53);
        l4 = ((u64)__double_as_longlong(l2));
        l5 = rk_csub_i32(P, ((i32)(((u64) (rk_cshr_u64_i32(P, ((u64)__double_as_longlong(l2)), 52) & 2047ull)))), 1023);
    }
    l6 = rk_clamp_i32(P, rk_cadd_i32(P, l5, l3), -2102, 2048);
    l7 = ((u64) (l4 & 4503599627370495ull));
    l8 = ((u64) (l4 & 9223372036854775808ull));
    if ((l6 > 1023)) {
        return __longlong_as_double((long long)(((u64) (l8 | rk_cshl_u64_i32(P, 2047ull, 52)))));
    }
    if ((l6 >= -1022)) {
        return __longlong_as_double((long long)(((u64) (((u64) (l8 | rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, l6, 1023))), 52))) | l7))));
    }
    l9 = __longlong_as_double((long long)(((u64) (((u64) (l8 | rk_cshl_u64_i32(P, 1ull, 52))) | l7))));
    l10 = rk_imax<i32>(rk_csub_i32(P, l6, -1022), -55);
    return (l9 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, l10, 1023))), 52))));
}
__device__ __forceinline__ f64 uf6(const rk_P& P, f64 p0, f64 p1) {
    f64 l0 = 0.0;
    f64 l1 = 0.0;
    f64 l2 = 0.0;
    f64 l3 = 0.0;
    f64 l4 = 0.0;
    f64 l5 = 0.0;
    i32 l6 = 0;
    f64 l7 = 0.0;
    f64 l8 = 0.0;
    f64 l9 = 0.0;
    f64 l10 = 0.0;
    f64 l11 = 0.0;
    f64 l12 = 0.0;
    f64 l13 = 0.0;
    f64 l14 = 0.0;
    f64 l15 = 0.0;
    f64 l16 = 0.0;
    f64 l17 = 0.0;
    f64 l18 = 0.0;
    f64 l19 = 0.0;
    f64 l20 = 0.0;
    f64 l21 = 0.0;
    f64 l22 = 0.0;
    f64 l23 = 0.0;
    f64 l24 = 0.0;
    f64 l25 = 0.0;
    f64 l26 = 0.0;
    f64 l27 = 0.0;
    f64 l28 = 0.0;
    f64 l29 = 0.0;
    f64 l30 = 0.0;
    f64 l31 = 0.0;
    f64 l32 = 0.0;
    f64 l33 = 0.0;
    f64 l34 = 0.0;
    f64 l35 = 0.0;
    f64 l36 = 0.0;
    f64 l37 = 0.0;
    f64 l38 = 0.0;
    f64 l39 = 0.0;
    l0 = p0;
    l1 = p1;
    l2 = fabs(l0);
    l3 = fabs(l1);
    if (((l2 == __longlong_as_double((long long)(9218868437227405312ull))) || (l3 == __longlong_as_double((long long)(9218868437227405312ull))))) {
        return __longlong_as_double((long long)(9218868437227405312ull));
    }
    if (((((u64)__double_as_longlong(l2)) > ((u64)__double_as_longlong(__longlong_as_double((long long)(9218868437227405312ull))))) || (((u64)__double_as_longlong(l3)) > ((u64)__double_as_longlong(__longlong_as_double((long long)(9218868437227405312ull))))))) {
        return __longlong_as_double((long long)(((u64) (((u64)__double_as_longlong(__longlong_as_double((long long)(9218868437227405312ull)))) | 2251799813685248ull))));
    }
    l4 = rk_fmax_f64(l2, l3);
    l5 = rk_fmin_f64(l2, l3);
    if ((l4 == 0.0)) {
        return 0.0;
    }
    l6 = 0;
    if ((l4 > __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, 300, 1023))), 52))))) {
        l4 = (l4 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, -600, 1023))), 52))));
        l5 = (l5 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, -600, 1023))), 52))));
        l6 = 600;
    } else {
        if ((l4 < __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, -300, 1023))), 52))))) {
            l4 = (l4 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, 600, 1023))), 52))));
            l5 = (l5 * __longlong_as_double((long long)(rk_cshl_u64_i32(P, ((u64)(rk_cadd_i32(P, 600, 1023))), 52))));
            l6 = -600;
        }
    }
    l7 = l4;
    l8 = l4;
    l9 = (l7 * l8);
    l10 = uf1(P, l7);
    l11 = (l7 - l10);
    l12 = uf1(P, l8);
    l13 = (l8 - l12);
    l14 = (((((l10 * l12) - uf0(P, l9)) + (l10 * l13)) + (l11 * l12)) + (l11 * l13));
    l15 = l5;
    l16 = l5;
    l17 = (l15 * l16);
    l18 = uf1(P, l15);
    l19 = (l15 - l18);
    l20 = uf1(P, l16);
    l21 = (l16 - l20);
    l22 = (((((l18 * l20) - uf0(P, l17)) + (l18 * l21)) + (l19 * l20)) + (l19 * l21));
    l23 = uf0(P, l9);
    l24 = uf0(P, l17);
    l25 = (l23 + l24);
    l26 = (l24 - uf0(P, (uf0(P, l25) - l23)));
    l27 = uf0(P, l25);
    l28 = uf0(P, (l26 + (l14 + l22)));
    l29 = (l27 + l28);
    l30 = (l28 - uf0(P, (uf0(P, l29) - l27)));
    l31 = uf0(P, sqrt(l29));
    l32 = l31;
    l33 = l31;
    l34 = (l32 * l33);
    l35 = uf1(P, l32);
    l36 = (l32 - l35);
    l37 = uf1(P, l33);
    l38 = (l33 - l37);
    l39 = (((((l35 * l37) - uf0(P, l34)) + (l35 * l38)) + (l36 * l37)) + (l36 * l38));
    return uf5(P, (l31 + (((uf0(P, (l29 - l34)) - l39) + l30) / ((2e0) * l31))), l6);
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
    l4 = (((sqrt(fabs(l0)) + (uf2(P, l0) * uf3(P, l0))) - exp(l2)) + uf4(P, l0, l3));
    l4 = (l4 + ((rk_powi_f64(rk_fmax_f64(l0, P.s1), 2) + fma(l0, (2e0), (-1e0))) + rk_signum_f64(((f64)(l1)))));
    l4 = (l4 + ((((l0 * (5.729577951308232e1)) * (1.7453292519943295e-2)) - log(uf6(P, l0, P.s1))) + tanh(rk_clamp_f64(P, l0, (-5e-1), (5e-1)))));
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
