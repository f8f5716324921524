//! BabelStream on rokkos: copy, mul, add, triad, nstream and dot, timed per kernel.
//!
//! ```text
//! cargo run --release --example babelstream -- [--backend NAME] [--n N] [--dtype f32|f64] [--reps R] [--json]
//! ```
//! Start values, the kernel sequence and the validation follow BabelStream (University of Bristol):
//! a = 0.1, b = 0.2, c = 0.0, scalar = 0.4; each repetition runs copy, mul, add, triad, nstream, dot,
//! and the final arrays and dot product are checked against the same sequence run on scalars.
//! Bandwidth counts bytes read plus written: copy and mul 2 words per element, add and triad 3,
//! nstream 4, dot 2. With `--json` every kernel prints one JSON object per line.

#[macro_use]
#[path = "../common/say.rs"]
mod say;

mod kernels;

use kernels::*;
use rokkos::prelude::*;
use rokkos::{run_on, selected_backend, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    backend: String,
    n: usize,
    dtype: String,
    reps: usize,
    json: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        n: 1 << 25,
        dtype: "f64".into(),
        reps: 100,
        json: false,
    };
    // The default backend is looked up only when `--backend` is absent: a broken
    // ROKKOS_BACKEND must not refuse an explicit `--backend` or `--help`.
    let mut backend = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            "--backend" => backend = Some(value("--backend")?),
            "--n" => a.n = value("--n")?.parse().map_err(|e| format!("--n: {e}"))?,
            "--dtype" => a.dtype = value("--dtype")?,
            "--reps" => a.reps = value("--reps")?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--json" => a.json = true,
            "--help" | "-h" => {
                return Err("usage: babelstream [--backend serial|rayon|wgpu|cuda] [--n N] [--dtype f32|f64] [--reps R] [--json]".into())
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    a.backend = match backend {
        Some(b) => b,
        None => selected_backend().map_err(|e| e.to_string())?,
    };
    if a.n == 0 || a.reps == 0 {
        return Err("--n and --reps must be positive".into());
    }
    if a.dtype != "f32" && a.dtype != "f64" {
        return Err(format!("--dtype must be f32 or f64, not `{}`", a.dtype));
    }
    Ok(a)
}

/// Per-kernel timings of one run.
struct Timings {
    names: [&'static str; 6],
    words: [usize; 6],
    secs: [Vec<f64>; 6],
    /// Seconds per triad when `BATCH` triads run between two fences (one sample per batch).
    triad_batched: Vec<f64>,
    /// Seconds per dot when `BATCH` dots run between two fences, each stored into an element of a
    /// View of the space (`parallel_reduce_into`: no host round trip per dot on a device).
    dot_batched: Vec<f64>,
    /// Seconds per empty-kernel launch followed by a fence (one sample per launch).
    empty_sync: Vec<f64>,
    /// Seconds per empty-kernel launch when `BATCH_EMPTY` launches run between two fences.
    empty_async: Vec<f64>,
}

/// Triads per batch between two fences (the issue's "20 triads between two fences").
const BATCH: usize = 20;
/// Empty launches per batch between two fences.
const BATCH_EMPTY: usize = 200;

struct Stream<'a> {
    args: &'a Args,
}

