//! The rayon backend's two launch paths: its hot team (launches from threads outside rayon) and
//! rayon's pool (launches from inside rayon code, or while another thread's launch holds the team).
//! Both must cut the work into the same chunks and join the same partials in the same order, so a
//! floating-point reduction is bit for bit the chunked sum computed here by hand, whichever path
//! ran, from however many threads at once; a panic in a kernel body reaches the launching thread
//! without hanging the team, which stays usable.

#![cfg(feature = "rayon")]

use crate::{panic_message, unit_floats};
use rayon::prelude::*;
use rokkos::host_iter::{chunk_bounds, chunk_count};
use rokkos::prelude::*;

#[kernel]
fn dot_self(i: usize, acc: &mut f64, x: View<f64>) {
    *acc += x[i] * x[i];
}

#[kernel(scan)]
fn running(i: usize, partial: &mut f64, is_final: bool, x: View<f64>, out: ViewMut<f64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

#[kernel]
fn fill_or_fail(i: usize, out: ViewMut<f64>, small: View<f64>) {
    out[i] = small[i] + 1.0;
}

/// The reduction as the rayon backend defines it for a commutative reducer such as `Sum`: a
/// chunk of at least eight items folds into four interleaved accumulators from 0 (item `k` of
/// the chunk into accumulator `k % 4`) joined in lane order, a shorter chunk is one left fold
/// from 0, and the partials are folded in chunk order from 0.
fn chunked_sum(x: &[f64], threads: usize) -> f64 {
    let n = x.len();
    let chunks = chunk_count(n, threads, 0);
    let mut total = 0.0;
    for c in 0..chunks {
        let items = &x[chunk_bounds(0, n, chunks, c)];
        let lanes = if items.len() >= 8 { 4 } else { 1 };
        let mut acc = [0.0f64; 4];
        for (k, &v) in items.iter().enumerate() {
            acc[k % lanes] += v * v;
        }
        total += ((acc[0] + acc[1]) + acc[2]) + acc[3];
    }
    total
}

fn reduce_on(space: &Rayon, data: &[f64]) -> f64 {
    let x = View::<f64>::from_vec("x", [data.len()], data.to_vec()).unwrap();
    parallel_reduce(
        "dot_self",
        RangePolicy::new(space, 0..data.len()),
        dot_self(&x),
        Sum,
    )
    .unwrap()
}

const SIZES: [usize; 6] = [2, 7, 1000, 1023, 4097, 100_000];

/// From this thread (the hot team) and from inside a rayon pool (rayon's path): the same bits.
#[test]
fn team_and_rayon_paths_give_the_same_bits() {
    let outer = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for threads in [1, 2, 3] {
        let space = Rayon::with_threads(threads).unwrap();
        for (k, n) in SIZES.into_iter().enumerate() {
            let data = unit_floats(k as u64 + 17, n);
            let want = chunked_sum(&data, threads);
            let hot = reduce_on(&space, &data);
            let nested = outer.install(|| reduce_on(&space, &data));
            assert_eq!(
                hot.to_bits(),
                want.to_bits(),
                "hot team, {threads} threads, n={n}"
            );
            assert_eq!(
                nested.to_bits(),
                want.to_bits(),
                "rayon, {threads} threads, n={n}"
            );
        }
    }
}

/// Several threads launching on one space at once: whichever gets the team and whichever falls
/// back to rayon, every reduction and scan is exact.
#[test]
fn concurrent_launches_from_several_threads() {
    let space = Rayon::with_threads(2).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let space = space.clone();
            s.spawn(move || {
                for round in 0..50 {
                    let n = SIZES[(t as usize + round) % SIZES.len()];
                    let data = unit_floats(t * 1000 + round as u64, n);
                    assert_eq!(
                        reduce_on(&space, &data).to_bits(),
                        chunked_sum(&data, 2).to_bits(),
                        "thread {t} round {round} n={n}"
                    );
                    // Integer-valued data: every scan order gives exact prefix sums.
                    let x = View::<f64>::from_fn("x", [n], |[i]| (i % 5) as f64).unwrap();
                    let out = View::<f64>::new("out", [n]).unwrap();
                    let total =
                        parallel_scan("running", RangePolicy::new(&space, 0..n), running(&x, &out))
                            .unwrap();
                    let mut want = 0.0;
                    for (i, got) in out.to_vec().into_iter().enumerate() {
                        assert_eq!(got, want, "thread {t} round {round} scan at {i}");
                        want += (i % 5) as f64;
                    }
                    assert_eq!(total, want);
                }
            });
        }
    });
}

/// Launches from the user's own rayon code on the global pool (nested parallelism) run on rayon
/// and give the same bits as a launch from outside.
#[test]
fn launches_nested_in_rayon_code() {
    let space = Rayon::new();
    let threads = space.concurrency();
    let results: Vec<(u64, u64)> = (0..16u64)
        .into_par_iter()
        .map(|k| {
            let data = unit_floats(k, 5000 + k as usize);
            (
                reduce_on(&space, &data).to_bits(),
                chunked_sum(&data, threads).to_bits(),
            )
        })
        .collect();
    for (k, (got, want)) in results.into_iter().enumerate() {
        assert_eq!(got, want, "nested launch {k}");
    }
}

/// A kernel failing in many chunks at once, on whichever threads run them: the launch reports it
/// on this thread (never hangs or aborts), and the next launches run normally.
#[test]
fn kernel_panics_reach_the_caller_and_the_team_stays_usable() {
    for threads in [2, 3] {
        let space = Rayon::with_threads(threads).unwrap();
        for round in 0..30 {
            let n = 4096 + round;
            let out = View::<f64>::new("out", [n]).unwrap();
            // Every index past `n / 8` is out of bounds: most chunks fail.
            let small = View::<f64>::new("small", [n / 8]).unwrap();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parallel_for(
                    "fill_or_fail",
                    RangePolicy::new(&space, 0..n),
                    fill_or_fail(&out, &small),
                )
            }));
            let msg = match r {
                Err(p) => panic_message(&*p),
                Ok(Err(e)) => e.to_string(),
                Ok(Ok(())) => panic!("an out-of-bounds launch succeeded"),
            };
            assert!(
                msg.contains("fill_or_fail") && msg.contains("`small`"),
                "{msg}"
            );
            let data = unit_floats(round as u64, n);
            assert_eq!(
                reduce_on(&space, &data).to_bits(),
                chunked_sum(&data, threads).to_bits()
            );
        }
    }
}

/// Spaces with teams of their own come and go: each team's threads are joined when the last
/// handle of its space is dropped (a leak or a hang would show here).
#[test]
fn private_spaces_start_and_stop_their_teams() {
    for k in 0..20 {
        let space = Rayon::with_threads(2 + k % 3).unwrap();
        let data = unit_floats(k as u64, 3000);
        assert_eq!(
            reduce_on(&space, &data).to_bits(),
            chunked_sum(&data, 2 + k % 3).to_bits()
        );
        drop(space);
    }
}
