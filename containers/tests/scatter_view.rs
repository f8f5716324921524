//! `ScatterView` on every backend against plain Rust loops: histograms (integer counts equal to
//! the loop's, bit for bit), weighted sums (within a tolerance), minimum, maximum and product,
//! a two-dimensional force-like scatter, rank 3 (sums, minimum, maximum from a range and from an
//! MDRange, into every layout, shapes and layouts drawn by proptest) and ranks 4 to 6, `reset`,
//! `contribute_into` a View that holds values, a ScatterView over a View of the user's with
//! `reset_except`, and failed calls that lose nothing.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rokkos::prelude::*;
use rokkos_containers::ScatterView;
use rokkos_testing::{dev, dev_from_slice, dev_from_vec, per_backend, splitmix, to_host, DevView};

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

/// Sample `s` adds `w[s]` at `(at[(s, 0)], at[(s, 1)], at[(s, 2)])`.
#[kernel]
fn deposit3(s: usize, at: View<u32, 2>, w: View<i64>, g: ScatterSum<i64, 3>) {
    let (a, b, c) = (
        at[(s, 0)] as usize,
        at[(s, 1)] as usize,
        at[(s, 2)] as usize,
    );
    g.atomic_add((a, b, c), w[s]);
}

#[kernel]
fn lowest3(s: usize, at: View<u32, 2>, w: View<i64>, g: ScatterMin<i64, 3>) {
    let (a, b, c) = (
        at[(s, 0)] as usize,
        at[(s, 1)] as usize,
        at[(s, 2)] as usize,
    );
    g.atomic_min((a, b, c), w[s]);
}

#[kernel]
fn highest3(s: usize, at: View<u32, 2>, w: View<i64>, g: ScatterMax<i64, 3>) {
    let (a, b, c) = (
        at[(s, 0)] as usize,
        at[(s, 1)] as usize,
        at[(s, 2)] as usize,
    );
    g.atomic_max((a, b, c), w[s]);
}

/// A rank-3 contribution from an MDRange work item `(i, j)`: to cell `(i % m0, j % m1, (i + j)
/// % m2)`, the value `v[(i, j)]` (a sum, subtracting 1 from cell `(0, 0, 0)` too) and the same
/// value's minimum and maximum in two more ScatterViews.
#[kernel]
fn md_three(
    (i, j): (usize, usize),
    v: View<f64, 2>,
    sum: ScatterSum<f64, 3>,
    lo: ScatterMin<f64, 3>,
    hi: ScatterMax<f64, 3>,
    m0: usize,
    m1: usize,
    m2: usize,
) {
    let (a, b, c) = (i % m0, j % m1, (i + j) % m2);
    sum.atomic_add((a, b, c), v[(i, j)]);
    sum.atomic_sub((0, 0, 0), 1.0);
    lo.atomic_min((a, b, c), v[(i, j)]);
    hi.atomic_max((a, b, c), v[(i, j)]);
}

#[kernel]
fn deposit4(s: usize, at: View<u32, 2>, w: View<i64>, g: ScatterSum<i64, 4>) {
    let (a, b, c, d) = (
        at[(s, 0)] as usize,
        at[(s, 1)] as usize,
        at[(s, 2)] as usize,
        at[(s, 3)] as usize,
    );
    g.atomic_add((a, b, c, d), w[s]);
}

#[kernel]
fn deposit5(s: usize, at: View<u32, 2>, w: View<i64>, g: ScatterSum<i64, 5>) {
    let (a, b, c) = (
        at[(s, 0)] as usize,
        at[(s, 1)] as usize,
        at[(s, 2)] as usize,
    );
    let (d, e) = (at[(s, 3)] as usize, at[(s, 4)] as usize);
    g.atomic_add((a, b, c, d, e), w[s]);
}

