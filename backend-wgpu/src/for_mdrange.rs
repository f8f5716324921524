//! `parallel_for` over an `MDRangePolicy`: a tile per workgroup at a time, the tiles strided
//! over at most `runtime::launch::GRID_INVOCATIONS` invocations (a tile larger than a workgroup
//! is walked by it in strides). [`setup`] and [`launch_box`] also serve `reduce_mdrange` (with a
//! reducer: one partial per workgroup). A launch whose split Views need more bindings than a shader
//! stage has runs as windows of one dimension (`runtime::window`), each tiled on its own (every
//! point runs once whatever the tiling).

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch_window, fold, grid_groups, index_width, pipeline, prepare, splits,
    unsupported, Prepared,
};
use crate::runtime::partials::Partials;
use crate::runtime::pipeline::Compiled;
use crate::runtime::reduction::{init_values, Reduction};
use crate::runtime::window::{fit, Windowing};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::ir::Value;
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::reducer::JoinKind;
use rokkos_core::{Error, MDRangePolicy, Reducer, Result, Sum};
use rokkos_device::emit::width::Work;
use std::sync::Arc;

/// `parallel_for` over `policy`.
pub(crate) fn run<const N: usize, K: KernelIr<Space = WgpuSpace>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
) -> Result<()> {
    let l = setup::<N, K, i32, Sum>(ctx, label, policy, kernel, None)?;
    for (b, e, bases) in &l.boxes {
        launch_box(ctx, &l, *b, *e, bases)?;
    }
    Ok(())
}

/// An MDRange launch compiled for one policy (see [`setup`]).
pub(crate) struct Tiled<'a, const N: usize> {
    /// The kernel and its arguments.
    pub p: Prepared<'a>,
    c: Arc<Compiled>,
    /// The tile extents.
    tile: [usize; N],
    /// Invocations per workgroup.
    wg: u32,
    /// With a reducer: its device joins and identity.
    reduce: Option<(Vec<JoinKind>, Vec<Value>)>,
    /// The boxes dispatched, in order, each `(begin, end, bases)`: the policy's box with no
    /// bases (every chunk bound), or the windows of a windowed launch with the first chunk
    /// each binds of each View.
    pub boxes: Vec<([usize; N], [usize; N], Vec<u32>)>,
}

/// Prepares and compiles `parallel_for` (no reducer) or `parallel_reduce` over an MDRange (one
/// tile per workgroup), fitting its bindings: a launch whose split Views need more than a
/// shader stage has runs as windows of one dimension (`runtime::window`), each tiled on its
/// own; a reduction's windows are then complete reductions of their boxes (every built-in
/// join is commutative and associative, so tiling each window on its own changes nothing
/// the reducer contract pins).
pub(crate) fn setup<
    'a,
    const N: usize,
    K: KernelIr<Space = WgpuSpace>,
    V: AccValue,
    Rd: Reducer<V>,
>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &'a K,
    reducer: Option<&Rd>,
) -> Result<Tiled<'a, N>> {
    let (begin, end, req) = (policy.begin(), policy.end(), policy.tiles());
    let p = prepare(ctx, kernel)?;
    let max = ctx.limits.max_compute_invocations_per_workgroup as usize;
    let t = rokkos_device::runtime::shape::mdrange_tiles(label, begin, end, req, max)?;
    let max = ctx.limits.max_compute_invocations_per_workgroup.min(256);
    let wg = (t.iter().product::<usize>() as u32).clamp(1, max);
    let fields = p.ir.acc_fields();
    let reduce = reducer.map(|r| init_values(r, &fields)).transpose()?;
    let entry = if reduce.is_some() {
        Entry::Reduce
    } else {
        Entry::For
    };
    if entry == Entry::Reduce {
        let bytes: usize = fields.iter().map(|(_, t)| t.size().max(4)).sum::<usize>()
            * wg.next_power_of_two() as usize;
        if bytes > ctx.limits.max_compute_workgroup_storage_size as usize {
            return Err(Error::InvalidPolicy {
                label: label.into(),
                reason: format!(
                    "tile {t:?} needs {bytes} bytes of workgroup memory for the reduction; max_compute_workgroup_storage_size is {}",
                    ctx.limits.max_compute_workgroup_storage_size
                ),
            });
        }
    }
    let mut opts = EmitOptions {
        entry,
        wg,
        joins: reduce.as_ref().map(|r| r.0.clone()).unwrap_or_default(),
        addr32: addr32_ok(&p),
        in_bounds: p.proven(&begin.into_iter().zip(end).collect::<Vec<_>>()),
        width: index_width(
            ctx,
            &p,
            Work::md(&begin, &end),
            &begin
                .iter()
                .chain(end.iter())
                .map(|&b| b as u64)
                .collect::<Vec<_>>(),
        )?,
        splits: splits(ctx, &p)?,
    };
    let windows = fit(
        ctx,
        &p,
        &mut opts,
        Windowing::Work(
            begin
                .iter()
                .zip(&end)
                .map(|(&b, &e)| (b as u64, e as u64))
                .collect(),
        ),
    )?;
    let c = pipeline(ctx, &p, &opts)?;
    let boxes = match windows {
        None => vec![(begin, end, Vec::new())],
        Some(ws) => ws
            .into_iter()
            .map(|w| {
                let (mut b, mut e) = (begin, end);
                (b[w.dim], e[w.dim]) = (w.begin as usize, w.end as usize);
                (b, e, w.bases)
            })
            .collect(),
    };
    Ok(Tiled {
        p,
        c,
        tile: t,
        wg,
        reduce,
        boxes,
    })
}

