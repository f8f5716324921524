//! `parallel_reduce` over a `RangePolicy`: each invocation folds a grid-stride slice (at most
//! [`REDUCE_GROUPS`] workgroups), the workgroup joins in a tree, one partial per workgroup; the
//! partials complete as a host value or into a device View (`runtime::reduction`).

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch, index_width, pipeline, prepare, splits, wg_size,
};
use crate::runtime::partials::Partials;
use crate::runtime::reduction::{finish_host, finish_into, init_values, Reduction};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::space::ResultSlot;
use rokkos_core::{Pod, RangePolicy, Reducer, Result};
use std::sync::Arc;

/// Most workgroups of a grid-stride reduction (the host joins this many partials at most).
const REDUCE_GROUPS: u64 = 1024;

/// The reduction's value on the host.
pub(crate) fn run<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    finish_host(ctx, launch(ctx, policy, kernel, reducer)?, reducer)
}

/// The reduction's value into `slot`, without waiting where the device can join it there.
pub(crate) fn run_into<K: KernelIr<Space = WgpuSpace>, V: AccValue + Pod, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, WgpuSpace>,
) -> Result<()> {
    finish_into(ctx, launch(ctx, policy, kernel, reducer)?, reducer, slot)
}

/// `parallel_reduce` over `begin..end`.
pub(crate) fn launch<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Reduction> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = init_values(reducer, &fields)?;
    let wg = wg_size(ctx);
    let opts = EmitOptions {
        entry: Entry::Reduce,
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        in_bounds: p.proven(&[(begin, end)]),
        width: index_width(ctx, &p, &[begin as u64, end as u64]),
        splits: splits(ctx, &p)?,
    };
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = Reduction::new(&p.ir, joins, &init);
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(red);
    }
    let groups = n.div_ceil(wg as u64).min(REDUCE_GROUPS);
    let parts = Partials::new(ctx, &fields, groups);
    dispatch(
        ctx,
        &p,
        &c,
        &red.init,
        groups,
        &parts.refs(),
        true,
        |l, b| {
            l.set_u64(b, "begin", begin as u64);
            l.set_u64(b, "n", n);
            l.set_u64(b, "stride", groups * wg as u64);
        },
    )?;
    red.parts = Some(parts);
    Ok(red)
}
