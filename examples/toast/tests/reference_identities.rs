//! The independent reference against the validation identities of spec §3, on random data, with
//! interval lists of every shape proptest draws (none, one covering everything, one-sample
//! views, random lengths with gaps): the adjoint pairs, the pointing checks, and samples outside
//! every interval keeping a sentinel.

use proptest::prelude::*;
use rokkos_toast::gen::{intervals, IntervalShape, Rng, INTERVAL_SHAPES};
use rokkos_toast::reference::healpix::Healpix;
use rokkos_toast::reference::qarray::{mult, norm, ry, rz, Quat, IDENTITY};
use rokkos_toast::reference::*;
use rokkos_toast::Interval;

const SENTINEL: f64 = -12345.5;

fn shapes() -> impl Strategy<Value = IntervalShape> {
    proptest::sample::select(INTERVAL_SHAPES.to_vec())
}

/// Which samples lie in some interval, marked view by view.
fn inside(n_samp: usize, iv: &[Interval]) -> Vec<bool> {
    let mut m = vec![false; n_samp];
    for v in iv {
        for s in v.first..=v.last {
            m[s as usize] = true;
        }
    }
    m
}

/// A random permutation of `0..n` as row indices, of which the first `k` are used.
fn rows(rng: &mut Rng, n: usize, k: usize) -> Vec<i32> {
    let mut p: Vec<i32> = (0..n as i32).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(0, i as i64 + 1) as usize);
    }
    p.truncate(k);
    p
}

