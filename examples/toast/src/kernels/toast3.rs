//! TOAST 3's interface (issue 34 item 1): the kernels whose semantics changed since the
//! paper-era spec, with TOAST 3.0.6's argument names and order.
//!
//! TOAST 3's intervals are half-open (`first <= s < last`): build them with
//! [`Intervals::half_open`], which skips empty intervals and accepts one that ends at `n_samp`.
//! The kernels here then differ from the paper-era ones in their math:
//!
//! - [`StokesWeightsIqu`]: per-detector `cal` and `gamma`, the `IAU` flag, and TOAST 3's
//!   polarisation angle through the meridian vector ([`math::pol_angle_meridian`]);
//! - [`StokesWeightsI`]: per-detector `cal`;
//! - the offset template ([`OffsetAddToSignal`], [`OffsetProjectSignal`],
//!   [`OffsetApplyDiagPrecond`]): TOAST's per-interval amplitude counts ([`OffsetLayout`]),
//!   `amplitude_flags`, one detector per call with scalar `data_index`, `amp_offset` and
//!   `flag_index` (negative: no detector flags);
//! - [`ScanMap`]: `f32`, `f64`, `i32` and `i64` maps ([`MapElement`]);
//! - [`BuildNoiseWeighted`]: `n_pix_submap` from the map's shape, `flag_index` −1 for a
//!   detector without flags.
//!
//! pointing_detector, pixels_healpix and noise_weight did not change: their paper-era structs
//! ([`super::PointingDetector`], [`super::PixelsHealpix`], [`super::NoiseWeight`]) are TOAST
//! 3's with [`Intervals::half_open`] (tested against TOAST 3.0.6 too).
//!
//! Each matches TOAST 3.0.6's compiled kernel (`toast._libtoast`) to rounding: the tests compare
//! them with its outputs on fixed random problems (`tests/data/toast3_cases.json`, written by
//! `scripts/generate_toast3_cases.py`).

use super::math;
use super::{
    expect_at_least, expect_extent, fit_rows, invalid, same_detectors, upload, Design, DevView,
    Intervals, RowIndex,
};
use crate::Interval;
use rokkos::prelude::*;
use rokkos::Result;

per_sample_kernels! {
    /// TOAST 3's I, Q, U weights of one sample: `cal[d]·[1, η cos 2α, ±η sin 2α]` without a
    /// half-wave plate, `cal[d]·[1, η cos ψ, ∓η sin ψ]` with `ψ = 2(2(γ[d] − hwp) − α)` with
    /// one, `η = (1−ε)/(1+ε)`; the U sign is negated under the IAU convention.
    kernels stokes3_iqu_team, stokes3_iqu_mdrange, stokes3_iqu_flat;
    generics [];
    params (
        quat_index: InjectiveView<i32>,
        quats: View<f64, 3>,
        weight_index: InjectiveView<i32>,
        weights: ViewMut<f64, 3>,
        hwp: View<f64>,
        epsilon: View<f64>,
        gamma: View<f64>,
        cal: View<f64>,
        iau: bool,
    );
    |d, _v, _first, s| {
        let q = quat_index[d] as usize;
        let alpha = math::pol_angle_meridian(quats[(q, s, 0)], quats[(q, s, 1)], quats[(q, s, 2)], quats[(q, s, 3)]);
        let mut u_sign = 1.0;
        if iau {
            u_sign = -1.0;
        }
        let mut ang = 2.0 * alpha;
        if hwp.extent(0) == quats.extent(1) {
            // A half-wave plate mirrors the polarisation: U changes sign.
            u_sign = -u_sign;
            ang = 2.0 * (2.0 * (gamma[d] - hwp[s]) - alpha);
        }
        let eta = (1.0 - epsilon[d]) / (1.0 + epsilon[d]);
        let c = cal[d];
        let row = weight_index[d] as usize;
        weights[(row, s, 0)] = c;
        weights[(row, s, 1)] = c * eta * ang.cos();
        weights[(row, s, 2)] = c * eta * ang.sin() * u_sign;
    }
}

per_sample_kernels! {
    /// TOAST 3's intensity-only weight `cal[d]` of one sample.
    kernels stokes3_i_team, stokes3_i_mdrange, stokes3_i_flat;
    generics [];
    params (weight_index: InjectiveView<i32>, weights: ViewMut<f64, 2>, cal: View<f64>);
    |d, _v, _first, s| {
        let row = weight_index[d] as usize;
        weights[(row, s)] = cal[d];
    }
}

