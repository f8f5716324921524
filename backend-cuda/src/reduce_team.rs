//! `parallel_reduce` over a `TeamPolicy`: the team launcher of `for_team` with a reducer (one
//! partial per block, at most 1024 blocks), then the range reductions' second pass, completed as
//! a host value or into a device View (`runtime::reduction`).

use crate::runtime::device::Instance;
use crate::runtime::reduction::{finish_host, finish_into};
use crate::runtime::run::prepare;
use crate::{Cuda, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::space::ResultSlot;
use rokkos_core::{Pod, Reducer, Result, TeamPolicy};
use std::sync::Arc;

/// The reduction's value on the host.
pub(crate) fn run<K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &TeamPolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    let bufs = crate::for_team::launch(inst, label, policy, kernel, Some(reducer), None)?;
    finish_host(inst, reducer, bufs)
}

/// The reduction's value into `slot`, without waiting where the device can write it there.
pub(crate) fn run_into<K: KernelIr<Space = CudaSpace>, V: AccValue + Pod, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &TeamPolicy<Cuda>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, CudaSpace>,
) -> Result<()> {
    let fields = prepare(inst, kernel)?.ir.acc_fields();
    finish_into(inst, &fields, reducer, slot, |into| {
        crate::for_team::launch(inst, label, policy, kernel, Some(reducer), into)
    })
}
