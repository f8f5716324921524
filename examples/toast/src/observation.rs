//! One [`Problem`] in the memory of an execution space, with every kernel's output buffer, and
//! a method per kernel that launches it on these buffers: what the tests, the benchmark and the
//! mini-pipeline run. Outputs start filled with the sentinels of [`crate::problem`].

use crate::kernels::{
    row_index, upload, BuildNoiseWeighted, Design, DevView, Intervals, NoiseWeight,
    OffsetAddToSignal, OffsetApplyDiagPrecond, OffsetProjectSignal, OffsetTemplate, PixelsHealpix,
    PointingDetector, RowIndex, ScanMap, ScanMode, StokesWeightsI, StokesWeightsIqu,
};
use crate::problem::{Problem, NNZ, SENTINEL, SENTINEL_PIXEL};
use rokkos::prelude::*;
use rokkos::{MemorySpace, Pod, Result};

/// A View in `space`'s memory filled with `value`.
pub fn filled<E: ExecutionSpace, T: Pod, const R: usize>(
    space: &E,
    label: &str,
    extents: [usize; R],
    value: T,
) -> Result<DevView<E, T, R>> {
    let dev = View::new_in(&space.memory_space(), label, extents)?;
    dev.fill(value)?;
    Ok(dev)
}

/// The elements of any View, in C order, on the host.
pub fn download<T: Pod, const R: usize, S: MemorySpace>(
    v: &View<T, R, LayoutRight, S>,
) -> Result<Vec<T>> {
    Ok(create_mirror_view_and_copy(v)?.to_vec())
}

/// One observation's inputs and outputs in the memory of `E`.
pub struct Observation<E: ExecutionSpace> {
    /// The intervals.
    pub intervals: Intervals<E>,
    /// The offset amplitude layout.
    pub template: OffsetTemplate<E>,
    /// Detector → quaternion row.
    pub quat_index: RowIndex<E>,
    /// Detector → pixel row.
    pub pixel_index: RowIndex<E>,
    /// Detector → weight row.
    pub weight_index: RowIndex<E>,
    /// Detector → timestream row.
    pub data_index: RowIndex<E>,
    /// Detector → detector-flag row.
    pub flag_index: RowIndex<E>,
    /// `[n_det][4]`.
    pub focalplane: DevView<E, f64, 2>,
    /// `[n_samp][4]`.
    pub boresight: DevView<E, f64, 2>,
    /// `[n_samp]` or `[1]`.
    pub shared_flags: DevView<E, u8>,
    /// `[n_rows][n_samp]` or `[1][1]`.
    pub det_flags: DevView<E, u8, 2>,
    /// `[n_samp]` or `[0]`.
    pub hwp: DevView<E, f64>,
    /// `[n_det]`.
    pub epsilon: DevView<E, f64>,
    /// `[n_rows][n_samp]` timestreams (input of build_noise_weighted, updated by scan_map,
    /// noise_weight, add_to_signal).
    pub det_data: DevView<E, f64, 2>,
    /// `[n_det]`.
    pub detector_weights: DevView<E, f64>,
    /// `[n_det]`.
    pub det_scale: DevView<E, f64>,
    /// `[n_submap]`.
    pub global2local: DevView<E, i64>,
    /// `[n_local_submap][n_pix_submap][3]`.
    pub map: DevView<E, f64, 3>,
    /// `[n_det]`.
    pub amp_offsets: DevView<E, i64>,
    /// `[n_amp]` amplitudes (input of add_to_signal).
    pub amplitudes: DevView<E, f64>,
    /// `[n_amp]`.
    pub offset_var: DevView<E, f64>,
    /// Output `[n_rows][n_samp][4]`.
    pub quats: DevView<E, f64, 3>,
    /// Output `[n_rows][n_samp]`.
    pub pixels: DevView<E, i64, 2>,
    /// Output `[n_submap]`.
    pub hit_submaps: DevView<E, u8>,
    /// Output `[n_rows][n_samp][3]`.
    pub weights: DevView<E, f64, 3>,
    /// Output `[n_rows][n_samp]`.
    pub weights_i: DevView<E, f64, 2>,
    /// Output `[n_local_submap][n_pix_submap][3]`, zero.
    pub zmap: DevView<E, f64, 3>,
    /// Output `[n_amp]` of project_signal and the preconditioner, zero.
    pub amp_out: DevView<E, f64>,
    problem: ProblemScalars,
}

/// The scalars of a [`Problem`] the kernels take.
#[derive(Clone, Copy)]
struct ProblemScalars {
    nside: i64,
    nest: bool,
    n_pix_submap: i64,
    shared_flag_mask: u8,
    det_flag_mask: u8,
    cal: f64,
    data_scale: f64,
    offset_flags: bool,
}

