//! Calls of `#[rokkos::func]` functions, bound to one definition on every path.
//!
//! `#[func] fn foo` defines, beside the function `foo`, a hidden marker type of the same name
//! (`struct foo {}`: the type namespace, which a braced struct has to itself) with two associated
//! functions: `native`, which calls the function, and `ir`, which records it into a kernel's IR.
//! A call `a::foo::<T>(x)` in a kernel or `#[func]` body becomes `a::foo::native::<T>(x)` in the
//! native code and `a::foo::ir::<T>(..)` in the IR builder. Both go through the one type path
//! `a::foo`, so the host and the devices run the same function whatever the imports; and since
//! the marker has the function's name, `use b::foo` brings the marker of `b`'s `foo` along. (With
//! the IR reached through a name of its own, `mark_foo_with_rokkos_func`, a glob import of one
//! module and an explicit import of another's `foo` ran one `foo` on the host and recorded the
//! other for the devices.) The marker implements the `unsafe` trait `FuncMarker` (written by
//! `#[func]`'s expansion), which both paths require, so a marker written by hand, whose `native`
//! and `ir` could disagree, needs `unsafe` code (`native` and `ir` require it of `Self`).
//!
//! A call of a function without `#[func]` therefore fails with "expected type, found function
//! `foo`" at the call.

use crate::parse::SCALAR_TYPES;
use proc_macro2::Span;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Expr;

/// The hidden marker type `#[func] fn f` defines beside `f`: `f` itself, in the type namespace.
pub fn marker_ident(f: &proc_macro2::Ident) -> proc_macro2::Ident {
    f.clone()
}

/// The marker type's path for a called function: `a::b::foo::<T>` → `a::b::foo`.
pub fn marker_path(p: &syn::Path) -> syn::Path {
    let mut m = p.clone();
    if let Some(last) = m.segments.last_mut() {
        last.ident = marker_ident(&last.ident);
        last.arguments = syn::PathArguments::None;
    }
    m
}

/// The path of the marker's associated function `item` (`native` or `ir`) for a called
/// function, with the call's generic arguments moved onto it: `a::foo::<T>` →
/// `a::foo::native::<T>`.
pub fn item_path(p: &syn::Path, item: &str) -> syn::Path {
    let mut m = marker_path(p);
    let args = p
        .segments
        .last()
        .map(|s| s.arguments.clone())
        .unwrap_or(syn::PathArguments::None);
    m.segments.push(syn::PathSegment {
        ident: syn::Ident::new(item, Span::call_site()),
        arguments: args,
    });
    m
}

/// The kernel type parameter `c` calls, when it calls one (`pred(x)`: a `#[func]` passed as a
/// value, see "`#[func]`s as values" on `#[kernel]`), with or without generic arguments.
pub fn called_type_param<'c>(
    c: &'c syn::ExprCall,
    type_params: &HashSet<String>,
) -> Option<&'c syn::Ident> {
    let Expr::Path(p) = strip(&c.func) else {
        return None;
    };
    let seg = p.path.segments.first()?;
    (p.qself.is_none()
        && p.path.leading_colon.is_none()
        && p.path.segments.len() == 1
        && type_params.contains(&seg.ident.to_string()))
    .then_some(&seg.ident)
}