impl<'a> Stream<'a> {
    fn run<T: Float, E: ExecutionSpace>(
        &self,
        space: E,
    ) -> rokkos::Result<(Timings, Result<(), String>)> {
        let n = self.args.n;
        let mem = space.memory_space();
        let a = View::<T, 1, LayoutRight, E::Memory>::new_uninit_in(&mem, "a", [n])?;
        let b = View::<T, 1, LayoutRight, E::Memory>::new_uninit_in(&mem, "b", [n])?;
        let c = View::<T, 1, LayoutRight, E::Memory>::new_uninit_in(&mem, "c", [n])?;
        let all = || RangePolicy::new(&space, 0..n);
        let (va, vb, vc, s) = (
            T::from_f64(START_A),
            T::from_f64(START_B),
            T::from_f64(START_C),
            T::from_f64(SCALAR),
        );
        parallel_for("babelstream::init", all(), init(&a, &b, &c, va, vb, vc))?;
        space.fence()?;

        let mut t = Timings {
            names: ["copy", "mul", "add", "triad", "nstream", "dot"],
            words: [2, 2, 3, 3, 4, 2],
            secs: Default::default(),
            triad_batched: Vec::new(),
            dot_batched: Vec::new(),
            empty_sync: Vec::new(),
            empty_async: Vec::new(),
        };
        let mut sum = T::ZERO;
        for _ in 0..self.args.reps {
            let mut timed =
                |k: usize, f: &mut dyn FnMut() -> rokkos::Result<()>| -> rokkos::Result<()> {
                    let t0 = Instant::now();
                    f()?;
                    space.fence()?;
                    t.secs[k].push(t0.elapsed().as_secs_f64());
                    Ok(())
                };
            timed(0, &mut || {
                parallel_for("babelstream::copy", all(), copy(&c, &a))
            })?;
            timed(1, &mut || {
                parallel_for("babelstream::mul", all(), mul(&b, &c, s))
            })?;
            timed(2, &mut || {
                parallel_for("babelstream::add", all(), add(&c, &a, &b))
            })?;
            timed(3, &mut || {
                parallel_for("babelstream::triad", all(), triad(&a, &b, &c, s))
            })?;
            timed(4, &mut || {
                parallel_for("babelstream::nstream", all(), nstream(&a, &b, &c, s))
            })?;
            timed(5, &mut || {
                sum = parallel_reduce("babelstream::dot", all(), dot(&a, &b), Sum)?;
                Ok(())
            })?;
        }
        let check = self.validate(&a, &b, &c, sum)?;
        let dots = self.launch_costs(&space, &mut t, &b, &c, s)?;
        Ok((t, check.and(dots)))
    }

    /// Launch costs: triads and dots (into a View) in batches of `BATCH` between two fences
    /// (launches stay asynchronous until the fence), and an empty kernel with a fence after each
    /// launch and in batches. The batched triads write a fresh View, so the validated arrays are
    /// untouched. Returns whether every batched dot equals a blocking `parallel_reduce` of the same
    /// dot (up to the order of the joins).
    fn launch_costs<T: Float, E: ExecutionSpace>(
        &self,
        space: &E,
        t: &mut Timings,
        b: &View<T, 1, LayoutRight, E::Memory>,
        c: &View<T, 1, LayoutRight, E::Memory>,
        s: T,
    ) -> rokkos::Result<Result<(), String>> {
        let n = self.args.n;
        let mem = space.memory_space();
        let a2 = View::<T, 1, LayoutRight, E::Memory>::new_uninit_in(&mem, "a2", [n])?;
        let rounds = (self.args.reps / 5).max(3);
        for _ in 0..rounds {
            let t0 = Instant::now();
            for _ in 0..BATCH {
                parallel_for(
                    "babelstream::triad",
                    RangePolicy::new(space, 0..n),
                    triad(&a2, b, c, s),
                )?;
            }
            space.fence()?;
            t.triad_batched
                .push(t0.elapsed().as_secs_f64() / BATCH as f64);
        }
        let dots = View::<T, 1, LayoutRight, E::Memory>::new_in(&mem, "dots", [BATCH])?;
        let slots = (0..BATCH)
            .map(|k| dots.subview::<0>([k]))
            .collect::<rokkos::Result<Vec<_>>>()?;
        for _ in 0..rounds {
            let t0 = Instant::now();
            for slot in &slots {
                parallel_reduce_into(
                    "babelstream::dot",
                    RangePolicy::new(space, 0..n),
                    dot(b, c),
                    Sum,
                    slot,
                )?;
            }
            space.fence()?;
            t.dot_batched
                .push(t0.elapsed().as_secs_f64() / BATCH as f64);
        }
        let want = parallel_reduce(
            "babelstream::dot",
            RangePolicy::new(space, 0..n),
            dot(b, c),
            Sum,
        )?
        .to_f64();
        let got = create_mirror_view_and_copy(&dots)?;
        // Both are sums of the same positive terms, grouped differently when the two launches
        // size their grids differently (the 32-bit index variant does). The worst-case bound
        // (2·n·ε) says nothing at these sizes; rounding errors of such sums grow like √n·ε, and
        // a lost or doubled partial would move the sum far more than that.
        let tol = if std::mem::size_of::<T>() == 4 {
            4.0 * (n as f64).sqrt() * f32::EPSILON as f64
        } else {
            1e-12
        };
        let dots_ok = match got
            .to_vec()
            .iter()
            .map(|v| v.to_f64())
            .find(|v| (v - want).abs() > tol * want.abs().max(1.0))
        {
            Some(v) => Err(format!(
                "a dot into a View gave {v}, parallel_reduce {want}"
            )),
            None => Ok(()),
        };
        let one = View::<T, 1, LayoutRight, E::Memory>::new_in(&mem, "one", [1])?;
        let launch = || {
            parallel_for(
                "babelstream::empty",
                RangePolicy::new(space, 0..1),
                empty(&one),
            )
        };
        for _ in 0..(self.args.reps * 10).max(100) {
            let t0 = Instant::now();
            launch()?;
            space.fence()?;
            t.empty_sync.push(t0.elapsed().as_secs_f64());
        }
        for _ in 0..rounds {
            let t0 = Instant::now();
            for _ in 0..BATCH_EMPTY {
                launch()?;
            }
            space.fence()?;
            t.empty_async
                .push(t0.elapsed().as_secs_f64() / BATCH_EMPTY as f64);
        }
        Ok(dots_ok)
    }

