//! The decisions every target's operator families make the same way, so that each target only
//! spells them: which integer operations need a check and which failure each check reports
//! (`rokkos_core::ir::Failure`, Rust's words), and the bounds of saturating float-to-integer casts.

use rokkos_core::ir::{ArithOp, BitwiseOp, Failure, ScalarType, Value};

/// How an integer `l op r` is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntArith {
    /// `/` or `%` by a literal that can neither be zero nor `-1`: the plain operator.
    Plain,
    /// Two's complement wrapping (the `wrapping_*` methods, or no overflow checks).
    Wrapping,
    /// Wrapping, and `failure` when the exact result does not fit.
    Checked(Failure),
    /// `/` or `%` checked for a zero divisor (`zero`) and, in signed types, for `MIN / -1`
    /// (`overflow`).
    DivRem {
        /// The failure of a zero divisor.
        zero: Failure,
        /// The failure of `MIN / -1` (signed types only).
        overflow: Failure,
    },
}

/// How `l op r` of integer type `t` is computed; `checks`: the kernel's overflow checks, `r_lit`:
/// the right operand when it is a literal (a check it makes unnecessary is left out).
pub fn int_arith(op: ArithOp, t: ScalarType, checks: bool, r_lit: Option<Value>) -> IntArith {
    let base = op.base();
    match base {
        ArithOp::Div | ArithOp::Rem => {
            let zero_ok = r_lit.is_some_and(|v| v.to_bits() != 0);
            let minus_one = t.is_signed_int()
                && r_lit.is_none_or(|v| v.to_bits() == u64::MAX >> (64 - t.bits()));
            if zero_ok && !minus_one {
                return IntArith::Plain;
            }
            if base == ArithOp::Div {
                IntArith::DivRem {
                    zero: Failure::DivByZero,
                    overflow: Failure::DivOverflow,
                }
            } else {
                IntArith::DivRem {
                    zero: Failure::RemByZero,
                    overflow: Failure::RemOverflow,
                }
            }
        }
        _ if !checks || op.is_wrapping() => IntArith::Wrapping,
        ArithOp::Add => IntArith::Checked(Failure::AddOverflow),
        ArithOp::Sub => IntArith::Checked(Failure::SubOverflow),
        _ => IntArith::Checked(Failure::MulOverflow),
    }
}

/// The failure of a shift whose amount is not below the width (overflow checks on).
pub fn shift_failure(op: BitwiseOp) -> Failure {
    if op == BitwiseOp::Shl {
        Failure::ShlOverflow
    } else {
        Failure::ShrOverflow
    }
}

/// The saturation of a float-to-integer cast to type `t` (Rust's `as`): NaN gives 0, `x >=
/// upper` gives `max`, `x < lower` (signed) or `x <= 0` (unsigned: `lower` is 0 and
/// `lower_inclusive`) gives `min`, anything else truncates toward zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saturation {
    /// `2^(bits-1)` (signed) or `2^bits` (unsigned): the first value past `MAX`.
    pub upper: f64,
    /// `-2^(bits-1)` (signed) or 0 (unsigned).
    pub lower: f64,
    /// Whether `x == lower` also saturates (unsigned: every `x <= 0` gives 0).
    pub lower_inclusive: bool,
    /// `t::MAX`.
    pub max: Value,
    /// `t::MIN`.
    pub min: Value,
}

/// The saturation bounds of a cast to integer type `t`.
pub fn saturation(t: ScalarType) -> Saturation {
    let bits = t.bits() as i32;
    let signed = t.is_signed_int();
    let upper = if signed {
        2f64.powi(bits - 1)
    } else {
        2f64.powi(bits)
    };
    Saturation {
        upper,
        lower: if signed { -upper } else { 0.0 },
        lower_inclusive: !signed,
        max: Value::from_bits(
            t,
            if signed {
                (1u64 << (bits - 1)) - 1
            } else {
                u64::MAX
            },
        ),
        // `MIN` of a signed type is its sign bit alone.
        min: Value::from_bits(t, if signed { 1u64 << (bits - 1) } else { 0 }),
    }
}
