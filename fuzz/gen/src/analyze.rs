//! What each result of a kernel depends on: a data-flow "taint" over the AST.
//!
//! The comparison of a backend's results with serial's needs to know, per output element, which
//! constructs its value went through: a value computed only by exact operations must match bit
//! for bit on every backend; one that went through a function GPUs approximate, or a multiply
//! followed by an add (which GPU compilers may fuse), is held to the precision contract instead; one
//! that went through a construct with a known divergence (the audit's items) is reported under
//! that item. Taints flow from operands to results, from assigned values to locals, and from
//! conditions to everything assigned or stored under them (and, conservatively, from every
//! condition guarding a `break`, `continue` or `return` to everything).

use crate::ast::*;
use crate::ty::Ty;
use std::collections::HashMap;

/// The taint bits.
pub mod taint {
    /// A function GPUs compute to a stated accuracy (`sin`, `exp`, ...: within
    /// `MathFn::max_ulp_from_std` of Rust's result) or a float nested reduction (whose order
    /// differs across team threads): on GPUs, within the contract, not bit-exact.
    pub const GPU_APPROX: u32 = 1 << 0;
    /// Depends on `team_rank()` / `team_size()`, which differ by design between backends whose
    /// teams have one thread (serial, rayon, the evaluator) and GPUs.
    pub const TEAM_SHAPE: u32 = 1 << 1;
    /// A `u32` cast to `i64` / `isize` (audit item 6).
    pub const CAST_U32_WIDE: u32 = 1 << 2;
    /// Float `%` or `rem_euclid` (audit item 7).
    pub const FLOAT_REM: u32 = 1 << 3;
    /// An `f32` transcendental function (audit item 8).
    pub const F32_MATH: u32 = 1 << 4;
    /// A float `Min` / `Max` / `MinMax` reduction folded otherwise than by its join
    /// ([`crate::ast::Fold::Ieee`]): the reducer contract leaves the sign of a zero extremum to
    /// the partition (audit item 9).
    pub const FLOAT_MINMAX_REDUCE: u32 = 1 << 5;
    /// Float `min` / `max` / `clamp` (audit item 11: the sign of a zero result).
    pub const FLOAT_MINMAX: u32 = 1 << 6;
    /// `mul_add` (audit item 11: f64 not fused on wgpu; this fuzzer found f32 too).
    pub const MUL_ADD: u32 = 1 << 7;
    /// `sinh` (audit item 11: the sign of `sinh(-0.0)`).
    pub const SINH: u32 = 1 << 8;
    /// An integer operation that panics on overflow in debug builds, or on `MIN / -1` in every
    /// build (audit item 10): `+ - *` and compound assignments, `-x`, `abs`, shifts by
    /// unmasked amounts, signed `/` `%` `rem_euclid`. Kernel-wide: it decides failure.
    pub const INT_OVERFLOW: u32 = 1 << 9;
    /// A `clamp` whose bounds are not both constants (`min > max` or a NaN bound panics in
    /// Rust). Kernel-wide: it decides failure.
    pub const CLAMP: u32 = 1 << 10;
    /// `is_finite` (the IR once spelled it `x - x == x - x`, which a GPU compiler folded to
    /// `true`: found by this fuzzer; now an operation of its own, tested from the bits).
    pub const IS_FINITE: u32 = 1 << 11;
    /// A float `+`, `-` or `*` with an operand the shader compiler can know as a constant (a
    /// literal, a local bound to one, a loop counter, which unrolling makes constant) or with
    /// identical operands (`x - x`): rokkos-wgpu's float contract lets the adapter's compiler
    /// simplify these by real-number algebra (`(x + c1) - c2` as `x + (c1 - c2)`, `x * 0` as
    /// 0, `x - x` as 0, `x + 0` as `x`: found by this fuzzer, measured on lavapipe), so on GPUs
    /// such a value, and everything computed from it, is not checkable.
    pub const GPU_RELAXED: u32 = 1 << 12;
    /// A float multiply feeding an add or subtract: `rokkos-wgpu`'s float contract lets the GPU
    /// compiler fuse them into one multiply-add (one rounding instead of two), so on GPUs such
    /// a value, and everything computed from it, is not checkable bit for bit.
    pub const FUSABLE: u32 = 1 << 13;

