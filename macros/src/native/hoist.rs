//! Bounds-check hoisting for range and MDRange kernels.
//!
//! An access whose every index component is a work index plus or minus an integer literal, or an
//! integer literal (`a[i]`, `u[(i - 1, j)]`, `q[(i, 2)]`), stays in bounds over a whole box of
//! work items exactly when it does at the box's corners. Host runners therefore check such accesses
//! once per chunk or tile (`__in_bounds(first, last)`, generated here) and then run a body variant
//! in which they are unchecked; every other access keeps its per-element check.
//!
//! The proof needs the work indices to keep their values in the body: the macro refuses to rebind
//! them and they are not `mut`, and [`work_rebound`] re-checks it here so that this module does not
//! rest on a rule enforced elsewhere.

use crate::parse::env::pat_bindings;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{BinOp, Expr, Ident};

/// One index component of a hoistable access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comp {
    /// Work index number `pos` (0 for a range kernel), plus `plus` minus `minus` (one is 0).
    Work {
        /// Position of the work index in the work item.
        pos: usize,
        /// Literal added.
        plus: usize,
        /// Literal subtracted.
        minus: usize,
    },
    /// A literal.
    Lit(usize),
}

/// A hoistable access: the View parameter and its index components, one per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The View parameter's name.
    pub view: String,
    /// One component per dimension.
    pub comps: Vec<Comp>,
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// An unsuffixed or `usize` integer literal.
fn literal(e: &Expr) -> Option<usize> {
    match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(l),
            ..
        }) if matches!(l.suffix(), "" | "usize") => l.base10_parse().ok(),
        _ => None,
    }
}

fn work_pos(e: &Expr, work: &[Ident]) -> Option<usize> {
    match strip(e) {
        Expr::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?;
            work.iter().position(|w| w == id)
        }
        _ => None,
    }
}

fn comp(e: &Expr, work: &[Ident]) -> Option<Comp> {
    if let Some(pos) = work_pos(e, work) {
        return Some(Comp::Work {
            pos,
            plus: 0,
            minus: 0,
        });
    }
    if let Some(c) = literal(e) {
        return Some(Comp::Lit(c));
    }
    let Expr::Binary(b) = strip(e) else {
        return None;
    };
    match b.op {
        BinOp::Add(_) => {
            let (pos, plus) = match (work_pos(&b.left, work), literal(&b.right)) {
                (Some(p), Some(c)) => (p, c),
                _ => (work_pos(&b.right, work)?, literal(&b.left)?),
            };
            Some(Comp::Work {
                pos,
                plus,
                minus: 0,
            })
        }
        BinOp::Sub(_) => Some(Comp::Work {
            pos: work_pos(&b.left, work)?,
            plus: 0,
            minus: literal(&b.right)?,
        }),
        _ => None,
    }
}

/// The components of a View index: `a[e]` → `[e]`, `a[(e1, e2)]` / `a[[e1, e2]]` → `[e1, e2]`.
fn components(e: &Expr) -> Vec<&Expr> {
    match strip(e) {
        Expr::Tuple(t) => t.elems.iter().collect(),
        Expr::Array(a) => a.elems.iter().collect(),
        s => vec![s],
    }
}

/// The hoistable form of index `index`, if every component has one.
pub fn index_comps(index: &Expr, work: &[Ident]) -> Option<Vec<Comp>> {
    components(index)
        .into_iter()
        .map(|c| comp(c, work))
        .collect()
}

/// Whether the body binds a name equal to a work index anywhere (a `let`, a loop or closure
/// pattern), in which case no access is hoisted.
pub fn work_rebound(body: &syn::Block, work: &[Ident]) -> bool {
    struct Finder<'a> {
        work: &'a [Ident],
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_pat(&mut self, p: &'ast syn::Pat) {
            let mut ids = Vec::new();
            pat_bindings(p, &mut ids);
            self.found |= ids.iter().any(|id| self.work.contains(id));
            syn::visit::visit_pat(self, p);
        }
    }
    let mut f = Finder { work, found: false };
    f.visit_block(body);
    f.found
}

