//! Launch latency of small kernels, launched back to back: an empty kernel, `parallel_for`
//! (`x[i] += 1`), `parallel_reduce` (sum of `x`) and `parallel_scan` (exclusive prefix sum of `x`
//! into `y`), at n = 1000 and n = 100000, as `../shared/reference/launch_omp.c` measures OpenMP.
//!
//! ```text
//! cargo run --release --example launch -- [--backend NAME] [--n N]... [--reps R] [--rounds K]
//!                                         [--no-plain] [--json]
//! ```
//! Each round times `reps` launches in a row (with a fence after the last one); the figure is the
//! best round's time per launch, over `rounds` rounds (the reference's method). The results are
//! checked at the end: `x` grew by exactly one per `for` launch, every reduce returned the sum of
//! `x` at that time, the scan wrote exact prefix sums. With `--plain` (on by default on the rayon
//! backend) the `for` and `reduce` are also timed as rayon parallel iterators over a `Vec` from
//! this thread (rayon's own launch cost from outside its pool).

use rayon::prelude::*;
use rokkos::prelude::*;
use rokkos::{run_on, selected_backend, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

#[kernel]
fn empty(i: usize, x: View<f64>) {
    let _unused = x.extent(0) + i;
}

#[kernel]
fn increment(i: usize, x: ViewMut<f64>) {
    x[i] += 1.0;
}

#[kernel]
fn sum(i: usize, acc: &mut f64, x: View<f64>) {
    *acc += x[i];
}

#[kernel(scan)]
fn prefix(i: usize, partial: &mut f64, is_final: bool, x: View<f64>, y: ViewMut<f64>) {
    if is_final {
        y[i] = *partial;
    }
    *partial += x[i];
}

pub(crate) struct Args {
    pub(crate) backend: String,
    pub(crate) sizes: Vec<usize>,
    pub(crate) reps: usize,
    pub(crate) rounds: usize,
    pub(crate) plain: bool,
    pub(crate) json: bool,
}

const USAGE: &str = "usage: launch [--backend serial|rayon|wgpu|cuda] [--n N (repeatable; default 1000 and 100000)] [--reps R] [--rounds K] [--no-plain] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        sizes: Vec::new(),
        reps: 20000,
        rounds: 5,
        plain: true,
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
            "--n" => a.sizes.push(number("--n", value("--n")?)?),
            "--reps" => a.reps = number("--reps", value("--reps")?)?,
            "--rounds" => a.rounds = number("--rounds", value("--rounds")?)?,
            "--no-plain" => a.plain = false,
            "--json" => a.json = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    a.backend = match backend {
        Some(b) => b,
        None => selected_backend().map_err(|e| e.to_string())?,
    };
    if a.sizes.is_empty() {
        a.sizes = vec![1000, 100000];
    }
    if a.reps == 0 || a.rounds == 0 || a.sizes.contains(&0) {
        return Err("--n, --reps and --rounds must be positive".into());
    }
    Ok(a)
}

/// Best time per launch of one kernel at one size.
pub(crate) struct Figure {
    kernel: &'static str,
    backend: String,
    n: usize,
    best_s: f64,
    median_s: f64,
}

/// Times `rounds` rounds of `reps` calls of `launch` followed by one fence; per-launch seconds.
fn time_rounds(
    args: &Args,
    fence: &dyn Fn() -> rokkos::Result<()>,
    launch: &mut dyn FnMut() -> rokkos::Result<()>,
) -> rokkos::Result<(f64, f64)> {
    let mut per = Vec::with_capacity(args.rounds);
    for _ in 0..args.rounds {
        let t0 = Instant::now();
        for _ in 0..args.reps {
            launch()?;
        }
        fence()?;
        per.push(t0.elapsed().as_secs_f64() / args.reps as f64);
    }
    per.sort_by(|a, b| a.total_cmp(b));
    Ok((per[0], per[per.len() / 2]))
}

pub(crate) struct Visit<'a>(pub(crate) &'a Args);

