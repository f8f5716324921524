// rokkos kernel `team_vec` (IR hash cb41033563b45fdb)
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
    const i64* v0;
    u64 v0_off;
    u64 v0_e0;
    u64 v0_s0;
    u64 v0_e1;
    u64 v0_s1;
    i64* v1;
    u64 v1_off;
    u64 v1_e0;
    u64 v1_s0;
    u64 v1_e1;
    u64 v1_s1;
    i64 init0;
    i64* out0;
    i64* res0;
    u64 nparts;
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
extern __shared__ __align__(16) unsigned char rk_dyn[];

template <int R> struct rk_sv { unsigned char* p; u64 e[R > 0 ? R : 1]; };

__device__ __forceinline__ u64 rk_soff0(const rk_P& P, const rk_sv<1>& s, u64 i0) {
    if (s.p == nullptr || i0 >= s.e[0]) {
        if (rk_oob_begin(P, 3000u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return ~0ull;
    }
    return (0ull) * s.e[0] + i0;
}

__device__ __forceinline__ i64 rk_cadd_i64(const rk_P& P, i64 a, i64 b) {
    const i64 r = rk_wadd<i64>(a, b);
    if (((a ^ r) & (b ^ r)) < 0ll) { rk_fail(P, 4100u); }
    return r;
}

__device__ __forceinline__ i64 rk_cmul_i64(const rk_P& P, i64 a, i64 b) {
    const i64 r = rk_wmul<i64>(a, b);
    if (__mul64hi(a, b) != (r < 0ll ? -1ll : 0ll)) { rk_fail(P, 4102u); }
    return r;
}

__device__ __forceinline__ i64 rk_csub_i64(const rk_P& P, i64 a, i64 b) {
    const i64 r = rk_wsub<i64>(a, b);
    if (((a ^ b) & (a ^ r)) < 0ll) { rk_fail(P, 4101u); }
    return r;
}

__device__ __forceinline__ i64 rk_ld0(const rk_P& P, u64 i0, u64 i1) {
    if (i0 >= P.v0_e0 || i1 >= P.v0_e1) {
        if (rk_oob_begin(P, 0u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return 0ll;
    }
    return P.v0[P.v0_off + i0 * P.v0_s0 + i1 * P.v0_s1];
}

__device__ __forceinline__ i64 rk_sld0(const rk_P& P, const rk_sv<1>& s, u64 i0) {
    const u64 o = rk_soff0(P, s, i0);
    return o == ~0ull ? 0ll : reinterpret_cast<const i64*>(s.p)[o];
}

__device__ __forceinline__ void rk_sst0(const rk_P& P, const rk_sv<1>& s, u64 i0, i64 x) {
    const u64 o = rk_soff0(P, s, i0);
    if (o != ~0ull) { reinterpret_cast<i64*>(s.p)[o] = x; }
}

__device__ __forceinline__ void rk_st1(const rk_P& P, u64 i0, u64 i1, i64 x) {
    if (i0 >= P.v1_e0 || i1 >= P.v1_e1) {
        if (rk_oob_begin(P, 1u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return;
    }
    P.v1[P.v1_off + i0 * P.v1_s0 + i1 * P.v1_s1] = x;
}

__device__ __forceinline__ void rk_work(const rk_P& P, const u64 t_lr, unsigned char* const rk_s1, i64& a0) {
    const u32 rk_lane = threadIdx.x;
    const u32 rk_li = threadIdx.y * 1u + threadIdx.x;
    const u64 t_tr = threadIdx.y; const u64 t_ts = 4ull; const u64 t_vl = 2ull; const u64 t_ls = P.league;
    (void)t_ts; (void)t_vl; (void)t_ls; (void)t_lr; (void)rk_s1;
    u64 rk_tp0 = 0ull; u64 rk_hp0 = P.tp0 + t_tr * P.tq0; const u64 rk_he0 = rk_hp0 + P.tq0;
    rk_sv<1> sc0 = {};
    u64 l0 = 0ull;
    u64 l1 = 0ull;
    u64 l2 = 0ull;
    u64 l3 = 0ull;
    i64 l4 = 0ll;
    u64 l5 = 0ull;
    i64 l6 = 0ll;
    i64 l7 = 0ll;
    l0 = t_lr;
    l1 = P.v0_e1;
    {
      u64 t0p = 1ull;
      const u64 t0e0 = l1;
      t0p = (t0p == 0x100000000ull && t0e0 != 0ull) ? 0x100000000ull : rk_imin<u64>(t0p * rk_imin<u64>(t0e0, 0x100000000ull), 0x100000000ull);
      const u64 t0s = (rk_hp0 + 7ull) / 8ull * 8ull;
      if (t0p <= 0xffffffffull && t0s + t0p * 8ull <= rk_he0) { rk_hp0 = t0s + t0p * 8ull; sc0.p = rk_dyn + t0s; sc0.e[0] = t0e0; }
      else { sc0.p = nullptr; sc0.e[0] = 0ull;
        if (rk_oob_begin(P, 2001u, 3u)) { rk_oob_idx(P, 0u, t0p); rk_oob_idx(P, 1u, 8ull); rk_oob_idx(P, 2u, P.tq0); } }
    }
    auto rk_nb1 = [&]() {
        rk_sst0(P, sc0, l2, rk_cmul_i64(P, 3ll, rk_ld0(P, l0, l2)));
    };
    { const u64 t1 = 0ull; const u64 t2 = l1; u64 t3 = t1 + (u64)rk_lane;
      for (;;) { if (t3 >= t2 || t3 < t1) { break; } l2 = t3; rk_nb1(); t3 += 1ull; } }
    auto rk_nb2 = [&]() {
        rk_st1(P, l0, l3, rk_csub_i64(P, rk_ld0(P, l0, l3), 1ll));
    };
    { const u64 t4 = 0ull; const u64 t5 = l1; u64 t6 = t4 + (u64)rk_li;
      for (;;) { if (t6 >= t5 || t6 < t4) { break; } l3 = t6; rk_nb2(); t6 += 4ull; } }
    auto rk_nb3 = [&]() {
        if ((rk_sld0(P, sc0, l5) > l6)) {
            l6 = rk_sld0(P, sc0, l5);
        }
    };
    l6 = (-9223372036854775807ll - 1ll);
    { const u64 t7 = 0ull; const u64 t8 = l1; u64 t9 = t7 + (u64)rk_lane;
      for (;;) { if (t9 >= t8 || t9 < t7) { break; } l5 = t9; rk_nb3(); t9 += 1ull; } }
    l4 = l6;
    l7 = l4;
    auto rk_nb4 = [&]() {
        a0 = rk_cadd_i64(P, a0, l7);
    };
    if (rk_li == 0u) { rk_nb4(); }
}
extern "C" __global__ void __launch_bounds__(4) rk_main(const rk_P P) {
    i64 a0 = P.init0;
    __shared__ u32 rk_stop[2];
    const bool rk_t0 = threadIdx.x == 0u && threadIdx.y == 0u;
    u32 rk_par = 0u;
    if (rk_t0) { rk_stop[1] = rk_stopped(P) ? 1u : 0u; }
    __syncthreads();
    const bool rk_late = rk_stop[1] != 0u;
    unsigned char* const rk_s1 = P.scr1 == nullptr ? nullptr : reinterpret_cast<unsigned char*>(P.scr1) + (u64)blockIdx.x * P.l1s;
    const u64 nb = P.nparts / 4u, g = blockIdx.x;
    if (g >= nb) { return; }
    const u64 n = P.league, base = n / nb, rem = n % nb;
    const u64 lo = g * base + (g < rem ? g : rem);
    const u64 hi = rk_late ? lo : lo + base + (g < rem ? 1u : 0u);
    for (u64 l = lo; l < hi; ++l) {
        const u32 rk_seen = rk_t0 && rk_stopped(P) ? 1u : 0u;
        const u64 lr = (u64)l;
        rk_work(P, lr, rk_s1, a0);
        if (rk_t0) { rk_stop[rk_par] = rk_seen; }
        __syncthreads();
        if (rk_stop[rk_par] != 0u) { break; }
        rk_par ^= 1u;
    }
    const u64 li = threadIdx.y * 1u + threadIdx.x;
    P.out0[g * 4u + li] = a0;
}
