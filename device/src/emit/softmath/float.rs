//! What the library's generic source needs to know of a float type, and the shorthands it is
//! written with.

use rokkos_core::ir::build::{Expr, Func, FunctionBuilder, IntoExpr, IrFloat, IrSigned};

/// `f32` or `f64`, as the library's one generic source sees it: the layout of its bits and its
/// constants as expressions.
pub(crate) trait LibFloat: IrFloat + IrSigned {
    /// `"f32"` / `"f64"`: the library's names are `rk_<NAME>_<function>`.
    const NAME: &'static str;
    /// Stored significand bits (23 / 52).
    const MANT: i32;
    /// Exponent bias (127 / 1023).
    const BIAS: i32;
    /// A NaN pattern nothing in the library produces (the opaque identity compares with it).
    const MAGIC_NAN: u64;
    /// The constant `x`, rounded to this type (the library's constants are chosen exact in both
    /// types, or are meant to be rounded once).
    fn c(x: f64) -> Expr<Self>;
    /// The constant `x` of the bits type (`x` fits it).
    fn u(x: u64) -> Expr<Self::Bits>;
}

impl LibFloat for f32 {
    const NAME: &'static str = "f32";
    const MANT: i32 = 23;
    const BIAS: i32 = 127;
    const MAGIC_NAN: u64 = 0x7fc0_beef;
    fn c(x: f64) -> Expr<f32> {
        Expr::lit(x as f32)
    }
    fn u(x: u64) -> Expr<u32> {
        Expr::lit(x as u32)
    }
}

impl LibFloat for f64 {
    const NAME: &'static str = "f64";
    const MANT: i32 = 52;
    const BIAS: i32 = 1023;
    const MAGIC_NAN: u64 = 0x7ff8_dead_0000_beef;
    fn c(x: f64) -> Expr<f64> {
        Expr::lit(x)
    }
    fn u(x: u64) -> Expr<u64> {
        Expr::lit(x)
    }
}

/// The library's name of function `f` for type `T`: `rk_f64_sin`.
pub(crate) fn name<T: LibFloat>(f: &str) -> String {
    format!("rk_{}_{f}", T::NAME)
}

/// `f(a)`.
pub(crate) fn call1<R, A>(f: Func<R>, a: impl IntoExpr<A>) -> Expr<R> {
    f.call(vec![a.into_expr().into_ir()])
}

/// `f(a, b)`.
pub(crate) fn call2<R, A, B>(f: Func<R>, a: impl IntoExpr<A>, b: impl IntoExpr<B>) -> Expr<R> {
    f.call(vec![a.into_expr().into_ir(), b.into_expr().into_ir()])
}

/// `let name = e;` in `f`, as an expression of the new local (so that a value used twice is
/// computed once).
pub(crate) fn bind<T: rokkos_core::ir::build::IrScalar>(
    f: &mut FunctionBuilder<'_>,
    name: &str,
    e: impl IntoExpr<T>,
) -> Expr<T> {
    f.let_(name, e).get()
}

/// The biased exponent field of `x`'s bits minus the bias (`-BIAS` for zero and subnormals,
/// `BIAS + 1` for infinities and NaN).
pub(crate) fn exp_field<T: LibFloat>(x: Expr<T>) -> Expr<i32> {
    ((x.to_bits() >> T::MANT) & T::u(2 * T::BIAS as u64 + 1)).cast::<i32>() - T::BIAS
}

/// `2^k` for a `k` in the normal range, from its bits.
pub(crate) fn pow2<T: LibFloat>(k: impl IntoExpr<i32>) -> Expr<T> {
    Expr::from_bits((k.into_expr() + T::BIAS).cast::<T::Bits>() << T::MANT)
}

/// `!e`.
pub(crate) fn not(e: Expr<bool>) -> Expr<bool> {
    !e
}

/// `array[index]` with an index of any integer type: the builder's `load` takes `usize`, which
/// is a 64-bit value in the IR, and the f32 library runs where 64-bit integers do not.
pub(crate) fn array_at<T, I: rokkos_core::ir::build::IrInt>(
    array: rokkos_core::ir::build::ArrayVar<T>,
    index: impl IntoExpr<I>,
) -> Expr<T> {
    Expr::from_ir(rokkos_core::ir::Expr::ArrayLoad {
        array: array.id,
        index: Box::new(index.into_expr().into_ir()),
    })
}

/// `array[index] = value;` with an index of any integer type (see [`array_at`]).
pub(crate) fn array_set<T, I: rokkos_core::ir::build::IrInt>(
    f: &mut FunctionBuilder<'_>,
    array: rokkos_core::ir::build::ArrayVar<T>,
    index: impl IntoExpr<I>,
    value: impl IntoExpr<T>,
) {
    f.push(rokkos_core::ir::Stmt::ArrayStore {
        array: array.id,
        index: index.into_expr().into_ir(),
        value: value.into_expr().into_ir(),
    });
}

/// `table[index]` with an index of any integer type (see [`array_at`]).
pub(crate) fn table_at<T, I: rokkos_core::ir::build::IrInt>(
    table: rokkos_core::ir::build::Table<T>,
    index: impl IntoExpr<I>,
) -> Expr<T> {
    Expr::from_ir(rokkos_core::ir::Expr::TableLoad {
        table: table.id,
        index: Box::new(index.into_expr().into_ir()),
    })
}

/// The bit position of the sign (31 / 63).
pub(crate) fn sign_shift<T: LibFloat>() -> i32 {
    if T::MANT == 23 {
        31
    } else {
        63
    }
}

/// Whether `x` is NaN, tested on its bits (a GPU compiler may fold a self-comparison away).
pub(crate) fn is_nan_bits<T: LibFloat>(x: Expr<T>) -> Expr<bool> {
    let abs_mask = (1u64 << sign_shift::<T>()) - 1;
    let inf = (2 * T::BIAS as u64 + 1) << T::MANT;
    (x.to_bits() & T::u(abs_mask)).gt(T::u(inf))
}

/// Whether `x`'s sign bit is set (true for `-0` and negative NaNs too).
pub(crate) fn sign_bit<T: LibFloat>(x: Expr<T>) -> Expr<bool> {
    (x.to_bits() >> sign_shift::<T>()).eq_(T::u(1))
}
