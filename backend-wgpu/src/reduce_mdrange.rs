//! `parallel_reduce` over an `MDRangePolicy`: the tile launcher of `for_mdrange`, one partial per
//! tile, completed as a host value or into a device View. A reducer whose join is host code
//! (`Custom`) takes the ordered-partials mode (`rokkos_core::device::ordered`) instead.

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch, index_width, pipeline, prepare, splits, unsupported, wg_size,
};
use crate::runtime::partials::Partials;
use crate::runtime::reduction::{finish_host, finish_into, plan_values, Reduction};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::device::ordered;
use rokkos_core::emit::width::Work;
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::{describe_reducer, AccValue};
use rokkos_core::space::ResultSlot;
use rokkos_core::{Error, MDRangePolicy, Pod, Reducer, Result};
use std::sync::Arc;

/// The reduction's value on the host.
pub(crate) fn run<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    finish_host(
        ctx,
        launch::<N, K, V, Rd>(ctx, label, policy, kernel, reducer)?,
        reducer,
    )
}

/// The reduction's value into `slot`, without waiting where the device can join it there.
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
    let red = launch::<N, K, V, Rd>(ctx, label, policy, kernel, reducer)?;
    finish_into(ctx, red, reducer, slot)
}

fn launch<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Reduction> {
    if describe_reducer::<V, Rd>(reducer).is_none() {
        return ordered_launch(ctx, policy, kernel, reducer);
    }
    // The shared launcher always launches a reduction when given a reducer.
    crate::for_mdrange::launch(ctx, label, policy, kernel, Some(reducer))?
        .ok_or_else(|| Error::InvalidArgument("reduction without a result".into()))
}

/// The ordered-partials mode (`rokkos_core::device::ordered`) for a reducer whose join is host
/// code: the host backends' tiles, in their order, cut into runs of whole tiles, one run per
/// invocation, one partial per run.
fn ordered_launch<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Reduction> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (_, init) = plan_values(reducer, &fields)?;
    let tiles = ordered::md_tiles(policy);
    let wg = wg_size(ctx);
    let bounds: Vec<u64> = begin.iter().chain(end.iter()).map(|&b| b as u64).collect();
    let opts = EmitOptions {
        entry: Entry::Ordered { left: tiles.left },
        wg,
        joins: Vec::new(),
        addr32: addr32_ok(&p),
        // The ordered mode keeps every check: it is the slow path of host-code joins.
        in_bounds: Default::default(),
        width: index_width(ctx, &p, Work::md(&begin, &end), &bounds)?,
        splits: splits(ctx, &p)?,
    };
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = Reduction::ordered(&p.ir, &init);
    if tiles.ntiles == 0 {
        return Ok(red);
    }
    let (ntiles, tile, count) = match (
        u32::try_from(tiles.ntiles),
        tiles.tile.map(u32::try_from),
        tiles.count.map(u32::try_from),
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
    dispatch(ctx, &p, &c, &init, groups, &bufs.refs(), true, |l, b| {
        for k in 0..N {
            l.set_u64(b, &format!("b{k}"), begin[k] as u64);
            l.set_u64(b, &format!("e{k}"), end[k] as u64);
            l.set_u32(b, &format!("t{k}"), tile[k]);
            l.set_u32(b, &format!("nt{k}"), count[k]);
        }
        l.set_u32(b, "ntiles", ntiles);
        l.set_u32(b, "parts", parts as u32);
    })?;
    red.parts = Some(bufs);
    Ok(red)
}
