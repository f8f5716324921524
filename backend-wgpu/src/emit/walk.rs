//! The one walker over `ir::Stmt` / `ir::Expr`: statements here, each operator family in its module.

use super::{arith, atomic, bitwise, cast, cmp, logic, math, memory, wty, EmitError, Helpers};
use rokkos_core::ir::{
    AccField, ArrayInit, BinaryOp, Block, Expr, Kernel, LocalDecl, LocalId, ScalarType, Stmt,
    TeamQuery, UnaryOp, Value, WorkKind,
};
use std::cell::Cell;

type R<T> = Result<T, EmitError>;

/// What the walker knows while emitting one body.
pub(crate) struct Cx<'a> {
    pub k: &'a Kernel,
    pub locals: &'a [LocalDecl],
    tmp: Cell<u32>,
    /// The team launch shape, in the body of a team kernel.
    pub team: Option<super::team::TeamShape>,
}

impl<'a> Cx<'a> {
    pub(crate) fn new(k: &'a Kernel, locals: &'a [LocalDecl], _in_fn: bool) -> Self {
        Cx {
            k,
            locals,
            tmp: Cell::new(0),
            team: None,
        }
    }
    /// A fresh temporary name.
    pub(crate) fn tmp(&self) -> String {
        let n = self.tmp.get();
        self.tmp.set(n + 1);
        format!("t{n}")
    }
    /// The type of `e`.
    pub(crate) fn ty(&self, e: &Expr) -> R<ScalarType> {
        e.ty(self.k, self.locals)
            .ok_or_else(|| EmitError::Mismatch(format!("ill-typed expression {e:?}")))
    }
    fn local_ty(&self, l: LocalId) -> ScalarType {
        self.locals[l.0 as usize].ty
    }
}

/// The private slot of an accumulator field.
pub(crate) fn acc_slot(k: &Kernel, f: AccField) -> usize {
    k.acc_fields()
        .iter()
        .position(|(g, _)| *g == f)
        .unwrap_or(0)
}

/// Module-scope private variables: work index, accumulator fields, the scan flag, team queries.
pub(crate) fn private_decls(k: &Kernel) -> String {
    let mut s = String::new();
    for i in 0..k.work.index_rank() {
        s.push_str(&format!("var<private> w{i}: u64;\n"));
    }
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        s.push_str(&format!("var<private> a{i}: {};\n", wty(*t)));
    }
    s.push_str("var<private> rk_fin: bool;\n");
    if k.work == WorkKind::Team {
        for q in ["t_lr", "t_ls", "t_tr", "t_ts", "t_vl"] {
            s.push_str(&format!("var<private> {q}: u64;\n"));
        }
    }
    s
}

fn decls(locals: &[LocalDecl], skip: &[LocalId]) -> String {
    let mut s = String::new();
    for (i, d) in locals.iter().enumerate() {
        if skip.contains(&LocalId(i as u32)) {
            continue;
        }
        match d.array_len {
            Some(n) => s.push_str(&format!("    var l{i}: array<{}, {n}>;\n", wty(d.ty))),
            None => s.push_str(&format!("    var l{i}: {};\n", wty(d.ty))),
        }
    }
    s
}

/// The kernel's helper functions, as `fn ufN`.
pub(crate) fn emit_functions(k: &Kernel, h: &mut Helpers, out: &mut String) -> R<()> {
    for (n, f) in k.functions.iter().enumerate() {
        let cx = Cx::new(k, &f.locals, true);
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("p{}: {}", p.0, wty(f.locals[p.0 as usize].ty)))
            .collect();
        out.push_str(&format!(
            "fn uf{n}({}) -> {} {{\n",
            params.join(", "),
            wty(f.ret)
        ));
        out.push_str(&decls(&f.locals, &[]));
        for p in &f.params {
            out.push_str(&format!("    l{0} = p{0};\n", p.0));
        }
        block(&cx, h, &f.body, 1, out)?;
        if !matches!(f.body.last(), Some(Stmt::Return(_))) {
            out.push_str(&format!(
                "    return {};\n",
                super::lit(rokkos_core::ir::Value::zero(f.ret))
            ));
        }
        out.push_str("}\n");
    }
    Ok(())
}

/// The kernel body as `fn rk_work()`.
/// In a team kernel (`team` is its shape) the locals are module-scope private variables, so that
/// nested bodies can be functions of their own.
pub(crate) fn emit_work(
    k: &Kernel,
    team: Option<super::team::TeamShape>,
    h: &mut Helpers,
    out: &mut String,
) -> R<()> {
    let mut cx = Cx::new(k, &k.locals, false);
    cx.team = team;
    out.push_str("fn rk_work() {\n");
    if team.is_none() {
        out.push_str(&decls(&k.locals, &[]));
    }
    block(&cx, h, &k.body, 1, out)?;
    out.push_str("}\n");
    Ok(())
}

