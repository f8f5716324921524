//! The parallel algorithms against `std`'s own (and plain loops) on every backend: random data at
//! the edge sizes, runs and ties for the searches and compactions, NaN for the float extrema,
//! strided and `LayoutLeft` Views, and the errors of mismatched and overlapping Views.

use rokkos::prelude::*;
use rokkos_algorithms::*;
// `rokkos::fill` (a scalar into a View) is in the prelude too: the algorithm is meant here.
use rokkos_algorithms::fill;
use rokkos_testing::{dev, dev_from_slice, dev_from_vec, per_backend, splitmix, to_host, DevView};

/// Empty, tiny, both sides of 256, and past a 1024-item block.
const SIZES: &[usize] = &[0, 1, 2, 255, 256, 257, 1025];

fn ints(seed: u64, n: usize) -> Vec<i64> {
    splitmix(seed, n).into_iter().map(|x| x as i64).collect()
}
/// Small values, so that runs and ties are common.
fn small(seed: u64, n: usize, k: u64) -> Vec<i32> {
    splitmix(seed, n)
        .into_iter()
        .map(|x| (x % k) as i32)
        .collect()
}
fn floats(seed: u64, n: usize) -> Vec<f64> {
    splitmix(seed, n)
        .into_iter()
        .map(|x| (x >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0)
        .collect()
}

fn assert_close(got: f64, want: f64, scale: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-12 * scale.max(1.0),
        "{what}: got {got}, want {want}"
    );
}

/// `std`'s `min_element` / `max_element` / `minmax_element` over the non-NaN elements (`0` when
/// there is none), the documented semantics.
fn std_extrema<T: PartialOrd + Copy>(xs: &[T]) -> (usize, usize, usize) {
    let mut lo: Option<usize> = None;
    let mut hi_first: Option<usize> = None;
    let mut hi_last: Option<usize> = None;
    for (i, &x) in xs.iter().enumerate() {
        #[allow(clippy::eq_op)]
        if x != x {
            continue;
        }
        if lo.is_none_or(|l| x < xs[l]) {
            lo = Some(i);
        }
        if hi_first.is_none_or(|h| x > xs[h]) {
            hi_first = Some(i);
        }
        if hi_last.is_none_or(|h| x >= xs[h]) {
            hi_last = Some(i);
        }
    }
    let last = xs.len().saturating_sub(1);
    (
        lo.unwrap_or(0),
        hi_first.unwrap_or(0),
        hi_last.unwrap_or(last),
    )
}

fn modifying<E: ExecutionSpace>(space: E) {
    for (k, &n) in SIZES.iter().enumerate() {
        let data = ints(k as u64, n);
        let a = dev_from_slice(&space, "a", &data).unwrap();
        let b: DevView<E, i64> = dev(&space, "b", [n]).unwrap();

        fill(&space, &b, -7).unwrap();
        assert_eq!(to_host(&b), vec![-7; n], "fill n={n}");

        copy(&space, &a, &b).unwrap();
        assert_eq!(to_host(&b), data, "copy n={n}");

        reverse(&space, &b).unwrap();
        let rev: Vec<i64> = data.iter().rev().copied().collect();
        assert_eq!(to_host(&b), rev, "reverse n={n}");

        let c: DevView<E, i64> = dev(&space, "c", [n]).unwrap();
        reverse_copy(&space, &a, &c).unwrap();
        assert_eq!(to_host(&c), rev, "reverse_copy n={n}");

        swap_ranges(&space, &a, &c).unwrap();
        assert_eq!(
            (to_host(&a), to_host(&c)),
            (rev.clone(), data.clone()),
            "swap n={n}"
        );

        adjacent_difference(&space, &c, &b).unwrap();
        let mut want = data.clone();
        for i in (1..n).rev() {
            want[i] = data[i].wrapping_sub(data[i - 1]);
        }
        assert_eq!(to_host(&b), want, "adjacent_difference n={n}");

        let s = small(k as u64, n, 3);
        let v = dev_from_slice(&space, "v", &s).unwrap();
        replace(&space, &v, 1, 10).unwrap();
        let want: Vec<i32> = s.iter().map(|&x| if x == 1 { 10 } else { x }).collect();
        assert_eq!(to_host(&v), want, "replace n={n}");
    }
}
per_backend!(modifying);

