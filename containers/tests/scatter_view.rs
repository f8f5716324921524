//! `ScatterView` on every backend against plain Rust loops: histograms (integer counts equal to
//! the loop's, bit for bit), weighted sums (within a tolerance), minimum, maximum and product,
//! a two-dimensional force-like scatter, `reset`, `contribute_into` a View that holds values, and
//! failed calls that lose nothing.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rokkos::prelude::*;
use rokkos_containers::ScatterView;
use rokkos_testing::{dev, dev_from_slice, dev_from_vec, per_backend, splitmix, to_host};

/// Counts sample `i` in bin `bin[i]`.
#[kernel]
fn count(i: usize, bin: View<u32>, hist: ScatterSum<u32>) {
    hist.atomic_add(bin[i] as usize, 1);
}

/// Adds weight `w[i]` to bin `bin[i]`, and takes it off bin 0 again (a contribution by `sub`).
#[kernel]
fn weigh(i: usize, bin: View<u32>, w: View<f64>, sum: ScatterSum<f64>) {
    sum.atomic_add(bin[i] as usize, w[i] + 1.0);
    sum.atomic_sub(0, 1.0);
}

#[kernel]
fn lowest(i: usize, bin: View<u32>, v: View<i32>, lo: ScatterMin<i32>) {
    lo.atomic_min(bin[i] as usize, v[i]);
}

#[kernel]
fn highest(i: usize, bin: View<u32>, v: View<i32>, hi: ScatterMax<i32>) {
    hi.atomic_max(bin[i] as usize, v[i]);
}

#[kernel]
fn product(i: usize, bin: View<u32>, v: View<i64>, p: ScatterProd<i64>) {
    p.atomic_mul(bin[i] as usize, v[i]);
}

/// Pair `k` of `(a[k], b[k])` pushes `a` by `d` and `b` by `-d`, per component: the shape of a
/// neighbour-list force kernel with Newton's third law.
#[kernel]
fn forces(k: usize, a: View<u32>, b: View<u32>, d: View<f64, 2>, f: ScatterSum<f64, 2>) {
    let (i, j) = (a[k] as usize, b[k] as usize);
    for c in 0..3 {
        f.atomic_add((i, c), d[(k, c)]);
        f.atomic_sub((j, c), d[(k, c)]);
    }
}

fn bins_of(seed: u64, n: usize, bins: usize) -> Vec<u32> {
    splitmix(seed, n)
        .iter()
        .map(|x| (x % bins as u64) as u32)
        .collect()
}

/// A histogram's counts equal the plain loop's, for sizes and bin counts drawn by proptest.
fn histogram<E: ExecutionSpace>(space: E) {
    let mut runner = TestRunner::new(Config {
        cases: 6,
        ..Config::default()
    });
    runner
        .run(
            &(rokkos_testing::sizes(), 1usize..300, any::<u64>()),
            |(n, bins, seed)| {
                let bin = bins_of(seed, n, bins);
                let mut want = vec![0u32; bins];
                for &b in &bin {
                    want[b as usize] += 1;
                }
                let h = ScatterView::<u32, 1, Sum, _>::new(&space, "hist", [bins]).unwrap();
                let binv = dev_from_slice(&space, "bin", &bin).unwrap();
                parallel_for("count", RangePolicy::new(&space, 0..n), count(&binv, &h)).unwrap();
                let out = dev::<_, 1, LayoutRight, _>(&space, "out", [bins]).unwrap();
                h.contribute_into(&out).unwrap();
                prop_assert_eq!(to_host(&out), want);
                Ok(())
            },
        )
        .unwrap();
}
per_backend!(histogram);

/// Weighted sums, within a relative tolerance of the plain loop (the order of the additions
/// differs between backends).
fn weighted_sums<E: ExecutionSpace>(space: E) {
    let (n, bins) = (3001, 37);
    let bin = bins_of(7, n, bins);
    let w: Vec<f64> = splitmix(8, n)
        .iter()
        .map(|x| (x >> 11) as f64 / (1u64 << 53) as f64 - 0.25)
        .collect();
    let mut want = vec![0.0f64; bins];
    for i in 0..n {
        want[bin[i] as usize] += w[i] + 1.0;
        want[0] -= 1.0;
    }
    let s = ScatterView::<f64, 1, Sum, _>::new(&space, "sum", [bins]).unwrap();
    let (binv, wv) = (
        dev_from_slice(&space, "bin", &bin).unwrap(),
        dev_from_slice(&space, "w", &w).unwrap(),
    );
    parallel_for(
        "weigh",
        RangePolicy::new(&space, 0..n),
        weigh(&binv, &wv, &s),
    )
    .unwrap();
    let out = dev::<_, 1, LayoutRight, _>(&space, "out", [bins]).unwrap();
    s.contribute_into(&out).unwrap();
    for (g, e) in to_host(&out).iter().zip(&want) {
        assert!((g - e).abs() <= 1e-9 * (1.0 + e.abs()), "{g} vs {e}");
    }
}
per_backend!(weighted_sums);

