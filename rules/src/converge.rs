//! Convergence and nesting: every thread of a team must reach each barrier and each team-wide
//! construct (a `Thread` or `TeamVector` nested range, reduction or scan, a team `single`, a
//! broadcast, a team scratch allocation) with the same bounds, or a GPU deadlocks or computes
//! garbage while the host (one thread per team) works.
//!
//! A value is *uniform* when every thread of a team has the same: literals, scalar parameters, the
//! league rank and size, team size, vector length, extents of View parameters and team scratch,
//! loads of read-only Views at uniform indices, calls and operators over uniform values, the
//! results of team-wide reductions, scans, team `single`s and broadcasts, and locals whose every
//! assignment is uniform and under uniform control ([`crate::model::Deps`] lists the sources that
//! are not). Control is uniform in the body outside conditions, loops and early exits that depend
//! on non-uniform values, and outside nested and `single` bodies.
//!
//! Rules: a team-wide construct sits in uniform control, with uniform bounds, outside every nested
//! body and `single`; a `Vector` construct, a thread `single` and a thread scratch allocation sit
//! outside vector bodies and `single`s.

use crate::model::{Body, Construct, Deps, Local, NestedKind, Node, ScratchScope, SingleKind};

/// Why a body breaks the rules.
#[derive(Clone, Debug, PartialEq)]
pub enum Violation<T> {
    /// `what` (tagged `at`) is reached under control flow, or with bounds, that can differ between
    /// the threads of a team; `cause` is the thread-varying source they depend on.
    Divergent {
        /// The construct.
        what: Construct,
        /// Its tag.
        at: T,
        /// The source that varies between threads.
        cause: T,
        /// Whether the construct's bounds (extents, source thread) vary, rather than the control
        /// flow around it.
        bounds: bool,
    },
    /// `what` (tagged `at`) sits in the body of `inside`, where a backend cannot run it.
    Misplaced {
        /// The construct.
        what: Construct,
        /// The construct whose body it is in.
        inside: Construct,
        /// Its tag.
        at: T,
    },
}

/// Checks the convergence and nesting rules of a team kernel's body; the first violation in
/// program order.
pub fn check<T: Clone>(body: &Body<T>) -> Result<(), Violation<T>> {
    let mut w = Walker {
        varying: vec![None; body.locals],
        changed: false,
        diverged: None,
        single_results: Vec::new(),
        check: false,
    };
    // Marking only ever turns a local from uniform to varying, so this ends.
    loop {
        w.changed = false;
        w.diverged = None;
        w.block(&body.block, None, Region::Top)?;
        if !w.changed {
            break;
        }
    }
    w.check = true;
    w.diverged = None;
    w.block(&body.block, None, Region::Top)
}

/// The innermost construct body being walked.
#[derive(Clone, Copy, PartialEq)]
enum Region {
    Top,
    /// A `Thread` nested body: vector-level constructs may run here, team-wide ones not.
    ThreadBody(Construct),
    /// A vector-level body (`Vector` or `TeamVector` nested, or a `single`): nothing nests here.
    LaneBody(Construct),
}

/// Control flow: `None` when every thread of the team is here together, else the source that
/// decides which threads are.
type Ctrl<T> = Option<T>;

struct Walker<T> {
    varying: Vec<Option<T>>,
    changed: bool,
    diverged: Option<T>,
    single_results: Vec<Local>,
    check: bool,
}

impl<T: Clone> Walker<T> {
    fn mark(&mut self, l: Local, cause: &T) {
        if let Some(v) = self.varying.get_mut(l as usize) {
            if v.is_none() {
                *v = Some(cause.clone());
                self.changed = true;
            }
        }
    }

    /// `None` when `d` is uniform, else a source that makes it vary.
    fn uni(&self, d: &Deps<T>) -> Option<T> {
        d.varying.clone().or_else(|| {
            d.locals
                .iter()
                .find_map(|&l| self.varying.get(l as usize).cloned().flatten())
        })
    }

    /// Whether `b` (a loop body when `own_loop`) can leave the loop or the work item under varying
    /// control, so that different threads run different numbers of iterations: the source if so.
    fn divergent_exit(&self, b: &[Node<T>], ctrl: &Ctrl<T>, own_loop: bool) -> Option<T> {
        b.iter().find_map(|s| match s {
            Node::Break | Node::Continue if own_loop => ctrl.clone(),
            Node::Return => ctrl.clone(),
            Node::If { cond, then, else_ } => {
                let c = ctrl.clone().or_else(|| self.uni(cond));
                self.divergent_exit(then, &c, own_loop)
                    .or_else(|| self.divergent_exit(else_, &c, own_loop))
            }
            Node::Loop { head, body, .. } => {
                let c = ctrl.clone().or_else(|| self.uni(head));
                self.divergent_exit(body, &c, false)
            }
            _ => None,
        })
    }

