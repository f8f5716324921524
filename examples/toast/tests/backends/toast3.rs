//! TOAST 3's interface ([`rokkos_toast::kernels::toast3`]) on every backend, in every loop
//! design: against TOAST 3.0.6's compiled kernels on the fixed random problems of
//! `tests/data/toast3_cases.json` (written by `scripts/generate_toast3_cases.py` with
//! `toast._libtoast`), and against the crate's serial reference on random problems with
//! random half-open intervals (empty ones, one ending at `n_samp`).

use crate::{check, close, ok, per_backend};
use proptest::prelude::*;
use rokkos::ExecutionSpace;
use rokkos_toast::kernels::{
    row_index, toast3, upload, Design, Intervals, NoiseWeight, PixelsHealpix, PointingDetector,
};
use rokkos_toast::observation::{download, filled};
use rokkos_toast::problem::SENTINEL;
use rokkos_toast::{reference, Interval};
use serde_json::Value;

const CASES: &str = include_str!("../data/toast3_cases.json");

/// Floats are stored as their bit patterns, so they are read exactly.
fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| f64::from_bits(x.as_u64().expect("the bits of a double")))
        .collect()
}

fn i32s(v: &Value) -> Vec<i32> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_i64().expect("an integer") as i32)
        .collect()
}

fn usize_of(v: &Value) -> usize {
    v.as_u64().expect("a count") as usize
}

fn intervals_of(v: &Value) -> Vec<Interval> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|p| Interval::samples(p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
        .collect()
}

/// The recorded cases of `kernel`, with the sentinel their outputs started from.
fn cases(kernel: &str) -> Vec<Value> {
    let all: Value = serde_json::from_str(CASES).expect("valid JSON");
    assert_eq!(all["toast"], "3.0.6");
    let sentinel = all["sentinel"].as_f64().unwrap();
    let found: Vec<Value> = all["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kernel"] == kernel)
        .map(|c| {
            let mut c = c.clone();
            c["sentinel"] = sentinel.into();
            c
        })
        .collect();
    assert!(!found.is_empty(), "no recorded case of {kernel}");
    found
}

/// TOAST's output where it wrote, the sentinel exactly where it did not.
#[track_caller]
fn assert_matches(what: &str, got: &[f64], want: &[f64], sentinel: f64, tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if w == sentinel {
            assert_eq!(g, w, "{what}[{i}] must be untouched");
        } else {
            assert!((g - w).abs() <= tol, "{what}[{i}]: {g} vs TOAST {w}");
        }
    }
}

fn toast3_stokes_iqu<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("stokes_weights_IQU").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let (nq, nw) = (usize_of(&c["n_qrows"]), usize_of(&c["n_wrows"]));
        let v1 = |key: &str| {
            let d = f64s(&c[key]);
            upload(&space, key, [d.len()], d).unwrap()
        };
        let quats = upload(&space, "quats", [nq, n_samp, 4], f64s(&c["quats"])).unwrap();
        let (hwp, epsilon, gamma, cal) = (v1("hwp"), v1("epsilon"), v1("gamma"), v1("cal"));
        let quat_index = row_index(&space, &i32s(&c["quat_index"])).unwrap();
        let weight_index = row_index(&space, &i32s(&c["weight_index"])).unwrap();
        let intervals = Intervals::half_open(&space, &intervals_of(&c["intervals"])).unwrap();
        let sentinel = c["sentinel"].as_f64().unwrap();
        for design in Design::ALL {
            let weights = filled(&space, "weights", [nw, n_samp, 3], sentinel).unwrap();
            toast3::StokesWeightsIqu {
                quat_index: &quat_index,
                quats: &quats,
                weight_index: &weight_index,
                weights: &weights,
                hwp: &hwp,
                intervals: &intervals,
                epsilon: &epsilon,
                gamma: &gamma,
                cal: &cal,
                iau: c["IAU"].as_bool().unwrap(),
            }
            .run(&space, design)
            .unwrap();
            let what = format!("case {k}, {design:?}, weights");
            let got = download(&weights).unwrap();
            assert_matches(&what, &got, &f64s(&c["expected"]), sentinel, 1e-12);
        }
    }
}
per_backend!(toast3_stokes_iqu);

