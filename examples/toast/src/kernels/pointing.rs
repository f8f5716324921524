//! pointing_detector (spec §2.1): `quats[quat_index[d]][s] = B(s) ⊗ focalplane[d]`.

use super::math;
use super::{expect_at_least, expect_extent, fit_rows, Design, DevView, Intervals, RowIndex};
use rokkos::prelude::*;
use rokkos::Result;

per_sample_kernels! {
    /// One detector quaternion: the boresight (the identity where the shared flag is set;
    /// flags are used when there is one per sample) times the focal-plane offset.
    kernels pointing_detector_team, pointing_detector_mdrange, pointing_detector_flat;
    generics [];
    params (
        focalplane: View<f64, 2>,
        boresight: View<f64, 2>,
        quat_index: InjectiveView<i32>,
        quats: ViewMut<f64, 3>,
        shared_flags: View<u8>,
        shared_flag_mask: u8,
    );
    |d, _v, _first, s| {
        let mut bx = boresight[(s, 0)];
        let mut by = boresight[(s, 1)];
        let mut bz = boresight[(s, 2)];
        let mut bw = boresight[(s, 3)];
        if shared_flags.extent(0) == boresight.extent(0) && (shared_flags[s] & shared_flag_mask) != 0 {
            bx = 0.0;
            by = 0.0;
            bz = 0.0;
            bw = 1.0;
        }
        let fx = focalplane[(d, 0)];
        let fy = focalplane[(d, 1)];
        let fz = focalplane[(d, 2)];
        let fw = focalplane[(d, 3)];
        let row = quat_index[d] as usize;
        quats[(row, s, 0)] = math::qmul_x(bx, by, bz, bw, fx, fy, fz, fw);
        quats[(row, s, 1)] = math::qmul_y(bx, by, bz, bw, fx, fy, fz, fw);
        quats[(row, s, 2)] = math::qmul_z(bx, by, bz, bw, fx, fy, fz, fw);
        quats[(row, s, 3)] = math::qmul_w(bx, by, bz, bw, fx, fy, fz, fw);
    }
}

/// The arguments of pointing_detector (spec §2.1), in the memory of `E`.
pub struct PointingDetector<'a, E: ExecutionSpace> {
    /// `[n_det][4]` focal-plane offsets, indexed by detector.
    pub focalplane: &'a DevView<E, f64, 2>,
    /// `[n_samp][4]` boresight quaternions.
    pub boresight: &'a DevView<E, f64, 2>,
    /// Detector → row of `quats`.
    pub quat_index: &'a RowIndex<E>,
    /// `[n_qrows][n_samp][4]` output.
    pub quats: &'a DevView<E, f64, 3>,
    /// The samples to compute.
    pub intervals: &'a Intervals<E>,
    /// `[n_samp]` shared flags, used when there is one per sample (a 1-element View disables
    /// them).
    pub shared_flags: &'a DevView<E, u8>,
    /// Flag bits that replace the boresight by the identity.
    pub shared_flag_mask: u8,
}

impl<E: ExecutionSpace> PointingDetector<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = self.quat_index.len();
        let n_samp = self.boresight.extent(0);
        expect_extent("boresight", 1, self.boresight.extent(1), 4)?;
        expect_extent("focalplane", 1, self.focalplane.extent(1), 4)?;
        expect_at_least("focalplane", self.focalplane.extent(0), n_det)?;
        expect_extent("quats", 1, self.quats.extent(1), n_samp)?;
        expect_extent("quats", 2, self.quats.extent(2), 4)?;
        fit_rows(self.quat_index, "quats", self.quats.extent(0))?;
        self.intervals.fit("boresight", n_samp)?;
        launch_per_sample!(
            space,
            "toast::pointing_detector",
            design,
            n_det,
            self.intervals,
            [
                pointing_detector_team,
                pointing_detector_mdrange,
                pointing_detector_flat
            ](
                self.focalplane,
                self.boresight,
                self.quat_index,
                self.quats,
                self.shared_flags,
                self.shared_flag_mask,
            )
        )
    }
}
