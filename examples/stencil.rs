//! Jacobi sweeps on rokkos: a 2-D 5-point and a 3-D 7-point stencil over the interior of a grid,
//! as MDRange kernels with neighbour reads, next to the same sweep written as a plain Rust loop.
//!
//! ```text
//! cargo run --release --example stencil -- [--backend NAME] [--kernel 2d|3d|all] [--n N] [--n3 N]
//!                                          [--sweeps S] [--no-plain] [--json]
//! ```
//! The 2-D sweep is `../shared/reference/stencil_omp.c`'s: fixed boundary (1 on the rows and
//! columns with a zero index, 0 elsewhere), `v = 0.25 * (north + south + west + east)`, `u` and `v`
//! swapped after every sweep. The 3-D sweep averages the six face neighbours. Each sweep is timed
//! on its own (launch and fence); bandwidth counts one read and one write of the interior per sweep,
//! as the OpenMP reference does. Alongside rokkos, on host backends, the same sweeps run as plain
//! Rust loops over `Vec`s: on one thread for `serial`, and split by hand over the outer dimension
//! with rayon's `par_chunks_mut` (the global pool, as many threads as the space) for `rayon`. The
//! rokkos grid after the last sweep must equal the plain loop's bit for bit (same arithmetic, same
//! order); the checksum is the reference's (the sum of the middle column).

#[macro_use]
#[path = "common/say.rs"]
mod say;

use rayon::prelude::*;
use rokkos::prelude::*;
use rokkos::{run_on, selected_backend, SpaceVisitor};
use std::process::ExitCode;
use std::time::Instant;

#[kernel]
fn jacobi2d((i, j): (usize, usize), v: ViewMut<f64, 2>, u: View<f64, 2>) {
    v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
}

#[kernel]
fn jacobi3d((i, j, k): (usize, usize, usize), v: ViewMut<f64, 3>, u: View<f64, 3>) {
    v[(i, j, k)] = (u[(i - 1, j, k)]
        + u[(i + 1, j, k)]
        + u[(i, j - 1, k)]
        + u[(i, j + 1, k)]
        + u[(i, j, k - 1)]
        + u[(i, j, k + 1)])
        * (1.0 / 6.0);
}

pub(crate) struct Args {
    pub(crate) backend: String,
    pub(crate) kernels: Vec<&'static str>,
    pub(crate) n: usize,
    pub(crate) n3: usize,
    pub(crate) sweeps: usize,
    pub(crate) plain: bool,
    pub(crate) json: bool,
}

const USAGE: &str = "usage: stencil [--backend serial|rayon|wgpu|cuda] [--kernel 2d|3d|all] [--n N (2-D, default 4096)] [--n3 N (3-D, default 256)] [--sweeps S] [--no-plain] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        backend: String::new(),
        kernels: vec!["jacobi2d", "jacobi3d"],
        n: 4096,
        n3: 256,
        sweeps: 50,
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
            "--kernel" => {
                a.kernels = match value("--kernel")?.as_str() {
                    "2d" => vec!["jacobi2d"],
                    "3d" => vec!["jacobi3d"],
                    "all" => vec!["jacobi2d", "jacobi3d"],
                    other => return Err(format!("--kernel must be 2d, 3d or all, not `{other}`")),
                }
            }
            "--n" => a.n = number("--n", value("--n")?)?,
            "--n3" => a.n3 = number("--n3", value("--n3")?)?,
            "--sweeps" => a.sweeps = number("--sweeps", value("--sweeps")?)?,
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
    if a.n < 3 || a.n3 < 3 || a.sweeps == 0 {
        return Err("--n and --n3 must be at least 3, --sweeps positive".into());
    }
    Ok(a)
}

/// The reference's start grid: 1 where any index is 0, else 0.
fn start_value(idx: &[usize]) -> f64 {
    if idx.contains(&0) {
        1.0
    } else {
        0.0
    }
}

/// One timed run: per-sweep seconds and the final grid, row-major.
pub(crate) struct Run {
    pub(crate) secs: Vec<f64>,
    pub(crate) grid: Vec<f64>,
}

