//! `parallel_scan` (Kokkos `TestScan`): exclusive prefix sums of `i` against `i (i - 1) / 2`,
//! prefix sums of random data against a plain loop, inclusive scans of floats, scans under another
//! associative operation (`parallel_scan_with`), stream compaction, and the "exactly one final call
//! per index" contract.

use crate::{assert_close, check, chunk_sizes, sizes, F64_TOL, LARGE};
use crate::{dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel(scan)]
fn prefix_of_index(i: usize, partial: &mut i64, is_final: bool, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += i as i64;
}

#[kernel(scan)]
fn prefix(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

#[kernel(scan)]
fn inclusive(i: usize, partial: &mut f64, is_final: bool, x: View<f64>, out: ViewMut<f64>) {
    *partial += x[i];
    if is_final {
        out[i] = *partial;
    }
}

#[kernel(scan)]
fn running_max(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    if x[i] > *partial {
        *partial = x[i];
    }
}

/// Stream compaction: the multiples of 3 of `x`, in order, packed at the front of `out`. The write
/// index is the scan value, not the work index, hence the `unsafe` block (the scan makes the
/// positions distinct).
#[kernel(scan)]
fn compact(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if x[i] % 3 == 0 {
        if is_final {
            unsafe {
                out[*partial as usize] = x[i];
            }
        }
        *partial += 1;
    }
}

/// Counts the calls: `calls(0)` the non-final ones, `calls(1)` the final ones, and the final calls
/// per index in `per_index`.
#[kernel(scan)]
fn count_calls(
    i: usize,
    partial: &mut i64,
    is_final: bool,
    calls: ViewMut<i64>,
    per_index: ViewMut<i64>,
) {
    if is_final {
        calls.atomic_add(1, 1);
        per_index.atomic_add(i, 1);
    } else {
        // Counting the earlier passes is this kernel's purpose: their number is the backend's,
        // so the write is outside what `#[kernel]` accepts in a scan body without `unsafe`.
        unsafe {
            calls.atomic_add(0, 1);
        }
    }
    *partial += 1;
}

/// Kokkos TestScan: the exclusive prefix sum of `i` over `begin..end` is
/// `(i (i - 1) - b (b - 1)) / 2`, and the total is the sum over the whole range.
fn prefix_sum_of_index<E: ExecutionSpace>(space: E) {
    check(
        24,
        (sizes(), 0usize..100, chunk_sizes()),
        |(n, b, chunk)| {
            let out: DevView<E, i64> = dev(&space, "out", [b + n])?;
            out.fill(-1)?;
            let p = RangePolicy::new(&space, b..b + n).chunk_size(chunk);
            let total = parallel_scan("prefix_of_index", p, prefix_of_index(&out))?;
            let tri = |k: usize| (k as i64) * (k as i64 - 1) / 2;
            prop_assert_eq!(total, tri(b + n) - tri(b));
            let got = to_host(&out);
            for (i, &v) in got.iter().enumerate() {
                let want = if i < b { -1 } else { tri(i) - tri(b) };
                prop_assert_eq!(v, want, "out({})", i);
            }
            Ok(())
        },
    );
    let out: DevView<E, i64> = dev(&space, "out", [LARGE]).unwrap();
    let total = parallel_scan(
        "prefix_large",
        RangePolicy::new(&space, 0..LARGE),
        prefix_of_index(&out),
    )
    .unwrap();
    let m = LARGE as i64;
    assert_eq!(total, m * (m - 1) / 2);
    assert_eq!(to_host(&out)[LARGE - 1], (m - 1) * (m - 2) / 2);
}
per_backend!(prefix_sum_of_index);

/// Exclusive prefix sums of random integers against a plain loop, into Views of other layouts.
fn prefix_sum_of_data<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::ints(seed, n, -1000, 1000);
            let x: DevView<E, i64, 1, LayoutLeft> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let wide: DevView<E, i64, 2> = dev(&space, "wide", [n, 2])?;
            let out: DevView<E, i64, 1, LayoutStride> = wide.subview((.., 1))?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let total = parallel_scan("prefix", p, prefix(&x, &out))?;
            let mut want = Vec::with_capacity(n);
            let mut run = 0i64;
            for &v in &xs {
                want.push(run);
                run += v;
            }
            prop_assert_eq!(total, run);
            prop_assert_eq!(to_host(&out), want);
            // The total into a View of the space's memory and into a host View, Kokkos'
            // `parallel_scan(policy, functor, total)`.
            let t_dev: DevView<E, i64, 0> = dev(&space, "total", [])?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            parallel_scan_into("prefix_into", p, prefix(&x, &out), &t_dev)?;
            prop_assert_eq!(to_host(&t_dev), vec![run]);
            let t_host = View::<i64, 0>::new("total_host", [])?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            parallel_scan_into("prefix_into_host", p, prefix(&x, &out), &t_host)?;
            prop_assert_eq!(t_host.get(()), run);
            let untouched: DevView<E, i64, 1, LayoutStride> = wide.subview((.., 0))?;
            prop_assert!(to_host(&untouched).iter().all(|&v| v == 0));
            Ok(())
        },
    );
}
per_backend!(prefix_sum_of_data);

