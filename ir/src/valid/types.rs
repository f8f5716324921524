//! Type rules: operands match their operators, casts are legal Rust `as` casts, conditions are `bool`,
//! indices, extents and nested bounds are integers, stored and assigned values have the target's type.

use super::{Body, ErrorKind};
use crate::expr::{AtomicAccess, Expr, LocalId};
use crate::ops::ViewRef;
use crate::stmt::{ArrayInit, Block, LocalDecl, Stmt};
use crate::ScalarType;

type R<T> = Result<T, ErrorKind>;

/// Checks the types of every expression and statement of `body`.
pub fn check(body: Body<'_>) -> R<()> {
    block(&body, body.block)
}

/// The type of `e` in `body`, or the first type error in it.
pub fn expr_type(body: &Body<'_>, e: &Expr) -> R<ScalarType> {
    let k = body.kernel;
    match e {
        Expr::Lit(v) => Ok(v.ty()),
        Expr::Local(l) => scalar_local(body, *l).map(|d| d.ty),
        Expr::ArrayLoad { array, index } => {
            let d = array_local(body, *array)?;
            integer(body, index, "array index")?;
            Ok(d.ty)
        }
        Expr::TableLoad { table, index } => {
            let t = k.tables.get(table.0 as usize).ok_or(ErrorKind::Unknown {
                what: "constant table",
                id: table.0,
            })?;
            integer(body, index, "table index")?;
            Ok(t.ty)
        }
        Expr::Param(p) => k
            .scalars
            .get(p.0 as usize)
            .map(|s| s.ty)
            .ok_or(ErrorKind::Unknown {
                what: "scalar parameter",
                id: p.0,
            }),
        Expr::WorkIndex(i) => {
            let rank = k.work.index_rank();
            if *i >= rank {
                return Err(ErrorKind::OutOfRange {
                    what: "work index component".to_string(),
                    value: *i,
                    allowed: match rank {
                        0 => "none (team kernels have no work index)",
                        1 => "0",
                        _ => "below the MDRange rank",
                    },
                });
            }
            Ok(ScalarType::U64)
        }
        Expr::AccRead(f) => k.acc_field_type(*f).ok_or(ErrorKind::Unknown {
            what: "accumulator field",
            id: f.acc,
        }),
        Expr::Binary { op, lhs, rhs } => {
            let (l, r) = (expr_type(body, lhs)?, expr_type(body, rhs)?);
            op.result_type(l, r).ok_or(ErrorKind::BadOperands {
                op: op.symbol(),
                lhs: l,
                rhs: r,
            })
        }
        Expr::Unary { op, arg } => {
            let t = expr_type(body, arg)?;
            op.result_type(t).ok_or(ErrorKind::BadOperand {
                op: op.symbol(),
                ty: t,
            })
        }
        Expr::Cast { ty, arg } => {
            let from = expr_type(body, arg)?;
            if ty.can_cast_from(from) {
                Ok(*ty)
            } else {
                Err(ErrorKind::IllegalCast { from, to: *ty })
            }
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            expect(body, cond, ScalarType::Bool, "select condition")?;
            let t = expr_type(body, on_true)?;
            expect(body, on_false, t, "select branches")?;
            Ok(t)
        }
        Expr::Math { func, args } => {
            let tys = args
                .iter()
                .map(|a| expr_type(body, a))
                .collect::<R<Vec<_>>>()?;
            func.result_type(&tys).ok_or(ErrorKind::BadMathArgs {
                func: *func,
                args: tys,
            })
        }
        Expr::Load { view, index } => {
            let elem = view_elem(body, *view)?;
            indices(body, *view, index)?;
            Ok(elem)
        }
        Expr::Extent { view, .. } => view_elem(body, *view).map(|_| ScalarType::U64),
        Expr::Call { func, args } => {
            let f = k.functions.get(func.0 as usize).ok_or(ErrorKind::Unknown {
                what: "function",
                id: func.0,
            })?;
            count(
                format!("arguments of `{}`", f.name),
                f.params.len(),
                args.len(),
            )?;
            for (p, a) in f.params.iter().zip(args) {
                let pt = f
                    .locals
                    .get(p.0 as usize)
                    .map(|d| d.ty)
                    .ok_or(ErrorKind::Unknown {
                        what: "parameter local",
                        id: p.0,
                    })?;
                expect(body, a, pt, &format!("argument of `{}`", f.name))?;
            }
            Ok(f.ret)
        }
        Expr::Team(_) => Ok(ScalarType::U64),
        Expr::IsFinal => Ok(ScalarType::Bool),
        Expr::Atomic(a) => {
            if !a.op.yields_value() {
                return Err(ErrorKind::StoreAsValue);
            }
            atomic(body, a)
        }
    }
}