#[kernel]
fn highest6(s: usize, at: View<u32, 2>, w: View<i64>, g: ScatterMax<i64, 6>) {
    let (a, b, c) = (
        at[(s, 0)] as usize,
        at[(s, 1)] as usize,
        at[(s, 2)] as usize,
    );
    let (d, e, f) = (
        at[(s, 3)] as usize,
        at[(s, 4)] as usize,
        at[(s, 5)] as usize,
    );
    g.atomic_max((a, b, c, d, e, f), w[s]);
}

/// The operation of a test case.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Which {
    Sum,
    Min,
    Max,
}

/// `n` samples in a rank-`R` array of extents `ext` (none when a extent is 0): each sample's
/// multi-index, row after row (the `[n, R]` index View's data), and its value in `-1000..1000`.
fn samples<const R: usize>(seed: u64, n: usize, ext: [usize; R]) -> (Vec<u32>, Vec<i64>) {
    let n = if ext.contains(&0) { 0 } else { n };
    let at = splitmix(seed, n * R)
        .iter()
        .enumerate()
        .map(|(k, x)| (x % ext[k % R] as u64) as u32)
        .collect();
    let w = splitmix(seed ^ 0x5eed, n)
        .iter()
        .map(|x| (x % 2000) as i64 - 1000)
        .collect();
    (at, w)
}

/// The plain loop: `init` (row-major) with every sample combined in by `op`.
fn expected<const R: usize>(
    ext: [usize; R],
    at: &[u32],
    w: &[i64],
    mut init: Vec<i64>,
    op: Which,
) -> Vec<i64> {
    for (s, &x) in w.iter().enumerate() {
        let flat = (0..R).fold(0, |f, k| f * ext[k] + at[s * R + k] as usize);
        let e = &mut init[flat];
        *e = match op {
            Which::Sum => *e + x,
            Which::Min => (*e).min(x),
            Which::Max => (*e).max(x),
        };
    }
    init
}

/// The starting values of a target, by multi-index (row-major order for the expectation).
fn start_value<const R: usize>(idx: [usize; R]) -> i64 {
    idx.iter().fold(7, |a, &i| a * 31 + i as i64) % 1001 - 500
}

/// Where a rank-3 test contributes into: each layout, and a strided part of a larger View.
#[derive(Debug, Clone, Copy)]
enum Target {
    Right,
    Left,
    /// `big.subview((.., 1.., .., 1))` of a `[e0, e1 + 1, e2, 2]` View: not contiguous.
    Strided,
}

/// Contributes `sv` into a fresh target of kind `t` holding [`start_value`] and returns the
/// target's elements in row-major order; for [`Target::Strided`] also checks that the elements
/// of the larger View outside the target keep their values.
fn contribute_to<E: ExecutionSpace, Op>(
    space: &E,
    sv: &ScatterView<i64, 3, Op, E>,
    t: Target,
) -> Vec<i64>
where
    Op: rokkos::scatter::ScatterOp,
{
    let ext = sv.extents();
    let init = View::<i64, 3>::from_fn("init", ext, start_value).unwrap();
    match t {
        Target::Right => {
            let d = dev::<i64, 3, LayoutRight, _>(space, "right", ext).unwrap();
            deep_copy(&d, &init).unwrap();
            sv.contribute_into(&d).unwrap();
            to_host(&d)
        }
        Target::Left => {
            let d = dev::<i64, 3, LayoutLeft, _>(space, "left", ext).unwrap();
            deep_copy(&d, &init).unwrap();
            sv.contribute_into(&d).unwrap();
            to_host(&d)
        }
        Target::Strided => {
            let [e0, e1, e2] = ext;
            let big: DevView<E, i64, 4> = dev(space, "big", [e0, e1 + 1, e2, 2]).unwrap();
            big.fill(-9).unwrap();
            let d: View<i64, 3, LayoutStride, _> = big.subview((.., 1.., .., 1)).unwrap();
            deep_copy(&d, &init).unwrap();
            sv.contribute_into(&d).unwrap();
            let got = to_host(&d);
            let all = to_host(&big);
            for (k, &x) in all.iter().enumerate() {
                let (j, c) = ((k / (2 * e2)) % (e1 + 1), k % 2);
                if j == 0 || c == 0 {
                    assert_eq!(x, -9, "element {k} of the larger View outside the target");
                }
            }
            got
        }
    }
}