/// The sweeps on a rokkos space.
pub(crate) fn run_rokkos<E: ExecutionSpace>(
    space: &E,
    kernel: &str,
    n: usize,
    sweeps: usize,
) -> rokkos::Result<Run> {
    let mem = space.memory_space();
    let mut secs = Vec::with_capacity(sweeps);
    let grid = if kernel == "jacobi2d" {
        let host = View::<f64, 2>::from_fn("u0", [n, n], |[i, j]| start_value(&[i, j]))?;
        let mut u = View::<f64, 2, LayoutRight, E::Memory>::new_uninit_in(&mem, "u", [n, n])?;
        let mut v = View::<f64, 2, LayoutRight, E::Memory>::new_uninit_in(&mem, "v", [n, n])?;
        deep_copy(&u, &host)?;
        deep_copy(&v, &host)?;
        for _ in 0..sweeps {
            let t0 = Instant::now();
            parallel_for(
                "stencil::jacobi2d",
                MDRangePolicy::new(space, [1, 1], [n - 1, n - 1]),
                jacobi2d(&v, &u),
            )?;
            space.fence()?;
            secs.push(t0.elapsed().as_secs_f64());
            std::mem::swap(&mut u, &mut v);
        }
        create_mirror_view_and_copy(&u)?.to_vec()
    } else {
        let host = View::<f64, 3>::from_fn("u0", [n, n, n], |[i, j, k]| start_value(&[i, j, k]))?;
        let mut u = View::<f64, 3, LayoutRight, E::Memory>::new_uninit_in(&mem, "u", [n, n, n])?;
        let mut v = View::<f64, 3, LayoutRight, E::Memory>::new_uninit_in(&mem, "v", [n, n, n])?;
        deep_copy(&u, &host)?;
        deep_copy(&v, &host)?;
        for _ in 0..sweeps {
            let t0 = Instant::now();
            parallel_for(
                "stencil::jacobi3d",
                MDRangePolicy::new(space, [1, 1, 1], [n - 1, n - 1, n - 1]),
                jacobi3d(&v, &u),
            )?;
            space.fence()?;
            secs.push(t0.elapsed().as_secs_f64());
            std::mem::swap(&mut u, &mut v);
        }
        create_mirror_view_and_copy(&u)?.to_vec()
    };
    Ok(Run { secs, grid })
}

/// One interior row of the 2-D sweep: what a Rust programmer writes over slices (the row slices
/// let the compiler drop the bounds checks and vectorise).
#[inline(always)]
fn row2d(out: &mut [f64], up: &[f64], mid: &[f64], down: &[f64]) {
    let n = out.len();
    for j in 1..n - 1 {
        out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
    }
}

/// One interior plane of the 3-D sweep; `u` holds the planes `i - 1`, `i`, `i + 1`.
#[inline(always)]
fn plane3d(out: &mut [f64], u: &[f64], n: usize) {
    let (below, rest) = u.split_at(n * n);
    let (mid, above) = rest.split_at(n * n);
    for j in 1..n - 1 {
        let (r, rm, rp) = (j * n, (j - 1) * n, (j + 1) * n);
        let (o, b, a, m, mm, mp) = (
            &mut out[r..r + n],
            &below[r..r + n],
            &above[r..r + n],
            &mid[r..r + n],
            &mid[rm..rm + n],
            &mid[rp..rp + n],
        );
        for k in 1..n - 1 {
            o[k] = (b[k] + a[k] + mm[k] + mp[k] + m[k - 1] + m[k + 1]) * (1.0 / 6.0);
        }
    }
}

/// The sweeps as plain Rust loops, on one thread or split over the outer dimension by rayon.
pub(crate) fn run_plain(kernel: &str, n: usize, sweeps: usize, parallel: bool) -> Run {
    let dims: &[usize] = if kernel == "jacobi2d" {
        &[n, n]
    } else {
        &[n, n, n]
    };
    let len: usize = dims.iter().product();
    let plane = len / n;
    // Row-major offset `o`: the index components are its digits in base n.
    let mut u: Vec<f64> = (0..len)
        .map(|o| {
            let (i, j, k) = (o / plane, (o / n) % n, o % n);
            match dims.len() {
                2 => start_value(&[j, k]),
                _ => start_value(&[i, j, k]),
            }
        })
        .collect();
    let mut v = u.clone();
    let mut secs = Vec::with_capacity(sweeps);
    for _ in 0..sweeps {
        let t0 = Instant::now();
        // Interior planes (rows in 2-D) 1..n-1 of `v`, each computed from planes i-1..=i+1 of `u`.
        let inner = &mut v[plane..(n - 1) * plane];
        let src = &u[..];
        let one = |(p, out): (usize, &mut [f64])| {
            let i = p + 1;
            if dims.len() == 2 {
                row2d(
                    out,
                    &src[(i - 1) * n..i * n],
                    &src[i * n..(i + 1) * n],
                    &src[(i + 1) * n..(i + 2) * n],
                );
            } else {
                plane3d(out, &src[(i - 1) * plane..(i + 2) * plane], n);
            }
        };
        if parallel {
            inner.par_chunks_mut(plane).enumerate().for_each(one);
        } else {
            inner.chunks_mut(plane).enumerate().for_each(one);
        }
        secs.push(t0.elapsed().as_secs_f64());
        std::mem::swap(&mut u, &mut v);
    }
    Run { secs, grid: u }
}