fn numeric<E: ExecutionSpace>(space: E) {
    for (k, &n) in SIZES.iter().enumerate() {
        let data = ints(10 + k as u64, n);
        let a = dev_from_slice(&space, "a", &data).unwrap();
        let sum = data.iter().fold(0i64, |s, &x| s.wrapping_add(x));
        assert_eq!(reduce(&space, &a).unwrap(), sum, "reduce n={n}");
        assert_eq!(reduce_init(&space, &a, 5).unwrap(), sum.wrapping_add(5));
        let prod = data.iter().fold(1i64, |s, &x| s.wrapping_mul(x | 1));
        let odd: Vec<i64> = data.iter().map(|&x| x | 1).collect();
        let o = dev_from_slice(&space, "odd", &odd).unwrap();
        assert_eq!(reduce_with(&space, &o, Prod).unwrap(), prod, "prod n={n}");
        let min = data.iter().copied().min().unwrap_or(i64::MAX);
        let max = data.iter().copied().max().unwrap_or(i64::MIN);
        assert_eq!(reduce_with(&space, &a, Min).unwrap(), min, "min n={n}");
        assert_eq!(reduce_with(&space, &a, Max).unwrap(), max, "max n={n}");
        // Bits every element keeps (AND) and bits some element sets (OR), with masks that leave
        // both results other than all-ones and zero.
        let words: Vec<u32> = splitmix(30 + k as u64, n)
            .iter()
            .map(|&x| x as u32)
            .collect();
        let kept: Vec<u32> = words.iter().map(|&x| x | 0x8000_0101).collect();
        let some: Vec<u32> = words.iter().map(|&x| x & 0x00f0_0f0f).collect();
        let (dk, ds) = (
            dev_from_slice(&space, "kept", &kept).unwrap(),
            dev_from_slice(&space, "some", &some).unwrap(),
        );
        let and = kept.iter().fold(u32::MAX, |s, &x| s & x);
        let or = some.iter().fold(0u32, |s, &x| s | x);
        assert_eq!(reduce_with(&space, &dk, BAnd).unwrap(), and, "band n={n}");
        assert_eq!(reduce_with(&space, &ds, BOr).unwrap(), or, "bor n={n}");

        let out: DevView<E, i64> = dev(&space, "out", [n]).unwrap();
        let total = inclusive_scan(&space, &a, &out).unwrap();
        let incl: Vec<i64> = data
            .iter()
            .scan(0i64, |s, &x| {
                *s = s.wrapping_add(x);
                Some(*s)
            })
            .collect();
        assert_eq!((to_host(&out), total), (incl, sum), "inclusive_scan n={n}");
        let total = exclusive_scan(&space, &a, &out, 3).unwrap();
        let excl: Vec<i64> = data
            .iter()
            .scan(3i64, |s, &x| {
                let before = *s;
                *s = s.wrapping_add(x);
                Some(before)
            })
            .collect();
        assert_eq!(
            (to_host(&out), total),
            (excl, sum.wrapping_add(3)),
            "exclusive_scan n={n}"
        );

        let f = floats(20 + k as u64, n);
        let fa = dev_from_slice(&space, "f", &f).unwrap();
        let abs: f64 = f.iter().map(|x| x.abs()).sum();
        assert_close(reduce(&space, &fa).unwrap(), f.iter().sum(), abs, "f64 sum");
        let fout: DevView<E, f64> = dev(&space, "fout", [n]).unwrap();
        inclusive_scan(&space, &fa, &fout).unwrap();
        let mut s = 0.0;
        for (i, &g) in to_host(&fout).iter().enumerate() {
            s += f[i];
            assert_close(g, s, abs, "f64 inclusive_scan");
        }
    }
    // The identities over an empty View, and u32 scans wrapping.
    let e: DevView<E, f64> = dev(&space, "empty", [0]).unwrap();
    assert_eq!(reduce_with(&space, &e, Min).unwrap(), f64::INFINITY);
    assert_eq!(reduce_with(&space, &e, Prod).unwrap(), 1.0);
    let u = dev_from_slice(&space, "u", &[u32::MAX, 2, u32::MAX]).unwrap();
    let uo: DevView<E, u32> = dev(&space, "uo", [3]).unwrap();
    assert_eq!(exclusive_scan(&space, &u, &uo, 1).unwrap(), 1);
    assert_eq!(to_host(&uo), [1, 0, 2]);
}
per_backend!(numeric);