/// Rank-3 sums, minima and maxima from a range of samples equal the plain loop's, into every
/// kind of target; shapes (including empty and single-element dimensions), sample counts and
/// targets drawn by proptest.
fn rank3_shapes_and_layouts<E: ExecutionSpace>(space: E) {
    let mut runner = TestRunner::new(Config {
        cases: 10,
        ..Config::default()
    });
    // Mostly non-empty: an extent 0 makes the whole array empty.
    let extent = |max: usize| prop_oneof![6 => 1..max, 1 => Just(0usize)];
    let target = prop_oneof![
        Just(Target::Right),
        Just(Target::Left),
        Just(Target::Strided)
    ];
    let op = prop_oneof![Just(Which::Sum), Just(Which::Min), Just(Which::Max)];
    runner
        .run(
            &(
                [extent(6), extent(9), extent(7)],
                rokkos_testing::sizes(),
                target,
                op,
                any::<u64>(),
            ),
            |(ext, n, t, op, seed)| {
                let (at, w) = samples(seed, n, ext);
                let n = w.len();
                let atv = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "at", [n, 3], at.clone())
                    .unwrap();
                let wv = dev_from_slice(&space, "w", &w).unwrap();
                let p = RangePolicy::new(&space, 0..n);
                let got = match op {
                    Which::Sum => {
                        let sv = ScatterView::<i64, 3, Sum, _>::new(&space, "g", ext).unwrap();
                        parallel_for("deposit3", p, deposit3(&atv, &wv, &sv)).unwrap();
                        contribute_to(&space, &sv, t)
                    }
                    Which::Min => {
                        let sv = ScatterView::<i64, 3, Min, _>::new(&space, "g", ext).unwrap();
                        parallel_for("lowest3", p, lowest3(&atv, &wv, &sv)).unwrap();
                        contribute_to(&space, &sv, t)
                    }
                    Which::Max => {
                        let sv = ScatterView::<i64, 3, Max, _>::new(&space, "g", ext).unwrap();
                        parallel_for("highest3", p, highest3(&atv, &wv, &sv)).unwrap();
                        contribute_to(&space, &sv, t)
                    }
                };
                let init = View::<i64, 3>::from_fn("init", ext, start_value)
                    .unwrap()
                    .to_vec();
                prop_assert_eq!(got, expected(ext, &at, &w, init, op));
                Ok(())
            },
        )
        .unwrap();
}
per_backend!(rank3_shapes_and_layouts);

