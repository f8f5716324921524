//! Every fixed case of spec §2 through the rokkos kernels, in every loop design, on every
//! backend: the same numbers the reference is held to in `reference_spec.rs`.

#[path = "../common/mod.rs"]
mod common;

use crate::per_backend;
use common::*;
use rokkos::{ExecutionSpace, Pod, Result};
use rokkos_toast::kernels::*;
use rokkos_toast::observation::{download, filled};
use rokkos_toast::Interval;

const S: f64 = std::f64::consts::FRAC_1_SQRT_2;

fn v1<E: ExecutionSpace, T: Pod>(space: &E, data: Vec<T>) -> DevView<E, T> {
    upload(space, "v", [data.len()], data).unwrap()
}

fn v2<E: ExecutionSpace, T: Pod>(space: &E, e: [usize; 2], data: Vec<T>) -> DevView<E, T, 2> {
    upload(space, "v", e, data).unwrap()
}

fn v3<E: ExecutionSpace, T: Pod>(space: &E, e: [usize; 3], data: Vec<T>) -> DevView<E, T, 3> {
    upload(space, "v", e, data).unwrap()
}

fn intervals<E: ExecutionSpace>(space: &E, pairs: &[(i64, i64)]) -> Intervals<E> {
    Intervals::new(space, &Interval::list(pairs)).unwrap()
}

fn rows<E: ExecutionSpace>(space: &E, r: &[i32]) -> RowIndex<E> {
    row_index(space, r).unwrap()
}

fn flat(qs: &[[f64; 4]]) -> Vec<f64> {
    qs.iter().flatten().copied().collect()
}

#[track_caller]
fn assert_close(design: Design, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol,
            "{design:?}: element {i}: {g} vs {w}\n got {got:?}\nwant {want:?}"
        );
    }
}

/// §2.1.
fn fixed_pointing_detector<E: ExecutionSpace>(space: E) {
    let fp = v2(
        &space,
        [2, 4],
        flat(&[[0.0, 0.0, 0.0, 1.0], [S, 0.0, 0.0, S]]),
    );
    let bore = [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.0, S, S],
        [S, 0.0, 0.0, S],
        [0.5, 0.5, 0.5, 0.5],
        [0.0, 0.0, S, S],
    ];
    let bore = v2(&space, [5, 4], flat(&bore));
    let flags = v1(&space, vec![0, 0, 1, 0, 2]);
    let (qi, iv) = (rows(&space, &[1, 0]), intervals(&space, &[(0, 0), (2, 3)]));
    let u = [-7.0; 4];
    let row1 = [
        [0., 0., 0., 1.],
        u,
        [0., 0., 0., 1.],
        [0.5, 0.5, 0.5, 0.5],
        u,
    ];
    let row0 = [[S, 0.0, 0.0, S], u, [S, 0.0, 0.0, S], [S, S, 0.0, 0.0], u];
    let want: Vec<f64> = row0.iter().chain(&row1).flatten().copied().collect();
    for design in Design::ALL {
        let quats = filled(&space, "quats", [2, 5, 4], -7.0).unwrap();
        PointingDetector {
            focalplane: &fp,
            boresight: &bore,
            quat_index: &qi,
            quats: &quats,
            intervals: &iv,
            shared_flags: &flags,
            shared_flag_mask: 1,
        }
        .run(&space, design)
        .unwrap();
        assert_close(design, &download(&quats).unwrap(), &want, 1e-12);
    }
}
per_backend!(fixed_pointing_detector);

