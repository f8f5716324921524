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

use crate::parse::env::BodyEnv;
use crate::parse::subset::is_compound;
use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr};

/// Rewrites `body` in place.
pub fn rewrite_block(env: &BodyEnv, body: &mut syn::Block) {
    Rewriter {
        env,
        unchecked: None,
        used: HashSet::new(),
    }
    .visit_block_mut(body);
}

/// Rewrites `body` for the chunk-checked variant of a range kernel: accesses to the rank-1 View
/// parameters in `rank1` whose index is exactly the work index `work` become unchecked
/// (`__get_unchecked` / `__load_unchecked` / `__store_unchecked`); everything else is rewritten as
/// by [`rewrite_block`]. Returns the Views that got unchecked accesses: the runner must check
/// `range.end <= extent(0)` for each of them before using this variant.
pub fn rewrite_block_unchecked(
    env: &BodyEnv,
    body: &mut syn::Block,
    work: &syn::Ident,
    rank1: &HashSet<String>,
) -> HashSet<String> {
    let mut r = Rewriter {
        env,
        unchecked: Some((work.to_string(), rank1)),
        used: HashSet::new(),
    };
    r.visit_block_mut(body);
    r.used
}

struct Rewriter<'a> {
    env: &'a BodyEnv,
    /// The work index and the rank-1 View parameters eligible for unchecked access.
    unchecked: Option<(String, &'a HashSet<String>)>,
    /// Views that got unchecked accesses.
    used: HashSet<String>,
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
    /// `a[i]` with `i` the bare work index and `a` eligible for unchecked access: `(a, writable)`.
    fn direct(&mut self, e: &mut Expr) -> Option<(Expr, bool)> {
        let (work, rank1) = self.unchecked.as_ref()?;
        let Expr::Index(ix) = strip_mut(e) else {
            return None;
        };
        let (name, kind) = self.env.view_of(&ix.expr)?;
        let is_work =
            matches!(strip_mut(&mut ix.index), Expr::Path(p) if p.path.is_ident(work.as_str()));
        if !is_work || !rank1.contains(&name) {
            return None;
        }
        self.used.insert(name);
        Some(((*ix.expr).clone(), kind.writable()))
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
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let span = e.span();
        let work = self
            .unchecked
            .as_ref()
            .map(|(w, _)| syn::Ident::new(w, span));
        let (k, v) = locals();
        match e {
            Expr::Assign(a) => {
                if let (Some((view, true)), Some(i)) = (self.direct(&mut a.left), &work) {
                    self.visit_expr_mut(&mut a.right);
                    let rhs = &a.right;
                    let store = owned(quote_spanned!(span=> #view.__store_unchecked(#i, #v)));
                    *e = syn::parse_quote_spanned!(span=> { let #v = #rhs; #store });
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
                if let (Some((view, true)), Some(i)) = (self.direct(&mut b.left), &work) {
                    self.visit_expr_mut(&mut b.right);
                    let rhs = &b.right;
                    let op = binop_of(&b.op);
                    let load = owned(quote_spanned!(span=> #view.__load_unchecked(#i)));
                    let store = owned(quote_spanned!(span=> #view.__store_unchecked(#i, #v)));
                    *e = syn::parse_quote_spanned!(span=> { let #v = #load #op (#rhs); #store });
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
                if let (Some((view, writable)), Some(i)) = (self.direct(e), &work) {
                    let load = if writable {
                        owned(quote_spanned!(span=> #view.__load_unchecked(#i)))
                    } else {
                        owned(quote_spanned!(span=> #view.__get_unchecked(#i)))
                    };
                    *e = syn::parse_quote_spanned!(span=> #load);
                    return;
                }
                if let Some((view, idx)) = self.writable_index(e) {
                    let load = owned(quote_spanned!(span=> #view.__load(#k)));
                    *e = syn::parse_quote_spanned!(span=> { let #k = #idx; #load });
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
}
