//! The benchmark run on one execution space: build the observation, check each kernel against
//! the serial reference, time it.

pub mod args;

use args::Args;
use rokkos::prelude::*;
use rokkos::{Result, SpaceVisitor};
use rokkos_toast::destriper::{CgState, Destriper, ReferenceDestriper};
use rokkos_toast::kernels::{Design, ScanMode};
use rokkos_toast::observation::{download, Observation};
use rokkos_toast::problem::Problem;
use serde_json::json;
use std::time::Instant;

/// `println!` that ends the process quietly once stdout is closed (`| head`): the reader has
/// what it wanted, and `println!` would panic on the broken pipe.
macro_rules! say {
    ($($fmt:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($fmt)*) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("rokkos-toast: writing to stdout: {e}");
                std::process::exit(1);
            }
            std::process::exit(0);
        }
    }};
}

/// Runs the benchmark on the space `run_on` hands it; `Ok(true)` when every result matched.
pub struct Bench<'a>(pub &'a Args);

impl SpaceVisitor for Bench<'_> {
    type Output = Result<bool>;
    fn visit<E: ExecutionSpace>(self, space: E) -> Result<bool> {
        run(&space, self.0)
    }
}

/// The reference result of every kernel on the problem, computed once on the host.
struct References {
    quats: Vec<f64>,
    pixels: Vec<i64>,
    hits: Vec<u8>,
    weights: Vec<f64>,
    weights_i: Vec<f64>,
    scanned: Vec<f64>,
    weighted: Vec<f64>,
    zmap: Vec<f64>,
    zmap_magnitude: Vec<f64>,
    added: Vec<f64>,
    projected: Vec<f64>,
    projected_magnitude: Vec<f64>,
    preconditioned: Vec<f64>,
}

impl References {
    fn new(p: &Problem) -> References {
        let abs = |v: &[f64]| v.iter().map(|x| x.abs()).collect::<Vec<f64>>();
        let quats = p.reference_quats();
        let (pixels, hits) = p.reference_pixels(&quats);
        let weights = p.reference_weights(&quats);
        let zeros = vec![0.0; p.det_data.len()];
        let subtract = (false, true, false);
        References {
            scanned: p.reference_scan(&p.map, &p.det_data, &pixels, &weights, subtract),
            weighted: p.reference_noise_weight(&p.det_data),
            zmap: p.reference_zmap(&pixels, &weights, &p.det_data),
            zmap_magnitude: p.reference_zmap(&pixels, &abs(&weights), &abs(&p.det_data)),
            added: p.reference_add_to_signal(&p.amplitudes, &zeros),
            projected: p.reference_project(&p.det_data, &vec![0.0; p.n_amp()]),
            projected_magnitude: p.reference_project(&abs(&p.det_data), &vec![0.0; p.n_amp()]),
            preconditioned: p.reference_precond(&p.amplitudes),
            weights_i: p.reference_weights_i(),
            hits,
            quats,
            pixels,
            weights,
        }
    }
}

/// `Err(first mismatch)` unless `got[i]` is within `tol(i)` of `want[i]` everywhere.
fn close(got: &[f64], want: &[f64], tol: impl Fn(usize) -> f64) -> std::result::Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} values, expected {}", got.len(), want.len()));
    }
    match (0..got.len()).find(|&i| (got[i] - want[i]).abs() > tol(i) || got[i].is_nan()) {
        Some(i) => Err(format!(
            "element {i}: {} vs reference {} (tolerance {:e})",
            got[i],
            want[i],
            tol(i)
        )),
        None => Ok(()),
    }
}

/// `Err(first mismatch)` unless `got == want`.
fn exact<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T]) -> std::result::Result<(), String> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        _ if got.len() != want.len() => {
            Err(format!("{} values, expected {}", got.len(), want.len()))
        }
        Some(i) => Err(format!(
            "element {i}: {:?} vs reference {:?}",
            got[i], want[i]
        )),
        None => Ok(()),
    }
}

/// Seconds of each of `reps` runs of `kernel`, each after `setup` and a fence, ended by a fence.
fn time<E: ExecutionSpace>(
    space: &E,
    reps: usize,
    mut setup: impl FnMut() -> Result<()>,
    mut kernel: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    (0..reps)
        .map(|_| {
            setup()?;
            space.fence()?;
            let t0 = Instant::now();
            kernel()?;
            space.fence()?;
            Ok(t0.elapsed().as_secs_f64())
        })
        .collect()
}

/// Collects and prints the results.
struct Report<'a> {
    args: &'a Args,
    backend: &'static str,
    samples: usize,
    all_match: bool,
}

