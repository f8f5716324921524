//! Neighbour reads (`u[(i - 1, j + 2)]`, `x[i + 1]`, literal components `q[(i, 1)]`) at the edges
//! of the Views: host backends check such accesses once per chunk or tile and run the rest of the
//! chunk unchecked, so every box whose extended reach leaves a View must still fail (a panic or an
//! `Err` naming the kernel and the View), and every box inside must give exactly what a host loop
//! computes. Boxes, tiles, orders and View extents are drawn around the edges. The data are small
//! integers, so every backend's sums are exact and compared bit for bit.

use crate::{check, dev, dev_from_fn, to_host, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;

#[kernel]
fn shifted2((i, j): (usize, usize), v: ViewMut<f64, 2>, u: View<f64, 2>) {
    v[(i, j)] = u[(i - 1, j + 2)] + 2.0 * u[(i + 1, j)] + 4.0 * u[(1, j - 1)];
}

#[kernel]
fn shifted3((i, j, k): (usize, usize, usize), v: ViewMut<f64, 3>, u: View<f64, 3>) {
    v[(i, j, k)] += u[(i, j - 1, k + 1)] - 3.0 * u[(i + 1, j, 2)];
}

#[kernel]
fn shifted_sum((i, j): (usize, usize), acc: &mut f64, u: View<f64, 2>) {
    *acc += u[(i + 1, j - 1)] * u[(i, j)];
}

#[kernel]
fn diff1(i: usize, d: ViewMut<f64>, x: View<f64>, m: View<f64, 2>) {
    d[i] = x[i + 1] - x[i] + m[(i, 1)];
}

/// `u(idx)` as the host computes it, `None` when the index leaves the extents (a component below
/// zero wraps, as `usize` arithmetic does in release builds, and is out of bounds too).
fn at<const R: usize>(data: &[f64], extents: [usize; R], idx: [i64; R]) -> Option<f64> {
    let mut off = 0usize;
    for k in 0..R {
        if idx[k] < 0 || idx[k] as usize >= extents[k] {
            return None;
        }
        off = off * extents[k] + idx[k] as usize;
    }
    Some(data[off])
}

/// Small integers, distinct enough that a wrong neighbour changes the result.
fn value(seed: u64, off: usize) -> f64 {
    ((seed as usize).wrapping_add(off.wrapping_mul(7)) % 23) as f64 - 11.0
}

fn orders() -> impl Strategy<Value = Iterate> {
    prop_oneof![Just(Iterate::Right), Just(Iterate::Left)]
}

/// A box `begin..end` of 0 to 6 items per dimension starting at 0 to 3, tiles 0 (default) to 3,
/// and View extents from two below the box's end to two past it: the neighbours of the box's
/// edge items fall just inside or just outside the View about equally often.
#[allow(clippy::type_complexity)]
fn boxes<const N: usize>() -> impl Strategy<Value = ([usize; N], [usize; N], [usize; N], [usize; N])>
{
    (
        proptest::array::uniform(0usize..4),
        proptest::array::uniform(0usize..7),
        proptest::array::uniform(0usize..4),
        proptest::array::uniform(0usize..5),
    )
        .prop_map(
            |(b, len, t, slack): ([usize; N], [usize; N], [usize; N], [usize; N])| {
                let (mut e, mut extents) = (b, b);
                for k in 0..N {
                    e[k] += len[k];
                    extents[k] = (e[k] + slack[k]).saturating_sub(2);
                }
                (b, e, t, extents)
            },
        )
}

/// Every index of the box `begin..end`, row-major.
fn box_points<const N: usize>(begin: [usize; N], end: [usize; N]) -> Vec<[usize; N]> {
    let mut out = Vec::new();
    if (0..N).any(|k| begin[k] >= end[k]) {
        return out;
    }
    let mut idx = begin;
    'outer: loop {
        out.push(idx);
        for k in (0..N).rev() {
            idx[k] += 1;
            if idx[k] < end[k] {
                continue 'outer;
            }
            idx[k] = begin[k];
        }
        return out;
    }
}

