//! The pretty printer: `impl Display for Kernel`.
//!
//! Deterministic and fully parenthesised, one statement per line, two spaces per level. Locals print as
//! `name_id` (unique even when Rust shadowed a name), work-index components as `i0`, `i1`, ..., View and
//! scalar parameters by name, scratch Views as `scratch{id}`, accumulator fields as `name` (scalar) or
//! `name.field`. Used in error messages, debugging output and IR snapshots.

use crate::expr::{AccField, AtomicAccess, Expr, LocalId};
use crate::ops::{Access, AtomicResult, BinaryOp, ScratchScope, ViewRef};
use crate::stmt::{ArrayInit, Block, LocalDecl, Stmt};
use crate::{AccShape, Function, Kernel, Pattern, Value, WorkKind};
use std::fmt::{self, Display, Formatter, Write};

const INDENT: &str = "  ";

struct Printer<'a> {
    kernel: &'a Kernel,
    locals: &'a [LocalDecl],
}

impl Display for Kernel {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let work = match self.work {
            WorkKind::Range => "range".to_string(),
            WorkKind::MDRange(n) => format!("mdrange{n}"),
            WorkKind::Team => "team".to_string(),
        };
        let pattern = match self.pattern() {
            Pattern::For => "for",
            Pattern::Reduce => "reduce",
            Pattern::Scan => "scan",
        };
        writeln!(f, "kernel {}({work}) {pattern} {{", self.name)?;
        // Wrapping is the IR's default, so only the checked mode takes a line.
        if self.overflow_checks {
            writeln!(f, "{INDENT}overflow: checked")?;
        }
        for v in &self.views {
            let access = match v.access {
                Access::ReadOnly => "read_only",
                Access::Writable => "writable",
            };
            let atomic = if v.used_atomically { " atomic" } else { "" };
            writeln!(
                f,
                "{INDENT}view {}: [{}; {}] {access}{atomic}",
                v.name, v.elem, v.rank
            )?;
        }
        for s in &self.scalars {
            writeln!(f, "{INDENT}scalar {}: {}", s.name, s.ty)?;
        }
        for a in &self.accumulators {
            let shape = match a.shape {
                AccShape::Scalar(t) => t.to_string(),
                AccShape::ValLoc(t) => format!("ValLoc<{t}>"),
                AccShape::MinMaxVal(t) => format!("MinMaxVal<{t}>"),
            };
            writeln!(f, "{INDENT}acc {}: {shape}", a.name)?;
        }
        for (i, s) in self.scratch.iter().enumerate() {
            let scope = match s.scope {
                ScratchScope::Team => "team",
                ScratchScope::Thread => "thread",
            };
            writeln!(
                f,
                "{INDENT}scratch{i}: [{}; {}] {scope} level {}",
                s.elem, s.rank, s.level
            )?;
        }
        for (i, t) in self.tables.iter().enumerate() {
            let values: Vec<String> = t.values.iter().map(|v| v.to_string()).collect();
            writeln!(
                f,
                "{INDENT}table{i} {}: [{}; {}] = [{}]",
                t.name,
                t.ty,
                t.values.len(),
                values.join(", ")
            )?;
        }
        for func in &self.functions {
            write_function(f, self, func)?;
        }
        writeln!(f, "{INDENT}body {{")?;
        let p = Printer {
            kernel: self,
            locals: &self.locals,
        };
        p.block(f, &self.body, 2)?;
        writeln!(f, "{INDENT}}}")?;
        writeln!(f, "}}")
    }
}

fn write_function(f: &mut Formatter<'_>, kernel: &Kernel, func: &Function) -> fmt::Result {
    let p = Printer {
        kernel,
        locals: &func.locals,
    };
    let params: Vec<String> = func
        .params
        .iter()
        .map(|&l| format!("{}: {}", p.local(l), p.local_ty(l)))
        .collect();
    writeln!(
        f,
        "{INDENT}fn {}({}) -> {} {{",
        func.name,
        params.join(", "),
        func.ret
    )?;
    p.block(f, &func.body, 2)?;
    writeln!(f, "{INDENT}}}")
}

