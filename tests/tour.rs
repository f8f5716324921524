//! The nine programs of `examples/tour` (written once against `rokkos::Device`), run on every
//! backend compiled in, each checking its own result. Small sizes: the point is that the same
//! code runs and agrees everywhere, not speed.

#[path = "../examples/tour/programs/mod.rs"]
mod programs;

use rokkos::Device;

fn run_all(dev: &Device) {
    for (name, run) in programs::ALL {
        // Sizes around a workgroup and a chunk boundary.
        for n in [1000, 4099] {
            if let Err(e) = run(dev, n) {
                panic!(
                    "{name} on {} (n = {n}): {e}",
                    rokkos::ExecutionSpace::name(dev)
                );
            }
        }
    }
}

#[test]
fn tour_on_serial() {
    run_all(&Device::with_backend("serial").unwrap());
}

#[cfg(feature = "rayon")]
#[test]
fn tour_on_rayon() {
    run_all(&Device::from(rokkos::Rayon::with_threads(2).unwrap()));
}

#[cfg(feature = "wgpu")]
#[test]
fn tour_on_wgpu() {
    match Device::with_backend("wgpu") {
        Ok(d) => run_all(&d),
        Err(e) if std::env::var_os("ROKKOS_REQUIRE_WGPU").is_some() => panic!("{e}"),
        Err(e) => eprintln!("skipped: {e}"),
    }
}
