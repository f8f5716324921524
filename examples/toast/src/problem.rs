//! One observation's inputs on the host, in the spec's types (u8 flags, i32 row indices, i64
//! pixels, f64 data), and the reference result of each kernel on them.
//!
//! [`Problem::random`] draws the small, adversarial cases the tests use (rows no detector owns,
//! flags of every kind, submaps that are not local, interval lists of every shape);
//! [`Problem::satellite`] builds the benchmark's observation (spec §4). The `reference_*`
//! methods run [`crate::reference`] on the problem, each output starting from a sentinel.

use crate::gen::{intervals, regular_intervals, IntervalShape, Rng};
use crate::reference::{self, healpix::Healpix, qarray, qarray::Quat, MapValue};
use crate::Interval;

/// What outputs hold before a kernel writes them, so that untouched samples are visible.
pub const SENTINEL: f64 = -12345.5;
/// The pixel sentinel.
pub const SENTINEL_PIXEL: i64 = -77;
/// Components of the Stokes weights (I, Q, U).
pub const NNZ: usize = 3;

/// One observation: inputs of every kernel. Buffers are `[n_rows][n_samp][..]`, of which the
/// detectors use the rows their index arrays name.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Detectors.
    pub n_det: usize,
    /// Samples per row.
    pub n_samp: usize,
    /// Rows of every per-detector buffer (at least `n_det`).
    pub n_rows: usize,
    /// HEALPix resolution.
    pub nside: i64,
    /// NEST (else RING) pixel ordering.
    pub nest: bool,
    /// Pixels per submap.
    pub n_pix_submap: i64,
    /// The sample intervals.
    pub intervals: Vec<Interval>,
    /// `[n_det]` focal-plane quaternions.
    pub focalplane: Vec<Quat>,
    /// `[n_samp]` boresight quaternions.
    pub boresight: Vec<Quat>,
    /// Detector → row of the quaternion buffer.
    pub quat_index: Vec<i32>,
    /// Detector → row of the pixel buffer.
    pub pixel_index: Vec<i32>,
    /// Detector → row of the weight buffers.
    pub weight_index: Vec<i32>,
    /// Detector → row of the timestreams.
    pub data_index: Vec<i32>,
    /// Detector → row of the detector flags.
    pub flag_index: Vec<i32>,
    /// Whether the offset template's projection reads the detector flags (through
    /// `flag_index`; TOAST passes `flag_index = −1` when it does not).
    pub offset_flags: bool,
    /// `[n_samp]` shared flags, or one element (flags off).
    pub shared_flags: Vec<u8>,
    /// Shared flag bits that count.
    pub shared_flag_mask: u8,
    /// `[n_rows][n_samp]` detector flags, or one element (flags off).
    pub det_flags: Vec<u8>,
    /// Detector flag bits that count.
    pub det_flag_mask: u8,
    /// `[n_samp]` HWP angles, or empty (no HWP).
    pub hwp: Vec<f64>,
    /// `[n_det]` polarisation leakage.
    pub epsilon: Vec<f64>,
    /// Calibration.
    pub cal: f64,
    /// `[n_rows][n_samp]` timestreams.
    pub det_data: Vec<f64>,
    /// `[n_det]` inverse white-noise variances.
    pub detector_weights: Vec<f64>,
    /// `[n_det]` build_noise_weighted scales.
    pub det_scale: Vec<f64>,
    /// `[n_submap]` global → local submap, −1 where not stored.
    pub global2local: Vec<i64>,
    /// `[n_local_submap][n_pix_submap][NNZ]` sky map.
    pub map: Vec<f64>,
    /// Map → timestream scale of scan_map.
    pub data_scale: f64,
    /// Samples per offset amplitude.
    pub step_length: i64,
    /// `[n_det]` first amplitude of each detector.
    pub amp_offsets: Vec<i64>,
    /// `[n_amp]` offset amplitudes.
    pub amplitudes: Vec<f64>,
    /// `[n_amp]` preconditioner variances.
    pub offset_var: Vec<f64>,
}

/// A random permutation of `0..n`, of which the first `k` entries are kept.
fn permutation(rng: &mut Rng, n: usize, k: usize) -> Vec<i32> {
    let mut p: Vec<i32> = (0..n as i32).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(0, i as i64 + 1) as usize);
    }
    p.truncate(k);
    p
}

fn uniform(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.range_f64(lo, hi)).collect()
}

