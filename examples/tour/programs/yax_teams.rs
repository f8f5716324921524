//! Kokkos' `yAx` tutorial (exercise 3, teams): y^T A x, one team per row, the row's dot product
//! as a nested thread reduction.

use super::{ensure, Outcome};
use rokkos::prelude::*;

#[kernel]
fn yax(team: &TeamMember, acc: &mut f64, y: View<f64>, a: View<f64, 2>, x: View<f64>) {
    let row = team.league_rank();
    let ax = team.thread_reduce(a.extent(1), Sum, |j, t: &mut f64| {
        *t += a[(row, j)] * x[j];
    });
    team.single_team(|| {
        *acc += y[row] * ax;
    });
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let rows = (n / 16).max(1);
    let cols = 16;
    let hy = View::<f64>::from_fn("y", [rows], |[i]| 1.0 + (i % 3) as f64)?;
    let ha = View::<f64, 2, LayoutLeft>::from_fn("A", [rows, cols], |[i, j]| ((i + j) % 5) as f64)?;
    let hx = View::<f64>::from_fn("x", [cols], |[j]| 0.5 * j as f64)?;
    let (y, a, x) = (
        create_mirror_view_and_copy_in(dev, &hy)?,
        create_mirror_view_and_copy_in(dev, &ha)?,
        create_mirror_view_and_copy_in(dev, &hx)?,
    );
    let policy = TeamPolicy::new(dev, rows, TeamSize::Auto);
    let r: f64 = parallel_reduce("yAx", policy, yax(&y, &a, &x), Sum)?;
    let expect: f64 = (0..rows)
        .map(|i| hy.get(i) * (0..cols).map(|j| ha.get((i, j)) * hx.get(j)).sum::<f64>())
        .sum();
    ensure((r - expect).abs() <= 1e-12 * expect, || {
        format!("yAx {r}, expected {expect}")
    })?;
    Ok(format!("y^T A x = {r} ({rows} x {cols})"))
}
