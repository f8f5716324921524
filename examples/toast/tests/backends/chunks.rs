//! One long interval on every backend, in every loop design: the team and MDRange designs give
//! a work item a chunk of an interval ([`CHUNK_SAMPLES`] samples, aligned to the offset
//! template's steps), which must not show in the results. Checked against plain Rust loops and
//! against the same samples as many short intervals, bit for bit: each sample of add_to_signal
//! and noise_weight is one operation, and project_signal adds a step's samples in order where
//! a team is one thread (the host backends), so its sums are the sequential loop's.

use crate::per_backend;
use rokkos::ExecutionSpace;
use rokkos_toast::kernels::{
    row_index, toast3, upload, Design, Intervals, NoiseWeight, CHUNK_SAMPLES,
};
use rokkos_toast::observation::download;
use rokkos_toast::Interval;

/// Samples per row: two chunks and a part, so an interval has a short last chunk.
const N_SAMP: usize = 2 * CHUNK_SAMPLES + 777;

/// A reproducible value in [-1, 1) for (`seed`, `i`) (splitmix64).
fn value(seed: u64, i: usize) -> f64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(i as u64)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn values(seed: u64, n: usize) -> Vec<f64> {
    (0..n).map(|i| value(seed, i)).collect()
}

/// TOAST 3's offset add_to_signal and project_signal over one half-open interval of almost
/// every sample, against the plain loops, for steps shorter than a chunk, not dividing it, and
/// longer than one.
fn offset_one_long_interval<E: ExecutionSpace>(space: E) {
    // `first` is not a multiple of anything: chunks start at `first + m·chunk`.
    let (first, last) = (3usize, N_SAMP - 2);
    let n_rows = 2;
    let data_row = 1;
    // Teams of one thread add a step's samples in sample order, as the plain loop does.
    let sequential = space.team_limits().team_size_auto == 1;
    for (k, step) in [1usize, 7, CHUNK_SAMPLES + 4].into_iter().enumerate() {
        let n_amp_view = (last - first).div_ceil(step);
        let amp_offset = 2usize;
        let n_amp = amp_offset + n_amp_view;
        let layout = toast3::OffsetLayout::new(
            &space,
            &Interval::list(&[(first as i64, last as i64)]),
            &[n_amp_view as i64],
            step as i64,
        )
        .unwrap();
        assert_eq!(layout.n_amp(), n_amp_view);
        let seed = 10 * k as u64;
        let amps = values(seed + 1, n_amp);
        let amp_flags: Vec<u8> = (0..n_amp).map(|a| u8::from(a % 5 == 3)).collect();
        let det = values(seed + 2, n_rows * N_SAMP);
        let flags: Vec<u8> = (0..n_rows * N_SAMP).map(|i| (i % 11 == 4) as u8).collect();
        let amplitudes = upload(&space, "amplitudes", [n_amp], amps.clone()).unwrap();
        let amplitude_flags = upload(&space, "amp flags", [n_amp], amp_flags.clone()).unwrap();
        let flag_data = upload(&space, "flags", [n_rows, N_SAMP], flags.clone()).unwrap();

        let mut want_add = det.clone();
        let mut want_project = amps.clone();
        for s in first..last {
            let a = amp_offset + (s - first) / step;
            if amp_flags[a] == 0 {
                want_add[data_row * N_SAMP + s] += amps[a];
                if flags[data_row * N_SAMP + s] & 1 == 0 {
                    want_project[a] += det[data_row * N_SAMP + s];
                }
            }
        }

        for design in Design::ALL {
            let what = format!("{}, step {step}, {design:?}", space.name());
            let det_data = upload(&space, "det_data", [n_rows, N_SAMP], det.clone()).unwrap();
            toast3::OffsetAddToSignal {
                layout: &layout,
                amp_offset: amp_offset as i64,
                amplitudes: &amplitudes,
                amplitude_flags: &amplitude_flags,
                data_index: data_row as i64,
                det_data: &det_data,
            }
            .run(&space, design)
            .unwrap();
            assert!(
                download(&det_data).unwrap() == want_add,
                "{what}: add_to_signal differs from the plain loop"
            );

            let projected = upload(&space, "projected", [n_amp], amps.clone()).unwrap();
            toast3::OffsetProjectSignal {
                data_index: data_row as i64,
                det_data: &upload(&space, "det_data", [n_rows, N_SAMP], det.clone()).unwrap(),
                flag_index: 1,
                flag_data: &flag_data,
                flag_mask: 1,
                layout: &layout,
                amp_offset: amp_offset as i64,
                amplitudes: &projected,
                amplitude_flags: &amplitude_flags,
            }
            .run(&space, design)
            .unwrap();
            let got = download(&projected).unwrap();
            if sequential {
                assert!(
                    got == want_project,
                    "{what}: project_signal differs from the plain loop's sums"
                );
            } else {
                // Threads of a team add one step's samples in an atomic order: to rounding,
                // within the worst case of `step + 1` terms of magnitude below 1.
                for (a, (&g, &w)) in got.iter().zip(&want_project).enumerate() {
                    let tol = f64::EPSILON * (step as f64 + 2.0).powi(2);
                    assert!((g - w).abs() <= tol, "{what}: amplitude {a}: {g} vs {w}");
                }
            }
        }
    }
}
per_backend!(offset_one_long_interval);

