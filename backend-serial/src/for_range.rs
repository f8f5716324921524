//! `parallel_for` over a `RangePolicy`: one loop.

use rokkos_core::host_iter::run_for_chunk;
use rokkos_core::kernel::{ForKernel, RangeWork};
use rokkos_core::{HostSpace, Launch, RangePolicy};

pub(crate) fn run<K: ForKernel<RangeWork, Space = HostSpace>>(
    launch: Launch<'_, RangePolicy<crate::Serial>, K>,
) {
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::for_body) };
    let p = launch.policy();
    run_for_chunk(&body, p.begin()..p.end());
}
