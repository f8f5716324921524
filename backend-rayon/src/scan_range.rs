//! `parallel_scan` over a `RangePolicy`: per-chunk totals (non-final pass), an exclusive scan of
//! the totals in chunk order, then a final pass per chunk from its offset. With a commutative
//! join the totals fold in interleaved lanes, as a reduction's partials do: the final pass is a
//! dependency chain that nothing shortens, the totals pass need not be one.

use crate::Rayon;
use rokkos_core::host_iter::{
    chunk_bounds, chunk_count, run_reduce_lanes, run_scan_chunk, ScanTotals,
};
use rokkos_core::kernel::{RangeWork, ScanKernel};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, RangePolicy, Reducer};

pub(crate) fn run<K, Rd>(
    space: &Rayon,
    launch: Launch<'_, RangePolicy<Rayon>, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ScanKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    let body = launch.scan_body();
    let policy = launch.policy();
    let (b, e) = (policy.begin(), policy.end());
    let chunks = chunk_count(policy.len(), space.concurrency(), policy.chunk());
    let pass = |c: usize, start: K::Value, is_final: bool| {
        let mut acc = start;
        run_scan_chunk(&body, chunk_bounds(b, e, chunks, c), &mut acc, is_final);
        acc
    };
    if chunks <= 1 {
        return if chunks == 0 {
            reducer.init()
        } else {
            pass(0, reducer.init(), true)
        };
    }
    let lanes = rokkos_core::reducer::is_commutative(reducer);
    let totals = space.map_chunks(chunks, |c| {
        if lanes {
            return run_reduce_lanes(&ScanTotals(&body), chunk_bounds(b, e, chunks, c), reducer);
        }
        pass(c, reducer.init(), false)
    });
    let mut offsets = Vec::with_capacity(chunks);
    let mut running = reducer.init();
    for t in totals {
        offsets.push(running);
        reducer.join(&mut running, t);
    }
    space.for_chunks(chunks, |c| {
        pass(c, offsets[c], true);
    });
    running
}