    /// BabelStream's check: the same kernel sequence on scalars, mean absolute error per array.
    fn validate<T: Float, M: rokkos::MemorySpace>(
        &self,
        a: &View<T, 1, LayoutRight, M>,
        b: &View<T, 1, LayoutRight, M>,
        c: &View<T, 1, LayoutRight, M>,
        sum: T,
    ) -> rokkos::Result<Result<(), String>> {
        let (mut ga, mut gb, mut gc) = (
            T::from_f64(START_A),
            T::from_f64(START_B),
            T::from_f64(START_C),
        );
        let s = T::from_f64(SCALAR);
        for _ in 0..self.args.reps {
            gc = ga;
            gb = s * gc;
            gc = ga + gb;
            ga = gb + s * gc;
            ga += gb + s * gc;
        }
        let n = self.args.n;
        let gold_sum = ga.to_f64() * gb.to_f64() * n as f64;
        let eps = if std::mem::size_of::<T>() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        } * 100.0;
        let mut problems = Vec::new();
        for (name, view, gold) in [("a", a, ga), ("b", b, gb), ("c", c, gc)] {
            let host = rokkos::create_mirror_view_and_copy(view)?;
            let err: f64 = host
                .to_vec()
                .iter()
                .map(|x| (x.to_f64() - gold.to_f64()).abs())
                .sum::<f64>()
                / n as f64;
            if err / gold.to_f64().abs() > eps {
                problems.push(format!(
                    "{name}: mean error {err:e} against {}",
                    gold.to_f64()
                ));
            }
        }
        // BabelStream's 1e-8, widened to n·ε, the worst-case bound of recursive summation, which a
        // sequential f32 sum over many elements can reach.
        let elem_eps = if std::mem::size_of::<T>() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let dot_tol = (n as f64 * elem_eps).max(1e-8);
        let rel = ((sum.to_f64() - gold_sum) / gold_sum).abs();
        // nstream grows `a` by about 1.92x per repetition: after ~100 of them the dot product no
        // longer fits an f32, and the only right answer there is infinity.
        let overflows = !T::from_f64(gold_sum).to_f64().is_finite();
        if overflows {
            if sum.to_f64() != T::from_f64(gold_sum).to_f64() {
                problems.push(format!(
                    "dot: {} where the exact value {gold_sum:e} overflows the element type",
                    sum.to_f64()
                ));
            }
        } else if rel > dot_tol {
            problems.push(format!(
                "dot: {} against {gold_sum} (relative error {rel:e})",
                sum.to_f64()
            ));
        }
        Ok(if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        })
    }
}

struct Visit<'a>(&'a Args);

