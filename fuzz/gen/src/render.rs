//! Rust source of a [`Kernel`]: the `#[kernel]` function, and the launch function that allocates
//! its Views in any execution space's memory, launches it and reads the results back (calling the
//! fuzzer's run-time helpers, `rokkos_fuzz::rt`).
//!
//! Every subexpression is parenthesised and every literal typed, so the text means exactly the
//! tree, whatever Rust's precedence and inference would do with less.

use crate::ast::*;
use crate::ty::Ty;
use std::fmt::Write;

/// The `#[kernel]` function.
pub fn kernel_source(k: &Kernel) -> String {
    let mut r = Renderer {
        k,
        out: String::new(),
        scan_flag: None,
    };
    r.kernel();
    r.out
}

/// The launch function `run_<name><E: ExecutionSpace>(space: &E, inp: &rt::Input) -> rt::Run`.
pub fn launch_source(k: &Kernel) -> String {
    let mut s = String::new();
    let name = &k.name;
    let _ = writeln!(
        s,
        "fn run_{name}<E: rokkos::ExecutionSpace>(space: &E, inp: &rt::Input) -> rt::Run {{"
    );
    let _ = writeln!(s, "    let w = &inp.ends;");
    let _ = writeln!(s, "    let _b = &inp.begins;");
    let mut args = Vec::new();
    let mut reads = Vec::new();
    let terms = term_columns(k);
    for (n, o) in k.outputs.iter().enumerate() {
        let mut ext: Vec<String> = o.dims.iter().map(extent_src).collect();
        ext.push(o.cols.to_string());
        let mine: Vec<String> = terms
            .iter()
            .filter(|(out, _)| *out as usize == n)
            .map(|(_, c)| c.to_string())
            .collect();
        let init = if mine.is_empty() {
            "None".to_string()
        } else {
            format!(
                "Some(&rt::term_init::<{}>({}, {}, &[{}]))",
                o.ty,
                ext.join(" * "),
                o.cols,
                mine.join(", ")
            )
        };
        let _ = writeln!(
            s,
            "    let o{n} = {}(space, \"o{n}\", [{}], {init})?;",
            view_ctor(o.ty, ext.len(), o.layout),
            ext.join(", ")
        );
        args.push(format!("&o{n}"));
        reads.push(format!("rt::read(&o{n})?"));
    }
    for (n, a) in k.atomics.iter().enumerate() {
        let _ = writeln!(
            s,
            "    let a{n} = {}(space, \"a{n}\", [{}], Some(&inp.atomics[{n}]))?;",
            view_ctor(a.ty, 1, Layout::Right),
            extent_src(&a.len)
        );
        args.push(format!("&a{n}"));
        reads.push(format!("rt::read(&a{n})?"));
    }
    for (n, x) in k.inputs.iter().enumerate() {
        let ext: Vec<String> = x.dims.iter().map(extent_src).collect();
        let _ = writeln!(
            s,
            "    let x{n} = {}(space, \"x{n}\", [{}], Some(&inp.inputs[{n}]))?;",
            view_ctor(x.ty, ext.len(), x.layout),
            ext.join(", ")
        );
        args.push(format!("&x{n}"));
    }
    for (n, t) in k.scalars.iter().enumerate() {
        let _ = writeln!(s, "    let s{n}: {t} = rt::scalar(inp, {n});");
        args.push(format!("s{n}"));
    }
    let call = format!("{name}({})", args.join(", "));
    let policy = match k.family {
        Family::RangeFor | Family::RangeReduce | Family::RangeScan => {
            "rokkos::RangePolicy::new(space, _b[0]..w[0]).chunk_size(inp.chunk)".to_string()
        }
        Family::MdFor(n) | Family::MdReduce(n) => {
            let idx: Vec<String> = (0..n as usize).map(|k| k.to_string()).collect();
            let b: Vec<String> = idx.iter().map(|k| format!("_b[{k}]")).collect();
            let e: Vec<String> = idx.iter().map(|k| format!("w[{k}]")).collect();
            let t: Vec<String> = idx.iter().map(|k| format!("inp.tiles[{k}]")).collect();
            format!(
                "rokkos::MDRangePolicy::new(space, [{}], [{}]).tile([{}]).iterate(rt::iterate(inp))",
                b.join(", "),
                e.join(", "),
                t.join(", ")
            )
        }
        Family::TeamFor | Family::TeamReduce => {
            let t = k.team.expect("team shape");
            let size = match t.team_size {
                None => "rokkos::TeamSize::Auto".to_string(),
                Some(n) => format!("rokkos::TeamSize::Exactly({n})"),
            };
            format!(
                "rokkos::TeamPolicy::new(space, w[0], {size}).vector_length({}).scratch(0, {}, {}).scratch(1, {}, {})",
                t.vector, t.scratch_team[0], t.scratch_thread[0], t.scratch_team[1], t.scratch_thread[1]
            )
        }
    };
    let accs = match k.family {
        Family::RangeScan => {
            let _ = writeln!(
                s,
                "    let total = rt::launch(|| rokkos::parallel_scan(\"{name}\", {policy}, {call}))?;"
            );
            "rt::values(&total)".to_string()
        }
        f if f.is_reduce() => {
            let reducers: Vec<&str> = k.accs.iter().map(|a| a.reducer.name()).collect();
            let reducer = if reducers.len() == 1 {
                format!("rokkos::{}", reducers[0])
            } else {
                let r: Vec<String> = reducers.iter().map(|r| format!("rokkos::{r}")).collect();
                format!("({})", r.join(", "))
            };
            let _ = writeln!(
                s,
                "    let value = rt::launch(|| rokkos::parallel_reduce(\"{name}\", {policy}, {call}, {reducer}))?;"
            );
            "rt::values(&value)".to_string()
        }
        _ => {
            let _ = writeln!(
                s,
                "    rt::launch(|| rokkos::parallel_for(\"{name}\", {policy}, {call}))?;"
            );
            "Vec::new()".to_string()
        }
    };
    let _ = writeln!(
        s,
        "    Ok(rt::Outputs {{ views: vec![{}], accs: {accs} }})",
        reads.join(", ")
    );
    let _ = writeln!(s, "}}");
    s
}

