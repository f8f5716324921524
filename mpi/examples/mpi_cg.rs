//! Conjugate gradients on a distributed 2-D Poisson problem (five-point Laplacian, zero
//! Dirichlet boundaries, `n x n` unknowns), rows decomposed over the ranks, ghost rows of the
//! search direction exchanged before each matrix-vector product (`CartComm::halo_exchange`).
//!
//! Dot products are `parallel_reduce`s all-reduced over the ranks (`allreduce_value`, folded in
//! rank order: the same on every rank, but rounded differently for another rank count, so the
//! iteration count may differ by one), or with `--deterministic` one partial per global row
//! added by `deterministic_sum`, which makes every iterate, and so the iteration count and the
//! solution, bit for bit the same on any number of ranks.
//!
//! ```text
//! mpirun -n 4 target/debug/examples/mpi_cg [--backend NAME] [--n N] [--deterministic] [--json]
//! ```

use rokkos::prelude::*;
use rokkos::{run_on, selected_backend, SpaceVisitor};
use rokkos_mpi::{CartComm, Mpi};
use std::process::ExitCode;
use std::time::Instant;

#[kernel]
fn laplacian((i, j): (usize, usize), y: ViewMut<f64, 2>, x: View<f64, 2>) {
    y[(i, j)] = 4.0 * x[(i, j)] - x[(i - 1, j)] - x[(i + 1, j)] - x[(i, j - 1)] - x[(i, j + 1)];
}

#[kernel]
fn dot((i, j): (usize, usize), acc: &mut f64, a: View<f64, 2>, b: View<f64, 2>) {
    *acc += a[(i, j)] * b[(i, j)];
}

/// One partial per row: row `i` of the interior, added left to right.
#[kernel]
fn row_dot(i: usize, out: ViewMut<f64>, a: View<f64, 2>, b: View<f64, 2>, n: usize) {
    let mut s = 0.0;
    for j in 1..n + 1 {
        s += a[(i + 1, j)] * b[(i + 1, j)];
    }
    out[i] = s;
}

#[kernel]
fn axpy((i, j): (usize, usize), y: ViewMut<f64, 2>, x: View<f64, 2>, a: f64) {
    y[(i, j)] += a * x[(i, j)];
}

#[kernel]
fn xpby((i, j): (usize, usize), p: ViewMut<f64, 2>, r: View<f64, 2>, b: f64) {
    p[(i, j)] = r[(i, j)] + b * p[(i, j)];
}

struct Args {
    backend: String,
    n: usize,
    deterministic: bool,
    json: bool,
}

const USAGE: &str = "usage: cg [--backend NAME] [--n N] [--deterministic] [--json]";
/// Relative residual at which the solve stops.
const TOL: f64 = 1e-10;

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        n: 64,
        deterministic: false,
        json: false,
    };
    let mut backend = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match flag.as_str() {
            "--backend" => backend = Some(value("--backend")?),
            "--n" => a.n = value("--n")?.parse().map_err(|e| format!("--n: {e}"))?,
            "--deterministic" => a.deterministic = true,
            "--json" => a.json = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    a.backend = match backend {
        Some(b) => b,
        None => selected_backend().map_err(|e| e.to_string())?,
    };
    if a.n < 2 {
        return Err("--n must be at least 2".into());
    }
    Ok(a)
}

struct Solve {
    backend: String,
    iterations: usize,
    residual: f64,
    checksum: f64,
    iter_s: f64,
    halo_s: f64,
}

struct Cg<'a> {
    args: &'a Args,
    grid: &'a CartComm,
}

