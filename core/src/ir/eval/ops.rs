//! The value semantics of every operator, cast, math function, atomic and nested reducer, exactly as
//! Rust computes them, with integer overflow failing or wrapping as `checks` (the kernel's
//! [`crate::ir::Kernel::overflow_checks`]) says.

use super::EvalError;
use crate::ir::ops::{ArithOp, AtomicOp, BitwiseOp, CmpOp, Failure, MathFn, UnaryOp};
use crate::ir::{ScalarType, Value};
use std::cmp::Ordering;

type R<T> = Result<T, EvalError>;

fn mismatch(what: &str, vals: &[Value]) -> EvalError {
    let tys: Vec<&str> = vals.iter().map(|v| v.ty().name()).collect();
    EvalError::Internal(format!("{what} on ill-typed operands ({})", tys.join(", ")))
}

fn fail<T>(f: Failure) -> R<T> {
    Err(EvalError::Failed(f.message().to_string()))
}

/// `a op b` for an arithmetic operator; `checks`: the kernel's overflow checks.
pub fn arith(op: ArithOp, a: Value, b: Value, checks: bool) -> R<Value> {
    // The wrapping methods never fail; `+ - *` fail on overflow only with checks; `/ %` always.
    let checked = checks && !op.is_wrapping();
    macro_rules! int {
        ($x:expr, $y:expr, $v:ident) => {{
            let (x, y) = ($x, $y);
            Value::$v(match op.base() {
                ArithOp::Add => match x.checked_add(y) {
                    None if checked => return fail(Failure::AddOverflow),
                    _ => x.wrapping_add(y),
                },
                ArithOp::Sub => match x.checked_sub(y) {
                    None if checked => return fail(Failure::SubOverflow),
                    _ => x.wrapping_sub(y),
                },
                ArithOp::Mul => match x.checked_mul(y) {
                    None if checked => return fail(Failure::MulOverflow),
                    _ => x.wrapping_mul(y),
                },
                ArithOp::Div if y == 0 => return fail(Failure::DivByZero),
                ArithOp::Div => match x.checked_div(y) {
                    Some(q) => q,
                    None => return fail(Failure::DivOverflow),
                },
                ArithOp::Rem if y == 0 => return fail(Failure::RemByZero),
                ArithOp::Rem => match x.checked_rem(y) {
                    Some(r) => r,
                    None => return fail(Failure::RemOverflow),
                },
                _ => return Err(EvalError::Internal(format!("operator {op:?}"))),
            })
        }};
    }
    macro_rules! float {
        ($x:expr, $y:expr, $v:ident) => {
            Value::$v(match op.base() {
                ArithOp::Add => $x + $y,
                ArithOp::Sub => $x - $y,
                ArithOp::Mul => $x * $y,
                ArithOp::Div => $x / $y,
                // Rust's `%` is C's `fmod`, exact.
                ArithOp::Rem => $x % $y,
                _ => return Err(EvalError::Internal(format!("operator {op:?}"))),
            })
        };
    }
    Ok(match (a, b) {
        (Value::I32(x), Value::I32(y)) => int!(x, y, I32),
        (Value::U32(x), Value::U32(y)) => int!(x, y, U32),
        (Value::U8(x), Value::U8(y)) => int!(x, y, U8),
        (Value::U16(x), Value::U16(y)) => int!(x, y, U16),
        (Value::I8(x), Value::I8(y)) => int!(x, y, I8),
        (Value::I16(x), Value::I16(y)) => int!(x, y, I16),
        (Value::I64(x), Value::I64(y)) => int!(x, y, I64),
        (Value::U64(x), Value::U64(y)) => int!(x, y, U64),
        (Value::F32(x), Value::F32(y)) => float!(x, y, F32),
        (Value::F64(x), Value::F64(y)) => float!(x, y, F64),
        _ => return Err(mismatch(op.symbol(), &[a, b])),
    })
}

