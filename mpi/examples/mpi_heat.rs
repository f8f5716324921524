//! The 2-D heat equation on many ranks: an explicit five-point stencil on an `n x n` grid with
//! zero (Dirichlet) boundaries, decomposed by rows over the ranks (`MPI_Cart_create`), ghost
//! rows exchanged before each step with `CartComm::halo_exchange`. With `--overlap` the
//! exchange is split-phase (`CartComm::halo_exchange_start`): the rows that do not touch a ghost
//! row are updated while the ghost rows travel, the two rows next to them after `finish`.
//!
//! The result is bit for bit the one-process result for any rank count (each cell is updated by
//! the same operations in the same order), and so is its checksum: one sum per global row,
//! added with `deterministic_sum`, whose bits do not depend on how the rows are spread.
//!
//! ```text
//! mpirun -n 4 target/debug/examples/mpi_heat [--backend NAME] [--n N] [--steps S] [--overlap] [--json]
//! ```

use rokkos::prelude::*;
use rokkos::{run_on, selected_backend, SpaceVisitor};
use rokkos_mpi::{CartComm, Mpi};
use std::process::ExitCode;
use std::time::Instant;

#[kernel]
fn heat_step((i, j): (usize, usize), out: ViewMut<f64, 2>, u: View<f64, 2>, a: f64) {
    out[(i, j)] = u[(i, j)]
        + a * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]);
}

struct Args {
    backend: String,
    n: usize,
    steps: usize,
    overlap: bool,
    json: bool,
}

const USAGE: &str = "usage: heat [--backend NAME] [--n N] [--steps S] [--overlap] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        n: 256,
        steps: 100,
        overlap: false,
        json: false,
    };
    let mut backend = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match flag.as_str() {
            "--backend" => backend = Some(value("--backend")?),
            "--n" => a.n = value("--n")?.parse().map_err(|e| format!("--n: {e}"))?,
            "--steps" => {
                a.steps = value("--steps")?
                    .parse()
                    .map_err(|e| format!("--steps: {e}"))?
            }
            "--json" => a.json = true,
            "--overlap" => a.overlap = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    a.backend = match backend {
        Some(b) => b,
        None => selected_backend().map_err(|e| e.to_string())?,
    };
    Ok(a)
}

/// One run's figures on this rank.
struct Run {
    backend: String,
    step_s: f64,
    halo_s: f64,
    checksum: f64,
}

struct Heat<'a> {
    args: &'a Args,
    grid: &'a CartComm,
}

impl SpaceVisitor for Heat<'_> {
    type Output = rokkos::Result<Run>;
    fn visit<E: ExecutionSpace>(self, space: E) -> rokkos::Result<Run> {
        let (n, grid) = (self.args.n, self.grid);
        let p = grid.size();
        let me = grid.coords()[0];
        // Rows `lo..hi` of the global grid live here, with one ghost row above and below.
        let (lo, hi) = (me * n / p, (me + 1) * n / p);
        let rows = hi - lo;
        let padded = [rows + 2, n + 2];
        let init = View::<f64, 2>::from_fn("init", padded, |[i, j]| {
            let (gi, gj) = (lo + i, j);
            let inside = (1..=rows).contains(&i) && (1..=n).contains(&j);
            if inside {
                ((gi * 7 + gj * 3) % 11) as f64 * 0.1
            } else {
                0.0
            }
        })?;
        let mut u = View::<f64, 2, LayoutRight, E::Memory>::new_on(&space, "u", padded)?;
        let mut next = View::<f64, 2, LayoutRight, E::Memory>::new_on(&space, "next", padded)?;
        deep_copy(&u, &init)?;
        deep_copy(&next, &init)?;
        let mut halo_s = 0.0;
        let t0 = Instant::now();
        // The update of padded rows `a..b` (every interior column).
        let update = |a: usize,
                      b: usize,
                      next: &View<f64, 2, LayoutRight, E::Memory>,
                      u: &View<f64, 2, LayoutRight, E::Memory>| {
            if a >= b {
                return Ok(());
            }
            let pol = MDRangePolicy::new(&space, [a, 1], [b, n + 1]);
            parallel_for("heat", pol, heat_step(next, u, 0.2))
        };
        for _ in 0..self.args.steps {
            let th = Instant::now();
            if self.args.overlap {
                // Rows 2..rows read no ghost row: they run while the ghost rows travel (the
                // exchange's time is then only what the update does not hide).
                let x = grid.halo_exchange_start(&u, 1)?;
                update(2, rows, &next, &u)?;
                x.finish()?;
                halo_s += th.elapsed().as_secs_f64();
                update(1, 2, &next, &u)?;
                update(rows.max(2), rows + 1, &next, &u)?;
            } else {
                grid.halo_exchange(&u, 1)?;
                halo_s += th.elapsed().as_secs_f64();
                update(1, rows + 1, &next, &u)?;
            }
            std::mem::swap(&mut u, &mut next);
        }
        space.fence()?;
        let total = t0.elapsed().as_secs_f64();
        let h = create_mirror_view_and_copy(&u)?;
        let row_sums: Vec<f64> = (1..=rows)
            .map(|i| (1..=n).map(|j| h.get((i, j))).sum())
            .collect();
        let checksum = grid.deterministic_sum(&row_sums)?;
        let steps = self.args.steps.max(1) as f64;
        Ok(Run {
            backend: space.name().to_string(),
            step_s: total / steps,
            halo_s: halo_s / steps,
            checksum,
        })
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("heat: {e}");
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
        let r = run_on(
            &args.backend,
            Heat {
                args: &args,
                grid: &grid,
            },
        )??;
        // The slowest rank's figures.
        let step = grid.allreduce_value(r.step_s, &Max)?;
        let halo = grid.allreduce_value(r.halo_s, &Max)?;
        if grid.rank() == 0 {
            if args.json {
                println!(
                    "{{\"bench\":\"mpi_heat\",\"backend\":\"{}\",\"ranks\":{},\"n\":{},\"steps\":{},\"overlap\":{},\"step_s\":{step:.6e},\"halo_s\":{halo:.6e},\"halo_share\":{:.4},\"checksum\":{:?},\"checksum_bits\":\"{:#018x}\"}}",
                    r.backend,
                    grid.size(),
                    args.n,
                    args.steps,
                    args.overlap,
                    halo / step.max(f64::MIN_POSITIVE),
                    r.checksum,
                    r.checksum.to_bits()
                );
            } else {
                println!(
                    "heat on {} ranks ({}): {} x {} grid, {} steps, {:.3} ms/step ({:.0}% halo exchange), checksum {:?} ({:#018x})",
                    grid.size(),
                    r.backend,
                    args.n,
                    args.n,
                    args.steps,
                    step * 1e3,
                    100.0 * halo / step.max(f64::MIN_POSITIVE),
                    r.checksum,
                    r.checksum.to_bits()
                );
            }
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("heat: {e}");
            ExitCode::FAILURE
        }
    }
}