    /// Names of the bits, for reports.
    pub fn names(t: u32) -> Vec<&'static str> {
        const N: [&str; 14] = [
            "gpu-approx",
            "team-shape",
            "cast-u32-wide",
            "float-rem",
            "f32-math",
            "float-minmax-reduce",
            "float-minmax",
            "mul-add",
            "sinh",
            "int-overflow",
            "clamp",
            "is-finite",
            "gpu-relaxed",
            "fusable",
        ];
        (0..N.len())
            .filter(|b| t & (1 << b) != 0)
            .map(|b| N[b])
            .collect()
    }
}

use taint::*;

/// What one output column (or atomic View) depends on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColInfo {
    /// Union of the taints of every value stored to it and the conditions around the stores.
    pub taint: u32,
    /// When the column is written by exactly one store of one approximate function applied to
    /// exact operands: the function and its type (checked against the function's accuracy).
    pub direct: Option<(&'static str, Ty)>,
    /// Number of stores to it.
    pub stores: u32,
    /// It holds a range scan's exclusive prefix, whose terms are in this column of the same
    /// View (one row per work item).
    pub prefix_of: Option<u32>,
}

/// What one accumulator's result depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct AccInfo {
    /// Its reducer.
    pub reducer: Reducer,
    /// Its value type.
    pub ty: Ty,
    /// Taint of every contribution.
    pub taint: u32,
    /// Output View and column holding each work item's term (float sums and products).
    pub term: Option<(u32, u32)>,
}

/// The analysis of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// Per output View, per column.
    pub cols: Vec<Vec<ColInfo>>,
    /// Per atomic View.
    pub atomics: Vec<ColInfo>,
    /// Per accumulator field, flattened in the order of the launch's result (`ValLoc`: val,
    /// loc; `MinMaxVal`: min, max).
    pub accs: Vec<AccInfo>,
    /// Union of every taint in the kernel, plus the kernel-wide [`taint::INT_OVERFLOW`]: what
    /// success or failure of a work item depends on.
    pub kernel: u32,
}

struct An<'k> {
    k: &'k Kernel,
    vars: Vec<u32>,
    mul_vars: Vec<bool>,
    /// Locals the shader compiler may know as constants (see [`taint::GPU_RELAXED`]).
    const_vars: Vec<bool>,
    scratch: HashMap<u32, u32>,
    atomics: Vec<u32>,
    cols: Vec<Vec<ColInfo>>,
    accs: Vec<u32>,
    jumps: u32,
    kernel: u32,
    changed: bool,
}

