//! Windowed launches (issue 15, item 4): on a wgpu device whose storage bindings hold a few
//! hundred bytes ([`rokkos::Wgpu::with_max_binding`]), Views of a few thousand elements take
//! far more chunks than lavapipe's 32 bindings per shader stage, so a `RangePolicy`'s
//! `parallel_for`, `parallel_reduce` or `parallel_scan`, or an `MDRangePolicy`'s
//! `parallel_for` or `parallel_reduce`, whose every access to a split View is the work index
//! plus or minus a literal runs as consecutive windows of its work, each binding only the
//! chunks it reaches. Each result is compared with a plain Rust loop; an out-of-bounds index
//! near a window's edge is still `Err(OutOfBounds)` and reaches no other element; a kernel
//! with another index into a split View is refused, saying why. (The module's name says wgpu
//! so that `scripts/valgrind.sh`, which skips wgpu tests, skips these: lavapipe under memcheck
//! would take most of CI's time.)
#![cfg(feature = "wgpu")]

use crate::{dev_from_fn, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;
use rokkos::Wgpu;

/// Every shift in -2..=2 of three Views of different element sizes (`i32`, `f64`, packed
/// `u8`), weighted by `w[c + 2]` (a small View, bound whole), guarded at the range's ends.
#[kernel]
fn shifts(
    i: usize,
    y: ViewMut<i32>,
    fy: ViewMut<f64>,
    by: ViewMut<u8>,
    x: View<i32>,
    f: View<f64>,
    b: View<u8>,
    w: View<i32>,
) {
    let n = x.extent(0);
    let mut s = w[2] * x[i];
    let mut t = w[2] as f64 * f[i];
    let mut u = w[2] * b[i] as i32;
    if i >= 2 {
        s += w[0] * x[i - 2];
        t += w[0] as f64 * f[i - 2];
        u += w[0] * b[i - 2] as i32;
    }
    if i >= 1 {
        s += w[1] * x[i - 1];
        t += w[1] as f64 * f[i - 1];
        u += w[1] * b[i - 1] as i32;
    }
    if i + 1 < n {
        s += w[3] * x[i + 1];
        t += w[3] as f64 * f[i + 1];
        u += w[3] * b[i + 1] as i32;
    }
    if i + 2 < n {
        s += w[4] * x[i + 2];
        t += w[4] as f64 * f[i + 2];
        u += w[4] * b[i + 2] as i32;
    }
    y[i] = s;
    fy[i] = t;
    by[i] = u as u8;
}

/// The same neighbourhood folded three ways at once.
#[kernel]
fn stats(
    i: usize,
    s: &mut f64,
    lo: &mut i32,
    hi: &mut i32,
    x: View<i32>,
    f: View<f64>,
    b: View<u8>,
) {
    let mut v = x[i] + b[i] as i32;
    if i >= 1 {
        v -= x[i - 1];
    }
    if i + 2 < x.extent(0) {
        v += b[i + 2] as i32;
    }
    *s += f[i] * 2.0 + v as f64;
    if v < *lo {
        *lo = v;
    }
    if v > *hi {
        *hi = v;
    }
}

/// The last index whose neighbour is larger (a `Custom` join: the right operand wins unless it
/// is -1, associative but not commutative, so the windows must join in order).
#[kernel]
fn last_rise(i: usize, acc: &mut i32, x: View<i32>) {
    if i + 1 < x.extent(0) && x[i + 1] > x[i] {
        *acc = i as i32;
    }
}

#[kernel]
fn sum_f(i: usize, acc: &mut f64, f: View<f64>) {
    *acc += f[i];
}

/// The loop `shifts` stands for.
fn shifts_loop(
    x: &[i32],
    f: &[f64],
    b: &[u8],
    w: &[i32],
    range: std::ops::Range<usize>,
) -> (Vec<i32>, Vec<f64>, Vec<u8>) {
    let n = x.len();
    let (mut y, mut fy, mut by) = (vec![-7; n], vec![-7.0; n], vec![7u8; n]);
    for i in range {
        let (mut s, mut t, mut u) = (0i32, 0f64, 0i32);
        for c in -2i64..=2 {
            let j = i as i64 + c;
            if j >= 0 && (j as usize) < n {
                let (j, k) = (j as usize, w[(c + 2) as usize]);
                s += k * x[j];
                t += k as f64 * f[j];
                u += k * b[j] as i32;
            }
        }
        y[i] = s;
        fy[i] = t;
        by[i] = u as u8;
    }
    (y, fy, by)
}

fn limits() -> impl Strategy<Value = u64> {
    proptest::sample::select(vec![256u64, 1000, 4096])
}

/// `f64` elements per chunk at binding limit `l` (the smallest of the three element types').
fn f64_chunk(l: u64) -> usize {
    (1usize << l.ilog2()) / 8
}

/// Up to about 40 chunks of the `f64` View (80 of the `i32` ones, 10 of the `u8` ones) at
/// each limit, a random sub-range and random weights: every element written equals the loop,
/// every other keeps its value; the reductions equal the loop's sum, min and max.
#[test]
fn windows_match_the_loop() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let case = limits().prop_flat_map(|l| {
        let n = 40 * f64_chunk(l);
        (
            Just(l),
            1usize..n,
            any::<u64>(),
            proptest::collection::vec(-3i32..=3, 5),
        )
    });
    crate::check(8, case, |(limit, n, seed, w)| {
        let s = Wgpu::with_max_binding(limit).expect("a device with a binding limit");
        let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
            .iter()
            .map(|&v| v as i32)
            .collect();
        let fs: Vec<f64> = crate::ints(seed ^ 1, n, -100, 100)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let bs: Vec<u8> = crate::splitmix(seed ^ 2, n)
            .iter()
            .map(|&v| v as u8)
            .collect();
        let r = seed as usize % 3;
        let range = (r * n / 7)..(n - r * n / 11);
        let x: DevView<Wgpu, i32> = dev_from_vec(&s, "x", [n], xs.clone())?;
        let f: DevView<Wgpu, f64> = dev_from_vec(&s, "f", [n], fs.clone())?;
        let b: DevView<Wgpu, u8> = dev_from_vec(&s, "b", [n], bs.clone())?;
        let wv: DevView<Wgpu, i32> = dev_from_vec(&s, "w", [5], w.clone())?;
        let y: DevView<Wgpu, i32> = dev_from_fn(&s, "y", [n], |_| -7)?;
        let fy: DevView<Wgpu, f64> = dev_from_fn(&s, "fy", [n], |_| -7.0)?;
        let by: DevView<Wgpu, u8> = dev_from_fn(&s, "by", [n], |_| 7)?;
        parallel_for(
            "shifts",
            RangePolicy::new(&s, range.clone()),
            shifts(&y, &fy, &by, &x, &f, &b, &wv),
        )?;
        let (wy, wfy, wby) = shifts_loop(&xs, &fs, &bs, &w, range.clone());
        prop_assert_eq!(to_host(&y), wy);
        prop_assert_eq!(to_host(&fy), wfy);
        prop_assert_eq!(to_host(&by), wby);

        let (got_s, got_lo, got_hi) = parallel_reduce(
            "stats",
            RangePolicy::new(&s, range.clone()),
            stats(&x, &f, &b),
            (Sum, Min, Max),
        )?;
        let (mut ws, mut wlo, mut whi) = (0f64, i32::MAX, i32::MIN);
        for i in range.clone() {
            let mut v = xs[i] + bs[i] as i32;
            if i >= 1 {
                v -= xs[i - 1];
            }
            if i + 2 < n {
                v += bs[i + 2] as i32;
            }
            ws += fs[i] * 2.0 + v as f64;
            wlo = wlo.min(v);
            whi = whi.max(v);
        }
        prop_assert_eq!((got_s, got_lo, got_hi), (ws, wlo, whi));

        let last = Custom::new(-1i32, |a: &mut i32, b: i32| {
            if b != -1 {
                *a = b;
            }
        });
        let got = parallel_reduce(
            "last_rise",
            RangePolicy::new(&s, range.clone()),
            last_rise(&x),
            last,
        )?;
        let want = range
            .clone()
            .rfind(|&i| i + 1 < n && xs[i + 1] > xs[i])
            .map_or(-1, |i| i as i32);
        prop_assert_eq!(got, want);

        // Into an element of a split View: the host joins the windows, then writes it.
        let out: DevView<Wgpu, f64> = dev_from_fn(&s, "out", [n], |_| -1.0)?;
        let k = seed as usize % n;
        let slot: DevView<Wgpu, f64, 0, LayoutStride> = out.subview([k])?;
        parallel_reduce_into(
            "sum_f",
            RangePolicy::new(&s, range.clone()),
            sum_f(&f),
            Sum,
            &slot,
        )?;
        let want: f64 = fs[range].iter().sum();
        let got = to_host(&out);
        for (i, v) in got.iter().enumerate() {
            prop_assert_eq!(*v, if i == k { want } else { -1.0 }, "element {}", i);
        }
        Ok(())
    });
}

