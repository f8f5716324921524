//! A team kernel's body as the model of [`rokkos_rules`], built from its syntax, so that the team
//! rules (convergence, nesting, shared-memory ordering) run when the kernel is compiled.
//!
//! The IR validator builds the same model from the recorded IR (`rokkos_core::ir::valid::model`)
//! and runs the same convergence rules at launch. The two translations follow one list of what a
//! value depends on ([`rokkos_rules::model::Deps`]); this one mirrors what the IR generator
//! (`crate::ir`) records: an `if` with a value assigns a result local in each branch, a `while`
//! condition runs again before each iteration, a nested reduction, scan, `single` or broadcast
//! with a value assigns a result local.
//!
//! Accesses inside `unsafe { }` are left out of the model: there the author promises that
//! concurrent work items touch disjoint elements. The tags ([`Tag`]) carry spans and the words the
//! error messages are made of.

use super::env::{pat_ident, BodyEnv, ViewKind};
use super::signature::{Arg, KernelSignature};
use super::{expr_ident, NestedKind as Kind};
use proc_macro2::TokenStream;
use quote::ToTokens;
use rokkos_rules::model::{
    Access, AccessKind, Body, Component, Deps, Local, Memory, NestedForm, NestedKind, Node,
    ScratchScope, SingleKind,
};
use std::collections::HashMap;
use syn::{Expr, Pat, Stmt};

/// What a model node or value source stands for in the source.
#[derive(Clone, Debug)]
pub struct Tag {
    /// Where it is (an error spans these tokens).
    pub tokens: TokenStream,
    /// What it is, as a message says it (``the load `out[(l, 0)]` of writable View `out` ``).
    pub text: String,
    /// For an access: who runs it (``in a `single_thread` body, which every thread runs``); for a
    /// thread-varying source: what to write instead.
    pub note: String,
}

/// The source of `t` as a message quotes it: tokens joined the way rustfmt would write most of
/// them (`out[(l, 0)]`, `n - 1 - j`), cut after 60 characters.
pub fn snippet(t: &impl ToTokens) -> String {
    let mut text = t.to_token_stream().to_string();
    for (from, to) in [
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        (" .", "."),
        (". ", "."),
        (" :: ", "::"),
        (" ;", ";"),
        ("! ", "!"),
    ] {
        text = text.replace(from, to);
    }
    // A call's parenthesis follows its name: `team.team_rank()`, `f(x)`, but `a + (b)`.
    let mut tidy = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let call = c == ' '
            && chars.peek() == Some(&'(')
            && tidy
                .chars()
                .last()
                .is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '>');
        if !call {
            tidy.push(c);
        }
    }
    let text = tidy;
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn tag(at: &impl ToTokens, text: String, note: impl Into<String>) -> Tag {
    Tag {
        tokens: at.to_token_stream(),
        text,
        note: note.into(),
    }
}

const BROADCAST_HINT: &str = "compute the value once for the team, with `let v = team.single_team(|| ..);` or `let v = team.team_broadcast(x, 0);`, and use `v`";

/// What a name in the body stands for.
#[derive(Clone)]
enum Name {
    /// A scalar local or local array; `true` when it is immutable and holds the team rank.
    Local(Local, bool),
    /// A writable View parameter or a scratch View.
    Memory(Memory, ViewKind),
    /// A read-only View parameter.
    ReadView,
    /// A kernel accumulator.
    Acc,
    /// A scalar parameter: the same in every thread.
    Uniform,
}

/// Where an access is: the memory, the View's name and kind, the accessing expression.
#[derive(Clone, Copy)]
struct Site<'x> {
    memory: Memory,
    kind: ViewKind,
    view: &'x str,
    at: &'x Expr,
}

/// The innermost construct whose body is being walked, for the words of access notes.
#[derive(Clone)]
enum Frame {
    Nested { method: String, index: String },
    Single(&'static str),
}

struct Builder<'e> {
    env: &'e BodyEnv,
    scopes: Vec<HashMap<String, Name>>,
    locals: u32,
    scratch: u32,
    unsafe_depth: usize,
    frames: Vec<Frame>,
    /// Locals known to lie in `[0, K)` (the index of a `for` loop or a nested range over `0..K`
    /// or of count `K`, a literal): `K`. Model locals are never rebound, so a shadowing name is
    /// a new local without an entry.
    digits: HashMap<Local, u64>,
    /// The indices of nested ranges.
    nested_indices: std::collections::HashSet<Local>,
}

