//! `parallel_for` over a `RangePolicy`: a grid-stride loop over at most
//! `runtime::launch::GRID_INVOCATIONS` invocations (workgroups of up to 256, folded into a 2-D
//! grid past 65535 groups), one index per invocation and trip. A launch whose split Views need
//! more bindings than a shader stage has runs as consecutive windows of the range
//! (`runtime::window`).

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch_window, fold, grid_groups, index_width, pipeline, prepare, splits, wg_size,
};
use crate::runtime::window::{fit, Windowing};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::{RangePolicy, Result};
use rokkos_device::emit::width::Work;
use std::sync::Arc;

/// `parallel_for` over `begin..end`.
pub(crate) fn run<K: KernelIr<Space = WgpuSpace>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &K,
) -> Result<()> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(ctx, kernel)?;
    let wg = wg_size(ctx);
    let mut opts = EmitOptions {
        entry: Entry::For,
        wg,
        joins: vec![],
        addr32: addr32_ok(&p),
        in_bounds: p.proven(&[(begin, end)]),
        width: index_width(
            ctx,
            &p,
            Work::range(begin, end),
            &[begin as u64, end as u64],
        )?,
        splits: splits(ctx, &p)?,
    };
    let windows = fit(
        ctx,
        &p,
        &mut opts,
        Windowing::Work(vec![(begin as u64, end as u64)]),
    )?;
    let c = pipeline(ctx, &p, &opts)?;
    let whole = [(begin as u64, end as u64, Vec::new())];
    let runs: Vec<(u64, u64, Vec<u32>)> = match windows {
        None => whole.to_vec(),
        Some(ws) => ws.into_iter().map(|w| (w.begin, w.end, w.bases)).collect(),
    };
    for (lo, hi, bases) in runs {
        let n = hi.saturating_sub(lo);
        if n == 0 {
            continue;
        }
        let groups = grid_groups(n.div_ceil(wg as u64), wg);
        // The stride is the whole folded grid, whose tail workgroups take items too.
        let (gx, gy) = fold(ctx, groups)?;
        let stride = u64::from(gx) * u64::from(gy) * wg as u64;
        dispatch_window(ctx, &p, &c, &[], groups, &[], false, &bases, |l, b| {
            l.set_u64(b, "begin", lo);
            l.set_u64(b, "n", n);
            l.set_u64(b, "stride", stride);
        })?;
    }
    Ok(())
}