impl SpaceVisitor for Visit<'_> {
    type Output = rokkos::Result<(Vec<Figure>, Result<(), String>, usize)>;
    fn visit<E: ExecutionSpace>(self, space: E) -> Self::Output {
        let args = self.0;
        let backend = space.name().to_string();
        let mem = space.memory_space();
        let mut out = Vec::new();
        let mut problems = Vec::new();
        let fence = || space.fence();
        for &n in &args.sizes {
            let x = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "x", [n])?;
            let y = View::<f64, 1, LayoutRight, E::Memory>::new_in(&mem, "y", [n])?;
            let all = || RangePolicy::new(&space, 0..n);
            let mut push = |kernel, (best_s, median_s)| {
                out.push(Figure {
                    kernel,
                    backend: backend.clone(),
                    n,
                    best_s,
                    median_s,
                })
            };
            push(
                "empty",
                time_rounds(args, &fence, &mut || {
                    parallel_for("launch::empty", all(), empty(&x))
                })?,
            );
            push(
                "for",
                time_rounds(args, &fence, &mut || {
                    parallel_for("launch::for", all(), increment(&x))
                })?,
            );
            // Every element of `x` now holds the number of `for` launches: an exact sum.
            let launches = (args.reps * args.rounds) as f64;
            let mut wrong_sum = None;
            push(
                "reduce",
                time_rounds(args, &fence, &mut || {
                    let s: f64 = parallel_reduce("launch::reduce", all(), sum(&x), Sum)?;
                    if s != launches * n as f64 {
                        wrong_sum = Some(s);
                    }
                    Ok(())
                })?,
            );
            let mut wrong_total = None;
            push(
                "scan",
                time_rounds(args, &fence, &mut || {
                    let t: f64 = parallel_scan("launch::scan", all(), prefix(&x, &y))?;
                    if t != launches * n as f64 {
                        wrong_total = Some(t);
                    }
                    Ok(())
                })?,
            );
            let hx = create_mirror_view_and_copy(&x)?.to_vec();
            let hy = create_mirror_view_and_copy(&y)?.to_vec();
            if let Some(i) = hx.iter().position(|&v| v != launches) {
                problems.push(format!(
                    "n={n}: x[{i}] = {} after {launches} increments",
                    hx[i]
                ));
            }
            if let Some(i) = (0..n).find(|&i| hy[i] != launches * i as f64) {
                problems.push(format!("n={n}: scan y[{i}] = {}", hy[i]));
            }
            if let Some(s) = wrong_sum {
                problems.push(format!("n={n}: a reduce returned {s}"));
            }
            if let Some(t) = wrong_total {
                problems.push(format!("n={n}: a scan returned the total {t}"));
            }
            let host = std::any::TypeId::of::<E::Memory>() == std::any::TypeId::of::<HostSpace>();
            if args.plain && host && backend == "rayon" {
                let mut v = vec![0.0f64; n];
                let mut plain = |kernel, t| {
                    out.push(Figure {
                        kernel,
                        backend: "plain-rayon".into(),
                        n,
                        best_s: 0.0,
                        median_s: 0.0,
                    });
                    let f = out.last_mut().expect("just pushed");
                    (f.best_s, f.median_s) = t;
                };
                plain(
                    "for",
                    time_rounds(args, &fence, &mut || {
                        v.par_iter_mut().for_each(|e| *e += 1.0);
                        Ok(())
                    })?,
                );
                let mut sink = 0.0;
                plain(
                    "reduce",
                    time_rounds(args, &fence, &mut || {
                        sink += v.par_iter().sum::<f64>();
                        Ok(())
                    })?,
                );
                std::hint::black_box(sink);
            }
        }
        let check = if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        };
        Ok((out, check, space.concurrency()))
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (figures, check, threads) = match run_on(&args.backend, Visit(&args)).and_then(|r| r) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("launch: {e}");
            return ExitCode::FAILURE;
        }
    };
    for f in &figures {
        if args.json {
            let line = serde_json::json!({
                "bench": "launch", "kernel": f.kernel, "backend": f.backend, "dtype": "f64", "n": f.n,
                "reps": args.reps, "rounds": args.rounds, "threads": threads,
                "best_s": f.best_s, "median_s": f.median_s, "metric": "us", "value": f.best_s * 1e6,
            });
            println!("{line}");
        } else {
            println!(
                "{:<7} {:<12} n={:<7} {:>9.2} us per launch (best round; median {:.2})",
                f.kernel,
                f.backend,
                f.n,
                f.best_s * 1e6,
                f.median_s * 1e6
            );
        }
    }
    match check {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("launch: wrong results: {e}");
            ExitCode::FAILURE
        }
    }
}
