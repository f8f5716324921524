//! `parallel_reduce` over a `RangePolicy`: each invocation folds a grid-stride slice (at most
//! [`REDUCE_GROUPS`] workgroups), the workgroup joins in a tree, one partial per workgroup; the
//! partials complete as a host value or into a device View (`runtime::reduction`). A reducer
//! whose join is host code (`Custom`) takes the ordered-partials mode instead
//! (`rokkos_device::runtime::ordered`): each invocation folds one contiguous block of the range,
//! and the host joins the blocks' partials in order. A launch whose split Views need more
//! bindings than a shader stage has runs as consecutive windows of the range
//! (`runtime::window`), each a complete reduction of its sub-range; the host joins the
//! windows' values in window order with the reducer's join (so the result depends only on the
//! size and the binding limit), and a `parallel_reduce_into` then writes the value from the
//! host, waiting for the device.

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch_window, index_width, pipeline, prepare, splits, wg_size, Prepared,
};
use crate::runtime::partials::Partials;
use crate::runtime::pipeline::Compiled;
use crate::runtime::reduction::{finish_host, finish_into, join_windows, plan_values, Reduction};
use crate::runtime::window::{fit, Window, Windowing};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::space::ResultSlot;
use rokkos_core::{Pod, RangePolicy, Reducer, Result};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::ordered;
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
    let (begin, end) = (policy.begin() as u64, policy.end() as u64);
    let l = setup(ctx, policy, kernel, reducer)?;
    match &l.windows {
        None => finish_host(ctx, launch(ctx, &l, begin, end, &[])?, reducer),
        Some(ws) => windowed(ctx, &l, reducer, ws),
    }
}

/// The reduction's value into `slot`, without waiting where the device can join it there (a
/// windowed launch waits: its value is joined on the host).
pub(crate) fn run_into<K: KernelIr<Space = WgpuSpace>, V: AccValue + Pod, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, WgpuSpace>,
) -> Result<()> {
    let (begin, end) = (policy.begin() as u64, policy.end() as u64);
    let l = setup(ctx, policy, kernel, reducer)?;
    match &l.windows {
        None => finish_into(ctx, launch(ctx, &l, begin, end, &[])?, reducer, slot),
        Some(ws) => slot.write(windowed(ctx, &l, reducer, ws)?),
    }
}

/// A reduction compiled for one policy: its kernel and arguments, the compiled module, the
/// reducer's device joins (`None`: the ordered-partials mode) and identity, and its windows
/// (`None`: one launch over the whole range).
struct Setup<'a> {
    p: Prepared<'a>,
    c: Arc<Compiled>,
    joins: Option<Vec<rokkos_core::reducer::JoinKind>>,
    init: Vec<rokkos_core::ir::Value>,
    /// Invocations per workgroup.
    wg: u32,
    windows: Option<Vec<Window>>,
}

/// Prepares and compiles `parallel_reduce` over the policy's range, fitting its bindings
/// (`runtime::window`).
fn setup<'a, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &'a K,
    reducer: &Rd,
) -> Result<Setup<'a>> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = plan_values(reducer, &fields)?;
    let wg = wg_size(ctx);
    let mut opts = EmitOptions {
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
    let windows = fit(
        ctx,
        &p,
        &mut opts,
        Windowing::Work(vec![(begin as u64, end as u64)]),
    )?;
    let c = pipeline(ctx, &p, &opts)?;
    Ok(Setup {
        p,
        c,
        joins,
        init,
        wg,
        windows,
    })
}

/// The windows of a windowed reduction launched in order, each a complete reduction of its
/// work items, then their values joined on the host in window order.
fn windowed<V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    l: &Setup<'_>,
    reducer: &Rd,
    windows: &[Window],
) -> Result<V> {
    // Every window is launched before any is read back, so that the device runs them in one
    // go.
    let reds = windows
        .iter()
        .map(|w| launch(ctx, l, w.begin, w.end, &w.bases))
        .collect::<Result<Vec<Reduction>>>()?;
    join_windows(ctx, reds, reducer)
}

/// Launches the reduction of work items `begin..end`, binding split Views' chunks from
/// `bases` on (empty: all of them).
fn launch(ctx: &Arc<Ctx>, l: &Setup<'_>, begin: u64, end: u64, bases: &[u32]) -> Result<Reduction> {
    let (p, c) = (&l.p, &l.c);
    let fields = p.ir.acc_fields();
    let wg = l.wg;
    let mut red = match &l.joins {
        Some(joins) => Reduction::new(&p.ir, joins.clone(), &l.init),
        None => Reduction::ordered(&p.ir, &l.init),
    };
    let n = end.saturating_sub(begin);
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
    dispatch_window(
        ctx,
        p,
        c,
        &red.init,
        groups,
        &bufs.refs(),
        true,
        bases,
        |l, b| {
            l.set_u64(b, "begin", begin);
            l.set_u64(b, "n", n);
            l.set_u64(b, "stride", groups * wg as u64);
            l.set_u64(b, "parts", parts);
        },
    )?;
    red.parts = Some(bufs);
    Ok(red)
}
