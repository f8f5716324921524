//! Rewrites a checked kernel body into native Rust over the accessors.
//!
//! * `a[idx] = e` → `{ let k = idx; let v = e; unsafe { a.__store(k, v) } }`;
//!   `a[idx] op= e` → `{ let k = idx; let v = unsafe { a.__load(k) } op (e); unsafe { a.__store(k, v) } }`;
//!   a read `a[idx]` → `{ let k = idx; unsafe { a.__load(k) } }`, for writable Views and scratch
//!   (read-only Views keep `Index`). The accessors' plain loads and stores are `unsafe fn`s: the
//!   ownership check (`parse::ownership`) is what discharges their contract, and each generated
//!   `unsafe { }` says so. It wraps the accessor call alone, so the user's expressions are never
//!   evaluated in an unsafe context, and it has the macro's span, so lints on the user's crate
//!   (`unsafe_code`) see only the user's own `unsafe`;
//! * `unsafe { .. }` stays an `unsafe` block with the user's own `unsafe` token, so that the
//!   `unsafe_code` lint (`#![forbid(unsafe_code)]`) and audits that look for the token see it where
//!   the user wrote it; the generated function allows `unused_unsafe`, since the accessor calls it
//!   wraps already sit in their own generated blocks (there it only lifts the macro's checks).
//! * a `for` loop over a range whose body indexes Views with the loop variable, and holds at most
//!   one level of inner loops or closures, is versioned: checked once before it runs, then run
//!   with those accesses unchecked (see [`super::hoist`]), or run as written when the check fails
//!   or the range is empty. Unchecked accesses get the same
//!   treatment as owned ones: index and value in generated locals, the `unsafe fn` call alone in a
//!   block with the macro's span.

use super::hoist::{box_names, check_tokens, index_comps, invariant_prologue, loop_depth};
use super::hoist::{rebound, unstable_names};
use super::hoist::{Access, Base, Comp};
use crate::parse::env::{BodyEnv, ViewKind};
use crate::parse::subset::is_compound;
use crate::parse::NestedKind;
use proc_macro2::{Span, TokenStream};
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
    super::math::route_block(body, &env.type_params);
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
    super::math::route_block(body, &env.type_params);
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

