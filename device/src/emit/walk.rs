//! The one walk over `ir::Stmt` / `ir::Expr` for every target. The walk fixes the evaluation
//! order (operands left to right, array elements before the stores), the temporaries (numbered in
//! the order they are needed) and the checks a `for` loop makes ([`ForPlan`]); a [`Target`]
//! spells each construct and supplies its operator families.

use super::{names, EmitError};
use rokkos_core::ir::{
    ArithOp, ArrayInit, AtomicAccess, BinaryOp, BitwiseOp, Block, CmpOp, ConstTable, Expr, Kernel,
    LocalDecl, LocalId, LogicOp, MathFn, ScalarType, Stmt, TeamQuery, UnaryOp, Value, ViewRef,
};
use std::cell::Cell;

type R<T> = Result<T, EmitError>;

/// What the walk knows while emitting one body (the kernel's or a function's).
pub struct Cx<'a, T: Target> {
    /// The kernel.
    pub k: &'a Kernel,
    /// The locals of the body being emitted.
    pub locals: &'a [LocalDecl],
    tmp: Cell<u32>,
    /// The team launch shape, in the body of a team kernel.
    pub team: Option<T::Team>,
    /// The 32-bit variant ([`super::width`]): every IR `u64` is spelled as `u32`. Set only for
    /// a kernel whose [`super::width::plan`] accepted it.
    pub narrow: bool,
}

impl<'a, T: Target> Cx<'a, T> {
    /// A walk over a body with `locals`.
    pub fn new(k: &'a Kernel, locals: &'a [LocalDecl]) -> Self {
        Cx {
            k,
            locals,
            tmp: Cell::new(0),
            team: None,
            narrow: false,
        }
    }
    /// `t` as this variant spells it: `u64` is `u32` in the 32-bit variant.
    pub fn lower(&self, t: ScalarType) -> ScalarType {
        lower(self.narrow, t)
    }
    /// `e` (of integer type `t`) as an unsigned index of this variant's width.
    pub fn index(&self, t: ScalarType, e: &str) -> String {
        if self.narrow {
            T::to_u32(t, e)
        } else {
            T::to_u64(t, e)
        }
    }
    /// A fresh temporary name.
    pub fn tmp(&self) -> String {
        let n = self.tmp.get();
        self.tmp.set(n + 1);
        names::tmp(n)
    }
    /// The type of `e` (as this variant spells it).
    pub fn ty(&self, e: &Expr) -> R<ScalarType> {
        e.ty(self.k, self.locals)
            .map(|t| self.lower(t))
            .ok_or_else(|| EmitError::Mismatch(format!("ill-typed expression {e:?}")))
    }
    /// The type of local `l` (as this variant spells it).
    pub fn local_ty(&self, l: LocalId) -> ScalarType {
        self.lower(self.locals[l.0 as usize].ty)
    }
    /// The length of local array `l` (0 for a scalar local).
    pub fn array_len(&self, l: LocalId) -> u32 {
        self.locals[l.0 as usize].array_len.unwrap_or(0)
    }
}

/// `t` in the 32-bit variant (`narrow`) or the 64-bit one.
pub fn lower(narrow: bool, t: ScalarType) -> ScalarType {
    if narrow && t == ScalarType::U64 {
        ScalarType::U32
    } else {
        t
    }
}

/// `v` in the 32-bit variant (`narrow`: a `u64` literal the plan proved to fit becomes a `u32`)
/// or the 64-bit one.
pub fn lower_value(narrow: bool, v: Value) -> Value {
    match v {
        Value::U64(x) if narrow => Value::U32(x as u32),
        v => v,
    }
}