/// The launch `r` failed inside a work item naming `kernel` and one of `views` (or, in a debug
/// build, on the `usize` underflow of a negative offset, which is Rust's own check).
fn expect_failure(
    r: std::thread::Result<rokkos::Result<()>>,
    kernel: &str,
    views: &[&str],
) -> Result<(), TestCaseError> {
    let msg = match r {
        Err(p) => crate::panic_message(&*p),
        Ok(Err(e)) => e.to_string(),
        Ok(Ok(())) => return Err(TestCaseError::fail("an out-of-bounds neighbour read ran")),
    };
    let named = msg.contains(kernel) && views.iter().any(|v| msg.contains(&format!("`{v}`")));
    prop_assert!(named || msg.contains("overflow"), "{msg}");
    Ok(())
}

fn launch<E: ExecutionSpace>(
    space: &E,
    f: impl FnOnce() -> rokkos::Result<()>,
) -> std::thread::Result<rokkos::Result<()>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        f().and_then(|()| space.fence())
    }))
}

/// 2-D: offsets in both directions and a literal row, every tile and order.
fn neighbours_2d<E: ExecutionSpace>(space: E) {
    let strategy = (boxes::<2>(), orders(), any::<u64>());
    check(64, strategy, |((b, e, t, ue), order, seed)| {
        let u: DevView<E, f64, 2> = dev_from_fn(&space, "u", ue, |[a, c]| value(seed, a * 16 + c))?;
        let host_u = to_host(&u);
        let ve = [e[0].max(1), e[1].max(1)];
        let v: DevView<E, f64, 2> = dev(&space, "v", ve)?;
        let policy = MDRangePolicy::new(&space, b, e).tile(t).iterate(order);
        let r = launch(&space, || {
            parallel_for("shifted2", policy, shifted2(&v, &u))
        });
        let mut want = vec![0.0; ve[0] * ve[1]];
        let mut in_bounds = true;
        for [i, j] in box_points(b, e) {
            let (i, j) = (i as i64, j as i64);
            let reads = (
                at(&host_u, ue, [i - 1, j + 2]),
                at(&host_u, ue, [i + 1, j]),
                at(&host_u, ue, [1, j - 1]),
            );
            match reads {
                (Some(a), Some(c), Some(d)) => {
                    want[i as usize * ve[1] + j as usize] = a + 2.0 * c + 4.0 * d
                }
                _ => in_bounds = false,
            }
        }
        if in_bounds {
            prop_assert!(
                matches!(r, Ok(Ok(()))),
                "box {b:?}..{e:?} in bounds failed: {r:?}"
            );
            prop_assert_eq!(to_host(&v), want);
        } else {
            expect_failure(r, "shifted2", &["u"])?;
        }
        Ok(())
    });
}
per_backend!(neighbours_2d);

/// 3-D: a compound assignment to the owned element and a literal innermost component.
fn neighbours_3d<E: ExecutionSpace>(space: E) {
    let strategy = (boxes::<3>(), orders(), any::<u64>());
    check(64, strategy, |((b, e, t, ue), order, seed)| {
        let u: DevView<E, f64, 3> = dev_from_fn(&space, "u", ue, |[a, c, d]| {
            value(seed, (a * 16 + c) * 16 + d)
        })?;
        let host_u = to_host(&u);
        let ve = [e[0].max(1), e[1].max(1), e[2].max(1)];
        let start = |off: usize| value(seed ^ 0x55, off);
        let v: DevView<E, f64, 3> = dev_from_fn(&space, "v", ve, |[a, c, d]| {
            start((a * ve[1] + c) * ve[2] + d)
        })?;
        let policy = MDRangePolicy::new(&space, b, e).tile(t).iterate(order);
        let r = launch(&space, || {
            parallel_for("shifted3", policy, shifted3(&v, &u))
        });
        let mut want: Vec<f64> = (0..ve.iter().product()).map(start).collect();
        let mut in_bounds = true;
        for [i, j, k] in box_points(b, e) {
            let o = (i * ve[1] + j) * ve[2] + k;
            let (i, j, k) = (i as i64, j as i64, k as i64);
            match (
                at(&host_u, ue, [i, j - 1, k + 1]),
                at(&host_u, ue, [i + 1, j, 2]),
            ) {
                (Some(a), Some(c)) => want[o] += a - 3.0 * c,
                _ => in_bounds = false,
            }
        }
        if in_bounds {
            prop_assert!(
                matches!(r, Ok(Ok(()))),
                "box {b:?}..{e:?} in bounds failed: {r:?}"
            );
            prop_assert_eq!(to_host(&v), want);
        } else {
            expect_failure(r, "shifted3", &["u"])?;
        }
        Ok(())
    });
}
per_backend!(neighbours_3d);

