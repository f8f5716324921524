//! The independent reference against every fixed case of the spec (§1.4, §1.5, §2): pixels and
//! hits exactly, quaternions and weights within 1e-12 absolute (magnitudes ≤ 1, §3), the
//! other float results within 1e-12 of the spec's values.

use rokkos_toast::reference::healpix::Healpix;
use rokkos_toast::reference::qarray::{self, mult, rotate, rx, ry, rz, Quat};
use rokkos_toast::reference::*;
use rokkos_toast::Interval;

mod common;
use common::*;

const S: f64 = std::f64::consts::FRAC_1_SQRT_2;

#[track_caller]
fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "lengths differ: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol,
            "element {i}: {g} vs {w} (tolerance {tol:e})\n got {got:?}\nwant {want:?}"
        );
    }
}

/// §1.4: toast's own qarray numbers (given to 8 decimals) and the hand-checkable product.
#[test]
fn quaternion_primitives() {
    let q1 = [0.50487417, 0.61426059, 0.60118994, 0.07972857];
    let q2 = [0.43561544, 0.33647027, 0.40417115, 0.73052901];
    assert_close(
        &mult(&q1, &q2),
        &[0.44954009, 0.53339352, 0.37370443, -0.61135101],
        1e-8,
    );
    let v = [0.57734543, 0.30271255, 0.75831218];
    assert_close(&rotate(&q1, &v), &[0.4176698, 0.84203849, 0.34135482], 1e-7);
    assert_close(&rotate(&q2, &v), &[0.8077876, 0.3227185, 0.49328689], 1e-7);

    let rz90 = [0.0, 0.0, S, S];
    let rx90 = [S, 0.0, 0.0, S];
    let p = mult(&rz90, &rx90);
    assert_close(&p, &[0.5, 0.5, 0.5, 0.5], 1e-15);
    assert_close(&rotate(&p, &[1.0, 0.0, 0.0]), &[0.0, 1.0, 0.0], 1e-15);
    assert_close(&rotate(&p, &[0.0, 0.0, 1.0]), &[1.0, 0.0, 0.0], 1e-15);
    assert_close(&rz(std::f64::consts::FRAC_PI_2), &rz90, 1e-15);
    assert_close(&rx(std::f64::consts::FRAC_PI_2), &rx90, 1e-15);
}

/// §1.5 worked example: nside 4, θ = 1.2, φ = 2.5 is nest 17 and ring 62.
#[test]
fn healpix_worked_example() {
    let hp = Healpix::new(4).unwrap();
    let d = [-0.746697163163, 0.557799430167, 0.362357754477];
    assert_eq!(hp.vec2pix(&d, true), 17);
    assert_eq!(hp.vec2pix(&d, false), 62);
    assert_eq!(hp.ang2pix(1.2, 2.5, true), 17);
    assert_eq!(hp.ang2pix(1.2, 2.5, false), 62);
    assert_eq!(hp.npix(), 192);
    for bad in [0, 3, 6, -4, 1 << 30] {
        assert!(Healpix::new(bad).is_none(), "nside {bad}");
    }
}

/// §2.1.
#[test]
fn pointing_detector_fixed_case() {
    let fp = [[0.0, 0.0, 0.0, 1.0], [S, 0.0, 0.0, S]];
    let bore = [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, S, S],
        [S, 0.0, 0.0, S],
        [0.5, 0.5, 0.5, 0.5],
        [0.0, 0.0, S, S],
    ];
    let mut quats = vec![-7.0; 2 * 5 * 4];
    pointing_detector(
        &fp,
        &bore,
        &[1, 0],
        &mut quats,
        &Interval::list(&[(0, 0), (2, 3)]),
        &[0, 0, 1, 0, 2],
        1,
    );
    let u = [-7.0; 4];
    let row1 = [
        [0.0, 0.0, 0.0, 1.0],
        u,
        [0.0, 0.0, 0.0, 1.0],
        [0.5, 0.5, 0.5, 0.5],
        u,
    ];
    let row0 = [[S, 0.0, 0.0, S], u, [S, 0.0, 0.0, S], [S, S, 0.0, 0.0], u];
    let want: Vec<f64> = row0.iter().chain(&row1).flatten().copied().collect();
    assert_close(&quats, &want, 1e-12);
}

fn run_pixels(quats: &[Quat], nside: i64, nest: bool, flags: &[u8]) -> (Vec<i64>, Vec<u8>) {
    let n = quats.len();
    let flat: Vec<f64> = quats.iter().flatten().copied().collect();
    let n_pix_submap = 16;
    let mut pixels = vec![-9; n];
    let mut hits = vec![0u8; (12 * nside * nside / n_pix_submap).max(1) as usize];
    pixels_healpix(
        n,
        &[0],
        &flat,
        flags,
        1,
        &[0],
        &mut pixels,
        &[Interval::samples(0, n as i64 - 1)],
        &mut hits,
        n_pix_submap,
        nside,
        nest,
    );
    (pixels, hits)
}

fn hit_set(hits: &[u8]) -> Vec<usize> {
    hits.iter()
        .enumerate()
        .filter(|(_, &h)| h != 0)
        .map(|(i, &h)| {
            assert_eq!(h, 1);
            i
        })
        .collect()
}

