//! Team policies: one workgroup per team of `team × lanes` invocations (thread = local index /
//! lanes, lane = local index % lanes), the league looped over the dispatched workgroups. Nested
//! ranges, reductions, scans, `single`, broadcasts and scratch Views.
//!
//! Team-wide constructs (barriers, `Thread`/`TeamVector` reductions and scans, team `single`s with a
//! result, broadcasts) communicate through workgroup memory between `workgroupBarrier`s; the IR
//! validator guarantees they are reached by every thread in uniform control, and the generated code
//! never returns early around them. Vector constructs that must communicate (a `Vector` reduction or
//! scan, a thread `single` with a result) are run with virtual lanes: the launcher then gives each
//! thread one invocation ([`TeamShape::lanes`] false) and the vector range runs sequentially in it.

use super::walk::{block, expr, Cx, Wgsl};
use super::{lit, wty, EmitError, Helpers};
use rokkos_core::ir::{
    Expr, Kernel, LocalId, NestedKind, ReducerKind, ScalarType, ScratchId, ScratchScope,
    SingleKind, Stmt, Value,
};
use rokkos_device::emit::team::{self as team_rules, TeamOps};

type R<T> = Result<T, EmitError>;

pub use rokkos_device::emit::codes::{SCRATCH_CODE, SCRATCH_VIEW_CODE};

/// The shape of a team launch (part of the entry point, hence of the pipeline cache key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TeamShape {
    /// Threads per team.
    pub team: u32,
    /// Vector length reported to the kernel.
    pub vlen: u32,
    /// Whether lanes are invocations (`team * vlen` per workgroup) or virtual (`team`).
    pub lanes: bool,
    /// Per level: bytes of the team pool, then bytes of each thread's pool.
    pub pools: [(u32, u32); 2],
}

impl TeamShape {
    /// Physical lanes per thread.
    pub fn vphys(&self) -> u32 {
        if self.lanes {
            self.vlen
        } else {
            1
        }
    }
    /// Invocations per workgroup.
    pub fn wg(&self) -> u32 {
        self.team * self.vphys()
    }
    /// Bytes of one team's arena at `level`.
    pub fn arena(&self, level: usize) -> u64 {
        let (tp, q) = self.pools[level];
        tp as u64 + q as u64 * self.team as u64
    }
    /// Words of one team's arena at `level`.
    pub fn arena_words(&self, level: usize) -> u32 {
        self.arena(level).div_ceil(4) as u32
    }
}

pub use rokkos_device::emit::team::{needs_lane_comm, uses_level, uses_scratch};

/// Module-scope private variables of a team kernel: its locals and the team state, with the
/// index type of the variant (`u32` when `w32`).
pub(crate) fn private_decls(k: &Kernel, w32: bool) -> String {
    let mut s = String::new();
    let ix = ix_ty(w32);
    for (i, d) in k.locals.iter().enumerate() {
        let t = wty(rokkos_device::emit::walk::lower(w32, d.ty));
        match d.array_len {
            Some(n) => s.push_str(&format!("var<private> l{i}: array<{t}, {n}>;\n")),
            None => s.push_str(&format!("var<private> l{i}: {t};\n")),
        }
    }
    s.push_str(
        "var<private> rk_li: u32;\nvar<private> rk_lane: u32;\nvar<private> rk_l1base: u32;\n",
    );
    for l in 0..2 {
        s.push_str(&format!(
            "var<private> rk_tp{l}: {ix};\nvar<private> rk_hp{l}: {ix};\nvar<private> rk_he{l}: {ix};\n"
        ));
    }
    for (id, d) in k.scratch.iter().enumerate() {
        s.push_str(&format!("var<private> sc{id}_b: u32;\n"));
        for dd in 0..d.rank {
            s.push_str(&format!("var<private> sc{id}_e{dd}: {ix};\n"));
        }
    }
    s
}

/// The index type of the variant: `u32` in the 32-bit one (`w32`), else `u64`.
fn ix_ty(w32: bool) -> &'static str {
    if w32 {
        "u32"
    } else {
        "u64"
    }
}

/// The index literal `x` of the variant (`w32`: a `u32`).
fn ix_lit(x: u64, w32: bool) -> String {
    <Wgsl as TeamOps>::idx_lit(x, false, w32)
}