/// A reduction over a 2-D box with neighbour reads.
fn neighbour_reduce<E: ExecutionSpace>(space: E) {
    let strategy = (boxes::<2>(), orders(), any::<u64>());
    check(64, strategy, |((b, e, t, ue), order, seed)| {
        let u: DevView<E, f64, 2> = dev_from_fn(&space, "u", ue, |[a, c]| value(seed, a * 16 + c))?;
        let host_u = to_host(&u);
        let policy = MDRangePolicy::new(&space, b, e).tile(t).iterate(order);
        let mut got = 0.0;
        let r = launch(&space, || {
            got = parallel_reduce("shifted_sum", policy, shifted_sum(&u), Sum)?;
            Ok(())
        });
        let mut want = Some(0.0);
        for [i, j] in box_points(b, e) {
            let (i, j) = (i as i64, j as i64);
            want = match (
                want,
                at(&host_u, ue, [i + 1, j - 1]),
                at(&host_u, ue, [i, j]),
            ) {
                (Some(s), Some(a), Some(c)) => Some(s + a * c),
                _ => None,
            };
        }
        match want {
            Some(w) => {
                prop_assert!(
                    matches!(r, Ok(Ok(()))),
                    "box {b:?}..{e:?} in bounds failed: {r:?}"
                );
                prop_assert_eq!(got, w);
            }
            None => expect_failure(r, "shifted_sum", &["u"])?,
        }
        Ok(())
    });
}
per_backend!(neighbour_reduce);

/// A range kernel reading one past its own index and a literal column, over chunk sizes that cut
/// the range anywhere.
fn neighbours_range<E: ExecutionSpace>(space: E) {
    // Extents around `n`, so that the last item's neighbours fall just inside or just outside.
    let strategy = (
        0usize..40,
        0usize..4,
        0usize..4,
        0usize..4,
        crate::chunk_sizes(),
    );
    check(64, strategy, |(n, sx, sm, cols, chunk)| {
        let (nx, nm) = ((n + sx).saturating_sub(1), (n + sm).saturating_sub(1));
        let x: DevView<E, f64> = dev_from_fn(&space, "x", [nx], |[a]| value(3, a))?;
        let m: DevView<E, f64, 2> =
            dev_from_fn(&space, "m", [nm, cols], |[a, c]| value(5, a * 4 + c))?;
        let d: DevView<E, f64> = dev(&space, "d", [n])?;
        let policy = RangePolicy::new(&space, 0..n).chunk_size(chunk);
        let r = launch(&space, || parallel_for("diff1", policy, diff1(&d, &x, &m)));
        let (hx, hm) = (to_host(&x), to_host(&m));
        let reads_ok = n == 0 || (n < nx && n <= nm && cols > 1);
        if reads_ok {
            prop_assert!(matches!(r, Ok(Ok(()))), "n {n} in bounds failed: {r:?}");
            let want: Vec<f64> = (0..n)
                .map(|i| hx[i + 1] - hx[i] + hm[i * cols + 1])
                .collect();
            prop_assert_eq!(to_host(&d), want);
        } else {
            // Which read fails first depends on which chunk reaches its edge first.
            expect_failure(r, "diff1", &["x", "m"])?;
        }
        Ok(())
    });
}
per_backend!(neighbours_range);

/// Innermost loops over a range are checked once before they run: a team range reading the
/// league's row at `j + 1` and a literal column, and a plain `lo..hi` loop in a range kernel
/// reading a fixed row `i` at `k - 1`.
#[kernel]
fn team_shift(team: &TeamMember, out: ViewMut<f64, 2>, a: View<f64, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(out.extent(1)) {
        out[(l, j)] = a[(l, j + 1)] - 2.0 * a[(l + 1, 0)];
    }
}

#[kernel]
fn row_window(i: usize, out: ViewMut<f64>, a: View<f64, 2>, lo: usize, hi: usize) {
    let mut s = 0.0;
    for k in lo..hi {
        s += a[(i, k - 1)] * (k as f64);
    }
    out[i] = s;
}