/// The arguments of TOAST 3's `stokes_weights_IQU(quat_index, quats, weight_index, weights, hwp,
/// intervals, epsilon, gamma, cal, IAU)`, in the memory of `E`.
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{row_index, toast3, upload, Design, Intervals};
/// use rokkos_toast::observation::download;
/// use rokkos_toast::Interval;
/// let s = Serial;
/// let one = |v: f64| upload(&s, "p", [1], vec![v]);
/// let weights = upload(&s, "weights", [1, 2, 3], vec![0.0; 6])?;
/// toast3::StokesWeightsIqu {
///     quat_index: &row_index(&s, &[0])?,
///     quats: &upload(&s, "quats", [1, 2, 4], vec![0., 0., 0., 1., 0., 0., 0., 1.])?,
///     weight_index: &row_index(&s, &[0])?,
///     weights: &weights,
///     hwp: &one(0.0)?, // one entry for two samples: no half-wave plate
///     intervals: &Intervals::half_open(&s, &Interval::list(&[(0, 2)]))?,
///     epsilon: &one(0.0)?,
///     gamma: &one(0.0)?,
///     cal: &one(2.0)?,
///     iau: false,
/// }
/// .run(&s, Design::Flat)?;
/// // The identity's x-axis lies along the meridian: α = 0, all polarisation in Q.
/// assert_eq!(download(&weights)?, vec![2.0, 2.0, 0.0, 2.0, 2.0, 0.0]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct StokesWeightsIqu<'a, E: ExecutionSpace> {
    /// Detector → row of `quats`.
    pub quat_index: &'a RowIndex<E>,
    /// `[n_qrows][n_samp][4]` detector quaternions.
    pub quats: &'a DevView<E, f64, 3>,
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp][3]` output.
    pub weights: &'a DevView<E, f64, 3>,
    /// `[n_samp]` half-wave-plate angles (radians), used when there is one per sample (TOAST
    /// passes a 1-element array without one).
    pub hwp: &'a DevView<E, f64>,
    /// The samples to compute ([`Intervals::half_open`] for TOAST 3's intervals).
    pub intervals: &'a Intervals<E>,
    /// `[n_det]` cross-polar leakage.
    pub epsilon: &'a DevView<E, f64>,
    /// `[n_det]` detector polarisation angle offsets (radians), used with a half-wave plate.
    pub gamma: &'a DevView<E, f64>,
    /// `[n_det]` calibration factors.
    pub cal: &'a DevView<E, f64>,
    /// The IAU convention (U negated), TOAST's `IAU` flag.
    pub iau: bool,
}

impl<E: ExecutionSpace> StokesWeightsIqu<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = same_detectors(&[
            ("quat_index", self.quat_index.len()),
            ("weight_index", self.weight_index.len()),
        ])?;
        let n_samp = self.quats.extent(1);
        expect_extent("quats", 2, self.quats.extent(2), 4)?;
        expect_extent("weights", 1, self.weights.extent(1), n_samp)?;
        expect_extent("weights", 2, self.weights.extent(2), 3)?;
        expect_at_least("epsilon", self.epsilon.extent(0), n_det)?;
        expect_at_least("cal", self.cal.extent(0), n_det)?;
        if self.hwp.extent(0) == n_samp {
            expect_at_least("gamma", self.gamma.extent(0), n_det)?;
        }
        fit_rows(self.quat_index, "quats", self.quats.extent(0))?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        self.intervals.fit("quats", n_samp)?;
        launch_per_sample!(
            space,
            "toast3::stokes_weights_IQU",
            design,
            n_det,
            self.intervals,
            [stokes3_iqu_team, stokes3_iqu_mdrange, stokes3_iqu_flat](
                self.quat_index,
                self.quats,
                self.weight_index,
                self.weights,
                self.hwp,
                self.epsilon,
                self.gamma,
                self.cal,
                self.iau,
            )
        )
    }
}

/// The arguments of TOAST 3's `stokes_weights_I(weight_index, weights, intervals, cal)`, in the
/// memory of `E`.
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{row_index, toast3, upload, Design, Intervals};
/// use rokkos_toast::observation::download;
/// use rokkos_toast::Interval;
/// let s = Serial;
/// let weights = upload(&s, "weights", [2, 3], vec![0.0; 6])?;
/// toast3::StokesWeightsI {
///     weight_index: &row_index(&s, &[1, 0])?,
///     weights: &weights,
///     intervals: &Intervals::half_open(&s, &Interval::list(&[(1, 3)]))?,
///     cal: &upload(&s, "cal", [2], vec![0.5, 4.0])?,
/// }
/// .run(&s, Design::Team)?;
/// assert_eq!(download(&weights)?, vec![0.0, 4.0, 4.0, 0.0, 0.5, 0.5]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct StokesWeightsI<'a, E: ExecutionSpace> {
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp]` output.
    pub weights: &'a DevView<E, f64, 2>,
    /// The samples to compute ([`Intervals::half_open`] for TOAST 3's intervals).
    pub intervals: &'a Intervals<E>,
    /// `[n_det]` calibration factors.
    pub cal: &'a DevView<E, f64>,
}

impl<E: ExecutionSpace> StokesWeightsI<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = self.weight_index.len();
        expect_at_least("cal", self.cal.extent(0), n_det)?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        self.intervals.fit("weights", self.weights.extent(1))?;
        launch_per_sample!(
            space,
            "toast3::stokes_weights_I",
            design,
            n_det,
            self.intervals,
            [stokes3_i_team, stokes3_i_mdrange, stokes3_i_flat](
                self.weight_index,
                self.weights,
                self.cal,
            )
        )
    }
}

/// TOAST 3's offset-template layout of one observation: its half-open intervals and, for each,
/// the number of amplitudes TOAST gives it (`n_amp_views`, empty intervals included). The
/// amplitudes of interval `v` start `Σ_{u<v} n_amp_views[u]` after the detector's `amp_offset`;
/// sample `s` of it uses amplitude `amp_offset + start_v + (s − first_v) / step_length`.
pub struct OffsetLayout<E: ExecutionSpace> {
    intervals: Intervals<E>,
    /// `[n_view]` each non-empty interval's first amplitude, relative to `amp_offset`.
    view_starts: DevView<E, i64>,
    /// `[n_amp + 1]`: relative amplitude `r`'s sample runs are rows `amp_runs[r]..amp_runs[r + 1]`
    /// of `runs` (a compressed row list: usually one run, more when `n_amp_views` lets two
    /// intervals' steps share an amplitude).
    amp_runs: DevView<E, i64>,
    /// `[n_run][2]`: the half-open samples of each run, in interval order for each amplitude
    /// (the order in which TOAST adds them).
    runs: DevView<E, i64, 2>,
    /// One past the last relative amplitude any sample uses.
    end: i64,
    step_length: i64,
}

