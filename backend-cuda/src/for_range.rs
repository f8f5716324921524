//! `parallel_for` over a `RangePolicy`: a grid-stride loop, the grid sized from the SM count and
//! the kernel's occupancy (never more blocks than the range needs).

use crate::emit::{entry::ENTRY, CudaOptions, Entry};
use crate::runtime::args::set_u64;
use crate::runtime::device::Instance;
use crate::runtime::run::{enqueue, index_width, params, prepare, resident_blocks, variant, BLOCK};
use crate::{Cuda, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::{RangePolicy, Result};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::shape::grid_stride_groups;
use std::sync::Arc;

/// `parallel_for` over `begin..end`.
pub(crate) fn run<K: KernelIr<Space = CudaSpace>>(
    inst: &Arc<Instance>,
    policy: &RangePolicy<Cuda>,
    kernel: &K,
) -> Result<()> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(inst, kernel)?;
    let opts = CudaOptions {
        entry: Entry::For,
        block: BLOCK,
        bounds_checks: true,
        joins: Vec::new(),
        in_bounds: p.proven(&[(begin, end)]),
        team: None,
        width: index_width(&p, Work::range(begin, end), &[begin as u64, end as u64]),
    };
    // Compiled even for an empty range, so that a kernel CUDA refuses fails at every launch.
    let v = variant(inst, &p, &opts, &[ENTRY])?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(());
    }
    let blocks = grid_stride_groups(n, BLOCK as u64, resident_blocks(inst, &v.entries[0])?);
    let mut b = params(&v, &p, &[])?;
    set_u64(&mut b, &v.layout, "begin", begin as u64)?;
    set_u64(&mut b, &v.layout, "n", n)?;
    enqueue(inst, &p, &v, b, &[(0, blocks)])
}
