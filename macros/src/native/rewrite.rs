//! Rewrites a checked kernel body into native Rust over the accessors.
//!
//! * `a[idx] = e` → `a.__store(idx, e)`; `a[idx] op= e` → `{ let k = idx; a.__store(k, a.__load(k) op (e)) }`;
//!   a read `a[idx]` → `a.__load(idx)`, for writable Views and scratch (read-only Views keep `Index`);
//! * `unsafe { .. }` → `{ .. }` (the accessors' methods are safe; `unsafe` only lifts the checks);
//! * an innermost `for` loop over a range whose body indexes Views with the loop variable is
//!   versioned: checked once before it runs, then run with those accesses unchecked (see
//!   [`super::hoist`]), or run as written when the check fails.

use super::hoist::{check_tokens, has_inner_loop, index_comps, rebound, unstable_names};
use super::hoist::{Access, Base, Comp};
use crate::parse::env::{BodyEnv, ViewKind};
use crate::parse::subset::is_compound;
use crate::parse::NestedKind;
use proc_macro2::Span;
use quote::{quote, quote_spanned};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident};

/// Rewrites `body` in place.
pub fn rewrite_block(env: &BodyEnv, body: &mut syn::Block) {
    Rewriter {
        env,
        unchecked: None,
        used: Vec::new(),
    }
    .visit_block_mut(body);
}

/// Rewrites `body` for the box-checked variant of a range or MDRange kernel: accesses to View
/// parameters whose index components are all work indices (`work`) plus or minus a literal, or
/// literals (see [`super::hoist`]), become unchecked (`__get_unchecked` / `__load_unchecked` /
/// `__store_unchecked`); everything else is rewritten as by [`rewrite_block`]. Returns those
/// accesses: the runner must check them over the whole chunk or tile (`__in_bounds`) before using
/// this variant.
pub fn rewrite_block_unchecked(
    env: &BodyEnv,
    body: &mut syn::Block,
    work: &[syn::Ident],
) -> Vec<Access> {
    let mut r = Rewriter {
        env,
        unchecked: Some(Scope {
            moving: work.to_vec(),
            fixed: None,
        }),
        used: Vec::new(),
    };
    r.visit_block_mut(body);
    r.used
}

struct Rewriter<'a> {
    env: &'a BodyEnv,
    /// What makes an access unchecked, when some do.
    unchecked: Option<Scope>,
    /// The accesses made unchecked.
    used: Vec<Access>,
}

/// The names a hoisted access may use.
struct Scope {
    /// The moving indices: the work indices of a range or MDRange kernel, or a loop variable.
    moving: Vec<Ident>,
    /// Inside a versioned loop: the names the loop body may change; every other name is fixed.
    /// `None` for a kernel's box, where only literals are fixed.
    fixed: Option<HashSet<String>>,
}

impl Scope {
    fn classify(&self, id: &Ident) -> Option<Base> {
        if let Some(p) = self.moving.iter().position(|m| m == id) {
            return Some(Base::Moving(p));
        }
        let unstable = self.fixed.as_ref()?;
        (!unstable.contains(&id.to_string())).then_some(Base::Fixed)
    }
}