#[kernel]
fn peek(i: usize, y: ViewMut<i32>, x: View<i32>) {
    y[i] = x[i + 1];
}

/// Work item `i` alone writes element `i + 2`, so the elements are disjoint.
#[kernel]
fn poke(i: usize, x: ViewMut<i32>) {
    unsafe {
        x[i + 2] = i as i32 + 1;
    }
}

/// `OutOfBounds` naming `kernel` and `view` of extent `m`, at an index of `m` or more.
fn assert_oob(r: rokkos::Result<()>, kernel: &str, view: &str, m: usize) {
    match r {
        Err(Error::OutOfBounds {
            kernel: k,
            view: v,
            index,
            extents,
        }) => {
            assert_eq!((k.as_str(), v.as_str()), (kernel, view));
            assert_eq!(extents, format!("({m})"));
            let at: usize = index
                .trim_matches(|c| c == '(' || c == ')')
                .parse()
                .expect("one index");
            assert!(at >= m, "index {at} of extent {m}");
        }
        other => panic!("{kernel}: expected OutOfBounds, got {other:?}"),
    }
}

/// A View whose extent ends at any point of a larger allocation (a subview), read and written
/// one past and two past its end by a windowed launch: `Err(OutOfBounds)` naming the View and
/// an index past its extent, every in-bounds element right, and no element past the extent
/// read or written (they lie in the same chunks as the View's last elements, or the next).
#[test]
fn out_of_bounds_at_a_window_edge() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let case = limits().prop_flat_map(|l| {
        let c = (1usize << l.ilog2()) / 4;
        (Just(l), 40 * c..60 * c, 1usize..3 * c)
    });
    crate::check(6, case, |(limit, n, cut)| {
        let s = Wgpu::with_max_binding(limit).expect("a device with a binding limit");
        let m = n - cut;
        let big: DevView<Wgpu, i32> = dev_from_fn(&s, "big", [n], |[i]| 1000 + i as i32)?;
        let x: DevView<Wgpu, i32, 1, LayoutStride> = big.subview((0..m,))?;
        let y: DevView<Wgpu, i32> = dev_from_fn(&s, "y", [m], |_| -1)?;
        let r =
            parallel_for("peek", RangePolicy::new(&s, 0..m), peek(&y, &x)).and_then(|()| s.fence());
        assert_oob(r, "peek", x.label(), m);
        let got = to_host(&y);
        for (i, &v) in got.iter().enumerate() {
            // The failing load yields 0 (the work item goes on), never element `m` of `big`.
            let want = if i + 1 < m { 1000 + i as i32 + 1 } else { 0 };
            prop_assert_eq!(v, want, "y[{}]", i);
        }

        let w: DevView<Wgpu, i32, 1, LayoutStride> = big.subview((0..m,))?;
        let r = parallel_for("poke", RangePolicy::new(&s, 0..m), poke(&w)).and_then(|()| s.fence());
        assert_oob(r, "poke", w.label(), m);
        let got = to_host(&big);
        for (i, &v) in got.iter().enumerate() {
            let want = match i {
                0 | 1 => 1000 + i as i32,
                _ if i < m => i as i32 - 1,
                _ => 1000 + i as i32,
            };
            prop_assert_eq!(v, want, "big[{}]", i);
        }
        Ok(())
    });
}