fn searches<E: ExecutionSpace>(space: E) {
    for (k, &n) in SIZES.iter().enumerate() {
        let s = small(30 + k as u64, n, 5);
        let v = dev_from_slice(&space, "v", &s).unwrap();
        let (lo, hi, hi_last) = std_extrema(&s);
        assert_eq!(min_element(&space, &v).unwrap(), lo, "min_element n={n}");
        assert_eq!(max_element(&space, &v).unwrap(), hi, "max_element n={n}");
        assert_eq!(
            minmax_element(&space, &v).unwrap(),
            (lo, hi_last),
            "minmax n={n}"
        );
        for x in [0, 4, 7] {
            let want = s.iter().position(|&y| y == x).unwrap_or(n);
            assert_eq!(find(&space, &v, x).unwrap(), want, "find {x} n={n}");
            let want = s.iter().filter(|&&y| y == x).count();
            assert_eq!(count(&space, &v, x).unwrap(), want, "count {x} n={n}");
        }
        let w = dev_from_slice(&space, "w", &s).unwrap();
        assert!(equal(&space, &v, &w).unwrap(), "equal n={n}");
        if n > 0 {
            let mut t = s.clone();
            t[n / 2] += 1;
            let w = dev_from_slice(&space, "w", &t).unwrap();
            assert!(!equal(&space, &v, &w).unwrap(), "unequal n={n}");
        }

        // Floats with NaNs and signed zeros: NaN is skipped, -0.0 == 0.0 ties go to the first.
        let mut f: Vec<f64> = small(40 + k as u64, n, 7)
            .iter()
            .map(|&x| x as f64 - 3.0)
            .collect();
        for i in (0..n).step_by(5) {
            f[i] = f64::NAN;
        }
        for i in (3..n).step_by(11) {
            f[i] = -0.0;
        }
        let fv = dev_from_slice(&space, "f", &f).unwrap();
        let (lo, hi, hi_last) = std_extrema(&f);
        assert_eq!(
            min_element(&space, &fv).unwrap(),
            lo,
            "f64 min_element n={n}"
        );
        assert_eq!(
            max_element(&space, &fv).unwrap(),
            hi,
            "f64 max_element n={n}"
        );
        assert_eq!(
            minmax_element(&space, &fv).unwrap(),
            (lo, hi_last),
            "f64 minmax n={n}"
        );
        let want = f.iter().position(|&y| y == 0.0).unwrap_or(n);
        assert_eq!(find(&space, &fv, 0.0).unwrap(), want, "f64 find n={n}");
        assert_eq!(count(&space, &fv, f64::NAN).unwrap(), 0);
    }
    let nans = dev_from_slice(&space, "nans", &[f32::NAN; 3]).unwrap();
    assert_eq!(min_element(&space, &nans).unwrap(), 0);
    assert_eq!(minmax_element(&space, &nans).unwrap(), (0, 2));
    let a = dev_from_slice(&space, "a", &[1i64, 2]).unwrap();
    let b = dev_from_slice(&space, "b", &[1i64, 2, 3]).unwrap();
    assert!(!equal(&space, &a, &b).unwrap());
}
per_backend!(searches);