/// The pixels and hit submaps (16 pixels each) of `quats` at `nside`.
fn pixels<E: ExecutionSpace>(
    space: &E,
    design: Design,
    quats: &[[f64; 4]],
    nside: i64,
    nest: bool,
    flags: Vec<u8>,
    n_pix_submap: i64,
) -> Result<(Vec<i64>, Vec<usize>)> {
    let n = quats.len();
    let q = v3(space, [1, n, 4], flat(quats));
    let px = filled(space, "pixels", [1, n], -9i64)?;
    let hits = filled(
        space,
        "hits",
        [(12 * nside * nside / n_pix_submap) as usize],
        0,
    )?;
    let (r, iv) = (rows(space, &[0]), intervals(space, &[(0, n as i64 - 1)]));
    PixelsHealpix {
        quat_index: &r,
        quats: &q,
        shared_flags: &v1(space, flags),
        shared_flag_mask: 1,
        pixel_index: &r,
        pixels: &px,
        intervals: &iv,
        hit_submaps: &hits,
        n_pix_submap,
        nside,
        nest,
    }
    .run(space, design)?;
    let hit: Vec<usize> = download(&hits)?
        .iter()
        .enumerate()
        .filter(|(_, &h)| h != 0)
        .map(|(i, &h)| {
            assert_eq!(h, 1);
            i
        })
        .collect();
    Ok((download(&px)?[..n].to_vec(), hit))
}

/// §2.2: nside 4 with a flag, nside 1024 without, and the φ-snap regression at nside 4096.
fn fixed_pixels_healpix<E: ExecutionSpace>(space: E) {
    let quats: Vec<[f64; 4]> = PIXEL_CASE.iter().map(|c| c.2).collect();
    for design in Design::ALL {
        let run = |nside, nest, flags: Vec<u8>, sub| {
            pixels(&space, design, &quats, nside, nest, flags, sub).unwrap()
        };
        let flags = vec![0, 0, 0, 1, 0];
        assert_eq!(
            run(4, true, flags.clone(), 16),
            (PIXEL_NEST_4.to_vec(), HITS_NEST_4.to_vec())
        );
        assert_eq!(
            run(4, false, flags, 16),
            (PIXEL_RING_4.to_vec(), HITS_RING_4.to_vec())
        );
        assert_eq!(run(1024, true, vec![1], 3072).0, PIXEL_NEST_1024);
        assert_eq!(run(1024, false, vec![1], 3072).0, PIXEL_RING_1024);
        let big = 4096 * 4096;
        let snap = |nest| {
            pixels(&space, design, &[SNAP_QUAT], 4096, nest, vec![0], big)
                .unwrap()
                .0
        };
        assert_eq!(snap(true), [143138818]);
        assert_eq!(snap(false), [187529588]);
    }
}
per_backend!(fixed_pixels_healpix);

/// §2.3 without and with a half-wave plate, and §2.4.
fn fixed_stokes_weights<E: ExecutionSpace>(space: E) {
    let (q0, q1) = (STOKES_Q0, STOKES_Q1);
    let quats = v3(&space, [2, 3, 4], flat(&[q0, q0, q0, q1, q1, q1]));
    let r = rows(&space, &[0, 1]);
    let iv = intervals(&space, &[(0, 1)]);
    let eps = v1(&space, vec![0.1, 0.0]);
    let eta = 9.0 / 11.0;
    let d0 = [2.0, 0.8181818181818183, 1.4171324789199904];
    let d1 = [2.0, 0.0, -2.0];
    let h0 = [2.0, -eta, eta * 3f64.sqrt()];
    let h1 = [2.0, 3f64.sqrt(), -1.0];
    let u = [-5.0; 3];
    for design in Design::ALL {
        for (hwp, want) in [
            (vec![], [d0, d0, u, d1, d1, u]),
            (vec![15f64.to_radians(), 0.0, 0.0], [h0, d0, u, h1, d1, u]),
        ] {
            let w = filled(&space, "w", [2, 3, 3], -5.0).unwrap();
            StokesWeightsIqu {
                quat_index: &r,
                quats: &quats,
                weight_index: &r,
                weights: &w,
                hwp: &v1(&space, hwp),
                intervals: &iv,
                epsilon: &eps,
                cal: 2.0,
            }
            .run(&space, design)
            .unwrap();
            let want: Vec<f64> = want.iter().flatten().copied().collect();
            assert_close(design, &download(&w).unwrap(), &want, 1e-12);
        }
        let w = filled(&space, "w", [2, 4], 0.0).unwrap();
        StokesWeightsI {
            weight_index: &rows(&space, &[1]),
            weights: &w,
            intervals: &intervals(&space, &[(1, 2)]),
            cal: 3.0,
        }
        .run(&space, design)
        .unwrap();
        assert_eq!(download(&w).unwrap(), [0., 0., 0., 0., 0., 3., 3., 0.]);
    }
}
per_backend!(fixed_stokes_weights);

