//! The owner-computes rule: plain accesses to writable Views must use an index owned by the work item.
//!
//! Owned names: the work index (range), all work indices (MDRange), or in team kernels a league-rank
//! local (`let l = team.league_rank();`) plus the index of every enclosing nested range. An index
//! "contains" a name when one of its components is that bare name or, for the work indices and the
//! league rank, its entry in an `InjectiveView` parameter (`idx[i] as usize`, or an immutable local
//! bound to exactly that): the rule itself, and why it is sound, is `rokkos_rules::owner`.
//! A sample of a `DisjointRanges` range `v` (with `v` owned) holds `v`: a thread range over
//! `r[(v, 0)] as usize..=r[(v, 1)] as usize`, or `let s = r[(v, 0)] as usize + k;` (`k` owned
//! too, then held as well) after a guard `if s > r[(v, 1)] as usize { return; }` that is a
//! statement of an enclosing block. An owned name `o` is also held jointly by `o / x` and
//! `o % x` (immutable locals, `x` a literal or a View parameter's extent), which is how a team
//! per (detector, range) owns both. An affine map `a * o + b` of an owned name (`a` a non-zero
//! literal, `b` launch constants) holds `o` too ([`Form::Affine`]); with an even `a`, [`harden`]
//! sends the component out of bounds where `a * o` wraps. Accesses inside `unsafe { }` are the author's
//! responsibility and not checked. Owned names, and locals holding any of these forms, may not
//! be rebound.
//!
//! The sample `first + k` proves ownership only if the addition does not wrap, and release
//! builds wrap (an MDRange may start near `usize::MAX`): a wrapped sample lies below `first`,
//! passes the guard and lands in another range. So every guarded sample gets a second guard
//! right after its `let`, `if s < k { return; }` ([`harden`]), which holds exactly when the sum
//! wrapped (`first >= 0`); it is added to the body both the native and the IR paths are built
//! from, so every backend skips the same work items.

use super::env::{pat_bindings, pat_ident, plain_binding, BodyEnv, ViewKind};
use super::signature::Work;
use super::subset::is_compound;
use super::{expr_ident, Errors, NestedKind};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use rokkos_rules::owner::{self, Form, Part, Positions};
use std::collections::HashMap;
use syn::visit::Visit;
use syn::{Expr, Ident, Pat};

/// The run-time guards the owner-computes proof of one body needs ([`harden`] adds them).
#[derive(Default)]
pub struct Guards {
    /// The guarded samples `let s = first + k;`, to guard against wrapping.
    samples: Vec<SampleSite>,
    /// The affine index components `a * o + b` with an even `a`, to guard against wrapping.
    affine: Vec<AffineSite>,
    /// The ends of nested ranges over a block of rows, to empty where they would wrap.
    blocks: Vec<BlockSite>,
}

/// The end `e` of a nested range `first..e` over block `o` of `R` rows: [`harden`] replaces it
/// by `if R != 0 && ((o * R) / R != o || first + R < first) { first } else { e }`, so that a
/// block whose rows would wrap is empty (`R == 0`: every block is empty already).
#[derive(Clone, Debug)]
pub struct BlockSite {
    /// The address of `e` in the checked body (as [`SampleSite::local`]).
    at: usize,
    /// `o`, `R` and `first`, as written.
    atom: Box<Expr>,
    per: Box<Expr>,
    first: Box<Expr>,
}

/// Checks the owner-computes rule and the no-rebinding rule on a kernel body. Returns the
/// guards its proof needs at run time, which [`harden`] adds.
pub fn check_block(env: &BodyEnv, body: &syn::Block) -> syn::Result<Guards> {
    let mut o = Owner {
        env,
        errs: Errors::default(),
        nested: Vec::new(),
        unsafe_depth: 0,
        positions: Positions::default(),
        first_access: HashMap::new(),
        lookups: vec![HashMap::new()],
        binding_lookup: None,
        splits: Vec::new(),
        closure_depth: 0,
        guarded_sites: Vec::new(),
        affine_sites: Vec::new(),
        block_sites: Vec::new(),
    };
    o.visit_block(body);
    o.errs.finish()?;
    Ok(Guards {
        samples: o.guarded_sites,
        affine: o.affine_sites,
        blocks: o.block_sites,
    })
}

/// An index component `a * o + b` (or a local holding one) whose map the rule takes as
/// injective, with an even `a`: it holds only while `a * o` does not wrap, so [`harden`]
/// replaces the component `c` of View `v`'s dimension `p` by
/// `if (a * o) / a != o { v.extent(p) } else { c }`, out of bounds. The test reads only `a`,
/// `o` and `a * o`, so a device's 32-bit variant bounds it exactly where it bounds `a * o`.
#[derive(Clone, Debug)]
pub struct AffineSite {
    /// The address of the component in the checked body (as [`SampleSite::local`]).
    at: usize,
    /// The owned name's expression, as written.
    atom: Box<Expr>,
    /// The multiplier's magnitude `|a|`.
    mul: u64,
    /// The View's expression, as written, and the component's dimension.
    view: Box<Expr>,
    dim: usize,
}

impl PartialEq for AffineSite {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at
    }
}

impl Eq for AffineSite {}

impl Affine {
    /// The guard of component `c` (dimension `dim` of `view`), holding this map itself or
    /// through a local, if the multiplier is even.
    fn site(&self, c: &Expr, view: &Expr, dim: usize) -> Option<AffineSite> {
        (self.mul % 2 == 0).then(|| AffineSite {
            at: c as *const Expr as usize,
            atom: Box::new(self.atom.clone()),
            mul: self.mul,
            view: Box::new(view.clone()),
            dim,
        })
    }
}

/// A `let s = first + k;` statement whose sample `s` a guard proved `<= last`.
#[derive(Clone)]
pub struct SampleSite {
    /// The address of the `syn::Local` in the checked body: [`harden`] finds the statement by
    /// it, so it must be given the very body [`check_block`] walked, unmoved and unchanged.
    local: usize,
    /// The bound name, as written (its span keeps the author's hygiene).
    name: Option<Ident>,
    /// The added offset `k`, as written.
    k: Box<Expr>,
}

impl PartialEq for SampleSite {
    fn eq(&self, other: &Self) -> bool {
        self.local == other.local
    }
}

impl Eq for SampleSite {}

impl std::fmt::Debug for SampleSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SampleSite({:#x})", self.local)
    }
}

/// Adds `if s < k { return; }` after each guarded sample's statement in `body`, and the
/// wrapping guard of each affine site, in the body [`check_block`] returned them for.
pub fn harden(body: &mut syn::Block, guards: &Guards) {
    struct Harden<'s>(&'s [SampleSite], &'s [AffineSite], &'s [BlockSite]);
    impl syn::visit_mut::VisitMut for Harden<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            let at = e as *const Expr as usize;
            if let Some(site) = self.2.iter().find(|s| s.at == at) {
                let (o, r, first) = (&site.atom, &site.per, &site.first);
                let orig = e.clone();
                *e = syn::parse_quote!((if #r != 0 && ((#o * #r) / #r != #o || #first + #r < #first) { #first } else { #orig }));
                return;
            }
            if let Some(site) = self.1.iter().find(|s| s.at == at) {
                // The sites hold no other site (their owned name is a bare name), so the
                // original is moved into the guard unvisited.
                let (atom, view) = (&site.atom, &site.view);
                let a = syn::LitInt::new(&format!("{}usize", site.mul), Span::call_site());
                let dim = syn::LitInt::new(&site.dim.to_string(), Span::call_site());
                let orig = e.clone();
                *e = syn::parse_quote!((if (#a * #atom) / #a != #atom { #view.extent(#dim) } else { #orig }));
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }

        fn visit_block_mut(&mut self, b: &mut syn::Block) {
            // Addresses first: inserting moves this block's statements.
            let found: Vec<(usize, &SampleSite)> = b
                .stmts
                .iter()
                .enumerate()
                .filter_map(|(j, st)| match st {
                    syn::Stmt::Local(l) => {
                        let at = l as *const syn::Local as usize;
                        self.0.iter().find(|s| s.local == at).map(|s| (j, s))
                    }
                    _ => None,
                })
                .collect();
            syn::visit_mut::visit_block_mut(self, b);
            for (j, site) in found.into_iter().rev() {
                let (Some(s), k) = (&site.name, &site.k) else {
                    continue;
                };
                // `k` parenthesised: it is re-read as written, whatever its form.
                b.stmts
                    .insert(j + 1, syn::parse_quote!(if #s < (#k) { return; }));
            }
        }
    }
    syn::visit_mut::VisitMut::visit_block_mut(
        &mut Harden(&guards.samples, &guards.affine, &guards.blocks),
        body,
    );
}

struct NestedRange {
    var: String,
    kind: NestedKind,
    method: String,
}

struct Owner<'a> {
    env: &'a BodyEnv,
    errs: Errors,
    nested: Vec<NestedRange>,
    unsafe_depth: usize,
    /// Per (View, owned name): the (position, form) pairs of the name in every access so far.
    positions: Positions<String, String, String>,
    /// Per (View, owned name): the first access holding it, for messages.
    first_access: HashMap<(String, String), String>,
    /// Per block scope: locals bound to a form the rule knows (`let r = idx[i] as usize;`,
    /// `let f = ranges[(v, 0)];`, `let d = l / n;`, ...).
    lookups: Vec<HashMap<String, Meaning>>,
    /// While checking a `let` that binds a known form: that form (the one rebinding of such a
    /// local that keeps its meaning).
    binding_lookup: Option<Meaning>,
    /// The splits `(owned name, divisor)` some local holds a quotient or remainder of.
    splits: Vec<(String, String)>,
    /// Closures entered: a `return` in one leaves the closure, not the work item, so no guard.
    closure_depth: usize,
    /// The `first + k` samples some guard proved in range (see [`harden`]).
    guarded_sites: Vec<SampleSite>,
    /// The affine components with an even multiplier (see [`harden`]).
    affine_sites: Vec<AffineSite>,
    /// The nested ranges over a block of rows (see [`harden`]).
    block_sites: Vec<BlockSite>,
}

/// `o * R` (or `R * o`) of an owned name `o` and a launch constant `R`: the first row of
/// block `o` of `R` rows.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BlockStart {
    /// The owned name and its expression, as written.
    name: String,
    atom: Expr,
    /// `R`'s text (as [`Owner::constant`] names it) and its expression, as written.
    per: String,
    per_expr: Expr,
}

/// `±a * o + Σ ±k` (in any of the forms [`Owner::affine`] reads) of an owned name `o`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Affine {
    /// The owned name.
    name: String,
    /// The map's text: the multiplier and the sorted constant terms (as [`Owner::constant`]
    /// names them), so that `i + 1` and `1 + i` are one map.
    text: String,
    /// The owned name's expression and the multiplier's magnitude.
    atom: Expr,
    mul: u64,
    /// Whether the multiplier is negative (`n - 1 - i`).
    neg: bool,
    /// The constant terms, each negated or not, as written.
    terms: Vec<(bool, String)>,
}

impl Affine {
    fn with_text(mut self) -> Affine {
        let mut terms = self.terms.clone();
        terms.sort();
        let sign = if self.neg { "-" } else { "" };
        self.text = format!("{sign}{}*·", self.mul);
        for (neg, t) in terms {
            self.text += &format!("{}({t})", if neg { "-" } else { "+" });
        }
        self
    }
}

/// What an immutable local holds, as far as the owner rule cares.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Meaning {
    /// `idx[o] as usize`: (InjectiveView, owned name).
    Lookup(String, String),
    /// `ranges[(v, 0)]` (first) or `ranges[(v, 1)]` (last) of range `v` (an owned name), cast
    /// `as usize` or not.
    Bound {
        ranges: String,
        v: String,
        last: bool,
        usize: bool,
    },
    /// `o / by` (quotient) or `o % by` (remainder) of owned name `o`.
    Split { base: String, by: String, rem: bool },
    /// A launch constant (`p.extent(k)`, a literal), by its text.
    Const(String),
    /// `a * o + b` of owned name `o`. With an even `a` the guard is added at each use, and
    /// re-reads `o` there, so `o` is then a name no binding can shadow (not a split).
    Affine(Affine),
    /// `o * R`, the first row of block `o` ([`Form::Block`]).
    BlockStart(BlockStart),
    /// The index of a nested range over the rows of block `o` of `R` rows: (`o`, `R`'s text).
    InBlock(String, String),
    /// A sample of range `v` of `ranges`: `first + k` (`k` an owned name) or a thread range's
    /// index over the range; `guarded` once it is known to be `<= last`.
    Sample {
        ranges: String,
        v: String,
        k: Option<String>,
        guarded: bool,
        /// For `first + k`: where it is bound.
        site: Option<SampleSite>,
    },
    /// A value known to lie in `[0, K)`: the index of a `for` loop or a nested range over `0..K`
    /// (or a count `K`) with a literal `K`, which is the payload.
    Digit(u64),
    /// Rebound in this scope: a plain local again.
    Shadowed,
}

/// `a * o + d` (or `d + a * o`, `o * a + d`) with `a` a power-of-two literal `>= 2` and `d` a
/// digit below `a` ([`Meaning::Digit`] or a literal): see `rokkos_rules::owner::Form::Radix`.
struct Radix {
    /// The high part's operand and the digit, as written.
    o: Expr,
    d: Expr,
    /// The radix.
    a: u64,
}

/// Completes a `first + k` sample's site with the `let` binding it as `name` (at address `at`).
/// The hardening guard `if name < k` reads `k` after the binding, so a `k` that mentions `name`
/// would read the sample itself: no sample then (its accesses are not owned).
fn bind_sample_site(m: Meaning, name: &Ident, at: usize) -> Option<Meaning> {
    match m {
        Meaning::Sample {
            ranges,
            v,
            k,
            guarded,
            site: Some(site),
        } => (!mentions_ident(&site.k, name)).then(|| Meaning::Sample {
            ranges,
            v,
            k,
            guarded,
            site: Some(SampleSite {
                local: at,
                name: Some(name.clone()),
                k: site.k,
            }),
        }),
        other => Some(other),
    }
}

/// Whether `name` appears anywhere in `e`'s tokens (groups included).
fn mentions_ident(e: &Expr, name: &Ident) -> bool {
    fn walk(ts: TokenStream, name: &Ident) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == *name,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
            _ => false,
        })
    }
    walk(e.to_token_stream(), name)
}