fn compaction<E: ExecutionSpace>(space: E) {
    for (k, &n) in SIZES.iter().enumerate() {
        let s = small(50 + k as u64, n, 3);
        let mut dedup = s.clone();
        dedup.dedup();
        let mut kept = s.clone();
        kept.retain(|&x| x != 1);

        let v = dev_from_slice(&space, "v", &s).unwrap();
        let m = unique(&space, &v).unwrap();
        let got = to_host(&v);
        assert_eq!(&got[..m], &dedup[..], "unique n={n}");
        assert_eq!(&got[m..], &s[m..], "unique leaves the tail n={n}");

        let v = dev_from_slice(&space, "v", &s).unwrap();
        let m = remove(&space, &v, 1).unwrap();
        let got = to_host(&v);
        assert_eq!(&got[..m], &kept[..], "remove n={n}");
        assert_eq!(&got[m..], &s[m..], "remove leaves the tail n={n}");

        let src = dev_from_slice(&space, "src", &s).unwrap();
        let dst = dev_from_slice(&space, "dst", &vec![-1; n + 2]).unwrap();
        let m = unique_copy(&space, &src, &dst).unwrap();
        let got = to_host(&dst);
        assert_eq!(&got[..m], &dedup[..], "unique_copy n={n}");
        assert!(got[m..].iter().all(|&x| x == -1), "unique_copy tail n={n}");
        let m = remove_copy(&space, &src, &dst, 1).unwrap();
        assert_eq!(&to_host(&dst)[..m], &kept[..], "remove_copy n={n}");
    }
    // Equal floats of either sign are one run; NaNs are all kept.
    let f = [0.0, -0.0, 1.0, f64::NAN, f64::NAN, 1.0];
    let v = dev_from_slice(&space, "f", &f).unwrap();
    let m = unique(&space, &v).unwrap();
    let got = to_host(&v);
    assert_eq!(m, 5);
    assert!(got[0] == 0.0 && got[0].is_sign_positive() && got[1] == 1.0);
    assert!(got[2].is_nan() && got[3].is_nan() && got[4] == 1.0);
}
per_backend!(compaction);

/// The algorithms on a strided row of a `LayoutLeft` matrix and on a `LayoutLeft` View, leaving
/// the rest of the matrix alone.
fn layouts<E: ExecutionSpace>(space: E) {
    let (rows, cols) = (3, 300);
    let data = small(60, rows * cols, 4);
    let m: DevView<E, i32, 2, LayoutLeft> =
        dev_from_vec(&space, "m", [rows, cols], data.clone()).unwrap();
    // Column-major: element (r, c) at r + rows * c.
    let row = |r: usize| -> Vec<i32> { (0..cols).map(|c| data[r + rows * c]).collect() };
    let r1: View<i32, 1, LayoutStride, E::Memory> = m.subview((1, ..)).unwrap();
    assert_eq!(r1.stride(0), rows);
    let want = row(1);
    assert_eq!(reduce(&space, &r1).unwrap(), want.iter().sum::<i32>());
    assert_eq!(min_element(&space, &r1).unwrap(), std_extrema(&want).0);
    let out: DevView<E, i32, 1, LayoutLeft> = dev(&space, "out", [cols]).unwrap();
    inclusive_scan(&space, &r1, &out).unwrap();
    let incl: Vec<i32> = want
        .iter()
        .scan(0, |s, &x| {
            *s += x;
            Some(*s)
        })
        .collect();
    assert_eq!(to_host(&out), incl);
    reverse(&space, &r1).unwrap();
    let n = unique(&space, &r1).unwrap();
    let mut rev: Vec<i32> = want.iter().rev().copied().collect();
    let tail = rev.clone();
    rev.dedup();
    let got = to_host(&r1);
    assert_eq!(&got[..n], &rev[..]);
    assert_eq!(&got[n..], &tail[n..]);
    let r2: View<i32, 1, LayoutStride, E::Memory> = m.subview((2, ..)).unwrap();
    copy(&space, &out, &r2).unwrap();
    let whole = to_host(&m); // row-major order
    for r in [0, 2] {
        let got: Vec<i32> = (0..cols).map(|c| whole[r * cols + c]).collect();
        assert_eq!(got, if r == 0 { row(0) } else { incl.clone() }, "row {r}");
    }
}
per_backend!(layouts);