/// What a `for` loop over a counter must do, decided once for every target.
///
/// The loop runs `var` over `start, start + step, ..` below `end` (up to `end` when `inclusive`),
/// in reverse order when `reverse`, without ever forming a value past the range (which could
/// wrap). A step that is not a positive literal is checked at run time: `step_by(0)` or a negative
/// step is a failure of the work item, as in the evaluator.
pub struct ForPlan {
    /// The counter's type.
    pub t: ScalarType,
    /// The step's type: the counter's, or `u64` (Rust's `usize` step).
    pub step_t: ScalarType,
    /// The unsigned type of the counter's width, in which distances are exact.
    pub unsigned32: bool,
    /// Temporaries: start, end, the step in the unsigned type, the running counter, the raw step.
    pub s0: String,
    /// End of the range.
    pub e0: String,
    /// The step in the unsigned type of the counter.
    pub st: String,
    /// The running counter.
    pub c: String,
    /// The step as written (of `step_t`).
    pub raw: String,
    /// The step is a positive literal: no run-time check.
    pub literal: bool,
    /// A `u64` step of a 32-bit counter: held clamped, and a step past `u32::MAX` visits the
    /// first value only.
    pub narrowed: bool,
    /// `..=`.
    pub inclusive: bool,
    /// `.rev()`.
    pub reverse: bool,
    /// The counter variable.
    pub var: LocalId,
    /// The comparison that says the range is not empty (`<`, or `<=` when inclusive).
    pub run: &'static str,
    /// The comparison of the remaining distance with the step that stops a forward loop.
    pub more: &'static str,
}

/// A target language: the spelling of each construct and its operator families. Every method
/// receives operands already emitted (left to right) and returns source text; statement hooks
/// return whole lines (indented by `i`, newline-terminated).
pub trait Target: Sized {
    /// What the target accumulates while emitting (helper definitions, options).
    type H;
    /// The launch shape of a team body.
    type Team: Copy;

    /// A literal of `v`'s type.
    fn lit(v: Value) -> String;
    /// The declaration of local `i` (`len`: an array's length), without indentation.
    fn decl_local(i: usize, ty: ScalarType, len: Option<u32>) -> String;
    /// An immutable temporary `name` of type `ty` holding `value` (a statement).
    fn let_tmp(name: &str, ty: ScalarType, value: &str) -> String;
    /// The head of kernel function `name` (`{` included, newline-terminated).
    fn fn_head(name: &str, params: &[(String, ScalarType)], ret: ScalarType) -> String;
    /// The head of kernel `k`'s body function (newline-terminated), in the 32-bit variant when
    /// `narrow` (a target that passes the work index as a parameter spells its type from it).
    fn work_head(k: &Kernel, narrow: bool) -> String;
    /// The end of the body function (newline-terminated).
    fn work_tail() -> String {
        "}\n".into()
    }
    /// The keyword of an endless loop (`loop` in WGSL).
    fn loop_kw() -> &'static str;
    /// A call of kernel function `n` with arguments `args`.
    fn call_fn(n: usize, args: &[String]) -> String {
        format!("{}({})", names::function(n), args.join(", "))
    }
    /// A statement evaluating `call` for its effect only.
    fn discard(call: &str) -> String;
    /// `e` (of integer type `t`) as an unsigned 64-bit index.
    fn to_u64(t: ScalarType, e: &str) -> String;
    /// `e` (of unsigned integer type `t`, at most 32 bits wide) as an unsigned 32-bit index, in
    /// the 32-bit variant ([`super::width`]). The default is [`Target::to_u64`]: a target that
    /// emits the 32-bit variant overrides it.
    fn to_u32(t: ScalarType, e: &str) -> String {
        Self::to_u64(t, e)
    }
    /// `e` (of integer type `t`) as the index of a local array or constant table, of the type
    /// the target's bounds-checked access helpers take in this module. The default is
    /// [`Cx::index`]'s spelling (`narrow`: the body is the 32-bit variant's). A target whose
    /// access helpers take 32-bit indices in every body of a 32-bit kernel, its helper
    /// functions included (which are full width), overrides it.
    fn array_index(_h: &Self::H, narrow: bool, t: ScalarType, e: &str) -> String {
        if narrow {
            Self::to_u32(t, e)
        } else {
            Self::to_u64(t, e)
        }
    }
    /// `c ? t : f`, all three evaluated.
    fn select(c: &str, t: &str, f: &str) -> String;
    /// Scalar parameter `p` of type `ty`.
    fn param(p: u32, ty: ScalarType) -> String;

