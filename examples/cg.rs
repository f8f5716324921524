//! Conjugate gradients on the 2-D Poisson problem (the 5-point Laplacian with zero Dirichlet
//! boundaries, matrix-free), on any backend.
//!
//! ```text
//! cargo run --release --example cg -- [--backend serial|rayon|wgpu|cuda] [--n 128] [--iters 400] [--json]
//! ```
//!
//! The iteration never waits for the device: the two dot products of each step are stored with
//! `parallel_reduce_into` into one-element Views, and the update kernels read α = rr / pAp and
//! β = rr' / rr from there, so on a GPU a whole step (and, here, 20 steps) is queued before the host
//! looks at anything. The host reads the residual every 20 steps to decide whether to stop.
//!
//! The right-hand side is `b = A x*` for a known `x*`, so the result is checked against `x*`; the
//! program fails when the error does not fall below 1e-6 (relative, infinity norm) once the
//! residual has.

#[path = "common/args.rs"]
mod args;

use rokkos::prelude::*;
use rokkos::{run_on, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

/// `y = A x`: the 5-point Laplacian, zero outside the grid.
#[kernel]
fn laplacian((i, j): (usize, usize), y: ViewMut<f64, 2>, x: View<f64, 2>) {
    let mut s = 4.0 * x[(i, j)];
    if i > 0 {
        s -= x[(i - 1, j)];
    }
    if i + 1 < x.extent(0) {
        s -= x[(i + 1, j)];
    }
    if j > 0 {
        s -= x[(i, j - 1)];
    }
    if j + 1 < x.extent(1) {
        s -= x[(i, j + 1)];
    }
    y[(i, j)] = s;
}

#[kernel]
fn dot((i, j): (usize, usize), acc: &mut f64, a: View<f64, 2>, b: View<f64, 2>) {
    *acc += a[(i, j)] * b[(i, j)];
}

/// `x += α p`, `r -= α Ap` with `α = rr / pAp`, both read on the device.
#[kernel]
fn step_xr(
    (i, j): (usize, usize),
    x: ViewMut<f64, 2>,
    r: ViewMut<f64, 2>,
    p: View<f64, 2>,
    ap: View<f64, 2>,
    rr: View<f64>,
    pap: View<f64>,
) {
    let alpha = rr[0] / pap[0];
    x[(i, j)] += alpha * p[(i, j)];
    r[(i, j)] -= alpha * ap[(i, j)];
}

/// `p = r + β p` with `β = rr_new / rr`.
#[kernel]
fn step_p(
    (i, j): (usize, usize),
    p: ViewMut<f64, 2>,
    r: View<f64, 2>,
    rr_new: View<f64>,
    rr: View<f64>,
) {
    p[(i, j)] = r[(i, j)] + rr_new[0] / rr[0] * p[(i, j)];
}

pub(crate) struct Args {
    pub(crate) backend: String,
    pub(crate) n: usize,
    pub(crate) iters: usize,
    pub(crate) json: bool,
}

const USAGE: &str = "usage: cg [--backend serial|rayon|wgpu|cuda] [--n N] [--iters K] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        n: 128,
        iters: 400,
        json: false,
    };
    let mut backend = None;
    let mut f = args::Flags::new(USAGE);
    while let Some(flag) = f.next_flag()? {
        match flag.as_str() {
            "--backend" => backend = Some(f.value("--backend")?),
            "--n" => a.n = f.parse("--n")?,
            "--iters" => a.iters = f.parse("--iters")?,
            "--json" => a.json = true,
            other => return Err(f.unknown(other)),
        }
    }
    a.backend = args::backend_or_default(backend)?;
    if a.n < 2 || a.iters == 0 {
        return Err("--n must be at least 2 and --iters positive".into());
    }
    Ok(a)
}

/// What a solve gives: steps taken, final relative residual, relative error against `x*`, seconds
/// per step, backend name.
pub(crate) struct Solve {
    pub(crate) steps: usize,
    pub(crate) residual: f64,
    pub(crate) error: f64,
    pub(crate) per_step: f64,
    pub(crate) backend: String,
}

/// Steps between two host reads of the residual.
const CHECK_EVERY: usize = 20;
/// Relative residual at which the solve stops.
const TOL: f64 = 1e-10;

pub(crate) struct Cg<'a>(pub(crate) &'a Args);