impl Report<'_> {
    fn line(
        &mut self,
        kernel: &str,
        design: Option<Design>,
        mut secs: Vec<f64>,
        check: std::result::Result<(), String>,
    ) {
        secs.sort_by(f64::total_cmp);
        let (best, median) = (secs[0], secs[secs.len() / 2]);
        let rate = self.samples as f64 / best / 1e6;
        let design = design.map_or("-", Design::name);
        if let Err(e) = &check {
            self.all_match = false;
            eprintln!("{kernel} ({design}) does not match the reference: {e}");
        }
        let a = self.args;
        if a.json {
            let line = json!({
                "bench": "toast", "kernel": kernel, "design": design, "backend": self.backend,
                "dtype": "f64", "n_det": a.n_det, "n_samp": a.n_samp, "n_view": a.n_view,
                "nside": a.nside, "reps": a.reps, "best_s": best, "median_s": median,
                "metric": "Msamples/s", "value": rate, "matches_reference": check.is_ok(),
            });
            say!("{line}");
        } else {
            say!(
                "{kernel:<22} {design:<8} {:>10.3} {:>10.3} {rate:>12.1}   {}",
                best * 1e3,
                median * 1e3,
                if check.is_ok() { "ok" } else { "MISMATCH" }
            );
        }
    }
}

/// `Err` unless the device's CG state is within 1e-9 (relative to each vector's largest
/// element) of the reference's: the zmap's atomic sums differ by rounding, which the binned
/// map's covariance inverse amplifies (condition below 1e8 by construction).
fn same_state(got: &CgState, want: &CgState) -> std::result::Result<(), String> {
    for (name, g, w) in [
        ("x", &got.x, &want.x),
        ("r", &got.r, &want.r),
        ("d", &got.d, &want.d),
    ] {
        let scale = w.iter().fold(0f64, |m, x| m.max(x.abs()));
        close(g, w, |_| 1e-9 * scale).map_err(|e| format!("{name}: {e}"))?;
    }
    for (name, g, w) in [
        ("alpha", got.alpha, want.alpha),
        ("beta", got.beta, want.beta),
    ] {
        if (g - w).abs() > 1e-9 * w.abs() {
            return Err(format!("{name}: {g} vs reference {w}"));
        }
    }
    Ok(())
}

/// Pipelines A and B and one PCG iteration of the destriper per design: the iteration checked
/// against the reference's, then each timed.
fn pipeline<E: ExecutionSpace>(space: &E, a: &Args, p: &Problem, r: &mut Report) -> Result<()> {
    let mut reference = ReferenceDestriper::new(p);
    reference.iterate();
    for &design in &a.designs {
        let mut dev = Destriper::new(space, p, design)?;
        let amps =
            rokkos_toast::kernels::upload(space, "amplitudes", [p.n_amp()], p.amplitudes.clone())?;
        let out = rokkos_toast::observation::filled(space, "out", [p.n_amp()], 0.0)?;
        let none = || Ok(());
        let t0 = Instant::now();
        dev.iterate(space)?;
        space.fence()?;
        let first = t0.elapsed().as_secs_f64();
        let check = same_state(&dev.state()?, &reference.state);
        let secs = time(space, a.reps, none, || dev.pipeline_a(space, &amps))?;
        r.line("pipeline_A", Some(design), secs, Ok(()));
        let secs = time(space, a.reps, none, || dev.pipeline_b(space, &amps, &out))?;
        r.line("pipeline_B", Some(design), secs, Ok(()));
        let mut secs = time(space, a.reps.saturating_sub(1), none, || dev.iterate(space))?;
        secs.push(first);
        r.line("pcg_iteration", Some(design), secs, check);
    }
    Ok(())
}

/// `Err(message)` when the host cannot hold the run's buffers ([`args::host_bytes`]).
///
/// Asks the allocator for all of them at once, without touching the memory, and gives it back:
/// the buffers themselves are `Vec`s whose failed allocation aborts the process, while on
/// Linux's default overcommit this one request fails exactly when the total exceeds RAM and
/// swap. (Under `vm.overcommit_memory = 1` it always succeeds, and a run too large for the
/// machine meets the OOM killer instead.)
pub fn reserve_host_memory(a: &Args) -> std::result::Result<(), String> {
    let bytes = args::host_bytes(a.n_det, a.n_samp, a.nside).unwrap_or(usize::MAX);
    Vec::<u8>::new().try_reserve_exact(bytes).map_err(|_| {
        format!(
            "out of memory: {} detectors x {} samples at nside {} need at least {:.1} GB of host \
             memory (lower --n-det, --n-samp or --nside)",
            a.n_det,
            a.n_samp,
            a.nside,
            bytes as f64 / 1e9
        )
    })
}