/// The output columns that hold reduction terms (they start as the unwritten-term sentinel).
pub fn term_columns(k: &Kernel) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    k.walk_stmts(&mut |s| match s {
        Stmt::Contribute { term: Some(t), .. } => v.push(*t),
        Stmt::ScanStep { out, term_col, .. } if k.accs[0].ty.is_float() => {
            v.push((*out, *term_col))
        }
        _ => {}
    });
    v
}

fn extent_src(e: &Extent) -> String {
    match e {
        Extent::Work(k) => format!("w[{k}]"),
        Extent::Fixed(n) => n.to_string(),
    }
}

fn view_ctor(ty: Ty, rank: usize, layout: Layout) -> String {
    match layout {
        Layout::Right => format!("rt::view::<E, {ty}, {rank}, rokkos::LayoutRight>"),
        Layout::Left => format!("rt::view::<E, {ty}, {rank}, rokkos::LayoutLeft>"),
        Layout::Stride => format!("rt::view_strided{rank}::<E, {ty}>"),
    }
}

struct Renderer<'k> {
    k: &'k Kernel,
    out: String,
    /// The final flag of the scan body being rendered: writes that outlive the work item go
    /// under it (`#[kernel]` refuses them elsewhere in a scan body, which runs in several passes).
    scan_flag: Option<String>,
}

/// The name of local `v`.
pub fn var(v: VarId) -> String {
    format!("v{}", v.0)
}

/// The Rust name of `k`'s function `n`.
fn func_name(k: &Kernel, n: u32) -> String {
    format!("{}_f{n}", k.name)
}

fn work_name(k: u8) -> &'static str {
    ["i", "j", "k", "m", "n", "p"][k as usize]
}

