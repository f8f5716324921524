//! Scalar types and constant values of the kernel IR.
//!
//! Rust's `usize` is [`ScalarType::U64`] and `isize` is [`ScalarType::I64`] in the IR, whatever the host:
//! indices and extents are 64-bit in the IR, and an emitter may narrow them where the target lacks 64-bit
//! integers and the launch proves the values fit.

use std::fmt;

/// The type of every IR expression, local, scalar parameter and View element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScalarType {
    /// `bool` (not allowed as a View element).
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64` (and Rust `isize`).
    I64,
    /// `u64` (and Rust `usize`).
    U64,
    /// `f32`, IEEE 754 binary32.
    F32,
    /// `f64`, IEEE 754 binary64.
    F64,
    // The narrow types come last so that the IR hashes of kernels that do not use them (a type's
    // hash is its position) did not change when they were added.
    /// `u8`. Device backends without 8-bit storage pack four into a 32-bit word.
    U8,
    /// `u16`. Device backends without 16-bit storage pack two into a 32-bit word.
    U16,
    /// `i8`, stored as `u8` is (four to a 32-bit word where a backend packs).
    I8,
    /// `i16`, stored as `u16` is (two to a 32-bit word where a backend packs).
    I16,
}

impl ScalarType {
    /// Every scalar type, in declaration order.
    pub const ALL: [ScalarType; 11] = [
        ScalarType::Bool,
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::I64,
        ScalarType::U64,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::I8,
        ScalarType::I16,
    ];

    /// The Rust spelling (`"f64"`, `"u32"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I64 => "i64",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }
    /// An integer type (signed or not).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            ScalarType::I32
                | ScalarType::U32
                | ScalarType::U8
                | ScalarType::U16
                | ScalarType::I8
                | ScalarType::I16
                | ScalarType::I64
                | ScalarType::U64
        )
    }
    /// A signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        )
    }
    /// An integer type narrower than 32 bits (`u8`, `u16`, `i8`, `i16`): what device backends
    /// without 8- and 16-bit storage pack into 32-bit words.
    pub fn is_narrow_int(self) -> bool {
        matches!(
            self,
            ScalarType::U8 | ScalarType::U16 | ScalarType::I8 | ScalarType::I16
        )
    }
    /// A floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }
    /// A numeric type: integer or float (every type but `bool`). View elements are numeric.
    pub fn is_numeric(self) -> bool {
        self != ScalarType::Bool
    }
    /// A type with a sign: signed integers and floats (what `-x`, `abs` and `signum` accept).
    pub fn is_signed(self) -> bool {
        self.is_signed_int() || self.is_float()
    }
    /// Width in bits (`bool` counts as 8, its size in memory).
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Bool | ScalarType::U8 | ScalarType::I8 => 8,
            ScalarType::U16 | ScalarType::I16 => 16,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        }
    }
    /// Size in bytes.
    pub fn size(self) -> usize {
        self.bits() as usize / 8
    }
    /// Whether `value as Self`-style casts from `from` are legal Rust `as` casts: between any two
    /// numeric types, from `bool` to an integer, and to the same type.
    pub fn can_cast_from(self, from: ScalarType) -> bool {
        from == self
            || (from.is_numeric() && self.is_numeric())
            || (from == ScalarType::Bool && self.is_int())
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A constant of one scalar type: IR literals, evaluator values and host arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// An `i32`.
    I32(i32),
    /// A `u32`.
    U32(u32),
    /// A `u8`.
    U8(u8),
    /// A `u16`.
    U16(u16),
    /// An `i8`.
    I8(i8),
    /// An `i16`.
    I16(i16),
    /// An `i64`.
    I64(i64),
    /// A `u64`.
    U64(u64),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
}

impl Value {
    /// The value's type.
    pub fn ty(self) -> ScalarType {
        match self {
            Value::Bool(_) => ScalarType::Bool,
            Value::I32(_) => ScalarType::I32,
            Value::U32(_) => ScalarType::U32,
            Value::U8(_) => ScalarType::U8,
            Value::U16(_) => ScalarType::U16,
            Value::I8(_) => ScalarType::I8,
            Value::I16(_) => ScalarType::I16,
            Value::I64(_) => ScalarType::I64,
            Value::U64(_) => ScalarType::U64,
            Value::F32(_) => ScalarType::F32,
            Value::F64(_) => ScalarType::F64,
        }
    }
    /// The all-zero value of `ty` (`false`, `0`, `0.0`).
    pub fn zero(ty: ScalarType) -> Value {
        match ty {
            ScalarType::Bool => Value::Bool(false),
            ScalarType::I32 => Value::I32(0),
            ScalarType::U32 => Value::U32(0),
            ScalarType::U8 => Value::U8(0),
            ScalarType::U16 => Value::U16(0),
            ScalarType::I8 => Value::I8(0),
            ScalarType::I16 => Value::I16(0),
            ScalarType::I64 => Value::I64(0),
            ScalarType::U64 => Value::U64(0),
            ScalarType::F32 => Value::F32(0.0),
            ScalarType::F64 => Value::F64(0.0),
        }
    }
    /// The value's bit pattern, zero-extended to 64 bits (`bool`: 0 or 1). Equal values of one type
    /// have equal bits; floats compare by bits, so `-0.0` and `0.0` differ and a NaN equals itself.
    pub fn to_bits(self) -> u64 {
        match self {
            Value::Bool(b) => b as u64,
            Value::I32(v) => v as u32 as u64,
            Value::U32(v) => v as u64,
            Value::U8(v) => v as u64,
            Value::U16(v) => v as u64,
            Value::I8(v) => v as u8 as u64,
            Value::I16(v) => v as u16 as u64,
            Value::I64(v) => v as u64,
            Value::U64(v) => v,
            Value::F32(v) => v.to_bits() as u64,
            Value::F64(v) => v.to_bits(),
        }
    }
    /// The value of type `ty` with bit pattern `bits` (the inverse of [`Value::to_bits`]).
    pub fn from_bits(ty: ScalarType, bits: u64) -> Value {
        match ty {
            ScalarType::Bool => Value::Bool(bits != 0),
            ScalarType::I32 => Value::I32(bits as u32 as i32),
            ScalarType::U32 => Value::U32(bits as u32),
            ScalarType::U8 => Value::U8(bits as u8),
            ScalarType::U16 => Value::U16(bits as u16),
            ScalarType::I8 => Value::I8(bits as u8 as i8),
            ScalarType::I16 => Value::I16(bits as u16 as i16),
            ScalarType::I64 => Value::I64(bits as i64),
            ScalarType::U64 => Value::U64(bits),
            ScalarType::F32 => Value::F32(f32::from_bits(bits as u32)),
            ScalarType::F64 => Value::F64(f64::from_bits(bits)),
        }
    }
}

/// Prints the value as a suffixed Rust literal (`1.5f64`, `3u32`, `true`); floats use the shortest
/// representation that reads back to the same bits (`NaN`, `inf` and `-inf` for the special values).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::I32(v) => write!(f, "{v}i32"),
            Value::U32(v) => write!(f, "{v}u32"),
            Value::U8(v) => write!(f, "{v}u8"),
            Value::U16(v) => write!(f, "{v}u16"),
            Value::I8(v) => write!(f, "{v}i8"),
            Value::I16(v) => write!(f, "{v}i16"),
            Value::I64(v) => write!(f, "{v}i64"),
            Value::U64(v) => write!(f, "{v}u64"),
            Value::F32(v) => write!(f, "{v:?}f32"),
            Value::F64(v) => write!(f, "{v:?}f64"),
        }
    }
}
