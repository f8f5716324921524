//! rokkos-serial: the reference execution space. Every pattern is a plain loop on the calling
//! thread; teams have one thread. Other backends are tested against it. A policy's
//! [`rokkos_core::Schedule`] and chunk size change nothing here: every index, tile and league
//! rank runs in order.
//!
//! One file per (pattern, policy), named the same in every backend crate.

#![warn(missing_docs)]

mod for_mdrange;
mod for_range;
mod for_team;
mod reduce_mdrange;
mod reduce_range;
mod reduce_team;
mod scan_range;

use rokkos_core::kernel::{
    ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
};
use rokkos_core::{
    ExecutionSpace, HostBackend, HostSpace, Launch, MDRangePolicy, RangePolicy, Reducer, Result,
    TeamLimits, TeamPolicy,
};

/// The serial execution space: runs every kernel on the calling thread.
///
/// ```
/// use rokkos_core::ExecutionSpace;
/// let s = rokkos_serial::Serial;
/// assert_eq!(s.name(), "serial");
/// assert_eq!(s.concurrency(), 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Serial;

impl ExecutionSpace for Serial {
    type Memory = HostSpace;

    fn name(&self) -> &'static str {
        "serial"
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) -> Result<()> {
        Ok(())
    }
    fn team_limits(&self) -> TeamLimits {
        rokkos_core::host_iter::HOST_TEAM_LIMITS
    }
    fn for_range<K>(&self, launch: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = HostSpace> + KernelIr,
    {
        for_range::run(launch);
        Ok(())
    }
    fn for_mdrange<const N: usize, K>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
    ) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = HostSpace> + KernelIr,
    {
        for_mdrange::run(launch);
        Ok(())
    }
    fn for_team<K>(&self, launch: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = HostSpace> + KernelIr,
    {
        for_team::run(launch)
    }
    fn reduce_range<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(reduce_range::run(launch, reducer))
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(reduce_mdrange::run(launch, reducer))
    }
    fn reduce_team<K, Rd>(
        &self,
        launch: Launch<'_, TeamPolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        reduce_team::run(launch, reducer)
    }
    fn scan_range<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(scan_range::run(launch, reducer))
    }
}

// SAFETY: every pattern runs the body on the calling thread, once per index of the policy (a scan
// makes a single final pass), and each league rank once with a fresh `TeamMember`, while the
// pattern method runs.
unsafe impl HostBackend for Serial {}
