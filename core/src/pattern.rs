//! `parallel_for`, `parallel_reduce` and `parallel_scan`: validate, check arguments, dispatch.
//!
//! Every call first validates the policy against the execution space's limits
//! (`Err(InvalidPolicy)`, nothing launched), then checks the kernel's View arguments
//! (`Err(Aliasing)`: a writable View overlapping another argument, or a View borrowed by a live
//! host guard), then hands the kernel, wrapped in [`Checked`], to the execution space.

use crate::copy::fill;
use crate::error::{Error, Result};
use crate::kernel::{
    Checked, ForKernel, Kernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
    ViewArg,
};
use crate::layout::Layout;
use crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use crate::profiling::{self, Pattern};
use crate::reducer::{Reducer, Sum};
use crate::scalar::Scalar;
use crate::space::{ExecutionSpace, MemorySpace, ResultSlot};
use crate::view::View;
use bytemuck::Pod;

/// Checks a kernel's View arguments before a launch.
pub fn check_kernel_args<K: Kernel>(kernel: &K) -> Result<Checked<'_, K>> {
    let mut args: Vec<ViewArg<'_>> = Vec::new();
    kernel.visit_views(&mut |a| args.push(a));
    let conflict = |reason: String| {
        Err(Error::Aliasing {
            kernel: K::NAME.to_string(),
            reason,
        })
    };
    for a in &args {
        let b = a.borrow.get();
        if b < 0 || (a.writable && b != 0) {
            return conflict(format!(
                "View `{}` (parameter `{}`) is borrowed on the host by a live host()/host_mut() guard",
                a.label, a.param
            ));
        }
    }
    for (i, a) in args.iter().enumerate() {
        for b in &args[i + 1..] {
            let overlap =
                a.allocation == b.allocation && a.bytes.0 < b.bytes.1 && b.bytes.0 < a.bytes.1;
            if overlap && (a.writable || b.writable) {
                return conflict(format!(
                    "parameters `{}` (View `{}`) and `{}` (View `{}`) overlap in memory and one of them is written; \
                     pass the View once as a writable parameter instead",
                    a.param, a.label, b.param, b.label
                ));
            }
        }
    }
    Ok(Checked::new(kernel))
}

/// Runs a launch, reporting it to the profiling hooks (and fencing, so that the time covers the
/// whole kernel) when any are registered.
#[inline]
fn profiled<E: ExecutionSpace, R>(
    pattern: Pattern,
    space: &E,
    label: &str,
    launch: impl FnOnce() -> Result<R>,
) -> Result<R> {
    if !profiling::enabled() {
        return launch();
    }
    profiling::each(|h| h.begin_parallel(pattern, space.name(), label));
    let t0 = std::time::Instant::now();
    let r = launch()?;
    space.fence()?;
    let dt = t0.elapsed();
    profiling::each(|h| h.end_parallel(pattern, space.name(), label, dt));
    Ok(r)
}

