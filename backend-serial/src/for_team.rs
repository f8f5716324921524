//! `parallel_for` over a `TeamPolicy`: the league in order, teams of one thread.

use rokkos_core::host_iter::team_scratch_bytes;
use rokkos_core::kernel::{Checked, ForBody, ForKernel, TeamWork};
use rokkos_core::{ExecutionSpace, HostSpace, ScratchArena, TeamMember, TeamPolicy};

pub(crate) fn run<E: ExecutionSpace, K: ForKernel<TeamWork, Space = HostSpace>>(
    policy: &TeamPolicy<E>,
    kernel: Checked<'_, K>,
) {
    // SAFETY: host memory; `Checked` proves the argument checks passed.
    let body = unsafe { kernel.kernel().bind() };
    let [b0, b1] = team_scratch_bytes(policy);
    let (s0, s1) = (ScratchArena::new(b0), ScratchArena::new(b1));
    let league = policy.league_size();
    for l in 0..league {
        // SAFETY: the member and its arenas live in this task only.
        let member =
            unsafe { TeamMember::new(K::NAME, l, league, policy.vector_len(), [&s0, &s1]) };
        body.call(&member);
    }
}
