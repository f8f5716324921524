//! Macro hygiene against the name-based checks: one spelling, one hygiene context.
//!
//! Every check of a kernel body identifies a variable by its spelling: owner computes (`a[i]`
//! holds the work index `i`), the rebinding rule, the bounds-check hoisting (accesses at the bare
//! work index are checked once per chunk), the scan rule (`if is_final` guards a final-pass
//! write), the team rules (`out[l]` with `l` the league rank) and the `InjectiveView` and
//! `DisjointRanges` proofs; the IR translation binds names by spelling too. rustc does not:
//! a `macro_rules!` expansion gives the local names the macro writes a hygiene context of their
//! own, so `$w: usize` (the caller's `i`) and `i: usize` (the macro's) are two variables, and the
//! macro's `a[i]` indexes by the second while every check above took it for the first — a kernel
//! that writes `a[0]` from every work item while the proof says each writes its own element.
//!
//! Rather than reimplement rustc's resolution, a kernel (or `#[func]`) is refused when any local
//! name of it — a name some pattern binds: a parameter, a `let`, a `for` or closure variable —
//! or any loop label occurs in more than one hygiene context. Within one context rustc resolves
//! locals lexically by spelling, which is what the checks assume. rustc itself decides which
//! occurrences share a context ([`probe`]: hidden items that compile only if they do), so no
//! guess is made here about how contexts are represented, and names that rustc resolves alike
//! although they come from different expansions (a procedural macro's `Span::call_site()`
//! tokens beside the caller's) are not refused.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::collections::{BTreeMap, BTreeSet};
use syn::visit::Visit;

/// One spelling's occurrences, in source order.
type Occurrences = BTreeMap<String, Vec<proc_macro2::Ident>>;

/// The occurrences of local names and labels in a function item.
#[derive(Default)]
struct Names {
    /// Spellings some pattern binds (parameters, `let`, `for`, closure parameters).
    bound: BTreeSet<String>,
    /// Every binding of, and every single-name path expression spelled as, any name.
    values: Occurrences,
    /// Every loop label, at its definition and in `break` / `continue`.
    labels: Occurrences,
}

impl<'ast> Visit<'ast> for Names {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bound.insert(p.ident.to_string());
        self.values
            .entry(p.ident.to_string())
            .or_default()
            .push(p.ident.clone());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        if e.qself.is_none() {
            if let Some(id) = e.path.get_ident() {
                self.values
                    .entry(id.to_string())
                    .or_default()
                    .push(id.clone());
            }
        }
        syn::visit::visit_expr_path(self, e);
    }
    fn visit_label(&mut self, l: &'ast syn::Label) {
        self.label(&l.name);
        syn::visit::visit_label(self, l);
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        if let Some(l) = &b.label {
            self.label(l);
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        if let Some(l) = &c.label {
            self.label(l);
        }
        syn::visit::visit_expr_continue(self, c);
    }
    // Types, generic parameters and paths of more than one segment name items, which
    // `macro_rules!` hygiene does not separate: not visited for values.
}

impl Names {
    fn label(&mut self, l: &syn::Lifetime) {
        self.labels
            .entry(l.ident.to_string())
            .or_default()
            .push(l.ident.clone());
    }

    fn of(item: &syn::ItemFn) -> Names {
        let mut n = Names::default();
        n.visit_item_fn(item);
        let bound = std::mem::take(&mut n.bound);
        n.values.retain(|name, _| bound.contains(name));
        n.bound = bound;
        n
    }
}

