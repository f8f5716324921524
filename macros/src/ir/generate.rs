//! The items the IR generator adds beside the native ones.
//!
//! For `#[kernel] fn triad<T: Float>(i: usize, a: ViewMut<T>, b: View<T>, s: T) { a[i] = b[i] * s; }`:
//!
//! ```text
//! impl<'k, T: Float, __M: MemorySpace, __LA: Layout, __LB: Layout> KernelIr
//!     for TriadKernel<'k, T, __M, __LA, __LB> where T: Pod, T: IrNum
//! {
//!     fn build_ir() -> Result<ir::Kernel, BuildError> {
//!         let mut kb = KernelBuilder::new("triad", WorkKind::Range);
//!         let kb = &mut kb;
//!         let i = kb.work_index(0);
//!         let a = kb.view::<T>("a", (1) as u32, Access::Writable);
//!         let b = kb.view::<T>("b", (1) as u32, Access::ReadOnly);
//!         let s = kb.scalar::<T>("s");
//!         kb.store(a, i.clone(), (b.load(i.clone())) * (s.get()));
//!         kb.finish()
//!     }
//! }
//! ```
//!
//! and for `#[func] fn sq(x: f64) -> f64 { x * x }` a hidden
//! `sq::ir(scope: &mut impl FuncScope, x: Expr<f64>) -> Expr<f64>` (on the hidden type `sq`) that defines `sq` in the
//! kernel's function table (once) and returns the call.

use super::{ir, irb, types, Fail, Sym, Tx, R};
use crate::parse::signature::{camel, Arg, KernelSignature, PatternKind, Work};
use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashSet;
use syn::{FnArg, GenericParam, Pat, ReturnType};

const ALLOW: &str =
    "unused_variables, unused_mut, unused_braces, unused_parens, non_snake_case, clippy::all";

fn allow() -> TokenStream {
    let lints: TokenStream = ALLOW.parse().expect("lints");
    quote!(#[allow(#lints)])
}

fn mentions(ty: &TokenStream, names: &HashSet<String>) -> bool {
    ty.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => names.contains(&i.to_string()),
        TokenTree::Group(g) => mentions(&g.stream(), names),
        _ => false,
    })
}

/// Attributes copied to every generated item (as the native generator does).
fn is_item_attr(a: &syn::Attribute) -> bool {
    [
        "cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "expect",
    ]
    .iter()
    .any(|n| a.path().is_ident(n))
}

