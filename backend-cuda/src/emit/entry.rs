//! The `__global__` entry points: how work items map onto CUDA threads.
//!
//! - Range: a grid-stride loop (the grid is sized by the launcher from the SM count and
//!   occupancy, not from the range, so each thread runs several items and the block count stays
//!   small).
//! - MDRange: one tile per block at a time (tiles strided over the grid), the block's threads
//!   strided over the tile's points, the last dimension fastest (consecutive threads touch
//!   consecutive elements of a `LayoutRight` View).
//! - Reductions fold the same way, then join per block ([`super::reduce`]); a range reduction
//!   whose join is host code folds one contiguous block of items per thread instead, with no
//!   device join ([`ordered`]).

use super::target::{ix, work_params};
use rokkos_core::ir::{Kernel, WorkKind};
use rokkos_core::reducer::JoinKind;
use rokkos_device::emit::{names, EmitError};

/// Whether the entry's loops leave early once the launch has recorded a failure (only for a
/// kernel that can record one: the record of a launch that cannot is not its own). Each trip
/// reads the launch's error word as it starts and tests it as it ends, so that the read's
/// latency overlaps the trip's work; a thread then runs at most one trip after the failure is
/// visible to it (`rokkos_device::runtime::limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stop(pub bool);

impl Stop {
    /// The start of a trip at nesting `depth` (its own name, so nested loops do not shadow).
    pub(crate) fn open(self, pad: &str, depth: usize) -> String {
        if self.0 {
            format!("{pad}const bool rk_st{depth} = rk_stopped(P);\n")
        } else {
            String::new()
        }
    }
    /// The end of a trip opened by [`Stop::open`] at the same `depth`.
    pub(crate) fn close(self, pad: &str, depth: usize) -> String {
        if self.0 {
            format!("{pad}if (rk_st{depth}) {{ break; }}\n")
        } else {
            String::new()
        }
    }
}

/// The name of every generated entry point.
pub const ENTRY: &str = "rk_main";

/// The entry point of the last step of a scan whose join is host code (the body with
/// `final == true` from each block's prefix; see [`ordered_scan`]).
pub const ORDERED_REPLAY: &str = "rk_ordered_replay";

/// `rk_work(P, <work indices>, <accumulators>[, <final flag>]);` for the work indices `ws` (a
/// scan kernel's flag is `fin`).
fn work_call(k: &Kernel, narrow: bool, ws: &[String], fin: &str) -> String {
    let mut a = vec!["P".to_string()];
    a.extend(ws.iter().cloned());
    a.extend((0..k.acc_fields().len()).map(names::acc));
    if k.is_scan {
        a.push(fin.to_string());
    }
    debug_assert_eq!(a.len(), work_params(k, narrow).len());
    format!("rk_work({});", a.join(", "))
}

/// The ordered-partials entry of a reduction whose join is host code
/// (`rokkos_device::runtime::ordered`): thread `t < P.nparts` folds block `t` of the work items in
/// iteration order, from the identity, and stores its accumulators as partial `t` (`P.outN[t]`);
/// nothing is joined on the device.
///
/// - Range: the items `block_bounds(P.n, P.nparts, t)` from `P.begin`.
/// - MDRange: the tiles `block_bounds(P.ntiles, P.nparts, t)` (the host backends' tiles, in the
///   launcher's `P.t{d}` / `P.nt{d}`): tile `q`'s coordinates are its digits in the tile counts,
///   the fastest dimension least significant, and its points are walked in the policy's order
///   (`left`: the first index fastest), as the host backends walk them. A tile's end is
///   `lo + min(t, e - lo)`, which cannot overflow.
///
/// The block arithmetic is 64-bit and stays below the item or tile count; in the 32-bit variant
/// each work index is below the policy's end, so it is passed as a `u32`.
pub(crate) fn ordered(
    k: &Kernel,
    block: u32,
    narrow: bool,
    left: bool,
    stop: Stop,
) -> Result<String, EmitError> {
    ordered_entry(k, block, narrow, left, false, stop)
}

