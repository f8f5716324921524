//! Numeric element types and the identities reducers need.

mod sealed {
    /// Implemented for Rust's integer and float types only: see [`super::Scalar`].
    // Not named `Sealed`: rustc's "similarly named trait" notes list every crate's `Sealed` in the
    // build, which would make the compile-fail messages depend on the dependency graph.
    pub trait SealedScalar {}
}

/// Arithmetic scalar types usable with the built-in reducers: Rust's integers and floats.
///
/// Sealed: the built-in reducers tell backends how to join on a device (`Sum` over `T` is the
/// IR's sum) and that their joins may be reordered, from `T`'s operations here; those promises
/// hold for Rust's own numbers, and a user type's `add` could be anything. Reduce other types
/// with [`crate::Custom`] (or your own [`crate::Reducer`]), whose join every backend runs as
/// written.
pub trait Scalar:
    sealed::SealedScalar + Copy + PartialOrd + Send + Sync + std::fmt::Debug + 'static
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Identity of `max` (the lowest value; `-inf` for floats).
    const LOWEST: Self;
    /// Identity of `min` (the highest value; `+inf` for floats).
    const HIGHEST: Self;
    /// `a + b` (wrapping for integers).
    fn add(self, b: Self) -> Self;
    /// `a * b` (wrapping for integers).
    fn mul(self, b: Self) -> Self;
    /// The smaller of `self` and `b`, as the [`crate::Min`] reducer joins: for floats IEEE 754-2019
    /// `minimum` (a NaN operand gives NaN, `-0.0 < 0.0`; of two NaNs, `self`), so the join is
    /// commutative and associative over every value; for integers `min`.
    fn minimum(self, b: Self) -> Self;
    /// The larger of `self` and `b`, as the [`crate::Max`] reducer joins: IEEE 754-2019 `maximum`
    /// for floats (NaN wins, `0.0 > -0.0`; of two NaNs, `self`), `max` for integers.
    fn maximum(self, b: Self) -> Self;
}

/// Integer types usable with the bitwise reducers (sealed, as [`Scalar`] is).
pub trait Bits: Scalar {
    /// All bits set.
    const ALL: Self;
    /// `a & b`.
    fn and(self, b: Self) -> Self;
    /// `a | b`.
    fn or(self, b: Self) -> Self;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl sealed::SealedScalar for $t {}
        impl Scalar for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            #[inline(always)] fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)] fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline(always)] fn minimum(self, b: Self) -> Self { Ord::min(self, b) }
            #[inline(always)] fn maximum(self, b: Self) -> Self { Ord::max(self, b) }
        }
        impl Bits for $t {
            const ALL: Self = !0;
            #[inline(always)] fn and(self, b: Self) -> Self { self & b }
            #[inline(always)] fn or(self, b: Self) -> Self { self | b }
        }
    )*};
}
int_scalar!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_scalar {
    ($($t:ty),*) => {$(
        impl sealed::SealedScalar for $t {}
        impl Scalar for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            #[inline(always)] fn add(self, b: Self) -> Self { self + b }
            #[inline(always)] fn mul(self, b: Self) -> Self { self * b }
            #[inline(always)]
            fn minimum(self, b: Self) -> Self {
                // Of equal operands (only +-0 differ) the one with the sign bit.
                if self.is_nan() || self < b || (self == b && self.is_sign_negative()) {
                    self
                } else {
                    b
                }
            }
            #[inline(always)]
            fn maximum(self, b: Self) -> Self {
                if self.is_nan() || self > b || (self == b && self.is_sign_positive()) {
                    self
                } else {
                    b
                }
            }
        }
    )*};
}
float_scalar!(f32, f64);

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
