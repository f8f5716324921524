//! A `DualView` on the run-time `Device`: the host sets a source term, a kernel smooths the
//! field on the device, and the host reads it back; every hand-over is a `sync_*` call, and the
//! one left out on purpose is refused with `Err(Unsynced)` instead of reading stale data.
//!
//! `cargo run -p rokkos-containers --example dual_view` (`ROKKOS_BACKEND=serial|rayon|wgpu|cuda`
//! picks the device).

use rokkos::prelude::*;
use rokkos_containers::DualView;

/// One Jacobi sweep of `u'' = 0` on the interior, from `u` into `next`.
#[kernel]
fn smooth(i: usize, next: ViewMut<f64>, u: View<f64>) {
    let n = u.extent(0);
    if i == 0 || i + 1 == n {
        next[i] = u[i];
    } else {
        next[i] = 0.5 * (u[i - 1] + u[i + 1]);
    }
}

fn main() -> rokkos::Result<()> {
    let dev = Device::new()?;
    let n = 16;
    let u = DualView::<f64>::new_on(&dev, "u", [n])?;
    let next = DualView::<f64>::new_on(&dev, "next", [n])?;
    {
        // Boundary values on the host: this marks u's host side modified.
        let mut g = u.host_mut()?;
        g[0] = 1.0;
        g[n - 1] = 3.0;
    }
    let sweep = |from: &DualView<f64>, to: &DualView<f64>| {
        parallel_for(
            "smooth",
            RangePolicy::new(&dev, 0..n),
            smooth(to.view_device(), from.view_device()),
        )
    };
    // Forgetting the host-to-device sync is an error, not a kernel reading zeros.
    let e = sweep(&u, &next).unwrap_err();
    println!("without sync_device(): {e}");
    u.sync_device()?;
    for _ in 0..500 {
        sweep(&u, &next)?;
        sweep(&next, &u)?;
    }
    u.sync_host()?;
    let g = u.host()?;
    // The exact solution is the straight line between the boundary values.
    let worst = (0..n)
        .map(|i| (g[i] - (1.0 + 2.0 * i as f64 / (n - 1) as f64)).abs())
        .fold(0.0, f64::max);
    println!(
        "on {}: u[{}] = {:.4}, largest error {worst:.2e}",
        dev.name(),
        n / 2,
        g[n / 2]
    );
    assert!(worst < 1e-3, "Jacobi did not converge: {worst}");
    Ok(())
}