/// Team kernels: the versioned `thread_range` loop at the View's edges.
fn neighbours_team_loop<E: ExecutionSpace>(space: E) {
    let strategy = (0usize..6, 0usize..7, 0usize..4, 0usize..4, any::<u64>());
    check(64, strategy, |(league, cols, srows, scols, seed)| {
        let ae = [
            (league + srows).saturating_sub(1),
            (cols + scols).saturating_sub(1),
        ];
        let a: DevView<E, f64, 2> = dev_from_fn(&space, "a", ae, |[r, c]| value(seed, r * 16 + c))?;
        let out: DevView<E, f64, 2> = dev(&space, "out", [league, cols])?;
        let ha = to_host(&a);
        let policy = TeamPolicy::new(&space, league, TeamSize::Auto);
        let r = launch(&space, || {
            parallel_for("team_shift", policy, team_shift(&out, &a))
        });
        let mut want = vec![0.0; league * cols];
        let mut in_bounds = true;
        for l in 0..league {
            for j in 0..cols {
                let (l, j) = (l as i64, j as i64);
                match (at(&ha, ae, [l, j + 1]), at(&ha, ae, [l + 1, 0])) {
                    (Some(x), Some(y)) => want[l as usize * cols + j as usize] = x - 2.0 * y,
                    _ => in_bounds = false,
                }
            }
        }
        if in_bounds {
            prop_assert!(
                matches!(r, Ok(Ok(()))),
                "league {league} x {cols} in bounds failed: {r:?}"
            );
            prop_assert_eq!(to_host(&out), want);
        } else {
            expect_failure(r, "team_shift", &["a"])?;
        }
        Ok(())
    });
}
per_backend!(neighbours_team_loop);

/// A plain `lo..hi` loop inside a range kernel, with bounds drawn around the View's columns.
fn neighbours_plain_loop<E: ExecutionSpace>(space: E) {
    let strategy = (
        0usize..6,
        0usize..4,
        0usize..8,
        0usize..6,
        0usize..4,
        any::<u64>(),
    );
    check(64, strategy, |(n, srows, lo, len, scols, seed)| {
        let hi = lo + len;
        let ae = [
            (n + srows).saturating_sub(1),
            (hi + scols).saturating_sub(2),
        ];
        let a: DevView<E, f64, 2> = dev_from_fn(&space, "a", ae, |[r, c]| value(seed, r * 16 + c))?;
        let out: DevView<E, f64> = dev(&space, "out", [n])?;
        let ha = to_host(&a);
        let policy = RangePolicy::new(&space, 0..n);
        let r = launch(&space, || {
            parallel_for("row_window", policy, row_window(&out, &a, lo, hi))
        });
        let mut want = vec![0.0; n];
        let mut in_bounds = true;
        for (i, w) in want.iter_mut().enumerate() {
            for k in lo..hi {
                match at(&ha, ae, [i as i64, k as i64 - 1]) {
                    Some(x) => *w += x * (k as f64),
                    None => in_bounds = false,
                }
            }
        }
        if in_bounds {
            prop_assert!(
                matches!(r, Ok(Ok(()))),
                "n {n}, {lo}..{hi} in bounds failed: {r:?}"
            );
            prop_assert_eq!(to_host(&out), want);
        } else {
            expect_failure(r, "row_window", &["a"])?;
        }
        Ok(())
    });
}
per_backend!(neighbours_plain_loop);

/// A nested reduction's closure is versioned like a loop: read one past its index in the
/// league's row.
#[kernel]
fn team_window_sum(team: &TeamMember, out: ViewMut<f64>, a: View<f64, 2>, width: usize) {
    let l = team.league_rank();
    let s = team.team_vector_reduce(width, Sum, |k, acc: &mut f64| {
        *acc += a[(l, k + 1)] * 2.0;
    });
    team.single_team(|| {
        out[l] = s;
    });
}

/// Team kernels: the versioned nested reduction at the View's edges.
fn neighbours_nested_reduce<E: ExecutionSpace>(space: E) {
    let strategy = (0usize..6, 0usize..8, 0usize..4, 0usize..4, any::<u64>());
    check(64, strategy, |(league, width, srows, scols, seed)| {
        let ae = [
            (league + srows).saturating_sub(1),
            (width + scols).saturating_sub(1),
        ];
        let a: DevView<E, f64, 2> = dev_from_fn(&space, "a", ae, |[r, c]| value(seed, r * 16 + c))?;
        let out: DevView<E, f64> = dev(&space, "out", [league])?;
        let ha = to_host(&a);
        let policy = TeamPolicy::new(&space, league, TeamSize::Auto);
        let r = launch(&space, || {
            parallel_for("team_window_sum", policy, team_window_sum(&out, &a, width))
        });
        let mut want = vec![0.0; league];
        let mut in_bounds = true;
        for (l, w) in want.iter_mut().enumerate() {
            for k in 0..width {
                match at(&ha, ae, [l as i64, k as i64 + 1]) {
                    Some(x) => *w += x * 2.0,
                    None => in_bounds = false,
                }
            }
        }
        if in_bounds {
            prop_assert!(
                matches!(r, Ok(Ok(()))),
                "league {league} width {width} in bounds failed: {r:?}"
            );
            prop_assert_eq!(to_host(&out), want);
        } else {
            expect_failure(r, "team_window_sum", &["a"])?;
        }
        Ok(())
    });
}
per_backend!(neighbours_nested_reduce);