impl<E: ExecutionSpace> Observation<E> {
    /// Copies `p` into `space`'s memory and allocates the outputs.
    pub fn new(space: &E, p: &Problem) -> Result<Self> {
        let (n, rows) = (p.n_samp, p.n_rows);
        let flat = |qs: &[[f64; 4]]| qs.iter().flatten().copied().collect::<Vec<f64>>();
        let det_flags_shape = if n > 0 && p.det_flags_n_samp() == n {
            [rows, n]
        } else {
            [1, 1]
        };
        let n_local = p.n_local_submap();
        let pix = p.n_pix_submap as usize;
        let intervals = Intervals::new(space, &p.intervals)?;
        Ok(Observation {
            template: OffsetTemplate::new(space, &intervals, p.step_length)?,
            intervals,
            quat_index: row_index(space, &p.quat_index)?,
            pixel_index: row_index(space, &p.pixel_index)?,
            weight_index: row_index(space, &p.weight_index)?,
            data_index: row_index(space, &p.data_index)?,
            flag_index: row_index(space, &p.flag_index)?,
            focalplane: upload(space, "focalplane", [p.n_det, 4], flat(&p.focalplane))?,
            boresight: upload(space, "boresight", [n, 4], flat(&p.boresight))?,
            shared_flags: upload(
                space,
                "shared flags",
                [p.shared_flags.len()],
                p.shared_flags.clone(),
            )?,
            det_flags: upload(
                space,
                "det flags",
                det_flags_shape,
                if det_flags_shape == [1, 1] {
                    vec![p.det_flags.first().copied().unwrap_or(0)]
                } else {
                    p.det_flags.clone()
                },
            )?,
            hwp: upload(space, "hwp", [p.hwp.len()], p.hwp.clone())?,
            epsilon: upload(space, "epsilon", [p.n_det], p.epsilon.clone())?,
            det_data: upload(space, "det_data", [rows, n], p.det_data.clone())?,
            detector_weights: upload(
                space,
                "detector weights",
                [p.n_det],
                p.detector_weights.clone(),
            )?,
            det_scale: upload(space, "det scale", [p.n_det], p.det_scale.clone())?,
            global2local: upload(
                space,
                "global2local",
                [p.n_submap()],
                p.global2local.clone(),
            )?,
            map: upload(space, "map", [n_local, pix, NNZ], p.map.clone())?,
            amp_offsets: upload(space, "amp offsets", [p.n_det], p.amp_offsets.clone())?,
            amplitudes: upload(space, "amplitudes", [p.n_amp()], p.amplitudes.clone())?,
            offset_var: upload(space, "offset var", [p.n_amp()], p.offset_var.clone())?,
            quats: filled(space, "quats", [rows, n, 4], SENTINEL)?,
            pixels: filled(space, "pixels", [rows, n], SENTINEL_PIXEL)?,
            hit_submaps: filled(space, "hit submaps", [p.n_submap()], 0)?,
            weights: filled(space, "weights", [rows, n, NNZ], SENTINEL)?,
            weights_i: filled(space, "weights I", [rows, n], SENTINEL)?,
            zmap: filled(space, "zmap", [n_local, pix, NNZ], 0.0)?,
            amp_out: filled(space, "amplitudes out", [p.n_amp()], 0.0)?,
            problem: ProblemScalars {
                nside: p.nside,
                nest: p.nest,
                n_pix_submap: p.n_pix_submap,
                shared_flag_mask: p.shared_flag_mask,
                det_flag_mask: p.det_flag_mask,
                cal: p.cal,
                data_scale: p.data_scale,
                offset_flags: p.offset_flags,
            },
        })
    }

    /// pointing_detector into `quats`.
    pub fn pointing_detector(&self, space: &E, design: Design) -> Result<()> {
        PointingDetector {
            focalplane: &self.focalplane,
            boresight: &self.boresight,
            quat_index: &self.quat_index,
            quats: &self.quats,
            intervals: &self.intervals,
            shared_flags: &self.shared_flags,
            shared_flag_mask: self.problem.shared_flag_mask,
        }
        .run(space, design)
    }

    /// pixels_healpix of `quats` into `pixels` and `hit_submaps`.
    pub fn pixels_healpix(&self, space: &E, design: Design) -> Result<()> {
        PixelsHealpix {
            quat_index: &self.quat_index,
            quats: &self.quats,
            shared_flags: &self.shared_flags,
            shared_flag_mask: self.problem.shared_flag_mask,
            pixel_index: &self.pixel_index,
            pixels: &self.pixels,
            intervals: &self.intervals,
            hit_submaps: &self.hit_submaps,
            n_pix_submap: self.problem.n_pix_submap,
            nside: self.problem.nside,
            nest: self.problem.nest,
        }
        .run(space, design)
    }

