//! The pass that gives a kernel the library functions its target needs: every call of a math
//! function the target takes from the software library becomes a call of a helper function the
//! library defines, added to the kernel's own. The emitters then write those functions as they
//! write any `#[rokkos::func]`, so the library has no text of its own in either target language.

use super::library;
use crate::emit::EmitError;
use rokkos_core::ir::build::FunctionSet;
use rokkos_core::ir::{Block, Expr, FuncId, Kernel, LocalDecl, MathFn, ScalarType, Stmt};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// `kernel` with every `Expr::Math` of a function and float type that `software` selects replaced
/// by a call of the library's implementation (prepended to the kernel's functions, so that each
/// function still calls only those before it; the library's tables follow the kernel's). A kernel
/// that calls none is returned as it is.
///
/// `Err(Unsupported)` for a selected function the library does not implement.
pub fn lower_math(
    kernel: &Kernel,
    software: impl Fn(MathFn, ScalarType) -> bool,
) -> Result<Cow<'_, Kernel>, EmitError> {
    let mut wanted = BTreeMap::new();
    let mut collect = |locals: &[LocalDecl], body: &Block| {
        for s in body {
            s.walk(&mut |s| {
                for e in s.exprs() {
                    e.walk(&mut |x| {
                        if let Some(key) = math_key(kernel, locals, x) {
                            if software(key.0, key.1) {
                                wanted.insert(key, FuncId(0));
                            }
                        }
                    });
                }
            });
        }
    };
    collect(&kernel.locals, &kernel.body);
    for f in &kernel.functions {
        collect(&f.locals, &f.body);
    }
    if wanted.is_empty() {
        return Ok(Cow::Borrowed(kernel));
    }
    let mut lib = FunctionSet::default();
    for (&(func, ty), id) in wanted.iter_mut() {
        *id = library::define(&mut lib, func, ty).ok_or_else(|| {
            EmitError::Unsupported(format!(
                "{ty} `{}` is not in the software math library",
                func.name()
            ))
        })?;
    }
    let (mut functions, tables) = lib
        .finish()
        .map_err(|e| EmitError::Unsupported(format!("the software math library: {e}")))?;
    let shift = functions.len() as u32;
    let table_shift = kernel.tables.len() as u32;
    for f in &mut functions {
        for s in &mut f.body {
            each_expr(s, &mut |e| shift_tables(e, table_shift));
        }
    }
    let mut out = kernel.clone();
    let rw = Rewrite {
        kernel,
        wanted: &wanted,
        shift,
    };
    for s in &mut out.body {
        each_expr(s, &mut |e| rw.expr(&kernel.locals, e));
    }
    for (f, orig) in out.functions.iter_mut().zip(&kernel.functions) {
        for s in &mut f.body {
            each_expr(s, &mut |e| rw.expr(&orig.locals, e));
        }
    }
    functions.append(&mut out.functions);
    out.functions = functions;
    out.tables.extend(tables);
    Ok(Cow::Owned(out))
}

/// The function and float type of a math call (its first argument's type), or `None`.
fn math_key(kernel: &Kernel, locals: &[LocalDecl], e: &Expr) -> Option<(MathFn, ScalarType)> {
    match e {
        Expr::Math { func, args } => {
            let ty = args.first()?.ty(kernel, locals)?;
            ty.is_float().then_some((*func, ty))
        }
        _ => None,
    }
}

/// Calls `f` on every top-level expression of `s` and of the statements nested in it.
fn each_expr(s: &mut Stmt, f: &mut impl FnMut(&mut Expr)) {
    for e in s.exprs_mut() {
        f(e);
    }
    for b in s.blocks_mut() {
        for s in b {
            each_expr(s, f);
        }
    }
}

fn shift_tables(e: &mut Expr, by: u32) {
    if let Expr::TableLoad { table, .. } = e {
        table.0 += by;
    }
    e.for_each_child_mut(|c| shift_tables(c, by));
}

/// The rewrite of the kernel's own expressions.
struct Rewrite<'a> {
    /// The kernel before the pass: the expressions are typed against it, parents before their
    /// children are rewritten.
    kernel: &'a Kernel,
    wanted: &'a BTreeMap<(MathFn, ScalarType), FuncId>,
    /// The number of library functions now ahead of the kernel's.
    shift: u32,
}

impl Rewrite<'_> {
    fn expr(&self, locals: &[LocalDecl], e: &mut Expr) {
        let lib = math_key(self.kernel, locals, e).and_then(|k| self.wanted.get(&k).copied());
        match (&mut *e, lib) {
            (Expr::Math { args, .. }, Some(func)) => {
                let args = std::mem::take(args);
                *e = Expr::Call { func, args };
            }
            (Expr::Call { func, .. }, _) => func.0 += self.shift,
            _ => {}
        }
        e.for_each_child_mut(|c| self.expr(locals, c));
    }
}