fn atomic(body: &Body<'_>, a: &AtomicAccess) -> R<ScalarType> {
    let elem = view_elem(body, a.view)?;
    indices(body, a.view, &a.index)?;
    count(
        format!("arguments of atomic {}", a.op.name()),
        a.op.arg_count(),
        a.args.len(),
    )?;
    for arg in &a.args {
        expect(body, arg, elem, "atomic argument")?;
    }
    Ok(elem)
}

fn block(body: &Body<'_>, b: &Block) -> R<()> {
    b.iter().try_for_each(|s| stmt(body, s))
}

fn stmt(body: &Body<'_>, s: &Stmt) -> R<()> {
    match s {
        Stmt::Let { local, init } => {
            let d = scalar_local(body, *local)?;
            if let Some(e) = init {
                expect(
                    body,
                    e,
                    d.ty,
                    &format!("initial value of `{}`", body.local_name(local.0)),
                )?;
            }
        }
        Stmt::LetArray { local, init } => {
            let d = array_local(body, *local)?;
            let ctx = format!("elements of `{}`", body.local_name(local.0));
            match init {
                ArrayInit::Fill(e) => expect(body, e, d.ty, &ctx)?,
                ArrayInit::Elems(es) => {
                    count(ctx.clone(), d.array_len.unwrap_or(0) as usize, es.len())?;
                    es.iter().try_for_each(|e| expect(body, e, d.ty, &ctx))?;
                }
            }
        }
        Stmt::Assign { local, value } => {
            let d = scalar_local(body, *local)?;
            expect(
                body,
                value,
                d.ty,
                &format!("assignment to `{}`", body.local_name(local.0)),
            )?;
        }
        Stmt::ArrayStore {
            array,
            index,
            value,
        } => {
            let d = array_local(body, *array)?;
            integer(body, index, "array index")?;
            expect(
                body,
                value,
                d.ty,
                &format!("store to `{}`", body.local_name(array.0)),
            )?;
        }
        Stmt::AccStore { field, value } => {
            let t = body
                .kernel
                .acc_field_type(*field)
                .ok_or(ErrorKind::Unknown {
                    what: "accumulator field",
                    id: field.acc,
                })?;
            expect(body, value, t, "accumulator assignment")?;
        }
        Stmt::Store { view, index, value } => {
            let elem = view_elem(body, *view)?;
            indices(body, *view, index)?;
            expect(body, value, elem, "stored value")?;
        }
        Stmt::Atomic(a) => {
            atomic(body, a)?;
        }
        Stmt::If { cond, then, else_ } => {
            expect(body, cond, ScalarType::Bool, "`if` condition")?;
            block(body, then)?;
            block(body, else_)?;
        }
        Stmt::While { cond, body: b } => {
            expect(body, cond, ScalarType::Bool, "`while` condition")?;
            block(body, b)?;
        }
        Stmt::Loop { body: b } => block(body, b)?,
        Stmt::For {
            var,
            start,
            end,
            step,
            body: b,
            ..
        } => {
            let t = scalar_local(body, *var)?.ty;
            if !t.is_int() {
                return Err(ErrorKind::NotInteger {
                    context: "`for` counter".to_string(),
                    found: t,
                });
            }
            expect(body, start, t, "`for` start")?;
            expect(body, end, t, "`for` end")?;
            // Rust's `step_by` takes a `usize` (the IR's `u64`), whatever the counter's type.
            if expr_type(body, step)? != ScalarType::U64 {
                expect(body, step, t, "`for` step (or a `u64` step)")?;
            }
            block(body, b)?;
        }
        Stmt::Break | Stmt::Continue | Stmt::Barrier => {}
        Stmt::Return(e) => match (e, body.func) {
            (Some(e), Some(f)) => expect(body, e, body.kernel.functions[f].ret, "returned value")?,
            (None, None) => {}
            (Some(_), None) => return Err(ErrorKind::BadReturn("a kernel body returns no value")),
            (None, Some(_)) => {
                return Err(ErrorKind::BadReturn(
                    "a helper function must return a value",
                ))
            }
        },
        Stmt::NestedFor {
            var,
            start,
            end,
            body: b,
            ..
        } => {
            nested_bounds(body, *var, start, end)?;
            block(body, b)?;
        }
        Stmt::NestedReduce {
            var,
            start,
            end,
            reducer,
            acc,
            body: b,
            result,
            ..
        } => {
            nested_bounds(body, *var, start, end)?;
            let t = scalar_local(body, *acc)?.ty;
            let rt = scalar_local(body, *result)?.ty;
            if rt != t {
                return Err(ErrorKind::TypeMismatch {
                    context: "nested reduction result".to_string(),
                    expected: t,
                    found: rt,
                });
            }
            if !reducer.supports(t) {
                return Err(ErrorKind::ReducerType {
                    reducer: reducer.name(),
                    ty: t,
                });
            }
            block(body, b)?;
        }
        Stmt::NestedScan {
            var,
            start,
            end,
            partial,
            is_final,
            body: b,
            total,
            ..
        } => {
            nested_bounds(body, *var, start, end)?;
            let t = scalar_local(body, *partial)?.ty;
            if !t.is_numeric() {
                return Err(ErrorKind::ReducerType {
                    reducer: "Sum",
                    ty: t,
                });
            }
            local_type(body, *total, t, "nested scan total")?;
            local_type(body, *is_final, ScalarType::Bool, "nested scan final flag")?;
            block(body, b)?;
        }
        Stmt::Single {
            body: b, result, ..
        } => {
            if let Some(r) = result {
                scalar_local(body, *r)?;
            }
            block(body, b)?;
        }
        Stmt::Broadcast { local, value, src } => {
            let t = scalar_local(body, *local)?.ty;
            expect(body, value, t, "broadcast value")?;
            integer(body, src, "broadcast source")?;
        }
        Stmt::Scratch { id, extents } => {
            let d = body
                .kernel
                .scratch
                .get(id.0 as usize)
                .ok_or(ErrorKind::Unknown {
                    what: "scratch",
                    id: id.0,
                })?;
            count(
                format!("extents of scratch{}", id.0),
                d.rank as usize,
                extents.len(),
            )?;
            extents
                .iter()
                .try_for_each(|e| integer(body, e, "scratch extent"))?;
        }
    }
    Ok(())
}

