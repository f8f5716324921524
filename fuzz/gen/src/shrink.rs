//! One-step reductions of a kernel, for minimising a failing case: delete a statement, replace
//! an `if` by one of its branches, replace an expression by a sub-expression of its type or by a
//! constant. Statements and expressions are numbered in pre-order (see [`stmt_count`],
//! [`expr_count`]); an edit that would leave a name undeclared does not apply.

use crate::ast::*;
use crate::ty::{Lit, Ty};
use std::collections::HashSet;

/// One reduction step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edit {
    /// Delete statement `n`.
    Delete(u32),
    /// Replace `if` statement `n` by its branch `b` (0: then, 1: else), or a `for`, `while` or
    /// `loop` statement by its body (`b` 0).
    Unwrap(u32, u8),
    /// Replace expression `n` by its child `c`.
    Child(u32, u8),
    /// Replace expression `n` by zero of its type (`false`, `0`, `0.0`), or one when `one`.
    Const(u32, bool),
}

impl Edit {
    /// The text form: `d3`, `u3.1`, `x7.0`, `z7`, `o7`.
    pub fn to_text(self) -> String {
        match self {
            Edit::Delete(n) => format!("d{n}"),
            Edit::Unwrap(n, b) => format!("u{n}.{b}"),
            Edit::Child(n, c) => format!("x{n}.{c}"),
            Edit::Const(n, false) => format!("z{n}"),
            Edit::Const(n, true) => format!("o{n}"),
        }
    }
    /// Parses [`Edit::to_text`]'s form.
    pub fn parse(t: &str) -> Option<Edit> {
        let (kind, rest) = t.split_at(1);
        let two = |r: &str| -> Option<(u32, u8)> {
            let (a, b) = r.split_once('.')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        };
        Some(match kind {
            "d" => Edit::Delete(rest.parse().ok()?),
            "u" => {
                let (n, b) = two(rest)?;
                Edit::Unwrap(n, b)
            }
            "x" => {
                let (n, c) = two(rest)?;
                Edit::Child(n, c)
            }
            "z" => Edit::Const(rest.parse().ok()?, false),
            "o" => Edit::Const(rest.parse().ok()?, true),
            _ => return None,
        })
    }
}

/// Number of statements (pre-order, nested ones included).
pub fn stmt_count(k: &Kernel) -> u32 {
    let mut n = 0;
    k.walk_stmts(&mut |_| n += 1);
    n
}

/// Number of expression nodes (pre-order, in statement order).
pub fn expr_count(k: &Kernel) -> u32 {
    let mut n = 0;
    k.walk_exprs(&mut |_| n += 1);
    n
}

/// `k` with `e` applied, when the result is a valid kernel.
pub fn apply(k: &Kernel, e: &Edit) -> Option<Kernel> {
    let mut out = k.clone();
    let done = match *e {
        Edit::Delete(n) => edit_stmt(&mut out.body, &mut 0, n, &mut |_| Some(Vec::new())),
        Edit::Unwrap(n, b) => edit_stmt(&mut out.body, &mut 0, n, &mut |s| match s {
            Stmt::If { then, els, .. } => Some(if b == 0 { then.clone() } else { els.clone() }),
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body, .. }
                if b == 0 =>
            {
                Some(body.clone())
            }
            _ => None,
        }),
        Edit::Child(n, c) => edit_expr(&mut out.body, n, &mut |x| {
            let ch = x.children().get(c as usize).map(|e| (*e).clone())?;
            (ch.ty == x.ty).then_some(ch)
        }),
        Edit::Const(n, one) => edit_expr(&mut out.body, n, &mut |x| {
            if matches!(x.kind, ExprKind::Lit(_)) {
                return None;
            }
            Some(Expr::lit(if one {
                Lit::one(x.ty)
            } else {
                Lit::zero(x.ty)
            }))
        }),
    };
    (done && valid(&out)).then_some(out)
}

