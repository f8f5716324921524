//! `parallel_for` over an `MDRangePolicy`: groups of consecutive tiles as tasks.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, chunk_count_of, run_for_tiles, TileGrid};
use rokkos_core::kernel::{ForKernel, MDWork};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, MDRangePolicy};

pub(crate) fn run<const N: usize, K>(space: &Rayon, launch: Launch<'_, MDRangePolicy<Rayon, N>, K>)
where
    K: ForKernel<MDWork<N>, Space = HostSpace>,
{
    let body = launch.for_body();
    let grid = TileGrid::new(launch.policy());
    let chunks = chunk_count_of(grid.len(), grid.tile_items(), space.concurrency(), 1);
    space.for_chunks(chunks, |c| {
        run_for_tiles(&body, &grid, chunk_bounds(0, grid.len(), chunks, c));
    });
}
