//! `parallel_for`, `parallel_reduce` and `parallel_scan`: validate, check and hold arguments,
//! dispatch.
//!
//! Every call first validates the policy against the execution space's limits
//! (`Err(InvalidPolicy)`, nothing launched), then checks and holds the kernel's View arguments
//! (`Err(Aliasing)`: a writable View overlapping another argument, or a View borrowed by a live
//! host guard or another launch; see [`crate::launch`]), then hands the execution space a
//! [`Launch`] token, under the failure boundary of `crate::failure` (a host kernel that panics
//! comes back as `Err(OutOfBounds)` / `Err(KernelFailed)`). The hold is released once the space's
//! method has returned.

use crate::copy::fill;
use crate::error::{Error, Result};
use crate::failure;
use crate::kernel::{
    ForKernel, Kernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
};
use crate::launch::{ArgHold, Launch};
use crate::layout::Layout;
use crate::policy::{MDRangePolicy, Policy, RangePolicy, TeamPolicy};
use crate::profiling::{self, Pattern};
use crate::reducer::{Reducer, Sum};
use crate::scalar::Scalar;
use crate::space::{ExecutionSpace, MemorySpace, ResultSlot};
use crate::view::{ResultArg, View};
use bytemuck::Pod;

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

/// The one place a launch token is made: holds `kernel`'s arguments (and the allocation of
/// `result`, for `parallel_reduce_into`), then runs `run` with the token under the failure
/// boundary. `policy` must have passed its `validate` already.
#[inline]
fn dispatch<P: Policy, K: Kernel, R>(
    pattern: Pattern,
    label: &str,
    policy: &P,
    space: &P::Space,
    kernel: &K,
    result: Option<ResultArg<'_>>,
    run: impl FnOnce(Launch<'_, P, K>) -> Result<R>,
) -> Result<R> {
    profiled(pattern, space, label, || {
        let mut hold = ArgHold::new();
        hold.acquire(kernel, result)?;
        let r = failure::catch(K::NAME, || run(Launch::new(label, policy, kernel, &hold)));
        drop(hold);
        r
    })
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

/// `launch_reduce_into` of every policy, once `policy` is validated: `device` (the space's
/// `reduce_*_into`) when `result` lives in the space's memory, with the result's allocation held
/// by the launch; else the `blocking` reduction and a fill.
fn reduce_into<P: Policy, K: Kernel, T: Pod, L: Layout, S: MemorySpace>(
    label: &str,
    policy: &P,
    space: &P::Space,
    kernel: &K,
    result: &View<T, 0, L, S>,
    blocking: impl FnOnce() -> Result<T>,
    device: impl FnOnce(
        Launch<'_, P, K>,
        ResultSlot<'_, <P::Space as ExecutionSpace>::Memory>,
    ) -> Result<()>,
) -> Result<()> {
    let Some(slot) = result_slot::<<P::Space as ExecutionSpace>::Memory, _, _, _>(result) else {
        return fill(result, blocking()?);
    };
    dispatch(
        Pattern::Reduce,
        label,
        policy,
        space,
        kernel,
        Some(result.result_arg()),
        |launch| device(launch, slot),
    )
}

/// `result`'s element as a [`ResultSlot`] of memory space `M`, when `result` lives in `M` (the
/// execution space's own memory: its backend may then write the result on the device).
fn result_slot<M: MemorySpace, T: Pod, L: Layout, S: MemorySpace>(
    result: &View<T, 0, L, S>,
) -> Option<ResultSlot<'_, M>> {
    let buffer = (result.buffer() as &dyn std::any::Any).downcast_ref::<M::Buffer>()?;
    let size = std::mem::size_of::<T>();
    // A rank-0 View's offset is inside its allocation, so the byte offset fits.
    Some(ResultSlot::new(buffer, result.offset * size, size))
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
        dispatch(Pattern::For, label, self, self.space(), kernel, None, |l| {
            self.space().for_range(l)
        })
    }
}
impl<E: ExecutionSpace, const N: usize, K: ForKernel<MDWork<N>, Space = E::Memory> + KernelIr>
    ForPolicy<K> for MDRangePolicy<E, N>
{
    fn launch_for(&self, label: &str, kernel: &K) -> Result<()> {
        self.validate(label)?;
        dispatch(Pattern::For, label, self, self.space(), kernel, None, |l| {
            self.space().for_mdrange(l)
        })
    }
}
impl<E: ExecutionSpace, K: ForKernel<TeamWork, Space = E::Memory> + KernelIr> ForPolicy<K>
    for TeamPolicy<E>
{
    fn launch_for(&self, label: &str, kernel: &K) -> Result<()> {
        self.validate(label)?;
        dispatch(Pattern::For, label, self, self.space(), kernel, None, |l| {
            self.space().for_team(l)
        })
    }
}