/// Launches `l` over the box `begin..end` (one of `l.boxes`), binding split Views' chunks from
/// `bases` on: for a reduction, its partials, one per tile (deferred to the partials' join).
pub(crate) fn launch_box<const N: usize>(
    ctx: &Arc<Ctx>,
    l: &Tiled<'_, N>,
    begin: [usize; N],
    end: [usize; N],
    bases: &[u32],
) -> Result<Option<Reduction>> {
    let p = &l.p;
    let fields = p.ir.acc_fields();
    let mut red = l
        .reduce
        .as_ref()
        .map(|(joins, init)| Reduction::new(&p.ir, joins.clone(), init));
    let ntiles = rokkos_device::runtime::shape::tile_counts(begin, end, l.tile).1;
    if ntiles == 0 {
        return Ok(red);
    }
    check_tiles(ntiles)?;
    let (gx, gy) = fold(ctx, grid_groups(ntiles, l.wg))?;
    let slots = gx as usize * gy as usize;
    let parts = red
        .is_some()
        .then(|| Partials::new(ctx, &fields, slots as u64));
    let refs = parts.as_ref().map_or_else(Vec::new, Partials::refs);
    let init = red.as_ref().map_or(&[][..], |r| &r.init[..]);
    dispatch_tiles(ctx, p, l, (begin, end), init, &refs, bases)?;
    if let (Some(r), Some(mut parts)) = (red.as_mut(), parts) {
        // Each workgroup folds its tiles into one partial; workgroups past the last tile
        // (more slots than tiles) hold nothing.
        parts.count = ntiles.min(slots as u64);
        r.parts = Some(parts);
    }
    Ok(red)
}

/// Dispatches one workgroup per tile of `t` over `begin..end` (`boxed`), binding split Views'
/// chunks from `bases` on (empty: all), with the reduction's partials `refs` when it has any
/// (then deferred to the partials' join).
fn dispatch_tiles<const N: usize>(
    ctx: &Ctx,
    p: &Prepared<'_>,
    l: &Tiled<'_, N>,
    (begin, end): ([usize; N], [usize; N]),
    init: &[rokkos_core::ir::Value],
    refs: &[&crate::runtime::pool::Pooled],
    bases: &[u32],
) -> Result<()> {
    let (c, t) = (&l.c, l.tile);
    let (nt, ntiles) = rokkos_device::runtime::shape::tile_counts(begin, end, t);
    if ntiles == 0 {
        return Ok(());
    }
    check_tiles(ntiles)?;
    let defer = !refs.is_empty();
    // The tiles strided over a bounded grid (`emit::entry`).
    let groups = grid_groups(ntiles, l.wg);
    dispatch_window(ctx, p, c, init, groups, refs, defer, bases, |l, b| {
        for k in 0..N {
            l.set_u64(b, &format!("b{k}"), begin[k] as u64);
            l.set_u64(b, &format!("e{k}"), end[k] as u64);
            l.set_u32(b, &format!("t{k}"), t[k] as u32);
            l.set_u32(b, &format!("nt{k}"), nt[k] as u32);
        }
        l.set_u32(b, "ntiles", ntiles as u32);
    })
}

/// Refuses more tiles than the parameter block's 32-bit tile count holds.
fn check_tiles(ntiles: u64) -> Result<()> {
    if ntiles > u32::MAX as u64 {
        return Err(unsupported(format!(
            "{ntiles} MDRange tiles (more than 2^32)"
        )));
    }
    Ok(())
}
