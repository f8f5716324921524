//! Atomic operations on View elements: native for the integer types, compare-and-swap loops on the
//! bit pattern for `f32` / `f64` (the hardware has no float fetch-add on the host) and for the
//! operations `core::sync::atomic` lacks (mul, div, mod, shifts, inc_mod, dec_mod).
//!
//! Every integer operation wraps. Integer `div` / `mod` by zero panic with Rust's message
//! (`attempt to divide by zero`, ...) before the element is touched, which a launch reports as
//! `Err(KernelFailed)` as on every backend; `MIN / -1` wraps to `MIN` and `MIN % -1` is 0. Shift
//! amounts are masked to the width (`wrapping_shl`). The semantics are those of
//! `rokkos_ir::ops::atomic`.

use crate::ir::{AtomicOp, Failure};
use std::sync::atomic::{
    AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering,
};

/// Element types with atomic read-modify-write operations: `u8`, `u16`, `i8`, `i16`, `i32`, `u32`, `i64`, `u64`,
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
    /// `*p *= v`, returning the old value (wrapping for integers).
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_mul(p: *mut Self, v: Self) -> Self;
    /// `*p /= v`, returning the old value. Integers: panics (`attempt to divide by zero`)
    /// without touching `*p` when `v` is 0; `MIN / -1` wraps to `MIN`.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_div(p: *mut Self, v: Self) -> Self;
    /// `*p += 1`, returning the old value (wrapping for integers).
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_inc(p: *mut Self) -> Self;
    /// `*p -= 1`, returning the old value (wrapping for integers).
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_dec(p: *mut Self) -> Self;
    /// The value read-modify-write `op` stores over `old` with operand `v` (ignored by `Inc` and
    /// `Dec`), for the `atomic_<op>_fetch` forms; `old` for an operation it does not apply to.
    #[doc(hidden)]
    fn __stored(op: AtomicOp, old: Self, v: Self) -> Self;
    /// Whether `op` with operand `v` stores exactly [`AtomicScalar::__stored`] (so that a
    /// launch whose work items run one at a time on one thread may update the element with a
    /// plain read and write): false where the atomic operation fails the work item instead
    /// (an integer `div` / `mod` by zero).
    #[doc(hidden)]
    #[inline(always)]
    fn __plain_ok(_op: AtomicOp, _v: Self) -> bool {
        true
    }
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
    /// `*p = !(*p & v)`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_nand(p: *mut Self, v: Self) -> Self;
    /// `*p %= v`, returning the old value; panics (`attempt to calculate the remainder with a
    /// divisor of zero`) without touching `*p` when `v` is 0; `MIN % -1` is 0.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_mod(p: *mut Self, v: Self) -> Self;
    /// `*p <<= v`, the amount masked to the width (`wrapping_shl`), returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_lshift(p: *mut Self, v: Self) -> Self;
    /// `*p >>= v`, the amount masked to the width (`wrapping_shr`; arithmetic for signed types),
    /// returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_rshift(p: *mut Self, v: Self) -> Self;
}

