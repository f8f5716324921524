// A crate that forbids `unsafe` code compiles kernels that write Views: the `unsafe` blocks
// `#[kernel]` generates around owned accesses carry the macro's span, so the lint sees only the
// author's own `unsafe`.
#![forbid(unsafe_code)]

use rokkos::prelude::*;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
    y[i] = a * x[i] + y[i];
    y[i] += 1.0;
}

#[kernel]
fn grid((i, j): (usize, usize), g: ViewMut<f64, 2>) {
    g[(i, j)] = if g[(i, j)] > 0.0 { g[(i, j)] * 2.0 } else { 1.0 };
}

#[kernel]
fn rows(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let tmp = team.team_scratch::<f64, 1>(0, [n]);
    for j in team.thread_range(n) {
        tmp[j] = a[(l, j)];
        tmp[j] *= 2.0;
    }
    team.team_barrier();
    for j in team.thread_range(n) {
        out[(l, j)] = tmp[n - 1 - j];
    }
}

fn main() {
    let x = View::<f64>::from_fn("x", [8], |[i]| i as f64).unwrap();
    let y = View::<f64>::new("y", [8]).unwrap();
    parallel_for("axpy", RangePolicy::new(&Serial, 0..8), axpy(&y, &x, 2.0)).unwrap();
    assert_eq!(y.get(3), 7.0);
    let g = View::<f64, 2>::from_fn("g", [2, 2], |[i, j]| i as f64 - j as f64).unwrap();
    parallel_for("grid", MDRangePolicy::new(&Serial, [0, 0], [2, 2]), grid(&g)).unwrap();
    assert_eq!(g.to_vec(), vec![1.0, 1.0, 2.0, 1.0]);
    let a = View::<f64, 2>::from_fn("a", [2, 3], |[i, j]| (3 * i + j) as f64).unwrap();
    let out = View::<f64, 2>::new("out", [2, 3]).unwrap();
    let p = TeamPolicy::new(&Serial, 2, TeamSize::Auto).scratch(0, scratch_size::<f64>(3), 0);
    parallel_for("rows", p, rows(&a, &out)).unwrap();
    assert_eq!(out.to_vec(), vec![4.0, 2.0, 0.0, 10.0, 8.0, 6.0]);
}
