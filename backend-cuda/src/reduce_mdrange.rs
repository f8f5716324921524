//! `parallel_reduce` over an `MDRangePolicy`: the tile launcher of `for_mdrange`, one partial per
//! block, joined by the second pass, completed as a host value or into a device View. A reducer
//! whose join is host code (`Custom`) takes the ordered-partials mode instead
//! (`rokkos_device::runtime::ordered`): runs of the host backends' tiles, in their order, one run
//! per thread, the runs' partials joined in order on the host.

use crate::emit::{entry::ENTRY, CudaOptions, Entry};
use crate::runtime::args::set_u64;
use crate::runtime::device::Instance;
use crate::runtime::reduction::{finish_host, finish_into, plan_values, Buffers};
use crate::runtime::run::{enqueue, index_width, params, prepare, unsupported, variant, BLOCK};
use crate::{Cuda, CudaBuffer, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::{describe_reducer, AccValue};
use rokkos_core::space::ResultSlot;
use rokkos_core::{MDRangePolicy, Pod, Reducer, Result};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::ordered::{self, OrderedTiles};
use std::sync::Arc;

/// The reduction's value on the host.
pub(crate) fn run<const N: usize, K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &MDRangePolicy<Cuda, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    let bufs = launch(inst, label, policy, kernel, reducer, None)?;
    finish_host(inst, reducer, bufs)
}

/// The reduction's value into `slot`, without waiting where the device can write it there.
pub(crate) fn run_into<
    const N: usize,
    K: KernelIr<Space = CudaSpace>,
    V: AccValue + Pod,
    Rd: Reducer<V>,
>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &MDRangePolicy<Cuda, N>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, CudaSpace>,
) -> Result<()> {
    let fields = prepare(inst, kernel)?.ir.acc_fields();
    finish_into(inst, &fields, reducer, slot, |into| {
        launch(inst, label, policy, kernel, reducer, into)
    })
}

/// Enqueues the reduction: the tile launcher's two passes, or the ordered mode's one.
fn launch<const N: usize, K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &MDRangePolicy<Cuda, N>,
    kernel: &K,
    reducer: &Rd,
    into: Option<(&CudaBuffer, usize)>,
) -> Result<Option<Buffers>> {
    if describe_reducer::<V, Rd>(reducer).is_none() {
        return ordered_launch(inst, policy, kernel, reducer);
    }
    crate::for_mdrange::launch(inst, label, policy, kernel, Some(reducer), into)
}

/// The tiles of an ordered MDRange reduction (the host backends', [`ordered::md_tiles`]) and the
/// work fields of its parameter block (`for_mdrange::work_fields`' names: begin, extent, tile
/// and tile count per dimension, the tile count and the points per tile). The launcher and
/// `check::CudaCheck` both take them from here.
pub(crate) fn ordered_work<S: Clone, const N: usize>(
    policy: &MDRangePolicy<S, N>,
) -> (OrderedTiles<N>, Vec<(String, u64)>) {
    let tiles = ordered::md_tiles(policy);
    let (begin, end) = (policy.begin(), policy.end());
    let mut f = Vec::new();
    for d in 0..N {
        f.push((format!("b{d}"), begin[d] as u64));
        f.push((format!("e{d}"), end[d].saturating_sub(begin[d]) as u64));
        f.push((format!("t{d}"), tiles.tile[d] as u64));
        f.push((format!("nt{d}"), tiles.count[d] as u64));
    }
    f.push(("ntiles".into(), tiles.ntiles as u64));
    f.push((
        "tvol".into(),
        tiles.tile.iter().map(|&t| t as u64).product::<u64>(),
    ));
    (tiles, f)
}

/// The ordered-partials launch: one run of whole tiles per thread, one partial per run.
fn ordered_launch<const N: usize, K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    policy: &MDRangePolicy<Cuda, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Option<Buffers>> {
    let p = prepare(inst, kernel)?;
    let fields = p.ir.acc_fields();
    let (_, init) = plan_values(reducer, &fields)?;
    let (tiles, work) = ordered_work(policy);
    let bounds = crate::for_mdrange::width_bounds(policy.begin(), policy.end(), &work);
    let opts = CudaOptions {
        entry: Entry::Ordered { left: tiles.left },
        block: BLOCK,
        bounds_checks: true,
        joins: Vec::new(),
        // The ordered mode keeps every check: it is the slow path of host-code joins.
        in_bounds: Default::default(),
        team: None,
        width: index_width(&p, Work::md(&policy.begin(), &policy.end()), &bounds),
    };
    let v = variant(inst, &p, &opts, &[ENTRY])?;
    let ntiles = tiles.ntiles as u64;
    if ntiles == 0 {
        return Ok(None);
    }
    if ntiles > u32::MAX as u64 {
        return Err(unsupported(format!(
            "{ntiles} MDRange tiles (more than 2^32)"
        )));
    }
    let mut b = params(&v, &p, &init)?;
    for (name, x) in &work {
        set_u64(&mut b, &v.layout, name, *x)?;
    }
    // One run of tiles per thread up to the partials' cap (a tile is many points, usually).
    let parts = ordered::blocks(ntiles, ntiles);
    let bufs = Buffers::ordered(inst, &fields, parts)?;
    bufs.bind(&mut b, &v.layout, None)?;
    enqueue(inst, &p, &v, b, &[(0, parts.div_ceil(BLOCK as u64))])?;
    Ok(Some(bufs))
}
