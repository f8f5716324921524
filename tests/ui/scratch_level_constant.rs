//! A scratch level given as a constant is checked when a launch instantiates the kernel: 3 is
//! refused at compile time, as the IR validator would refuse it at launch.
use rokkos::prelude::*;

const DEEP: usize = 3;

#[kernel]
fn level_from_a_constant(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let s = team.team_scratch::<f64, 1>(DEEP, [4]);
    for j in team.thread_range(4) {
        s[j] = 1.0;
        out[(l, j)] = s[j];
    }
}

fn main() -> rokkos::Result<()> {
    let out = View::<f64, 2>::new("out", [2, 4])?;
    let p = TeamPolicy::new(&Serial, 2, TeamSize::Auto).scratch(1, 32, 0);
    parallel_for("deep", p, level_from_a_constant(&out))
}