fn nested_bounds(body: &Body<'_>, var: LocalId, start: &Expr, end: &Expr) -> R<()> {
    local_type(body, var, ScalarType::U64, "nested range index")?;
    expect(body, start, ScalarType::U64, "nested range start")?;
    expect(body, end, ScalarType::U64, "nested range end")
}

fn local_type(body: &Body<'_>, l: LocalId, t: ScalarType, ctx: &str) -> R<()> {
    let found = scalar_local(body, l)?.ty;
    if found == t {
        Ok(())
    } else {
        Err(ErrorKind::TypeMismatch {
            context: ctx.to_string(),
            expected: t,
            found,
        })
    }
}

fn expect(body: &Body<'_>, e: &Expr, t: ScalarType, ctx: &str) -> R<()> {
    let found = expr_type(body, e)?;
    if found == t {
        Ok(())
    } else {
        Err(ErrorKind::TypeMismatch {
            context: ctx.to_string(),
            expected: t,
            found,
        })
    }
}

fn integer(body: &Body<'_>, e: &Expr, ctx: &str) -> R<()> {
    let found = expr_type(body, e)?;
    if found.is_int() {
        Ok(())
    } else {
        Err(ErrorKind::NotInteger {
            context: ctx.to_string(),
            found,
        })
    }
}

fn count(context: String, expected: usize, found: usize) -> R<()> {
    if expected == found {
        Ok(())
    } else {
        Err(ErrorKind::WrongCount {
            context,
            expected,
            found,
        })
    }
}

fn indices(body: &Body<'_>, view: ViewRef, index: &[Expr]) -> R<()> {
    let rank = body.kernel.view_rank(view).unwrap_or(0);
    count(
        "indices of a View access".to_string(),
        rank as usize,
        index.len(),
    )?;
    index
        .iter()
        .try_for_each(|e| integer(body, e, "View index"))
}

fn view_elem(body: &Body<'_>, view: ViewRef) -> R<ScalarType> {
    body.kernel.view_elem(view).ok_or(match view {
        ViewRef::Param(v) => ErrorKind::Unknown {
            what: "View",
            id: v.0,
        },
        ViewRef::Scratch(s) => ErrorKind::Unknown {
            what: "scratch",
            id: s.0,
        },
    })
}

fn decl<'a>(body: &Body<'a>, l: LocalId) -> R<&'a LocalDecl> {
    body.locals.get(l.0 as usize).ok_or(ErrorKind::Unknown {
        what: "local",
        id: l.0,
    })
}

fn scalar_local<'a>(body: &Body<'a>, l: LocalId) -> R<&'a LocalDecl> {
    let d = decl(body, l)?;
    if d.array_len.is_some() {
        return Err(ErrorKind::ArrayMismatch {
            local: body.local_name(l.0),
            is_array: true,
        });
    }
    Ok(d)
}

fn array_local<'a>(body: &Body<'a>, l: LocalId) -> R<&'a LocalDecl> {
    let d = decl(body, l)?;
    if d.array_len.is_none() {
        return Err(ErrorKind::ArrayMismatch {
            local: body.local_name(l.0),
            is_array: false,
        });
    }
    Ok(d)
}
