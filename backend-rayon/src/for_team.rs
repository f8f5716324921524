//! `parallel_for` over a `TeamPolicy`: chunks of the league as tasks, each with its own scratch arena.

use crate::Rayon;
use rokkos_core::host_iter::{chunk_bounds, chunk_count, team_scratch_bytes};
use rokkos_core::kernel::{ForBody, ForKernel, TeamWork};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, ScratchArena, TeamMember, TeamPolicy};

pub(crate) fn run<K: ForKernel<TeamWork, Space = HostSpace>>(
    space: &Rayon,
    launch: Launch<'_, TeamPolicy<Rayon>, K>,
) {
    let body = launch.for_body();
    let policy = launch.policy();
    let [b0, b1] = team_scratch_bytes(policy);
    let league = policy.league_size();
    let chunks = chunk_count(league, space.concurrency(), 1);
    space.for_chunks(chunks, |c| {
        let (s0, s1) = (ScratchArena::new(b0), ScratchArena::new(b1));
        for l in chunk_bounds(0, league, chunks, c) {
            // SAFETY: the member and its arenas live in this task only, one team at a time.
            let member =
                unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [&s0, &s1]) };
            body.call(&member);
        }
    });
}
