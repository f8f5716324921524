//! The items `#[kernel]` generates for host backends.
//!
//! For `pub fn triad<T: Float>(i: usize, a: ViewMut<T>, b: View<T>, s: T)`:
//!
//! * `pub struct TriadKernel<'k, T: Float, __M: MemorySpace, __LA: Layout, __LB: Layout>` holding
//!   `&'k View<T, 1, __LA, __M>` per View and the scalars (the *kernel value*);
//! * `pub fn triad(a: &View<..>, b: &View<..>, s: T) -> TriadKernel<..>` (the constructor);
//! * `impl Kernel for TriadKernel` (name, memory space, the Views for the launch checks);
//! * `struct TriadNative<'k, T, __LA, __LB>` holding `WriteAccess` / `ReadAccess` accessors and the
//!   scalars, with `impl ForBody<RangeWork>` running the rewritten body (the *native body*);
//! * `impl ForKernel<RangeWork> for TriadKernel` binding the accessors.

use super::hoist;
use super::rewrite::{rewrite_block, rewrite_block_unchecked};
use crate::parse::env::BodyEnv;
use crate::parse::signature::{
    camel, parse_kernel, Arg, KernelOptions, KernelSignature, PatternKind, Work,
};
use crate::parse::subset::SubsetInfo;
use crate::parse::{ownership, scan_effects, subset, team_rules, Errors};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Ident;

/// Entry point of `#[kernel]`.
pub fn expand_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match KernelOptions::parse(attr) {
        Ok(o) => o,
        Err(e) => return e.into_compile_error(),
    };
    let raw_idents = crate::parse::raw_ident::check(&item, "kernels");
    let item: syn::ItemFn = match syn::parse2(item) {
        Ok(i) => i,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                "#[kernel] applies to functions: `#[kernel] fn name(i: usize, ..) { .. }`",
            )
            .into_compile_error()
        }
    };
    // Names from two macro expansions would defeat every check below (they compare spellings):
    // this compiles only when they do not mix, whatever else the kernel's fate.
    let hygiene = crate::parse::hygiene::probe(&item, "kernel");
    let mut sig = match parse_kernel(options, item) {
        Ok(s) => s,
        Err(e) => return e.into_compile_error(),
    };
    crate::parse::broadcast::desugar(&mut sig.body);
    let md_ranges = crate::parse::md_range::desugar(&mut sig.body);
    let env = BodyEnv::for_kernel(&sig);
    let checked = raw_idents
        .and(md_ranges)
        .and_then(|()| check_and_translate(&mut sig, &env));
    let mut out = match checked {
        Ok((info, ir_items)) => {
            let mut body = sig.body.clone();
            rewrite_block(&env, &mut body);
            let unchecked = unchecked_variant(&sig, &env);
            let mut out = generate(&sig, Some((&body, &info)), unchecked.as_ref());
            out.extend(ir_items);
            out
        }
        // The errors, and correctly typed stubs of every item, so that the kernel's call sites
        // and launches add no errors of their own: one error per mistake (serde's and
        // thiserror's fallback).
        Err(e) => {
            let mut out = e.into_compile_error();
            out.extend(generate(&sig, None, None));
            out.extend(crate::ir::generate::kernel_ir_stub(&sig));
            out
        }
    };
    out.extend(hygiene);
    if sig.options.debug {
        eprintln!("#[rokkos::kernel] `{}` expands to:\n{}\n", sig.name, out);
    }
    out
}

