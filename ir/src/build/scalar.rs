//! The Rust types an [`super::Expr`] can have, and the literals that adopt an operand's type.

use crate::types::{ScalarType, Value};

mod sealed {
    pub trait Sealed {}
}

/// A Rust scalar type with an IR counterpart: `bool`, `i32`, `u32`, `u8`, `u16`, `i8`, `i16`, `i64`,
/// `u64`, `f32`, `f64`, and
/// `usize` / `isize` (which are `u64` / `i64` in the IR). Sealed.
pub trait IrScalar: sealed::Sealed + Copy + 'static {
    /// The IR type.
    const TYPE: ScalarType;
    /// This value as an IR constant.
    fn to_value(self) -> Value;
}
/// Numeric scalars (all but `bool`): arithmetic, `min`, `max`, `clamp`.
///
/// The hidden methods of these traits are the native meaning of the kernel math calls (see
/// `rokkos::kernel_math`): `std`'s, for exactly the types the IR builder accepts.
pub trait IrNum: IrScalar {
    #[doc(hidden)]
    fn n_wrapping_add(self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_wrapping_sub(self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_wrapping_mul(self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_rem_euclid(self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_min(self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_max(self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_clamp(self, lo: Self, hi: Self) -> Self;
    #[doc(hidden)]
    fn n_from_f64(x: f64) -> Self;
    #[doc(hidden)]
    fn n_from_f32(x: f32) -> Self;
    #[doc(hidden)]
    fn n_to_f64(self) -> f64;
    #[doc(hidden)]
    fn n_to_f32(self) -> f32;
}
/// Integer scalars: shifts.
pub trait IrInt: IrNum {}
/// Floating-point scalars: the float math methods.
pub trait IrFloat: IrNum {
    /// The unsigned integer of the same width, which `to_bits` gives and `from_bits` takes (`u32`
    /// for `f32`, `u64` for `f64`). Generic code can combine its values with the bit operators
    /// and compare them; a constant of it comes from a float's bits (`(-T::from_f64(0.0)).to_bits()`
    /// is the sign bit).
    ///
    /// ```
    /// use rokkos_ir::build::{Expr, IrFloat};
    /// fn flip_sign<T: IrFloat>(x: Expr<T>, sign: Expr<T::Bits>) -> Expr<T> {
    ///     Expr::from_bits(x.to_bits() ^ sign)
    /// }
    /// let e: Expr<f64> = flip_sign(Expr::lit(1.5), Expr::lit(1u64 << 63));
    /// assert_eq!(format!("{e:?}").matches("Math").count(), 2);
    /// ```
    type Bits: IrInt
        + IrBits
        + PartialEq
        + PartialOrd
        + std::fmt::Debug
        + std::ops::BitAnd<Output = Self::Bits>
        + std::ops::BitOr<Output = Self::Bits>
        + std::ops::BitXor<Output = Self::Bits>
        + std::ops::Not<Output = Self::Bits>
        + std::ops::Shl<i32, Output = Self::Bits>
        + std::ops::Shr<i32, Output = Self::Bits>;
    #[doc(hidden)]
    fn n_unary(self, f: native::Unary) -> Self;
    #[doc(hidden)]
    fn n_binary(self, f: native::Binary, b: Self) -> Self;
    #[doc(hidden)]
    fn n_mul_add(self, a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn n_powi(self, n: i32) -> Self;
    #[doc(hidden)]
    fn n_is_nan(self) -> bool;
    #[doc(hidden)]
    fn n_is_finite(self) -> bool;
    #[doc(hidden)]
    fn n_to_bits(self) -> Self::Bits;
    #[doc(hidden)]
    fn n_from_bits(b: Self::Bits) -> Self;
}

/// Scalars with a sign (signed integers and floats): `-x`, `abs`, `signum`.
pub trait IrSigned: IrNum {
    #[doc(hidden)]
    fn n_abs(self) -> Self;
    #[doc(hidden)]
    fn n_signum(self) -> Self;
}
/// Scalars with bitwise `& | ^ !` (integers and `bool`).
pub trait IrBits: IrScalar {}

macro_rules! scalar {
    ($t:ident, $ty:ident, $v:ident, $conv:ty, [$($tr:ident),*]) => {
        impl sealed::Sealed for $t {}
        impl IrScalar for $t {
            const TYPE: ScalarType = ScalarType::$ty;
            fn to_value(self) -> Value {
                Value::$v(self as $conv)
            }
        }
        $(native!($tr $t);)*
    };
}

/// The float functions' names, for the one `match` each float type implements them by (inlining
/// folds it away).
#[doc(hidden)]
pub mod native {
    macro_rules! names {
        ($($(#[$m:meta])* $e:ident { $($v:ident => $f:ident),* })*) => {$(
            $(#[$m])*
            #[derive(Clone, Copy, Debug)]
            pub enum $e { $(#[doc = concat!("`", stringify!($f), "`")] $v),* }
        )*};
    }
    names! {
        /// A float function of one argument.
        Unary {
            Sqrt => sqrt, Cbrt => cbrt, Sin => sin, Cos => cos, Tan => tan, Asin => asin,
            Acos => acos, Atan => atan, Sinh => sinh, Cosh => cosh, Tanh => tanh, Exp => exp,
            Exp2 => exp2, Ln => ln, Log2 => log2, Log10 => log10, Floor => floor, Ceil => ceil,
            Round => round, Trunc => trunc, Fract => fract, Recip => recip,
            ToRadians => to_radians, ToDegrees => to_degrees
        }
        /// A float function of two arguments.
        Binary { Atan2 => atan2, Powf => powf, Hypot => hypot }
    }
}

macro_rules! float_match {
    ($t:ident, $x:expr, $f:expr, [$($v:ident => $m:ident),*]) => {
        match $f { $(native::Unary::$v => $t::$m($x)),* }
    };
}

macro_rules! native {
    (IrBits $t:ident) => { impl IrBits for $t {} };
    (IrInt $t:ident) => { impl IrInt for $t {} };
    (IrNum $t:ident) => {
        impl IrNum for $t {
            #[inline(always)] fn n_wrapping_add(self, b: Self) -> Self { native!(@wrap $t add self b) }
            #[inline(always)] fn n_wrapping_sub(self, b: Self) -> Self { native!(@wrap $t sub self b) }
            #[inline(always)] fn n_wrapping_mul(self, b: Self) -> Self { native!(@wrap $t mul self b) }
            #[inline(always)] fn n_rem_euclid(self, b: Self) -> Self { $t::rem_euclid(self, b) }
            #[inline(always)] fn n_min(self, b: Self) -> Self { native!(@ord $t min self b) }
            #[inline(always)] fn n_max(self, b: Self) -> Self { native!(@ord $t max self b) }
            #[inline(always)] fn n_clamp(self, lo: Self, hi: Self) -> Self { $t::clamp(self, lo, hi) }
            #[inline(always)] fn n_from_f64(x: f64) -> Self { x as $t }
            #[inline(always)] fn n_from_f32(x: f32) -> Self { x as $t }
            #[inline(always)] fn n_to_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn n_to_f32(self) -> f32 { self as f32 }
        }
    };
    (IrSigned $t:ident) => {
        impl IrSigned for $t {
            #[inline(always)] fn n_abs(self) -> Self { $t::abs(self) }
            #[inline(always)] fn n_signum(self) -> Self { $t::signum(self) }
        }
    };
    (IrFloat $t:ident) => {
        impl IrFloat for $t {
            type Bits = native!(@bits $t);
            #[inline(always)] fn n_to_bits(self) -> Self::Bits { $t::to_bits(self) }
            #[inline(always)] fn n_from_bits(b: Self::Bits) -> Self { $t::from_bits(b) }
            #[inline(always)]
            fn n_unary(self, f: native::Unary) -> Self {
                float_match!($t, self, f, [
                    Sqrt => sqrt, Cbrt => cbrt, Sin => sin, Cos => cos, Tan => tan, Asin => asin,
                    Acos => acos, Atan => atan, Sinh => sinh, Cosh => cosh, Tanh => tanh,
                    Exp => exp, Exp2 => exp2, Ln => ln, Log2 => log2, Log10 => log10,
                    Floor => floor, Ceil => ceil, Round => round, Trunc => trunc, Fract => fract,
                    Recip => recip, ToRadians => to_radians, ToDegrees => to_degrees])
            }
            #[inline(always)]
            fn n_binary(self, f: native::Binary, b: Self) -> Self {
                match f {
                    native::Binary::Atan2 => $t::atan2(self, b),
                    native::Binary::Powf => $t::powf(self, b),
                    native::Binary::Hypot => $t::hypot(self, b),
                }
            }
            #[inline(always)] fn n_mul_add(self, a: Self, b: Self) -> Self { $t::mul_add(self, a, b) }
            #[inline(always)] fn n_powi(self, n: i32) -> Self { $t::powi(self, n) }
            #[inline(always)] fn n_is_nan(self) -> bool { $t::is_nan(self) }
            #[inline(always)] fn n_is_finite(self) -> bool { $t::is_finite(self) }
        }
    };
    (@bits f32) => { u32 };
    (@bits f64) => { u64 };
    // Floats: the wrapping operators are the plain ones (the IR's `WrappingAdd` on floats).
    (@wrap f32 $op:ident $a:ident $b:ident) => { native!(@plain $op $a $b) };
    (@wrap f64 $op:ident $a:ident $b:ident) => { native!(@plain $op $a $b) };
    (@wrap $t:ident add $a:ident $b:ident) => { $t::wrapping_add($a, $b) };
    (@wrap $t:ident sub $a:ident $b:ident) => { $t::wrapping_sub($a, $b) };
    (@wrap $t:ident mul $a:ident $b:ident) => { $t::wrapping_mul($a, $b) };
    (@plain add $a:ident $b:ident) => { $a + $b };
    (@plain sub $a:ident $b:ident) => { $a - $b };
    (@plain mul $a:ident $b:ident) => { $a * $b };
    // Integers have `min`/`max` from `Ord`, floats inherent ones.
    (@ord f32 $m:ident $a:ident $b:ident) => { f32::$m($a, $b) };
    (@ord f64 $m:ident $a:ident $b:ident) => { f64::$m($a, $b) };
    (@ord $t:ident $m:ident $a:ident $b:ident) => { Ord::$m($a, $b) };
}

scalar!(bool, Bool, Bool, bool, [IrBits]);
scalar!(i32, I32, I32, i32, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(u32, U32, U32, u32, [IrNum, IrInt, IrBits]);
scalar!(u8, U8, U8, u8, [IrNum, IrInt, IrBits]);
scalar!(u16, U16, U16, u16, [IrNum, IrInt, IrBits]);
scalar!(i8, I8, I8, i8, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(i16, I16, I16, i16, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(i64, I64, I64, i64, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(u64, U64, U64, u64, [IrNum, IrInt, IrBits]);
scalar!(isize, I64, I64, i64, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(usize, U64, U64, u64, [IrNum, IrInt, IrBits]);
scalar!(f32, F32, F32, f32, [IrNum, IrFloat, IrSigned]);
scalar!(f64, F64, F64, f64, [IrNum, IrFloat, IrSigned]);
