//! `parallel_for` / `parallel_reduce` over an `MDRangePolicy` of rank 2 to 6 (Kokkos
//! `TestMDRange`): boxes with non-zero begins, odd and default tiles, both iteration orders; every
//! index of the box is visited exactly once (counted atomically), nothing outside it is touched,
//! and reductions over the box equal a plain loop.

use crate::{check, dev, to_host, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;
use rokkos::Layout;

/// The value the fill kernels store at a multi-index: its digits in base 100.
fn encode(idx: &[usize]) -> i64 {
    idx.iter().fold(0i64, |a, &x| a * 100 + x as i64)
}

/// Calls `f` on every multi-index of `extents` (row-major).
fn each_index<const N: usize>(extents: [usize; N], mut f: impl FnMut([usize; N])) {
    if extents.contains(&0) {
        return;
    }
    let mut idx = [0usize; N];
    'outer: loop {
        f(idx);
        for k in (0..N).rev() {
            idx[k] += 1;
            if idx[k] < extents[k] {
                continue 'outer;
            }
            idx[k] = 0;
        }
        return;
    }
}

#[kernel]
fn fill2((i, j): (usize, usize), out: ViewMut<i64, 2>, cnt: ViewMut<i32, 2>) {
    out[(i, j)] = (i * 100 + j) as i64;
    cnt.atomic_add((i, j), 1);
}
#[kernel]
fn fill3((i, j, k): (usize, usize, usize), out: ViewMut<i64, 3>, cnt: ViewMut<i32, 3>) {
    out[(i, j, k)] = ((i * 100 + j) * 100 + k) as i64;
    cnt.atomic_add((i, j, k), 1);
}
#[kernel]
fn fill4((i, j, k, l): (usize, usize, usize, usize), out: ViewMut<i64, 4>, cnt: ViewMut<i32, 4>) {
    out[(i, j, k, l)] = (((i * 100 + j) * 100 + k) * 100 + l) as i64;
    cnt.atomic_add((i, j, k, l), 1);
}
#[kernel]
fn fill5(
    (i, j, k, l, m): (usize, usize, usize, usize, usize),
    out: ViewMut<i64, 5>,
    cnt: ViewMut<i32, 5>,
) {
    out[(i, j, k, l, m)] = ((((i * 100 + j) * 100 + k) * 100 + l) * 100 + m) as i64;
    cnt.atomic_add((i, j, k, l, m), 1);
}
#[kernel]
fn fill6(
    (i, j, k, l, m, o): (usize, usize, usize, usize, usize, usize),
    out: ViewMut<i64, 6>,
    cnt: ViewMut<i32, 6>,
) {
    out[(i, j, k, l, m, o)] = (((((i * 100 + j) * 100 + k) * 100 + l) * 100 + m) * 100 + o) as i64;
    cnt.atomic_add((i, j, k, l, m, o), 1);
}

#[kernel]
fn sum2((i, j): (usize, usize), acc: &mut i64, a: View<i64, 2>) {
    *acc += a[(i, j)];
}
#[kernel]
fn sum3((i, j, k): (usize, usize, usize), acc: &mut i64, a: View<i64, 3>) {
    *acc += a[(i, j, k)];
}
#[kernel]
fn sum4((i, j, k, l): (usize, usize, usize, usize), acc: &mut i64, a: View<i64, 4>) {
    *acc += a[(i, j, k, l)];
}
#[kernel]
fn sum5((i, j, k, l, m): (usize, usize, usize, usize, usize), acc: &mut i64, a: View<i64, 5>) {
    *acc += a[(i, j, k, l, m)];
}
#[kernel]
fn sum6(
    (i, j, k, l, m, o): (usize, usize, usize, usize, usize, usize),
    acc: &mut i64,
    a: View<i64, 6>,
) {
    *acc += a[(i, j, k, l, m, o)];
}

/// Sum and maximum at once over a 3-D box.
#[kernel]
fn sum_max3((i, j, k): (usize, usize, usize), s: &mut i64, mx: &mut i64, a: View<i64, 3>) {
    *s += a[(i, j, k)];
    if a[(i, j, k)] > *mx {
        *mx = a[(i, j, k)];
    }
}

type FillFn<'a, E, const N: usize, L> = &'a dyn Fn(
    MDRangePolicy<E, N>,
    &DevView<E, i64, N, L>,
    &DevView<E, i32, N, L>,
) -> rokkos::Result<()>;
type SumFn<'a, E, const N: usize, L> =
    &'a dyn Fn(MDRangePolicy<E, N>, &DevView<E, i64, N, L>) -> rokkos::Result<i64>;

/// Row-major position of `idx` in `extents` (the order of `to_host`).
fn row_major<const N: usize>(idx: &[usize; N], extents: &[usize; N]) -> usize {
    idx.iter().zip(extents).fold(0, |a, (&i, &e)| a * e + i)
}

