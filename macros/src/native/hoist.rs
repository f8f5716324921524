//! Bounds-check hoisting: which View accesses can be checked once for a whole box of indices.
//!
//! An access whose every index component is a moving index plus or minus an integer literal, a
//! name that keeps its value meanwhile (plus or minus a literal), or an integer literal, stays in
//! bounds over a box of the moving indices exactly when it does at the box's corners. Two places
//! use this:
//!
//! * range and MDRange kernels (the moving indices are the work indices): host runners check such
//!   accesses once per chunk or tile (`__in_bounds(first, last)`, generated here) and then run a
//!   body variant in which they are unchecked;
//! * `for` loops over a range (`for j in team.thread_range(n)`, `for k in a..b`) whose body holds
//!   at most one level of loops or closures ([`loop_depth`]), in any kernel (the moving index is
//!   the loop variable, and any name the loop body does not bind or assign keeps its value, e.g.
//!   the league rank or a row looked up before the loop): the loop is versioned, checked once
//!   before it runs. An outer loop's check covers the accesses of its whole body, inner loops
//!   included, whose indices are its variable and fixed names (`det_data[(row, s)]` in a sample
//!   loop that also sums over `k`); accesses that use an inner loop's variable are left to that
//!   loop's own versioning, in both copies of the outer body.
//!
//! Every other access keeps its per-element check. The proof needs the moving indices to keep their
//! values in the body: the macro refuses to rebind work indices and they are not `mut`, and
//! [`rebound`] re-checks it here so that this module does not rest on a rule enforced elsewhere.

use crate::parse::env::pat_bindings;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{BinOp, Expr, Ident};

/// One index component of a hoistable access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comp {
    /// Moving index number `pos` (a work index, or 0 for a loop variable), plus `plus` minus
    /// `minus` (one is 0).
    Work {
        /// Position of the index in the box.
        pos: usize,
        /// Literal added.
        plus: usize,
        /// Literal subtracted.
        minus: usize,
    },
    /// A name whose value is fixed while the box runs, plus `plus` minus `minus`.
    Fixed {
        /// The name.
        /// The name as the user wrote it (its span keeps `macro_rules!` hygiene).
        name: Ident,
        /// Literal added.
        plus: usize,
        /// Literal subtracted.
        minus: usize,
    },
    /// A literal.
    Lit(usize),
}

/// What a name in an index component is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// Moving index number `pos`.
    Moving(usize),
    /// A name fixed while the box runs.
    Fixed,
}

/// A hoistable access: the View and its index components, one per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The View's name as the user wrote it (its span keeps `macro_rules!` hygiene, so that the
    /// check refers to the same binding as the access).
    pub view: Ident,
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

