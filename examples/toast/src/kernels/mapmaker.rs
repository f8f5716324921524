//! scan_map, noise_weight and build_noise_weighted (spec §2.5–§2.7).

use super::{expect_at_least, expect_extent, invalid, same_detectors, Design, DevView, Intervals};
use super::{fit_rows, RowIndex};
use rokkos::prelude::*;
use rokkos::Result;

per_sample_kernels! {
    /// One sample of `det_data ⊕= data_scale·Σ_k w_k·m_k(pix)`: zeroed first when asked (even
    /// with an invalid pixel), then, for a valid pixel in a local submap, the first mode set of
    /// subtract, scale, add.
    kernels scan_map_team, scan_map_mdrange, scan_map_flat;
    generics [T: Float];
    params (
        global2local: View<i64>,
        n_pix_submap: i64,
        mapdata: View<T, 3>,
        det_data: ViewMut<f64, 2>,
        data_index: InjectiveView<i32>,
        pixels: View<i64, 2>,
        pixel_index: InjectiveView<i32>,
        weights: View<f64, 3>,
        weight_index: InjectiveView<i32>,
        data_scale: f64,
        should_zero: bool,
        should_subtract: bool,
        should_scale: bool,
    );
    |d, _v, _first, s| {
        let p = pixels[(pixel_index[d] as usize, s)];
        let mut lsm = -1i64;
        let mut sub = 0i64;
        if p >= 0 {
            let gsm = p / n_pix_submap;
            lsm = global2local[gsm as usize];
            sub = p - gsm * n_pix_submap;
        }
        let mut v = 0.0;
        if lsm >= 0 {
            let w = weight_index[d] as usize;
            let mut sum = 0.0;
            for k in 0..mapdata.extent(2) {
                sum += weights[(w, s, k)] * T::to_f64(mapdata[(lsm as usize, sub as usize, k)]);
            }
            v = data_scale * sum;
        }
        let row = data_index[d] as usize;
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

per_sample_kernels! {
    /// One sample of `det_data *= detector_weights[d]`.
    kernels noise_weight_team, noise_weight_mdrange, noise_weight_flat;
    generics [];
    params (det_data: ViewMut<f64, 2>, data_index: InjectiveView<i32>, detector_weights: View<f64>);
    |d, _v, _first, s| {
        let row = data_index[d] as usize;
        det_data[(row, s)] *= detector_weights[d];
    }
}

per_sample_kernels! {
    /// One sample's `zmap[pix][k] += det_data·det_scale[d]·w_k`, unless its pixel is invalid or
    /// not local or a detector or shared flag is set (each flag array used when it has one
    /// entry per sample). Many samples hit one pixel: the adds are atomic.
    kernels build_nw_team, build_nw_mdrange, build_nw_flat;
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
        flag_index: InjectiveView<i32>,
        det_flags: View<u8, 2>,
        det_scale: View<f64>,
        det_flag_mask: u8,
        shared_flags: View<u8>,
        shared_flag_mask: u8,
        n_pix_submap: i64,
    );
    |d, _v, _first, s| {
        let n_samp = pixels.extent(1);
        let p = pixels[(pixel_index[d] as usize, s)];
        let mut good = p >= 0;
        if det_flags.extent(1) == n_samp && (det_flags[(flag_index[d] as usize, s)] & det_flag_mask) != 0 {
            good = false;
        }
        if shared_flags.extent(0) == n_samp && (shared_flags[s] & shared_flag_mask) != 0 {
            good = false;
        }
        if good {
            let gsm = p / n_pix_submap;
            let lsm = global2local[gsm as usize];
            if lsm >= 0 {
                let sub = (p - gsm * n_pix_submap) as usize;
                let a = det_data[(data_index[d] as usize, s)] * det_scale[d];
                let w = weight_index[d] as usize;
                for k in 0..zmap.extent(2) {
                    zmap.atomic_add((lsm as usize, sub, k), a * weights[(w, s, k)]);
                }
            }
        }
    }
}

/// The modes of scan_map (spec §2.5): zero first, then the first set of subtract, scale, add.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanMode {
    /// Zero every in-interval sample first.
    pub zero: bool,
    /// `D −= v`.
    pub subtract: bool,
    /// `D *= v` (when not subtracting).
    pub scale: bool,
}

/// Checks the map geometry shared by scan_map and build_noise_weighted.
fn check_map(what: &str, map_extents: [usize; 3], n_pix_submap: i64, nnz: usize) -> Result<()> {
    if n_pix_submap < 1 {
        return Err(invalid(format!("n_pix_submap is {n_pix_submap}")));
    }
    expect_extent(what, 1, map_extents[1], n_pix_submap as usize)?;
    expect_extent("weights", 2, nnz, map_extents[2])
}

/// The arguments of scan_map (spec §2.5), in the memory of `E`, for `f32` or `f64` maps.
pub struct ScanMap<'a, E: ExecutionSpace, T: Float> {
    /// `[n_submap]` global → local submap, −1 where not stored (such pixels are skipped).
    pub global2local: &'a DevView<E, i64>,
    /// Pixels per submap.
    pub n_pix_submap: i64,
    /// `[n_local_submap][n_pix_submap][nnz]` map.
    pub mapdata: &'a DevView<E, T, 3>,
    /// `[n_drows][n_samp]` timestreams, updated in place.
    pub det_data: &'a DevView<E, f64, 2>,
    /// Detector → row of `det_data`.
    pub data_index: &'a RowIndex<E>,
    /// `[n_prows][n_samp]` pixels.
    pub pixels: &'a DevView<E, i64, 2>,
    /// Detector → row of `pixels`.
    pub pixel_index: &'a RowIndex<E>,
    /// `[n_wrows][n_samp][nnz]` weights.
    pub weights: &'a DevView<E, f64, 3>,
    /// Detector → row of `weights`.
    pub weight_index: &'a RowIndex<E>,
    /// The samples to compute.
    pub intervals: &'a Intervals<E>,
    /// Map → timestream unit factor.
    pub data_scale: f64,
    /// What to do with the scanned value.
    pub mode: ScanMode,
}

