//! A kernel body as the model of [`rokkos_rules`]: the team rules that `#[kernel]` checks at
//! compile time on the kernel's syntax, checked here on the recorded IR.
//!
//! This translation and the macro's are the only two places that decide what a value depends on,
//! and they follow one list ([`rokkos_rules::model::Deps`]): loads of read-only View parameters
//! are as uniform as their index, everything else a thread can see change (writable Views, scratch,
//! atomics, accumulators, the team rank, thread scratch extents, the scan flag) varies.

use crate::expr::{Expr, LocalId};
use crate::ops::{Access, NestedKind, ScratchScope, SingleKind, TeamQuery, ViewRef};
use crate::stmt::{ArrayInit, Block, Stmt};
use crate::Kernel;
use rokkos_rules::model::{self as m, AccessKind, Body, Component, Deps, Memory, NestedForm, Node};

/// The model of `kernel`'s body (tags are `()`: the IR has no source positions).
pub fn of_kernel(kernel: &Kernel) -> Body<()> {
    let tx = Tx { kernel };
    Body {
        locals: kernel.locals.len(),
        block: tx.block(&kernel.body),
    }
}

struct Tx<'a> {
    kernel: &'a Kernel,
}

fn local(l: LocalId) -> m::Local {
    l.0
}

fn nested_kind(k: NestedKind) -> m::NestedKind {
    match k {
        NestedKind::Thread => m::NestedKind::Thread,
        NestedKind::Vector => m::NestedKind::Vector,
        NestedKind::TeamVector => m::NestedKind::TeamVector,
    }
}