/// The two versions of a loop body over a range (a loop with at most one level of loops inside, or
/// a nested reduction's closure) that [`Rewriter::versions`] makes.
struct Versions {
    /// The body's loop-invariant leading `let`s ([`invariant_prologue`]), rewritten as usual and
    /// run once, before the loop, when the range is not empty.
    prologue: Vec<syn::Stmt>,
    /// The condition, in scope of the prologue's names and of `__first`/`__last` (the range's
    /// first and last index), under which the accesses hoistable over the loop variable are in
    /// bounds for the whole range.
    check: TokenStream,
    /// The rest of the body, with those accesses unchecked.
    fast: syn::Block,
    /// The whole body, rewritten as usual.
    slow: syn::Block,
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
        // The View as written (a bare name: `view_of` found it), span and hygiene included.
        let view = match strip(&ix.expr) {
            Expr::Path(p) => p.path.get_ident()?.clone(),
            _ => return None,
        };
        let access = Access { view, comps };
        if !self.used.contains(&access) {
            self.used.push(access);
        }
        Some(((*ix.expr).clone(), (*ix.index).clone(), kind.writable()))
    }

    /// The two versions of the body of a range over `var` (see [`Versions`]). `None` when loops
    /// or closures nest more than one level deep in the body ([`loop_depth`]), the body rebinds
    /// `var`, or indexes no View with `var` (then nothing even says `var` is a `usize`).
    ///
    /// Inner loops and nested ranges are versioned again inside both copies: in the fast copy,
    /// their accesses indexed by `var` and fixed names stay unchecked (this check covers them,
    /// however often the inner loop runs, zero times included, since it bounds every index `var`
    /// takes), and those that use the inner variable get the inner loop's own check.
    fn versions(&mut self, var: &Ident, body: &syn::Block) -> Option<Versions> {
        // A body that is one plain block (`for s in r { $body }` in a `macro_rules!` kernel) is
        // that block: its scope is the iteration's either way.
        let mut body = body;
        while let [syn::Stmt::Expr(e, _)] = &body.stmts[..] {
            // `$body` arrives as an invisible group around the block.
            let mut e = e;
            while let Expr::Group(g) = e {
                e = &g.expr;
            }
            match e {
                Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => body = &b.block,
                _ => break,
            }
        }
        if loop_depth(body) > 1 || rebound(body, std::slice::from_ref(var)) {
            return None;
        }
        let env = self.env;
        let read_only = |v: &Ident| {
            let v = v.to_string();
            env.views.get(&v) == Some(&ViewKind::Read)
                || env.injective.contains(&v)
                || env.ranges.contains(&v)
        };
        let (lets, invariant) = invariant_prologue(body, var, &read_only);
        let mut unstable = unstable_names(body);
        for n in &invariant {
            unstable.remove(&n.to_string());
        }
        let mut fast = body.clone();
        let mut prologue: Vec<syn::Stmt> = fast.stmts.drain(..lets).collect();
        let mut sub = Rewriter {
            env: self.env,
            unchecked: Some(Scope {
                moving: vec![var.clone()],
                fixed: Some(unstable),
            }),
            used: Vec::new(),
        };
        sub.visit_block_mut(&mut fast);
        let moves = |a: &Access| a.comps.iter().any(|c| matches!(c, Comp::Work { .. }));
        if !sub.used.iter().any(moves) {
            return None;
        }
        for st in &mut prologue {
            self.visit_stmt_mut(st);
            // Neither the check nor the fast body may need every name the prologue binds.
            if let syn::Stmt::Local(l) = st {
                l.attrs.push(syn::parse_quote!(#[allow(unused_variables)]));
            }
        }
        let check = check_tokens(&sub.used, &|v, d| quote!(#v.extent(#d)));
        let mut slow = body.clone();
        self.visit_block_mut(&mut slow);
        Some(Versions {
            prologue,
            check,
            fast,
            slow,
        })
    }

    /// `for j in R { body }` as a versioned loop, when `R` is a team range, `a..b` or `a..=b`: the
    /// accesses hoistable over `j` (see [`Rewriter::versions`]) are checked once for the range.
    fn version_loop(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let var = plain_binding(&f.pat)?;
        let team_range = self
            .env
            .team_method(&f.expr)
            .is_some_and(|m| NestedKind::of_range(&m.method.to_string()).is_some());
        let plain_range = matches!(strip(&f.expr), Expr::Range(r)
            if r.start.is_some() && r.end.is_some());
        if !(team_range || plain_range) {
            return None;
        }
        let Versions {
            prologue,
            check,
            fast,
            slow,
        } = self.versions(&var, &f.body)?;
        let (attrs, label) = (&f.attrs, &f.label);
        let mut range = (*f.expr).clone();
        self.visit_expr_mut(&mut range);
        let r = Ident::new("__rokkos_r", Span::mixed_site());
        let (first, last) = box_names();
        let slow_needed = Ident::new("__rokkos_checked", Span::mixed_site());
        // One checked copy, run when the range is empty or the check fails: with an inner loop
        // versioned in both copies, a second one would copy the inner body twice more. A flag,
        // not a labelled block, so that nested versioned loops shadow no label.
        Some(syn::parse_quote_spanned!(f.span()=> {
            let #r = #range;
            let #slow_needed = if let ::core::option::Option::Some((#first, #last)) =
                ::rokkos::NestedIndices::first_last(&#r)
            {
                let (#first, #last) = ([#first], [#last]);
                #(#prologue)*
                // The fast loop counts `first..last + 1`, the indices `r` yields (a range of
                // `usize`, sealed), as an exclusive range, which LLVM vectorises and an
                // inclusive one it does not.
                if #check && #last[0] < ::core::primitive::usize::MAX {
                    #(#attrs)* #label for #var in #first[0]..#last[0] + 1 #fast
                    false
                } else {
                    true
                }
            } else {
                true
            };
            if #slow_needed {
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
        let Versions {
            prologue,
            check,
            fast,
            slow,
        } = self.versions(&var, &body)?;
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
        let (first, last) = box_names();
        Some(syn::parse_quote_spanned!(m.span()=> {
            let #r = ::rokkos::IntoNestedRange::into_range(#range);
            match ::rokkos::NestedIndices::first_last(&#r) {
                ::core::option::Option::Some((#first, #last)) => {
                    let (#first, #last) = ([#first], [#last]);
                    #(#prologue)*
                    if #check {
                        #(#attrs)* #recv.#method(#r, #(#args,)* #cf)
                    } else {
                        #(#attrs)* #recv.#method(#r, #(#args,)* #cs)
                    }
                }
                ::core::option::Option::None => {
                    #(#attrs)* #recv.#method(#r, #(#args,)* #cs)
                }
            }
        }))
    }

    /// The reducer of a nested reduction `team.thread_reduce(n, Sum, ..)`, as the native code
    /// passes it, must be rokkos' own: the IR translation records the join by the reducer's name
    /// ([`crate::ir::team`]), so a user type called `Sum` with another join would run one join
    /// on the host and another on the devices. The argument is kept (its span and any error it
    /// has) but typed as `::rokkos::__private::<name>`, which a type of that name from elsewhere
    /// is not: a compile error where they would disagree.
    fn pin_reducer(&self, m: &mut syn::ExprMethodCall) {
        if !self.env.is_team(&m.receiver)
            || !matches!(
                NestedKind::of_nested_reduce(&m.method.to_string()),
                Some((_, false))
            )
            || m.args.len() != 3
        {
            return;
        }
        let arg = &mut m.args[1];
        let Expr::Path(p) = strip_mut(arg) else {
            return;
        };
        let Some(name) = p.path.segments.last().map(|s| s.ident.clone()) else {
            return;
        };
        if !crate::ir::team::REDUCERS.contains(&name.to_string().as_str()) {
            return;
        }
        let r = syn::Ident::new("__rokkos_reducer", Span::mixed_site());
        let span = arg.span();
        *arg = syn::parse_quote_spanned!(span=> {
            let #r: ::rokkos::__private::#name = #arg;
            #r
        });
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

/// `unsafe { call }` for an accessor call the ownership check (or the author's `unsafe { }`)
/// proved owned: the `unsafe` block has the macro's span, the call keeps the user's.
fn owned(call: TokenStream) -> TokenStream {
    // SAFETY (of the generated block): the index is owned by the work item, so no other work item
    // touches the element; see `parse::ownership`.
    quote_spanned!(Span::mixed_site()=> unsafe { #call })
}

/// The generated locals: the index and the value, evaluated outside any `unsafe` block.
fn locals() -> (syn::Ident, syn::Ident) {
    (
        syn::Ident::new("__rokkos_k", Span::mixed_site()),
        syn::Ident::new("__rokkos_v", Span::mixed_site()),
    )
}

impl VisitMut for Rewriter<'_> {
    // A constant table's value is a compile-time constant: nothing in it is a View access.
    fn visit_item_const_mut(&mut self, _: &mut syn::ItemConst) {}
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let span = e.span();
        let (k, v) = locals();
        let old = syn::Ident::new("__rokkos_old", Span::mixed_site());
        match e {
            Expr::Assign(a) => {
                if let Some((view, idx, true)) = self.direct(&mut a.left) {
                    self.visit_expr_mut(&mut a.right);
                    let rhs = &a.right;
                    let store = owned(quote_spanned!(span=> #view.__store_unchecked(#k, #v)));
                    *e = syn::parse_quote_spanned!(span=> { let #v = #rhs; let #k = #idx; #store });
                    return;
                }
                if let Some((view, idx)) = self.writable_index(&mut a.left) {
                    self.visit_expr_mut(&mut a.right);
                    let rhs = &a.right;
                    let store = owned(quote_spanned!(span=> #view.__store(#k, #v)));
                    *e = syn::parse_quote_spanned!(span=> { let #k = #idx; let #v = #rhs; #store });
                    return;
                }
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                if let Some((view, idx, true)) = self.direct(&mut b.left) {
                    self.visit_expr_mut(&mut b.right);
                    let rhs = &b.right;
                    let op = binop_of(&b.op);
                    // Load, then the right-hand side, then store: the checked form's order.
                    let load = owned(quote_spanned!(span=> #view.__load_unchecked(#k)));
                    let store = owned(quote_spanned!(span=> #view.__store_unchecked(#k, #v)));
                    *e = syn::parse_quote_spanned!(span=> {
                        let #k = #idx;
                        let #old = #load;
                        let #v = #old #op (#rhs);
                        #store
                    });
                    return;
                }
                if let Some((view, idx)) = self.writable_index(&mut b.left) {
                    self.visit_expr_mut(&mut b.right);
                    let rhs = &b.right;
                    let op = binop_of(&b.op);
                    let load = owned(quote_spanned!(span=> #view.__load(#k)));
                    let store = owned(quote_spanned!(span=> #view.__store(#k, #v)));
                    *e = syn::parse_quote_spanned!(span=> {
                        let #k = #idx;
                        let #v = #load #op (#rhs);
                        #store
                    });
                    return;
                }
            }
            Expr::Index(_) => {
                if let Some((view, idx, writable)) = self.direct(e) {
                    let load = if writable {
                        owned(quote_spanned!(span=> #view.__load_unchecked(#k)))
                    } else {
                        owned(quote_spanned!(span=> #view.__get_unchecked(#k)))
                    };
                    *e = syn::parse_quote_spanned!(span=> { let #k = #idx; #load });
                    return;
                }
                if let Some((view, idx)) = self.writable_index(e) {
                    let load = owned(quote_spanned!(span=> #view.__load(#k)));
                    *e = syn::parse_quote_spanned!(span=> { let #k = #idx; #load });
                    return;
                }
            }
            Expr::ForLoop(f) => {
                if let Some(v) = self.version_loop(f) {
                    *e = v;
                    return;
                }
            }
            // A match guard cannot take `c` mutably, which the rewrite needs.
            #[allow(clippy::collapsible_match)]
            Expr::Call(c) => {
                // The rewritten function is the macro's own path: only the arguments are the user's.
                if super::calls::rewrite_call(c, &self.env.type_params) {
                    c.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                    return;
                }
            }
            Expr::MethodCall(m) => {
                self.pin_reducer(m);
                if let Some(v) = self.version_nested(m) {
                    *e = v;
                    return;
                }
            }
            Expr::Unsafe(u) => {
                self.visit_block_mut(&mut u.block);
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
        // Index and value are evaluated outside the generated `unsafe`, which wraps the accessor
        // call alone; the author's `unsafe { }` stays, around the rewritten statement.
        assert!(s.contains("{ let __rokkos_k = i ; let __rokkos_v = b [i] ; unsafe { a . __store (__rokkos_k , __rokkos_v) } }"), "{s}");
        assert!(s.contains("let __rokkos_k = i ; let __rokkos_v = unsafe { a . __load (__rokkos_k) } + ({ let __rokkos_k = i ; unsafe { a . __load (__rokkos_k) } } * 2.0) ; unsafe { a . __store (__rokkos_k , __rokkos_v) }"), "{s}");
        assert!(s.contains("unsafe { { let __rokkos_k = 0 ; let __rokkos_v = 1.0 ; unsafe { a . __store (__rokkos_k , __rokkos_v) } } ; }"), "{s}");
        assert_eq!(s.matches("unsafe").count(), 6, "{s}");
        assert!(s.contains("w [0]"), "{s}");
    }

    fn rewritten(src: &str) -> String {
        let mut sig = parse_kernel(KernelOptions::default(), syn::parse_str(src).unwrap()).unwrap();
        let env = BodyEnv::for_kernel(&sig);
        rewrite_block(&env, &mut sig.body);
        sig.body.to_token_stream().to_string()
    }

    #[test]
    fn versions_a_loop_that_holds_an_inner_loop() {
        let s = rewritten(
            "fn k(team: &TeamMember, y: ViewMut<f64, 2>, x: View<f64, 3>, rows: InjectiveView<i32>) {
                let l = team.league_rank();
                let row = rows[l] as usize;
                for s in team.thread_range(y.extent(1)) {
                    let mut acc = 0.0;
                    for k in 0..x.extent(2) {
                        acc += x[(l, s, k)];
                    }
                    y[(row, s)] = acc + y[(row, s)];
                }
            }",
        );
        // The outer loop is versioned, and the inner one in both of its copies.
        assert_eq!(s.matches("first_last").count(), 3, "{s}");
        // The outer check covers `y[(row, s)]` over the whole sample range, once.
        let outer = "(row < y . extent (0usize)) && (__last [0usize] < y . extent (1usize))";
        assert_eq!(s.matches(outer).count(), 1, "{s}");
        // The inner loop's own check covers `x[(l, s, k)]`, `s` fixed over it.
        assert_eq!(s.matches("(s < x . extent (1usize))").count(), 2, "{s}");
        // The fast copy reads and writes `y` unchecked; the checked copy still checks them.
        assert_eq!(s.matches("y . __load_unchecked").count(), 1, "{s}");
        assert_eq!(s.matches("y . __store_unchecked").count(), 1, "{s}");
        assert_eq!(s.matches("y . __load (").count(), 1, "{s}");
        assert_eq!(s.matches("y . __store (").count(), 1, "{s}");
        // `x[(l, s, k)]` moves with `k`, which the outer body binds: never unchecked there.
        assert_eq!(s.matches("x . __get_unchecked").count(), 2, "{s}");
    }

    #[test]
    fn leaves_deeper_nests_and_unstable_indices_checked() {
        // Two levels of loops inside: the outer loop is not versioned (nor the inner ones, whose
        // accesses do not move with their variables).
        let s = rewritten(
            "fn k(team: &TeamMember, y: ViewMut<f64, 2>) {
                let l = team.league_rank();
                for s in team.thread_range(y.extent(1)) {
                    for k in 0..2 {
                        for j in 0..2 {
                            y[(l, s)] = 1.0;
                        }
                    }
                }
            }",
        );
        assert!(!s.contains("first_last"), "{s}");
        assert!(!s.contains("unchecked"), "{s}");
        // A row the outer body changes, or a non-affine index, stays checked inside the fast
        // copy; the affine access beside it is unchecked.
        let s = rewritten(
            "fn k(team: &TeamMember, y: ViewMut<f64, 2>, x: View<f64, 2>) {
                let l = team.league_rank();
                let mut r = l;
                for s in team.thread_range(y.extent(1)) {
                    r += 1;
                    let mut acc = 0.0;
                    for k in 0..2 {
                        acc += x[(r, s)] + x[(l, 2 * s)];
                    }
                    y[(l, s)] = acc;
                }
            }",
        );
        assert_eq!(s.matches("first_last").count(), 1, "{s}");
        assert_eq!(s.matches("y . __store_unchecked").count(), 1, "{s}");
        assert!(!s.contains("x . __get_unchecked"), "{s}");
        assert_eq!(s.matches("x [(r , s)]").count(), 2, "{s}");
    }
}