fn toast3_stokes_i<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("stokes_weights_I").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let cal = f64s(&c["cal"]);
        let cal = upload(&space, "cal", [cal.len()], cal).unwrap();
        let weight_index = row_index(&space, &i32s(&c["weight_index"])).unwrap();
        let intervals = Intervals::half_open(&space, &intervals_of(&c["intervals"])).unwrap();
        let sentinel = c["sentinel"].as_f64().unwrap();
        for design in Design::ALL {
            let weights = filled(
                &space,
                "weights",
                [usize_of(&c["n_wrows"]), n_samp],
                sentinel,
            )
            .unwrap();
            toast3::StokesWeightsI {
                weight_index: &weight_index,
                weights: &weights,
                intervals: &intervals,
                cal: &cal,
            }
            .run(&space, design)
            .unwrap();
            let what = format!("case {k}, {design:?}, weights");
            // A copy of `cal`: exact.
            assert_matches(
                &what,
                &download(&weights).unwrap(),
                &f64s(&c["expected"]),
                sentinel,
                0.0,
            );
        }
    }
}
per_backend!(toast3_stokes_i);

/// Random half-open intervals over `n_samp` samples: sorted, disjoint, some empty, the last
/// possibly ending at `n_samp`.
fn half_open_intervals(n_samp: usize) -> impl Strategy<Value = Vec<Interval>> {
    proptest::collection::vec(0..=n_samp as i64, 0..8).prop_map(move |mut cuts| {
        cuts.sort_unstable();
        cuts.chunks(2)
            .filter(|p| p.len() == 2)
            .map(|p| Interval::samples(p[0], p[1]))
            .collect()
    })
}

type IquCase = (usize, usize, Vec<Interval>, Vec<f64>, bool, bool, Design);

fn iqu_cases() -> impl Strategy<Value = IquCase> {
    (0usize..4, 1usize..60).prop_flat_map(|(n_det, n_samp)| {
        (
            Just(n_det),
            Just(n_samp),
            half_open_intervals(n_samp),
            // Quaternions, HWP angles and ε, γ, cal, all in one stream.
            proptest::collection::vec(-1.0f64..1.0, (n_det + 1) * n_samp * 4 + n_samp + 3 * n_det),
            any::<bool>(),
            any::<bool>(),
            proptest::sample::select(Design::ALL.to_vec()),
        )
    })
}

/// Against the serial reference; the detectors use quaternion rows in reverse and skip row 0 of
/// the weights, so a write to the wrong row shows.
fn toast3_stokes_iqu_random<E: ExecutionSpace>(space: E) {
    check(
        8,
        iqu_cases(),
        |(n_det, n_samp, list, r, use_hwp, iau, design)| {
            let nq = n_det + 1;
            let mut quats = r[..nq * n_samp * 4].to_vec();
            for q in quats.chunks_mut(4) {
                let n = q.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-3);
                q.iter_mut().for_each(|x| *x /= n);
            }
            let rest = &r[nq * n_samp * 4..];
            let hwp: Vec<f64> = if use_hwp {
                rest[..n_samp].iter().map(|x| 3.0 * x).collect()
            } else {
                vec![0.0]
            };
            let p = &rest[n_samp..];
            let epsilon: Vec<f64> = p[..n_det].iter().map(|x| 0.05 * x.abs()).collect();
            let gamma: Vec<f64> = p[n_det..2 * n_det].iter().map(|x| 3.0 * x).collect();
            let cal: Vec<f64> = p[2 * n_det..].iter().map(|x| 1.0 + 0.5 * x).collect();
            let qidx: Vec<i32> = (0..n_det as i32).rev().collect();
            let widx: Vec<i32> = (1..=n_det as i32).collect();
            let mut want = vec![SENTINEL; nq * n_samp * 3];
            reference::stokes_weights_iqu_toast3(
                n_samp, &qidx, &quats, &widx, &mut want, &hwp, &list, &epsilon, &gamma, &cal, iau,
            );
            let up = |d: &[f64]| upload(&space, "p", [d.len()], d.to_vec());
            let weights = ok(filled(&space, "weights", [nq, n_samp, 3], SENTINEL))?;
            ok(toast3::StokesWeightsIqu {
                quat_index: &ok(row_index(&space, &qidx))?,
                quats: &ok(upload(&space, "quats", [nq, n_samp, 4], quats.clone()))?,
                weight_index: &ok(row_index(&space, &widx))?,
                weights: &weights,
                hwp: &ok(up(&hwp))?,
                intervals: &ok(Intervals::half_open(&space, &list))?,
                epsilon: &ok(up(&epsilon))?,
                gamma: &ok(up(&gamma))?,
                cal: &ok(up(&cal))?,
                iau,
            }
            .run(&space, design))?;
            close("weights", &ok(download(&weights))?, &want, |_| 1e-12)
        },
    );
}
per_backend!(toast3_stokes_iqu_random);