impl<E: ExecutionSpace> OffsetLayout<E> {
    /// Checks TOAST 3's `intervals` and `n_amp_views` (one count per interval, non-negative)
    /// with amplitudes of `step_length >= 1` samples, and copies what the kernels read into
    /// `space`'s memory.
    ///
    /// ```
    /// use rokkos_toast::{kernels::toast3::OffsetLayout, Interval};
    /// let list = Interval::list(&[(0, 5), (5, 5), (8, 20)]);
    /// let layout = OffsetLayout::new(&rokkos::Serial, &list, &[2, 0, 4], 3)?;
    /// assert_eq!(layout.n_amp(), 6);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn new(
        space: &E,
        intervals: &[Interval],
        n_amp_views: &[i64],
        step_length: i64,
    ) -> Result<Self> {
        if step_length < 1 {
            return Err(invalid(format!("step_length is {step_length}")));
        }
        if n_amp_views.len() != intervals.len() {
            return Err(invalid(format!(
                "n_amp_views has {} entries for {} intervals",
                n_amp_views.len(),
                intervals.len()
            )));
        }
        // Validated first (sorted, disjoint, samples below 2^32): the step list below then has
        // at most one entry per sample.
        // A step's samples in one work item: project_signal adds each amplitude's samples in
        // order however the intervals are chunked.
        let chunked = Intervals::half_open_aligned(
            space,
            intervals,
            usize::try_from(step_length).unwrap_or(usize::MAX),
        )?;
        let mut starts = Vec::new();
        let (mut start, mut end) = (0i64, 0i64);
        // (relative amplitude, first sample, one past the last) of every step, in interval order.
        let mut steps = Vec::new();
        for (v, (iv, &n)) in intervals.iter().zip(n_amp_views).enumerate() {
            if n < 0 {
                return Err(invalid(format!("n_amp_views[{v}] is {n}")));
            }
            if iv.last > iv.first {
                starts.push(start);
                let n_steps = (iv.last - 1 - iv.first) / step_length + 1;
                let stop = start
                    .checked_add(n_steps)
                    .ok_or_else(|| invalid("amplitudes past i64::MAX".to_string()))?;
                end = end.max(stop);
                for k in 0..n_steps {
                    let lo = iv.first + k * step_length;
                    steps.push((start + k, lo, lo.saturating_add(step_length).min(iv.last)));
                }
            }
            start = start
                .checked_add(n)
                .ok_or_else(|| invalid("n_amp_views sum past i64::MAX".to_string()))?;
        }
        // A stable sort keeps each amplitude's runs in interval order.
        steps.sort_by_key(|&(r, _, _)| r);
        // One entry per amplitude the samples use, as many as the amplitudes View must hold:
        // a refused allocation (absurd `n_amp_views`) is an error, not an abort.
        let n_ptr = usize::try_from(end).unwrap_or(usize::MAX).saturating_add(1);
        let mut amp_runs = Vec::new();
        amp_runs.try_reserve_exact(n_ptr).map_err(|_| {
            invalid(format!(
                "n_amp_views puts an amplitude at {end}: too many to index"
            ))
        })?;
        amp_runs.resize(n_ptr, 0i64);
        for &(r, _, _) in &steps {
            amp_runs[r as usize + 1] += 1;
        }
        for r in 0..end as usize {
            amp_runs[r + 1] += amp_runs[r];
        }
        let n_run = steps.len();
        let runs: Vec<i64> = steps.iter().flat_map(|&(_, lo, hi)| [lo, hi]).collect();
        Ok(OffsetLayout {
            intervals: chunked,
            view_starts: upload(space, "view starts", [starts.len()], starts)?,
            amp_runs: upload(space, "amplitude runs", [n_ptr], amp_runs)?,
            runs: upload(space, "sample runs", [n_run, 2], runs)?,
            end,
            step_length,
        })
    }

    /// The amplitudes of one detector that its samples use (from its `amp_offset` on).
    pub fn n_amp(&self) -> usize {
        self.end as usize
    }

    /// The non-empty intervals, in the space's memory.
    pub fn intervals(&self) -> &Intervals<E> {
        &self.intervals
    }

    /// Checks that amplitudes `amp_offset..amp_offset + n_amp()` exist in both amplitude Views.
    fn fit(&self, amp_offset: i64, n_amp: usize, n_flags: usize) -> Result<()> {
        if n_flags != n_amp {
            return Err(invalid(format!(
                "amplitude_flags has {n_flags} entries, amplitudes {n_amp}"
            )));
        }
        if amp_offset < 0 || amp_offset.saturating_add(self.end) > n_amp as i64 {
            return Err(invalid(format!(
                "amplitudes {amp_offset}..{} do not fit the {n_amp} amplitudes",
                amp_offset.saturating_add(self.end)
            )));
        }
        Ok(())
    }
}

/// Checks a per-detector row index of TOAST 3 (a scalar) against a buffer's rows.
fn scalar_row(what: &str, index: i64, n_rows: usize) -> Result<i32> {
    if index < 0 || index >= n_rows as i64 {
        return Err(invalid(format!(
            "{what} is {index}, outside the {n_rows} rows"
        )));
    }
    Ok(index as i32)
}