/// The body of `__in_bounds(__first, __last)` (both `[usize; N]`, `__first <= __last`): true when
/// every access in `accesses` is in bounds for every work item of the box `__first..=__last`.
/// A component `w + c` is in bounds over the box when `last + c < extent`, `w - c` when
/// `first >= c` and `last - c < extent`, a literal `c` when `c < extent`.
pub fn check_tokens(accesses: &[Access]) -> TokenStream {
    let mut seen = HashSet::new();
    let mut conds = Vec::new();
    for a in accesses {
        let view = format_ident!("{}", a.view);
        for (d, c) in a.comps.iter().enumerate() {
            let extent = quote!(self.#view.extent(#d));
            let cond = match *c {
                Comp::Work {
                    pos,
                    plus: 0,
                    minus: 0,
                } => quote!(__last[#pos] < #extent),
                Comp::Work {
                    pos,
                    plus,
                    minus: 0,
                } => quote!(__last[#pos] < #extent.saturating_sub(#plus)),
                Comp::Work { pos, minus, .. } => {
                    quote!(__first[#pos] >= #minus && __last[#pos].wrapping_sub(#minus) < #extent)
                }
                Comp::Lit(v) => quote!(#v < #extent),
            };
            if seen.insert(cond.to_string()) {
                conds.push(cond);
            }
        }
    }
    quote!(true #(&& (#conds))*)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comps(s: &str, work: &[&str]) -> Option<Vec<Comp>> {
        let work: Vec<Ident> = work.iter().map(|w| format_ident!("{}", w)).collect();
        index_comps(&syn::parse_str(s).unwrap(), &work)
    }

    #[test]
    fn classifies_index_components() {
        let w = |pos, plus, minus| Comp::Work { pos, plus, minus };
        assert_eq!(comps("i", &["i"]), Some(vec![w(0, 0, 0)]));
        assert_eq!(
            comps("(i - 1, j)", &["i", "j"]),
            Some(vec![w(0, 0, 1), w(1, 0, 0)])
        );
        assert_eq!(
            comps("[2 + j, (i + 3usize), 4]", &["i", "j"]),
            Some(vec![w(1, 2, 0), w(0, 3, 0), Comp::Lit(4)])
        );
        // Anything else keeps its per-element check.
        assert_eq!(comps("(i * 2, j)", &["i", "j"]), None);
        assert_eq!(comps("(1 - i, j)", &["i", "j"]), None);
        assert_eq!(comps("(k, j)", &["i", "j"]), None);
        assert_eq!(comps("(i - 1u32 as usize, j)", &["i", "j"]), None);
        assert_eq!(comps("i + n", &["i"]), None);
    }

    #[test]
    fn finds_rebound_work_indices() {
        let work = [format_ident!("i")];
        let body = |s: &str| syn::parse_str::<syn::Block>(s).unwrap();
        assert!(work_rebound(&body("{ let i = 3; }"), &work));
        assert!(work_rebound(&body("{ for i in 0..3 {} }"), &work));
        assert!(!work_rebound(&body("{ let k = i; }"), &work));
    }

    #[test]
    fn checks_cover_each_component_once() {
        let a = Access {
            view: "u".into(),
            comps: vec![
                Comp::Work {
                    pos: 0,
                    plus: 0,
                    minus: 1,
                },
                Comp::Work {
                    pos: 1,
                    plus: 2,
                    minus: 0,
                },
                Comp::Lit(3),
            ],
        };
        let s = check_tokens(&[a.clone(), a]).to_string();
        assert_eq!(s.matches("__first").count(), 1, "{s}");
        assert!(s.contains("saturating_sub (2usize)"), "{s}");
        assert!(s.contains("3usize < self . u . extent (2usize)"), "{s}");
    }
}