/// `a op b` for a bitwise operator. A shift by the width of `a` or more (a negative amount
/// included: Rust compares the amount as unsigned) fails with `checks`; otherwise the amount is
/// masked to the width, as `wrapping_shl`.
pub fn bitwise(op: BitwiseOp, a: Value, b: Value, checks: bool) -> R<Value> {
    if matches!(op, BitwiseOp::Shl | BitwiseOp::Shr) {
        if checks && b.ty().is_int() && a.ty().is_int() && b.to_bits() >= u64::from(a.ty().bits()) {
            return fail(if op == BitwiseOp::Shl {
                Failure::ShlOverflow
            } else {
                Failure::ShrOverflow
            });
        }
        let n = b.to_bits() as u32;
        macro_rules! shift {
            ($x:expr, $v:ident) => {
                Value::$v(if op == BitwiseOp::Shl {
                    $x.wrapping_shl(n)
                } else {
                    $x.wrapping_shr(n)
                })
            };
        }
        return Ok(match a {
            Value::I32(x) if b.ty().is_int() => shift!(x, I32),
            Value::U32(x) if b.ty().is_int() => shift!(x, U32),
            Value::U8(x) if b.ty().is_int() => shift!(x, U8),
            Value::U16(x) if b.ty().is_int() => shift!(x, U16),
            Value::I8(x) if b.ty().is_int() => shift!(x, I8),
            Value::I16(x) if b.ty().is_int() => shift!(x, I16),
            Value::I64(x) if b.ty().is_int() => shift!(x, I64),
            Value::U64(x) if b.ty().is_int() => shift!(x, U64),
            _ => return Err(mismatch(op.symbol(), &[a, b])),
        });
    }
    if a.ty() != b.ty() || !(a.ty().is_int() || a.ty() == ScalarType::Bool) {
        return Err(mismatch(op.symbol(), &[a, b]));
    }
    let (x, y) = (a.to_bits(), b.to_bits());
    let r = match op {
        BitwiseOp::And => x & y,
        BitwiseOp::Or => x | y,
        _ => x ^ y,
    };
    Ok(Value::from_bits(a.ty(), r))
}

/// How `a` compares with `b` (`None` when a float operand is NaN).
pub fn partial_cmp(a: Value, b: Value) -> R<Option<Ordering>> {
    Ok(match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.partial_cmp(&y),
        (Value::I32(x), Value::I32(y)) => x.partial_cmp(&y),
        (Value::U32(x), Value::U32(y)) => x.partial_cmp(&y),
        (Value::U8(x), Value::U8(y)) => x.partial_cmp(&y),
        (Value::U16(x), Value::U16(y)) => x.partial_cmp(&y),
        (Value::I8(x), Value::I8(y)) => x.partial_cmp(&y),
        (Value::I16(x), Value::I16(y)) => x.partial_cmp(&y),
        (Value::I64(x), Value::I64(y)) => x.partial_cmp(&y),
        (Value::U64(x), Value::U64(y)) => x.partial_cmp(&y),
        (Value::F32(x), Value::F32(y)) => x.partial_cmp(&y),
        (Value::F64(x), Value::F64(y)) => x.partial_cmp(&y),
        _ => return Err(mismatch("comparison", &[a, b])),
    })
}

/// `a op b` for a comparison (IEEE: every ordered comparison with NaN is false, `!=` true).
pub fn cmp(op: CmpOp, a: Value, b: Value) -> R<Value> {
    let o = partial_cmp(a, b)?;
    Ok(Value::Bool(match op {
        CmpOp::Eq => o == Some(Ordering::Equal),
        CmpOp::Ne => o != Some(Ordering::Equal),
        CmpOp::Lt => o == Some(Ordering::Less),
        CmpOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => o == Some(Ordering::Greater),
        CmpOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
    }))
}

/// `op a`; `-MIN` fails with `checks` and wraps otherwise.
pub fn unary(op: UnaryOp, a: Value, checks: bool) -> R<Value> {
    Ok(match (op, a) {
        (UnaryOp::Neg, Value::I8(i8::MIN))
        | (UnaryOp::Neg, Value::I16(i16::MIN))
        | (UnaryOp::Neg, Value::I32(i32::MIN))
        | (UnaryOp::Neg, Value::I64(i64::MIN))
            if checks =>
        {
            return fail(Failure::NegOverflow)
        }
        (UnaryOp::Neg, Value::I8(x)) => Value::I8(x.wrapping_neg()),
        (UnaryOp::Neg, Value::I16(x)) => Value::I16(x.wrapping_neg()),
        (UnaryOp::Neg, Value::I32(x)) => Value::I32(x.wrapping_neg()),
        (UnaryOp::Neg, Value::I64(x)) => Value::I64(x.wrapping_neg()),
        (UnaryOp::Neg, Value::F32(x)) => Value::F32(-x),
        (UnaryOp::Neg, Value::F64(x)) => Value::F64(-x),
        (UnaryOp::Not, Value::Bool(x)) => Value::Bool(!x),
        (UnaryOp::Not, v) if v.ty().is_int() => Value::from_bits(v.ty(), !v.to_bits()),
        _ => return Err(mismatch(op.symbol(), &[a])),
    })
}

