//! Numeric element types and the identities reducers need.

/// Arithmetic scalar types usable with the built-in reducers.
pub trait Scalar: Copy + PartialOrd + Send + Sync + std::fmt::Debug + 'static {
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
}

/// Integer types usable with the bitwise reducers.
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
        impl Scalar for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            #[inline(always)] fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)] fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
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
        impl Scalar for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            #[inline(always)] fn add(self, b: Self) -> Self { self + b }
            #[inline(always)] fn mul(self, b: Self) -> Self { self * b }
        }
    )*};
}
float_scalar!(f32, f64);
