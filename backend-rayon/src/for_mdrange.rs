//! `parallel_for` over an `MDRangePolicy`: groups of consecutive tiles as tasks.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, run_for_tiles, schedule_chunk_count, TileGrid};
use rokkos_core::kernel::{ForKernel, MDWork};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, MDRangePolicy};

pub(crate) fn run<const N: usize, K>(space: &Rayon, launch: Launch<'_, MDRangePolicy<Rayon, N>, K>)
where
    K: ForKernel<MDWork<N>, Space = HostSpace>,
{
    let body = launch.for_body();
    let grid = TileGrid::new(launch.policy());
    let schedule = launch.policy().schedule_kind();
    let chunks = schedule_chunk_count(
        grid.len(),
        grid.tile_items(),
        space.concurrency(),
        0,
        schedule,
    );
    space.for_chunks(chunks, schedule, |c| {
        run_for_tiles(&body, &grid, chunk_bounds(0, grid.len(), chunks, c));
    });
}