impl Tx<'_> {
    fn block(&self, b: &Block) -> Vec<Node<()>> {
        let mut out = Vec::new();
        for s in b {
            self.stmt(s, &mut out);
        }
        out
    }

    /// What `e` depends on; its memory accesses are appended to `out` in evaluation order.
    fn deps(&self, e: &Expr, out: &mut Vec<Node<()>>) -> Deps<()> {
        let mut d = Deps::uniform();
        let own = match e {
            Expr::Local(l) => Deps::local(local(*l)),
            Expr::ArrayLoad { array, .. } => Deps::local(local(*array)),
            Expr::Team(q) if !q.is_team_uniform() => Deps::varying(()),
            Expr::Load { view, .. } if !self.read_only(*view) => Deps::varying(()),
            Expr::Extent {
                view: ViewRef::Scratch(s),
                ..
            } if self.kernel.scratch[s.0 as usize].scope == ScratchScope::Thread => {
                Deps::varying(())
            }
            Expr::WorkIndex(_) | Expr::AccRead(_) | Expr::IsFinal | Expr::Atomic(_) => {
                Deps::varying(())
            }
            _ => Deps::uniform(),
        };
        e.for_each_child(|c| d.add(self.deps(c, out)));
        match e {
            Expr::Load { view, index } => {
                if let Some(memory) = self.memory(*view) {
                    out.push(self.access(memory, AccessKind::Read, index));
                }
            }
            Expr::Atomic(a) => {
                if let Some(memory) = self.memory(a.view) {
                    out.push(self.access(memory, AccessKind::Atomic, &a.index));
                }
            }
            _ => {}
        }
        d.with(own)
    }

    fn read_only(&self, v: ViewRef) -> bool {
        match v {
            ViewRef::Param(p) => self
                .kernel
                .views
                .get(p.0 as usize)
                .is_some_and(|v| v.access == Access::ReadOnly),
            ViewRef::Scratch(_) => false,
        }
    }

    /// The shared memory `v` is (`None`: a read-only View, which nothing writes).
    fn memory(&self, v: ViewRef) -> Option<Memory> {
        match v {
            _ if self.read_only(v) => None,
            ViewRef::Param(p) => Some(Memory::View(p.0)),
            ViewRef::Scratch(s) => Some(match self.kernel.scratch.get(s.0 as usize)?.scope {
                ScratchScope::Team => Memory::TeamScratch(s.0),
                ScratchScope::Thread => Memory::ThreadScratch(s.0),
            }),
        }
    }

    fn access(&self, memory: Memory, kind: AccessKind, index: &[Expr]) -> Node<()> {
        let component = |e: &Expr| match e {
            Expr::Local(l) => Component::Local(local(*l)),
            Expr::Team(TeamQuery::TeamRank) => Component::TeamRank,
            Expr::Lit(v) if v.ty().is_int() => Component::Const(v.to_bits()),
            _ => Component::Other,
        };
        Node::Access(m::Access {
            memory,
            kind,
            index: index.iter().map(component).collect(),
            tag: (),
        })
    }

    fn all(&self, es: &[&Expr], out: &mut Vec<Node<()>>) -> Deps<()> {
        let mut d = Deps::uniform();
        for e in es {
            d.add(self.deps(e, out));
        }
        d
    }

    fn stmt(&self, s: &Stmt, out: &mut Vec<Node<()>>) {
        match s {
            Stmt::Let { local: l, init } => {
                let value = init
                    .as_ref()
                    .map_or_else(Deps::uniform, |e| self.deps(e, out));
                out.push(Node::Def {
                    local: local(*l),
                    value,
                });
            }
            Stmt::LetArray { local: l, init } => {
                let value = match init {
                    ArrayInit::Fill(e) => self.deps(e, out),
                    ArrayInit::Elems(es) => self.all(&es.iter().collect::<Vec<_>>(), out),
                };
                out.push(Node::Def {
                    local: local(*l),
                    value,
                });
            }
            Stmt::Assign { local: l, value } => {
                let value = self.deps(value, out);
                out.push(Node::Def {
                    local: local(*l),
                    value,
                });
            }
            Stmt::ArrayStore {
                array,
                index,
                value,
            } => {
                let value = self.all(&[index, value], out);
                out.push(Node::Def {
                    local: local(*array),
                    value,
                });
            }
            Stmt::AccStore { value, .. } => {
                self.deps(value, out);
                out.push(self.access(Memory::Accumulator, AccessKind::Write, &[]));
            }
            Stmt::Store { view, index, value } => {
                let refs: Vec<&Expr> = index.iter().chain(std::iter::once(value)).collect();
                self.all(&refs, out);
                if let Some(memory) = self.memory(*view) {
                    out.push(self.access(memory, AccessKind::Write, index));
                }
            }
            Stmt::Atomic(a) => {
                let refs: Vec<&Expr> = a.index.iter().chain(&a.args).collect();
                self.all(&refs, out);
                if let Some(memory) = self.memory(a.view) {
                    out.push(self.access(memory, AccessKind::Atomic, &a.index));
                }
            }
            Stmt::If { cond, then, else_ } => {
                let cond = self.deps(cond, out);
                out.push(Node::If {
                    cond,
                    then: self.block(then),
                    else_: self.block(else_),
                });
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let head = self.all(&[start, end, step], out);
                out.push(Node::Loop {
                    counter: Some(local(*var)),
                    head,
                    body: self.block(body),
                });
            }
            Stmt::While { cond, body } => {
                let head = self.deps(cond, out);
                // The condition runs again before each iteration.
                let mut inner = Vec::new();
                self.deps(cond, &mut inner);
                inner.extend(self.block(body));
                out.push(Node::Loop {
                    counter: None,
                    head,
                    body: inner,
                });
            }
            Stmt::Loop { body } => out.push(Node::Loop {
                counter: None,
                head: Deps::uniform(),
                body: self.block(body),
            }),
            Stmt::Break => out.push(Node::Break),
            Stmt::Continue => out.push(Node::Continue),
            Stmt::Return(e) => {
                if let Some(e) = e {
                    self.deps(e, out);
                }
                out.push(Node::Return);
            }
            Stmt::Barrier => out.push(Node::Barrier { tag: () }),
            Stmt::NestedFor {
                kind,
                var,
                start,
                end,
                body,
                ..
            } => {
                let bounds = self.all(&[start, end], out);
                out.push(Node::Nested {
                    kind: nested_kind(*kind),
                    form: NestedForm::For,
                    bounds,
                    index: local(*var),
                    locals: Vec::new(),
                    result: None,
                    body: self.block(body),
                    tag: (),
                });
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
                let bounds = self.all(&[start, end], out);
                out.push(Node::Nested {
                    kind: nested_kind(*kind),
                    form: NestedForm::Reduce,
                    bounds,
                    index: local(*var),
                    locals: vec![local(*acc)],
                    result: Some(local(*result)),
                    body: self.block(body),
                    tag: (),
                });
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
                ..
            } => {
                let bounds = self.all(&[start, end], out);
                out.push(Node::Nested {
                    kind: nested_kind(*kind),
                    form: NestedForm::Scan,
                    bounds,
                    index: local(*var),
                    locals: vec![local(*partial), local(*is_final)],
                    result: Some(local(*total)),
                    body: self.block(body),
                    tag: (),
                });
            }
            Stmt::Single { kind, body, result } => out.push(Node::Single {
                kind: match kind {
                    SingleKind::Team => m::SingleKind::Team,
                    SingleKind::Thread => m::SingleKind::Thread,
                },
                result: result.map(local),
                body: self.block(body),
                tag: (),
            }),
            Stmt::Broadcast {
                local: l,
                value,
                src,
            } => {
                self.deps(value, out);
                let src = self.deps(src, out);
                out.push(Node::Broadcast {
                    local: local(*l),
                    src,
                    tag: (),
                });
            }
            Stmt::Scratch { id, extents } => {
                let extents = self.all(&extents.iter().collect::<Vec<_>>(), out);
                let scope = match self.kernel.scratch.get(id.0 as usize).map(|d| d.scope) {
                    Some(ScratchScope::Thread) => m::ScratchScope::Thread,
                    _ => m::ScratchScope::Team,
                };
                out.push(Node::Scratch {
                    scope,
                    extents,
                    tag: (),
                });
            }
        }
    }
}
