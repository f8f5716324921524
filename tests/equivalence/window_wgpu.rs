//! Windowed launches (issue 15, item 4): on a wgpu device whose storage bindings hold a few
//! hundred bytes ([`rokkos::Wgpu::with_max_binding`]), Views of a few thousand elements take
//! far more chunks than lavapipe's 32 bindings per shader stage, so a `RangePolicy`'s
//! `parallel_for` or `parallel_reduce` whose every access to a split View is the work index
//! plus or minus a literal runs as consecutive windows of its range, each binding only the
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

/// `parallel_scan` is not windowed: over more chunks than bindings it is refused, naming
/// windowed launches and the pattern, and writes nothing.
#[test]
fn scans_are_not_windowed() {
    if crate::wgpu_space().is_none() {
        return;
    }
    let s = Wgpu::with_max_binding(1024).expect("a device with a binding limit");
    let n = 1 << 14;
    let x: DevView<Wgpu, i32> = dev_from_fn(&s, "x", [n], |[i]| i as i32 % 5).unwrap();
    let out: DevView<Wgpu, i32> = dev_from_fn(&s, "out", [n], |_| -1).unwrap();
    match parallel_scan("running", RangePolicy::new(&s, 0..n), running(&x, &out)) {
        Err(Error::Unsupported { feature, .. }) => {
            for part in [
                "running",
                "View `x` in 64 bindings",
                "windowed launches",
                "parallel_scan",
            ] {
                assert!(feature.contains(part), "{part}: {feature}");
            }
            assert!(to_host(&out).iter().all(|&v| v == -1));
        }
        // An adapter with more bindings per stage than lavapipe runs it.
        Ok(total) => assert_eq!(total, (0..n).map(|i| i as i32 % 5).sum::<i32>()),
        Err(e) => panic!("{e}"),
    }
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
/// reaches too many chunks; an MDRange reduction over as many chunks is refused, naming
/// windowed launches.
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

        let r = parallel_reduce(
            "sum_u",
            MDRangePolicy::new(&s, [0, 0], [n, m]),
            sum_u(&u),
            Sum,
        );
        match r {
            Err(Error::Unsupported { feature, .. }) => {
                for part in [
                    "sum_u",
                    "windowed launches",
                    "an MDRangePolicy's parallel_reduce",
                ] {
                    prop_assert!(feature.contains(part), "{}: {}", part, feature);
                }
            }
            // It fits when the grid takes few enough chunks.
            Ok(v) => prop_assert_eq!(v, us.iter().sum::<f64>()),
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        }
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
