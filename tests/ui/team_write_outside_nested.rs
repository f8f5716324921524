use rokkos::prelude::*;

#[kernel]
fn team_fill(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    out[l] = 1.0;
}

#[kernel]
fn team_no_league(team: &TeamMember, out: ViewMut<f64, 2>) {
    for j in team.thread_range(4) {
        out[(0, j)] = 1.0;
    }
}

fn main() {}