/// The reference itself reproduces TOAST 3.0.6 (so the random comparison above is a comparison
/// with TOAST's semantics, not just with a second copy of the kernel's).
#[test]
fn toast3_reference_matches_toast() {
    for c in cases("stokes_weights_IQU") {
        let n_samp = usize_of(&c["n_samp"]);
        let sentinel = c["sentinel"].as_f64().unwrap();
        let mut w = vec![sentinel; usize_of(&c["n_wrows"]) * n_samp * 3];
        reference::stokes_weights_iqu_toast3(
            n_samp,
            &i32s(&c["quat_index"]),
            &f64s(&c["quats"]),
            &i32s(&c["weight_index"]),
            &mut w,
            &f64s(&c["hwp"]),
            &intervals_of(&c["intervals"]),
            &f64s(&c["epsilon"]),
            &f64s(&c["gamma"]),
            &f64s(&c["cal"]),
            c["IAU"].as_bool().unwrap(),
        );
        assert_matches("reference", &w, &f64s(&c["expected"]), sentinel, 1e-12);
    }
    for c in cases("stokes_weights_I") {
        let n_samp = usize_of(&c["n_samp"]);
        let sentinel = c["sentinel"].as_f64().unwrap();
        let mut w = vec![sentinel; usize_of(&c["n_wrows"]) * n_samp];
        let (widx, list) = (i32s(&c["weight_index"]), intervals_of(&c["intervals"]));
        reference::stokes_weights_i_toast3(n_samp, &widx, &mut w, &list, &f64s(&c["cal"]));
        assert_matches("reference", &w, &f64s(&c["expected"]), sentinel, 0.0);
    }
}

/// TOAST 3's intervals: an interval that ends before it starts is refused, naming it.
#[test]
fn toast3_half_open_refuses_reversed() {
    let e = Intervals::half_open(&rokkos::Serial, &Interval::list(&[(0, 2), (5, 4)]))
        .err()
        .expect("refused");
    assert!(e.to_string().contains("interval 1 (5..4)"), "{e}");
}

fn u8s(v: &Value) -> Vec<u8> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_u64().expect("a byte") as u8)
        .collect()
}

fn i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_i64().expect("an integer"))
        .collect()
}

/// pointing_detector's semantics are TOAST 3's once its intervals are read half-open.
fn toast3_pointing_detector<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("pointing_detector").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let fp = f64s(&c["focalplane"]);
        let focalplane = upload(&space, "focalplane", [fp.len() / 4, 4], fp).unwrap();
        let boresight = upload(&space, "boresight", [n_samp, 4], f64s(&c["boresight"])).unwrap();
        let flags = u8s(&c["shared_flags"]);
        let shared_flags = upload(&space, "shared_flags", [flags.len()], flags).unwrap();
        let quat_index = row_index(&space, &i32s(&c["quat_index"])).unwrap();
        let intervals = Intervals::half_open(&space, &intervals_of(&c["intervals"])).unwrap();
        let sentinel = c["sentinel"].as_f64().unwrap();
        for design in Design::ALL {
            let quats = filled(
                &space,
                "quats",
                [usize_of(&c["n_qrows"]), n_samp, 4],
                sentinel,
            )
            .unwrap();
            PointingDetector {
                focalplane: &focalplane,
                boresight: &boresight,
                quat_index: &quat_index,
                quats: &quats,
                intervals: &intervals,
                shared_flags: &shared_flags,
                shared_flag_mask: c["shared_flag_mask"].as_u64().unwrap() as u8,
            }
            .run(&space, design)
            .unwrap();
            let what = format!("case {k}, {design:?}, quats");
            let got = download(&quats).unwrap();
            assert_matches(&what, &got, &f64s(&c["expected"]), sentinel, 1e-15);
        }
    }
}
per_backend!(toast3_pointing_detector);

