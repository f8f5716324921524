//! Typed expression handles: [`Expr<T>`] with Rust's operators, comparisons, casts and math methods.

use super::scalar::{IrBits, IrFloat, IrInt, IrNum, IrScalar, IrSigned};
use crate::expr::Expr as IrExpr;
use crate::ops::{ArithOp, BinaryOp, BitwiseOp, CmpOp, LogicOp, MathFn, UnaryOp};
use crate::types::{ScalarType, Value};
use std::marker::PhantomData;
use std::ops;

/// An IR expression whose Rust type is `T`: the operators Rust accepts on `T` are the ones
/// implemented, so a body that type-checks natively records a well-typed IR.
///
/// Handles own their tree; a value used twice is cloned (the macro binds non-trivial reused values to
/// locals instead).
pub struct Expr<T> {
    expr: IrExpr,
    _ty: PhantomData<fn() -> T>,
}

impl<T> Clone for Expr<T> {
    fn clone(&self) -> Self {
        Expr {
            expr: self.expr.clone(),
            _ty: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Expr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.expr.fmt(f)
    }
}

/// Values that become an `Expr<T>`: an `Expr<T>` (or a reference to one), a variable handle, or a
/// host value of type `T`. Because the only Rust number type implementing `IntoExpr<T>` is `T` itself,
/// an unsuffixed literal next to an `Expr<T>` is inferred as `T` (`x * 0.4` with `x: Expr<f32>` records
/// `0.4f32`, parsed exactly as the native path parses it).
#[diagnostic::on_unimplemented(
    note = "a `#[rokkos::func]` returning several values is bound to names, `let (a, b) = f(..);` or `let [x, y, z] = f(..);`, not used as one value"
)]
pub trait IntoExpr<T> {
    /// The expression.
    fn into_expr(self) -> Expr<T>;
}

impl<T> IntoExpr<T> for Expr<T> {
    fn into_expr(self) -> Expr<T> {
        self
    }
}
impl<T> IntoExpr<T> for &Expr<T> {
    fn into_expr(self) -> Expr<T> {
        self.clone()
    }
}
impl<T: IrScalar> IntoExpr<T> for T {
    fn into_expr(self) -> Expr<T> {
        Expr::lit(self)
    }
}

impl<T> Expr<T> {
    /// Wraps an untyped IR expression; the caller asserts that its type is `T`'s (the validator checks).
    pub fn from_ir(expr: IrExpr) -> Self {
        Expr {
            expr,
            _ty: PhantomData,
        }
    }
    /// The IR expression.
    pub fn into_ir(self) -> IrExpr {
        self.expr
    }
    /// The IR expression, borrowed.
    pub fn ir(&self) -> &IrExpr {
        &self.expr
    }
    fn binary<U>(self, op: BinaryOp, rhs: IrExpr) -> Expr<U> {
        Expr::from_ir(IrExpr::Binary {
            op,
            lhs: Box::new(self.expr),
            rhs: Box::new(rhs),
        })
    }
    fn math(self, func: MathFn, rest: Vec<IrExpr>) -> Self {
        let mut args = vec![self.expr];
        args.extend(rest);
        Expr::from_ir(IrExpr::Math { func, args })
    }
}

impl<T: IrScalar> Expr<T> {
    /// The constant `v`.
    pub fn lit(v: T) -> Self {
        Expr::from_ir(IrExpr::Lit(v.to_value()))
    }
    /// `self as U`.
    pub fn cast<U: IrScalar>(self) -> Expr<U> {
        Expr::from_ir(IrExpr::Cast {
            ty: U::TYPE,
            arg: Box::new(self.expr),
        })
    }
    /// `self < rhs`.
    pub fn lt(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Cmp(CmpOp::Lt), rhs.into_expr().expr)
    }
    /// `self <= rhs`.
    pub fn le(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Cmp(CmpOp::Le), rhs.into_expr().expr)
    }
    /// `self > rhs`.
    pub fn gt(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Cmp(CmpOp::Gt), rhs.into_expr().expr)
    }
    /// `self >= rhs`.
    pub fn ge(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Cmp(CmpOp::Ge), rhs.into_expr().expr)
    }
    /// `self == rhs`.
    pub fn eq_(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Cmp(CmpOp::Eq), rhs.into_expr().expr)
    }
    /// `self != rhs`.
    pub fn ne_(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Cmp(CmpOp::Ne), rhs.into_expr().expr)
    }
}

