//! A thread may read a team scratch element another thread writes only after a `team_barrier`:
//! the team's threads run at once on a GPU.
use rokkos::prelude::*;

#[kernel]
fn reverse_without_barrier(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let n = out.extent(1);
    let s = team.team_scratch::<f64, 1>(0, [n]);
    for j in team.thread_range(n) {
        s[j] = j as f64;
    }
    for j in team.thread_range(n) {
        out[(l, j)] = s[n - 1 - j];
    }
}

#[kernel]
fn everyone_reads_what_one_wrote(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    let s = team.team_scratch::<f64, 1>(0, [1]);
    team.single_team(|| {
        s[0] = 2.0;
    });
    let x = s[0];
    team.single_team(|| {
        out[l] = x;
    });
}

#[kernel]
fn range_again_in_a_loop(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    for _step in 0..4 {
        for j in team.thread_range(out.extent(1)) {
            out[(l, j)] += 1.0;
        }
    }
}

fn main() {}
