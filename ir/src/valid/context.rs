//! Where each construct exists: team operations only in team kernels, the `final` flag only in scan
//! kernels, and in helper functions nothing that reaches kernel state (parameters, Views, the work
//! index, accumulators, team operations). A function calls only functions declared before it.

use super::{Body, ErrorKind};
use crate::expr::Expr;
use crate::stmt::Stmt;
use crate::WorkKind;

type R<T> = Result<T, ErrorKind>;

const IN_FUNCTION: &str = "in a helper function";
const OUTSIDE_TEAM: &str = "outside a team kernel";
const OUTSIDE_SCAN: &str = "outside a scan kernel";

/// Checks that every construct of `body` is available where it is used.
pub fn check(body: Body<'_>) -> R<()> {
    let mut result = Ok(());
    for s in body.block {
        s.walk(&mut |st| {
            if result.is_ok() {
                result = stmt(&body, st);
            }
        });
    }
    result
}

fn stmt(body: &Body<'_>, s: &Stmt) -> R<()> {
    let team_only = match s {
        Stmt::Barrier => Some("team_barrier"),
        Stmt::NestedFor { .. } => Some("a nested range"),
        Stmt::NestedReduce { .. } => Some("a nested reduction"),
        Stmt::NestedScan { .. } => Some("a nested scan"),
        Stmt::Single { .. } => Some("single"),
        Stmt::Broadcast { .. } => Some("team_broadcast"),
        Stmt::Scratch { .. } => Some("scratch memory"),
        _ => None,
    };
    let kernel_only = match s {
        Stmt::AccStore { .. } => Some("an accumulator"),
        Stmt::Store { .. } => Some("a View store"),
        Stmt::Atomic(_) => Some("an atomic"),
        _ => team_only,
    };
    if body.func.is_some() {
        if let Some(what) = kernel_only {
            return Err(ErrorKind::NotAvailable {
                what,
                place: IN_FUNCTION,
            });
        }
    } else if let Some(what) = team_only {
        if body.kernel.work != WorkKind::Team {
            return Err(ErrorKind::NotAvailable {
                what,
                place: OUTSIDE_TEAM,
            });
        }
    }
    for e in s.exprs() {
        let mut result = Ok(());
        e.walk(&mut |x| {
            if result.is_ok() {
                result = expr(body, x);
            }
        });
        result?;
    }
    Ok(())
}

fn expr(body: &Body<'_>, e: &Expr) -> R<()> {
    if let Some(f) = body.func {
        let what = match e {
            Expr::Param(_) => Some("a kernel parameter"),
            Expr::WorkIndex(_) => Some("the work index"),
            Expr::AccRead(_) => Some("an accumulator"),
            Expr::Load { .. } | Expr::Extent { .. } => Some("a View"),
            Expr::Team(_) => Some("the team member"),
            Expr::IsFinal => Some("the scan's final flag"),
            Expr::Atomic(_) => Some("an atomic"),
            _ => None,
        };
        if let Some(what) = what {
            return Err(ErrorKind::NotAvailable {
                what,
                place: IN_FUNCTION,
            });
        }
        if let Expr::Call { func, .. } = e {
            if func.0 as usize >= f {
                let name = body
                    .kernel
                    .functions
                    .get(func.0 as usize)
                    .map_or_else(|| format!("func{}", func.0), |g| g.name.clone());
                return Err(ErrorKind::ForwardCall(name));
            }
        }
        return Ok(());
    }
    match e {
        Expr::Team(_) if body.kernel.work != WorkKind::Team => Err(ErrorKind::NotAvailable {
            what: "the team member",
            place: OUTSIDE_TEAM,
        }),
        Expr::IsFinal if !body.kernel.is_scan => Err(ErrorKind::NotAvailable {
            what: "the final flag",
            place: OUTSIDE_SCAN,
        }),
        _ => Ok(()),
    }
}