impl Expr<bool> {
    /// `self && rhs` (short-circuit).
    pub fn and(self, rhs: impl IntoExpr<bool>) -> Expr<bool> {
        self.binary(BinaryOp::Logic(LogicOp::And), rhs.into_expr().expr)
    }
    /// `self || rhs` (short-circuit).
    pub fn or(self, rhs: impl IntoExpr<bool>) -> Expr<bool> {
        self.binary(BinaryOp::Logic(LogicOp::Or), rhs.into_expr().expr)
    }
    /// `if self { a } else { b }`, evaluating both (see [`crate::Expr::Select`]).
    pub fn select<T>(self, a: impl IntoExpr<T>, b: impl IntoExpr<T>) -> Expr<T> {
        select(self, a, b)
    }
}

/// `if cond { a } else { b }`, evaluating all three (see [`crate::Expr::Select`]).
pub fn select<T>(cond: Expr<bool>, a: impl IntoExpr<T>, b: impl IntoExpr<T>) -> Expr<T> {
    Expr::from_ir(IrExpr::Select {
        cond: Box::new(cond.expr),
        on_true: Box::new(a.into_expr().expr),
        on_false: Box::new(b.into_expr().expr),
    })
}

macro_rules! math_unary {
    ($($(#[$m:meta])* $name:ident => $f:ident),* $(,)?) => {$(
        $(#[$m])*
        pub fn $name(self) -> Self {
            self.math(MathFn::$f, Vec::new())
        }
    )*};
}
macro_rules! math_binary {
    ($($(#[$m:meta])* $name:ident => $f:ident),* $(,)?) => {$(
        $(#[$m])*
        pub fn $name(self, rhs: impl IntoExpr<T>) -> Self {
            self.math(MathFn::$f, vec![rhs.into_expr().expr])
        }
    )*};
}

impl<T: IrFloat> Expr<T> {
    math_unary!(
        /// `x.sqrt()`.
        sqrt => Sqrt,
        /// `x.cbrt()`.
        cbrt => Cbrt,
        /// `x.sin()`.
        sin => Sin,
        /// `x.cos()`.
        cos => Cos,
        /// `x.tan()`.
        tan => Tan,
        /// `x.asin()`.
        asin => Asin,
        /// `x.acos()`.
        acos => Acos,
        /// `x.atan()`.
        atan => Atan,
        /// `x.sinh()`.
        sinh => Sinh,
        /// `x.cosh()`.
        cosh => Cosh,
        /// `x.tanh()`.
        tanh => Tanh,
        /// `x.exp()`.
        exp => Exp,
        /// `x.exp2()`.
        exp2 => Exp2,
        /// `x.ln()`.
        ln => Ln,
        /// `x.log2()`.
        log2 => Log2,
        /// `x.log10()`.
        log10 => Log10,
        /// `x.floor()`.
        floor => Floor,
        /// `x.ceil()`.
        ceil => Ceil,
        /// `x.round()`.
        round => Round,
        /// `x.trunc()`.
        trunc => Trunc,
        /// `x.fract()`.
        fract => Fract,
        /// `x.recip()`.
        recip => Recip,
    );
    math_binary!(
        /// `y.atan2(x)`.
        atan2 => Atan2,
        /// `x.powf(y)`.
        powf => Powf,
        /// `x.hypot(y)`.
        hypot => Hypot,
    );
    /// `x.powi(n)`.
    pub fn powi(self, n: impl IntoExpr<i32>) -> Self {
        self.math(MathFn::Powi, vec![n.into_expr().expr])
    }
    /// `x.mul_add(a, b)`: `x * a + b`, fused.
    pub fn mul_add(self, a: impl IntoExpr<T>, b: impl IntoExpr<T>) -> Self {
        self.math(MathFn::MulAdd, vec![a.into_expr().expr, b.into_expr().expr])
    }
}

impl<T: IrFloat> Expr<T> {
    /// A constant of this float type: `x` (rounded to `f32` when `T` is `f32`).
    fn float_const(x32: f32, x64: f64) -> Self {
        Expr::from_ir(IrExpr::Lit(if T::TYPE == ScalarType::F32 {
            Value::F32(x32)
        } else {
            Value::F64(x64)
        }))
    }
    /// `x.to_radians()`: `x` times the constant `std` uses.
    pub fn to_radians(self) -> Self {
        self * Self::float_const(std::f32::consts::PI / 180.0, std::f64::consts::PI / 180.0)
    }
    /// `x.to_degrees()`: `x` times the constant `std` uses.
    pub fn to_degrees(self) -> Self {
        #[allow(clippy::excessive_precision)]
        const PIS_IN_180: f32 = 57.295_779_513_082_320_876_798_154_814_105_170_3_f32;
        self * Self::float_const(PIS_IN_180, 180.0f64 / std::f64::consts::PI)
    }
    /// `x.is_nan()`: an operation of its own ([`MathFn::IsNan`]), which backends answer from the
    /// bits, as a compiler may fold the comparison `x != x`.
    pub fn is_nan(self) -> Expr<bool> {
        Expr::from_ir(IrExpr::Math {
            func: MathFn::IsNan,
            args: vec![self.expr],
        })
    }
    /// `x.is_finite()`: an operation of its own ([`MathFn::IsFinite`]), as a compiler may fold
    /// the spelling `x - x == x - x` to `true`.
    pub fn is_finite(self) -> Expr<bool> {
        Expr::from_ir(IrExpr::Math {
            func: MathFn::IsFinite,
            args: vec![self.expr],
        })
    }
    /// `x.to_bits()` ([`MathFn::ToBits`]): the float's bits, every one kept.
    ///
    /// ```
    /// use rokkos_ir::build::Expr;
    /// let b: Expr<u32> = Expr::lit(-0.0f32).to_bits();
    /// assert!(format!("{b:?}").contains("ToBits"));
    /// ```
    pub fn to_bits(self) -> Expr<T::Bits> {
        Expr::from_ir(IrExpr::Math {
            func: MathFn::ToBits,
            args: vec![self.expr],
        })
    }
    /// `T::from_bits(b)` ([`MathFn::FromBits`]): the float whose bits are `b`.
    ///
    /// ```
    /// use rokkos_ir::build::Expr;
    /// let one = Expr::<f32>::from_bits(0x3f80_0000);
    /// assert!(format!("{one:?}").contains("FromBits"));
    /// ```
    pub fn from_bits(bits: impl IntoExpr<T::Bits>) -> Self {
        Expr::from_ir(IrExpr::Math {
            func: MathFn::FromBits,
            args: vec![bits.into_expr().expr],
        })
    }
}

impl<T: IrNum> Expr<T> {
    /// `x.wrapping_add(y)`: `x + y` that wraps even in a kernel with overflow checks.
    pub fn wrapping_add(self, rhs: impl IntoExpr<T>) -> Self {
        self.binary(BinaryOp::Arith(ArithOp::WrappingAdd), rhs.into_expr().expr)
    }
    /// `x.wrapping_sub(y)`.
    pub fn wrapping_sub(self, rhs: impl IntoExpr<T>) -> Self {
        self.binary(BinaryOp::Arith(ArithOp::WrappingSub), rhs.into_expr().expr)
    }
    /// `x.wrapping_mul(y)`.
    pub fn wrapping_mul(self, rhs: impl IntoExpr<T>) -> Self {
        self.binary(BinaryOp::Arith(ArithOp::WrappingMul), rhs.into_expr().expr)
    }
    /// `x.rem_euclid(y)` as `std` computes it: `r = x % y`, then, when `r < 0`, `r + |y|` (signed
    /// integers: `r.wrapping_add(y.wrapping_abs())`, which never overflows in `std` either; `x % y`
    /// for unsigned ones). The operands are evaluated more than once: bind values with side
    /// effects first.
    pub fn rem_euclid(self, rhs: impl IntoExpr<T>) -> Self {
        let rhs = rhs.into_expr();
        let r = self % rhs.clone();
        if !T::TYPE.is_signed() {
            return r;
        }
        let zero = || Expr::<T>::from_ir(IrExpr::Lit(Value::zero(T::TYPE)));
        let abs = if T::TYPE.is_float() {
            rhs.math(MathFn::Abs, Vec::new())
        } else {
            // `wrapping_abs`: `0 - y` wraps at `MIN`, where `abs` would fail a checked kernel.
            select(
                rhs.clone().lt(zero()),
                zero().wrapping_sub(rhs.clone()),
                rhs,
            )
        };
        select(r.clone().lt(zero()), r.clone().wrapping_add(abs), r)
    }
    math_binary!(
        /// `x.min(y)`.
        min => Min,
        /// `x.max(y)`.
        max => Max,
    );
    /// `x.clamp(lo, hi)`.
    pub fn clamp(self, lo: impl IntoExpr<T>, hi: impl IntoExpr<T>) -> Self {
        self.math(
            MathFn::Clamp,
            vec![lo.into_expr().expr, hi.into_expr().expr],
        )
    }
}

impl<T: IrSigned> Expr<T> {
    math_unary!(
        /// `x.abs()`.
        abs => Abs,
        /// `x.signum()`.
        signum => Signum,
    );
}

macro_rules! binary_ops {
    ($bound:ident: $($tr:ident $method:ident => $op:expr),*) => {$(
        impl<T: $bound, R: IntoExpr<T>> ops::$tr<R> for Expr<T> {
            type Output = Expr<T>;
            fn $method(self, rhs: R) -> Expr<T> {
                self.binary($op, rhs.into_expr().expr)
            }
        }
    )*};
}
binary_ops!(IrNum:
    Add add => BinaryOp::Arith(ArithOp::Add),
    Sub sub => BinaryOp::Arith(ArithOp::Sub),
    Mul mul => BinaryOp::Arith(ArithOp::Mul),
    Div div => BinaryOp::Arith(ArithOp::Div),
    Rem rem => BinaryOp::Arith(ArithOp::Rem));
binary_ops!(IrBits:
    BitAnd bitand => BinaryOp::Bitwise(BitwiseOp::And),
    BitOr bitor => BinaryOp::Bitwise(BitwiseOp::Or),
    BitXor bitxor => BinaryOp::Bitwise(BitwiseOp::Xor));

macro_rules! shift_ops {
    ($($tr:ident $method:ident => $op:ident),*) => {$(
        impl<T: IrInt, U: IrInt> ops::$tr<Expr<U>> for Expr<T> {
            type Output = Expr<T>;
            fn $method(self, rhs: Expr<U>) -> Expr<T> {
                self.binary(BinaryOp::Bitwise(BitwiseOp::$op), rhs.expr)
            }
        }
        /// A literal shift amount (an unsuffixed literal is `i32` in Rust too); wrap other host
        /// amounts in [`Expr::lit`].
        impl<T: IrInt> ops::$tr<i32> for Expr<T> {
            type Output = Expr<T>;
            fn $method(self, rhs: i32) -> Expr<T> {
                self.binary(BinaryOp::Bitwise(BitwiseOp::$op), Expr::lit(rhs).expr)
            }
        }
    )*};
}
shift_ops!(Shl shl => Shl, Shr shr => Shr);

impl<T: IrSigned> ops::Neg for Expr<T> {
    type Output = Expr<T>;
    fn neg(self) -> Expr<T> {
        Expr::from_ir(IrExpr::Unary {
            op: UnaryOp::Neg,
            arg: Box::new(self.expr),
        })
    }
}
impl<T: IrBits> ops::Not for Expr<T> {
    type Output = Expr<T>;
    fn not(self) -> Expr<T> {
        Expr::from_ir(IrExpr::Unary {
            op: UnaryOp::Not,
            arg: Box::new(self.expr),
        })
    }
}

// Host value on the left: `2.0 * x`.
macro_rules! reverse_op {
    ($tr:ident $method:ident: [$($t:ty),*]) => {$(
        impl ops::$tr<Expr<$t>> for $t {
            type Output = Expr<$t>;
            fn $method(self, rhs: Expr<$t>) -> Expr<$t> {
                ops::$tr::$method(Expr::lit(self), rhs)
            }
        }
    )*};
}
macro_rules! reverse_ops {
    ($ts:tt; $($tr:ident $method:ident),*) => {$(
        reverse_op!($tr $method: $ts);
    )*};
}
reverse_ops!([i32, u32, i64, u64, isize, usize, f32, f64]; Add add, Sub sub, Mul mul, Div div, Rem rem);
reverse_ops!([i32, u32, i64, u64, isize, usize, bool]; BitAnd bitand, BitOr bitor, BitXor bitxor);
