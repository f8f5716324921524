// rokkos kernel `control` (IR hash 1eb3add5faddf73f)
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
    i64* v0;
    u64 v0_off;
    u64 v0_e0;
    u64 v0_s0;
    const i64* v1;
    u64 v1_off;
    u64 v1_e0;
    u64 v1_s0;
    u64 s0;
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
__device__ __forceinline__ i64 rk_cabs_i64(const rk_P& P, i64 a) {
    if (a == (-9223372036854775807ll - 1ll)) { rk_fail(P, 4103u); }
    return (a < 0 ? rk_wneg<i64>(a) : a);
}

__device__ __forceinline__ i64 rk_cadd_i64(const rk_P& P, i64 a, i64 b) {
    const i64 r = rk_wadd<i64>(a, b);
    if (((a ^ r) & (b ^ r)) < 0ll) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ u64 rk_cadd_u64(const rk_P& P, u64 a, u64 b) {
    const u64 r = rk_wadd<u64>(a, b);
    if (r < a) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ i64 rk_cmul_i64(const rk_P& P, i64 a, i64 b) {
    const i64 r = rk_wmul<i64>(a, b);
    if (__mul64hi(a, b) != (r < 0ll ? -1ll : 0ll)) { rk_fail(P, 4102u); }
    return r;
}

__device__ __forceinline__ u64 rk_cmul_u64(const rk_P& P, u64 a, u64 b) {
    const u64 r = rk_wmul<u64>(a, b);
    if (__umul64hi(a, b) != 0ull) { rk_fail(P, 4102u); }
    return r;
}

__device__ __forceinline__ i64 rk_csub_i64(const rk_P& P, i64 a, i64 b) {
    const i64 r = rk_wsub<i64>(a, b);
    if (((a ^ b) & (a ^ r)) < 0ll) { rk_fail(P, 4101u); }
    return r;
}

__device__ __forceinline__ u64 rk_csub_u64(const rk_P& P, u64 a, u64 b) {
    const u64 r = rk_wsub<u64>(a, b);
    if (b > a) { rk_fail(P, 4101u); }
    return r;
}

__device__ __forceinline__ i64 rk_ld1(const rk_P& P, u64 i0) {
    if (i0 >= P.v1_e0) {
        if (rk_oob_begin(P, 1u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return 0ll;
    }
    return P.v1[P.v1_off + i0 * P.v1_s0];
}

__device__ __forceinline__ void rk_st0(const rk_P& P, u64 i0, i64 x) {
    if (i0 >= P.v0_e0) {
        if (rk_oob_begin(P, 0u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return;
    }
    P.v0[P.v0_off + i0 * P.v0_s0] = x;
}

__device__ __forceinline__ void rk_work(const rk_P& P, const u64 w0) {
    i64 l0 = 0ll;
    i64 l1 = 0ll;
    i32 l2 = 0;
    i64 l3 = 0ll;
    i64 l4 = 0ll;
    i64 l5 = 0ll;
    u64 l6 = 0ull;
    i32 l7 = 0;
    i64 l8 = 0ll;
    u64 l9 = 0ull;
    u64 l10 = 0ull;
    u64 l11 = 0ull;
    u64 l12 = 0ull;
    if ((w0 >= P.s0)) {
        return;
    }
    l0 = rk_ld1(P, w0);
    if ((l0 < -40ll)) {
        rk_st0(P, w0, -1ll);
        return;
    }
    l1 = 0ll;
    { const i32 t0 = 0; const i32 t1 = 20; const i32 t4 = 1; const u32 t2 = (u32)t4;
      if (t0 < t1 && t4 > 0) { i32 t3 = t0;
      do {
        l2 = t3;
            if ((((i32)(l2 % 3)) == 0)) {
                continue;
            }
            if ((((i64)(l2)) > ((i64)(rk_cabs_i64(P, l0) % 17ll)))) {
                break;
            }
            l1 = rk_cadd_i64(P, l1, ((i64)(l2)));
      } while (!(((u32)t1 - (u32)t3) <= t2) && (t3 = (i32)((u32)t3 + t2), true)); }
    }
    l3 = l0;
    l4 = 0ll;
    for (;;) {
        if (!((((l3 != 1ll) && (l3 > 0ll)) && (l4 < 500ll)))) { break; }
        if ((((i64)(l3 % 2ll)) == 0ll)) {
            l5 = ((i64)(l3 / 2ll));
        } else {
            l5 = rk_cadd_i64(P, rk_cmul_i64(P, 3ll, l3), 1ll);
        }
        l3 = l5;
        l4 = rk_cadd_i64(P, l4, 1ll);
    }
    l6 = 0ull;
    for (;;) {
        l6 = rk_cadd_u64(P, l6, 1ull);
        if ((rk_cmul_u64(P, l6, l6) > w0)) {
            break;
        }
    }
    { const i32 t6 = 1; const i32 t7 = 7; const i32 t10 = 2; const u32 t8 = (u32)t10;
      if (t6 < t7 && t10 > 0) { const i32 t11 = (i32)((u32)t6 + (((u32)t7 - (u32)t6) - (u32)1) / t8 * t8); i32 t9 = t11;
      do {
        l7 = t9;
            l1 = rk_cadd_i64(P, rk_cmul_i64(P, l1, 3ll), ((i64)(l7)));
      } while (!(((u32)t9 - (u32)t6) < t8) && (t9 = (i32)((u32)t9 - t8), true)); }
    }
    { const i64 t13 = 2ll; const i64 t14 = 4ll; const i64 t17 = 1ll; const u64 t15 = (u64)t17;
      if (t13 <= t14 && t17 > 0ll) { i64 t16 = t13;
      do {
        l8 = t16;
            l1 = rk_csub_i64(P, l1, l8);
      } while (!(((u64)t14 - (u64)t16) < t15) && (t16 = (i64)((u64)t16 + t15), true)); }
    }
    l9 = 0ull;
    l10 = 7ull;
    { const u64 t19 = l9; const u64 t20 = l10; const u64 t23 = 3ull; const u64 t21 = (u64)t23;
      if (t19 < t20 && t23 > 0ull) { u64 t22 = t19;
      do {
        l11 = t22;
            l12 = rk_csub_u64(P, rk_csub_u64(P, l10, 1ull), rk_csub_u64(P, l11, l9));
            l1 = rk_cadd_i64(P, l1, ((i64)(l12)));
      } while (!(((u64)t20 - (u64)t22) <= t21) && (t22 = (u64)((u64)t22 + t21), true)); }
    }
    rk_st0(P, w0, rk_cadd_i64(P, rk_cadd_i64(P, l1, l4), ((i64)(l6))));
}
extern "C" __global__ void __launch_bounds__(256) rk_main(const rk_P P) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < P.n; i += stride) {
        const bool rk_st0 = rk_stopped(P);
        rk_work(P, P.begin + i);
        if (rk_st0) { break; }
    }
}
