//! A crate that forbids unsafe code compiles ordinary kernels of every kind: the unsafe code the
//! macro generates itself (binding the accessors) does not trip the lint.
#![forbid(unsafe_code)]
use rokkos::prelude::*;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
    y[i] += a * x[i];
}

#[kernel]
fn dot(i: usize, acc: &mut f64, x: View<f64>, y: View<f64>) {
    *acc += x[i] * y[i];
}

#[kernel(scan)]
fn prefix(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

#[kernel]
fn transpose((i, j): (usize, usize), t: ViewMut<f64, 2>, m: View<f64, 2>) {
    t[(j, i)] = m[(i, j)];
}

#[kernel]
fn reverse_rows(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let tmp = team.team_scratch::<f64, 1>(0, [n]);
    for j in team.thread_range(n) {
        tmp[j] = a[(l, j)];
    }
    team.team_barrier();
    for j in team.thread_range(n) {
        out[(l, j)] = tmp[n - 1 - j];
    }
}

fn main() -> rokkos::Result<()> {
    let space = Serial;
    let x = View::<f64>::from_fn("x", [4], |[i]| i as f64)?;
    let y = View::<f64>::new("y", [4])?;
    parallel_for("axpy", RangePolicy::new(&space, 0..4), axpy(&y, &x, 2.0))?;
    let s: f64 = parallel_reduce("dot", RangePolicy::new(&space, 0..4), dot(&x, &y), Sum)?;
    assert_eq!(s, 2.0 * (1.0 + 4.0 + 9.0));
    let xi = View::<i64>::from_fn("xi", [4], |[i]| i as i64)?;
    let oi = View::<i64>::new("oi", [4])?;
    parallel_scan("prefix", RangePolicy::new(&space, 0..4), prefix(&xi, &oi))?;
    assert_eq!(oi.to_vec(), [0, 0, 1, 3]);
    let m = View::<f64, 2>::from_fn("m", [2, 3], |[i, j]| (3 * i + j) as f64)?;
    let t = View::<f64, 2>::new("t", [3, 2])?;
    parallel_for("t", MDRangePolicy::new(&space, [0, 0], [2, 3]), transpose(&t, &m))?;
    assert_eq!(t.get([2, 1]), 5.0);
    let out = View::<f64, 2>::new("out", [2, 3])?;
    let p = TeamPolicy::new(&space, 2, TeamSize::Auto).scratch(0, 3 * 8, 0);
    parallel_for("rev", p, reverse_rows(&m, &out))?;
    assert_eq!(out.to_vec(), [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    Ok(())
}