/// The checks of a kernel body, in order, and its IR items. A later check runs only when the
/// earlier ones passed, so that one mistake is reported once: the accepted subset, the
/// owner-computes rule and the scan bodies' final-pass rule (reported together), the IR
/// translation (what device backends cannot express), then the team rules. Between the rules and
/// the translation the body gets the guards the owner-computes proof needs at run time
/// ([`ownership::harden`]), so that the native and IR paths are built from the same body.
fn check_and_translate(
    sig: &mut KernelSignature,
    env: &BodyEnv,
) -> syn::Result<(subset::SubsetInfo, TokenStream)> {
    let mut errs = Errors::default();
    let info = subset::check_block(env, &sig.body);
    // A scatter accessor misused is reported once, by its own rule (the owner-computes rule
    // would add a second error about the same access).
    let guards = match ownership::check_scatter(sig) {
        Err(e) => {
            errs.push(e);
            ownership::Guards::default()
        }
        Ok(()) => match ownership::check_block(env, &sig.body) {
            Ok(g) => g,
            Err(e) => {
                errs.push(e);
                ownership::Guards::default()
            }
        },
    };
    if let Err(e) = scan_effects::check_block(env, sig) {
        errs.push(e);
    }
    let info = match info {
        Ok(i) => i,
        Err(e) => {
            errs.push(e);
            SubsetInfo::default()
        }
    };
    errs.finish()?;
    ownership::harden(&mut sig.body, &guards);
    let ir_items = crate::ir::generate::kernel_items(sig)?;
    team_rules::check(sig, env)?;
    Ok((info, ir_items))
}

fn mentions(ty: &TokenStream, names: &[String]) -> bool {
    ty.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => names.iter().any(|n| i == n),
        TokenTree::Group(g) => mentions(&g.stream(), names),
        _ => false,
    })
}

/// Attributes copied to every generated item (the rest go to the constructor only).
fn is_item_attr(a: &syn::Attribute) -> bool {
    [
        "cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "expect",
    ]
    .iter()
    .any(|n| a.path().is_ident(n))
}

