// rokkos kernel `row_dot` (IR hash 5c3a2e28cea1bd0a)
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
    const f64* v1;
    u64 v1_off;
    u64 v1_e0;
    u64 v1_s0;
    f64 init0;
    f64* out0;
    f64* res0;
    u64 nparts;
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
__device__ __forceinline__ f64 rk_ld0(const rk_P& P, u64 i0, u64 i1) {
    if (i0 >= P.v0_e0 || i1 >= P.v0_e1) {
        if (rk_oob_begin(P, 0u, 2u)) { rk_oob_idx(P, 0u, i0); rk_oob_idx(P, 1u, i1); }
        return 0.0;
    }
    return P.v0[P.v0_off + i0 * P.v0_s0 + i1 * P.v0_s1];
}

__device__ __forceinline__ f64 rk_ld1(const rk_P& P, u64 i0) {
    if (i0 >= P.v1_e0) {
        if (rk_oob_begin(P, 1u, 1u)) { rk_oob_idx(P, 0u, i0); }
        return 0.0;
    }
    return P.v1[P.v1_off + i0 * P.v1_s0];
}

__device__ __forceinline__ void rk_work(const rk_P& P, const u64 w0, f64& a0) {
    u64 l0 = 0ull;
    { const u64 t0 = 0ull; const u64 t1 = P.v0_e1; const u64 t4 = 1ull; const u64 t2 = (u64)t4;
      if (t0 < t1 && t4 > 0ull) { u64 t3 = t0;
      do {
        l0 = t3;
            a0 = (a0 + (rk_ld0(P, w0, l0) * rk_ld1(P, l0)));
      } while (!(((u64)t1 - (u64)t3) <= t2) && (t3 = (u64)((u64)t3 + t2), true)); }
    }
}
__device__ __forceinline__ void rk_join(f64& a0, const f64 b0) {
    a0 = (a0 + b0);
}
template <class T> __device__ __forceinline__ T rk_shfl(T v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }
template <> __device__ __forceinline__ bool rk_shfl<bool>(bool v, int o) { return __shfl_down_sync(0xffffffffu, (int)v, o) != 0; }
__device__ __forceinline__ void rk_warp_join(f64& a0) {
    for (int o = 16; o > 0; o >>= 1) {
        const f64 b0 = rk_shfl(a0, o);
        if ((threadIdx.x % 32u) + (unsigned)o < 32u) { rk_join(a0, b0); }
    }
}
__device__ __forceinline__ void rk_block_join(const rk_P& P, f64& a0) {
    __shared__ f64 sh0[32];
    const unsigned lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
    rk_warp_join(a0);
    if (lane == 0u) { sh0[warp] = a0; }
    __syncthreads();
    if (warp == 0u) {
        const bool mine = lane < (blockDim.x + 31u) / 32u;
        a0 = mine ? sh0[lane] : P.init0;
        rk_warp_join(a0);
    }
}
extern "C" __global__ void __launch_bounds__(256) rk_final(const rk_P P) {
    f64 a0 = P.init0;
    for (u64 i = threadIdx.x; i < P.nparts; i += blockDim.x) {
        const f64 b0 = P.out0[i];
        rk_join(a0, b0);
    }
    rk_block_join(P, a0);
    if (threadIdx.x == 0u) {
        P.res0[0] = a0;
    }
}
extern "C" __global__ void __launch_bounds__(256) rk_main(const rk_P P) {
    f64 a0 = P.init0;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < P.n; i += stride) {
        const bool rk_st0 = rk_stopped(P);
        rk_work(P, P.begin + i, a0);
        if (rk_st0) { break; }
    }
    rk_block_join(P, a0);
    if (threadIdx.x == 0u) {
        P.out0[blockIdx.x] = a0;
    }
}
