//! Team policies in CUDA C: one block per team in flight, the thread's vector lanes on `x` and the
//! team's threads on `y` (`blockDim = (lanes, team)`), the league strided over the grid. The
//! invocation index `li = threadIdx.y * lanes + threadIdx.x` is the one the WGSL target uses, so
//! both targets join and scan in the same order.
//!
//! Team-wide constructs (barriers, `Thread` / `TeamVector` reductions and scans, team `single`s
//! with a result, broadcasts) communicate through the block's shared exchange buffer `rk_x`
//! between `__syncthreads()`; the IR validator guarantees that every thread of the team reaches
//! them in uniform control, and the generated code never returns early around them. Vector
//! constructs that communicate (a `Vector` reduction or scan, a thread `single` with a result) use
//! warp shuffles among the thread's lanes when the vector length is a power of two up to 32 (the
//! lanes of a thread are then one aligned segment of a warp); otherwise, and whenever the lanes
//! of a thread are not independent ([`rokkos_core::ir::valid::lanes_independent`]), the lanes are
//! virtual, as on WGSL: the block is then `(1, team)` and each vector range runs in order in its
//! thread.
//!
//! Nested bodies are C++ lambdas (`[&]`) declared where they are used, so that a `return` in one
//! ends that body only, as in the evaluator, and the body reaches the work function's locals.
//!
//! Scratch: level 0 lives in the block's dynamic shared memory `rk_dyn`, level 1 in the device
//! pool `P.scr1`, one slot of `P.l1s` bytes per block. Each level's arena holds the team pool
//! (`P.tpL` bytes) followed by one pool of `P.tqL` bytes per thread; allocations are 8-byte
//! aligned, and one past its pool records `KernelFailed` (the evaluator's words) and leaves the
//! View empty, so that every access to it is an out-of-bounds access recorded and skipped.

use super::ops::lit;
use super::target::{cty, ix, CudaC};
use super::Helpers;
use rokkos_core::ir::valid::KernelInfo;
use rokkos_core::ir::{
    Block, Expr, Kernel, LocalId, NestedKind, ReducerKind, ScalarType, ScratchId, ScratchScope,
    SingleKind, Stmt, Value,
};
use rokkos_core::reducer::JoinKind;
use rokkos_device::emit::codes::{SCRATCH_CODE, SCRATCH_VIEW_CODE};
use rokkos_device::emit::team::{self as team_rules, TeamOps};
use rokkos_device::emit::walk::{block, expr, Cx};
use rokkos_device::emit::{names, EmitError};

type R<T> = Result<T, EmitError>;

/// The team launch a module is emitted for (part of [`super::CudaOptions`], hence of the module
/// cache key): the policy's team size and vector length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TeamShape {
    /// Threads per team.
    pub team: u32,
    /// Vector length reported to the kernel (`team.vector_length()`).
    pub vlen: u32,
}

/// What a launcher must know of an emitted team kernel, besides the parameter block.
///
/// The launch: grid `(g, 1, 1)` with `1 <= g` (teams beyond `g` loop over the blocks; a
/// reduction writes one partial per block, so `g` is also `P.nparts` of its second pass
/// [`super::reduce::FINAL`], launched as one block of [`super::CudaOptions::block`] threads, as
/// for range reductions), block
/// [`TeamLaunch::block`], dynamic shared memory [`TeamLaunch::dynamic_shared_bytes`] (raise the
/// function's `MAX_DYNAMIC_SHARED_SIZE_BYTES` above 48 KiB when needed; the total with
/// [`TeamLaunch::static_shared_bytes`] must fit the device's per-block limit, or the launch is
/// `Err(InvalidPolicy)`). Parameter block fields of a team kernel (see `params`): `league`, then
/// per scratch level `L` the team pool `tpL` and each thread's pool `tqL` in bytes (from
/// [`rokkos_device::emit::team::pool_split`]), `l1s` (bytes of one block's level-1 slot, a multiple
/// of 8) and `scr1` (the level-1 pool: `g * l1s` bytes, 8-byte aligned; may be null when
/// [`TeamLaunch::level1`] is false).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TeamLaunch {
    /// `blockDim`: `(lanes, team, 1)`; lanes are the vector length, or 1 with virtual lanes.
    pub block: (u32, u32),
    /// Bytes of shared memory the module declares statically (the exchange buffer and the
    /// reduction tree).
    pub static_shared_bytes: u32,
    /// Whether the kernel allocates level-1 scratch (it needs `P.scr1`).
    pub level1: bool,
    /// Whether the kernel allocates level-0 scratch (it needs dynamic shared memory).
    pub level0: bool,
}

impl TeamLaunch {
    /// Bytes of dynamic shared memory for level-0 pools of `tp0` bytes for the team and `tq0`
    /// for each of `team` threads (8-byte aligned); `None` past 32 bits.
    pub fn dynamic_shared_bytes(tp0: u64, tq0: u64, team: u64) -> Option<u32> {
        let n = tq0.checked_mul(team)?.checked_add(tp0)?.checked_add(7)? / 8 * 8;
        u32::try_from(n).ok()
    }
    /// Bytes of one block's level-1 slot (`P.l1s`) for pools `tp1`, `tq1`.
    pub fn level1_slot_bytes(tp1: u64, tq1: u64, team: u64) -> Option<u64> {
        Some(tq1.checked_mul(team)?.checked_add(tp1)?.checked_add(7)? / 8 * 8)
    }
}

