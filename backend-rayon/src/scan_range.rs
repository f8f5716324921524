//! `parallel_scan` over a `RangePolicy`: per-chunk totals (non-final pass), an exclusive scan of
//! the totals in chunk order, then a final pass per chunk from its offset. With a commutative
//! join the totals fold in interleaved lanes, as a reduction's partials do: the final pass is a
//! dependency chain that nothing shortens, the totals pass need not be one.
//!
//! The schedule decides which thread runs which chunk in each pass, not the order of the
//! result: the totals come back in chunk order, each chunk's offset is the join of the earlier
//! chunks' totals in chunk order, and the final pass of a chunk runs its indices in order from
//! that offset, so every schedule gives the same prefixes (a `Dynamic` scan with a small chunk
//! size has more, shorter chunks, and so more totals to join).

use crate::Rayon;
use rokkos_core::host_iter::{
    chunk_bounds, run_reduce_lanes, run_scan_chunk, schedule_chunk_count, ScanTotals,
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
    let schedule = policy.schedule_kind();
    let chunks = schedule_chunk_count(
        policy.len(),
        1,
        space.concurrency(),
        policy.chunk(),
        schedule,
    );
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
    let totals = space.map_chunks(chunks, schedule, |c| {
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
    space.for_chunks(chunks, schedule, |c| {
        pass(c, offsets[c], true);
    });
    running
}
