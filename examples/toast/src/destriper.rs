//! The mini-pipeline of issue 13 item 6: the destriper's right-hand side and one
//! preconditioned conjugate-gradient iteration (spec §4), every array in the execution space's
//! memory, beside the same iteration run on the host with the serial reference.
//!
//! The destriper solves `(Mᵀ N⁻¹ Z M) a = Mᵀ N⁻¹ Z d` for the offset amplitudes `a`, with
//! `Z = I − P (Pᵀ N⁻¹ P)⁻¹ Pᵀ N⁻¹`. Applying the left-hand side to `d`:
//!
//! - **pipeline A** (binning): TOD := M d (add_to_signal onto zero) → pointing_detector →
//!   pixels_healpix → stokes_weights_IQU → build_noise_weighted into a zeroed zmap;
//! - the binned map `m = (Pᵀ N⁻¹ P)⁻¹ zmap` (covariance apply; the covariance itself, hit by
//!   hit, is built once on the host before the solve, as TOAST's CovarianceAndHits does);
//! - **pipeline B** (projection): TOD := M d → the three pointing kernels → scan_map
//!   (subtract m) → noise_weight → project_signal into zeroed amplitudes.
//!
//! The pointing kernels rerun in each pass, as with TOAST's default `full_pointing = False`;
//! here one launch covers every detector. Scalars (α, β, the residual) come back to the host;
//! arrays never do.

use crate::kernels::destriper::{cov_apply, dot, step_d, step_xr};
use crate::kernels::{upload, Design, DevView, ScanMode};
use crate::observation::{download, filled, Observation};
use crate::problem::{Problem, NNZ};
use rokkos::prelude::*;
use rokkos::Result;

/// The inverse of each local pixel's `Pᵀ N⁻¹ P` (3×3, symmetric), as the upper triangle
/// `(00, 01, 02, 11, 12, 22)`: zero where the pixel is not constrained (fewer than three
/// independent hits: reciprocal condition below 1e-8).
///
/// The sum runs over the samples build_noise_weighted accumulates (same skip rules) on the
/// problem's reference pointing, in plain Rust.
pub fn inverse_covariance(p: &Problem) -> Vec<f64> {
    let quats = p.reference_quats();
    let (pixels, _) = p.reference_pixels(&quats);
    let w = p.reference_weights(&quats);
    let n_pix = p.n_local_submap() * p.n_pix_submap as usize;
    let mut cov = vec![[0.0f64; 6]; n_pix];
    let use_det = p.det_flags_n_samp() == p.n_samp;
    let use_shared = p.shared_flags.len() == p.n_samp;
    for d in 0..p.n_det {
        for iv in &p.intervals {
            for s in iv.first as usize..=iv.last as usize {
                let px = pixels[p.pixel_index[d] as usize * p.n_samp + s];
                let det_flag = use_det
                    && p.det_flags[p.flag_index[d] as usize * p.n_samp + s] & p.det_flag_mask != 0;
                let shared_flag = use_shared && p.shared_flags[s] & p.shared_flag_mask != 0;
                if px < 0 || det_flag || shared_flag {
                    continue;
                }
                let gsm = px / p.n_pix_submap;
                let lsm = p.global2local[gsm as usize];
                if lsm < 0 {
                    continue;
                }
                let at = (lsm * p.n_pix_submap + px - gsm * p.n_pix_submap) as usize;
                let wi = &w[(p.weight_index[d] as usize * p.n_samp + s) * NNZ..][..NNZ];
                let c = &mut cov[at];
                let k = p.det_scale[d];
                c[0] += k * wi[0] * wi[0];
                c[1] += k * wi[0] * wi[1];
                c[2] += k * wi[0] * wi[2];
                c[3] += k * wi[1] * wi[1];
                c[4] += k * wi[1] * wi[2];
                c[5] += k * wi[2] * wi[2];
            }
        }
    }
    cov.iter().flat_map(invert_symmetric).collect()
}

/// The inverse of the symmetric 3×3 `(a, b, c, d, e, f)` = `[[a b c] [b d e] [c e f]]` by
/// cofactors, or zero when its reciprocal condition number (estimated as |det| over the cube
/// of the Frobenius norm) is below 1e-8.
fn invert_symmetric(m: &[f64; 6]) -> [f64; 6] {
    let [a, b, c, d, e, f] = *m;
    let c00 = d * f - e * e;
    let c01 = c * e - b * f;
    let c02 = b * e - c * d;
    let det = a * c00 + b * c01 + c * c02;
    let norm = (a * a + d * d + f * f + 2.0 * (b * b + c * c + e * e)).sqrt();
    if norm == 0.0 || det.abs() < 1e-8 * norm * norm * norm {
        return [0.0; 6];
    }
    [
        c00 / det,
        c01 / det,
        c02 / det,
        (a * f - c * c) / det,
        (b * c - a * e) / det,
        (a * d - b * b) / det,
    ]
}

