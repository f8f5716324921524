//! The offset (baseline) template (spec §2.8–§2.10): add_to_signal, project_signal and
//! apply_diag_precond.
//!
//! TOAST calls add_to_signal and project_signal once per detector with a scalar `data_index`
//! and `amp_offset`. Here one launch covers every detector: `data_index` is a [`RowIndex`] and
//! `amp_offsets[d]` each detector's first amplitude; a single-detector call is the case
//! `n_det = 1`.

use super::{
    expect_at_least, fit_rows, invalid, same_detectors, upload, Design, DevView, Intervals,
    RowIndex,
};
use rokkos::prelude::*;
use rokkos::Result;

/// The amplitude layout of one observation: `step_length` samples per amplitude, and for each
/// interval `n_amp_views[v] = ceil(len_v / step_length)` amplitudes starting at the exclusive
/// prefix sum `view_amps[v] = Σ_{u<v} n_amp_views[u]` (the cumulative offsets of the spec; the
/// paper-era C++'s non-cumulative ones are a defect).
pub struct OffsetTemplate<E: ExecutionSpace> {
    step_length: i64,
    /// `[n_view + 1]`: the prefix sums, the total last.
    view_amps: DevView<E, i64>,
    n_amp_views: Vec<i64>,
    max_amps: usize,
}

impl<E: ExecutionSpace> OffsetTemplate<E> {
    /// The layout of `intervals` with amplitudes of `step_length >= 1` samples.
    pub fn new(space: &E, intervals: &Intervals<E>, step_length: i64) -> Result<Self> {
        if step_length < 1 {
            return Err(invalid(format!("step_length is {step_length}")));
        }
        let n_amp_views: Vec<i64> = intervals
            .lens()
            .iter()
            .map(|len| (len + step_length - 1) / step_length)
            .collect();
        let mut prefix = vec![0i64];
        for n in &n_amp_views {
            prefix.push(prefix.last().unwrap() + n);
        }
        Ok(OffsetTemplate {
            step_length,
            view_amps: upload(space, "view amplitudes", [prefix.len()], prefix)?,
            max_amps: n_amp_views.iter().copied().max().unwrap_or(0) as usize,
            n_amp_views,
        })
    }

    /// Samples per amplitude.
    pub fn step_length(&self) -> i64 {
        self.step_length
    }

    /// The amplitudes of each interval.
    pub fn n_amp_views(&self) -> &[i64] {
        &self.n_amp_views
    }

    /// The amplitudes of one detector in this observation.
    pub fn n_amp(&self) -> usize {
        self.n_amp_views.iter().sum::<i64>() as usize
    }
}

per_sample_kernels! {
    /// One sample of `det_data[data_index[d]][s] += amplitudes[amp_offsets[d] + a(v, s)]`.
    kernels add_to_signal_team, add_to_signal_mdrange, add_to_signal_flat;
    generics [];
    params (
        step_length: i64,
        amp_offsets: View<i64>,
        view_amps: View<i64>,
        amplitudes: View<f64>,
        data_index: InjectiveView<i32>,
        det_data: ViewMut<f64, 2>,
    );
    |d, v, first, s| {
        let a = amp_offsets[d] + view_amps[v] + (s as i64 - first) / step_length;
        let row = data_index[d] as usize;
        det_data[(row, s)] += amplitudes[a as usize];
    }
}

/// project_signal, a team per (detector, interval, amplitude): the team sums the amplitude's
/// unflagged samples with a thread reduction and one thread adds the sum (atomically: the
/// amplitude ranges of two detectors are the caller's to keep apart, so no ownership holds).
#[kernel]
fn project_signal_team(
    team: &TeamMember,
    intervals: View<i64, 2>,
    view_amps: View<i64>,
    max_amps: usize,
    step_length: i64,
    amp_offsets: View<i64>,
    data_index: InjectiveView<i32>,
    det_data: View<f64, 2>,
    use_flags: bool,
    flag_index: InjectiveView<i32>,
    flag_data: View<u8, 2>,
    flag_mask: u8,
    amplitudes: ViewMut<f64>,
) {
    let l = team.league_rank();
    let c = l % max_amps;
    let d = l / max_amps / intervals.extent(0);
    let v = l / max_amps % intervals.extent(0);
    // Loads from a read-only View at team-uniform indices: team-uniform bounds.
    let first = intervals[(v, 0)];
    let last = intervals[(v, 1)];
    let s0 = first + c as i64 * step_length;
    let n = (last - s0 + 1).clamp(0, step_length);
    let row = data_index[d] as usize;
    let frow = flag_index[d] as usize;
    let sum = team.thread_reduce(n as usize, Sum, |j, acc: &mut f64| {
        let s = s0 as usize + j;
        if !use_flags || (flag_data[(frow, s)] & flag_mask) == 0 {
            *acc += det_data[(row, s)];
        }
    });
    team.single_team(|| {
        if n > 0 {
            let a = amp_offsets[d] + view_amps[v] + c as i64;
            amplitudes.atomic_add(a as usize, sum);
        }
    });
}

