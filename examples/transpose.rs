//! A matrix transpose on rokkos, two ways, next to the same transpose as a plain blocked Rust
//! loop.
//!
//! ```text
//! cargo run --release --example transpose -- [--backend NAME] [--n N (a multiple of 32, default 4096)]
//!                                            [--reps R] [--json]
//! ```
//! `at[(j, i)] = a[(i, j)]` for an `n × n` matrix of `f64`:
//! - `mdrange`: an MDRange over `(i, j)` cut into 32 × 32 tiles, the transposed store accepted
//!   as the work item's own by the ownership rule (the work index in any position), `j` fastest
//!   (`Iterate::Right`): the reads are contiguous, the stores stride by a row;
//! - `mdrange-left`: the same with `i` fastest (`Iterate::Left`): contiguous stores, strided
//!   reads, as the plain loop does. With `n` a power of two every strided access of a tile maps
//!   to the same few cache sets, and a strided store costs more than a strided load;
//! - `team`: a team per 32 × 32 tile that loads the tile into team scratch, waits at a barrier
//!   and stores it transposed (the GPU pattern: both global accesses contiguous). The store
//!   `at[(tj * 32 + r, ti * 32 + c)]` needs no `unsafe`: the ownership rule reads `32 * tj + r`
//!   (`r` the thread's row, below 32) and `32 * ti + c` (`c` from `0..32`) as radix components
//!   that hold the league rank's quotient and remainder and the thread's `r`;
//! - `plain` / `plain-rayon` (host backends): the transpose as a loop over 32 × 32 blocks of a
//!   `Vec`, on one thread for `serial`, split over blocks of 32 output rows with rayon's
//!   `par_chunks_mut` (the global pool, as many threads as the space) otherwise.
//!
//! Each rep is timed on its own (launch and fence); bandwidth counts one read and one write of
//! the matrix. Every result is checked against the plain loop's, element for element. With
//! `--json` each variant prints one line whose `value` is GB/s; `scripts/bench_host.sh` prints
//! the ratio of each rokkos variant to the plain loop (issue 30's bar: 0.8).

#[macro_use]
#[path = "common/say.rs"]
mod say;
#[path = "common/args.rs"]
mod args;

use rayon::prelude::*;
use rokkos::prelude::*;
use rokkos::{run_on, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

/// Tile edge of every variant (32 `f64` are four cache lines).
const T: usize = 32;

#[kernel]
fn transpose_md((i, j): (usize, usize), at: ViewMut<f64, 2>, a: View<f64, 2>) {
    at[(j, i)] = a[(i, j)];
}

#[kernel]
fn transpose_team(team: &TeamMember, a: View<f64, 2>, at: ViewMut<f64, 2>) {
    let tiles = a.extent(1) / 32;
    let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
    let s = team.team_scratch::<f64, 2>(0, [32, 32]);
    for r in team.thread_range(32) {
        for c in 0..32 {
            s[(r, c)] = a[(ti * 32 + r, tj * 32 + c)];
        }
    }
    team.team_barrier();
    for r in team.thread_range(32) {
        for c in 0..32 {
            at[(tj * 32 + r, ti * 32 + c)] = s[(c, r)];
        }
    }
}

struct Args {
    backend: String,
    n: usize,
    reps: usize,
    json: bool,
}

const USAGE: &str = "usage: transpose [--backend serial|rayon|wgpu|cuda] [--n N (a multiple of 32, default 4096)] [--reps R (default 10)] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        n: 4096,
        reps: 10,
        json: false,
    };
    let mut backend = None;
    let mut f = args::Flags::new(USAGE);
    while let Some(flag) = f.next_flag()? {
        match flag.as_str() {
            "--backend" => backend = Some(f.value("--backend")?),
            "--n" => a.n = f.parse("--n")?,
            "--reps" => a.reps = f.parse("--reps")?,
            "--json" => a.json = true,
            other => return Err(f.unknown(other)),
        }
    }
    // Two matrices of n² f64 must be addressable, so that no size below overflows.
    let bytes = a.n.checked_mul(a.n).and_then(|e| e.checked_mul(16));
    if a.n == 0 || a.n % T != 0 || a.reps == 0 || bytes.is_none() {
        return Err(format!(
            "--n must be a positive multiple of {T} whose two n x n matrices fit in memory, and --reps positive\n{USAGE}"
        ));
    }
    a.backend = args::backend_or_default(backend)?;
    Ok(a)
}

/// The matrix: distinct values, so that a misplaced element shows.
fn start(n: usize) -> Vec<f64> {
    (0..n * n).map(|o| o as f64).collect()
}

/// One timed variant: per-rep seconds and the transposed matrix.
struct Run {
    name: &'static str,
    secs: Vec<f64>,
    out: Vec<f64>,
}

