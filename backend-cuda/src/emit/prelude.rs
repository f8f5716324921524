//! The fixed parts of every generated module: the IR's type names, the error-record helpers
//! (the layout `rokkos_device::runtime::errors` reads) and the wrapping integer operations (C's signed
//! overflow is undefined; the IR's wraps, so the arithmetic goes through the unsigned type).

use rokkos_device::runtime::errors::{RECORDS, RECORD_WORDS};

/// Before the parameter block: the IR's scalar type names.
pub(crate) const TYPES: &str = "typedef unsigned char u8;
typedef unsigned short u16;
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;
";

/// After the parameter block: the error record and the wrapping operations.
pub(crate) fn helpers() -> String {
    "// The launch's error record: the first failure of the launch wins it.
__device__ __forceinline__ u32* rk_slot(const rk_P& P) { return P.err + (P.launch % SLOTSu) * WORDSu; }
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
"
    .replace("SLOTSu", &format!("{RECORDS}u"))
    .replace("WORDSu", &format!("{RECORD_WORDS}u"))
        + BITS
}

/// Floats from their bits (the literals of non-finite constants), last in [`helpers`].
pub(crate) const BITS: &str =
    "__device__ __forceinline__ f32 rk_f32_bits(u32 b) { return __uint_as_float(b); }
__device__ __forceinline__ f64 rk_f64_bits(u64 b) { return __longlong_as_double((long long)b); }
";