#[kernel]
fn every_other(i: usize, y: ViewMut<i32>, x: View<i32>) {
    y[i] = x[2 * i];
}

#[kernel]
fn gather(i: usize, y: ViewMut<i32>, x: View<i32>, idx: View<u32>) {
    y[i] = x[idx[i] as usize];
}

/// Any other index into a split View (scaled, indirect) keeps the launch refused when its
/// chunks exceed the bindings, the message naming the View, the access and why; nothing runs.
#[test]
fn other_indices_are_unsupported() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let s = Wgpu::with_max_binding(1024).expect("a device with a binding limit");
    let n = 1 << 14;
    let x: DevView<Wgpu, i32> = dev_from_fn(&s, "x", [2 * n], |[i]| i as i32).unwrap();
    let y: DevView<Wgpu, i32> = dev_from_fn(&s, "y", [n], |_| -1).unwrap();
    let idx: DevView<Wgpu, u32> = dev_from_fn(&s, "idx", [n], |[i]| (n - 1 - i) as u32).unwrap();
    let runs = [
        parallel_for(
            "every_other",
            RangePolicy::new(&s, 0..n),
            every_other(&y, &x),
        ),
        parallel_for("gather", RangePolicy::new(&s, 0..n), gather(&y, &x, &idx)),
    ];
    let mut refused = 0;
    for (r, kernel) in runs.into_iter().zip(["every_other", "gather"]) {
        match r {
            Err(Error::Unsupported { feature, .. }) => {
                for part in [
                    kernel,
                    "max_storage_buffers_per_shader_stage",
                    "windowed launches",
                    "View `x` is accessed at `x[",
                    "other than the work index plus or minus a literal",
                ] {
                    assert!(feature.contains(part), "{part}: {feature}");
                }
                refused += 1;
            }
            // An adapter with more bindings per stage than lavapipe runs it.
            Ok(()) => {}
            Err(e) => panic!("{kernel}: {e}"),
        }
    }
    if refused == 2 {
        assert!(to_host(&y).iter().all(|&v| v == -1));
    }
}

#[kernel(scan)]
fn running(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>) {
    *partial += x[i];
    if is_final {
        out[i] = *partial;
    }
}

