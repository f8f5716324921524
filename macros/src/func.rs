//! `#[rokkos::func]`: functions callable from kernels.
//!
//! The function is kept (marked `#[inline(always)]`) after checking that its signature is scalar (scalars
//! and arrays of at most 16 scalars in and out) and its
//! body stays in the kernel subset. Beside it, the hidden name `mark_NAME_with_rokkos_func` is both
//! the function that records it into a kernel's IR (which kernels call, so calling a function without
//! `#[func]` is one error naming it) and a marker type.

use crate::native::generate::{marker_checks, marker_ident};
use crate::parse::env::BodyEnv;
use crate::parse::{subset, Errors};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, GenericParam, Pat, ReturnType, Type};

/// Entry point of `#[func]`.
pub fn expand_func(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new_spanned(attr, "#[func] takes no options").into_compile_error();
    }
    let raw_idents = crate::parse::raw_ident::check(&item, "`#[func]` functions");
    let mut f: syn::ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                "#[func] applies to functions: `#[func] fn sq(x: f64) -> f64 { x * x }`",
            )
            .into_compile_error()
        }
    };
    let mut errs = Errors::default();
    if let Err(e) = raw_idents {
        errs.push(e);
    }
    check_signature(&f.sig, &mut errs);
    let type_params = f
        .sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    let env = BodyEnv::for_func(type_params);
    let calls = match subset::check_block(&env, &f.block) {
        Ok(info) => info.func_calls,
        Err(e) => {
            errs.push(e);
            Vec::new()
        }
    };
    let ir_items = if errs.is_empty() {
        crate::ir::generate::func_items(&f)
    } else {
        quote!()
    };
    // A function with a result is translated into the IR, whose calls reach the callees' marker
    // functions; one without is not, and checks its callees through their marker types.
    let unit = matches!(f.sig.output, ReturnType::Default);
    let checks = if unit {
        marker_checks(&calls)
    } else {
        quote!()
    };
    if !checks.is_empty() {
        let stmts: syn::Block = syn::parse_quote!({ #checks });
        let mut all = stmts.stmts;
        all.append(&mut f.block.stmts);
        f.block.stmts = all;
    }
    let vis = &f.vis;
    let marker = marker_ident(&f.sig.ident);
    let cfgs: Vec<_> = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect();
    let errors = match errs.finish() {
        Ok(()) => quote!(),
        Err(e) => e.into_compile_error(),
    };
    quote! {
        #errors
        #[inline(always)]
        #f
        #[doc(hidden)]
        #(#cfgs)*
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #marker {}
        #ir_items
    }
}

fn check_signature(sig: &syn::Signature, errs: &mut Errors) {
    if let Some(a) = &sig.asyncness {
        errs.spanned(a, "#[func] functions cannot be `async`");
    }
    if let Some(u) = &sig.unsafety {
        errs.spanned(u, "#[func] functions cannot be `unsafe`");
    }
    if let Some(a) = &sig.abi {
        errs.spanned(a, "#[func] functions cannot declare an ABI");
    }
    if let Some(v) = &sig.variadic {
        errs.spanned(v, "#[func] functions cannot be variadic");
    }
    for g in &sig.generics.params {
        if let GenericParam::Lifetime(l) = g {
            errs.spanned(l, "#[func] functions cannot have lifetime parameters");
        }
    }
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                errs.spanned(r, "#[func] functions are free functions: remove `self`")
            }
            FnArg::Typed(t) => {
                match &*t.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {}
                    p => errs.spanned(p, "#[func] parameters are plain names: `x: f64`"),
                }
                if !matches!(&*t.ty, Type::Path(p) if p.qself.is_none())
                    && array_param(&t.ty).is_none()
                {
                    errs.spanned(
                        &t.ty,
                        "#[func] parameters are scalars passed by value (`f64`, `i32`, `T`, ...) or arrays of them with a literal length (`[f64; 3]`, at most 16)",
                    );
                }
            }
        }
    }
    if let ReturnType::Type(_, t) = &sig.output {
        if !matches!(&**t, Type::Path(p) if p.qself.is_none()) && components(t).is_none() {
            errs.spanned(
                t,
                "#[func] functions return a scalar (`f64`, `i32`, `T`, ...), a tuple of scalars (`(f64, i32)`), an array of scalars with a literal length (`[f64; 3]`, at most 16), or nothing",
            );
        }
    }
}

/// The component types of a result of several values: a tuple of two or more scalar types, or
/// an array of a scalar type with an integer literal length from 1 to 16. `None` otherwise.
pub(crate) fn components(t: &Type) -> Option<Vec<Type>> {
    let scalar = |t: &Type| matches!(t, Type::Path(p) if p.qself.is_none());
    match t {
        Type::Paren(p) => components(&p.elem),
        Type::Tuple(tt) if tt.elems.len() >= 2 && tt.elems.iter().all(scalar) => {
            Some(tt.elems.iter().cloned().collect())
        }
        Type::Array(_) => array_param(t).map(|(elem, n)| vec![elem; n]),
        _ => None,
    }
}

/// The element type and length of an array of a scalar type with an integer literal length from
/// 1 to 16 (a `#[func]` parameter or result `[f64; 3]`, which the IR passes as that many scalars).
/// `None` for any other type.
pub(crate) fn array_param(t: &Type) -> Option<(Type, usize)> {
    let Type::Array(a) = t else { return None };
    if !matches!(&*a.elem, Type::Path(p) if p.qself.is_none()) {
        return None;
    }
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(n),
        ..
    }) = &a.len
    else {
        return None;
    };
    let n: usize = n.base10_parse().ok()?;
    (1..=16).contains(&n).then(|| ((*a.elem).clone(), n))
}
