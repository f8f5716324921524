//! `parallel_for` over a `RangePolicy`: contiguous chunks as tasks.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, run_for_chunk, schedule_chunk_count};
use rokkos_core::kernel::{ForKernel, RangeWork};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, RangePolicy};

pub(crate) fn run<K: ForKernel<RangeWork, Space = HostSpace>>(
    space: &Rayon,
    launch: Launch<'_, RangePolicy<Rayon>, K>,
) {
    let body = launch.for_body();
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
    space.for_chunks(chunks, schedule, |c| {
        run_for_chunk(&body, chunk_bounds(b, e, chunks, c));
    });
}