/// `parallel_scan` over more chunks than bindings (once refused, naming windowed launches and
/// the pattern) runs as windows of its range: the inclusive prefix sums and the total of the
/// loop.
#[test]
fn scans_run_in_windows() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let s = Wgpu::with_max_binding(1024).expect("a device with a binding limit");
    let n = 1 << 14;
    let x: DevView<Wgpu, i32> = dev_from_fn(&s, "x", [n], |[i]| i as i32 % 5).unwrap();
    let out: DevView<Wgpu, i32> = dev_from_fn(&s, "out", [n], |_| -1).unwrap();
    let total = parallel_scan("running", RangePolicy::new(&s, 0..n), running(&x, &out)).unwrap();
    let want: Vec<i32> = (0..n)
        .scan(0, |acc, i| {
            *acc += i as i32 % 5;
            Some(*acc)
        })
        .collect();
    assert_eq!(total, want[n - 1]);
    assert_eq!(to_host(&out), want);
}

/// A five-point stencil (guarded at the edges) over a 2-D MDRange.
#[kernel]
fn blur((i, j): (usize, usize), out: ViewMut<f64, 2>, u: View<f64, 2>) {
    let mut s = 4.0 * u[(i, j)];
    if i >= 1 {
        s += u[(i - 1, j)];
    }
    if i + 1 < u.extent(0) {
        s += u[(i + 1, j)];
    }
    if j >= 1 {
        s += u[(i, j - 1)];
    }
    if j + 1 < u.extent(1) {
        s += u[(i, j + 1)];
    }
    out[(i, j)] = s;
}

/// Each element plus its row's first: a literal index in the second position (windows of rows
/// reach both in a LayoutRight View; in a LayoutLeft one they do not lie together).
#[kernel]
fn plus_first((i, j): (usize, usize), out: ViewMut<f64, 2>, u: View<f64, 2>) {
    out[(i, j)] = u[(i, j)] + u[(i, 0)];
}

#[kernel]
fn sum_u((i, j): (usize, usize), acc: &mut f64, u: View<f64, 2>) {
    *acc += u[(i, j)];
}

/// The loop `blur` stands for, over `lo..hi` (per dimension) of an `n × m` grid, row-major.
fn blur_loop(u: &[f64], n: usize, m: usize, lo: [usize; 2], hi: [usize; 2]) -> Vec<f64> {
    let mut out = vec![-1.0; n * m];
    for i in lo[0]..hi[0] {
        for j in lo[1]..hi[1] {
            let at = |a: usize, b: usize| u[a * m + b];
            let mut s = 4.0 * at(i, j);
            if i >= 1 {
                s += at(i - 1, j);
            }
            if i + 1 < n {
                s += at(i + 1, j);
            }
            if j >= 1 {
                s += at(i, j - 1);
            }
            if j + 1 < m {
                s += at(i, j + 1);
            }
            out[i * m + j] = s;
        }
    }
    out
}

/// The stencil over grids of up to about 160 chunks per View (LayoutRight or LayoutLeft, any
/// tile and iteration order, a random sub-box): windows of one dimension, each tiled on its
/// own, give the loop's result; so does `plus_first` on LayoutRight (`right`: windows of rows),
/// while on LayoutLeft it runs only while the first column up to the last fits the bindings
/// (windows of columns binding `u` from chunk 0) and is otherwise refused, saying that one step
/// reaches too many chunks; an MDRange reduction over as many chunks (once refused) runs in
/// windows too and gives the loop's sum.
fn mdrange_windows<L: rokkos::Layout>(right: bool) {
    let case = limits().prop_flat_map(|l| {
        let c = f64_chunk(l);
        (
            Just(l),
            (8usize..40, 2 * c..4 * c),
            any::<u64>(),
            (1usize..9, 1usize..9),
            prop_oneof![Just(Iterate::Right), Just(Iterate::Left)],
        )
    });
    crate::check(6, case, |(limit, (n, m), seed, (t0, t1), order)| {
        let s = Wgpu::with_max_binding(limit).expect("a device with a binding limit");
        let us: Vec<f64> = crate::ints(seed, n * m, -100, 100)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let u: DevView<Wgpu, f64, 2, L> = dev_from_fn(&s, "u", [n, m], |[i, j]| us[i * m + j])?;
        let out: DevView<Wgpu, f64, 2, L> = dev_from_fn(&s, "out", [n, m], |_| -1.0)?;
        let r = (seed % 3) as usize;
        let (lo, hi) = ([r, r / 2], [n - r / 2, m - r]);
        let policy = MDRangePolicy::new(&s, lo, hi).tile([t0, t1]).iterate(order);
        parallel_for("blur", policy, blur(&out, &u))?;
        let want = blur_loop(&us, n, m, lo, hi);
        prop_assert_eq!(to_host(&out), want);

        let r = parallel_for(
            "plus_first",
            MDRangePolicy::new(&s, [0, 0], [n, m]).iterate(order),
            plus_first(&out, &u),
        );
        match (r, right) {
            (Ok(()), _) => {
                let want: Vec<f64> = (0..n * m).map(|k| us[k] + us[k / m * m]).collect();
                prop_assert_eq!(to_host(&out), want);
            }
            (Err(Error::Unsupported { feature, .. }), false) => {
                for part in ["plus_first", "windowed launches", "one step of the work"] {
                    prop_assert!(feature.contains(part), "{}: {}", part, feature);
                }
            }
            (r, _) => return Err(TestCaseError::fail(format!("plus_first: {r:?}"))),
        }

        let got = parallel_reduce(
            "sum_u",
            MDRangePolicy::new(&s, [0, 0], [n, m]),
            sum_u(&u),
            Sum,
        )?;
        prop_assert_eq!(got, us.iter().sum::<f64>());
        Ok(())
    });
}