/// A rank-3 scatter from an MDRange work index, three operations at once, floating point: the
/// sum within a tolerance of the plain loop, minimum and maximum exact (they do not round), and
/// cells nobody reaches keep the target's values.
fn rank3_from_md_range<E: ExecutionSpace>(space: E) {
    let (n0, n1) = (37, 23);
    let ext = [5, 4, 9]; // cells `(.., .., 7..9)` stay empty: the kernel takes `(i + j) % 7`
    let v: Vec<f64> = splitmix(41, n0 * n1)
        .iter()
        .map(|x| (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    let cells = ext.iter().product::<usize>();
    let (mut sum, mut lo, mut hi) = (vec![0.0f64; cells], vec![0.0; cells], vec![0.0; cells]);
    let mut seen = vec![false; cells];
    for i in 0..n0 {
        for j in 0..n1 {
            let at = ((i % 5) * 4 + j % 4) * 9 + (i + j) % 7;
            let x = v[i * n1 + j];
            sum[at] += x;
            sum[0] -= 1.0;
            lo[at] = if seen[at] { lo[at].min(x) } else { x.min(0.0) };
            hi[at] = if seen[at] { hi[at].max(x) } else { x.max(0.0) };
            seen[at] = true;
        }
    }
    let vv = dev_from_vec::<f64, 2, LayoutRight, _>(&space, "v", [n0, n1], v).unwrap();
    let s = ScatterView::<f64, 3, Sum, _>::new(&space, "sum", ext).unwrap();
    let l = ScatterView::<f64, 3, Min, _>::new(&space, "lo", ext).unwrap();
    let h = ScatterView::<f64, 3, Max, _>::new(&space, "hi", ext).unwrap();
    parallel_for(
        "md_three",
        MDRangePolicy::new(&space, [0, 0], [n0, n1]),
        md_three(&vv, &s, &l, &h, 5, 4, 7),
    )
    .unwrap();
    // Targets start at 0: a minimum or maximum also combines with that.
    let out_s = dev::<f64, 3, LayoutLeft, _>(&space, "out_s", ext).unwrap();
    let out_l = dev::<f64, 3, LayoutRight, _>(&space, "out_l", ext).unwrap();
    let out_h = dev::<f64, 3, LayoutLeft, _>(&space, "out_h", ext).unwrap();
    s.contribute_into(&out_s).unwrap();
    l.contribute_into(&out_l).unwrap();
    h.contribute_into(&out_h).unwrap();
    for (g, e) in to_host(&out_s).iter().zip(&sum) {
        assert!((g - e).abs() <= 1e-9 * (1.0 + e.abs()), "{g} vs {e}");
    }
    assert_eq!(to_host(&out_l), lo);
    assert_eq!(to_host(&out_h), hi);
    assert!(
        seen.contains(&false),
        "the test means some cells to stay empty"
    );
}
per_backend!(rank3_from_md_range);

/// Ranks 4, 5 and 6 against the plain loop, into column-major and row-major targets that hold
/// values.
fn ranks_4_to_6<E: ExecutionSpace>(space: E) {
    fn start<E: ExecutionSpace, const R: usize, L: Layout>(
        space: &E,
        ext: [usize; R],
    ) -> (DevView<E, i64, R, L>, Vec<i64>) {
        let init = View::<i64, R>::from_fn("init", ext, start_value).unwrap();
        let d = dev(space, "out", ext).unwrap();
        deep_copy(&d, &init).unwrap();
        (d, init.to_vec())
    }
    let n = 700;
    let ext4 = [3, 1, 4, 5];
    let (at, w) = samples(51, n, ext4);
    let atv = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "at", [n, 4], at.clone()).unwrap();
    let wv = dev_from_slice(&space, "w", &w).unwrap();
    let sv = ScatterView::<i64, 4, Sum, _>::new(&space, "g4", ext4).unwrap();
    parallel_for(
        "deposit4",
        RangePolicy::new(&space, 0..n),
        deposit4(&atv, &wv, &sv),
    )
    .unwrap();
    let (d, init) = start::<_, 4, LayoutLeft>(&space, ext4);
    sv.contribute_into(&d).unwrap();
    assert_eq!(to_host(&d), expected(ext4, &at, &w, init, Which::Sum));

    let ext5 = [2, 3, 2, 4, 3];
    let (at, w) = samples(52, n, ext5);
    let atv = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "at", [n, 5], at.clone()).unwrap();
    let wv = dev_from_slice(&space, "w", &w).unwrap();
    let sv = ScatterView::<i64, 5, Sum, _>::new(&space, "g5", ext5).unwrap();
    parallel_for(
        "deposit5",
        RangePolicy::new(&space, 0..n),
        deposit5(&atv, &wv, &sv),
    )
    .unwrap();
    let (d, init) = start::<_, 5, LayoutRight>(&space, ext5);
    sv.contribute_into(&d).unwrap();
    assert_eq!(to_host(&d), expected(ext5, &at, &w, init, Which::Sum));

    let ext6 = [2, 2, 3, 1, 2, 3];
    let (at, w) = samples(53, n, ext6);
    let atv = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "at", [n, 6], at.clone()).unwrap();
    let wv = dev_from_slice(&space, "w", &w).unwrap();
    let sv = ScatterView::<i64, 6, Max, _>::new(&space, "g6", ext6).unwrap();
    parallel_for(
        "highest6",
        RangePolicy::new(&space, 0..n),
        highest6(&atv, &wv, &sv),
    )
    .unwrap();
    let (d, init) = start::<_, 6, LayoutLeft>(&space, ext6);
    sv.contribute_into(&d).unwrap();
    assert_eq!(to_host(&d), expected(ext6, &at, &w, init, Which::Max));
}
per_backend!(ranks_4_to_6);