/// The name a pattern binds when it is a plain, immutable, by-value name (`k`, `k: usize`).
fn plain_binding(p: &syn::Pat) -> Option<Ident> {
    match p {
        syn::Pat::Ident(pi)
            if pi.by_ref.is_none() && pi.mutability.is_none() && pi.subpat.is_none() =>
        {
            Some(pi.ident.clone())
        }
        syn::Pat::Type(t) => plain_binding(&t.pat),
        _ => None,
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn strip_mut(e: &mut Expr) -> &mut Expr {
    match e {
        Expr::Paren(p) => strip_mut(&mut p.expr),
        Expr::Group(g) => strip_mut(&mut g.expr),
        _ => e,
    }
}

fn binop_of(op: &BinOp) -> proc_macro2::TokenStream {
    let s = op.span();
    match op {
        BinOp::AddAssign(_) => quote_spanned!(s=> +),
        BinOp::SubAssign(_) => quote_spanned!(s=> -),
        BinOp::MulAssign(_) => quote_spanned!(s=> *),
        BinOp::DivAssign(_) => quote_spanned!(s=> /),
        BinOp::RemAssign(_) => quote_spanned!(s=> %),
        BinOp::BitXorAssign(_) => quote_spanned!(s=> ^),
        BinOp::BitAndAssign(_) => quote_spanned!(s=> &),
        BinOp::BitOrAssign(_) => quote_spanned!(s=> |),
        BinOp::ShlAssign(_) => quote_spanned!(s=> <<),
        BinOp::ShrAssign(_) => quote_spanned!(s=> >>),
        _ => unreachable!("not a compound assignment"),
    }
}

impl Rewriter<'_> {
    /// `a[idx]` on a View with a hoistable index: `(a, idx, writable)`, recorded in `used`.
    /// A kernel's box covers View parameters; a versioned loop also scratch Views it does not bind.
    fn direct(&mut self, e: &mut Expr) -> Option<(Expr, Expr, bool)> {
        let scope = self.unchecked.as_ref()?;
        let Expr::Index(ix) = strip_mut(e) else {
            return None;
        };
        let (name, kind) = self.env.view_of(&ix.expr)?;
        let eligible = match &scope.fixed {
            None => matches!(kind, ViewKind::Read | ViewKind::Write),
            Some(unstable) => !unstable.contains(&name),
        };
        if !eligible {
            return None;
        }
        let comps = index_comps(&ix.index, &|id| scope.classify(id))?;
        let access = Access { view: name, comps };
        if !self.used.contains(&access) {
            self.used.push(access);
        }
        Some(((*ix.expr).clone(), (*ix.index).clone(), kind.writable()))
    }

    /// The two versions of the innermost body of a range over `var`: the condition under which
    /// its accesses hoistable over `var` are in bounds for the whole range (`__first`/`__last`
    /// hold the range's first and last index), the body with those accesses unchecked, and the
    /// body rewritten as usual. `None` when the body holds a loop or closure, rebinds `var`, or
    /// indexes no View with `var` (then nothing even says `var` is a `usize`).
    fn versions(
        &mut self,
        var: &Ident,
        body: &syn::Block,
    ) -> Option<(proc_macro2::TokenStream, syn::Block, syn::Block)> {
        if has_inner_loop(body) || rebound(body, std::slice::from_ref(var)) {
            return None;
        }
        let mut fast = body.clone();
        let mut sub = Rewriter {
            env: self.env,
            unchecked: Some(Scope {
                moving: vec![var.clone()],
                fixed: Some(unstable_names(body)),
            }),
            used: Vec::new(),
        };
        sub.visit_block_mut(&mut fast);
        let moves = |a: &Access| a.comps.iter().any(|c| matches!(c, Comp::Work { .. }));
        if !sub.used.iter().any(moves) {
            return None;
        }
        let check = check_tokens(&sub.used, &|v, d| quote!(#v.extent(#d)));
        let mut slow = body.clone();
        self.visit_block_mut(&mut slow);
        Some((check, fast, slow))
    }

    /// `for j in R { body }` as a versioned loop, when `R` is a team range or `a..b`: the
    /// accesses hoistable over `j` (see [`Rewriter::versions`]) are checked once for the range.
    fn version_loop(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let var = plain_binding(&f.pat)?;
        let team_range = self
            .env
            .team_method(&f.expr)
            .is_some_and(|m| NestedKind::of_range(&m.method.to_string()).is_some());
        let plain_range = matches!(strip(&f.expr), Expr::Range(r)
            if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) && r.start.is_some() && r.end.is_some());
        if !(team_range || plain_range) {
            return None;
        }
        let (check, fast, slow) = self.versions(&var, &f.body)?;
        let (attrs, label) = (&f.attrs, &f.label);
        let mut range = (*f.expr).clone();
        self.visit_expr_mut(&mut range);
        let r = Ident::new("__rokkos_r", Span::mixed_site());
        Some(syn::parse_quote_spanned!(f.span()=> {
            let #r: ::core::ops::Range<usize> = #range;
            if #r.start < #r.end && {
                let (__first, __last) = ([#r.start], [#r.end - 1]);
                #check
            } {
                #(#attrs)* #label for #var in #r #fast
            } else {
                #(#attrs)* #label for #var in #r #slow
            }
        }))
    }

    /// `team.vector_reduce(R, reducer, |k, acc| body)` (any nested reduce or scan) as a
    /// versioned call: the accesses of the closure's body hoistable over `k` are checked once for
    /// the range, and the call gets the body with them unchecked, or as written.
    fn version_nested(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if !self.env.is_team(&m.receiver)
            || NestedKind::of_nested_reduce(&m.method.to_string()).is_none()
        {
            return None;
        }
        let n = m.args.len();
        let Some(Expr::Closure(c)) = m.args.last() else {
            return None;
        };
        if n < 2 {
            return None;
        }
        let var = plain_binding(c.inputs.first()?)?;
        let body: syn::Block = match &*c.body {
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
            e => syn::parse_quote!({ #e }),
        };
        let (check, fast, slow) = self.versions(&var, &body)?;
        let mut args: Vec<Expr> = m.args.iter().take(n - 1).cloned().collect();
        for a in &mut args {
            self.visit_expr_mut(a);
        }
        let range = args.remove(0);
        let closure = |b: syn::Block| {
            let mut c = c.clone();
            c.body = Box::new(Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: b,
            }));
            c
        };
        let (cf, cs) = (closure(fast), closure(slow));
        let (recv, method, attrs) = (&m.receiver, &m.method, &m.attrs);
        let r = Ident::new("__rokkos_r", Span::mixed_site());
        Some(syn::parse_quote_spanned!(m.span()=> {
            let #r: ::core::ops::Range<usize> = ::rokkos::IntoNestedRange::into_range(#range);
            if #r.start < #r.end && {
                let (__first, __last) = ([#r.start], [#r.end - 1]);
                #check
            } {
                #(#attrs)* #recv.#method(#r, #(#args,)* #cf)
            } else {
                #(#attrs)* #recv.#method(#r, #(#args,)* #cs)
            }
        }))
    }

    /// `a[idx]` on a writable View: `(a, idx)` with `idx` already rewritten.
    fn writable_index(&mut self, e: &mut Expr) -> Option<(Expr, Expr)> {
        let Expr::Index(i) = strip_mut(e) else {
            return None;
        };
        let (_, kind) = self.env.view_of(&i.expr)?;
        if !kind.writable() {
            return None;
        }
        self.visit_expr_mut(&mut i.index);
        Some(((*i.expr).clone(), (*i.index).clone()))
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let span = e.span();
        // The macro's own `unsafe` blocks carry no user span, so that lints about unsafe code
        // (`unsafe_code`) judge the user's source, not this expansion.
        let v = syn::Ident::new("__rokkos_v", Span::mixed_site());
        let old = syn::Ident::new("__rokkos_old", Span::mixed_site());
        match e {
            Expr::Assign(a) => {
                if let Some((view, idx, true)) = self.direct(&mut a.left) {
                    self.visit_expr_mut(&mut a.right);
                    let rhs = &a.right;
                    let store = quote!(unsafe { #view.__store_unchecked(#idx, #v) });
                    *e = syn::parse_quote_spanned!(span=> { let #v = #rhs; #store });
                    return;
                }
                if let Some((view, idx)) = self.writable_index(&mut a.left) {
                    self.visit_expr_mut(&mut a.right);
                    let rhs = &a.right;
                    *e = syn::parse_quote_spanned!(span=> #view.__store(#idx, #rhs));
                    return;
                }
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                if let Some((view, idx, true)) = self.direct(&mut b.left) {
                    self.visit_expr_mut(&mut b.right);
                    let rhs = &b.right;
                    let op = binop_of(&b.op);
                    // Load, then the right-hand side, then store: the checked form's order.
                    let load = quote!(unsafe { #view.__load_unchecked(#idx) });
                    let store = quote!(unsafe { #view.__store_unchecked(#idx, #old #op #v) });
                    *e = syn::parse_quote_spanned!(span=> {
                        let #old = #load;
                        let #v = #rhs;
                        #store
                    });
                    return;
                }
                if let Some((view, idx)) = self.writable_index(&mut b.left) {
                    self.visit_expr_mut(&mut b.right);
                    let rhs = &b.right;
                    let op = binop_of(&b.op);
                    let k = syn::Ident::new("__rokkos_k", Span::mixed_site());
                    *e = syn::parse_quote_spanned!(span=> {
                        let #k = #idx;
                        #view.__store(#k, #view.__load(#k) #op (#rhs))
                    });
                    return;
                }
            }
            Expr::Index(_) => {
                if let Some((view, idx, writable)) = self.direct(e) {
                    let load = if writable {
                        quote!(unsafe { #view.__load_unchecked(#idx) })
                    } else {
                        quote!(unsafe { #view.__get_unchecked(#idx) })
                    };
                    *e = syn::parse_quote_spanned!(span=> #load);
                    return;
                }
                if let Some((view, idx)) = self.writable_index(e) {
                    *e = syn::parse_quote_spanned!(span=> #view.__load(#idx));
                    return;
                }
            }
            Expr::ForLoop(f) => {
                if let Some(v) = self.version_loop(f) {
                    *e = v;
                    return;
                }
            }
            Expr::MethodCall(m) => {
                if let Some(v) = self.version_nested(m) {
                    *e = v;
                    return;
                }
            }
            Expr::Unsafe(u) => {
                self.visit_block_mut(&mut u.block);
                let block = u.block.clone();
                *e = Expr::Block(syn::ExprBlock {
                    attrs: std::mem::take(&mut u.attrs),
                    label: None,
                    block,
                });
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::signature::{parse_kernel, KernelOptions};
    use quote::ToTokens;

    #[test]
    fn rewrites_writable_accesses() {
        let mut sig = parse_kernel(
            KernelOptions::default(),
            syn::parse_str(
                "fn k(i: usize, a: ViewMut<f64>, b: View<f64>) {
                    a[i] = b[i];
                    a[i] += a[i] * 2.0;
                    unsafe { a[0] = 1.0; }
                    let w = [0.0; 2];
                    let x = w[0];
                }",
            )
            .unwrap(),
        )
        .unwrap();
        let env = BodyEnv::for_kernel(&sig);
        rewrite_block(&env, &mut sig.body);
        let s = sig.body.to_token_stream().to_string();
        assert!(s.contains("a . __store (i , b [i])"), "{s}");
        assert!(s.contains("let __rokkos_k = i ; a . __store (__rokkos_k , a . __load (__rokkos_k) + (a . __load (i) * 2.0))"), "{s}");
        assert!(!s.contains("unsafe"), "{s}");
        assert!(s.contains("w [0]"), "{s}");
    }
}