#[test]
fn mdrange_windows_right() {
    if crate::wgpu_space().is_some() {
        mdrange_windows::<LayoutRight>(true);
    }
}

#[test]
fn mdrange_windows_left() {
    if crate::wgpu_space().is_some() {
        mdrange_windows::<LayoutLeft>(false);
    }
}

/// Neighbourhood statistics over a 2-D MDRange, four reducers at once (the last one a `MaxLoc`
/// over distinct values, so that its location does not depend on the order of ties).
#[kernel]
fn md_stats(
    (i, j): (usize, usize),
    s: &mut f64,
    lo: &mut i32,
    hi: &mut i32,
    top: &mut ValLoc<f64>,
    u: View<f64, 2>,
    a: View<i32, 2>,
) {
    let mut v = a[(i, j)];
    if i >= 1 {
        v -= a[(i - 1, j)];
    }
    if j + 1 < a.extent(1) {
        v += a[(i, j + 1)];
    }
    *s += u[(i, j)] * 2.0 + v as f64;
    if v < *lo {
        *lo = v;
    }
    if v > *hi {
        *hi = v;
    }
    if u[(i, j)] > top.val {
        top.val = u[(i, j)];
        top.loc = i * u.extent(1) + j;
    }
}

/// A rolling hash of the points (each its `w` plus its left neighbour's `a`) in iteration
/// order: joined by [`hash_join`], associative but not commutative.
#[kernel]
fn md_hash(
    (i, j): (usize, usize),
    h: &mut u64,
    p: &mut u64,
    w: View<u64, 2>,
    a: View<i32, 2>,
    base: u64,
) {
    let mut v = w[(i, j)];
    if j >= 1 {
        v = v.wrapping_add(a[(i, j - 1)] as u64);
    }
    *h = (*h).wrapping_mul(base).wrapping_add(v);
    *p = (*p).wrapping_mul(base);
}

/// The join of [`md_hash`].
fn hash_join(a: &mut (u64, u64), b: (u64, u64)) {
    a.0 = a.0.wrapping_mul(b.1).wrapping_add(b.0);
    a.1 = a.1.wrapping_mul(b.1);
}

/// The flat index of the last point (in iteration order) whose `a` is odd.
#[kernel]
fn md_last_odd((i, j): (usize, usize), acc: &mut i32, a: View<i32, 2>) {
    if a[(i, j)] % 2 != 0 {
        *acc = (i * a.extent(1) + j) as i32;
    }
}

/// The points of the box `lo..hi` in the order the host backends walk an MDRange tiled by
/// `t`: tiles with the slowest dimension's tile coordinate most significant, each tile's points
/// in the policy's order (`left`: the first index fastest).
fn tile_walk(lo: [usize; 2], hi: [usize; 2], t: [usize; 2], left: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let tiles = |d: usize| (lo[d]..hi[d]).step_by(t[d]);
    let inner = |d: usize, c: usize| c..(c + t[d]).min(hi[d]);
    if left {
        for tj in tiles(1) {
            for ti in tiles(0) {
                for j in inner(1, tj) {
                    out.extend(inner(0, ti).map(|i| (i, j)));
                }
            }
        }
    } else {
        for ti in tiles(0) {
            for tj in tiles(1) {
                for i in inner(0, ti) {
                    out.extend(inner(1, tj).map(|j| (i, j)));
                }
            }
        }
    }
    out
}

/// A distinct `f64` per flat index (an odd multiplier is a bijection of the `u32`s).
fn distinct(k: usize) -> f64 {
    f64::from((k as u32).wrapping_mul(2_654_435_761))
}

