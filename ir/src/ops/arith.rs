//! Arithmetic operators: `+ - * / %` (and the wrapping methods) on numeric operands of one type.
//!
//! # Integers
//!
//! Two's complement, as Rust:
//!
//! - `+ - *` overflow makes the work item fail ([`Failure::AddOverflow`], ...) in a kernel
//!   recorded with [`Kernel::overflow_checks`](crate::Kernel::overflow_checks) (its crate was
//!   built with debug assertions, where Rust panics), and wraps otherwise (as Rust's release builds).
//!   The wrapping operators (`x.wrapping_add(y)`, ...) always wrap.
//! - `/` truncates toward zero and `%` takes the sign of the dividend. A zero divisor fails
//!   ([`Failure::DivByZero`], [`Failure::RemByZero`]), and so do `MIN / -1` and `MIN % -1`
//!   ([`Failure::DivOverflow`], [`Failure::RemOverflow`]), in every build: Rust panics on them in
//!   release builds too.
//!
//! # Floats
//!
//! IEEE 754 binary32 / binary64 with round-to-nearest-even for `+ - * /`. `%` is the truncated
//! remainder, C's `fmod` (what Rust's `%` is): the exact value `x - trunc(x / y)·y`, which is
//! always representable, so it is never rounded. Its sign is the dividend's, a zero result
//! included (`-0.0 % 3.0` is `-0.0`, `-6.0 % 3.0` is `-0.0`); `x % ±inf` is `x` for finite `x`;
//! `x % 0`, `±inf % y` and any NaN operand give NaN. The NaN's payload and sign are not specified
//! (as in Rust); every backend must produce a NaN wherever Rust does and nowhere else.
//!
//! The one exception a backend may take is its compiler's: a GPU shader compiler treats float
//! `+ - *` as relaxed and may simplify those with a constant operand or identical operands by
//! real-number algebra (reassociated constants, `x * 0.0` as `0.0`, `x - x` as `0.0`), which can
//! change the rounding, the sign of a zero, and infinities or NaN the rewritten form drops. The
//! exact statement, and what is immune to it, is in `rokkos-wgpu`'s documentation ("Floating
//! point"); the host backends and the evaluator follow this section bit for bit.

#[cfg(doc)]
use crate::ops::Failure;
use crate::types::ScalarType;

/// A binary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ArithOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` (integers truncate toward zero).
    Div,
    /// `a % b` (sign of the dividend).
    Rem,
    /// `a.wrapping_add(b)`: `+` that wraps whatever the kernel's overflow checks (floats: `+`).
    WrappingAdd,
    /// `a.wrapping_sub(b)`.
    WrappingSub,
    /// `a.wrapping_mul(b)`.
    WrappingMul,
}

impl ArithOp {
    /// The Rust operator (for the wrapping operators, the method name).
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
            ArithOp::WrappingAdd => "wrapping_add",
            ArithOp::WrappingSub => "wrapping_sub",
            ArithOp::WrappingMul => "wrapping_mul",
        }
    }
    /// The operator with the same value when nothing fails: `+` for `wrapping_add`, ...
    pub fn base(self) -> ArithOp {
        match self {
            ArithOp::WrappingAdd => ArithOp::Add,
            ArithOp::WrappingSub => ArithOp::Sub,
            ArithOp::WrappingMul => ArithOp::Mul,
            op => op,
        }
    }
    /// Whether this is one of the always-wrapping method operators.
    pub fn is_wrapping(self) -> bool {
        self.base() != self
    }
    /// Result type for operands `l` and `r`: both numeric and equal; `None` when ill-typed.
    pub fn result_type(self, l: ScalarType, r: ScalarType) -> Option<ScalarType> {
        (l == r && l.is_numeric()).then_some(l)
    }
}
