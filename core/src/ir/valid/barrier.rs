//! Team convergence: every thread of a team must reach each barrier and each team-wide construct
//! (a `Thread` or `TeamVector` nested range, reduction or scan, a team `single`, a broadcast, a team
//! scratch allocation), or the GPU deadlocks or computes garbage while the host (team size 1) works.
//!
//! A value is *uniform* when every thread of a team has the same: literals, scalar parameters, the
//! league rank and size, team size, vector length, extents of View parameters and team scratch, calls
//! and operators over uniform values, the results of team-wide reductions, scans, team `single`s and
//! broadcasts, and locals whose every assignment is uniform and under uniform control. Loads, atomics,
//! the team rank, nested indices and accumulators are not. Control is uniform in the kernel body
//! outside conditions, loops and early exits that depend on non-uniform values.
//!
//! Rules: a team-wide construct sits in uniform control, with uniform bounds, outside every nested
//! body and `single`; a `Vector` construct or thread `single` sits outside vector bodies and `single`s.

use super::{nested_name, Body, ErrorKind};
use crate::ir::expr::{Expr, LocalId};
use crate::ir::ops::{NestedKind, ScratchScope, SingleKind, ViewRef};
use crate::ir::stmt::{ArrayInit, Block, Stmt};
use crate::ir::WorkKind;

type R<T> = Result<T, ErrorKind>;

/// Checks the convergence rules of a team kernel's body (other bodies have no team constructs).
pub fn check(body: Body<'_>) -> R<()> {
    if body.func.is_some() || body.kernel.work != WorkKind::Team {
        return Ok(());
    }
    let mut w = Walker {
        body,
        uniform: vec![true; body.locals.len()],
        changed: false,
        diverged: false,
        single_results: Vec::new(),
        check: false,
    };
    loop {
        w.changed = false;
        w.diverged = false;
        w.block(body.block, true, Region::Top)?;
        if !w.changed {
            break;
        }
    }
    w.check = true;
    w.diverged = false;
    w.block(body.block, true, Region::Top)
}

/// The innermost team construct body being walked.
#[derive(Clone, Copy, PartialEq)]
enum Region {
    Top,
    Thread,
    Vector(&'static str),
    Single(&'static str),
}

struct Walker<'a> {
    body: Body<'a>,
    uniform: Vec<bool>,
    changed: bool,
    diverged: bool,
    single_results: Vec<LocalId>,
    check: bool,
}

impl Walker<'_> {
    fn mark(&mut self, l: LocalId) {
        if let Some(u) = self.uniform.get_mut(l.0 as usize) {
            if *u {
                *u = false;
                self.changed = true;
            }
        }
    }
    fn uni(&self, e: &Expr) -> bool {
        let mut all = true;
        e.for_each_child(|c| all &= self.uni(c));
        all && match e {
            Expr::Lit(_)
            | Expr::Param(_)
            | Expr::Binary { .. }
            | Expr::Unary { .. }
            | Expr::Cast { .. } => true,
            Expr::Select { .. } | Expr::Math { .. } | Expr::Call { .. } => true,
            Expr::Local(l) | Expr::ArrayLoad { array: l, .. } => {
                self.uniform.get(l.0 as usize).copied().unwrap_or(false)
            }
            Expr::Extent { view, .. } => match view {
                ViewRef::Param(_) => true,
                ViewRef::Scratch(s) => {
                    self.body.kernel.scratch[s.0 as usize].scope == ScratchScope::Team
                }
            },
            Expr::Team(q) => q.is_team_uniform(),
            Expr::WorkIndex(_)
            | Expr::AccRead(_)
            | Expr::Load { .. }
            | Expr::IsFinal
            | Expr::Atomic(_) => false,
        }
    }

    /// Whether `b` (a loop body when `own_loop`) can leave the loop or the work item under non-uniform
    /// control, so that different threads run different numbers of iterations.
    fn divergent_exit(&self, b: &Block, ctrl: bool, own_loop: bool) -> bool {
        b.iter().any(|s| match s {
            Stmt::Break | Stmt::Continue => own_loop && !ctrl,
            Stmt::Return(_) => !ctrl,
            Stmt::If { cond, then, else_ } => {
                let c = ctrl && self.uni(cond);
                self.divergent_exit(then, c, own_loop) || self.divergent_exit(else_, c, own_loop)
            }
            Stmt::For {
                start,
                end,
                step,
                body,
                ..
            } => self.divergent_exit(
                body,
                ctrl && self.uni(start) && self.uni(end) && self.uni(step),
                false,
            ),
            Stmt::While { cond, body } => self.divergent_exit(body, ctrl && self.uni(cond), false),
            Stmt::Loop { body } => self.divergent_exit(body, ctrl, false),
            _ => false,
        })
    }

    fn team_wide(&self, what: &'static str, ctrl: bool, region: Region, bounds: &[&Expr]) -> R<()> {
        if !self.check {
            return Ok(());
        }
        match region {
            Region::Top => {}
            Region::Thread => {
                return Err(ErrorKind::NestedTeamOp {
                    what,
                    inside: "TeamThreadRange",
                })
            }
            Region::Vector(inside) | Region::Single(inside) => {
                return Err(ErrorKind::NestedTeamOp { what, inside })
            }
        }
        if !ctrl || !bounds.iter().all(|e| self.uni(e)) {
            return Err(ErrorKind::DivergentTeamOp(what));
        }
        Ok(())
    }
    fn vector_level(&self, what: &'static str, region: Region) -> R<()> {
        match region {
            Region::Vector(inside) | Region::Single(inside) if self.check => {
                Err(ErrorKind::NestedTeamOp { what, inside })
            }
            _ => Ok(()),
        }
    }