/// Fills the box `begin..begin + len` of Views one larger than the box end in every dimension,
/// checks values and visit counts everywhere, then reduces over the box.
#[allow(clippy::too_many_arguments)]
fn check_box<E: ExecutionSpace, const N: usize, L: Layout>(
    space: &E,
    begin: [usize; N],
    len: [usize; N],
    tile: [usize; N],
    order: Iterate,
    fill: FillFn<'_, E, N, L>,
    sum: SumFn<'_, E, N, L>,
) -> Result<(), TestCaseError> {
    let mut end = [0usize; N];
    let mut extents = [0usize; N];
    for k in 0..N {
        end[k] = begin[k] + len[k];
        extents[k] = end[k] + 1;
    }
    let out: DevView<E, i64, N, L> = dev(space, "out", extents)?;
    out.fill(-1)?;
    let cnt: DevView<E, i32, N, L> = dev(space, "cnt", extents)?;
    let policy = || {
        MDRangePolicy::new(space, begin, end)
            .tile(tile)
            .iterate(order)
    };
    fill(policy(), &out, &cnt)?;
    let inside = |idx: &[usize; N]| (0..N).all(|k| begin[k] <= idx[k] && idx[k] < end[k]);
    let (ho, hc) = (to_host(&out), to_host(&cnt));
    let mut want_sum = 0i64;
    let mut bad = None;
    each_index(extents, |idx| {
        let (want_v, want_c) = if inside(&idx) {
            want_sum += encode(&idx);
            (encode(&idx), 1)
        } else {
            (-1, 0)
        };
        let at = row_major(&idx, &extents);
        if bad.is_none() && (ho[at] != want_v || hc[at] != want_c) {
            bad = Some((idx, ho[at], hc[at], want_v, want_c));
        }
    });
    if let Some((idx, v, c, wv, wc)) = bad {
        return Err(TestCaseError::fail(format!(
            "at {idx:?}: value {v} (want {wv}), visits {c} (want {wc})"
        )));
    }
    let got = sum(policy(), &out)?;
    prop_assert_eq!(got, want_sum);
    Ok(())
}

fn orders() -> impl Strategy<Value = Iterate> {
    prop_oneof![Just(Iterate::Right), Just(Iterate::Left)]
}
fn begins<const N: usize>() -> impl Strategy<Value = [usize; N]> {
    proptest::array::uniform(0usize..3)
}
fn lens<const N: usize>(max: usize) -> impl Strategy<Value = [usize; N]> {
    proptest::array::uniform(crate::small_extent(max))
}
fn tiles<const N: usize>() -> impl Strategy<Value = [usize; N]> {
    proptest::array::uniform(prop_oneof![
        Just(0usize),
        Just(1),
        Just(3),
        Just(5),
        1usize..8
    ])
}

fn mdrange_2d<E: ExecutionSpace>(space: E) {
    check(
        16,
        (begins::<2>(), lens::<2>(40), tiles::<2>(), orders()),
        |(b, n, t, o)| {
            let f = |p: MDRangePolicy<E, 2>, a: &DevView<E, i64, 2>, c: &DevView<E, i32, 2>| {
                parallel_for("fill2", p, fill2(a, c))
            };
            let s = |p: MDRangePolicy<E, 2>, a: &DevView<E, i64, 2>| {
                parallel_reduce("sum2", p, sum2(a), Sum)
            };
            check_box(&space, b, n, t, o, &f, &s)?;
            let f = |p: MDRangePolicy<E, 2>,
                     a: &DevView<E, i64, 2, LayoutLeft>,
                     c: &DevView<E, i32, 2, LayoutLeft>| {
                parallel_for("fill2l", p, fill2(a, c))
            };
            let s = |p: MDRangePolicy<E, 2>, a: &DevView<E, i64, 2, LayoutLeft>| {
                parallel_reduce("sum2l", p, sum2(a), Sum)
            };
            check_box(&space, b, n, t, o, &f, &s)
        },
    );
}
per_backend!(mdrange_2d);

fn mdrange_3d<E: ExecutionSpace>(space: E) {
    check(
        16,
        (begins::<3>(), lens::<3>(12), tiles::<3>(), orders()),
        |(b, n, t, o)| {
            let f = |p: MDRangePolicy<E, 3>, a: &DevView<E, i64, 3>, c: &DevView<E, i32, 3>| {
                parallel_for("fill3", p, fill3(a, c))
            };
            let s = |p: MDRangePolicy<E, 3>, a: &DevView<E, i64, 3>| {
                parallel_reduce("sum3", p, sum3(a), Sum)
            };
            check_box(&space, b, n, t, o, &f, &s)?;
            let f = |p: MDRangePolicy<E, 3>,
                     a: &DevView<E, i64, 3, LayoutLeft>,
                     c: &DevView<E, i32, 3, LayoutLeft>| {
                parallel_for("fill3l", p, fill3(a, c))
            };
            let s = |p: MDRangePolicy<E, 3>, a: &DevView<E, i64, 3, LayoutLeft>| {
                let (s, mx) = parallel_reduce("sum_max3", p.clone(), sum_max3(a), (Sum, Max))?;
                // The maximum of the box is at its last corner (when the box is not empty).
                let last = [0, 1, 2].map(|k| p.end()[k].wrapping_sub(1));
                let want_mx = if p.is_empty() {
                    i64::MIN
                } else {
                    encode(&last)
                };
                assert_eq!(mx, want_mx);
                Ok(s)
            };
            check_box(&space, b, n, t, o, &f, &s)
        },
    );
}
per_backend!(mdrange_3d);

