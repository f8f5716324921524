//! Atomic operations on View elements: native for the integer types, compare-and-swap loops on the
//! bit pattern for `f32` / `f64` (the hardware has no float fetch-add on the host).

use std::sync::atomic::{
    AtomicI32, AtomicI64, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering,
};

/// Element types with atomic read-modify-write operations: `u8`, `u16`, `i32`, `u32`, `i64`, `u64`,
/// `f32`, `f64`.
///
/// # Safety
/// Implementations must perform each operation as one atomic access to `*p`.
pub unsafe trait AtomicScalar: Copy + Send + Sync + 'static {
    /// `*p += v`, returning the old value (wrapping for integers).
    ///
    /// # Safety
    /// `p` must be valid and aligned, and every concurrent access to `*p` must be atomic.
    unsafe fn fetch_add(p: *mut Self, v: Self) -> Self;
    /// `*p -= v`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self;
    /// `*p = min(*p, v)`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_min(p: *mut Self, v: Self) -> Self;
    /// `*p = max(*p, v)`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_max(p: *mut Self, v: Self) -> Self;
    /// Atomic load.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn load(p: *mut Self) -> Self;
    /// Atomic store.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn store(p: *mut Self, v: Self);
    /// Atomic swap, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn swap(p: *mut Self, v: Self) -> Self;
    /// Compare-and-swap on the bit pattern, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn compare_exchange(p: *mut Self, expected: Self, new: Self) -> Self;
}

/// Integer element types with atomic bitwise operations.
///
/// # Safety
/// As [`AtomicScalar`].
pub unsafe trait AtomicBits: AtomicScalar {
    /// `*p &= v`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_and(p: *mut Self, v: Self) -> Self;
    /// `*p |= v`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_or(p: *mut Self, v: Self) -> Self;
    /// `*p ^= v`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_xor(p: *mut Self, v: Self) -> Self;
}

const ORD: Ordering = Ordering::Relaxed;

macro_rules! atomic_int {
    ($t:ty, $a:ty) => {
        unsafe impl AtomicScalar for $t {
            #[inline(always)]
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_add(v, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_sub(v, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_min(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_min(v, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_max(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_max(v, ORD)
            }
            #[inline(always)]
            unsafe fn load(p: *mut Self) -> Self {
                <$a>::from_ptr(p).load(ORD)
            }
            #[inline(always)]
            unsafe fn store(p: *mut Self, v: Self) {
                <$a>::from_ptr(p).store(v, ORD)
            }
            #[inline(always)]
            unsafe fn swap(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).swap(v, ORD)
            }
            #[inline(always)]
            unsafe fn compare_exchange(p: *mut Self, e: Self, n: Self) -> Self {
                match <$a>::from_ptr(p).compare_exchange(e, n, ORD, ORD) {
                    Ok(v) | Err(v) => v,
                }
            }
        }
        unsafe impl AtomicBits for $t {
            #[inline(always)]
            unsafe fn fetch_and(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_and(v, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_or(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_or(v, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_xor(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_xor(v, ORD)
            }
        }
    };
}
atomic_int!(i32, AtomicI32);
atomic_int!(u32, AtomicU32);
atomic_int!(u8, AtomicU8);
atomic_int!(u16, AtomicU16);
atomic_int!(i64, AtomicI64);
atomic_int!(u64, AtomicU64);

macro_rules! atomic_float {
    ($t:ty, $bits:ty, $a:ty) => {
        impl FloatCas for $t {
            #[inline(always)]
            unsafe fn update(p: *mut Self, f: impl Fn(Self) -> Self) -> Self {
                let a = <$a>::from_ptr(p as *mut $bits);
                let mut cur = a.load(ORD);
                loop {
                    let old = <$t>::from_bits(cur);
                    match a.compare_exchange_weak(cur, f(old).to_bits(), ORD, ORD) {
                        Ok(_) => return old,
                        Err(now) => cur = now,
                    }
                }
            }
        }
        unsafe impl AtomicScalar for $t {
            #[inline(always)]
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x + v)
            }
            #[inline(always)]
            unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x - v)
            }
            #[inline(always)]
            unsafe fn fetch_min(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| if v < x { v } else { x })
            }
            #[inline(always)]
            unsafe fn fetch_max(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| if v > x { v } else { x })
            }
            #[inline(always)]
            unsafe fn load(p: *mut Self) -> Self {
                <$t>::from_bits(<$a>::from_ptr(p as *mut $bits).load(ORD))
            }
            #[inline(always)]
            unsafe fn store(p: *mut Self, v: Self) {
                <$a>::from_ptr(p as *mut $bits).store(v.to_bits(), ORD)
            }
            #[inline(always)]
            unsafe fn swap(p: *mut Self, v: Self) -> Self {
                <$t>::from_bits(<$a>::from_ptr(p as *mut $bits).swap(v.to_bits(), ORD))
            }
            #[inline(always)]
            unsafe fn compare_exchange(p: *mut Self, e: Self, n: Self) -> Self {
                let a = <$a>::from_ptr(p as *mut $bits);
                match a.compare_exchange(e.to_bits(), n.to_bits(), ORD, ORD) {
                    Ok(v) | Err(v) => <$t>::from_bits(v),
                }
            }
        }
    };
}

trait FloatCas: Sized {
    unsafe fn update(p: *mut Self, f: impl Fn(Self) -> Self) -> Self;
}
atomic_float!(f32, u32, AtomicU32);
atomic_float!(f64, u64, AtomicU64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_cas_ops() {
        let mut x = 1.5f64;
        unsafe {
            assert_eq!(f64::fetch_add(&mut x, 2.0), 1.5);
            assert_eq!(f64::fetch_min(&mut x, -1.0), 3.5);
            assert_eq!(f64::fetch_max(&mut x, 7.0), -1.0);
            assert_eq!(f64::compare_exchange(&mut x, 7.0, 8.0), 7.0);
            assert_eq!(f64::compare_exchange(&mut x, 7.0, 9.0), 8.0);
        }
        assert_eq!(x, 8.0);
    }
}