impl<E: ExecutionSpace, T: Float> ScanMap<'_, E, T> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = same_detectors(&[
            ("data_index", self.data_index.len()),
            ("pixel_index", self.pixel_index.len()),
            ("weight_index", self.weight_index.len()),
        ])?;
        let n_samp = self.det_data.extent(1);
        check_map(
            "mapdata",
            self.mapdata.extents(),
            self.n_pix_submap,
            self.weights.extent(2),
        )?;
        expect_extent("pixels", 1, self.pixels.extent(1), n_samp)?;
        expect_extent("weights", 1, self.weights.extent(1), n_samp)?;
        fit_rows(self.data_index, "det_data", self.det_data.extent(0))?;
        fit_rows(self.pixel_index, "pixels", self.pixels.extent(0))?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        self.intervals.fit("det_data", n_samp)?;
        launch_per_sample!(
            space,
            "toast::scan_map",
            design,
            n_det,
            self.intervals,
            [scan_map_team, scan_map_mdrange, scan_map_flat](
                self.global2local,
                self.n_pix_submap,
                self.mapdata,
                self.det_data,
                self.data_index,
                self.pixels,
                self.pixel_index,
                self.weights,
                self.weight_index,
                self.data_scale,
                self.mode.zero,
                self.mode.subtract,
                self.mode.scale,
            )
        )
    }
}

/// The arguments of noise_weight (spec §2.6), in the memory of `E`.
pub struct NoiseWeight<'a, E: ExecutionSpace> {
    /// `[n_drows][n_samp]` timestreams, scaled in place.
    pub det_data: &'a DevView<E, f64, 2>,
    /// Detector → row of `det_data`.
    pub data_index: &'a RowIndex<E>,
    /// The samples to compute.
    pub intervals: &'a Intervals<E>,
    /// `[n_det]` inverse noise variances, indexed by detector.
    pub detector_weights: &'a DevView<E, f64>,
}

impl<E: ExecutionSpace> NoiseWeight<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = self.data_index.len();
        expect_at_least("detector_weights", self.detector_weights.extent(0), n_det)?;
        fit_rows(self.data_index, "det_data", self.det_data.extent(0))?;
        self.intervals.fit("det_data", self.det_data.extent(1))?;
        launch_per_sample!(
            space,
            "toast::noise_weight",
            design,
            n_det,
            self.intervals,
            [noise_weight_team, noise_weight_mdrange, noise_weight_flat](
                self.det_data,
                self.data_index,
                self.detector_weights,
            )
        )
    }
}

/// The arguments of build_noise_weighted (spec §2.7), in the memory of `E`.
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
    /// Detector → row of `det_flags`.
    pub flag_index: &'a RowIndex<E>,
    /// `[n_frows][n_samp]` detector flags, used when the second extent is `n_samp` (a `[1][1]`
    /// View disables them).
    pub det_flags: &'a DevView<E, u8, 2>,
    /// `[n_det]` scale (detector weight × unit conversion), indexed by detector.
    pub det_scale: &'a DevView<E, f64>,
    /// Detector flag bits that skip a sample.
    pub det_flag_mask: u8,
    /// The samples to accumulate.
    pub intervals: &'a Intervals<E>,
    /// `[n_samp]` shared flags, used when there is one per sample.
    pub shared_flags: &'a DevView<E, u8>,
    /// Shared flag bits that skip a sample.
    pub shared_flag_mask: u8,
    /// Pixels per submap.
    pub n_pix_submap: i64,
}

impl<E: ExecutionSpace> BuildNoiseWeighted<'_, E> {
    /// Checks the shapes and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = same_detectors(&[
            ("data_index", self.data_index.len()),
            ("pixel_index", self.pixel_index.len()),
            ("weight_index", self.weight_index.len()),
            ("flag_index", self.flag_index.len()),
        ])?;
        let n_samp = self.det_data.extent(1);
        check_map(
            "zmap",
            self.zmap.extents(),
            self.n_pix_submap,
            self.weights.extent(2),
        )?;
        expect_extent("pixels", 1, self.pixels.extent(1), n_samp)?;
        expect_extent("weights", 1, self.weights.extent(1), n_samp)?;
        expect_at_least("det_scale", self.det_scale.extent(0), n_det)?;
        fit_rows(self.data_index, "det_data", self.det_data.extent(0))?;
        fit_rows(self.pixel_index, "pixels", self.pixels.extent(0))?;
        fit_rows(self.weight_index, "weights", self.weights.extent(0))?;
        if self.det_flags.extent(1) == n_samp {
            fit_rows(self.flag_index, "det_flags", self.det_flags.extent(0))?;
        }
        self.intervals.fit("det_data", n_samp)?;
        launch_per_sample!(
            space,
            "toast::build_noise_weighted",
            design,
            n_det,
            self.intervals,
            [build_nw_team, build_nw_mdrange, build_nw_flat](
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
                self.n_pix_submap,
            )
        )
    }
}