/// A ScatterView over a View of the user's (Kokkos' `ScatterView(v)` with `reset_except(v)`):
/// the View keeps its values, each round `reset_except(&v)`, launch, `contribute_into(&v)` adds
/// that round's contributions to it exactly once, on every backend; contributing into another
/// View combines every copy, the user's View among them; `reset_except` of any View but the
/// aliased one is an error that resets nothing; `reset` resets the user's View too.
fn reset_except_keeps_the_view<E: ExecutionSpace>(space: E) {
    let ext = [3, 4, 5];
    let n = 900;
    let (at, w) = samples(61, n, ext);
    let atv = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "at", [n, 3], at.clone()).unwrap();
    let wv = dev_from_slice(&space, "w", &w).unwrap();
    let launch = |sv: &ScatterView<i64, 3, Sum, E>| {
        parallel_for(
            "deposit3",
            RangePolicy::new(&space, 0..n),
            deposit3(&atv, &wv, sv),
        )
        .unwrap()
    };
    let init = View::<i64, 3>::from_fn("init", ext, start_value).unwrap();
    let f = dev::<i64, 3, LayoutRight, _>(&space, "f", ext).unwrap();
    deep_copy(&f, &init).unwrap();
    let init = init.to_vec();
    let once = expected(ext, &at, &w, vec![0; init.len()], Which::Sum);
    let plus = |k: i64| -> Vec<i64> { init.iter().zip(&once).map(|(a, b)| a + k * b).collect() };

    let sv = ScatterView::<i64, 3, Sum, _>::from_view(&space, &f).unwrap();
    assert_eq!(to_host(&f), init, "from_view keeps the View's values");
    for round in 1..=2 {
        // The second round names `f` through another handle of it, in another layout type.
        if round == 1 {
            sv.reset_except(&f).unwrap();
        } else {
            sv.reset_except(&f.to_layout_stride()).unwrap();
        }
        assert_eq!(to_host(&f), plus(round - 1), "reset_except keeps the View");
        launch(&sv);
        if round == 1 {
            sv.contribute_into(&f).unwrap();
        } else {
            sv.contribute_into(&f.to_layout_stride()).unwrap();
        }
        assert_eq!(to_host(&f), plus(round), "round {round}");
    }

    // Into another View: every copy, `f` (which holds two rounds) among them.
    sv.reset_except(&f).unwrap();
    launch(&sv);
    let other = dev::<i64, 3, LayoutLeft, _>(&space, "other", ext).unwrap();
    sv.contribute_into(&other).unwrap();
    assert_eq!(to_host(&other), plus(3));

    // `reset_except` of another View, of a View of the same allocation that is not `f`, and
    // of a ScatterView made with `new`: errors naming the Views, and nothing is reset.
    let e = sv.reset_except(&other).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    assert!(msg.contains("`f`") && msg.contains("`other`"), "{msg}");
    let part: View<i64, 3, LayoutStride, _> = f.subview((1..3, .., ..)).unwrap();
    let e = sv.reset_except(&part).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    let fresh = ScatterView::<i64, 3, Sum, _>::new(&space, "fresh", ext).unwrap();
    assert!(matches!(
        fresh.reset_except(&f),
        Err(Error::InvalidArgument(_))
    ));
    assert!(fresh.reset_except(fresh.first()).is_ok());
    // Nothing was reset by the failed calls: contributing now completes the third round.
    sv.contribute_into(&f).unwrap();
    assert_eq!(to_host(&f), plus(3));

    // `reset` resets the user's View too (it is the first copy).
    sv.reset().unwrap();
    assert_eq!(to_host(&f), vec![0; init.len()]);
    launch(&sv);
    sv.contribute_into(&f).unwrap();
    assert_eq!(to_host(&f), once);

    // A column-major rank-3 View cannot be the copies' first: an error naming it.
    let e = ScatterView::<i64, 3, Sum, _>::from_view(&space, &other).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
    assert!(e.to_string().contains("`other`"), "{e}");
}
per_backend!(reset_except_keeps_the_view);

