//! scan_map, noise_weight and build_noise_weighted against the reference, on the reference's
//! pixels and weights. The timestream kernels update in place: samples outside their domain
//! must keep their value exactly.

use crate::{abs, cases, check, close, ok, per_backend, problem};
use rokkos::{deep_copy, ExecutionSpace};
use rokkos_toast::kernels::{upload, ScanMode};
use rokkos_toast::observation::{download, Observation};
use rokkos_toast::problem::{Problem, NNZ};

/// An observation whose pixels and weights hold the reference's.
fn with_pointing<E: ExecutionSpace>(
    space: &E,
    p: &Problem,
) -> rokkos::Result<(Observation<E>, Vec<i64>, Vec<f64>)> {
    let obs = Observation::new(space, p)?;
    let quats = p.pointing_input();
    let (pixels, _) = p.reference_pixels(&quats);
    let weights = p.reference_weights(&quats);
    deep_copy(
        &obs.pixels,
        &upload(space, "p", [p.n_rows, p.n_samp], pixels.clone())?,
    )?;
    deep_copy(
        &obs.weights,
        &upload(space, "w", [p.n_rows, p.n_samp, NNZ], weights.clone())?,
    )?;
    Ok((obs, pixels, weights))
}

fn scan_map_matches_reference<E: ExecutionSpace>(space: E) {
    let modes = proptest::sample::select(vec![
        (false, false, false),
        (false, true, false),
        (true, false, false),
        (false, false, true),
        (true, true, true),
    ]);
    check(
        16,
        (cases(), modes, proptest::bool::ANY),
        |(c, mode, single)| {
            let p = problem(&c);
            let (obs, pixels, weights) = ok(with_pointing(&space, &p))?;
            let mask = p.domain_mask(&p.data_index);
            let scan = ScanMode {
                zero: mode.0,
                subtract: mode.1,
                scale: mode.2,
            };
            let want = if single {
                let m32: Vec<f32> = p.map.iter().map(|&x| x as f32).collect();
                let map = ok(upload(&space, "map32", obs.map.extents(), m32.clone()))?;
                ok(obs.scan_map(&space, c.4, &map, scan))?;
                p.reference_scan(&m32, &p.det_data, &pixels, &weights, mode)
            } else {
                ok(obs.scan_map(&space, c.4, &obs.map, scan))?;
                p.reference_scan(&p.map, &p.det_data, &pixels, &weights, mode)
            };
            let got = ok(download(&obs.det_data))?;
            close("det_data", &got, &want, |i| {
                if mask[i] {
                    1e-12 * (1.0 + want[i].abs())
                } else {
                    0.0
                }
            })
        },
    );
}
per_backend!(scan_map_matches_reference);

fn noise_weight_matches_reference<E: ExecutionSpace>(space: E) {
    check(12, cases(), |c| {
        let p = problem(&c);
        let obs = ok(Observation::new(&space, &p))?;
        ok(obs.noise_weight(&space, c.4))?;
        let want = p.reference_noise_weight(&p.det_data);
        let mask = p.domain_mask(&p.data_index);
        close("det_data", &ok(download(&obs.det_data))?, &want, |i| {
            if mask[i] {
                1e-15 * want[i].abs()
            } else {
                0.0
            }
        })
    });
}
per_backend!(noise_weight_matches_reference);

fn build_noise_weighted_matches_reference<E: ExecutionSpace>(space: E) {
    check(16, cases(), |c| {
        let p = problem(&c);
        let (obs, pixels, weights) = ok(with_pointing(&space, &p))?;
        ok(obs.build_noise_weighted(&space, c.4))?;
        let want = p.reference_zmap(&pixels, &weights, &p.det_data);
        // Each element sums at most n_det·n_samp terms in an order the atomics choose.
        let magnitude = p.reference_zmap(&pixels, &abs(&weights), &abs(&p.det_data));
        let n = ((p.n_det * p.n_samp) as f64).sqrt().max(1.0);
        close("zmap", &ok(download(&obs.zmap))?, &want, |i| {
            1e-12 * n * magnitude[i]
        })
    });
}
per_backend!(build_noise_weighted_matches_reference);

/// The adjoint identity of spec §3 through the kernels: ⟨P m, d⟩ = ⟨m, Pᵀ d⟩, with scan_map
/// (zero + add, scale 1) and build_noise_weighted (scale 1) on one device, no flags.
fn scan_and_build_are_adjoint<E: ExecutionSpace>(space: E) {
    check(8, cases(), |c| {
        let mut p = problem(&c);
        p.shared_flags = vec![0; p.n_samp];
        p.det_flags = vec![0; p.n_rows * p.n_samp];
        p.det_scale = vec![1.0; p.n_det];
        p.data_scale = 1.0;
        let (obs, _, _) = ok(with_pointing(&space, &p))?;
        let d = p.det_data.clone();
        ok(obs.build_noise_weighted(&space, c.4))?;
        let z = ok(download(&obs.zmap))?;
        let scan = ScanMode {
            zero: true,
            subtract: false,
            scale: false,
        };
        ok(obs.scan_map(&space, c.4, &obs.map, scan))?;
        let pm = ok(download(&obs.det_data))?;
        let mask = p.domain_mask(&p.data_index);
        let terms: Vec<f64> = (0..d.len())
            .filter(|&i| mask[i])
            .map(|i| pm[i] * d[i])
            .collect();
        let lhs: f64 = terms.iter().sum();
        let rhs: f64 = p.map.iter().zip(&z).map(|(m, z)| m * z).sum();
        let scale: f64 = terms.iter().map(|t| t.abs()).sum();
        proptest::prop_assert!(
            (lhs - rhs).abs() <= 1e-13 * scale.max(1e-300),
            "{} vs {}",
            lhs,
            rhs
        );
        Ok(())
    });
}
per_backend!(scan_and_build_are_adjoint);
