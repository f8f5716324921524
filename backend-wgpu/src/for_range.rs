//! `parallel_for` over a `RangePolicy`: one invocation per index, workgroups of up to 256, folded
//! into a 2-D grid past 65535 groups.

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch, index_width, pipeline, prepare, splits, wg_size,
};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::emit::width::Work;
use rokkos_core::kernel::KernelIr;
use rokkos_core::{RangePolicy, Result};
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
    let opts = EmitOptions {
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
    let c = pipeline(ctx, &p, &opts)?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(());
    }
    dispatch(
        ctx,
        &p,
        &c,
        &[],
        n.div_ceil(wg as u64),
        &[],
        false,
        |l, b| {
            l.set_u64(b, "begin", begin as u64);
            l.set_u64(b, "n", n);
        },
    )
}
