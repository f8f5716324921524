// A user's execution space may hand a launch to a host backend (`Launch::delegate`), but never
// holds the delegated token: `delegate` takes the pattern to run (`For`, `Reduce(r)`, ...) and
// calls the backend's own method itself, so no user code reaches `for_body` of a `HostBackend`
// space's token and runs one work item on two threads at once. Nor can a token be cloned.
#![forbid(unsafe_code)]
use rokkos::kernel::{ForBody, ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork};
use rokkos::{
    DeviceMemory, ExecutionSpace, Launch, MDRangePolicy, RangePolicy, Reducer, Result, Serial,
    TeamLimits, TeamPolicy,
};

#[derive(Clone, Debug)]
struct Twice;

impl ExecutionSpace for Twice {
    type Memory = DeviceMemory;
    fn name(&self) -> &'static str {
        "twice"
    }
    fn concurrency(&self) -> usize {
        2
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
        launch.delegate(&policy, |l: Launch<'_, RangePolicy<Serial>, _>| {
            let body = l.for_body();
            std::thread::scope(|s| {
                s.spawn(|| body.call(0));
                s.spawn(|| body.call(0));
            });
            Ok(())
        })
    }
    fn for_mdrange<const N: usize, K>(&self, launch: Launch<'_, MDRangePolicy<Self, N>, K>) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
    {
        let again = launch.clone();
        drop(again);
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