/// The owned name of `o / by` or `o % by`.
fn split_name(base: &str, by: &str, rem: bool) -> String {
    format!("`{base}` {} `{by}`", if rem { "%" } else { "/" })
}

/// The owned name of the league rank (all its spellings are one name).
const LEAGUE: &str = "the league rank";

/// The components of a View index: `a[e]` → `[e]`, `a[(e1, e2)]` / `a[[e1, e2]]` → `[e1, e2]`.
fn components(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Paren(p) => components(&p.expr),
        Expr::Group(g) => components(&g.expr),
        Expr::Tuple(t) => t.elems.iter().collect(),
        Expr::Array(a) => a.elems.iter().collect(),
        _ => vec![e],
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

const UNSAFE_HINT: &str = "or wrap the access in `unsafe { }` if you guarantee that concurrent work items touch disjoint elements";

impl Owner<'_> {
    /// Whether a component is `name` itself, or a [`Radix`] component with `name` as its digit
    /// or as its high part's operand (either determines `name` for distinct values of it).
    fn contains(&self, comps: &[&Expr], name: &str) -> bool {
        let is = |e: &Expr| expr_ident(e).is_some_and(|id| id == name);
        comps
            .iter()
            .any(|c| is(c) || self.radix(c).is_some_and(|r| is(&r.d) || is(&r.o)))
    }

    fn is_league(&self, c: &Expr) -> bool {
        expr_ident(c).is_some_and(|id| self.env.league_vars.contains(&id.to_string()))
            || self
                .env
                .team_method(c)
                .is_some_and(|m| m.method == "league_rank" && m.args.is_empty())
    }

    /// The owned name `c` is, bare: a work index of a range or MDRange kernel, or the league rank
    /// of a team kernel (under [`LEAGUE`]).
    fn owned_name(&self, c: &Expr) -> Option<String> {
        match &self.env.work {
            Some(Work::Range(_) | Work::Md(_)) => {
                let id = expr_ident(c)?.to_string();
                let work = self.env.work.as_ref()?.idents();
                work.iter().any(|w| **w == id).then_some(id)
            }
            Some(Work::Team(_)) => self.is_league(c).then(|| LEAGUE.to_string()),
            None => None,
        }
    }

    /// `idx[o] as usize` with `idx` an `InjectiveView` parameter and `o` an owned name:
    /// `(idx, o)`.
    fn injective_lookup(&self, e: &Expr) -> Option<(String, String)> {
        let Expr::Cast(c) = strip(e) else {
            return None;
        };
        let is_usize = matches!(crate::ir::types::strip(&c.ty), syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("usize"));
        let Expr::Index(ix) = strip(&c.expr) else {
            return None;
        };
        let view = expr_ident(&ix.expr)?.to_string();
        let comps = components(&ix.index);
        if !is_usize || !self.env.injective.contains(&view) || comps.len() != 1 {
            return None;
        }
        Some((view, self.atom(comps[0])?))
    }

    /// An owned name `c` is: bare ([`Owner::owned_name`]) or a local holding its quotient or
    /// remainder by a launch constant (named by [`split_name`]).
    fn atom(&self, c: &Expr) -> Option<String> {
        if let Some(n) = self.owned_name(c) {
            return Some(n);
        }
        match self.local(c)? {
            Meaning::Split { base, by, rem } => Some(split_name(&base, &by, rem)),
            _ => None,
        }
    }

    /// What the local `e` names holds, if it is one with a known form in the current scope.
    fn local(&self, e: &Expr) -> Option<Meaning> {
        let id = expr_ident(e)?.to_string();
        self.lookups
            .iter()
            .rev()
            .find_map(|s| s.get(&id))
            .filter(|m| **m != Meaning::Shadowed)
            .cloned()
    }

    /// `ranges[(v, 0)]` / `ranges[(v, 1)]` with `ranges` a `DisjointRanges` and `v` owned:
    /// (ranges, v, last).
    fn range_bound(&self, e: &Expr) -> Option<(String, String, bool)> {
        let Expr::Index(ix) = strip(e) else {
            return None;
        };
        let ranges = expr_ident(&ix.expr)?.to_string();
        let comps = components(&ix.index);
        if !self.env.ranges.contains(&ranges) || comps.len() != 2 {
            return None;
        }
        let last = match strip(comps[1]) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => match i.base10_digits() {
                "0" => false,
                "1" => true,
                _ => return None,
            },
            _ => return None,
        };
        Some((ranges, self.atom(comps[0])?, last))
    }

    /// A range bound as a `usize`: `ranges[(v, b)] as usize`, `x as usize` with `x` a local
    /// holding `ranges[(v, b)]`, or a local holding the former. The entries are non-negative
    /// 32-bit integers, so the cast keeps the value.
    fn usize_bound(&self, e: &Expr) -> Option<(String, String, bool)> {
        if let Expr::Cast(c) = strip(e) {
            let is_usize = matches!(crate::ir::types::strip(&c.ty), syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("usize"));
            if !is_usize {
                return None;
            }
            if let Some(b) = self.range_bound(&c.expr) {
                return Some(b);
            }
            return match self.local(&c.expr)? {
                Meaning::Bound {
                    ranges,
                    v,
                    last,
                    usize: false,
                } => Some((ranges, v, last)),
                _ => None,
            };
        }
        match self.local(e)? {
            Meaning::Bound {
                ranges,
                v,
                last,
                usize: true,
            } => Some((ranges, v, last)),
            _ => None,
        }
    }

    /// The text of a launch constant: an integer literal, `p.extent(k)` with `p` a View
    /// parameter and `k` a literal, or a local holding one.
    fn constant(&self, e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => Some(i.base10_digits().to_string()),
            Expr::MethodCall(m) if m.method == "extent" && m.args.len() == 1 => {
                let view = expr_ident(&m.receiver)?.to_string();
                let param = matches!(
                    self.env.views.get(&view),
                    Some(ViewKind::Read | ViewKind::Write)
                );
                let k = match strip(&m.args[0]) {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_digits().to_string(),
                    _ => return None,
                };
                param.then(|| format!("{view}.extent({k})"))
            }
            Expr::Path(_) => {
                let id = expr_ident(e)?.to_string();
                match self.lookups.iter().rev().find_map(|s| s.get(&id)) {
                    Some(Meaning::Const(t)) => Some(t.clone()),
                    Some(_) => None,
                    // An immutable scalar parameter no binding shadows.
                    None => self.env.const_scalars.contains(&id).then_some(id),
                }
            }
            Expr::Cast(c) => {
                let inner = self.constant(&c.expr)?;
                let ty = compact(&c.ty.to_token_stream().to_string());
                Some(format!("({inner} as {ty})"))
            }
            Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => "+",
                    syn::BinOp::Sub(_) => "-",
                    syn::BinOp::Mul(_) => "*",
                    syn::BinOp::Div(_) => "/",
                    syn::BinOp::Rem(_) => "%",
                    _ => return None,
                };
                let (l, r) = (self.constant(&b.left)?, self.constant(&b.right)?);
                Some(format!("({l}{op}{r})"))
            }
            _ => None,
        }
    }

    /// A non-zero integer literal's magnitude.
    fn multiplier(e: &Expr) -> Option<u64> {
        match strip(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<u64>().ok().filter(|&a| a != 0),
            _ => None,
        }
    }

    /// `a * o`, `o * a` (`a` a non-zero integer literal) or `o`, of an owned name `o`.
    fn linear(&self, e: &Expr) -> Option<Affine> {
        let e = strip(e);
        if let Some(name) = self.atom(e) {
            return Some(Affine {
                name,
                text: String::new(),
                atom: e.clone(),
                mul: 1,
                neg: false,
                terms: Vec::new(),
            });
        }
        let Expr::Binary(b) = e else {
            return None;
        };
        if !matches!(b.op, syn::BinOp::Mul(_)) {
            return None;
        }
        let (a, o) = match (Self::multiplier(&b.left), Self::multiplier(&b.right)) {
            (Some(a), _) => (a, &*b.right),
            (None, Some(a)) => (a, &*b.left),
            _ => return None,
        };
        let name = self.atom(o)?;
        Some(Affine {
            name,
            text: String::new(),
            atom: strip(o).clone(),
            mul: a,
            neg: false,
            terms: Vec::new(),
        })
    }

    /// An injective affine map of an owned name: a [`Owner::linear`] term plus or minus launch
    /// constants, or a constant minus one (`n - 1 - i`), at any depth. `None` for the bare name
    /// (that is [`Form::Direct`]). Also a local holding one.
    fn affine(&self, e: &Expr) -> Option<Affine> {
        let a = self.affine_any(e)?;
        (a.mul != 1 || a.neg || !a.terms.is_empty()).then(|| a.with_text())
    }

    fn affine_any(&self, e: &Expr) -> Option<Affine> {
        if let Some(l) = self.linear(e) {
            return Some(l);
        }
        let Expr::Binary(b) = strip(e) else {
            return None;
        };
        let sub = match b.op {
            syn::BinOp::Add(_) => false,
            syn::BinOp::Sub(_) => true,
            _ => return None,
        };
        if let (Some(mut a), Some(k)) = (self.affine_any(&b.left), self.constant(&b.right)) {
            a.terms.push((sub, k));
            return Some(a);
        }
        let (k, mut a) = (self.constant(&b.left)?, self.affine_any(&b.right)?);
        if sub {
            // `k - (±a·o + Σ t)` = `∓a·o + k - Σ t`.
            a.neg = !a.neg;
            a.terms.iter_mut().for_each(|t| t.0 = !t.0);
        }
        a.terms.push((false, k));
        Some(a)
    }

    /// `o * R` or `R * o` as written (`o` an owned name, `R` a launch constant).
    fn block_start_inline(&self, e: &Expr) -> Option<BlockStart> {
        let Expr::Binary(b) = strip(e) else {
            return None;
        };
        if !matches!(b.op, syn::BinOp::Mul(_)) {
            return None;
        }
        let (o, r) = match (self.atom(&b.left), self.atom(&b.right)) {
            (Some(_), None) => (&*b.left, &*b.right),
            (None, Some(_)) => (&*b.right, &*b.left),
            _ => return None,
        };
        Some(BlockStart {
            name: self.atom(o)?,
            atom: strip(o).clone(),
            per: self.constant(r)?,
            per_expr: strip(r).clone(),
        })
    }

    /// The first row of a block: `o * R` inline or a local holding it.
    fn block_start(&self, e: &Expr) -> Option<BlockStart> {
        if let Some(b) = self.block_start_inline(e) {
            return Some(b);
        }
        match self.local(e)? {
            Meaning::BlockStart(b) => Some(b),
            // `let first = l * 4;` is read as the affine map `4 * l` first.
            Meaning::Affine(a) if !a.neg && a.terms.is_empty() && a.mul > 1 => {
                let per = syn::LitInt::new(&a.mul.to_string(), Span::call_site());
                Some(BlockStart {
                    name: a.name,
                    atom: a.atom,
                    per: a.mul.to_string(),
                    per_expr: syn::parse_quote!(#per),
                })
            }
            _ => None,
        }
    }

    /// Whether `e` is `first + R` (either order) or its `min` with anything
    /// (`(first + R).min(n)`, `n.min(first + R)`): an end at most `first + R`.
    fn block_end(&self, e: &Expr, first: &Expr, per: &str) -> bool {
        let same = |x: &Expr| {
            compact(&strip(x).to_token_stream().to_string())
                == compact(&strip(first).to_token_stream().to_string())
        };
        match strip(e) {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
                (same(&b.left) && self.constant(&b.right).as_deref() == Some(per))
                    || (same(&b.right) && self.constant(&b.left).as_deref() == Some(per))
            }
            Expr::MethodCall(m) if m.method == "min" && m.args.len() == 1 => {
                self.block_end(&m.receiver, first, per) || self.block_end(&m.args[0], first, per)
            }
            _ => false,
        }
    }

    /// The form the initializer of an immutable `let` has, if the rule knows it.
    fn meaning(&self, init: &Expr) -> Option<Meaning> {
        if let Some((view, name)) = self.injective_lookup(init) {
            return Some(Meaning::Lookup(view, name));
        }
        if let Some((ranges, v, last)) = self.range_bound(init) {
            return Some(Meaning::Bound {
                ranges,
                v,
                last,
                usize: false,
            });
        }
        if let Some((ranges, v, last)) = self.usize_bound(init) {
            return Some(Meaning::Bound {
                ranges,
                v,
                last,
                usize: true,
            });
        }
        if let Some(t) = self.constant(init) {
            return Some(Meaning::Const(t));
        }
        if let Some(a) = self.affine(init) {
            let fixed = a.mul % 2 == 1 || self.owned_name(&a.atom).is_some();
            return fixed.then_some(Meaning::Affine(a));
        }
        if let Some(b) = self.block_start_inline(init) {
            return Some(Meaning::BlockStart(b));
        }
        let Expr::Binary(b) = strip(init) else {
            return None;
        };
        match b.op {
            syn::BinOp::Div(_) | syn::BinOp::Rem(_) => {
                let base = self.owned_name(&b.left)?;
                let by = self.constant(&b.right)?;
                Some(Meaning::Split {
                    base,
                    by,
                    rem: matches!(b.op, syn::BinOp::Rem(_)),
                })
            }
            syn::BinOp::Add(_) => {
                let sample = |f: &Expr, k_expr: &Expr| {
                    let (ranges, v, last) = self.usize_bound(f)?;
                    let k = self.atom(k_expr)?;
                    (!last).then(|| Meaning::Sample {
                        ranges,
                        v,
                        k: Some(k),
                        guarded: false,
                        // Completed by the `let` that binds it.
                        site: Some(SampleSite {
                            local: 0,
                            name: None,
                            k: Box::new(k_expr.clone()),
                        }),
                    })
                };
                sample(&b.left, &b.right).or_else(|| sample(&b.right, &b.left))
            }
            _ => None,
        }
    }

    /// `if s > ranges[(v, 1)] as usize { return; }` (or `last < s`) for a sample local `s` of
    /// range `v` of `ranges`: (the local's name, its guarded meaning).
    fn guard(&self, e: &Expr) -> Option<(String, Meaning)> {
        let Expr::If(i) = strip(e) else {
            return None;
        };
        let returns = i.else_branch.is_none()
            && i.then_branch.stmts.len() == 1
            && match &i.then_branch.stmts[0] {
                syn::Stmt::Expr(Expr::Return(r), _) => r.expr.is_none(),
                _ => false,
            };
        let Expr::Binary(b) = strip(&i.cond) else {
            return None;
        };
        let (s, last) = match b.op {
            syn::BinOp::Gt(_) if returns => (&*b.left, &*b.right),
            syn::BinOp::Lt(_) if returns => (&*b.right, &*b.left),
            _ => return None,
        };
        let Some(Meaning::Sample {
            ranges, v, k, site, ..
        }) = self.local(s)
        else {
            return None;
        };
        let (r2, v2, is_last) = self.usize_bound(last)?;
        (r2 == ranges && v2 == v && is_last).then(|| {
            (
                expr_ident(s).expect("a local").to_string(),
                Meaning::Sample {
                    ranges,
                    v,
                    k,
                    guarded: true,
                    site,
                },
            )
        })
    }

    /// The `K` of a value known to lie in `[0, K)`: a literal `n` (`K = n + 1`) or a local
    /// holding a [`Meaning::Digit`].
    fn digit_bound(&self, e: &Expr) -> Option<u64> {
        match strip(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<u64>().ok()?.checked_add(1),
            _ => match self.local(e)? {
                Meaning::Digit(k) => Some(k),
                _ => None,
            },
        }
    }

    /// `c` as a [`Radix`] component, if it is one. The high part's operand must be a name or
    /// the league rank (the wrapping guard reads it again).
    fn radix(&self, c: &Expr) -> Option<Radix> {
        let Expr::Binary(b) = strip(c) else {
            return None;
        };
        if !matches!(b.op, syn::BinOp::Add(_)) {
            return None;
        }
        let high = |e: &Expr| -> Option<(Expr, u64)> {
            let Expr::Binary(m) = strip(e) else {
                return None;
            };
            if !matches!(m.op, syn::BinOp::Mul(_)) {
                return None;
            }
            let (a, o) = match (Self::multiplier(&m.left), Self::multiplier(&m.right)) {
                (Some(a), _) => (a, &*m.right),
                (None, Some(a)) => (a, &*m.left),
                _ => return None,
            };
            let pure = expr_ident(o).is_some() || self.is_league(o);
            (a >= 2 && a.is_power_of_two() && pure).then(|| (strip(o).clone(), a))
        };
        let (o, a, d) = match (high(&b.left), high(&b.right)) {
            (Some((o, a)), _) if self.digit_bound(&b.right).is_some_and(|k| k <= a) => {
                (o, a, &*b.right)
            }
            (_, Some((o, a))) if self.digit_bound(&b.left).is_some_and(|k| k <= a) => {
                (o, a, &*b.left)
            }
            _ => return None,
        };
        Some(Radix {
            o,
            d: strip(d).clone(),
            a,
        })
    }

    /// How index component `c` holds owned names, if it does.
    fn part(&self, c: &Expr) -> Part<String, String> {
        if let Some(name) = self.atom(c) {
            return Part::owned(name, Form::Direct);
        }
        if let Some((view, name)) = self.injective_lookup(c) {
            return Part::owned(name, Form::Through(view));
        }
        // A range's first and last index lie in it.
        if let Some((ranges, v, _)) = self.usize_bound(c) {
            return Part::owned(v, Form::InRange(ranges));
        }
        if let Some(a) = self.affine(c) {
            return Part::owned(a.name, Form::Affine(a.text));
        }
        if let Some(r) = self.radix(c) {
            if let Some(name) = self.atom(&r.o) {
                return Part::owned(name, Form::Radix(r.a.to_string()));
            }
        }
        match self.local(c) {
            Some(Meaning::Lookup(view, name)) => Part::owned(name, Form::Through(view)),
            Some(Meaning::Affine(a)) => Part::owned(a.name, Form::Affine(a.text)),
            Some(Meaning::InBlock(name, per)) => Part::owned(name, Form::Block(per)),
            Some(Meaning::Sample {
                ranges,
                v,
                k,
                guarded: true,
                ..
            }) => {
                let mut holds = vec![(v, Form::InRange(ranges.clone()))];
                holds.extend(k.map(|k| (k, Form::Offset(ranges))));
                Part { holds }
            }
            _ => Part::other(),
        }
    }

    /// The components' parts, with one pseudo component after them holding each owned name
    /// whose quotient and remainder by one divisor the components hold ([`Form::Split`]).
    fn parts(&self, comps: &[&Expr]) -> Vec<Part<String, String>> {
        let mut parts: Vec<Part<String, String>> = comps.iter().map(|c| self.part(c)).collect();
        let held = |n: &str| parts.iter().any(|p| p.holds(&n.to_string()));
        let joint: Vec<(String, Form<String>)> = self
            .splits
            .iter()
            .filter(|(b, by)| held(&split_name(b, by, false)) && held(&split_name(b, by, true)))
            .map(|(b, by)| (b.clone(), Form::Split(by.clone())))
            .collect();
        parts.push(Part { holds: joint });
        parts
    }

    /// A hint for a write whose index has a sample that is not guarded yet.
    fn unguarded_hint(&self, comps: &[&Expr]) -> String {
        for c in comps {
            if let Some(Meaning::Sample {
                ranges,
                v,
                guarded: false,
                ..
            }) = self.local(c)
            {
                let s = compact(&c.to_token_stream().to_string());
                let v = self.spell(&v);
                return format!(" (`{s}` is a sample of `{ranges}` but may lie past its range: write `if {s} > {ranges}[({v}, 1)] as usize {{ return; }}` before the access)");
            }
        }
        if self.env.ranges.is_empty() {
            return String::new();
        }
        " (a sample `s` of range `v` of a `DisjointRanges` holds `v`, with `v` owned: `for s in team.thread_range(r[(v, 0)] as usize..=r[(v, 1)] as usize)`, or `let s = r[(v, 0)] as usize + k;` then `if s > r[(v, 1)] as usize { return; }`)".to_string()
    }

    /// An owned name as the user spells it in a lookup.
    fn spell(&self, owned: &str) -> String {
        if owned == LEAGUE {
            self.league_name()
        } else {
            owned.to_string()
        }
    }

    fn holds(parts: &[Part<String, String>], name: &str) -> bool {
        owner::missing(parts, &[name.to_string()]).is_empty()
    }

    /// Every access to one View must hold an owned name at a shared (position, form): `a[(i, k)]`
    /// and `a[(k, i)]` in one kernel let work items `1` and `2` both reach `a[(1, 2)]`, and
    /// `a[i]` and `a[idx[i] as usize]` let work items `idx[0]` and `0` meet.
    fn track_positions(
        &mut self,
        view: &str,
        name: &str,
        owned: &str,
        parts: &[Part<String, String>],
        span: &TokenStream,
    ) -> bool {
        let text = compact(&span.to_string());
        let owned_short = if name.contains('`') {
            "o".to_string()
        } else {
            self.spell(name)
        };
        let key = (view.to_string(), name.to_string());
        let also = if self.env.ranges.is_empty() {
            ""
        } else {
            " or as a sample of the same `DisjointRanges`"
        };
        match self
            .positions
            .record(view.to_string(), &name.to_string(), parts)
        {
            Ok(false) => true,
            Ok(true) => {
                self.first_access.entry(key).or_insert(text);
                true
            }
            Err(_) => {
                let first = self.first_access.get(&key).cloned().unwrap_or_default();
                self.errs.spanned(
                    span,
                    format!(
                        "`{view}` is indexed with {owned} at different positions or in different forms (`{text}` here, `{first}` before): two work items could reach the same element. Keep {owned} at the same position, either itself, through the same `InjectiveView` or as the same affine map (`{owned_short} + k`){also}, in every access to `{view}`, {UNSAFE_HINT}"
                    ),
                );
                false
            }
        }
    }

    fn league_name(&self) -> String {
        let mut v: Vec<&String> = self.env.league_vars.iter().collect();
        v.sort();
        v.first()
            .map(|s| s.to_string())
            .unwrap_or_else(|| "l".to_string())
    }

    fn team_name(&self) -> &str {
        self.env.team.as_deref().unwrap_or("team")
    }

    #[allow(clippy::too_many_arguments)]
    fn check_access(
        &mut self,
        view: &str,
        receiver: &Expr,
        kind: ViewKind,
        index: &Expr,
        write: bool,
        at: &dyn ToTokens,
    ) {
        let span = at.to_token_stream();
        if self.unsafe_depth > 0 || kind == ViewKind::Read {
            return;
        }
        if !write && kind != ViewKind::Write {
            return; // scratch reads are free
        }
        let access = if write {
            format!("write to `{view}`")
        } else {
            format!("read of `{view}`")
        };
        if self.env.atomic_views.contains(view) {
            self.errs.spanned(
                &span,
                format!(
                    "plain {access}, a View this kernel also updates atomically: access it only atomically (`{view}.atomic_load(idx)`, `{view}.atomic_store(idx, v)`), {UNSAFE_HINT}"
                ),
            );
            return;
        }
        let comps = components(index);
        for (dim, c) in comps.iter().enumerate() {
            let affine = match self.local(c) {
                Some(Meaning::Affine(a)) => Some(a),
                _ => self.affine(c),
            };
            let site = affine.and_then(|a| a.site(c, receiver, dim)).or_else(|| {
                self.radix(c).map(|r| AffineSite {
                    at: *c as *const Expr as usize,
                    atom: Box::new(r.o),
                    mul: r.a,
                    view: Box::new(receiver.clone()),
                    dim,
                })
            });
            if let Some(site) = site {
                if !self.affine_sites.contains(&site) {
                    self.affine_sites.push(site);
                }
            }
        }
        let parts = self.parts(&comps);
        let hint = self.unguarded_hint(&comps);
        let race = if write {
            "two work items could write the same element"
        } else {
            "another work item may be writing that element"
        };
        let remedy = if write {
            format!("use an atomic (`{view}.atomic_add(idx, v)`)")
        } else {
            format!("use `{view}.atomic_load(idx)`, pass the data as a read-only `View<..>` if the kernel does not write it")
        };
        let team = self.team_name().to_string();
        match (&self.env.work, kind) {
            (Some(Work::Range(i)), ViewKind::Write) if !Self::holds(&parts, &i.to_string()) => {
                self.errs.spanned(
                    &span,
                    format!(
                        "{access} at an index that does not contain the work index `{i}`{hint}: {race}. Index with `{i}` (e.g. `{view}[{i}]`, `{view}[({i}, k)]`, an affine map `{view}[2 * {i} + k]`: a non-zero literal multiplier and a launch-constant `k`, or a block `{view}[4 * {i} + c]`: a power-of-two literal and `c` from a literal `0..4`), {remedy}, {UNSAFE_HINT}"
                    ),
                );
            }
            (Some(Work::Md(ids)), ViewKind::Write) => {
                let missing: Vec<String> = ids
                    .iter()
                    .map(|i| i.to_string())
                    .filter(|i| !Self::holds(&parts, i))
                    .collect();
                if !missing.is_empty() {
                    let all: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
                    let which = if missing.len() == 1 {
                        format!("the work index `{}`", missing[0])
                    } else {
                        format!(
                            "the work indices {}",
                            missing
                                .iter()
                                .map(|m| format!("`{m}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    self.errs.spanned(
                        &span,
                        format!(
                            "{access} at an index that does not contain {which} (the work item is `({})`){hint}: {race}. Index with all of the work indices (e.g. `{view}[({})]`), {remedy}, {UNSAFE_HINT}",
                            all.join(", "),
                            all.join(", ")
                        ),
                    );
                }
            }
            (Some(Work::Team(_)), ViewKind::Write | ViewKind::TeamScratch) => {
                let what = if kind == ViewKind::Write {
                    access.clone()
                } else {
                    format!("{access} (team scratch)")
                };
                if kind == ViewKind::Write && !Self::holds(&parts, LEAGUE) {
                    let l = self.league_name();
                    let bind = if self.env.league_vars.is_empty() {
                        format!(
                            "bind it with `let {l} = {team}.league_rank();` and index with `{l}`"
                        )
                    } else {
                        format!("index with `{l}`")
                    };
                    self.errs.spanned(
                        &span,
                        format!(
                            "{what} at an index that does not contain the league rank{hint}: two teams could {}. {} (e.g. `{view}[({l}, j)]` or `{view}[2 * {l} + 1]`; a tile: `{view}[(32 * {l} + r, ..)]` with `r` below the power of two 32 (a literal `team.thread_range(32)` or `for r in 0..32`); a block of rows: `for r in {team}.thread_range({l} * R..({l} * R + R).min(n))` with a launch-constant `R`; ranges of any lengths: a `DisjointRanges` parameter `rg` and `for s in {team}.thread_range(rg[({l}, 0)] as usize..=rg[({l}, 1)] as usize)`), {remedy}, {UNSAFE_HINT}",
                            if write { "write the same element" } else { "race on that element" },
                            capitalize(&bind)
                        ),
                    );
                    return;
                }
                self.check_nested_vars(&comps, &what, view, write, &remedy, |_| true, &span);
            }
            (Some(Work::Team(_)), ViewKind::ThreadScratch) => {
                let what = format!("{access} (thread scratch)");
                self.check_nested_vars(
                    &comps,
                    &what,
                    view,
                    write,
                    &remedy,
                    NestedKind::is_vector,
                    &span,
                );
            }
            _ => {}
        }
        match (&self.env.work, kind) {
            (Some(Work::Range(_) | Work::Md(_)), ViewKind::Write) => {
                let ids: Vec<String> = self
                    .env
                    .work
                    .as_ref()
                    .unwrap()
                    .idents()
                    .iter()
                    .map(|i| i.to_string())
                    .collect();
                for id in ids {
                    let owned = format!("the work index `{id}`");
                    if !self.track_positions(view, &id, &owned, &parts, &span) {
                        return;
                    }
                }
                self.track_splits(view, &parts, &span);
            }
            (Some(Work::Team(_)), ViewKind::Write)
                if self.track_positions(view, LEAGUE, LEAGUE, &parts, &span) =>
            {
                self.track_splits(view, &parts, &span);
            }
            _ => {}
        }
    }

    /// Tracks the quotient and remainder of every owned name the index holds jointly (the last,
    /// pseudo, part): equal elements must give equal quotients and equal remainders.
    fn track_splits(&mut self, view: &str, parts: &[Part<String, String>], span: &TokenStream) {
        let joint = parts.last().map(|p| p.holds.clone()).unwrap_or_default();
        for (base, form) in joint {
            let Form::Split(by) = form else { continue };
            for rem in [false, true] {
                let name = split_name(&base, &by, rem);
                let owned = format!("{name} (a part of {})", self.spell(&base));
                if !self.track_positions(view, &name, &owned, parts, span) {
                    return;
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_nested_vars(
        &mut self,
        comps: &[&Expr],
        what: &str,
        view: &str,
        write: bool,
        remedy: &str,
        relevant: impl Fn(NestedKind) -> bool,
        span: &TokenStream,
    ) {
        let missing = self
            .nested
            .iter()
            .find(|n| relevant(n.kind) && !self.contains(comps, &n.var));
        if let Some(n) = missing {
            let who = if n.kind == NestedKind::Thread {
                "threads of the team"
            } else {
                "vector lanes"
            };
            let act = if write {
                "write the same element"
            } else {
                "race on that element"
            };
            self.errs.spanned(
                span,
                format!(
                    "{what} at an index that does not contain `{}`, the index of the enclosing `{}`: two {who} could {act}. Index with `{}` (e.g. `{view}[(.., {})]`, or `{view}[32 * o + {}]` with `{}` below the power of two 32 from a literal range), {remedy}, {UNSAFE_HINT}",
                    n.var, n.method, n.var, n.var, n.var, n.var
                ),
            );
        }
    }

    /// Names bound by a new binding: reject rebinding owned and special names.
    fn check_rebinding(&mut self, id: &Ident, allow_league: bool, allow_scratch: bool) {
        let name = id.to_string();
        let env = self.env;
        let msg = if env
            .work
            .as_ref()
            .is_some_and(|w| !matches!(w, Work::Team(_)) && w.idents().iter().any(|w| **w == name))
        {
            Some(format!(
                "do not rebind the work index `{name}`; use another name"
            ))
        } else if self.nested.iter().any(|n| n.var == name) {
            Some(format!(
                "do not rebind `{name}`, the index of an enclosing nested range; use another name"
            ))
        } else if let Some(Meaning::Lookup(view, owned)) = self
            .local(&syn::parse_quote!(#id))
            .filter(|l| self.binding_lookup.as_ref() != Some(l))
        {
            let owned = self.spell(&owned);
            Some(format!(
                    "do not rebind `{name}`, which holds `{view}[{owned}] as usize` (an index owned by the work item); use another name"
                ))
        } else if env.league_vars.contains(&name) && !allow_league {
            Some(format!(
                "do not rebind `{name}`, which holds the league rank; use another name"
            ))
        } else if env.team.as_deref() == Some(name.as_str()) {
            Some(format!(
                "do not rebind the team member `{name}`; use another name"
            ))
        } else if let Some(k) = env.views.get(&name) {
            match k {
                ViewKind::TeamScratch | ViewKind::ThreadScratch if allow_scratch => None,
                ViewKind::TeamScratch | ViewKind::ThreadScratch => Some(format!(
                    "`{name}` names a scratch View in this kernel; use another name for this local"
                )),
                _ => Some(format!(
                    "`{name}` is a View parameter of the kernel; use another name for this local"
                )),
            }
        } else if env.params.contains(&name) {
            Some(format!(
                "`{name}` is a parameter of the kernel; use another name for this local"
            ))
        } else {
            None
        };
        if let Some(m) = msg {
            self.errs.spanned(id, m);
        }
    }

    fn check_pat(&mut self, p: &Pat, allow_league: bool, allow_scratch: bool) {
        let mut ids = Vec::new();
        pat_bindings(p, &mut ids);
        for id in ids {
            self.check_rebinding(&id, allow_league, allow_scratch);
            // A range bound, split, constant, affine map, sample or scalar parameter rebound is
            // a plain local from here on in this scope (the binding's own form, if any, is
            // recorded after this).
            let shadows = self
                .local(&syn::parse_quote!(#id))
                .is_some_and(|m| !matches!(m, Meaning::Lookup(..)))
                || self.env.const_scalars.contains(&id.to_string());
            if shadows {
                self.lookups
                    .last_mut()
                    .expect("a scope")
                    .insert(id.to_string(), Meaning::Shadowed);
            }
        }
    }

    fn view_index<'e>(&self, e: &'e Expr) -> Option<(&'e syn::ExprIndex, String, ViewKind)> {
        match strip(e) {
            Expr::Index(i) => {
                let (name, kind) = self.env.view_of(&i.expr)?;
                Some((i, name, kind))
            }
            _ => None,
        }
    }

    fn nested_closure(&mut self, c: &syn::ExprClosure, kind: NestedKind, method: &str) {
        self.lookups.push(HashMap::new());
        let mut params = c.inputs.iter();
        let mut pushed = false;
        if let Some(p) = params.next() {
            if let Pat::Ident(pi) = p {
                if pi.mutability.is_some() {
                    self.errs
                        .spanned(p, "the index of a nested range must not be `mut`");
                }
            }
            self.check_pat(p, false, false);
            if let Some(id) = pat_ident(p) {
                self.nested.push(NestedRange {
                    var: id.to_string(),
                    kind,
                    method: method.to_string(),
                });
                pushed = true;
            }
        }
        for p in params {
            // the nested accumulator and the final flag: ordinary names
            if let Some(id) = pat_ident(p) {
                let name = id.to_string();
                if self.env.params.contains(&name) {
                    self.errs.spanned(
                        id,
                        format!("`{name}` is a parameter of the kernel; use another name"),
                    );
                }
            }
            self.check_pat(p, false, false);
        }
        self.closure_depth += 1;
        self.visit_expr(&c.body);
        self.closure_depth -= 1;
        self.lookups.pop();
        if pushed {
            self.nested.pop();
        }
    }
}

/// Token text as written: without the spaces `to_string` puts between tokens, except before a
/// word that follows a word or a closing bracket (`idx[i] as usize`), and with one after each
/// comma.
fn compact(tokens: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let chars: Vec<char> = tokens.chars().collect();
    let mut out = String::new();
    for (k, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let before = out
                .chars()
                .last()
                .is_some_and(|b| word(b) || b == ']' || b == ')');
            let after = chars.get(k + 1).copied().is_some_and(word);
            if !(before && after) {
                continue;
            }
        }
        out.push(c);
        if c == ',' {
            out.push(' ');
        }
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

impl<'ast> Visit<'ast> for Owner<'_> {
    fn visit_expr_unsafe(&mut self, u: &'ast syn::ExprUnsafe) {
        self.unsafe_depth += 1;
        syn::visit::visit_expr_unsafe(self, u);
        self.unsafe_depth -= 1;
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let team_call = l
            .init
            .as_ref()
            .and_then(|i| self.env.team_method(&i.expr))
            .map(|m| m.method.to_string());
        let league = team_call.as_deref() == Some("league_rank")
            && plain_binding(&l.pat).is_some_and(|p| p.mutability.is_none());
        let scratch = matches!(
            team_call.as_deref(),
            Some("team_scratch" | "thread_scratch")
        );
        // The initializer is evaluated before the binding exists.
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
        }
        let lookup = match (plain_binding(&l.pat), &l.init) {
            (Some(p), Some(init))
                if p.mutability.is_none()
                    && p.by_ref.is_none()
                    && p.subpat.is_none()
                    && init.diverge.is_none() =>
            {
                let at = l as *const syn::Local as usize;
                self.meaning(&init.expr)
                    .and_then(|m| bind_sample_site(m, &p.ident, at))
                    .map(|m| (p.ident.to_string(), m))
            }
            _ => None,
        };
        // `let (d, r) = (l / n, l % n);`: each name as its own `let` would bind it (samples,
        // whose guard finds their statement by the `let`, excepted).
        let tuple: Vec<(String, Meaning)> = match (&l.pat, &l.init) {
            (Pat::Tuple(pt), Some(init)) if init.diverge.is_none() => match strip(&init.expr) {
                Expr::Tuple(et) if et.elems.len() == pt.elems.len() => pt
                    .elems
                    .iter()
                    .zip(&et.elems)
                    .filter_map(|(p, e)| {
                        let p = plain_binding(p)?;
                        let plain =
                            p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none();
                        let m = self.meaning(e).filter(|m| {
                            plain && !matches!(m, Meaning::Sample { site: Some(_), .. })
                        })?;
                        Some((p.ident.to_string(), m))
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        for (_, m) in &tuple {
            if let Meaning::Split { base, by, .. } = m {
                let s = (base.clone(), by.clone());
                if !self.splits.contains(&s) {
                    self.splits.push(s);
                }
            }
        }
        if let Some((_, Meaning::Split { base, by, .. })) = &lookup {
            let s = (base.clone(), by.clone());
            if !self.splits.contains(&s) {
                self.splits.push(s);
            }
        }
        self.binding_lookup = lookup.as_ref().map(|(_, lk)| lk.clone());
        self.check_pat(&l.pat, league, scratch);
        self.binding_lookup = None;
        for (name, lk) in lookup.into_iter().chain(tuple) {
            self.lookups
                .last_mut()
                .expect("the body's scope")
                .insert(name, lk);
        }
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.lookups.push(HashMap::new());
        for st in &b.stmts {
            self.visit_stmt(st);
            // A guard that is a statement of this block holds for the rest of it (a `return`
            // in a closure would leave the closure only).
            if let syn::Stmt::Expr(e, _) = st {
                if self.closure_depth == 0 {
                    if let Some((s, m)) = self.guard(e) {
                        if let Meaning::Sample {
                            site: Some(site), ..
                        } = &m
                        {
                            if !self.guarded_sites.contains(site) {
                                self.guarded_sites.push(site.clone());
                            }
                        }
                        self.lookups
                            .last_mut()
                            .expect("this block's scope")
                            .insert(s, m);
                    }
                }
            }
        }
        self.lookups.pop();
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let nested = self.env.team_method(&f.expr).and_then(|m| {
            NestedKind::of_range(&m.method.to_string()).map(|k| (k, m.method.to_string()))
        });
        // The loop variable's scope is the loop.
        self.lookups.push(HashMap::new());
        self.check_pat(&f.pat, false, false);
        // `for s in team.thread_range(r[(v, 0)] as usize..=r[(v, 1)] as usize)`: `s` is a
        // sample of range `v`.
        let sample = self
            .env
            .team_method(&f.expr)
            .filter(|m| m.args.len() == 1 && nested.is_some())
            .and_then(|m| match strip(&m.args[0]) {
                Expr::Range(r) if matches!(r.limits, syn::RangeLimits::Closed(_)) => {
                    let (r1, v1, l1) = self.usize_bound(r.start.as_deref()?)?;
                    let (r2, v2, l2) = self.usize_bound(r.end.as_deref()?)?;
                    (r1 == r2 && v1 == v2 && !l1 && l2).then_some((r1, v1))
                }
                _ => None,
            })
            .zip(pat_ident(&f.pat).map(|i| i.to_string()));
        // `for r in team.thread_range(first..(first + R).min(n))` with `first = l * R`: `r`
        // lies in block `l` of `R` rows.
        let block = self
            .env
            .team_method(&f.expr)
            .filter(|m| m.args.len() == 1 && nested.is_some())
            .and_then(|m| match strip(&m.args[0]) {
                Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
                    let (start, end) = (r.start.as_deref()?, r.end.as_deref()?);
                    let b = self.block_start(start)?;
                    self.block_end(end, start, &b.per).then(|| {
                        let site = BlockSite {
                            at: end as *const Expr as usize,
                            atom: Box::new(b.atom.clone()),
                            per: Box::new(b.per_expr.clone()),
                            first: Box::new(strip(start).clone()),
                        };
                        (b, site)
                    })
                }
                _ => None,
            })
            .zip(pat_ident(&f.pat).map(|i| i.to_string()));
        // `for c in 0..K`, and a nested range over `0..K` or of count `K`, with a literal `K`: the
        // index is a digit below `K` ([`Radix`] components).
        let lit = |e: &Expr| match strip(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<u64>().ok(),
            _ => None,
        };
        let span_of = |e: &Expr| match strip(e) {
            Expr::Range(r) if r.start.as_deref().and_then(lit) == Some(0) => {
                let end = lit(r.end.as_deref()?)?;
                match r.limits {
                    syn::RangeLimits::HalfOpen(_) => Some(end),
                    syn::RangeLimits::Closed(_) => end.checked_add(1),
                }
            }
            _ => None,
        };
        let digit = match nested {
            Some(_) => self
                .env
                .team_method(&f.expr)
                .filter(|m| m.args.len() == 1)
                .and_then(|m| lit(&m.args[0]).or_else(|| span_of(&m.args[0]))),
            None => span_of(&f.expr),
        };
        if let (Some(k), Pat::Ident(p)) = (digit, &*f.pat) {
            if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() {
                self.lookups
                    .last_mut()
                    .expect("pushed")
                    .insert(p.ident.to_string(), Meaning::Digit(k));
            }
        }
        if let Some(((b, site), r)) = block {
            self.block_sites.push(site);
            self.lookups
                .last_mut()
                .expect("pushed")
                .insert(r, Meaning::InBlock(b.name, b.per));
        }
        if let Some(((ranges, v), s)) = sample {
            self.lookups.last_mut().expect("pushed").insert(
                s,
                Meaning::Sample {
                    ranges,
                    v,
                    k: None,
                    guarded: true,
                    site: None,
                },
            );
        }
        let mut pushed = false;
        if let Some((kind, method)) = nested {
            if let Pat::Ident(p) = &*f.pat {
                if p.mutability.is_some() {
                    self.errs
                        .spanned(&f.pat, "the index of a nested range must not be `mut`");
                }
                self.nested.push(NestedRange {
                    var: p.ident.to_string(),
                    kind,
                    method,
                });
                pushed = true;
            }
        }
        self.visit_block(&f.body);
        self.lookups.pop();
        if pushed {
            self.nested.pop();
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if self.env.is_team(&m.receiver) {
            let method = m.method.to_string();
            let closure = m.args.last().and_then(|a| match strip(a) {
                Expr::Closure(c) => Some(c),
                _ => None,
            });
            if let (Some((kind, _)), Some(c)) = (NestedKind::of_nested_reduce(&method), closure) {
                for a in m.args.iter().take(m.args.len() - 1) {
                    self.visit_expr(a);
                }
                self.nested_closure(c, kind, &method);
                return;
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.lookups.push(HashMap::new());
        for p in &c.inputs {
            self.check_pat(p, false, false);
        }
        self.closure_depth += 1;
        self.visit_expr(&c.body);
        self.closure_depth -= 1;
        self.lookups.pop();
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some((i, name, kind)) = self.view_index(&a.left) {
            self.check_access(&name, &i.expr, kind, &i.index, true, &a.left);
            self.visit_expr(&i.index);
            self.visit_expr(&a.right);
            return;
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_compound(&b.op) {
            if let Some((i, name, kind)) = self.view_index(&b.left) {
                self.check_access(&name, &i.expr, kind, &i.index, true, &b.left);
                self.visit_expr(&i.index);
                self.visit_expr(&b.right);
                return;
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
        if let Some((name, kind)) = self.env.view_of(&i.expr) {
            self.check_access(&name, &i.expr, kind, &i.index, false, i);
            self.visit_expr(&i.index);
            return;
        }
        syn::visit::visit_expr_index(self, i);
    }
}

/// The scatter rule: a scatter accessor (`h: ScatterSum<T>` and the others) is contribution-only.
/// Its contributions (`h.atomic_add(idx, v)` for a sum, the operation's method for the others)
/// are accepted at any index: they are not writes (each thread updates a copy of its own, or the
/// element atomically). Reading it, writing it plainly (also inside `unsafe { }`) or calling
/// another method on it is refused: what a work item would read is one copy's partial value.
pub fn check_scatter(sig: &super::signature::KernelSignature) -> syn::Result<()> {
    let scatters: HashMap<String, super::signature::Scatter> = sig
        .views()
        .filter_map(|v| v.scatter.map(|s| (v.name.to_string(), s)))
        .collect();
    if scatters.is_empty() {
        return Ok(());
    }
    let mut v = ScatterCheck {
        scatters,
        errs: Errors::default(),
    };
    v.visit_block(&sig.body);
    v.errs.finish()
}

struct ScatterCheck {
    scatters: HashMap<String, super::signature::Scatter>,
    errs: Errors,
}

impl ScatterCheck {
    fn scatter(&self, e: &Expr) -> Option<(String, super::signature::Scatter)> {
        let id = expr_ident(e)?.to_string();
        let s = *self.scatters.get(&id)?;
        Some((id, s))
    }
    fn refuse(&mut self, at: &dyn ToTokens, name: &str, s: super::signature::Scatter, what: &str) {
        self.errs.spanned(
            at.to_token_stream(),
            format!(
                "{what} `{name}`, a `{}`: a scatter accessor only takes contributions (`{name}.{}(idx, v)`, at any index); it cannot be read or written, also not inside `unsafe {{ }}`. Read the combined values after `contribute_into` on the host",
                s.type_name(),
                s.methods().join("(idx, v)` / `")
            ),
        );
    }
}

impl<'ast> Visit<'ast> for ScatterCheck {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Index(ix) => {
                if let Some((name, s)) = self.scatter(&ix.expr) {
                    self.refuse(e, &name, s, "indexing");
                    self.visit_expr(&ix.index);
                    return;
                }
            }
            Expr::MethodCall(m) => {
                if let Some((name, s)) = self.scatter(&m.receiver) {
                    let method = m.method.to_string();
                    let ok = s.methods().contains(&method.as_str())
                        || method == "extent"
                        || method == "size";
                    if !ok {
                        self.refuse(&m.method, &name, s, &format!("`.{method}(..)` on"));
                    }
                    m.args.iter().for_each(|a| self.visit_expr(a));
                    return;
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
}

#[cfg(test)]
mod tests {

    /// The scatter rule: contributions with the operation's methods anywhere; reads, writes
    /// (also in `unsafe`) and other methods refused.
    #[test]
    fn scatter_rule() {
        let check = |body: &str| {
            let src =
                format!("fn k(i: usize, h: ScatterSum<f64>, m: ScatterMin<i32>) {{ {body} }}");
            let sig = crate::parse::signature::parse_kernel(
                Default::default(),
                syn::parse_str(&src).unwrap(),
            )
            .unwrap();
            check_scatter(&sig)
        };
        check("h.atomic_add(i * 7 % 3, 1.0); h.atomic_sub(0, 2.0); m.atomic_min(h.extent(0), 3);")
            .unwrap();
        for bad in [
            "let x = h[i];",
            "h[0] = 1.0;",
            "unsafe { h[i] += 1.0; }",
            "m.atomic_max(0, 1);",
            "let o = h.atomic_fetch_add(0, 1.0);",
        ] {
            let e = check(bad).expect_err(bad).to_string();
            assert!(e.contains("only takes contributions"), "{bad}: {e}");
        }
    }
    use super::*;
    use crate::parse::signature::{parse_kernel, KernelOptions};

    fn check(src: &str) -> Result<(), String> {
        let sig = parse_kernel(KernelOptions::default(), syn::parse_str(src).unwrap()).unwrap();
        let env = BodyEnv::for_kernel(&sig);
        check_block(&env, &sig.body).map(|_| ()).map_err(|e| {
            e.into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn range(body: &str) -> Result<(), String> {
        check(&format!(
            "fn k(i: usize, a: ViewMut<f64>, m: ViewMut<f64, 2>, c: ViewMut<f64>, r: View<f64>) {{ {body} }}"
        ))
    }

    fn team(body: &str) -> Result<(), String> {
        check(&format!(
            "fn k(team: &TeamMember, out: ViewMut<f64, 2>, o1: ViewMut<f64>, r: View<f64>) {{ {body} }}"
        ))
    }

    /// The body of kernel `src` after [`harden`], as text without whitespace.
    fn hardened(src: &str) -> String {
        let mut sig = parse_kernel(KernelOptions::default(), syn::parse_str(src).unwrap()).unwrap();
        let env = BodyEnv::for_kernel(&sig);
        let sites = check_block(&env, &sig.body).unwrap();
        harden(&mut sig.body, &sites);
        let text = sig.body.to_token_stream().to_string();
        text.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn even_multipliers_and_row_blocks_are_guarded_against_wrapping() {
        let body = hardened("fn k(i: usize, y: ViewMut<f64>, z: ViewMut<f64, 2>) { y[2 * i + 1] = 1.0; let e = 3 * i; z[(e, 0)] = 2.0; }");
        assert!(
            body.contains("y[(if(2usize*i)/2usize!=i{y.extent(0)}else{2*i+1})]"),
            "{body}"
        );
        // An odd multiplier is a bijection modulo 2^64: no guard.
        assert!(body.contains("z[(e,0)]"), "{body}");
        let body = hardened("fn k(team: &TeamMember, y: ViewMut<f64>, per: usize) { let l = team.league_rank(); let first = l * per; for r in team.thread_range(first..(first + per).min(y.extent(0))) { y[r] = 1.0; } }");
        assert!(
            body.contains("thread_range(first..(ifper!=0&&((l*per)/per!=l||first+per<first){first}else{(first+per).min(y.extent(0))}))"),
            "{body}"
        );
    }

    #[test]
    fn rows_per_team_blocks_own() {
        let team = |b: &str| {
            check(&format!(
                "fn k(team: &TeamMember, y: ViewMut<f64>, m: ViewMut<f64, 2>, per: usize, mut var: usize) {{ let l = team.league_rank(); let n = y.extent(0); {b} }}"
            ))
        };
        team("let first = l * per; for r in team.thread_range(first..(first + per).min(n)) { y[r] = 1.0; y[r] += 1.0; }").unwrap();
        team("for r in team.thread_range(per * l..n.min(per * l + per)) { for c in team.vector_range(4) { m[(r, c)] = 1.0; } }").unwrap();
        team("let first = l * 4; for r in team.thread_range(first..first + 4) { y[r] = 1.0; }")
            .unwrap();
        let league = "does not contain the league rank";
        err(team("let first = l * per; for r in team.thread_range(first..(first + per + 1).min(n)) { y[r] = 1.0; }"), league);
        err(
            team("let first = l * per; for r in team.thread_range(first..n) { y[r] = 1.0; }"),
            league,
        );
        err(
            team(
                "let first = l * per; for r in team.thread_range(first..first + n) { y[r] = 1.0; }",
            ),
            league,
        );
        err(team("let first = l * var; for r in team.thread_range(first..first + var) { y[r] = 1.0; }"), league);
        err(team("let first = l * per; for r in team.thread_range(first..=first + per) { y[r] = 1.0; }"), league);
        err(team("let first = l * per; for r in team.thread_range(first..first + per) { y[r] = 1.0; y[l] = 2.0; }"), "different forms");
    }

    #[test]
    fn guarded_samples_also_return_when_the_sum_wraps() {
        let md = |b: &str| {
            format!("fn k((d, v, k): (usize, usize, usize), iv: DisjointRanges<u32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {{ {b} }}")
        };
        let body = hardened(&md("let s = iv[(v, 0)] as usize + k; if s > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"));
        assert!(
            body.contains("lets=iv[(v,0)]asusize+k;ifs<(k){return;}ifs>iv[(v,1)]"),
            "{body}"
        );
        // In a nested block, with the offset on the left, once per sample.
        let body = hardened(&md("if d < 4 { let f = iv[(v, 0)] as usize; let s = k + f; if s > iv[(v, 1)] as usize { return; } if s > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0; }"));
        assert_eq!(body.matches("ifs<(k){return;}").count(), 1, "{body}");
        assert!(body.contains("lets=k+f;ifs<(k){return;}"), "{body}");
        // An unguarded sample (its write is the author's, in `unsafe`) gets nothing.
        let body = hardened(&md(
            "let s = iv[(v, 0)] as usize + k; unsafe { out[(rows[d] as usize, s)] = 1.0; }",
        ));
        assert!(!body.contains("return"), "{body}");
        // A sample named like a name in its offset would read itself in the guard: not a sample.
        let err = check(&md("let q = k / 2; let q = iv[(v, 0)] as usize + q; if q > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, q)] = 1.0;")).unwrap_err();
        assert!(err.contains("does not contain"), "{err}");
    }

    fn err(r: Result<(), String>, msg: &str) {
        match r {
            Ok(()) => panic!("accepted; expected `{msg}`"),
            Err(e) => assert!(e.contains(msg), "expected `{msg}` in: {e}"),
        }
    }

    #[test]
    fn range_rule() {
        range("a[i] = r[0] + r[i + 1]; m[(3, i)] = 1.0; m[(3, i)] += a[i]; for k in 0..4 { m[(k, i)] = 0.0; }").unwrap();
        range("unsafe { a[0] = 1.0; a[i + 1] = a[0]; }").unwrap();
        range("c.atomic_add(0, 1.0); let x = c.atomic_load(i);").unwrap();
        err(
            range("a[i / 2] = 1.0;"),
            "does not contain the work index `i`",
        );
        // Affine maps of the work index: one per View, with a non-zero literal multiplier and
        // launch-constant offsets.
        range("a[i + 1] = 1.0; a[i + 1] += 2.0; let e = 2 * i + 1; m[(e, 0)] = a[1 + i];").unwrap();
        range("let n = a.extent(0); a[n - 1 - i] = 1.0; m[(3 * i - 2, 0)] = 0.0;").unwrap();
        err(range("a[i + 1] = a[i];"), "the same affine map (`i + k`)");
        err(
            range("a[0 * i] = 1.0;"),
            "does not contain the work index `i`",
        );
        err(
            range("a[i * i] = 1.0;"),
            "does not contain the work index `i`",
        );
        err(
            range("let mut k = 1; k += 1; a[i + k] = 1.0;"),
            "does not contain the work index `i`",
        );
        err(
            range("{ let k = 1; a[i + k] = 1.0; } { let k = 2; a[i + k] = 1.0; }"),
            "different forms",
        );
        err(range("a[0] = 1.0;"), "two work items could write");
        err(range("let x = a[0];"), "read of `a`");
        err(range("a[i] = 1.0; let x = a[i - 1];"), "different forms");
        err(range("m[(0, 1)] += 1.0;"), "write to `m`");
        err(range("c.atomic_add(0, 1.0); c[i] = 1.0;"), "atomically");
        err(range("let i = 3;"), "do not rebind the work index `i`");
        err(range("for i in 0..3 {}"), "do not rebind");
        err(range("let a = 1.0;"), "View parameter");
        err(
            range("m[(i, 0)] = 1.0; let k = 2; m[(k, i)] = 0.0;"),
            "different positions",
        );
        range("m[(i, 0)] = 1.0; let k = 2; m[(i, k)] = m[(i, i)];").unwrap();
    }

    #[test]
    fn md_rule() {
        let md = |b: &str| {
            check(&format!(
                "fn k((i, j): (usize, usize), b: ViewMut<f64, 2>, v: ViewMut<f64>) {{ {b} }}"
            ))
        };
        md("b[(j, i)] = 1.0; b[[j, i]] += 2.0;").unwrap();
        err(md("b[(i, 0)] = 1.0;"), "work index `j`");
        err(md("v[i] = 1.0;"), "work index `j`");
        err(
            md("b[(i, j)] = 1.0; b[(j, i)] = 2.0;"),
            "different positions",
        );
    }

    #[test]
    fn team_rule() {
        team(
            "let l = team.league_rank();
             for j in team.thread_range(4) { out[(l, j)] = r[j]; }
             let s = team.thread_reduce(4, Sum, |j, acc: &mut f64| { *acc += out[(l, j)]; });
             team.single_team(|| { o1[l] = s; });",
        )
        .unwrap();
        err(
            team("let l = team.league_rank(); team.single_team(|| { o1[l] = 1.0; }); o1.atomic_add(0, 1.0);"),
            "atomically",
        );
        err(
            team("let l = team.league_rank();
                  for j in team.thread_range(4) { for k in team.vector_range(3) { out[(k, j)] = 0.0; } }"),
            "league rank",
        );
        team(
            "let l = team.league_rank();
             let sc = team.team_scratch::<f64, 1>(0, [4]);
             let th = team.thread_scratch::<f64, 1>(0, [4]);
             th[0] = 1.0;
             for j in team.thread_range(4) { sc[j] = th[0]; for k in team.vector_range(4) { th[k] = sc[0]; } }
             team.single_team(|| { sc[0] = 2.0; o1[team.league_rank()] = sc[1]; });
             team.single_thread(|| { o1[l] = 1.0; });",
        )
        .unwrap();
        // Which thread runs a write is the team rules' business (`team_rules`).
        team("let l = team.league_rank(); o1[l] = 1.0;").unwrap();
        // A typed binding owns like the untyped one (fuzzer finding F1); `mut` does not own.
        team("let l: usize = team.league_rank(); team.single_team(|| { o1[l] = 1.0; });").unwrap();
        err(
            team("let mut l: usize = team.league_rank(); team.single_team(|| { o1[l] = 1.0; });"),
            "does not contain the league rank",
        );
        err(
            team("let l: usize = team.league_rank(); let l: usize = 2;"),
            "league rank",
        );
        err(
            team("for j in team.thread_range(4) { o1[j] = 1.0; }"),
            "Bind it with `let l = team.league_rank();`",
        );
        err(
            team("let l = team.league_rank(); for j in team.thread_range(4) { o1[l] = 1.0; }"),
            "`j`, the index of the enclosing `thread_range`",
        );
        team("let sc = team.team_scratch::<f64, 1>(0, [4]); sc[0] = 1.0;").unwrap();
        err(team("let sc = team.team_scratch::<f64, 1>(0, [4]); for j in team.thread_range(4) { sc[0] = 1.0; }"), "index of the enclosing");
        err(team("let th = team.thread_scratch::<f64, 1>(0, [4]); for k in team.vector_range(4) { th[0] = 1.0; }"), "vector lanes");
        err(
            team("let l = team.league_rank(); let l = 2;"),
            "league rank",
        );
        err(
            team("for j in team.thread_range(4) { let j = 1; }"),
            "nested range",
        );
        err(
            team("for mut j in team.thread_range(4) { }"),
            "must not be `mut`",
        );
    }

    /// `a * o + d` with `a` a power of two and a digit `d < a` (a literal, a literal loop's or a
    /// literal nested range's index) holds `o`, and in a nested range its digit or high part is
    /// the range's index: the tiled transpose's store. Digits that may reach `a`, radices that are
    /// not powers of two, a rebound digit and mixed radices are refused.
    #[test]
    fn radix_components_own() {
        range("for q in 0..8 { a[8 * i + q] = 1.0; } for q in 0..=3 { m[(q + 4 * i, 0)] = 2.0; }")
            .unwrap();
        range("a[2 * i + 1] = 1.0; m[(i * 4 + 3, 0)] = 0.0;").unwrap();
        err(
            range("for q in 0..9 { a[8 * i + q] = 1.0; }"),
            "work index `i`",
        );
        err(
            range("for q in 0..6 { a[6 * i + q] = 1.0; }"),
            "work index `i`",
        );
        err(
            range("for q in 0..8 { let q = q + 1; a[8 * i + q] = 1.0; }"),
            "work index `i`",
        );
        err(
            range("for q in 0..4 { a[8 * i + q] = 1.0; a[4 * i + q] = 2.0; }"),
            "different forms",
        );
        err(
            range("for mut q in 0..8 { a[8 * i + q] = 1.0; q += 1; }"),
            "work index `i`",
        );
        team(
            "let tiles = out.extent(1) / 8;
             let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
             for w in team.thread_range(8) { for c in 0..8 { out[(tj * 8 + w, ti * 8 + c)] = 1.0; } }",
        )
        .unwrap();
        team(
            "let l = team.league_rank();
             for w in team.thread_range(0..16) { for c in 0..16 { out[(l, 16 * w + c)] = 1.0; } }",
        )
        .unwrap();
        err(
            team("let l = team.league_rank(); for w in team.thread_range(16) { o1[8 * l + w] = 1.0; }"),
            "league rank",
        );
        err(
            team("let l = team.league_rank(); for w in team.thread_range(8) { for c in 0..8 { o1[8 * l + c] = 1.0; } }"),
            "`w`, the index of the enclosing `thread_range`",
        );
        err(
            team(
                "let tiles = out.extent(1) / 8;
                 let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
                 for w in team.thread_range(8) { for c in 0..9 { out[(tj * 8 + w, ti * 8 + c)] = 1.0; } }",
            ),
            "league rank",
        );
        // The even multiplier's guard is added to radix components.
        let body =
            hardened("fn k(i: usize, y: ViewMut<f64>) { for c in 0..4 { y[4 * i + c] = 1.0; } }");
        assert!(body.contains("(4usize*i)/4usize!=i"), "{body}");
    }

    #[test]
    fn injective_lookups_own() {
        let k = |b: &str| {
            check(&format!(
                "fn k(i: usize, idx: InjectiveView<i32>, idx2: InjectiveView<u32>, plain: View<i32>, a: ViewMut<f64>, m: ViewMut<f64, 2>) {{ {b} }}"
            ))
        };
        k("a[idx[i] as usize] = 1.0; m[(idx[i] as usize, 0)] += a[(idx[i]) as usize];").unwrap();
        k("let r = idx[i] as usize; a[r] = 1.0; let r: usize = idx[(i)] as usize; a[r] *= 2.0;")
            .unwrap();
        k("if i > 2 { let r = idx[i] as usize; m[(r, i)] = 1.0; }").unwrap();
        let no_i = "does not contain the work index `i`";
        err(k("a[plain[i] as usize] = 1.0;"), no_i);
        err(k("a[idx[i] as usize + 1] = 1.0;"), no_i);
        err(k("a[idx[0] as usize] = 1.0;"), no_i);
        err(k("let j = i + 1; a[idx[j] as usize] = 1.0;"), no_i);
        err(k("a[idx[idx[i] as usize] as usize] = 1.0;"), no_i);
        err(k("let mut r = idx[i] as usize; a[r] = 1.0;"), no_i);
        err(
            k("{ let r = idx[i] as usize; } let r = 0; a[r] = 1.0;"),
            no_i,
        );
        err(k("let x = a[idx[i] as usize + 1];"), "read of `a`");
        err(
            k("a[idx[i] as usize] = 1.0; a[i] = 2.0;"),
            "different positions or in different forms",
        );
        err(
            k("a[idx[i] as usize] = 1.0; a[idx2[i] as usize] = 2.0;"),
            "different positions or in different forms",
        );
        err(
            k("m[(idx[i] as usize, 0)] = 1.0; m[(0, idx[i] as usize)] = 2.0;"),
            "different positions or in different forms",
        );
        err(
            k("let r = idx[i] as usize; let r = 3; a[r] = 1.0;"),
            "do not rebind `r`, which holds `idx[i] as usize`",
        );
        err(
            k("let r = idx[i] as usize; for r in 0..3 { a[r] = 1.0; }"),
            "do not rebind `r`",
        );
        let md = |b: &str| {
            check(&format!(
                "fn k((d, s): (usize, usize), rows: InjectiveView<i32>, samples: InjectiveView<u32>, out: ViewMut<f64, 2>) {{ {b} }}"
            ))
        };
        md("out[(rows[d] as usize, samples[s] as usize)] = 1.0; out[(rows[d] as usize, samples[s] as usize)] += 1.0;").unwrap();
        md("out[(rows[d] as usize, rows[s] as usize)] = 1.0;").unwrap();
        err(md("out[(rows[d] as usize, 0)] = 1.0;"), "work index `s`");
        err(
            md("out[(rows[d] as usize, s)] = 1.0; out[(d, s)] = 1.0;"),
            "different positions or in different forms",
        );
        let team = |b: &str| {
            check(&format!(
                "fn k(team: &TeamMember, idx: InjectiveView<u32>, o1: ViewMut<f64>, o2: ViewMut<f64, 2>) {{ {b} }}"
            ))
        };
        team("let l = team.league_rank(); team.single_team(|| { o1[idx[l] as usize] = 1.0; });")
            .unwrap();
        team("let r = idx[team.league_rank()] as usize; for j in team.thread_range(4) { o2[(r, j)] = 1.0; }")
            .unwrap();
        err(
            team("for j in team.thread_range(4) { o2[(idx[j] as usize, j)] = 1.0; }"),
            "does not contain the league rank",
        );
        err(
            team("let l = team.league_rank(); team.single_team(|| { o1[idx[l] as usize] = 1.0; o1[l] = 2.0; });"),
            "different positions or in different forms",
        );
    }

    #[test]
    fn samples_of_disjoint_ranges_own() {
        let md = |b: &str| {
            check(&format!(
                "fn k((d, v, k): (usize, usize, usize), iv: DisjointRanges<u32>, rows: InjectiveView<i32>, plain: View<u32, 2>, out: ViewMut<f64, 2>) {{ {b} }}"
            ))
        };
        md("let s = iv[(v, 0)] as usize + k; if s > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;").unwrap();
        md("let f = iv[(v, 0)]; let l = iv[(v, 1)]; let s = k + f as usize; if (l as usize) < s { return; } let r = rows[d] as usize; out[(r, s)] += out[(r, s)];").unwrap();
        md("let f = iv[(v, 0)] as usize; let s = f + k; if s > iv[(v, 1)] as usize { return; } if d > 0 { out[(rows[d] as usize, s)] = 1.0; }").unwrap();
        let past = "may lie past its range: write `if s > iv[(v, 1)] as usize { return; }`";
        err(
            md("let s = iv[(v, 0)] as usize + k; out[(rows[d] as usize, s)] = 1.0;"),
            past,
        );
        err(md("let s = iv[(v, 0)] as usize + k; out[(rows[d] as usize, s)] = 1.0; if s > iv[(v, 1)] as usize { return; }"), past);
        err(md("let s = iv[(v, 0)] as usize + k; { if s > iv[(v, 1)] as usize { return; } } out[(rows[d] as usize, s)] = 1.0;"), past);
        err(md("let s = iv[(v, 0)] as usize + k; if d > 0 { if s > iv[(v, 1)] as usize { return; } } out[(rows[d] as usize, s)] = 1.0;"), past);
        err(md("let s = iv[(v, 0)] as usize + k; if s >= iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"), past);
        err(md("let s = iv[(v, 0)] as usize + k; if s > iv[(k, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"), past);
        err(md("let s = iv[(v, 0)] as usize + k; if s > iv[(v, 0)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"), past);
        let no_vk = "does not contain the work indices `v`, `k`";
        err(md("let s = iv[(v, 0)] as usize + k; if s > iv[(v, 1)] as usize { return; } let s = s + 1; out[(rows[d] as usize, s)] = 1.0;"), no_vk);
        err(md("let s = plain[(v, 0)] as usize + k; if s > plain[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"), no_vk);
        err(md("let s = iv[(v, 0)] as usize + k + 1; if s > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"), no_vk);
        err(md("let s = iv[(0, 0)] as usize + k; if s > iv[(0, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0;"), "a sample `s` of range `v` of a `DisjointRanges` holds `v`");
        err(md("let s = iv[(v, 0)] as usize + k; if s > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0; out[(rows[d] as usize, v)] = 1.0;"), "work index `k`");
        err(md("let s = iv[(v, 0)] as usize + k; if s > iv[(v, 1)] as usize { return; } out[(rows[d] as usize, s)] = 1.0; out[(s, rows[d] as usize)] = 1.0;"), "different positions");

        let team = |b: &str| {
            check(&format!(
                "fn k(team: &TeamMember, iv: DisjointRanges<u32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>, o1: ViewMut<f64>) {{ {b} }}"
            ))
        };
        team("let l = team.league_rank(); let n = iv.extent(0); let d = l / n; let v = l % n;
              let f = iv[(v, 0)]; let last = iv[(v, 1)];
              for s in team.thread_range(f as usize..=last as usize) { let r = rows[d] as usize; out[(r, s)] = 1.0; }").unwrap();
        team("let l = team.league_rank(); for s in team.thread_range(iv[(l, 0)] as usize..=iv[(l, 1)] as usize) { o1[s] = 1.0; }").unwrap();
        team("let l = team.league_rank(); let d = l / 3; let v = l % 3; team.single_team(|| { out[(d, v)] = 1.0; });").unwrap();
        let league = "does not contain the league rank";
        err(team("let l = team.league_rank(); for s in team.thread_range(iv[(l, 0)] as usize..iv[(l, 1)] as usize) { o1[s] = 1.0; }"), league);
        err(team("let l = team.league_rank(); let d = l / iv.extent(0); let v = l % 4;
                  for s in team.thread_range(iv[(v, 0)] as usize..=iv[(v, 1)] as usize) { out[(rows[d] as usize, s)] = 1.0; }"), league);
        err(team("let l = team.league_rank(); let d = l / 4; let v = l % 4;
                  for s in team.thread_range(iv[(v, 0)] as usize..=iv[(d, 1)] as usize) { out[(rows[d] as usize, s)] = 1.0; }"), league);
        err(
            team(
                "let l = team.league_rank(); let d = l / 4;
                  for s in team.thread_range(0..4) { out[(rows[d] as usize, s)] = 1.0; }",
            ),
            league,
        );
        // A divisor computed from launch constants is one too (`l == d * n + v`; `n == 0` fails
        // the work item at the division).
        team(
            "let l = team.league_rank(); let n = o1.extent(0) + 1; let d = l / n; let v = l % n;
              team.single_team(|| { out[(d, v)] = 1.0; });",
        )
        .unwrap();
        err(
            team(
                "let l = team.league_rank(); let n = o1[0] as usize; let d = l / n; let v = l % n;
                  team.single_team(|| { out[(d, v)] = 1.0; });",
            ),
            league,
        );
        err(
            team(
                "let l = team.league_rank(); let d = l / 4; let v = l % 4;
                  team.single_team(|| { out[(d, v)] = 1.0; out[(v, d)] = 1.0; });",
            ),
            "different positions",
        );

        let ends = |b: &str| {
            check(&format!(
                "fn k(i: usize, iv: DisjointRanges<u32>, o: ViewMut<f64>) {{ {b} }}"
            ))
        };
        ends("o[iv[(i, 0)] as usize] = 1.0; let l = iv[(i, 1)]; o[l as usize] += 1.0;").unwrap();
        err(ends("o[iv[(i, 0)] as usize + 1] = 1.0;"), "work index `i`");
        err(ends("o[iv[(0, 0)] as usize] = 1.0;"), "work index `i`");
        let range = |b: &str| check(&format!("fn k(i: usize, m: ViewMut<f64, 2>) {{ {b} }}"));
        range("let q = i / 4; let r = i % 4; m[(q, r)] = 1.0;").unwrap();
        err(
            range("let q = i / 4; let r = i % 3; m[(q, r)] = 1.0;"),
            "work index `i`",
        );
        err(
            range("let q = i / 4; let r = i % 4; let r = 0; m[(q, r)] = 1.0;"),
            "work index `i`",
        );
    }
}
