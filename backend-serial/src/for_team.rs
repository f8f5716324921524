//! `parallel_for` over a `TeamPolicy`: the league in order, teams of one thread.

use rokkos_core::host_iter::team_scratch_bytes;
use rokkos_core::kernel::{ForBody, ForKernel, TeamWork};
use rokkos_core::{HostSpace, Launch, Result, ScratchArena, TeamMember, TeamPolicy};

pub(crate) fn run<K: ForKernel<TeamWork, Space = HostSpace>>(
    launch: Launch<'_, TeamPolicy<crate::Serial>, K>,
) -> Result<()> {
    // SAFETY: every work item runs on this thread, one after the other, while this function
    // runs (the loops below), and the body goes nowhere else.
    let body = unsafe { launch.sequential(Launch::for_body) };
    let policy = launch.policy();
    // Before the first team: a launch whose scratch cannot be had runs nothing.
    let [s0, s1] = ScratchArena::pair(K::NAME, team_scratch_bytes(policy))?;
    let league = policy.league_size();
    for l in 0..league {
        // SAFETY: the member and its arenas live in this task only, one team at a time.
        let member =
            unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [&s0, &s1]) };
        body.call(&member);
    }
    Ok(())
}
