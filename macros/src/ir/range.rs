//! `for` loops: integer ranges (`a..b`, `a..=b`, `.step_by(k)`, `.rev()`) and nested team ranges
//! (`for j in team.thread_range(n)`).

use super::expr::strip;
use super::{reject, Sym, Tx, Val, R};
use crate::parse::NestedKind;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Pat, RangeLimits};

/// An adapter applied to a range.
enum Adapter<'e> {
    StepBy(&'e Expr),
    Rev,
}

/// `(a..b).step_by(k).rev()` → the range and its adapters, innermost first.
fn chain(e: &Expr) -> R<(&syn::ExprRange, Vec<Adapter<'_>>)> {
    match strip(e) {
        Expr::Range(r) => Ok((r, Vec::new())),
        Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            let (r, mut a) = chain(&m.receiver)?;
            a.push(Adapter::StepBy(&m.args[0]));
            Ok((r, a))
        }
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            let (r, mut a) = chain(&m.receiver)?;
            a.push(Adapter::Rev);
            Ok((r, a))
        }
        other => reject(other, "`for` loops iterate over integer ranges"),
    }
}

/// The IR name of a nested-range kind.
pub fn nested_kind(k: NestedKind) -> TokenStream {
    let ir = super::ir();
    match k {
        NestedKind::Thread => quote!(#ir::NestedKind::Thread),
        NestedKind::Vector => quote!(#ir::NestedKind::Vector),
        NestedKind::TeamVector => quote!(#ir::NestedKind::TeamVector),
    }
}

impl Tx {
    /// Records a `for` loop.
    pub fn for_loop(&mut self, f: &syn::ExprForLoop) -> R<()> {
        let (var, mutable) = match &*f.pat {
            Pat::Ident(p) => (Some(p.ident.clone()), p.mutability.is_some()),
            Pat::Wild(_) => (None, false),
            p => return reject(p, "the loop variable must be a plain name"),
        };
        let name = var.as_ref().map_or("_".to_string(), Self::name_of);
        if let Expr::MethodCall(m) = strip(&f.expr) {
            if let Some((_, Sym::Team)) = self.sym_of(strip(&m.receiver)) {
                let Some(kind) = NestedKind::of_range(&m.method.to_string()) else {
                    return reject(m, "iterate a nested range: `team.thread_range(n)`");
                };
                return self.nested_for(kind, m, var, &name, &f.body.stmts);
            }
        }
        let b = self.b.clone();
        let (range, adapters) = chain(&f.expr)?;
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return reject(range, "ranges must be bounded on both sides");
        };
        let v = self.operands(&[start, end])?;
        let (s, e) = (v[0].clone(), v[1].ts.clone());
        // `a..=b` stays inclusive in the IR: `b + 1` would wrap to an empty loop at the type's max.
        let inclusive = matches!(range.limits, RangeLimits::Closed(_));
        let (step, rev, rev_first) = match adapters.as_slice() {
            [] => (None, false, false),
            [Adapter::Rev] => (None, true, false),
            [Adapter::StepBy(k)] => (Some(*k), false, false),
            [Adapter::StepBy(k), Adapter::Rev] => (Some(*k), true, false),
            [Adapter::Rev, Adapter::StepBy(k)] => (Some(*k), false, true),
            _ => return reject(&f.expr, "use at most one `.step_by(k)` and one `.rev()`"),
        };
        // A literal step that every counter type holds stays a literal of the counter's type,
        // with its `usize` suffix dropped (`step_by(2usize)` is `step_by(2)`: the suffix only
        // names `step_by`'s parameter type); any other is Rust's `usize` argument, kept as such
        // (a `u64` in the IR): cast to the counter's type it would wrap (a step of 2^32 on a
        // `u32` counter would become 0).
        let (step, by_usize) = match step {
            None => (quote!(1), false),
            Some(k) => match strip(k) {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(n),
                    attrs,
                }) if matches!(n.suffix(), "" | "usize")
                    && n.base10_parse::<u64>().is_ok_and(|v| v <= i32::MAX as u64) =>
                {
                    let plain = Expr::Lit(ExprLit {
                        attrs: attrs.clone(),
                        lit: Lit::Int(syn::LitInt::new(n.base10_digits(), n.span())),
                    });
                    (self.value(&plain)?.ts, false)
                }
                _ => (self.value(k)?.ts, true),
            },
        };
        let open = match (inclusive, by_usize) {
            (true, false) => quote!(for_range_step_inclusive),
            (false, false) => quote!(for_range_step),
            (true, true) => quote!(for_range_step_by_inclusive),
            (false, true) => quote!(for_range_step_by),
        };
        let h = self.tmp();
        if rev_first {
            // `(a..b).rev().step_by(k)`: `b - 1 - (j - a)` for `j` in `(a..b).step_by(k)`, and
            // `(a..=b).rev().step_by(k)`: `b - (j - a)` for `j` in `(a..=b).step_by(k)`. Exact in
            // the IR's wrapping arithmetic, as the result lies in `a..=b`.
            let (lo, hi) = (self.tmp(), self.tmp());
            self.record(quote!(let #lo = #b.let_("_lo", #s); let #hi = #b.let_("_hi", #e);));
            self.record(quote!(let #h = #b.#open("_j", #lo.get(), #hi.get(), #step, false);));
            let top = if inclusive {
                quote!(#hi.get())
            } else {
                quote!(#hi.get() - 1)
            };
            let counter = quote!(#top - (#h.get() - #lo.get()));
            return self.loop_body(f.label.as_ref(), |t| {
                let c = t.tmp();
                t.record(quote!(let #c = #b.let_(#name, #counter);));
                t.counter(var.as_ref(), c, mutable, &name, &f.body.stmts)
            });
        }
        self.record(quote!(let #h = #b.#open(#name, #s, #e, #step, #rev);));
        self.loop_body(f.label.as_ref(), |t| {
            t.counter(var.as_ref(), h, mutable, &name, &f.body.stmts)
        })
    }

    /// Binds the loop counter handle `h` to `var` (a copy when `mut`), then translates the body.
    fn counter(
        &mut self,
        var: Option<&Ident>,
        h: Ident,
        mutable: bool,
        name: &str,
        body: &[syn::Stmt],
    ) -> R<()> {
        if let Some(var) = var {
            if mutable {
                let b = self.b.clone();
                self.record(quote!(let #var = #b.let_(#name, #h.get());));
            } else {
                self.emit(quote!(let #var = #h;));
            }
            let depth = self.depth;
            self.bind(var, Sym::Local { depth });
        }
        self.stmts(body, false).map(drop)
    }

    /// The bounds of a nested range argument: `n` (meaning `0..n`), `a..b` or `a..=b`, and the
    /// suffix of the builder method that opens it (`_inclusive` for `a..=b`, whose last index is
    /// kept as such: `b + 1` would wrap at `usize::MAX`).
    pub fn nested_bounds(&mut self, e: &Expr) -> R<(Val, Val, &'static str)> {
        match strip(e) {
            Expr::Range(r) => match (&r.start, &r.end) {
                (Some(s), Some(end)) => {
                    let v = self.operands(&[s, end])?;
                    let suffix = match r.limits {
                        RangeLimits::HalfOpen(_) => "",
                        RangeLimits::Closed(_) => "_inclusive",
                    };
                    Ok((v[0].clone(), v[1].clone(), suffix))
                }
                _ => reject(r, "nested ranges are `n`, `a..b` or `a..=b`"),
            },
            x => {
                let irb = super::irb();
                let n = self.value(x)?;
                Ok((Val::stable(quote!(#irb::Expr::lit(0usize))), n, ""))
            }
        }
    }

    fn nested_for(
        &mut self,
        kind: NestedKind,
        m: &syn::ExprMethodCall,
        var: Option<Ident>,
        name: &str,
        body: &[syn::Stmt],
    ) -> R<()> {
        let b = self.b.clone();
        let [arg] = m.args.iter().collect::<Vec<_>>()[..] else {
            return reject(
                m,
                "a nested range takes one argument: `n`, `a..b` or `a..=b`",
            );
        };
        let (s, e, suffix) = self.nested_bounds(arg)?;
        let (k, h) = (nested_kind(kind), self.tmp());
        let open = format_ident!("nested_for{suffix}");
        self.record(quote_spanned!(m.span()=> let #h = #b.#open(#k, #name, #s, #e);));
        self.block(true, |t| t.counter(var.as_ref(), h, false, name, body))?;
        self.record(quote!(#b.end();));
        Ok(())
    }
}
