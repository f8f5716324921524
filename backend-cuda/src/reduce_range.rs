//! `parallel_reduce` over a `RangePolicy`: the grid-stride loop of `for_range` folding into one
//! partial per block, then one block joining the partials into the result (no floating-point
//! atomics: the same bits run to run on a device), completed as a host value or into a device
//! View (`runtime::reduction`). A reducer whose join is host code (`Custom`) takes the
//! ordered-partials mode instead (`rokkos_device::runtime::ordered`): one contiguous block of the
//! range per thread, the blocks' partials joined in order on the host.

use crate::emit::{entry::ENTRY, reduce::FINAL, CudaOptions, Entry};
use crate::runtime::args::set_u64;
use crate::runtime::device::Instance;
use crate::runtime::reduction::{finish_host, finish_into, plan_values, Buffers};
use crate::runtime::run::{enqueue, index_width, params, prepare, resident_blocks, variant, BLOCK};
use crate::{Cuda, CudaBuffer, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::space::ResultSlot;
use rokkos_core::{Pod, RangePolicy, Reducer, Result};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::ordered;
use rokkos_device::runtime::shape::grid_stride_groups;
use std::sync::Arc;

/// The reduction's value on the host.
pub(crate) fn run<K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    policy: &RangePolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    let bufs = launch(inst, policy, kernel, reducer, None)?;
    finish_host(inst, reducer, bufs)
}

/// The reduction's value into `slot`, without waiting where the device can write it there.
pub(crate) fn run_into<K: KernelIr<Space = CudaSpace>, V: AccValue + Pod, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    policy: &RangePolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, CudaSpace>,
) -> Result<()> {
    let fields = prepare(inst, kernel)?.ir.acc_fields();
    finish_into(inst, &fields, reducer, slot, |into| {
        launch(inst, policy, kernel, reducer, into)
    })
}

/// Enqueues both passes over `begin..end`, the result to `into` (a buffer and byte offset) or to
/// the returned buffers; `None` for an empty range.
fn launch<K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    policy: &RangePolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
    into: Option<(&CudaBuffer, usize)>,
) -> Result<Option<Buffers>> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(inst, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = plan_values(reducer, &fields)?;
    let ordered = joins.is_none();
    let opts = CudaOptions {
        entry: if ordered {
            Entry::Ordered { left: false }
        } else {
            Entry::Reduce
        },
        block: BLOCK,
        bounds_checks: true,
        joins: joins.unwrap_or_default(),
        in_bounds: p.proven(&[(begin, end)]),
        team: None,
        width: index_width(&p, Work::range(begin, end), &[begin as u64, end as u64]),
    };
    let entries: &[&str] = if ordered { &[ENTRY] } else { &[ENTRY, FINAL] };
    let v = variant(inst, &p, &opts, entries)?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(None);
    }
    let blocks = grid_stride_groups(n, BLOCK as u64, resident_blocks(inst, &v.entries[0])?);
    let mut b = params(&v, &p, &init)?;
    set_u64(&mut b, &v.layout, "begin", begin as u64)?;
    set_u64(&mut b, &v.layout, "n", n)?;
    if ordered {
        // One contiguous block of items per thread, one partial per block.
        let parts = ordered::blocks(n, blocks * BLOCK as u64);
        let bufs = Buffers::ordered(inst, &fields, parts)?;
        bufs.bind(&mut b, &v.layout, None)?;
        enqueue(inst, &p, &v, b, &[(0, parts.div_ceil(BLOCK as u64))])?;
        return Ok(Some(bufs));
    }
    let bufs = Buffers::new(inst, &fields, blocks)?;
    bufs.bind(&mut b, &v.layout, into)?;
    enqueue(inst, &p, &v, b, &[(0, blocks), (1, 1)])?;
    Ok(Some(bufs))
}