const G2L: [i64; 4] = [-1, 1, 0, -1];

/// §2.5, every mode, f64 and f32 maps.
fn fixed_scan_map<E: ExecutionSpace>(space: E) {
    let map: Vec<f64> = vec![1., 2., 3., 11., 12., 13., 21., 22., 23., 31., 32., 33.];
    let map64 = v3(&space, [2, 2, 3], map.clone());
    let map32 = v3(&space, [2, 2, 3], map.iter().map(|&x| x as f32).collect());
    let w = [
        1.0, 0.5, 0.25, 1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.5,
    ];
    let weights = v3(&space, [1, 5, 3], w.to_vec());
    let pix = v2(&space, [1, 5], vec![4i64, 3, -1, 5, 2]);
    let g2l = v1(&space, G2L.to_vec());
    let (r, iv) = (rows(&space, &[0]), intervals(&space, &[(0, 3)]));
    let cases = [
        (ScanMode::default(), [105.5, 198.0, 300.0, 448.0, 500.0]),
        (
            ScanMode {
                subtract: true,
                ..ScanMode::default()
            },
            [94.5, 202.0, 300.0, 352.0, 500.0],
        ),
        (
            ScanMode {
                zero: true,
                ..ScanMode::default()
            },
            [5.5, -2.0, 0.0, 48.0, 500.0],
        ),
        (
            ScanMode {
                scale: true,
                ..ScanMode::default()
            },
            [550.0, -400.0, 300.0, 19200.0, 500.0],
        ),
    ];
    for design in Design::ALL {
        for (mode, want) in cases {
            for single in [false, true] {
                let data = v2(&space, [1, 5], vec![100.0, 200.0, 300.0, 400.0, 500.0]);
                // One literal for both map types (a closure would fix one).
                macro_rules! scan {
                    ($map:expr) => {
                        ScanMap {
                            global2local: &g2l,
                            n_pix_submap: 2,
                            mapdata: $map,
                            det_data: &data,
                            data_index: &r,
                            pixels: &pix,
                            pixel_index: &r,
                            weights: &weights,
                            weight_index: &r,
                            intervals: &iv,
                            data_scale: 2.0,
                            mode,
                        }
                        .run(&space, design)
                        .unwrap()
                    };
                }
                if single {
                    scan!(&map32);
                } else {
                    scan!(&map64);
                }
                assert_close(design, &download(&data).unwrap(), &want, 1e-12);
            }
        }
    }
}
per_backend!(fixed_scan_map);