/// Byte and float element types: `u8` (packed four to a word on wgpu) and `f32`.
fn small_types<E: ExecutionSpace>(space: E) {
    let n = 257;
    let b: Vec<u8> = splitmix(70, n).into_iter().map(|x| (x % 3) as u8).collect();
    let v = dev_from_slice(&space, "bytes", &b).unwrap();
    assert_eq!(
        count(&space, &v, 2).unwrap(),
        b.iter().filter(|&&x| x == 2).count()
    );
    reverse(&space, &v).unwrap();
    let mut want: Vec<u8> = b.iter().rev().copied().collect();
    assert_eq!(to_host(&v), want);
    let m = unique(&space, &v).unwrap();
    want.dedup();
    assert_eq!(&to_host(&v)[..m], &want[..]);
    let w: DevView<E, u8> = dev(&space, "w", [n]).unwrap();
    fill(&space, &w, 200).unwrap();
    adjacent_difference(&space, &v, &w).unwrap();
    let got = to_host(&w);
    let host = to_host(&v);
    assert_eq!(got[0], host[0]);
    assert!((1..n).all(|i| got[i] == host[i].wrapping_sub(host[i - 1])));

    let f: Vec<f32> = floats(71, n).into_iter().map(|x| x as f32).collect();
    let fv = dev_from_slice(&space, "f32", &f).unwrap();
    assert_eq!(max_element(&space, &fv).unwrap(), std_extrema(&f).1);
    let got = reduce(&space, &fv).unwrap() as f64;
    let want: f64 = f.iter().map(|&x| x as f64).sum();
    assert!((got - want).abs() < 1e-3, "f32 sum {got} against {want}");
}
per_backend!(small_types);

fn errors<E: ExecutionSpace>(space: E) {
    let a = dev_from_slice(&space, "alpha", &[1i64, 2, 3]).unwrap();
    let b: DevView<E, i64> = dev(&space, "beta", [4]).unwrap();
    let short: DevView<E, i64> = dev(&space, "short", [2]).unwrap();
    let mismatch = |e: rokkos::Error, names: [&str; 2]| match &e {
        rokkos::Error::ShapeMismatch { what } => {
            assert!(names.iter().all(|n| what.contains(n)), "{what}")
        }
        other => panic!("expected ShapeMismatch, got {other}"),
    };
    mismatch(copy(&space, &a, &b).unwrap_err(), ["alpha", "beta"]);
    mismatch(
        inclusive_scan(&space, &a, &b).unwrap_err(),
        ["alpha", "beta"],
    );
    mismatch(
        exclusive_scan(&space, &b, &a, 0).unwrap_err(),
        ["alpha", "beta"],
    );
    mismatch(
        reverse_copy(&space, &a, &short).unwrap_err(),
        ["alpha", "short"],
    );
    mismatch(swap_ranges(&space, &a, &b).unwrap_err(), ["alpha", "beta"]);
    mismatch(
        adjacent_difference(&space, &a, &b).unwrap_err(),
        ["alpha", "beta"],
    );
    mismatch(
        unique_copy(&space, &a, &short).unwrap_err(),
        ["alpha", "short"],
    );
    mismatch(
        remove_copy(&space, &a, &short, 1).unwrap_err(),
        ["alpha", "short"],
    );
    // A longer destination is fine for the compactions; nothing was written by the failures.
    assert_eq!(unique_copy(&space, &a, &b).unwrap(), 3);
    assert_eq!(to_host(&short), [0, 0]);
    // Overlapping source and destination.
    let e = copy(&space, &a, &a).unwrap_err();
    assert!(matches!(e, rokkos::Error::Aliasing { .. }), "{e}");
}
per_backend!(errors);