/// Minimum, maximum and (wrapping) product per bin, exact; bins nobody contributes to keep the
/// target's values (the identity changes nothing).
fn min_max_prod<E: ExecutionSpace>(space: E) {
    let (n, bins) = (2000, 50);
    let bin: Vec<u32> = bins_of(3, n, bins - 3); // the last three bins get nothing
    let v: Vec<i32> = splitmix(4, n).iter().map(|&x| x as i32).collect();
    let f: Vec<i64> = splitmix(5, n).iter().map(|&x| (x % 5) as i64 - 2).collect();
    let (mut lo, mut hi, mut pr) = (vec![7i32; bins], vec![7i32; bins], vec![3i64; bins]);
    for i in 0..n {
        let b = bin[i] as usize;
        lo[b] = lo[b].min(v[i]);
        hi[b] = hi[b].max(v[i]);
        pr[b] = pr[b].wrapping_mul(f[i]);
    }
    let binv = dev_from_slice(&space, "bin", &bin).unwrap();
    let (vv, fv) = (
        dev_from_slice(&space, "v", &v).unwrap(),
        dev_from_slice(&space, "f", &f).unwrap(),
    );
    let p = || RangePolicy::new(&space, 0..n);
    let smin = ScatterView::<i32, 1, Min, _>::new(&space, "lo", [bins]).unwrap();
    let smax = ScatterView::<i32, 1, Max, _>::new(&space, "hi", [bins]).unwrap();
    let sprod = ScatterView::<i64, 1, Prod, _>::new(&space, "pr", [bins]).unwrap();
    parallel_for("lowest", p(), lowest(&binv, &vv, &smin)).unwrap();
    parallel_for("highest", p(), highest(&binv, &vv, &smax)).unwrap();
    parallel_for("product", p(), product(&binv, &fv, &sprod)).unwrap();
    let out_lo = dev_from_slice(&space, "out_lo", &[7i32; 50]).unwrap();
    let out_hi = dev_from_slice(&space, "out_hi", &[7i32; 50]).unwrap();
    let out_pr = dev_from_slice(&space, "out_pr", &[3i64; 50]).unwrap();
    smin.contribute_into(&out_lo).unwrap();
    smax.contribute_into(&out_hi).unwrap();
    sprod.contribute_into(&out_pr).unwrap();
    assert_eq!(to_host(&out_lo), lo);
    assert_eq!(to_host(&out_hi), hi);
    assert_eq!(to_host(&out_pr), pr);
}
per_backend!(min_max_prod);