impl SpaceVisitor for Visit<'_> {
    type Output = rokkos::Result<(Timings, Result<(), String>, String)>;
    fn visit<E: ExecutionSpace>(self, space: E) -> Self::Output {
        let name = space.name().to_string();
        let s = Stream { args: self.0 };
        let (t, ok) = if self.0.dtype == "f32" {
            s.run::<f32, E>(space)?
        } else {
            s.run::<f64, E>(space)?
        };
        Ok((t, ok, name))
    }
}

fn stats(v: &[f64]) -> (f64, f64, f64, f64) {
    // BabelStream skips the first repetition (warm-up) when there is more than one.
    let v = if v.len() > 1 { &v[1..] } else { v };
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    (s[0], s[s.len() / 2], s[s.len() - 1], mean)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (t, check, backend) = match run_on(&args.backend, Visit(&args)).and_then(|r| r) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("babelstream: {e}");
            return ExitCode::FAILURE;
        }
    };
    let elem = if args.dtype == "f32" { 4 } else { 8 };
    if !args.json {
        say!(
            "rokkos BabelStream: backend {backend}, {} elements of {}, {} repetitions",
            args.n,
            args.dtype,
            args.reps
        );
        say!(
            "{:<10}{:>14}{:>12}{:>12}{:>12}{:>12}",
            "Function",
            "GB/s (best)",
            "Min (s)",
            "Median (s)",
            "Max (s)",
            "Mean (s)"
        );
    }
    for k in 0..6 {
        let (best, median, max, mean) = stats(&t.secs[k]);
        let bytes = (t.words[k] * elem * args.n) as f64;
        let gbs = bytes / best / 1e9;
        if args.json {
            let line = serde_json::json!({
                "bench": "babelstream", "kernel": t.names[k], "backend": backend, "dtype": args.dtype,
                "n": args.n, "reps": args.reps, "best_s": best, "median_s": median, "metric": "GB/s", "value": gbs,
            });
            say!("{line}");
        } else {
            say!(
                "{:<10}{:>14.1}{:>12.6}{:>12.6}{:>12.6}{:>12.6}",
                t.names[k],
                gbs,
                best,
                median,
                max,
                mean
            );
        }
    }
    // Launch costs: triad in batches between fences, empty kernel with and without a fence.
    let elem_bytes = (3 * elem * args.n) as f64;
    let (tb, tb_median, _, _) = stats(&t.triad_batched);
    let (db, db_median, _, _) = stats(&t.dot_batched);
    let dot_bytes = (2 * elem * args.n) as f64;
    let (es, es_median, _, _) = stats(&t.empty_sync);
    let (ea, ea_median, _, _) = stats(&t.empty_async);
    if args.json {
        for (kernel, best, median, metric, value) in [
            (
                "triad_batched",
                tb,
                tb_median,
                "GB/s",
                elem_bytes / tb / 1e9,
            ),
            ("dot_batched", db, db_median, "GB/s", dot_bytes / db / 1e9),
            ("empty_sync", es, es_median, "us", es * 1e6),
            ("empty_async", ea, ea_median, "us", ea * 1e6),
        ] {
            let line = serde_json::json!({
                "bench": "babelstream", "kernel": kernel, "backend": backend, "dtype": args.dtype,
                "n": args.n, "reps": args.reps, "batch": if kernel == "empty_async" { BATCH_EMPTY } else if kernel == "triad_batched" || kernel == "dot_batched" { BATCH } else { 1 },
                "best_s": best, "median_s": median, "metric": metric, "value": value,
            });
            say!("{line}");
        }
    } else {
        say!(
            "triad, {BATCH} per fence: {:.1} GB/s (best), {:.6} s per triad",
            elem_bytes / tb / 1e9,
            tb
        );
        say!(
            "dot into a View, {BATCH} per fence: {:.1} GB/s (best), {:.6} s per dot",
            dot_bytes / db / 1e9,
            db
        );
        say!(
            "empty kernel: {:.2} us launch + fence (median {:.2}), {:.2} us per launch in batches of {BATCH_EMPTY} (median {:.2})",
            es * 1e6,
            es_median * 1e6,
            ea * 1e6,
            ea_median * 1e6
        );
    }
    match check {
        Ok(()) => {
            if !args.json {
                say!("Validation passed");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Validation failed: {e}");
            ExitCode::FAILURE
        }
    }
}