    /// The `for` loop of `plan`: the opening (temporaries, the step check) before the body,
    /// evaluated from the emitted `start`, `end` and `step`.
    fn for_open(
        h: &mut Self::H,
        p: &ForPlan,
        start: &str,
        end: &str,
        step: &str,
        i: &str,
    ) -> String;
    /// Forward loop: the head before the body.
    fn for_fwd_head(p: &ForPlan, i: &str) -> String;
    /// Forward loop: the advance after the body (`rem`: a fresh temporary).
    fn for_fwd_tail(p: &ForPlan, rem: &str, i: &str) -> String;
    /// Reverse loop: the head before the body (`last`: a fresh temporary for the last value).
    fn for_rev_head(p: &ForPlan, last: &str, i: &str) -> String;
    /// Reverse loop: the step back after the body (`rem`: a fresh temporary).
    fn for_rev_tail(p: &ForPlan, rem: &str, i: &str) -> String;

    /// `l[index] = value` of local array `array` of length `n`, bounds-checked.
    #[allow(clippy::too_many_arguments)]
    fn array_store(
        h: &mut Self::H,
        array: LocalId,
        n: u32,
        ti: &str,
        tv: &str,
        ix: &str,
        value: &str,
        i: &str,
    ) -> String;
    /// `l[index]` of local array `array` of length `n`, bounds-checked (`ix`: a `u64` index).
    fn array_load(h: &mut Self::H, array: LocalId, n: u32, ix: &str) -> String;
    /// The module-scope declaration of constant table `id` ([`names::table`]), newline-
    /// terminated, every element exactly (NaN payloads and signed zeros included).
    fn table_decl(h: &mut Self::H, id: u32, t: &ConstTable) -> R<String>;
    /// `table[index]` of constant table `id`, bounds-checked (`ix`: an index as [`Cx::index`]
    /// spells it), of the table's element type.
    fn table_load(h: &mut Self::H, id: u32, t: &ConstTable, ix: &str) -> String;

