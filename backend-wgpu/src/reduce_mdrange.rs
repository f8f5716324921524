//! `parallel_reduce` over an `MDRangePolicy`: the tile launcher of `for_mdrange`, one partial per
//! tile, completed as a host value or into a device View. A reducer whose join is host code
//! (`Custom`) takes the ordered-partials mode (`rokkos_device::runtime::ordered`) instead.
//!
//! A launch whose split Views need more bindings than a shader stage has runs as consecutive
//! windows of one dimension (`runtime::window`), each a complete reduction of its box, whose
//! values the host joins in window order with the reducer's join (a `parallel_reduce_into`
//! then writes the value from the host, waiting for the device). With a built-in reducer the
//! windows are those of a `parallel_for` (the dimension that takes the fewest); with a join in
//! host code they are runs of whole tiles along the slowest tile dimension, so that the
//! windows, in order, walk the tiles in the host backends' order and every item is joined in
//! the order of the unwindowed launch.

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch_window, index_width, pipeline, prepare, splits, unsupported, wg_size,
};
use crate::runtime::partials::Partials;
use crate::runtime::reduction::{finish_into, join_windows, plan_values, Reduction};
use crate::runtime::window::{fit, Windowing};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::{describe_reducer, AccValue};
use rokkos_core::space::ResultSlot;
use rokkos_core::{MDRangePolicy, Pod, Reducer, Result};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::ordered;
use std::sync::Arc;

/// The reduction's value on the host.
pub(crate) fn run<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    let reds = launch::<N, K, V, Rd>(ctx, label, policy, kernel, reducer)?;
    join_windows(ctx, reds, reducer)
}

/// The reduction's value into `slot`, without waiting where the device can join it there (a
/// windowed launch waits: its value is joined on the host).
pub(crate) fn run_into<
    const N: usize,
    K: KernelIr<Space = WgpuSpace>,
    V: AccValue + Pod,
    Rd: Reducer<V>,
>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, WgpuSpace>,
) -> Result<()> {
    let mut reds = launch::<N, K, V, Rd>(ctx, label, policy, kernel, reducer)?;
    match (reds.pop(), reds.is_empty()) {
        (Some(red), true) => finish_into(ctx, red, reducer, slot),
        (last, _) => {
            reds.extend(last);
            slot.write(join_windows(ctx, reds, reducer)?)
        }
    }
}

/// Launches the reduction: one [`Reduction`] per window, in order (one for a launch that is
/// not windowed; none for a windowed launch with no work).
fn launch<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Vec<Reduction>> {
    if describe_reducer::<V, Rd>(reducer).is_none() {
        return ordered_launch(ctx, policy, kernel, reducer);
    }
    let l = crate::for_mdrange::setup(ctx, label, policy, kernel, Some(reducer))?;
    // Every window is launched before any is read back, so that the device runs them in one
    // go; the shared launcher always makes a reduction when given a reducer.
    l.boxes
        .iter()
        .filter_map(|(b, e, bases)| {
            crate::for_mdrange::launch_box(ctx, &l, *b, *e, bases).transpose()
        })
        .collect()
}

/// The ordered-partials mode (`rokkos_device::runtime::ordered`) for a reducer whose join is host
/// code: the host backends' tiles, in their order, cut into runs of whole tiles, one run per
/// invocation, one partial per run. Windowed, each window is a run of whole tiles of the
/// slowest tile dimension (the most significant digit of the tiles' order), so the windows'
/// tiles, one window after the other, are the policy's tiles in order.
fn ordered_launch<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Vec<Reduction>> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (_, init) = plan_values(reducer, &fields)?;
    let tiles = ordered::md_tiles(policy);
    let wg = wg_size(ctx);
    let bounds: Vec<u64> = begin.iter().chain(end.iter()).map(|&b| b as u64).collect();
    let mut opts = EmitOptions {
        entry: Entry::Ordered { left: tiles.left },
        wg,
        joins: Vec::new(),
        addr32: addr32_ok(&p),
        // The ordered mode keeps every check: it is the slow path of host-code joins.
        in_bounds: Default::default(),
        width: index_width(ctx, &p, Work::md(&begin, &end), &bounds)?,
        splits: splits(ctx, &p)?,
    };
    // The slowest dimension of the tiles' order.
    let dim = if tiles.left { N.saturating_sub(1) } else { 0 };
    let windows = fit(
        ctx,
        &p,
        &mut opts,
        Windowing::Steps {
            bounds: begin
                .iter()
                .zip(&end)
                .map(|(&b, &e)| (b as u64, e as u64))
                .collect(),
            dim,
            step: tiles.tile[dim] as u64,
        },
    )?;
    let c = pipeline(ctx, &p, &opts)?;
    if tiles.ntiles == 0 {
        return Ok(vec![Reduction::ordered(&p.ir, &init)]);
    }
    let runs: Vec<(usize, usize, Vec<u32>)> = match windows {
        None => vec![(begin[dim], end[dim], Vec::new())],
        Some(ws) => ws
            .into_iter()
            .map(|w| (w.begin as usize, w.end as usize, w.bases))
            .collect(),
    };
    let mut reds = Vec::with_capacity(runs.len());
    for (lo, hi, bases) in runs {
        let mut red = Reduction::ordered(&p.ir, &init);
        // The window's tiles: the policy's, with the windowed dimension's cut to `lo..hi`
        // (whole tiles from the policy's begin, so the same tiles).
        let (mut b, mut e, mut count) = (begin, end, tiles.count);
        if (lo, hi) != (begin[dim], end[dim]) {
            (b[dim], e[dim]) = (lo, hi);
            count[dim] = (hi - lo).div_ceil(tiles.tile[dim].max(1));
        }
        let ntiles: usize = count.iter().product();
        let (ntiles, tile, count) = match (
            u32::try_from(ntiles),
            tiles.tile.map(u32::try_from),
            count.map(u32::try_from),
        ) {
            (Ok(n), t, c) if t.iter().chain(&c).all(|x| x.is_ok()) => {
                (n, t.map(|x| x.unwrap_or(0)), c.map(|x| x.unwrap_or(0)))
            }
            _ => {
                return Err(unsupported(format!(
                    "{} MDRange tiles of {:?} points (counts and extents past 2^32)",
                    tiles.ntiles, tiles.tile
                )))
            }
        };
        // One tile per invocation up to the partials' cap (a tile is many points, usually).
        let parts = ordered::blocks(u64::from(ntiles), u64::from(ntiles));
        let groups = parts.div_ceil(wg as u64);
        let bufs = Partials::new(ctx, &fields, parts);
        dispatch_window(
            ctx,
            &p,
            &c,
            &init,
            groups,
            &bufs.refs(),
            true,
            &bases,
            |l, blk| {
                for k in 0..N {
                    l.set_u64(blk, &format!("b{k}"), b[k] as u64);
                    l.set_u64(blk, &format!("e{k}"), e[k] as u64);
                    l.set_u32(blk, &format!("t{k}"), tile[k]);
                    l.set_u32(blk, &format!("nt{k}"), count[k]);
                }
                l.set_u32(blk, "ntiles", ntiles);
                l.set_u32(blk, "parts", parts as u32);
            },
        )?;
        red.parts = Some(bufs);
        reds.push(red);
    }
    Ok(reds)
}