/// The team shape as the walk sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dims {
    /// Threads per team.
    pub team: u32,
    /// The vector length the kernel reports.
    pub vlen: u32,
    /// Physical lanes per thread (`vlen`, or 1 with virtual lanes).
    pub vp: u32,
}

impl Dims {
    /// Threads per block.
    pub fn wg(&self) -> u32 {
        self.team * self.vp
    }
}

/// Checks `shape` against CUDA's block limit and decides the lanes.
pub(crate) fn dims(k: &Kernel, info: &KernelInfo, shape: TeamShape) -> R<Dims> {
    let shuffles = shape.vlen.is_power_of_two() && shape.vlen <= 32;
    let lanes =
        info.lanes_independent && (shuffles || !rokkos_device::emit::team::lanes_communicate(k));
    let vp = if lanes { shape.vlen } else { 1 };
    match shape.team.checked_mul(vp) {
        Some(n) if (1..=1024).contains(&n) && shape.vlen >= 1 => Ok(Dims {
            team: shape.team,
            vlen: shape.vlen,
            vp,
        }),
        _ => Err(EmitError::Unsupported(format!(
            "a team of {} threads x {vp} lanes on CUDA (1 to 1024 threads per block)",
            shape.team
        ))),
    }
}

/// The exchange buffer (one 8-byte word per thread of the block) and the dynamic arena.
fn exchange(h: &mut Helpers, d: &Dims) -> &'static str {
    let wg = d.wg();
    h.add("0_rk_x", || format!("__shared__ u64 rk_x[{wg}];\n"));
    "rk_x"
}

/// `a + b` of a scan's type (wrapping for integers, as the IR's scan sums).
fn scan_add(t: ScalarType, a: &str, b: &str) -> String {
    if t.is_int() {
        format!("rk_wadd<{}>({a}, {b})", cty(t))
    } else {
        format!("({a} + {b})")
    }
}

/// `rk_tred_<t>_<r>(x, li)`: the join of every thread's `x` (every thread of the block calls it).
fn team_reduce_fn(h: &mut Helpers, d: &Dims, t: ScalarType, r: ReducerKind) -> String {
    let x = exchange(h, d);
    let (tn, wg) = (cty(t), d.wg());
    let name = format!("rk_tred_{tn}_{}", r.name());
    let join = super::reduce::join_op(r, t, "p", "q");
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}({tn} x, const u32 li) {{\n    {tn}* const b = reinterpret_cast<{tn}*>({x});\n    __syncthreads();\n    b[li] = x;\n    __syncthreads();\n    for (u32 s = {h2}u; s > 0u; s >>= 1) {{\n        if (li < s && li + s < {wg}u) {{ const {tn} p = b[li]; const {tn} q = b[li + s]; b[li] = {join}; }}\n        __syncthreads();\n    }}\n    return b[0];\n}}\n",
            h2 = wg.next_power_of_two() / 2
        )
    })
}

/// `rk_tscan_<t>(x, k, li, tot)`: the sum of the `x` of the threads below `k`; `tot` receives the
/// sum of all (every thread of the block calls it).
fn team_scan_fn(h: &mut Helpers, d: &Dims, t: ScalarType) -> String {
    let x = exchange(h, d);
    let (tn, wg) = (cty(t), d.wg());
    let name = format!("rk_tscan_{tn}");
    let zero = lit(Value::zero(t));
    let add = scan_add(t, "b[li - off]", "y");
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}({tn} x, const u32 k, const u32 li, {tn}& tot) {{\n    {tn}* const b = reinterpret_cast<{tn}*>({x});\n    __syncthreads();\n    b[li] = x;\n    __syncthreads();\n    for (u32 off = 1u; off < {wg}u; off <<= 1) {{\n        {tn} y = b[li];\n        if (li >= off) {{ y = {add}; }}\n        __syncthreads();\n        b[li] = y;\n        __syncthreads();\n    }}\n    tot = b[{wg}u - 1u];\n    return k > 0u ? b[k - 1u] : {zero};\n}}\n"
        )
    })
}

/// `rk_bcast_<t>(x, src, li)`: thread `src`'s `x` (every thread of the block calls it).
fn bcast_fn(h: &mut Helpers, d: &Dims, t: ScalarType) -> String {
    let x = exchange(h, d);
    let tn = cty(t);
    let name = format!("rk_bcast_{tn}");
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}({tn} x, const u32 src, const u32 li) {{\n    {tn}* const b = reinterpret_cast<{tn}*>({x});\n    __syncthreads();\n    if (li == src) {{ b[0] = x; }}\n    __syncthreads();\n    return b[0];\n}}\n"
        )
    })
}

/// The shuffle helpers among the `vp` lanes of a thread (one aligned segment of a warp, `vp` a
/// power of two up to 32) and `rk_vmask(li)`, the segment's lane mask.
fn shuffles(h: &mut Helpers, d: &Dims) -> R<()> {
    let vp = d.vp;
    if !(vp.is_power_of_two() && (2..=32).contains(&vp)) {
        return Err(EmitError::Mismatch(format!(
            "lane shuffles among {vp} lanes (a power of two up to 32)"
        )));
    }
    h.add("rk_shfl_lanes", || {
        let mut s = format!(
            "__device__ __forceinline__ u32 rk_vmask(const u32 li) {{ return {}; }}
",
            if vp == 32 {
                "0xffffffffu".to_string()
            } else {
                format!("((1u << {vp}u) - 1u) << ((li % 32u) & ~{}u)", vp - 1)
            }
        );
        for (f, name) in [
            ("__shfl_xor_sync", "rk_shx"),
            ("__shfl_up_sync", "rk_shup"),
            ("__shfl_sync", "rk_shidx"),
        ] {
            s.push_str(&format!(
                "template <class T> __device__ __forceinline__ T {name}(const u32 m, T v, const u32 o) {{ return {f}(m, v, o, {vp}); }}
__device__ __forceinline__ bool {name}(const u32 m, bool v, const u32 o) {{ return {f}(m, (int)v, o, {vp}) != 0; }}
"
            ));
        }
        s
    });
    Ok(())
}

