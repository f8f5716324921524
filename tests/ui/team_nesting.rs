//! Team constructs nest only where every backend can run them: what the IR validator refuses at
//! launch is refused here.
use rokkos::prelude::*;

#[kernel]
fn thread_range_in_thread_range(team: &TeamMember, out: ViewMut<f64, 3>) {
    let l = team.league_rank();
    for j in team.thread_range(4) {
        for k in team.thread_range(4) {
            out[(l, j, k)] = 1.0;
        }
    }
}

#[kernel]
fn thread_range_in_single(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    team.single_team(|| {
        for j in team.thread_range(4) {
            out[(l, j)] = 1.0;
        }
    });
}

#[kernel]
fn barrier_in_thread_range(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(4) {
        out[(l, j)] = 1.0;
        team.team_barrier();
    }
}

#[kernel]
fn vector_range_in_vector_range(team: &TeamMember, out: ViewMut<f64, 3>) {
    let l = team.league_rank();
    for j in team.vector_range(4) {
        for k in team.vector_range(4) {
            out[(l, j, k)] = 1.0;
        }
    }
}

fn main() {}
