//! The Kokkos tutorial's yAx (`result = yᵀ A x`) with a `TeamPolicy`: a team per row of `A`, the
//! row's dot product with `x` spread over the team's threads and vector lanes
//! (`team_vector_reduce` over the columns), the row's term added once per team.
//!
//! ```text
//! cargo run --release --example yax -- [--backend serial|rayon|wgpu|cuda] [--rows 16384]
//!     [--cols 16384] [--vector 32] [--reps 20] [--json]
//! ```
//!
//! `A`, `x` and `y` hold small integers (see [`a_elem`]), so every partial sum is an integer below
//! 2^53 and the result is exact in f64 whatever the order of the additions: it is checked for
//! equality against a plain host loop over the same formulas (run once, after the timing), and
//! the program exits non-zero when it differs. Each repetition is one blocking `parallel_reduce`
//! to a host scalar (the tutorial's form); the figure is the best and median time, and the
//! bandwidth counts `A`, `x` and `y` read once (`8 (rows·cols + rows + cols)` bytes).
//! `scripts/yax.cu` is the same computation as hand-written CUDA C, for `run.sh speed`.

use rokkos::prelude::*;
use rokkos::{run_on, selected_backend, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

/// `A[j][i]`: a pattern with no structure a wrong index could reproduce by accident (7 and 5 are
/// coprime to the power-of-two extents). `scripts/yax.cu` uses the same formulas.
fn a_elem(j: usize, i: usize) -> f64 {
    ((i + 3 * j) % 7) as f64
}
/// `x[i]`.
fn x_elem(i: usize) -> f64 {
    (i % 5) as f64
}
/// `y[j]`.
fn y_elem(j: usize) -> f64 {
    (j % 3) as f64
}

#[kernel]
fn init_a((j, i): (usize, usize), a: ViewMut<f64, 2>) {
    a[(j, i)] = ((i + 3 * j) % 7) as f64;
}

#[kernel]
fn init_x(i: usize, x: ViewMut<f64>) {
    x[i] = (i % 5) as f64;
}

#[kernel]
fn init_y(j: usize, y: ViewMut<f64>) {
    y[j] = (j % 3) as f64;
}

/// One team per row `j`: `y[j] · Σ_i A[j][i] x[i]`, summed over the league.
#[kernel]
fn yax(team: &TeamMember, acc: &mut f64, a: View<f64, 2>, x: View<f64>, y: View<f64>) {
    let j = team.league_rank();
    let row = team.team_vector_reduce(a.extent(1), Sum, |i, t: &mut f64| {
        *t += a[(j, i)] * x[i];
    });
    team.single_team(|| {
        *acc += y[j] * row;
    });
}

pub(crate) struct Args {
    pub(crate) backend: String,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) vector: usize,
    pub(crate) reps: usize,
    pub(crate) json: bool,
}

const USAGE: &str = "usage: yax [--backend serial|rayon|wgpu|cuda] [--rows N] [--cols M] [--vector V] [--reps R] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        rows: 1 << 14,
        cols: 1 << 14,
        vector: 32,
        reps: 20,
        json: false,
    };
    // The default backend is looked up only when `--backend` is absent: a broken
    // ROKKOS_BACKEND must not refuse an explicit `--backend` or `--help`.
    let mut backend = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let number = |name: &str, v: String| v.parse().map_err(|e| format!("{name}: {e}"));
        match flag.as_str() {
            "--backend" => backend = Some(value("--backend")?),
            "--rows" => a.rows = number("--rows", value("--rows")?)?,
            "--cols" => a.cols = number("--cols", value("--cols")?)?,
            "--vector" => a.vector = number("--vector", value("--vector")?)?,
            "--reps" => a.reps = number("--reps", value("--reps")?)?,
            "--json" => a.json = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    a.backend = match backend {
        Some(b) => b,
        None => selected_backend().map_err(|e| e.to_string())?,
    };
    if a.rows == 0 || a.cols == 0 || a.reps == 0 || a.vector == 0 {
        return Err("--rows, --cols, --vector and --reps must be positive".into());
    }
    // Keeps every partial sum an exact integer in f64 (the check compares for equality).
    if (a.rows as f64) * (a.cols as f64) * 48.0 >= 2f64.powi(53) {
        return Err("--rows x --cols too large for an exact check".into());
    }
    Ok(a)
}