impl SpaceVisitor for Cg<'_> {
    type Output = rokkos::Result<Solve>;
    fn visit<E: ExecutionSpace>(self, space: E) -> rokkos::Result<Solve> {
        let n = self.0.n;
        let mem = space.memory_space();
        let grid = || MDRangePolicy::new(&space, [0, 0], [n, n]);
        let field =
            |label: &str| View::<f64, 2, LayoutRight, E::Memory>::new_in(&mem, label, [n, n]);
        let scalar = |label: &str| View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, label, [1]);
        // x* has structure at every scale: a smooth mode plus a deterministic pseudo-random part.
        let exact_host = View::<f64, 2>::from_fn("x*", [n, n], |[i, j]| {
            let h = (i * 7919 + j * 104_729) as f64;
            (std::f64::consts::PI * (i + 1) as f64 / (n + 1) as f64).sin() + (h * 0.618_034).fract()
                - 0.5
        })?;
        let exact = field("x*")?;
        deep_copy(&exact, &exact_host)?;
        let (b, x, r, p, ap) = (
            field("b")?,
            field("x")?,
            field("r")?,
            field("p")?,
            field("Ap")?,
        );
        let (mut rr, mut rr_new, pap) = (scalar("rr")?, scalar("rr'")?, scalar("pAp")?);
        parallel_for("cg::rhs", grid(), laplacian(&b, &exact))?;
        // x = 0, so r = p = b.
        deep_copy(&r, &b)?;
        deep_copy(&p, &b)?;
        let bb = parallel_reduce("cg::bb", grid(), dot(&b, &b), Sum)?;
        parallel_reduce_into("cg::rr", grid(), dot(&r, &r), Sum, &rr.subview::<0>([0])?)?;

        let t0 = Instant::now();
        let mut steps = 0;
        let mut residual = 1.0;
        while steps < self.0.iters {
            for _ in 0..CHECK_EVERY.min(self.0.iters - steps) {
                parallel_for("cg::Ap", grid(), laplacian(&ap, &p))?;
                parallel_reduce_into(
                    "cg::pAp",
                    grid(),
                    dot(&p, &ap),
                    Sum,
                    &pap.subview::<0>([0])?,
                )?;
                parallel_for("cg::xr", grid(), step_xr(&x, &r, &p, &ap, &rr, &pap))?;
                parallel_reduce_into(
                    "cg::rr",
                    grid(),
                    dot(&r, &r),
                    Sum,
                    &rr_new.subview::<0>([0])?,
                )?;
                parallel_for("cg::p", grid(), step_p(&p, &r, &rr_new, &rr))?;
                std::mem::swap(&mut rr, &mut rr_new);
                steps += 1;
            }
            residual = (create_mirror_view_and_copy(&rr)?.get([0]) / bb).sqrt();
            if residual < TOL {
                break;
            }
        }
        space.fence()?;
        let per_step = t0.elapsed().as_secs_f64() / steps as f64;
        let xs = create_mirror_view_and_copy(&x)?.to_vec();
        let want = exact_host.to_vec();
        let scale = want.iter().fold(0f64, |m, v| m.max(v.abs()));
        let error = xs
            .iter()
            .zip(&want)
            .fold(0f64, |m, (a, w)| m.max((a - w).abs()))
            / scale;
        Ok(Solve {
            steps,
            residual,
            error,
            per_step,
            backend: space.name().to_string(),
        })
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            // Usage errors exit with 2, as in the other examples.
            eprintln!("cg: {e}");
            return ExitCode::from(2);
        }
    };
    let s = match run_on(&args.backend, Cg(&args)).and_then(|r| r) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cg: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        let line = serde_json::json!({
            "bench": "cg", "backend": s.backend, "n": args.n, "steps": s.steps,
            "residual": s.residual, "error": s.error, "metric": "s/step", "value": s.per_step,
        });
        println!("{line}");
    } else {
        println!(
            "cg on {}: {}x{} grid, {} steps, relative residual {:.2e}, error against x* {:.2e}, {:.1} us per step",
            s.backend,
            args.n,
            args.n,
            s.steps,
            s.residual,
            s.error,
            s.per_step * 1e6
        );
    }
    if s.residual < TOL && s.error > 1e-6 {
        eprintln!("cg: converged but the error against x* is {:.2e}", s.error);
        return ExitCode::FAILURE;
    }
    if s.residual >= TOL {
        eprintln!("cg: not converged in {} steps (raise --iters)", s.steps);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
