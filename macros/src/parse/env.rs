//! The names a kernel body can refer to specially: Views (parameters and scratch), the team member,
//! accumulators, the league-rank locals, and which Views are used atomically.

use super::signature::{Checked, KernelSignature, PatternKind, Work};
use super::{expr_ident, ATOMIC_METHODS};
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Expr, Pat};

/// What a View name in the body stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// A `View<T, R>` parameter: read-only.
    Read,
    /// A `ViewMut<T, R>` parameter.
    Write,
    /// A local bound to `team.team_scratch(..)`.
    TeamScratch,
    /// A local bound to `team.thread_scratch(..)`.
    ThreadScratch,
}

impl ViewKind {
    /// Whether the native body holds a `WriteAccess` for it.
    pub fn writable(self) -> bool {
        self != ViewKind::Read
    }
}

/// Names known in a body.
#[derive(Debug, Default, Clone)]
pub struct BodyEnv {
    /// Views by name.
    pub views: HashMap<String, ViewKind>,
    /// The team member's name (team kernels).
    pub team: Option<String>,
    /// The kernel's accumulators. Those of nested reduce / scan closures are accumulators only
    /// inside their closure, which the subset check follows (a local of the same name elsewhere,
    /// `let m = team.thread_reduce(n, Max, |j, m: &mut f64| ..);`, is a plain local).
    pub accs: HashSet<String>,
    /// The kernel's own accumulators and scan flag (may not be rebound).
    pub params: HashSet<String>,
    /// User type parameters.
    pub type_params: HashSet<String>,
    /// The work item (`None` for `#[func]`).
    pub work: Option<Work>,
    /// `InjectiveView` parameters (read-only; an index looked up in one can own a write).
    pub injective: HashSet<String>,
    /// `DisjointRanges` parameters (read-only; a sample of an owned range can own a write).
    pub ranges: HashSet<String>,
    /// Immutable scalar parameters: launch constants, as long as no binding shadows them.
    pub const_scalars: HashSet<String>,
    /// Locals bound by an immutable `let NAME = TEAM.league_rank();`.
    pub league_vars: HashSet<String>,
    /// Writable Views some `atomic_*` method is called on.
    pub atomic_views: HashSet<String>,
    /// Checking a `#[func]` body (return values allowed, no Views, no team).
    pub is_func: bool,
}

impl BodyEnv {
    /// The environment of a kernel body.
    pub fn for_kernel(sig: &KernelSignature) -> BodyEnv {
        let mut env = BodyEnv {
            type_params: sig.type_param_names().into_iter().collect(),
            work: Some(sig.work.clone()),
            ..BodyEnv::default()
        };
        for v in sig.views() {
            let kind = if v.writable {
                ViewKind::Write
            } else {
                ViewKind::Read
            };
            env.views.insert(v.name.to_string(), kind);
            match v.checked {
                Some(Checked::Injective) => {
                    env.injective.insert(v.name.to_string());
                }
                Some(Checked::Ranges) => {
                    env.ranges.insert(v.name.to_string());
                }
                None => {}
            }
        }
        for a in &sig.args {
            if let super::signature::Arg::Scalar(p) = a {
                if !p.mutable {
                    env.const_scalars.insert(p.name.to_string());
                }
            }
        }
        for a in sig.accums() {
            env.accs.insert(a.name.to_string());
            env.params.insert(a.name.to_string());
        }
        if let PatternKind::Scan { flag, .. } = &sig.pattern {
            env.params.insert(flag.to_string());
        }
        if let Work::Team(t) = &sig.work {
            env.team = Some(t.to_string());
        }
        let mut pre = Prepass {
            env: &mut env,
            atomic_receivers: HashSet::new(),
        };
        pre.visit_block(&sig.body);
        let atomic = std::mem::take(&mut pre.atomic_receivers);
        env.atomic_views = atomic
            .into_iter()
            .filter(|n| env.views.get(n).is_some_and(|k| k.writable()))
            .collect();
        env
    }

    /// The environment of a `#[func]` body.
    pub fn for_func(type_params: HashSet<String>) -> BodyEnv {
        BodyEnv {
            type_params,
            is_func: true,
            ..BodyEnv::default()
        }
    }

