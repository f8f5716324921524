//! `parallel_for` over a `RangePolicy`: one loop.

use rokkos_core::host_iter::run_for_chunk;
use rokkos_core::kernel::{Checked, ForKernel, RangeWork};
use rokkos_core::{HostSpace, RangePolicy};

pub(crate) fn run<E, K: ForKernel<RangeWork, Space = HostSpace>>(
    policy: &RangePolicy<E>,
    kernel: Checked<'_, K>,
) {
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    run_for_chunk(&body, policy.begin()..policy.end());
}