/// Workgroup exchange buffer of the storage class of `t`: (name, element, to word, from word).
fn wg_buf(t: ScalarType) -> (&'static str, &'static str, String, String) {
    match t {
        ScalarType::Bool => (
            "rk_w4",
            "u32",
            "select(0u, 1u, x)".into(),
            "(w != 0u)".into(),
        ),
        ScalarType::I32 | ScalarType::F32 | ScalarType::I8 | ScalarType::I16 => (
            "rk_w4",
            "u32",
            "bitcast<u32>(x)".into(),
            format!("bitcast<{}>(w)", wty(t)),
        ),
        ScalarType::U32 | ScalarType::U8 | ScalarType::U16 => {
            ("rk_w4", "u32", "x".into(), "w".into())
        }
        ScalarType::U64 => ("rk_w8", "u64", "x".into(), "w".into()),
        ScalarType::I64 | ScalarType::F64 => (
            "rk_w8",
            "u64",
            "bitcast<u64>(x)".into(),
            format!("bitcast<{}>(w)", wty(t)),
        ),
    }
}

/// Declares the exchange buffer of `t`'s class; returns the load/store helper names.
fn exchange(h: &mut Helpers, wg: u32, t: ScalarType) -> (String, String) {
    let (buf, el, to, from) = wg_buf(t);
    h.add(&format!("0_{buf}"), || {
        format!("var<workgroup> {buf}: array<{el}, {wg}>;\n")
    });
    let tn = wty(t);
    let ld = h.add(&format!("rk_xld_{tn}"), || {
        format!("fn rk_xld_{tn}(i: u32) -> {tn} {{ let w = {buf}[i]; return {from}; }}\n")
    });
    let st = h.add(&format!("rk_xst_{tn}"), || {
        format!("fn rk_xst_{tn}(i: u32, x: {tn}) {{ {buf}[i] = {to}; }}\n")
    });
    (ld, st)
}

/// `rk_tred_<t>_<r>(x)`: the join of every invocation's `x` (all invocations call it).
fn team_reduce_fn(h: &mut Helpers, wg: u32, t: ScalarType, r: ReducerKind) -> String {
    let (ld, st) = exchange(h, wg, t);
    let tn = wty(t);
    let name = format!("rk_tred_{tn}_{}", r.name());
    let p2 = wg.next_power_of_two();
    let join = super::entry::join_op(r, t, &format!("{ld}(rk_li)"), &format!("{ld}(rk_li + s)"));
    h.add(&name, || {
        format!(
            "fn {name}(x: {tn}) -> {tn} {{\n    workgroupBarrier();\n    {st}(rk_li, x);\n    workgroupBarrier();\n    for (var s = {h2}u; s > 0u; s = s >> 1u) {{\n        if (rk_li < s && rk_li + s < {wg}u) {{ {st}(rk_li, {join}); }}\n        workgroupBarrier();\n    }}\n    return {ld}(0u);\n}}\n",
            h2 = p2 / 2
        )
    })
}

/// `rk_tscan_<t>(x, k)`: the sum of the `x` of invocations below `k`; sets `rk_stot_<t>` to the sum
/// of all (all invocations call it).
fn team_scan_fn(h: &mut Helpers, wg: u32, t: ScalarType) -> String {
    let (ld, st) = exchange(h, wg, t);
    let tn = wty(t);
    let name = format!("rk_tscan_{tn}");
    let zero = lit(Value::zero(t));
    h.add(&format!("0_rk_stot_{tn}"), || {
        format!("var<private> rk_stot_{tn}: {tn};\n")
    });
    h.add(&name, || {
        format!(
            "fn {name}(x: {tn}, k: u32) -> {tn} {{\n    workgroupBarrier();\n    {st}(rk_li, x);\n    workgroupBarrier();\n    for (var off = 1u; off < {wg}u; off = off << 1u) {{\n        var t = {ld}(rk_li);\n        if (rk_li >= off) {{ t = {ld}(rk_li - off) + t; }}\n        workgroupBarrier();\n        {st}(rk_li, t);\n        workgroupBarrier();\n    }}\n    rk_stot_{tn} = {ld}({wg}u - 1u);\n    var ex = {zero};\n    if (k > 0u) {{ ex = {ld}(k - 1u); }}\n    return ex;\n}}\n"
        )
    })
}

/// `rk_bcast_<t>(x, src)`: invocation `src`'s `x` (all invocations call it).
fn bcast_fn(h: &mut Helpers, wg: u32, t: ScalarType) -> String {
    let (ld, st) = exchange(h, wg, t);
    let tn = wty(t);
    let name = format!("rk_bcast_{tn}");
    h.add(&name, || {
        format!(
            "fn {name}(x: {tn}, src: u32) -> {tn} {{\n    workgroupBarrier();\n    if (rk_li == src) {{ {st}(0u, x); }}\n    workgroupBarrier();\n    return {ld}(0u);\n}}\n"
        )
    })
}