/// Items that compile only when every occurrence of each local name (and label) of `item`
/// shares one hygiene context: rustc's own answer (see the module documentation). Empty when no
/// name occurs twice.
///
/// For each pair of consecutive occurrences `p, o` of a name, a block of the hidden function
/// binds `o`'s spelling, with `o`'s span, to a value of type `Other`, then `p`'s to a value of
/// type `One`, and passes `o` to a function that takes only `One`. When `o` is in `p`'s context
/// it resolves to the later binding, `One`; in another context it resolves to the binding made
/// with its own span, `Other`, and the call fails with the message of `OneBinding`
/// (`#[diagnostic::on_unimplemented]`), pointing at `o`. A label `o` from another context than
/// `p` is undeclared inside the loop `p` labels (rustc's own message).
pub fn probe(item: &syn::ItemFn, what: &str) -> TokenStream {
    let names = Names::of(item);
    let one = syn::Ident::new("__RokkosOne", Span::mixed_site());
    let other = syn::Ident::new("__RokkosNameOfAnotherExpansion", Span::mixed_site());
    let same = syn::Ident::new("__rokkos_same_binding", Span::mixed_site());
    let mut stmts = TokenStream::new();
    for occ in names.values.values() {
        // Each occurrence against the one before it: one error where the context changes, not
        // one per occurrence.
        for pair in occ.windows(2) {
            let (prev, o) = (&pair[0], &pair[1]);
            // The call spanned at the occurrence, so that the error points at it.
            let call = quote_spanned!(o.span()=> #same(&#o););
            stmts.extend(quote!({ let #o = #other; let #prev = #one; #call }));
        }
    }
    for occ in names.labels.values() {
        let label = |id: &proc_macro2::Ident| syn::Lifetime {
            apostrophe: id.span(),
            ident: id.clone(),
        };
        // `break o` inside the loop labelled `p` names that label only when `o` is in `p`'s
        // context, else an undeclared one. (A probe that also labelled a loop with `o`'s span
        // would give a better message, but warns of a shadowed label in the common case.)
        for pair in occ.windows(2) {
            let (prev, o) = (label(&pair[0]), label(&pair[1]));
            stmts.extend(quote!(#prev: loop { if false { break #o; } break; }));
        }
    }
    if stmts.is_empty() {
        return TokenStream::new();
    }
    let trait_ = syn::Ident::new("__RokkosOneBinding", Span::mixed_site());
    let f = syn::Ident::new("__rokkos_one_context_per_name", Span::mixed_site());
    let message =
        format!("this name comes from another macro expansion than the {what}'s other uses of it");
    let note = format!(
        "Rust's macro hygiene makes two variables of one spelling written in different \
         `macro_rules!` expansions, while `#[kernel]`'s checks (owner computes, bounds, scan and \
         team rules) and the device translation of kernels and `#[func]`s know variables by \
         spelling: spell every use of each of the {what}'s variables and labels in one place \
         (pass the name to the macro as `$name:ident` and write `$name` at each use), or rename \
         one of them"
    );
    quote! {
        const _: () = {
            struct #one;
            struct #other;
            #[diagnostic::on_unimplemented(
                message = #message,
                label = "not the variable the checks take it for",
                note = #note
            )]
            trait #trait_ {}
            impl #trait_ for #one {}
            fn #same<T: #trait_>(_: &T) {}
            #[allow(warnings, clippy::all)]
            fn #f() {
                #stmts
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_and_labels_are_collected_but_not_items() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn k(i: usize, a: ViewMut<f64>, n: usize) {
                let s = T::ZERO + f64::MAX;
                'rows: for j in 0..n {
                    if j > i { continue 'rows; }
                    a[i] = foo(s) + N;
                }
            }
        };
        let names = Names::of(&f);
        let values: Vec<_> = names.values.keys().cloned().collect();
        assert_eq!(values, ["a", "i", "j", "n", "s"]);
        assert_eq!(names.values["i"].len(), 3);
        assert_eq!(names.labels["rows"].len(), 2);
    }

    #[test]
    fn a_name_written_once_needs_no_probe() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn k(i: usize) {}
        );
        assert!(probe(&f, "kernel").is_empty());
        let g: syn::ItemFn = syn::parse_quote!(
            fn k(i: usize, a: ViewMut<f64>) {
                a[i] = 1.0;
            }
        );
        let p = probe(&g, "kernel").to_string();
        // `i` occurs twice: bound to `Other` by its use, then to `One` by its parameter.
        assert!(p.contains("{ let i = __RokkosNameOfAnotherExpansion ; let i = __RokkosOne ; __rokkos_same_binding (& i) ; }"), "{p}");
        assert!(
            p.contains("{ let a = __RokkosNameOfAnotherExpansion ; let a = __RokkosOne ;"),
            "{p}"
        );
    }

    #[test]
    fn labels_are_probed_by_breaking_out_of_the_first() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn k(i: usize) {
                'o: loop {
                    break 'o;
                }
            }
        );
        let p = probe(&f, "kernel").to_string();
        assert!(
            p.contains("'o : loop { if false { break 'o ; } break ; }"),
            "{p}"
        );
    }
}
