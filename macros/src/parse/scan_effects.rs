//! Side effects of scan bodies: a write that persists beyond the work item (a View or scratch
//! element, an atomic, another accumulator than the scan's own partial) must sit under `if
//! is_final { .. }`.
//!
//! Why: the host's serial loop runs a scan body once per index with `is_final == true`, while a
//! parallel scan runs it in several passes, the earlier ones with `is_final == false` (rayon: two
//! over chunks; wgpu: up to three for `parallel_scan`, two for a nested team scan). A write made
//! in every pass happens once on serial and two or three times elsewhere (`out[i] += 1` gives 1,
//! 2 or 3), so the kernel would give a different result per backend. Kokkos leaves such writes
//! undefined; rokkos refuses them at compile time instead. Writes to the scan's own partial and
//! to locals declared in the body are redone from scratch each pass and stay allowed. For the
//! same reason the partial must be folded alike in every pass (not under a condition on the
//! flag, nor with the flag in its value), and a View element the final pass wrote may not be
//! read afterwards outside it (the earlier passes read it unwritten; in a loop that holds the
//! write, a read anywhere in the loop counts as afterwards). Writes
//! inside `unsafe { }` are the author's responsibility, as for the owner-computes rule.

use super::env::{pat_bindings, pat_ident, BodyEnv};
use super::expr_ident;
use super::signature::{KernelSignature, PatternKind};
use super::{Errors, NestedKind};
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Expr, UnOp};

/// Checks every scan body of `sig` (a `#[kernel(scan)]` body and the closures of nested
/// `*_scan` calls).
pub fn check_block(env: &BodyEnv, sig: &KernelSignature) -> syn::Result<()> {
    let mut scratch = ScratchNames {
        env,
        names: HashSet::new(),
    };
    scratch.visit_block(&sig.body);
    let mut c = Checker {
        env,
        scratch: scratch.names,
        scans: Vec::new(),
        loops: 0,
        errs: Errors::default(),
    };
    if let PatternKind::Scan { acc, flag } = &sig.pattern {
        c.scans
            .push(Scan::new(flag.to_string(), acc.name.to_string()));
    }
    c.visit_block(&sig.body);
    c.errs.finish()
}

/// Names bound to scratch Views (`let s = team.team_scratch(..)`): their elements are shared
/// memory like a View's.
struct ScratchNames<'a> {
    env: &'a BodyEnv,
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for ScratchNames<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            let scratch = self
                .env
                .team_method(&init.expr)
                .is_some_and(|m| m.method == "team_scratch" || m.method == "thread_scratch");
            if scratch {
                let mut ids = Vec::new();
                pat_bindings(&l.pat, &mut ids);
                self.names.extend(ids.iter().map(|i| i.to_string()));
            }
        }
        syn::visit::visit_local(self, l);
    }
}

/// One enclosing scan body.
struct Scan {
    /// Its `is_final` flag.
    flag: String,
    /// Its own partial (`*partial op= ..` is the scan's fold, not a side effect).
    partial: String,
    /// Under `if is_final { .. }`.
    guarded: bool,
    /// In a branch of an `if` whose condition reads the flag (either branch).
    dependent: bool,
    /// Views and scratch Views written under the flag so far (in program order).
    final_written: HashSet<String>,
}

impl Scan {
    fn new(flag: String, partial: String) -> Scan {
        Scan {
            flag,
            partial,
            guarded: false,
            dependent: false,
            final_written: HashSet::new(),
        }
    }
}

/// Whether `e` reads the name `flag`.
fn mentions(e: &Expr, flag: &str) -> bool {
    struct Finder<'f> {
        flag: &'f str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            self.found |= p.path.get_ident().is_some_and(|id| id == self.flag);
        }
    }
    let mut f = Finder { flag, found: false };
    f.visit_expr(e);
    f.found
}

struct Checker<'a> {
    env: &'a BodyEnv,
    scratch: HashSet<String>,
    scans: Vec<Scan>,
    /// Loops the walk is inside (of scan bodies only).
    loops: usize,
    errs: Errors,
}