/// Emits `body` as a function `fn rk_nbN()` (so that a `return` in it ends the body, as in the
/// reference evaluator); returns the call.
fn body_fn(cx: &Cx<'_>, h: &mut Helpers, body: &rokkos_core::ir::Block) -> R<String> {
    let mut out = String::new();
    block(cx, h, body, 1, &mut out)?;
    let n = h.next_id();
    let name = format!("rk_nb{n}");
    h.add(&name, || format!("fn {name}() {{\n{out}}}\n"));
    Ok(format!("{name}()"))
}

/// The index spelling of the shared team formulas (`rokkos_device::emit::team`): `u64`, or `u32`
/// in the 32-bit variant.
impl TeamOps for Wgsl {
    fn idx_lit(x: u64, hex: bool, narrow: bool) -> String {
        let suffix = if narrow { "u" } else { "lu" };
        if hex {
            format!("{x:#x}{suffix}")
        } else {
            format!("{x}{suffix}")
        }
    }
    fn select(c: &str, t: &str, f: &str) -> String {
        format!("select({f}, {t}, {c})")
    }
    fn min_idx(a: &str, b: &str, _narrow: bool) -> String {
        format!("min({a}, {b})")
    }
    fn widen(e: &str, narrow: bool) -> String {
        if narrow {
            e.to_string()
        } else {
            format!("u64({e})")
        }
    }
}

/// (participant index, participant count) of a nested range of `kind`, as index expressions
/// of the variant (the shared rule, `rokkos_device::emit::team::participants`).
fn participants(kind: NestedKind, sh: &TeamShape, w32: bool) -> (String, String) {
    team_rules::participants::<Wgsl>(kind, sh.team, sh.vphys(), sh.wg(), w32)
}

