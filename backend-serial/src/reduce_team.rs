//! `parallel_reduce` over a `TeamPolicy`: one accumulator over the league in order.

use rokkos_core::host_iter::team_scratch_bytes;
use rokkos_core::kernel::{Checked, ReduceBody, ReduceKernel, TeamWork};
use rokkos_core::{ExecutionSpace, HostSpace, Reducer, ScratchArena, TeamMember, TeamPolicy};

pub(crate) fn run<E: ExecutionSpace, K, Rd>(
    policy: &TeamPolicy<E>,
    kernel: Checked<'_, K>,
    reducer: &Rd,
) -> K::Value
where
    K: ReduceKernel<TeamWork, Space = HostSpace>,
    Rd: Reducer<K::Value>,
{
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let [b0, b1] = team_scratch_bytes(policy);
    let (s0, s1) = (ScratchArena::new(b0), ScratchArena::new(b1));
    let league = policy.league_size();
    let mut acc = reducer.init();
    for l in 0..league {
        // SAFETY: the member and its arenas live in this task only.
        let member =
            unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [&s0, &s1]) };
        body.call(&member, &mut acc);
    }
    acc
}
