//! Scratch levels are 0 and 1, View ranks 0 to 8: what the IR validator refuses at launch is a
//! compile error (a literal is checked when the kernel expands; a constant when a launch
//! instantiates it, in `scratch_level_constant.rs`).
use rokkos::prelude::*;

#[kernel]
fn level_two(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let s = team.team_scratch::<f64, 1>(2, [4]);
    for j in team.thread_range(4) {
        s[j] = 1.0;
        out[(l, j)] = s[j];
    }
}

#[kernel]
fn rank_nine(i: usize, out: ViewMut<f64, 9>) {
    let _ = i;
    let _ = out.extent(0);
}

fn main() {}