#[kernel]
fn five_point((i, j): (usize, usize), out: ViewMut<f32, 2>, u: View<f32, 2>) {
    out[(i, j)] = u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)];
}

/// The 2-D five-point stencil (its input in `LayoutLeft`; small integers in f32, so every
/// backend's sums are exact): over the interior of the grid, where
/// the device backends prove every access in bounds and emit it unchecked, the result is the host
/// loop's, bit for bit; a box that reaches an edge fails naming `u`, on every backend: `[1, n)`
/// in dimension 0 reads `u[(n, j)]` (`Err(OutOfBounds)`), `[0, n - 1)` reads `u[(0 - 1, j)]`
/// (Rust's overflow check where the kernel has one, else a wrapped index out of bounds), and so
/// in dimension 1.
fn five_point_edges<E: ExecutionSpace>(space: E) {
    for (n, m) in [(3usize, 3usize), (5, 9), (34, 17)] {
        let u: DevView<E, f32, 2, LayoutLeft> =
            dev_from_fn(&space, "u", [n, m], |[a, c]| value(9, a * 64 + c) as f32).unwrap();
        let host_u = to_host(&u);
        let at = |i: usize, j: usize| host_u[i * m + j];
        let out: DevView<E, f32, 2> = dev(&space, "out", [n, m]).unwrap();
        let interior = MDRangePolicy::new(&space, [1, 1], [n - 1, m - 1]);
        let r = launch(&space, || {
            parallel_for("five_point", interior, five_point(&out, &u))
        });
        assert!(matches!(r, Ok(Ok(()))), "{n} x {m} interior: {r:?}");
        let mut want = vec![0.0; n * m];
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                want[i * m + j] =
                    at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
            }
        }
        assert_eq!(to_host(&out), want, "{n} x {m}");
        let edges = [
            ([1, 1], [n, m - 1], true),
            ([1, 1], [n - 1, m], true),
            ([0, 1], [n - 1, m - 1], false),
            ([1, 0], [n - 1, m - 1], false),
        ];
        for (b, e, past_end) in edges {
            let policy = MDRangePolicy::new(&space, b, e);
            let r = launch(&space, || {
                parallel_for("five_point", policy, five_point(&out, &u))
            });
            if past_end {
                assert!(
                    matches!(&r, Ok(Err(rokkos::Error::OutOfBounds { kernel, view, .. }))
                        if kernel == "five_point" && view == "u"),
                    "{b:?}..{e:?}: {r:?}"
                );
            } else if let Err(why) = expect_failure(r, "five_point", &["u"]) {
                panic!("{b:?}..{e:?}: {why}");
            }
        }
    }
}
per_backend!(five_point_edges);

/// What `#[kernel]` records of the stencil: the write and the five reads as shifted work indices
/// (`rokkos_device::emit::inbounds`), the candidates a device launch proves in bounds.
#[test]
fn five_point_records_shifted_work_indices() {
    use rokkos::KernelIr;
    use rokkos_device::emit::inbounds::{Shifted, Site};
    let out = View::<f32, 2>::new("out", [3, 3]).unwrap();
    let u = View::<f32, 2, LayoutLeft>::new("u", [3, 3]).unwrap();
    let ir = five_point(&out, &u).ir().unwrap();
    let shifted = rokkos_device::emit::inbounds::sites(&ir);
    let at = |view, (a, b): (i64, i64)| Site {
        view,
        index: vec![Shifted { dim: 0, offset: a }, Shifted { dim: 1, offset: b }],
    };
    let mut want = vec![
        at(0, (0, 0)),
        at(1, (-1, 0)),
        at(1, (1, 0)),
        at(1, (0, -1)),
        at(1, (0, 1)),
        at(1, (0, 0)),
    ];
    want.sort();
    assert_eq!(shifted, want, "{ir}");
}
