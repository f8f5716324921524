//! WGSL as a target of the shared walk (`rokkos_device::emit::walk`): the spelling of statements
//! and loops here, each operator family in its module.

use super::{arith, atomic, bitwise, cast, cmp, logic, math, memory, wty, EmitError, Helpers};
use rokkos_core::ir::{
    ArithOp, AtomicAccess, BitwiseOp, CmpOp, ConstTable, Expr, Kernel, LocalId, LogicOp, MathFn,
    ScalarType, Stmt, Value, ViewRef, WorkKind,
};
use rokkos_device::emit::walk::{self as shared, ForPlan, Target};
use rokkos_device::emit::{codes, names};

type R<T> = Result<T, EmitError>;

/// The WGSL target.
pub(crate) struct Wgsl;

/// What the walk knows while emitting one WGSL body.
pub(crate) type Cx<'a> = shared::Cx<'a, Wgsl>;

/// Emits an expression.
pub(crate) fn expr(cx: &Cx<'_>, h: &mut Helpers, e: &Expr) -> R<String> {
    shared::expr(cx, h, e)
}

/// Emits the statements of `b` at indentation `d`.
pub(crate) fn block(
    cx: &Cx<'_>,
    h: &mut Helpers,
    b: &rokkos_core::ir::Block,
    d: usize,
    out: &mut String,
) -> R<()> {
    shared::block(cx, h, b, d, out)
}

/// Module-scope private variables: work index, accumulator fields, the scan flag, team queries.
pub(crate) fn private_decls(k: &Kernel, w32: bool) -> String {
    let mut s = String::new();
    let ity = if w32 { "u32" } else { "u64" };
    for i in 0..k.work.index_rank() {
        s.push_str(&format!("var<private> w{i}: {ity};\n"));
    }
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        s.push_str(&format!("var<private> a{i}: {};\n", wty(*t)));
    }
    s.push_str("var<private> rk_fin: bool;\n");
    if k.work == WorkKind::Team {
        for q in ["t_lr", "t_ls", "t_tr", "t_ts", "t_vl"] {
            s.push_str(&format!("var<private> {q}: {ity};\n"));
        }
    }
    s
}

/// The kernel's helper functions, as `fn ufN`.
pub(crate) fn emit_functions(k: &Kernel, h: &mut Helpers, out: &mut String) -> R<()> {
    shared::emit_functions::<Wgsl>(k, h, out)
}

/// The kernel body as `fn rk_work()`. In a team kernel (`team` is its shape) the locals are
/// module-scope private variables, so that nested bodies can be functions of their own.
pub(crate) fn emit_work(
    k: &Kernel,
    team: Option<super::team::TeamShape>,
    width: rokkos_device::emit::width::IndexWidth,
    h: &mut Helpers,
    out: &mut String,
) -> R<()> {
    shared::emit_work_at::<Wgsl>(k, team, width, h, out)
}

impl Target for Wgsl {
    type H = Helpers;
    type Team = super::team::TeamShape;

