//! `parallel_for` over a `TeamPolicy`: chunks of the league as tasks, each with a pair of scratch
//! arenas from the launch's pool.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, schedule_chunk_count};
use rokkos_core::kernel::{ForBody, ForKernel, TeamWork};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, Result, TeamMember, TeamPolicy};

pub(crate) fn run<K: ForKernel<TeamWork, Space = HostSpace>>(
    space: &Rayon,
    launch: Launch<'_, TeamPolicy<Rayon>, K>,
) -> Result<()> {
    let body = launch.for_body();
    let policy = launch.policy();
    let league = policy.league_size();
    let schedule = policy.schedule_kind();
    let chunk = policy.chunk().unwrap_or(0);
    let chunks = schedule_chunk_count(league, 1, space.concurrency(), chunk, schedule);
    let pool = space.scratch_pool::<K>(policy, chunks)?;
    space.map_team_chunks(chunks, schedule, &pool, |c, [s0, s1]| {
        for l in chunk_bounds(0, league, chunks, c) {
            // SAFETY: the member and its arenas live in this task only, one team at a time.
            let member =
                unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [s0, s1]) };
            body.call(&member);
        }
    });
    Ok(())
}