per_sample_kernels! {
    /// One sample of TOAST 3's offset add_to_signal: the sample's amplitude added unless it is
    /// flagged.
    kernels offset3_add_team, offset3_add_mdrange, offset3_add_flat;
    generics [];
    params (
        step_length: i64,
        amp_offset: i64,
        view_starts: View<i64>,
        amplitudes: View<f64>,
        amplitude_flags: View<u8>,
        data_index: InjectiveView<i32>,
        det_data: ViewMut<f64, 2>,
    );
    |d, v, first, s| {
        let a = (amp_offset + view_starts[v] + (s as i64 - first) / step_length) as usize;
        if amplitude_flags[a] == 0 {
            let row = data_index[d] as usize;
            det_data[(row, s)] += amplitudes[a];
        }
    }
}

/// TOAST 3's offset project_signal for relative amplitude `r` of one detector: its samples,
/// run by run in interval order, added one at a time into the amplitude (TOAST's order, so the
/// same rounding), skipping flagged samples; a flagged amplitude receives nothing. One work
/// item per amplitude owns its write (`r + amp_offset`), so no sample needs an atomic add.
#[kernel]
fn offset3_project_owned(
    r: usize,
    amp_runs: View<i64>,
    runs: View<i64, 2>,
    data_row: usize,
    det_data: View<f64, 2>,
    use_flags: bool,
    flag_row: usize,
    flag_data: View<u8, 2>,
    flag_mask: u8,
    amp_offset: usize,
    amplitudes: ViewMut<f64>,
    amplitude_flags: View<u8>,
) {
    let a = r + amp_offset;
    if amplitude_flags[a] == 0 {
        let mut acc = amplitudes[a];
        let lo = amp_runs[r] as usize;
        let hi = amp_runs[r + 1] as usize;
        for j in lo..hi {
            let first = runs[(j, 0)] as usize;
            let end = runs[(j, 1)] as usize;
            for s in first..end {
                let mut good = true;
                if use_flags && (flag_data[(flag_row, s)] & flag_mask) != 0 {
                    good = false;
                }
                if good {
                    acc += det_data[(data_row, s)];
                }
            }
        }
        amplitudes[a] = acc;
    }
}

/// `out[i] = in[i] · offset_var[i]`, or 0 where amplitude `i` is flagged.
#[kernel]
fn offset3_precond(
    i: usize,
    offset_var: View<f64>,
    amplitudes_in: View<f64>,
    amplitude_flags: View<u8>,
    amplitudes_out: ViewMut<f64>,
) {
    let mut x = 0.0;
    if amplitude_flags[i] == 0 {
        x = amplitudes_in[i] * offset_var[i];
    }
    amplitudes_out[i] = x;
}

/// The arguments of TOAST 3's `template_offset_add_to_signal(step_length, amp_offset,
/// n_amp_views, amplitudes, amplitude_flags, data_index, det_data, intervals)` for one detector
/// (`step_length`, `n_amp_views` and `intervals` are the [`OffsetLayout`]).
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{toast3, upload, Design};
/// use rokkos_toast::observation::download;
/// use rokkos_toast::Interval;
/// let s = Serial;
/// let layout = toast3::OffsetLayout::new(&s, &Interval::list(&[(0, 4)]), &[2], 2)?;
/// let det_data = upload(&s, "det_data", [1, 4], vec![0.0; 4])?;
/// toast3::OffsetAddToSignal {
///     layout: &layout,
///     amp_offset: 0,
///     amplitudes: &upload(&s, "amplitudes", [2], vec![1.5, 2.5])?,
///     amplitude_flags: &upload(&s, "amplitude_flags", [2], vec![0u8, 1])?,
///     data_index: 0,
///     det_data: &det_data,
/// }
/// .run(&s, Design::MDRange)?;
/// // The second amplitude is flagged: its samples are left as they were.
/// assert_eq!(download(&det_data)?, vec![1.5, 1.5, 0.0, 0.0]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct OffsetAddToSignal<'a, E: ExecutionSpace> {
    /// The intervals, their amplitude counts and `step_length`.
    pub layout: &'a OffsetLayout<E>,
    /// The detector's first amplitude.
    pub amp_offset: i64,
    /// `[n_amp]` amplitudes.
    pub amplitudes: &'a DevView<E, f64>,
    /// `[n_amp]` amplitude flags: a non-zero flag leaves the amplitude's samples alone.
    pub amplitude_flags: &'a DevView<E, u8>,
    /// The detector's row of `det_data`.
    pub data_index: i64,
    /// `[n_rows][n_samp]` timestreams, added to in place.
    pub det_data: &'a DevView<E, f64, 2>,
}

impl<E: ExecutionSpace> OffsetAddToSignal<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let l = self.layout;
        l.fit(
            self.amp_offset,
            self.amplitudes.extent(0),
            self.amplitude_flags.extent(0),
        )?;
        let row = scalar_row("data_index", self.data_index, self.det_data.extent(0))?;
        l.intervals.fit("det_data", self.det_data.extent(1))?;
        let data_index = super::row_index(space, &[row])?;
        launch_per_sample!(
            space,
            "toast3::template_offset_add_to_signal",
            design,
            1,
            &l.intervals,
            [offset3_add_team, offset3_add_mdrange, offset3_add_flat](
                l.step_length,
                self.amp_offset,
                &l.view_starts,
                self.amplitudes,
                self.amplitude_flags,
                &data_index,
                self.det_data,
            )
        )
    }
}

