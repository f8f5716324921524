//! The native meaning of the scalar methods a kernel body may call, fixed by rokkos.
//!
//! `#[rokkos::kernel]` and `#[rokkos::func]` route every math method call of a body
//! (`x.max(y)`, `T::sqrt(x)`, `f64::hypot(a, b)`, `T::from_f64(x)`, `x.to_bits()`,
//! `T::from_bits(b)`) through the functions of this
//! module, in the native code as the IR builder does for the devices. Left to rustc's method
//! resolution, a call on a type parameter or a method that a scalar type lacks (`f64` has no
//! `wrapping_add`) would reach whatever trait in scope answers the name: a user trait
//! `trait MyOps { fn max(self, o: Self) -> Self; }` implemented as `self + o` would run on the host
//! while every device computed `max`. Here each function has one meaning, `std`'s, which is the
//! one the IR's operations are specified by ([`crate::ir::ops`]), and their bounds are the IR builder's own
//! (sealed) traits, whose hidden methods hold the native meaning, so a call that compiles on one path
//! compiles on the other.
//!
//! Not a public interface: the macros name it through `rokkos::__private`.

use crate::ir::build::native::{Binary, Unary};
use crate::ir::build::{IrFloat, IrNum, IrSigned};

/// Declares the float functions of one and of two arguments.
macro_rules! float_functions {
    (unary: $($u:ident => $U:ident),*; binary: $($b:ident => $B:ident),*) => {
        $(
            #[doc = concat!("`x.", stringify!($u), "()` as `std` computes it.")]
            #[inline(always)]
            pub fn $u<T: IrFloat>(x: T) -> T {
                x.n_unary(Unary::$U)
            }
        )*
        $(
            #[doc = concat!("`x.", stringify!($b), "(y)` as `std` computes it.")]
            #[inline(always)]
            pub fn $b<T: IrFloat>(x: T, y: T) -> T {
                x.n_binary(Binary::$B, y)
            }
        )*
    };
}

float_functions! {
    unary: sqrt => Sqrt, cbrt => Cbrt, sin => Sin, cos => Cos, tan => Tan, asin => Asin,
        acos => Acos, atan => Atan, sinh => Sinh, cosh => Cosh, tanh => Tanh, exp => Exp,
        exp2 => Exp2, ln => Ln, log2 => Log2, log10 => Log10, floor => Floor, ceil => Ceil,
        round => Round, trunc => Trunc, fract => Fract, recip => Recip, to_radians => ToRadians,
        to_degrees => ToDegrees;
    binary: atan2 => Atan2, powf => Powf, hypot => Hypot
}

/// `x.mul_add(a, b)` as `std` computes it (one rounding).
#[inline(always)]
pub fn mul_add<T: IrFloat>(x: T, a: T, b: T) -> T {
    x.n_mul_add(a, b)
}

/// `x.powi(n)` as `std` computes it.
#[inline(always)]
pub fn powi<T: IrFloat>(x: T, n: i32) -> T {
    x.n_powi(n)
}

/// `x.is_nan()`.
#[inline(always)]
pub fn is_nan<T: IrFloat>(x: T) -> bool {
    x.n_is_nan()
}

/// `x.is_finite()`.
#[inline(always)]
pub fn is_finite<T: IrFloat>(x: T) -> bool {
    x.n_is_finite()
}

/// `x.to_bits()` (`T::to_bits(x)`): `std`'s bits of a float, `u32` for `f32` and `u64` for `f64`.
#[inline(always)]
pub fn to_bits<T: IrFloat>(x: T) -> T::Bits {
    x.n_to_bits()
}

/// `T::from_bits(b)`: `std`'s float whose bits are `b`.
#[inline(always)]
pub fn from_bits<T: IrFloat>(b: T::Bits) -> T {
    T::n_from_bits(b)
}

/// `x.wrapping_add(y)`: wrapping for integers, `+` for floats (the IR's `WrappingAdd`).
#[inline(always)]
pub fn wrapping_add<T: IrNum>(x: T, y: T) -> T {
    x.n_wrapping_add(y)
}

/// `x.wrapping_sub(y)`: wrapping for integers, `-` for floats.
#[inline(always)]
pub fn wrapping_sub<T: IrNum>(x: T, y: T) -> T {
    x.n_wrapping_sub(y)
}

/// `x.wrapping_mul(y)`: wrapping for integers, `*` for floats.
#[inline(always)]
pub fn wrapping_mul<T: IrNum>(x: T, y: T) -> T {
    x.n_wrapping_mul(y)
}

