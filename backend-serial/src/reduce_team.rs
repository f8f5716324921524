//! `parallel_reduce` over a `TeamPolicy`: one accumulator over the league in order.

use rokkos_core::host_iter::team_scratch_bytes;
use rokkos_core::kernel::{ReduceBody, ReduceKernel, TeamWork};
use rokkos_core::{HostSpace, Launch, Reducer, Result, ScratchArena, TeamMember, TeamPolicy};

pub(crate) fn run<K, Rd>(
    launch: Launch<'_, TeamPolicy<crate::Serial>, K>,
    reducer: &Rd,
) -> Result<K::Value>
where
    K: ReduceKernel<TeamWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::reduce_body) };
    let policy = launch.policy();
    // Before the first team: a launch whose scratch cannot be had runs nothing.
    let [s0, s1] = ScratchArena::pair(K::NAME, team_scratch_bytes(policy))?;
    let league = policy.league_size();
    let mut acc = reducer.init();
    for l in 0..league {
        // SAFETY: the member and its arenas live in this task only, one team at a time.
        let member =
            unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [&s0, &s1]) };
        body.call(&member, &mut acc);
    }
    Ok(acc)
}