/// Min and max over a user's View: the View's values count as contributions from the start.
fn min_over_a_view<E: ExecutionSpace>(space: E) {
    let ext = [4, 3, 2];
    let n = 300;
    let (at, w) = samples(71, n, ext);
    let atv = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "at", [n, 3], at.clone()).unwrap();
    let wv = dev_from_slice(&space, "w", &w).unwrap();
    let init = View::<i64, 3>::from_fn("init", ext, start_value).unwrap();
    let lo = dev::<i64, 3, LayoutRight, _>(&space, "lo", ext).unwrap();
    deep_copy(&lo, &init).unwrap();
    let sv = ScatterView::<i64, 3, Min, _>::from_view(&space, &lo).unwrap();
    sv.reset_except(&lo).unwrap();
    parallel_for(
        "lowest3",
        RangePolicy::new(&space, 0..n),
        lowest3(&atv, &wv, &sv),
    )
    .unwrap();
    sv.contribute_into(&lo).unwrap();
    assert_eq!(
        to_host(&lo),
        expected(ext, &at, &w, init.to_vec(), Which::Min)
    );
}
per_backend!(min_over_a_view);

/// Host-only, with the copies filled by hand (as contributions a launch left in the per-thread
/// copies would be): `reset_except` resets exactly the copies after the first, and
/// `contribute_into` the aliased View combines exactly those into it, whatever the scheduling.
#[test]
fn reset_except_and_the_other_copies() {
    let space = Rayon::with_threads(2).unwrap();
    let f =
        View::<i32, 3>::from_fn("f", [2, 3, 2], |[a, b, c]| (a * 6 + b * 2 + c) as i32).unwrap();
    let sv = ScatterView::<i32, 3, Max, _>::from_view(&space, &f).unwrap();
    assert_eq!(sv.copies(), 3);
    assert_eq!(
        sv.rest().to_vec(),
        vec![i32::MIN; 24],
        "the other copies start at the identity"
    );
    let fill = |base: i32| {
        let mut g = sv.rest().host_mut();
        for k in 0..24 {
            g[k] = base + (k as i32 % 12) * if k < 12 { 1 } else { -1 };
        }
    };
    fill(5);
    // Copy 1 holds 5 + k, copy 2 holds 5 - k: the maximum with f's k is max(k, 5 + k).
    sv.contribute_into(&f).unwrap();
    assert_eq!(f.to_vec(), (0..12).map(|k| 5 + k).collect::<Vec<_>>());
    fill(100);
    sv.reset_except(&f).unwrap();
    assert_eq!(sv.rest().to_vec(), vec![i32::MIN; 24]);
    assert_eq!(
        f.to_vec(),
        (0..12).map(|k| 5 + k).collect::<Vec<_>>(),
        "kept"
    );
    // A refused reset_except leaves the copies as they are.
    fill(100);
    let other = View::<i32, 3>::new("other", [2, 3, 2]).unwrap();
    assert!(sv.reset_except(&other).is_err());
    sv.contribute_into(&other).unwrap(); // every copy, f among them, into zeros
    assert_eq!(other.to_vec(), (0..12).map(|k| 100 + k).collect::<Vec<_>>());
    // A host guard on the copies: reset_except is refused, nothing panics.
    let guard = sv.rest().host();
    assert!(matches!(sv.reset_except(&f), Err(Error::Aliasing { .. })));
    drop(guard);
    sv.reset().unwrap();
    assert_eq!(
        f.to_vec(),
        vec![i32::MIN; 12],
        "reset resets the aliased View too"
    );
}