/// The arguments of TOAST 3's `template_offset_project_signal(data_index, det_data,
/// flag_index, flag_data, flag_mask, step_length, amp_offset, n_amp_views, amplitudes,
/// amplitude_flags, intervals)` for one detector.
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{toast3, upload, Design};
/// use rokkos_toast::observation::download;
/// use rokkos_toast::Interval;
/// let s = Serial;
/// let layout = toast3::OffsetLayout::new(&s, &Interval::list(&[(0, 4)]), &[2], 2)?;
/// let amplitudes = upload(&s, "amplitudes", [2], vec![0.0; 2])?;
/// toast3::OffsetProjectSignal {
///     data_index: 0,
///     det_data: &upload(&s, "det_data", [1, 4], vec![1.0, 2.0, 3.0, 4.0])?,
///     flag_index: 0,
///     flag_data: &upload(&s, "flags", [1, 4], vec![0u8, 1, 0, 0])?,
///     flag_mask: 1,
///     layout: &layout,
///     amp_offset: 0,
///     amplitudes: &amplitudes,
///     amplitude_flags: &upload(&s, "amplitude_flags", [2], vec![0u8, 0])?,
/// }
/// .run(&s, Design::Flat)?;
/// assert_eq!(download(&amplitudes)?, vec![1.0, 7.0]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct OffsetProjectSignal<'a, E: ExecutionSpace> {
    /// The detector's row of `det_data`.
    pub data_index: i64,
    /// `[n_rows][n_samp]` timestreams.
    pub det_data: &'a DevView<E, f64, 2>,
    /// The detector's row of `flag_data`, or negative for no detector flags (TOAST's −1).
    pub flag_index: i64,
    /// `[n_frows][n_samp]` detector flags (any shape when `flag_index` is negative).
    pub flag_data: &'a DevView<E, u8, 2>,
    /// Detector flag bits that skip a sample.
    pub flag_mask: u8,
    /// The intervals, their amplitude counts and `step_length`.
    pub layout: &'a OffsetLayout<E>,
    /// The detector's first amplitude.
    pub amp_offset: i64,
    /// `[n_amp]` amplitudes, accumulated into.
    pub amplitudes: &'a DevView<E, f64>,
    /// `[n_amp]` amplitude flags: a flagged amplitude receives nothing.
    pub amplitude_flags: &'a DevView<E, u8>,
}

impl<E: ExecutionSpace> OffsetProjectSignal<'_, E> {
    /// Checks the shapes and launches the kernel. Every `design` runs the same one, a work item
    /// per amplitude that adds its samples in order and stores once: a work item per sample
    /// would need an atomic add per sample.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let l = self.layout;
        l.fit(
            self.amp_offset,
            self.amplitudes.extent(0),
            self.amplitude_flags.extent(0),
        )?;
        let n_samp = self.det_data.extent(1);
        let row = scalar_row("data_index", self.data_index, self.det_data.extent(0))?;
        l.intervals.fit("det_data", n_samp)?;
        let use_flags = self.flag_index >= 0;
        let mut flag_row = 0;
        if use_flags {
            flag_row = scalar_row("flag_index", self.flag_index, self.flag_data.extent(0))?;
            expect_extent("flag_data", 1, self.flag_data.extent(1), n_samp)?;
        }
        // Every design runs the per-amplitude kernel: a work item per sample would need an
        // atomic add per sample (a CAS loop for f64 on rayon and GPUs).
        let _ = design;
        parallel_for(
            "toast3::template_offset_project_signal",
            RangePolicy::new(space, 0..l.n_amp()),
            offset3_project_owned(
                &l.amp_runs,
                &l.runs,
                row as usize,
                self.det_data,
                use_flags,
                flag_row as usize,
                self.flag_data,
                self.flag_mask,
                self.amp_offset as usize,
                self.amplitudes,
                self.amplitude_flags,
            ),
        )
    }
}

/// The arguments of TOAST 3's `template_offset_apply_diag_precond(offset_var, amplitudes_in,
/// amplitude_flags, amplitudes_out)`.
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{toast3, upload};
/// use rokkos_toast::observation::download;
/// let s = Serial;
/// let out = upload(&s, "out", [2], vec![9.0; 2])?;
/// toast3::OffsetApplyDiagPrecond {
///     offset_var: &upload(&s, "var", [2], vec![2.0, 3.0])?,
///     amplitudes_in: &upload(&s, "in", [2], vec![1.0, 1.0])?,
///     amplitude_flags: &upload(&s, "flags", [2], vec![0u8, 1])?,
///     amplitudes_out: &out,
/// }
/// .run(&s)?;
/// assert_eq!(download(&out)?, vec![2.0, 0.0]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct OffsetApplyDiagPrecond<'a, E: ExecutionSpace> {
    /// `[n_amp]` variances.
    pub offset_var: &'a DevView<E, f64>,
    /// `[n_amp]` input.
    pub amplitudes_in: &'a DevView<E, f64>,
    /// `[n_amp]` flags: flagged amplitudes come out 0.
    pub amplitude_flags: &'a DevView<E, u8>,
    /// `[n_amp]` output.
    pub amplitudes_out: &'a DevView<E, f64>,
}

impl<E: ExecutionSpace> OffsetApplyDiagPrecond<'_, E> {
    /// Checks the shapes and launches the elementwise kernel.
    pub fn run(&self, space: &E) -> Result<()> {
        let n = self.amplitudes_out.extent(0);
        for (what, len) in [
            ("offset_var", self.offset_var.extent(0)),
            ("amplitudes_in", self.amplitudes_in.extent(0)),
            ("amplitude_flags", self.amplitude_flags.extent(0)),
        ] {
            if len != n {
                return Err(invalid(format!(
                    "{what} has {len} amplitudes, amplitudes_out {n}"
                )));
            }
        }
        parallel_for(
            "toast3::template_offset_apply_diag_precond",
            RangePolicy::new(space, 0..n),
            offset3_precond(
                self.offset_var,
                self.amplitudes_in,
                self.amplitude_flags,
                self.amplitudes_out,
            ),
        )
    }
}