/// `rk_vred_<t>_<r>(x, li)`: the join of the `x` of the thread's lanes (a butterfly: lanes `a`
/// and `a ^ o` both join the lower lane's value with the higher's, so every lane ends with the
/// same bits).
fn vector_reduce_fn(h: &mut Helpers, d: &Dims, t: ScalarType, r: ReducerKind) -> R<String> {
    shuffles(h, d)?;
    let tn = cty(t);
    let name = format!("rk_vred_{tn}_{}", r.name());
    let join = super::reduce::join_op(r, t, "p", "q");
    Ok(h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}({tn} x, const u32 li) {{
    const u32 m = rk_vmask(li), lane = li % {vp}u;
    for (u32 o = {h2}u; o > 0u; o >>= 1) {{
        const {tn} y = rk_shx(m, x, o);
        const {tn} p = (lane & o) ? y : x; const {tn} q = (lane & o) ? x : y;
        x = {join};
    }}
    return x;
}}
",
            vp = d.vp,
            h2 = d.vp / 2
        )
    }))
}

/// `rk_vscan_<t>(x, li, tot)`: the sum of the `x` of the thread's lanes below this one; `tot`
/// receives the sum of all.
fn vector_scan_fn(h: &mut Helpers, d: &Dims, t: ScalarType) -> R<String> {
    shuffles(h, d)?;
    let tn = cty(t);
    let name = format!("rk_vscan_{tn}");
    let zero = lit(Value::zero(t));
    let add = scan_add(t, "y", "x");
    Ok(h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}({tn} x, const u32 li, {tn}& tot) {{
    const u32 m = rk_vmask(li), lane = li % {vp}u;
    for (u32 o = 1u; o < {vp}u; o <<= 1) {{
        const {tn} y = rk_shup(m, x, o);
        if (lane >= o) {{ x = {add}; }}
    }}
    tot = rk_shidx(m, x, {vp}u - 1u);
    const {tn} e = rk_shup(m, x, 1u);
    return lane > 0u ? e : {zero};
}}
",
            vp = d.vp
        )
    }))
}

/// Declares `body` as a lambda at indentation `i` (so that a `return` in it ends the body, as in
/// the evaluator); returns the call.
fn body_fn(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    body: &Block,
    i: &str,
    out: &mut String,
) -> R<String> {
    let name = format!("rk_nb{}", h.next_id());
    out.push_str(&format!("{i}auto {name} = [&]() {{\n"));
    block(cx, h, body, i.len() / 4 + 1, out)?;
    out.push_str(&format!("{i}}};\n"));
    Ok(format!("{name}()"))
}

/// The index spelling of the shared team formulas (`rokkos_device::emit::team`): `u64`, or `u32`
/// in the 32-bit variant.
impl TeamOps for CudaC {
    fn idx_lit(x: u64, hex: bool, narrow: bool) -> String {
        let suffix = if narrow { "u" } else { "ull" };
        if hex {
            format!("{x:#x}{suffix}")
        } else {
            format!("{x}{suffix}")
        }
    }
    fn select(c: &str, t: &str, f: &str) -> String {
        // A compound condition is parenthesised: `?:` binds looser than `&&` but reads better so.
        if c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
            format!("{c} ? {t} : {f}")
        } else {
            format!("({c}) ? {t} : {f}")
        }
    }
    fn min_idx(a: &str, b: &str, narrow: bool) -> String {
        format!("rk_imin<{}>({a}, {b})", if narrow { "u32" } else { "u64" })
    }
    fn widen(e: &str, narrow: bool) -> String {
        if narrow {
            e.to_string()
        } else {
            format!("(u64){e}")
        }
    }
}

/// (participant index, participant count) of a nested range of `kind`, as index expressions
/// (the shared rule, `rokkos_device::emit::team::participants`).
fn participants(kind: NestedKind, d: &Dims, narrow: bool) -> (String, String) {
    team_rules::participants::<CudaC>(kind, d.team, d.vp, d.wg(), narrow)
}

/// The index literal `x` of the variant (`narrow`: a `u32`).
fn ix_lit(x: u64, narrow: bool) -> String {
    <CudaC as TeamOps>::idx_lit(x, false, narrow)
}

/// The loop of a nested range: the participant's indices, strided by the participant count,
/// calling `call` with `var` set. An inclusive range stops past its last index without forming
/// `end + 1`; an index that wraps past `u64::MAX` lands below the start and stops too.
#[allow(clippy::too_many_arguments)]
fn strided(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    d: &Dims,
    kind: NestedKind,
    var: LocalId,
    (start, end, inclusive): (&Expr, &Expr, bool),
    call: &str,
    i: &str,
) -> R<String> {
    let (p, c) = participants(kind, d, cx.narrow);
    let (s0, e0, j) = (cx.tmp(), cx.tmp(), cx.tmp());
    let past = if inclusive { ">" } else { ">=" };
    let t = ix(cx.narrow);
    Ok(format!(
        "{i}{{ const {t} {s0} = {}; const {t} {e0} = {}; {t} {j} = {s0} + {p};\n{i}  for (;;) {{ if ({j} {past} {e0} || {j} < {s0}) {{ break; }} {} = {j}; {call}; {j} += {c}; }} }}\n",
        expr(cx, h, start)?,
        expr(cx, h, end)?,
        names::local(var.0)
    ))
}

