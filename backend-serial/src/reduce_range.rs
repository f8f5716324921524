//! `parallel_reduce` over a `RangePolicy`: one accumulator folded in index order.

use rokkos_core::host_iter::run_reduce_chunk;
use rokkos_core::kernel::{Checked, RangeWork, ReduceKernel};
use rokkos_core::{HostSpace, RangePolicy, Reducer};

pub(crate) fn run<E, K, Rd>(
    policy: &RangePolicy<E>,
    kernel: Checked<'_, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let mut acc = reducer.init();
    run_reduce_chunk(&body, policy.begin()..policy.end(), &mut acc);
    acc
}
