//! `#[func]` helpers in generated kernels: [`outline`] moves pure subexpressions of a kernel into
//! functions the kernel calls, and [`inlined`] puts them back for the analysis.
//!
//! An outlined subexpression keeps its operators, literals and control flow (`if` expressions) in
//! the function's body; what it reads becomes the call's arguments. Only values that are pure and
//! cannot fail are passed (locals, scalar parameters, work indices, team queries, extents), so
//! the call computes exactly what the inline expression did, fails exactly where it failed (an
//! overflow or a zero divisor inside the body, under the same branch), and evaluates nothing the
//! inline expression would have skipped. A load, a local array read or an atomic anywhere below
//! a node keeps that node inline: as an argument it would run before the body, and even when the
//! body's branch does not need it.

use crate::ast::*;
use crate::rng::Rng;
use crate::ty::Ty;

/// The salt of the outlining streams (kernels and inputs use others), so that adding functions
/// leaves every kernel's body as the generator built it.
pub const FUNC_SALT: u64 = 3;

/// At most this many functions per kernel.
const MAX_FUNCS: usize = 3;

/// Moves up to [`MAX_FUNCS`] pure subexpressions of `k`'s value positions (`let` initialisers,
/// assigned and stored values) into `k.funcs`, replacing each by a call.
pub fn outline(k: &mut Kernel, rng: &mut Rng) {
    if !rng.chance(50) {
        return;
    }
    let mut body = std::mem::take(&mut k.body);
    for s in body.iter_mut() {
        outline_stmt(k, s, rng);
    }
    k.body = body;
}

fn outline_stmt(k: &mut Kernel, s: &mut Stmt, rng: &mut Rng) {
    if let Stmt::Let { init: e, .. }
    | Stmt::Assign { value: e, .. }
    | Stmt::Store { value: e, .. } = s
    {
        outline_expr(k, e, rng);
    }
    for b in s.blocks_mut() {
        for s in b.iter_mut() {
            outline_stmt(k, s, rng);
        }
    }
}

/// Outlines `e` itself, or (otherwise) looks for a candidate below it.
fn outline_expr(k: &mut Kernel, e: &mut Expr, rng: &mut Rng) {
    if k.funcs.len() >= MAX_FUNCS {
        return;
    }
    if is_skeleton(&e.kind) && outlinable(e) && rng.chance(35) {
        let mut args: Vec<Expr> = Vec::new();
        let mut params: Vec<(VarId, Ty)> = Vec::new();
        let mut body = e.clone();
        replace_leaves(&mut body, &mut |leaf: &Expr| {
            let n = match args.iter().position(|a| a == leaf) {
                Some(n) => n,
                None => {
                    args.push(leaf.clone());
                    k.vars.push(leaf.ty);
                    params.push((VarId(k.vars.len() as u32 - 1), leaf.ty));
                    args.len() - 1
                }
            };
            Expr::new(params[n].1, ExprKind::Var(params[n].0))
        });
        let id = k.funcs.len() as u32;
        k.funcs.push(Func {
            params,
            ret: e.ty,
            body,
        });
        *e = Expr::new(e.ty, ExprKind::Call(Method::Func(id), args));
        return;
    }
    if matches!(e.kind, ExprKind::Call(Method::Func(_), _)) {
        return;
    }
    for c in e.children_mut() {
        outline_expr(k, c, rng);
    }
}

/// An operator node that stays in a function's body (leaves become arguments, literals stay).
fn is_skeleton(kind: &ExprKind) -> bool {
    match kind {
        ExprKind::Call(m, _) => !matches!(m, Method::Func(_)),
        ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::Cast(_) | ExprKind::If(..) => true,
        _ => false,
    }
}

/// A pure, infallible value that may be passed as an argument.
fn is_argument(kind: &ExprKind) -> bool {
    matches!(
        kind,
        ExprKind::Var(_)
            | ExprKind::Param(_)
            | ExprKind::Work(_)
            | ExprKind::Team(_)
            | ExprKind::Extent { .. }
    )
}

/// Every node below `e` is an operator, a literal or an argument (see the module docs).
fn outlinable(e: &Expr) -> bool {
    if is_argument(&e.kind) || matches!(e.kind, ExprKind::Lit(_)) {
        return true;
    }
    is_skeleton(&e.kind) && e.children().into_iter().all(outlinable)
}

/// Replaces every argument leaf of `e` by `f(leaf)`.
fn replace_leaves(e: &mut Expr, f: &mut impl FnMut(&Expr) -> Expr) {
    if is_argument(&e.kind) {
        *e = f(e);
        return;
    }
    for c in e.children_mut() {
        replace_leaves(c, f);
    }
}

/// `k` with every call of one of its functions replaced by the function's body, its parameters
/// bound to the call's arguments (which are pure, so substituting them is exact).
pub fn inlined(k: &Kernel) -> Kernel {
    let mut out = k.clone();
    let funcs = std::mem::take(&mut out.funcs);
    fn inline_expr(e: &mut Expr, funcs: &[Func]) {
        for c in e.children_mut() {
            inline_expr(c, funcs);
        }
        if let ExprKind::Call(Method::Func(id), args) = &e.kind {
            let f = &funcs[*id as usize];
            let mut body = f.body.clone();
            substitute(&mut body, &f.params, args);
            *e = body;
        }
    }
    fn substitute(e: &mut Expr, params: &[(VarId, Ty)], args: &[Expr]) {
        if let ExprKind::Var(v) = e.kind {
            if let Some(n) = params.iter().position(|(p, _)| *p == v) {
                *e = args[n].clone();
                return;
            }
        }
        for c in e.children_mut() {
            substitute(c, params, args);
        }
    }
    fn inline_stmt(s: &mut Stmt, funcs: &[Func]) {
        for e in s.exprs_mut() {
            inline_expr(e, funcs);
        }
        for b in s.blocks_mut() {
            for s in b.iter_mut() {
                inline_stmt(s, funcs);
            }
        }
    }
    for s in out.body.iter_mut() {
        inline_stmt(s, &funcs);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::kernel_source;

    #[test]
    fn outlining_keeps_the_inline_expression() {
        let mut outlined = 0;
        for i in 0..400 {
            let base = crate::gen::kernel_without_funcs(11, i);
            let mut k = base.clone();
            let mut rng = Rng::derive(11, FUNC_SALT, i);
            outline(&mut k, &mut rng);
            if k.funcs.is_empty() {
                continue;
            }
            outlined += 1;
            let src = kernel_source(&k);
            assert!(src.contains("#[func]"), "{src}");
            // Putting the bodies back gives the kernel the generator built before outlining.
            let back = inlined(&k);
            assert_eq!(back.body, base.body, "{src}");
        }
        assert!(
            outlined > 50,
            "only {outlined} of 400 kernels got a function"
        );
    }
}