/// Emits a team construct (the statements `walk` hands over).
pub(crate) fn stmt(cx: &Cx<'_>, h: &mut Helpers, s: &Stmt, i: &str, out: &mut String) -> R<()> {
    let sh = cx
        .team
        .ok_or_else(|| EmitError::Mismatch("team construct outside a team kernel".into()))?;
    let wg = sh.wg();
    let vp = sh.vphys();
    let strided = |cx: &Cx<'_>,
                   h: &mut Helpers,
                   kind: NestedKind,
                   var: LocalId,
                   (start, end, inclusive): (&Expr, &Expr, bool),
                   call: &str|
     -> R<String> {
        let (p, c) = participants(kind, &sh, cx.narrow);
        let (s0, e0, j) = (cx.tmp(), cx.tmp(), cx.tmp());
        // An inclusive range stops past its last index without forming `end + 1`; a step that
        // wraps past `u64::MAX` lands below the start and stops too.
        let past = if inclusive { ">" } else { ">=" };
        Ok(format!(
            "{i}{{ let {s0} = {}; let {e0} = {}; var {j} = {s0} + {p};\n{i}  loop {{ if ({j} {past} {e0} || {j} < {s0}) {{ break; }} l{} = {j}; {call}; {j} = {j} + {c}; }} }}\n",
            expr(cx, h, start)?,
            expr(cx, h, end)?,
            var.0
        ))
    };
    match s {
        Stmt::Barrier => out.push_str(&format!("{i}storageBarrier();\n{i}workgroupBarrier();\n")),
        Stmt::NestedFor {
            kind,
            var,
            start,
            end,
            inclusive,
            body,
        } => {
            let call = body_fn(cx, h, body)?;
            out.push_str(&strided(
                cx,
                h,
                *kind,
                *var,
                (start, end, *inclusive),
                &call,
            )?);
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
            let t = cx.local_ty(*acc);
            let id = reducer
                .identity(t)
                .ok_or_else(|| EmitError::Mismatch(format!("reducer {} on {t}", reducer.name())))?;
            let call = body_fn(cx, h, body)?;
            out.push_str(&format!("{i}l{} = {};\n", acc.0, lit(id)));
            out.push_str(&strided(
                cx,
                h,
                *kind,
                *var,
                (start, end, *inclusive),
                &call,
            )?);
            match kind {
                NestedKind::Vector if vp > 1 => {
                    return Err(EmitError::Mismatch(
                        "a vector reduction with physical lanes".into(),
                    ))
                }
                NestedKind::Vector => {
                    out.push_str(&format!("{i}l{} = l{};\n", result.0, acc.0));
                }
                NestedKind::Thread | NestedKind::TeamVector => {
                    let f = team_reduce_fn(h, wg, t, *reducer);
                    let mine = if *kind == NestedKind::Thread && vp > 1 {
                        format!("select({}, l{}, rk_lane == 0u)", lit(id), acc.0)
                    } else {
                        format!("l{}", acc.0)
                    };
                    out.push_str(&format!("{i}l{} = {f}({mine});\n", result.0));
                }
            }
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
            let t = cx.local_ty(*partial);
            let zero = lit(Value::zero(t));
            let call = body_fn(cx, h, body)?;
            let (p, c) = participants(*kind, &sh, cx.narrow);
            if *kind == NestedKind::Vector && vp > 1 {
                return Err(EmitError::Mismatch(
                    "a vector scan with physical lanes".into(),
                ));
            }
            // Contiguous chunks per participant, so that one sequential pass per chunk follows
            // the index order. Chunks are offsets from the start up to the last offset `lo`, and
            // each pass counts its indices, so that neither form computes `end + 1`.
            let (s0, e0, ne, lo, ch, off, n, j, k) = (
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
                cx.tmp(),
            );
            let (pr, fl) = (partial.0, is_final.0);
            let (zero_i, one) = (ix_lit(0, cx.narrow), ix_lit(1, cx.narrow));
            let pass = format!(
                "{i}  {{ var {j} = {s0} + {off}; var {k} = {zero_i}; loop {{ if ({k} >= {n}) {{ break; }} l{} = {j}; {call}; {j} = {j} + {one}; {k} = {k} + {one}; }} }}\n",
                var.0
            );
            let names = team_rules::Chunk {
                s0: &s0,
                e0: &e0,
                ne: &ne,
                lo: &lo,
                ch: &ch,
                off: &off,
                n: &n,
            };
            let (se, ee) = (expr(cx, h, start)?, expr(cx, h, end)?);
            let lines =
                team_rules::scan_chunks::<Wgsl>(&names, &se, &ee, *inclusive, &p, &c, cx.narrow);
            out.push_str(&team_rules::render_bindings(&lines, i, |n, _, v| {
                format!("let {n} = {v};")
            }));
            let parts = match kind {
                NestedKind::Vector => 1,
                NestedKind::Thread => sh.team,
                NestedKind::TeamVector => wg,
            };
            if parts == 1 {
                out.push_str(&format!(
                    "{i}  l{pr} = {zero}; l{fl} = true;\n{pass}{i}  l{} = l{pr};\n",
                    total.0
                ));
            } else {
                let f = team_scan_fn(h, wg, t);
                let (mine, k) = if *kind == NestedKind::Thread && vp > 1 {
                    (
                        format!("select({zero}, l{pr}, rk_lane == 0u)"),
                        "rk_li - rk_lane".to_string(),
                    )
                } else {
                    (format!("l{pr}"), "rk_li".to_string())
                };
                let ex = cx.tmp();
                out.push_str(&format!(
                    "{i}  l{pr} = {zero}; l{fl} = false;\n{pass}{i}  let {ex} = {f}({mine}, {k});\n{i}  l{pr} = {ex}; l{fl} = true;\n{pass}{i}  l{} = rk_stot_{};\n",
                    total.0,
                    wty(t)
                ));
            }
            out.push_str(&format!("{i}}}\n"));
        }
        Stmt::Single { kind, body, result } => {
            let call = body_fn(cx, h, body)?;
            match kind {
                SingleKind::Team => {
                    out.push_str(&format!("{i}if (rk_li == 0u) {{ {call}; }}\n"));
                    if let Some(r) = result {
                        let f = bcast_fn(h, wg, cx.local_ty(*r));
                        out.push_str(&format!("{i}l{0} = {f}(l{0}, 0u);\n", r.0));
                    }
                }
                SingleKind::Thread => {
                    if result.is_some() && vp > 1 {
                        return Err(EmitError::Mismatch(
                            "a thread single with a result and physical lanes".into(),
                        ));
                    }
                    out.push_str(&format!("{i}if (rk_lane == 0u) {{ {call}; }}\n"));
                }
            }
        }
        Stmt::Broadcast { local, value, src } => {
            let t = cx.local_ty(*local);
            let f = bcast_fn(h, wg, t);
            let (v, sr) = (cx.tmp(), cx.tmp());
            let team = ix_lit(sh.team as u64, cx.narrow);
            // A source outside the team yields the caller's own value (as the evaluator does).
            out.push_str(&format!(
                "{i}{{ let {v} = {}; let {sr} = {};\n{i}  let b = {f}({v}, u32(min({sr}, {team})) * {vp}u);\n{i}  l{} = select({v}, b, {sr} < {team}); }}\n",
                expr(cx, h, value)?,
                cx.index(cx.ty(src)?, &expr(cx, h, src)?),
                local.0,
            ));
        }
        Stmt::Scratch { id, extents } => scratch_alloc(cx, h, &sh, *id, extents, i, out)?,
        _ => unreachable!("not a team construct"),
    }
    Ok(())
}

