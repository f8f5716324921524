//! `parallel_reduce` over a `TeamPolicy`: one accumulator per league chunk, joined in order.

use crate::{join_in_order, Rayon};
use rokkos_core::host_iter::{chunk_bounds, schedule_chunk_count};
use rokkos_core::kernel::{ReduceBody, ReduceKernel, TeamWork};
use rokkos_core::{ExecutionSpace, HostSpace, Launch, Reducer, Result, TeamMember, TeamPolicy};

pub(crate) fn run<K, Rd>(
    space: &Rayon,
    launch: Launch<'_, TeamPolicy<Rayon>, K>,
    reducer: &Rd,
) -> Result<K::Value>
where
    K: ReduceKernel<TeamWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    let body = launch.reduce_body();
    let policy = launch.policy();
    let league = policy.league_size();
    let schedule = policy.schedule_kind();
    let chunk = policy.chunk().unwrap_or(0);
    let chunks = schedule_chunk_count(league, 1, space.concurrency(), chunk, schedule);
    let pool = space.scratch_pool::<K>(policy, chunks)?;
    let partials = space.map_team_chunks(chunks, schedule, &pool, |c, [s0, s1]| {
        let mut acc = reducer.init();
        for l in chunk_bounds(0, league, chunks, c) {
            // SAFETY: the member and its arenas live in this task only, one team at a time.
            let member =
                unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [s0, s1]) };
            body.call(&member, &mut acc);
        }
        acc
    });
    Ok(join_in_order(reducer, partials))
}