fn mdrange_4d<E: ExecutionSpace>(space: E) {
    check(
        12,
        (begins::<4>(), lens::<4>(7), tiles::<4>(), orders()),
        |(b, n, t, o)| {
            let f = |p: MDRangePolicy<E, 4>, a: &DevView<E, i64, 4>, c: &DevView<E, i32, 4>| {
                parallel_for("fill4", p, fill4(a, c))
            };
            let s = |p: MDRangePolicy<E, 4>, a: &DevView<E, i64, 4>| {
                parallel_reduce("sum4", p, sum4(a), Sum)
            };
            check_box(&space, b, n, t, o, &f, &s)
        },
    );
}
per_backend!(mdrange_4d);

fn mdrange_5d<E: ExecutionSpace>(space: E) {
    check(
        8,
        (begins::<5>(), lens::<5>(5), tiles::<5>(), orders()),
        |(b, n, t, o)| {
            let f = |p: MDRangePolicy<E, 5>,
                     a: &DevView<E, i64, 5, LayoutLeft>,
                     c: &DevView<E, i32, 5, LayoutLeft>| {
                parallel_for("fill5", p, fill5(a, c))
            };
            let s = |p: MDRangePolicy<E, 5>, a: &DevView<E, i64, 5, LayoutLeft>| {
                parallel_reduce("sum5", p, sum5(a), Sum)
            };
            check_box(&space, b, n, t, o, &f, &s)
        },
    );
}
per_backend!(mdrange_5d);

fn mdrange_6d<E: ExecutionSpace>(space: E) {
    check(
        8,
        (begins::<6>(), lens::<6>(4), tiles::<6>(), orders()),
        |(b, n, t, o)| {
            let f = |p: MDRangePolicy<E, 6>, a: &DevView<E, i64, 6>, c: &DevView<E, i32, 6>| {
                parallel_for("fill6", p, fill6(a, c))
            };
            let s = |p: MDRangePolicy<E, 6>, a: &DevView<E, i64, 6>| {
                parallel_reduce("sum6", p, sum6(a), Sum)
            };
            check_box(&space, b, n, t, o, &f, &s)
        },
    );
}
per_backend!(mdrange_6d);

/// An MDRange over a `LayoutStride` subview (every other plane of a 3-D View) writes exactly the
/// addressed elements.
fn mdrange_on_subview<E: ExecutionSpace>(space: E) {
    check(
        12,
        (1usize..12, 1usize..12, tiles::<2>(), orders()),
        |(n0, n1, t, o)| {
            let big: DevView<E, i64, 3> = dev(&space, "big", [n0, 3, n1])?;
            big.fill(-1)?;
            let cnt_big: DevView<E, i32, 3, LayoutLeft> = dev(&space, "cnt_big", [n0, 3, n1])?;
            let s: DevView<E, i64, 2, LayoutStride> = big.subview((.., 2, ..))?;
            let c: DevView<E, i32, 2, LayoutStride> = cnt_big.subview((.., 2, ..))?;
            let p = MDRangePolicy::new(&space, [0, 0], [n0, n1])
                .tile(t)
                .iterate(o);
            parallel_for("fill_sub", p, fill2(&s, &c))?;
            let h = to_host(&big);
            let hc = to_host(&cnt_big);
            for i in 0..n0 {
                for m in 0..3 {
                    for j in 0..n1 {
                        let (want, wc) = if m == 2 {
                            ((i * 100 + j) as i64, 1)
                        } else {
                            (-1, 0)
                        };
                        let at = (i * 3 + m) * n1 + j;
                        prop_assert_eq!(h[at], want);
                        prop_assert_eq!(hc[at], wc);
                    }
                }
            }
            Ok(())
        },
    );
}
per_backend!(mdrange_on_subview);

/// Rayon with many tiles gives exactly the serial result.
#[cfg(feature = "rayon")]
#[test]
fn rayon_tiles_match_serial() {
    let rayon = rokkos::Rayon::with_threads(2).unwrap();
    for tile in [[0usize, 0, 0], [1, 1, 1], [3, 5, 2], [7, 1, 0]] {
        for order in [Iterate::Right, Iterate::Left] {
            let a = View::<i64, 3>::from_fn("a", [20, 17, 9], |[i, j, k]| {
                (i * 31 + j * 7 + k) as i64 % 13 - 6
            })
            .unwrap();
            let ps = MDRangePolicy::new(&Serial, [1, 2, 0], [19, 17, 9])
                .tile(tile)
                .iterate(order);
            let pr = MDRangePolicy::new(&rayon, [1, 2, 0], [19, 17, 9])
                .tile(tile)
                .iterate(order);
            let vs: i64 = parallel_reduce("s", ps, sum3(&a), Sum).unwrap();
            let vr: i64 = parallel_reduce("r", pr, sum3(&a), Sum).unwrap();
            assert_eq!(vs, vr, "tile {tile:?}, {order:?}");
        }
    }
}