/// The entries of a scan whose join is host code (the slow path of
/// `rokkos_device::runtime::ordered`): [`ENTRY`] folds block `t` of the range with `final == false`
/// into partial `t` (as [`ordered`] does); the launcher reads the partials back, joins them in
/// order into each block's exclusive prefix and writes prefix `t` over partial `t`; then
/// [`ORDERED_REPLAY`] replays block `t` from prefix `t` with `final == true`.
pub(crate) fn ordered_scan(
    k: &Kernel,
    block: u32,
    narrow: bool,
    stop: Stop,
) -> Result<String, EmitError> {
    if k.work != WorkKind::Range {
        return Err(EmitError::Mismatch("a scan over a non-range policy".into()));
    }
    let mut s = ordered_entry(k, block, narrow, false, false, stop)?;
    s.push_str(&ordered_entry(k, block, narrow, false, true, stop)?);
    Ok(s)
}

/// [`ordered`]'s entry, or with `replay` [`ORDERED_REPLAY`]: thread `t` starts from
/// `P.outN[t]` (its block's prefix), runs a scan kernel's body with `final == true` and stores
/// nothing.
fn ordered_entry(
    k: &Kernel,
    block: u32,
    narrow: bool,
    left: bool,
    replay: bool,
    stop: Stop,
) -> Result<String, EmitError> {
    let ix = |e: String| if narrow { format!("(u32)({e})") } else { e };
    let (name, fin) = if replay {
        (ORDERED_REPLAY, "true")
    } else {
        (ENTRY, "false")
    };
    let mut s = format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {name}(const rk_P P) {{\n{}    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n    if (t >= P.nparts) {{ return; }}\n",
        super::reduce::init_accs(k)
    );
    if replay {
        for (i, (_, ty)) in k.acc_fields().iter().enumerate() {
            s.push_str(&format!(
                "    {} = {};\n",
                names::acc(i),
                super::reduce::load_part(*ty, &format!("P.out{i}[t]"))
            ));
        }
    }
    let count = match k.work {
        WorkKind::Range => "P.n",
        WorkKind::MDRange(_) => "P.ntiles",
        WorkKind::Team => {
            return Err(EmitError::Unsupported(
                "a user-defined (Custom) reducer over a team policy".into(),
            ))
        }
    };
    s.push_str(&format!(
        "    const u64 n = {count}, base = n / P.nparts, rem = n % P.nparts;\n    const u64 lo = t * base + (t < rem ? t : rem);\n    const u64 hi = lo + base + (t < rem ? 1u : 0u);\n    for (u64 i = lo; i < hi; ++i) {{\n{}",
        stop.open("        ", 0)
    ));
    match k.work {
        WorkKind::MDRange(r) => {
            let dims: Vec<u32> = if left {
                (0..r).rev().collect()
            } else {
                (0..r).collect()
            };
            s.push_str("        u64 rest = i;\n");
            for &d in dims.iter().rev() {
                s.push_str(&format!(
                    "        const u64 c{d} = rest % P.nt{d}; rest /= P.nt{d};\n        const u64 lo{d} = c{d} * P.t{d};\n        const u64 hi{d} = lo{d} + ((u64)P.t{d} < P.e{d} - lo{d} ? (u64)P.t{d} : P.e{d} - lo{d});\n"
                ));
            }
            let mut close = String::new();
            for (depth, &d) in dims.iter().enumerate() {
                let pad = " ".repeat(8 + 4 * depth);
                let inner = format!("{pad}    ");
                s.push_str(&format!(
                    "{pad}for (u64 x{d} = lo{d}; x{d} < hi{d}; ++x{d}) {{\n{}",
                    stop.open(&inner, depth + 1)
                ));
                close = format!("{}{pad}}}\n{close}", stop.close(&inner, depth + 1));
            }
            let ws: Vec<String> = (0..r).map(|d| ix(format!("P.b{d} + x{d}"))).collect();
            s.push_str(&format!(
                "{}{}\n{close}",
                " ".repeat(8 + 4 * dims.len()),
                work_call(k, narrow, &ws, fin)
            ));
        }
        _ => s.push_str(&format!(
            "        {}\n",
            work_call(k, narrow, &[ix("P.begin + i".to_string())], fin)
        )),
    }
    s.push_str(&stop.close("        ", 0));
    s.push_str("    }\n");
    let stores = if replay { 0 } else { k.acc_fields().len() };
    for (i, (_, t)) in k.acc_fields().iter().enumerate().take(stores) {
        s.push_str(&format!(
            "    P.out{i}[t] = {};\n",
            super::reduce::store_part(*t, &names::acc(i))
        ));
    }
    s.push_str("}\n");
    Ok(s)
}

/// The `__global__` function of `k`'s work kind with `block` threads per block: each work item
/// once (`parallel_for`), or, with `joins`, folded into one partial per block (the first pass of
/// `parallel_reduce`, followed by its second pass). `narrow`: the 32-bit index variant, whose
/// work bounds are `u32` fields at most `2^31 - 1` (the launch facts of
/// `rokkos_device::emit::width`).
pub(crate) fn entry(
    k: &Kernel,
    block: u32,
    joins: Option<&[JoinKind]>,
    narrow: bool,
    stop: Stop,
) -> Result<String, EmitError> {
    let head = format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {ENTRY}(const rk_P P) {{\n"
    );
    // One trip of a grid-stride loop: the work call between the early stop's read and test.
    let call = |ws: &[String]| {
        format!(
            "{}        {}\n{}",
            stop.open("        ", 0),
            work_call(k, narrow, ws, "false"),
            stop.close("        ", 0)
        )
    };
    let it = ix(narrow);
    let fold = match k.work {
        // The start is clamped to `n` and the stride to 2^31, so with `n < 2^31` the counter
        // never wraps whatever the grid (`i + stride < 2^32`). The stride is computed in 32
        // bits (a grid of at most `2^31 / blockDim.x` blocks has a product that fits), so
        // that no 64-bit multiply is left in the variant.
        WorkKind::Range if narrow => format!(
            "    const u64 g0 = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n    const u32 stride = gridDim.x <= 0x80000000u / blockDim.x ? gridDim.x * blockDim.x : 0x80000000u;\n    for (u32 i = g0 < P.n ? (u32)g0 : P.n; i < P.n; i += stride) {{\n{}    }}\n",
            call(&["P.begin + i".to_string()])
        ),
        WorkKind::Range => format!(
            "    const u64 stride = (u64)gridDim.x * blockDim.x;\n    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < P.n; i += stride) {{\n{}    }}\n",
            call(&["P.begin + i".to_string()])
        ),
        WorkKind::MDRange(n) => {
            let n = n as usize;
            // In the 32-bit variant every sum stays below 2^32: `tile < ntiles` and
            // `j < tvol` are at most 2^31 - 1 (launch facts), as are the grid and block sizes
            // added to them, and `x < e + t`.
            let mut s = format!(
                "    for ({it} tile = blockIdx.x; tile < P.ntiles; tile += gridDim.x) {{\n{}        {it} r = tile;\n",
                stop.open("        ", 1)
            );
            for d in (0..n).rev() {
                s.push_str(&format!(
                    "        const {it} c{d} = r % P.nt{d}; r /= P.nt{d};\n"
                ));
            }
            s.push_str(&format!(
                "        for ({it} j = threadIdx.x; j < P.tvol; j += blockDim.x) {{\n            {it} q = j;\n",
            ));
            for d in (0..n).rev() {
                s.push_str(&format!(
                    "            const {it} x{d} = c{d} * P.t{d} + q % P.t{d}; q /= P.t{d};\n"
                ));
            }
            let inside: Vec<String> = (0..n).map(|d| format!("x{d} < P.e{d}")).collect();
            let ws: Vec<String> = (0..n).map(|d| format!("P.b{d} + x{d}")).collect();
            s.push_str(&format!(
                "{}            if ({}) {{ {} }}\n{}        }}\n{}    }}\n",
                stop.open("            ", 0),
                inside.join(" && "),
                work_call(k, narrow, &ws, "false"),
                stop.close("            ", 0),
                stop.close("        ", 1)
            ));
            s
        }
        WorkKind::Team => {
            return Err(EmitError::Mismatch(
                "a team kernel takes the team entry (`super::team::entry`)".into(),
            ))
        }
    };
    Ok(match joins {
        None => format!("{head}{fold}}}\n"),
        Some(joins) => {
            let mut s = super::reduce::helpers(k, joins, block)?;
            s.push_str(&super::reduce::first_pass(k, &head, &fold));
            s
        }
    })
}