/// pixels_healpix (nest and ring, with and without shared flags) is TOAST 3's with half-open
/// intervals: pixels and hit submaps exact.
fn toast3_pixels_healpix<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("pixels_healpix").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let nq = usize_of(&c["n_qrows"]);
        let quats = upload(&space, "quats", [nq, n_samp, 4], f64s(&c["quats"])).unwrap();
        let flags = u8s(&c["shared_flags"]);
        let shared_flags = upload(&space, "shared_flags", [flags.len()], flags).unwrap();
        let quat_index = row_index(&space, &i32s(&c["quat_index"])).unwrap();
        let pixel_index = row_index(&space, &i32s(&c["pixel_index"])).unwrap();
        let intervals = Intervals::half_open(&space, &intervals_of(&c["intervals"])).unwrap();
        let want_hits = u8s(&c["expected_hits"]);
        for design in Design::ALL {
            let pixels =
                filled(&space, "pixels", [usize_of(&c["n_prows"]), n_samp], -9i64).unwrap();
            let hits = filled(&space, "hit_submaps", [want_hits.len()], 0u8).unwrap();
            PixelsHealpix {
                quat_index: &quat_index,
                quats: &quats,
                shared_flags: &shared_flags,
                shared_flag_mask: c["shared_flag_mask"].as_u64().unwrap() as u8,
                pixel_index: &pixel_index,
                pixels: &pixels,
                intervals: &intervals,
                hit_submaps: &hits,
                n_pix_submap: c["n_pix_submap"].as_i64().unwrap(),
                nside: c["nside"].as_i64().unwrap(),
                nest: c["nest"].as_bool().unwrap(),
            }
            .run(&space, design)
            .unwrap();
            assert_eq!(
                download(&pixels).unwrap(),
                i64s(&c["expected"]),
                "case {k}, {design:?}"
            );
            assert_eq!(
                download(&hits).unwrap(),
                want_hits,
                "case {k}, {design:?}, hits"
            );
        }
    }
}
per_backend!(toast3_pixels_healpix);

/// noise_weight is TOAST 3's with half-open intervals (one rounding: exact).
fn toast3_noise_weight<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("noise_weight").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let before = f64s(&c["det_data"]);
        let w = f64s(&c["detector_weights"]);
        let detector_weights = upload(&space, "detector_weights", [w.len()], w).unwrap();
        let data_index = row_index(&space, &i32s(&c["data_index"])).unwrap();
        let intervals = Intervals::half_open(&space, &intervals_of(&c["intervals"])).unwrap();
        for design in Design::ALL {
            let n_rows = before.len() / n_samp;
            let det_data = upload(&space, "det_data", [n_rows, n_samp], before.clone()).unwrap();
            NoiseWeight {
                det_data: &det_data,
                data_index: &data_index,
                intervals: &intervals,
                detector_weights: &detector_weights,
            }
            .run(&space, design)
            .unwrap();
            assert_eq!(
                download(&det_data).unwrap(),
                f64s(&c["expected"]),
                "case {k}, {design:?}"
            );
        }
    }
}
per_backend!(toast3_noise_weight);