/// The count `K` of `0..K`, `0..=K'` (`K = K' + 1`) or `K` itself (`count`), for literals.
fn literal_count(e: &Expr, count: bool) -> Option<u64> {
    let lit = |e: &Expr| match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        _ => None,
    };
    match strip(e) {
        Expr::Range(r) if r.start.as_deref().and_then(lit) == Some(0) => {
            let end = lit(r.end.as_deref()?)?;
            match r.limits {
                syn::RangeLimits::HalfOpen(_) => Some(end),
                syn::RangeLimits::Closed(_) => end.checked_add(1),
            }
        }
        e if count => lit(e),
        _ => None,
    }
}

/// The immutable name a `for` pattern binds, if it is one.
fn immutable_ident(p: &Pat) -> bool {
    matches!(p, Pat::Ident(i) if i.mutability.is_none() && i.by_ref.is_none() && i.subpat.is_none())
}

/// The model of team kernel `sig`'s body (`env` from `BodyEnv::for_kernel`).
pub fn of_kernel(sig: &KernelSignature, env: &BodyEnv) -> Body<Tag> {
    let mut b = Builder {
        env,
        scopes: vec![HashMap::new()],
        locals: 0,
        scratch: 0,
        unsafe_depth: 0,
        frames: Vec::new(),
        digits: HashMap::new(),
        nested_indices: Default::default(),
    };
    let mut out = Vec::new();
    let mut writable = 0;
    for arg in &sig.args {
        match arg {
            Arg::View(v) if v.writable => {
                let n = Name::Memory(Memory::View(writable), ViewKind::Write);
                writable += 1;
                b.bind(&v.name, n);
            }
            Arg::View(v) => b.bind(&v.name, Name::ReadView),
            // A `mut` scalar is a local the body may assign; the others never change.
            Arg::Scalar(p) if p.mutable => {
                let l = b.fresh();
                out.push(Node::Def {
                    local: l,
                    value: Deps::uniform(),
                });
                b.bind(&p.name, Name::Local(l, false));
            }
            Arg::Scalar(p) => b.bind(&p.name, Name::Uniform),
        }
    }
    for a in sig.accums() {
        b.bind(&a.name, Name::Acc);
    }
    b.stmts(&sig.body.stmts, &mut out);
    Body {
        locals: b.locals as usize,
        block: out,
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// The components of a View index: `a[e]` → `[e]`, `a[(e1, e2)]` / `a[[e1, e2]]` → `[e1, e2]`.
fn components(e: &Expr) -> Vec<&Expr> {
    match strip(e) {
        Expr::Tuple(t) => t.elems.iter().collect(),
        Expr::Array(a) => a.elems.iter().collect(),
        x => vec![x],
    }
}

impl Builder<'_> {
    fn fresh(&mut self) -> Local {
        self.locals += 1;
        self.locals - 1
    }

    fn bind(&mut self, name: &syn::Ident, n: Name) {
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(name.to_string(), n);
    }

    fn lookup(&self, e: &Expr) -> Option<Name> {
        let id = expr_ident(e)?.to_string();
        self.scopes.iter().rev().find_map(|s| s.get(&id).cloned())
    }

    fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.push(HashMap::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    fn is_team(&self, e: &Expr) -> bool {
        // The team member is never rebound (the owner-computes check refuses it).
        self.env.is_team(e) && self.lookup(e).is_none()
    }

    /// `team.method(..)`, if `e` is a call of a team method.
    fn team_method<'x>(&self, e: &'x Expr) -> Option<&'x syn::ExprMethodCall> {
        match strip(e) {
            Expr::MethodCall(m) if self.is_team(&m.receiver) => Some(m),
            _ => None,
        }
    }

    fn stmts(&mut self, stmts: &[Stmt], out: &mut Vec<Node<Tag>>) -> Deps<Tag> {
        let mut last = Deps::uniform();
        for (k, s) in stmts.iter().enumerate() {
            match s {
                Stmt::Local(l) => {
                    if let Some(init) = &l.init {
                        self.let_(&l.pat, &init.expr, out);
                    }
                }
                Stmt::Expr(e, None) if k + 1 == stmts.len() => last = self.value(e, out),
                Stmt::Expr(e, _) => {
                    self.value(e, out);
                }
                Stmt::Item(_) | Stmt::Macro(_) => {}
            }
        }
        last
    }

    fn let_(&mut self, pat: &Pat, init: &Expr, out: &mut Vec<Node<Tag>>) {
        match pat {
            Pat::Type(t) => self.let_(&t.pat, init, out),
            Pat::Ident(p) => {
                if let Some(m) = self.team_method(init) {
                    let method = m.method.to_string();
                    if method == "team_scratch" || method == "thread_scratch" {
                        let extents = m.args.iter().nth(1).map(|e| self.value(e, out));
                        let (scope, memory, kind) = if method == "team_scratch" {
                            let s = ScratchScope::Team;
                            (s, Memory::TeamScratch(self.scratch), ViewKind::TeamScratch)
                        } else {
                            let s = ScratchScope::Thread;
                            (
                                s,
                                Memory::ThreadScratch(self.scratch),
                                ViewKind::ThreadScratch,
                            )
                        };
                        self.scratch += 1;
                        out.push(Node::Scratch {
                            scope,
                            extents: extents.unwrap_or_default(),
                            tag: tag(init, format!("`{}`", snippet(init)), ""),
                        });
                        self.bind(&p.ident, Name::Memory(memory, kind));
                        return;
                    }
                }
                let rank = p.mutability.is_none()
                    && self
                        .team_method(init)
                        .is_some_and(|m| m.method == "team_rank" && m.args.is_empty());
                let value = self.value(init, out);
                let l = self.fresh();
                out.push(Node::Def { local: l, value });
                self.bind(&p.ident, Name::Local(l, rank));
            }
            Pat::Tuple(pt) => match strip(init) {
                Expr::Tuple(t) => {
                    let vals: Vec<Deps<Tag>> = t.elems.iter().map(|e| self.value(e, out)).collect();
                    for (p, value) in pt.elems.iter().zip(vals) {
                        if let Some(id) = pat_ident(p) {
                            let l = self.fresh();
                            out.push(Node::Def { local: l, value });
                            self.bind(id, Name::Local(l, false));
                        }
                    }
                }
                other => self.bind_all(pat, other, out),
            },
            // `let [x, y, z] = f(..);`: every name depends on the whole call.
            Pat::Slice(_) => self.bind_all(pat, init, out),
            _ => {
                self.value(init, out);
            }
        }
    }

    /// Binds every name of `pat` to a local depending on all of `init` (a call returning several
    /// values: each result may depend on every argument).
    fn bind_all(&mut self, pat: &Pat, init: &Expr, out: &mut Vec<Node<Tag>>) {
        let value = self.value(init, out);
        let mut ids = Vec::new();
        super::env::pat_bindings(pat, &mut ids);
        for id in ids {
            let l = self.fresh();
            out.push(Node::Def {
                local: l,
                value: value.clone(),
            });
            self.bind(&id, Name::Local(l, false));
        }
    }

    /// What `e` depends on; its accesses and constructs are appended to `out` in evaluation order.
    fn value(&mut self, e: &Expr, out: &mut Vec<Node<Tag>>) -> Deps<Tag> {
        match e {
            Expr::Paren(p) => self.value(&p.expr, out),
            Expr::Group(g) => self.value(&g.expr, out),
            Expr::Lit(_) | Expr::Continue(_) => Deps::uniform(),
            Expr::Path(_) => match self.lookup(e) {
                Some(Name::Local(l, _)) => Deps::local(l),
                Some(Name::Acc) => Deps::varying(self.acc_source(e)),
                _ => Deps::uniform(),
            },
            Expr::Unary(u) => match (&u.op, self.lookup(&u.expr)) {
                (syn::UnOp::Deref(_), Some(Name::Acc)) => Deps::varying(self.acc_source(&u.expr)),
                _ => self.value(&u.expr, out),
            },
            Expr::Binary(b) if crate::parse::subset::is_compound(&b.op) => {
                self.assign(&b.left, &b.right, true, out);
                Deps::uniform()
            }
            Expr::Binary(b) => {
                let l = self.value(&b.left, out);
                l.with(self.value(&b.right, out))
            }
            Expr::Assign(a) => {
                self.assign(&a.left, &a.right, false, out);
                Deps::uniform()
            }
            Expr::Cast(c) => self.value(&c.expr, out),
            Expr::Field(f) => {
                let base = self.value(&f.base, out);
                match self.lookup(&f.base) {
                    Some(Name::Acc) => Deps::varying(self.acc_source(&f.base)),
                    _ => base,
                }
            }
            Expr::MethodCall(m) => self.method(m, out),
            Expr::Call(c) => self.all(c.args.iter(), out),
            Expr::Index(i) => self.index(i, out),
            Expr::Array(a) => self.all(a.elems.iter(), out),
            Expr::Repeat(r) => self.value(&r.expr, out),
            Expr::Tuple(t) => self.all(t.elems.iter(), out),
            Expr::Block(b) => self.scoped(|s| s.stmts(&b.block.stmts, out)),
            Expr::Unsafe(u) => {
                self.unsafe_depth += 1;
                let d = self.scoped(|s| s.stmts(&u.block.stmts, out));
                self.unsafe_depth -= 1;
                d
            }
            Expr::If(i) => self.if_(i, out),
            Expr::While(w) => {
                let head = self.value(&w.cond, out);
                let mut body = Vec::new();
                self.value(&w.cond, &mut body);
                self.scoped(|s| s.stmts(&w.body.stmts, &mut body));
                out.push(Node::Loop {
                    counter: None,
                    head,
                    body,
                });
                Deps::uniform()
            }
            Expr::Loop(l) => {
                let mut body = Vec::new();
                self.scoped(|s| s.stmts(&l.body.stmts, &mut body));
                out.push(Node::Loop {
                    counter: None,
                    head: Deps::uniform(),
                    body,
                });
                Deps::uniform()
            }
            Expr::ForLoop(f) => {
                self.for_(f, out);
                Deps::uniform()
            }
            Expr::Break(_) => {
                out.push(Node::Break);
                Deps::uniform()
            }
            Expr::Return(_) => {
                out.push(Node::Return);
                Deps::uniform()
            }
            Expr::Range(r) => {
                let a = r.start.as_ref().map(|x| self.value(x, out));
                let b = r.end.as_ref().map(|x| self.value(x, out));
                a.unwrap_or_default().with(b.unwrap_or_default())
            }
            _ => Deps::uniform(),
        }
    }

    fn all<'x>(
        &mut self,
        es: impl Iterator<Item = &'x Expr>,
        out: &mut Vec<Node<Tag>>,
    ) -> Deps<Tag> {
        let mut d = Deps::uniform();
        for e in es {
            d.add(self.value(e, out));
        }
        d
    }

    fn acc_source(&self, e: &Expr) -> Tag {
        tag(
            e,
            format!(
                "accumulator `{}`, which each thread keeps for itself",
                snippet(e)
            ),
            "reduce it in a team-wide reduction (`team.thread_reduce`) and use the result",
        )
    }

    fn if_(&mut self, i: &syn::ExprIf, out: &mut Vec<Node<Tag>>) -> Deps<Tag> {
        let cond = self.value(&i.cond, out);
        let r = self.fresh();
        let mut then = Vec::new();
        let v = self.scoped(|s| s.stmts(&i.then_branch.stmts, &mut then));
        then.push(Node::Def { local: r, value: v });
        let mut else_ = Vec::new();
        if let Some((_, e)) = &i.else_branch {
            let v = self.value(e, &mut else_);
            else_.push(Node::Def { local: r, value: v });
        }
        out.push(Node::If { cond, then, else_ });
        Deps::local(r)
    }

    /// The index components of an access, and what they depend on.
    fn components(
        &mut self,
        index: &Expr,
        out: &mut Vec<Node<Tag>>,
    ) -> (Vec<Component>, Deps<Tag>) {
        let mut comps = Vec::new();
        let mut deps = Deps::uniform();
        for c in components(index) {
            let comp = match (self.lookup(c), strip(c)) {
                (Some(Name::Local(_, true)), _) => Component::TeamRank,
                (Some(Name::Local(l, false)), _) => Component::Local(l),
                (
                    _,
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }),
                ) => n
                    .base10_parse::<u64>()
                    .map_or(Component::Other, Component::Const),
                (_, x) if self.team_method(x).is_some_and(|m| m.method == "team_rank") => {
                    Component::TeamRank
                }
                _ => self.radix(c).unwrap_or(Component::Other),
            };
            comps.push(comp);
            deps.add(self.value(c, out));
        }
        (comps, deps)
    }

    /// `a * o + d` (in any order of the sum and the product) with `a` a power-of-two literal
    /// `>= 2` and a digit `d < a` (a literal or a [`Builder::digits`] local), also inside the
    /// macro's wrapping guard `if (a * o) / a != o { v.extent(p) } else { c }` (whose first
    /// branch is out of bounds): [`Component::RadixHigh`] of `o` when `o` is a nested range's
    /// index and a digit itself, else [`Component::RadixLow`] of a local digit, else `RadixHigh`
    /// of a local digit `o`.
    fn radix(&self, c: &Expr) -> Option<Component> {
        let c = match strip(c) {
            Expr::If(i) => {
                let (_, e) = i.else_branch.as_ref()?;
                let Expr::Block(b) = strip(e) else {
                    return None;
                };
                let out_of_bounds = matches!(i.then_branch.stmts.as_slice(),
                    [Stmt::Expr(Expr::MethodCall(m), None)] if m.method == "extent");
                match b.block.stmts.as_slice() {
                    [Stmt::Expr(inner, None)] if out_of_bounds => inner,
                    _ => return None,
                }
            }
            c => c,
        };
        let Expr::Binary(b) = strip(c) else {
            return None;
        };
        if !matches!(b.op, syn::BinOp::Add(_)) {
            return None;
        }
        let high = |e: &Expr| -> Option<(Option<Local>, u64)> {
            let Expr::Binary(m) = strip(e) else {
                return None;
            };
            if !matches!(m.op, syn::BinOp::Mul(_)) {
                return None;
            }
            let lit = |e: &Expr| match strip(e) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<u64>().ok(),
                _ => None,
            };
            let (a, o) = match (lit(&m.left), lit(&m.right)) {
                (Some(a), _) => (a, &*m.right),
                (None, Some(a)) => (a, &*m.left),
                _ => return None,
            };
            let local = match self.lookup(o) {
                Some(Name::Local(l, _)) => Some(l),
                _ => None,
            };
            (a >= 2 && a.is_power_of_two()).then_some((local, a))
        };
        let digit = |e: &Expr| -> Option<(Option<Local>, u64)> {
            match strip(e) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => Some((None, i.base10_parse::<u64>().ok()?.checked_add(1)?)),
                _ => match self.lookup(e) {
                    Some(Name::Local(l, _)) => Some((Some(l), *self.digits.get(&l)?)),
                    _ => None,
                },
            }
        };
        let ((o, a), (d, _)) = match (high(&b.left), high(&b.right)) {
            (Some(h), _) if digit(&b.right).is_some_and(|(_, k)| k <= h.1) => (h, digit(&b.right)?),
            (_, Some(h)) if digit(&b.left).is_some_and(|(_, k)| k <= h.1) => (h, digit(&b.left)?),
            _ => return None,
        };
        // `a * o` cannot wrap when `o` is a digit too (below a literal `K`), so the high part
        // determines `o` whatever guard the access has.
        let high_ok = |o: Local| {
            self.digits
                .get(&o)
                .is_some_and(|&k| k.checked_mul(a).is_some())
        };
        match (o, d) {
            (Some(o), _) if self.nested_indices.contains(&o) && high_ok(o) => {
                Some(Component::RadixHigh(o, a))
            }
            (_, Some(d)) => Some(Component::RadixLow(d, a)),
            (Some(o), None) if high_ok(o) => Some(Component::RadixHigh(o, a)),
            _ => None,
        }
    }

    /// Who runs an access here, for the message of a write several threads run.
    fn runner(&self) -> String {
        match self.frames.last() {
            None => "outside nested ranges and `single_team`, where every thread of the team runs it".into(),
            Some(Frame::Single("single_thread")) => {
                "in a `single_thread` body, which every thread of the team runs (once per thread)".into()
            }
            Some(Frame::Single(s)) => format!("in a `{s}` body"),
            Some(Frame::Nested { method, index }) if method.starts_with("vector") => format!(
                "in a `{method}` body, which every thread of the team runs in full (`{index}` only tells its lanes apart)"
            ),
            Some(Frame::Nested { method, index }) => {
                format!("in a `{method}` body, at an index without `{index}`")
            }
        }
    }

    /// Records an access (not inside `unsafe`, where the author answers for it).
    fn access(
        &mut self,
        a: Site<'_>,
        kind: AccessKind,
        comps: Vec<Component>,
        out: &mut Vec<Node<Tag>>,
    ) {
        if self.unsafe_depth > 0 {
            return;
        }
        let what = match a.kind {
            ViewKind::TeamScratch => format!("team scratch `{}`", a.view),
            ViewKind::ThreadScratch => format!("thread scratch `{}`", a.view),
            _ => format!("`{}`", a.view),
        };
        let text = match kind {
            AccessKind::Read => format!("the read of {what} at `{}`", snippet(a.at)),
            AccessKind::Write => format!("the write to {what} at `{}`", snippet(a.at)),
            AccessKind::Atomic => format!("the atomic on {what} at `{}`", snippet(a.at)),
        };
        out.push(Node::Access(Access {
            memory: a.memory,
            kind,
            index: comps,
            tag: tag(a.at, text, self.runner()),
        }));
    }

    fn index(&mut self, i: &syn::ExprIndex, out: &mut Vec<Node<Tag>>) -> Deps<Tag> {
        let view = snippet(&i.expr);
        match self.lookup(&i.expr) {
            Some(Name::ReadView) => self.components(&i.index, out).1,
            Some(Name::Memory(memory, vk)) => {
                let (comps, _) = self.components(&i.index, out);
                let at = Expr::Index(i.clone());
                let site = Site {
                    memory,
                    kind: vk,
                    view: &view,
                    at: &at,
                };
                self.access(site, AccessKind::Read, comps, out);
                let what = match vk {
                    ViewKind::Write => format!(
                        "the load `{}` of writable View `{view}`, which threads may see change",
                        snippet(i)
                    ),
                    _ => format!(
                        "the load `{}` of scratch View `{view}`, which the team's threads write",
                        snippet(i)
                    ),
                };
                let hint = match vk {
                    ViewKind::Write => "pass the data as a read-only `View<..>` (a read-only View's element at an index that is the same in every thread is the same in every thread), or compute the value once for the team with `let v = team.single_team(|| ..);` or `let v = team.team_broadcast(x, 0);` and use `v`",
                    _ => BROADCAST_HINT,
                };
                Deps::varying(tag(i, what, hint))
            }
            _ => {
                // A local array.
                let d = self.value(&i.index, out);
                d.with(self.value(&i.expr, out))
            }
        }
    }

    /// `left = right` (or `left op= right` when `compound`).
    fn assign(&mut self, left: &Expr, right: &Expr, compound: bool, out: &mut Vec<Node<Tag>>) {
        match strip(left) {
            Expr::Index(i) => match self.lookup(&i.expr) {
                Some(Name::Memory(memory, vk)) => {
                    let view = snippet(&i.expr);
                    let (comps, _) = self.components(&i.index, out);
                    let site = Site {
                        memory,
                        kind: vk,
                        view: &view,
                        at: left,
                    };
                    if compound {
                        self.access(site, AccessKind::Read, comps.clone(), out);
                    }
                    self.value(right, out);
                    self.access(site, AccessKind::Write, comps, out);
                }
                Some(Name::Local(l, _)) => {
                    let d = self.value(&i.index, out);
                    let value = d.with(self.value(right, out)).with(Deps::local(l));
                    out.push(Node::Def { local: l, value });
                }
                _ => {
                    self.value(right, out);
                }
            },
            Expr::Unary(u) => {
                let v = self.value(right, out);
                if let Some(Name::Local(l, _)) = self.lookup(&u.expr) {
                    // A nested reduction's or scan's accumulator.
                    let value = if compound { v.with(Deps::local(l)) } else { v };
                    out.push(Node::Def { local: l, value });
                }
            }
            x @ Expr::Path(_) => {
                let v = self.value(right, out);
                if let Some(Name::Local(l, _)) = self.lookup(x) {
                    let value = if compound { v.with(Deps::local(l)) } else { v };
                    out.push(Node::Def { local: l, value });
                }
            }
            _ => {
                self.value(right, out);
            }
        }
    }

    fn method(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Node<Tag>>) -> Deps<Tag> {
        if self.is_team(&m.receiver) {
            return self.team(m, out);
        }
        match self.lookup(&m.receiver) {
            Some(Name::Memory(memory, vk)) => {
                let method = m.method.to_string();
                if method == "extent" || method == "size" {
                    let d = self.all(m.args.iter(), out);
                    return match vk {
                        ViewKind::ThreadScratch => Deps::varying(tag(
                            m,
                            format!("`{}`, an extent of thread scratch, which each thread allocates for itself", snippet(m)),
                            BROADCAST_HINT,
                        )),
                        _ => d,
                    };
                }
                let mut args = m.args.iter();
                let (comps, _) = match args.next() {
                    Some(idx) => self.components(idx, out),
                    None => (Vec::new(), Deps::uniform()),
                };
                self.all(args, out);
                let view = snippet(&m.receiver);
                let at = Expr::MethodCall(m.clone());
                let site = Site {
                    memory,
                    kind: vk,
                    view: &view,
                    at: &at,
                };
                self.access(site, AccessKind::Atomic, comps, out);
                Deps::varying(tag(
                    m,
                    format!(
                        "the result of the atomic `{}`, which differs between threads",
                        snippet(m)
                    ),
                    BROADCAST_HINT,
                ))
            }
            Some(Name::ReadView) => self.all(m.args.iter(), out),
            _ => {
                let d = self.value(&m.receiver, out);
                d.with(self.all(m.args.iter(), out))
            }
        }
    }

    fn team(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Node<Tag>>) -> Deps<Tag> {
        let method = m.method.to_string();
        let args: Vec<&Expr> = m.args.iter().collect();
        let construct = |text: String| tag(m, text, "");
        match method.as_str() {
            "team_rank" => Deps::varying(tag(
                m,
                "`team.team_rank()`, which differs between the threads of a team by definition".into(),
                "move the construct out of the condition or loop that depends on it: every thread of the team must reach it",
            )),
            "team_barrier" => {
                out.push(Node::Barrier {
                    tag: construct("`team.team_barrier()`".into()),
                });
                Deps::uniform()
            }
            "team_broadcast" => {
                let mut it = args.iter();
                if let Some(v) = it.next() {
                    self.value(v, out);
                }
                let src = it.next().map(|s| self.value(s, out)).unwrap_or_default();
                let l = self.fresh();
                out.push(Node::Broadcast {
                    local: l,
                    src,
                    tag: construct("`team.team_broadcast(..)`".into()),
                });
                Deps::local(l)
            }
            "single_team" | "single_thread" => {
                let (kind, name) = if method == "single_team" {
                    (SingleKind::Team, "single_team")
                } else {
                    (SingleKind::Thread, "single_thread")
                };
                let Some(Expr::Closure(c)) = args.first().map(|a| strip(a)) else {
                    return Deps::uniform();
                };
                let r = self.fresh();
                let mut body = Vec::new();
                self.frames.push(Frame::Single(name));
                let v = self.scoped(|s| s.value(&c.body, &mut body));
                self.frames.pop();
                body.push(Node::Def { local: r, value: v });
                out.push(Node::Single {
                    kind,
                    result: Some(r),
                    body,
                    tag: construct(format!("`team.{name}(..)`")),
                });
                Deps::local(r)
            }
            _ => match Kind::of_nested_reduce(&method) {
                Some((kind, scan)) => {
                    let bounds = args.first().map(|a| self.value(a, out)).unwrap_or_default();
                    let Some(Expr::Closure(c)) = args.last().map(|a| strip(a)) else {
                        return Deps::uniform();
                    };
                    let params: Vec<Option<&syn::Ident>> = c.inputs.iter().map(pat_ident).collect();
                    let index = self.fresh();
                    let others: Vec<Local> = params.iter().skip(1).map(|_| self.fresh()).collect();
                    let result = self.fresh();
                    let mut body = Vec::new();
                    self.frames.push(Frame::Nested {
                        method: method.clone(),
                        index: params.first().copied().flatten().map_or("j".into(), |i| i.to_string()),
                    });
                    self.scoped(|s| {
                        if let Some(Some(id)) = params.first() {
                            s.bind(id, Name::Local(index, false));
                        }
                        for (p, l) in params.iter().skip(1).zip(&others) {
                            if let Some(id) = p {
                                s.bind(id, Name::Local(*l, false));
                            }
                        }
                        s.value(&c.body, &mut body);
                    });
                    self.frames.pop();
                    out.push(Node::Nested {
                        kind: model_kind(kind),
                        form: if scan { NestedForm::Scan } else { NestedForm::Reduce },
                        bounds,
                        index,
                        locals: others,
                        result: Some(result),
                        body,
                        tag: construct(format!("`team.{method}(..)`")),
                    });
                    Deps::local(result)
                }
                // Queries of the team (league rank and size, team size, vector length) are the
                // same in every thread.
                None => Deps::uniform(),
            },
        }
    }

    fn for_(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Node<Tag>>) {
        let var = pat_ident(&f.pat).cloned();
        if let Some(m) = self.team_method(&f.expr) {
            let method = m.method.to_string();
            if let Some(kind) = Kind::of_range(&method) {
                let bounds = self.all(m.args.iter(), out);
                let index = self.fresh();
                self.nested_indices.insert(index);
                if let (1, Some(k)) = (
                    m.args.len(),
                    m.args.first().and_then(|a| literal_count(a, true)),
                ) {
                    if immutable_ident(&f.pat) {
                        self.digits.insert(index, k);
                    }
                }
                let mut body = Vec::new();
                self.frames.push(Frame::Nested {
                    method: method.clone(),
                    index: var.as_ref().map_or("j".into(), |v| v.to_string()),
                });
                self.scoped(|s| {
                    if let Some(v) = &var {
                        s.bind(v, Name::Local(index, false));
                    }
                    s.stmts(&f.body.stmts, &mut body);
                });
                self.frames.pop();
                out.push(Node::Nested {
                    kind: model_kind(kind),
                    form: NestedForm::For,
                    bounds,
                    index,
                    locals: Vec::new(),
                    result: None,
                    body,
                    tag: tag(m, format!("`team.{method}(..)`"), ""),
                });
                return;
            }
        }
        // `(a..b).step_by(k).rev()`: the bounds and the step decide the iterations.
        let mut head = Deps::uniform();
        let mut e = &*f.expr;
        loop {
            match strip(e) {
                Expr::MethodCall(m) => {
                    head.add(self.all(m.args.iter(), out));
                    e = &m.receiver;
                }
                other => {
                    head.add(self.value(other, out));
                    break;
                }
            }
        }
        let counter = self.fresh();
        if let Some(k) = literal_count(&f.expr, false) {
            if immutable_ident(&f.pat) {
                self.digits.insert(counter, k);
            }
        }
        let mut body = Vec::new();
        self.scoped(|s| {
            if let Some(v) = &var {
                s.bind(v, Name::Local(counter, false));
            }
            s.stmts(&f.body.stmts, &mut body);
        });
        out.push(Node::Loop {
            counter: Some(counter),
            head,
            body,
        });
    }
}

fn model_kind(k: Kind) -> NestedKind {
    match k {
        Kind::Thread => NestedKind::Thread,
        Kind::Vector => NestedKind::Vector,
        Kind::TeamVector => NestedKind::TeamVector,
    }
}