/// An inclusive scan of floats, within a relative tolerance of the running sum of magnitudes.
fn inclusive_float_scan<E: ExecutionSpace>(space: E) {
    check(
        12,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::unit_floats(seed, n);
            let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let out: DevView<E, f64> = dev(&space, "out", [n])?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let total = parallel_scan("inclusive", p, inclusive(&x, &out))?;
            let got = to_host(&out);
            let (mut run, mut mag) = (0.0f64, 0.0f64);
            for i in 0..n {
                run += xs[i];
                mag += xs[i].abs();
                assert_close(got[i], run, mag, F64_TOL, "inclusive scan element");
            }
            assert_close(total, run, mag, F64_TOL, "inclusive scan total");
            Ok(())
        },
    );
}
per_backend!(inclusive_float_scan);

/// `parallel_scan_with(Max)`: the exclusive running maximum (the identity `i64::MIN` first).
fn scan_with_max<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::ints(seed, n, -1_000_000, 1_000_000);
            let x: DevView<E, i64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let out: DevView<E, i64> = dev(&space, "out", [n])?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let total = parallel_scan_with("running_max", p, running_max(&x, &out), Max)?;
            let t_dev: DevView<E, i64, 0> = dev(&space, "total", [])?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            parallel_scan_with_into("running_max_into", p, running_max(&x, &out), Max, &t_dev)?;
            prop_assert_eq!(to_host(&t_dev), vec![total]);
            let mut want = Vec::with_capacity(n);
            let mut run = i64::MIN;
            for &v in &xs {
                want.push(run);
                run = run.max(v);
            }
            prop_assert_eq!(total, run);
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}
per_backend!(scan_with_max);

/// Stream compaction through the scan value.
fn stream_compaction<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::ints(seed, n, 0, 100);
            let x: DevView<E, i64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let out: DevView<E, i64> = dev(&space, "out", [n])?;
            out.fill(-1)?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let count = parallel_scan("compact", p, compact(&x, &out))?;
            let kept: Vec<i64> = xs.iter().copied().filter(|v| v % 3 == 0).collect();
            prop_assert_eq!(count, kept.len() as i64);
            let got = to_host(&out);
            prop_assert_eq!(&got[..kept.len()], &kept[..]);
            prop_assert!(got[kept.len()..].iter().all(|&v| v == -1));
            Ok(())
        },
    );
}
per_backend!(stream_compaction);

/// The scan contract: exactly one final call per index (non-final calls are the backend's business).
fn one_final_call_per_index<E: ExecutionSpace>(space: E) {
    check(16, (sizes(), 0usize..10, chunk_sizes()), |(n, b, chunk)| {
        let calls: DevView<E, i64> = dev(&space, "calls", [2])?;
        let per_index: DevView<E, i64> = dev(&space, "per_index", [b + n])?;
        let p = RangePolicy::new(&space, b..b + n).chunk_size(chunk);
        let total = parallel_scan("count_calls", p, count_calls(&calls, &per_index))?;
        prop_assert_eq!(total, n as i64);
        prop_assert_eq!(to_host(&calls)[1], n as i64);
        let per = to_host(&per_index);
        prop_assert!(per[..b].iter().all(|&c| c == 0));
        prop_assert!(per[b..].iter().all(|&c| c == 1));
        Ok(())
    });
}
per_backend!(one_final_call_per_index);

