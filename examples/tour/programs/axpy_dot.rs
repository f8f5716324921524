//! y = a x + y, then x . y (Kokkos' first tutorial exercises).

use super::{ensure, Outcome};
use rokkos::prelude::*;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
    y[i] = a * x[i] + y[i];
}

#[kernel]
fn dot(i: usize, acc: &mut f64, x: View<f64>, y: View<f64>) {
    *acc += x[i] * y[i];
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let x = create_mirror_view_and_copy_in(dev, &View::<f64>::from_fn("x", [n], |[i]| i as f64)?)?;
    let y = DeviceView::<f64>::new_on(dev, "y", [n])?;
    y.fill(1.0)?;
    parallel_for("axpy", RangePolicy::new(dev, 0..n), axpy(&y, &x, 2.0))?;
    let s: f64 = parallel_reduce("dot", RangePolicy::new(dev, 0..n), dot(&x, &y), Sum)?;
    let expect: f64 = (0..n).map(|i| i as f64 * (2.0 * i as f64 + 1.0)).sum();
    ensure((s - expect).abs() <= 1e-12 * expect.max(1.0), || {
        format!("dot {s}, expected {expect}")
    })?;
    let hy = create_mirror_view_and_copy(&y)?;
    ensure(n < 2 || hy.get(n - 1) == 2.0 * (n - 1) as f64 + 1.0, || {
        "axpy".into()
    })?;
    Ok(format!("dot = {s}"))
}
