//! Numeric element types: the IR's numbers ([`Scalar`], [`Bits`], defined in `rokkos-ir`) and the
//! float types kernels may be generic over ([`Float`]).

pub use rokkos_ir::scalar::{Bits, Scalar};

/// Floating-point element types (`f32`, `f64`) for kernels generic over precision.
///
/// `Float` implies [`crate::reducer::AccValue`] (a float can be a reduction's value on every backend)
/// and the kernel IR's float traits ([`crate::ir::build::IrFloat`],
/// [`crate::ir::build::IrSigned`]), so the IR that `#[rokkos::kernel]` records for a kernel generic
/// over `T: Float` type-checks under the same bound.
///
/// ```
/// use rokkos_core::Float;
/// fn norm<T: Float>(x: T, y: T) -> T { (x * x + y * y).sqrt() }
/// assert_eq!(norm(3.0f32, 4.0), 5.0);
/// assert_eq!(f64::from_f64(0.5), 0.5);
/// ```
pub trait Float:
    Scalar
    + crate::reducer::AccValue
    + crate::ir::build::IrFloat
    + crate::ir::build::IrSigned
    + bytemuck::Pod
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + std::ops::AddAssign
    + std::ops::SubAssign
    + std::ops::MulAssign
    + std::ops::DivAssign
{
    /// Converts from `f64` (rounding for `f32`).
    fn from_f64(x: f64) -> Self;
    /// Converts to `f64`.
    fn to_f64(self) -> f64;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// `self^n`.
    fn powi(self, n: i32) -> Self;
    /// `self^e`.
    fn powf(self, e: Self) -> Self;
    /// The smaller of the two (the other if one is NaN).
    fn min(self, b: Self) -> Self;
    /// The larger of the two (the other if one is NaN).
    fn max(self, b: Self) -> Self;
    /// Largest integer not above.
    fn floor(self) -> Self;
    /// Smallest integer not below.
    fn ceil(self) -> Self;
    /// `self * a + b` with one rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

macro_rules! float_impl {
    ($($t:ident),*) => {$(
        impl Float for $t {
            #[inline(always)] fn from_f64(x: f64) -> Self { x as $t }
            #[inline(always)] fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn sqrt(self) -> Self { $t::sqrt(self) }
            #[inline(always)] fn abs(self) -> Self { $t::abs(self) }
            #[inline(always)] fn sin(self) -> Self { $t::sin(self) }
            #[inline(always)] fn cos(self) -> Self { $t::cos(self) }
            #[inline(always)] fn exp(self) -> Self { $t::exp(self) }
            #[inline(always)] fn ln(self) -> Self { $t::ln(self) }
            #[inline(always)] fn powi(self, n: i32) -> Self { $t::powi(self, n) }
            #[inline(always)] fn powf(self, e: Self) -> Self { $t::powf(self, e) }
            #[inline(always)] fn min(self, b: Self) -> Self { $t::min(self, b) }
            #[inline(always)] fn max(self, b: Self) -> Self { $t::max(self, b) }
            #[inline(always)] fn floor(self) -> Self { $t::floor(self) }
            #[inline(always)] fn ceil(self) -> Self { $t::ceil(self) }
            #[inline(always)] fn mul_add(self, a: Self, b: Self) -> Self { $t::mul_add(self, a, b) }
        }
    )*};
}
float_impl!(f32, f64);