/// MDRange reductions over grids of 24 to 64 slow-dimension lines of one to two chunks each
/// (every kernel's split Views then need more bindings than lavapipe's 32), LayoutRight
/// (`left == false`, lines are rows) or LayoutLeft (lines are columns), a random sub-box and
/// tiles: the built-in reducers (`Sum`, `Min`, `Max`, `MaxLoc` in one tuple, either iteration
/// order) give the loop's values; an order-sensitive `Custom` join (a rolling hash, and the
/// last odd point) iterated in the layout's order gives the loop's value over the host
/// backends' tile walk; `parallel_reduce_into` an element of a split View, with `Sum` and with
/// the `Custom` join, writes that value there and nothing else.
fn mdrange_reductions<L: rokkos::Layout>(left: bool) {
    let case = limits().prop_flat_map(|l| {
        let c = f64_chunk(l);
        (
            Just(l),
            (24usize..64, c..2 * c),
            any::<u64>(),
            (1usize..5, 1usize..9),
            any::<bool>(),
        )
    });
    crate::check(6, case, |(limit, (slow, fast), seed, (ts, tf), flip)| {
        let s = Wgpu::with_max_binding(limit).expect("a device with a binding limit");
        // Extents and tiles per dimension, the slow one first in memory order.
        let (d, t) = if left {
            ([fast, slow], [tf, ts])
        } else {
            ([slow, fast], [ts, tf])
        };
        let len = d[0] * d[1];
        let flat = |i: usize, j: usize| i * d[1] + j;
        let us: Vec<f64> = (0..len).map(|k| distinct(k ^ seed as usize)).collect();
        let is: Vec<i32> = crate::ints(seed, len, -1000, 1000)
            .iter()
            .map(|&v| v as i32)
            .collect();
        let ws: Vec<u64> = crate::splitmix(seed ^ 3, len);
        let u: DevView<Wgpu, f64, 2, L> = dev_from_fn(&s, "u", d, |[i, j]| us[flat(i, j)])?;
        let a: DevView<Wgpu, i32, 2, L> = dev_from_fn(&s, "a", d, |[i, j]| is[flat(i, j)])?;
        let w: DevView<Wgpu, u64, 2, L> = dev_from_fn(&s, "w", d, |[i, j]| ws[flat(i, j)])?;
        let r = (seed % 3) as usize;
        let (lo, hi) = ([r, r / 2], [d[0] - r / 2, d[1] - r]);
        let points = tile_walk(lo, hi, t, left);
        prop_assert_eq!(points.len(), (hi[0] - lo[0]) * (hi[1] - lo[1]));

        // Built-in reducers, in either iteration order.
        let order = if left ^ flip {
            Iterate::Left
        } else {
            Iterate::Right
        };
        let policy = || MDRangePolicy::new(&s, lo, hi).tile(t).iterate(order);
        let (gs, glo, ghi, gtop) = parallel_reduce(
            "md_stats",
            policy(),
            md_stats(&u, &a),
            (Sum, Min, Max, MaxLoc),
        )?;
        let (mut ws_, mut wlo, mut whi) = (0f64, i32::MAX, i32::MIN);
        let mut wtop = (f64::NEG_INFINITY, usize::MAX);
        for &(i, j) in &points {
            let mut v = is[flat(i, j)];
            if i >= 1 {
                v -= is[flat(i - 1, j)];
            }
            if j + 1 < d[1] {
                v += is[flat(i, j + 1)];
            }
            ws_ += us[flat(i, j)] * 2.0 + v as f64;
            wlo = wlo.min(v);
            whi = whi.max(v);
            if us[flat(i, j)] > wtop.0 {
                wtop = (us[flat(i, j)], flat(i, j));
            }
        }
        prop_assert_eq!((gs, glo, ghi), (ws_, wlo, whi));
        prop_assert_eq!((gtop.val, gtop.loc), wtop);

        // Order-sensitive joins, iterated in the layout's order (windows of whole tiles along
        // the slowest tile dimension).
        let order = if left { Iterate::Left } else { Iterate::Right };
        let policy = || MDRangePolicy::new(&s, lo, hi).tile(t).iterate(order);
        let base = 1_000_003u64;
        let got = parallel_reduce(
            "md_hash",
            policy(),
            md_hash(&w, &a, base),
            Custom::new((0u64, 1u64), hash_join),
        )?;
        let want = points.iter().fold((0u64, 1u64), |(h, p), &(i, j)| {
            let mut v = ws[flat(i, j)];
            if j >= 1 {
                v = v.wrapping_add(is[flat(i, j - 1)] as u64);
            }
            (h.wrapping_mul(base).wrapping_add(v), p.wrapping_mul(base))
        });
        prop_assert_eq!(got, want);
        let last = Custom::new(-1i32, |a: &mut i32, b: i32| {
            if b != -1 {
                *a = b;
            }
        });
        let want_last = points
            .iter()
            .rev()
            .find(|&&(i, j)| is[flat(i, j)] % 2 != 0)
            .map_or(-1, |&(i, j)| flat(i, j) as i32);
        prop_assert_eq!(
            parallel_reduce("md_last_odd", policy(), md_last_odd(&a), last)?,
            want_last
        );

        // Into an element of a split View: the host joins the windows, then writes it.
        let out: DevView<Wgpu, f64> = dev_from_fn(&s, "out", [len], |_| -1.0)?;
        let k = seed as usize % len;
        let slot: DevView<Wgpu, f64, 0, LayoutStride> = out.subview([k])?;
        parallel_reduce_into("sum_u", policy(), sum_u(&u), Sum, &slot)?;
        let want: f64 = points.iter().map(|&(i, j)| us[flat(i, j)]).sum();
        for (i, v) in to_host(&out).iter().enumerate() {
            prop_assert_eq!(*v, if i == k { want } else { -1.0 }, "element {}", i);
        }
        let lasts: DevView<Wgpu, i32> = dev_from_fn(&s, "lasts", [len], |_| -7)?;
        let slot: DevView<Wgpu, i32, 0, LayoutStride> = lasts.subview([k])?;
        parallel_reduce_into("md_last_odd", policy(), md_last_odd(&a), last, &slot)?;
        for (i, v) in to_host(&lasts).iter().enumerate() {
            prop_assert_eq!(*v, if i == k { want_last } else { -7 }, "element {}", i);
        }
        Ok(())
    });
}

