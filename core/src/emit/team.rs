//! What every target decides the same way about a team kernel: whether the lanes of a thread run
//! as parallel invocations or one after the other ([`needs_lane_comm`]), which scratch pools it
//! allocates from, and how a policy's scratch request is split between the team and its threads
//! ([`pool_split`]).

use crate::ir::valid::KernelInfo;
use crate::ir::{Kernel, NestedKind, ScratchScope, SingleKind, Stmt};

/// Whether `k` allocates scratch at `level` (its arena is then declared even when the policy
/// reserved nothing there, so that an allocation fails at run time instead of the module at
/// compile time).
pub fn uses_level(k: &Kernel, level: u32) -> bool {
    k.scratch.iter().any(|d| d.level.min(1) == level)
}

/// Whether `k` allocates scratch of `scope` at `level`.
pub fn uses_scratch(k: &Kernel, level: u32, scope: ScratchScope) -> bool {
    k.scratch
        .iter()
        .any(|d| d.level.min(1) == level && d.scope == scope)
}

/// Whether the lanes of a thread of `k` must run one after the other in one invocation (virtual
/// lanes): when they communicate (a `Vector` reduction or scan, a thread `single` with a result),
/// or when running them as parallel invocations could differ from running them in order, as the
/// host backends do (a store or atomic every lane of a thread repeats, such as `out[(l, j)] += x`
/// in a `thread_range` body, or an element two lanes touch in one phase:
/// [`crate::ir::valid::lanes_independent`], which `info` holds).
pub fn needs_lane_comm(k: &Kernel, info: &KernelInfo) -> bool {
    !info.lanes_independent || lanes_communicate(k)
}

/// Whether the lanes of a thread of `k` exchange values: a `Vector` reduction or scan, or a
/// thread `single` with a result (a target with lane shuffles can keep such lanes physical).
pub fn lanes_communicate(k: &Kernel) -> bool {
    let mut need = false;
    for s in &k.body {
        s.walk(&mut |s| match s {
            Stmt::NestedReduce {
                kind: NestedKind::Vector,
                ..
            }
            | Stmt::NestedScan {
                kind: NestedKind::Vector,
                ..
            } => need = true,
            Stmt::Single {
                kind: SingleKind::Thread,
                result: Some(_),
                ..
            } => need = true,
            _ => {}
        });
    }
    need
}

/// The bytes of scratch `level` a launch of `k` gives the team pool and each thread's pool, from
/// the policy's request (`per_team` bytes for the team, `per_thread` for each of `team`
/// threads): a kernel that allocates from one scope only gets the whole request there (Kokkos
/// reserves one arena per level), one that allocates from both gets each as requested. `None`
/// when the total overflows.
pub fn pool_split(
    k: &Kernel,
    level: u32,
    per_team: u64,
    per_thread: u64,
    team: u64,
) -> Option<(u64, u64)> {
    let cap = per_thread.checked_mul(team)?.checked_add(per_team)?;
    Some(
        match (
            uses_scratch(k, level, ScratchScope::Team),
            uses_scratch(k, level, ScratchScope::Thread),
        ) {
            (true, true) => (per_team, per_thread),
            (true, false) => (cap, 0),
            (false, true) => (0, cap.checked_div(team)?),
            (false, false) => (0, 0),
        },
    )
}
