//! The Rust types an [`super::Expr`] can have, and the literals that adopt an operand's type.

use crate::types::{ScalarType, Value};

mod sealed {
    pub trait Sealed {}
}

/// A Rust scalar type with an IR counterpart: `bool`, `i32`, `u32`, `u8`, `u16`, `i64`, `u64`, `f32`,
/// `f64`, and
/// `usize` / `isize` (which are `u64` / `i64` in the IR). Sealed.
pub trait IrScalar: sealed::Sealed + Copy + 'static {
    /// The IR type.
    const TYPE: ScalarType;
    /// This value as an IR constant.
    fn to_value(self) -> Value;
}
/// Numeric scalars (all but `bool`): arithmetic, `min`, `max`, `clamp`.
pub trait IrNum: IrScalar {}
/// Integer scalars: shifts.
pub trait IrInt: IrNum {}
/// Floating-point scalars: the float math methods.
pub trait IrFloat: IrNum {}
/// Scalars with a sign (signed integers and floats): `-x`, `abs`, `signum`.
pub trait IrSigned: IrNum {}
/// Scalars with bitwise `& | ^ !` (integers and `bool`).
pub trait IrBits: IrScalar {}

macro_rules! scalar {
    ($t:ty, $ty:ident, $v:ident, $conv:ty, [$($tr:ident),*]) => {
        impl sealed::Sealed for $t {}
        impl IrScalar for $t {
            const TYPE: ScalarType = ScalarType::$ty;
            fn to_value(self) -> Value {
                Value::$v(self as $conv)
            }
        }
        $(impl $tr for $t {})*
    };
}
scalar!(bool, Bool, Bool, bool, [IrBits]);
scalar!(i32, I32, I32, i32, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(u32, U32, U32, u32, [IrNum, IrInt, IrBits]);
scalar!(u8, U8, U8, u8, [IrNum, IrInt, IrBits]);
scalar!(u16, U16, U16, u16, [IrNum, IrInt, IrBits]);
scalar!(i64, I64, I64, i64, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(u64, U64, U64, u64, [IrNum, IrInt, IrBits]);
scalar!(isize, I64, I64, i64, [IrNum, IrInt, IrSigned, IrBits]);
scalar!(usize, U64, U64, u64, [IrNum, IrInt, IrBits]);
scalar!(f32, F32, F32, f32, [IrNum, IrFloat, IrSigned]);
scalar!(f64, F64, F64, f64, [IrNum, IrFloat, IrSigned]);