/// Rayon with several chunks: the two-pass scan really ran (non-final calls happened) and its
/// output is identical to the serial backend's.
#[cfg(feature = "rayon")]
#[test]
fn rayon_chunks_match_serial() {
    let rayon = rokkos::Rayon::with_threads(2).unwrap();
    for n in [9usize, 257, 1025, LARGE] {
        for chunk in [0usize, 1, 33] {
            let xs = crate::ints(n as u64 + chunk as u64, n, -1000, 1000);
            let x = View::<i64>::from_vec("x", [n], xs).unwrap();
            let os = View::<i64>::new("os", [n]).unwrap();
            let or = View::<i64>::new("or", [n]).unwrap();
            let ts = parallel_scan(
                "s",
                RangePolicy::new(&Serial, 0..n).chunk_size(chunk),
                prefix(&x, &os),
            )
            .unwrap();
            let tr = parallel_scan(
                "r",
                RangePolicy::new(&rayon, 0..n).chunk_size(chunk),
                prefix(&x, &or),
            )
            .unwrap();
            assert_eq!(ts, tr, "n = {n}, chunk = {chunk}");
            assert_eq!(os.to_vec(), or.to_vec(), "n = {n}, chunk = {chunk}");

            let calls = View::<i64>::new("calls", [2]).unwrap();
            let per_index = View::<i64>::new("per_index", [n]).unwrap();
            parallel_scan(
                "c",
                RangePolicy::new(&rayon, 0..n).chunk_size(chunk),
                count_calls(&calls, &per_index),
            )
            .unwrap();
            if n >= 2 * chunk.max(1) {
                assert!(
                    calls.get(0) > 0,
                    "n = {n}, chunk = {chunk}: no non-final pass, so rayon did not split the scan"
                );
            }
            assert_eq!(calls.get(1), n as i64);
        }
    }
}

/// Rayon folds each chunk's total in interleaved lanes when the join is commutative (the
/// totals pass only; each chunk's final pass stays one chain in index order). A float scan is
/// then the same bits run after run on as many threads, close to serial's single chain, and
/// equal to it where every partial sum is exact (small integers in `f64`).
#[cfg(feature = "rayon")]
#[test]
fn rayon_float_scan_is_repeatable_and_matches_serial() {
    let rayon = rokkos::Rayon::with_threads(2).unwrap();
    let n = LARGE;
    let run = |space_is_serial: bool, xs: &[f64]| {
        let x = View::<f64>::from_vec("x", [n], xs.to_vec()).unwrap();
        let out = View::<f64>::new("out", [n]).unwrap();
        let total = if space_is_serial {
            parallel_scan("s", RangePolicy::new(&Serial, 0..n), inclusive(&x, &out))
        } else {
            parallel_scan("r", RangePolicy::new(&rayon, 0..n), inclusive(&x, &out))
        }
        .unwrap();
        (total, out.to_vec())
    };
    let xs = crate::unit_floats(7, n);
    let (ts, os) = run(true, &xs);
    let (t1, o1) = run(false, &xs);
    let (t2, o2) = run(false, &xs);
    assert_eq!(
        t1.to_bits(),
        t2.to_bits(),
        "rayon scan total changed between runs"
    );
    assert!(
        o1.iter().zip(&o2).all(|(a, b)| a.to_bits() == b.to_bits()),
        "rayon scan output changed between runs"
    );
    assert_close(t1, ts, n as f64, F64_TOL, "rayon scan total against serial");
    for i in (0..n).step_by(97) {
        assert_close(
            o1[i],
            os[i],
            n as f64,
            F64_TOL,
            "rayon scan element against serial",
        );
    }

    let small: Vec<f64> = crate::ints(11, n, -8, 8)
        .iter()
        .map(|&v| v as f64)
        .collect();
    let (ts, os) = run(true, &small);
    let (tr, or) = run(false, &small);
    assert_eq!(tr, ts);
    assert_eq!(or, os);
}
