//! CUDA C as a target of the shared walk (`rokkos_device::emit::walk`): the spelling of
//! statements, loops and View accesses. The body is a device function `rk_work` taking the
//! parameter block and the work index by value; every helper that can fail takes the parameter
//! block (it holds the error record). Loops are `do { .. } while` so that a `continue` of the body
//! reaches the advance, as WGSL's `continuing` block does.

use super::{ops, Helpers};
use rokkos_core::ir::{
    ArithOp, AtomicAccess, BitwiseOp, CmpOp, ConstTable, Expr, Kernel, LocalId, LogicOp, MathFn,
    ScalarType, Stmt, Value, ViewRef,
};
use rokkos_device::emit::index::{self, Spelling};
use rokkos_device::emit::walk::{self as shared, Cx, ForPlan, Target};
use rokkos_device::emit::{codes, names, EmitError};

type R<T> = Result<T, EmitError>;

/// The CUDA C target.
pub(crate) struct CudaC;

/// C type name of `t` (the prelude's typedefs carry the IR's names).
pub(crate) fn cty(t: ScalarType) -> &'static str {
    t.name()
}

fn ut(p: &ForPlan) -> &'static str {
    if p.unsigned32 {
        "u32"
    } else {
        "u64"
    }
}

/// `a - b` in the unsigned type of the counter's width: exact for `a >= b`.
fn ud(p: &ForPlan, a: &str, b: &str) -> String {
    let u = ut(p);
    format!("(({u}){a} - ({u}){b})")
}

fn huge(p: &ForPlan) -> String {
    format!("{} > 4294967295ull", p.raw)
}

fn field(n: &str) -> String {
    format!("P.{n}")
}

impl Target for CudaC {
    type H = Helpers;
    type Team = super::team::Dims;