/// Replaces statement `target` (pre-order) by `f(statement)`.
fn edit_stmt(
    b: &mut Vec<Stmt>,
    next: &mut u32,
    target: u32,
    f: &mut impl FnMut(&Stmt) -> Option<Vec<Stmt>>,
) -> bool {
    let mut i = 0;
    while i < b.len() {
        if *next == target {
            *next += 1;
            return match f(&b[i]) {
                Some(repl) => {
                    let n = repl.len();
                    b.splice(i..=i, repl);
                    let _ = n;
                    true
                }
                None => false,
            };
        }
        *next += 1;
        for blk in b[i].blocks_mut() {
            if edit_stmt(blk, next, target, f) {
                return true;
            }
        }
        if *next > target {
            return false;
        }
        i += 1;
    }
    false
}

/// Replaces expression node `target` (pre-order, statement order) by `f(node)`.
fn edit_expr(b: &mut [Stmt], target: u32, f: &mut impl FnMut(&Expr) -> Option<Expr>) -> bool {
    let mut next = 0u32;
    let mut done = None;
    fn walk_e(
        e: &mut Expr,
        next: &mut u32,
        target: u32,
        f: &mut impl FnMut(&Expr) -> Option<Expr>,
        done: &mut Option<bool>,
    ) {
        if done.is_some() {
            return;
        }
        if *next == target {
            *next += 1;
            *done = Some(match f(e) {
                Some(r) => {
                    *e = r;
                    true
                }
                None => false,
            });
            return;
        }
        *next += 1;
        for c in e.children_mut() {
            walk_e(c, next, target, f, done);
        }
    }
    fn walk_s(
        s: &mut Stmt,
        next: &mut u32,
        target: u32,
        f: &mut impl FnMut(&Expr) -> Option<Expr>,
        done: &mut Option<bool>,
    ) {
        for e in s.exprs_mut() {
            walk_e(e, next, target, f, done);
        }
        for blk in s.blocks_mut() {
            for s in blk.iter_mut() {
                walk_s(s, next, target, f, done);
            }
        }
    }
    for s in b.iter_mut() {
        walk_s(s, &mut next, target, f, &mut done);
    }
    done == Some(true)
}

/// Whether every name the kernel uses is declared before, in an enclosing scope, every `break` /
/// `continue` sits in a loop, and every scratch View is declared before its use.
pub fn valid(k: &Kernel) -> bool {
    struct V {
        scopes: Vec<HashSet<VarId>>,
        scratch: HashSet<u32>,
        ok: bool,
    }
    impl V {
        fn has(&self, v: VarId) -> bool {
            self.scopes.iter().any(|s| s.contains(&v))
        }
        fn decl(&mut self, v: VarId) {
            self.scopes.last_mut().expect("scope").insert(v);
        }
        fn expr(&mut self, e: &Expr) {
            e.walk(&mut |x| match &x.kind {
                ExprKind::Var(v) | ExprKind::ArrLoad { arr: v, .. } if !self.has(*v) => {
                    self.ok = false
                }
                ExprKind::Load {
                    view: ViewRef::Scratch(id),
                    ..
                }
                | ExprKind::Extent {
                    view: ViewRef::Scratch(id),
                    ..
                } if !self.scratch.contains(id) => self.ok = false,
                _ => {}
            });
        }
        fn block(&mut self, b: &[Stmt], loops: bool, decl: &[VarId]) {
            self.scopes.push(decl.iter().copied().collect());
            for s in b {
                self.stmt(s, loops);
            }
            self.scopes.pop();
        }
        fn stmt(&mut self, s: &Stmt, loops: bool) {
            match s {
                // Their values are checked inside the closure's scope below.
                Stmt::NestedReduce { n, .. } | Stmt::NestedScan { n, .. } => self.expr(n),
                Stmt::Single { .. } => {}
                _ => {
                    for e in s.exprs() {
                        self.expr(e);
                    }
                }
            }
            match s {
                Stmt::Let { var, .. } | Stmt::ArrLet { arr: var, .. } => self.decl(*var),
                Stmt::Assign { var, .. } | Stmt::ArrStore { arr: var, .. } if !self.has(*var) => {
                    self.ok = false
                }
                Stmt::Store { at: Some(v), .. } if !self.has(*v) => self.ok = false,
                Stmt::Break | Stmt::Continue if !loops => self.ok = false,
                Stmt::If { then, els, .. } => {
                    self.block(then, loops, &[]);
                    self.block(els, loops, &[]);
                }
                Stmt::For { var, body, .. } => self.block(body, true, &[*var]),
                Stmt::While { body, .. } | Stmt::Loop { body, .. } => self.block(body, true, &[]),
                Stmt::NestedFor { var, body, .. } => self.block(body, false, &[*var]),
                Stmt::NestedReduce {
                    var,
                    acc,
                    body,
                    value,
                    result,
                    ..
                } => {
                    self.scopes.push([*var, *acc].into_iter().collect());
                    for s in body {
                        self.stmt(s, false);
                    }
                    self.expr(value);
                    self.scopes.pop();
                    self.decl(*result);
                }
                Stmt::NestedScan {
                    var,
                    partial,
                    fin,
                    body,
                    value,
                    total,
                    ..
                } => {
                    self.scopes
                        .push([*var, *partial, *fin].into_iter().collect());
                    for s in body {
                        self.stmt(s, false);
                    }
                    self.expr(value);
                    self.scopes.pop();
                    self.decl(*total);
                }
                Stmt::Single { body, result, .. } => {
                    self.scopes.push(HashSet::new());
                    for s in body {
                        self.stmt(s, false);
                    }
                    if let Some((_, e)) = result {
                        self.expr(e);
                    }
                    self.scopes.pop();
                    if let Some((v, _)) = result {
                        self.decl(*v);
                    }
                }
                Stmt::Broadcast { var, .. } => self.decl(*var),
                Stmt::Scratch { id, .. } => {
                    self.scratch.insert(*id);
                }
                Stmt::ScratchStore { id, .. } if !self.scratch.contains(id) => self.ok = false,
                _ => {}
            }
        }
    }
    // Statements inside a nested-range body were checked with its index declared; the
    // exprs of the nested construct itself (bounds) are checked before.
    let mut v = V {
        scopes: vec![HashSet::new()],
        scratch: HashSet::new(),
        ok: true,
    };
    for s in &k.body {
        v.stmt(s, false);
    }
    v.ok
}

