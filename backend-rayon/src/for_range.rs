//! `parallel_for` over a `RangePolicy`: contiguous chunks as tasks.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, chunk_count, run_for_chunk};
use rokkos_core::kernel::{Checked, ForKernel, RangeWork};
use rokkos_core::{ExecutionSpace, HostSpace, RangePolicy};

pub(crate) fn run<K: ForKernel<RangeWork, Space = HostSpace>>(
    space: &Rayon,
    policy: &RangePolicy<Rayon>,
    kernel: Checked<'_, K>,
) {
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let (b, e) = (policy.begin(), policy.end());
    let chunks = chunk_count(e - b, space.concurrency(), policy.chunk());
    space.for_chunks(chunks, |c| {
        run_for_chunk(&body, chunk_bounds(b, e, chunks, c));
    });
}