    fn lit(v: Value) -> String {
        ops::lit(v)
    }
    fn decl_local(i: usize, ty: ScalarType, len: Option<u32>) -> String {
        // Zero-initialised, as WGSL's `var` (the IR never reads a local before writing it).
        match len {
            Some(n) => format!("{} l{i}[{n}] = {{}};", cty(ty)),
            None => format!("{} l{i} = {};", cty(ty), ops::lit(Value::zero(ty))),
        }
    }
    fn let_tmp(name: &str, ty: ScalarType, value: &str) -> String {
        format!("const {} {name} = {value};", cty(ty))
    }
    fn fn_head(name: &str, params: &[(String, ScalarType)], ret: ScalarType) -> String {
        let mut ps = vec!["const rk_P& P".to_string()];
        ps.extend(params.iter().map(|(p, t)| format!("{} {p}", cty(*t))));
        format!(
            "__device__ __forceinline__ {} {name}({}) {{\n",
            cty(ret),
            ps.join(", ")
        )
    }
    fn work_head(k: &Kernel, narrow: bool) -> String {
        format!(
            "__device__ __forceinline__ void rk_work({}) {{\n",
            work_params(k, narrow).join(", ")
        )
    }
    fn call_fn(n: usize, args: &[String]) -> String {
        let mut a = vec!["P".to_string()];
        a.extend(args.iter().cloned());
        format!("{}({})", names::function(n), a.join(", "))
    }
    fn loop_kw() -> &'static str {
        "for (;;)"
    }
    fn discard(call: &str) -> String {
        format!("(void)({call})")
    }
    fn to_u64(t: ScalarType, e: &str) -> String {
        match t {
            ScalarType::U64 => e.to_string(),
            // A negative signed index becomes huge (modulo 2^64), and fails the bounds check.
            _ => format!("((u64)({e}))"),
        }
    }
    fn to_u32(t: ScalarType, e: &str) -> String {
        match t {
            ScalarType::U32 => e.to_string(),
            // The plan admits only unsigned indices of at most 32 bits here (`u8`, `u16`).
            _ => format!("((u32)({e}))"),
        }
    }
    fn select(c: &str, t: &str, f: &str) -> String {
        format!("rk_sel({c}, {t}, {f})")
    }
    fn param(p: u32, ty: ScalarType) -> String {
        if ty == ScalarType::Bool {
            format!("(P.s{p} != 0u)")
        } else {
            format!("P.s{p}")
        }
    }

    fn for_open(
        _h: &mut Helpers,
        p: &ForPlan,
        start: &str,
        end: &str,
        step: &str,
        i: &str,
    ) -> String {
        let (raw, z) = (&p.raw, ops::lit(Value::zero(p.step_t)));
        let u = ut(p);
        let stv = if p.narrowed {
            format!("(u32)({raw} < 4294967295ull ? {raw} : 4294967295ull)")
        } else {
            format!("({u}){raw}")
        };
        let t = cty(p.t);
        let mut s = format!(
            "{i}{{ const {t} {} = {start}; const {t} {} = {end}; const {} {raw} = {step}; const {u} {} = {stv};\n",
            p.s0,
            p.e0,
            cty(p.step_t),
            p.st
        );
        if !p.literal {
            // The step's bits (sign-extended) go into the record: the message prints it.
            s.push_str(&format!(
                "{i}  if (!({raw} > {z})) {{ if (rk_oob_begin(P, {}u, 1u)) {{ rk_oob_idx(P, 0u, (u64){raw}); }} }}\n",
                codes::STEP_CODE
            ));
        }
        s
    }
    fn for_fwd_head(p: &ForPlan, i: &str) -> String {
        let z = ops::lit(Value::zero(p.step_t));
        format!(
            "{i}  if ({s0} {run} {e0} && {raw} > {z}) {{ {t} {c} = {s0};\n{i}  do {{\n{i}    l{v} = {c};\n",
            s0 = p.s0,
            run = p.run,
            e0 = p.e0,
            raw = p.raw,
            t = cty(p.t),
            c = p.c,
            v = p.var.0
        )
    }
    fn for_fwd_tail(p: &ForPlan, _rem: &str, i: &str) -> String {
        // Stops (before advancing) once fewer than `step` values remain after the counter, so
        // the counter never passes the end; a `continue` of the body comes here too.
        let rem = ud(p, &p.e0, &p.c);
        let stop = if p.narrowed {
            format!("{} || {rem} {} {}", huge(p), p.more, p.st)
        } else {
            format!("{rem} {} {}", p.more, p.st)
        };
        format!(
            "{i}  }} while (!({stop}) && ({c} = ({t})(({u}){c} + {st}), true)); }}\n{i}}}\n",
            c = p.c,
            t = cty(p.t),
            u = ut(p),
            st = p.st
        )
    }
    fn for_rev_head(p: &ForPlan, last: &str, i: &str) -> String {
        let (s0, e0, st) = (&p.s0, &p.e0, &p.st);
        let u = ut(p);
        let span = if p.inclusive {
            ud(p, e0, s0)
        } else {
            format!("({} - ({u})1)", ud(p, e0, s0))
        };
        let t = cty(p.t);
        let mut from = format!("({t})(({u}){s0} + {span} / {st} * {st})");
        if p.narrowed {
            from = format!("({} ? {s0} : {from})", huge(p));
        }
        let z = ops::lit(Value::zero(p.step_t));
        format!(
            "{i}  if ({s0} {} {e0} && {} > {z}) {{ const {t} {last} = {from}; {t} {} = {last};\n{i}  do {{\n{i}    l{} = {};\n",
            p.run, p.raw, p.c, p.var.0, p.c
        )
    }
    fn for_rev_tail(p: &ForPlan, _rem: &str, i: &str) -> String {
        let rem = ud(p, &p.c, &p.s0);
        format!(
            "{i}  }} while (!({rem} < {st}) && ({c} = ({t})(({u}){c} - {st}), true)); }}\n{i}}}\n",
            c = p.c,
            t = cty(p.t),
            u = ut(p),
            st = p.st
        )
    }

    fn array_store(
        _h: &mut Helpers,
        array: LocalId,
        n: u32,
        ti: &str,
        tv: &str,
        ix: &str,
        value: &str,
        i: &str,
    ) -> String {
        format!(
            "{i}{{ const u64 {ti} = {ix}; const auto {tv} = {value};\n{i}  if (rk_aok(P, {ti}, {n}ull, {}u)) {{ l{}[{ti}] = {tv}; }} }}\n",
            codes::ARRAY_CODE + array.0,
            array.0
        )
    }
    fn array_load(_h: &mut Helpers, array: LocalId, n: u32, ix: &str) -> String {
        format!(
            "l{}[rk_aix(P, {ix}, {n}ull, {}u)]",
            array.0,
            codes::ARRAY_CODE + array.0
        )
    }
    fn table_decl(_h: &mut Helpers, id: u32, t: &ConstTable) -> R<String> {
        // Floats as their bits, so that every value (NaN payloads too) is a plain integer
        // constant that a `__device__` initializer may hold. Global memory through the caches,
        // not `__constant__`: the work items of a warp read different elements (a table indexed
        // by data), which constant memory serializes.
        let (ty, values): (&str, Vec<String>) = match t.ty {
            ScalarType::F32 => (
                "u32",
                t.values
                    .iter()
                    .map(|v| format!("{}u", v.to_bits()))
                    .collect(),
            ),
            ScalarType::F64 => (
                "u64",
                t.values
                    .iter()
                    .map(|v| format!("{}ull", v.to_bits()))
                    .collect(),
            ),
            ty => (cty(ty), t.values.iter().map(|&v| ops::lit(v)).collect()),
        };
        Ok(format!(
            "__device__ const {ty} {}[{}] = {{{}}};\n",
            names::table(id),
            values.len(),
            values.join(", ")
        ))
    }
    fn table_load(_h: &mut Helpers, id: u32, t: &ConstTable, ix: &str) -> String {
        let at = format!(
            "{}[rk_aix(P, {ix}, {}ull, {}u)]",
            names::table(id),
            t.values.len(),
            codes::TABLE_CODE + id
        );
        match t.ty {
            ScalarType::F32 => format!("__uint_as_float({at})"),
            ScalarType::F64 => format!("__longlong_as_double((long long){at})"),
            _ => at,
        }
    }

    fn arith(
        cx: &Cx<'_, Self>,
        h: &mut Helpers,
        op: ArithOp,
        t: ScalarType,
        l: &str,
        r: &str,
        r_lit: Option<Value>,
    ) -> R<String> {
        Ok(ops::arith(h, op, t, l, r, cx.k.overflow_checks, r_lit))
    }
    fn bitwise(
        cx: &Cx<'_, Self>,
        h: &mut Helpers,
        op: BitwiseOp,
        lt: ScalarType,
        rt: ScalarType,
        l: &str,
        r: &str,
    ) -> R<String> {
        Ok(ops::bitwise(h, op, lt, rt, l, r, cx.k.overflow_checks))
    }
    fn cmp(_h: &mut Helpers, op: CmpOp, t: ScalarType, l: &str, r: &str) -> R<String> {
        Ok(ops::cmp(op, t, l, r))
    }
    fn logic(op: LogicOp, l: &str, r: &str) -> String {
        ops::logic(op, l, r)
    }
    fn neg(cx: &Cx<'_, Self>, h: &mut Helpers, t: ScalarType, a: &str) -> R<String> {
        Ok(ops::neg(h, t, a, cx.k.overflow_checks))
    }
    fn not(t: ScalarType, a: &str) -> String {
        if t == ScalarType::Bool {
            format!("(!({a}))")
        } else {
            ops::complement(t, a)
        }
    }
    fn cast(h: &mut Helpers, from: ScalarType, to: ScalarType, a: &str) -> R<String> {
        ops::cast(h, from, to, a)
    }
    fn math(
        cx: &Cx<'_, Self>,
        h: &mut Helpers,
        f: MathFn,
        tys: &[ScalarType],
        xs: &[String],
    ) -> R<String> {
        ops::math(h, f, tys, xs, cx.k.overflow_checks)
    }
    fn load(cx: &Cx<'_, Self>, h: &mut Helpers, view: ViewRef, index: &[Expr]) -> R<String> {
        if let ViewRef::Scratch(id) = view {
            return super::team::load(cx, h, id, index);
        }
        if let Some(r) = proven_access(cx, h, view, index)? {
            return Ok(r);
        }
        let k = param_id(view)?;
        let args = shared::index_args(cx, h, index)?;
        let name = accessor(cx, h, k, false);
        Ok(format!("{name}(P, {})", args.join(", ")))
    }
    fn store(
        cx: &Cx<'_, Self>,
        h: &mut Helpers,
        view: ViewRef,
        index: &[Expr],
        value: &Expr,
    ) -> R<String> {
        if let ViewRef::Scratch(id) = view {
            return super::team::store(cx, h, id, index, value);
        }
        if let Some(r) = proven_access(cx, h, view, index)? {
            return Ok(format!("{r} = {}", shared::expr(cx, h, value)?));
        }
        let k = param_id(view)?;
        let mut args = shared::index_args(cx, h, index)?;
        args.push(shared::expr(cx, h, value)?);
        let name = accessor(cx, h, k, true);
        Ok(format!("{name}(P, {})", args.join(", ")))
    }
    fn extent(cx: &Cx<'_, Self>, view: ViewRef, dim: u32) -> R<String> {
        if let ViewRef::Scratch(id) = view {
            return Ok(super::team::extent(cx, id, dim));
        }
        let k = param_id(view)?;
        Ok(if dim < cx.k.views[k].rank {
            format!("P.{}", names::extent(k, dim as usize))
        } else {
            ops::lit(shared::lower_value(cx.narrow, Value::U64(0)))
        })
    }
    fn atomic(cx: &Cx<'_, Self>, h: &mut Helpers, a: &AtomicAccess) -> R<(String, bool)> {
        let k = param_id(a.view)?;
        let mut args = shared::index_args(cx, h, &a.index)?;
        for e in &a.args {
            args.push(shared::expr(cx, h, e)?);
        }
        let name = super::atomic::helper(cx.k, h, k, a.op, a.result);
        Ok((
            format!("{name}(P, {})", args.join(", ")),
            a.op.yields_value(),
        ))
    }
    fn team_stmt(cx: &Cx<'_, Self>, h: &mut Helpers, s: &Stmt, i: &str, out: &mut String) -> R<()> {
        super::team::stmt(cx, h, s, i, out)
    }
}

