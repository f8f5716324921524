// Kernel side of rokkos' CUDA emulator (tools/cuda-emu): the CUDA built-ins that rokkos-cuda's
// generated CUDA C uses, for a host C++ compiler. The emulator's NVRTC stand-in includes this
// before every kernel source. Each CUDA thread of a block runs as a cooperative fiber on the
// launching OS thread (the driver stand-in schedules them): `__syncthreads` and the warp
// shuffles switch fibers, so the code between them runs one thread at a time, in a fixed order.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

// CUDA's classification functions are global names; <cmath> puts them in std.
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

// CUDA documents these within 1 ulp (rokkos-cuda calls them for that reason, `emit::ops::
// libdevice`); glibc's are not always (its f64 cbrt is 2 ulp from the exact value on some
// inputs), so the emulator evaluates them one precision up and rounds once.
static inline double rkemu_up(long double (*f)(long double), double x) { return (double)f((long double)x); }
static inline float rkemu_upf(double (*f)(double), float x) { return (float)f((double)x); }
#define exp(x) rkemu_up(expl, (x))
#define exp2(x) rkemu_up(exp2l, (x))
#define log(x) rkemu_up(logl, (x))
#define log2(x) rkemu_up(log2l, (x))
#define log10(x) rkemu_up(log10l, (x))
#define cbrt(x) rkemu_up(cbrtl, (x))
#define cosh(x) rkemu_up(coshl, (x))
#define tanh(x) rkemu_up(tanhl, (x))
#define logf(x) rkemu_upf(::log, (x))
#define log2f(x) rkemu_upf(::log2, (x))
#define cbrtf(x) rkemu_upf(::cbrt, (x))

struct dim3 {
    unsigned x, y, z;
};

// What the driver stand-in provides to a loaded module (`rkemu_bind`).
struct rkemu_ctx {
    dim3 tid, bid, bdim, gdim;
    unsigned char* dyn;
};
struct rkemu_ops {
    rkemu_ctx* (*cur)();
    void (*sync)();
    // Exchange `v` among the warp's lanes in `mask`; returns the value of lane `src` (this
    // lane's own `v` when `src` is negative or past the block).
    unsigned long long (*shfl)(unsigned long long v, int src, unsigned mask);
    unsigned (*lane)();
};
extern "C" const rkemu_ops* rkemu_o;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// One per block: the blocks of a launch run one after another on the launching thread.
#define __shared__ static thread_local
#define threadIdx (rkemu_o->cur()->tid)
#define blockIdx (rkemu_o->cur()->bid)
#define blockDim (rkemu_o->cur()->bdim)
#define gridDim (rkemu_o->cur()->gdim)
#define warpSize 32
static inline unsigned char* rkemu_dyn() { return rkemu_o->cur()->dyn; }

static inline void __syncthreads() { rkemu_o->sync(); }

template <class T> static inline unsigned long long rkemu_bits(T v) {
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> static inline T rkemu_from(unsigned long long b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
    int lane = (int)rkemu_o->lane();
    int s = (lane & ~(width - 1)) | (src & (width - 1));
    return rkemu_from<T>(rkemu_o->shfl(rkemu_bits(v), s, mask));
}
template <class T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) {
    int lane = (int)rkemu_o->lane();
    int s = (lane % width) + (int)d < width ? lane + (int)d : -1;
    return rkemu_from<T>(rkemu_o->shfl(rkemu_bits(v), s, mask));
}
template <class T> static inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) {
    int lane = (int)rkemu_o->lane();
    int s = (lane % width) >= (int)d ? lane - (int)d : -1;
    return rkemu_from<T>(rkemu_o->shfl(rkemu_bits(v), s, mask));
}
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) {
    int lane = (int)rkemu_o->lane();
    int s = lane ^ m;
    if ((s & ~(width - 1)) != (lane & ~(width - 1))) s = -1;
    return rkemu_from<T>(rkemu_o->shfl(rkemu_bits(v), s, mask));
}

static inline float __uint_as_float(unsigned b) { return rkemu_from<float>(b); }
static inline unsigned __float_as_uint(float f) { return (unsigned)rkemu_bits(f); }
static inline float __int_as_float(int b) { return rkemu_from<float>((unsigned)b); }
static inline int __float_as_int(float f) { return (int)(unsigned)rkemu_bits(f); }
static inline double __longlong_as_double(long long b) { return rkemu_from<double>((unsigned long long)b); }
static inline long long __double_as_longlong(double d) { return (long long)rkemu_bits(d); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * (__int128)b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * (unsigned __int128)b) >> 64);
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * (long long)b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }

// Atomics: real ones, since launches on other OS threads may share memory (error records).
template <class T> static inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline float atomicExch(float* p, float v) {
    return __uint_as_float(__atomic_exchange_n((unsigned*)p, __float_as_uint(v), __ATOMIC_SEQ_CST));
}
template <class T> static inline T atomicCAS(T* p, T cmp, T v) {
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
template <class T> static inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> static inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
// Float atomics through a compare-and-swap on the bits, as CUDA's are exact read-modify-writes.
template <class F, class B, class Op> static inline F rkemu_fop(F* p, F v, Op op) {
    B* q = (B*)p;
    B old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
    for (;;) {
        F cur = rkemu_from<F>(old);
        B want = (B)rkemu_bits((F)op(cur, v));
        if (__atomic_compare_exchange_n(q, &old, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return cur;
    }
}
static inline float atomicAdd(float* p, float v) { return rkemu_fop<float, unsigned>(p, v, [](float a, float b) { return a + b; }); }
static inline double atomicAdd(double* p, double v) {
    return rkemu_fop<double, unsigned long long>(p, v, [](double a, double b) { return a + b; });
}
template <class T> static inline T atomicMax(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}
template <class T> static inline T atomicMin(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}