    fn block(&mut self, b: &Block, ctrl: bool, region: Region) -> R<()> {
        for s in b {
            let ctrl = ctrl && !self.diverged;
            self.stmt(s, ctrl, region)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, ctrl: bool, region: Region) -> R<()> {
        match s {
            Stmt::Let { local, init } => {
                if !ctrl || init.as_ref().is_some_and(|e| !self.uni(e)) {
                    self.mark(*local);
                }
            }
            Stmt::Assign { local, value } => {
                if !self.single_results.contains(local) && (!ctrl || !self.uni(value)) {
                    self.mark(*local);
                }
            }
            Stmt::LetArray { local, init } => {
                let u = match init {
                    ArrayInit::Fill(e) => self.uni(e),
                    ArrayInit::Elems(es) => es.iter().all(|e| self.uni(e)),
                };
                if !ctrl || !u {
                    self.mark(*local);
                }
            }
            Stmt::ArrayStore {
                array,
                index,
                value,
            } => {
                if !ctrl || !self.uni(index) || !self.uni(value) {
                    self.mark(*array);
                }
            }
            Stmt::If { cond, then, else_ } => {
                let c = ctrl && self.uni(cond);
                self.block(then, c, region)?;
                self.block(else_, c, region)?;
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let c = ctrl && self.uni(start) && self.uni(end) && self.uni(step);
                let c = c && !self.divergent_exit(body, c, true);
                if !c {
                    self.mark(*var);
                }
                self.block(body, c, region)?;
            }
            Stmt::While { cond, body } => {
                let c = ctrl && self.uni(cond);
                let c = c && !self.divergent_exit(body, c, true);
                self.block(body, c, region)?;
            }
            Stmt::Loop { body } => {
                let c = ctrl && !self.divergent_exit(body, ctrl, true);
                self.block(body, c, region)?;
            }
            Stmt::Return(_) => {
                if !ctrl {
                    self.diverged = true;
                }
            }
            Stmt::Barrier => self.team_wide("team_barrier", ctrl, region, &[])?,
            Stmt::NestedFor {
                kind,
                var,
                start,
                end,
                body,
            } => {
                self.nested(*kind, ctrl, region, start, end)?;
                self.mark(*var);
                self.block(body, false, inner(*kind))?;
            }
            Stmt::NestedReduce {
                kind,
                var,
                start,
                end,
                acc,
                body,
                result,
                ..
            } => {
                self.nested(*kind, ctrl, region, start, end)?;
                self.mark(*var);
                self.mark(*acc);
                self.block(body, false, inner(*kind))?;
                if !(ctrl && kind.is_team_wide() && self.uni(start) && self.uni(end)) {
                    self.mark(*result);
                }
            }
            Stmt::NestedScan {
                kind,
                var,
                start,
                end,
                partial,
                is_final,
                body,
                total,
            } => {
                self.nested(*kind, ctrl, region, start, end)?;
                for l in [var, partial, is_final] {
                    self.mark(*l);
                }
                self.block(body, false, inner(*kind))?;
                if !(ctrl && kind.is_team_wide() && self.uni(start) && self.uni(end)) {
                    self.mark(*total);
                }
            }
            Stmt::Single { kind, body, result } => {
                let inside = match kind {
                    SingleKind::Team => {
                        self.team_wide("single_team", ctrl, region, &[])?;
                        "single_team"
                    }
                    SingleKind::Thread => {
                        self.vector_level("single_thread", region)?;
                        "single_thread"
                    }
                };
                if let Some(r) = result {
                    self.single_results.push(*r);
                }
                let r = self.block(body, false, Region::Single(inside));
                if result.is_some() {
                    self.single_results.pop();
                }
                r?;
                if let Some(r) = result {
                    if !(ctrl && *kind == SingleKind::Team) {
                        self.mark(*r);
                    }
                }
            }
            Stmt::Broadcast { local, src, .. } => {
                self.team_wide("team_broadcast", ctrl, region, &[src])?;
                if !ctrl {
                    self.mark(*local);
                }
            }
            Stmt::Scratch { id, extents } => {
                let refs: Vec<&Expr> = extents.iter().collect();
                match self.body.kernel.scratch[id.0 as usize].scope {
                    ScratchScope::Team => {
                        self.team_wide("a team scratch allocation", ctrl, region, &refs)?
                    }
                    ScratchScope::Thread => {
                        self.vector_level("a thread scratch allocation", region)?
                    }
                }
            }
            Stmt::Break
            | Stmt::Continue
            | Stmt::AccStore { .. }
            | Stmt::Store { .. }
            | Stmt::Atomic(_) => {}
        }
        Ok(())
    }

    fn nested(
        &self,
        kind: NestedKind,
        ctrl: bool,
        region: Region,
        start: &Expr,
        end: &Expr,
    ) -> R<()> {
        if kind.is_team_wide() {
            self.team_wide(nested_name(kind), ctrl, region, &[start, end])
        } else {
            self.vector_level(nested_name(kind), region)
        }
    }
}

fn inner(kind: NestedKind) -> Region {
    match kind {
        NestedKind::Thread => Region::Thread,
        NestedKind::Vector => Region::Vector("ThreadVectorRange"),
        NestedKind::TeamVector => Region::Vector("TeamVectorRange"),
    }
}
