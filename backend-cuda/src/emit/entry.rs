//! The `__global__` entry points: how work items map onto CUDA threads.
//!
//! - Range: a grid-stride loop (the grid is sized by the launcher from the SM count and
//!   occupancy, not from the range, so each thread runs several items and the block count stays
//!   small).
//! - MDRange: one tile per block at a time (tiles strided over the grid), the block's threads
//!   strided over the tile's points, the last dimension fastest (consecutive threads touch
//!   consecutive elements of a `LayoutRight` View).
//! - Reductions fold the same way, then join per block ([`super::reduce`]).

use super::target::{ix, work_params};
use rokkos_core::emit::{names, EmitError};
use rokkos_core::ir::{Kernel, WorkKind};
use rokkos_core::reducer::JoinKind;

/// The name of every generated entry point.
pub const ENTRY: &str = "rk_main";

/// The `__global__` function of `k`'s work kind with `block` threads per block: each work item
/// once (`parallel_for`), or, with `joins`, folded into one partial per block (the first pass of
/// `parallel_reduce`, followed by its second pass). `narrow`: the 32-bit index variant, whose
/// work bounds are `u32` fields at most `2^31 - 1` (the launch facts of
/// `rokkos_core::emit::width`).
pub(crate) fn entry(
    k: &Kernel,
    block: u32,
    joins: Option<&[JoinKind]>,
    narrow: bool,
) -> Result<String, EmitError> {
    let head = format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {ENTRY}(const rk_P P) {{\n"
    );
    let accs: Vec<String> = (0..k.acc_fields().len()).map(names::acc).collect();
    let call = |ws: &[String]| {
        let mut a = vec!["P".to_string()];
        a.extend(ws.iter().cloned());
        a.extend(accs.iter().cloned());
        debug_assert_eq!(a.len(), work_params(k, narrow).len());
        format!("rk_work({});", a.join(", "))
    };
    let it = ix(narrow);
    let fold = match k.work {
        // The start is clamped to `n` and the stride to 2^31, so with `n < 2^31` the counter
        // never wraps whatever the grid (`i + stride < 2^32`).
        WorkKind::Range if narrow => format!(
            "    const u64 g0 = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n    const u64 s0 = (u64)gridDim.x * blockDim.x;\n    const u32 stride = s0 < 0x80000000ull ? (u32)s0 : 0x80000000u;\n    for (u32 i = g0 < P.n ? (u32)g0 : P.n; i < P.n; i += stride) {{\n        {}\n    }}\n",
            call(&["P.begin + i".to_string()])
        ),
        WorkKind::Range => format!(
            "    const u64 stride = (u64)gridDim.x * blockDim.x;\n    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < P.n; i += stride) {{\n        {}\n    }}\n",
            call(&["P.begin + i".to_string()])
        ),
        WorkKind::MDRange(n) => {
            let n = n as usize;
            // In the 32-bit variant every sum stays below 2^32: `tile < ntiles` and
            // `j < tvol` are at most 2^31 - 1 (launch facts), as are the grid and block sizes
            // added to them, and `x < e + t`.
            let mut s = format!(
                "    for ({it} tile = blockIdx.x; tile < P.ntiles; tile += gridDim.x) {{\n        {it} r = tile;\n",
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
                "            if ({}) {{ {} }}\n        }}\n    }}\n",
                inside.join(" && "),
                call(&ws)
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