fn randoms(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.range_f64(-1.0, 1.0)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// ⟨P m, d⟩ = ⟨m, Pᵀ d⟩: scan_map (add, zeroed TOD, scale 1) against build_noise_weighted
    /// (det_scale 1), no flags, every submap local (in shuffled slots). "No flags" is flag arrays
    /// of no samples (a one-sample array would be taken as flags when `n_samp` is 1).
    #[test]
    fn scan_map_and_build_noise_weighted_are_adjoint(
        shape in shapes(), n_samp in 0usize..150, n_det in 1usize..4, nnz in prop_oneof![Just(1usize), Just(3)], seed: u64,
    ) {
        let mut rng = Rng::new(seed);
        let iv = intervals(&mut rng, shape, n_samp);
        let (nside, n_pix_submap) = (4i64, 16i64);
        let n_submap = (12 * nside * nside / n_pix_submap) as usize;
        let global2local: Vec<i64> = rows(&mut rng, n_submap, n_submap).iter().map(|&r| r as i64).collect();
        let n_rows = n_det + 1;
        let (pi, wi, di) = (rows(&mut rng, n_rows, n_det), rows(&mut rng, n_rows, n_det), rows(&mut rng, n_rows, n_det));
        let pixels: Vec<i64> = (0..n_rows * n_samp).map(|_| rng.below(0, 12 * nside * nside)).collect();
        let weights = randoms(&mut rng, n_rows * n_samp * nnz);
        let map = randoms(&mut rng, n_submap * n_pix_submap as usize * nnz);
        let d = randoms(&mut rng, n_rows * n_samp);

        let mut pm = vec![0.0; n_rows * n_samp];
        scan_map(n_samp, nnz, &global2local, n_pix_submap, &map, &mut pm, &di, &pixels, &pi, &weights, &wi, &iv, 1.0, true, false, false);
        let mut z = vec![0.0; map.len()];
        build_noise_weighted(n_samp, nnz, &global2local, &mut z, &pi, &pixels, &wi, &weights, &di, &d, &[], &[], 0, &vec![1.0; n_det], 1, &iv, &[], 1, n_pix_submap);

        let lhs: f64 = pm.iter().zip(&d).map(|(a, b)| a * b).sum();
        let rhs: f64 = map.iter().zip(&z).map(|(a, b)| a * b).sum();
        let scale: f64 = pm.iter().zip(&d).map(|(a, b)| (a * b).abs()).sum::<f64>().max(1e-300);
        prop_assert!((lhs - rhs).abs() <= 1e-13 * scale, "{} vs {}", lhs, rhs);
    }

    /// ⟨M a, d⟩ = ⟨a, Mᵀ d⟩ for the offset template, with any step length.
    #[test]
    fn offset_add_and_project_are_adjoint(
        shape in shapes(), n_samp in 0usize..150, step in 1i64..12, seed: u64,
    ) {
        let mut rng = Rng::new(seed);
        let iv = intervals(&mut rng, shape, n_samp);
        let n_amp_views: Vec<i64> = iv.iter().map(|v| (v.len() + step - 1) / step).collect();
        let amp_offset = rng.below(0, 4);
        let n_amp = (amp_offset + n_amp_views.iter().sum::<i64>()) as usize;
        let a = randoms(&mut rng, n_amp);
        let d = randoms(&mut rng, 2 * n_samp);
        let mut ma = vec![0.0; 2 * n_samp];
        template_offset_add_to_signal(n_samp, step, amp_offset, &n_amp_views, &a, 1, &mut ma, &iv);
        let mut mtd = vec![0.0; n_amp];
        template_offset_project_signal(n_samp, 1, &d, -1, &[], 1, step, amp_offset, &n_amp_views, &mut mtd, &iv);
        // Amplitudes before amp_offset belong to other detectors and stay untouched.
        prop_assert!(mtd[..amp_offset as usize].iter().all(|&x| x == 0.0));
        let lhs: f64 = ma.iter().zip(&d).map(|(x, y)| x * y).sum();
        let rhs: f64 = a.iter().zip(&mtd).map(|(x, y)| x * y).sum();
        let scale: f64 = ma.iter().zip(&d).map(|(x, y)| (x * y).abs()).sum::<f64>().max(1e-300);
        prop_assert!((lhs - rhs).abs() <= 1e-13 * scale, "{} vs {}", lhs, rhs);
    }

    /// §3 pointing: with the identity focal plane the quaternions are the boresight exactly, and
    /// products of unit quaternions keep unit norm to 1e-15.
    #[test]
    fn pointing_identity_focalplane_and_norms(shape in shapes(), n_samp in 0usize..120, n_det in 1usize..4, seed: u64) {
        let mut rng = Rng::new(seed);
        let iv = intervals(&mut rng, shape, n_samp);
        let bore: Vec<Quat> = (0..n_samp).map(|_| rng.unit_quat()).collect();
        let qi = rows(&mut rng, n_det, n_det);
        let mut quats = vec![SENTINEL; n_det * n_samp * 4];
        pointing_detector(&vec![IDENTITY; n_det], &bore, &qi, &mut quats, &iv, &[], 0);
        let m = inside(n_samp, &iv);
        for (s, &m) in m.iter().enumerate() {
            for r in 0..n_det {
                let q = &quats[(r * n_samp + s) * 4..][..4];
                if m {
                    prop_assert_eq!(q, &bore[s][..]);
                } else {
                    prop_assert!(q.iter().all(|&x| x == SENTINEL));
                }
            }
        }
        let fp: Vec<Quat> = (0..n_det).map(|_| rng.unit_quat()).collect();
        pointing_detector(&fp, &bore, &qi, &mut quats, &iv, &[], 0);
        for d in 0..n_det {
            for s in (0..n_samp).filter(|&s| m[s]) {
                let at = (qi[d] as usize * n_samp + s) * 4;
                let q = [quats[at], quats[at + 1], quats[at + 2], quats[at + 3]];
                prop_assert!((norm(&q) - 1.0).abs() <= 1e-15, "norm {}", norm(&q));
                prop_assert_eq!(q, mult(&bore[s], &fp[d]));
            }
        }
    }

    /// §3 pointing chain: boresight `Rz(φ)⊗Ry(θ)`, focal plane `Rz(ψ)`, so the detector is
    /// `Rz(φ)Ry(θ)Rz(ψ)`: its pixel is `ang2pix(θ, φ)` (taken from the angles, not from a
    /// vector) and its weights are `cal·[1, η cos(2ψ + 4h), η sin(2ψ + 4h)]`.
    #[test]
    fn pointing_chain_closed_forms(
        shape in shapes(), n_samp in 0usize..80, nside_log in 0u32..12, nest: bool, hwp_on: bool, seed: u64,
    ) {
        let mut rng = Rng::new(seed);
        let iv = intervals(&mut rng, shape, n_samp);
        let nside = 1i64 << nside_log;
        let hp = Healpix::new(nside).unwrap();
        let n_det = 2;
        let angles: Vec<(f64, f64)> = (0..n_samp)
            .map(|_| (rng.range_f64(0.05, std::f64::consts::PI - 0.05), rng.range_f64(-3.0, 9.0)))
            .collect();
        let psi: Vec<f64> = (0..n_det).map(|_| rng.range_f64(-3.2, 3.2)).collect();
        let eps = [0.0, rng.range_f64(0.0, 0.2)];
        let hwp: Vec<f64> = if hwp_on { (0..n_samp).map(|_| rng.range_f64(0.0, 6.3)).collect() } else { vec![] };
        let bore: Vec<Quat> = angles.iter().map(|&(t, p)| mult(&rz(p), &ry(t))).collect();
        let fp: Vec<Quat> = psi.iter().map(|&p| rz(p)).collect();
        let rows_ = [1, 0];
        let mut quats = vec![SENTINEL; n_det * n_samp * 4];
        pointing_detector(&fp, &bore, &rows_, &mut quats, &iv, &[], 0);
        let n_pix_submap = (12 * nside * nside).min(48);
        let mut hits = vec![0u8; (12 * nside * nside / n_pix_submap) as usize];
        let mut pixels = vec![-3i64; n_det * n_samp];
        pixels_healpix(n_samp, &rows_, &quats, &[], 0, &rows_, &mut pixels, &iv, &mut hits, n_pix_submap, nside, nest);
        let mut w = vec![SENTINEL; n_det * n_samp * 3];
        let cal = 1.5;
        stokes_weights_iqu(n_samp, &rows_, &quats, &rows_, &mut w, &hwp, &iv, &eps, cal);
        let m = inside(n_samp, &iv);
        let mut want_hits = vec![0u8; hits.len()];
        for d in 0..n_det {
            let r = rows_[d] as usize;
            for s in 0..n_samp {
                let px = pixels[r * n_samp + s];
                let ws = &w[(r * n_samp + s) * 3..][..3];
                if !m[s] {
                    prop_assert_eq!(px, -3);
                    prop_assert!(ws.iter().all(|&x| x == SENTINEL));
                    continue;
                }
                let (theta, phi) = angles[s];
                prop_assert_eq!(px, hp.ang2pix(theta, phi, nest), "sample {} (θ {}, φ {})", s, theta, phi);
                want_hits[(px / n_pix_submap) as usize] = 1;
                let h = if hwp_on { hwp[s] } else { 0.0 };
                let ang = 2.0 * psi[d] + 4.0 * h;
                let eta = (1.0 - eps[d]) / (1.0 + eps[d]);
                let want = [cal, cal * eta * ang.cos(), cal * eta * ang.sin()];
                for k in 0..3 {
                    prop_assert!((ws[k] - want[k]).abs() <= 1e-12, "weight {} of sample {}: {} vs {}", k, s, ws[k], want[k]);
                }
            }
        }
        prop_assert_eq!(hits, want_hits);
    }

    /// Every per-sample kernel leaves samples outside the intervals (and rows no detector owns)
    /// exactly as they were, and writes every sample inside.
    #[test]
    fn untouched_outside_intervals(shape in shapes(), n_samp in 0usize..120, n_det in 0usize..4, seed: u64) {
        let mut rng = Rng::new(seed);
        let iv = intervals(&mut rng, shape, n_samp);
        let m = inside(n_samp, &iv);
        let n_rows = n_det + 2;
        let qi = rows(&mut rng, n_rows, n_det);
        let owned = |r: usize, s: usize| m[s] && qi.contains(&(r as i32));
        let bore: Vec<Quat> = (0..n_samp).map(|_| rng.unit_quat()).collect();
        let fp: Vec<Quat> = (0..n_det).map(|_| rng.unit_quat()).collect();

        let mut quats = vec![SENTINEL; n_rows * n_samp * 4];
        pointing_detector(&fp, &bore, &qi, &mut quats, &iv, &[], 0);
        // Rows nobody owns get valid quaternions, so the pixel kernels may read them.
        for (i, q) in quats.iter_mut().enumerate() {
            if !owned(i / 4 / n_samp, i / 4 % n_samp) {
                *q = if i % 4 == 3 { 1.0 } else { 0.0 };
            }
        }
        let mut pixels = vec![-77i64; n_rows * n_samp];
        let mut hits = vec![0u8; 12];
        pixels_healpix(n_samp, &qi, &quats, &[], 0, &qi, &mut pixels, &iv, &mut hits, 16, 4, true);
        let mut w3 = vec![SENTINEL; n_rows * n_samp * 3];
        stokes_weights_iqu(n_samp, &qi, &quats, &qi, &mut w3, &[], &iv, &vec![0.0; n_det], 1.0);
        let mut w1 = vec![SENTINEL; n_rows * n_samp];
        stokes_weights_i(n_samp, &qi, &mut w1, &iv, 2.0);
        let mut tod = vec![SENTINEL; n_rows * n_samp];
        noise_weight(n_samp, &mut tod, &qi, &iv, &vec![0.5; n_det]);
        let mut scanned = vec![SENTINEL; n_rows * n_samp];
        let map = vec![1.0; 12 * 16];
        scan_map(n_samp, 1, &(0..12).collect::<Vec<i64>>(), 16, &map, &mut scanned, &qi, &pixels, &qi, &w1, &qi, &iv, 1.0, true, false, false);
        for r in 0..n_rows {
            for s in 0..n_samp {
                let at = r * n_samp + s;
                let own = owned(r, s);
                prop_assert_eq!(quats[at * 4..at * 4 + 4].contains(&SENTINEL), false);
                prop_assert_eq!(pixels[at] == -77, !own, "pixel ({}, {})", r, s);
                prop_assert_eq!(w3[at * 3..at * 3 + 3].iter().all(|&x| x == SENTINEL), !own);
                prop_assert_eq!(w1[at], if own { 2.0 } else { SENTINEL });
                prop_assert_eq!(tod[at], if own { SENTINEL * 0.5 } else { SENTINEL });
                prop_assert_eq!(scanned[at], if own { 2.0 } else { SENTINEL });
            }
        }
        // The offset template, one detector on row 1.
        let step = 3;
        let n_amp_views: Vec<i64> = iv.iter().map(|v| (v.len() + step - 1) / step).collect();
        let n_amp: i64 = n_amp_views.iter().sum();
        let mut data = vec![SENTINEL; 2 * n_samp];
        template_offset_add_to_signal(n_samp, step, 0, &n_amp_views, &vec![1.0; n_amp as usize], 1, &mut data, &iv);
        for s in 0..n_samp {
            prop_assert_eq!(data[s], SENTINEL);
            prop_assert_eq!(data[n_samp + s], if m[s] { SENTINEL + 1.0 } else { SENTINEL });
        }
    }
}