/// The box-checked variant of a range or MDRange kernel's body: the body with unchecked accesses
/// wherever the index derives from the work item alone, and the check that covers them over a box
/// of work items (see [`super::hoist`]). `None` for team kernels and when there is no such access.
fn unchecked_variant(sig: &KernelSignature, env: &BodyEnv) -> Option<(syn::Block, TokenStream)> {
    let work: Vec<Ident> = match &sig.work {
        Work::Range(i) => vec![i.clone()],
        Work::Md(ids) => ids.clone(),
        Work::Team(_) => return None,
    };
    if hoist::rebound(&sig.body, &work) {
        return None;
    }
    let mut body = sig.body.clone();
    let used = rewrite_block_unchecked(env, &mut body, &work);
    if used.is_empty() {
        return None;
    }
    let check = hoist::check_tokens(&used, &|v, d| quote!(self.#v.extent(#d)));
    Some((body, check))
}

fn generate(
    sig: &KernelSignature,
    body: Option<(&syn::Block, &SubsetInfo)>,
    unchecked: Option<&(syn::Block, TokenStream)>,
) -> TokenStream {
    let p = quote!(::rokkos::__private);
    let name = &sig.name;
    let name_str = name.to_string();
    let vis = &sig.vis;
    let kernel_ty = format_ident!("{}Kernel", camel(&name_str), span = name.span());
    let native_ty = format_ident!("{}Native", camel(&name_str), span = name.span());
    let item_attrs: Vec<_> = sig.attrs.iter().filter(|a| is_item_attr(a)).collect();
    let ctor_attrs: Vec<_> = sig.attrs.iter().filter(|a| !is_item_attr(a)).collect();
    let docs = &sig.docs;

    // Generics.
    let k = syn::Lifetime::new("'k", Span::call_site());
    let a = syn::Lifetime::new("'__a", Span::call_site());
    let m = Ident::new("__M", Span::call_site());
    let user_params = sig.user_generic_params();
    let user_args = sig.user_generic_args();
    let user_types: Vec<&Ident> = sig.generics.type_params().map(|t| &t.ident).collect();
    let type_names = sig.type_param_names();
    let views: Vec<_> = sig.views().collect();
    let layouts: Vec<&Ident> = sig.layout_views().map(|v| &v.layout).collect();

    let mut preds: Vec<TokenStream> = sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter().map(|p| p.to_token_stream()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for v in &views {
        let elem = v.elem.to_token_stream();
        if mentions(&elem, &type_names) && seen.insert(elem.to_string()) {
            preds.push(quote!(#elem: #p::Pod));
        }
    }
    let where_clause = if preds.is_empty() {
        quote!()
    } else {
        quote!(where #(#preds),*)
    };

    let kernel_params =
        quote!(<#k, #(#user_params,)* #m: #p::MemorySpace, #(#layouts: #p::Layout),*>);
    let kernel_args = quote!(<#k, #(#user_args,)* #m, #(#layouts),*>);
    let native_params = quote!(<#k, #(#user_params,)* #(#layouts: #p::Layout),*>);
    let native_args_k = quote!(<#k, #(#user_args,)* #(#layouts),*>);
    let native_args_a = quote!(<#a, #(#user_args,)* #(#layouts),*>);

    // Fields.
    let mut kernel_fields = Vec::new();
    let mut native_fields = Vec::new();
    let mut ctor_inputs = Vec::new();
    let mut ctor_names = Vec::new();
    let mut visits = Vec::new();
    let mut binds = Vec::new();
    let mut locals = Vec::new();
    for arg in &sig.args {
        let n = arg.name();
        ctor_names.push(n);
        match arg {
            Arg::View(v) if v.checked.is_some() => {
                let (elem, rank) = (&v.elem, &v.rank);
                let ty = syn::Ident::new(
                    v.checked.expect("matched").type_name(),
                    proc_macro2::Span::call_site(),
                );
                let view_ty = quote!(&#k #p::#ty<#elem, #m>);
                kernel_fields.push(quote!(#n: #view_ty));
                ctor_inputs.push(quote!(#n: #view_ty));
                let pname = n.to_string();
                visits.push(quote!(__f(self.#n.__kernel_arg(#pname));));
                native_fields.push(quote!(#n: #p::ReadAccess<#k, #elem, #rank, #p::LayoutRight>));
                binds.push(quote!(#n: unsafe { self.#n.__read_access(#name_str) }));
                locals.push(quote!(let #n = self.#n;));
            }
            Arg::View(v) if v.scatter.is_some() => {
                let (elem, rank) = (&v.elem, &v.rank);
                let op = syn::Ident::new(
                    v.scatter.expect("matched").op_type(),
                    proc_macro2::Span::call_site(),
                );
                let sc = quote!(::rokkos::scatter);
                let view_ty = quote!(&#k #sc::ScatterStorage<#elem, #rank, #p::#op, #m>);
                kernel_fields.push(quote!(#n: #view_ty));
                ctor_inputs.push(quote!(#n: #view_ty));
                let pname = n.to_string();
                visits.push(quote!(self.#n.__visit_args(#pname, __f);));
                native_fields.push(quote!(#n: #sc::ScatterAccess<#k, #elem, #rank, #p::#op>));
                binds.push(quote!(#n: unsafe { self.#n.__scatter_access(#name_str) }));
                locals.push(quote!(let #n = self.#n;));
            }
            Arg::View(v) => {
                let (elem, rank, l) = (&v.elem, &v.rank, &v.layout);
                let view_ty = quote!(&#k #p::View<#elem, #rank, #l, #m>);
                kernel_fields.push(quote!(#n: #view_ty));
                ctor_inputs.push(quote!(#n: #view_ty));
                let pname = n.to_string();
                let writable = v.writable;
                visits.push(quote!(__f(self.#n.__kernel_arg(#pname, #writable));));
                if writable {
                    native_fields.push(quote!(#n: #p::WriteAccess<#k, #elem, #rank, #l>));
                    binds.push(quote!(#n: unsafe { self.#n.__write_access(#name_str) }));
                } else {
                    native_fields.push(quote!(#n: #p::ReadAccess<#k, #elem, #rank, #l>));
                    binds.push(quote!(#n: unsafe { self.#n.__read_access(#name_str) }));
                }
                locals.push(quote!(let #n = self.#n;));
            }
            Arg::Scalar(s) => {
                let ty = &s.ty;
                kernel_fields.push(quote!(#n: #ty));
                native_fields.push(quote!(#n: #ty));
                ctor_inputs.push(quote!(#n: #ty));
                binds.push(quote!(#n: self.#n));
                if s.mutable {
                    locals.push(quote!(let mut #n = self.#n;));
                } else {
                    locals.push(quote!(let #n = self.#n;));
                }
            }
        }
    }
    let phantom = quote!(::core::marker::PhantomData);

    // Work, pattern.
    let work_kind = sig.work.kind_tokens();
    let work_item = quote!(<#work_kind as #p::WorkKind>::Item<'_>);
    let work_bind = match &sig.work {
        Work::Range(i) | Work::Team(i) => quote!(let #i = __work;),
        Work::Md(ids) => quote!(let [#(#ids),*] = __work;),
    };
    let accs = sig.accums();
    let value_ty = match accs.as_slice() {
        [] => quote!(),
        [one] => one.ty.to_token_stream(),
        many => {
            let tys = many.iter().map(|a| &a.ty);
            quote!((#(#tys,)*))
        }
    };
    let acc_bind = match (&sig.pattern, accs.as_slice()) {
        (PatternKind::For, _) | (_, []) => quote!(),
        (PatternKind::Scan { acc, flag }, _) => {
            let n = &acc.name;
            quote!(let #n = __acc; let #flag = __final;)
        }
        (PatternKind::Reduce(_), [one]) => {
            let n = &one.name;
            quote!(let #n = __acc;)
        }
        (PatternKind::Reduce(_), many) => {
            let names = many.iter().map(|a| &a.name);
            let idx = (0..many.len()).map(syn::Index::from);
            quote!(let (#(#names,)*) = (#(&mut __acc.#idx,)*);)
        }
    };
    // A call of a function that is not a `#[func]` is an error of the IR translation, which calls
    // its marker function: no check here, so that it is reported once.
    let run_of = |block: &syn::Block| {
        let stmts = &block.stmts;
        quote! {
            #work_bind
            #acc_bind
            #(#locals)*
            #(#stmts)*
        }
    };
    let run = match body {
        Some((block, _)) => run_of(block),
        None => quote!(),
    };
    // What only the constants' values decide, checked when a launch instantiates the kernel (every
    // launch lists its Views): ranks given as const generics, scratch levels given as constants.
    let mut consts = Vec::new();
    for v in &views {
        let rank = &v.rank;
        if syn::parse2::<syn::LitInt>(rank.clone()).is_err() {
            let at = rank
                .clone()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            consts.push(quote_spanned!(at=> const { ::core::assert!((#rank) <= 8, "View ranks are 0 to 8") };));
        }
    }
    if let Some((_, info)) = body {
        for level in &info.levels {
            let at = syn::spanned::Spanned::span(level);
            consts.push(quote_spanned!(at=> const { ::core::assert!((#level) as u64 <= 1, "scratch levels are 0 and 1") };));
        }
    }
    let (body_trait, kernel_trait, call_sig, value_item) = match &sig.pattern {
        PatternKind::For => (
            quote!(#p::ForBody<#work_kind>),
            quote!(#p::ForKernel<#work_kind>),
            quote!(fn call(&self, __work: #work_item)),
            quote!(),
        ),
        PatternKind::Reduce(_) => (
            quote!(#p::ReduceBody<#work_kind, #value_ty>),
            quote!(#p::ReduceKernel<#work_kind>),
            quote!(fn call(&self, __work: #work_item, __acc: &mut #value_ty)),
            quote!(type Value = #value_ty;),
        ),
        PatternKind::Scan { .. } => (
            quote!(#p::ScanBody<#work_kind, #value_ty>),
            quote!(#p::ScanKernel<#work_kind>),
            quote!(fn call(&self, __work: #work_item, __acc: &mut #value_ty, __final: bool)),
            quote!(type Value = #value_ty;),
        ),
    };

    // The box-checked fast path of range and MDRange kernels (see `ForBody::__in_bounds`).
    let chunk_methods = match (unchecked, body) {
        (Some((ublock, check)), Some(_)) => {
            let urun = run_of(ublock);
            let unchecked_sig = match &sig.pattern {
                PatternKind::For => quote!(unsafe fn __call_unchecked(&self, __work: #work_item)),
                PatternKind::Reduce(_) => {
                    quote!(unsafe fn __call_unchecked(&self, __work: #work_item, __acc: &mut #value_ty))
                }
                PatternKind::Scan { .. } => quote!(
                    unsafe fn __call_unchecked(&self, __work: #work_item, __acc: &mut #value_ty, __final: bool)
                ),
            };
            let (first, last) = super::hoist::box_names();
            // Range kernels get their bounds as one index; the check reads them as rank-1 boxes.
            let as_box = match &sig.work {
                Work::Range(_) => quote!(let (#first, #last) = ([#first], [#last]);),
                _ => quote!(),
            };
            quote! {
                #[inline(always)]
                fn __in_bounds(&self, #first: #work_item, #last: #work_item) -> bool {
                    #as_box
                    #check
                }
                #[allow(unused_unsafe, clippy::needless_range_loop, clippy::manual_memcpy, clippy::explicit_counter_loop)]
                #[inline(always)]
                #unchecked_sig {
                    #urun
                }
            }
        }
        _ => quote!(),
    };

    let struct_doc = format!(
        "Kernel value of [`{name_str}`]: the Views and scalars of one launch. Built by `{name_str}(..)`; launch it with `parallel_for` / `parallel_reduce` / `parallel_scan`."
    );
    let allow = quote!(#[allow(non_camel_case_types, dead_code, clippy::too_many_arguments, clippy::needless_lifetimes, clippy::type_complexity, clippy::multiple_bound_locations)]);
    let ctor_doc_sep = if docs.is_empty() {
        quote!()
    } else {
        quote!(#[doc = ""])
    };

    quote! {
        #[doc = #struct_doc]
        #(#item_attrs)*
        #allow
        #vis struct #kernel_ty #kernel_params #where_clause {
            #(#kernel_fields,)*
            __marker: #phantom<(&#k (), fn() -> (#m, #(#user_types,)*))>,
        }

        #(#docs)*
        #ctor_doc_sep
        #[doc = "Builds the kernel value; launch it with `parallel_for` / `parallel_reduce` / `parallel_scan`."]
        #(#item_attrs)*
        #(#ctor_attrs)*
        #allow
        #[inline]
        #vis fn #name #kernel_params (#(#ctor_inputs),*) -> #kernel_ty #kernel_args #where_clause {
            // In the constructor, so that a failing assertion is reported where the user builds the
            // kernel value rather than inside rokkos' launch code.
            #(#consts)*
            #kernel_ty { #(#ctor_names,)* __marker: #phantom }
        }

        #(#item_attrs)*
        #allow
        impl #kernel_params #p::Kernel for #kernel_ty #kernel_args #where_clause {
            const NAME: &'static str = #name_str;
            type Space = #m;
            fn visit_views<#a>(&#a self, __f: &mut dyn FnMut(#p::ViewArg<#a>)) {
                #(#visits)*
            }
        }

        #[doc(hidden)]
        #(#item_attrs)*
        #allow
        #vis struct #native_ty #native_params #where_clause {
            #(#native_fields,)*
            __marker: #phantom<(&#k (), fn() -> (#(#user_types,)*))>,
        }

        #(#item_attrs)*
        #allow
        impl #native_params #body_trait for #native_ty #native_args_k #where_clause {
            // Kernel bodies cannot use iterators: do not suggest them. The user's `unsafe` blocks
            // stay for the `unsafe_code` lint; what they wrap needs no `unsafe`.
            #[allow(unused_unsafe, clippy::needless_range_loop, clippy::manual_memcpy, clippy::explicit_counter_loop)]
            #[inline(always)]
            #call_sig {
                #run
            }
            #chunk_methods
        }

        #(#item_attrs)*
        #allow
        impl #kernel_params #kernel_trait for #kernel_ty #kernel_args #where_clause {
            #value_item
            type Body<#a> = #native_ty #native_args_a where Self: #a;
            #[inline]
            unsafe fn bind(&self) -> Self::Body<'_> {
                #native_ty { #(#binds,)* __marker: #phantom }
            }
        }
    }
}