/// `impl KernelIr for NameKernel`, or the error that stops the kernel's translation.
pub fn kernel_items(sig: &KernelSignature) -> syn::Result<TokenStream> {
    let (ir, irb) = (ir(), irb());
    let name_str = sig.name.to_string();
    let tps: HashSet<String> = sig.type_param_names().into_iter().collect();
    let b = Ident::new("__rokkos_kb", Span::mixed_site());
    let owned = Ident::new("__rokkos_kb_owned", Span::mixed_site());
    let mut tx = Tx::new(b.clone(), false, tps);
    let work = match &sig.work {
        Work::Range(_) => quote!(#ir::WorkKind::Range),
        Work::Md(ids) => {
            let n = ids.len() as u32;
            quote!(#ir::WorkKind::MDRange(#n))
        }
        Work::Team(_) => quote!(#ir::WorkKind::Team),
    };
    let body = match declare(&mut tx, sig).and_then(|()| tx.stmts(&sig.body.stmts, false)) {
        Ok(_) => {
            let code = tx.finish();
            quote! {
                let mut #owned = #irb::KernelBuilder::new(#name_str, #work);
                // Overflow is checked on every backend exactly when the user's crate checks it.
                #owned.overflow_checks(cfg!(debug_assertions));
                let #b = &mut #owned;
                #(#code)*
                #owned.finish()
            }
        }
        Err(Fail::Compile(e)) => return Err(e),
        // Every backend must run a kernel the same way: what the IR cannot express is rejected here
        // rather than failing later on a device backend.
        Err(Fail::Unsupported(msg)) => {
            return Err(syn::Error::new(
                sig.name.span(),
                format!("kernel `{name_str}`: {msg}; device backends cannot run it, so it is rejected on every backend"),
            ))
        }
    };
    let p = quote!(::rokkos::__private);
    // Views first, then scalars: the IR's parameter tables, each in signature order.
    let mut view_args = Vec::new();
    let mut scalar_args = Vec::new();
    for arg in &sig.args {
        let n = arg.name();
        let pname = n.to_string();
        match arg {
            Arg::View(v) if v.checked.is_some() => {
                view_args.push(quote!(__f(#p::KernelArg::View(self.#n.__binding(#pname)));));
            }
            Arg::View(v) if v.scatter.is_some() => {
                view_args.push(quote!(__f(#p::KernelArg::View(self.#n.__binding(#pname, true)));));
            }
            Arg::View(v) => {
                let writable = v.writable;
                view_args
                    .push(quote!(__f(#p::KernelArg::View(self.#n.__binding(#pname, #writable)));));
            }
            Arg::Scalar(_) => scalar_args
                .push(quote!(__f(#p::KernelArg::Scalar(#irb::IrScalar::to_value(self.#n)));)),
        }
    }
    Ok(ir_impl(
        sig,
        body,
        quote! {
            #(#view_args)*
            #(#scalar_args)*
        },
    ))
}

/// `impl KernelIr for NameKernel` for a kernel the macro rejected: typed like the real one, so
/// that launches of the kernel add no errors to the one that says what is wrong.
pub fn kernel_ir_stub(sig: &KernelSignature) -> TokenStream {
    ir_impl(
        sig,
        quote!(::core::unreachable!("a kernel rejected at compile time")),
        quote!(),
    )
}

/// `impl KernelIr for NameKernel` with the bodies of `build_ir` and `visit_args`.
fn ir_impl(sig: &KernelSignature, build: TokenStream, visit: TokenStream) -> TokenStream {
    let (p, ir, irb) = (quote!(::rokkos::__private), ir(), irb());
    let name_str = sig.name.to_string();
    let kernel_ty = format_ident!("{}Kernel", camel(&name_str), span = sig.name.span());
    let tps: HashSet<String> = sig.type_param_names().into_iter().collect();

    // The kernel value's generics, as the native generator declares them.
    let k = syn::Lifetime::new("'k", Span::call_site());
    let m = Ident::new("__M", Span::call_site());
    let user_params = sig.user_generic_params();
    let user_args = sig.user_generic_args();
    let layouts: Vec<&Ident> = sig.layout_views().map(|v| &v.layout).collect();
    let mut preds: Vec<TokenStream> = sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter().map(|p| p.to_token_stream()))
        .collect();
    let mut seen = HashSet::new();
    for v in sig.views() {
        let elem = v.elem.to_token_stream();
        if mentions(&elem, &tps) && seen.insert(elem.to_string()) {
            preds.push(quote!(#elem: #p::Pod));
        }
    }
    // The builder's traits on the type parameters the IR records values of.
    let mut ir_bounds = HashSet::new();
    for v in sig.views() {
        if let Some(t) = types::element(&v.elem, &tps) {
            let t = t.to_token_stream();
            if tps.contains(&t.to_string()) && ir_bounds.insert(t.to_string()) {
                preds.push(quote!(#t: #irb::IrNum));
            }
        }
    }
    // A type parameter the body calls (`pred(x)`) stands for a `#[func]` (bounded by
    // `Func1`..`Func3`), not for a scalar type.
    let called = called_type_params(&sig.body, &tps);
    for t in sig.generics.type_params() {
        let id = t.ident.to_string();
        if !ir_bounds.contains(&id) && !called.contains(&id) {
            let t = &t.ident;
            preds.push(quote!(#t: #irb::IrScalar));
        }
    }
    let kernel_params =
        quote!(<#k, #(#user_params,)* #m: #p::MemorySpace, #(#layouts: #p::Layout),*>);
    let kernel_args = quote!(<#k, #(#user_args,)* #m, #(#layouts),*>);
    let item_attrs = sig.attrs.iter().filter(|a| is_item_attr(a));
    let allow = allow();
    let where_clause = if preds.is_empty() {
        quote!()
    } else {
        quote!(where #(#preds),*)
    };
    quote! {
        #(#item_attrs)*
        #allow
        impl #kernel_params #p::KernelIr for #kernel_ty #kernel_args #where_clause {
            fn build_ir() -> ::core::result::Result<#ir::Kernel, #irb::BuildError> {
                #build
            }
            fn visit_args<'__a>(&'__a self, __f: &mut dyn FnMut(#p::KernelArg<'__a, #m>)) {
                #visit
            }
        }
    }
}

/// Declares the work item, accumulators, Views and scalars, in signature order.
fn declare(tx: &mut Tx, sig: &KernelSignature) -> R<()> {
    let (b, ir) = (tx.b.clone(), ir());
    match &sig.work {
        Work::Range(i) => {
            tx.emit(quote!(let #i = #b.work_index(0);));
            tx.bind(i, Sym::Expr);
        }
        Work::Md(ids) => {
            for (k, i) in ids.iter().enumerate() {
                let k = k as u32;
                tx.emit(quote!(let #i = #b.work_index(#k);));
                tx.bind(i, Sym::Expr);
            }
        }
        Work::Team(t) => {
            tx.emit(quote!(let #t = #b.team();));
            tx.bind(t, Sym::Team);
        }
    }
    let scan = matches!(sig.pattern, PatternKind::Scan { .. });
    for a in sig.accums() {
        let (n, ns) = (&a.name, a.name.to_string());
        let (decl, kind) = match types::accumulator(&a.ty, &tx.type_params) {
            Some(types::AccType::Scalar(t)) if scan => {
                (quote!(#b.scan_partial::<#t>(#ns)), super::AccKind::Scalar)
            }
            Some(types::AccType::Scalar(t)) => (quote!(#b.acc::<#t>(#ns)), super::AccKind::Scalar),
            Some(types::AccType::ValLoc(t)) if !scan => (
                quote!(#b.acc_valloc::<#t>(#ns)),
                super::AccKind::Fields(&["val", "loc"]),
            ),
            Some(types::AccType::MinMax(t)) if !scan => (
                quote!(#b.acc_minmax::<#t>(#ns)),
                super::AccKind::Fields(&["min", "max"]),
            ),
            // Two IR accumulators, the minimum's and the maximum's (value, location), in the
            // order `MinMaxLoc` describes its joins; the handles in the fields' order.
            Some(types::AccType::MinMaxLoc(t)) if !scan => {
                let (lo, hi) = (format!("{ns}.min"), format!("{ns}.max"));
                (
                    quote!({
                        let (min_val, min_loc) = #b.acc_valloc::<#t>(#lo);
                        let (max_val, max_loc) = #b.acc_valloc::<#t>(#hi);
                        (min_val, max_val, min_loc, max_loc)
                    }),
                    super::AccKind::Fields(&["min_val", "max_val", "min_loc", "max_loc"]),
                )
            }
            _ => return super::unsupported(types::unsupported_type("an accumulator", &a.ty)),
        };
        tx.emit(quote!(let #n = #decl;));
        tx.bind(n, Sym::Acc(kind));
    }
    if let PatternKind::Scan { flag, .. } = &sig.pattern {
        tx.emit(quote!(let #flag = #b.is_final();));
        tx.bind(flag, Sym::Expr);
    }
    for arg in &sig.args {
        let n = arg.name();
        let ns = n.to_string();
        match arg {
            Arg::View(v) => {
                let Some(elem) = types::element(&v.elem, &tx.type_params) else {
                    return super::unsupported(types::unsupported_type(
                        &format!("View `{ns}`'s element"),
                        &v.elem,
                    ));
                };
                let rank = &v.rank;
                let access = if v.writable {
                    quote!(#ir::Access::Writable)
                } else {
                    quote!(#ir::Access::ReadOnly)
                };
                tx.emit(quote!(let #n = #b.view::<#elem>(#ns, (#rank) as u32, #access);));
                tx.bind(n, Sym::View { rank: rank.clone() });
            }
            Arg::Scalar(s) => {
                let Some(ty) = types::scalar(&s.ty, &tx.type_params) else {
                    return super::unsupported(types::unsupported_type(
                        &format!("scalar parameter `{ns}`"),
                        &s.ty,
                    ));
                };
                tx.emit(quote!(let #n = #b.scalar::<#ty>(#ns);));
                if s.mutable {
                    tx.record(quote!(let #n = #b.let_(#ns, #n.get());));
                    tx.bind(n, Sym::Local { depth: 0 });
                } else {
                    tx.bind(n, Sym::Param);
                }
            }
        }
    }
    Ok(())
}

/// The type parameters among `tps` that `body` calls as functions (`pred(x)`, through the
/// `Func1`..`Func3` bound of a `#[func]` passed as a value).
fn called_type_params(body: &syn::Block, tps: &HashSet<String>) -> HashSet<String> {
    struct Calls<'a>(&'a HashSet<String>, HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Calls<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            // The calls the native and IR code send through the parameter's bound.
            if let Some(id) = crate::native::calls::called_type_param(c, self.0) {
                self.1.insert(id.to_string());
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut v = Calls(tps, HashSet::new());
    syn::visit::Visit::visit_block(&mut v, body);
    v.1
}

/// The hidden IR builder of a `#[func]`, an associated function of its marker type (see
/// [`crate::native::calls`]): `NAME::ir(scope, args..) -> Expr<R>`.
pub fn func_items(f: &syn::ItemFn) -> TokenStream {
    let irb = irb();
    let name = &f.sig.ident;
    let marker = crate::native::calls::marker_ident(name);
    let vis = &f.vis;
    let cfgs = f.attrs.iter().filter(|a| a.path().is_ident("cfg"));
    let generics = &f.sig.generics;
    let tps: HashSet<String> = generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    let scope = Ident::new("__rokkos_scope", Span::mixed_site());
    let fb = Ident::new("__rokkos_fb", Span::mixed_site());

    let mut params = Vec::new();
    let mut unsupported = None;
    for (k, input) in f.sig.inputs.iter().enumerate() {
        let FnArg::Typed(t) = input else { continue };
        let Pat::Ident(p) = &*t.pat else { continue };
        // An array parameter `[T; N]` is N scalar parameters of the IR function.
        let (elem, len) = match crate::func::array_param(types::strip(&t.ty)) {
            Some((elem, n)) => (elem, Some(n)),
            None => ((*t.ty).clone(), None),
        };
        if types::scalar(&elem, &tps).is_none() {
            unsupported.get_or_insert(types::unsupported_type(
                &format!("parameter `{}`", p.ident),
                &elem,
            ));
        }
        let arg = format_ident!("__rokkos_a{}", k, span = Span::mixed_site());
        params.push(Param {
            name: p.ident.clone(),
            ty: types::strip(&elem).clone(),
            len,
            arg,
        });
    }
    // A result of several values is one IR function per component (`name.k`, returning
    // component `k`): the IR's functions return one scalar, and the marker returns a tuple of
    // their calls.
    let rets: Option<Vec<syn::Type>> = match &f.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) => {
            let all = crate::func::components(t).unwrap_or_else(|| vec![(**t).clone()]);
            for c in &all {
                if types::scalar(c, &tps).is_none() {
                    unsupported.get_or_insert(types::unsupported_type("the result", c));
                }
            }
            Some(all.iter().map(|c| types::strip(c).clone()).collect())
        }
    };
    let multi =
        matches!(&f.sig.output, ReturnType::Type(_, t) if crate::func::components(t).is_some());
    let args = params.iter().map(|p| &p.arg);
    let arg_tys = params.iter().map(|p| {
        let ty = &p.ty;
        match p.len {
            Some(n) => quote!([#irb::Expr<#ty>; #n]),
            None => quote!(#irb::Expr<#ty>),
        }
    });
    let mut preds: Vec<TokenStream> = generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter().map(|p| p.to_token_stream()))
        .collect();
    // Kernels reach `ir` only through markers `#[func]` made (see `crate::native::calls`).
    preds.push(quote!(Self: ::rokkos::__private::FuncMarker));
    let mut suffix = Vec::new();
    for g in &generics.params {
        match g {
            GenericParam::Type(t) => {
                let id = &t.ident;
                preds.push(quote!(#id: #irb::IrScalar));
                suffix.push(
                    quote!(__n.push('_'); __n.push_str(<#id as #irb::IrScalar>::TYPE.name());),
                );
            }
            GenericParam::Const(c) => {
                let id = &c.ident;
                suffix.push(quote!(__n.push('_'); __n.push_str(&#id.to_string());));
            }
            GenericParam::Lifetime(_) => {}
        }
    }
    let where_clause = if preds.is_empty() {
        quote!()
    } else {
        quote!(where #(#preds),*)
    };
    let (impl_generics, _, _) = generics.split_for_impl();
    let allow = allow();
    let sig = quote!(ir #impl_generics (#scope: &mut impl #irb::FuncScope, #(#args: #arg_tys),*));
    let cfgs: Vec<_> = cfgs.collect();
    let Some(rets) = rets else {
        // A function without a result has no effect the IR could observe (functions cannot reach
        // Views): calls of it record nothing.
        return quote! {
            #(#cfgs)*
            impl #marker {
                #[doc(hidden)] #allow #[inline]
                #vis fn #sig #where_clause {}
            }
        };
    };
    let projs: Vec<Option<usize>> = if multi {
        (0..rets.len()).map(Some).collect()
    } else {
        vec![None]
    };
    let codes: Result<Vec<Vec<TokenStream>>, Fail> = match unsupported {
        Some(m) => Err(Fail::Unsupported(m)),
        None => projs
            .iter()
            .map(|&p| func_body(f, &fb, &tps, &params, p))
            .collect(),
    };
    let body = match codes {
        Ok(codes) => {
            let name_str = name.to_string();
            let calls: Vec<TokenStream> = codes
                .iter()
                .zip(&rets)
                .zip(&projs)
                .map(|((code, ret), p)| {
                    // The IR arguments: each scalar, each array's elements in order.
                    let args = params.iter().map(|p| {
                        let a = &p.arg;
                        match p.len {
                            Some(_) => quote!(#a.iter().map(|e| ::std::clone::Clone::clone(e).into_ir())),
                            None => quote!([::std::clone::Clone::clone(&#a).into_ir()]),
                        }
                    });
                    let fname = match p {
                        Some(k) => quote!(&::std::format!("{}.{}", __rokkos_name, #k)),
                        None => quote!(&__rokkos_name),
                    };
                    quote! {{
                        let __rokkos_f = #irb::FuncScope::func::<#ret>(#scope, #fname, |#fb| { #(#code)* });
                        // Typed by `call` (a function may have no parameter).
                        let mut __rokkos_v = ::std::vec::Vec::new();
                        #(__rokkos_v.extend(#args);)*
                        __rokkos_f.call(__rokkos_v)
                    }}
                })
                .collect();
            let result = if multi {
                quote!((#(#calls),*))
            } else {
                quote!(#(#calls)*)
            };
            quote! {
                let __rokkos_name = {
                    let mut __n = ::std::string::String::from(#name_str);
                    #(#suffix)*
                    __n
                };
                #result
            }
        }
        Err(Fail::Compile(e)) => return e.into_compile_error(),
        Err(Fail::Unsupported(msg)) => {
            return syn::Error::new(
                name.span(),
                format!("function `{name}`: {msg}; device backends cannot run it, so it is rejected on every backend"),
            )
            .into_compile_error()
        }
    };
    let out = if multi {
        quote!((#(#irb::Expr<#rets>),*))
    } else {
        quote!(#(#irb::Expr<#rets>)*)
    };
    quote! {
        #(#cfgs)*
        impl #marker {
            #[doc(hidden)] #allow
            #vis fn #sig -> #out #where_clause {
                #body
            }
        }
    }
}

/// A parameter of a `#[func]`: its name, its scalar type (an array's element type), its length
/// when it is an array `[T; N]`, and the name of the marker function's argument.
struct Param {
    name: Ident,
    ty: syn::Type,
    len: Option<usize>,
    arg: Ident,
}

fn func_body(
    f: &syn::ItemFn,
    fb: &Ident,
    tps: &HashSet<String>,
    params: &[Param],
    proj: Option<usize>,
) -> R<Vec<TokenStream>> {
    let mut tx = Tx::new(fb.clone(), true, tps.clone());
    tx.proj = proj;
    for Param {
        name: n, ty, len, ..
    } in params
    {
        let ns = n.to_string();
        match *len {
            None => {
                tx.record(quote!(let #n = #fb.param::<#ty>(#ns);));
                tx.bind(n, Sym::Local { depth: 0 });
            }
            // The elements arrive as scalar parameters and become the function's own local
            // array (Rust passes arrays by value: the body may write to its copy).
            Some(len) => {
                let names: Vec<String> = (0..len).map(|j| format!("{ns}[{j}]")).collect();
                tx.record(quote! {
                    let #n = {
                        let __rokkos_e = ::std::vec![#(#fb.param::<#ty>(#names).get()),*];
                        #fb.array_from::<#ty>(#ns, __rokkos_e)
                    };
                });
                tx.bind(n, Sym::Array { depth: 0 });
            }
        }
    }
    let stmts = &f.block.stmts;
    match (proj, stmts.split_last()) {
        // The tail of a function returning several values: the literal's component `k` only
        // (the other components are the other projections' results).
        (Some(k), Some((syn::Stmt::Expr(tail, None), rest))) if super::has_value(tail) => {
            tx.stmts(rest, false)?;
            let v = tx.value(super::stmt::component(tail, k)?)?;
            tx.record(quote!(#fb.return_value(#v);));
        }
        _ => {
            if let Some(v) = tx.stmts(stmts, true)? {
                tx.record(quote!(#fb.return_value(#v);));
            }
        }
    }
    Ok(tx.finish())
}
