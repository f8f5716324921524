//! Math intrinsics: the float methods of `std` plus `abs`, `min`, `max`, `clamp`, `signum` on integers.
//!
//! Each function means what the Rust method of the same name means on the operand type (`round`
//! rounds half away from zero, `fract` is `x - x.trunc()`, `mul_add` is fused: one rounding), with
//! the choices Rust leaves open pinned down so that every backend agrees:
//!
//! - `x.min(y)` / `x.max(y)` of floats: a NaN operand gives the other one (both NaN: NaN), and of
//!   two operands that compare equal (`0.0` and `-0.0`) the receiver `x`, which is what Rust returns
//!   on x86-64 (Rust documents the choice as unspecified).
//! - `x.clamp(lo, hi)`: `lo > hi` or a NaN bound fails the work item with Rust's assertion message;
//!   a NaN `x` stays NaN and `-0.0.clamp(0.0, 1.0)` is `-0.0`, as in Rust.
//! - `x.abs()` of a signed integer's `MIN` fails in a kernel with overflow checks
//!   ([`crate::ir::Kernel::overflow_checks`]: "attempt to negate with overflow") and wraps to `MIN`
//!   otherwise.
//! - NaN payloads and the sign of a NaN result are unspecified (as in Rust); a NaN result is a NaN
//!   on every backend wherever Rust's is, and nowhere else.
//!
//! Exact functions (`sqrt`, `abs`, `min`, `max`, `clamp`, `floor`, `ceil`, `round`, `trunc`,
//! `fract`, `mul_add`, `signum`, `recip`, and float `%`) give Rust's result bit for bit on every
//! backend. The transcendental functions cannot: Rust's own results come from the platform's libm
//! and are not correctly rounded either. Their contract on every backend is the precision table of
//! [`MathFn`]'s documentation: the largest distance, in units in the last
//! place of the result type, from the exact mathematical value, over the whole finite range,
//! subnormal arguments and results included; and the special values exactly as Rust gives them
//! (NaN in and out, ±∞, ±0 with its sign, overflow to ±∞ and underflow to ±0).

use crate::ir::types::ScalarType;

/// A math intrinsic, called like the Rust method (`x.sqrt()`, `y.atan2(x)`, `x.mul_add(a, b)`): the
/// receiver is the first argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MathFn {
    /// `x.sqrt()`.
    Sqrt,
    /// `x.cbrt()`.
    Cbrt,
    /// `x.sin()`.
    Sin,
    /// `x.cos()`.
    Cos,
    /// `x.tan()`.
    Tan,
    /// `x.asin()`.
    Asin,
    /// `x.acos()`.
    Acos,
    /// `x.atan()`.
    Atan,
    /// `y.atan2(x)`.
    Atan2,
    /// `x.sinh()`.
    Sinh,
    /// `x.cosh()`.
    Cosh,
    /// `x.tanh()`.
    Tanh,
    /// `x.exp()`.
    Exp,
    /// `x.exp2()`.
    Exp2,
    /// `x.ln()`.
    Ln,
    /// `x.log2()`.
    Log2,
    /// `x.log10()`.
    Log10,
    /// `x.powf(y)`.
    Powf,
    /// `x.powi(n)` with `n: i32`.
    Powi,
    /// `x.abs()` (floats and signed integers; integers wrap at `MIN`).
    Abs,
    /// `x.min(y)` (any numeric type).
    Min,
    /// `x.max(y)` (any numeric type).
    Max,
    /// `x.clamp(lo, hi)` (any numeric type; `lo > hi` is an error of the work item, as Rust panics).
    Clamp,
    /// `x.floor()`.
    Floor,
    /// `x.ceil()`.
    Ceil,
    /// `x.round()` (half away from zero).
    Round,
    /// `x.trunc()`.
    Trunc,
    /// `x.fract()` (`x - x.trunc()`).
    Fract,
    /// `x.mul_add(a, b)`: `x * a + b` with one rounding.
    MulAdd,
    /// `x.signum()` (floats and signed integers).
    Signum,
    /// `x.hypot(y)`.
    Hypot,
    /// `x.recip()`: `1 / x`.
    Recip,
}

impl MathFn {
    /// Every math function, in declaration order.
    pub const ALL: [MathFn; 32] = [
        MathFn::Sqrt,
        MathFn::Cbrt,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Ln,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Powf,
        MathFn::Powi,
        MathFn::Abs,
        MathFn::Min,
        MathFn::Max,
        MathFn::Clamp,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Round,
        MathFn::Trunc,
        MathFn::Fract,
        MathFn::MulAdd,
        MathFn::Signum,
        MathFn::Hypot,
        MathFn::Recip,
    ];

    /// The Rust method name.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Cbrt => "cbrt",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Atan2 => "atan2",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Tanh => "tanh",
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Ln => "ln",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Powf => "powf",
            MathFn::Powi => "powi",
            MathFn::Abs => "abs",
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Clamp => "clamp",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Round => "round",
            MathFn::Trunc => "trunc",
            MathFn::Fract => "fract",
            MathFn::MulAdd => "mul_add",
            MathFn::Signum => "signum",
            MathFn::Hypot => "hypot",
            MathFn::Recip => "recip",
        }
    }

    /// Number of arguments, the receiver included.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Atan2
            | MathFn::Powf
            | MathFn::Powi
            | MathFn::Min
            | MathFn::Max
            | MathFn::Hypot => 2,
            MathFn::Clamp | MathFn::MulAdd => 3,
            _ => 1,
        }
    }

    /// Result type for arguments of types `args`; `None` when the arity or a type is wrong.
    pub fn result_type(self, args: &[ScalarType]) -> Option<ScalarType> {
        if args.len() != self.arity() {
            return None;
        }
        let x = args[0];
        let same = args.iter().all(|&t| t == x);
        let ok = match self {
            MathFn::Powi => x.is_float() && args[1] == ScalarType::I32,
            MathFn::Abs | MathFn::Signum => x.is_signed(),
            MathFn::Min | MathFn::Max | MathFn::Clamp => same && x.is_numeric(),
            _ => same && x.is_float(),
        };
        ok.then_some(x)
    }
}