/// `x.rem_euclid(y)` as `std` computes it.
#[inline(always)]
pub fn rem_euclid<T: IrNum>(x: T, y: T) -> T {
    x.n_rem_euclid(y)
}

/// `x.min(y)` (floats: the other operand when one is NaN, as `std`).
#[inline(always)]
pub fn min<T: IrNum>(x: T, y: T) -> T {
    x.n_min(y)
}

/// `x.max(y)` (floats: the other operand when one is NaN, as `std`).
#[inline(always)]
pub fn max<T: IrNum>(x: T, y: T) -> T {
    x.n_max(y)
}

/// `x.clamp(lo, hi)` as `std` computes it (it panics when `lo > hi`, or for floats when either
/// is NaN, as `std` does; a panic in a work item is the launch's `Err`).
#[inline(always)]
pub fn clamp<T: IrNum>(x: T, lo: T, hi: T) -> T {
    x.n_clamp(lo, hi)
}

/// `x.abs()`.
#[inline(always)]
pub fn abs<T: IrSigned>(x: T) -> T {
    x.n_abs()
}

/// `x.signum()`.
#[inline(always)]
pub fn signum<T: IrSigned>(x: T) -> T {
    x.n_signum()
}

/// `T::from_f64(x)`: `x as T`.
#[inline(always)]
pub fn from_f64<T: IrNum>(x: f64) -> T {
    T::n_from_f64(x)
}

/// `T::from_f32(x)`: `x as T`.
#[inline(always)]
pub fn from_f32<T: IrNum>(x: f32) -> T {
    T::n_from_f32(x)
}

/// `T::to_f64(x)`: `x as f64`.
#[inline(always)]
pub fn to_f64<T: IrNum>(x: T) -> f64 {
    x.n_to_f64()
}

/// `T::to_f32(x)`: `x as f32`.
#[inline(always)]
pub fn to_f32<T: IrNum>(x: T) -> f32 {
    x.n_to_f32()
}