/// Flag bytes: each of the low three bits set with probability `p`.
fn flag_bytes(rng: &mut Rng, n: usize, p: f64) -> Vec<u8> {
    (0..n)
        .map(|_| (0..3).fold(0u8, |f, b| f | (u8::from(rng.uniform() < p) << b)))
        .collect()
}

impl Problem {
    /// A small random observation for the tests: `n_det` detectors in `n_det + 2` rows (two
    /// rows nobody owns), intervals of `shape`, nside 8 in 12 submaps of which two are not
    /// local, flags of every kind (each flag array sometimes switched off), and an HWP half of
    /// the time. `n_samp` and `n_det` may be 0.
    pub fn random(seed: u64, n_det: usize, n_samp: usize, shape: IntervalShape) -> Problem {
        let mut rng = Rng::new(seed);
        let n_rows = n_det + 2;
        let nside = 8;
        let n_pix_submap = 64;
        let n_submap = (12 * nside * nside / n_pix_submap) as usize;
        let intervals = intervals(&mut rng, shape, n_samp);
        let local = permutation(&mut rng, n_submap, n_submap);
        // Submaps in the last two slots of the permutation are not stored.
        let global2local: Vec<i64> = local
            .iter()
            .map(|&l| {
                if l as usize >= n_submap - 2 {
                    -1
                } else {
                    l as i64
                }
            })
            .collect();
        let n_local = n_submap - 2;
        let step_length = rng.below(1, 9);
        let n_amp_per_det: i64 = intervals
            .iter()
            .map(|iv| (iv.len() + step_length - 1) / step_length)
            .sum();
        let lead = rng.below(0, 3);
        let amp_offsets: Vec<i64> = (0..n_det as i64)
            .map(|d| lead + d * n_amp_per_det)
            .collect();
        let n_amp = (lead + n_det as i64 * n_amp_per_det) as usize;
        let flag_index = permutation(&mut rng, n_rows, n_det);
        let shared_on = rng.uniform() < 0.7;
        // A `[1][1]` dummy disables detector flags unless n_samp is 1, where the spec's shape
        // rule would read it as flags (of row 0 only): there, keep them on.
        let det_on = n_samp == 1 || (rng.uniform() < 0.7 && n_samp > 0);
        let offset_flags = det_on && rng.uniform() < 0.7;
        Problem {
            n_det,
            n_samp,
            n_rows,
            nside,
            nest: rng.uniform() < 0.5,
            n_pix_submap,
            focalplane: (0..n_det).map(|_| rng.unit_quat()).collect(),
            boresight: (0..n_samp).map(|_| rng.unit_quat()).collect(),
            quat_index: permutation(&mut rng, n_rows, n_det),
            pixel_index: permutation(&mut rng, n_rows, n_det),
            weight_index: permutation(&mut rng, n_rows, n_det),
            data_index: permutation(&mut rng, n_rows, n_det),
            flag_index,
            offset_flags,
            shared_flags: if shared_on {
                flag_bytes(&mut rng, n_samp, 0.2)
            } else {
                vec![0xff]
            },
            shared_flag_mask: 1,
            det_flags: if det_on {
                flag_bytes(&mut rng, n_rows * n_samp, 0.2)
            } else {
                vec![0xff]
            },
            det_flag_mask: 2,
            hwp: if rng.uniform() < 0.5 {
                uniform(&mut rng, n_samp, 0.0, 6.3)
            } else {
                Vec::new()
            },
            epsilon: uniform(&mut rng, n_det, 0.0, 0.1),
            cal: rng.range_f64(0.5, 2.0),
            det_data: uniform(&mut rng, n_rows * n_samp, -1.0, 1.0),
            detector_weights: uniform(&mut rng, n_det, 0.5, 2.0),
            det_scale: uniform(&mut rng, n_det, 0.5, 2.0),
            global2local,
            map: uniform(&mut rng, n_local * n_pix_submap as usize * NNZ, -1.0, 1.0),
            data_scale: rng.range_f64(0.5, 2.0),
            step_length,
            amp_offsets,
            amplitudes: uniform(&mut rng, n_amp, -1.0, 1.0),
            offset_var: uniform(&mut rng, n_amp, 0.0, 1.0),
            intervals,
        }
    }