/// The offset template's three kernels against TOAST 3.0.6: amplitude flags, an empty
/// interval (no amplitudes), detector flags present and absent (`flag_index` −1), amplitudes
/// before the detector's `amp_offset` untouched.
fn toast3_offset<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("template_offset").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let n_rows = usize_of(&c["n_rows"]);
        let sentinel = c["sentinel"].as_f64().unwrap();
        let layout = toast3::OffsetLayout::new(
            &space,
            &intervals_of(&c["intervals"]),
            &i64s(&c["n_amp_views"]),
            c["step_length"].as_i64().unwrap(),
        )
        .unwrap();
        let amps = f64s(&c["amplitudes"]);
        let n_amp = amps.len();
        let amplitudes = upload(&space, "amplitudes", [n_amp], amps).unwrap();
        let amplitude_flags =
            upload(&space, "amp flags", [n_amp], u8s(&c["amplitude_flags"])).unwrap();
        let det = f64s(&c["det_data"]);
        let flag_data = upload(&space, "flags", [n_rows, n_samp], u8s(&c["flag_data"])).unwrap();
        let (data_index, amp_offset) = (
            c["data_index"].as_i64().unwrap(),
            c["amp_offset"].as_i64().unwrap(),
        );
        for design in Design::ALL {
            let det_data = upload(&space, "det_data", [n_rows, n_samp], det.clone()).unwrap();
            toast3::OffsetAddToSignal {
                layout: &layout,
                amp_offset,
                amplitudes: &amplitudes,
                amplitude_flags: &amplitude_flags,
                data_index,
                det_data: &det_data,
            }
            .run(&space, design)
            .unwrap();
            // One addition per sample: exact.
            assert_eq!(
                download(&det_data).unwrap(),
                f64s(&c["expected_add"]),
                "case {k}, {design:?}, add"
            );

            let projected = filled(&space, "projected", [n_amp], sentinel).unwrap();
            toast3::OffsetProjectSignal {
                data_index,
                det_data: &det_data_of(&space, n_rows, n_samp, &det),
                flag_index: c["flag_index"].as_i64().unwrap(),
                flag_data: &flag_data,
                flag_mask: c["flag_mask"].as_u64().unwrap() as u8,
                layout: &layout,
                amp_offset,
                amplitudes: &projected,
                amplitude_flags: &amplitude_flags,
            }
            .run(&space, design)
            .unwrap();
            // Sums of a few samples in an atomic order: to rounding.
            let what = format!("case {k}, {design:?}, project");
            let got = download(&projected).unwrap();
            assert_matches(&what, &got, &f64s(&c["expected_project"]), sentinel, 1e-12);
        }
        let out = filled(&space, "out", [n_amp], sentinel).unwrap();
        toast3::OffsetApplyDiagPrecond {
            offset_var: &upload(&space, "var", [n_amp], f64s(&c["offset_var"])).unwrap(),
            amplitudes_in: &amplitudes,
            amplitude_flags: &amplitude_flags,
            amplitudes_out: &out,
        }
        .run(&space)
        .unwrap();
        assert_eq!(
            download(&out).unwrap(),
            f64s(&c["expected_precond"]),
            "case {k}, precond"
        );
    }
}
per_backend!(toast3_offset);

fn det_data_of<E: ExecutionSpace>(
    space: &E,
    n_rows: usize,
    n_samp: usize,
    d: &[f64],
) -> rokkos_toast::kernels::DevView<E, f64, 2> {
    upload(space, "det_data", [n_rows, n_samp], d.to_vec()).unwrap()
}

/// TOAST 3's offset layout and calls refuse what would read or write outside their arrays.
#[test]
fn toast3_offset_refusals() {
    let s = rokkos::Serial;
    let list = Interval::list(&[(0, 4), (4, 4)]);
    for (counts, step, want) in [
        (&[2i64][..], 2, "n_amp_views has 1 entries for 2 intervals"),
        (&[2, -1][..], 2, "n_amp_views[1] is -1"),
        (&[2, 0][..], 0, "step_length is 0"),
    ] {
        let e = toast3::OffsetLayout::new(&s, &list, counts, step)
            .err()
            .expect("refused");
        assert!(e.to_string().contains(want), "{e}");
    }
    let layout = toast3::OffsetLayout::new(&s, &list, &[2, 0], 2).unwrap();
    let amplitudes = upload(&s, "a", [3], vec![0.0; 3]).unwrap();
    let flags = upload(&s, "f", [3], vec![0u8; 3]).unwrap();
    let det_data = upload(&s, "d", [1, 4], vec![0.0; 4]).unwrap();
    for (amp_offset, data_index, want) in [
        (2, 0, "amplitudes 2..4 do not fit the 3 amplitudes"),
        (-1, 0, "amplitudes -1..1"),
        (0, 1, "data_index is 1, outside the 1 rows"),
        (0, -1, "data_index is -1"),
    ] {
        let e = toast3::OffsetAddToSignal {
            layout: &layout,
            amp_offset,
            amplitudes: &amplitudes,
            amplitude_flags: &flags,
            data_index,
            det_data: &det_data,
        }
        .run(&s, Design::Flat)
        .expect_err("refused");
        assert!(e.to_string().contains(want), "{e}");
    }
    assert_eq!(
        download(&det_data).unwrap(),
        vec![0.0; 4],
        "nothing written on a refused call"
    );
}