    /// stokes_weights_IQU of `quats` into `weights`.
    pub fn stokes_weights_iqu(&self, space: &E, design: Design) -> Result<()> {
        StokesWeightsIqu {
            quat_index: &self.quat_index,
            quats: &self.quats,
            weight_index: &self.weight_index,
            weights: &self.weights,
            hwp: &self.hwp,
            intervals: &self.intervals,
            epsilon: &self.epsilon,
            cal: self.problem.cal,
        }
        .run(space, design)
    }

    /// stokes_weights_I into `weights_i`.
    pub fn stokes_weights_i(&self, space: &E, design: Design) -> Result<()> {
        StokesWeightsI {
            weight_index: &self.weight_index,
            weights: &self.weights_i,
            intervals: &self.intervals,
            cal: self.problem.cal,
        }
        .run(space, design)
    }

    /// scan_map of `map` (as `T`, f32 or f64) through `pixels` and `weights` into `det_data`.
    pub fn scan_map<T: Float>(
        &self,
        space: &E,
        design: Design,
        map: &DevView<E, T, 3>,
        mode: ScanMode,
    ) -> Result<()> {
        ScanMap {
            global2local: &self.global2local,
            n_pix_submap: self.problem.n_pix_submap,
            mapdata: map,
            det_data: &self.det_data,
            data_index: &self.data_index,
            pixels: &self.pixels,
            pixel_index: &self.pixel_index,
            weights: &self.weights,
            weight_index: &self.weight_index,
            intervals: &self.intervals,
            data_scale: self.problem.data_scale,
            mode,
        }
        .run(space, design)
    }

    /// noise_weight of `det_data`.
    pub fn noise_weight(&self, space: &E, design: Design) -> Result<()> {
        NoiseWeight {
            det_data: &self.det_data,
            data_index: &self.data_index,
            intervals: &self.intervals,
            detector_weights: &self.detector_weights,
        }
        .run(space, design)
    }

    /// build_noise_weighted of `det_data` through `pixels` and `weights` into `zmap`.
    pub fn build_noise_weighted(&self, space: &E, design: Design) -> Result<()> {
        BuildNoiseWeighted {
            global2local: &self.global2local,
            zmap: &self.zmap,
            pixel_index: &self.pixel_index,
            pixels: &self.pixels,
            weight_index: &self.weight_index,
            weights: &self.weights,
            data_index: &self.data_index,
            det_data: &self.det_data,
            flag_index: &self.flag_index,
            det_flags: &self.det_flags,
            det_scale: &self.det_scale,
            det_flag_mask: self.problem.det_flag_mask,
            intervals: &self.intervals,
            shared_flags: &self.shared_flags,
            shared_flag_mask: self.problem.shared_flag_mask,
            n_pix_submap: self.problem.n_pix_submap,
        }
        .run(space, design)
    }

    /// add_to_signal of `amplitudes` into `det_data`.
    pub fn add_to_signal(
        &self,
        space: &E,
        design: Design,
        amplitudes: &DevView<E, f64>,
    ) -> Result<()> {
        OffsetAddToSignal {
            template: &self.template,
            amp_offsets: &self.amp_offsets,
            amplitudes,
            data_index: &self.data_index,
            det_data: &self.det_data,
            intervals: &self.intervals,
        }
        .run(space, design)
    }

    /// project_signal of `det_data` into `amplitudes` (accumulating).
    pub fn project_signal(
        &self,
        space: &E,
        design: Design,
        amplitudes: &DevView<E, f64>,
    ) -> Result<()> {
        OffsetProjectSignal {
            data_index: &self.data_index,
            det_data: &self.det_data,
            flag_index: self.problem.offset_flags.then_some(&self.flag_index),
            flag_data: &self.det_flags,
            flag_mask: self.problem.det_flag_mask,
            template: &self.template,
            amp_offsets: &self.amp_offsets,
            amplitudes,
            intervals: &self.intervals,
        }
        .run(space, design)
    }

    /// apply_diag_precond: `output = offset_var · input`.
    pub fn apply_diag_precond(
        &self,
        space: &E,
        input: &DevView<E, f64>,
        output: &DevView<E, f64>,
    ) -> Result<()> {
        OffsetApplyDiagPrecond {
            offset_var: &self.offset_var,
            amplitudes_in: input,
            amplitudes_out: output,
        }
        .run(space)
    }
}