/// What a call `c` of a `#[func]` reaches for `item` (`native` or `ir`): the marker's associated
/// function ([`item_path`]), or, for a type parameter `pred(x, ..)`, the function of its
/// `Func1`..`Func3` bound by the argument count, fully qualified
/// (`<pred as ::rokkos::ir::build::Func1<_>>::native`). Through the `unsafe` trait only: a bound
/// of the user's own trait with a `native` and an `ir` (safe to implement, and free to disagree)
/// would otherwise answer `pred::native` on the host and `pred::ir` for the devices.
pub fn call_target(
    c: &syn::ExprCall,
    path: &syn::Path,
    type_params: &HashSet<String>,
    item: &str,
) -> proc_macro2::TokenStream {
    let span = c.func.span();
    match called_type_param(c, type_params) {
        Some(tp) => {
            let tr = match c.args.len() {
                0 | 1 => "Func1",
                2 => "Func2",
                _ => "Func3",
            };
            let tr = syn::Ident::new(tr, span);
            let holes = (0..c.args.len().clamp(1, 3)).map(|_| quote::quote_spanned!(span=> _));
            let item = syn::Ident::new(item, span);
            // Generic arguments on the parameter (`pred::<T>(x)`) stay, for rustc to refuse.
            let args = &path.segments[0].arguments;
            quote::quote_spanned!(span=> <#tp as ::rokkos::ir::build::#tr<#(#holes),*>>::#item #args)
        }
        None => {
            // The marker's own `native` and `ir` require `FuncMarker` of it, but a type of the
            // user's with inherent `native` and `ir` functions would answer both calls without
            // it: the IR side requires the `unsafe` trait at the call (once per call is enough:
            // the native side calls the same path).
            let f = item_path(path, item);
            if item == "ir" {
                let marker = marker_path(path);
                quote::quote_spanned!(span=> ({ ::rokkos::__private::func_marker::<#marker>(); #f }))
            } else {
                quote::ToTokens::to_token_stream(&f)
            }
        }
    }
}

/// The called path when `c` calls a `#[func]`: a path that is not an associated function of a
/// scalar type or of a type parameter (`f64::max`, `T::from_f64`), the only other calls kernel
/// bodies may make (the accepted-subset check refuses the rest).
pub fn func_call<'c>(c: &'c syn::ExprCall, type_params: &HashSet<String>) -> Option<&'c syn::Path> {
    let Expr::Path(p) = strip(&c.func) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    if p.path.segments.len() >= 2 {
        let first = p.path.segments[0].ident.to_string();
        if SCALAR_TYPES.contains(&first.as_str()) || type_params.contains(&first) {
            return None;
        }
    }
    Some(&p.path)
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// Replaces `c`'s function by its marker's `native` when `c` calls a `#[func]`, and says
/// whether it did; the arguments are left to the caller's visit.
pub fn rewrite_call(c: &mut syn::ExprCall, type_params: &HashSet<String>) -> bool {
    let Some(path) = func_call(c, type_params) else {
        return false;
    };
    let native = call_target(c, path, type_params, "native");
    let span = c.func.span();
    *c.func = syn::parse_quote_spanned!(span=> #native);
    true
}

/// Rewrites every `#[func]` call in a `#[func]` body (kernel bodies are rewritten by
/// `super::rewrite`, which calls [`rewrite_call`]).
pub fn rewrite_func_body(body: &mut syn::Block, type_params: &HashSet<String>) {
    struct Calls<'a>(&'a HashSet<String>);
    impl VisitMut for Calls<'_> {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            if rewrite_call(c, self.0) {
                c.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
            } else {
                syn::visit_mut::visit_expr_call_mut(self, c);
            }
        }
    }
    Calls(type_params).visit_block_mut(body);
    super::math::route_block(body, type_params);
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn calls_go_through_the_marker_type() {
        let tps: HashSet<String> = ["T".to_string()].into();
        let mut b: syn::Block = syn::parse_quote!({
            let a = sq(x) + util::cube::<T>(y) + f64::max(x, y) + T::from_f64(x);
        });
        rewrite_func_body(&mut b, &tps);
        let s = b.to_token_stream().to_string();
        assert!(s.contains("sq :: native (x)"), "{s}");
        assert!(s.contains("util :: cube :: native :: < T > (y)"), "{s}");
        assert!(
            s.contains("kernel_math :: max :: < f64 > (x , y)")
                && s.contains("kernel_math :: from_f64 :: < T > (x)"),
            "{s}"
        );
    }

    #[test]
    fn type_parameters_are_called_through_the_unsafe_traits() {
        let tps: HashSet<String> = ["pred".to_string(), "T".to_string()].into();
        let mut b: syn::Block = syn::parse_quote!({
            let a = pred(x) + (pred)(x, y) + pred::<T>(x, y, z) + T::from_f64(x) + sq(x);
        });
        rewrite_func_body(&mut b, &tps);
        let s = b.to_token_stream().to_string();
        for want in [
            "< pred as :: rokkos :: ir :: build :: Func1 < _ > > :: native (x)",
            "< pred as :: rokkos :: ir :: build :: Func2 < _ , _ > > :: native (x , y)",
            "< pred as :: rokkos :: ir :: build :: Func3 < _ , _ , _ > > :: native :: < T > (x , y , z)",
            "kernel_math :: from_f64 :: < T > (x)",
            "sq :: native (x)",
        ] {
            assert!(s.contains(want), "{want} in {s}");
        }
        assert!(!s.contains("pred :: native"), "{s}");
    }

    #[test]
    fn ir_paths_keep_the_generic_arguments() {
        let p: syn::Path = syn::parse_quote!(a::b::f::<f32, 3>);
        let ir = item_path(&p, "ir");
        assert_eq!(
            ir.to_token_stream().to_string(),
            "a :: b :: f :: ir :: < f32 , 3 >"
        );
    }
}
