//! `parallel_reduce` over a `RangePolicy`: one accumulator per chunk, joined in chunk order.

use crate::{join_in_order, Rayon};
use rokkos_core::host_iter::{chunk_bounds, chunk_count, run_reduce_chunk};
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
    let chunks = chunk_count(policy.len(), space.concurrency(), policy.chunk());
    let partials = space.map_chunks(chunks, |c| {
        let mut acc = reducer.init();
        run_reduce_chunk(&body, chunk_bounds(b, e, chunks, c), &mut acc);
        acc
    });
    join_in_order(reducer, partials)
}
