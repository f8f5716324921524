//! `parallel_scan` over a `RangePolicy`: a single final pass in index order.

use rokkos_core::host_iter::run_scan_chunk;
use rokkos_core::kernel::{RangeWork, ScanKernel};
use rokkos_core::{HostSpace, Launch, RangePolicy, Reducer};

pub(crate) fn run<K, Rd>(
    launch: Launch<'_, RangePolicy<crate::Serial>, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ScanKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::scan_body) };
    let p = launch.policy();
    let mut acc = reducer.init();
    run_scan_chunk(&body, p.begin()..p.end(), &mut acc, true);
    acc
}