/// Writes one per-amplitude body as the MDRange and flat designs of project_signal: the body
/// sees the detector `d`, the interval `v`, the amplitude `c` within it and the interval's first
/// amplitude `a0` (relative to the detector's), and sums the amplitude's samples itself. The
/// names the macro adds start with `am_` (see [`per_sample_kernels!`] on why).
macro_rules! per_amplitude_kernels {
    (
        $(#[$meta:meta])*
        kernels $mdrange:ident, $flat:ident;
        params ($($params:tt)*);
        |$d:ident, $v:ident, $c:ident, $a0:ident| $body:block
    ) => {
        $(#[$meta])*
        #[kernel]
        fn $mdrange(($d, $v, $c): (usize, usize, usize), am_view_amps: View<i64>, $($params)*) {
            let $a0 = am_view_amps[$v];
            if ($c as i64) < am_view_amps[$v + 1] - $a0 $body
        }

        $(#[$meta])*
        #[kernel]
        fn $flat(am_i: usize, am_view_amps: View<i64>, am_total: usize, $($params)*) {
            let $d = am_i / am_total;
            let am_r = (am_i % am_total) as i64;
            // The last interval whose first amplitude is <= r (each has at least one).
            let mut am_lo = 0usize;
            let mut am_hi = am_view_amps.extent(0) - 1;
            while am_hi - am_lo > 1 {
                let am_mid = (am_lo + am_hi) / 2;
                if am_view_amps[am_mid] <= am_r {
                    am_lo = am_mid;
                } else {
                    am_hi = am_mid;
                }
            }
            let $v = am_lo;
            let $a0 = am_view_amps[$v];
            let $c = (am_r - $a0) as usize;
            $body
        }
    };
}

per_amplitude_kernels! {
    /// project_signal, one work item per amplitude summing its samples in order.
    kernels project_signal_mdrange, project_signal_flat;
    params (
        intervals: View<i64, 2>,
        step_length: i64,
        amp_offsets: View<i64>,
        data_index: InjectiveView<i32>,
        det_data: View<f64, 2>,
        use_flags: bool,
        flag_index: InjectiveView<i32>,
        flag_data: View<u8, 2>,
        flag_mask: u8,
        amplitudes: ViewMut<f64>,
    );
    |d, v, c, a0| {
        let s0 = intervals[(v, 0)] + c as i64 * step_length;
        let end = (intervals[(v, 1)] + 1).min(s0 + step_length);
        let row = data_index[d] as usize;
        let frow = flag_index[d] as usize;
        let mut sum = 0.0;
        for s in s0 as usize..end as usize {
            if !use_flags || (flag_data[(frow, s)] & flag_mask) == 0 {
                sum += det_data[(row, s)];
            }
        }
        amplitudes.atomic_add((amp_offsets[d] + a0 + c as i64) as usize, sum);
    }
}

/// `out[i] = in[i] · offset_var[i]`.
#[kernel]
fn apply_diag_precond(
    i: usize,
    offset_var: View<f64>,
    amplitudes_in: View<f64>,
    amplitudes_out: ViewMut<f64>,
) {
    amplitudes_out[i] = amplitudes_in[i] * offset_var[i];
}

/// The arguments of template_offset_add_to_signal (spec §2.8) for every detector, in the
/// memory of `E`.
pub struct OffsetAddToSignal<'a, E: ExecutionSpace> {
    /// The amplitude layout.
    pub template: &'a OffsetTemplate<E>,
    /// `[n_det]`: each detector's first amplitude.
    pub amp_offsets: &'a DevView<E, i64>,
    /// `[n_amp]` amplitudes.
    pub amplitudes: &'a DevView<E, f64>,
    /// Detector → row of `det_data`.
    pub data_index: &'a RowIndex<E>,
    /// `[n_drows][n_samp]` timestreams, added to.
    pub det_data: &'a DevView<E, f64, 2>,
    /// The intervals `template` was made for.
    pub intervals: &'a Intervals<E>,
}

impl<E: ExecutionSpace> OffsetAddToSignal<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = self.data_index.len();
        check_template(self.template, self.intervals)?;
        expect_at_least("amp_offsets", self.amp_offsets.extent(0), n_det)?;
        fit_rows(self.data_index, "det_data", self.det_data.extent(0))?;
        self.intervals.fit("det_data", self.det_data.extent(1))?;
        launch_per_sample!(
            space,
            "toast::offset_add_to_signal",
            design,
            n_det,
            self.intervals,
            [
                add_to_signal_team,
                add_to_signal_mdrange,
                add_to_signal_flat
            ](
                self.template.step_length,
                self.amp_offsets,
                &self.template.view_amps,
                self.amplitudes,
                self.data_index,
                self.det_data,
            )
        )
    }
}