/// noise_weight over one long interval, over the same samples as 37 irregular intervals, and as
/// a plain loop: the same bits, for three detectors in permuted rows.
fn noise_weight_one_long_interval<E: ExecutionSpace>(space: E) {
    let (first, last) = (5usize, N_SAMP - 3);
    let rows = [2i32, 0, 1];
    let n_rows = 4;
    let weights = [0.5, -3.25, 1.0 / 3.0];
    let det = values(7, n_rows * N_SAMP);
    // Cuts at irregular places, each interval non-empty.
    let mut cuts: Vec<usize> = (1..37)
        .map(|i| first + (i * i * 97 + i * 13) % (last - first))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces = Vec::new();
    let mut lo = first;
    for &c in cuts.iter().filter(|&&c| c > first) {
        pieces.push((lo as i64, c as i64 - 1));
        lo = c;
    }
    pieces.push((lo as i64, last as i64));
    let one = Intervals::new(&space, &Interval::list(&[(first as i64, last as i64)])).unwrap();
    assert!(
        one.n_chunk() > 1,
        "one interval of {N_SAMP} samples is several chunks"
    );
    let many = Intervals::new(&space, &Interval::list(&pieces)).unwrap();

    let mut want = det.clone();
    for (d, &r) in rows.iter().enumerate() {
        for s in first..=last {
            want[r as usize * N_SAMP + s] *= weights[d];
        }
    }
    let data_index = row_index(&space, &rows).unwrap();
    let detector_weights = upload(&space, "weights", [3], weights.to_vec()).unwrap();
    for design in Design::ALL {
        for (intervals, how) in [(&one, "one interval"), (&many, "many intervals")] {
            let det_data = upload(&space, "det_data", [n_rows, N_SAMP], det.clone()).unwrap();
            NoiseWeight {
                det_data: &det_data,
                data_index: &data_index,
                intervals,
                detector_weights: &detector_weights,
            }
            .run(&space, design)
            .unwrap();
            assert!(
                download(&det_data).unwrap() == want,
                "{}, {design:?}, {how}: differs from the plain loop",
                space.name()
            );
        }
    }
}
per_backend!(noise_weight_one_long_interval);

/// The chunks of an interval: consecutive, at most the (aligned) chunk length, aligned to the
/// step from the interval's first sample.
#[test]
fn chunk_counts() {
    let n = CHUNK_SAMPLES as i64;
    let s = rokkos::Serial;
    let iv = Intervals::new(
        &s,
        &Interval::list(&[(1, n), (n + 1, n + 1), (n + 2, 3 * n)]),
    )
    .unwrap();
    // n samples: one chunk; one sample: one; 2n - 1 samples: two.
    assert_eq!((iv.n_view(), iv.n_chunk()), (3, 4));
    // Steps of 3 samples: chunks of 4098 (a multiple of 3 no shorter than 4096).
    let layout =
        toast3::OffsetLayout::new(&s, &Interval::list(&[(0, 2 * 4098 + 1)]), &[2733], 3).unwrap();
    assert_eq!(layout.intervals().n_chunk(), 3);
    // A step longer than a chunk is one chunk.
    let layout =
        toast3::OffsetLayout::new(&s, &Interval::list(&[(0, 3 * n)]), &[3], n + 1).unwrap();
    assert_eq!(layout.intervals().n_chunk(), 3);
}