    /// The benchmark's observation (spec §4): a satellite scanning at 100 Hz (spin period
    /// 10 min at 50° from the precession axis, precession period 50 min at 45° from the
    /// anti-sun direction), `n_det` detectors in `n_det / 2` focal-plane pixels with two
    /// orthogonal polarisations each within 5° of the boresight, `n_view` equal intervals
    /// separated by gaps of 1% (one interval covering everything when `n_view` is 1), nside
    /// `nside` with submaps of 12·16² pixels (fewer at nside < 16), every submap the scan hits
    /// local, flags on 1% of the samples, one offset amplitude per interval and detector, and
    /// NET 50 µK√s noise weights.
    ///
    /// # Panics
    ///
    /// When `nside` is not a power of two up to 2^29, or `n_det` exceeds `i32::MAX` (the row
    /// index type): a silent truncation would name the wrong rows.
    pub fn satellite(n_det: usize, n_samp: usize, n_view: usize, nside: i64) -> Problem {
        let mut rng = Rng::new(0x70A5_7BE7);
        let rate = 100.0;
        let (spin, prec) = (600.0, 3000.0);
        let tau = 2.0 * std::f64::consts::PI;
        let boresight: Vec<Quat> = (0..n_samp)
            .map(|s| {
                let t = s as f64 / rate;
                let q = qarray::mult(&qarray::rz(tau * t / prec), &qarray::ry(45f64.to_radians()));
                let q = qarray::mult(&q, &qarray::rz(tau * t / spin));
                qarray::mult(&q, &qarray::ry(50f64.to_radians()))
            })
            .collect();
        let n_pixels = n_det.div_ceil(2).max(1);
        let focalplane: Vec<Quat> = (0..n_det)
            .map(|d| {
                let p = (d / 2) as f64;
                let r = 5f64.to_radians() * (p / n_pixels as f64).sqrt();
                let a = p * 2.399_963_229_728_653; // golden angle
                let pol = if d % 2 == 0 { 0.0 } else { tau / 4.0 };
                let q = qarray::mult(&qarray::rz(a), &qarray::ry(r));
                qarray::mult(&q, &qarray::rz(pol - a))
            })
            .collect();
        let gap = if n_view > 1 { n_samp / n_view / 100 } else { 0 };
        let intervals = regular_intervals(n_samp, n_view, gap);
        let hp = Healpix::new(nside).expect("nside must be a power of two up to 2^29");
        let n_pix_submap = (12 * 16 * 16).min(hp.npix());
        let n_submap = (hp.npix() / n_pix_submap) as usize;
        let rows: Vec<i32> = (0..i32::try_from(n_det).expect("n_det up to i32::MAX")).collect();
        let net = 50e-6;
        let weight = 1.0 / (net * net * rate);
        // One amplitude per interval and detector (the default step time outlasts the
        // observation), detector-major.
        let step_length = intervals.iter().map(Interval::len).max().unwrap_or(1);
        let n_view = intervals.len();
        let n_amp = n_det * n_view;
        let mut p = Problem {
            n_det,
            n_samp,
            n_rows: n_det,
            nside,
            nest: true,
            n_pix_submap,
            intervals,
            focalplane,
            boresight,
            quat_index: rows.clone(),
            pixel_index: rows.clone(),
            weight_index: rows.clone(),
            data_index: rows.clone(),
            flag_index: rows,
            offset_flags: true,
            shared_flags: flag_bytes(&mut rng, n_samp, 0.01),
            shared_flag_mask: 1,
            det_flags: flag_bytes(&mut rng, n_det * n_samp, 0.01),
            det_flag_mask: 1,
            hwp: Vec::new(),
            epsilon: vec![0.0; n_det],
            cal: 1.0,
            det_data: (0..n_det * n_samp)
                .map(|_| rng.range_f64(-1.0, 1.0) * net * rate.sqrt())
                .collect(),
            detector_weights: vec![weight; n_det],
            det_scale: vec![weight; n_det],
            global2local: vec![-1; n_submap],
            map: Vec::new(),
            data_scale: 1.0,
            step_length,
            amp_offsets: (0..n_det).map(|d| (d * n_view) as i64).collect(),
            amplitudes: (0..n_amp).map(|_| rng.range_f64(-1.0, 1.0) * net).collect(),
            offset_var: Vec::new(),
        };
        p.offset_var = p.offset_variances(weight, 0.5);
        // The distribution: every submap the scan hits is local, in submap order.
        let (_, hits) = p.reference_pixels(&p.reference_quats());
        let mut next = 0;
        for (g, &h) in p.global2local.iter_mut().zip(&hits) {
            if h != 0 {
                *g = next;
                next += 1;
            }
        }
        let n_local = next as usize * n_pix_submap as usize;
        p.map = (0..n_local * NNZ)
            .map(|i| {
                let pix = (i / NNZ) as f64;
                1e-4 * ((pix * 0.001).sin() + [1.0, 0.1, -0.1][i % NNZ])
            })
            .collect();
        p
    }

