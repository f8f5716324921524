//! `parallel_scan` over a `RangePolicy`: a single final pass in index order.

use rokkos_core::kernel::{Checked, RangeWork, ScanBody, ScanKernel};
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
    for i in policy.begin()..policy.end() {
        body.call(i, &mut acc, true);
    }
    acc
}
