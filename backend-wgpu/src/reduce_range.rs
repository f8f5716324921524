//! `parallel_reduce` over a `RangePolicy`: each invocation folds a grid-stride slice (at most
//! [`REDUCE_GROUPS`] workgroups), the workgroup joins in a tree, one partial per workgroup; the
//! partials complete as a host value or into a device View (`runtime::reduction`). A reducer
//! whose join is host code (`Custom`) takes the ordered-partials mode instead
//! (`rokkos_core::device::ordered`): each invocation folds one contiguous block of the range,
//! and the host joins the blocks' partials in order.

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch, index_width, pipeline, prepare, splits, wg_size,
};
use crate::runtime::partials::Partials;
use crate::runtime::reduction::{finish_host, finish_into, plan_values, Reduction};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::device::ordered;
use rokkos_core::emit::width::Work;
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
    let (joins, init) = plan_values(reducer, &fields)?;
    let wg = wg_size(ctx);
    let opts = EmitOptions {
        entry: if joins.is_some() {
            Entry::Reduce
        } else {
            Entry::Ordered { left: false }
        },
        wg,
        joins: joins.clone().unwrap_or_default(),
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
    let mut red = match joins {
        Some(joins) => Reduction::new(&p.ir, joins, &init),
        None => Reduction::ordered(&p.ir, &init),
    };
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(red);
    }
    let groups = n.div_ceil(wg as u64).min(REDUCE_GROUPS);
    // The ordered mode: one contiguous block of items per invocation, one partial per block.
    let (groups, parts) = if red.ordered {
        let parts = ordered::blocks(n, groups * wg as u64);
        (parts.div_ceil(wg as u64), parts)
    } else {
        (groups, groups)
    };
    let bufs = Partials::new(ctx, &fields, parts);
    dispatch(
        ctx,
        &p,
        &c,
        &red.init,
        groups,
        &bufs.refs(),
        true,
        |l, b| {
            l.set_u64(b, "begin", begin as u64);
            l.set_u64(b, "n", n);
            l.set_u64(b, "stride", groups * wg as u64);
            l.set_u64(b, "parts", parts);
        },
    )?;
    red.parts = Some(bufs);
    Ok(red)
}
