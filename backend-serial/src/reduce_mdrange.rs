//! `parallel_reduce` over an `MDRangePolicy`: one accumulator over all tiles in order.

use rokkos_core::host_iter::{run_reduce_tiles, TileGrid};
use rokkos_core::kernel::{Checked, MDWork, ReduceKernel};
use rokkos_core::{HostSpace, MDRangePolicy, Reducer};

pub(crate) fn run<E: Clone, const N: usize, K, Rd>(
    policy: &MDRangePolicy<E, N>,
    kernel: Checked<'_, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<MDWork<N>, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let grid = TileGrid::new(policy);
    let mut acc = reducer.init();
    run_reduce_tiles(&body, &grid, 0..grid.len(), &mut acc);
    acc
}