/// Analyses `k`.
pub fn analyze(k: &Kernel) -> Analysis {
    if !k.funcs.is_empty() {
        // A call computes exactly its body on its (pure) arguments: see `crate::funcs`.
        return analyze(&crate::funcs::inlined(k));
    }
    let mut a = An {
        k,
        vars: vec![0; k.vars.len()],
        mul_vars: vec![false; k.vars.len()],
        const_vars: vec![false; k.vars.len()],
        scratch: HashMap::new(),
        atomics: vec![0; k.atomics.len()],
        cols: Vec::new(),
        accs: vec![0; k.accs.len()],
        jumps: 0,
        kernel: 0,
        changed: true,
    };
    a.jumps = a.jump_conditions(&k.body);
    let mut rounds = 0;
    while a.changed && rounds < 32 {
        a.changed = false;
        a.cols = k
            .outputs
            .iter()
            .map(|o| vec![ColInfo::default(); o.cols as usize])
            .collect();
        a.block(&k.body, a.jumps);
        rounds += 1;
    }
    let mut kernel = a.kernel | a.jumps;
    k.walk_stmts(&mut |s| {
        kernel |= stmt_overflow(k, s);
        for e in s.exprs() {
            e.walk(&mut |x| kernel |= expr_overflow(x));
            // A work item can fail in any expression, used or not (`x / team_size()` in a local
            // nobody reads fails on one-thread host teams only): its taint is the kernel's too.
            kernel |= a.expr(e);
        }
    });
    for c in a.cols.iter().flatten().chain(&a.atomics_info()) {
        kernel |= c.taint;
    }
    let mut accs = Vec::new();
    let terms = acc_terms(k);
    for (n, acc) in k.accs.iter().enumerate() {
        let mut t = a.accs[n];
        // The reducer contract (`rokkos::reducer`): a float Min/Max/MinMax fold other than the
        // join itself leaves the sign of a zero extremum to the partition. The Loc reducers'
        // folds break ties by location, as their join does: no freedom.
        let mut other_fold = false;
        k.walk_stmts(&mut |s| {
            if let Stmt::Contribute { acc: c, fold, .. } = s {
                other_fold |= *c as usize == n && *fold != Fold::Ieee;
            }
        });
        if acc.ty.is_float()
            && other_fold
            && matches!(acc.reducer, Reducer::Min | Reducer::Max | Reducer::MinMax)
        {
            t |= FLOAT_MINMAX_REDUCE;
        }
        kernel |= t;
        let fields: &[Ty] = match acc.reducer {
            Reducer::MinLoc | Reducer::MaxLoc => &[acc.ty, Ty::Usize],
            Reducer::MinMax => &[acc.ty, acc.ty],
            _ => &[acc.ty],
        };
        for &ty in fields {
            accs.push(AccInfo {
                reducer: acc.reducer,
                ty,
                taint: t,
                term: terms.get(&(n as u32)).copied(),
            });
        }
    }
    Analysis {
        atomics: a.atomics_info(),
        cols: a.cols,
        accs,
        kernel,
    }
}

/// The term columns of float sum / product accumulators.
fn acc_terms(k: &Kernel) -> HashMap<u32, (u32, u32)> {
    let mut m = HashMap::new();
    k.walk_stmts(&mut |s| {
        if let Stmt::Contribute {
            acc, term: Some(t), ..
        } = s
        {
            m.insert(*acc, *t);
        }
    });
    m
}

