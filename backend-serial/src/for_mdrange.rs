//! `parallel_for` over an `MDRangePolicy`: tiles in order, each a nest of loops.

use rokkos_core::host_iter::{run_for_tiles, TileGrid};
use rokkos_core::kernel::{Checked, ForKernel, MDWork};
use rokkos_core::{HostSpace, MDRangePolicy};

pub(crate) fn run<E: Clone, const N: usize, K>(policy: &MDRangePolicy<E, N>, kernel: Checked<'_, K>)
where
    K: ForKernel<MDWork<N>, Space = HostSpace>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let grid = TileGrid::new(policy);
    run_for_tiles(&body, &grid, 0..grid.len());
}