#[test]
fn mdrange_reductions_right() {
    if crate::wgpu_space().is_some() {
        mdrange_reductions::<LayoutRight>(false);
    }
}

#[test]
fn mdrange_reductions_left() {
    if crate::wgpu_space().is_some() {
        mdrange_reductions::<LayoutLeft>(true);
    }
}

/// An order-sensitive (`Custom`) MDRange reduction is windowed only along its slowest tile
/// dimension, in whole tiles, so that the windows keep the host backends' order: over a
/// LayoutRight grid iterated `Iterate::Left` (columns slowest, each reaching every row) it is
/// refused, saying so, while the same kernel with `Sum` runs in windows of rows.
#[test]
fn order_sensitive_md_windows_follow_the_iteration_order() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let s = Wgpu::with_max_binding(1024).expect("a device with a binding limit");
    let (n, m) = (64, 256);
    let a: DevView<Wgpu, i32, 2> =
        dev_from_fn(&s, "a", [n, m], |[i, j]| (i * m + j) as i32).unwrap();
    let policy = || {
        MDRangePolicy::new(&s, [0, 0], [n, m])
            .tile([4, 4])
            .iterate(Iterate::Left)
    };
    let last = Custom::new(-1i32, |a: &mut i32, b: i32| {
        if b != -1 {
            *a = b;
        }
    });
    match parallel_reduce("md_last_odd", policy(), md_last_odd(&a), last) {
        Err(Error::Unsupported { feature, .. }) => {
            for part in [
                "md_last_odd",
                "windowed launches",
                "whole tiles (4 indices) of its slowest tile dimension (1)",
                "one step of the work can reach",
            ] {
                assert!(feature.contains(part), "{part}: {feature}");
            }
        }
        // An adapter with more bindings per stage than lavapipe runs it: the last odd point
        // of the last tile.
        Ok(v) => assert_eq!(v, ((n - 1) * m + m - 1) as i32),
        Err(e) => panic!("{e}"),
    }
    let sum = parallel_reduce("md_sum_i", policy(), md_sum_i(&a), Sum).unwrap();
    assert_eq!(sum, (0..(n * m) as i64).sum::<i64>());
}

#[kernel]
fn md_sum_i((i, j): (usize, usize), acc: &mut i64, a: View<i32, 2>) {
    *acc += a[(i, j)] as i64;
}

/// The exclusive prefix of `x[i] - x[i + 1]` (the last item just `x[i]`).
#[kernel(scan)]
fn exclusive_diff(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>) {
    if is_final {
        out[i] = *partial;
    }
    let mut v = x[i];
    if i + 1 < x.extent(0) {
        v -= x[i + 1];
    }
    *partial += v;
}

/// The exclusive prefix of the index.
#[kernel(scan)]
fn index_prefix(i: usize, partial: &mut u64, is_final: bool, out: ViewMut<u64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += i as u64;
}

/// The last non-zero value before each index (0 before the first): a `Custom` join that is
/// not commutative (the ordered scan's slow path).
#[kernel(scan)]
fn last_nonzero(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>) {
    if is_final {
        out[i] = *partial;
    }
    if x[i] != 0 {
        *partial = x[i];
    }
}

