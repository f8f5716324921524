//! Scope rules: a local is used only between its declaration and the end of the declaring block,
//! declared once, and assigned inside a team construct's body only if declared there; `break` and
//! `continue` sit inside a loop of the same body; `return` does not cross a closure body; a helper
//! function returns a value on every path.

use super::{Body, ErrorKind};
use crate::expr::{Expr, LocalId};
use crate::stmt::{Block, Stmt};

type R<T> = Result<T, ErrorKind>;

/// Checks the scope rules of `body`.
pub fn check(body: Body<'_>) -> R<()> {
    let n = body.locals.len();
    let mut s = Scope {
        body,
        declared_at: vec![None; n],
        ever: vec![false; n],
        next_seq: 0,
        scopes: vec![Vec::new()],
        loops: 0,
        closures: Vec::new(),
    };
    if let Some(f) = body.func {
        for &p in &body.kernel.functions[f].params {
            s.declare(p)?;
        }
        if !always_returns(body.block) {
            return Err(ErrorKind::MissingReturn);
        }
    }
    s.block(body.block)
}

/// Whether running `b` always ends in a `return` (or never finishes).
pub fn always_returns(b: &Block) -> bool {
    b.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If { then, else_, .. } => always_returns(then) && always_returns(else_),
        Stmt::Loop { body } => !breaks(body),
        _ => false,
    })
}

/// Whether `b` contains a `break` of the loop whose body it is.
fn breaks(b: &Block) -> bool {
    b.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If { then, else_, .. } => breaks(then) || breaks(else_),
        _ => false,
    })
}

struct Closure {
    /// Locals declared with a sequence number below this are outside the closure body.
    seq_at_entry: u32,
    /// The one outer local it may assign (a `single`'s result).
    allowed: Option<LocalId>,
}

struct Scope<'a> {
    body: Body<'a>,
    /// Sequence number of the declaration of each local currently in scope.
    declared_at: Vec<Option<u32>>,
    ever: Vec<bool>,
    next_seq: u32,
    scopes: Vec<Vec<LocalId>>,
    loops: u32,
    closures: Vec<Closure>,
}

impl Scope<'_> {
    fn name(&self, l: LocalId) -> String {
        self.body.local_name(l.0)
    }
    fn declare(&mut self, l: LocalId) -> R<()> {
        let i = l.0 as usize;
        if i >= self.ever.len() {
            return Err(ErrorKind::Unknown {
                what: "local",
                id: l.0,
            });
        }
        if self.ever[i] {
            return Err(ErrorKind::Redeclared(self.name(l)));
        }
        self.ever[i] = true;
        self.declared_at[i] = Some(self.next_seq);
        self.next_seq += 1;
        self.scopes.last_mut().expect("scope").push(l);
        Ok(())
    }
    fn use_(&self, l: LocalId) -> R<()> {
        match self.declared_at.get(l.0 as usize) {
            Some(Some(_)) => Ok(()),
            _ => Err(ErrorKind::NotInScope(self.name(l))),
        }
    }
    fn assign(&self, l: LocalId) -> R<()> {
        self.use_(l)?;
        let seq = self.declared_at[l.0 as usize].expect("in scope");
        for c in &self.closures {
            if seq < c.seq_at_entry && c.allowed != Some(l) {
                return Err(ErrorKind::AssignsOuterLocal(self.name(l)));
            }
        }
        Ok(())
    }
    fn expr(&self, e: &Expr) -> R<()> {
        let mut result = Ok(());
        e.walk(&mut |x| {
            if result.is_ok() {
                if let Expr::Local(l) | Expr::ArrayLoad { array: l, .. } = x {
                    result = self.use_(*l);
                }
            }
        });
        result
    }

    /// Runs `f` in a new block scope, optionally declaring `vars` first.
    fn scoped(&mut self, vars: &[LocalId], f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        self.scopes.push(Vec::new());
        let r = vars
            .iter()
            .try_for_each(|&v| self.declare(v))
            .and_then(|()| f(self));
        for l in self.scopes.pop().expect("scope") {
            self.declared_at[l.0 as usize] = None;
        }
        r
    }
    fn block(&mut self, b: &Block) -> R<()> {
        self.scoped(&[], |s| b.iter().try_for_each(|st| s.stmt(st)))
    }
    fn loop_body(&mut self, vars: &[LocalId], b: &Block) -> R<()> {
        self.loops += 1;
        let r = self.scoped(vars, |s| b.iter().try_for_each(|st| s.stmt(st)));
        self.loops -= 1;
        r
    }
    /// A closure body (nested construct or single): no enclosing loop, its own locals.
    fn closure_body(&mut self, vars: &[LocalId], allowed: Option<LocalId>, b: &Block) -> R<()> {
        let saved = std::mem::take(&mut self.loops);
        self.closures.push(Closure {
            seq_at_entry: self.next_seq,
            allowed,
        });
        let r = self.scoped(vars, |s| b.iter().try_for_each(|st| s.stmt(st)));
        self.closures.pop();
        self.loops = saved;
        r
    }

    fn stmt(&mut self, st: &Stmt) -> R<()> {
        for e in st.exprs() {
            self.expr(e)?;
        }
        match st {
            Stmt::Let { local, .. } | Stmt::LetArray { local, .. } => self.declare(*local),
            Stmt::Assign { local, .. } | Stmt::ArrayStore { array: local, .. } => {
                self.assign(*local)
            }
            Stmt::Broadcast { local, .. } => self.assign(*local),
            Stmt::AccStore { .. }
            | Stmt::Store { .. }
            | Stmt::Atomic(_)
            | Stmt::Barrier
            | Stmt::Scratch { .. } => Ok(()),
            Stmt::If { then, else_, .. } => {
                self.block(then)?;
                self.block(else_)
            }
            Stmt::For { var, body, .. } => self.loop_body(&[*var], body),
            Stmt::While { body, .. } | Stmt::Loop { body } => self.loop_body(&[], body),
            Stmt::Break | Stmt::Continue if self.loops == 0 => {
                Err(ErrorKind::OutsideLoop(if matches!(st, Stmt::Break) {
                    "break"
                } else {
                    "continue"
                }))
            }
            Stmt::Break | Stmt::Continue => Ok(()),
            Stmt::Return(_) if !self.closures.is_empty() => Err(ErrorKind::BadReturn(
                "`return` inside a team construct's body (it would return from the closure only)",
            )),
            Stmt::Return(_) => Ok(()),
            Stmt::NestedFor { var, body, .. } => self.closure_body(&[*var], None, body),
            Stmt::NestedReduce {
                var,
                acc,
                body,
                result,
                ..
            } => {
                self.assign(*result)?;
                self.closure_body(&[*var, *acc], None, body)
            }
            Stmt::NestedScan {
                var,
                partial,
                is_final,
                body,
                total,
                ..
            } => {
                self.assign(*total)?;
                self.closure_body(&[*var, *partial, *is_final], None, body)
            }
            Stmt::Single { body, result, .. } => {
                if let Some(r) = result {
                    self.assign(*r)?;
                }
                self.closure_body(&[], *result, body)
            }
        }
    }
}