    /// Whether `e` is the team member (`team`).
    pub fn is_team(&self, e: &Expr) -> bool {
        match (expr_ident(e), &self.team) {
            (Some(id), Some(t)) => id == t,
            _ => false,
        }
    }

    /// The View named by `e`, if it is one.
    pub fn view_of(&self, e: &Expr) -> Option<(String, ViewKind)> {
        let id = expr_ident(e)?.to_string();
        let k = *self.views.get(&id)?;
        Some((id, k))
    }

    /// `TEAM.method(..)` → `Some(method)`.
    pub fn team_method<'e>(&self, e: &'e Expr) -> Option<&'e syn::ExprMethodCall> {
        match e {
            Expr::MethodCall(m) if self.is_team(&m.receiver) => Some(m),
            Expr::Paren(p) => self.team_method(&p.expr),
            Expr::Group(g) => self.team_method(&g.expr),
            _ => None,
        }
    }
}

struct Prepass<'a> {
    env: &'a mut BodyEnv,
    atomic_receivers: HashSet<String>,
}

impl<'ast> Visit<'ast> for Prepass<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        // `let l: usize = team.league_rank();` binds the same name as the untyped form.
        if let (Some(p), Some(init)) = (plain_binding(&l.pat), &l.init) {
            if p.by_ref.is_none() && p.subpat.is_none() {
                if let Some(m) = self.env.team_method(&init.expr) {
                    let name = p.ident.to_string();
                    let method = m.method.to_string();
                    if method == "team_scratch" || method == "thread_scratch" {
                        // A scratch View rebinding a parameter's name is no longer that
                        // parameter: nothing the kernel writes into it is injective, disjoint,
                        // read-only or the league rank.
                        self.env.injective.remove(&name);
                        self.env.ranges.remove(&name);
                        self.env.league_vars.remove(&name);
                    }
                    match method.as_str() {
                        "team_scratch" => {
                            self.env.views.insert(name, ViewKind::TeamScratch);
                        }
                        "thread_scratch" => {
                            self.env.views.insert(name, ViewKind::ThreadScratch);
                        }
                        "league_rank" if p.mutability.is_none() && m.args.is_empty() => {
                            self.env.league_vars.insert(name);
                        }
                        _ => {}
                    }
                }
            }
        }
        syn::visit::visit_local(self, l);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        if ATOMIC_METHODS.contains(&method.as_str()) {
            if let Some(id) = expr_ident(&m.receiver) {
                self.atomic_receivers.insert(id.to_string());
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// The ident pattern of `x` or `x: T` (with its `mut`, `ref` and subpattern), if `p` is one.
pub fn plain_binding(p: &Pat) -> Option<&syn::PatIdent> {
    match p {
        Pat::Ident(i) => Some(i),
        Pat::Type(t) => plain_binding(&t.pat),
        _ => None,
    }
}

/// The name bound by an ident pattern, possibly with a type annotation.
pub fn pat_ident(p: &Pat) -> Option<&syn::Ident> {
    match p {
        Pat::Ident(i) => Some(&i.ident),
        Pat::Type(t) => pat_ident(&t.pat),
        _ => None,
    }
}

/// Every name a pattern binds.
pub fn pat_bindings(p: &Pat, out: &mut Vec<syn::Ident>) {
    match p {
        Pat::Ident(i) => {
            out.push(i.ident.clone());
            if let Some((_, s)) = &i.subpat {
                pat_bindings(s, out);
            }
        }
        Pat::Type(t) => pat_bindings(&t.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_bindings(e, out)),
        Pat::Paren(t) => pat_bindings(&t.pat, out),
        Pat::Reference(r) => pat_bindings(&r.pat, out),
        Pat::Slice(s) => s.elems.iter().for_each(|e| pat_bindings(e, out)),
        Pat::TupleStruct(s) => s.elems.iter().for_each(|e| pat_bindings(e, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pat_bindings(&f.pat, out)),
        Pat::Or(o) => o.cases.iter().for_each(|e| pat_bindings(e, out)),
        _ => {}
    }
}