impl Printer<'_> {
    fn local(&self, l: LocalId) -> String {
        match self.locals.get(l.0 as usize) {
            Some(d) if !d.name.is_empty() => format!("{}_{}", d.name, l.0),
            _ => format!("_{}", l.0),
        }
    }
    fn local_ty(&self, l: LocalId) -> String {
        match self.locals.get(l.0 as usize) {
            Some(LocalDecl {
                ty,
                array_len: Some(n),
                ..
            }) => format!("[{ty}; {n}]"),
            Some(d) => d.ty.to_string(),
            None => "?".to_string(),
        }
    }
    fn view(&self, v: ViewRef) -> String {
        match v {
            ViewRef::Param(id) => match self.kernel.views.get(id.0 as usize) {
                Some(p) => p.name.clone(),
                None => format!("view{}", id.0),
            },
            ViewRef::Scratch(id) => format!("scratch{}", id.0),
        }
    }
    fn acc(&self, a: AccField) -> String {
        match self.kernel.accumulators.get(a.acc as usize) {
            Some(acc) => match acc.shape {
                AccShape::Scalar(_) => acc.name.clone(),
                shape => match shape.fields().get(a.field as usize) {
                    Some((field, _)) => format!("{}.{field}", acc.name),
                    None => format!("{}.{}", acc.name, a.field),
                },
            },
            None => format!("acc{}.{}", a.acc, a.field),
        }
    }
    fn list(&self, es: &[Expr]) -> String {
        es.iter()
            .map(|e| self.expr(e))
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn atomic(&self, a: &AtomicAccess) -> String {
        let fetch = match a.result {
            AtomicResult::Old => "",
            AtomicResult::New => "_fetch",
        };
        let mut s = format!(
            "atomic_{}{fetch}({}[{}]",
            a.op.name(),
            self.view(a.view),
            self.list(&a.index)
        );
        for arg in &a.args {
            let _ = write!(s, ", {}", self.expr(arg));
        }
        s.push(')');
        s
    }

    /// An expression, on one line.
    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Lit(v) => lit(*v),
            Expr::Local(l) => self.local(*l),
            Expr::Param(p) => match self.kernel.scalars.get(p.0 as usize) {
                Some(s) => s.name.clone(),
                None => format!("param{}", p.0),
            },
            Expr::WorkIndex(k) => format!("i{k}"),
            Expr::AccRead(a) => self.acc(*a),
            Expr::Binary {
                op: BinaryOp::Arith(o),
                lhs,
                rhs,
            } if o.is_wrapping() => {
                format!("{}.{}({})", self.expr(lhs), o.symbol(), self.expr(rhs))
            }
            Expr::Binary { op, lhs, rhs } => {
                format!("({} {} {})", self.expr(lhs), op.symbol(), self.expr(rhs))
            }
            Expr::Unary { op, arg } => format!("({}{})", op.symbol(), self.expr(arg)),
            Expr::Cast { ty, arg } => format!("({} as {ty})", self.expr(arg)),
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => format!(
                "select({}, {}, {})",
                self.expr(cond),
                self.expr(on_true),
                self.expr(on_false)
            ),
            Expr::Math { func, args } => format!("{}({})", func.name(), self.list(args)),
            Expr::Load { view, index } => format!("{}[{}]", self.view(*view), self.list(index)),
            Expr::Extent { view, dim } => format!("{}.extent({dim})", self.view(*view)),
            Expr::ArrayLoad { array, index } => {
                format!("{}[{}]", self.local(*array), self.expr(index))
            }
            Expr::TableLoad { table, index } => {
                let name = match self.kernel.tables.get(table.0 as usize) {
                    Some(t) => format!("table{}_{}", table.0, t.name),
                    None => format!("table{}", table.0),
                };
                format!("{name}[{}]", self.expr(index))
            }
            Expr::Call { func, args } => {
                let name = match self.kernel.functions.get(func.0 as usize) {
                    Some(f) => f.name.clone(),
                    None => format!("func{}", func.0),
                };
                format!("{name}({})", self.list(args))
            }
            Expr::Team(q) => format!("team.{}()", q.name()),
            Expr::IsFinal => "final".to_string(),
            Expr::Atomic(a) => self.atomic(a),
        }
    }

    fn block(&self, f: &mut Formatter<'_>, b: &Block, level: usize) -> fmt::Result {
        for s in b {
            self.stmt(f, s, level)?;
        }
        Ok(())
    }

    /// A statement at `level`: its lines, each indented and ending in a newline.
    fn stmt(&self, f: &mut Formatter<'_>, s: &Stmt, level: usize) -> fmt::Result {
        let ind = INDENT.repeat(level);
        match s {
            Stmt::Let { local, init } => {
                write!(
                    f,
                    "{ind}let {}: {}",
                    self.local(*local),
                    self.local_ty(*local)
                )?;
                match init {
                    Some(e) => writeln!(f, " = {};", self.expr(e)),
                    None => writeln!(f, ";"),
                }
            }
            Stmt::LetArray { local, init } => {
                let init = match init {
                    ArrayInit::Fill(e) => {
                        let n = self
                            .locals
                            .get(local.0 as usize)
                            .and_then(|d| d.array_len)
                            .unwrap_or(0);
                        format!("[{}; {n}]", self.expr(e))
                    }
                    ArrayInit::Elems(es) => format!("[{}]", self.list(es)),
                };
                writeln!(
                    f,
                    "{ind}let {}: {} = {init};",
                    self.local(*local),
                    self.local_ty(*local)
                )
            }
            Stmt::Assign { local, value } => {
                writeln!(f, "{ind}{} = {};", self.local(*local), self.expr(value))
            }
            Stmt::ArrayStore {
                array,
                index,
                value,
            } => writeln!(
                f,
                "{ind}{}[{}] = {};",
                self.local(*array),
                self.expr(index),
                self.expr(value)
            ),
            Stmt::AccStore { field, value } => {
                writeln!(f, "{ind}{} = {};", self.acc(*field), self.expr(value))
            }
            Stmt::Store { view, index, value } => writeln!(
                f,
                "{ind}{}[{}] = {};",
                self.view(*view),
                self.list(index),
                self.expr(value)
            ),
            Stmt::Atomic(a) => writeln!(f, "{ind}{};", self.atomic(a)),
            Stmt::If { cond, then, else_ } => {
                writeln!(f, "{ind}if {} {{", self.expr(cond))?;
                self.block(f, then, level + 1)?;
                if !else_.is_empty() {
                    writeln!(f, "{ind}}} else {{")?;
                    self.block(f, else_, level + 1)?;
                }
                writeln!(f, "{ind}}}")
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                reverse,
                inclusive,
                body,
            } => {
                let dots = if *inclusive { "..=" } else { ".." };
                let mut range = format!("({}{dots}{})", self.expr(start), self.expr(end));
                if !matches!(step, Expr::Lit(v) if v.to_bits() == 1) {
                    let _ = write!(range, ".step_by({})", self.expr(step));
                }
                if *reverse {
                    range.push_str(".rev()");
                }
                writeln!(
                    f,
                    "{ind}for {}: {} in {range} {{",
                    self.local(*var),
                    self.local_ty(*var)
                )?;
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}}")
            }
            Stmt::While { cond, body } => {
                writeln!(f, "{ind}while {} {{", self.expr(cond))?;
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}}")
            }
            Stmt::Loop { body } => {
                writeln!(f, "{ind}loop {{")?;
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}}")
            }
            Stmt::Break => writeln!(f, "{ind}break;"),
            Stmt::Continue => writeln!(f, "{ind}continue;"),
            Stmt::Return(None) => writeln!(f, "{ind}return;"),
            Stmt::Return(Some(e)) => writeln!(f, "{ind}return {};", self.expr(e)),
            Stmt::Barrier => writeln!(f, "{ind}team_barrier();"),
            Stmt::NestedFor {
                kind,
                var,
                start,
                end,
                inclusive,
                body,
            } => {
                writeln!(
                    f,
                    "{ind}for {} in {}_range({}{}{}) {{",
                    self.local(*var),
                    kind.name(),
                    self.expr(start),
                    dots(*inclusive),
                    self.expr(end)
                )?;
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}}")
            }
            Stmt::NestedReduce {
                kind,
                var,
                start,
                end,
                inclusive,
                reducer,
                acc,
                body,
                result,
            } => {
                writeln!(
                    f,
                    "{ind}{} = {}_reduce({}{}{}, {}, |{}, {}: {}| {{",
                    self.local(*result),
                    kind.name(),
                    self.expr(start),
                    dots(*inclusive),
                    self.expr(end),
                    reducer.name(),
                    self.local(*var),
                    self.local(*acc),
                    self.local_ty(*acc)
                )?;
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}});")
            }
            Stmt::NestedScan {
                kind,
                var,
                start,
                end,
                inclusive,
                partial,
                is_final,
                body,
                total,
            } => {
                writeln!(
                    f,
                    "{ind}{} = {}_scan({}{}{}, |{}, {}: {}, {}| {{",
                    self.local(*total),
                    kind.name(),
                    self.expr(start),
                    dots(*inclusive),
                    self.expr(end),
                    self.local(*var),
                    self.local(*partial),
                    self.local_ty(*partial),
                    self.local(*is_final)
                )?;
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}});")
            }
            Stmt::Single { kind, body, result } => {
                match result {
                    Some(r) => {
                        writeln!(f, "{ind}{} = single_{}(|| {{", self.local(*r), kind.name())?
                    }
                    None => writeln!(f, "{ind}single_{}(|| {{", kind.name())?,
                }
                self.block(f, body, level + 1)?;
                writeln!(f, "{ind}}});")
            }
            Stmt::Broadcast { local, value, src } => writeln!(
                f,
                "{ind}{} = team_broadcast({}, {});",
                self.local(*local),
                self.expr(value),
                self.expr(src)
            ),
            Stmt::Scratch { id, extents } => {
                writeln!(
                    f,
                    "{ind}scratch{} = alloc_scratch([{}]);",
                    id.0,
                    self.list(extents)
                )
            }
        }
    }
}

fn lit(v: Value) -> String {
    v.to_string()
}

/// The range operator of a nested construct.
fn dots(inclusive: bool) -> &'static str {
    if inclusive {
        "..="
    } else {
        ".."
    }
}

/// `view[index]` as the printer spells it in `kernel`'s body (for messages that name an access).
pub fn access_text(kernel: &Kernel, view: ViewRef, index: &[Expr]) -> String {
    let p = Printer {
        kernel,
        locals: &kernel.locals,
    };
    format!("{}[{}]", p.view(view), p.list(index))
}
