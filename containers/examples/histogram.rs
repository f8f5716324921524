//! Bins samples with a `ScatterView`: every work item adds 1 (and a weight) to the bin its sample
//! falls in, at an index it does not own, with no `unsafe` and no atomics on the host backends.
//!
//! `cargo run -p rokkos-containers --example histogram` bins samples on the run-time `Device`
//! (`ROKKOS_BACKEND=serial|rayon|wgpu|cuda` picks it) and checks the counts against a plain loop.
//!
//! `cargo run --release -p rokkos-containers --example histogram -- --bench [--json] [--n N]`
//! times, on rayon, a ScatterView histogram (reset, the binning kernel, `contribute_into`) against
//! the same kernel adding atomically into a `ViewMut` (fill, kernel), for 2^10 and 2^20 bins, with
//! `u32` counts and `f64` weights (an `f64` atomic add is a compare-and-swap loop on the CPU);
//! `--json` prints one JSON object per line. `scripts/bench_scatter.sh` runs it beside its OpenMP
//! references (`scripts/histogram_omp.c`: an array-section reduction, per-thread copies, atomics)
//! and prints the ratios.

use rokkos::prelude::*;
use rokkos_containers::ScatterView;
use std::time::Instant;

/// Counts sample `i` in its bin.
#[kernel]
fn bin_scatter(i: usize, x: View<f64>, h: ScatterSum<u32>, bins: usize) {
    let b = (x[i] * bins as f64) as usize;
    h.atomic_add(b.min(bins - 1), 1);
}

/// Adds the weight of sample `i` to its bin.
#[kernel]
fn weigh_scatter(i: usize, x: View<f64>, w: View<f64>, h: ScatterSum<f64>, bins: usize) {
    let b = (x[i] * bins as f64) as usize;
    h.atomic_add(b.min(bins - 1), w[i]);
}

/// [`bin_scatter`] with an atomic add into a plain View.
#[kernel]
fn bin_atomic(i: usize, x: View<f64>, h: ViewMut<u32>, bins: usize) {
    let b = (x[i] * bins as f64) as usize;
    h.atomic_add(b.min(bins - 1), 1);
}

/// [`weigh_scatter`] with an atomic add into a plain View.
#[kernel]
fn weigh_atomic(i: usize, x: View<f64>, w: View<f64>, h: ViewMut<f64>, bins: usize) {
    let b = (x[i] * bins as f64) as usize;
    h.atomic_add(b.min(bins - 1), w[i]);
}

/// `n` samples in `[0, 1)`, skewed towards 0 (squares of uniform numbers) so that some bins are
/// hot, as the pixels near a scan's turnaround are.
fn samples(n: usize, seed: u64) -> Vec<f64> {
    rokkos_testing::splitmix(seed, n)
        .into_iter()
        .map(|z| {
            let u = (z >> 11) as f64 / (1u64 << 53) as f64;
            u * u
        })
        .collect()
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1).cloned())
}

fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

fn main() -> rokkos::Result<()> {
    if flag("--bench") {
        return bench();
    }
    let n: usize = arg("--n").and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let bins = 64;
    let dev = Device::new()?;
    let x = create_mirror_view_and_copy_in(&dev, &View::<f64>::from_vec("x", [n], samples(n, 1))?)?;
    let hist = ScatterView::<u32, 1, Sum, _>::new(&dev, "hist", [bins])?;
    parallel_for(
        "bin",
        RangePolicy::new(&dev, 0..n),
        bin_scatter(&x, &hist, bins),
    )?;
    let counts = DeviceView::<u32>::new_on(&dev, "counts", [bins])?;
    hist.contribute_into(&counts)?;
    let counts = create_mirror_view_and_copy(&counts)?.to_vec();

    let mut want = vec![0u32; bins];
    for s in samples(n, 1) {
        want[((s * bins as f64) as usize).min(bins - 1)] += 1;
    }
    assert_eq!(counts, want, "the counts differ from the plain loop's");
    println!(
        "{n} samples into {bins} bins on {} ({} copies): first bins {:?}, last bin {}",
        dev.name(),
        hist.copies(),
        &counts[..4],
        counts[bins - 1]
    );
    Ok(())
}

/// Best and median of `reps` runs of `f`, in seconds.
fn time(reps: usize, mut f: impl FnMut() -> rokkos::Result<()>) -> rokkos::Result<(f64, f64)> {
    f()?; // warm-up: pages touched, hot team started
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok((t[0], t[t.len() / 2]))
}

fn bench() -> rokkos::Result<()> {
    let n: usize = arg("--n").and_then(|s| s.parse().ok()).unwrap_or(1 << 24);
    let reps: usize = arg("--reps").and_then(|s| s.parse().ok()).unwrap_or(5);
    let json = flag("--json");
    let space = Rayon::new();
    let x = View::<f64>::from_vec("x", [n], samples(n, 1))?;
    let w = View::<f64>::from_vec("w", [n], samples(n, 2))?;
    let p = || RangePolicy::new(&space, 0..n);
    for bins in [1usize << 10, 1 << 20] {
        let sc = ScatterView::<u32, 1, Sum, _>::new(&space, "hist", [bins])?;
        let scw = ScatterView::<f64, 1, Sum, _>::new(&space, "whist", [bins])?;
        let out = View::<u32>::new("out", [bins])?;
        let outw = View::<f64>::new("outw", [bins])?;
        let cases: [(&str, &str, (f64, f64)); 4] = [
            (
                "u32",
                "scatter_view",
                time(reps, || {
                    sc.reset()?;
                    out.fill(0)?;
                    parallel_for("bin", p(), bin_scatter(&x, &sc, bins))?;
                    sc.contribute_into(&out)
                })?,
            ),
            (
                "u32",
                "atomic",
                time(reps, || {
                    out.fill(0)?;
                    parallel_for("bin", p(), bin_atomic(&x, &out, bins))
                })?,
            ),
            (
                "f64",
                "scatter_view",
                time(reps, || {
                    scw.reset()?;
                    outw.fill(0.0)?;
                    parallel_for("weigh", p(), weigh_scatter(&x, &w, &scw, bins))?;
                    scw.contribute_into(&outw)
                })?,
            ),
            (
                "f64",
                "atomic",
                time(reps, || {
                    outw.fill(0.0)?;
                    parallel_for("weigh", p(), weigh_atomic(&x, &w, &outw, bins))
                })?,
            ),
        ];
        for (dtype, kernel, (best, median)) in cases {
            let rate = n as f64 / best / 1e6;
            if json {
                println!(
                    "{{\"bench\":\"histogram\",\"kernel\":\"{kernel}\",\"backend\":\"rayon\",\"dtype\":\"{dtype}\",\"n\":{n},\"bins\":{bins},\"threads\":{},\"copies\":{},\"best_s\":{best:.6},\"median_s\":{median:.6},\"metric\":\"Msamples/s\",\"value\":{rate:.2}}}",
                    space.concurrency(),
                    sc.copies()
                );
            } else {
                println!(
                    "{dtype} {bins:>8} bins {kernel:>12}: best {best:.4} s, median {median:.4} s, {rate:.1} Msamples/s"
                );
            }
        }
    }
    Ok(())
}
