//! The scalar types of the kernel subset (`usize` and `isize` included, which the IR maps to `u64`
//! and `i64`) and typed constants rendered as Rust source.

use std::fmt;

/// A scalar type a kernel can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ty {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `usize` (`u64` in the IR).
    Usize,
    /// `isize` (`i64` in the IR).
    Isize,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Ty {
    /// Every type.
    pub const ALL: [Ty; 9] = [
        Ty::Bool,
        Ty::I32,
        Ty::U32,
        Ty::I64,
        Ty::U64,
        Ty::Usize,
        Ty::Isize,
        Ty::F32,
        Ty::F64,
    ];
    /// The integer types.
    pub const INTS: [Ty; 6] = [Ty::I32, Ty::U32, Ty::I64, Ty::U64, Ty::Usize, Ty::Isize];
    /// The types a View may hold (the element types every backend runs).
    pub const ELEMS: [Ty; 6] = [Ty::I32, Ty::U32, Ty::I64, Ty::U64, Ty::F32, Ty::F64];
    /// The numeric types.
    pub const NUMS: [Ty; 8] = [
        Ty::I32,
        Ty::U32,
        Ty::I64,
        Ty::U64,
        Ty::Usize,
        Ty::Isize,
        Ty::F32,
        Ty::F64,
    ];

    /// The Rust spelling.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::I64 => "i64",
            Ty::U64 => "u64",
            Ty::Usize => "usize",
            Ty::Isize => "isize",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
    /// An integer type.
    pub fn is_int(self) -> bool {
        !matches!(self, Ty::Bool | Ty::F32 | Ty::F64)
    }
    /// A signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64 | Ty::Isize)
    }
    /// A float type.
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    /// Signed integer or float: `-x`, `abs`, `signum`.
    pub fn is_signed(self) -> bool {
        self.is_signed_int() || self.is_float()
    }
    /// Not `bool`.
    pub fn is_numeric(self) -> bool {
        self != Ty::Bool
    }
    /// Width in bits (`bool`: 1).
    pub fn bits(self) -> u32 {
        match self {
            Ty::Bool => 1,
            Ty::I32 | Ty::U32 | Ty::F32 => 32,
            _ => 64,
        }
    }
    /// The element type a View of this scalar is stored as (`usize` → `u64`, `isize` → `i64`;
    /// `bool` → `i32`), for values observed through output Views.
    pub fn stored(self) -> Ty {
        match self {
            Ty::Usize => Ty::U64,
            Ty::Isize => Ty::I64,
            Ty::Bool => Ty::I32,
            t => t,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A constant: its type and its bit pattern (integers sign- or zero-extended to 64 bits as the
/// type's `as u64`; floats their IEEE bits; `bool` 0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lit {
    /// The type.
    pub ty: Ty,
    /// The bits.
    pub bits: u64,
}

impl Lit {
    /// A `bool`.
    pub fn bool(b: bool) -> Lit {
        Lit {
            ty: Ty::Bool,
            bits: b as u64,
        }
    }
    /// An integer of type `ty` from a signed value (wrapped to the type).
    pub fn int(ty: Ty, v: i128) -> Lit {
        let bits = match ty {
            Ty::I32 => v as i32 as i64 as u64,
            Ty::U32 => v as u32 as u64,
            Ty::Bool => (v != 0) as u64,
            _ => v as i64 as u64,
        };
        Lit { ty, bits }
    }
    /// A float of type `ty` from an `f64` (rounded to `f32` for `f32`).
    pub fn float(ty: Ty, v: f64) -> Lit {
        let bits = if ty == Ty::F32 {
            (v as f32).to_bits() as u64
        } else {
            v.to_bits()
        };
        Lit { ty, bits }
    }
    /// Zero of `ty` (`false`, `0`, `0.0`).
    pub fn zero(ty: Ty) -> Lit {
        Lit { ty, bits: 0 }
    }
    /// One of `ty` (`true`, `1`, `1.0`).
    pub fn one(ty: Ty) -> Lit {
        match ty {
            Ty::F32 | Ty::F64 => Lit::float(ty, 1.0),
            _ => Lit { ty, bits: 1 },
        }
    }
    /// The value as a signed integer (integers and `bool` only).
    pub fn as_i128(self) -> i128 {
        match self.ty {
            Ty::I32 => self.bits as i32 as i128,
            Ty::I64 | Ty::Isize => self.bits as i64 as i128,
            _ => self.bits as i128,
        }
    }
    /// The value as an `f64` (exact for every type but 64-bit integers).
    pub fn as_f64(self) -> f64 {
        match self.ty {
            Ty::F32 => f32::from_bits(self.bits as u32) as f64,
            Ty::F64 => f64::from_bits(self.bits),
            _ => self.as_i128() as f64,
        }
    }
    /// Whether this is zero (either sign for floats).
    pub fn is_zero(self) -> bool {
        if self.ty.is_float() {
            self.as_f64() == 0.0
        } else {
            self.bits == 0
        }
    }

    /// Rust source for the constant, typed by suffix or path (`3u32`, `(-2.5f64)`, `i64::MIN`,
    /// `f32::NAN`), parenthesised where a leading minus would bind wrongly.
    pub fn render(self) -> String {
        let t = self.ty.name();
        match self.ty {
            Ty::Bool => (self.bits != 0).to_string(),
            Ty::F32 | Ty::F64 => {
                let v = self.as_f64();
                if v.is_nan() {
                    format!("{t}::NAN")
                } else if v == f64::INFINITY {
                    format!("{t}::INFINITY")
                } else if v == f64::NEG_INFINITY {
                    format!("{t}::NEG_INFINITY")
                } else {
                    let text = if self.ty == Ty::F32 {
                        format!("{:?}", v as f32)
                    } else {
                        format!("{v:?}")
                    };
                    match text.strip_prefix('-') {
                        Some(pos) => format!("(-{pos}{t})"),
                        None => format!("{text}{t}"),
                    }
                }
            }
            _ => {
                let v = self.as_i128();
                let (min, max) = int_range(self.ty);
                if v == min && min != 0 {
                    format!("{t}::MIN")
                } else if v == max {
                    format!("{t}::MAX")
                } else if v < 0 {
                    format!("(-{}{t})", -v)
                } else {
                    format!("{v}{t}")
                }
            }
        }
    }
}

/// The smallest and largest value of an integer type.
pub fn int_range(ty: Ty) -> (i128, i128) {
    match ty {
        Ty::I32 => (i32::MIN as i128, i32::MAX as i128),
        Ty::U32 => (0, u32::MAX as i128),
        Ty::I64 | Ty::Isize => (i64::MIN as i128, i64::MAX as i128),
        Ty::U64 | Ty::Usize => (0, u64::MAX as i128),
        Ty::Bool => (0, 1),
        Ty::F32 | Ty::F64 => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::{Lit, Ty};

    #[test]
    fn literals_render_as_typed_rust() {
        assert_eq!(Lit::int(Ty::I32, -5).render(), "(-5i32)");
        assert_eq!(Lit::int(Ty::I32, i32::MIN as i128).render(), "i32::MIN");
        assert_eq!(Lit::int(Ty::U64, -1).render(), "u64::MAX");
        assert_eq!(Lit::int(Ty::Usize, 7).render(), "7usize");
        assert_eq!(Lit::float(Ty::F64, -0.0).render(), "(-0.0f64)");
        assert_eq!(Lit::float(Ty::F32, f64::NAN).render(), "f32::NAN");
        assert_eq!(Lit::float(Ty::F64, 5e-324).render(), "5e-324f64");
        assert_eq!(Lit::float(Ty::F32, 0.1).render(), "0.1f32");
        assert_eq!(Lit::bool(true).render(), "true");
    }
}