impl An<'_> {
    fn atomics_info(&self) -> Vec<ColInfo> {
        self.atomics
            .iter()
            .map(|&t| ColInfo {
                taint: t,
                ..ColInfo::default()
            })
            .collect()
    }

    fn add_var(&mut self, v: VarId, t: u32) {
        let slot = &mut self.vars[v.0 as usize];
        if *slot | t != *slot {
            *slot |= t;
            self.changed = true;
        }
    }

    fn set_const(&mut self, v: VarId, c: bool) {
        let slot = &mut self.const_vars[v.0 as usize];
        if c && !*slot {
            *slot = true;
            self.changed = true;
        }
    }

    /// Whether a compiler may see `e` as a constant: a literal, a local that holds one, a
    /// loop counter, or an operation on those.
    fn is_const(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) => true,
            ExprKind::Var(v) => self.const_vars[v.0 as usize],
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => self.is_const(a),
            ExprKind::Binary(_, a, b) => self.is_const(a) && self.is_const(b),
            _ => false,
        }
    }

    /// [`taint::GPU_RELAXED`] for float `a op b`.
    fn relaxed(&self, op: Bin, a: &Expr, b: &Expr) -> u32 {
        let arith = matches!(op, Bin::Add | Bin::Sub | Bin::Mul);
        if arith && (self.is_const(a) || self.is_const(b) || (op == Bin::Sub && a == b)) {
            GPU_RELAXED
        } else {
            0
        }
    }

    fn set_mul(&mut self, v: VarId, m: bool) {
        let slot = &mut self.mul_vars[v.0 as usize];
        if m && !*slot {
            *slot = true;
            self.changed = true;
        }
    }

    /// Union of the conditions of the `if`s that hold a `break`, `continue` or `return`.
    fn jump_conditions(&self, b: &[Stmt]) -> u32 {
        let mut t = 0;
        for s in b {
            s.walk(&mut |x| {
                if let Stmt::If { cond, then, els } = x {
                    let jumps = then.iter().chain(els).any(|s| {
                        let mut j = false;
                        s.walk(&mut |y| {
                            j |= matches!(y, Stmt::Break | Stmt::Continue | Stmt::Return)
                        });
                        j
                    });
                    if jumps {
                        t |= self.expr(cond);
                    }
                }
                if let Stmt::While { cond, .. } = x {
                    t |= self.expr(cond);
                }
            });
        }
        t
    }

    /// Whether `e` is (up to negation) a float product: what a following add may fuse with.
    fn is_mul(&self, e: &Expr) -> bool {
        if !e.ty.is_float() {
            return false;
        }
        match &e.kind {
            ExprKind::Binary(Bin::Mul, ..) => true,
            ExprKind::Unary(Un::Neg, a) => self.is_mul(a),
            ExprKind::Call(Method::Powi, _) => true,
            ExprKind::Call(Method::Exact1("to_radians" | "to_degrees"), _) => true,
            ExprKind::Var(v) => self.mul_vars[v.0 as usize],
            _ => false,
        }
    }

    fn expr(&self, e: &Expr) -> u32 {
        let mut t = 0;
        for c in e.children() {
            t |= self.expr(c);
        }
        t | match &e.kind {
            ExprKind::Var(v) => self.vars[v.0 as usize],
            ExprKind::ArrLoad { arr, .. } => self.vars[arr.0 as usize],
            ExprKind::Load {
                view: ViewRef::Scratch(id),
                ..
            } => self.scratch.get(id).copied().unwrap_or(0),
            ExprKind::Team(TeamQ::TeamRank | TeamQ::TeamSize) => TEAM_SHAPE,
            ExprKind::Binary(op, a, b) if e.ty.is_float() || a.ty.is_float() => match op {
                Bin::Rem => FLOAT_REM,
                Bin::Add | Bin::Sub if self.is_mul(a) || self.is_mul(b) => FUSABLE,
                _ if e.ty.is_float() => self.relaxed(*op, a, b),
                _ => 0,
            },
            ExprKind::Cast(a) if a.ty == Ty::U32 && matches!(e.ty, Ty::I64 | Ty::Isize) => {
                CAST_U32_WIDE
            }
            ExprKind::Call(m, args) => {
                let ty = args[0].ty;
                match m {
                    Method::Approx1(f) | Method::Approx2(f) => {
                        GPU_APPROX
                            | if ty == Ty::F32 { F32_MATH } else { 0 }
                            | if *f == "sinh" { SINH } else { 0 }
                    }
                    Method::Min | Method::Max | Method::Clamp if ty.is_float() => FLOAT_MINMAX,
                    Method::MulAdd => MUL_ADD,
                    Method::RemEuclid if ty.is_float() => FLOAT_REM,
                    Method::IsFinite => IS_FINITE,
                    Method::Exact1("fract") => 0,
                    _ => 0,
                }
            }
            ExprKind::Atomic { view, .. } => self.atomics[*view as usize],
            _ => 0,
        }
    }

    fn block(&mut self, b: &[Stmt], ctl: u32) {
        for s in b {
            self.stmt(s, ctl);
        }
    }

    fn col(&mut self, out: u32, col: u32) -> &mut ColInfo {
        &mut self.cols[out as usize][col as usize]
    }

    fn store(&mut self, out: u32, col: u32, value: &Expr, ctl: u32) {
        let t = self.expr(value) | ctl;
        let direct = match &value.kind {
            ExprKind::Call(Method::Approx1(f) | Method::Approx2(f), args)
                if ctl & (GPU_APPROX | FUSABLE) == 0
                    && args
                        .iter()
                        .all(|a| self.expr(a) & (GPU_APPROX | FUSABLE) == 0) =>
            {
                Some((*f, value.ty))
            }
            _ => None,
        };
        let c = self.col(out, col);
        c.taint |= t;
        c.stores += 1;
        c.direct = if c.stores == 1 { direct } else { None };
    }

    /// Value-returning atomics inside the statement's expressions write their View too.
    fn atomic_exprs(&mut self, s: &Stmt, ctl: u32) {
        let mut writes = Vec::new();
        for e in s.exprs() {
            e.walk(&mut |x| {
                if let ExprKind::Atomic {
                    view, idx, args, ..
                } = &x.kind
                {
                    let mut t = self.expr(idx) | ctl;
                    for a in args {
                        t |= self.expr(a);
                    }
                    writes.push((*view, t));
                }
            });
        }
        for (view, t) in writes {
            let slot = &mut self.atomics[view as usize];
            if *slot | t != *slot {
                *slot |= t;
                self.changed = true;
            }
        }
    }

    fn stmt(&mut self, s: &Stmt, ctl: u32) {
        self.atomic_exprs(s, ctl);
        match s {
            Stmt::Let { var, init, .. } => {
                let t = self.expr(init) | ctl;
                let m = self.is_mul(init);
                self.add_var(*var, t);
                self.set_mul(*var, m);
                self.set_const(*var, self.is_const(init));
            }
            Stmt::Assign { var, op, value } => {
                let mut t = self.expr(value) | ctl;
                let ty = self.k.vars[var.0 as usize];
                let me = Expr::new(ty, ExprKind::Var(*var));
                match op {
                    None => self.set_const(*var, self.is_const(value)),
                    Some(o) if ty.is_float() => t |= self.relaxed(*o, &me, value),
                    Some(_) => {}
                }
                if ty.is_float()
                    && matches!(op, Some(Bin::Add | Bin::Sub))
                    && (self.is_mul(value) || self.mul_vars[var.0 as usize])
                {
                    t |= FUSABLE;
                }
                if ty.is_float() && *op == Some(Bin::Rem) {
                    t |= FLOAT_REM;
                }
                let m = op.is_none() && self.is_mul(value) || *op == Some(Bin::Mul);
                self.add_var(*var, t);
                self.set_mul(*var, m);
            }
            Stmt::ArrLet { arr, init, .. } => {
                let t = match init {
                    ArrInit::Fill(e) => self.expr(e),
                    ArrInit::Elems(es) => es.iter().map(|e| self.expr(e)).fold(0, |a, b| a | b),
                };
                self.add_var(*arr, t | ctl);
            }
            Stmt::ArrStore { arr, idx, value } => {
                let t = self.expr(idx) | self.expr(value) | ctl;
                self.add_var(*arr, t);
            }
            Stmt::Store {
                out, col, value, ..
            } => self.store(*out, *col, value, ctl),
            Stmt::Atomic {
                view, idx, args, ..
            } => {
                let mut t = self.expr(idx) | ctl;
                for a in args {
                    t |= self.expr(a);
                }
                let slot = &mut self.atomics[*view as usize];
                if *slot | t != *slot {
                    *slot |= t;
                    self.changed = true;
                }
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(cond) | ctl;
                self.block(then, c);
                self.block(els, c);
            }
            Stmt::For {
                var,
                lo,
                hi,
                step,
                body,
                ..
            } => {
                let mut t = self.expr(lo) | self.expr(hi) | ctl;
                if let Some(st) = step {
                    t |= self.expr(st);
                }
                self.add_var(*var, t);
                self.set_const(*var, true);
                self.block(body, t);
            }
            Stmt::While { cond, body, .. } => {
                let c = self.expr(cond) | ctl;
                self.block(body, c);
            }
            Stmt::Loop { body, .. } => self.block(body, ctl),
            Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Barrier => {}
            Stmt::Contribute {
                acc,
                term,
                value,
                loc,
                ..
            } => {
                let mut t = self.expr(value) | ctl;
                if let Some(l) = loc {
                    t |= self.expr(l);
                }
                self.accs[*acc as usize] |= t;
                if let Some((out, col)) = term {
                    self.store(*out, *col, value, ctl);
                }
            }
            Stmt::ScanStep {
                out,
                col,
                term_col,
                value,
            } => {
                let t = self.expr(value) | ctl;
                self.store(*out, *term_col, value, ctl);
                // The scan's total is the accumulator's result.
                self.accs[0] |= t;
                let c = self.col(*out, *col);
                c.taint |= t;
                c.stores += 1;
                c.direct = None;
                c.prefix_of = Some(*term_col);
            }
            Stmt::NestedFor { var, n, body, .. } => {
                let t = self.expr(n) | ctl;
                self.add_var(*var, t);
                self.block(body, t);
            }
            Stmt::NestedReduce {
                var,
                n,
                reducer,
                acc,
                body,
                value,
                result,
                ..
            } => {
                let t = self.expr(n) | ctl;
                self.add_var(*var, t);
                self.block(body, t);
                let ty = self.k.vars[result.0 as usize];
                let mut r = self.expr(value) | t;
                if ty.is_float() {
                    r |= match reducer {
                        Reducer::Sum | Reducer::Prod => GPU_APPROX,
                        _ => FLOAT_MINMAX,
                    };
                }
                self.add_var(*acc, r);
                self.add_var(*result, r);
            }
            Stmt::NestedScan {
                var,
                n,
                partial,
                fin,
                body,
                value,
                out,
                col,
                total,
                ..
            } => {
                let t = self.expr(n) | ctl;
                self.add_var(*var, t);
                self.add_var(*fin, t);
                self.block(body, t);
                let ty = self.k.vars[total.0 as usize];
                let mut r = self.expr(value) | t;
                if ty.is_float() {
                    r |= GPU_APPROX;
                }
                self.add_var(*partial, r);
                self.add_var(*total, r);
                let c = self.col(*out, *col);
                c.taint |= r;
                c.stores += 1;
                c.direct = None;
            }
            Stmt::Single { body, result, .. } => {
                self.block(body, ctl);
                if let Some((v, e)) = result {
                    let t = self.expr(e) | ctl;
                    self.add_var(*v, t);
                }
            }
            Stmt::Broadcast { var, value, src } => {
                let t = self.expr(value) | self.expr(src) | ctl;
                self.add_var(*var, t);
            }
            Stmt::Scratch { .. } => {}
            Stmt::ScratchStore { id, idx, value } => {
                let t = self.expr(idx) | self.expr(value) | ctl;
                let slot = self.scratch.entry(*id).or_insert(0);
                if *slot | t != *slot {
                    *slot |= t;
                    self.changed = true;
                }
            }
        }
    }
}

