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
    // `NAME::ir` exists only when the function passed the checks.
    let value = if errs.is_empty() {
        func_value_impl(&f)
    } else {
        quote!()
    };
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
        #value
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

/// `unsafe impl Func1<A> for NAME` (`Func2`, `Func3`): the function as a value a kernel's type
/// parameter can stand for (`rokkos::ir::build::Func1`), forwarding to the marker's `native` and
/// `ir`. Only for one to three IR scalar parameters and one IR scalar result, and generics that
/// the parameter types determine (a type parameter only in the result would be unconstrained);
/// nothing for the other functions, which kernels can still call by name.
fn func_value_impl(f: &syn::ItemFn) -> TokenStream {
    let generics = &f.sig.generics;
    let tps: HashSet<String> = generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    let mut tys = Vec::new();
    for input in &f.sig.inputs {
        let FnArg::Typed(t) = input else {
            return quote!();
        };
        match crate::ir::types::scalar(&t.ty, &tps) {
            Some(ty) => tys.push(ty.clone()),
            None => return quote!(),
        }
    }
    let ReturnType::Type(_, ret) = &f.sig.output else {
        return quote!();
    };
    let Some(ret) = crate::ir::types::scalar(ret, &tps) else {
        return quote!();
    };
    let trait_name = match tys.len() {
        1 => "Func1",
        2 => "Func2",
        3 => "Func3",
        _ => return quote!(),
    };
    let mut gen_args = Vec::new();
    let mut bounds = Vec::new();
    for g in &generics.params {
        match g {
            GenericParam::Type(t) => {
                let id = &t.ident;
                if !tys
                    .iter()
                    .any(|ty| matches!(ty, Type::Path(p) if p.path.is_ident(id)))
                {
                    return quote!();
                }
                gen_args.push(id.clone());
                bounds.push(quote!(#id: ::rokkos::ir::build::IrScalar));
            }
            GenericParam::Const(_) => return quote!(),
            GenericParam::Lifetime(_) => {}
        }
    }
    let turbofish = if gen_args.is_empty() {
        quote!()
    } else {
        quote!(::<#(#gen_args),*>)
    };
    let preds = generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter());
    let (impl_generics, _, _) = generics.split_for_impl();
    let marker = calls::marker_ident(&f.sig.ident);
    let tr = syn::Ident::new(trait_name, proc_macro2::Span::call_site());
    let names: Vec<syn::Ident> = (0..tys.len())
        .map(|k| quote::format_ident!("__rokkos_v{}", k, span = proc_macro2::Span::mixed_site()))
        .collect();
    let scope = syn::Ident::new("__rokkos_scope", proc_macro2::Span::mixed_site());
    let cfgs = f.attrs.iter().filter(|a| a.path().is_ident("cfg"));
    let irb = quote!(::rokkos::ir::build);
    quote! {
        #(#cfgs)*
        // SAFETY (of the trait's contract): both functions forward to this expansion's `native`
        // and `ir`, which are of the function above.
        #[allow(clippy::too_many_arguments)]
        unsafe impl #impl_generics #irb::#tr<#(#tys),*> for #marker
        where #(#preds,)* #(#bounds,)*
        {
            type Output = #ret;
            #[inline(always)]
            fn native(#(#names: #tys),*) -> #ret {
                #marker::native #turbofish (#(#names),*)
            }
            #[inline]
            fn ir(#scope: &mut impl #irb::FuncScope, #(#names: #irb::Expr<#tys>),*) -> #irb::Expr<#ret> {
                #marker::ir #turbofish (#scope, #(#names),*)
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

#[cfg(test)]
mod tests {
    use super::func_value_impl;

    fn value_trait(f: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(f).unwrap();
        func_value_impl(&f).to_string()
    }

    #[test]
    fn values_for_scalar_signatures_of_one_to_three_parameters() {
        assert!(value_trait("fn f(x: i64) -> bool { x > 0 }").contains("Func1 < i64 >"));
        assert!(value_trait("fn f(x: f64, y: u32) -> f64 { x }").contains("Func2 < f64 , u32 >"));
        assert!(value_trait("fn f<T: Float>(x: T, y: T, z: T) -> T { x }")
            .contains("Func3 < T , T , T >"));
        for none in [
            "fn f() -> f64 { 1.0 }",
            "fn f(x: f64) { }",
            "fn f(a: f64, b: f64, c: f64, d: f64) -> f64 { a }",
            "fn f(x: [f64; 3]) -> f64 { x[0] }",
            "fn f(x: f64) -> (f64, f64) { (x, x) }",
            "fn f(x: i128) -> i128 { x }",
            "fn f<T: Float>(x: f64) -> T { T::from_f64(x) }",
            "fn f<const N: usize>(x: f64) -> f64 { x }",
        ] {
            assert_eq!(value_trait(none), "", "{none}");
        }
    }
}