/// `ReducePolicy` of one policy type: `$reduce` / `$into` are the space's methods.
macro_rules! reduce_policy {
    ($policy:ty, $work:ty, $reduce:ident, $into:ident $(, const $n:ident)?) => {
        impl<E, $(const $n: usize,)? K, Rd> ReducePolicy<K, Rd> for $policy
        where
            E: ExecutionSpace,
            K: ReduceKernel<$work, Space = E::Memory> + KernelIr,
            Rd: Reducer<K::Value>,
        {
            type Value = K::Value;
            fn launch_reduce(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<K::Value> {
                self.validate(label)?;
                let mut value =
                    dispatch(Pattern::Reduce, label, self, self.space(), kernel, None, |l| {
                        self.space().$reduce(l, reducer)
                    })?;
                crate::reducer::finalize(reducer, &mut value);
                Ok(value)
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
                self.validate(label)?;
                // The hook is host code: the value comes to the host, then goes to `result`.
                if crate::reducer::has_final(reducer) {
                    return fill(result, self.launch_reduce(label, kernel, reducer)?);
                }
                reduce_into(
                    label,
                    self,
                    self.space(),
                    kernel,
                    result,
                    || self.launch_reduce(label, kernel, reducer),
                    |l, slot| self.space().$into(l, reducer, slot),
                )
            }
        }
    };
}
reduce_policy!(RangePolicy<E>, RangeWork, reduce_range, reduce_range_into);
reduce_policy!(MDRangePolicy<E, N>, MDWork<N>, reduce_mdrange, reduce_mdrange_into, const N);
reduce_policy!(TeamPolicy<E>, TeamWork, reduce_team, reduce_team_into);

impl<E, K, Rd> ScanPolicy<K, Rd> for RangePolicy<E>
where
    E: ExecutionSpace,
    K: ScanKernel<RangeWork, Space = E::Memory> + KernelIr,
    Rd: Reducer<K::Value>,
{
    type Value = K::Value;
    fn launch_scan(&self, label: &str, kernel: &K, reducer: &Rd) -> Result<K::Value> {
        self.validate(label)?;
        if crate::reducer::has_final(reducer) {
            return Err(Error::InvalidArgument(format!(
                "parallel_scan `{label}`: the reducer has a final hook (`with_final`), which a \
                 scan's prefixes do not take; scan with the reducer itself"
            )));
        }
        dispatch(
            Pattern::Scan,
            label,
            self,
            self.space(),
            kernel,
            None,
            |l| self.space().scan_range(l, reducer),
        )
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

/// As [`parallel_scan`], storing the total into the rank-0 View `total` (Kokkos'
/// `parallel_scan(policy, functor, total)`), which may live in any memory space, the execution
/// space's own or the host's. Blocking, as `parallel_scan` is: the total is written once the scan
/// has finished, so `total` may be a View the kernel also reads; on an error nothing is written.
pub fn parallel_scan_into<P, K, T, L, S>(
    label: &str,
    policy: P,
    kernel: K,
    total: &View<T, 0, L, S>,
) -> Result<()>
where
    P: ScanPolicy<K, Sum, Value = T>,
    K: ScanKernel<RangeWork>,
    T: Scalar + Pod,
    L: Layout,
    S: MemorySpace,
{
    fill(total, policy.launch_scan(label, &kernel, &Sum)?)
}

/// As [`parallel_scan_with`], storing the total into the rank-0 View `total` (see
/// [`parallel_scan_into`]).
pub fn parallel_scan_with_into<P, K, Rd, T, L, S>(
    label: &str,
    policy: P,
    kernel: K,
    reducer: Rd,
    total: &View<T, 0, L, S>,
) -> Result<()>
where
    P: ScanPolicy<K, Rd, Value = T>,
    K: Kernel,
    T: Pod,
    L: Layout,
    S: MemorySpace,
{
    fill(total, policy.launch_scan(label, &kernel, &reducer)?)
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