struct Visit<'a>(&'a Args);

impl SpaceVisitor for Visit<'_> {
    type Output = rokkos::Result<(String, usize, bool, Vec<(&'static str, usize, Run)>)>;
    fn visit<E: ExecutionSpace>(self, space: E) -> Self::Output {
        let mut runs = Vec::new();
        for &k in &self.0.kernels {
            let n = if k == "jacobi2d" { self.0.n } else { self.0.n3 };
            runs.push((k, n, run_rokkos(&space, k, n, self.0.sweeps)?));
        }
        let host = std::any::TypeId::of::<E::Memory>() == std::any::TypeId::of::<HostSpace>();
        Ok((space.name().to_string(), space.concurrency(), host, runs))
    }
}

/// Best and median of the per-sweep times.
fn best_median(secs: &[f64]) -> (f64, f64) {
    let mut s = secs.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    (s[0], s[s.len() / 2])
}

fn report(args: &Args, kernel: &str, backend: &str, threads: usize, n: usize, run: &Run) {
    let (best, median) = best_median(&run.secs);
    let rank = if kernel == "jacobi2d" { 2 } else { 3 };
    let interior = ((n - 2) as f64).powi(rank);
    let gbs = 2.0 * 8.0 * interior / best / 1e9;
    let mid: f64 = if rank == 2 {
        (0..n).map(|i| run.grid[i * n + n / 2]).sum()
    } else {
        (0..n).map(|i| run.grid[(i * n + n / 2) * n + n / 2]).sum()
    };
    if args.json {
        let line = serde_json::json!({
            "bench": "stencil", "kernel": kernel, "backend": backend, "threads": threads, "dtype": "f64",
            "n": n, "sweeps": args.sweeps, "best_s": best, "median_s": median, "metric": "GB/s",
            "value": gbs, "checksum": mid,
        });
        say!("{line}");
    } else {
        say!(
            "{kernel:<9} {backend:<12} threads {threads:<3} n={n:<6} best {best:.6} s ({gbs:.1} GB/s) median {median:.6} s checksum {mid:.12}"
        );
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
    let (backend, threads, host, runs) = match run_on(&args.backend, Visit(&args)).and_then(|r| r) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stencil: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut ok = true;
    for (kernel, n, run) in &runs {
        report(&args, kernel, &backend, threads, *n, run);
        // The plain loops run on the host, one thread for serial and the global pool otherwise.
        let parallel = backend != "serial";
        let plain = run_plain(kernel, *n, args.sweeps, parallel);
        if args.plain && host {
            let name = if parallel { "plain-rayon" } else { "plain" };
            report(
                &args,
                kernel,
                name,
                if parallel {
                    rayon::current_num_threads()
                } else {
                    1
                },
                *n,
                &plain,
            );
        }
        // Host backends run the same arithmetic in the same order: bit for bit. A device may
        // round differently (its own code generator), so it gets a relative tolerance.
        let differs = |a: f64, b: f64| {
            if host {
                a.to_bits() != b.to_bits()
            } else {
                (a - b).abs() > 1e-12 * a.abs().max(1.0)
            }
        };
        if let Some(p) = plain
            .grid
            .iter()
            .zip(&run.grid)
            .position(|(a, b)| differs(*a, *b))
        {
            eprintln!(
                "{kernel}: rokkos ({backend}) differs from the plain loop at element {p}: {} vs {}",
                run.grid[p], plain.grid[p]
            );
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
