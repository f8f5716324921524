//! `parallel_for` over an `MDRangePolicy`: one tile per workgroup (a tile larger than a workgroup
//! is walked by it in strides). [`launch`] also serves `reduce_mdrange` (with a reducer: one
//! partial per tile).

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch, fold, index_width, pipeline, prepare, splits, unsupported,
};
use crate::runtime::partials::Partials;
use crate::runtime::reduction::{init_values, Reduction};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::emit::width::Work;
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{Error, MDRangePolicy, Reducer, Result, Sum};
use std::sync::Arc;

/// `parallel_for` over `policy`.
pub(crate) fn run<const N: usize, K: KernelIr<Space = WgpuSpace>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
) -> Result<()> {
    launch::<N, K, i32, Sum>(ctx, label, policy, kernel, None).map(|_| ())
}

/// `parallel_for` / `parallel_reduce` over an MDRange (one tile per workgroup).
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch<
    const N: usize,
    K: KernelIr<Space = WgpuSpace>,
    V: AccValue,
    Rd: Reducer<V>,
>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: Option<&Rd>,
) -> Result<Option<Reduction>> {
    let (begin, end, req) = (policy.begin(), policy.end(), policy.tiles());
    let p = prepare(ctx, kernel)?;
    let max = ctx.limits.max_compute_invocations_per_workgroup as usize;
    let t = rokkos_core::device::shape::mdrange_tiles(label, begin, end, req, max)?;
    let max = ctx.limits.max_compute_invocations_per_workgroup.min(256);
    let wg = (t.iter().product::<usize>() as u32).clamp(1, max);
    let fields = p.ir.acc_fields();
    let (entry, joins, init) = match reducer {
        Some(r) => {
            let (j, i) = init_values(r, &fields)?;
            (Entry::Reduce, j, i)
        }
        None => (Entry::For, vec![], vec![]),
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
    let opts = EmitOptions {
        entry,
        wg,
        joins: joins.clone(),
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
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = reducer.map(|_| Reduction::new(&p.ir, joins, &init));
    let (nt, ntiles) = rokkos_core::device::shape::tile_counts(begin, end, t);
    if ntiles == 0 {
        return Ok(red);
    }
    if ntiles > u32::MAX as u64 {
        return Err(unsupported(format!(
            "{ntiles} MDRange tiles (more than 2^32)"
        )));
    }
    let (gx, gy) = fold(ctx, ntiles)?;
    let slots = gx as usize * gy as usize;
    let parts = red
        .is_some()
        .then(|| Partials::new(ctx, &fields, slots as u64));
    let refs = parts.as_ref().map_or_else(Vec::new, Partials::refs);
    dispatch(ctx, &p, &c, &init, ntiles, &refs, red.is_some(), |l, b| {
        for k in 0..N {
            l.set_u64(b, &format!("b{k}"), begin[k] as u64);
            l.set_u64(b, &format!("e{k}"), end[k] as u64);
            l.set_u32(b, &format!("t{k}"), t[k] as u32);
            l.set_u32(b, &format!("nt{k}"), nt[k] as u32);
        }
        l.set_u32(b, "ntiles", ntiles as u32);
    })?;
    if let (Some(r), Some(mut parts)) = (red.as_mut(), parts) {
        // Slots past the last tile (the folded grid's tail) hold nothing.
        parts.count = ntiles;
        r.parts = Some(parts);
    }
    Ok(red)
}