/// Emits a team construct (the statements the shared walk hands over).
pub(crate) fn stmt(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    s: &Stmt,
    i: &str,
    out: &mut String,
) -> R<()> {
    let d = cx
        .team
        .ok_or_else(|| EmitError::Mismatch("team construct outside a team kernel".into()))?;
    let l = |x: LocalId| names::local(x.0);
    match s {
        Stmt::Barrier => out.push_str(&format!("{i}__syncthreads();\n")),
        Stmt::NestedFor {
            kind,
            var,
            start,
            end,
            inclusive,
            body,
        } => {
            let call = body_fn(cx, h, body, i, out)?;
            out.push_str(&strided(
                cx,
                h,
                &d,
                *kind,
                *var,
                (start, end, *inclusive),
                &call,
                i,
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
            let call = body_fn(cx, h, body, i, out)?;
            out.push_str(&format!("{i}{} = {};\n", l(*acc), lit(id)));
            out.push_str(&strided(
                cx,
                h,
                &d,
                *kind,
                *var,
                (start, end, *inclusive),
                &call,
                i,
            )?);
            match kind {
                NestedKind::Vector if d.vp == 1 => {
                    out.push_str(&format!("{i}{} = {};\n", l(*result), l(*acc)))
                }
                NestedKind::Vector => {
                    let f = vector_reduce_fn(h, &d, t, *reducer)?;
                    out.push_str(&format!("{i}{} = {f}({}, rk_li);\n", l(*result), l(*acc)));
                }
                NestedKind::Thread | NestedKind::TeamVector => {
                    let f = team_reduce_fn(h, &d, t, *reducer);
                    // Every lane of a thread ran the thread's indices: one lane's value counts.
                    let mine = if *kind == NestedKind::Thread && d.vp > 1 {
                        format!("(rk_lane == 0u ? {} : {})", l(*acc), lit(id))
                    } else {
                        l(*acc)
                    };
                    out.push_str(&format!("{i}{} = {f}({mine}, rk_li);\n", l(*result)));
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
        } => scan(
            cx,
            h,
            &d,
            *kind,
            *var,
            (start, end, *inclusive),
            (*partial, *is_final, *total),
            body,
            i,
            out,
        )?,
        Stmt::Single { kind, body, result } => {
            let call = body_fn(cx, h, body, i, out)?;
            match kind {
                SingleKind::Team => {
                    out.push_str(&format!("{i}if (rk_li == 0u) {{ {call}; }}\n"));
                    if let Some(r) = result {
                        let f = bcast_fn(h, &d, cx.local_ty(*r));
                        out.push_str(&format!("{i}{0} = {f}({0}, 0u, rk_li);\n", l(*r)));
                    }
                }
                SingleKind::Thread => {
                    out.push_str(&format!("{i}if (rk_lane == 0u) {{ {call}; }}\n"));
                    if let (Some(r), true) = (result, d.vp > 1) {
                        shuffles(h, &d)?;
                        out.push_str(&format!(
                            "{i}{0} = rk_shidx(rk_vmask(rk_li), {0}, 0u);\n",
                            l(*r)
                        ));
                    }
                }
            }
        }
        Stmt::Broadcast { local, value, src } => {
            let t = cx.local_ty(*local);
            let f = bcast_fn(h, &d, t);
            let (v, sr) = (cx.tmp(), cx.tmp());
            let src_ty = cx.ty(src)?;
            // A source outside the team yields the caller's own value (as the evaluator does).
            out.push_str(&format!(
                "{i}{{ const {tn} {v} = {}; const {it} {sr} = {};\n{i}  const {tn} {v}b = {f}({v}, (u32)({sr} < {team} ? {sr} : {team}) * {vp}u, rk_li);\n{i}  {} = {sr} < {team} ? {v}b : {v}; }}\n",
                expr(cx, h, value)?,
                cx.index(src_ty, &expr(cx, h, src)?),
                l(*local),
                tn = cty(t),
                it = ix(cx.narrow),
                team = ix_lit(d.team as u64, cx.narrow),
                vp = d.vp,
            ));
        }
        Stmt::Scratch { id, extents } => scratch_alloc(cx, h, *id, extents, i, out)?,
        _ => {
            return Err(EmitError::Mismatch(
                "a statement that is not a team construct".into(),
            ))
        }
    }
    Ok(())
}

/// A nested scan: contiguous chunks per participant, so that one sequential pass per chunk
/// follows the index order; a first pass with `final == false` gives each participant's sum, a
/// team scan gives its prefix, a second pass with `final == true` runs the body again from it.
/// Chunks are offsets from the start up to the last offset `lo`, and each pass counts its
/// indices, so that neither forms `end + 1`.
#[allow(clippy::too_many_arguments)]
fn scan(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    d: &Dims,
    kind: NestedKind,
    var: LocalId,
    (start, end, inclusive): (&Expr, &Expr, bool),
    (partial, is_final, total): (LocalId, LocalId, LocalId),
    body: &Block,
    i: &str,
    out: &mut String,
) -> R<()> {
    let t = cx.local_ty(partial);
    let zero = lit(Value::zero(t));
    let call = body_fn(cx, h, body, i, out)?;
    let (p, c) = participants(kind, d, cx.narrow);
    let [s0, e0, ne, lo, ch, off, n, j, k] = std::array::from_fn(|_| cx.tmp());
    let (it, zero_i, one) = (ix(cx.narrow), ix_lit(0, cx.narrow), ix_lit(1, cx.narrow));
    let (pr, fl, v) = (
        names::local(partial.0),
        names::local(is_final.0),
        names::local(var.0),
    );
    let pass = format!(
        "{i}  {{ {it} {j} = {s0} + {off}; for ({it} {k} = {zero_i}; {k} < {n}; ++{k}) {{ {v} = {j}; {call}; {j} += {one}; }} }}\n"
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
    let lines = team_rules::scan_chunks::<CudaC>(&names, &se, &ee, inclusive, &p, &c, cx.narrow);
    out.push_str(&team_rules::render_bindings(&lines, i, |n, t, v| {
        format!("const {} {n} = {v};", cty(t))
    }));
    let parts = match kind {
        NestedKind::Vector => d.vp,
        NestedKind::Thread => d.team,
        NestedKind::TeamVector => d.wg(),
    };
    let tot = names::local(total.0);
    if parts == 1 {
        out.push_str(&format!(
            "{i}  {pr} = {zero}; {fl} = true;\n{pass}{i}  {tot} = {pr};\n"
        ));
    } else if kind == NestedKind::Vector {
        let f = vector_scan_fn(h, d, t)?;
        let (ex, all) = (cx.tmp(), cx.tmp());
        out.push_str(&format!(
            "{i}  {pr} = {zero}; {fl} = false;\n{pass}{i}  {tn} {all} = {zero}; const {tn} {ex} = {f}({pr}, rk_li, {all});\n{i}  {pr} = {ex}; {fl} = true;\n{pass}{i}  {tot} = {all};\n",
            tn = cty(t)
        ));
    } else {
        let f = team_scan_fn(h, d, t);
        // Every lane of a thread ran the thread's chunk: lane 0's sum counts, at the thread's
        // first invocation.
        let (mine, first) = if kind == NestedKind::Thread && d.vp > 1 {
            (
                format!("(rk_lane == 0u ? {pr} : {zero})"),
                "rk_li - rk_lane".to_string(),
            )
        } else {
            (pr.clone(), "rk_li".to_string())
        };
        let (ex, all) = (cx.tmp(), cx.tmp());
        out.push_str(&format!(
            "{i}  {pr} = {zero}; {fl} = false;\n{pass}{i}  {tn} {all} = {zero}; const {tn} {ex} = {f}({mine}, {first}, rk_li, {all});\n{i}  {pr} = {ex}; {fl} = true;\n{pass}{i}  {tot} = {all};\n",
            tn = cty(t)
        ));
    }
    out.push_str(&format!("{i}}}\n"));
    Ok(())
}

/// `rk_sv<R>`: a scratch View's state (its first byte, its extents of the variant's index
/// type; empty until allocated).
fn scratch_state(h: &mut Helpers) {
    let t = ix(h.narrow);
    h.add("0_rk_sv", || {
        format!("template <int R> struct rk_sv {{ unsigned char* p; {t} e[R > 0 ? R : 1]; }};\n")
    });
}

/// The declarations a team body starts with: the team queries, the pools and the scratch Views.
pub(crate) fn preamble(k: &Kernel, h: &mut Helpers, d: &Dims) -> String {
    let narrow = h.narrow;
    let t = ix(narrow);
    let mut s = format!(
        "    const u32 rk_lane = threadIdx.x;\n    const u32 rk_li = threadIdx.y * {vp}u + threadIdx.x;\n    const {t} t_tr = threadIdx.y; const {t} t_ts = {team}; const {t} t_vl = {vl}; const {t} t_ls = P.league;\n    (void)t_ts; (void)t_vl; (void)t_ls; (void)t_lr; (void)rk_s1;\n",
        vp = d.vp,
        team = ix_lit(d.team as u64, narrow),
        vl = ix_lit(d.vlen as u64, narrow)
    );
    if !k.scratch.is_empty() {
        scratch_state(h);
    }
    if rokkos_device::emit::team::uses_level(k, 0) {
        h.add("0_rk_dyn", || {
            "extern __shared__ __align__(16) unsigned char rk_dyn[];\n".into()
        });
    }
    for l in 0..2 {
        if rokkos_device::emit::team::uses_level(k, l) {
            s.push_str(&format!(
                "    {t} rk_tp{l} = {}; {t} rk_hp{l} = P.tp{l} + t_tr * P.tq{l}; const {t} rk_he{l} = rk_hp{l} + P.tq{l};\n",
                ix_lit(0, narrow)
            ));
        }
    }
    for (id, sd) in k.scratch.iter().enumerate() {
        s.push_str(&format!("    rk_sv<{}> sc{id} = {{}};\n", sd.rank));
    }
    s
}

fn scratch_alloc(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    id: ScratchId,
    extents: &[Expr],
    i: &str,
    out: &mut String,
) -> R<()> {
    let sd = &cx.k.scratch[id.0 as usize];
    let level = sd.level.min(1);
    let size = sd.elem.size().max(1) as u64;
    let (ptr, end, cap) = match sd.scope {
        ScratchScope::Team => (
            format!("rk_tp{level}"),
            format!("P.tp{level}"),
            format!("P.tp{level}"),
        ),
        ScratchScope::Thread => (
            format!("rk_hp{level}"),
            format!("rk_he{level}"),
            format!("P.tq{level}"),
        ),
    };
    let code = SCRATCH_CODE + 2 * level + (sd.scope == ScratchScope::Thread) as u32;
    let base = if level == 0 { "rk_dyn" } else { "rk_s1" };
    let narrow = cx.narrow;
    let (t, il) = (ix(narrow), |x: u64| ix_lit(x, narrow));
    let es: Vec<String> = extents
        .iter()
        .map(|e| Ok(cx.index(cx.ty(e)?, &expr(cx, h, e)?)))
        .collect::<R<_>>()?;
    let n = cx.tmp();
    let id = id.0;
    out.push_str(&format!("{i}{{\n{i}  {t} {n}p = {};\n", il(1)));
    if narrow {
        out.push_str(&format!("{i}  bool {n}h = false;\n"));
    }
    // The element count saturates instead of wrapping (`team_rules::saturating_count`; in the
    // 32-bit variant with a flag, `team_rules::saturating_count32`).
    for (kk, e) in es.iter().enumerate() {
        out.push_str(&format!("{i}  const {t} {n}e{kk} = {e};\n"));
        if narrow {
            let (p, sat) = team_rules::saturating_count32::<CudaC>(
                &format!("{n}p"),
                &format!("{n}h"),
                &format!("{n}e{kk}"),
            );
            out.push_str(&format!(
                "{i}  {{ const u32 {n}q = {p}; {n}h = {sat}; {n}p = {n}q; }}\n"
            ));
        } else {
            let next =
                team_rules::saturating_count::<CudaC>(&format!("{n}p"), &format!("{n}e{kk}"));
            out.push_str(&format!("{i}  {n}p = {next};\n"));
        }
    }
    let mut set_e = String::new();
    let mut zero_e = String::new();
    for kk in 0..es.len() {
        set_e.push_str(&format!(" sc{id}.e[{kk}] = {n}e{kk};"));
        zero_e.push_str(&format!(" sc{id}.e[{kk}] = {};", il(0)));
    }
    let start = team_rules::aligned8::<CudaC>(&ptr, narrow);
    let fits =
        team_rules::scratch_fits::<CudaC>(&format!("{n}p"), &format!("{n}s"), size, &end, narrow);
    // The record holds the 64-bit count in both variants (the same error message).
    let count = if narrow {
        <CudaC as TeamOps>::select(
            &format!("{n}h"),
            &<CudaC as TeamOps>::idx_lit(team_rules::SCRATCH_COUNT_CAP, true, false),
            &format!("(u64){n}p"),
        )
    } else {
        format!("{n}p")
    };
    out.push_str(&format!(
        "{i}  const {t} {n}s = {start};\n{i}  if ({fits}) {{ {ptr} = {n}s + {n}p * {}; sc{id}.p = {base} + {n}s;{set_e} }}\n{i}  else {{ sc{id}.p = nullptr;{zero_e}\n{i}    if (rk_oob_begin(P, {code}u, 3u)) {{ rk_oob_idx(P, 0u, {count}); rk_oob_idx(P, 1u, {size}ull); rk_oob_idx(P, 2u, {cap}); }} }}\n{i}}}\n",
        il(size)
    ));
    Ok(())
}

/// The element offset helper of scratch View `id`: checks the index (an unallocated View has no
/// element), records a violation and answers `~0`; the offset is `LayoutRight` (last index
/// contiguous), as the host backends lay scratch out.
fn scratch_off(cx: &Cx<'_, CudaC>, h: &mut Helpers, id: u32) -> String {
    let rank = cx.k.scratch[id as usize].rank as usize;
    let name = format!("rk_soff{id}");
    scratch_state(h);
    let (t, narrow) = (ix(h.narrow), h.narrow);
    // Keyed to sort before the accessors that call it (helpers are emitted in key order).
    h.add(&format!("1_{name}"), || {
        let mut params = vec!["const rk_P& P".to_string(), format!("const rk_sv<{rank}>& s")];
        params.extend((0..rank).map(|kk| format!("{t} i{kk}")));
        let mut cond = vec!["s.p == nullptr".to_string()];
        cond.extend((0..rank).map(|kk| format!("i{kk} >= s.e[{kk}]")));
        let rec: String = (0..rank)
            .map(|kk| format!(" rk_oob_idx(P, {kk}u, i{kk});"))
            .collect();
        let mut off = ix_lit(0, narrow);
        for kk in 0..rank {
            off = format!("({off}) * s.e[{kk}] + i{kk}");
        }
        format!(
            "__device__ __forceinline__ {t} {name}({}) {{\n    if ({}) {{\n        if (rk_oob_begin(P, {}u, {rank}u)) {{{rec} }}\n        return ~{};\n    }}\n    return {off};\n}}\n",
            params.join(", "),
            cond.join(" || "),
            SCRATCH_VIEW_CODE + id,
            ix_lit(0, narrow)
        )
    });
    name
}

/// `scratch[index]`.
pub(crate) fn load(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    id: ScratchId,
    index: &[Expr],
) -> R<String> {
    let args = rokkos_device::emit::walk::index_args(cx, h, index)?;
    Ok(accessor(cx, h, id, args, false))
}

/// `scratch[index] = value` (a call statement).
pub(crate) fn store(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    id: ScratchId,
    index: &[Expr],
    value: &Expr,
) -> R<String> {
    let mut args = rokkos_device::emit::walk::index_args(cx, h, index)?;
    args.push(expr(cx, h, value)?);
    Ok(accessor(cx, h, id, args, true))
}

/// The call of scratch View `id`'s load (or, when `store`, store) helper with `args` (the
/// indices, then the stored value): an index the offset helper refuses reads 0 or stores
/// nothing.
fn accessor(
    cx: &Cx<'_, CudaC>,
    h: &mut Helpers,
    id: ScratchId,
    args: Vec<String>,
    store: bool,
) -> String {
    let off = scratch_off(cx, h, id.0);
    let d = &cx.k.scratch[id.0 as usize];
    let (t, rank) = (d.elem, d.rank as usize);
    let name = format!("rk_s{}{}", if store { "st" } else { "ld" }, id.0);
    let (it, none) = (ix(h.narrow), format!("~{}", ix_lit(0, h.narrow)));
    h.add(&name, || {
        let params: String = (0..rank).map(|kk| format!(", {it} i{kk}")).collect();
        let call: String = (0..rank).map(|kk| format!(", i{kk}")).collect();
        let tn = cty(t);
        let (ret, x, body) = if store {
            (
                "void".to_string(),
                format!(", {tn} x"),
                format!("if (o != {none}) {{ reinterpret_cast<{tn}*>(s.p)[o] = x; }}"),
            )
        } else {
            (
                tn.to_string(),
                String::new(),
                format!(
                    "return o == {none} ? {} : reinterpret_cast<const {tn}*>(s.p)[o];",
                    lit(Value::zero(t))
                ),
            )
        };
        format!(
            "__device__ __forceinline__ {ret} {name}(const rk_P& P, const rk_sv<{rank}>& s{params}{x}) {{\n    const {it} o = {off}(P, s{call});\n    {body}\n}}\n"
        )
    });
    let mut a = vec!["P".to_string(), format!("sc{}", id.0)];
    a.extend(args);
    format!("{name}({})", a.join(", "))
}

/// `scratch.extent(dim)`.
pub(crate) fn extent(cx: &Cx<'_, CudaC>, id: ScratchId, dim: u32) -> String {
    if dim < cx.k.scratch[id.0 as usize].rank {
        format!("sc{}.e[{dim}]", id.0)
    } else {
        ix_lit(0, cx.narrow)
    }
}

/// The parameters of a team kernel's `rk_work`.
/// `narrow`: the 32-bit variant, whose league rank is a `u32`.
pub(crate) fn work_params(k: &Kernel, narrow: bool) -> Vec<String> {
    let mut v = vec![
        "const rk_P& P".to_string(),
        format!("const {} t_lr", ix(narrow)),
        "unsigned char* const rk_s1".to_string(),
    ];
    for (i, (_, t)) in k.acc_fields().iter().enumerate() {
        v.push(format!("{}& {}", cty(*t), names::acc(i)));
    }
    v
}

/// How a team reduction's accumulators leave the block.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TeamReduce<'a> {
    /// Joined through shared memory by these joins into `P.outN[blockIdx.x]` (the league
    /// strided over the grid; the second pass is [`super::reduce::FINAL`]).
    Tree(&'a [JoinKind]),
    /// The ordered-partials mode (`rokkos_device::runtime::ordered`): block `g` runs league block
    /// `g` of `P.nparts / threads` (`block_bounds(P.league, blocks, g)`, in order), and thread
    /// `i` of the block stores its accumulators as `P.outN[g * threads + i]`, unjoined.
    Ordered,
}

/// The `__global__` entry of a team kernel: the league strided over the grid (or a league block
/// per block in the ordered mode), a barrier between teams (the next team reuses the block's
/// scratch), and with a reduction the block's accumulators stored as [`TeamReduce`] says.
/// `narrow`: the 32-bit variant (the league rank is a `u32`: below the league size, at most
/// 2^31 - 1, plus a grid width below 2^31, it never wraps).
///
/// With `stop` (`super::entry::Stop`) the league loop leaves once the launch has recorded a
/// failure. The test must be block-uniform (the loop holds barriers), so thread 0 reads the
/// error word as a team starts and publishes it in shared memory as the team ends, and every
/// thread reads it back after the team's barrier. The two words alternate between teams: the
/// word for team `k + 2` is written after the barrier ending team `k + 1`, which every thread
/// reaches only after reading it for team `k`. A block that starts after the failure leaves
/// before its first team.
pub(crate) fn entry(
    k: &Kernel,
    d: &Dims,
    reduce: Option<TeamReduce<'_>>,
    final_block: u32,
    narrow: bool,
    stop: super::entry::Stop,
) -> R<(String, u32)> {
    let wg = d.wg();
    let fields = k.acc_fields();
    let mut s = String::new();
    let joins = match reduce {
        Some(TeamReduce::Tree(j)) => Some(j),
        _ => None,
    };
    if let Some(j) = joins {
        // The join function and the second pass (one block of `final_block` threads).
        s.push_str(&super::reduce::helpers(k, j, final_block)?);
    }
    s.push_str(&format!(
        "extern \"C\" __global__ void __launch_bounds__({wg}) {}(const rk_P P) {{\n",
        super::entry::ENTRY
    ));
    if reduce.is_some() {
        s.push_str(&super::reduce::init_accs(k));
    }
    // The league loop's trip: the team, its barrier, and with `stop` the uniform test.
    let (first, seen, publish, test) = if stop.0 {
        (
            "    __shared__ u32 rk_stop[2];\n    const bool rk_t0 = threadIdx.x == 0u && threadIdx.y == 0u;\n    u32 rk_par = 0u;\n    if (rk_t0) { rk_stop[1] = rk_stopped(P) ? 1u : 0u; }\n    __syncthreads();\n    const bool rk_late = rk_stop[1] != 0u;\n",
            "        const u32 rk_seen = rk_t0 && rk_stopped(P) ? 1u : 0u;\n",
            "        if (rk_t0) { rk_stop[rk_par] = rk_seen; }\n",
            "        if (rk_stop[rk_par] != 0u) { break; }\n        rk_par ^= 1u;\n",
        )
    } else {
        ("    const bool rk_late = false;\n", "", "", "")
    };
    s.push_str(first);
    let mut shared = if stop.0 { 8u32 } else { 0 };
    let accs: Vec<String> = (0..fields.len()).map(names::acc).collect();
    let mut call = vec!["P".to_string(), "lr".into(), "rk_s1".into()];
    call.extend(accs.iter().cloned());
    if let Some(TeamReduce::Ordered) = reduce {
        // League block `g` (`rokkos_device::runtime::ordered::block_bounds`), 64-bit and below
        // the league size; every bound is block-uniform, so the barriers are reached by all.
        s.push_str(&format!(
            "    unsigned char* const rk_s1 = P.scr1 == nullptr ? nullptr : reinterpret_cast<unsigned char*>(P.scr1) + (u64)blockIdx.x * P.l1s;\n    const u64 nb = P.nparts / {wg}u, g = blockIdx.x;\n    if (g >= nb) {{ return; }}\n    const u64 n = P.league, base = n / nb, rem = n % nb;\n    const u64 lo = g * base + (g < rem ? g : rem);\n    const u64 hi = rk_late ? lo : lo + base + (g < rem ? 1u : 0u);\n    for (u64 l = lo; l < hi; ++l) {{\n{seen}        const {} lr = ({})l;\n        rk_work({});\n{publish}        __syncthreads();\n{test}    }}\n    const u64 li = threadIdx.y * {}u + threadIdx.x;\n",
            ix(narrow),
            ix(narrow),
            call.join(", "),
            d.vp
        ));
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "    P.out{i}[g * {wg}u + li] = {};\n",
                super::reduce::store_part(*t, &names::acc(i))
            ));
        }
        s.push_str("}\n");
        return Ok((s, shared));
    }
    s.push_str(&format!(
        "    unsigned char* const rk_s1 = P.scr1 == nullptr ? nullptr : reinterpret_cast<unsigned char*>(P.scr1) + (u64)blockIdx.x * P.l1s;\n    for ({} lr = rk_late ? P.league : blockIdx.x; lr < P.league; lr += gridDim.x) {{\n{seen}        rk_work({});\n{publish}        __syncthreads();\n{test}    }}\n",
        ix(narrow),
        call.join(", ")
    ));
    if let Some(joins) = joins {
        let _ = joins;
        s.push_str(&format!(
            "    const u32 li = threadIdx.y * {}u + threadIdx.x;\n",
            d.vp
        ));
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "    __shared__ {} sh{i}[{wg}];\n    sh{i}[li] = {};\n",
                cty(*t),
                names::acc(i)
            ));
            shared += wg * (t.size().max(1) as u32);
        }
        let xs: Vec<String> = (0..fields.len()).map(|i| format!("x{i}")).collect();
        let ys: Vec<String> = (0..fields.len())
            .map(|i| format!("sh{i}[li + st]"))
            .collect();
        let mut load = String::new();
        let mut back = String::new();
        for (i, (_, t)) in fields.iter().enumerate() {
            load.push_str(&format!(" {} x{i} = sh{i}[li];", cty(*t)));
            back.push_str(&format!(" sh{i}[li] = x{i};"));
        }
        s.push_str(&format!(
            "    __syncthreads();\n    for (u32 st = {}u; st > 0u; st >>= 1) {{\n        if (li < st && li + st < {wg}u) {{{load} rk_join({}, {});{back} }}\n        __syncthreads();\n    }}\n    if (li == 0u) {{\n",
            wg.next_power_of_two() / 2,
            xs.join(", "),
            ys.join(", ")
        ));
        for (i, (_, t)) in fields.iter().enumerate() {
            s.push_str(&format!(
                "        P.out{i}[blockIdx.x] = {};\n",
                super::reduce::store_part(*t, &format!("sh{i}[0]"))
            ));
        }
        s.push_str("    }\n");
    }
    s.push_str("}\n");
    Ok((s, shared))
}

/// The body function of a team kernel: the preamble, the locals (where every nested body, a
/// lambda, reaches them), the body.
pub(crate) fn work(k: &Kernel, d: Dims, h: &mut Helpers) -> R<String> {
    let mut cx = Cx::<CudaC>::new(k, &k.locals);
    cx.team = Some(d);
    cx.narrow = h.narrow;
    let mut out = format!(
        "__device__ __forceinline__ void rk_work({}) {{\n",
        work_params(k, cx.narrow).join(", ")
    );
    out.push_str(&preamble(k, h, &d));
    let locals: Vec<rokkos_core::ir::LocalDecl> = k
        .locals
        .iter()
        .map(|l| rokkos_core::ir::LocalDecl {
            ty: cx.lower(l.ty),
            ..l.clone()
        })
        .collect();
    out.push_str(&rokkos_device::emit::walk::decls::<CudaC>(&locals));
    block(&cx, h, &k.body, 1, &mut out)?;
    out.push_str("}\n");
    Ok(out)
}

/// The exchange buffer's bytes when the module declares it.
pub(crate) fn exchange_bytes(source: &str, d: &Dims) -> u32 {
    if source.contains("__shared__ u64 rk_x[") {
        8 * d.wg()
    } else {
        0
    }
}