    /// Arithmetic `l op r` of type `t` (`r_lit`: the right operand when a literal).
    fn arith(
        cx: &Cx<'_, Self>,
        h: &mut Self::H,
        op: ArithOp,
        t: ScalarType,
        l: &str,
        r: &str,
        r_lit: Option<Value>,
    ) -> R<String>;
    /// Bitwise `l op r` (`lt`, `rt`: operand types; shifts may mix them).
    #[allow(clippy::too_many_arguments)]
    fn bitwise(
        cx: &Cx<'_, Self>,
        h: &mut Self::H,
        op: BitwiseOp,
        lt: ScalarType,
        rt: ScalarType,
        l: &str,
        r: &str,
    ) -> R<String>;
    /// Comparison `l op r` of type `t`.
    fn cmp(h: &mut Self::H, op: CmpOp, t: ScalarType, l: &str, r: &str) -> R<String>;
    /// `l && r` / `l || r` (both evaluated: IR operands have no effects).
    fn logic(op: LogicOp, l: &str, r: &str) -> String;
    /// `-a` of type `t`.
    fn neg(cx: &Cx<'_, Self>, h: &mut Self::H, t: ScalarType, a: &str) -> R<String>;
    /// `!a`: logical for `bool`, bitwise otherwise.
    fn not(t: ScalarType, a: &str) -> String;
    /// `a as to` from `from`, with Rust's semantics.
    fn cast(h: &mut Self::H, from: ScalarType, to: ScalarType, a: &str) -> R<String>;
    /// Math function `f` of arguments `xs` of types `tys`.
    fn math(
        cx: &Cx<'_, Self>,
        h: &mut Self::H,
        f: MathFn,
        tys: &[ScalarType],
        xs: &[String],
    ) -> R<String>;
    /// `view[index]`.
    fn load(cx: &Cx<'_, Self>, h: &mut Self::H, view: ViewRef, index: &[Expr]) -> R<String>;
    /// `view[index] = value` (a statement without indentation or `;`).
    fn store(
        cx: &Cx<'_, Self>,
        h: &mut Self::H,
        view: ViewRef,
        index: &[Expr],
        value: &Expr,
    ) -> R<String>;
    /// `view.extent(dim)`.
    fn extent(cx: &Cx<'_, Self>, view: ViewRef, dim: u32) -> R<String>;
    /// An atomic operation: the call, and whether it yields a value.
    fn atomic(cx: &Cx<'_, Self>, h: &mut Self::H, a: &AtomicAccess) -> R<(String, bool)>;
    /// A team construct (barrier, nested pattern, single, broadcast, scratch) at indentation `i`.
    fn team_stmt(cx: &Cx<'_, Self>, h: &mut Self::H, s: &Stmt, i: &str, out: &mut String) -> R<()>;
    /// `s`, the spelling of a literal of type `t` as the first operand of an operation whose
    /// other operands are literals too, in a form the target's compiler treats as a run-time
    /// value. The walk asks this only for such operations. The default is the literal itself;
    /// WGSL needs more: naga evaluates constant expressions when it creates the shader and
    /// refuses some that Rust computes (see the WGSL target).
    fn run_time_literal(_h: &mut Self::H, _t: ScalarType, s: String) -> String {
        s
    }
}

fn is_lit(e: &Expr) -> bool {
    matches!(e, Expr::Lit(_))
}

/// `s`, the spelling of operand `e` of type `t`: through [`Target::run_time_literal`] when `e`
/// is a literal (the caller knows every other operand is one too).
fn at_run_time<T: Target>(h: &mut T::H, e: &Expr, t: ScalarType, s: String) -> String {
    if is_lit(e) {
        T::run_time_literal(h, t, s)
    } else {
        s
    }
}

/// Four spaces per level.
pub fn ind(n: usize) -> String {
    "    ".repeat(n)
}

/// The declarations of `locals` at one level of indentation.
pub fn decls<T: Target>(locals: &[LocalDecl]) -> String {
    let mut s = String::new();
    for (i, d) in locals.iter().enumerate() {
        s.push_str(&format!("    {}\n", T::decl_local(i, d.ty, d.array_len)));
    }
    s
}

/// The kernel's constant tables (as [`names::table`]) and helper functions (as `ufN`), which
/// both the helper functions and the body read, so the emitters place this text before either.
pub fn emit_functions<T: Target>(k: &Kernel, h: &mut T::H, out: &mut String) -> R<()> {
    for (id, t) in k.tables.iter().enumerate() {
        out.push_str(&T::table_decl(h, id as u32, t)?);
    }
    for (n, f) in k.functions.iter().enumerate() {
        let cx = Cx::<T>::new(k, &f.locals);
        let params: Vec<(String, ScalarType)> = f
            .params
            .iter()
            .map(|p| (names::fn_param(p.0), f.locals[p.0 as usize].ty))
            .collect();
        out.push_str(&T::fn_head(&names::function(n), &params, f.ret));
        out.push_str(&decls::<T>(&f.locals));
        for p in &f.params {
            out.push_str(&format!(
                "    {} = {};\n",
                names::local(p.0),
                names::fn_param(p.0)
            ));
        }
        block(&cx, h, &f.body, 1, out)?;
        if !matches!(f.body.last(), Some(Stmt::Return(_))) {
            out.push_str(&format!("    return {};\n", T::lit(Value::zero(f.ret))));
        }
        out.push_str("}\n");
    }
    Ok(())
}

/// The kernel body as the target's body function. In a team kernel (`team` is its shape) the
/// locals are not declared here: the target keeps them where nested bodies reach them.
pub fn emit_work<T: Target>(
    k: &Kernel,
    team: Option<T::Team>,
    h: &mut T::H,
    out: &mut String,
) -> R<()> {
    emit_work_at::<T>(k, team, super::width::IndexWidth::W64, h, out)
}

/// [`emit_work`] for the variant `width`: [`super::width::IndexWidth::W32`] only for a kernel
/// whose [`super::width::plan`] accepted it.
pub fn emit_work_at<T: Target>(
    k: &Kernel,
    team: Option<T::Team>,
    width: super::width::IndexWidth,
    h: &mut T::H,
    out: &mut String,
) -> R<()> {
    let mut cx = Cx::<T>::new(k, &k.locals);
    cx.team = team;
    cx.narrow = width == super::width::IndexWidth::W32;
    out.push_str(&T::work_head(k, cx.narrow));
    if team.is_none() {
        let locals: Vec<LocalDecl> = k
            .locals
            .iter()
            .map(|d| LocalDecl {
                ty: cx.lower(d.ty),
                ..d.clone()
            })
            .collect();
        out.push_str(&decls::<T>(&locals));
    }
    block(&cx, h, &k.body, 1, out)?;
    out.push_str(&T::work_tail());
    Ok(())
}

/// Emits the statements of `b` at indentation `d`.
pub fn block<T: Target>(
    cx: &Cx<'_, T>,
    h: &mut T::H,
    b: &Block,
    d: usize,
    out: &mut String,
) -> R<()> {
    for s in b {
        stmt(cx, h, s, d, out)?;
    }
    Ok(())
}

fn is_negative(v: Value) -> bool {
    match v {
        Value::I32(x) => x < 0,
        Value::I64(x) => x < 0,
        _ => false,
    }
}

fn stmt<T: Target>(cx: &Cx<'_, T>, h: &mut T::H, s: &Stmt, d: usize, out: &mut String) -> R<()> {
    let i = ind(d);
    match s {
        Stmt::Let { local, init } => {
            if let Some(e) = init {
                out.push_str(&format!(
                    "{i}{} = {};\n",
                    names::local(local.0),
                    expr(cx, h, e)?
                ));
            }
        }
        Stmt::LetArray { local, init } => {
            let n = cx.array_len(*local);
            let l = names::local(local.0);
            let ty = cx.local_ty(*local);
            match init {
                ArrayInit::Fill(e) => {
                    let t = cx.tmp();
                    out.push_str(&format!("{i}{{ {}\n", T::let_tmp(&t, ty, &expr(cx, h, e)?)));
                    for j in 0..n {
                        out.push_str(&format!("{i}  {l}[{j}] = {t};\n"));
                    }
                    out.push_str(&format!("{i}}}\n"));
                }
                ArrayInit::Elems(es) => {
                    // Every element is evaluated first (left to right), then stored.
                    let ts: Vec<String> = es.iter().map(|_| cx.tmp()).collect();
                    out.push_str(&format!("{i}{{\n"));
                    for (t, e) in ts.iter().zip(es) {
                        out.push_str(&format!("{i}  {}\n", T::let_tmp(t, ty, &expr(cx, h, e)?)));
                    }
                    for (j, t) in ts.iter().enumerate() {
                        out.push_str(&format!("{i}  {l}[{j}] = {t};\n"));
                    }
                    out.push_str(&format!("{i}}}\n"));
                }
            }
        }
        Stmt::Assign { local, value } => {
            out.push_str(&format!(
                "{i}{} = {};\n",
                names::local(local.0),
                expr(cx, h, value)?
            ));
        }
        Stmt::ArrayStore {
            array,
            index,
            value,
        } => {
            let n = cx.array_len(*array);
            let (ti, tv) = (cx.tmp(), cx.tmp());
            let e = expr(cx, h, index)?;
            let ix = T::array_index(h, cx.narrow, cx.ty(index)?, &e);
            let v = expr(cx, h, value)?;
            out.push_str(&T::array_store(h, *array, n, &ti, &tv, &ix, &v, &i));
        }
        Stmt::AccStore { field, value } => {
            out.push_str(&format!(
                "{i}{} = {};\n",
                names::acc(names::acc_slot(cx.k, *field)),
                expr(cx, h, value)?
            ));
        }
        Stmt::Store { view, index, value } => {
            let call = T::store(cx, h, *view, index, value)?;
            out.push_str(&format!("{i}{call};\n"));
        }
        Stmt::Atomic(a) => {
            let (call, yields) = T::atomic(cx, h, a)?;
            if yields {
                out.push_str(&format!("{i}{};\n", T::discard(&call)));
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
            let unsigned32 = t.is_int() && t.bits() <= 32;
            let (s0, e0, st, c) = (cx.tmp(), cx.tmp(), cx.tmp(), cx.tmp());
            let step_t = cx.ty(step).unwrap_or(t);
            let literal = matches!(step, Expr::Lit(v) if v.to_bits() != 0 && !is_negative(*v));
            let raw = cx.tmp();
            let plan = ForPlan {
                t,
                step_t,
                unsigned32,
                s0,
                e0,
                st,
                c,
                raw,
                literal,
                narrowed: step_t == ScalarType::U64 && unsigned32,
                inclusive: *inclusive,
                reverse: *reverse,
                var: *var,
                run: if *inclusive { "<=" } else { "<" },
                more: if *inclusive { "<" } else { "<=" },
            };
            let (se, ee, ste) = (expr(cx, h, start)?, expr(cx, h, end)?, expr(cx, h, step)?);
            out.push_str(&T::for_open(h, &plan, &se, &ee, &ste, &i));
            if !reverse {
                out.push_str(&T::for_fwd_head(&plan, &i));
                block(cx, h, body, d + 2, out)?;
                let rem = cx.tmp();
                out.push_str(&T::for_fwd_tail(&plan, &rem, &i));
            } else {
                let last = cx.tmp();
                out.push_str(&T::for_rev_head(&plan, &last, &i));
                block(cx, h, body, d + 2, out)?;
                let rem = cx.tmp();
                out.push_str(&T::for_rev_tail(&plan, &rem, &i));
            }
        }
        Stmt::While { cond, body } => {
            out.push_str(&format!(
                "{i}{} {{\n{i}    if (!({})) {{ break; }}\n",
                T::loop_kw(),
                expr(cx, h, cond)?
            ));
            block(cx, h, body, d + 1, out)?;
            out.push_str(&format!("{i}}}\n"));
        }
        Stmt::Loop { body } => {
            out.push_str(&format!("{i}{} {{\n", T::loop_kw()));
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
        | Stmt::Scratch { .. } => T::team_stmt(cx, h, s, &i, out)?,
    }
    Ok(())
}

/// The name of a team query's variable.
pub fn team_query(q: TeamQuery) -> &'static str {
    match q {
        TeamQuery::LeagueRank => "t_lr",
        TeamQuery::LeagueSize => "t_ls",
        TeamQuery::TeamRank => "t_tr",
        TeamQuery::TeamSize => "t_ts",
        TeamQuery::VectorLength => "t_vl",
    }
}

/// The name of the scan body's `final` flag.
pub const IS_FINAL: &str = "rk_fin";

/// Emits an expression.
pub fn expr<T: Target>(cx: &Cx<'_, T>, h: &mut T::H, e: &Expr) -> R<String> {
    Ok(match e {
        Expr::Lit(v) => T::lit(lower_value(cx.narrow, *v)),
        Expr::Local(l) => names::local(l.0),
        Expr::Param(p) => T::param(p.0, cx.lower(cx.k.scalars[p.0 as usize].ty)),
        Expr::WorkIndex(k) => names::work(*k),
        Expr::AccRead(f) => names::acc(names::acc_slot(cx.k, *f)),
        Expr::Binary { op, lhs, rhs } => {
            let (lt, rt) = (cx.ty(lhs)?, cx.ty(rhs)?);
            let (mut l, r) = (expr(cx, h, lhs)?, expr(cx, h, rhs)?);
            if is_lit(rhs) {
                l = at_run_time::<T>(h, lhs, lt, l);
            }
            match op {
                BinaryOp::Arith(o) => {
                    let r_lit = match **rhs {
                        Expr::Lit(v) => Some(v),
                        _ => None,
                    };
                    T::arith(cx, h, *o, lt, &l, &r, r_lit)?
                }
                BinaryOp::Bitwise(o) => T::bitwise(cx, h, *o, lt, rt, &l, &r)?,
                BinaryOp::Cmp(o) => T::cmp(h, *o, lt, &l, &r)?,
                BinaryOp::Logic(o) => T::logic(*o, &l, &r),
            }
        }
        Expr::Unary { op, arg } => {
            let t = cx.ty(arg)?;
            let a = expr(cx, h, arg)?;
            let a = at_run_time::<T>(h, arg, t, a);
            match op {
                UnaryOp::Neg => T::neg(cx, h, t, &a)?,
                UnaryOp::Not => T::not(t, &a),
            }
        }
        Expr::Cast { ty, arg } => {
            let from = cx.ty(arg)?;
            let a = expr(cx, h, arg)?;
            let a = at_run_time::<T>(h, arg, from, a);
            T::cast(h, from, cx.lower(*ty), &a)?
        }
        Expr::Select {
            cond,
            on_true,
            on_false,
        } => {
            let f = expr(cx, h, on_false)?;
            let t = expr(cx, h, on_true)?;
            let c = expr(cx, h, cond)?;
            T::select(&c, &t, &f)
        }
        Expr::Math { func, args } => {
            if *func == MathFn::FromBits
                && cx.narrow
                && args[0].ty(cx.k, cx.locals) == Some(ScalarType::U64)
            {
                // The width plan keeps such a kernel 64-bit: a `u32` spelling of the `usize`
                // would reinterpret 32 bits as an `f32`.
                return Err(EmitError::Mismatch(
                    "`from_bits` of a usize in the 32-bit variant".into(),
                ));
            }
            let tys = args.iter().map(|a| cx.ty(a)).collect::<R<Vec<_>>>()?;
            let mut xs = args.iter().map(|a| expr(cx, h, a)).collect::<R<Vec<_>>>()?;
            if args[1..].iter().all(is_lit) {
                xs[0] = at_run_time::<T>(h, &args[0], tys[0], xs[0].clone());
            }
            T::math(cx, h, *func, &tys, &xs)?
        }
        Expr::Load { view, index } => T::load(cx, h, *view, index)?,
        Expr::Extent { view, dim } => T::extent(cx, *view, *dim)?,
        Expr::ArrayLoad { array, index } => {
            let n = cx.array_len(*array);
            let e = expr(cx, h, index)?;
            let ix = T::array_index(h, cx.narrow, cx.ty(index)?, &e);
            T::array_load(h, *array, n, &ix)
        }
        Expr::TableLoad { table, index } => {
            let t = cx.k.tables.get(table.0 as usize).ok_or_else(|| {
                EmitError::Mismatch(format!("unknown constant table {}", table.0))
            })?;
            let e = expr(cx, h, index)?;
            let ix = T::array_index(h, cx.narrow, cx.ty(index)?, &e);
            T::table_load(h, table.0, t, &ix)
        }
        Expr::Call { func, args } => {
            let xs = args.iter().map(|a| expr(cx, h, a)).collect::<R<Vec<_>>>()?;
            T::call_fn(func.0 as usize, &xs)
        }
        Expr::Team(q) => team_query(*q).to_string(),
        Expr::IsFinal => IS_FINAL.into(),
        Expr::Atomic(a) => T::atomic(cx, h, a)?.0,
    })
}

/// The index arguments of an access, as unsigned indices of the variant's width (left to right).
pub fn index_args<T: Target>(cx: &Cx<'_, T>, h: &mut T::H, index: &[Expr]) -> R<Vec<String>> {
    index
        .iter()
        .map(|e| Ok(cx.index(cx.ty(e)?, &expr(cx, h, e)?)))
        .collect()
}