    fn lit(v: Value) -> String {
        super::lit(v)
    }
    /// Through an identity function: naga evaluates an operation on constants when it creates
    /// the shader and refuses some that Rust computes (`abs` of an f64, casts of 64-bit integers,
    /// `log2(0.0)`, shifts whose result overflows, a float result that is infinite or NaN); a
    /// function's result is a run-time value to naga, and the driver inlines the call. Only
    /// operations on literals alone come here, so nothing in a hot loop costs more.
    fn run_time_literal(h: &mut Helpers, t: ScalarType, s: String) -> String {
        let tn = wty(t);
        let f = h.add(&format!("rk_rt_{tn}"), || {
            format!("fn rk_rt_{tn}(x: {tn}) -> {tn} {{ return x; }}\n")
        });
        format!("{f}({s})")
    }
    fn decl_local(i: usize, ty: ScalarType, len: Option<u32>) -> String {
        match len {
            Some(n) => format!("var l{i}: array<{}, {n}>;", wty(ty)),
            None => format!("var l{i}: {};", wty(ty)),
        }
    }
    fn let_tmp(name: &str, _ty: ScalarType, value: &str) -> String {
        format!("let {name} = {value};")
    }
    fn fn_head(name: &str, params: &[(String, ScalarType)], ret: ScalarType) -> String {
        let ps: Vec<String> = params
            .iter()
            .map(|(p, t)| format!("{p}: {}", wty(*t)))
            .collect();
        format!("fn {name}({}) -> {} {{\n", ps.join(", "), wty(ret))
    }
    fn work_head(_k: &Kernel, _narrow: bool) -> String {
        "fn rk_work() {\n".into()
    }
    fn loop_kw() -> &'static str {
        "loop"
    }
    fn discard(call: &str) -> String {
        format!("_ = {call}")
    }
    fn to_u64(t: ScalarType, e: &str) -> String {
        memory::to_u64(t, e)
    }
    fn to_u32(t: ScalarType, e: &str) -> String {
        memory::to_u32(t, e)
    }
    fn array_index(h: &Helpers, _narrow: bool, t: ScalarType, e: &str) -> String {
        // The access helpers take the kernel's width (`rk_aix` is `u32` in a 32-bit kernel),
        // also in its helper functions, whose own values are full width.
        if h.w32 {
            memory::to_u32_index(t, e)
        } else {
            memory::to_u64(t, e)
        }
    }
    fn select(c: &str, t: &str, f: &str) -> String {
        format!("select({f}, {t}, {c})")
    }
    fn param(p: u32, ty: ScalarType) -> String {
        if ty == ScalarType::Bool {
            format!("(P.s{p} != 0u)")
        } else {
            format!("P.s{p}")
        }
    }

    fn for_open(
        h: &mut Helpers,
        p: &ForPlan,
        start: &str,
        end: &str,
        step: &str,
        i: &str,
    ) -> String {
        let ut = ut(p);
        let (raw, z) = (&p.raw, super::lit(Value::zero(p.step_t)));
        let stv = if p.narrowed {
            format!("u32(min({raw}, 4294967295lu))")
        } else {
            format!("{ut}({raw})")
        };
        let mut s = format!(
            "{i}{{ let {} = {start}; let {} = {end}; let {raw} = {step}; let {} = {stv};\n",
            p.s0, p.e0, p.st
        );
        if !p.literal {
            // The step's bits as Rust's `as u64` gives them (sign-extended), in two words.
            let words = match p.step_t {
                ScalarType::I32 | ScalarType::I8 | ScalarType::I16 => {
                    format!("bitcast<u32>({raw}), select(0u, 0xffffffffu, {raw} < 0i)")
                }
                ScalarType::U32 | ScalarType::U8 | ScalarType::U16 => format!("u32({raw}), 0u"),
                ScalarType::I64 => format!(
                    "u32(bitcast<u64>({raw}) & 0xfffffffflu), u32(bitcast<u64>({raw}) >> 32u)"
                ),
                _ => format!("u32({raw} & 0xfffffffflu), u32({raw} >> 32u)"),
            };
            let _ = h;
            s.push_str(&format!(
                "{i}  if (!({raw} > {z})) {{ if (rk_oob_begin({}u, 1u)) {{ rk_oob_w(0u, {words}); }} }}\n",
                codes::STEP_CODE
            ));
        }
        s
    }
    fn for_fwd_head(p: &ForPlan, i: &str) -> String {
        let z = super::lit(Value::zero(p.step_t));
        format!(
            "{i}  if ({} {} {} && {} > {z}) {{ var {} = {};\n{i}  loop {{\n{i}    l{} = {};\n",
            p.s0, p.run, p.e0, p.raw, p.c, p.s0, p.var.0, p.c
        )
    }
    fn for_fwd_tail(p: &ForPlan, rem: &str, i: &str) -> String {
        let (st, c) = (&p.st, &p.c);
        let stop = if p.narrowed {
            format!("{} || {rem} {} {st}", huge(p), p.more)
        } else {
            format!("{rem} {} {st}", p.more)
        };
        format!(
            "{i}    continuing {{ let {rem} = {}; {c} = {c} + {}({st}); break if {stop}; }}\n{i}  }} }}\n{i}}}\n",
            ud(p, &p.e0, c),
            wty(p.t)
        )
    }
    fn for_rev_head(p: &ForPlan, last: &str, i: &str) -> String {
        // The last value of the forward sequence: `start + (span / step) * step`, where `span`
        // is the distance to the last value in the range (`end - 1` when half-open).
        let (s0, e0, st) = (&p.s0, &p.e0, &p.st);
        let span = if p.inclusive {
            ud(p, e0, s0)
        } else {
            format!(
                "({} - {})",
                ud(p, e0, s0),
                if p.unsigned32 { "1u" } else { "1lu" }
            )
        };
        let from = format!("{s0} + {}({span} / {st} * {st})", wty(p.t));
        let from = if p.narrowed {
            format!("select({from}, {s0}, {})", huge(p))
        } else {
            from
        };
        let z = super::lit(Value::zero(p.step_t));
        format!(
            "{i}  if ({s0} {} {e0} && {} > {z}) {{ let {last} = {from}; var {} = {last};\n{i}  loop {{\n{i}    l{} = {};\n",
            p.run, p.raw, p.c, p.var.0, p.c
        )
    }
    fn for_rev_tail(p: &ForPlan, rem: &str, i: &str) -> String {
        let (st, c) = (&p.st, &p.c);
        format!(
            "{i}    continuing {{ let {rem} = {}; {c} = {c} - {}({st}); break if {rem} < {st}; }}\n{i}  }} }}\n{i}}}\n",
            ud(p, c, &p.s0),
            wty(p.t)
        )
    }

    fn array_store(
        h: &mut Helpers,
        array: LocalId,
        n: u32,
        ti: &str,
        tv: &str,
        ix: &str,
        value: &str,
        i: &str,
    ) -> String {
        format!(
            "{i}{{ let {ti} = {ix}; let {tv} = {value};\n{i}  if (rk_aok({ti}, {n}{}, {}u)) {{ l{}[u32({ti})] = {tv}; }} }}\n",
            if h.w32 { "u" } else { "lu" },
            codes::ARRAY_CODE + array.0,
            array.0
        )
    }
    fn array_load(h: &mut Helpers, array: LocalId, n: u32, ix: &str) -> String {
        format!(
            "l{}[rk_aix({ix}, {n}{}, {}u)]",
            array.0,
            if h.w32 { "u" } else { "lu" },
            codes::ARRAY_CODE + array.0
        )
    }
    fn table_decl(h: &mut Helpers, id: u32, t: &ConstTable) -> R<String> {
        // naga evaluates a module-scope constant when it creates the shader and refuses
        // non-finite floats there: f32 tables hold their bits, f64 tables their values when all
        // are finite and their bits (64-bit integers) otherwise, i64 tables their bits.
        let (ty, values): (&str, Vec<String>) = match table_storage(h, t)? {
            Storage::Bits32 => (
                "u32",
                t.values
                    .iter()
                    .map(|v| format!("{}u", v.to_bits()))
                    .collect(),
            ),
            Storage::Bits64 => (
                "u64",
                t.values
                    .iter()
                    .map(|v| format!("{}lu", v.to_bits()))
                    .collect(),
            ),
            Storage::Values => (wty(t.ty), t.values.iter().map(|&v| super::lit(v)).collect()),
        };
        Ok(format!(
            "const {} = array<{ty}, {}>({});\n",
            names::table(id),
            values.len(),
            values.join(", ")
        ))
    }
    fn table_load(h: &mut Helpers, id: u32, t: &ConstTable, ix: &str) -> String {
        let at = format!(
            "{}[rk_aix({ix}, {}{}, {}u)]",
            names::table(id),
            t.values.len(),
            if h.w32 { "u" } else { "lu" },
            codes::TABLE_CODE + id
        );
        match table_storage(h, t) {
            Ok(Storage::Bits32) | Ok(Storage::Bits64) => format!("bitcast<{}>({at})", wty(t.ty)),
            _ => at,
        }
    }

    fn arith(
        cx: &Cx<'_>,
        h: &mut Helpers,
        op: ArithOp,
        t: ScalarType,
        l: &str,
        r: &str,
        r_lit: Option<Value>,
    ) -> R<String> {
        Ok(arith::binary(h, op, t, l, r, cx.k.overflow_checks, r_lit))
    }
    fn bitwise(
        cx: &Cx<'_>,
        h: &mut Helpers,
        op: BitwiseOp,
        lt: ScalarType,
        rt: ScalarType,
        l: &str,
        r: &str,
    ) -> R<String> {
        Ok(bitwise::binary(h, op, lt, rt, l, r, cx.k.overflow_checks))
    }
    fn cmp(_h: &mut Helpers, op: CmpOp, t: ScalarType, l: &str, r: &str) -> R<String> {
        Ok(cmp::binary(op, t, l, r))
    }
    fn logic(op: LogicOp, l: &str, r: &str) -> String {
        logic::binary(op, l, r)
    }
    fn neg(cx: &Cx<'_>, h: &mut Helpers, t: ScalarType, a: &str) -> R<String> {
        Ok(arith::neg(h, t, a, cx.k.overflow_checks))
    }
    fn not(t: ScalarType, a: &str) -> String {
        if t == ScalarType::Bool {
            logic::not(a)
        } else {
            bitwise::not(t, a)
        }
    }
    fn cast(h: &mut Helpers, from: ScalarType, to: ScalarType, a: &str) -> R<String> {
        cast::cast(h, from, to, a)
    }
    fn math(
        cx: &Cx<'_>,
        h: &mut Helpers,
        f: MathFn,
        tys: &[ScalarType],
        xs: &[String],
    ) -> R<String> {
        math::call(h, f, tys, xs, cx.k.overflow_checks)
    }
    fn load(cx: &Cx<'_>, h: &mut Helpers, view: ViewRef, index: &[Expr]) -> R<String> {
        memory::load(cx, h, view, index)
    }
    fn store(
        cx: &Cx<'_>,
        h: &mut Helpers,
        view: ViewRef,
        index: &[Expr],
        value: &Expr,
    ) -> R<String> {
        memory::store(cx, h, view, index, value)
    }
    fn extent(cx: &Cx<'_>, view: ViewRef, dim: u32) -> R<String> {
        memory::extent(cx, view, dim)
    }
    fn atomic(cx: &Cx<'_>, h: &mut Helpers, a: &AtomicAccess) -> R<(String, bool)> {
        atomic::call(cx, h, a)
    }
    fn team_stmt(cx: &Cx<'_>, h: &mut Helpers, s: &Stmt, i: &str, out: &mut String) -> R<()> {
        super::team::stmt(cx, h, s, i, out)
    }
}

