//! `parallel_reduce` over a `RangePolicy`: one accumulator folded in index order.

use rokkos_core::host_iter::run_reduce_chunk;
use rokkos_core::kernel::{RangeWork, ReduceKernel};
use rokkos_core::{HostSpace, Launch, RangePolicy, Reducer};

pub(crate) fn run<K, Rd>(
    launch: Launch<'_, RangePolicy<crate::Serial>, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<RangeWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::reduce_body) };
    let p = launch.policy();
    let mut acc = reducer.init();
    run_reduce_chunk(&body, p.begin()..p.end(), &mut acc);
    acc
}
