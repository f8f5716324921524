//! Atomic read-modify-write operations on one View (or scratch) element.
//!
//! Every atomic is one indivisible access to the element; as an expression it yields the element's
//! value before the operation (`Load` yields the value read), or, for an access whose
//! [`AtomicResult`] is [`AtomicResult::New`] (Kokkos' `atomic_<op>_fetch`), the value it stored.
//! Integer `Add`/`Sub`/`Mul`/`Inc`/`Dec` wrap in every build (as `core::sync::atomic`); float
//! `Min`/`Max` replace the element when the operand compares less / greater (so a NaN operand never
//! replaces it); `CompareExchange(expected, new)` compares bit patterns, as `rokkos_core::atomic`.
//!
//! Integer `Div` and `Mod` by zero fail the work item ([`Failure::DivByZero`],
//! [`Failure::RemByZero`], Rust's messages, as the plain `/` and `%`) without touching the
//! element; `MIN / -1` and `MIN % -1` of a signed type wrap (to `MIN` and 0, Rust's
//! `wrapping_div` / `wrapping_rem`), as every other atomic wraps. `Lshift` / `Rshift` mask the
//! amount (the operand, of the element type, read as unsigned) to the width, as Rust's
//! `wrapping_shl` / `wrapping_shr` and as the plain `<<` / `>>` without overflow checks (an
//! atomic never fails on overflow); `Rshift` of a signed type is arithmetic. `Nand` stores
//! `!(old & v)`. `IncMod(v)` stores `if old >= v { 0 } else { old + 1 }` and `DecMod(v)` stores
//! `if old == 0 || old > v { v } else { old - 1 }` (Kokkos' `atomic_inc_mod` / `atomic_dec_mod`,
//! unsigned integers only).

use crate::ops::Failure;
use crate::types::ScalarType;

/// What an atomic expression yields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AtomicResult {
    /// The element's value before the operation (`atomic_fetch_<op>`, Kokkos `atomic_fetch_<op>`).
    #[default]
    Old,
    /// The value the operation stored (`atomic_<op>_fetch`, Kokkos `atomic_<op>_fetch`); only
    /// for the read-modify-write operations ([`AtomicOp::has_new_value`]).
    New,
}

/// An atomic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AtomicOp {
    /// `*p += v` (wrapping for integers).
    Add,
    /// `*p -= v`.
    Sub,
    /// `*p = min(*p, v)`.
    Min,
    /// `*p = max(*p, v)`.
    Max,
    /// `*p &= v` (integers only).
    And,
    /// `*p |= v` (integers only).
    Or,
    /// `*p ^= v` (integers only).
    Xor,
    /// `*p = v`, yielding the old value.
    Exchange,
    /// `if *p == expected { *p = new }` (bitwise), yielding the old value. Arguments: `expected, new`.
    CompareExchange,
    /// Reads `*p`. No arguments.
    Load,
    /// `*p = v`. A statement only: it yields no value.
    Store,
    /// `*p *= v` (wrapping for integers).
    Mul,
    /// `*p /= v` (integers: truncating; a zero `v` fails, `MIN / -1` wraps).
    Div,
    /// `*p %= v` (integers only; a zero `v` fails, `MIN % -1` is 0).
    Mod,
    /// `*p = !(*p & v)` (integers only).
    Nand,
    /// `*p <<= v`, the amount masked to the width (integers only).
    Lshift,
    /// `*p >>= v`, the amount masked to the width (integers only).
    Rshift,
    /// `*p += 1` (wrapping for integers). No arguments.
    Inc,
    /// `*p -= 1` (wrapping for integers). No arguments.
    Dec,
    /// `*p = if *p >= v { 0 } else { *p + 1 }` (unsigned integers only).
    IncMod,
    /// `*p = if *p == 0 || *p > v { v } else { *p - 1 }` (unsigned integers only).
    DecMod,
}

impl AtomicOp {
    /// Every atomic operation, in declaration order.
    pub const ALL: [AtomicOp; 21] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
        AtomicOp::CompareExchange,
        AtomicOp::Load,
        AtomicOp::Store,
        AtomicOp::Mul,
        AtomicOp::Div,
        AtomicOp::Mod,
        AtomicOp::Nand,
        AtomicOp::Lshift,
        AtomicOp::Rshift,
        AtomicOp::Inc,
        AtomicOp::Dec,
        AtomicOp::IncMod,
        AtomicOp::DecMod,
    ];

    /// The name of the operation, as in `atomic_<name>` of the native accessors.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exchange => "exchange",
            AtomicOp::CompareExchange => "compare_exchange",
            AtomicOp::Load => "load",
            AtomicOp::Store => "store",
            AtomicOp::Mul => "mul",
            AtomicOp::Div => "div",
            AtomicOp::Mod => "mod",
            AtomicOp::Nand => "nand",
            AtomicOp::Lshift => "lshift",
            AtomicOp::Rshift => "rshift",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
            AtomicOp::IncMod => "inc_mod",
            AtomicOp::DecMod => "dec_mod",
        }
    }
    /// Number of value arguments after the index.
    pub fn arg_count(self) -> usize {
        match self {
            AtomicOp::Load | AtomicOp::Inc | AtomicOp::Dec => 0,
            AtomicOp::CompareExchange => 2,
            _ => 1,
        }
    }
    /// Whether the operation yields a value (all but `Store`).
    pub fn yields_value(self) -> bool {
        self != AtomicOp::Store
    }
    /// Whether the operation can yield the value it stored ([`AtomicResult::New`]): the
    /// read-modify-writes, all but `Exchange`, `CompareExchange`, `Load` and `Store`.
    pub fn has_new_value(self) -> bool {
        !matches!(
            self,
            AtomicOp::Exchange | AtomicOp::CompareExchange | AtomicOp::Load | AtomicOp::Store
        )
    }
    /// Whether elements of type `elem` support the operation: the bitwise ones, `Mod` and the
    /// shifts need an integer, `IncMod` / `DecMod` an unsigned one, the others any numeric type.
    pub fn supports(self, elem: ScalarType) -> bool {
        match self {
            AtomicOp::And
            | AtomicOp::Or
            | AtomicOp::Xor
            | AtomicOp::Nand
            | AtomicOp::Mod
            | AtomicOp::Lshift
            | AtomicOp::Rshift => elem.is_int(),
            AtomicOp::IncMod | AtomicOp::DecMod => elem.is_int() && !elem.is_signed_int(),
            _ => elem.is_numeric(),
        }
    }
    /// The failure of a zero operand on `elem` elements: integer `Div` and `Mod` (checked before
    /// the element is touched); `None` for every other operation.
    pub fn zero_operand_failure(self, elem: ScalarType) -> Option<Failure> {
        match self {
            AtomicOp::Div if elem.is_int() => Some(Failure::DivByZero),
            AtomicOp::Mod if elem.is_int() => Some(Failure::RemByZero),
            _ => None,
        }
    }
}
