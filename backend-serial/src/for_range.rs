//! `parallel_for` over a `RangePolicy`: one loop.

use rokkos_core::kernel::{Checked, ForBody, ForKernel, RangeWork};
use rokkos_core::{HostSpace, RangePolicy};

pub(crate) fn run<E, K: ForKernel<RangeWork, Space = HostSpace>>(
    policy: &RangePolicy<E>,
    kernel: Checked<'_, K>,
) {
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    for i in policy.begin()..policy.end() {
        body.call(i);
    }
}
