//! `#[rokkos::func]`: functions callable from kernels.
//!
//! The function is kept (marked `#[inline(always)]`) after checking that its signature is scalar (scalars
//! and arrays of at most 16 scalars in and out) and its
//! body stays in the kernel subset. Beside it, a hidden braced struct of the same name holds what
//! kernels call, `NAME::native` (the function) and `NAME::ir` (its IR recorder), see
//! [`crate::native::calls`].

use crate::native::calls;
use crate::parse::env::BodyEnv;
use crate::parse::{subset, Errors};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashSet;
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
    let hygiene = crate::parse::hygiene::probe(&f, "#[func]");
    let mut errs = Errors::default();
    if let Err(e) = raw_idents {
        errs.push(e);
    }
    check_signature(&f.sig, &mut errs);
    let type_params: HashSet<String> = f
        .sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    let env = BodyEnv::for_func(type_params.clone());
    if let Err(e) = subset::check_block(&env, &f.block) {
        errs.push(e);
    }
    let ir_items = if errs.is_empty() {
        crate::ir::generate::func_items(&f)
    } else {
        quote!()
    };
    // The native body calls other `#[func]`s through their markers, as the IR does (see
    // `crate::native::calls`); that also checks that each callee is a `#[func]`.
    calls::rewrite_func_body(&mut f.block, &type_params);
    let vis = &f.vis;
    let marker = calls::marker_ident(&f.sig.ident);
    let native = native_forwarder(&f);
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
        // SAFETY (of the trait's contract): `native` and `ir` are this expansion's, both of the
        // function above.
        #(#cfgs)*
        unsafe impl ::rokkos::__private::FuncMarker for #marker {}
        #native
        #ir_items
        #hygiene
    }
}

/// `impl NAME { fn native(..) -> R { NAME(..) } }` (on the marker type): the function as
/// kernels and other `#[func]`s call it (see [`crate::native::calls`]).
fn native_forwarder(f: &syn::ItemFn) -> TokenStream {
    let name = &f.sig.ident;
    let marker = calls::marker_ident(name);
    let vis = &f.vis;
    let cfgs = f.attrs.iter().filter(|a| a.path().is_ident("cfg"));
    let (impl_generics, _, _) = f.sig.generics.split_for_impl();
    // Kernels reach `native` only through markers `#[func]` made (see `crate::native::calls`).
    let preds = f
        .sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter());
    let where_clause = quote!(where #(#preds,)* Self: ::rokkos::__private::FuncMarker);
    let gen_args: Vec<&syn::Ident> = f
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some(&t.ident),
            GenericParam::Const(c) => Some(&c.ident),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let turbofish = if gen_args.is_empty() {
        quote!()
    } else {
        quote!(::<#(#gen_args),*>)
    };
    let mut names = Vec::new();
    let mut tys = Vec::new();
    for input in &f.sig.inputs {
        if let FnArg::Typed(t) = input {
            if let Pat::Ident(p) = &*t.pat {
                names.push(p.ident.clone());
                tys.push((*t.ty).clone());
            }
        }
    }
    let output = &f.sig.output;
    quote! {
        #(#cfgs)*
        impl #marker {
            #[doc(hidden)]
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            #vis fn native #impl_generics (#(#names: #tys),*) #output #where_clause {
                #name #turbofish (#(#names),*)
            }
        }
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
                if !matches!(crate::ir::types::strip(&t.ty), Type::Path(p) if p.qself.is_none())
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
        if !matches!(crate::ir::types::strip(t), Type::Path(p) if p.qself.is_none())
            && components(t).is_none()
        {
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
    let scalar =
        |t: &Type| matches!(crate::ir::types::strip(t), Type::Path(p) if p.qself.is_none());
    match t {
        Type::Paren(p) => components(&p.elem),
        Type::Group(g) => components(&g.elem),
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
    let Type::Array(a) = crate::ir::types::strip(t) else {
        return None;
    };
    if !matches!(crate::ir::types::strip(&a.elem), Type::Path(p) if p.qself.is_none()) {
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