/// A policy `parallel_for` accepts with kernel `K`.
pub trait ForPolicy<K> {
    /// Validates, checks and launches.
    fn launch_for(&self, label: &str, kernel: &K) -> Result<()>;
}
/// A policy `parallel_reduce` accepts with kernel `K` and reducer `Rd`.
pub trait ReducePolicy<K: Kernel, Rd> {
    /// The reduced value.
    type Value;
    /// Validates, checks and launches.
    fn launch_reduce(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<Self::Value>;
    /// As [`ReducePolicy::launch_reduce`], storing the value into the rank-0 View `result`.
    fn launch_reduce_into<L: Layout, S: MemorySpace>(
        &self,
        label: &str,
        kernel: &K,
        reducer: &Rd,
        result: &View<Self::Value, 0, L, S>,
    ) -> Result<()>
    where
        Self::Value: Pod,
    {
        fill(result, self.launch_reduce(label, kernel, reducer)?)
    }
}

/// `launch_reduce_into` of every policy: `device` (the space's `reduce_*_into`, after `validate`)
/// when `result` lives in the space's memory, else the `blocking` reduction and a fill.
fn reduce_into<E: ExecutionSpace, T: Pod, L: Layout, S: MemorySpace>(
    space: &E,
    label: &str,
    result: &View<T, 0, L, S>,
    validate: impl FnOnce() -> Result<()>,
    blocking: impl FnOnce() -> Result<T>,
    device: impl FnOnce(ResultSlot<'_, E::Memory>) -> Result<()>,
) -> Result<()> {
    let Some(slot) = result_slot::<E::Memory, _, _, _>(result) else {
        return fill(result, blocking()?);
    };
    // The slot is written without `fill`'s check: a host guard on the result must still refuse.
    crate::copy::check_host_borrow(result, true, label)?;
    validate()?;
    profiled(Pattern::Reduce, space, label, || device(slot))
}

/// `result`'s element as a [`ResultSlot`] of memory space `M`, when `result` lives in `M` (the
/// execution space's own memory: its backend may then write the result on the device).
fn result_slot<M: MemorySpace, T: Pod, L: Layout, S: MemorySpace>(
    result: &View<T, 0, L, S>,
) -> Option<ResultSlot<'_, M>> {
    let buffer = (result.buffer() as &dyn std::any::Any).downcast_ref::<M::Buffer>()?;
    Some(ResultSlot {
        buffer,
        byte_offset: result.offset * std::mem::size_of::<T>(),
    })
}
/// A policy `parallel_scan` accepts with kernel `K` and reducer `Rd`.
pub trait ScanPolicy<K: Kernel, Rd> {
    /// The scanned value.
    type Value;
    /// Validates, checks and launches.
    fn launch_scan(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<Self::Value>;
}

impl<E: ExecutionSpace, K: ForKernel<RangeWork, Space = E::Memory> + KernelIr> ForPolicy<K>
    for RangePolicy<E>
{
    fn launch_for(&self, label: &str, kernel: &K) -> Result<()> {
        self.validate(label)?;
        profiled(Pattern::For, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().for_range(label, self, checked)
        })
    }
}
impl<E: ExecutionSpace, const N: usize, K: ForKernel<MDWork<N>, Space = E::Memory> + KernelIr>
    ForPolicy<K> for MDRangePolicy<E, N>
{
    fn launch_for(&self, label: &str, kernel: &K) -> Result<()> {
        self.validate(label)?;
        profiled(Pattern::For, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().for_mdrange(label, self, checked)
        })
    }
}
impl<E: ExecutionSpace, K: ForKernel<TeamWork, Space = E::Memory> + KernelIr> ForPolicy<K>
    for TeamPolicy<E>
{
    fn launch_for(&self, label: &str, kernel: &K) -> Result<()> {
        self.validate(label)?;
        profiled(Pattern::For, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().for_team(label, self, checked)
        })
    }
}