    fn team_wide(
        &self,
        what: Construct,
        at: &T,
        ctrl: &Ctrl<T>,
        region: Region,
        bounds: Option<&Deps<T>>,
    ) -> Result<(), Violation<T>> {
        if !self.check {
            return Ok(());
        }
        match region {
            Region::Top => {}
            Region::ThreadBody(inside) | Region::LaneBody(inside) => {
                return Err(Violation::Misplaced {
                    what,
                    inside,
                    at: at.clone(),
                })
            }
        }
        let (cause, in_bounds) = match ctrl {
            Some(c) => (Some(c.clone()), false),
            None => (bounds.and_then(|b| self.uni(b)), true),
        };
        match cause {
            Some(cause) => Err(Violation::Divergent {
                what,
                at: at.clone(),
                cause,
                bounds: in_bounds,
            }),
            None => Ok(()),
        }
    }

    fn vector_level(&self, what: Construct, at: &T, region: Region) -> Result<(), Violation<T>> {
        match region {
            Region::LaneBody(inside) if self.check => Err(Violation::Misplaced {
                what,
                inside,
                at: at.clone(),
            }),
            _ => Ok(()),
        }
    }

    fn block(&mut self, b: &[Node<T>], ctrl: Ctrl<T>, region: Region) -> Result<(), Violation<T>> {
        for s in b {
            let c = ctrl.clone().or_else(|| self.diverged.clone());
            self.stmt(s, c, region)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Node<T>, ctrl: Ctrl<T>, region: Region) -> Result<(), Violation<T>> {
        match s {
            Node::Def { local, value } => {
                // A single's result is assigned by one thread and then given to every thread.
                if !self.single_results.contains(local) {
                    if let Some(c) = ctrl.or_else(|| self.uni(value)) {
                        self.mark(*local, &c);
                    }
                }
            }
            Node::If { cond, then, else_ } => {
                let c = ctrl.or_else(|| self.uni(cond));
                self.block(then, c.clone(), region)?;
                self.block(else_, c, region)?;
            }
            Node::Loop {
                counter,
                head,
                body,
            } => {
                let c = ctrl.or_else(|| self.uni(head));
                let c = c.clone().or_else(|| self.divergent_exit(body, &c, true));
                if let (Some(c), Some(v)) = (&c, counter) {
                    self.mark(*v, c);
                }
                self.block(body, c, region)?;
            }
            Node::Return => {
                if let Some(c) = ctrl {
                    self.diverged.get_or_insert(c);
                }
            }
            Node::Break | Node::Continue | Node::Access(_) => {}
            Node::Barrier { tag } => {
                self.team_wide(Construct::Barrier, tag, &ctrl, region, None)?
            }
            Node::Nested {
                kind,
                form,
                bounds,
                index,
                locals,
                result,
                body,
                tag,
            } => {
                let what = Construct::Nested(*kind, *form);
                if kind.is_team_wide() {
                    self.team_wide(what, tag, &ctrl, region, Some(bounds))?;
                } else {
                    self.vector_level(what, tag, region)?;
                }
                for l in std::iter::once(index).chain(locals) {
                    self.mark(*l, tag);
                }
                let inner = if *kind == NestedKind::Thread {
                    Region::ThreadBody(what)
                } else {
                    Region::LaneBody(what)
                };
                self.block(body, Some(tag.clone()), inner)?;
                if let Some(r) = result {
                    // A vector reduction's result is per thread; a team-wide one is everyone's
                    // unless reached by only some threads or over thread-dependent bounds.
                    let cause = match kind.is_team_wide() {
                        true => ctrl.or_else(|| self.uni(bounds)),
                        false => Some(tag.clone()),
                    };
                    if let Some(c) = cause {
                        self.mark(*r, &c);
                    }
                }
            }
            Node::Single {
                kind,
                result,
                body,
                tag,
            } => {
                let what = Construct::Single(*kind);
                match kind {
                    SingleKind::Team => self.team_wide(what, tag, &ctrl, region, None)?,
                    SingleKind::Thread => self.vector_level(what, tag, region)?,
                }
                if let Some(r) = result {
                    self.single_results.push(*r);
                }
                let walked = self.block(body, Some(tag.clone()), Region::LaneBody(what));
                if result.is_some() {
                    self.single_results.pop();
                }
                walked?;
                if let Some(r) = result {
                    // A thread single's result is per thread.
                    let cause = match kind {
                        SingleKind::Team => ctrl,
                        SingleKind::Thread => Some(tag.clone()),
                    };
                    if let Some(c) = cause {
                        self.mark(*r, &c);
                    }
                }
            }
            Node::Broadcast { local, src, tag } => {
                self.team_wide(Construct::Broadcast, tag, &ctrl, region, Some(src))?;
                if let Some(c) = ctrl {
                    self.mark(*local, &c);
                }
            }
            Node::Scratch {
                scope,
                extents,
                tag,
            } => {
                let what = Construct::Scratch(*scope);
                match scope {
                    ScratchScope::Team => {
                        self.team_wide(what, tag, &ctrl, region, Some(extents))?
                    }
                    ScratchScope::Thread => self.vector_level(what, tag, region)?,
                }
            }
        }
        Ok(())
    }
}