/// `parallel_scan` over 40 to 80 chunks of each split View (a random sub-range): the inclusive
/// prefix sums of the data, the exclusive prefix of a neighbour difference, the exclusive
/// prefix of the index (`u64`), and a `Custom` "last non-zero so far", each the loop's
/// prefixes at every index of the range (every other element untouched) and the loop's total.
#[test]
fn scans_match_the_loop_in_windows() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let case = limits().prop_flat_map(|l| {
        let c = f64_chunk(l);
        (Just(l), 40 * c..80 * c, any::<u64>())
    });
    crate::check(6, case, |(limit, n, seed)| {
        let s = Wgpu::with_max_binding(limit).expect("a device with a binding limit");
        let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
            .iter()
            .map(|&v| v as i32)
            .collect();
        let r = seed as usize % 3;
        let range = (r * n / 7)..(n - r * n / 11);
        let x: DevView<Wgpu, i32> = dev_from_vec(&s, "x", [n], xs.clone())?;
        // The loop: the prefix before each index of `range` (`inclusive`: after it) of `f`,
        // and the total; -7 outside the range.
        let scan = |inclusive: bool, f: &dyn Fn(usize) -> i64| -> (Vec<i64>, i64) {
            let mut out = vec![-7i64; n];
            let mut acc = 0i64;
            for i in range.clone() {
                if !inclusive {
                    out[i] = acc;
                }
                acc += f(i);
                if inclusive {
                    out[i] = acc;
                }
            }
            (out, acc)
        };
        let widen = |v: Vec<i32>| v.into_iter().map(i64::from).collect::<Vec<i64>>();

        let out: DevView<Wgpu, i32> = dev_from_fn(&s, "out", [n], |_| -7)?;
        let total = parallel_scan(
            "running",
            RangePolicy::new(&s, range.clone()),
            running(&x, &out),
        )?;
        let (want, want_total) = scan(true, &|i| i64::from(xs[i]));
        prop_assert_eq!(i64::from(total), want_total);
        prop_assert_eq!(widen(to_host(&out)), want);

        let out: DevView<Wgpu, i32> = dev_from_fn(&s, "out", [n], |_| -7)?;
        let total = parallel_scan(
            "exclusive_diff",
            RangePolicy::new(&s, range.clone()),
            exclusive_diff(&x, &out),
        )?;
        let (want, want_total) = scan(false, &|i| {
            i64::from(xs[i]) - if i + 1 < n { i64::from(xs[i + 1]) } else { 0 }
        });
        prop_assert_eq!(i64::from(total), want_total);
        prop_assert_eq!(widen(to_host(&out)), want);

        let idx: DevView<Wgpu, u64> = dev_from_fn(&s, "idx", [n], |_| u64::MAX)?;
        let total = parallel_scan(
            "index_prefix",
            RangePolicy::new(&s, range.clone()),
            index_prefix(&idx),
        )?;
        let (want, want_total) = scan(false, &|i| i as i64);
        prop_assert_eq!(total as i64, want_total);
        let got: Vec<i64> = to_host(&idx)
            .into_iter()
            .map(|v| if v == u64::MAX { -7 } else { v as i64 })
            .collect();
        prop_assert_eq!(got, want);

        // Mostly zeros, so that "last non-zero" reaches back across windows.
        let zs: Vec<i32> = xs
            .iter()
            .map(|&v| if v.abs() < 990 { 0 } else { v })
            .collect();
        let z: DevView<Wgpu, i32> = dev_from_vec(&s, "z", [n], zs.clone())?;
        let out: DevView<Wgpu, i32> = dev_from_fn(&s, "out", [n], |_| -7)?;
        let last = Custom::new(0i32, |a: &mut i32, b: i32| {
            if b != 0 {
                *a = b;
            }
        });
        let total = parallel_scan_with(
            "last_nonzero",
            RangePolicy::new(&s, range.clone()),
            last_nonzero(&z, &out),
            last,
        )?;
        let mut want = vec![-7; n];
        let mut run = 0;
        for i in range.clone() {
            want[i] = run;
            if zs[i] != 0 {
                run = zs[i];
            }
        }
        prop_assert_eq!(total, run);
        prop_assert_eq!(to_host(&out), want);
        Ok(())
    });
}

#[kernel]
fn team_row_sums(team: &TeamMember, a: View<i64, 2>, out: ViewMut<i64>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), Sum, |j, acc: &mut i64| {
        *acc += a[(l, j)];
    });
    team.single_team(|| {
        out[l] = s;
    });
}

/// A team policy over more chunks than bindings stays refused (no rule bounds what a run of
/// league ranks reaches through nested ranges), the message naming the kernel, its split
/// Views, windowed launches and why; nothing runs.
#[test]
fn teams_are_not_windowed() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let s = Wgpu::with_max_binding(1024).expect("a device with a binding limit");
    let (n, m) = (64, 256);
    let a: DevView<Wgpu, i64, 2> = dev_from_fn(&s, "a", [n, m], |[i, j]| (i + j) as i64).unwrap();
    let out: DevView<Wgpu, i64> = dev_from_fn(&s, "out", [n], |_| -1).unwrap();
    let policy = TeamPolicy::new(&s, n, TeamSize::Auto);
    match parallel_for("team_row_sums", policy, team_row_sums(&a, &out)) {
        Err(Error::Unsupported { feature, .. }) => {
            for part in [
                "team_row_sums",
                "View `a` in 128 bindings",
                "windowed launches",
                "a TeamPolicy",
                "runs of league ranks",
                "nested thread and vector ranges",
            ] {
                assert!(feature.contains(part), "{part}: {feature}");
            }
            assert!(to_host(&out).iter().all(|&v| v == -1));
        }
        // An adapter with more bindings per stage than lavapipe runs it.
        Ok(()) => {
            let want: Vec<i64> = (0..n)
                .map(|i| (0..m).map(|j| (i + j) as i64).sum())
                .collect();
            assert_eq!(to_host(&out), want);
        }
        Err(e) => panic!("{e}"),
    }
}