fn scratch_alloc(
    cx: &Cx<'_>,
    h: &mut Helpers,
    sh: &TeamShape,
    id: ScratchId,
    extents: &[Expr],
    i: &str,
    out: &mut String,
) -> R<()> {
    let d = &cx.k.scratch[id.0 as usize];
    let level = d.level.min(1) as usize;
    let size = d.elem.size() as u64;
    if d.elem == ScalarType::Bool {
        return Err(EmitError::Unsupported("bool scratch Views".into()));
    }
    let w32 = cx.narrow;
    let il = |x: u64| ix_lit(x, w32);
    let (ptr, end) = match d.scope {
        ScratchScope::Team => (format!("rk_tp{level}"), il(sh.pools[level].0 as u64)),
        ScratchScope::Thread => (format!("rk_hp{level}"), format!("rk_he{level}")),
    };
    let scope = (d.scope == ScratchScope::Thread) as u32;
    let code = SCRATCH_CODE + 2 * level as u32 + scope;
    let base = if level == 0 { "0u" } else { "rk_l1base" };
    let es: Vec<String> = extents
        .iter()
        .map(|e| Ok(cx.index(cx.ty(e)?, &expr(cx, h, e)?)))
        .collect::<R<_>>()?;
    let n = cx.tmp();
    out.push_str(&format!("{i}{{\n"));
    // The element count saturates instead of wrapping (`team_rules::saturating_count`; in the
    // 32-bit variant with a flag, `team_rules::saturating_count32`).
    out.push_str(&format!("{i}  var {n}p = {};\n", il(1)));
    if w32 {
        out.push_str(&format!("{i}  var {n}h = false;\n"));
    }
    for (k, e) in es.iter().enumerate() {
        out.push_str(&format!("{i}  let {n}e{k} = {e};\n"));
        if w32 {
            let (p, sat) = team_rules::saturating_count32::<Wgsl>(
                &format!("{n}p"),
                &format!("{n}h"),
                &format!("{n}e{k}"),
            );
            out.push_str(&format!(
                "{i}  {{ let {n}q = {p}; {n}h = {sat}; {n}p = {n}q; }}\n"
            ));
        } else {
            let next = team_rules::saturating_count::<Wgsl>(&format!("{n}p"), &format!("{n}e{k}"));
            out.push_str(&format!("{i}  {n}p = {next};\n"));
        }
    }
    // The count and the end are compared without wrapping against pools below 2^32.
    let id = id.0;
    let start = team_rules::aligned8::<Wgsl>(&ptr, w32);
    let fits = team_rules::scratch_fits::<Wgsl>(&n, &format!("{n}s"), size, &end, w32);
    out.push_str(&format!(
        "{i}  let {n} = {n}p;\n{i}  let {n}s = {start};\n{i}  let {n}ok = {fits};\n"
    ));
    let rank = es.len();
    let mut set_e = String::new();
    let mut zero_e = String::new();
    for k in 0..rank {
        set_e.push_str(&format!(" sc{id}_e{k} = {n}e{k};"));
        zero_e.push_str(&format!(" sc{id}_e{k} = {};", il(0)));
    }
    let cap = if scope == 0 {
        sh.pools[level].0
    } else {
        sh.pools[level].1
    };
    // The record holds the 64-bit count in both variants (the same error message).
    let record = if w32 {
        let (lo, hi) = team_rules::count64_words::<Wgsl>(&n, &format!("{n}h"));
        format!("rk_oob_w(0u, {lo}, {hi}); rk_oob_w(1u, {size}u, 0u); rk_oob_w(2u, {cap}u, 0u);")
    } else {
        format!("rk_oob_idx(0u, {n}); rk_oob_idx(1u, {size}lu); rk_oob_idx(2u, {cap}lu);")
    };
    out.push_str(&format!(
        "{i}  if ({n}ok) {{ {ptr} = {n}s + {n} * {}; sc{id}_b = {base} + u32({n}s / {});{set_e} }}\n{i}  else {{{zero_e}\n{i}    if (rk_oob_begin({code}u, 3u)) {{ {record} }} }}\n{i}}}\n",
        il(size),
        il(4)
    ));
    let _ = h;
    Ok(())
}

