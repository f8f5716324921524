//! `parallel_for` over an `MDRangePolicy`: groups of consecutive tiles as tasks.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, chunk_count, run_for_tiles, TileGrid};
use rokkos_core::kernel::{Checked, ForKernel, MDWork};
use rokkos_core::{ExecutionSpace, HostSpace, MDRangePolicy};

pub(crate) fn run<const N: usize, K>(
    space: &Rayon,
    policy: &MDRangePolicy<Rayon, N>,
    kernel: Checked<'_, K>,
) where
    K: ForKernel<MDWork<N>, Space = HostSpace>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let grid = TileGrid::new(policy);
    let chunks = chunk_count(grid.len(), space.concurrency(), 1);
    space.for_chunks(chunks, |c| {
        run_for_tiles(&body, &grid, chunk_bounds(0, grid.len(), chunks, c));
    });
}
