//! pointing_detector, pixels_healpix and the Stokes weights against the reference. Each kernel
//! reads the reference's output of the kernel before it (quaternions valid everywhere), so a
//! failure names the kernel at fault.

use crate::{cases, check, close, ok, per_backend, problem};
use rokkos::ExecutionSpace;
use rokkos_toast::kernels::upload;
use rokkos_toast::observation::{download, Observation};

fn pointing_detector_matches_reference<E: ExecutionSpace>(space: E) {
    check(12, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        ok(obs.pointing_detector(&space, c.4))?;
        close(
            "quats",
            &ok(download(&obs.quats))?,
            &p.reference_quats(),
            |_| 1e-12,
        )
    });
}
per_backend!(pointing_detector_matches_reference);

fn pixels_healpix_matches_reference<E: ExecutionSpace>(space: E) {
    check(12, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        let quats = p.pointing_input();
        ok(rokkos::deep_copy(
            &obs.quats,
            &ok(upload(&space, "q", [p.n_rows, p.n_samp, 4], quats.clone()))?,
        ))?;
        ok(obs.pixels_healpix(&space, c.4))?;
        let (pixels, hits) = p.reference_pixels(&quats);
        proptest::prop_assert_eq!(ok(download(&obs.pixels))?, pixels);
        proptest::prop_assert_eq!(ok(download(&obs.hit_submaps))?, hits);
        Ok(())
    });
}
per_backend!(pixels_healpix_matches_reference);

fn stokes_weights_match_reference<E: ExecutionSpace>(space: E) {
    check(12, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        let quats = p.pointing_input();
        ok(rokkos::deep_copy(
            &obs.quats,
            &ok(upload(&space, "q", [p.n_rows, p.n_samp, 4], quats.clone()))?,
        ))?;
        ok(obs.stokes_weights_iqu(&space, c.4))?;
        close(
            "weights",
            &ok(download(&obs.weights))?,
            &p.reference_weights(&quats),
            |_| 1e-12,
        )?;
        ok(obs.stokes_weights_i(&space, c.4))?;
        close(
            "weights I",
            &ok(download(&obs.weights_i))?,
            &p.reference_weights_i(),
            |_| 0.0,
        )
    });
}
per_backend!(stokes_weights_match_reference);

/// The three kernels chained on the device (no host copy between them) against the chained
/// reference.
fn pointing_chain_matches_reference<E: ExecutionSpace>(space: E) {
    check(8, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        ok(obs.pointing_detector(&space, c.4))?;
        ok(obs.pixels_healpix(&space, c.4))?;
        ok(obs.stokes_weights_iqu(&space, c.4))?;
        let quats = p.reference_quats();
        let (pixels, _) = p.reference_pixels(&quats);
        proptest::prop_assert_eq!(ok(download(&obs.pixels))?, pixels);
        close(
            "weights",
            &ok(download(&obs.weights))?,
            &p.reference_weights(&quats),
            |_| 1e-12,
        )
    });
}
per_backend!(pointing_chain_matches_reference);