/// `yᵀ A x` by a plain host loop over the element formulas: the independent expectation.
pub(crate) fn expected(rows: usize, cols: usize) -> f64 {
    let x: Vec<f64> = (0..cols).map(x_elem).collect();
    (0..rows)
        .map(|j| y_elem(j) * (0..cols).map(|i| a_elem(j, i) * x[i]).sum::<f64>())
        .sum()
}

/// Timings (seconds per yAx) and the last result, with the backend's name.
pub(crate) struct Run {
    pub(crate) secs: Vec<f64>,
    pub(crate) result: f64,
    pub(crate) backend: String,
}

pub(crate) struct Yax<'a>(pub(crate) &'a Args);

impl SpaceVisitor for Yax<'_> {
    type Output = rokkos::Result<Run>;
    fn visit<E: ExecutionSpace>(self, space: E) -> rokkos::Result<Run> {
        let Args {
            rows, cols, vector, ..
        } = *self.0;
        let mem = space.memory_space();
        let a = View::<f64, 2, LayoutRight, E::Memory>::new_uninit_in(&mem, "A", [rows, cols])?;
        let x = View::<f64, 1, LayoutRight, E::Memory>::new_uninit_in(&mem, "x", [cols])?;
        let y = View::<f64, 1, LayoutRight, E::Memory>::new_uninit_in(&mem, "y", [rows])?;
        parallel_for(
            "yax::init_a",
            MDRangePolicy::new(&space, [0, 0], [rows, cols]),
            init_a(&a),
        )?;
        parallel_for("yax::init_x", RangePolicy::new(&space, 0..cols), init_x(&x))?;
        parallel_for("yax::init_y", RangePolicy::new(&space, 0..rows), init_y(&y))?;
        space.fence()?;
        let policy = || TeamPolicy::new(&space, rows, TeamSize::Auto).vector_length(vector);
        let mut secs = Vec::with_capacity(self.0.reps);
        let mut result = 0.0;
        for _ in 0..self.0.reps {
            let t0 = Instant::now();
            result = parallel_reduce("yax", policy(), yax(&a, &x, &y), Sum)?;
            secs.push(t0.elapsed().as_secs_f64());
        }
        Ok(Run {
            secs,
            result,
            backend: space.name().to_string(),
        })
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("yax: {e}");
            return ExitCode::from(2);
        }
    };
    let run = match run_on(&args.backend, Yax(&args)).and_then(|r| r) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("yax: {e}");
            return ExitCode::FAILURE;
        }
    };
    let want = expected(args.rows, args.cols);
    let mut s = run.secs.clone();
    // The first repetition compiles the kernel on a device backend: kept out of the figures
    // when there are others.
    if s.len() > 1 {
        s.remove(0);
    }
    s.sort_by(f64::total_cmp);
    let (best, median) = (s[0], s[s.len() / 2]);
    let bytes = 8.0 * (args.rows * args.cols + args.rows + args.cols) as f64;
    if args.json {
        let line = serde_json::json!({
            "bench": "yax", "backend": run.backend, "rows": args.rows, "cols": args.cols,
            "vector": args.vector, "reps": args.reps, "best_s": best, "median_s": median,
            "metric": "GB/s", "value": bytes / best / 1e9, "result": run.result,
            "expected": want, "correct": run.result == want,
        });
        println!("{line}");
    } else {
        println!(
            "yAx on {}: {} x {} f64, vector length {}: best {:.3} ms, median {:.3} ms, {:.1} GB/s; result {} (expected {})",
            run.backend,
            args.rows,
            args.cols,
            args.vector,
            best * 1e3,
            median * 1e3,
            bytes / best / 1e9,
            run.result,
            want
        );
    }
    if run.result != want {
        eprintln!(
            "yax: result {} differs from the host loop's {want}",
            run.result
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