/// Rayon with two threads, launches large enough that both threads contribute (repeated until
/// the copies after the first hold contributions, so that the case is the duplicated one):
/// a rank-3 ScatterView over a View of the user's, rounds with `reset_except`, and a
/// column-major target of another ScatterView, against the plain loop.
#[test]
fn rank3_per_thread_copies() {
    let space = Rayon::with_threads(2).unwrap();
    let ext = [7, 5, 6];
    let n = 1 << 17;
    let (at, w) = samples(81, n, ext);
    let atv = View::<u32, 2>::from_vec("at", [n, 3], at.clone()).unwrap();
    let wv = View::<i64>::from_vec("w", [n], w.clone()).unwrap();
    let once = expected(ext, &at, &w, vec![0; 210], Which::Sum);
    let init = View::<i64, 3>::from_fn("init", ext, start_value).unwrap();
    let f = View::<i64, 3>::new("f", ext).unwrap();
    deep_copy(&f, &init).unwrap();
    let start = init.to_vec();
    let sv = ScatterView::<i64, 3, Sum, _>::from_view(&space, &f).unwrap();
    let other = ScatterView::<i64, 3, Sum, _>::new(&space, "other", ext).unwrap();
    let mut rounds = 0i64;
    let mut launches = 0i64;
    for _ in 0..50 {
        rounds += 1;
        sv.reset_except(&f).unwrap();
        let p = || RangePolicy::new(&space, 0..n);
        parallel_for("deposit3", p(), deposit3(&atv, &wv, &sv)).unwrap();
        parallel_for("deposit3", p(), deposit3(&atv, &wv, &other)).unwrap();
        launches += 1;
        let duplicated = sv.rest().to_vec().iter().any(|&x| x != 0);
        sv.contribute_into(&f).unwrap();
        let want: Vec<i64> = start
            .iter()
            .zip(&once)
            .map(|(a, b)| a + rounds * b)
            .collect();
        assert_eq!(f.to_vec(), want, "round {rounds}");
        if duplicated && other.rest().to_vec().iter().any(|&x| x != 0) {
            break;
        }
    }
    assert!(
        sv.rest().to_vec().iter().any(|&x| x != 0),
        "no launch in {rounds} used a second thread's copy"
    );
    let left = View::<i64, 3, LayoutLeft>::new("left", ext).unwrap();
    other.contribute_into(&left).unwrap();
    let want: Vec<i64> = once.iter().map(|x| launches * x).collect();
    assert_eq!(left.to_vec(), want);
}

/// Contributes `src[i]` to element `i` of the ScatterView.
#[kernel]
fn add_from(i: usize, src: View<i64>, g: ScatterSum<i64>) {
    g.atomic_add(i, src[i]);
}

/// A launch that reads the user's View while contributing to the ScatterView over it would race
/// with the plain updates of the first copy (which is that View): it is refused at launch with
/// an error naming the conflict, and neither View changes; the same launch reading another View
/// runs.
fn aliased_view_in_the_same_launch_is_refused<E: ExecutionSpace>(space: E) {
    let n = 64;
    let v = dev_from_vec::<i64, 1, LayoutRight, _>(&space, "v", [n], vec![3; n]).unwrap();
    let sv = ScatterView::<i64, 1, Sum, _>::from_view(&space, &v).unwrap();
    let r = parallel_for("alias", RangePolicy::new(&space, 0..n), add_from(&v, &sv));
    let e = r.expect_err("a launch reading the aliased View must be refused");
    assert!(e.to_string().contains("overlap"), "{e}");
    sv.contribute_into(&v).unwrap();
    assert_eq!(to_host(&v), vec![3; n], "nothing ran");
    let other = dev_from_vec::<i64, 1, LayoutRight, _>(&space, "other", [n], vec![2; n]).unwrap();
    parallel_for(
        "other",
        RangePolicy::new(&space, 0..n),
        add_from(&other, &sv),
    )
    .unwrap();
    sv.contribute_into(&v).unwrap();
    assert_eq!(to_host(&v), vec![5; n]);
}
per_backend!(aliased_view_in_the_same_launch_is_refused);