impl Renderer<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn kernel(&mut self) {
        let k = self.k;
        let mut params = Vec::new();
        let attr = match k.family {
            Family::RangeScan => "#[kernel(scan)]",
            _ => "#[kernel]",
        };
        match k.family {
            Family::RangeFor | Family::RangeReduce | Family::RangeScan => {
                params.push("i: usize".to_string())
            }
            Family::MdFor(n) | Family::MdReduce(n) => {
                let names: Vec<&str> = (0..n).map(work_name).collect();
                let tys = vec!["usize"; n as usize];
                params.push(format!("({}): ({})", names.join(", "), tys.join(", ")));
            }
            Family::TeamFor | Family::TeamReduce => params.push("team: &TeamMember".to_string()),
        }
        if k.family == Family::RangeScan {
            params.push(format!("p: &mut {}", k.accs[0].ty));
            params.push("fin: bool".to_string());
        } else {
            for (n, a) in k.accs.iter().enumerate() {
                let t = match a.reducer {
                    Reducer::MinLoc | Reducer::MaxLoc => format!("ValLoc<{}>", a.ty),
                    Reducer::MinMax => format!("MinMaxVal<{}>", a.ty),
                    _ => a.ty.to_string(),
                };
                params.push(format!("r{n}: &mut {t}"));
            }
        }
        for (n, o) in k.outputs.iter().enumerate() {
            params.push(format!("o{n}: ViewMut<{}, {}>", o.ty, o.dims.len() + 1));
        }
        for (n, a) in k.atomics.iter().enumerate() {
            params.push(format!("a{n}: ViewMut<{}>", a.ty));
        }
        for (n, x) in k.inputs.iter().enumerate() {
            params.push(format!("x{n}: View<{}, {}>", x.ty, x.dims.len()));
        }
        for (n, t) in k.scalars.iter().enumerate() {
            params.push(format!("s{n}: {t}"));
        }
        self.funcs();
        self.line(0, attr);
        self.line(0, &format!("fn {}({}) {{", k.name, params.join(", ")));
        if k.family == Family::RangeScan {
            self.scan_flag = Some("fin".into());
        }
        self.block(&k.body, 1);
        self.scan_flag = None;
        self.line(0, "}");
    }

    /// The `#[func]` helpers the body still calls (a shrink edit may have dropped a call).
    fn funcs(&mut self) {
        let k = self.k;
        let mut called = vec![false; k.funcs.len()];
        k.walk_exprs(&mut |e| {
            if let ExprKind::Call(Method::Func(n), _) = e.kind {
                called[n as usize] = true;
            }
        });
        for (n, f) in k.funcs.iter().enumerate() {
            if !called[n] {
                continue;
            }
            let params: Vec<String> = f
                .params
                .iter()
                .map(|(v, t)| format!("{}: {t}", var(*v)))
                .collect();
            self.line(0, "#[func]");
            self.line(
                0,
                &format!(
                    "fn {}({}) -> {} {{",
                    func_name(k, n as u32),
                    params.join(", "),
                    f.ret
                ),
            );
            let body = self.expr(&f.body);
            self.line(1, &body);
            self.line(0, "}");
        }
    }

    /// `text`, under the scan body's final flag when there is one.
    fn final_only(&mut self, d: usize, text: &str) {
        match self.scan_flag.clone() {
            Some(f) => {
                self.line(d, &format!("if {f} {{"));
                self.line(d + 1, text);
                self.line(d, "}");
            }
            None => self.line(d, text),
        }
    }

    fn block(&mut self, b: &[Stmt], d: usize) {
        for s in b {
            self.stmt(s, d);
        }
    }

    fn owner(&self, at: Option<VarId>) -> Vec<String> {
        match self.k.family {
            Family::TeamFor | Family::TeamReduce => {
                let mut v = vec![var(VarId(0))];
                v.extend(at.map(var));
                v
            }
            f => (0..f.rank() as u8)
                .map(|k| work_name(k).to_string())
                .collect(),
        }
    }

    fn store_target(&self, out: u32, col: u32, at: Option<VarId>) -> String {
        let mut idx = self.owner(at);
        idx.push(format!("{col}usize"));
        format!("o{out}[({})]", idx.join(", "))
    }

    fn stmt(&mut self, s: &Stmt, d: usize) {
        match s {
            Stmt::Let {
                var: v,
                mutable,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = self.k.vars[v.0 as usize];
                let e = self.expr(init);
                self.line(d, &format!("let {m}{}: {t} = {e};", var(*v)));
            }
            Stmt::Assign { var: v, op, value } => {
                let e = self.expr(value);
                let op = op.map(|o| o.symbol()).unwrap_or("");
                self.line(d, &format!("{} {op}= {e};", var(*v)));
            }
            Stmt::ArrLet { arr, ty, len, init } => {
                let e = match init {
                    ArrInit::Fill(e) => format!("[{}; {len}]", self.expr(e)),
                    ArrInit::Elems(es) => {
                        let v: Vec<String> = es.iter().map(|e| self.expr(e)).collect();
                        format!("[{}]", v.join(", "))
                    }
                };
                self.line(d, &format!("let mut {}: [{ty}; {len}] = {e};", var(*arr)));
            }
            Stmt::ArrStore { arr, idx, value } => {
                let (i, v) = (self.expr(idx), self.expr(value));
                self.line(d, &format!("{}[{i}] = {v};", var(*arr)));
            }
            Stmt::Store {
                out,
                col,
                at,
                value,
            } => {
                let t = self.store_target(*out, *col, *at);
                let v = self.expr(value);
                self.final_only(d, &format!("{t} = {v};"));
            }
            Stmt::Atomic {
                view,
                idx,
                op,
                args,
            } => {
                let mut a = vec![self.expr(idx)];
                a.extend(args.iter().map(|e| self.expr(e)));
                self.final_only(
                    d,
                    &format!("a{view}.{}({});", op.method(false), a.join(", ")),
                );
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(cond);
                self.line(d, &format!("if {c} {{"));
                self.block(then, d + 1);
                if els.is_empty() {
                    self.line(d, "}");
                } else {
                    self.line(d, "} else {");
                    self.block(els, d + 1);
                    self.line(d, "}");
                }
            }
            Stmt::For {
                var: v,
                lo,
                hi,
                inclusive,
                shape,
                step,
                body,
            } => {
                let dots = if *inclusive { "..=" } else { ".." };
                let r = format!("({}{dots}{})", self.expr(lo), self.expr(hi));
                let st = step.as_ref().map(|e| self.expr(e)).unwrap_or_default();
                let it = match shape {
                    RangeShape::Plain => r,
                    RangeShape::Rev => format!("{r}.rev()"),
                    RangeShape::Step => format!("{r}.step_by({st})"),
                    RangeShape::RevStep => format!("{r}.rev().step_by({st})"),
                    RangeShape::StepRev => format!("{r}.step_by({st}).rev()"),
                };
                self.line(d, &format!("for {} in {it} {{", var(*v)));
                self.block(body, d + 1);
                self.line(d, "}");
            }
            Stmt::While {
                counter,
                limit,
                cond,
                body,
            } => {
                let c = var(*counter);
                let e = self.expr(cond);
                self.line(d, &format!("let mut {c}: u32 = 0u32;"));
                self.line(d, &format!("while ({c} < {limit}u32) && {e} {{"));
                self.line(d + 1, &format!("{c} += 1u32;"));
                self.block(body, d + 1);
                self.line(d, "}");
            }
            Stmt::Loop {
                counter,
                limit,
                body,
            } => {
                let c = var(*counter);
                self.line(d, &format!("let mut {c}: u32 = 0u32;"));
                self.line(d, "loop {");
                self.line(d + 1, &format!("{c} += 1u32;"));
                self.line(d + 1, &format!("if {c} > {limit}u32 {{"));
                self.line(d + 2, "break;");
                self.line(d + 1, "}");
                self.block(body, d + 1);
                self.line(d, "}");
            }
            Stmt::Break => self.line(d, "break;"),
            Stmt::Continue => self.line(d, "continue;"),
            Stmt::Return => self.line(d, "return;"),
            Stmt::Contribute {
                acc,
                term,
                fold,
                value,
                loc,
            } => {
                let a = &self.k.accs[*acc as usize];
                let v = self.expr(value);
                let r = format!("r{acc}");
                self.line(d, "{");
                let dd = d + 1;
                self.line(dd, &format!("let t: {} = {v};", a.ty));
                // The contribution is a write to the launch's accumulator: in a scan body,
                // under its final flag.
                let flag = self.scan_flag.clone();
                let dd = match &flag {
                    Some(f) => {
                        self.line(dd, &format!("if {f} {{"));
                        dd + 1
                    }
                    None => dd,
                };
                if let Some((out, col)) = term {
                    let t = self.store_target(*out, *col, None);
                    self.line(dd, &format!("{t} = t;"));
                }
                let loc = loc.as_ref().map(|l| self.expr(l));
                for l in fold_lines(a.reducer, *fold, &r, "t", loc.as_deref()) {
                    self.line(dd, &l);
                }
                if flag.is_some() {
                    self.line(dd - 1, "}");
                }
                self.line(d, "}");
            }
            Stmt::ScanStep {
                out,
                col,
                term_col,
                value,
            } => {
                let ty = self.k.accs[0].ty;
                let v = self.expr(value);
                let prefix = self.store_target(*out, *col, None);
                let term = self.store_target(*out, *term_col, None);
                self.line(d, "{");
                self.line(d + 1, &format!("let t: {ty} = {v};"));
                self.line(d + 1, "if fin {");
                self.line(d + 2, &format!("{prefix} = *p;"));
                self.line(d + 1, "}");
                self.final_only(d + 1, &format!("{term} = t;"));
                if ty.is_int() {
                    self.line(d + 1, "*p = (*p).wrapping_add(t);");
                } else {
                    self.line(d + 1, "*p += t;");
                }
                self.line(d, "}");
            }
            Stmt::Barrier => self.line(d, "team.team_barrier();"),
            Stmt::NestedFor {
                kind,
                var: v,
                n,
                body,
            } => {
                let n = self.expr(n);
                self.line(
                    d,
                    &format!("for {} in team.{}_range({n}) {{", var(*v), kind.prefix()),
                );
                self.block(body, d + 1);
                self.line(d, "}");
            }
            Stmt::NestedReduce {
                kind,
                var: v,
                n,
                reducer,
                acc,
                body,
                value,
                fold,
                result,
            } => {
                let ty = self.k.vars[result.0 as usize];
                let n = self.expr(n);
                self.line(
                    d,
                    &format!(
                        "let {}: {ty} = team.{}_reduce({n}, {}, |{}, {}: &mut {ty}| {{",
                        var(*result),
                        kind.prefix(),
                        reducer.name(),
                        var(*v),
                        var(*acc)
                    ),
                );
                self.block(body, d + 1);
                let val = self.expr(value);
                self.line(d + 1, &format!("let t: {ty} = {val};"));
                for l in fold_lines(*reducer, *fold, &var(*acc), "t", None) {
                    self.line(d + 1, &l);
                }
                self.line(d, "});");
            }
            Stmt::NestedScan {
                kind,
                var: v,
                n,
                partial,
                fin,
                body,
                value,
                out,
                col,
                total,
            } => {
                let ty = self.k.vars[total.0 as usize];
                let n = self.expr(n);
                let (p, f) = (var(*partial), var(*fin));
                self.line(
                    d,
                    &format!(
                        "let {}: {ty} = team.{}_scan({n}, |{}, {p}: &mut {ty}, {f}: bool| {{",
                        var(*total),
                        kind.prefix(),
                        var(*v)
                    ),
                );
                let outer = self.scan_flag.replace(f.clone());
                self.block(body, d + 1);
                self.scan_flag = outer;
                let val = self.expr(value);
                self.line(d + 1, &format!("let t: {ty} = {val};"));
                let target = self.store_target(*out, *col, Some(*v));
                self.line(d + 1, &format!("if {f} {{"));
                self.line(d + 2, &format!("{target} = *{p};"));
                self.line(d + 1, "}");
                if ty.is_int() {
                    self.line(d + 1, &format!("*{p} = (*{p}).wrapping_add(t);"));
                } else {
                    self.line(d + 1, &format!("*{p} += t;"));
                }
                self.line(d, "});");
            }
            Stmt::Single { team, body, result } => {
                let m = if *team {
                    "single_team"
                } else {
                    "single_thread"
                };
                match result {
                    None => {
                        self.line(d, &format!("team.{m}(|| {{"));
                        self.block(body, d + 1);
                        self.line(d, "});");
                    }
                    Some((v, e)) => {
                        let t = self.k.vars[v.0 as usize];
                        self.line(d, &format!("let {}: {t} = team.{m}(|| {{", var(*v)));
                        self.block(body, d + 1);
                        let e = self.expr(e);
                        self.line(d + 1, &e);
                        self.line(d, "});");
                    }
                }
            }
            Stmt::Broadcast { var: v, value, src } => {
                let t = self.k.vars[v.0 as usize];
                let (e, s) = (self.expr(value), self.expr(src));
                self.line(
                    d,
                    &format!("let {}: {t} = team.team_broadcast({e}, {s});", var(*v)),
                );
            }
            Stmt::Scratch {
                id,
                team,
                level,
                ty,
                len,
            } => {
                let m = if *team {
                    "team_scratch"
                } else {
                    "thread_scratch"
                };
                let l = self.expr(len);
                self.line(
                    d,
                    &format!("let sc{id} = team.{m}::<{ty}, 1>({level}, [{l}]);"),
                );
            }
            Stmt::ScratchStore { id, idx, value } => {
                let (i, v) = (self.expr(idx), self.expr(value));
                self.line(d, &format!("sc{id}[{i}] = {v};"));
            }
        }
    }

    fn view_name(&self, v: ViewRef) -> String {
        match v {
            ViewRef::In(n) => format!("x{n}"),
            ViewRef::Out(n) => format!("o{n}"),
            ViewRef::Atomic(n) => format!("a{n}"),
            ViewRef::Scratch(n) => format!("sc{n}"),
        }
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(l) => l.render(),
            ExprKind::Var(v) => var(*v),
            ExprKind::Param(p) => format!("s{p}"),
            ExprKind::Work(k) => work_name(*k).to_string(),
            ExprKind::Load { view, idx } => {
                let i: Vec<String> = idx.iter().map(|x| self.expr(x)).collect();
                let idx = if i.len() == 1 {
                    i[0].clone()
                } else {
                    format!("({})", i.join(", "))
                };
                format!("{}[{idx}]", self.view_name(*view))
            }
            ExprKind::Extent { view, dim } => format!("{}.extent({dim})", self.view_name(*view)),
            ExprKind::ArrLoad { arr, idx } => format!("{}[{}]", var(*arr), self.expr(idx)),
            ExprKind::Unary(op, a) => {
                let s = match op {
                    Un::Neg => "-",
                    Un::Not => "!",
                };
                format!("({s}{})", self.expr(a))
            }
            ExprKind::Binary(op, a, b) => {
                format!("({} {} {})", self.expr(a), op.symbol(), self.expr(b))
            }
            ExprKind::Cast(a) => format!("({} as {})", self.expr(a), e.ty),
            ExprKind::Call(Method::Func(n), args) => {
                let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
                format!("{}({})", func_name(self.k, *n), a.join(", "))
            }
            ExprKind::Call(m, args) => {
                let rest: Vec<String> = args[1..].iter().map(|x| self.expr(x)).collect();
                format!(
                    "({}).{}({})",
                    self.expr(&args[0]),
                    m.name(),
                    rest.join(", ")
                )
            }
            ExprKind::If(c, a, b) => format!(
                "(if {} {{ {} }} else {{ {} }})",
                self.expr(c),
                self.expr(a),
                self.expr(b)
            ),
            ExprKind::Team(q) => format!("team.{}()", q.name()),
            ExprKind::Atomic {
                view,
                idx,
                op,
                args,
            } => {
                let mut a = vec![self.expr(idx)];
                a.extend(args.iter().map(|x| self.expr(x)));
                format!("a{view}.{}({})", op.method(true), a.join(", "))
            }
        }
    }
}