fn run<E: ExecutionSpace>(space: &E, a: &Args) -> Result<bool> {
    let t0 = Instant::now();
    let p = Problem::satellite(a.n_det, a.n_samp, a.n_view, a.nside);
    let refs = References::new(&p);
    let obs = Observation::new(space, &p)?;
    // The timestreams as generated, to reset the in-place kernels' input before each run.
    let det_original = rokkos_toast::kernels::upload(
        space,
        "det_data as generated",
        obs.det_data.extents(),
        p.det_data.clone(),
    )?;
    let total = p
        .intervals
        .iter()
        .map(|iv| iv.len() as usize)
        .sum::<usize>();
    let mut r = Report {
        args: a,
        backend: space.name(),
        samples: p.n_det * total,
        all_match: true,
    };
    if !a.json {
        say!(
            "TOAST kernels on {}: {} detectors x {} samples, {} intervals ({} samples in them), nside {}; \
             setup and reference {:.1} s",
            space.name(), a.n_det, a.n_samp, p.intervals.len(), total, a.nside, t0.elapsed().as_secs_f64()
        );
        say!(
            "{:<22} {:<8} {:>10} {:>10} {:>12}",
            "kernel",
            "design",
            "best ms",
            "median ms",
            "Msamples/s"
        );
    }
    let none = || Ok(());
    let reset_data = || deep_copy(&obs.det_data, &det_original);
    let n = (a.n_det * a.n_samp) as f64;
    for &design in &a.designs {
        let secs = time(space, a.reps, none, || obs.pointing_detector(space, design))?;
        r.line(
            "pointing_detector",
            Some(design),
            secs,
            close(&download(&obs.quats)?, &refs.quats, |_| 1e-12),
        );
    }
    for &design in &a.designs {
        let secs = time(space, a.reps, none, || obs.pixels_healpix(space, design))?;
        let check = exact(&download(&obs.pixels)?, &refs.pixels)
            .and(exact(&download(&obs.hit_submaps)?, &refs.hits));
        r.line("pixels_healpix", Some(design), secs, check);
    }
    for &design in &a.designs {
        let secs = time(space, a.reps, none, || {
            obs.stokes_weights_iqu(space, design)
        })?;
        r.line(
            "stokes_weights_IQU",
            Some(design),
            secs,
            close(&download(&obs.weights)?, &refs.weights, |_| 1e-12),
        );
    }
    for &design in &a.designs {
        let secs = time(space, a.reps, none, || obs.stokes_weights_i(space, design))?;
        r.line(
            "stokes_weights_I",
            Some(design),
            secs,
            exact(&download(&obs.weights_i)?, &refs.weights_i),
        );
    }
    let rel = |want: &[f64]| 1e-12 * want.iter().fold(0f64, |m, x| m.max(x.abs()));
    let subtract = ScanMode {
        subtract: true,
        ..ScanMode::default()
    };
    for &design in &a.designs {
        let secs = time(space, a.reps, reset_data, || {
            obs.scan_map(space, design, &obs.map, subtract)
        })?;
        let tol = rel(&refs.scanned);
        r.line(
            "scan_map",
            Some(design),
            secs,
            close(&download(&obs.det_data)?, &refs.scanned, |_| tol),
        );
    }
    for &design in &a.designs {
        let secs = time(space, a.reps, reset_data, || {
            obs.noise_weight(space, design)
        })?;
        let tol = rel(&refs.weighted);
        r.line(
            "noise_weight",
            Some(design),
            secs,
            close(&download(&obs.det_data)?, &refs.weighted, |_| tol),
        );
    }
    for &design in &a.designs {
        let setup = || {
            reset_data()?;
            obs.zmap.fill(0.0)
        };
        let secs = time(space, a.reps, setup, || {
            obs.build_noise_weighted(space, design)
        })?;
        let m = &refs.zmap_magnitude;
        r.line(
            "build_noise_weighted",
            Some(design),
            secs,
            close(&download(&obs.zmap)?, &refs.zmap, |i| {
                1e-12 * n.sqrt() * m[i]
            }),
        );
    }
    for &design in &a.designs {
        let secs = time(
            space,
            a.reps,
            || obs.det_data.fill(0.0),
            || obs.add_to_signal(space, design, &obs.amplitudes),
        )?;
        r.line(
            "offset_add_to_signal",
            Some(design),
            secs,
            exact(&download(&obs.det_data)?, &refs.added),
        );
    }
    for &design in &a.designs {
        let setup = || {
            reset_data()?;
            obs.amp_out.fill(0.0)
        };
        let secs = time(space, a.reps, setup, || {
            obs.project_signal(space, design, &obs.amp_out)
        })?;
        let m = &refs.projected_magnitude;
        let steps = (p.step_length as f64).sqrt();
        r.line(
            "offset_project_signal",
            Some(design),
            secs,
            close(&download(&obs.amp_out)?, &refs.projected, |i| {
                1e-12 * steps * m[i]
            }),
        );
    }
    let secs = time(space, a.reps, none, || {
        obs.apply_diag_precond(space, &obs.amplitudes, &obs.amp_out)
    })?;
    r.line(
        "offset_apply_diag_precond",
        None,
        secs,
        exact(&download(&obs.amp_out)?, &refs.preconditioned),
    );
    drop(obs);
    pipeline(space, a, &p, &mut r)?;
    if a.json {
        say!(
            "{}",
            json!({"bench": "toast", "backend": space.name(), "all_results_match_serial_reference": r.all_match})
        );
    } else if r.all_match {
        say!("every result matched the serial reference");
    }
    Ok(r.all_match)
}
