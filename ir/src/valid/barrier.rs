//! Team convergence: every thread of a team must reach each barrier and each team-wide construct
//! (a `Thread` or `TeamVector` nested range, reduction or scan, a team `single`, a broadcast, a team
//! scratch allocation) with the same bounds, or the GPU deadlocks or computes garbage while the
//! host (team size 1) works; and constructs nest only where a backend can run them.
//!
//! The rules, and what counts as uniform (the same in every thread of a team), are
//! [`rokkos_rules::converge`]'s: `#[kernel]` enforces the same rules on the kernel's syntax when it
//! is compiled, so a kernel that compiled is never refused here. This check runs them on the
//! IR ([`super::model`]) for kernels built without the macro, and as a guard against a recording
//! that the macro's model did not foresee.

use super::{nested_name, Body, ErrorKind};
use crate::WorkKind;
use rokkos_rules::converge::{self, Violation};
use rokkos_rules::model::{Construct, ScratchScope, SingleKind};

type R<T> = Result<T, ErrorKind>;

/// Checks the convergence rules of a team kernel's body (other bodies have no team constructs).
pub fn check(body: Body<'_>) -> R<()> {
    if body.func.is_some() || body.kernel.work != WorkKind::Team {
        return Ok(());
    }
    converge::check(&super::model::of_kernel(body.kernel)).map_err(|v| match v {
        Violation::Divergent { what, .. } => ErrorKind::DivergentTeamOp(name(what)),
        Violation::Misplaced { what, inside, .. } => ErrorKind::NestedTeamOp {
            what: name(what),
            inside: name(inside),
        },
    })
}

/// The validator's name of a team construct in its messages.
fn name(c: Construct) -> &'static str {
    match c {
        Construct::Barrier => "team_barrier",
        Construct::Nested(kind, _) => nested_name(kind),
        Construct::Single(SingleKind::Team) => "single_team",
        Construct::Single(SingleKind::Thread) => "single_thread",
        Construct::Broadcast => "team_broadcast",
        Construct::Scratch(ScratchScope::Team) => "a team scratch allocation",
        Construct::Scratch(ScratchScope::Thread) => "a thread scratch allocation",
    }
}
