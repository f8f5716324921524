//! `parallel_reduce` over an `MDRangePolicy`: the tile launcher of `for_mdrange`, one partial per
//! tile, completed as a host value or into a device View.

use crate::runtime::ctx::Ctx;
use crate::runtime::reduction::{finish_host, finish_into, Reduction};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::space::ResultSlot;
use rokkos_core::{Error, MDRangePolicy, Pod, Reducer, Result};
use std::sync::Arc;

/// The reduction's value on the host.
pub(crate) fn run<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    finish_host(
        ctx,
        launch::<N, K, V, Rd>(ctx, label, policy, kernel, reducer)?,
        reducer,
    )
}

/// The reduction's value into `slot`, without waiting where the device can join it there.
pub(crate) fn run_into<
    const N: usize,
    K: KernelIr<Space = WgpuSpace>,
    V: AccValue + Pod,
    Rd: Reducer<V>,
>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
    slot: ResultSlot<'_, WgpuSpace>,
) -> Result<()> {
    let red = launch::<N, K, V, Rd>(ctx, label, policy, kernel, reducer)?;
    finish_into(ctx, red, reducer, slot)
}

fn launch<const N: usize, K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &MDRangePolicy<Wgpu, N>,
    kernel: &K,
    reducer: &Rd,
) -> Result<Reduction> {
    // The shared launcher always launches a reduction when given a reducer.
    crate::for_mdrange::launch(ctx, label, policy, kernel, Some(reducer))?
        .ok_or_else(|| Error::InvalidArgument("reduction without a result".into()))
}