    /// The preconditioner of spec §2.10 for one detector weight: `1 / (weight · n_good)` per
    /// amplitude, `n_good` its samples without a detector flag (of `det_flag_mask`), or 0 where
    /// `n_good / run length <= good_fraction`.
    pub fn offset_variances(&self, weight: f64, good_fraction: f64) -> Vec<f64> {
        let mut var = vec![0.0; self.n_amp()];
        let use_flags = self.det_flags_n_samp() == self.n_samp;
        for d in 0..self.n_det {
            let mut a = self.amp_offsets[d] as usize;
            for iv in &self.intervals {
                let mut s0 = iv.first;
                while s0 <= iv.last {
                    let end = (s0 + self.step_length - 1).min(iv.last);
                    let good = (s0..=end)
                        .filter(|&s| {
                            !use_flags
                                || self.det_flags
                                    [self.flag_index[d] as usize * self.n_samp + s as usize]
                                    & self.det_flag_mask
                                    == 0
                        })
                        .count() as f64;
                    if good / (end - s0 + 1) as f64 > good_fraction {
                        var[a] = 1.0 / (weight * good);
                    }
                    a += 1;
                    s0 = end + 1;
                }
            }
        }
        var
    }

    /// `[n_submap]`.
    pub fn n_submap(&self) -> usize {
        self.global2local.len()
    }

    /// Local submaps (the leading extent of map and zmap).
    pub fn n_local_submap(&self) -> usize {
        self.map.len() / (self.n_pix_submap as usize * NNZ)
    }

    /// Amplitudes of all detectors.
    pub fn n_amp(&self) -> usize {
        self.amplitudes.len()
    }

    /// The second extent of the detector flags (`n_samp` when they are used).
    pub fn det_flags_n_samp(&self) -> usize {
        if self.n_samp > 0 && self.det_flags.len() == self.n_rows * self.n_samp {
            self.n_samp
        } else {
            1
        }
    }

    /// `[n_rows][n_samp]`: whether the sample is in the iteration domain of a detector whose
    /// row `index` names (a kernel writing through `index` writes exactly these).
    pub fn domain_mask(&self, index: &[i32]) -> Vec<bool> {
        let mut m = vec![false; self.n_rows * self.n_samp];
        for &r in index {
            for iv in &self.intervals {
                for s in iv.first..=iv.last {
                    m[r as usize * self.n_samp + s as usize] = true;
                }
            }
        }
        m
    }

    /// `[n_rows][n_samp][4]` quaternions from pointing_detector.
    pub fn reference_quats(&self) -> Vec<f64> {
        let mut q = vec![SENTINEL; self.n_rows * self.n_samp * 4];
        reference::pointing_detector(
            &self.focalplane,
            &self.boresight,
            &self.quat_index,
            &mut q,
            &self.intervals,
            &self.shared_flags,
            self.shared_flag_mask,
        );
        q
    }

    /// Quaternions valid everywhere: the reference in the intervals, the identity elsewhere
    /// (the input of the pixel and weight kernels, which read only in-interval samples, but
    /// whose tests want no garbage anywhere).
    pub fn pointing_input(&self) -> Vec<f64> {
        let mut q = self.reference_quats();
        for (i, x) in q.iter_mut().enumerate() {
            if *x == SENTINEL {
                *x = if i % 4 == 3 { 1.0 } else { 0.0 };
            }
        }
        q
    }

    /// `([n_rows][n_samp] pixels, [n_submap] hits)` from pixels_healpix on `quats`.
    pub fn reference_pixels(&self, quats: &[f64]) -> (Vec<i64>, Vec<u8>) {
        let mut pixels = vec![SENTINEL_PIXEL; self.n_rows * self.n_samp];
        let mut hits = vec![0u8; self.n_submap()];
        reference::pixels_healpix(
            self.n_samp,
            &self.quat_index,
            quats,
            &self.shared_flags,
            self.shared_flag_mask,
            &self.pixel_index,
            &mut pixels,
            &self.intervals,
            &mut hits,
            self.n_pix_submap,
            self.nside,
            self.nest,
        );
        (pixels, hits)
    }

