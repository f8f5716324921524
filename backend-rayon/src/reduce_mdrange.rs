//! `parallel_reduce` over an `MDRangePolicy`: one partial per group of tiles, joined in order.

use crate::{join_in_order, Rayon};
use rokkos_core::host_iter::{
    chunk_bounds, run_reduce_tiles, run_reduce_tiles_lanes, schedule_chunk_count, TileGrid,
};
use rokkos_core::kernel::{MDWork, ReduceKernel};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, MDRangePolicy, Reducer};

pub(crate) fn run<const N: usize, K, Rd>(
    space: &Rayon,
    launch: Launch<'_, MDRangePolicy<Rayon, N>, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<MDWork<N>, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    let body = launch.reduce_body();
    let grid = TileGrid::new(launch.policy());
    let schedule = launch.policy().schedule_kind();
    let chunks = schedule_chunk_count(
        grid.len(),
        grid.tile_items(),
        space.concurrency(),
        0,
        schedule,
    );
    // As over a range: a commutative join lets each chunk fold its rows into interleaved lanes.
    let lanes = rokkos_core::reducer::is_commutative(reducer);
    let partials = space.map_chunks(chunks, schedule, |c| {
        let tiles = chunk_bounds(0, grid.len(), chunks, c);
        if lanes {
            return run_reduce_tiles_lanes(&body, &grid, tiles, reducer);
        }
        let mut acc = reducer.init();
        run_reduce_tiles(&body, &grid, tiles, &mut acc);
        acc
    });
    join_in_order(reducer, partials)
}
