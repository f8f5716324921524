//! Atomic read-modify-write operations on one View (or scratch) element.
//!
//! Every atomic is one indivisible access to the element; as an expression it yields the element's
//! value before the operation (`Load` yields the value read). Integer `Add`/`Sub` wrap; float
//! `Min`/`Max` replace the element when the operand compares less / greater (so a NaN operand never
//! replaces it); `CompareExchange(expected, new)` compares bit patterns, as `rokkos_core::atomic`.

use crate::types::ScalarType;

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
}

impl AtomicOp {
    /// Every atomic operation, in declaration order.
    pub const ALL: [AtomicOp; 11] = [
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
        }
    }
    /// Number of value arguments after the index.
    pub fn arg_count(self) -> usize {
        match self {
            AtomicOp::Load => 0,
            AtomicOp::CompareExchange => 2,
            _ => 1,
        }
    }
    /// Whether the operation yields a value (all but `Store`).
    pub fn yields_value(self) -> bool {
        self != AtomicOp::Store
    }
    /// Whether elements of type `elem` support the operation: the bitwise ones need an integer,
    /// the others any numeric type.
    pub fn supports(self, elem: ScalarType) -> bool {
        match self {
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => elem.is_int(),
            _ => elem.is_numeric(),
        }
    }
}
