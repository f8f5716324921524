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
//! - `x.to_bits()` and `f32::from_bits(b)` / `f64::from_bits(b)` reinterpret the bits between a
//!   float and the unsigned integer of its width, as Rust's (and `Kokkos::bit_cast`): every bit
//!   is kept, the sign of zero, subnormals and infinities too, on every backend. A NaN's payload
//!   is kept by the bit cast itself; whether one survives the float operations around it is the
//!   point above. A bit cast between integers of one width is `as` ([`crate::Expr::Cast`]).
//! - `x.is_nan()` and `x.is_finite()` are operations of their own, not compositions such as
//!   `x != x` or `x - x == x - x`: a GPU compiler that treats float arithmetic as relaxed folds
//!   those (`x - x` to 0, so `is_finite` of ∞ became true on lavapipe). Backends test the bits
//!   (the exponent field) instead.
//!
//! # Precision contract
//!
//! The exact functions (`sqrt`, `abs`, `min`, `max`, `clamp`, `floor`, `ceil`, `round`, `trunc`,
//! `fract`, `mul_add`, `signum`, `recip`, `powi`, the predicates `is_nan` and `is_finite`, the bit
//! casts `to_bits` and `from_bits`, and float `%`) give Rust's result bit for bit on
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
    /// `x.to_bits()`: the bits of a float as the unsigned integer of its width (`f32` → `u32`,
    /// `f64` → `u64`), NaN payloads and the sign of zero included.
    ToBits,
    /// `f32::from_bits(b)` / `f64::from_bits(b)`: the float whose bits are `b` (`u32` → `f32`,
    /// `u64` → `f64`); the inverse of [`MathFn::ToBits`].
    FromBits,
}

impl MathFn {
    /// Every math function, in declaration order.
    pub const ALL: [MathFn; 36] = [
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
        MathFn::ToBits,
        MathFn::FromBits,
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
            MathFn::ToBits => "to_bits",
            MathFn::FromBits => "from_bits",
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
    ///
    /// ```
    /// use rokkos_ir::{MathFn, ScalarType as T};
    /// assert_eq!(MathFn::Hypot.result_type(&[T::F32, T::F32]), Some(T::F32));
    /// assert_eq!(MathFn::ToBits.result_type(&[T::F64]), Some(T::U64));
    /// assert_eq!(MathFn::FromBits.result_type(&[T::U32]), Some(T::F32));
    /// // A bit cast keeps the width: there is no `f64` of 32 bits.
    /// assert_eq!(MathFn::FromBits.result_type(&[T::I32]), None);
    /// ```
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
            MathFn::ToBits | MathFn::FromBits => {
                use ScalarType as T;
                return match (self, x) {
                    (MathFn::ToBits, T::F32) => Some(T::U32),
                    (MathFn::ToBits, T::F64) => Some(T::U64),
                    (MathFn::FromBits, T::U32) => Some(T::F32),
                    (MathFn::FromBits, T::U64) => Some(T::F64),
                    _ => None,
                };
            }
            MathFn::Powi => x.is_float() && args[1] == ScalarType::I32,
            MathFn::Abs | MathFn::Signum => x.is_signed(),
            MathFn::Min | MathFn::Max | MathFn::Clamp => same && x.is_numeric(),
            _ => same && x.is_float(),
        };
        ok.then_some(x)
    }
}

#[cfg(test)]
mod tests {
    use super::MathFn;
    use crate::build::{Expr, KernelBuilder};
    use crate::types::ScalarType as T;
    use crate::valid::{validate, ErrorKind};
    use crate::{Access, Expr as IrExpr, Kernel, Stmt, WorkKind};

    /// `o[i] = f32::from_bits(x[i].to_bits() ^ 0x8000_0000)` and `b[i] = y[i].to_bits() >> 52`.
    fn bit_kernel() -> Kernel {
        let mut k = KernelBuilder::new("bits", WorkKind::Range);
        let i = k.work_index(0);
        let x = k.view::<f32>("x", 1, Access::ReadOnly);
        let o = k.view::<f32>("o", 1, Access::Writable);
        let y = k.view::<f64>("y", 1, Access::ReadOnly);
        let b = k.view::<u64>("b", 1, Access::Writable);
        let neg = Expr::<f32>::from_bits(x.load(i.clone()).to_bits() ^ 0x8000_0000u32);
        k.store(o, i.clone(), neg);
        k.store(b, i.clone(), y.load(i).to_bits() >> 52);
        k.finish().unwrap()
    }

    #[test]
    fn bit_casts_keep_the_width() {
        for (f, from, to) in [
            (MathFn::ToBits, T::F32, Some(T::U32)),
            (MathFn::ToBits, T::F64, Some(T::U64)),
            (MathFn::FromBits, T::U32, Some(T::F32)),
            (MathFn::FromBits, T::U64, Some(T::F64)),
            (MathFn::ToBits, T::U32, None),
            (MathFn::ToBits, T::I64, None),
            (MathFn::FromBits, T::F32, None),
            (MathFn::FromBits, T::I32, None),
            (MathFn::FromBits, T::U16, None),
        ] {
            assert_eq!(f.result_type(&[from]), to, "{f:?}({from})");
        }
        assert_eq!(MathFn::ToBits.result_type(&[T::F32, T::F32]), None);
        assert_eq!(MathFn::FromBits.max_ulp(), 0);
        assert!(MathFn::ALL.contains(&MathFn::ToBits) && MathFn::ALL.contains(&MathFn::FromBits));
    }

    #[test]
    fn bit_casts_validate_print_and_hash() {
        let k = bit_kernel();
        let info = validate(&k).unwrap();
        assert!(
            info.math_fns.contains(&MathFn::ToBits) && info.math_fns.contains(&MathFn::FromBits)
        );
        let text = k.to_string();
        assert!(
            text.contains("o[i0] = from_bits((to_bits(x[i0]) ^ 2147483648u32));"),
            "{text}"
        );
        assert!(
            text.contains("b[i0] = (to_bits(y[i0]) >> 52i32);"),
            "{text}"
        );
        // The two bit casts hash apart from each other and from a value cast.
        let mut swapped = k.clone();
        let Stmt::Store { value, .. } = &mut swapped.body[1] else {
            panic!("{:?}", swapped.body[1])
        };
        let IrExpr::Binary { lhs, .. } = value else {
            panic!("{value:?}")
        };
        let IrExpr::Math { args, .. } = &**lhs else {
            panic!("{lhs:?}")
        };
        **lhs = IrExpr::Cast {
            ty: T::U64,
            arg: Box::new(args[0].clone()),
        };
        assert_ne!(k.stable_hash(), swapped.stable_hash());
        assert_eq!(k.stable_hash(), bit_kernel().stable_hash());
    }

    #[test]
    fn a_bit_cast_of_the_wrong_type_is_refused() {
        let mut k = bit_kernel();
        // `from_bits` of an `f32`: no Rust function, and no IR one.
        let Stmt::Store { value, .. } = &mut k.body[0] else {
            panic!()
        };
        let IrExpr::Math { args, .. } = value else {
            panic!("{value:?}")
        };
        args[0] = IrExpr::Lit(crate::Value::F32(1.0));
        let err = validate(&k).unwrap_err();
        assert!(
            matches!(&err.kind, ErrorKind::BadMathArgs { func: MathFn::FromBits, args } if args == &[T::F32]),
            "{err:?}"
        );
    }
}