/// Whether an amount is masked below the shifted type's width (`b & (bits - 1)`).
fn masked_shift(value_bits: u32, amount: &Expr) -> bool {
    match &amount.kind {
        ExprKind::Binary(Bin::And, _, m) => match &m.kind {
            ExprKind::Lit(l) => l.as_i128() >= 0 && l.as_i128() < value_bits as i128,
            _ => false,
        },
        _ => false,
    }
}

/// [`taint::INT_OVERFLOW`] when expression node `e` can panic on overflow in Rust.
fn expr_overflow(e: &Expr) -> u32 {
    let int = e.ty.is_int();
    let signed = e.ty.is_signed_int();
    let hit = match &e.kind {
        ExprKind::Binary(Bin::Add | Bin::Sub | Bin::Mul, ..) => int,
        ExprKind::Binary(Bin::Div | Bin::Rem, ..) => signed,
        ExprKind::Binary(Bin::Shl | Bin::Shr, _, b) => !masked_shift(e.ty.bits(), b),
        ExprKind::Unary(Un::Neg, _) => signed,
        ExprKind::Call(Method::Abs, _) => signed,
        ExprKind::Call(Method::RemEuclid, _) => signed,
        ExprKind::Call(Method::Clamp, args) => {
            let lit = |e: &Expr| matches!(e.kind, ExprKind::Lit(_));
            if !(lit(&args[1]) && lit(&args[2])) {
                return CLAMP;
            }
            false
        }
        _ => false,
    };
    if hit {
        INT_OVERFLOW
    } else {
        0
    }
}

