//! `parallel_scan` over a `RangePolicy`: reduce-then-scan in three passes of one module (block
//! totals; their exclusive prefixes and the grand total, in one block; the body with
//! `final == true` from each block's prefix), each thread owning consecutive indices so that
//! the grid stays within the blocks the device keeps resident. No pass waits for another block
//! (no forward-progress assumption); the total is read back for the host.
//!
//! A reducer whose join is host code (`Custom`) takes the **slow path** of
//! `rokkos_device::runtime::ordered`: no device join at all. Thread `t` folds contiguous block `t`
//! of the range with `final == false` into partial `t`, the host reads the partials back and
//! joins them in block order into each block's exclusive prefix and the total, writes the
//! prefixes over the partials, and thread `t` replays block `t` sequentially from its prefix
//! with `final == true` ([`Entry::OrderedScan`]). Each item runs twice, one thread per block
//! (uncoalesced loads), and the launch waits for the device in the middle: a built-in reducer is
//! much faster.

use crate::emit::entry::ORDERED_REPLAY;
use crate::emit::{
    entry::ENTRY,
    reduce::{SCAN_FINAL, SCAN_PARTS},
    CudaOptions, Entry,
};
use crate::runtime::args::set_u64;
use crate::runtime::device::Instance;
use crate::runtime::reduction::{finish_host, plan_values, Buffers};
use crate::runtime::run::{enqueue, index_width, params, prepare, resident_blocks, variant, BLOCK};
use crate::{Cuda, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{RangePolicy, Reducer, Result};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::limits;
use rokkos_device::runtime::ordered;
use std::sync::Arc;

/// Indices per thread and blocks for a scan over `n` indices with at most `cap` blocks: every
/// index owned by exactly one thread (`blocks * BLOCK * per >= n`), no block without an index.
pub(crate) fn scan_shape(n: u64, cap: u64) -> (u64, u64) {
    let threads = cap.max(1) * BLOCK as u64;
    let per = n.div_ceil(threads).max(1);
    (per, n.div_ceil(BLOCK as u64 * per).max(1))
}

/// `parallel_scan` over `begin..end`; returns the total.
pub(crate) fn run<K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    policy: &RangePolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(inst, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = plan_values(reducer, &fields)?;
    let Some(joins) = joins else {
        return ordered_scan(inst, policy, kernel, reducer, &init);
    };
    let opts = CudaOptions {
        entry: Entry::Scan,
        block: BLOCK,
        bounds_checks: true,
        joins,
        in_bounds: p.proven(&[(begin, end)]),
        team: None,
        width: index_width(&p, Work::range(begin, end), &[begin as u64, end as u64]),
    };
    let v = variant(inst, &p, &opts, &[ENTRY, SCAN_PARTS, SCAN_FINAL])?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(reducer.init());
    }
    // The resident blocks, or more where a thread would otherwise own more than `TRIPS_MAX`
    // indices.
    let cap = resident_blocks(inst, &v.entries[0])?.max(limits::min_groups(n, BLOCK as u64));
    let (per, blocks) = scan_shape(n, cap);
    let bufs = Buffers::new(inst, &fields, blocks)?;
    let mut b = params(&v, &p, &init)?;
    set_u64(&mut b, &v.layout, "begin", begin as u64)?;
    set_u64(&mut b, &v.layout, "n", n)?;
    set_u64(&mut b, &v.layout, "per", per)?;
    bufs.bind(&mut b, &v.layout, None)?;
    enqueue(inst, &p, &v, b, &[(0, blocks), (1, 1), (2, blocks)])?;
    finish_host(inst, reducer, Some(bufs))
}

/// The slow path of a scan whose join is host code (see the module docs); returns the total.
fn ordered_scan<K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    policy: &RangePolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
    init: &[rokkos_core::ir::Value],
) -> Result<V> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(inst, kernel)?;
    let fields = p.ir.acc_fields();
    let opts = CudaOptions {
        entry: Entry::OrderedScan,
        block: BLOCK,
        bounds_checks: true,
        joins: Vec::new(),
        in_bounds: p.proven(&[(begin, end)]),
        team: None,
        width: index_width(&p, Work::range(begin, end), &[begin as u64, end as u64]),
    };
    let v = variant(inst, &p, &opts, &[ENTRY, ORDERED_REPLAY])?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(reducer.init());
    }
    let parts = ordered::blocks(n, ordered::ORDERED_PARTIALS);
    let blocks = parts.div_ceil(BLOCK as u64);
    let bufs = Buffers::ordered(inst, &fields, parts)?;
    let block = || -> Result<_> {
        let mut b = params(&v, &p, init)?;
        set_u64(&mut b, &v.layout, "begin", begin as u64)?;
        set_u64(&mut b, &v.layout, "n", n)?;
        bufs.bind(&mut b, &v.layout, None)?;
        Ok(b)
    };
    enqueue(inst, &p, &v, block()?, &[(0, blocks)])?;
    let (prefixes, total) = ordered::scan_prefixes(&bufs.partials(inst)?, reducer)?;
    bufs.write_partials(inst, &prefixes)?;
    enqueue(inst, &p, &v, block()?, &[(1, blocks)])?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_has_one_thread_and_every_block_an_index() {
        for n in [1u64, 255, 256, 257, 1 << 20, (1 << 20) + 3, 10_000_019] {
            for cap in [1u64, 7, 132 * 8, 1 << 20] {
                let (per, blocks) = scan_shape(n, cap);
                let b = BLOCK as u64;
                assert!(blocks * b * per >= n, "n {n} cap {cap}");
                assert!(
                    (blocks - 1) * b * per < n,
                    "an empty block: n {n} cap {cap}"
                );
                assert!(blocks <= cap.max(1), "n {n} cap {cap}: {blocks} blocks");
            }
        }
    }
}
