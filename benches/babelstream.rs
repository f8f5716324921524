//! Criterion benchmarks of the BabelStream kernels against hand-written Rust, same process:
//!
//! - `triad/serial` vs `triad/plain_loop`: the native path against a plain loop over slices
//!   (cache-resident 4 Ki elements, where code quality shows, and 2^25 elements, bandwidth bound);
//! - `triad/rayon` vs `triad/raw_rayon`: rokkos on rayon against `par_iter` over slice chunks;
//! - `launch/*`: an empty kernel over 1 and 1000 elements against `rayon::scope` and `par_iter`.
//!
//! `cargo bench --bench babelstream` (set `ROKKOS_BENCH_N` to change the large size).

#[path = "../examples/babelstream/kernels.rs"]
#[allow(dead_code)]
mod kernels;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernels::*;
use rayon::prelude::*;
use rokkos::prelude::*;
use std::time::Duration;

fn large_n() -> usize {
    std::env::var("ROKKOS_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 25)
}

fn triad_plain(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for i in 0..a.len() {
        a[i] = b[i] + s * c[i];
    }
}

fn bench_triad(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("triad");
    g.sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    for n in [4096usize, large_n()] {
        g.throughput(Throughput::Bytes((3 * 8 * n) as u64));
        let a = View::<f64>::from_vec("a", [n], vec![START_A; n]).unwrap();
        let b = View::<f64>::from_vec("b", [n], vec![START_B; n]).unwrap();
        let c = View::<f64>::from_vec("c", [n], vec![START_C; n]).unwrap();
        g.bench_with_input(BenchmarkId::new("serial", n), &n, |bch, &n| {
            bch.iter(|| {
                parallel_for(
                    "triad",
                    RangePolicy::new(&Serial, 0..n),
                    triad(&a, &b, &c, black_box(SCALAR)),
                )
                .unwrap()
            })
        });
        let (mut pa, pb, pc) = (vec![START_A; n], vec![START_B; n], vec![START_C; n]);
        g.bench_with_input(BenchmarkId::new("plain_loop", n), &n, |bch, _| {
            bch.iter(|| {
                triad_plain(
                    black_box(&mut pa),
                    black_box(&pb),
                    black_box(&pc),
                    black_box(SCALAR),
                )
            })
        });
        let r = Rayon::new();
        g.bench_with_input(BenchmarkId::new("rayon", n), &n, |bch, &n| {
            bch.iter(|| {
                parallel_for(
                    "triad",
                    RangePolicy::new(&r, 0..n),
                    triad(&a, &b, &c, black_box(SCALAR)),
                )
                .unwrap()
            })
        });
        let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(1);
        g.bench_with_input(BenchmarkId::new("raw_rayon", n), &n, |bch, _| {
            bch.iter(|| {
                pa.par_chunks_mut(chunk)
                    .zip(pb.par_chunks(chunk))
                    .zip(pc.par_chunks(chunk))
                    .for_each(|((a, b), c)| {
                        for i in 0..a.len() {
                            a[i] = b[i] + SCALAR * c[i];
                        }
                    })
            })
        });
    }
    g.finish();
}

fn bench_launch(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("launch");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    let r = Rayon::new();
    let v = View::<f64>::new("v", [1]).unwrap();
    for n in [1usize, 1000] {
        g.bench_with_input(BenchmarkId::new("rokkos_rayon", n), &n, |bch, &n| {
            bch.iter(|| parallel_for("empty", RangePolicy::new(&r, 0..n), empty(&v)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("rokkos_serial", n), &n, |bch, &n| {
            bch.iter(|| parallel_for("empty", RangePolicy::new(&Serial, 0..n), empty(&v)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("raw_par_iter", n), &n, |bch, &n| {
            bch.iter(|| {
                (0..n).into_par_iter().for_each(|i| {
                    black_box(i);
                })
            })
        });
        g.bench_with_input(BenchmarkId::new("raw_scope", n), &n, |bch, &n| {
            bch.iter(|| {
                let threads = rayon::current_num_threads();
                rayon::scope(|s| {
                    for t in 0..threads.min(n) {
                        s.spawn(move |_| {
                            black_box(t);
                        });
                    }
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_triad, bench_launch);
criterion_main!(benches);