/// The root of a place expression: `*x` (deref of `x`) or `x`, through fields and indices; and
/// whether an index was applied on the way.
fn place_root(e: &Expr) -> Option<(bool, &syn::Ident, bool)> {
    match e {
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Group(g) => place_root(&g.expr),
        Expr::Field(f) => place_root(&f.base),
        Expr::Index(i) => place_root(&i.expr).map(|(d, id, _)| (d, id, true)),
        Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => {
            expr_ident(&u.expr).map(|id| (true, id, false))
        }
        _ => expr_ident(e).map(|id| (false, id, false)),
    }
}

/// Whether `cond` implies `flag` (`flag`, or `flag && ..` / `.. && flag`).
fn implies(cond: &Expr, flag: &str) -> bool {
    match cond {
        Expr::Paren(p) => implies(&p.expr, flag),
        Expr::Group(g) => implies(&g.expr, flag),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            implies(&b.left, flag) || implies(&b.right, flag)
        }
        _ => expr_ident(cond).is_some_and(|id| id == flag),
    }
}

/// Whether `cond` is `!flag`.
fn negates(cond: &Expr, flag: &str) -> bool {
    match cond {
        Expr::Paren(p) => negates(&p.expr, flag),
        Expr::Group(g) => negates(&g.expr, flag),
        Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => {
            expr_ident(&u.expr).is_some_and(|id| id == flag)
        }
        _ => false,
    }
}

impl Checker<'_> {
    /// Whether writing `target` reaches memory outside the work item's own locals and partial.
    fn persists(&self, target: &Expr, partial: &str) -> bool {
        match place_root(target) {
            Some((true, id, _)) => id != partial,
            Some((false, id, _)) => {
                let name = id.to_string();
                self.env.views.contains_key(&name) || self.scratch.contains(&name)
            }
            // Anything else the subset checks refuse on their own.
            None => false,
        }
    }

    fn side_effect(&mut self, at: &impl quote::ToTokens, what: &str) {
        let Some(s) = self.scans.last() else {
            return;
        };
        if s.guarded {
            return;
        }
        let flag = s.flag.clone();
        self.errs.spanned(
            at,
            format!(
                "{what} in a scan body outside `if {flag} {{ .. }}`: a parallel scan runs its body \
                 more than once per index (with `{flag} == false` in the earlier passes), so this \
                 write would happen once on serial and two or three times on rayon and the GPU \
                 backends. Move it under `if {flag} {{ .. }}` (only the scan's own partial may be \
                 updated in every pass)"
            ),
        );
    }

    fn check_write(&mut self, target: &Expr, value: &Expr, at: &impl quote::ToTokens) {
        let Some(s) = self.scans.last() else {
            return;
        };
        let partial = s.partial.clone();
        let own = matches!(place_root(target), Some((true, id, _)) if id == partial.as_str());
        if own && (s.dependent || mentions(value, &s.flag)) {
            // The earlier passes compute the block totals the final pass starts from: a fold
            // that differs between passes gives other prefixes than the serial loop's.
            let flag = s.flag.clone();
            self.errs.spanned(
                at,
                format!(
                    "the scan's partial `{partial}` is updated differently depending on \
                     `{flag}`: a parallel scan computes its block totals in the passes with \
                     `{flag} == false`, so the partial must be updated the same way in every pass \
                     (move the update out of the `if`, and do not use `{flag}` in it)"
                ),
            );
        } else if !s.guarded && self.persists(target, &partial) {
            self.side_effect(at, "a write to shared memory or another accumulator");
        } else if s.guarded && self.persists(target, &partial) {
            if let Some((false, id, _)) = place_root(target) {
                let name = id.to_string();
                if let Some(s) = self.scans.last_mut() {
                    s.final_written.insert(name);
                }
            }
        }
    }

    /// A read of an element the final pass wrote before: the earlier passes see it unwritten.
    fn check_read(&mut self, e: &Expr) {
        let Some(s) = self.scans.last() else {
            return;
        };
        let Some((false, id, true)) = place_root(e) else {
            return;
        };
        if !s.guarded && s.final_written.contains(&id.to_string()) {
            let flag = s.flag.clone();
            let looped = if self.loops > 0 {
                " (in a loop, from its second iteration on)"
            } else {
                ""
            };
            self.errs.spanned(
                e,
                format!(
                    "`{id}` is read here, outside `if {flag} {{ .. }}`, after the final pass \
                     wrote it{looped}: the earlier passes of a parallel scan read it unwritten, \
                     the serial loop written. Read it before the write, or only under `if {flag}`"
                ),
            );
        }
    }

    /// Visits `b` with the innermost scan's guard set to `guarded` (when it is not already),
    /// and marked flag-dependent when `dependent`.
    fn guarded_block(&mut self, b: &syn::Block, guarded: bool, dependent: bool) {
        let old = self.scans.last().map(|s| (s.guarded, s.dependent));
        if let Some(s) = self.scans.last_mut() {
            s.guarded |= guarded;
            s.dependent |= dependent;
        }
        self.visit_block(b);
        if let (Some(s), Some((g, d))) = (self.scans.last_mut(), old) {
            s.guarded = g;
            s.dependent = d;
        }
    }
}