/// `C⁻¹ z` per local pixel on the host (`inv` as [`inverse_covariance`] gives it).
fn cov_apply_host(inv: &[f64], zmap: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; zmap.len()];
    for (p, (c, z)) in inv.chunks(6).zip(zmap.chunks(NNZ)).enumerate() {
        out[p * NNZ] = c[0] * z[0] + c[1] * z[1] + c[2] * z[2];
        out[p * NNZ + 1] = c[1] * z[0] + c[3] * z[1] + c[4] * z[2];
        out[p * NNZ + 2] = c[2] * z[0] + c[4] * z[1] + c[5] * z[2];
    }
    out
}

/// The conjugate-gradient state: solution, residual, search direction, `δ = r·M⁻¹r`.
#[derive(Clone, Debug, PartialEq)]
pub struct CgState {
    /// The amplitudes solved for so far.
    pub x: Vec<f64>,
    /// The residual `b − A x`.
    pub r: Vec<f64>,
    /// The search direction.
    pub d: Vec<f64>,
    /// `r · M⁻¹ r`.
    pub delta: f64,
    /// The step of the last iteration (0 before the first).
    pub alpha: f64,
    /// The direction update of the last iteration (0 before the first).
    pub beta: f64,
}

/// The same solve on the host with the serial reference (pointing computed once: it is the
/// same in every pass).
pub struct ReferenceDestriper<'a> {
    p: &'a Problem,
    pixels: Vec<i64>,
    weights: Vec<f64>,
    inv_cov: Vec<f64>,
    /// The current state.
    pub state: CgState,
}

impl<'a> ReferenceDestriper<'a> {
    /// The right-hand side `b = Mᵀ N⁻¹ Z d` of `p`'s timestreams and the initial state
    /// (`x = 0`, `r = b`, `d = M⁻¹ b`).
    pub fn new(p: &'a Problem) -> Self {
        let quats = p.reference_quats();
        let (pixels, _) = p.reference_pixels(&quats);
        let weights = p.reference_weights(&quats);
        let mut me = ReferenceDestriper {
            p,
            pixels,
            weights,
            inv_cov: inverse_covariance(p),
            state: CgState {
                x: vec![0.0; p.n_amp()],
                r: Vec::new(),
                d: Vec::new(),
                delta: 0.0,
                alpha: 0.0,
                beta: 0.0,
            },
        };
        let b = me.project_residual(&p.det_data);
        let s = p.reference_precond(&b);
        me.state.delta = host_dot(&b, &s);
        me.state.r = b;
        me.state.d = s;
        me
    }

    /// `Mᵀ N⁻¹ (tod − P m)` with `m` the binned map of `tod`.
    fn project_residual(&self, tod: &[f64]) -> Vec<f64> {
        let p = self.p;
        let zmap = p.reference_zmap(&self.pixels, &self.weights, tod);
        let binned = cov_apply_host(&self.inv_cov, &zmap);
        let scanned = p.reference_scan(&binned, tod, &self.pixels, &self.weights, SUBTRACT);
        let weighted = p.reference_noise_weight(&scanned);
        p.reference_project(&weighted, &vec![0.0; p.n_amp()])
    }

    /// `A a = Mᵀ N⁻¹ Z M a`.
    pub fn lhs(&self, a: &[f64]) -> Vec<f64> {
        let tod = self
            .p
            .reference_add_to_signal(a, &vec![0.0; self.p.det_data.len()]);
        self.project_residual(&tod)
    }

    /// One preconditioned CG iteration.
    pub fn iterate(&mut self) {
        let q = self.lhs(&self.state.d);
        let st = &mut self.state;
        st.alpha = st.delta / host_dot(&st.d, &q);
        for ((x, r), (d, q)) in st.x.iter_mut().zip(&mut st.r).zip(st.d.iter().zip(&q)) {
            *x += st.alpha * d;
            *r -= st.alpha * q;
        }
        let s = self.p.reference_precond(&st.r);
        let delta = host_dot(&st.r, &s);
        st.beta = delta / st.delta;
        st.delta = delta;
        for (d, s) in st.d.iter_mut().zip(&s) {
            *d = s + st.beta * *d;
        }
    }
}

const SUBTRACT: (bool, bool, bool) = (false, true, false);

