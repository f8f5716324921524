//! The numbers kernels compute with, and the joins reducers make of them.
//!
//! Defined here, below `rokkos-core`, because the IR's reducer joins ([`crate::ReducerKind::join`])
//! and the native reducers must be the same functions; `rokkos_core` re-exports both traits.

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
/// with `rokkos_core::Custom` (or your own `rokkos_core::Reducer`), whose join every backend runs as
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
    /// The smaller of `self` and `b`, as the `Min` reducer joins: for floats IEEE 754-2019
    /// `minimum` (a NaN operand gives NaN, `-0.0 < 0.0`; of two NaNs, `self`), so the join is
    /// commutative and associative over every value; for integers `min`.
    fn minimum(self, b: Self) -> Self;
    /// The larger of `self` and `b`, as the `Max` reducer joins: IEEE 754-2019 `maximum`
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