/// The transpose as a plain loop over `T × T` blocks: each chunk of `T` output rows (a block
/// column of `a`) is one task, read block by block down `a`.
fn plain(a: &[f64], n: usize, reps: usize, parallel: bool) -> Run {
    let mut at = vec![0.0; n * n];
    let mut secs = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t0 = Instant::now();
        let one = |(jb, rows): (usize, &mut [f64])| {
            let j0 = jb * T;
            for i0 in (0..n).step_by(T) {
                for (dj, row) in rows.chunks_mut(n).enumerate() {
                    let col = j0 + dj;
                    for (i, o) in row[i0..i0 + T].iter_mut().enumerate() {
                        *o = a[(i0 + i) * n + col];
                    }
                }
            }
        };
        if parallel {
            at.par_chunks_mut(T * n).enumerate().for_each(one);
        } else {
            at.chunks_mut(T * n).enumerate().for_each(one);
        }
        secs.push(t0.elapsed().as_secs_f64());
    }
    Run {
        name: if parallel { "plain-rayon" } else { "plain" },
        secs,
        out: at,
    }
}

struct Visit<'a>(&'a Args);

impl SpaceVisitor for Visit<'_> {
    type Output = rokkos::Result<(String, usize, bool, Vec<Run>)>;
    fn visit<E: ExecutionSpace>(self, space: E) -> Self::Output {
        let (n, reps) = (self.0.n, self.0.reps);
        let ha = View::<f64, 2>::from_vec("a", [n, n], start(n))?;
        let a = create_mirror_view_and_copy_in(&space, &ha)?;
        let at =
            View::<f64, 2, LayoutRight, E::Memory>::new_in(&space.memory_space(), "at", [n, n])?;
        let mut runs = Vec::new();
        let mut time = |name: &'static str, launch: &dyn Fn() -> rokkos::Result<()>| {
            let mut secs = Vec::with_capacity(reps);
            for _ in 0..reps {
                let t0 = Instant::now();
                launch()?;
                space.fence()?;
                secs.push(t0.elapsed().as_secs_f64());
            }
            let out = create_mirror_view_and_copy(&at)?.to_vec();
            runs.push(Run { name, secs, out });
            rokkos::Result::Ok(())
        };
        time("mdrange", &|| {
            let p = MDRangePolicy::new(&space, [0, 0], [n, n]).tile([T, T]);
            parallel_for("transpose::mdrange", p, transpose_md(&at, &a))
        })?;
        time("mdrange-left", &|| {
            let p = MDRangePolicy::new(&space, [0, 0], [n, n])
                .tile([T, T])
                .iterate(Iterate::Left);
            parallel_for("transpose::mdrange_left", p, transpose_md(&at, &a))
        })?;
        time("team", &|| {
            let p = TeamPolicy::new(&space, (n / T) * (n / T), TeamSize::Auto).scratch(
                0,
                scratch_size::<f64>(T * T),
                0,
            );
            parallel_for("transpose::team", p, transpose_team(&a, &at))
        })?;
        let host = std::any::TypeId::of::<E::Memory>() == std::any::TypeId::of::<HostSpace>();
        Ok((space.name().to_string(), space.concurrency(), host, runs))
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("transpose: {e}");
            return ExitCode::from(2);
        }
    };
    let (backend, threads, host, mut runs) =
        match run_on(&args.backend, Visit(&args)).and_then(|r| r) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("transpose: {e}");
                return ExitCode::FAILURE;
            }
        };
    let parallel = backend != "serial";
    let reference = plain(&start(args.n), args.n, args.reps, parallel);
    let mut ok = true;
    for r in &runs {
        if let Some(p) = r.out.iter().zip(&reference.out).position(|(x, y)| x != y) {
            eprintln!(
                "transpose: {} on {backend} differs from the plain loop at element {p}: {} vs {}",
                r.name, r.out[p], reference.out[p]
            );
            ok = false;
        }
    }
    if host {
        runs.push(reference);
    }
    for r in &runs {
        let best = r.secs.iter().copied().fold(f64::INFINITY, f64::min);
        let gbs = 2.0 * 8.0 * (args.n * args.n) as f64 / best / 1e9;
        let (b, t) = if r.name.starts_with("plain") {
            (
                r.name,
                if parallel {
                    rayon::current_num_threads()
                } else {
                    1
                },
            )
        } else {
            (backend.as_str(), threads)
        };
        if args.json {
            let line = serde_json::json!({
                "bench": "transpose", "kernel": r.name, "backend": b, "threads": t, "dtype": "f64",
                "n": args.n, "reps": args.reps, "best_s": best, "metric": "GB/s", "value": gbs,
            });
            say!("{line}");
        } else {
            say!(
                "{:<12} {b:<12} threads {t:<3} n={} best {best:.6} s ({gbs:.2} GB/s)",
                r.name,
                args.n
            );
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