/// `a as ty` (Rust `as`: float to integer saturates and maps NaN to 0).
pub fn cast(a: Value, ty: ScalarType) -> R<Value> {
    if !ty.can_cast_from(a.ty()) {
        return Err(mismatch("cast", &[a]));
    }
    macro_rules! to {
        ($x:expr) => {
            match ty {
                ScalarType::I32 => Value::I32($x as i32),
                ScalarType::U32 => Value::U32($x as u32),
                ScalarType::U8 => Value::U8($x as u8),
                ScalarType::U16 => Value::U16($x as u16),
                ScalarType::I8 => Value::I8($x as i8),
                ScalarType::I16 => Value::I16($x as i16),
                ScalarType::I64 => Value::I64($x as i64),
                ScalarType::U64 => Value::U64($x as u64),
                ScalarType::F32 => Value::F32($x as f32),
                ScalarType::F64 => Value::F64($x as f64),
                ScalarType::Bool => a,
            }
        };
    }
    Ok(match a {
        Value::Bool(b) => to!(b as u8),
        Value::I32(x) => to!(x),
        Value::U32(x) => to!(x),
        Value::U8(x) => to!(x),
        Value::U16(x) => to!(x),
        Value::I8(x) => to!(x),
        Value::I16(x) => to!(x),
        Value::I64(x) => to!(x),
        Value::U64(x) => to!(x),
        Value::F32(x) => to!(x),
        Value::F64(x) => to!(x),
    })
}

/// `x.max(y)` of floats as the IR pins it: a NaN operand gives the other one, and of two equal
/// operands (`0.0` and `-0.0`) the receiver wins, which is what Rust's `max` returns on x86-64
/// (Rust leaves the choice open).
macro_rules! fmax {
    ($x:expr, $y:expr) => {{
        let (x, y) = ($x, $y);
        if x.is_nan() || y > x {
            y
        } else {
            x
        }
    }};
}
/// `x.min(y)` of floats: as [`fmax!`] with the comparison reversed.
macro_rules! fmin {
    ($x:expr, $y:expr) => {{
        let (x, y) = ($x, $y);
        if x.is_nan() || y < x {
            y
        } else {
            x
        }
    }};
}