/// The C type of an index (work index, View index, offset) in the 32-bit variant (`narrow`) or
/// the 64-bit one.
pub(crate) fn ix(narrow: bool) -> &'static str {
    if narrow {
        "u32"
    } else {
        "u64"
    }
}

/// The parameters of `rk_work`: the block, the work index (of the variant's width), the
/// accumulators by reference.
pub(crate) fn work_params(k: &Kernel, narrow: bool) -> Vec<String> {
    let mut v = vec!["const rk_P& P".to_string()];
    for d in 0..k.work.index_rank() {
        v.push(format!("const {} {}", ix(narrow), names::work(d)));
    }
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        v.push(format!("{}& {}", cty(*t), names::acc(i)));
    }
    if k.is_scan {
        v.push(format!("const bool {}", shared::IS_FINAL));
    }
    v
}

fn param_id(v: ViewRef) -> R<usize> {
    match v {
        ViewRef::Param(p) => Ok(p.0 as usize),
        ViewRef::Scratch(_) => Err(EmitError::Unsupported(
            "atomic operations on scratch Views in CUDA kernels".into(),
        )),
    }
}

/// `P.vk[off + Σ idx_d · s_d]` for an access the launcher proved in bounds
/// ([`super::CudaOptions::in_bounds`]), else `None` (the checked accessor).
fn proven_access(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    view: ViewRef,
    index: &[Expr],
) -> R<Option<String>> {
    let (ViewRef::Param(p), Some(idx)) = (view, h.proven.index_of(view, index)) else {
        return Ok(None);
    };
    let args = shared::index_args(cx, h, &idx)?;
    let sp = Spelling {
        field: &field,
        narrow: None,
    };
    Ok(Some(format!(
        "P.{}[{}]",
        names::view(p.0 as usize),
        index::offset_at(p.0 as usize, &args, &sp)
    )))
}