/// §2.2 at nside 4 (with the flag), the hit submaps, and the same directions at nside 1024.
#[test]
fn pixels_healpix_fixed_case() {
    let quats: Vec<Quat> = PIXEL_CASE.iter().map(|c| c.2).collect();
    // The table's quaternions are Rz(φ) ⊗ Ry(θ).
    for (theta, phi, q) in PIXEL_CASE {
        assert_close(&mult(&rz(phi), &ry(theta)), &q, 1e-15);
    }
    let flags = [0, 0, 0, 1, 0];
    let (nest, hits) = run_pixels(&quats, 4, true, &flags);
    assert_eq!(nest, PIXEL_NEST_4);
    assert_eq!(hit_set(&hits), HITS_NEST_4);
    let (ring, hits) = run_pixels(&quats, 4, false, &flags);
    assert_eq!(ring, PIXEL_RING_4);
    assert_eq!(hit_set(&hits), HITS_RING_4);
    // Unflagged (a one-element flag array disables flags).
    assert_eq!(run_pixels(&quats, 4, true, &[1]).0[3], 52);
    assert_eq!(run_pixels(&quats, 4, false, &[1]).0[3], 55);
    let (nest, _) = run_pixels(&quats, 1024, true, &[]);
    assert_eq!(nest, PIXEL_NEST_1024);
    let (ring, _) = run_pixels(&quats, 1024, false, &[]);
    assert_eq!(ring, PIXEL_RING_1024);
}

/// §2.2 regression case of the φ snap (toast HEAD): nside 4096, φ = −2.75e−16.
#[test]
fn pixels_healpix_phi_snap() {
    let q = SNAP_QUAT;
    let d = rotate(&q, &[0.0, 0.0, 1.0]);
    let phi = d[1].atan2(d[0]);
    assert!(phi < 0.0 && phi > -1e-15, "φ = {phi:e}");
    let hp = Healpix::new(4096).unwrap();
    assert_eq!(hp.vec2pix(&d, true), 143138818);
    assert_eq!(hp.vec2pix(&d, false), 187529588);
    assert_eq!(run_pixels(&[q], 4096, true, &[]).0, [143138818]);
}

fn deg(x: f64) -> f64 {
    x.to_radians()
}

/// §2.3, without and with a half-wave plate, and the quaternions' construction.
#[test]
fn stokes_weights_iqu_fixed_case() {
    let (q0, q1) = (STOKES_Q0, STOKES_Q1);
    let build = |a: f64, b: f64, c: f64| mult(&mult(&rz(deg(a)), &ry(deg(b))), &rz(deg(c)));
    assert_close(&build(20.0, 50.0, 30.0), &q0, 1e-15);
    assert_close(&build(-60.0, 100.0, -45.0), &q1, 1e-15);

    let quats: Vec<f64> = [q0, q0, q0, q1, q1, q1].iter().flatten().copied().collect();
    let run = |hwp: &[f64]| {
        let mut w = vec![-5.0; 2 * 3 * 3];
        stokes_weights_iqu(
            3,
            &[0, 1],
            &quats,
            &[0, 1],
            &mut w,
            hwp,
            &[Interval::samples(0, 1)],
            &[0.1, 0.0],
            2.0,
        );
        w
    };
    let eta = 9.0 / 11.0;
    let d0 = [2.0, 0.8181818181818183, 1.4171324789199904];
    let d1 = [2.0, 0.0, -2.0];
    let u = [-5.0; 3];
    let want: Vec<f64> = [d0, d0, u, d1, d1, u].iter().flatten().copied().collect();
    assert_close(&run(&[]), &want, 1e-12);

    let h0 = [2.0, -eta, eta * 3f64.sqrt()];
    let h1 = [2.0, 3f64.sqrt(), -1.0];
    let want: Vec<f64> = [h0, d0, u, h1, d1, u].iter().flatten().copied().collect();
    assert_close(&run(&[deg(15.0), 0.0, 0.0]), &want, 1e-12);
}

/// §2.4.
#[test]
fn stokes_weights_i_fixed_case() {
    let mut w = vec![0.0; 8];
    stokes_weights_i(4, &[1], &mut w, &[Interval::samples(1, 2)], 3.0);
    assert_eq!(w, [0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 3.0, 0.0]);
}

const G2L: [i64; 4] = [-1, 1, 0, -1];

fn scan_case<T: MapValue>(map: &[T], zero: bool, subtract: bool, scale: bool) -> Vec<f64> {
    let weights = [
        1.0, 0.5, 0.25, 1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.5,
    ];
    let mut data = vec![100.0, 200.0, 300.0, 400.0, 500.0];
    scan_map(
        5,
        3,
        &G2L,
        2,
        map,
        &mut data,
        &[0],
        &[4, 3, -1, 5, 2],
        &[0],
        &weights,
        &[0],
        &[Interval::samples(0, 3)],
        2.0,
        zero,
        subtract,
        scale,
    );
    data
}

