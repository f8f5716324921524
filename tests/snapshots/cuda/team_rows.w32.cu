// rokkos kernel `team_rows` (IR hash fccb4aeb5cd755a2)
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
    u32 v0_off;
    u32 v0_e0;
    u32 v0_s0;
    u32 v0_e1;
    u32 v0_s1;
    f64* v1;
    u32 v1_off;
    u32 v1_e0;
    u32 v1_s0;
    u32 v1_e1;
    u32 v1_s1;
    f64* v2;
    u32 v2_off;
    u32 v2_e0;
    u32 v2_s0;
    u32 league;
    u32 tp0;
    u32 tq0;
    u32 tp1;
    u32 tq1;
    u32 l1s;
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

template <int R> struct rk_sv { unsigned char* p; u32 e[R > 0 ? R : 1]; };

__shared__ u64 rk_x[4];

__device__ __forceinline__ u32 rk_soff0(const rk_P& P, const rk_sv<1>& s, u32 i0) {
    if (s.p == nullptr || i0 >= s.e[0]) {
        if (rk_oob_begin(P, 3000u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return ~0u;
    }
    return (0u) * s.e[0] + i0;
}

__device__ __forceinline__ f64 rk_bcast_f64(f64 x, const u32 src, const u32 li) {
    f64* const b = reinterpret_cast<f64*>(rk_x);
    __syncthreads();
    if (li == src) { b[0] = x; }
    __syncthreads();
    return b[0];
}

__device__ __forceinline__ u32 rk_csub_u32(const rk_P& P, u32 a, u32 b) {
    const u32 r = rk_wsub<u32>(a, b);
    if (b > a) { rk_fail(P, 4101u); }
    return r;
}

__device__ __forceinline__ f64 rk_ld0(const rk_P& P, u32 i0, u32 i1) {
    if (i0 >= P.v0_e0 || i1 >= P.v0_e1) {
        if (rk_oob_begin(P, 0u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return 0.0;
    }
    return P.v0[P.v0_off + i0 * P.v0_s0 + i1 * P.v0_s1];
}

__device__ __forceinline__ f64 rk_sld0(const rk_P& P, const rk_sv<1>& s, u32 i0) {
    const u32 o = rk_soff0(P, s, i0);
    return o == ~0u ? 0.0 : reinterpret_cast<const f64*>(s.p)[o];
}

__device__ __forceinline__ void rk_sst0(const rk_P& P, const rk_sv<1>& s, u32 i0, f64 x) {
    const u32 o = rk_soff0(P, s, i0);
    if (o != ~0u) { reinterpret_cast<f64*>(s.p)[o] = x; }
}

__device__ __forceinline__ void rk_st1(const rk_P& P, u32 i0, u32 i1, f64 x) {
    if (i0 >= P.v1_e0 || i1 >= P.v1_e1) {
        if (rk_oob_begin(P, 1u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return;
    }
    P.v1[P.v1_off + i0 * P.v1_s0 + i1 * P.v1_s1] = x;
}

__device__ __forceinline__ void rk_st2(const rk_P& P, u32 i0, f64 x) {
    if (i0 >= P.v2_e0) {
        if (rk_oob_begin(P, 2u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return;
    }
    P.v2[P.v2_off + i0 * P.v2_s0] = x;
}

__device__ __forceinline__ f64 rk_tred_f64_Sum(f64 x, const u32 li) {
    f64* const b = reinterpret_cast<f64*>(rk_x);
    __syncthreads();
    b[li] = x;
    __syncthreads();
    for (u32 s = 2u; s > 0u; s >>= 1) {
        if (li < s && li + s < 4u) { const f64 p = b[li]; const f64 q = b[li + s]; b[li] = (p + q); }
        __syncthreads();
    }
    return b[0];
}

__device__ __forceinline__ f64 rk_tscan_f64(f64 x, const u32 k, const u32 li, f64& tot) {
    f64* const b = reinterpret_cast<f64*>(rk_x);
    __syncthreads();
    b[li] = x;
    __syncthreads();
    for (u32 off = 1u; off < 4u; off <<= 1) {
        f64 y = b[li];
        if (li >= off) { y = (b[li - off] + y); }
        __syncthreads();
        b[li] = y;
        __syncthreads();
    }
    tot = b[4u - 1u];
    return k > 0u ? b[k - 1u] : 0.0;
}

__device__ __forceinline__ void rk_work(const rk_P& P, const u32 t_lr, unsigned char* const rk_s1) {
    const u32 rk_lane = threadIdx.x;
    const u32 rk_li = threadIdx.y * 1u + threadIdx.x;
    const u32 t_tr = threadIdx.y; const u32 t_ts = 4u; const u32 t_vl = 2u; const u32 t_ls = P.league;
    (void)t_ts; (void)t_vl; (void)t_ls; (void)t_lr; (void)rk_s1;
    u32 rk_tp0 = 0u; u32 rk_hp0 = P.tp0 + t_tr * P.tq0; const u32 rk_he0 = rk_hp0 + P.tq0;
    rk_sv<1> sc0 = {};
    u32 l0 = 0u;
    u32 l1 = 0u;
    u32 l2 = 0u;
    f64 l3 = 0.0;
    u32 l4 = 0u;
    f64 l5 = 0.0;
    f64 l6 = 0.0;
    f64 l7 = 0.0;
    u32 l8 = 0u;
    f64 l9 = 0.0;
    bool l10 = false;
    f64 l11 = 0.0;
    f64 l12 = 0.0;
    f64 l13 = 0.0;
    f64 l14 = 0.0;
    f64 l15 = 0.0;
    f64 l16 = 0.0;
    l0 = t_lr;
    l1 = P.v0_e1;
    {
      u32 t0p = 1u;
      bool t0h = false;
      const u32 t0e0 = l1;
      { const u32 t0q = ((t0e0 != 0u && (t0h || t0p > 0xffffffffu / t0e0))) ? 0xffffffffu : t0p * t0e0; t0h = (t0e0 != 0u && (t0h || t0p > 0xffffffffu / t0e0)); t0p = t0q; }
      const u32 t0s = (rk_tp0 + 7u) / 8u * 8u;
      if (t0s <= P.tp0 && t0p <= (P.tp0 - t0s) / 8u) { rk_tp0 = t0s + t0p * 8u; sc0.p = rk_dyn + t0s; sc0.e[0] = t0e0; }
      else { sc0.p = nullptr; sc0.e[0] = 0u;
        if (rk_oob_begin(P, 2000u, 3u)) { rk_oob_idx(P, 0u, t0h ? 0x100000000ull : (u64)t0p); rk_oob_idx(P, 1u, 8ull); rk_oob_idx(P, 2u, P.tp0); } }
    }
    auto rk_nb1 = [&]() {
        rk_sst0(P, sc0, l2, ((2e0) * rk_ld0(P, l0, l2)));
    };
    { const u32 t1 = 0u; const u32 t2 = l1; u32 t3 = t1 + t_tr;
      for (;;) { if (t3 >= t2 || t3 < t1) { break; } l2 = t3; rk_nb1(); t3 += 4u; } }
    __syncthreads();
    auto rk_nb2 = [&]() {
        l5 = (l5 + rk_sld0(P, sc0, l4));
    };
    l5 = 0.0;
    { const u32 t4 = 0u; const u32 t5 = l1; u32 t6 = t4 + t_tr;
      for (;;) { if (t6 >= t5 || t6 < t4) { break; } l4 = t6; rk_nb2(); t6 += 4u; } }
    l3 = rk_tred_f64_Sum(l5, rk_li);
    l6 = l3;
    auto rk_nb3 = [&]() {
        if (l10) {
            rk_st1(P, l0, l8, l9);
        }
        l9 = (l9 + rk_sld0(P, sc0, rk_csub_u32(P, rk_csub_u32(P, l1, 1u), l8)));
    };
    { const u32 t7 = 0u; const u32 t8 = l1; const bool t9 = t8 > t7; const u32 t10 = t9 ? t8 - t7 - 1u : 0u;
      const u32 t11 = t9 ? t10 / 4u + 1u : 0u; const u32 t12 = t_tr * t11;
      const u32 t13 = (t9 && t12 <= t10) ? rk_imin<u32>(t11 - 1u, t10 - t12) + 1u : 0u;
      l9 = 0.0; l10 = false;
      { u32 t14 = t7 + t12; for (u32 t15 = 0u; t15 < t13; ++t15) { l8 = t14; rk_nb3(); t14 += 1u; } }
      f64 t17 = 0.0; const f64 t16 = rk_tscan_f64(l9, rk_li, rk_li, t17);
      l9 = t16; l10 = true;
      { u32 t14 = t7 + t12; for (u32 t15 = 0u; t15 < t13; ++t15) { l8 = t14; rk_nb3(); t14 += 1u; } }
      l7 = t17;
    }
    l11 = l7;
    { const f64 t18 = rk_sld0(P, sc0, 0u); const u32 t19 = 0u;
      const f64 t18b = rk_bcast_f64(t18, (u32)(t19 < 4u ? t19 : 4u) * 1u, rk_li);
      l12 = t19 < 4u ? t18b : t18; }
    l13 = l12;
    auto rk_nb4 = [&]() {
        if ((l6 > l13)) {
            l15 = l6;
        } else {
            l15 = l13;
        }
        l14 = l15;
    };
    if (rk_li == 0u) { rk_nb4(); }
    l14 = rk_bcast_f64(l14, 0u, rk_li);
    l16 = l14;
    auto rk_nb5 = [&]() {
        rk_st2(P, l0, (l6 + (l16 * ((f64)(t_ls)))));
    };
    if (rk_li == 0u) { rk_nb5(); }
}
extern "C" __global__ void __launch_bounds__(4) rk_main(const rk_P P) {
    __shared__ u32 rk_stop[2];
    const bool rk_t0 = threadIdx.x == 0u && threadIdx.y == 0u;
    u32 rk_par = 0u;
    if (rk_t0) { rk_stop[1] = rk_stopped(P) ? 1u : 0u; }
    __syncthreads();
    const bool rk_late = rk_stop[1] != 0u;
    unsigned char* const rk_s1 = P.scr1 == nullptr ? nullptr : reinterpret_cast<unsigned char*>(P.scr1) + (u64)blockIdx.x * P.l1s;
    for (u32 lr = rk_late ? P.league : blockIdx.x; lr < P.league; lr += gridDim.x) {
        const u32 rk_seen = rk_t0 && rk_stopped(P) ? 1u : 0u;
        rk_work(P, lr, rk_s1);
        if (rk_t0) { rk_stop[rk_par] = rk_seen; }
        __syncthreads();
        if (rk_stop[rk_par] != 0u) { break; }
        rk_par ^= 1u;
    }
}