fn host_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The solve in the memory of `E`: the observation (whose `det_data` is the working
/// timestream), the signal, the inverse covariance, the binned map and the CG vectors.
pub struct Destriper<E: ExecutionSpace> {
    /// The observation the pipelines run on.
    pub obs: Observation<E>,
    design: Design,
    signal: DevView<E, f64, 2>,
    inv_cov: DevView<E, f64, 3>,
    binned: DevView<E, f64, 3>,
    x: DevView<E, f64>,
    r: DevView<E, f64>,
    d: DevView<E, f64>,
    q: DevView<E, f64>,
    s: DevView<E, f64>,
    delta: f64,
    alpha: f64,
    beta: f64,
}

impl<E: ExecutionSpace> Destriper<E> {
    /// Copies `p` into `space`'s memory, computes the right-hand side there and sets up the
    /// initial state; every per-sample kernel uses loop design `design`.
    pub fn new(space: &E, p: &Problem, design: Design) -> Result<Self> {
        let obs = Observation::new(space, p)?;
        let n_amp = p.n_amp();
        let map_shape = obs.zmap.extents();
        let vec = |label| filled(space, label, [n_amp], 0.0);
        let mut me = Destriper {
            signal: upload(space, "signal", obs.det_data.extents(), p.det_data.clone())?,
            inv_cov: upload(
                space,
                "inverse covariance",
                [map_shape[0], map_shape[1], 6],
                inverse_covariance(p),
            )?,
            binned: filled(space, "binned map", map_shape, 0.0)?,
            obs,
            design,
            x: vec("x")?,
            r: vec("r")?,
            d: vec("d")?,
            q: vec("q")?,
            s: vec("s")?,
            delta: 0.0,
            alpha: 0.0,
            beta: 0.0,
        };
        // b = Mᵀ N⁻¹ Z d, into r.
        deep_copy(&me.obs.det_data, &me.signal)?;
        me.bin(space)?;
        deep_copy(&me.obs.det_data, &me.signal)?;
        me.project(space, &me.r)?;
        me.obs.apply_diag_precond(space, &me.r, &me.d)?;
        me.delta = me.dot(space, &me.r, &me.d)?;
        Ok(me)
    }

    /// The three pointing kernels over every detector.
    fn pointing(&self, space: &E) -> Result<()> {
        self.obs.pointing_detector(space, self.design)?;
        self.obs.pixels_healpix(space, self.design)?;
        self.obs.stokes_weights_iqu(space, self.design)
    }

    /// zmap := Pᵀ N⁻¹ tod (after the pointing), then the binned map.
    fn bin(&self, space: &E) -> Result<()> {
        self.obs.zmap.fill(0.0)?;
        self.pointing(space)?;
        self.obs.build_noise_weighted(space, self.design)?;
        let [n_local, n_pix, _] = self.binned.extents();
        parallel_for(
            "toast::cov_apply",
            MDRangePolicy::new(space, [0, 0], [n_local, n_pix]),
            cov_apply(&self.inv_cov, &self.obs.zmap, &self.binned),
        )
    }

    /// `out := Mᵀ N⁻¹ (tod − P m)` (after the pointing), `m` the binned map.
    fn project(&self, space: &E, out: &DevView<E, f64>) -> Result<()> {
        self.pointing(space)?;
        let subtract = ScanMode {
            subtract: true,
            ..ScanMode::default()
        };
        self.obs
            .scan_map(space, self.design, &self.binned, subtract)?;
        self.obs.noise_weight(space, self.design)?;
        out.fill(0.0)?;
        self.obs.project_signal(space, self.design, out)
    }

    fn dot(&self, space: &E, a: &DevView<E, f64>, b: &DevView<E, f64>) -> Result<f64> {
        parallel_reduce(
            "toast::cg_dot",
            RangePolicy::new(space, 0..a.extent(0)),
            dot(a, b),
            Sum,
        )
    }

    /// Pipeline A on amplitudes `a`: TOD := M a, then zmap and the binned map.
    pub fn pipeline_a(&self, space: &E, a: &DevView<E, f64>) -> Result<()> {
        self.obs.det_data.fill(0.0)?;
        self.obs.add_to_signal(space, self.design, a)?;
        self.bin(space)
    }

    /// Pipeline B on amplitudes `a`: `out := Mᵀ N⁻¹ (M a − P m)` with the binned map `m`.
    pub fn pipeline_b(&self, space: &E, a: &DevView<E, f64>, out: &DevView<E, f64>) -> Result<()> {
        self.obs.det_data.fill(0.0)?;
        self.obs.add_to_signal(space, self.design, a)?;
        self.project(space, out)
    }

    /// One preconditioned CG iteration: `q = A d` (pipelines A and B), then the vector algebra.
    pub fn iterate(&mut self, space: &E) -> Result<()> {
        self.pipeline_a(space, &self.d)?;
        self.pipeline_b(space, &self.d, &self.q)?;
        let n = self.x.extent(0);
        self.alpha = self.delta / self.dot(space, &self.d, &self.q)?;
        parallel_for(
            "toast::cg_step_xr",
            RangePolicy::new(space, 0..n),
            step_xr(&self.x, &self.r, &self.d, &self.q, self.alpha),
        )?;
        self.obs.apply_diag_precond(space, &self.r, &self.s)?;
        let delta = self.dot(space, &self.r, &self.s)?;
        self.beta = delta / self.delta;
        self.delta = delta;
        parallel_for(
            "toast::cg_step_d",
            RangePolicy::new(space, 0..n),
            step_d(&self.d, &self.s, self.beta),
        )
    }

    /// The state, copied to the host.
    pub fn state(&self) -> Result<CgState> {
        Ok(CgState {
            x: download(&self.x)?,
            r: download(&self.r)?,
            d: download(&self.d)?,
            delta: self.delta,
            alpha: self.alpha,
            beta: self.beta,
        })
    }
}