    /// `[n_rows][n_samp][3]` weights from stokes_weights_IQU on `quats`.
    pub fn reference_weights(&self, quats: &[f64]) -> Vec<f64> {
        let mut w = vec![SENTINEL; self.n_rows * self.n_samp * NNZ];
        reference::stokes_weights_iqu(
            self.n_samp,
            &self.quat_index,
            quats,
            &self.weight_index,
            &mut w,
            &self.hwp,
            &self.intervals,
            &self.epsilon,
            self.cal,
        );
        w
    }

    /// `[n_rows][n_samp]` weights from stokes_weights_I.
    pub fn reference_weights_i(&self) -> Vec<f64> {
        let mut w = vec![SENTINEL; self.n_rows * self.n_samp];
        reference::stokes_weights_i(
            self.n_samp,
            &self.weight_index,
            &mut w,
            &self.intervals,
            self.cal,
        );
        w
    }

    /// `det_data` after scan_map of `map` (the problem's, in any map type) with
    /// `(zero, subtract, scale)` on `pixels` and `weights`.
    pub fn reference_scan<T: MapValue>(
        &self,
        map: &[T],
        det_data: &[f64],
        pixels: &[i64],
        weights: &[f64],
        mode: (bool, bool, bool),
    ) -> Vec<f64> {
        let mut out = det_data.to_vec();
        reference::scan_map(
            self.n_samp,
            NNZ,
            &self.global2local,
            self.n_pix_submap,
            map,
            &mut out,
            &self.data_index,
            pixels,
            &self.pixel_index,
            weights,
            &self.weight_index,
            &self.intervals,
            self.data_scale,
            mode.0,
            mode.1,
            mode.2,
        );
        out
    }

    /// `det_data` after noise_weight.
    pub fn reference_noise_weight(&self, det_data: &[f64]) -> Vec<f64> {
        let mut out = det_data.to_vec();
        reference::noise_weight(
            self.n_samp,
            &mut out,
            &self.data_index,
            &self.intervals,
            &self.detector_weights,
        );
        out
    }

    /// `zmap` (from zero) by build_noise_weighted of `det_data` on `pixels` and `weights`.
    pub fn reference_zmap(&self, pixels: &[i64], weights: &[f64], det_data: &[f64]) -> Vec<f64> {
        let mut z = vec![0.0; self.map.len()];
        reference::build_noise_weighted(
            self.n_samp,
            NNZ,
            &self.global2local,
            &mut z,
            &self.pixel_index,
            pixels,
            &self.weight_index,
            weights,
            &self.data_index,
            det_data,
            &self.flag_index,
            &self.det_flags,
            self.det_flags_n_samp(),
            &self.det_scale,
            self.det_flag_mask,
            &self.intervals,
            &self.shared_flags,
            self.shared_flag_mask,
            self.n_pix_submap,
        );
        z
    }

    /// `n_amp_views` of the offset template (spec §2.8).
    pub fn n_amp_views(&self) -> Vec<i64> {
        self.intervals
            .iter()
            .map(|iv| (iv.len() + self.step_length - 1) / self.step_length)
            .collect()
    }

    /// `det_data` after add_to_signal of `amplitudes`, detector by detector as TOAST calls it.
    pub fn reference_add_to_signal(&self, amplitudes: &[f64], det_data: &[f64]) -> Vec<f64> {
        let mut out = det_data.to_vec();
        let views = self.n_amp_views();
        for d in 0..self.n_det {
            reference::template_offset_add_to_signal(
                self.n_samp,
                self.step_length,
                self.amp_offsets[d],
                &views,
                amplitudes,
                self.data_index[d],
                &mut out,
                &self.intervals,
            );
        }
        out
    }

    /// `amplitudes` after project_signal of `det_data`, detector by detector.
    pub fn reference_project(&self, det_data: &[f64], amplitudes: &[f64]) -> Vec<f64> {
        let mut out = amplitudes.to_vec();
        let views = self.n_amp_views();
        for d in 0..self.n_det {
            reference::template_offset_project_signal(
                self.n_samp,
                self.data_index[d],
                det_data,
                if self.offset_flags {
                    self.flag_index[d]
                } else {
                    -1
                },
                &self.det_flags,
                self.det_flag_mask,
                self.step_length,
                self.amp_offsets[d],
                &views,
                &mut out,
                &self.intervals,
            );
        }
        out
    }

    /// apply_diag_precond of `amplitudes`.
    pub fn reference_precond(&self, amplitudes: &[f64]) -> Vec<f64> {
        let mut out = vec![SENTINEL; amplitudes.len()];
        reference::template_offset_apply_diag_precond(&self.offset_var, amplitudes, &mut out);
        out
    }
}