/// A rank-2 scatter `[particles, 3]` from pairs, within a tolerance of the plain loop, and the
/// total force zero (every pair adds and subtracts the same vector).
fn two_dimensional<E: ExecutionSpace>(space: E) {
    let (pairs, particles) = (1500, 101);
    let a = bins_of(11, pairs, particles);
    let b: Vec<u32> = a
        .iter()
        .zip(bins_of(12, pairs, particles - 1))
        .map(|(&x, y)| (x + 1 + y) % particles as u32)
        .collect();
    let d: Vec<f64> = splitmix(13, 3 * pairs)
        .iter()
        .map(|x| (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    let mut want = vec![0.0f64; 3 * particles];
    for k in 0..pairs {
        for c in 0..3 {
            want[3 * a[k] as usize + c] += d[3 * k + c];
            want[3 * b[k] as usize + c] -= d[3 * k + c];
        }
    }
    let (av, bv) = (
        dev_from_slice(&space, "a", &a).unwrap(),
        dev_from_slice(&space, "b", &b).unwrap(),
    );
    let dv = dev_from_vec::<f64, 2, LayoutRight, _>(&space, "d", [pairs, 3], d).unwrap();
    let f = ScatterView::<f64, 2, Sum, _>::new(&space, "f", [particles, 3]).unwrap();
    parallel_for(
        "forces",
        RangePolicy::new(&space, 0..pairs),
        forces(&av, &bv, &dv, &f),
    )
    .unwrap();
    let out = dev::<f64, 2, LayoutLeft, _>(&space, "out", [particles, 3]).unwrap();
    f.contribute_into(&out).unwrap();
    let got = to_host(&out);
    for (g, e) in got.iter().zip(&want) {
        assert!((g - e).abs() <= 1e-9, "{g} vs {e}");
    }
    for c in 0..3 {
        let total: f64 = (0..particles).map(|p| got[3 * p + c]).sum();
        assert!(total.abs() < 1e-9, "component {c}: {total}");
    }
}
per_backend!(two_dimensional);

/// Contributions accumulate over launches until `reset`; after it only the later ones count;
/// `contribute_into` adds to what the target holds and keeps the contributions.
fn reset_and_accumulate<E: ExecutionSpace>(space: E) {
    let bins = 9;
    let bin = bins_of(21, 500, bins);
    let binv = dev_from_slice(&space, "bin", &bin).unwrap();
    let h = ScatterView::<u32, 1, Sum, _>::new(&space, "h", [bins]).unwrap();
    let p = || RangePolicy::new(&space, 0..500);
    let mut once = vec![0u32; bins];
    for &b in &bin {
        once[b as usize] += 1;
    }
    parallel_for("count", p(), count(&binv, &h)).unwrap();
    parallel_for("count", p(), count(&binv, &h)).unwrap();
    let held: Vec<u32> = (0..bins as u32).map(|k| 1000 + k).collect();
    let out = dev_from_slice(&space, "out", &held).unwrap();
    h.contribute_into(&out).unwrap();
    let twice: Vec<u32> = (0..bins).map(|k| held[k] + 2 * once[k]).collect();
    assert_eq!(to_host(&out), twice);
    h.reset().unwrap();
    parallel_for("count", p(), count(&binv, &h)).unwrap();
    let out2 = dev::<_, 1, LayoutRight, _>(&space, "out2", [bins]).unwrap();
    h.contribute_into(&out2).unwrap();
    assert_eq!(to_host(&out2), once);
    // Contributing again applies the same contributions once more.
    h.contribute_into(&out2).unwrap();
    assert_eq!(
        to_host(&out2),
        once.iter().map(|x| 2 * x).collect::<Vec<_>>()
    );
}
per_backend!(reset_and_accumulate);

/// A launch that fails (every contribution out of bounds) and a `contribute_into` of the wrong
/// shape are errors that lose nothing: the contributions made before, and the target, stay.
fn failures_lose_nothing<E: ExecutionSpace>(space: E) {
    let bins = 5;
    let bin = bins_of(31, 200, bins);
    let mut want = vec![0u32; bins];
    for &b in &bin {
        want[b as usize] += 1;
    }
    let h = ScatterView::<u32, 1, Sum, _>::new(&space, "h", [bins]).unwrap();
    let binv = dev_from_slice(&space, "bin", &bin).unwrap();
    parallel_for("count", RangePolicy::new(&space, 0..200), count(&binv, &h)).unwrap();
    let outside = dev_from_slice(&space, "outside", &[bins as u32; 8]).unwrap();
    // Device launches report at the next synchronisation.
    let failed = parallel_for("count", RangePolicy::new(&space, 0..8), count(&outside, &h))
        .and_then(|()| space.fence());
    assert!(
        matches!(failed, Err(Error::OutOfBounds { .. })),
        "{failed:?}"
    );
    let wrong = dev_from_slice(&space, "wrong", &[1u32; 4]).unwrap();
    let e = h.contribute_into(&wrong);
    assert!(matches!(e, Err(Error::ShapeMismatch { .. })), "{e:?}");
    assert_eq!(to_host(&wrong), [1; 4]);
    let out = dev::<_, 1, LayoutRight, _>(&space, "out", [bins]).unwrap();
    h.contribute_into(&out).unwrap();
    assert_eq!(to_host(&out), want);
}
per_backend!(failures_lose_nothing);

/// Host-only: a launch holds the ScatterView, so a host guard on its storage refuses the launch
/// (and `reset` is refused while the guard lives) instead of racing with it.
#[test]
fn a_held_storage_refuses_launches() {
    let space = Rayon::with_threads(2).unwrap();
    let h = ScatterView::<u32, 1, Sum, _>::new(&space, "h", [4]).unwrap();
    assert!(h.copies() >= 3, "{} copies on two threads", h.copies());
    let bin = View::<u32>::from_vec("bin", [3], vec![0, 1, 2]).unwrap();
    let guard = h.first().host();
    let e = parallel_for("count", RangePolicy::new(&space, 0..3), count(&bin, &h));
    assert!(matches!(e, Err(Error::Aliasing { .. })), "{e:?}");
    assert!(h.reset().is_err());
    drop(guard);
    parallel_for("count", RangePolicy::new(&space, 0..3), count(&bin, &h)).unwrap();
    let out = View::<u32>::new("out", [4]).unwrap();
    h.contribute_into(&out).unwrap();
    assert_eq!(out.to_vec(), [1, 1, 1, 0]);
}
