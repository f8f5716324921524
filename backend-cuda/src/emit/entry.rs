//! The `__global__` entry points: how work items map onto CUDA threads.
//!
//! - Range: a grid-stride loop (the grid is sized by the launcher from the SM count and
//!   occupancy, not from the range, so each thread runs several items and the block count stays
//!   small).
//! - MDRange: one tile per block at a time (tiles strided over the grid), the block's threads
//!   strided over the tile's points, the last dimension fastest (consecutive threads touch
//!   consecutive elements of a `LayoutRight` View).

use super::target::work_params;
use rokkos_core::emit::EmitError;
use rokkos_core::ir::{Kernel, WorkKind};

/// The name of every generated entry point.
pub const ENTRY: &str = "rk_main";

/// The `__global__` function of a `parallel_for` over `k`'s work kind, with `block` threads per
/// block.
pub(crate) fn for_entry(k: &Kernel, block: u32) -> Result<String, EmitError> {
    let head = format!(
        "extern \"C\" __global__ void __launch_bounds__({block}) {ENTRY}(const rk_P P) {{\n"
    );
    let call = |ws: &[String]| {
        let mut a = vec!["P".to_string()];
        a.extend(ws.iter().cloned());
        debug_assert_eq!(a.len(), work_params(k).len());
        format!("rk_work({});", a.join(", "))
    };
    let body = match k.work {
        WorkKind::Range => format!(
            "    const u64 stride = (u64)gridDim.x * blockDim.x;\n    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < P.n; i += stride) {{\n        {}\n    }}\n",
            call(&["P.begin + i".to_string()])
        ),
        WorkKind::MDRange(n) => {
            let n = n as usize;
            let mut s = String::from(
                "    for (u64 tile = blockIdx.x; tile < P.ntiles; tile += gridDim.x) {\n        u64 r = tile;\n",
            );
            for d in (0..n).rev() {
                s.push_str(&format!(
                    "        const u64 c{d} = r % P.nt{d}; r /= P.nt{d};\n"
                ));
            }
            s.push_str(
                "        for (u64 j = threadIdx.x; j < P.tvol; j += blockDim.x) {\n            u64 q = j;\n",
            );
            let mut inside = Vec::new();
            let mut ws = Vec::new();
            for d in (0..n).rev() {
                s.push_str(&format!(
                    "            const u64 x{d} = c{d} * P.t{d} + q % P.t{d}; q /= P.t{d};\n"
                ));
            }
            for d in 0..n {
                inside.push(format!("x{d} < P.e{d}"));
                ws.push(format!("P.b{d} + x{d}"));
            }
            s.push_str(&format!(
                "            if ({}) {{ {} }}\n        }}\n    }}\n",
                inside.join(" && "),
                call(&ws)
            ));
            s
        }
        WorkKind::Team => {
            return Err(EmitError::Unsupported(
                "TeamPolicy kernels on CUDA (not yet emitted as CUDA C)".into(),
            ))
        }
    };
    Ok(format!("{head}{body}}}\n"))
}