/// Unsigned integer element types with Kokkos' modular increment and decrement.
///
/// # Safety
/// As [`AtomicScalar`].
pub unsafe trait AtomicUnsigned: AtomicBits {
    /// `*p = if *p >= v { 0 } else { *p + 1 }`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_inc_mod(p: *mut Self, v: Self) -> Self;
    /// `*p = if *p == 0 || *p > v { v } else { *p - 1 }`, returning the old value.
    ///
    /// # Safety
    /// As [`AtomicScalar::fetch_add`].
    unsafe fn fetch_dec_mod(p: *mut Self, v: Self) -> Self;
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

/// The failure of an integer `div` (`mod`) by zero: Rust's own panic message.
#[cold]
#[inline(never)]
fn zero_divisor(f: Failure) -> ! {
    panic!("{}", f.message())
}

macro_rules! atomic_int {
    ($t:ty, $a:ty) => {
        same_alignment!($t, $a);
        impl IntCas for $t {
            #[inline(always)]
            unsafe fn update(p: *mut Self, f: impl Fn(Self) -> Self) -> Self {
                match <$a>::from_ptr(p).fetch_update(ORD, ORD, |x| Some(f(x))) {
                    Ok(v) | Err(v) => v,
                }
            }
        }
        unsafe impl AtomicScalar for $t {
            #[inline(always)]
            unsafe fn fetch_mul(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x.wrapping_mul(v))
            }
            #[inline(always)]
            unsafe fn fetch_div(p: *mut Self, v: Self) -> Self {
                if v == 0 {
                    zero_divisor(Failure::DivByZero);
                }
                Self::update(p, |x| x.wrapping_div(v))
            }
            #[inline(always)]
            unsafe fn fetch_inc(p: *mut Self) -> Self {
                <$a>::from_ptr(p).fetch_add(1, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_dec(p: *mut Self) -> Self {
                <$a>::from_ptr(p).fetch_sub(1, ORD)
            }
            #[inline(always)]
            fn __plain_ok(op: AtomicOp, v: Self) -> bool {
                v != 0 || !matches!(op, AtomicOp::Div | AtomicOp::Mod)
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn __stored(op: AtomicOp, x: Self, v: Self) -> Self {
                match op {
                    AtomicOp::Add => x.wrapping_add(v),
                    AtomicOp::Sub => x.wrapping_sub(v),
                    AtomicOp::Mul => x.wrapping_mul(v),
                    AtomicOp::Div if v != 0 => x.wrapping_div(v),
                    AtomicOp::Mod if v != 0 => x.wrapping_rem(v),
                    AtomicOp::Min => x.min(v),
                    AtomicOp::Max => x.max(v),
                    AtomicOp::And => x & v,
                    AtomicOp::Or => x | v,
                    AtomicOp::Xor => x ^ v,
                    AtomicOp::Nand => !(x & v),
                    AtomicOp::Lshift => x.wrapping_shl(v as u32),
                    AtomicOp::Rshift => x.wrapping_shr(v as u32),
                    AtomicOp::Inc => x.wrapping_add(1),
                    AtomicOp::Dec => x.wrapping_sub(1),
                    AtomicOp::IncMod => {
                        if x >= v {
                            0
                        } else {
                            x + 1
                        }
                    }
                    AtomicOp::DecMod => {
                        if x == 0 || x > v {
                            v
                        } else {
                            x - 1
                        }
                    }
                    AtomicOp::Exchange | AtomicOp::Store => v,
                    _ => x,
                }
            }
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
            #[inline(always)]
            unsafe fn fetch_nand(p: *mut Self, v: Self) -> Self {
                <$a>::from_ptr(p).fetch_nand(v, ORD)
            }
            #[inline(always)]
            unsafe fn fetch_mod(p: *mut Self, v: Self) -> Self {
                if v == 0 {
                    zero_divisor(Failure::RemByZero);
                }
                Self::update(p, |x| x.wrapping_rem(v))
            }
            #[inline(always)]
            unsafe fn fetch_lshift(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x.wrapping_shl(v as u32))
            }
            #[inline(always)]
            unsafe fn fetch_rshift(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x.wrapping_shr(v as u32))
            }
        }
    };
}

macro_rules! atomic_unsigned {
    ($($t:ty),*) => {$(
        unsafe impl AtomicUnsigned for $t {
            #[inline(always)]
            unsafe fn fetch_inc_mod(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| Self::__stored(AtomicOp::IncMod, x, v))
            }
            #[inline(always)]
            unsafe fn fetch_dec_mod(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| Self::__stored(AtomicOp::DecMod, x, v))
            }
        }
    )*};
}
atomic_int!(i32, AtomicI32);
atomic_int!(u32, AtomicU32);
atomic_int!(u8, AtomicU8);
atomic_int!(u16, AtomicU16);
atomic_int!(i8, AtomicI8);
atomic_int!(i16, AtomicI16);
atomic_int!(i64, AtomicI64);
atomic_int!(u64, AtomicU64);
atomic_unsigned!(u8, u16, u32, u64);