/// A math intrinsic on `args` (the receiver first); `checks`: the kernel's overflow checks (integer
/// `abs` of `MIN` fails with them).
pub fn math(func: MathFn, args: &[Value], checks: bool) -> R<Value> {
    macro_rules! float {
        ($x:expr, $v:ident, $t:ty) => {{
            let x = $x;
            let arg = |i: usize| -> R<$t> {
                match args.get(i) {
                    Some(Value::$v(y)) => Ok(*y),
                    _ => Err(mismatch(func.name(), args)),
                }
            };
            Value::$v(match func {
                MathFn::Sqrt => x.sqrt(),
                MathFn::Cbrt => x.cbrt(),
                MathFn::Sin => x.sin(),
                MathFn::Cos => x.cos(),
                MathFn::Tan => x.tan(),
                MathFn::Asin => x.asin(),
                MathFn::Acos => x.acos(),
                MathFn::Atan => x.atan(),
                MathFn::Atan2 => x.atan2(arg(1)?),
                MathFn::Sinh => x.sinh(),
                MathFn::Cosh => x.cosh(),
                MathFn::Tanh => x.tanh(),
                MathFn::Exp => x.exp(),
                MathFn::Exp2 => x.exp2(),
                MathFn::Ln => x.ln(),
                MathFn::Log2 => x.log2(),
                MathFn::Log10 => x.log10(),
                MathFn::Powf => x.powf(arg(1)?),
                MathFn::Powi => match args.get(1) {
                    Some(Value::I32(n)) => x.powi(*n),
                    _ => return Err(mismatch(func.name(), args)),
                },
                MathFn::Abs => x.abs(),
                MathFn::Min => fmin!(x, arg(1)?),
                MathFn::Max => fmax!(x, arg(1)?),
                MathFn::Clamp => {
                    let (lo, hi) = (arg(1)?, arg(2)?);
                    if lo > hi || lo.is_nan() || hi.is_nan() {
                        return Err(EvalError::Failed(format!(
                            "min > max, or either was NaN. min = {lo:?}, max = {hi:?}"
                        )));
                    }
                    x.clamp(lo, hi)
                }
                MathFn::Floor => x.floor(),
                MathFn::Ceil => x.ceil(),
                MathFn::Round => x.round(),
                MathFn::Trunc => x.trunc(),
                MathFn::Fract => x.fract(),
                MathFn::MulAdd => x.mul_add(arg(1)?, arg(2)?),
                MathFn::Signum => x.signum(),
                MathFn::Hypot => x.hypot(arg(1)?),
                MathFn::Recip => x.recip(),
                MathFn::IsNan | MathFn::IsFinite | MathFn::ToBits | MathFn::FromBits => {
                    return Err(mismatch(func.name(), args))
                }
            })
        }};
    }
    macro_rules! int {
        ($x:expr, $v:ident, $t:ty $(, $abs:ident, $signum:ident)?) => {{
            let x = $x;
            let arg = |i: usize| -> R<$t> {
                match args.get(i) {
                    Some(Value::$v(y)) => Ok(*y),
                    _ => Err(mismatch(func.name(), args)),
                }
            };
            Value::$v(match func {
                MathFn::Min => x.min(arg(1)?),
                MathFn::Max => x.max(arg(1)?),
                MathFn::Clamp => {
                    let (lo, hi) = (arg(1)?, arg(2)?);
                    if lo > hi {
                        return Err(EvalError::Failed(format!("min > max. min = {lo}, max = {hi}")));
                    }
                    x.clamp(lo, hi)
                }
                // Signed types only: `abs` of MIN fails with checks and wraps otherwise, and `signum`.
                $(MathFn::Abs => match x.checked_abs() {
                    None if checks => return fail(Failure::NegOverflow),
                    _ => x.$abs(),
                },
                MathFn::Signum => x.$signum(),)?
                _ => return Err(mismatch(func.name(), args)),
            })
        }};
    }
    match (func, args) {
        (MathFn::IsNan, [Value::F32(x)]) => return Ok(Value::Bool(x.is_nan())),
        (MathFn::IsNan, [Value::F64(x)]) => return Ok(Value::Bool(x.is_nan())),
        (MathFn::IsFinite, [Value::F32(x)]) => return Ok(Value::Bool(x.is_finite())),
        (MathFn::IsFinite, [Value::F64(x)]) => return Ok(Value::Bool(x.is_finite())),
        (MathFn::IsNan | MathFn::IsFinite, _) => return Err(mismatch(func.name(), args)),
        // Bit casts keep every bit (`ir::ops::math`), as Rust's.
        (MathFn::ToBits, [Value::F32(x)]) => return Ok(Value::U32(x.to_bits())),
        (MathFn::ToBits, [Value::F64(x)]) => return Ok(Value::U64(x.to_bits())),
        (MathFn::FromBits, [Value::U32(b)]) => return Ok(Value::F32(f32::from_bits(*b))),
        (MathFn::FromBits, [Value::U64(b)]) => return Ok(Value::F64(f64::from_bits(*b))),
        (MathFn::ToBits | MathFn::FromBits, _) => return Err(mismatch(func.name(), args)),
        _ => {}
    }
    Ok(match args.first() {
        Some(Value::F32(x)) => float!(*x, F32, f32),
        Some(Value::F64(x)) => float!(*x, F64, f64),
        Some(Value::I32(x)) => int!(*x, I32, i32, wrapping_abs, signum),
        Some(Value::I64(x)) => int!(*x, I64, i64, wrapping_abs, signum),
        Some(Value::U32(x)) => int!(*x, U32, u32),
        Some(Value::U8(x)) => int!(*x, U8, u8),
        Some(Value::U16(x)) => int!(*x, U16, u16),
        Some(Value::I8(x)) => int!(*x, I8, i8, wrapping_abs, signum),
        Some(Value::I16(x)) => int!(*x, I16, i16, wrapping_abs, signum),
        Some(Value::U64(x)) => int!(*x, U64, u64),
        _ => return Err(mismatch(func.name(), args)),
    })
}

