//! Kokkos' nested MD ranges (`TeamThreadMDRange`, `ThreadVectorMDRange`, `TeamVectorMDRange`) and
//! their reductions, written here, before any check reads the body, in the nested ranges the
//! rest of the macro knows, so that the native path, the IR and every rule see the same code.
//! Kokkos itself implements them so: its host backends (and CUDA, for `Iterate::Right`) split the
//! first extent across the threads (the first two across threads and lanes for
//! `TeamVectorMDRange`) and loop over the others in each thread.
//!
//! ```text
//! for [i, j, k] in team.thread_md_range([a, b, c]) { body }
//! // becomes
//! {
//!     let __rk_md_e1: usize = b;
//!     let __rk_md_e2: usize = c;
//!     for i in team.thread_range(a) { for j in 0..__rk_md_e1 { for k in 0..__rk_md_e2 { body } } }
//! }
//!
//! team.thread_md_reduce([a, b], Sum, |[i, j], acc: &mut f64| body)
//! // becomes
//! { let __rk_md_e1: usize = b; team.thread_reduce(a, Sum, |i, acc: &mut f64| { for j in 0..__rk_md_e1 { body; } }) }
//!
//! team.team_vector_md_reduce([a, b], Sum, |[i, j], acc: &mut f64| body)
//! // becomes (a sum only, as in Kokkos)
//! {
//!     let __rk_md_e1: usize = b;
//!     team.thread_reduce(a, Sum, |i, __rk_md_acc: &mut f64| {
//!         *__rk_md_acc += team.vector_reduce(__rk_md_e1, Sum, |j, acc: &mut f64| { body; });
//!     })
//! }
//! ```
//!
//! The extents other than the first are evaluated once, before the loops, as Kokkos evaluates a
//! policy's extents once. A call of the wrong shape is a compile error here, with the form to write.

use super::Errors;
use crate::ir::expr::strip;
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{parse_quote, Expr, Pat};

/// Which nested MD range a method names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Md {
    /// `thread_md_range`, `thread_md_reduce`.
    Thread,
    /// `vector_md_range`, `vector_md_reduce`.
    Vector,
    /// `team_vector_md_range`, `team_vector_md_reduce`.
    TeamVector,
}

impl Md {
    fn of_range(method: &str) -> Option<Md> {
        match method {
            "thread_md_range" => Some(Md::Thread),
            "vector_md_range" => Some(Md::Vector),
            "team_vector_md_range" => Some(Md::TeamVector),
            _ => None,
        }
    }
    fn of_reduce(method: &str) -> Option<Md> {
        match method {
            "thread_md_reduce" => Some(Md::Thread),
            "vector_md_reduce" => Some(Md::Vector),
            "team_vector_md_reduce" => Some(Md::TeamVector),
            _ => None,
        }
    }
    /// The one-dimensional range method of the first extent.
    fn first(self) -> syn::Ident {
        match self {
            Md::Thread | Md::TeamVector => format_ident!("thread_range"),
            Md::Vector => format_ident!("vector_range"),
        }
    }
    /// How many extents it needs at least (Kokkos asks for 2 to 8; one is a plain nested range,
    /// which rokkos accepts too, except where the second extent has a meaning of its own).
    fn min_rank(self) -> usize {
        match self {
            Md::TeamVector => 2,
            Md::Thread | Md::Vector => 1,
        }
    }
}

/// Rewrites every nested MD range and MD reduction in `body`; a malformed one is an error.
pub fn desugar(body: &mut syn::Block) -> syn::Result<()> {
    let mut d = Desugar {
        errors: Errors::default(),
    };
    d.visit_block_mut(body);
    d.errors.finish()
}

struct Desugar {
    errors: Errors,
}

impl Desugar {
    /// The extents `[e0, e1, ..]` of an MD range call, at least `md.min_rank()` of them.
    fn extents(&mut self, arg: &Expr, md: Md, method: &syn::Ident) -> Option<Vec<Expr>> {
        match strip(arg) {
            Expr::Array(a) if a.elems.len() >= md.min_rank() => {
                Some(a.elems.iter().cloned().collect())
            }
            _ => {
                self.errors.spanned(
                    arg,
                    format!(
                        "write the extents of `team.{method}` as an array of {} or more lengths: `team.{method}([n0, n1])`",
                        md.min_rank()
                    ),
                );
                None
            }
        }
    }