/// Runs one recorded scan_map case with map element type `T` (read from the stored bits).
fn scan_case<E: ExecutionSpace, T: toast3::MapElement>(
    space: &E,
    k: usize,
    c: &Value,
    map: Vec<T>,
) {
    let n_samp = usize_of(&c["n_samp"]);
    let (nps, nnz) = (usize_of(&c["n_pix_submap"]), usize_of(&c["nnz"]));
    let g2l = i64s(&c["global2local"]);
    let global2local = upload(space, "g2l", [g2l.len()], g2l).unwrap();
    let mapdata = upload(space, "map", [usize_of(&c["n_local"]), nps, nnz], map).unwrap();
    let pixels = upload(space, "pixels", [3, n_samp], i64s(&c["pixels"])).unwrap();
    let weights = upload(space, "weights", [3, n_samp, nnz], f64s(&c["weights"])).unwrap();
    let intervals = Intervals::half_open(space, &intervals_of(&c["intervals"])).unwrap();
    let det_data_index = row_index(space, &i32s(&c["det_data_index"])).unwrap();
    let pixels_index = row_index(space, &i32s(&c["pixels_index"])).unwrap();
    let weight_index = row_index(space, &i32s(&c["weight_index"])).unwrap();
    let want = f64s(&c["expected"]);
    for design in Design::ALL {
        let det_data = upload(space, "det_data", [3, n_samp], f64s(&c["det_data"])).unwrap();
        toast3::ScanMap {
            global2local: &global2local,
            n_pix_submap: nps as i64,
            mapdata: &mapdata,
            det_data: &det_data,
            det_data_index: &det_data_index,
            pixels: &pixels,
            pixels_index: &pixels_index,
            weights: &weights,
            weight_index: &weight_index,
            intervals: &intervals,
            data_scale: c["data_scale"].as_f64().unwrap(),
            should_zero: c["should_zero"].as_bool().unwrap(),
            should_subtract: c["should_subtract"].as_bool().unwrap(),
            should_scale: c["should_scale"].as_bool().unwrap(),
        }
        .run(space, design)
        .unwrap();
        let got = download(&det_data).unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            // A sum of nnz products, scaled: to rounding relative to its size.
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "case {k} ({}), {design:?}, det_data[{i}]: {g} vs TOAST {w}",
                c["dtype"]
            );
        }
    }
}

/// scan_map of f64, f32, i32 and i64 maps in every mode against TOAST 3.0.6's
/// `ops_scan_map_*`, with invalid pixels and submaps that are not local.
fn toast3_scan_map<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("scan_map").iter().enumerate() {
        let map = &c["mapdata"];
        match c["dtype"].as_str().unwrap() {
            "float64" => scan_case(&space, k, c, f64s(map)),
            // float32 maps are stored widened to f64 (exactly).
            "float32" => scan_case(&space, k, c, f64s(map).iter().map(|&x| x as f32).collect()),
            "int32" => scan_case(&space, k, c, i32s(map)),
            "int64" => scan_case(&space, k, c, i64s(map)),
            other => panic!("unknown map type {other}"),
        }
    }
}
per_backend!(toast3_scan_map);

/// build_noise_weighted against TOAST 3.0.6, with detector and shared flags present and absent
/// (TOAST's `flag_index` of −1 and `[1][1]` flags).
fn toast3_build_noise_weighted<E: ExecutionSpace>(space: E) {
    for (k, c) in cases("build_noise_weighted").iter().enumerate() {
        let n_samp = usize_of(&c["n_samp"]);
        let (nps, nnz) = (usize_of(&c["n_pix_submap"]), usize_of(&c["nnz"]));
        let sentinel = c["sentinel"].as_f64().unwrap();
        let g2l = i64s(&c["global2local"]);
        let fshape = i64s(&c["det_flags_shape"]);
        let fi = i32s(&c["flag_index"]);
        let sf = u8s(&c["shared_flags"]);
        let scale = f64s(&c["det_scale"]);
        let global2local = upload(&space, "g2l", [g2l.len()], g2l).unwrap();
        let pixels = upload(&space, "pixels", [3, n_samp], i64s(&c["pixels"])).unwrap();
        let weights = upload(&space, "weights", [3, n_samp, nnz], f64s(&c["weights"])).unwrap();
        let det_data = upload(&space, "det_data", [3, n_samp], f64s(&c["det_data"])).unwrap();
        let flag_index = upload(&space, "flag_index", [fi.len()], fi).unwrap();
        let fdims = [fshape[0] as usize, fshape[1] as usize];
        let det_flags = upload(&space, "det_flags", fdims, u8s(&c["det_flags"])).unwrap();
        let det_scale = upload(&space, "det_scale", [scale.len()], scale).unwrap();
        let shared_flags = upload(&space, "shared_flags", [sf.len()], sf).unwrap();
        let intervals = Intervals::half_open(&space, &intervals_of(&c["intervals"])).unwrap();
        let pixel_index = row_index(&space, &i32s(&c["pixel_index"])).unwrap();
        let weight_index = row_index(&space, &i32s(&c["weight_index"])).unwrap();
        let data_index = row_index(&space, &i32s(&c["data_index"])).unwrap();
        for design in Design::ALL {
            let zmap = filled(
                &space,
                "zmap",
                [usize_of(&c["n_local"]), nps, nnz],
                sentinel,
            )
            .unwrap();
            toast3::BuildNoiseWeighted {
                global2local: &global2local,
                zmap: &zmap,
                pixel_index: &pixel_index,
                pixels: &pixels,
                weight_index: &weight_index,
                weights: &weights,
                data_index: &data_index,
                det_data: &det_data,
                flag_index: &flag_index,
                det_flags: &det_flags,
                det_scale: &det_scale,
                det_flag_mask: c["det_flag_mask"].as_u64().unwrap() as u8,
                intervals: &intervals,
                shared_flags: &shared_flags,
                shared_flag_mask: c["shared_flag_mask"].as_u64().unwrap() as u8,
            }
            .run(&space, design)
            .unwrap();
            // Atomic sums of a few terms in any order: to rounding.
            let what = format!("case {k}, {design:?}, zmap");
            let got = download(&zmap).unwrap();
            assert_matches(&what, &got, &f64s(&c["expected"]), sentinel, 1e-11);
        }
    }
}
per_backend!(toast3_build_noise_weighted);