impl SpaceVisitor for Cg<'_> {
    type Output = rokkos::Result<Solve>;
    fn visit<E: ExecutionSpace>(self, space: E) -> rokkos::Result<Solve> {
        let (n, grid) = (self.args.n, self.grid);
        let p = grid.size();
        let me = grid.coords()[0];
        let (lo, hi) = (me * n / p, (me + 1) * n / p);
        let rows = hi - lo;
        let padded = [rows + 2, n + 2];
        let new =
            |label: &str| View::<f64, 2, LayoutRight, E::Memory>::new_on(&space, label, padded);
        let b_host = View::<f64, 2>::from_fn("b", padded, |[i, j]| {
            let inside = (1..=rows).contains(&i) && (1..=n).contains(&j);
            if inside {
                ((((lo + i) * 7 + j * 3) % 11) as f64) * 0.1 + 1.0
            } else {
                0.0
            }
        })?;
        let (x, r, pv, ap) = (new("x")?, new("r")?, new("p")?, new("ap")?);
        deep_copy(&r, &b_host)?;
        deep_copy(&pv, &b_host)?;
        let partial = View::<f64, 1, LayoutRight, E::Memory>::new_on(&space, "rows", [rows])?;
        let interior = || MDRangePolicy::new(&space, [1, 1], [rows + 1, n + 1]);
        let det = self.args.deterministic;
        let dot_of = |a: &View<f64, 2, LayoutRight, E::Memory>,
                      b: &View<f64, 2, LayoutRight, E::Memory>|
         -> rokkos::Result<f64> {
            if det {
                parallel_for(
                    "cg::row_dot",
                    RangePolicy::new(&space, 0..rows),
                    row_dot(&partial, a, b, n),
                )?;
                grid.deterministic_sum(&create_mirror_view_and_copy(&partial)?.to_vec())
            } else {
                let s: f64 = parallel_reduce("cg::dot", interior(), dot(a, b), Sum)?;
                grid.allreduce_value(s, &Sum)
            }
        };
        let bb = dot_of(&r, &r)?;
        let mut rr = bb;
        let mut iterations = 0;
        let mut halo_s = 0.0;
        let t0 = Instant::now();
        while (rr / bb).sqrt() >= TOL && iterations < 10 * n * n {
            let th = Instant::now();
            grid.halo_exchange(&pv, 1)?;
            halo_s += th.elapsed().as_secs_f64();
            parallel_for("cg::ap", interior(), laplacian(&ap, &pv))?;
            let alpha = rr / dot_of(&pv, &ap)?;
            parallel_for("cg::x", interior(), axpy(&x, &pv, alpha))?;
            parallel_for("cg::r", interior(), axpy(&r, &ap, -alpha))?;
            let rr_new = dot_of(&r, &r)?;
            parallel_for("cg::p", interior(), xpby(&pv, &r, rr_new / rr))?;
            rr = rr_new;
            iterations += 1;
        }
        space.fence()?;
        let secs = t0.elapsed().as_secs_f64();
        let xh = create_mirror_view_and_copy(&x)?;
        let row_sums: Vec<f64> = (1..=rows)
            .map(|i| (1..=n).map(|j| xh.get((i, j))).sum())
            .collect();
        let checksum = grid.deterministic_sum(&row_sums)?;
        let per = iterations.max(1) as f64;
        Ok(Solve {
            backend: space.name().to_string(),
            iterations,
            residual: (rr / bb).sqrt(),
            checksum,
            iter_s: secs / per,
            halo_s: halo_s / per,
        })
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cg: {e}");
            return ExitCode::from(2);
        }
    };
    let run = || -> rokkos::Result<()> {
        let mpi = Mpi::init()?;
        let world = mpi.world()?;
        if args.n < world.size() {
            return Err(Error::InvalidArgument(format!(
                "--n {} gives some of the {} ranks no rows",
                args.n,
                world.size()
            )));
        }
        let grid = world.cartesian(&[world.size(), 1], &[false, false])?;
        let s = run_on(
            &args.backend,
            Cg {
                args: &args,
                grid: &grid,
            },
        )??;
        let iter_s = grid.allreduce_value(s.iter_s, &Max)?;
        let halo_s = grid.allreduce_value(s.halo_s, &Max)?;
        if grid.rank() == 0 {
            if args.json {
                println!(
                    "{{\"bench\":\"mpi_cg\",\"backend\":\"{}\",\"ranks\":{},\"n\":{},\"deterministic\":{},\"iterations\":{},\"residual\":{:e},\"iter_s\":{iter_s:.6e},\"halo_s\":{halo_s:.6e},\"checksum\":{:?},\"checksum_bits\":\"{:#018x}\"}}",
                    s.backend,
                    grid.size(),
                    args.n,
                    args.deterministic,
                    s.iterations,
                    s.residual,
                    s.checksum,
                    s.checksum.to_bits()
                );
            } else {
                println!(
                    "cg on {} ranks ({}{}): {} x {} Poisson, {} iterations to residual {:.2e}, {:.3} ms/iteration ({:.0}% halo exchange), checksum {:?}",
                    grid.size(),
                    s.backend,
                    if args.deterministic { ", deterministic" } else { "" },
                    args.n,
                    args.n,
                    s.iterations,
                    s.residual,
                    iter_s * 1e3,
                    100.0 * halo_s / iter_s.max(f64::MIN_POSITIVE),
                    s.checksum
                );
            }
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cg: {e}");
            ExitCode::FAILURE
        }
    }
}