/// Random sizes (mostly edge sizes) and data: scans, extrema and compaction against `std`.
fn random_sizes<E: ExecutionSpace>(space: E) {
    use rokkos_testing::proptest::prelude::*;
    use rokkos_testing::proptest::test_runner::{Config, TestRunner};
    let config = Config {
        cases: 6,
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (rokkos_testing::sizes(), any::<u64>());
    TestRunner::new(config)
        .run(&strategy, |(n, seed)| {
            let s = small(seed, n, 4);
            let v = dev_from_slice(&space, "v", &s).unwrap();
            let out: DevView<E, i32> = dev(&space, "out", [n]).unwrap();
            let total = exclusive_scan(&space, &v, &out, 0).unwrap();
            let mut want = Vec::with_capacity(n);
            let mut acc = 0;
            for &x in &s {
                want.push(acc);
                acc += x;
            }
            prop_assert_eq!((to_host(&out), total), (want, acc));
            let (lo, _, hi_last) = std_extrema(&s);
            prop_assert_eq!(minmax_element(&space, &v).unwrap(), (lo, hi_last));
            let mut dedup = s.clone();
            dedup.dedup();
            let m = unique_copy(&space, &v, &out).unwrap();
            prop_assert_eq!(&to_host(&out)[..m], &dedup[..]);
            Ok(())
        })
        .unwrap();
}
per_backend!(random_sizes);

#[rokkos::func]
fn is_even(x: i64) -> bool {
    x % 2 == 0
}
#[rokkos::func]
fn above(x: f64) -> bool {
    x > 25.0
}
#[rokkos::func]
fn affine(x: i64) -> i64 {
    x.wrapping_mul(3).wrapping_add(1)
}
/// A result of another type than the argument's.
#[rokkos::func]
fn half(x: i32) -> f64 {
    x as f64 * 0.5
}
#[rokkos::func]
fn fma3(x: f64, y: f64) -> f64 {
    x * y + 3.0
}
/// A generic `#[func]` passed as a value at one type.
#[rokkos::func]
fn square<T: Float>(x: T) -> T {
    x * x
}

/// The algorithms taking a `#[func]`: against `std`'s `map`, `filter`, `position`, `retain`, ...
fn functional<E: ExecutionSpace>(space: E) {
    for (k, &n) in SIZES.iter().enumerate() {
        let data: Vec<i64> = ints(80 + k as u64, n)
            .into_iter()
            .map(|x| x % 1000)
            .collect();
        let v = dev_from_slice(&space, "v", &data).unwrap();
        let even = |x: &i64| x % 2 == 0;
        let out: DevView<E, i64> = dev(&space, "out", [n]).unwrap();

        transform(&space, &v, &out, affine {}).unwrap();
        let mapped: Vec<i64> = data
            .iter()
            .map(|&x| x.wrapping_mul(3).wrapping_add(1))
            .collect();
        assert_eq!(to_host(&out), mapped, "transform n={n}");
        let s = transform_reduce(&space, &v, 7, affine {}).unwrap();
        assert_eq!(
            s,
            mapped.iter().fold(7i64, |a, &x| a.wrapping_add(x)),
            "transform_reduce"
        );

        assert_eq!(
            count_if(&space, &v, is_even {}).unwrap(),
            data.iter().filter(|x| even(x)).count()
        );
        assert_eq!(
            find_if(&space, &v, is_even {}).unwrap(),
            data.iter().position(even).unwrap_or(n),
            "find_if n={n}"
        );
        assert_eq!(
            find_if_not(&space, &v, is_even {}).unwrap(),
            data.iter().position(|x| !even(x)).unwrap_or(n),
            "find_if_not n={n}"
        );
        assert_eq!(
            all_of(&space, &v, is_even {}).unwrap(),
            data.iter().all(even)
        );
        assert_eq!(
            any_of(&space, &v, is_even {}).unwrap(),
            data.iter().any(even)
        );
        assert_eq!(
            none_of(&space, &v, is_even {}).unwrap(),
            !data.iter().any(even)
        );

        let kept: Vec<i64> = data.iter().copied().filter(even).collect();
        let dropped: Vec<i64> = data.iter().copied().filter(|x| !even(x)).collect();
        let m = copy_if(&space, &v, &out, is_even {}).unwrap();
        assert_eq!(&to_host(&out)[..m], &kept[..], "copy_if n={n}");
        let m = remove_copy_if(&space, &v, &out, is_even {}).unwrap();
        assert_eq!(&to_host(&out)[..m], &dropped[..], "remove_copy_if n={n}");
        let w = dev_from_slice(&space, "w", &data).unwrap();
        let m = remove_if(&space, &w, is_even {}).unwrap();
        let got = to_host(&w);
        assert_eq!(&got[..m], &dropped[..], "remove_if n={n}");
        assert_eq!(&got[m..], &data[m..], "remove_if tail n={n}");
        replace_if(&space, &w, is_even {}, -1).unwrap();
        let want: Vec<i64> = got.iter().map(|&x| if even(&x) { -1 } else { x }).collect();
        assert_eq!(to_host(&w), want, "replace_if n={n}");

        let f = floats(90 + k as u64, n);
        let fv = dev_from_slice(&space, "f", &f).unwrap();
        let g = dev_from_slice(&space, "g", &floats(91 + k as u64, n)).unwrap();
        let fo: DevView<E, f64> = dev(&space, "fo", [n]).unwrap();
        transform_binary(&space, &fv, &g, &fo, fma3 {}).unwrap();
        let gh = to_host(&g);
        let want: Vec<f64> = f.iter().zip(&gh).map(|(x, y)| x * y + 3.0).collect();
        let got = to_host(&fo);
        for (a, b) in got.iter().zip(&want) {
            assert_close(*a, *b, b.abs(), "transform_binary");
        }
        let dot = transform_reduce_binary(&space, &fv, &g, 0.0, fma3 {}).unwrap();
        let scale: f64 = want.iter().map(|x| x.abs()).sum();
        assert_close(dot, want.iter().sum(), scale, "transform_reduce_binary");
        let sq = transform_reduce(&space, &fv, 0.0, square {}).unwrap();
        let want: f64 = f.iter().map(|x| x * x).sum();
        assert_close(sq, want, want, "transform_reduce square");
        assert_eq!(
            count_if(&space, &fv, above {}).unwrap(),
            f.iter().filter(|&&x| x > 25.0).count()
        );

        let h: Vec<i32> = small(92 + k as u64, n, 9);
        let hv = dev_from_slice(&space, "h", &h).unwrap();
        let ho: DevView<E, f64> = dev(&space, "ho", [n]).unwrap();
        transform(&space, &hv, &ho, half {}).unwrap();
        let want: Vec<f64> = h.iter().map(|&x| x as f64 * 0.5).collect();
        assert_eq!(to_host(&ho), want, "transform to another type n={n}");
    }
    // Mismatched extents.
    let a = dev_from_slice(&space, "alpha", &[1i64, 2, 3]).unwrap();
    let b: DevView<E, i64> = dev(&space, "beta", [2]).unwrap();
    let e = transform(&space, &a, &b, affine {}).unwrap_err();
    assert!(
        matches!(&e, rokkos::Error::ShapeMismatch { what } if what.contains("beta")),
        "{e}"
    );
    let e = copy_if(&space, &a, &b, is_even {}).unwrap_err();
    assert!(
        matches!(&e, rokkos::Error::ShapeMismatch { what } if what.contains("alpha")),
        "{e}"
    );
}
per_backend!(functional);