/// Declares a method trait, blanket-implemented for the types of its bound, whose methods call
/// the functions above: the macros call `x.__rokkos_max(y)`, method syntax, so that the receiver
/// auto-dereferences as `x.max(y)` does (a reduction's `acc.abs()`), with a name no user trait
/// has.
macro_rules! method_trait {
    ($(#[$m:meta])* $tr:ident: $bound:ident { $($f:ident => $name:ident($($a:ident: $at:ty),*) -> $r:ty;)* }) => {
        $(#[$m])*
        pub trait $tr: $bound {
            $(
                #[doc = concat!("[`", stringify!($name), "`].")]
                #[inline(always)]
                fn $f(self, $($a: $at),*) -> $r {
                    $name(self, $($a),*)
                }
            )*
        }
        impl<T: $bound> $tr for T {}
    };
}

method_trait! {
    /// The float methods.
    FloatMethods: IrFloat {
        __rokkos_sqrt => sqrt() -> Self; __rokkos_cbrt => cbrt() -> Self;
        __rokkos_sin => sin() -> Self; __rokkos_cos => cos() -> Self; __rokkos_tan => tan() -> Self;
        __rokkos_asin => asin() -> Self; __rokkos_acos => acos() -> Self;
        __rokkos_atan => atan() -> Self; __rokkos_sinh => sinh() -> Self;
        __rokkos_cosh => cosh() -> Self; __rokkos_tanh => tanh() -> Self;
        __rokkos_exp => exp() -> Self; __rokkos_exp2 => exp2() -> Self; __rokkos_ln => ln() -> Self;
        __rokkos_log2 => log2() -> Self; __rokkos_log10 => log10() -> Self;
        __rokkos_floor => floor() -> Self; __rokkos_ceil => ceil() -> Self;
        __rokkos_round => round() -> Self; __rokkos_trunc => trunc() -> Self;
        __rokkos_fract => fract() -> Self; __rokkos_recip => recip() -> Self;
        __rokkos_to_radians => to_radians() -> Self; __rokkos_to_degrees => to_degrees() -> Self;
        __rokkos_atan2 => atan2(x: Self) -> Self; __rokkos_powf => powf(e: Self) -> Self;
        __rokkos_hypot => hypot(y: Self) -> Self; __rokkos_powi => powi(n: i32) -> Self;
        __rokkos_mul_add => mul_add(a: Self, b: Self) -> Self;
        __rokkos_is_nan => is_nan() -> bool; __rokkos_is_finite => is_finite() -> bool;
        __rokkos_to_bits => to_bits() -> <Self as IrFloat>::Bits;
    }
}

method_trait! {
    /// The methods of every numeric type.
    NumMethods: IrNum {
        __rokkos_wrapping_add => wrapping_add(b: Self) -> Self;
        __rokkos_wrapping_sub => wrapping_sub(b: Self) -> Self;
        __rokkos_wrapping_mul => wrapping_mul(b: Self) -> Self;
        __rokkos_rem_euclid => rem_euclid(b: Self) -> Self;
        __rokkos_min => min(b: Self) -> Self; __rokkos_max => max(b: Self) -> Self;
        __rokkos_clamp => clamp(lo: Self, hi: Self) -> Self;
    }
}

method_trait! {
    /// The methods of the signed types.
    SignedMethods: IrSigned { __rokkos_abs => abs() -> Self; __rokkos_signum => signum() -> Self; }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_functions_are_stds() {
        assert_eq!(max(f64::NAN, 1.0), 1.0);
        assert_eq!(min(3u8, 2), 2);
        assert_eq!(wrapping_add(i32::MAX, 1), i32::MIN);
        assert_eq!(wrapping_add(0.5f32, 0.25), 0.75);
        assert_eq!(rem_euclid(-7i64, 3), 2);
        assert_eq!(rem_euclid(-7.0f64, 3.0), 2.0);
        assert_eq!(clamp(9usize, 1, 4), 4);
        assert_eq!(abs(-2isize), 2);
        assert_eq!(signum(-0.5f32), -1.0);
        assert_eq!(sqrt(2.0f64), 2.0f64.sqrt());
        assert_eq!(atan2(1.0f32, -1.0), 1.0f32.atan2(-1.0));
        assert_eq!(mul_add(2.0f64, 3.0, 1.0), 7.0);
        assert_eq!(powi(2.0f32, 10), 1024.0);
        assert!(is_nan(f64::NAN) && !is_finite(f32::INFINITY));
        assert_eq!(to_radians(180.0f64), std::f64::consts::PI);
        assert_eq!(from_f64::<i32>(-2.7), -2);
        assert_eq!(from_f64::<u8>(300.0), 255);
        assert_eq!(to_f64(7u16), 7.0);
        assert_eq!(to_f32(1.0e300f64), f32::INFINITY);
        assert_eq!(from_f32::<f64>(0.5), 0.5);
        let mut acc = -2.5f64;
        let r = &mut acc;
        assert_eq!(r.__rokkos_abs(), 2.5);
        assert_eq!(3u32.__rokkos_max(4), 4);
        assert_eq!(2.0f32.__rokkos_powi(3), 8.0);
        let nan = f32::from_bits(0x7fc0_1234);
        assert_eq!(nan.__rokkos_to_bits(), 0x7fc0_1234);
        assert_eq!(to_bits(-0.0f64), 1 << 63);
        assert_eq!(from_bits::<f64>(0x7ff0_0000_0000_0000), f64::INFINITY);
        assert_eq!(from_bits::<f32>(1).to_bits(), 1);
    }

    /// The evaluator's bit casts (what the devices' IR means) are these functions, NaN payloads
    /// included, and refuse operands of the wrong type.
    #[test]
    fn the_evaluator_bit_casts_as_std() {
        use crate::ir::eval::ops::math;
        use crate::ir::{MathFn, Value};
        for b in [0x7fc0_1234u32, 0x7f80_0001, 0x8000_0000, 1, 0xff80_0000] {
            let x = from_bits::<f32>(b);
            assert_eq!(
                math(MathFn::ToBits, &[Value::F32(x)], false),
                Ok(Value::U32(b))
            );
            let Ok(Value::F32(y)) = math(MathFn::FromBits, &[Value::U32(b)], false) else {
                panic!("{b:#x}")
            };
            assert_eq!(y.to_bits(), b);
        }
        for b in [0x7ff8_0000_dead_beefu64, 0x7ff0_0000_0000_0001, 1 << 63, 1] {
            let x = from_bits::<f64>(b);
            assert_eq!(
                math(MathFn::ToBits, &[Value::F64(x)], false),
                Ok(Value::U64(b))
            );
            let Ok(Value::F64(y)) = math(MathFn::FromBits, &[Value::U64(b)], false) else {
                panic!("{b:#x}")
            };
            assert_eq!(y.to_bits(), b);
        }
        assert!(math(MathFn::ToBits, &[Value::U32(1)], false).is_err());
        assert!(math(MathFn::FromBits, &[Value::I32(1)], false).is_err());
        assert!(math(MathFn::FromBits, &[Value::F64(1.0)], false).is_err());
    }
}