/// (offset helper name) of scratch View `id`: checks the index, returns the word address or
/// `0xffffffffu` after recording the violation.
fn scratch_off(cx: &Cx<'_>, h: &mut Helpers, id: u32) -> String {
    let d = &cx.k.scratch[id as usize];
    let rank = d.rank as usize;
    let words = (d.elem.size() / 4).max(1);
    let name = format!("rk_soff{id}");
    let (w32, ix) = (h.w32, super::memory::index_ty(h));
    h.add(&name, || {
        let params: Vec<String> = (0..rank).map(|k| format!("i{k}: {ix}")).collect();
        let mut cond: Vec<String> = (0..rank).map(|k| format!("i{k} >= sc{id}_e{k}")).collect();
        if cond.is_empty() {
            cond.push("false".into());
        }
        let rec: String = (0..rank)
            .map(|k| {
                if w32 {
                    format!(" rk_oob_w({k}u, i{k}, 0u);")
                } else {
                    format!(" rk_oob_idx({k}u, i{k});")
                }
            })
            .collect();
        // LayoutRight: the last index is contiguous.
        let mut off = ix_lit(0, w32);
        for k in 0..rank {
            off = format!("({off}) * sc{id}_e{k} + i{k}");
        }
        format!(
            "fn {name}({}) -> u32 {{\n    if ({}) {{\n        if (rk_oob_begin({}u, {rank}u)) {{{rec} }}\n        return 0xffffffffu;\n    }}\n    return sc{id}_b + u32({off}) * {words}u;\n}}\n",
            params.join(", "),
            cond.join(" || "),
            SCRATCH_VIEW_CODE + id
        )
    });
    name
}

