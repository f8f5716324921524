// `r#i` is the name `i` to rustc, but not to checks that compare names by spelling: each of these
// compiled and raced (or wrote past the extent on serial) before raw identifiers were refused.
use rokkos::prelude::*;

#[kernel]
fn shadow_race(i: usize, y: ViewMut<u64>) {
    let r#i = (i * 7) % 64;
    y[i] += 1;
}

#[kernel]
fn shadow_oob(i: usize, y: ViewMut<u64>, off: usize) {
    let r#i = i + off;
    y[i] = 7;
}

#[kernel]
fn team_hoist(team: &TeamMember, out: ViewMut<u64, 2>, m: usize) {
    let l = team.league_rank();
    for j in team.thread_range(4) {
        let r#l = l + m;
        out[(l, j)] = 7;
    }
}

#[func]
fn twice(r#x: f64) -> f64 {
    2.0 * x
}

fn main() {
    // The kernels' call sites add no errors of their own.
    let y = View::<u64>::new("y", [4]).unwrap();
    let _ = parallel_for("r", RangePolicy::new(&Serial, 0..4), shadow_race(&y));
}
