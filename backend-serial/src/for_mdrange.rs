//! `parallel_for` over an `MDRangePolicy`: tiles in order, each a nest of loops.

use rokkos_core::host_iter::TileGrid;
use rokkos_core::kernel::{Checked, ForBody, ForKernel, MDWork};
use rokkos_core::{HostSpace, MDRangePolicy};

pub(crate) fn run<E: Clone, const N: usize, K>(policy: &MDRangePolicy<E, N>, kernel: Checked<'_, K>)
where
    K: ForKernel<MDWork<N>, Space = HostSpace>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let grid = TileGrid::new(policy);
    for t in 0..grid.len() {
        grid.for_each_in_tile(t, |idx| body.call(idx));
    }
}