/// [`taint::INT_OVERFLOW`] for statements that do integer arithmetic themselves.
fn stmt_overflow(k: &Kernel, s: &Stmt) -> u32 {
    let hit = match s {
        Stmt::Assign {
            var,
            op: Some(op),
            value,
        } => {
            let ty = k.vars[var.0 as usize];
            ty.is_int()
                && match op {
                    Bin::Add | Bin::Sub | Bin::Mul => true,
                    Bin::Div | Bin::Rem => ty.is_signed_int(),
                    Bin::Shl | Bin::Shr => !masked_shift(ty.bits(), value),
                    _ => false,
                }
        }
        Stmt::Contribute { acc, fold, .. } => {
            let a = &k.accs[*acc as usize];
            a.ty.is_int() && *fold == Fold::Op && matches!(a.reducer, Reducer::Sum | Reducer::Prod)
        }
        _ => false,
    };
    if hit {
        INT_OVERFLOW
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{bin, call, cast};
    use crate::ty::Lit;

    fn x(n: u32, ty: Ty) -> Expr {
        Expr::new(
            ty,
            ExprKind::Load {
                view: ViewRef::In(n),
                idx: vec![Expr::new(Ty::Usize, ExprKind::Work(0))],
            },
        )
    }

    fn kernel(inputs: &[Ty], outputs: &[(Ty, u32)], vars: &[Ty], body: Vec<Stmt>) -> Kernel {
        let mut k = crate::corpus::kernel("item6_u32_to_i64").unwrap();
        k.inputs = inputs
            .iter()
            .map(|&ty| InView {
                ty,
                dims: vec![Extent::Work(0)],
                layout: Layout::Right,
            })
            .collect();
        k.outputs = outputs
            .iter()
            .map(|&(ty, cols)| OutView {
                ty,
                dims: vec![Extent::Work(0)],
                cols,
                layout: Layout::Right,
            })
            .collect();
        k.vars = vars.to_vec();
        k.body = body;
        k
    }

    fn store(col: u32, value: Expr) -> Stmt {
        Stmt::Store {
            out: 0,
            col,
            at: None,
            value,
        }
    }

    #[test]
    fn approximate_results_are_direct_only_before_further_arithmetic() {
        let sin = call(Method::Approx1("sin"), vec![x(0, Ty::F64)]);
        let k = kernel(
            &[Ty::F64],
            &[(Ty::F64, 3)],
            &[],
            vec![
                store(0, sin.clone()),
                store(1, bin(Bin::Add, sin, x(0, Ty::F64))),
                store(2, bin(Bin::Add, x(0, Ty::F64), x(0, Ty::F64))),
            ],
        );
        let a = analyze(&k);
        assert_eq!(a.cols[0][0].direct, Some(("sin", Ty::F64)));
        assert_ne!(a.cols[0][0].taint & GPU_APPROX, 0);
        assert_eq!(a.cols[0][1].direct, None);
        assert_ne!(a.cols[0][1].taint & GPU_APPROX, 0);
        assert_eq!(a.cols[0][2].taint, 0);
    }

    #[test]
    fn arithmetic_a_gpu_may_simplify_is_relaxed() {
        let lit = Expr::lit(Lit::float(Ty::F64, 0.5));
        let k = kernel(
            &[Ty::F64],
            &[(Ty::F64, 4)],
            &[],
            vec![
                store(0, bin(Bin::Mul, x(0, Ty::F64), lit.clone())),
                store(1, bin(Bin::Sub, x(0, Ty::F64), x(0, Ty::F64))),
                store(2, bin(Bin::Div, x(0, Ty::F64), lit)),
                store(3, bin(Bin::Add, x(0, Ty::F64), x(0, Ty::F64))),
            ],
        );
        let a = analyze(&k);
        let relaxed = |c: usize| a.cols[0][c].taint & GPU_RELAXED != 0;
        assert_eq!(
            [relaxed(0), relaxed(1), relaxed(2), relaxed(3)],
            [true, true, false, false]
        );
    }

    #[test]
    fn a_product_feeding_an_add_is_fusable_through_locals() {
        let prod = bin(Bin::Mul, x(0, Ty::F32), x(0, Ty::F32));
        let v = VarId(0);
        let k = kernel(
            &[Ty::F32],
            &[(Ty::F32, 2)],
            &[Ty::F32],
            vec![
                Stmt::Let {
                    var: v,
                    mutable: false,
                    init: prod,
                },
                store(
                    0,
                    bin(
                        Bin::Sub,
                        x(0, Ty::F32),
                        Expr::new(Ty::F32, ExprKind::Var(v)),
                    ),
                ),
                store(
                    1,
                    bin(
                        Bin::Div,
                        x(0, Ty::F32),
                        Expr::new(Ty::F32, ExprKind::Var(v)),
                    ),
                ),
            ],
        );
        let a = analyze(&k);
        assert_ne!(a.cols[0][0].taint & FUSABLE, 0);
        assert_eq!(a.cols[0][1].taint & FUSABLE, 0);
    }

    #[test]
    fn conditions_taint_what_is_stored_under_them() {
        let cond = bin(
            Bin::Lt,
            cast(x(0, Ty::U32), Ty::I64),
            Expr::lit(Lit::int(Ty::I64, 0)),
        );
        let k = kernel(
            &[Ty::U32],
            &[(Ty::I32, 2)],
            &[],
            vec![
                Stmt::If {
                    cond,
                    then: vec![store(0, Expr::lit(Lit::int(Ty::I32, 1)))],
                    els: Vec::new(),
                },
                store(1, Expr::lit(Lit::int(Ty::I32, 2))),
            ],
        );
        let a = analyze(&k);
        assert_ne!(a.cols[0][0].taint & CAST_U32_WIDE, 0);
        assert_eq!(a.cols[0][1].taint, 0);
    }

    #[test]
    fn a_scans_total_carries_its_terms_taint() {
        let mut k = kernel(&[Ty::F64], &[(Ty::F64, 2)], &[], Vec::new());
        k.family = Family::RangeScan;
        k.accs = vec![Acc {
            reducer: Reducer::Sum,
            ty: Ty::F64,
        }];
        k.body = vec![Stmt::ScanStep {
            out: 0,
            col: 0,
            term_col: 1,
            value: call(Method::Approx1("exp"), vec![x(0, Ty::F64)]),
        }];
        let a = analyze(&k);
        assert_ne!(a.accs[0].taint & GPU_APPROX, 0);
        assert_eq!(a.cols[0][0].prefix_of, Some(1));
        assert_eq!(a.cols[0][1].direct, Some(("exp", Ty::F64)));
    }

    #[test]
    fn value_atomics_taint_their_view_and_overflow_is_kernel_wide() {
        let mut k = kernel(&[Ty::F64], &[(Ty::F64, 1)], &[Ty::F64], Vec::new());
        k.atomics = vec![AtomicView {
            ty: Ty::F64,
            len: Extent::Work(0),
        }];
        let exp = call(Method::Approx1("exp2"), vec![x(0, Ty::F64)]);
        k.body = vec![Stmt::Let {
            var: VarId(0),
            mutable: false,
            init: Expr::new(
                Ty::F64,
                ExprKind::Atomic {
                    view: 0,
                    idx: Box::new(Expr::new(Ty::Usize, ExprKind::Work(0))),
                    op: AtomicOp::Add,
                    args: vec![exp],
                },
            ),
        }];
        let a = analyze(&k);
        assert_ne!(a.atomics[0].taint & GPU_APPROX, 0);
        assert_eq!(a.kernel & INT_OVERFLOW, 0);
        let sum = bin(
            Bin::Add,
            cast(x(0, Ty::F64), Ty::I32),
            Expr::lit(Lit::int(Ty::I32, 1)),
        );
        let k = kernel(&[Ty::F64], &[(Ty::I32, 1)], &[], vec![store(0, sum)]);
        assert_ne!(analyze(&k).kernel & INT_OVERFLOW, 0);
    }
}
