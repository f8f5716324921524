// One launch, one run: `Launch::delegate` consumes the token, so a user's execution space cannot
// run the same launch twice (at once, from two threads, or one after the other), and a
// `ResultSlot` is written once (`write` consumes it), so two threads cannot both write the result.
#![forbid(unsafe_code)]
use rokkos::delegate::{For, ReduceInto};
use rokkos::kernel::{ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork};
use rokkos::{
    DeviceMemory, ExecutionSpace, Launch, MDRangePolicy, Pod, RangePolicy, Reducer, Result,
    ResultSlot, Serial, TeamLimits, TeamPolicy,
};

#[derive(Clone, Debug)]
struct Again;

impl ExecutionSpace for Again {
    type Memory = DeviceMemory;
    fn name(&self) -> &'static str {
        "again"
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
        K: ForKernel<RangeWork, Space = DeviceMemory> + KernelIr,
    {
        let policy = launch.policy().with_space(&Serial);
        launch.delegate(&policy, For)?;
        launch.delegate(&policy, For)
    }
    fn for_mdrange<const N: usize, K>(&self, _: Launch<'_, MDRangePolicy<Self, N>, K>) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
    {
        Ok(())
    }
    fn for_team<K>(&self, _: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = DeviceMemory> + KernelIr,
    {
        Ok(())
    }
    fn reduce_range<K, Rd>(&self, _: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
    fn reduce_range_into<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        r: &Rd,
        slot: ResultSlot<'_, DeviceMemory>,
    ) -> Result<()>
    where
        K: ReduceKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        K::Value: Pod,
        Rd: Reducer<K::Value>,
    {
        slot.write(r.init())?;
        let policy = launch.policy().with_space(&Serial);
        launch.delegate(&policy, ReduceInto(r, slot))
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        _: Launch<'_, MDRangePolicy<Self, N>, K>,
        r: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
    fn reduce_team<K, Rd>(&self, _: Launch<'_, TeamPolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
    fn scan_range<K, Rd>(&self, _: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(r.init())
    }
}

fn main() {}