impl<E, K, Rd> ReducePolicy<K, Rd> for RangePolicy<E>
where
    E: ExecutionSpace,
    K: ReduceKernel<RangeWork, Space = E::Memory> + KernelIr,
    Rd: Reducer<K::Value>,
{
    type Value = K::Value;
    fn launch_reduce(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<K::Value> {
        self.validate(label)?;
        profiled(Pattern::Reduce, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().reduce_range(label, self, checked, reducer)
        })
    }
    fn launch_reduce_into<L: Layout, S: MemorySpace>(
        &self,
        label: &str,
        kernel: &K,
        reducer: &Rd,
        result: &View<K::Value, 0, L, S>,
    ) -> Result<()>
    where
        K::Value: Pod,
    {
        reduce_into(
            self.space(),
            label,
            result,
            || self.validate(label),
            || self.launch_reduce(label, kernel, reducer),
            |slot| {
                let checked = check_kernel_args(kernel)?;
                self.space()
                    .reduce_range_into(label, self, checked, reducer, slot)
            },
        )
    }
}
impl<E, const N: usize, K, Rd> ReducePolicy<K, Rd> for MDRangePolicy<E, N>
where
    E: ExecutionSpace,
    K: ReduceKernel<MDWork<N>, Space = E::Memory> + KernelIr,
    Rd: Reducer<K::Value>,
{
    type Value = K::Value;
    fn launch_reduce(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<K::Value> {
        self.validate(label)?;
        profiled(Pattern::Reduce, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().reduce_mdrange(label, self, checked, reducer)
        })
    }
    fn launch_reduce_into<L: Layout, S: MemorySpace>(
        &self,
        label: &str,
        kernel: &K,
        reducer: &Rd,
        result: &View<K::Value, 0, L, S>,
    ) -> Result<()>
    where
        K::Value: Pod,
    {
        reduce_into(
            self.space(),
            label,
            result,
            || self.validate(label),
            || self.launch_reduce(label, kernel, reducer),
            |slot| {
                let checked = check_kernel_args(kernel)?;
                self.space()
                    .reduce_mdrange_into(label, self, checked, reducer, slot)
            },
        )
    }
}
impl<E, K, Rd> ReducePolicy<K, Rd> for TeamPolicy<E>
where
    E: ExecutionSpace,
    K: ReduceKernel<TeamWork, Space = E::Memory> + KernelIr,
    Rd: Reducer<K::Value>,
{
    type Value = K::Value;
    fn launch_reduce(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<K::Value> {
        self.validate(label)?;
        profiled(Pattern::Reduce, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().reduce_team(label, self, checked, reducer)
        })
    }
    fn launch_reduce_into<L: Layout, S: MemorySpace>(
        &self,
        label: &str,
        kernel: &K,
        reducer: &Rd,
        result: &View<K::Value, 0, L, S>,
    ) -> Result<()>
    where
        K::Value: Pod,
    {
        reduce_into(
            self.space(),
            label,
            result,
            || self.validate(label),
            || self.launch_reduce(label, kernel, reducer),
            |slot| {
                let checked = check_kernel_args(kernel)?;
                self.space()
                    .reduce_team_into(label, self, checked, reducer, slot)
            },
        )
    }
}
impl<E, K, Rd> ScanPolicy<K, Rd> for RangePolicy<E>
where
    E: ExecutionSpace,
    K: ScanKernel<RangeWork, Space = E::Memory> + KernelIr,
    Rd: Reducer<K::Value>,
{
    type Value = K::Value;
    fn launch_scan(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<K::Value> {
        self.validate(label)?;
        profiled(Pattern::Scan, self.space(), label, || {
            let checked = check_kernel_args(kernel)?;
            self.space().scan_range(label, self, checked, reducer)
        })
    }
}

/// Runs `kernel` once per work item of `policy`.
///
/// ```
/// use rokkos_core::*;
/// # use rokkos_core::kernel::*;
/// // Kernels are normally written with `#[rokkos::kernel]`; see the `rokkos` crate.
/// # fn main() {}
/// ```
pub fn parallel_for<P: ForPolicy<K>, K: Kernel>(label: &str, policy: P, kernel: K) -> Result<()> {
    policy.launch_for(label, &kernel)
}

/// Runs `kernel` once per work item, folding every item's contribution with `reducer`; returns the
/// result (blocking).
pub fn parallel_reduce<P, K, Rd>(label: &str, policy: P, kernel: K, reducer: Rd) -> Result<P::Value>
where
    P: ReducePolicy<K, Rd>,
    K: Kernel,
{
    policy.launch_reduce(label, &kernel, &reducer)
}

/// As [`parallel_reduce`], storing the result into a rank-0 View (which may live on a device).
///
/// When `result` lives in the execution space's own memory, a device backend joins and stores the
/// result on the device, so the call returns without waiting (like `parallel_for`); a later fence
/// or host read sees the value. Otherwise the call blocks until the value is known.
pub fn parallel_reduce_into<P, K, Rd, T, L, S>(
    label: &str,
    policy: P,
    kernel: K,
    reducer: Rd,
    result: &View<T, 0, L, S>,
) -> Result<()>
where
    P: ReducePolicy<K, Rd, Value = T>,
    K: Kernel,
    T: Pod,
    L: Layout,
    S: MemorySpace,
{
    policy.launch_reduce_into(label, &kernel, &reducer, result)
}

/// Exclusive prefix sum: calls the kernel with `is_final == true` once per index, with the sum of all
/// earlier indices' contributions in `partial`; returns the total.
pub fn parallel_scan<P, K>(label: &str, policy: P, kernel: K) -> Result<P::Value>
where
    P: ScanPolicy<K, Sum>,
    K: ScanKernel<RangeWork>,
    K::Value: Scalar,
{
    policy.launch_scan(label, &kernel, &Sum)
}

/// As [`parallel_scan`] with another associative operation than `+`.
pub fn parallel_scan_with<P, K, Rd>(
    label: &str,
    policy: P,
    kernel: K,
    reducer: Rd,
) -> Result<P::Value>
where
    P: ScanPolicy<K, Rd>,
    K: Kernel,
{
    policy.launch_scan(label, &kernel, &reducer)
}