/// §2.5: every mode, and every map element type.
#[test]
fn scan_map_fixed_case() {
    let map: Vec<f64> = vec![1., 2., 3., 11., 12., 13., 21., 22., 23., 31., 32., 33.];
    let add = [105.5, 198.0, 300.0, 448.0, 500.0];
    assert_close(&scan_case(&map, false, false, false), &add, 1e-12);
    assert_close(
        &scan_case(&map, false, true, false),
        &[94.5, 202.0, 300.0, 352.0, 500.0],
        1e-12,
    );
    assert_close(
        &scan_case(&map, true, false, false),
        &[5.5, -2.0, 0.0, 48.0, 500.0],
        1e-12,
    );
    assert_close(
        &scan_case(&map, false, false, true),
        &[550.0, -400.0, 300.0, 19200.0, 500.0],
        1e-12,
    );
    // Subtract wins over scale.
    assert_close(
        &scan_case(&map, false, true, true),
        &[94.5, 202.0, 300.0, 352.0, 500.0],
        1e-12,
    );
    let f32s: Vec<f32> = map.iter().map(|&x| x as f32).collect();
    let i64s: Vec<i64> = map.iter().map(|&x| x as i64).collect();
    let i32s: Vec<i32> = map.iter().map(|&x| x as i32).collect();
    assert_close(&scan_case(&f32s, false, false, false), &add, 1e-12);
    assert_close(&scan_case(&i64s, false, false, false), &add, 1e-12);
    assert_close(&scan_case(&i32s, false, false, false), &add, 1e-12);
}

/// §2.6.
#[test]
fn noise_weight_fixed_case() {
    let mut data = vec![1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0];
    noise_weight(
        4,
        &mut data,
        &[1, 0],
        &[Interval::samples(1, 2)],
        &[2.0, 0.5],
    );
    assert_eq!(data, [1.0, 1.0, 1.5, 4.0, 10.0, 40.0, 60.0, 40.0]);
}

/// §2.7: flags of both kinds, an invalid pixel, and two detectors on one pixel.
#[test]
fn build_noise_weighted_fixed_case() {
    let mut zmap = vec![0.0; 12];
    let w0 = [1.0, 0.5, 0.5];
    let w1 = [1.0, -0.5, 0.0];
    let weights: Vec<f64> = [w0, w0, w0, w0, w1, w1, w1, w1]
        .iter()
        .flatten()
        .copied()
        .collect();
    build_noise_weighted(
        4,
        3,
        &G2L,
        &mut zmap,
        &[0, 1],
        &[4, 4, 3, -1, 4, 2, 5, 4],
        &[0, 1],
        &weights,
        &[0, 1],
        &[1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0],
        &[0, 1],
        &[0, 0, 0, 0, 0, 4, 0, 1],
        4,
        &[1.0, 0.1],
        1,
        &[Interval::samples(0, 3)],
        &[0, 0, 2, 0],
        2,
        2,
    );
    assert_close(
        &zmap,
        &[4.0, 1.0, 1.5, 0.0, 0.0, 0.0, 2.0, -1.0, 0.0, 0.0, 0.0, 0.0],
        1e-12,
    );
}

fn offset_intervals() -> Vec<Interval> {
    Interval::list(&[(0, 6), (9, 12), (14, 14)])
}

/// §2.8: the cumulative view offsets (the paper-era non-cumulative ones would put 3 at sample 14).
#[test]
fn offset_add_to_signal_fixed_case() {
    let mut data = vec![0.0; 15];
    template_offset_add_to_signal(
        15,
        3,
        2,
        &[3, 2, 1],
        &[100.0, 200.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        0,
        &mut data,
        &offset_intervals(),
    );
    let want = [1, 1, 1, 2, 2, 2, 3, 0, 0, 4, 4, 4, 5, 0, 6].map(|x| x as f64);
    assert_eq!(data, want);
}

/// §2.9, with and without flags.
#[test]
fn offset_project_signal_fixed_case() {
    let data: Vec<f64> = (1..=15).map(|x| x as f64).collect();
    let mut flags = vec![0u8; 15];
    flags[4] = 1;
    flags[8] = 1;
    for (flag_index, want) in [
        (0, [0., 0., 6., 10., 7., 33., 13., 15.]),
        (-1, [0., 0., 6., 15., 7., 33., 13., 15.]),
    ] {
        let mut amps = vec![0.0; 8];
        template_offset_project_signal(
            15,
            0,
            &data,
            flag_index,
            &flags,
            1,
            3,
            2,
            &[3, 2, 1],
            &mut amps,
            &offset_intervals(),
        );
        assert_eq!(amps, want, "flag_index {flag_index}");
    }
}

/// §2.10.
#[test]
fn offset_apply_diag_precond_fixed_case() {
    let mut out = vec![9.0; 4];
    template_offset_apply_diag_precond(
        &[0.5, 2.0, 0.0, 1.0 / 3.0],
        &[2.0, 3.0, 4.0, 6.0],
        &mut out,
    );
    assert_close(&out, &[1.0, 6.0, 0.0, 2.0], 1e-15);
    assert_eq!(qarray::IDENTITY, [0.0, 0.0, 0.0, 1.0]);
}
