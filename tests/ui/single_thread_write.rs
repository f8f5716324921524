//! `single_thread` runs its body once per thread: a write there must be the thread's own (the
//! index of the enclosing `thread_range`, or the team rank), as a write outside nested ranges.
use rokkos::prelude::*;

#[kernel]
fn every_thread_writes(team: &TeamMember, o: ViewMut<f64>) {
    let l = team.league_rank();
    team.single_thread(|| {
        o[l] = o[l] + 1.0;
    });
}

#[kernel]
fn top_level_write(team: &TeamMember, o: ViewMut<f64>) {
    let l = team.league_rank();
    o[l] = 1.0;
}

#[kernel]
fn vector_range_of_every_thread(team: &TeamMember, s: ViewMut<f64, 2>) {
    let l = team.league_rank();
    for k in team.vector_range(4) {
        s[(l, k)] = 1.0;
    }
}

fn main() {}