/// Every one-step reduction of `k` that applies, the ones that remove most first.
pub fn candidates(k: &Kernel) -> Vec<Edit> {
    let mut sized: Vec<(usize, Edit)> = Vec::new();
    let mut sizes = Vec::new();
    k.walk_stmts(&mut |s| {
        let mut n = 0;
        s.walk(&mut |_| n += 1);
        let branches = match s {
            Stmt::If { .. } => 2,
            Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } => 1,
            _ => 0,
        };
        sizes.push((n, branches));
    });
    for (n, &(size, branches)) in sizes.iter().enumerate() {
        sized.push((size * 100, Edit::Delete(n as u32)));
        for b in 0..branches {
            sized.push((size * 50, Edit::Unwrap(n as u32, b)));
        }
    }
    let mut esizes = Vec::new();
    k.walk_exprs(&mut |e| {
        let mut n = 0;
        e.walk(&mut |_| n += 1);
        let kids: Vec<bool> = e.children().iter().map(|c| c.ty == e.ty).collect();
        esizes.push((n, kids, matches!(e.kind, ExprKind::Lit(_)), e.ty));
    });
    for (n, (size, kids, lit, ty)) in esizes.into_iter().enumerate() {
        for (c, same) in kids.into_iter().enumerate() {
            if same {
                sized.push((size * 10, Edit::Child(n as u32, c as u8)));
            }
        }
        if !lit && size > 1 {
            sized.push((size * 10 - 1, Edit::Const(n as u32, false)));
            if ty != Ty::Bool {
                sized.push((size * 10 - 2, Edit::Const(n as u32, true)));
            }
        }
    }
    sized.sort_by_key(|e| std::cmp::Reverse(e.0));
    sized
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| apply(k, e).is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_applies_and_keeps_names_declared() {
        for i in 0..40 {
            let k = crate::gen::kernel(11, i);
            assert!(valid(&k), "generated kernel {i} uses an undeclared name");
            for e in candidates(&k).into_iter().take(30) {
                let r = apply(&k, &e).unwrap();
                assert!(valid(&r));
                assert_ne!(r, k, "edit {e:?} of kernel {i} changed nothing");
                assert_eq!(Edit::parse(&e.to_text()), Some(e));
            }
        }
    }
}
