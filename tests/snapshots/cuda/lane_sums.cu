// rokkos kernel `lane_sums` (IR hash 37c71e0f0f491877)
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
    const f64* v0;
    u64 v0_off;
    u64 v0_e0;
    u64 v0_s0;
    u64 v0_e1;
    u64 v0_s1;
    f64* v1;
    u64 v1_off;
    u64 v1_e0;
    u64 v1_s0;
    u64 v1_e1;
    u64 v1_s1;
    u64 league;
    u64 tp0;
    u64 tq0;
    u64 tp1;
    u64 tq1;
    u64 l1s;
    u64* scr1;
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
__device__ __forceinline__ f64 rk_ld0(const rk_P& P, u64 i0, u64 i1) {
    if (i0 >= P.v0_e0 || i1 >= P.v0_e1) {
        if (rk_oob_begin(P, 0u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return 0.0;
    }
    return P.v0[P.v0_off + i0 * P.v0_s0 + i1 * P.v0_s1];
}

__device__ __forceinline__ u32 rk_vmask(const u32 li) { return ((1u << 2u) - 1u) << ((li % 32u) & ~1u); }
template <class T> __device__ __forceinline__ T rk_shx(const u32 m, T v, const u32 o) { return __shfl_xor_sync(m, v, o, 2); }
__device__ __forceinline__ bool rk_shx(const u32 m, bool v, const u32 o) { return __shfl_xor_sync(m, (int)v, o, 2) != 0; }
template <class T> __device__ __forceinline__ T rk_shup(const u32 m, T v, const u32 o) { return __shfl_up_sync(m, v, o, 2); }
__device__ __forceinline__ bool rk_shup(const u32 m, bool v, const u32 o) { return __shfl_up_sync(m, (int)v, o, 2) != 0; }
template <class T> __device__ __forceinline__ T rk_shidx(const u32 m, T v, const u32 o) { return __shfl_sync(m, v, o, 2); }
__device__ __forceinline__ bool rk_shidx(const u32 m, bool v, const u32 o) { return __shfl_sync(m, (int)v, o, 2) != 0; }

__device__ __forceinline__ void rk_st1(const rk_P& P, u64 i0, u64 i1, f64 x) {
    if (i0 >= P.v1_e0 || i1 >= P.v1_e1) {
        if (rk_oob_begin(P, 1u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return;
    }
    P.v1[P.v1_off + i0 * P.v1_s0 + i1 * P.v1_s1] = x;
}

__device__ __forceinline__ f64 rk_vred_f64_Sum(f64 x, const u32 li) {
    const u32 m = rk_vmask(li), lane = li % 2u;
    for (u32 o = 1u; o > 0u; o >>= 1) {
        const f64 y = rk_shx(m, x, o);
        const f64 p = (lane & o) ? y : x; const f64 q = (lane & o) ? x : y;
        x = (p + q);
    }
    return x;
}

__device__ __forceinline__ f64 rk_vscan_f64(f64 x, const u32 li, f64& tot) {
    const u32 m = rk_vmask(li), lane = li % 2u;
    for (u32 o = 1u; o < 2u; o <<= 1) {
        const f64 y = rk_shup(m, x, o);
        if (lane >= o) { x = (y + x); }
    }
    tot = rk_shidx(m, x, 2u - 1u);
    const f64 e = rk_shup(m, x, 1u);
    return lane > 0u ? e : 0.0;
}

__device__ __forceinline__ void rk_work(const rk_P& P, const u64 t_lr, unsigned char* const rk_s1) {
    const u32 rk_lane = threadIdx.x;
    const u32 rk_li = threadIdx.y * 2u + threadIdx.x;
    const u64 t_tr = threadIdx.y; const u64 t_ts = 4ull; const u64 t_vl = 2ull; const u64 t_ls = P.league;
    (void)t_ts; (void)t_vl; (void)t_ls; (void)t_lr; (void)rk_s1;
    u64 l0 = 0ull;
    u64 l1 = 0ull;
    f64 l2 = 0.0;
    u64 l3 = 0ull;
    f64 l4 = 0.0;
    f64 l5 = 0.0;
    f64 l6 = 0.0;
    u64 l7 = 0ull;
    f64 l8 = 0.0;
    bool l9 = false;
    f64 l10 = 0.0;
    f64 l11 = 0.0;
    f64 l12 = 0.0;
    l0 = t_lr;
    l1 = P.v0_e1;
    auto rk_nb1 = [&]() {
        l4 = (l4 + rk_ld0(P, l0, l3));
    };
    l4 = 0.0;
    { const u64 t0 = 0ull; const u64 t1 = l1; u64 t2 = t0 + (u64)rk_lane;
      for (;;) { if (t2 >= t1 || t2 < t0) { break; } l3 = t2; rk_nb1(); t2 += 2ull; } }
    l2 = rk_vred_f64_Sum(l4, rk_li);
    l5 = l2;
    auto rk_nb2 = [&]() {
        l8 = (l8 + rk_ld0(P, l0, l7));
    };
    { const u64 t3 = 0ull; const u64 t4 = l1; const bool t5 = t4 > t3; const u64 t6 = t5 ? t4 - t3 - 1ull : 0ull;
      const u64 t7 = t5 ? t6 / 2ull + 1ull : 0ull; const u64 t8 = (u64)rk_lane * t7;
      const u64 t9 = (t5 && t8 <= t6) ? rk_imin<u64>(t7 - 1ull, t6 - t8) + 1ull : 0ull;
      l8 = 0.0; l9 = false;
      { u64 t10 = t3 + t8; for (u64 t11 = 0ull; t11 < t9; ++t11) { l7 = t10; rk_nb2(); t10 += 1ull; } }
      f64 t13 = 0.0; const f64 t12 = rk_vscan_f64(l8, rk_li, t13);
      l8 = t12; l9 = true;
      { u64 t10 = t3 + t8; for (u64 t11 = 0ull; t11 < t9; ++t11) { l7 = t10; rk_nb2(); t10 += 1ull; } }
      l6 = t13;
    }
    l10 = l6;
    auto rk_nb3 = [&]() {
        l11 = (l5 + l10);
    };
    if (rk_lane == 0u) { rk_nb3(); }
    l11 = rk_shidx(rk_vmask(rk_li), l11, 0u);
    l12 = l11;
    auto rk_nb4 = [&]() {
        rk_st1(P, l0, t_tr, l12);
    };
    if (rk_lane == 0u) { rk_nb4(); }
}
extern "C" __global__ void __launch_bounds__(8) rk_main(const rk_P P) {
    __shared__ u32 rk_stop[2];
    const bool rk_t0 = threadIdx.x == 0u && threadIdx.y == 0u;
    u32 rk_par = 0u;
    if (rk_t0) { rk_stop[1] = rk_stopped(P) ? 1u : 0u; }
    __syncthreads();
    const bool rk_late = rk_stop[1] != 0u;
    unsigned char* const rk_s1 = P.scr1 == nullptr ? nullptr : reinterpret_cast<unsigned char*>(P.scr1) + (u64)blockIdx.x * P.l1s;
    for (u64 lr = rk_late ? P.league : blockIdx.x; lr < P.league; lr += gridDim.x) {
        const u32 rk_seen = rk_t0 && rk_stopped(P) ? 1u : 0u;
        rk_work(P, lr, rk_s1);
        if (rk_t0) { rk_stop[rk_par] = rk_seen; }
        __syncthreads();
        if (rk_stop[rk_par] != 0u) { break; }
        rk_par ^= 1u;
    }
}
