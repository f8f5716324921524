//! `parallel_reduce` over a `RangePolicy`: one accumulator per chunk, joined in chunk order.

use crate::{join_in_order, Rayon};
use rokkos_core::host_iter::{chunk_bounds, chunk_count, run_reduce_chunk};
use rokkos_core::kernel::{Checked, RangeWork, ReduceKernel};
use rokkos_core::{ExecutionSpace, HostSpace, RangePolicy, Reducer};

pub(crate) fn run<K, Rd>(
    space: &Rayon,
    policy: &RangePolicy<Rayon>,
    kernel: Checked<'_, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let (b, e) = (policy.begin(), policy.end());
    let chunks = chunk_count(e - b, space.concurrency(), policy.chunk());
    let partials = space.map_chunks(chunks, |c| {
        let mut acc = reducer.init();
        run_reduce_chunk(&body, chunk_bounds(b, e, chunks, c), &mut acc);
        acc
    });
    join_in_order(reducer, partials)
}
