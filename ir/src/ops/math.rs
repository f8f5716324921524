//! Math intrinsics: the float methods of `std` plus `abs`, `min`, `max`, `clamp`, `signum` on integers.
//!
//! Each function means what the Rust method of the same name means on the operand type (`round`
//! rounds half away from zero, `fract` is `x - x.trunc()`, `mul_add` is fused: one rounding), with
//! the choices Rust leaves open pinned down so that every backend agrees:
//!
//! - `x.min(y)` / `x.max(y)` of floats: a NaN operand gives the other one (both NaN: NaN), and of
//!   two operands that compare equal (`0.0` and `-0.0`) the receiver `x`, which is what Rust returns
//!   on x86-64 in unoptimised code and out of line. Rust documents the choice as unspecified, and
//!   optimised native code does not keep to it (LLVM treats `max` as commutative, so an inlined
//!   `f64::max(-0.0, 0.0)` can give `0.0`): the evaluator and the device backends always follow
//!   this rule, the host backends in an optimised build may return the other zero.
//! - `x.clamp(lo, hi)`: `lo > hi` or a NaN bound fails the work item with Rust's assertion message;
//!   a NaN `x` stays NaN and `-0.0.clamp(0.0, 1.0)` is `-0.0`, as in Rust.
//! - `x.abs()` of a signed integer's `MIN` fails in a kernel with overflow checks
//!   ([`crate::Kernel::overflow_checks`]: "attempt to negate with overflow") and wraps to `MIN`
//!   otherwise.
//! - NaN payloads and the sign of a NaN result are unspecified (as in Rust); a NaN result is a NaN
//!   on every backend wherever Rust's is, and nowhere else.
//! - `x.is_nan()` and `x.is_finite()` are operations of their own, not compositions such as
//!   `x != x` or `x - x == x - x`: a GPU compiler that treats float arithmetic as relaxed folds
//!   those (`x - x` to 0, so `is_finite` of ∞ became true on lavapipe). Backends test the bits
//!   (the exponent field) instead.
//!
//! # Precision contract
//!
//! The exact functions (`sqrt`, `abs`, `min`, `max`, `clamp`, `floor`, `ceil`, `round`, `trunc`,
//! `fract`, `mul_add`, `signum`, `recip`, `powi`, the predicates `is_nan` and `is_finite`, and
//! float `%`) give Rust's result bit for bit on
//! every backend ([`MathFn::max_ulp`] is 0; `sqrt` and `recip` round as the adapter's `sqrt` and
//! division do, exactly on lavapipe and on IEEE hardware, see `rokkos-wgpu`'s documentation). The
//! transcendental functions cannot be bit for bit: Rust's own results come from the platform's libm,
//! which is not correctly rounded either. Their contract, on `f32` and `f64` alike:
//!
//! | function | max error from the exact value | from Rust's `std` (glibc) |
//! | --- | --- | --- |
//! | `sin cos tan asin acos atan atan2 exp exp2 ln log2 powf cbrt hypot` | 1 ulp | 1 ulp |
//! | `sinh cosh tanh log10` | 1 ulp | 2 ulp (glibc's own error is up to 2) |
//!
//! over the whole finite range, subnormal arguments and results included (a result in the
//! subnormal range is an ulp of 2⁻¹⁴⁹ or 2⁻¹⁰⁷⁴), with the special values exactly as Rust gives
//! them: NaN in and out, ±∞, ±0 with its sign, overflow to ±∞ and underflow to ±0, domain errors
//! (`asin(2)`, `ln(-1)`, `powf(-2, 0.5)`) to NaN, and C99's tables for `powf`, `atan2` and `hypot`
//! (`powf(-∞, 0.5) = +∞`, `powf(NaN, 0) = 1`, `hypot(∞, NaN) = ∞`, ...). The host backends and the
//! reference evaluator are Rust itself; the wgpu backend's libraries measure within 0.75 ulp of the
//! exact value on lavapipe. [`MathFn::max_ulp`] and [`MathFn::max_ulp_from_std`] return the table's
//! numbers, so that tests and tools compare against the contract and not a tolerance of their own.

use crate::types::ScalarType;

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
    /// `x.is_nan()` (floats; a `bool`).
    IsNan,
    /// `x.is_finite()` (floats; a `bool`: neither infinite nor NaN).
    IsFinite,
}

impl MathFn {
    /// Every math function, in declaration order.
    pub const ALL: [MathFn; 34] = [
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
        MathFn::IsNan,
        MathFn::IsFinite,
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
            MathFn::IsNan => "is_nan",
            MathFn::IsFinite => "is_finite",
        }
    }

    /// Whether the function is transcendental: computed by a library, within [`MathFn::max_ulp`]
    /// of the exact value, rather than exactly.
    pub fn is_transcendental(self) -> bool {
        matches!(
            self,
            MathFn::Cbrt
                | MathFn::Sin
                | MathFn::Cos
                | MathFn::Tan
                | MathFn::Asin
                | MathFn::Acos
                | MathFn::Atan
                | MathFn::Atan2
                | MathFn::Sinh
                | MathFn::Cosh
                | MathFn::Tanh
                | MathFn::Exp
                | MathFn::Exp2
                | MathFn::Ln
                | MathFn::Log2
                | MathFn::Log10
                | MathFn::Powf
                | MathFn::Hypot
        )
    }

    /// The precision contract (see the [module documentation](self)): the largest distance of a
    /// finite result from the exact value, in ulps of the result type, on every backend; 0 for the
    /// exact functions. Special values (NaN, ±∞, ±0) are always exact.
    ///
    /// ```
    /// use rokkos_ir::MathFn;
    /// assert_eq!(MathFn::Sin.max_ulp(), 1);
    /// assert_eq!(MathFn::MulAdd.max_ulp(), 0);
    /// ```
    pub fn max_ulp(self) -> u32 {
        u32::from(self.is_transcendental())
    }

    /// The largest distance, in ulps, between a backend's finite result and Rust's own (`std` on
    /// Linux, i.e. glibc's libm), which is itself not exact: [`MathFn::max_ulp`] plus glibc's error,
    /// as measured on both float types (2 for `sinh`, `cosh`, `tanh` and `log10`, whose glibc
    /// versions are documented at 2 ulp, 1 for the other transcendental functions).
    pub fn max_ulp_from_std(self) -> u32 {
        match self {
            MathFn::Sinh | MathFn::Cosh | MathFn::Tanh | MathFn::Log10 => 2,
            f => f.max_ulp(),
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
            MathFn::IsNan | MathFn::IsFinite => {
                return x.is_float().then_some(ScalarType::Bool);
            }
            MathFn::Powi => x.is_float() && args[1] == ScalarType::I32,
            MathFn::Abs | MathFn::Signum => x.is_signed(),
            MathFn::Min | MathFn::Max | MathFn::Clamp => same && x.is_numeric(),
            _ => same && x.is_float(),
        };
        ok.then_some(x)
    }
}