impl<'ast> Visit<'ast> for Checker<'_> {
    fn visit_expr_unsafe(&mut self, _: &'ast syn::ExprUnsafe) {
        // The author's responsibility, as for the owner-computes rule (a test counting the
        // passes a backend makes, say).
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => {
                self.check_write(&a.left, &a.right, e);
                // The target is written, not read: visit the value and the index only.
                self.visit_expr(&a.right);
                if let Expr::Index(ix) = &*a.left {
                    self.visit_expr(&ix.index);
                }
                return;
            }
            Expr::Binary(b) if super::subset::is_compound(&b.op) => {
                self.check_write(&b.left, &b.right, e)
            }
            Expr::Index(_) => self.check_read(e),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) if !self.scans.is_empty() => {
                // From the second iteration on, a read placed before a final write in the
                // loop comes after it: a first walk, its errors dropped, records the loop's
                // final writes, and the second walk reads against them.
                self.loops += 1;
                let errs = std::mem::take(&mut self.errs);
                syn::visit::visit_expr(self, e);
                self.errs = errs;
                syn::visit::visit_expr(self, e);
                self.loops -= 1;
                return;
            }
            Expr::MethodCall(m) if m.method.to_string().starts_with("atomic_") => {
                let name = expr_ident(&m.receiver).map(|i| i.to_string());
                let shared = name
                    .is_some_and(|n| self.env.views.contains_key(&n) || self.scratch.contains(&n));
                if shared {
                    self.side_effect(e, "an atomic");
                }
            }
            Expr::If(i) => {
                if let Some(s) = self.scans.last() {
                    let (t, f) = (implies(&i.cond, &s.flag), negates(&i.cond, &s.flag));
                    let dep = mentions(&i.cond, &s.flag);
                    self.visit_expr(&i.cond);
                    self.guarded_block(&i.then_branch, t, dep);
                    if let Some((_, els)) = &i.else_branch {
                        match &**els {
                            Expr::Block(b) => self.guarded_block(&b.block, f, dep),
                            other => {
                                // `else if ..`: still a branch of this condition.
                                let old = self.scans.last().map(|s| s.dependent);
                                if let Some(s) = self.scans.last_mut() {
                                    s.dependent |= dep;
                                }
                                self.visit_expr(other);
                                if let (Some(s), Some(d)) = (self.scans.last_mut(), old) {
                                    s.dependent = d;
                                }
                            }
                        }
                    }
                    return;
                }
            }
            _ => {}
        }
        if let Some(m) = self.env.team_method(e) {
            let scan = NestedKind::of_nested_reduce(&m.method.to_string()).is_some_and(|(_, s)| s);
            let closure = m.args.last().and_then(|a| match a {
                Expr::Closure(c) => Some(c),
                _ => None,
            });
            if let (true, Some(c)) = (scan, closure) {
                let params: Vec<Option<&syn::Ident>> = c.inputs.iter().map(pat_ident).collect();
                if let (Some(Some(p)), Some(Some(f))) = (params.get(1), params.get(2)) {
                    for a in m.args.iter().take(m.args.len() - 1) {
                        self.visit_expr(a);
                    }
                    self.scans.push(Scan::new(f.to_string(), p.to_string()));
                    self.visit_expr(&c.body);
                    self.scans.pop();
                    return;
                }
            }
        }
        syn::visit::visit_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::signature::{parse_kernel, KernelOptions};

    /// The error messages for kernel `src` (empty when it passes).
    fn errors(scan: bool, src: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let options = KernelOptions {
            scan,
            ..Default::default()
        };
        let sig = parse_kernel(options, f).unwrap();
        let env = BodyEnv::for_kernel(&sig);
        match check_block(&env, &sig) {
            Ok(()) => String::new(),
            Err(e) => e.into_compile_error().to_string(),
        }
    }

    #[test]
    fn writes_outside_the_final_pass_are_refused() {
        let bad = [
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { o[i] += 1; *p += 1; }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { o.atomic_add(i, 1); }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if !fin { o[i] = 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin || i > 2 { o[i] = 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin {} else { o[i] = 1; } }",
        ];
        for src in bad {
            assert!(errors(true, src).contains("outside `if fin"), "{src}");
        }
        let partial = [
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin { o[i] = *p; *p += 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if !fin {} else { *p += 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { *p += fin as i32; }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin || i > 3 { *p += 1; } }",
        ];
        for src in partial {
            assert!(errors(true, src).contains("updated differently"), "{src}");
        }
        let feedback = "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin { o[i] = 1; } *p += o[i]; }";
        assert!(errors(true, feedback).contains("after the final pass wrote"));
        // In a loop, the read that comes first in the text follows the write from the second
        // iteration on; one error per read, not one per walk of the loop.
        let looped = [
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { for _k in 0..2 { *p += o[i]; if fin { o[i] = *p; } } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { let mut k = 0; while k < 2 { *p += o[i]; if fin { o[i] = 1; } k += 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { let mut k = 0; loop { if k == 2 { break; } *p += o[i]; if fin { o[i] = 1; } k += 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { for _a in 0..2 { for _b in 0..2 { *p += o[i]; } if fin { o[i] = 1; } } }",
        ];
        for src in looped {
            let e = errors(true, src);
            assert_eq!(
                e.matches("after the final pass wrote it (in a loop")
                    .count(),
                1,
                "{src}: {e}"
            );
        }
        let twice = "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { for _k in 0..2 { o[i] = 1; } }";
        assert_eq!(errors(true, twice).matches("outside `if fin").count(), 1);
        let team = "fn k(team: &TeamMember, acc: &mut i32, o: ViewMut<i32, 2>) {
            let l = team.league_rank();
            let t = team.thread_scan(4usize, |j, q: &mut i32, f: bool| { *acc += 1; *q += 1; });
            let u = team.thread_scan(4usize, |j, q: &mut i32, f: bool| { o[(l, j)] = 1; *q += 1; });
        }";
        let e = errors(false, team);
        assert_eq!(e.matches("outside `if f").count(), 2, "{e}");
    }

    #[test]
    fn the_partial_locals_and_final_writes_are_allowed() {
        let good = [
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin { o[i] += *p; } *p += 1; }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if fin && i > 2 { o.atomic_add(i, 1); } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { if !fin {} else { o[i] = 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { let mut a = [0; 2]; a[1] = 3; let mut x = 1; x += a[1]; *p += x; }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { *p += o[i]; if fin { o[i] = *p + o[i]; } if i > 2 { *p += 1; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32>) { for _k in 0..2 { *p += o[i]; } if fin { o[i] = *p; } }",
            "fn k(i: usize, p: &mut i32, fin: bool, o: ViewMut<i32, 2>) { for k in 0..2 { if fin { o[(i, k)] = *p; } } *p += 1; }",
        ];
        for src in good {
            assert_eq!(errors(true, src), "", "{src}");
        }
        // Outside scans nothing changes; in a nested scan its own flag guards.
        let counted = "fn k(i: usize, p: &mut i32, fin: bool, c: ViewMut<i32>) { unsafe { c.atomic_add(0, 1); } }";
        assert_eq!(errors(true, counted), "");
        let team = "fn k(team: &TeamMember, acc: &mut i32, o: ViewMut<i32, 2>) {
            let l = team.league_rank();
            *acc += 1;
            let t = team.thread_scan(4usize, |j, q: &mut i32, f: bool| {
                if f { o[(l, j)] = *q; *acc += 1; }
                *q += 1;
            });
            let s = team.thread_reduce(4usize, Sum, |j, q: &mut i32| { *q += 1; });
        }";
        assert_eq!(errors(false, team), "");
    }
}