fn ind(n: usize) -> String {
    "    ".repeat(n)
}

/// Emits the statements of `b` at indentation `d`.
pub(crate) fn block(cx: &Cx<'_>, h: &mut Helpers, b: &Block, d: usize, out: &mut String) -> R<()> {
    for s in b {
        stmt(cx, h, s, d, out)?;
    }
    Ok(())
}

fn stmt(cx: &Cx<'_>, h: &mut Helpers, s: &Stmt, d: usize, out: &mut String) -> R<()> {
    let i = ind(d);
    match s {
        Stmt::Let { local, init } => {
            if let Some(e) = init {
                out.push_str(&format!("{i}l{} = {};\n", local.0, expr(cx, h, e)?));
            }
        }
        Stmt::LetArray { local, init } => {
            let n = cx.locals[local.0 as usize].array_len.unwrap_or(0);
            match init {
                ArrayInit::Fill(e) => {
                    let t = cx.tmp();
                    out.push_str(&format!("{i}{{ let {t} = {};\n", expr(cx, h, e)?));
                    for j in 0..n {
                        out.push_str(&format!("{i}  l{}[{j}] = {t};\n", local.0));
                    }
                    out.push_str(&format!("{i}}}\n"));
                }
                ArrayInit::Elems(es) => {
                    // Evaluate every element first (left to right), then store.
                    let ts: Vec<String> = es.iter().map(|_| cx.tmp()).collect();
                    out.push_str(&format!("{i}{{\n"));
                    for (t, e) in ts.iter().zip(es) {
                        out.push_str(&format!("{i}  let {t} = {};\n", expr(cx, h, e)?));
                    }
                    for (j, t) in ts.iter().enumerate() {
                        out.push_str(&format!("{i}  l{}[{j}] = {t};\n", local.0));
                    }
                    out.push_str(&format!("{i}}}\n"));
                }
            }
        }
        Stmt::Assign { local, value } => {
            out.push_str(&format!("{i}l{} = {};\n", local.0, expr(cx, h, value)?));
        }
        Stmt::ArrayStore {
            array,
            index,
            value,
        } => {
            let n = cx.locals[array.0 as usize].array_len.unwrap_or(0);
            let (ti, tv) = (cx.tmp(), cx.tmp());
            let ix = memory::to_u64(cx.ty(index)?, &expr(cx, h, index)?);
            out.push_str(&format!(
                "{i}{{ let {ti} = {ix}; let {tv} = {};\n{i}  if (rk_aok({ti}, {n}lu, {}u)) {{ l{}[u32({ti})] = {tv}; }} }}\n",
                expr(cx, h, value)?,
                memory::ARRAY_CODE + array.0,
                array.0
            ));
        }
        Stmt::AccStore { field, value } => {
            out.push_str(&format!(
                "{i}a{} = {};\n",
                acc_slot(cx.k, *field),
                expr(cx, h, value)?
            ));
        }
        Stmt::Store { view, index, value } => {
            let call = memory::store(cx, h, *view, index, value)?;
            out.push_str(&format!("{i}{call};\n"));
        }
        Stmt::Atomic(a) => {
            let (call, yields) = atomic::call(cx, h, a)?;
            if yields {
                out.push_str(&format!("{i}_ = {call};\n"));
            } else {
                out.push_str(&format!("{i}{call};\n"));
            }
        }
        Stmt::If { cond, then, else_ } => {
            out.push_str(&format!("{i}if ({}) {{\n", expr(cx, h, cond)?));
            block(cx, h, then, d + 1, out)?;
            if !else_.is_empty() {
                out.push_str(&format!("{i}}} else {{\n"));
                block(cx, h, else_, d + 1, out)?;
            }
            out.push_str(&format!("{i}}}\n"));
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
            let t = cx.local_ty(*var);
            let ut = match t {
                ScalarType::I32 | ScalarType::U32 | ScalarType::U8 | ScalarType::U16 => "u32",
                _ => "u64",
            };
            let (s0, e0, st, c) = (cx.tmp(), cx.tmp(), cx.tmp(), cx.tmp());
            // The step is of the counter's type, or a `u64` (Rust's `usize` step), which a 32-bit
            // counter holds clamped: `huge` then says it is beyond any distance in the range, so
            // the loop visits its first value only.
            let step_t = step.ty(cx.k, cx.locals).unwrap_or(t);
            let z = super::lit(Value::zero(step_t));
            // A step that is not a positive literal is checked: `step_by(0)` (or a negative step
            // of a signed counter) is an error of the work item, as in the evaluator.
            let literal = matches!(step, Expr::Lit(v) if v.to_bits() != 0 && !is_negative(*v));
            let raw = cx.tmp();
            let narrowed = step_t == ScalarType::U64 && ut == "u32";
            let (stv, huge) = if narrowed {
                (
                    format!("u32(min({raw}, 4294967295lu))"),
                    format!("{raw} > 4294967295lu"),
                )
            } else {
                (format!("{ut}({raw})"), "false".to_string())
            };
            out.push_str(&format!(
                "{i}{{ let {s0} = {}; let {e0} = {}; let {raw} = {}; let {st} = {stv};\n",
                expr(cx, h, start)?,
                expr(cx, h, end)?,
                expr(cx, h, step)?
            ));
            if !literal {
                let bits = if step_t.is_signed() {
                    format!("u64(i64({raw}))")
                } else {
                    format!("u64({raw})")
                };
                out.push_str(&format!(
                    "{i}  if (!({raw} > {z})) {{ if (rk_oob_begin({STEP_CODE}u, 1u)) {{ rk_oob_idx(0u, {bits}); }} }}\n"
                ));
            }
            // Differences are taken in the unsigned type of the same width: exact for e >= c.
            let ud = |a: &str, b: &str| format!("({ut}({a}) - {ut}({b}))");
            // An inclusive loop never forms `end + 1` (it wraps at the type's maximum): it runs when
            // `start <= end`, and stops once fewer than `step` values remain after the counter.
            let (run, more) = if *inclusive { ("<=", "<") } else { ("<", "<=") };
            if !reverse {
                out.push_str(&format!(
                    "{i}  if ({s0} {run} {e0} && {raw} > {z}) {{ var {c} = {s0};\n{i}  loop {{\n{i}    l{} = {c};\n",
                    var.0,
                ));
                block(cx, h, body, d + 2, out)?;
                let rem = cx.tmp();
                let stop = if narrowed {
                    format!("{huge} || {rem} {more} {st}")
                } else {
                    format!("{rem} {more} {st}")
                };
                out.push_str(&format!(
                    "{i}    continuing {{ let {rem} = {}; {c} = {c} + {}({st}); break if {stop}; }}\n{i}  }} }}\n{i}}}\n",
                    ud(&e0, &c),
                    wty(t)
                ));
            } else {
                // The last value of the forward sequence: `start + (span / step) * step`, where
                // `span` is the distance to the last value in the range (`end - 1` when half-open).
                let last = cx.tmp();
                let span = if *inclusive {
                    ud(&e0, &s0)
                } else {
                    format!(
                        "({} - {})",
                        ud(&e0, &s0),
                        if ut == "u32" { "1u" } else { "1lu" }
                    )
                };
                let from = format!("{s0} + {}({span} / {st} * {st})", wty(t));
                let from = if narrowed {
                    format!("select({from}, {s0}, {huge})")
                } else {
                    from
                };
                out.push_str(&format!(
                    "{i}  if ({s0} {run} {e0} && {raw} > {z}) {{ let {last} = {from}; var {c} = {last};\n{i}  loop {{\n{i}    l{} = {c};\n",
                    var.0,
                ));
                block(cx, h, body, d + 2, out)?;
                let rem = cx.tmp();
                out.push_str(&format!(
                    "{i}    continuing {{ let {rem} = {}; {c} = {c} - {}({st}); break if {rem} < {st}; }}\n{i}  }} }}\n{i}}}\n",
                    ud(&c, &s0),
                    wty(t)
                ));
            }
        }
        Stmt::While { cond, body } => {
            out.push_str(&format!(
                "{i}loop {{\n{i}    if (!({})) {{ break; }}\n",
                expr(cx, h, cond)?
            ));
            block(cx, h, body, d + 1, out)?;
            out.push_str(&format!("{i}}}\n"));
        }
        Stmt::Loop { body } => {
            out.push_str(&format!("{i}loop {{\n"));
            block(cx, h, body, d + 1, out)?;
            out.push_str(&format!("{i}}}\n"));
        }
        Stmt::Break => out.push_str(&format!("{i}break;\n")),
        Stmt::Continue => out.push_str(&format!("{i}continue;\n")),
        Stmt::Return(e) => match e {
            Some(e) => out.push_str(&format!("{i}return {};\n", expr(cx, h, e)?)),
            None => out.push_str(&format!("{i}return;\n")),
        },
        Stmt::Barrier
        | Stmt::NestedFor { .. }
        | Stmt::NestedReduce { .. }
        | Stmt::NestedScan { .. }
        | Stmt::Single { .. }
        | Stmt::Broadcast { .. }
        | Stmt::Scratch { .. } => super::team::stmt(cx, h, s, &i, out)?,
    }
    Ok(())
}

