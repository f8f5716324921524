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

/// `from_ptr` of std's atomic types requires the pointer to be aligned to the atomic type, while a
/// View guarantees only its element type's alignment (an adopted `Vec<u64>` is 4-byte aligned on
/// some 32-bit targets, where `AtomicU64` needs 8): the two must agree, or this does not build.
macro_rules! same_alignment {
    ($t:ty, $a:ty) => {
        const _: () = assert!(
            std::mem::align_of::<$t>() == std::mem::align_of::<$a>()
                && std::mem::size_of::<$t>() == std::mem::size_of::<$a>()
        );
    };
}

macro_rules! atomic_int {
    ($t:ty, $a:ty) => {
        same_alignment!($t, $a);
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
        same_alignment!($t, $a);
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

    /// The preconditions of `Atomic*::from_ptr` that depend on the element type (the const
    /// assertions above make them build errors; this states them where tests are read): a View
    /// element of each atomic type is aligned for its atomic twin, even in memory aligned only
    /// to the element type (an adopted `Vec`).
    #[test]
    fn atomic_twins_need_no_more_alignment_than_the_elements() {
        fn check<T, A>() {
            assert_eq!(std::mem::align_of::<T>(), std::mem::align_of::<A>());
            assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<A>());
        }
        check::<u8, AtomicU8>();
        check::<u16, AtomicU16>();
        check::<i32, AtomicI32>();
        check::<u32, AtomicU32>();
        check::<f32, AtomicU32>();
        check::<i64, AtomicI64>();
        check::<u64, AtomicU64>();
        check::<f64, AtomicU64>();
        // An element of a `Vec`, which is all the alignment an adopted View has.
        let mut v = vec![0u64; 3];
        let p = &mut v[1] as *mut u64;
        assert_eq!(p as usize % std::mem::align_of::<AtomicU64>(), 0);
        // SAFETY: `p` is valid, aligned (checked), and nothing else accesses it.
        unsafe { assert_eq!(u64::fetch_add(p, 5), 0) };
        assert_eq!(v, [0, 5, 0]);
    }

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
