//! Team-wide constructs must be reached by every thread of the team with the same bounds: what
//! depends on a value threads can see differently is refused, saying what to write instead.
use rokkos::prelude::*;

/// Bounds read from a writable View (a read-only `View` is fine).
#[kernel]
fn bounds_from_writable_view(team: &TeamMember, iv: ViewMut<usize, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let first = iv[(l, 0)];
    for s in team.thread_range(first..8) {
        out[(l, s)] = 1.0;
    }
}

/// A barrier that only thread 0 reaches.
#[kernel]
fn barrier_of_one_thread(team: &TeamMember) {
    if team.team_rank() == 0 {
        team.team_barrier();
    }
}

/// Bounds read from a read-only View at an index that differs between threads.
#[kernel]
fn bounds_at_the_team_rank(team: &TeamMember, iv: View<usize, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let r = team.team_rank();
    let n = iv[(r, 1)];
    let s = team.thread_reduce(n, Sum, |j, acc: &mut f64| {
        *acc += j as f64;
    });
    team.single_team(|| {
        out[(l, 0)] = s;
    });
}

/// Some threads leave early, then the others wait at a barrier.
#[kernel]
fn early_return(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    if team.team_rank() > 2 {
        return;
    }
    team.team_barrier();
    for j in team.thread_range(4) {
        out[(l, j)] = 1.0;
    }
}

fn main() {}