/// Writes TOAST 3's scan_map for one map element type: the paper-era body, the map value read
/// as `f64` (TOAST 3 scans `f32`, `f64`, `i32` and `i64` maps).
macro_rules! scan_map3_kernels {
    ($t:ty => $team:ident, $mdrange:ident, $flat:ident) => {
        per_sample_kernels! {
            /// One sample of TOAST 3's scan_map: `det_data ⊕= data_scale·Σ_k w_k·m_k(pix)`,
            /// zeroed first when asked, then the first mode set of subtract, scale, add, for a
            /// valid pixel in a local submap.
            kernels $team, $mdrange, $flat;
            generics [];
            params (
                global2local: View<i64>,
                n_pix_submap: i64,
                mapdata: View<$t, 3>,
                det_data: ViewMut<f64, 2>,
                det_data_index: InjectiveView<i32>,
                pixels: View<i64, 2>,
                pixels_index: InjectiveView<i32>,
                weights: View<f64, 3>,
                weight_index: InjectiveView<i32>,
                data_scale: f64,
                should_zero: bool,
                should_subtract: bool,
                should_scale: bool,
            );
            per_detector {
                let prow = pixels_index[d] as usize;
                let w = weight_index[d] as usize;
                let row = det_data_index[d] as usize;
            }
            |d, _v, _first, s| {
                let p = pixels[(prow, s)];
                let mut lsm = -1i64;
                let mut sub = 0i64;
                if p >= 0 {
                    let gsm = p / n_pix_submap;
                    lsm = global2local[gsm as usize];
                    sub = p - gsm * n_pix_submap;
                }
                let mut v = 0.0;
                if lsm >= 0 {
                    let mut sum = 0.0;
                    for k in 0..mapdata.extent(2) {
                        sum += weights[(w, s, k)] * (mapdata[(lsm as usize, sub as usize, k)] as f64);
                    }
                    v = data_scale * sum;
                }
                let mut x = det_data[(row, s)];
                if should_zero {
                    x = 0.0;
                }
                if lsm >= 0 {
                    if should_subtract {
                        x -= v;
                    } else if should_scale {
                        x *= v;
                    } else {
                        x += v;
                    }
                }
                det_data[(row, s)] = x;
            }
        }
    };
}

scan_map3_kernels!(f64 => scan3_f64_team, scan3_f64_mdrange, scan3_f64_flat);
scan_map3_kernels!(f32 => scan3_f32_team, scan3_f32_mdrange, scan3_f32_flat);
scan_map3_kernels!(i32 => scan3_i32_team, scan3_i32_mdrange, scan3_i32_flat);
scan_map3_kernels!(i64 => scan3_i64_team, scan3_i64_mdrange, scan3_i64_flat);

mod sealed {
    pub trait Sealed {}
}

/// A map element type TOAST 3's scan_map reads: `f32`, `f64`, `i32` or `i64` (its
/// `ops_scan_map_float32` … `ops_scan_map_int64`).
pub trait MapElement: rokkos::Pod + sealed::Sealed {
    /// Launches [`ScanMap`] with this map type (the shapes already checked).
    #[doc(hidden)]
    fn launch<E: ExecutionSpace>(
        args: &ScanMap<'_, E, Self>,
        space: &E,
        design: Design,
    ) -> Result<()>;
}

macro_rules! map_element {
    ($t:ty => $team:ident, $mdrange:ident, $flat:ident) => {
        impl sealed::Sealed for $t {}
        impl MapElement for $t {
            fn launch<E: ExecutionSpace>(
                a: &ScanMap<'_, E, Self>,
                space: &E,
                design: Design,
            ) -> Result<()> {
                launch_per_sample!(
                    space,
                    "toast3::scan_map",
                    design,
                    a.det_data_index.len(),
                    a.intervals,
                    [$team, $mdrange, $flat](
                        a.global2local,
                        a.n_pix_submap,
                        a.mapdata,
                        a.det_data,
                        a.det_data_index,
                        a.pixels,
                        a.pixels_index,
                        a.weights,
                        a.weight_index,
                        a.data_scale,
                        a.should_zero,
                        a.should_subtract,
                        a.should_scale,
                    )
                )
            }
        }
    };
}

map_element!(f64 => scan3_f64_team, scan3_f64_mdrange, scan3_f64_flat);
map_element!(f32 => scan3_f32_team, scan3_f32_mdrange, scan3_f32_flat);
map_element!(i32 => scan3_i32_team, scan3_i32_mdrange, scan3_i32_flat);
map_element!(i64 => scan3_i64_team, scan3_i64_mdrange, scan3_i64_flat);