/// Emits an expression.
pub(crate) fn expr(cx: &Cx<'_>, h: &mut Helpers, e: &Expr) -> R<String> {
    Ok(match e {
        Expr::Lit(v) => super::lit(*v),
        Expr::Local(l) => format!("l{}", l.0),
        Expr::Param(p) => {
            if cx.k.scalars[p.0 as usize].ty == ScalarType::Bool {
                format!("(P.s{} != 0u)", p.0)
            } else {
                format!("P.s{}", p.0)
            }
        }
        Expr::WorkIndex(k) => format!("w{k}"),
        Expr::AccRead(f) => format!("a{}", acc_slot(cx.k, *f)),
        Expr::Binary { op, lhs, rhs } => {
            let (lt, rt) = (cx.ty(lhs)?, cx.ty(rhs)?);
            let (l, r) = (expr(cx, h, lhs)?, expr(cx, h, rhs)?);
            match op {
                BinaryOp::Arith(o) => {
                    let r_lit = match **rhs {
                        Expr::Lit(v) => Some(v),
                        _ => None,
                    };
                    arith::binary(h, *o, lt, &l, &r, cx.k.overflow_checks, r_lit)
                }
                BinaryOp::Bitwise(o) => {
                    bitwise::binary(h, *o, lt, rt, &l, &r, cx.k.overflow_checks)
                }
                BinaryOp::Cmp(o) => cmp::binary(*o, lt, &l, &r),
                BinaryOp::Logic(o) => logic::binary(*o, &l, &r),
            }
        }
        Expr::Unary { op, arg } => {
            let t = cx.ty(arg)?;
            let a = expr(cx, h, arg)?;
            match op {
                UnaryOp::Neg => arith::neg(h, t, &a, cx.k.overflow_checks),
                UnaryOp::Not if t == ScalarType::Bool => logic::not(&a),
                UnaryOp::Not => bitwise::not(t, &a),
            }
        }
        Expr::Cast { ty, arg } => {
            let from = cx.ty(arg)?;
            let a = expr(cx, h, arg)?;
            cast::cast(h, from, *ty, &a)?
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => format!(
            "select({}, {}, {})",
            expr(cx, h, on_false)?,
            expr(cx, h, on_true)?,
            expr(cx, h, cond)?
        ),
        Expr::Math { func, args } => {
            let tys = args.iter().map(|a| cx.ty(a)).collect::<R<Vec<_>>>()?;
            let xs = args.iter().map(|a| expr(cx, h, a)).collect::<R<Vec<_>>>()?;
            math::call(h, *func, &tys, &xs, cx.k.overflow_checks)?
        }
        Expr::Load { view, index } => memory::load(cx, h, *view, index)?,
        Expr::Extent { view, dim } => memory::extent(cx, *view, *dim)?,
        Expr::ArrayLoad { array, index } => {
            let n = cx.locals[array.0 as usize].array_len.unwrap_or(0);
            let ix = memory::to_u64(cx.ty(index)?, &expr(cx, h, index)?);
            format!(
                "l{}[rk_aix({ix}, {n}lu, {}u)]",
                array.0,
                memory::ARRAY_CODE + array.0
            )
        }
        Expr::Call { func, args } => {
            let xs = args.iter().map(|a| expr(cx, h, a)).collect::<R<Vec<_>>>()?;
            format!("uf{}({})", func.0, xs.join(", "))
        }
        Expr::Team(q) => match q {
            TeamQuery::LeagueRank => "t_lr",
            TeamQuery::LeagueSize => "t_ls",
            TeamQuery::TeamRank => "t_tr",
            TeamQuery::TeamSize => "t_ts",
            TeamQuery::VectorLength => "t_vl",
        }
        .to_string(),
        Expr::IsFinal => "rk_fin".into(),
        Expr::Atomic(a) => atomic::call(cx, h, a)?.0,
    })
}

/// `ERR` code of a `for` loop whose step is not positive (the index word holds the step's bits).
pub(crate) const STEP_CODE: u32 = 4000;

fn is_negative(v: Value) -> bool {
    match v {
        Value::I32(x) => x < 0,
        Value::I64(x) => x < 0,
        _ => false,
    }
}

/// The error a work item recorded with a code of this module or of the operator families, for
/// `kernel`: a failure (`KernelFailed`) with the message the evaluator and Rust give.
pub(crate) fn device_error(kernel: &str, code: u32, index: &[u64]) -> Option<rokkos_core::Error> {
    if let Some(e) = arith::device_error(kernel, code) {
        return Some(e);
    }
    if let Some(e) = math::device_error(kernel, code, index) {
        return Some(e);
    }
    (code == STEP_CODE).then(|| {
        let step = index.first().copied().unwrap_or(0) as i64;
        rokkos_core::Error::KernelFailed {
            kernel: kernel.to_string(),
            reason: if step == 0 {
                "assertion failed: step != 0".to_string()
            } else {
                format!("for loop with step {step}")
            },
        }
    })
}