/// The bounds-checked load (or store, when `store`) helper of View `k`: every index against its
/// extent, a violation recorded with the View's position as the code and the access skipped
/// (a load yields 0). Without bounds checks ([`super::CudaOptions::bounds_checks`] off) the helper
/// only computes the offset.
fn accessor(cx: &Cx<'_, CudaC>, h: &mut Helpers, k: usize, store: bool) -> String {
    let v = &cx.k.views[k];
    let (rank, t) = (v.rank as usize, v.elem);
    let name = format!("rk_{}{k}", if store { "st" } else { "ld" });
    let (checks, it) = (h.bounds_checks, ix(h.narrow));
    h.add(&name, || {
        let mut params: Vec<String> = vec!["const rk_P& P".into()];
        params.extend((0..rank).map(|d| format!("{it} i{d}")));
        if store {
            params.push(format!("{} x", cty(t)));
        }
        let ret_fail = if store {
            String::new()
        } else {
            format!(" {}", ops::lit(Value::zero(t)))
        };
        let (check, at) = checked_element(k, rank, checks, &ret_fail);
        let (ret, body) = if store {
            ("void".to_string(), format!("{at} = x;"))
        } else {
            (cty(t).to_string(), format!("return {at};"))
        };
        format!(
            "__device__ __forceinline__ {ret} {name}({}) {{\n{check}    {body}\n}}\n",
            params.join(", ")
        )
    })
}

/// The bounds check of View `k`'s index variables `i0, i1, ..` (a violation recorded with the
/// View's position as the code, then `return{ret_fail};`), empty without `checks`, and the element
/// `P.vk[offset]` they address: the shared index arithmetic, spelled in C. In the 32-bit variant
/// the indices and the parameter block's offset, extents and strides are `u32`, so the sum is
/// 32-bit arithmetic; the launch facts (`rokkos_device::emit::width`) make it exact for every
/// in-bounds index.
pub(crate) fn checked_element(
    k: usize,
    rank: usize,
    checks: bool,
    ret_fail: &str,
) -> (String, String) {
    let sp = Spelling {
        field: &field,
        narrow: None,
    };
    let oob = index::oob_conditions(k, rank, &sp);
    let rec: String = (0..rank)
        .map(|d| format!(" rk_oob_idx(P, {d}u, i{d});"))
        .collect();
    let check = if checks && !oob.is_empty() {
        format!(
            "    if ({}) {{\n        if (rk_oob_begin(P, {k}u, {rank}u)) {{{rec} }}\n        return{ret_fail};\n    }}\n",
            oob.join(" || ")
        )
    } else {
        String::new()
    };
    let at = format!("P.{}[{}]", names::view(k), index::offset_sum(k, rank, &sp));
    (check, at)
}