/// A pixel whose submap is not local (`global2local` −1) is skipped by scan_map in every mode
/// (zeroed only with `should_zero`) and by build_noise_weighted (TOAST 3.0.6 reads and writes
/// out of bounds there, so this is checked against the spec, not TOAST).
fn toast3_non_local_submaps<E: ExecutionSpace>(space: E) {
    let one = row_index(&space, &[0]).unwrap();
    let g2l = upload(&space, "g2l", [2], vec![-1i64, 0]).unwrap();
    // Sample 0 in the non-local submap 0, sample 1 in local submap 1 (pixel 3).
    let pixels = upload(&space, "pixels", [1, 2], vec![1i64, 3]).unwrap();
    let weights = upload(&space, "weights", [1, 2, 1], vec![2.0, 2.0]).unwrap();
    let map = upload(&space, "map", [1, 2, 1], vec![10.0f64, 100.0]).unwrap();
    let iv = Intervals::half_open(&space, &Interval::list(&[(0, 2)])).unwrap();
    for (zero, subtract, scale, want) in [
        (false, false, false, [3.0, 203.0]),
        (true, false, false, [0.0, 200.0]),
        (false, true, false, [3.0, -197.0]),
        (false, false, true, [3.0, 600.0]),
    ] {
        let det_data = upload(&space, "det_data", [1, 2], vec![3.0, 3.0]).unwrap();
        toast3::ScanMap {
            global2local: &g2l,
            n_pix_submap: 2,
            mapdata: &map,
            det_data: &det_data,
            det_data_index: &one,
            pixels: &pixels,
            pixels_index: &one,
            weights: &weights,
            weight_index: &one,
            intervals: &iv,
            data_scale: 1.0,
            should_zero: zero,
            should_subtract: subtract,
            should_scale: scale,
        }
        .run(&space, Design::Flat)
        .unwrap();
        assert_eq!(
            download(&det_data).unwrap(),
            want,
            "mode {zero} {subtract} {scale}"
        );
    }
    let zmap = filled(&space, "zmap", [1, 2, 1], 0.0).unwrap();
    toast3::BuildNoiseWeighted {
        global2local: &g2l,
        zmap: &zmap,
        pixel_index: &one,
        pixels: &pixels,
        weight_index: &one,
        weights: &weights,
        data_index: &one,
        det_data: &upload(&space, "det_data", [1, 2], vec![3.0, 5.0]).unwrap(),
        flag_index: &upload(&space, "flag_index", [1], vec![-1]).unwrap(),
        det_flags: &upload(&space, "det_flags", [1, 1], vec![0u8]).unwrap(),
        det_scale: &upload(&space, "det_scale", [1], vec![1.0]).unwrap(),
        det_flag_mask: 1,
        intervals: &iv,
        shared_flags: &upload(&space, "shared", [1], vec![0u8]).unwrap(),
        shared_flag_mask: 1,
    }
    .run(&space, Design::Team)
    .unwrap();
    assert_eq!(download(&zmap).unwrap(), vec![0.0, 10.0]);
}
per_backend!(toast3_non_local_submaps);