fn arena(cx: &Cx<'_>, id: u32) -> &'static str {
    if cx.k.scratch[id as usize].level == 0 {
        "rk_s0"
    } else {
        "scr1"
    }
}

/// `scratch[index]`.
pub(crate) fn load(cx: &Cx<'_>, h: &mut Helpers, id: ScratchId, index: &[Expr]) -> R<String> {
    refuse_packed(cx, id)?;
    let args = super::memory::index_args(cx, h, index)?;
    let off = scratch_off(cx, h, id.0);
    let t = cx.k.scratch[id.0 as usize].elem;
    let a = arena(cx, id.0);
    let name = format!("rk_sld{}", id.0);
    let ix = super::memory::index_ty(h);
    let rank = index.len();
    h.add(&name, || {
        let params: Vec<String> = (0..rank).map(|k| format!("i{k}: {ix}")).collect();
        let call: Vec<String> = (0..rank).map(|k| format!("i{k}")).collect();
        let read = match t {
            ScalarType::U32 => format!("{a}[o]"),
            ScalarType::I32 | ScalarType::F32 => format!("bitcast<{}>({a}[o])", wty(t)),
            ScalarType::U64 => format!("u64({a}[o]) | (u64({a}[o + 1u]) << 32u)"),
            _ => format!(
                "bitcast<{}>(u64({a}[o]) | (u64({a}[o + 1u]) << 32u))",
                wty(t)
            ),
        };
        format!(
            "fn {name}({}) -> {tn} {{\n    let o = {off}({});\n    if (o == 0xffffffffu) {{ return {zero}; }}\n    return {read};\n}}\n",
            params.join(", "),
            call.join(", "),
            tn = wty(t),
            zero = lit(Value::zero(t)),
        )
    });
    Ok(format!("{name}({})", args.join(", ")))
}

/// `scratch[index] = value` (a call statement).
pub(crate) fn store(
    cx: &Cx<'_>,
    h: &mut Helpers,
    id: ScratchId,
    index: &[Expr],
    value: &Expr,
) -> R<String> {
    refuse_packed(cx, id)?;
    let mut args = super::memory::index_args(cx, h, index)?;
    args.push(expr(cx, h, value)?);
    let off = scratch_off(cx, h, id.0);
    let t = cx.k.scratch[id.0 as usize].elem;
    let a = arena(cx, id.0);
    let name = format!("rk_sst{}", id.0);
    let ix = super::memory::index_ty(h);
    let rank = index.len();
    h.add(&name, || {
        let mut params: Vec<String> = (0..rank).map(|k| format!("i{k}: {ix}")).collect();
        params.push(format!("x: {}", wty(t)));
        let call: Vec<String> = (0..rank).map(|k| format!("i{k}")).collect();
        let write = match t {
            ScalarType::U32 => format!("{a}[o] = x;"),
            ScalarType::I32 | ScalarType::F32 => format!("{a}[o] = bitcast<u32>(x);"),
            ScalarType::U64 => format!(
                "{a}[o] = u32(x & 0xfffffffflu); {a}[o + 1u] = u32(x >> 32u);"
            ),
            _ => format!(
                "let b = bitcast<u64>(x); {a}[o] = u32(b & 0xfffffffflu); {a}[o + 1u] = u32(b >> 32u);"
            ),
        };
        format!(
            "fn {name}({}) {{\n    let o = {off}({});\n    if (o != 0xffffffffu) {{ {write} }}\n}}\n",
            params.join(", "),
            call.join(", "),
        )
    });
    Ok(format!("{name}({})", args.join(", ")))
}

/// `scratch.extent(dim)`.
pub(crate) fn extent(cx: &Cx<'_>, id: ScratchId, dim: u32) -> String {
    if dim < cx.k.scratch[id.0 as usize].rank {
        format!("sc{}_e{dim}", id.0)
    } else {
        ix_lit(0, cx.narrow)
    }
}

/// How a team reduction's accumulators leave the workgroup.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TeamReduce<'a> {
    /// Joined in a workgroup tree by these joins into partial `g` (the league strided over the
    /// workgroups).
    Tree(&'a [rokkos_core::reducer::JoinKind]),
    /// The ordered-partials mode (`rokkos_device::runtime::ordered`): workgroup `g` runs league
    /// block `g` of `P.parts` (`block_bounds(P.league, P.parts, g)`, in order), and invocation
    /// `li` stores its accumulators as partial `g * wg + li`, unjoined.
    Ordered,
}

/// The module-scope arrays and the entry point of a team kernel.
/// `w32`: the 32-bit variant, whose team queries and pool positions are `u32`.
///
/// With `stop` (`super::entry::Stop`) the league loop leaves once the launch has recorded a
/// failure. The test must be workgroup-uniform (the loop holds barriers), so invocation 0 reads
/// the error word as a team starts and publishes it in workgroup memory as the team ends, and
/// every invocation reads it back with `workgroupUniformLoad` after the team's barrier. The
/// two words alternate between teams: the word written for team `k + 2` is written after
/// the barrier ending team `k + 1`, which every invocation reaches only after reading it for
/// team `k`. A workgroup that starts after the failure leaves before its first team.
pub(crate) fn entry(
    k: &Kernel,
    sh: &TeamShape,
    reduce: Option<TeamReduce<'_>>,
    w32: bool,
    stop: super::entry::Stop,
) -> R<String> {
    let il = |x: u64| ix_lit(x, w32);
    let widen = |e: &str| <Wgsl as TeamOps>::widen(e, w32);
    let wg = sh.wg();
    let vp = sh.vphys();
    let fields = k.acc_fields();
    let p2 = wg.next_power_of_two();
    let mut s = String::new();
    let w0 = sh.arena_words(0);
    if w0 > 0 || uses_level(k, 0) {
        s.push_str(&format!(
            "var<workgroup> rk_s0: array<u32, {}>;\n",
            w0.max(1)
        ));
    }
    if let Some(TeamReduce::Tree(_)) = reduce {
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "var<workgroup> sh{i}: array<{}, {p2}>;\n",
                super::entry::sh_elem(*t)
            ));
        }
    }
    s.push_str(&format!(
        "@compute @workgroup_size({wg})\nfn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{\n    let g = wid.x + wid.y * nw.x;\n    let ng = nw.x * nw.y;\n    rk_li = li; rk_lane = li % {vp}u;\n    t_tr = {}; t_ts = P.tsize; t_vl = P.vlen; t_ls = P.league;\n    rk_l1base = g * {}u;\n    rk_fin = false;\n",
        widen(&format!("li / {vp}u")),
        sh.arena_words(1)
    ));
    if reduce.is_some() {
        for (i, (_, t)) in fields.iter().enumerate() {
            let init = if *t == ScalarType::Bool {
                format!("(P.init{i} != 0u)")
            } else {
                format!("P.init{i}")
            };
            s.push_str(&format!("    a{i} = {init};\n"));
        }
    }
    let mut reset = String::new();
    for l in 0..2 {
        let (tp, q) = sh.pools[l];
        reset.push_str(&format!(
            "        rk_tp{l} = {}; rk_hp{l} = {} + t_tr * {}; rk_he{l} = rk_hp{l} + {};\n",
            il(0),
            il(tp as u64),
            il(q as u64),
            il(q as u64)
        ));
    }
    let gw = widen("g");
    if stop.0 {
        s = format!("var<workgroup> rk_stop: array<u32, 2>;\n{s}");
    }
    // The league loop's trip: the team, its barrier, and with `stop` the uniform test.
    let (seen, publish, test, first) = if stop.0 {
        (
            "        var rk_seen = 0u;\n        if (li == 0u) { rk_seen = select(0u, 1u, rk_stopped()); }\n",
            "        if (li == 0u) { rk_stop[rk_par] = rk_seen; }\n",
            "        if (workgroupUniformLoad(&rk_stop[rk_par]) != 0u) { break; }\n        rk_par = 1u - rk_par;\n",
            "    var rk_par = 0u;\n    if (li == 0u) { rk_stop[1] = select(0u, 1u, rk_stopped()); }\n    let rk_late = workgroupUniformLoad(&rk_stop[1]) != 0u;\n",
        )
    } else {
        ("", "", "", "    let rk_late = false;\n")
    };
    s.push_str(first);
    if let Some(TeamReduce::Ordered) = reduce {
        // League block `g` (`rokkos_device::runtime::ordered::block_bounds`); the arithmetic stays
        // below the league size. Every bound is workgroup-uniform, so the barriers are too.
        s.push_str(&format!(
            "    var lr = {z};\n    var lr_end = {z};\n    if ({gw} < P.parts && !rk_late) {{\n        let base = P.league / P.parts;\n        let rem = P.league % P.parts;\n        lr = {gw} * base + select(rem, {gw}, {gw} < rem);\n        lr_end = lr + base;\n        if ({gw} < rem) {{ lr_end = lr_end + {one}; }}\n    }}\n    loop {{\n        if (lr >= lr_end) {{ break; }}\n{seen}        t_lr = lr;\n{reset}        rk_work();\n{publish}        storageBarrier();\n        workgroupBarrier();\n{test}        lr = lr + {one};\n    }}\n    if ({gw} < P.parts) {{\n",
            z = il(0),
            one = il(1),
        ));
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "        out{i}[g * {wg}u + li] = {};\n",
                super::entry::to_storage(*t, &format!("a{i}"))
            ));
        }
        s.push_str("    }\n}\n");
        return Ok(s);
    }
    s.push_str(&format!(
        "    var lr = select({gw}, P.league, rk_late);\n    loop {{\n        if (lr >= P.league) {{ break; }}\n{seen}        t_lr = lr;\n{reset}        rk_work();\n{publish}        storageBarrier();\n        workgroupBarrier();\n{test}        lr = lr + {};\n    }}\n",
        widen("ng")
    ));
    if let Some(TeamReduce::Tree(joins)) = reduce {
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&super::entry::sh_store(i, *t));
        }
        s.push_str(&format!(
            "    workgroupBarrier();\n    for (var st = {}u; st > 0u; st = st >> 1u) {{\n        if (li < st && li + st < {wg}u) {{\n{}        }}\n        workgroupBarrier();\n    }}\n    if (li == 0u) {{\n",
            p2 / 2,
            super::entry::tree_join(k, joins, "li", "li + st")
        ));
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "        out{i}[g] = {};\n",
                super::entry::sh_result(i, *t)
            ));
        }
        s.push_str("    }\n");
    }
    s.push_str("}\n");
    Ok(s)
}

/// Scratch of `u8` / `u16` elements: its words would be shared by threads that store neighbouring
/// elements, and workgroup memory has no atomic store path here (see `emit::packed`).
fn refuse_packed(cx: &Cx<'_>, id: ScratchId) -> R<()> {
    let t = cx.k.scratch[id.0 as usize].elem;
    if super::packed::is_packed(t) {
        return Err(EmitError::Unsupported(format!(
            "team scratch of {t} elements on wgpu (pack them into u32 scratch)"
        )));
    }
    Ok(())
}