trait IntCas: Sized {
    unsafe fn update(p: *mut Self, f: impl Fn(Self) -> Self) -> Self;
}

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
            unsafe fn fetch_mul(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x * v)
            }
            #[inline(always)]
            unsafe fn fetch_div(p: *mut Self, v: Self) -> Self {
                Self::update(p, |x| x / v)
            }
            #[inline(always)]
            unsafe fn fetch_inc(p: *mut Self) -> Self {
                Self::update(p, |x| x + 1.0)
            }
            #[inline(always)]
            unsafe fn fetch_dec(p: *mut Self) -> Self {
                Self::update(p, |x| x - 1.0)
            }
            #[inline(always)]
            fn __stored(op: AtomicOp, x: Self, v: Self) -> Self {
                match op {
                    AtomicOp::Add => x + v,
                    AtomicOp::Sub => x - v,
                    AtomicOp::Mul => x * v,
                    AtomicOp::Div => x / v,
                    AtomicOp::Min => {
                        if v < x {
                            v
                        } else {
                            x
                        }
                    }
                    AtomicOp::Max => {
                        if v > x {
                            v
                        } else {
                            x
                        }
                    }
                    AtomicOp::Inc => x + 1.0,
                    AtomicOp::Dec => x - 1.0,
                    AtomicOp::Exchange | AtomicOp::Store => v,
                    _ => x,
                }
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
        check::<i8, AtomicI8>();
        check::<i16, AtomicI16>();
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

    #[test]
    fn integer_cas_ops_wrap_and_zero_divisors_panic() {
        let mut x = -7i32;
        // SAFETY: `x` is valid, aligned, and nothing else accesses it.
        unsafe {
            assert_eq!(i32::fetch_mul(&mut x, 3), -7);
            assert_eq!(i32::fetch_div(&mut x, 2), -21);
            assert_eq!(i32::fetch_mod(&mut x, 4), -10);
            assert_eq!(i32::fetch_nand(&mut x, 1), -2);
            assert_eq!(i32::fetch_lshift(&mut x, 33), -1); // the amount masked to 1
            assert_eq!(i32::fetch_rshift(&mut x, 1), -2);
            assert_eq!(i32::fetch_inc(&mut x), -1);
            assert_eq!(i32::fetch_dec(&mut x), 0);
        }
        assert_eq!(x, -1);
        let mut m = i32::MIN;
        // SAFETY: as above.
        unsafe {
            assert_eq!(i32::fetch_div(&mut m, -1), i32::MIN);
            assert_eq!(m, i32::MIN);
            i32::fetch_mod(&mut m, -1);
        }
        assert_eq!(m, 0);
        let mut u = 5u8;
        // SAFETY: as above.
        unsafe {
            assert_eq!(u8::fetch_inc_mod(&mut u, 5), 5);
            assert_eq!(u, 0);
            assert_eq!(u8::fetch_dec_mod(&mut u, 5), 0);
        }
        assert_eq!(u, 5);
        for (div, msg) in [
            (true, "attempt to divide by zero"),
            (
                false,
                "attempt to calculate the remainder with a divisor of zero",
            ),
        ] {
            let mut y = 9u64;
            let r = std::panic::catch_unwind(move || {
                // SAFETY: as above.
                unsafe {
                    if div {
                        u64::fetch_div(&mut y, 0)
                    } else {
                        u64::fetch_mod(&mut y, 0)
                    }
                }
            });
            let p = r.expect_err("a zero divisor panics");
            assert_eq!(p.downcast_ref::<String>().map(String::as_str), Some(msg));
        }
    }
}
