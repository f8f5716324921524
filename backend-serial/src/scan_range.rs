//! `parallel_scan` over a `RangePolicy`: a single final pass in index order.

use rokkos_core::host_iter::run_scan_chunk;
use rokkos_core::kernel::{Checked, RangeWork, ScanKernel};
use rokkos_core::{HostSpace, RangePolicy, Reducer};

pub(crate) fn run<E, K, Rd>(
    policy: &RangePolicy<E>,
    kernel: Checked<'_, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ScanKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let mut acc = reducer.init();
    run_scan_chunk(&body, policy.begin()..policy.end(), &mut acc, true);
    acc
}