    /// The index names of `[i, j, ..]` (one per extent; `_` gets a name of its own).
    fn names(&mut self, pat: &Pat, rank: usize, method: &syn::Ident) -> Option<Vec<syn::Ident>> {
        let pat = match pat {
            Pat::Type(t) => &*t.pat,
            p => p,
        };
        let bad = |errors: &mut Errors| {
            errors.spanned(
                pat,
                format!(
                    "the indices of `team.{method}` are bound as an array of {rank} names, one per extent: `[i, j]`"
                ),
            );
            None
        };
        let Pat::Slice(s) = pat else {
            return bad(&mut self.errors);
        };
        if s.elems.len() != rank {
            return bad(&mut self.errors);
        }
        let mut names = Vec::new();
        for (d, p) in s.elems.iter().enumerate() {
            match p {
                Pat::Ident(i)
                    if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() =>
                {
                    names.push(i.ident.clone())
                }
                Pat::Wild(_) => names.push(format_ident!("__rk_md_i{}", d)),
                _ => return bad(&mut self.errors),
            }
        }
        Some(names)
    }

    fn range(&mut self, f: &syn::ExprForLoop, m: &syn::ExprMethodCall, md: Md) -> Option<Expr> {
        if m.args.len() != 1 {
            self.errors.spanned(
                m,
                format!("write `for [i, j] in team.{}([n0, n1]) {{ .. }}`", m.method),
            );
            return None;
        }
        let extents = self.extents(&m.args[0], md, &m.method)?;
        let names = self.names(&f.pat, extents.len(), &m.method)?;
        let team = &m.receiver;
        let lets = later_extents(&extents);
        let body = &f.body;
        let mut inner = quote!(#body);
        for d in (1..extents.len()).rev() {
            let (name, e) = (&names[d], format_ident!("__rk_md_e{}", d));
            inner = if d == 1 && md == Md::TeamVector {
                quote!({ for #name in #team.vector_range(#e) #inner })
            } else {
                quote!({ for #name in 0..#e #inner })
            };
        }
        let (first, e0, i0, label) = (md.first(), &extents[0], &names[0], &f.label);
        Some(parse_quote!({
            #(#lets)*
            #label for #i0 in #team.#first(#e0) #inner
        }))
    }

    fn reduce(&mut self, m: &syn::ExprMethodCall, md: Md) -> Option<Expr> {
        let method = &m.method;
        let closure = match m.args.iter().nth(2).map(strip) {
            Some(Expr::Closure(c))
                if m.args.len() == 3
                    && c.inputs.len() == 2
                    && c.asyncness.is_none()
                    && c.capture.is_none() =>
            {
                c
            }
            _ => {
                self.errors.spanned(
                    m,
                    format!("write `team.{method}([n0, n1], Sum, |[i, j], acc: &mut T| ..)`"),
                );
                return None;
            }
        };
        let extents = self.extents(&m.args[0], md, method)?;
        let names = self.names(&closure.inputs[0], extents.len(), method)?;
        let (team, reducer, acc) = (&m.receiver, &m.args[1], &closure.inputs[1]);
        let body = &closure.body;
        let lets = later_extents(&extents);
        // The loops over the extents after the first (the second is the vector range's, for
        // `TeamVectorMDRange`), innermost first.
        let inner_from = if md == Md::TeamVector { 2 } else { 1 };
        let mut inner = quote!({ #body; });
        for d in (inner_from..extents.len()).rev() {
            let (name, e) = (&names[d], format_ident!("__rk_md_e{}", d));
            inner = quote!({ for #name in 0..#e #inner });
        }
        let first = match md {
            Md::Thread | Md::TeamVector => format_ident!("thread_reduce"),
            Md::Vector => format_ident!("vector_reduce"),
        };
        let (e0, i0) = (&extents[0], &names[0]);
        if md != Md::TeamVector {
            return Some(parse_quote!({
                #(#lets)*
                #team.#first(#e0, #reducer, |#i0, #acc| #inner)
            }));
        }
        let is_sum = matches!(strip(reducer), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Sum"));
        if !is_sum {
            self.errors.spanned(
                reducer,
                format!(
                    "`team.{method}` sums (Kokkos' `TeamVectorMDRange` reductions are limited to sums): write the reducer `Sum`, or nest a `thread_reduce` and a `vector_reduce` for another"
                ),
            );
            return None;
        }
        let ty = match acc {
            Pat::Type(t) => match &*t.ty {
                syn::Type::Reference(r) if r.mutability.is_some() => Some(&*r.elem),
                _ => None,
            },
            _ => None,
        };
        let Some(ty) = ty else {
            self.errors.spanned(
                acc,
                format!("give the accumulator of `team.{method}` its type: `acc: &mut T`"),
            );
            return None;
        };
        let i1 = &names[1];
        Some(parse_quote!({
            #(#lets)*
            #team.#first(#e0, #reducer, |#i0, __rk_md_acc: &mut #ty| {
                *__rk_md_acc += #team.vector_reduce(__rk_md_e1, #reducer, |#i1, #acc| #inner);
            })
        }))
    }
}

/// `let __rk_md_eD: usize = eD;` for every extent after the first.
fn later_extents(extents: &[Expr]) -> Vec<proc_macro2::TokenStream> {
    extents
        .iter()
        .enumerate()
        .skip(1)
        .map(|(d, e)| {
            let name = format_ident!("__rk_md_e{}", d);
            let e = e.to_token_stream();
            quote!(let #name: usize = #e;)
        })
        .collect()
}

impl VisitMut for Desugar {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Inner constructs first: a body may hold an MD range of its own (a `vector_md_range`
        // in a `thread_range`).
        syn::visit_mut::visit_expr_mut(self, e);
        let new = match e {
            Expr::ForLoop(f) => match strip(&f.expr) {
                Expr::MethodCall(m) => Md::of_range(&m.method.to_string()).and_then(|md| {
                    let m = m.clone();
                    self.range(f, &m, md)
                }),
                _ => None,
            },
            Expr::MethodCall(m) => {
                Md::of_reduce(&m.method.to_string()).and_then(|md| self.reduce(&m.clone(), md))
            }
            _ => None,
        };
        if let Some(new) = new {
            *e = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(src: &str) -> Result<String, String> {
        let mut b: syn::Block = syn::parse_str(src).unwrap();
        desugar(&mut b).map_err(|e| e.to_string())?;
        Ok(b.to_token_stream()
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "))
    }

    #[test]
    fn ranges_become_nested_ranges() {
        let got =
            rewritten("{ for [i, _, k] in team.thread_md_range([a, b, c]) { y[(i, k)] = 1.0; } }")
                .unwrap();
        assert!(got.contains("let __rk_md_e1 : usize = b ;"), "{got}");
        assert!(got.contains("let __rk_md_e2 : usize = c ;"), "{got}");
        assert!(got.contains("for i in team . thread_range (a) { for __rk_md_i1 in 0 .. __rk_md_e1 { for k in 0 .. __rk_md_e2"), "{got}");
        let got = rewritten("{ for [i, j] in team.team_vector_md_range([a, b]) { } }").unwrap();
        assert!(
            got.contains(
                "for i in team . thread_range (a) { for j in team . vector_range (__rk_md_e1)"
            ),
            "{got}"
        );
        let got = rewritten("{ for [i, j] in team.vector_md_range([a, b]) { } }").unwrap();
        assert!(
            got.contains("for i in team . vector_range (a) { for j in 0 .. __rk_md_e1"),
            "{got}"
        );
    }

    #[test]
    fn reductions_become_nested_reductions() {
        let got = rewritten("{ let s = team.thread_md_reduce([a, b], Max, |[i, j], m: &mut f64| *m = m.max(x[(i, j)])); }").unwrap();
        assert!(got.contains("team . thread_reduce (a , Max , | i , m : & mut f64 | { for j in 0 .. __rk_md_e1 { * m = m . max (x [(i , j)]) ; } })"), "{got}");
        let got = rewritten("{ let s = team.team_vector_md_reduce([a, b, c], Sum, |[i, j, k], s: &mut f32| *s += 1.0); }").unwrap();
        assert!(got.contains("team . thread_reduce (a , Sum , | i , __rk_md_acc : & mut f32 | { * __rk_md_acc += team . vector_reduce (__rk_md_e1 , Sum , | j , s : & mut f32 | { for k in 0 .. __rk_md_e2"), "{got}");
    }

    #[test]
    fn malformed_calls_are_errors_naming_the_form() {
        let e = rewritten("{ for (i, j) in team.thread_md_range([a, b]) {} }").unwrap_err();
        assert!(e.contains("array of 2 names"), "{e}");
        let e = rewritten("{ for [i, j] in team.thread_md_range(ext) {} }").unwrap_err();
        assert!(e.contains("as an array of 1 or more lengths"), "{e}");
        let e = rewritten("{ for [i] in team.team_vector_md_range([a]) {} }").unwrap_err();
        assert!(e.contains("2 or more"), "{e}");
        let e = rewritten("{ team.team_vector_md_reduce([a, b], Max, |[i, j], m: &mut f64| {}); }")
            .unwrap_err();
        assert!(e.contains("limited to sums"), "{e}");
        let e =
            rewritten("{ team.team_vector_md_reduce([a, b], Sum, |[i, j], m| {}); }").unwrap_err();
        assert!(e.contains("`acc: &mut T`"), "{e}");
        let e = rewritten("{ team.thread_md_reduce([a, b], Sum, |[i, j]| {}); }").unwrap_err();
        assert!(e.contains("write `team.thread_md_reduce("), "{e}");
    }
}