/// The arguments of template_offset_project_signal (spec §2.9) for every detector, in the
/// memory of `E`.
pub struct OffsetProjectSignal<'a, E: ExecutionSpace> {
    /// Detector → row of `det_data`.
    pub data_index: &'a RowIndex<E>,
    /// `[n_drows][n_samp]` timestreams.
    pub det_data: &'a DevView<E, f64, 2>,
    /// Detector → row of `flag_data`, or `None` for no flags (TOAST's `flag_index = −1`).
    pub flag_index: Option<&'a RowIndex<E>>,
    /// `[n_frows][n_samp]` flags, read when `flag_index` is given.
    pub flag_data: &'a DevView<E, u8, 2>,
    /// Flag bits that drop a sample.
    pub flag_mask: u8,
    /// The amplitude layout.
    pub template: &'a OffsetTemplate<E>,
    /// `[n_det]`: each detector's first amplitude.
    pub amp_offsets: &'a DevView<E, i64>,
    /// `[n_amp]` amplitudes, accumulated into.
    pub amplitudes: &'a DevView<E, f64>,
    /// The intervals `template` was made for.
    pub intervals: &'a Intervals<E>,
}

impl<E: ExecutionSpace> OffsetProjectSignal<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = self.data_index.len();
        check_template(self.template, self.intervals)?;
        expect_at_least("amp_offsets", self.amp_offsets.extent(0), n_det)?;
        fit_rows(self.data_index, "det_data", self.det_data.extent(0))?;
        self.intervals.fit("det_data", self.det_data.extent(1))?;
        if let Some(flag_index) = self.flag_index {
            same_detectors(&[("data_index", n_det), ("flag_index", flag_index.len())])?;
            fit_rows(flag_index, "flag_data", self.flag_data.extent(0))?;
            if self.flag_data.extent(1) != self.det_data.extent(1) {
                return Err(invalid(format!(
                    "flag_data has {} samples per row, det_data {}",
                    self.flag_data.extent(1),
                    self.det_data.extent(1)
                )));
            }
        }
        // Without flags the kernels read no flag row: the data index stands in for the View.
        let flag_rows = self.flag_index.unwrap_or(self.data_index);
        let use_flags = self.flag_index.is_some();
        let t = self.template;
        let label = "toast::offset_project_signal";
        let n_view = self.intervals.n_view();
        let iv = &self.intervals.bounds;
        match design {
            Design::Team => parallel_for(
                label,
                TeamPolicy::new(space, n_det * n_view * t.max_amps, TeamSize::Auto),
                project_signal_team(
                    iv,
                    &t.view_amps,
                    t.max_amps,
                    t.step_length,
                    self.amp_offsets,
                    self.data_index,
                    self.det_data,
                    use_flags,
                    flag_rows,
                    self.flag_data,
                    self.flag_mask,
                    self.amplitudes,
                ),
            ),
            Design::MDRange => parallel_for(
                label,
                MDRangePolicy::new(space, [0, 0, 0], [n_det, n_view, t.max_amps]),
                project_signal_mdrange(
                    &t.view_amps,
                    iv,
                    t.step_length,
                    self.amp_offsets,
                    self.data_index,
                    self.det_data,
                    use_flags,
                    flag_rows,
                    self.flag_data,
                    self.flag_mask,
                    self.amplitudes,
                ),
            ),
            Design::Flat => parallel_for(
                label,
                RangePolicy::new(space, 0..n_det * t.n_amp()),
                project_signal_flat(
                    &t.view_amps,
                    t.n_amp(),
                    iv,
                    t.step_length,
                    self.amp_offsets,
                    self.data_index,
                    self.det_data,
                    use_flags,
                    flag_rows,
                    self.flag_data,
                    self.flag_mask,
                    self.amplitudes,
                ),
            ),
        }
    }
}

/// `Err` unless `t` was made for intervals like `iv` (same number of views).
fn check_template<E: ExecutionSpace>(t: &OffsetTemplate<E>, iv: &Intervals<E>) -> Result<()> {
    if t.n_amp_views.len() != iv.n_view() {
        return Err(invalid(format!(
            "the offset template has {} intervals, the intervals {}",
            t.n_amp_views.len(),
            iv.n_view()
        )));
    }
    Ok(())
}

/// The arguments of template_offset_apply_diag_precond (spec §2.10), in the memory of `E`.
pub struct OffsetApplyDiagPrecond<'a, E: ExecutionSpace> {
    /// `[n_amp]` variances.
    pub offset_var: &'a DevView<E, f64>,
    /// `[n_amp]` input.
    pub amplitudes_in: &'a DevView<E, f64>,
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
        ] {
            if len != n {
                return Err(invalid(format!(
                    "{what} has {len} amplitudes, amplitudes_out {n}"
                )));
            }
        }
        parallel_for(
            "toast::offset_apply_diag_precond",
            RangePolicy::new(space, 0..n),
            apply_diag_precond(self.offset_var, self.amplitudes_in, self.amplitudes_out),
        )
    }
}
