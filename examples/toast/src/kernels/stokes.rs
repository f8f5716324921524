//! stokes_weights_IQU and stokes_weights_I (spec §2.3, §2.4), paper-era form.

use super::math;
use super::{
    expect_at_least, expect_extent, fit_rows, same_detectors, Design, DevView, Intervals, RowIndex,
};
use rokkos::prelude::*;
use rokkos::Result;

per_sample_kernels! {
    /// The I, Q, U weights of one sample: `cal·[1, η cos ψ, η sin ψ]`, `η = (1−ε)/(1+ε)`, with
    /// `ψ` twice the polarisation angle (plus twice the HWP angle where there is one per sample).
    kernels stokes_iqu_team, stokes_iqu_mdrange, stokes_iqu_flat;
    generics [];
    params (
        quat_index: InjectiveView<i32>,
        quats: View<f64, 3>,
        weight_index: InjectiveView<i32>,
        weights: ViewMut<f64, 3>,
        hwp: View<f64>,
        epsilon: View<f64>,
        cal: f64,
    );
    |d, _v, _first, s| {
        let q = quat_index[d] as usize;
        let mut psi = math::pol_angle(quats[(q, s, 0)], quats[(q, s, 1)], quats[(q, s, 2)], quats[(q, s, 3)]);
        if hwp.extent(0) == quats.extent(1) {
            psi += 2.0 * hwp[s];
        }
        psi *= 2.0;
        let eta = (1.0 - epsilon[d]) / (1.0 + epsilon[d]);
        let row = weight_index[d] as usize;
        weights[(row, s, 0)] = cal;
        weights[(row, s, 1)] = cal * eta * psi.cos();
        weights[(row, s, 2)] = cal * eta * psi.sin();
    }
}

per_sample_kernels! {
    /// The intensity-only weight `cal` of one sample.
    kernels stokes_i_team, stokes_i_mdrange, stokes_i_flat;
    generics [];
    params (weight_index: InjectiveView<i32>, weights: ViewMut<f64, 2>, cal: f64);
    |d, _v, _first, s| {
        let row = weight_index[d] as usize;
        weights[(row, s)] = cal;
    }
}

/// The arguments of stokes_weights_IQU (spec §2.3), in the memory of `E`.
pub struct StokesWeightsIqu<'a, E: ExecutionSpace> {
    /// Detector → row of `quats`.
    pub quat_index: &'a RowIndex<E>,
    /// `[n_qrows][n_samp][4]` detector quaternions.
    pub quats: &'a DevView<E, f64, 3>,
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp][3]` output.
    pub weights: &'a DevView<E, f64, 3>,
    /// `[n_samp]` half-wave-plate angles (radians), used when there is one per sample.
    pub hwp: &'a DevView<E, f64>,
    /// The samples to compute.
    pub intervals: &'a Intervals<E>,
    /// `[n_det]` cross-polar leakage, indexed by detector.
    pub epsilon: &'a DevView<E, f64>,
    /// Calibration factor.
    pub cal: f64,
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
        fit_rows(self.quat_index, "quats", self.quats.extent(0))?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        self.intervals.fit("quats", n_samp)?;
        launch_per_sample!(
            space,
            "toast::stokes_weights_IQU",
            design,
            n_det,
            self.intervals,
            [stokes_iqu_team, stokes_iqu_mdrange, stokes_iqu_flat](
                self.quat_index,
                self.quats,
                self.weight_index,
                self.weights,
                self.hwp,
                self.epsilon,
                self.cal,
            )
        )
    }
}

/// The arguments of stokes_weights_I (spec §2.4), in the memory of `E`.
pub struct StokesWeightsI<'a, E: ExecutionSpace> {
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp]` output.
    pub weights: &'a DevView<E, f64, 2>,
    /// The samples to compute.
    pub intervals: &'a Intervals<E>,
    /// Calibration factor.
    pub cal: f64,
}

impl<E: ExecutionSpace> StokesWeightsI<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        self.intervals.fit("weights", self.weights.extent(1))?;
        launch_per_sample!(
            space,
            "toast::stokes_weights_I",
            design,
            self.weight_index.len(),
            self.intervals,
            [stokes_i_team, stokes_i_mdrange, stokes_i_flat](
                self.weight_index,
                self.weights,
                self.cal,
            )
        )
    }
}