/// §2.6 and §2.7.
fn fixed_noise_weight_and_build<E: ExecutionSpace>(space: E) {
    for design in Design::ALL {
        let data = v2(
            &space,
            [2, 4],
            vec![1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0],
        );
        NoiseWeight {
            det_data: &data,
            data_index: &rows(&space, &[1, 0]),
            intervals: &intervals(&space, &[(1, 2)]),
            detector_weights: &v1(&space, vec![2.0, 0.5]),
        }
        .run(&space, design)
        .unwrap();
        assert_eq!(
            download(&data).unwrap(),
            [1.0, 1.0, 1.5, 4.0, 10.0, 40.0, 60.0, 40.0]
        );

        let zmap = filled(&space, "zmap", [2, 2, 3], 0.0).unwrap();
        let (w0, w1) = ([1.0, 0.5, 0.5], [1.0, -0.5, 0.0]);
        let r = rows(&space, &[0, 1]);
        BuildNoiseWeighted {
            global2local: &v1(&space, G2L.to_vec()),
            zmap: &zmap,
            pixel_index: &r,
            pixels: &v2(&space, [2, 4], vec![4i64, 4, 3, -1, 4, 2, 5, 4]),
            weight_index: &r,
            weights: &v3(&space, [2, 4, 3], [w0, w0, w0, w0, w1, w1, w1, w1].concat()),
            data_index: &r,
            det_data: &v2(
                &space,
                [2, 4],
                vec![1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0],
            ),
            flag_index: &r,
            det_flags: &v2(&space, [2, 4], vec![0, 0, 0, 0, 0, 4, 0, 1]),
            det_scale: &v1(&space, vec![1.0, 0.1]),
            det_flag_mask: 1,
            intervals: &intervals(&space, &[(0, 3)]),
            shared_flags: &v1(&space, vec![0, 0, 2, 0]),
            shared_flag_mask: 2,
            n_pix_submap: 2,
        }
        .run(&space, design)
        .unwrap();
        let want = [4.0, 1.0, 1.5, 0.0, 0.0, 0.0, 2.0, -1.0, 0.0, 0.0, 0.0, 0.0];
        assert_close(design, &download(&zmap).unwrap(), &want, 1e-12);
    }
}
per_backend!(fixed_noise_weight_and_build);

/// §2.8, §2.9 (with and without flags) and §2.10, as single-detector launches.
fn fixed_offset_template<E: ExecutionSpace>(space: E) {
    let iv = intervals(&space, &[(0, 6), (9, 12), (14, 14)]);
    let t = OffsetTemplate::new(&space, &iv, 3).unwrap();
    assert_eq!(t.n_amp_views(), [3, 2, 1]);
    let r = rows(&space, &[0]);
    let amp_offsets = v1(&space, vec![2i64]);
    let mut flags = vec![0u8; 15];
    flags[4] = 1;
    flags[8] = 1;
    let flag_data = v2(&space, [1, 15], flags);
    for design in Design::ALL {
        let data = filled(&space, "data", [1, 15], 0.0).unwrap();
        OffsetAddToSignal {
            template: &t,
            amp_offsets: &amp_offsets,
            amplitudes: &v1(&space, vec![100.0, 200.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            data_index: &r,
            det_data: &data,
            intervals: &iv,
        }
        .run(&space, design)
        .unwrap();
        let want = [1, 1, 1, 2, 2, 2, 3, 0, 0, 4, 4, 4, 5, 0, 6].map(|x| x as f64);
        assert_eq!(download(&data).unwrap(), want, "{design:?}");

        let data = v2(&space, [1, 15], (1..=15).map(|x| x as f64).collect());
        for (flags, want) in [
            (true, [0., 0., 6., 10., 7., 33., 13., 15.]),
            (false, [0., 0., 6., 15., 7., 33., 13., 15.]),
        ] {
            let amps = filled(&space, "amps", [8], 0.0).unwrap();
            OffsetProjectSignal {
                data_index: &r,
                det_data: &data,
                flag_index: flags.then_some(&r),
                flag_data: &flag_data,
                flag_mask: 1,
                template: &t,
                amp_offsets: &amp_offsets,
                amplitudes: &amps,
                intervals: &iv,
            }
            .run(&space, design)
            .unwrap();
            assert_eq!(download(&amps).unwrap(), want, "{design:?}, flags {flags}");
        }
    }
    let out = filled(&space, "out", [4], 9.0).unwrap();
    OffsetApplyDiagPrecond {
        offset_var: &v1(&space, vec![0.5, 2.0, 0.0, 1.0 / 3.0]),
        amplitudes_in: &v1(&space, vec![2.0, 3.0, 4.0, 6.0]),
        amplitudes_out: &out,
    }
    .run(&space)
    .unwrap();
    assert_close(
        Design::Flat,
        &download(&out).unwrap(),
        &[1.0, 6.0, 0.0, 2.0],
        1e-15,
    );
}
per_backend!(fixed_offset_template);