/// The new element value of an atomic on element `old` with arguments `args`, as
/// `rokkos_core::atomic` computes it (`None`: the element is not written). Integer `Div` / `Mod`
/// by zero fail (before anything is written); every other integer atomic wraps.
pub fn atomic(op: AtomicOp, old: Value, args: &[Value]) -> R<Option<Value>> {
    let v = args.first().copied();
    let arg = || v.ok_or_else(|| mismatch(op.name(), args));
    let one = || match old.ty() {
        ScalarType::F32 => Value::F32(1.0),
        ScalarType::F64 => Value::F64(1.0),
        t => Value::from_bits(t, 1),
    };
    Ok(match op {
        // Atomics wrap, as `core::sync::atomic` does in every build.
        AtomicOp::Add => Some(arith(ArithOp::Add, old, arg()?, false)?),
        AtomicOp::Sub => Some(arith(ArithOp::Sub, old, arg()?, false)?),
        AtomicOp::Mul => Some(arith(ArithOp::Mul, old, arg()?, false)?),
        AtomicOp::Inc => Some(arith(ArithOp::Add, old, one(), false)?),
        AtomicOp::Dec => Some(arith(ArithOp::Sub, old, one(), false)?),
        AtomicOp::Div | AtomicOp::Mod => {
            let v = arg()?;
            if v.ty().is_int() && v.to_bits() == 0 {
                return fail(
                    op.zero_operand_failure(v.ty())
                        .expect("an integer div / mod"),
                );
            }
            let aop = if op == AtomicOp::Div {
                ArithOp::Div
            } else {
                ArithOp::Rem
            };
            // `MIN / -1` and `MIN % -1` wrap (to `MIN` and 0) rather than fail.
            let minus_one =
                v.ty().is_signed_int() && v.to_bits() == u64::MAX >> (64 - v.ty().bits());
            if minus_one {
                Some(if op == AtomicOp::Div {
                    arith(ArithOp::Sub, Value::zero(v.ty()), old, false)?
                } else {
                    Value::zero(v.ty())
                })
            } else {
                Some(arith(aop, old, v, false)?)
            }
        }
        AtomicOp::Min => {
            let v = arg()?;
            Some(if partial_cmp(v, old)? == Some(Ordering::Less) {
                v
            } else {
                old
            })
        }
        AtomicOp::Max => {
            let v = arg()?;
            Some(if partial_cmp(v, old)? == Some(Ordering::Greater) {
                v
            } else {
                old
            })
        }
        AtomicOp::And => Some(bitwise(BitwiseOp::And, old, arg()?, false)?),
        AtomicOp::Or => Some(bitwise(BitwiseOp::Or, old, arg()?, false)?),
        AtomicOp::Xor => Some(bitwise(BitwiseOp::Xor, old, arg()?, false)?),
        AtomicOp::Nand => {
            let and = bitwise(BitwiseOp::And, old, arg()?, false)?;
            Some(Value::from_bits(old.ty(), !and.to_bits()))
        }
        // The amount masked to the width (no overflow checks: atomics never fail on overflow).
        AtomicOp::Lshift => Some(bitwise(BitwiseOp::Shl, old, arg()?, false)?),
        AtomicOp::Rshift => Some(bitwise(BitwiseOp::Shr, old, arg()?, false)?),
        AtomicOp::IncMod | AtomicOp::DecMod if old.ty().is_int() && !old.ty().is_signed_int() => {
            let (x, m) = (old.to_bits(), arg()?.to_bits());
            let ty = old.ty();
            Some(Value::from_bits(
                ty,
                if op == AtomicOp::IncMod {
                    if x >= m {
                        0
                    } else {
                        x + 1
                    }
                } else if x == 0 || x > m {
                    m
                } else {
                    x - 1
                },
            ))
        }
        AtomicOp::IncMod | AtomicOp::DecMod => return Err(mismatch(op.name(), &[old])),
        AtomicOp::Exchange | AtomicOp::Store => Some(arg()?),
        AtomicOp::CompareExchange => {
            let new = args
                .get(1)
                .copied()
                .ok_or_else(|| mismatch(op.name(), args))?;
            (old.to_bits() == arg()?.to_bits()).then_some(new)
        }
        AtomicOp::Load => None,
    })
}
