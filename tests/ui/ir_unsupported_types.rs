// Types and values the kernel IR lacks are rejected at compile time on every backend.
use rokkos::prelude::*;

#[kernel]
fn copy_bytes(i: usize, dst: ViewMut<i128>, src: View<i128>) {
    dst[i] = src[i];
}

#[kernel]
fn runtime_level(team: &TeamMember, out: ViewMut<f64>, level: usize) {
    let l = team.league_rank();
    let s = team.team_scratch::<f64, 1>(level, [1]);
    team.single_team(|| {
        s[0] = 1.0;
        out[l] = s[0];
    });
}

#[kernel]
fn nested_minloc(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64>) {
    let l = team.league_rank();
    let m = team.thread_reduce(a.extent(1), MinLoc, |j, acc: &mut ValLoc<f64>| {
        if a[(l, j)] < acc.val {
            acc.val = a[(l, j)];
            acc.loc = j;
        }
    });
    team.single_team(|| {
        out[l] = m.val;
    });
}

fn main() {}