/// The arguments of TOAST 3's `scan_map(global2local, n_pix_submap, mapdata, det_data,
/// det_data_index, pixels, pixels_index, weights, weight_index, intervals, data_scale,
/// should_zero, should_subtract, should_scale)`, for `f32`, `f64`, `i32` and `i64` maps.
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{row_index, toast3, upload, Design, Intervals};
/// use rokkos_toast::observation::download;
/// use rokkos_toast::Interval;
/// let s = Serial;
/// let det_data = upload(&s, "det_data", [1, 2], vec![1.0, 1.0])?;
/// let one = row_index(&s, &[0])?;
/// toast3::ScanMap {
///     global2local: &upload(&s, "g2l", [1], vec![0i64])?,
///     n_pix_submap: 2,
///     mapdata: &upload(&s, "map", [1, 2, 1], vec![3i32, 5])?,
///     det_data: &det_data,
///     det_data_index: &one,
///     pixels: &upload(&s, "pixels", [1, 2], vec![1i64, -1])?,
///     pixels_index: &one,
///     weights: &upload(&s, "weights", [1, 2, 1], vec![2.0, 2.0])?,
///     weight_index: &one,
///     intervals: &Intervals::half_open(&s, &Interval::list(&[(0, 2)]))?,
///     data_scale: 1.0,
///     should_zero: false,
///     should_subtract: false,
///     should_scale: false,
/// }
/// .run(&s, Design::Team)?;
/// // Sample 0 sees pixel 1 (5 × 2 added); sample 1's pixel is invalid.
/// assert_eq!(download(&det_data)?, vec![11.0, 1.0]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct ScanMap<'a, E: ExecutionSpace, T: MapElement> {
    /// `[n_submap]` global → local submap, −1 where not stored (such pixels are skipped).
    pub global2local: &'a DevView<E, i64>,
    /// Pixels per submap (the map's second extent).
    pub n_pix_submap: i64,
    /// `[n_local_submap][n_pix_submap][nnz]` map.
    pub mapdata: &'a DevView<E, T, 3>,
    /// `[n_drows][n_samp]` timestreams, updated in place.
    pub det_data: &'a DevView<E, f64, 2>,
    /// Detector → row of `det_data`.
    pub det_data_index: &'a RowIndex<E>,
    /// `[n_prows][n_samp]` pixels.
    pub pixels: &'a DevView<E, i64, 2>,
    /// Detector → row of `pixels`.
    pub pixels_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp][nnz]` weights (TOAST's 2-D weights of nnz = 1 are this with nnz 1).
    pub weights: &'a DevView<E, f64, 3>,
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// The samples to compute ([`Intervals::half_open`] for TOAST 3's intervals).
    pub intervals: &'a Intervals<E>,
    /// Map → timestream unit factor.
    pub data_scale: f64,
    /// Zero every in-interval sample first.
    pub should_zero: bool,
    /// `D −= v`.
    pub should_subtract: bool,
    /// `D *= v` (when not subtracting).
    pub should_scale: bool,
}

impl<E: ExecutionSpace, T: MapElement> ScanMap<'_, E, T> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        same_detectors(&[
            ("det_data_index", self.det_data_index.len()),
            ("pixels_index", self.pixels_index.len()),
            ("weight_index", self.weight_index.len()),
        ])?;
        let n_samp = self.det_data.extent(1);
        if self.n_pix_submap < 1 {
            return Err(invalid(format!("n_pix_submap is {}", self.n_pix_submap)));
        }
        expect_extent(
            "mapdata",
            1,
            self.mapdata.extent(1),
            self.n_pix_submap as usize,
        )?;
        expect_extent("weights", 2, self.weights.extent(2), self.mapdata.extent(2))?;
        expect_extent("pixels", 1, self.pixels.extent(1), n_samp)?;
        expect_extent("weights", 1, self.weights.extent(1), n_samp)?;
        fit_rows(self.det_data_index, "det_data", self.det_data.extent(0))?;
        fit_rows(self.pixels_index, "pixels", self.pixels.extent(0))?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        self.intervals.fit("det_data", n_samp)?;
        T::launch(self, space, design)
    }
}

per_sample_kernels! {
    /// One sample of TOAST 3's build_noise_weighted: `zmap[pix][k] += det_data·det_scale[d]·w_k`
    /// unless its pixel is invalid or not local or a flag is set (detector flags where
    /// `det_flags` has a column per sample and `flag_index[d] >= 0`, shared flags where there
    /// is one per sample). The adds are atomic: many samples hit one pixel.
    kernels build_nw3_team, build_nw3_mdrange, build_nw3_flat;
    generics [];
    params (
        global2local: View<i64>,
        zmap: ViewMut<f64, 3>,
        pixel_index: InjectiveView<i32>,
        pixels: View<i64, 2>,
        weight_index: InjectiveView<i32>,
        weights: View<f64, 3>,
        data_index: InjectiveView<i32>,
        det_data: View<f64, 2>,
        flag_index: View<i32>,
        det_flags: View<u8, 2>,
        det_scale: View<f64>,
        det_flag_mask: u8,
        shared_flags: View<u8>,
        shared_flag_mask: u8,
    );
    per_detector {
        let n_samp = pixels.extent(1);
        let n_pix_submap = zmap.extent(1) as i64;
        let prow = pixel_index[d] as usize;
        let w = weight_index[d] as usize;
        let drow = data_index[d] as usize;
        let scale = det_scale[d];
        // flag_index has an entry per detector only when det_flags are used.
        let mut f = -1;
        if det_flags.extent(1) == n_samp {
            f = flag_index[d];
        }
        let use_shared = shared_flags.extent(0) == n_samp;
    }
    |d, _v, _first, s| {
        let p = pixels[(prow, s)];
        let mut good = p >= 0;
        if f >= 0 && (det_flags[(f as usize, s)] & det_flag_mask) != 0 {
            good = false;
        }
        if use_shared && (shared_flags[s] & shared_flag_mask) != 0 {
            good = false;
        }
        if good {
            let gsm = p / n_pix_submap;
            let lsm = global2local[gsm as usize];
            if lsm >= 0 {
                let sub = (p - gsm * n_pix_submap) as usize;
                let a = det_data[(drow, s)] * scale;
                for k in 0..zmap.extent(2) {
                    zmap.atomic_add((lsm as usize, sub, k), a * weights[(w, s, k)]);
                }
            }
        }
    }
}

/// The arguments of TOAST 3's `build_noise_weighted(global2local, zmap, pixel_index, pixels,
/// weight_index, weights, data_index, det_data, flag_index, det_flags, det_scale,
/// det_flag_mask, intervals, shared_flags, shared_flag_mask)`: `n_pix_submap` is the map's
/// second extent, and `flag_index[d]` −1 means detector `d` has no flags.
///
/// ```
/// use rokkos::Serial;
/// use rokkos_toast::kernels::{row_index, toast3, upload, Design, Intervals};
/// use rokkos_toast::observation::download;
/// use rokkos_toast::Interval;
/// let s = Serial;
/// let zmap = upload(&s, "zmap", [1, 2, 1], vec![0.0; 2])?;
/// let one = row_index(&s, &[0])?;
/// toast3::BuildNoiseWeighted {
///     global2local: &upload(&s, "g2l", [1], vec![0i64])?,
///     zmap: &zmap,
///     pixel_index: &one,
///     pixels: &upload(&s, "pixels", [1, 3], vec![1i64, 1, 0])?,
///     weight_index: &one,
///     weights: &upload(&s, "weights", [1, 3, 1], vec![1.0; 3])?,
///     data_index: &one,
///     det_data: &upload(&s, "det_data", [1, 3], vec![1.0, 2.0, 4.0])?,
///     flag_index: &upload(&s, "flag_index", [1], vec![-1])?,
///     det_flags: &upload(&s, "det_flags", [1, 1], vec![0u8])?,
///     det_scale: &upload(&s, "det_scale", [1], vec![0.5])?,
///     det_flag_mask: 1,
///     intervals: &Intervals::half_open(&s, &Interval::list(&[(0, 3)]))?,
///     shared_flags: &upload(&s, "shared", [1], vec![0u8])?,
///     shared_flag_mask: 1,
/// }
/// .run(&s, Design::Flat)?;
/// assert_eq!(download(&zmap)?, vec![2.0, 1.5]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub struct BuildNoiseWeighted<'a, E: ExecutionSpace> {
    /// `[n_submap]` global → local submap, −1 where not stored (such pixels are skipped).
    pub global2local: &'a DevView<E, i64>,
    /// `[n_local_submap][n_pix_submap][nnz]`, accumulated into (never zeroed here).
    pub zmap: &'a DevView<E, f64, 3>,
    /// Detector → row of `pixels`.
    pub pixel_index: &'a RowIndex<E>,
    /// `[n_prows][n_samp]` pixels.
    pub pixels: &'a DevView<E, i64, 2>,
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp][nnz]` weights.
    pub weights: &'a DevView<E, f64, 3>,
    /// Detector → row of `det_data`.
    pub data_index: &'a RowIndex<E>,
    /// `[n_drows][n_samp]` timestreams.
    pub det_data: &'a DevView<E, f64, 2>,
    /// `[n_det]` detector → row of `det_flags`, −1 (any negative) for none.
    pub flag_index: &'a DevView<E, i32>,
    /// `[n_frows][n_samp]` detector flags, used when the second extent is `n_samp` (TOAST passes
    /// `[1][1]` without them).
    pub det_flags: &'a DevView<E, u8, 2>,
    /// `[n_det]` scale (detector weight × unit conversion).
    pub det_scale: &'a DevView<E, f64>,
    /// Detector flag bits that skip a sample.
    pub det_flag_mask: u8,
    /// The samples to accumulate ([`Intervals::half_open`] for TOAST 3's intervals).
    pub intervals: &'a Intervals<E>,
    /// `[n_samp]` shared flags, used when there is one per sample.
    pub shared_flags: &'a DevView<E, u8>,
    /// Shared flag bits that skip a sample.
    pub shared_flag_mask: u8,
}

impl<E: ExecutionSpace> BuildNoiseWeighted<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = same_detectors(&[
            ("data_index", self.data_index.len()),
            ("pixel_index", self.pixel_index.len()),
            ("weight_index", self.weight_index.len()),
        ])?;
        let n_samp = self.det_data.extent(1);
        if self.zmap.extent(1) == 0 {
            return Err(invalid("zmap has no pixels per submap".to_string()));
        }
        expect_extent("weights", 2, self.weights.extent(2), self.zmap.extent(2))?;
        expect_extent("pixels", 1, self.pixels.extent(1), n_samp)?;
        expect_extent("weights", 1, self.weights.extent(1), n_samp)?;
        expect_at_least("det_scale", self.det_scale.extent(0), n_det)?;
        fit_rows(self.data_index, "det_data", self.det_data.extent(0))?;
        fit_rows(self.pixel_index, "pixels", self.pixels.extent(0))?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        if self.det_flags.extent(1) == n_samp {
            // The entries are checked where they are read (a row outside det_flags fails the
            // launch); here only that there is one per detector.
            expect_at_least("flag_index", self.flag_index.extent(0), n_det)?;
        }
        self.intervals.fit("det_data", n_samp)?;
        launch_per_sample!(
            space,
            "toast3::build_noise_weighted",
            design,
            n_det,
            self.intervals,
            [build_nw3_team, build_nw3_mdrange, build_nw3_flat](
                self.global2local,
                self.zmap,
                self.pixel_index,
                self.pixels,
                self.weight_index,
                self.weights,
                self.data_index,
                self.det_data,
                self.flag_index,
                self.det_flags,
                self.det_scale,
                self.det_flag_mask,
                self.shared_flags,
                self.shared_flag_mask,
            )
        )
    }
}
