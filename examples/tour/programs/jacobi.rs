//! Jacobi sweeps of the 2-D Laplace equation on an MDRange, with the largest update (a `Max`
//! reduction over the same MDRange) as the convergence measure.

use super::{ensure, Outcome};
use rokkos::prelude::*;

#[kernel]
fn sweep((i, j): (usize, usize), next: ViewMut<f64, 2>, u: View<f64, 2>) {
    next[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
}

#[kernel]
fn change((i, j): (usize, usize), acc: &mut f64, next: View<f64, 2>, u: View<f64, 2>) {
    let d = (next[(i, j)] - u[(i, j)]).abs();
    if d > *acc {
        *acc = d;
    }
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    // An m x m grid (about n points), hot top edge, cold elsewhere.
    let m = ((n as f64).sqrt() as usize).clamp(4, 256);
    let boundary = |[i, _j]: [usize; 2]| if i == 0 { 1.0 } else { 0.0 };
    let h0 = View::<f64, 2>::from_fn("u0", [m, m], boundary)?;
    let mut u = create_mirror_view_and_copy_in(dev, &h0)?;
    let mut next = create_mirror_view_and_copy_in(dev, &h0)?;
    let interior = MDRangePolicy::new(dev, [1, 1], [m - 1, m - 1]).tile([8, 8]);
    let sweeps = 50;
    let mut last = 0.0;
    for _ in 0..sweeps {
        parallel_for("sweep", interior.clone(), sweep(&next, &u))?;
        last = parallel_reduce("change", interior.clone(), change(&next, &u), Max)?;
        std::mem::swap(&mut u, &mut next);
    }
    // The same sweeps on the host.
    let mut a: Vec<f64> = h0.to_vec();
    let mut b = a.clone();
    let mut host_last = 0.0f64;
    for _ in 0..sweeps {
        host_last = 0.0;
        for i in 1..m - 1 {
            for j in 1..m - 1 {
                let v = 0.25
                    * (a[(i - 1) * m + j]
                        + a[(i + 1) * m + j]
                        + a[i * m + j - 1]
                        + a[i * m + j + 1]);
                host_last = host_last.max((v - a[i * m + j]).abs());
                b[i * m + j] = v;
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    let got = create_mirror_view_and_copy(&u)?.to_vec();
    let err = got
        .iter()
        .zip(&a)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    ensure(err < 1e-12 && (last - host_last).abs() < 1e-12, || {
        format!("grid differs by {err}, last change {last} vs {host_last}")
    })?;
    Ok(format!("{m}x{m}, {sweeps} sweeps, last change {last:.3e}"))
}
