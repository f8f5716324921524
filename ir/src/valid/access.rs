//! Access rules: no store or atomic through a read-only View; atomics only on Views marked
//! `used_atomically` and only with operations the element type supports (the bitwise ones need an
//! integer element).

use super::{Body, ErrorKind};
use crate::expr::{AtomicAccess, Expr};
use crate::ops::{Access, AtomicResult, ViewRef};
use crate::stmt::Stmt;

type R<T> = Result<T, ErrorKind>;

/// Checks every store and atomic of `body`.
pub fn check(body: Body<'_>) -> R<()> {
    let mut result = Ok(());
    for s in body.block {
        s.walk(&mut |st| {
            if result.is_err() {
                return;
            }
            result = match st {
                Stmt::Store {
                    view: ViewRef::Param(v),
                    ..
                } => match body.kernel.views.get(v.0 as usize) {
                    Some(p) if p.access == Access::ReadOnly => {
                        Err(ErrorKind::StoreToReadOnly(p.name.clone()))
                    }
                    _ => Ok(()),
                },
                Stmt::Atomic(a) => atomic(&body, a),
                _ => Ok(()),
            };
            for e in st.exprs() {
                e.walk(&mut |x| {
                    if let (Ok(()), Expr::Atomic(a)) = (&result, x) {
                        result = atomic(&body, a);
                    }
                });
            }
        });
    }
    result
}

fn atomic(body: &Body<'_>, a: &AtomicAccess) -> R<()> {
    let (name, elem) = match a.view {
        ViewRef::Param(v) => {
            let p = &body.kernel.views[v.0 as usize];
            if p.access == Access::ReadOnly {
                return Err(ErrorKind::AtomicOnReadOnly {
                    view: p.name.clone(),
                    op: a.op,
                });
            }
            if !p.used_atomically {
                return Err(ErrorKind::AtomicNotDeclared(p.name.clone()));
            }
            (p.name.clone(), p.elem)
        }
        ViewRef::Scratch(s) => (
            format!("scratch{}", s.0),
            body.kernel.scratch[s.0 as usize].elem,
        ),
    };
    if !a.op.supports(elem) {
        return Err(ErrorKind::AtomicUnsupported {
            view: name,
            op: a.op,
            elem,
        });
    }
    if a.result == AtomicResult::New && !a.op.has_new_value() {
        return Err(ErrorKind::AtomicNoNewValue {
            view: name,
            op: a.op,
        });
    }
    Ok(())
}
