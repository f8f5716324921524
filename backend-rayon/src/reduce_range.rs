//! `parallel_reduce` over a `RangePolicy`: one partial per chunk, joined in chunk order.

use crate::{join_in_order, Rayon};
use rokkos_core::host_iter::{
    chunk_bounds, run_reduce_chunk, run_reduce_lanes, schedule_chunk_count,
};
use rokkos_core::kernel::{RangeWork, ReduceKernel};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, RangePolicy, Reducer};

pub(crate) fn run<K, Rd>(
    space: &Rayon,
    launch: Launch<'_, RangePolicy<Rayon>, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    let body = launch.reduce_body();
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
    // A commutative join lets each chunk fold into interleaved lanes (`run_reduce_lanes`); the
    // others keep one accumulator per chunk, so that their partials join in iteration order.
    let lanes = rokkos_core::reducer::is_commutative(reducer);
    // The partials come back in chunk order whichever thread ran each chunk (any schedule).
    let partials = space.map_chunks(chunks, schedule, |c| {
        let r = chunk_bounds(b, e, chunks, c);
        if lanes {
            return run_reduce_lanes(&body, r, reducer);
        }
        let mut acc = reducer.init();
        run_reduce_chunk(&body, r, &mut acc);
        acc
    });
    join_in_order(reducer, partials)
}
