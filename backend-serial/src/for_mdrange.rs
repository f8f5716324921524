//! `parallel_for` over an `MDRangePolicy`: tiles in order, each a nest of loops.

use rokkos_core::host_iter::{run_for_tiles, TileGrid};
use rokkos_core::kernel::{ForKernel, MDWork};
use rokkos_core::{HostSpace, Launch, MDRangePolicy};

pub(crate) fn run<const N: usize, K>(launch: Launch<'_, MDRangePolicy<crate::Serial, N>, K>)
where
    K: ForKernel<MDWork<N>, Space = HostSpace>,
{
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::for_body) };
    let grid = TileGrid::new(launch.policy());
    run_for_tiles(&body, &grid, 0..grid.len());
}
