//! A scratch level given as a constant (0 or 1) and a View rank given as a const generic work
//! like literals.
use rokkos::prelude::*;

const LARGE: usize = 1;

#[kernel]
fn staged<const R: usize>(team: &TeamMember, out: ViewMut<f64, 2>, marks: ViewMut<f64, R>) {
    let l = team.league_rank();
    let s = team.team_scratch::<f64, 1>(LARGE, [4]);
    for j in team.thread_range(4) {
        s[j] = (l * 10 + j) as f64;
        out[(l, j)] = s[j];
    }
    let _ = marks.extent(0);
}

fn main() -> rokkos::Result<()> {
    let out = View::<f64, 2>::new("out", [2, 4])?;
    let marks = View::<f64, 3>::new("marks", [1, 1, 1])?;
    let p = TeamPolicy::new(&Serial, 2, TeamSize::Auto).scratch(1, 32, 0);
    parallel_for("staged", p, staged(&out, &marks))?;
    assert_eq!(out.get((1, 3)), 13.0);
    Ok(())
}