fn name_of(e: &Expr) -> Option<&Ident> {
    match strip(e) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// `base` plus `plus` minus `minus` as a component.
fn offset(name: &Ident, base: Base, plus: usize, minus: usize) -> Comp {
    match base {
        Base::Moving(pos) => Comp::Work { pos, plus, minus },
        Base::Fixed => Comp::Fixed {
            name: name.clone(),
            plus,
            minus,
        },
    }
}

fn comp(e: &Expr, classify: &dyn Fn(&Ident) -> Option<Base>) -> Option<Comp> {
    if let Some(id) = name_of(e) {
        return Some(offset(id, classify(id)?, 0, 0));
    }
    if let Some(c) = literal(e) {
        return Some(Comp::Lit(c));
    }
    let Expr::Binary(b) = strip(e) else {
        return None;
    };
    match b.op {
        BinOp::Add(_) => {
            let (id, plus) = match (name_of(&b.left), literal(&b.right)) {
                (Some(id), Some(c)) => (id, c),
                _ => (name_of(&b.right)?, literal(&b.left)?),
            };
            Some(offset(id, classify(id)?, plus, 0))
        }
        BinOp::Sub(_) => {
            let id = name_of(&b.left)?;
            Some(offset(id, classify(id)?, 0, literal(&b.right)?))
        }
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

/// The hoistable form of index `index`, if every component has one; `classify` says what a name
/// stands for (`None`: neither moving nor fixed).
pub fn index_comps(index: &Expr, classify: &dyn Fn(&Ident) -> Option<Base>) -> Option<Vec<Comp>> {
    components(index)
        .into_iter()
        .map(|c| comp(c, classify))
        .collect()
}

/// Names the block may change: those it binds (a `let`, a loop or closure pattern), assigns
/// (`x = ..`, `x += ..`) or borrows mutably (`&mut x`).
pub fn unstable_names(body: &syn::Block) -> HashSet<String> {
    struct Finder(HashSet<String>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat(&mut self, p: &'ast syn::Pat) {
            let mut ids = Vec::new();
            pat_bindings(p, &mut ids);
            self.0.extend(ids.iter().map(|i| i.to_string()));
            syn::visit::visit_pat(self, p);
        }
        fn visit_expr(&mut self, e: &'ast Expr) {
            let target = match e {
                Expr::Assign(a) => Some(&*a.left),
                Expr::Binary(b) if crate::parse::subset::is_compound(&b.op) => Some(&*b.left),
                Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
                _ => None,
            };
            if let Some(id) = target.and_then(name_of) {
                self.0.insert(id.to_string());
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut f = Finder(HashSet::new());
    f.visit_block(body);
    f.0
}

/// Whether the body binds one of `names` anywhere, in which case nothing is hoisted over them.
pub fn rebound(body: &syn::Block, names: &[Ident]) -> bool {
    struct Finder<'a> {
        names: &'a [Ident],
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_pat(&mut self, p: &'ast syn::Pat) {
            let mut ids = Vec::new();
            pat_bindings(p, &mut ids);
            self.found |= ids.iter().any(|id| self.names.contains(id));
            syn::visit::visit_pat(self, p);
        }
    }
    let mut f = Finder {
        names,
        found: false,
    };
    f.visit_block(body);
    f.found
}

/// How deeply loops and closures (nested ranges) nest in the block: 0 without any, 1 when every
/// one it holds is innermost. A loop is versioned when its body's depth is at most 1, so that an
/// innermost loop's body is copied at most four times (the outer loop's fast and checked copies,
/// each holding the inner loop's two), not once per nesting level.
pub fn loop_depth(body: &syn::Block) -> usize {
    struct Finder {
        depth: usize,
        max: usize,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, e: &'ast Expr) {
            let nests = matches!(
                e,
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::Closure(_)
            );
            self.depth += usize::from(nests);
            self.max = self.max.max(self.depth);
            syn::visit::visit_expr(self, e);
            self.depth -= usize::from(nests);
        }
    }
    let mut f = Finder { depth: 0, max: 0 };
    f.visit_block(body);
    f.max
}

/// The names of the box's corners in the generated check (`__first`, `__last`): one span for the
/// bindings and the check, whatever hygiene the user's tokens around them have.
pub fn box_names() -> (Ident, Ident) {
    (
        Ident::new("__first", proc_macro2::Span::mixed_site()),
        Ident::new("__last", proc_macro2::Span::mixed_site()),
    )
}

/// A condition that holds when every access in `accesses` is in bounds for every point of the
/// box `__first..=__last` (two `[usize; N]` in scope, `__first <= __last`); `extent(view, d)` is
/// the expression of View `view`'s extent in dimension `d`. A component `w + c` is in bounds over
/// the box when `last + c < extent`, `w - c` when `first >= c` and `last - c < extent`, a fixed
/// name `x + c` when `x + c < extent`, a literal `c` when `c < extent`.
pub fn check_tokens(
    accesses: &[Access],
    extent: &dyn Fn(&Ident, usize) -> TokenStream,
) -> TokenStream {
    let mut seen = HashSet::new();
    let mut conds = Vec::new();
    for a in accesses {
        let view = &a.view;
        let (first, last) = box_names();
        for (d, c) in a.comps.iter().enumerate() {
            let ext = extent(view, d);
            let (low, high) = match c {
                Comp::Work { pos, .. } => (quote!(#first[#pos]), quote!(#last[#pos])),
                Comp::Fixed { name, .. } => (quote!(#name), quote!(#name)),
                Comp::Lit(v) => (quote!(#v), quote!(#v)),
            };
            let (plus, minus) = match *c {
                Comp::Work { plus, minus, .. } | Comp::Fixed { plus, minus, .. } => (plus, minus),
                Comp::Lit(_) => (0, 0),
            };
            let cond = match (plus, minus) {
                (0, 0) => quote!(#high < #ext),
                (p, 0) => quote!(#high < #ext.saturating_sub(#p)),
                (_, m) => quote!(#low >= #m && #high.wrapping_sub(#m) < #ext),
            };
            if seen.insert(cond.to_string()) {
                conds.push(cond);
            }
        }
    }
    quote!(true #(&& (#conds))*)
}

/// The loop-invariant prologue of a loop body over `var`: how many of its leading statements are
/// `let NAME = init;` (a plain immutable name, no `else`) whose `init` has the same value in every
/// iteration, and the names they bind.
///
/// `init` qualifies when it is built only of literals, names, casts, parentheses, unary and binary
/// operators and indexing of Views `read_only` accepts, and names neither `var` nor anything the
/// body may change (other than the prologue's own names, which nothing after them changes). Such a
/// `let` is a pure function of values fixed while the loop runs: reads of read-only Views, which no
/// work item writes during a launch. Evaluating the prologue once before the loop, when the loop
/// runs at least once, therefore binds the values every iteration binds, and fails exactly when the
/// first iteration's first statements would; the versioned loop uses that copy to check accesses
/// indexed by these names (`det_data[(row, s)]` after `let row = data_index[d] as usize;`).
pub fn invariant_prologue(
    body: &syn::Block,
    var: &Ident,
    read_only: &dyn Fn(&Ident) -> bool,
) -> (usize, Vec<Ident>) {
    let mut names: Vec<Ident> = Vec::new();
    let mut count = 0;
    for (k, stmt) in body.stmts.iter().enumerate() {
        let syn::Stmt::Local(local) = stmt else {
            break;
        };
        let (Some(init), syn::Pat::Ident(pi)) = (&local.init, &local.pat) else {
            break;
        };
        if init.diverge.is_some()
            || pi.by_ref.is_some()
            || pi.mutability.is_some()
            || pi.subpat.is_some()
            || !local.attrs.is_empty()
        {
            break;
        }
        let rest = syn::Block {
            brace_token: body.brace_token,
            stmts: body.stmts[k + 1..].to_vec(),
        };
        let later = unstable_names(&rest);
        let mut changing = unstable_names(body);
        for n in names.iter().chain(std::iter::once(&pi.ident)) {
            changing.remove(&n.to_string());
        }
        // Nothing after the prologue may rebind or assign a prologue name, and a name bound twice
        // in the prologue is left to the per-element checks.
        let bound_again = later.contains(&pi.ident.to_string()) || names.contains(&pi.ident);
        if bound_again || !invariant(&init.expr, var, &changing, read_only) {
            break;
        }
        if names.iter().any(|n| later.contains(&n.to_string())) {
            break;
        }
        names.push(pi.ident.clone());
        count = k + 1;
    }
    (count, names)
}

/// Whether `e` has one value while the loop over `var` runs (see [`invariant_prologue`]).
fn invariant(
    e: &Expr,
    var: &Ident,
    changing: &HashSet<String>,
    read_only: &dyn Fn(&Ident) -> bool,
) -> bool {
    let go = |e: &Expr| invariant(e, var, changing, read_only);
    match e {
        Expr::Lit(_) => true,
        Expr::Path(p) => match p.path.get_ident() {
            Some(id) if p.qself.is_none() => id != var && !changing.contains(&id.to_string()),
            _ => false,
        },
        Expr::Paren(p) => go(&p.expr),
        Expr::Group(g) => go(&g.expr),
        Expr::Cast(c) => go(&c.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) && go(&u.expr),
        Expr::Binary(b) => !crate::parse::subset::is_compound(&b.op) && go(&b.left) && go(&b.right),
        Expr::Index(ix) => {
            name_of(&ix.expr).is_some_and(|v| read_only(v) && !changing.contains(&v.to_string()))
                && components(&ix.index).into_iter().all(go)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::format_ident;

    fn comps(s: &str, work: &[&str]) -> Option<Vec<Comp>> {
        let classify = |id: &Ident| match work.iter().position(|w| id == w) {
            Some(p) => Some(Base::Moving(p)),
            None if id == "l" => Some(Base::Fixed),
            None => None,
        };
        index_comps(&syn::parse_str(s).unwrap(), &classify)
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
        let fixed = |plus, minus| Comp::Fixed {
            name: Ident::new("l", proc_macro2::Span::call_site()),
            plus,
            minus,
        };
        assert_eq!(
            comps("(l, l + 1, 2 + l, l - 3, j)", &["j"]),
            Some(vec![
                fixed(0, 0),
                fixed(1, 0),
                fixed(2, 0),
                fixed(0, 3),
                w(0, 0, 0)
            ])
        );
    }

    #[test]
    fn finds_rebound_and_unstable_names() {
        let work = [format_ident!("i")];
        let body = |s: &str| syn::parse_str::<syn::Block>(s).unwrap();
        assert!(rebound(&body("{ let i = 3; }"), &work));
        assert!(rebound(&body("{ for i in 0..3 {} }"), &work));
        assert!(!rebound(&body("{ let k = i; }"), &work));
        let names = unstable_names(&body("{ let a = 1; b = 2; c += 3; f(&mut d); let e = g; }"));
        let mut names: Vec<_> = names.into_iter().collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert_eq!(loop_depth(&body("{ if x { for k in 0..2 {} } }")), 1);
        assert_eq!(
            loop_depth(&body("{ t.vector_reduce(3, Sum, |k, a| {}); }")),
            1
        );
        assert_eq!(loop_depth(&body("{ a[k] = 1.0; }")), 0);
        assert_eq!(
            loop_depth(&body(
                "{ for k in 0..2 {} while c { for j in 0..2 { loop {} } } }"
            )),
            3
        );
    }

    #[test]
    fn checks_cover_each_component_once() {
        let a = Access {
            view: Ident::new("u", proc_macro2::Span::call_site()),
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
        let s = check_tokens(&[a.clone(), a], &|v, d| quote!(self.#v.extent(#d))).to_string();
        assert_eq!(s.matches("__first").count(), 1, "{s}");
        assert!(s.contains("saturating_sub (2usize)"), "{s}");
        assert!(s.contains("3usize < self . u . extent (2usize)"), "{s}");
    }

    fn prologue(body: &str) -> (usize, Vec<String>) {
        let block: syn::Block = syn::parse_str(body).unwrap();
        let read_only = |v: &Ident| v == "rows" || v == "w";
        let (n, names) = invariant_prologue(&block, &format_ident!("s"), &read_only);
        (n, names.iter().map(|i| i.to_string()).collect())
    }

    #[test]
    fn finds_the_loop_invariant_prologue() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            prologue("{ let row = rows[d] as usize; let k = row * 2 + 1; y[(row, s)] *= w[d]; }"),
            (2, names(&["row", "k"]))
        );
        // The loop variable, a writable View, a call, a mutable or later rebound name: not
        // invariant, and the prologue ends there.
        assert_eq!(prologue("{ let a = rows[s]; let b = 1; }"), (0, vec![]));
        assert_eq!(prologue("{ let a = y[d]; }"), (0, vec![]));
        assert_eq!(prologue("{ let a = f(d); }"), (0, vec![]));
        assert_eq!(prologue("{ let mut a = rows[d]; a += 1; }"), (0, vec![]));
        assert_eq!(prologue("{ let a = rows[d]; a = 3; }"), (0, vec![]));
        assert_eq!(prologue("{ let a = rows[d]; let a = a + 1; }"), (0, vec![]));
        // A name the body changes cannot feed the prologue.
        assert_eq!(prologue("{ let a = rows[t]; t += 1; }"), (0, vec![]));
        assert_eq!(
            prologue("{ let a = rows[d]; x = 1; let b = 2; }"),
            (1, names(&["a"]))
        );
    }
}
