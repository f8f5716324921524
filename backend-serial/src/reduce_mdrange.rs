//! `parallel_reduce` over an `MDRangePolicy`: one accumulator over all tiles in order.

use rokkos_core::host_iter::{run_reduce_tiles, TileGrid};
use rokkos_core::kernel::{MDWork, ReduceKernel};
use rokkos_core::{HostSpace, Launch, MDRangePolicy, Reducer};

pub(crate) fn run<const N: usize, K, Rd>(
    launch: Launch<'_, MDRangePolicy<crate::Serial, N>, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<MDWork<N>, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::reduce_body) };
    let grid = TileGrid::new(launch.policy());
    let mut acc = reducer.init();
    run_reduce_tiles(&body, &grid, 0..grid.len(), &mut acc);
    acc
}
