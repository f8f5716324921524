//! Which Rust types the IR has: its scalars and the user's type parameters (bounded by
//! `rokkos::Float` or another bound that implies the builder's scalar traits).

use quote::ToTokens;
use std::collections::HashSet;
use syn::{GenericArgument, PathArguments, Type};

/// The Rust scalar types with an IR counterpart (`usize` / `isize` are `u64` / `i64` in the IR).
pub const IR_SCALARS: &[&str] = &[
    "bool", "i32", "u32", "u8", "u16", "i8", "i16", "i64", "u64", "f32", "f64", "usize", "isize",
];

/// The literal suffixes of IR scalar types.
pub const IR_SUFFIXES: &[&str] = &[
    "", "i32", "u32", "u8", "u16", "i8", "i16", "i64", "u64", "f32", "f64", "usize", "isize",
];

/// `ty` without invisible groups and parentheses.
pub fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip(&g.elem),
        Type::Paren(p) => strip(&p.elem),
        _ => ty,
    }
}

/// `ty` when it is an IR scalar or a type parameter; `None` otherwise.
pub fn scalar<'t>(ty: &'t Type, type_params: &HashSet<String>) -> Option<&'t Type> {
    let ty = strip(ty);
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?.to_string();
            (IR_SCALARS.contains(&id.as_str()) || type_params.contains(&id)).then_some(ty)
        }
        _ => None,
    }
}

/// `ty` when it can be a View element: a numeric IR scalar or a type parameter.
pub fn element<'t>(ty: &'t Type, type_params: &HashSet<String>) -> Option<&'t Type> {
    scalar(ty, type_params).filter(|t| t.to_token_stream().to_string() != "bool")
}

/// The shape of an accumulator type.
pub enum AccType<'t> {
    /// A scalar.
    Scalar(&'t Type),
    /// `ValLoc<T>`.
    ValLoc(&'t Type),
    /// `MinMaxVal<T>`.
    MinMax(&'t Type),
    /// `MinMaxLocVal<T>`.
    MinMaxLoc(&'t Type),
}

/// The shape of accumulator type `ty`, when the IR has it.
pub fn accumulator<'t>(ty: &'t Type, type_params: &HashSet<String>) -> Option<AccType<'t>> {
    if let Some(t) = scalar(ty, type_params) {
        return Some(AccType::Scalar(t));
    }
    let Type::Path(p) = strip(ty) else {
        return None;
    };
    let seg = p.path.segments.last()?;
    let PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    let Some(GenericArgument::Type(inner)) = a.args.first() else {
        return None;
    };
    let inner = element(inner, type_params)?;
    match seg.ident.to_string().as_str() {
        "ValLoc" => Some(AccType::ValLoc(inner)),
        "MinMaxVal" => Some(AccType::MinMax(inner)),
        "MinMaxLocVal" => Some(AccType::MinMaxLoc(inner)),
        _ => None,
    }
}

/// The message for a type the IR lacks.
pub fn unsupported_type(what: &str, ty: &Type) -> String {
    format!(
        "{what} has type `{}`; the IR's types are {} and the kernel's type parameters",
        ty.to_token_stream(),
        IR_SCALARS.join(", ")
    )
}