/// The unsigned type of the counter's width.
fn ut(p: &ForPlan) -> &'static str {
    if p.unsigned32 {
        "u32"
    } else {
        "u64"
    }
}

/// Whether a `u64` step held clamped in a 32-bit counter's type is beyond any distance.
fn huge(p: &ForPlan) -> String {
    format!("{} > 4294967295lu", p.raw)
}

/// `a - b` in the unsigned type of the counter's width: exact for `a >= b`.
fn ud(p: &ForPlan, a: &str, b: &str) -> String {
    let ut = ut(p);
    format!("({ut}({a}) - {ut}({b}))")
}

/// How a constant table is spelled in WGSL.
enum Storage {
    /// Its values, as literals.
    Values,
    /// f32 values as their `u32` bits.
    Bits32,
    /// i64 values, or f64 values of a table holding a non-finite one, as their `u64` bits.
    Bits64,
}

fn table_storage(h: &Helpers, t: &ConstTable) -> R<Storage> {
    Ok(match t.ty {
        ScalarType::F32 => Storage::Bits32,
        // naga's constant evaluation cannot spell `i64::MIN` (`-9223372036854775807li - 1li`).
        ScalarType::I64 => Storage::Bits64,
        ScalarType::F64
            if t.values
                .iter()
                .all(|v| matches!(v, Value::F64(x) if x.is_finite())) =>
        {
            Storage::Values
        }
        ScalarType::F64 if h.int64 => Storage::Bits64,
        ScalarType::F64 => {
            return Err(EmitError::Unsupported(format!(
                "constant table `{}` holds a non-finite f64, which WGSL spells only through \
                 64-bit integers (SHADER_INT64), which this device lacks",
                t.name
            )))
        }
        _ => Storage::Values,
    })
}