/// `if` `t` beats `a` under IEEE 754-2019 `minimum` (`c` is `<`) or `maximum` (`>`): smaller
/// (greater), NaN, or the zero with (without) the sign bit.
fn ieee_line(c: &str, a: &str, t: &str) -> String {
    format!("if ({t} {c} {a}) || ({t} != {t}) || (({t} == {a}) && (({t}).signum() {c} ({a}).signum())) {{ {a} = {t}; }}")
}

/// The statements folding value `t` into accumulator `acc` (`*acc` or `acc.field`).
fn fold_lines(reducer: Reducer, fold: Fold, acc: &str, t: &str, loc: Option<&str>) -> Vec<String> {
    let a = format!("*{acc}");
    match (reducer, fold) {
        (Reducer::Sum, Fold::Method) => vec![format!("{a} = ({a}).wrapping_add({t});")],
        (Reducer::Prod, Fold::Method) => vec![format!("{a} = ({a}).wrapping_mul({t});")],
        (Reducer::Sum, _) => vec![format!("{a} += {t};")],
        (Reducer::Prod, _) => vec![format!("{a} *= {t};")],
        (Reducer::Min, Fold::NanWins) => {
            vec![format!("if ({t} < {a}) || ({t} != {t}) {{ {a} = {t}; }}")]
        }
        (Reducer::Max, Fold::NanWins) => {
            vec![format!("if ({t} > {a}) || ({t} != {t}) {{ {a} = {t}; }}")]
        }
        (Reducer::Min, Fold::Ieee) => vec![ieee_line("<", &a, t)],
        (Reducer::Max, Fold::Ieee) => vec![ieee_line(">", &a, t)],
        (Reducer::MinMax, Fold::Ieee) => vec![
            ieee_line("<", &format!("{acc}.min"), t),
            ieee_line(">", &format!("{acc}.max"), t),
        ],
        (Reducer::Min, Fold::Compare) => vec![format!("if {t} < {a} {{ {a} = {t}; }}")],
        (Reducer::Max, Fold::Compare) => vec![format!("if {t} > {a} {{ {a} = {t}; }}")],
        (Reducer::Min, _) => vec![format!("{a} = ({a}).min({t});")],
        (Reducer::Max, _) => vec![format!("{a} = ({a}).max({t});")],
        (Reducer::MinLoc | Reducer::MaxLoc, _) => {
            // Ties go to the smaller location, as the reducer's join does, so that the result
            // does not depend on the order work items run in.
            let c = if reducer == Reducer::MinLoc { "<" } else { ">" };
            let loc = loc.unwrap_or("0usize");
            vec![format!(
                "if ({t} {c} {acc}.val) || (({t} == {acc}.val) && ({loc} < {acc}.loc)) {{ {acc}.val = {t}; {acc}.loc = {loc}; }}"
            )]
        }
        (Reducer::MinMax, _) => vec![
            format!("if {t} < {acc}.min {{ {acc}.min = {t}; }}"),
            format!("if {t} > {acc}.max {{ {acc}.max = {t}; }}"),
        ],
        (Reducer::LAnd, Fold::Compare) => vec![format!("if !{t} {{ {a} = false; }}")],
        (Reducer::LOr, Fold::Compare) => vec![format!("if {t} {{ {a} = true; }}")],
        (Reducer::LAnd, _) => vec![format!("{a} = {a} && {t};")],
        (Reducer::LOr, _) => vec![format!("{a} = {a} || {t};")],
        (Reducer::BAnd, _) => vec![format!("{a} &= {t};")],
        (Reducer::BOr, _) => vec![format!("{a} |= {t};")],
    }
}
