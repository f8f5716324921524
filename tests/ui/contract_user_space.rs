// A user's execution space receives tokens typed with its own policy type: it cannot hand them
// to another space, and without the `unsafe` `HostBackend` promise it gets no native body.
use rokkos::kernel::{ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork};
use rokkos::{
    ExecutionSpace, HostSpace, Launch, MDRangePolicy, RangePolicy, Reducer, Result, Serial,
    TeamLimits, TeamPolicy,
};

#[derive(Clone, Debug)]
struct Mine;

impl ExecutionSpace for Mine {
    type Memory = HostSpace;
    fn name(&self) -> &'static str {
        "mine"
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) -> Result<()> {
        Ok(())
    }
    fn team_limits(&self) -> TeamLimits {
        Serial.team_limits()
    }
    fn for_range<K>(&self, launch: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = HostSpace> + KernelIr,
    {
        let body = launch.for_body();
        let _ = body;
        Serial.for_range(launch)
    }
    fn for_mdrange<const N: usize, K>(&self, _: Launch<'_, MDRangePolicy<Self, N>, K>) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = HostSpace> + KernelIr,
    {
        Ok(())
    }
    fn for_team<K>(&self, _: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = HostSpace> + KernelIr,
    {
        Ok(())
    }
    fn reduce_range<K, Rd>(&self, _: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        _: Launch<'_, MDRangePolicy<Self, N>, K>,
        r: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
    fn reduce_team<K, Rd>(&self, _: Launch<'_, TeamPolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
    fn scan_range<K, Rd>(&self, _: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
}

fn main() {}
