//! `parallel_reduce` over a `RangePolicy` (Kokkos `TestReduce`): sums of `i`, `i^2` and counts over
//! ranges with closed forms, several accumulators at once, floating-point dot products within a
//! tolerance, `parallel_reduce_into` a rank-0 View, and the order in which partial results join.

use crate::{assert_close, check, chunk_sizes, sizes, F32_TOL, F64_TOL, LARGE};
use crate::{dev, dev_from_fn, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn sum_index(i: usize, acc: &mut i64) {
    *acc += i as i64;
}

#[kernel]
fn moments(i: usize, s: &mut i64, s2: &mut i64, count: &mut u64, w: View<i64>) {
    let v = w[i];
    *s += v;
    *s2 += v * v;
    *count += 1;
}

#[kernel]
fn dot<T: Float>(i: usize, acc: &mut T, a: View<T>, b: View<T>) {
    *acc += a[i] * b[i];
}

#[kernel]
fn total2(i: usize, acc: &mut i64, a: View<i64, 2>) {
    for k in 0..a.extent(1) {
        *acc += a[(i, k)];
    }
}

#[kernel]
fn rolling_hash(i: usize, h: &mut u64, p: &mut u64, x: View<u64>, base: u64) {
    *h = (*h).wrapping_mul(base).wrapping_add(x[i]);
    *p = (*p).wrapping_mul(base);
}

/// The join of [`rolling_hash`]: associative, not commutative, so partial results must be joined in
/// index order.
fn hash_join(a: &mut (u64, u64), b: (u64, u64)) {
    a.0 = a.0.wrapping_mul(b.1).wrapping_add(b.0);
    a.1 = a.1.wrapping_mul(b.1);
}

fn hash_reference(x: &[u64], base: u64) -> (u64, u64) {
    x.iter().fold((0u64, 1u64), |(h, p), &v| {
        (h.wrapping_mul(base).wrapping_add(v), p.wrapping_mul(base))
    })
}

/// Sum of `i` over `b..e`.
fn sum_closed(b: usize, e: usize) -> i64 {
    let (b, e) = (b as i64, e as i64);
    (e * (e - 1) - b * (b - 1)) / 2
}
/// Sum of `i^2` over `b..e`.
fn sum_sq_closed(b: usize, e: usize) -> i64 {
    let s = |n: i64| (n - 1) * n * (2 * n - 1) / 6;
    s(e as i64) - s(b as i64)
}

/// Kokkos TestReduce: the sum of the index over `begin..end` against `n (b + e - 1) / 2`.
fn sum_of_index<E: ExecutionSpace>(space: E) {
    check(
        24,
        (sizes(), 0usize..1000, chunk_sizes()),
        |(n, b, chunk)| {
            let p = RangePolicy::new(&space, b..b + n).chunk_size(chunk);
            let s: i64 = parallel_reduce("sum_index", p, sum_index(), Sum)?;
            prop_assert_eq!(s, sum_closed(b, b + n));
            Ok(())
        },
    );
    let s: i64 = parallel_reduce(
        "sum_large",
        RangePolicy::new(&space, 0..LARGE),
        sum_index(),
        Sum,
    )
    .unwrap();
    assert_eq!(s, sum_closed(0, LARGE));
}
per_backend!(sum_of_index);

/// Three accumulators at once (a tuple of reducers): sum, sum of squares and count of `w(i) = i`.
fn several_accumulators<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), 0usize..300, chunk_sizes()),
        |(n, b, chunk)| {
            let w: DevView<E, i64> = dev_from_fn(&space, "w", [b + n], |[i]| i as i64)?;
            let p = RangePolicy::new(&space, b..b + n).chunk_size(chunk);
            let (s, s2, c) = parallel_reduce("moments", p, moments(&w), (Sum, Sum, Sum))?;
            prop_assert_eq!(s, sum_closed(b, b + n));
            prop_assert_eq!(s2, sum_sq_closed(b, b + n));
            prop_assert_eq!(c, n as u64);
            Ok(())
        },
    );
}
per_backend!(several_accumulators);

/// Dot products in both precisions against a plain loop, within a relative tolerance of the sum of
/// absolute products.
fn float_dot<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::unit_floats(seed, n);
            let ys = crate::unit_floats(seed.wrapping_add(7), n);
            let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let y: DevView<E, f64, 1, LayoutLeft> = dev_from_vec(&space, "y", [n], ys.clone())?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let got: f64 = parallel_reduce("dot64", p, dot(&x, &y), Sum)?;
            let want: f64 = xs.iter().zip(&ys).map(|(a, b)| a * b).sum();
            let scale: f64 = xs.iter().zip(&ys).map(|(a, b)| (a * b).abs()).sum();
            assert_close(got, want, scale, F64_TOL, "f64 dot");

            let x32: DevView<E, f32> = dev_from_fn(&space, "x32", [n], |[i]| xs[i] as f32)?;
            let y32: DevView<E, f32> = dev_from_fn(&space, "y32", [n], |[i]| ys[i] as f32)?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let got: f32 = parallel_reduce("dot32", p, dot(&x32, &y32), Sum)?;
            let want: f64 = (0..n)
                .map(|i| (xs[i] as f32) as f64 * (ys[i] as f32) as f64)
                .sum();
            assert_close(got as f64, want, scale, F32_TOL, "f32 dot");
            Ok(())
        },
    );
}
per_backend!(float_dot);

/// A range reduction over the rows of rank-2 Views of every layout.
fn reduce_rank2_rows<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), 0usize..7, any::<u64>()), |(n, w, seed)| {
        let data = crate::ints(seed, n * w, -100, 100);
        let want: i64 = data.iter().sum();
        let r: DevView<E, i64, 2> = dev_from_vec(&space, "r", [n, w], data.clone())?;
        let got: i64 = parallel_reduce("rows_r", RangePolicy::new(&space, 0..n), total2(&r), Sum)?;
        prop_assert_eq!(got, want);
        let l: DevView<E, i64, 2, LayoutLeft> = dev(&space, "l", [n, w])?;
        deep_copy(&l, &r)?;
        let got: i64 = parallel_reduce("rows_l", RangePolicy::new(&space, 0..n), total2(&l), Sum)?;
        prop_assert_eq!(got, want);
        // Every other row of a taller matrix, through a LayoutStride subview.
        let tall: DevView<E, i64, 3> = dev(&space, "tall", [n, 2, w])?;
        let s: DevView<E, i64, 2, LayoutStride> = tall.subview((.., 1, ..))?;
        deep_copy(&s, &r)?;
        let got: i64 = parallel_reduce("rows_s", RangePolicy::new(&space, 0..n), total2(&s), Sum)?;
        prop_assert_eq!(got, want);
        Ok(())
    });
}
per_backend!(reduce_rank2_rows);

/// `parallel_reduce_into` stores the result in a rank-0 View; an empty range gives the identity.
fn reduce_into_rank0<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), 0usize..100), |(n, b)| {
        let r: DevView<E, i64, 0> = dev(&space, "result", [])?;
        r.fill(-1)?;
        parallel_reduce_into(
            "into",
            RangePolicy::new(&space, b..b + n),
            sum_index(),
            Sum,
            &r,
        )?;
        prop_assert_eq!(to_host(&r)[0], sum_closed(b, b + n));
        let x: DevView<E, f64> = dev_from_fn(&space, "x", [n], |[i]| i as f64 * 0.5)?;
        let d: DevView<E, f64, 0, LayoutLeft> = dev(&space, "dot", [])?;
        parallel_reduce_into(
            "into_dot",
            RangePolicy::new(&space, 0..n),
            dot(&x, &x),
            Sum,
            &d,
        )?;
        let want: f64 = (0..n).map(|i| (i as f64 * 0.5).powi(2)).sum();
        assert_close(to_host(&d)[0], want, want, F64_TOL, "dot into rank 0");
        Ok(())
    });
}
per_backend!(reduce_into_rank0);

/// An associative, non-commutative join (a polynomial rolling hash): partial results must be
/// joined in index order for the result to equal the sequential fold.
fn ordered_join<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::splitmix(seed, n);
            let x: DevView<E, u64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let base = 1_000_003u64;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let got = parallel_reduce(
                "hash",
                p,
                rolling_hash(&x, base),
                Custom::new((0u64, 1u64), hash_join),
            )?;
            prop_assert_eq!(got, hash_reference(&xs, base));
            Ok(())
        },
    );
}
per_backend!(ordered_join);

#[kernel]
fn rolling_hash32(i: usize, h: &mut u32, p: &mut u32, x: View<u32>, base: u32) {
    *h = (*h).wrapping_mul(base).wrapping_add(x[i]);
    *p = (*p).wrapping_mul(base);
}

/// [`hash_join`] in 32 bits.
fn hash_join32(a: &mut (u32, u32), b: (u32, u32)) {
    a.0 = a.0.wrapping_mul(b.1).wrapping_add(b.0);
    a.1 = a.1.wrapping_mul(b.1);
}

#[kernel]
fn last_multiple_of_3(i: usize, acc: &mut i32, x: View<u32>) {
    if x[i] % 3 == 0 {
        *acc = i as i32;
    }
}

/// Non-commutative `Custom` joins over ranges longer than the device backends' ordered partials
/// (`rokkos_device::runtime::ordered::ORDERED_PARTIALS`, 64 Ki): blocks of several items, counts not
/// divisible by the number of blocks, a non-zero begin; the result as a value and into a rank-0
/// View (the "last index" join, which only the order of the partials gets right). 32-bit types,
/// so that it also runs without SHADER_INT64.
fn ordered_join_long<E: ExecutionSpace>(space: E) {
    let lens = proptest::sample::select(vec![70_001usize, 200_003]);
    check(2, (lens, 0usize..4, any::<u64>()), |(n, b, seed)| {
        let xs: Vec<u32> = crate::splitmix(seed, b + n)
            .iter()
            .map(|&v| v as u32)
            .collect();
        let x: DevView<E, u32> = dev_from_vec(&space, "x", [b + n], xs.clone())?;
        let base = 1_000_003u32;
        let got = parallel_reduce(
            "hash32",
            RangePolicy::new(&space, b..b + n),
            rolling_hash32(&x, base),
            Custom::new((0u32, 1u32), hash_join32),
        )?;
        let want = xs[b..].iter().fold((0u32, 1u32), |(h, p), &v| {
            (h.wrapping_mul(base).wrapping_add(v), p.wrapping_mul(base))
        });
        prop_assert_eq!(got, want);

        let last = Custom::new(-1i32, |a: &mut i32, v: i32| {
            if v >= 0 {
                *a = v
            }
        });
        let r: DevView<E, i32, 0> = dev(&space, "r", [])?;
        parallel_reduce_into(
            "last3",
            RangePolicy::new(&space, b..b + n),
            last_multiple_of_3(&x),
            last,
            &r,
        )?;
        let want_last = (b..b + n)
            .rev()
            .find(|&i| xs[i] % 3 == 0)
            .map_or(-1, |i| i as i32);
        prop_assert_eq!(to_host(&r)[0], want_last);
        Ok(())
    });
}
per_backend!(ordered_join_long);

/// Rayon with several chunks: integer results are identical to serial, float results agree within
/// the tolerance and are reproducible from run to run, and the reducer really joined several
/// partial results.
#[cfg(feature = "rayon")]
#[test]
fn rayon_chunks_match_serial() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let rayon = rokkos::Rayon::with_threads(2).unwrap();
    for n in [8usize, 257, 1025, LARGE] {
        let xs = crate::splitmix(n as u64, n);
        let x = View::<u64>::from_vec("x", [n], xs).unwrap();
        let hs = parallel_reduce(
            "h",
            RangePolicy::new(&Serial, 0..n),
            rolling_hash(&x, 31),
            Custom::new((0u64, 1u64), hash_join),
        )
        .unwrap();
        let joins = AtomicUsize::new(0);
        let counting = |a: &mut (u64, u64), b: (u64, u64)| {
            joins.fetch_add(1, Ordering::Relaxed);
            hash_join(a, b)
        };
        let hr = parallel_reduce(
            "h",
            RangePolicy::new(&rayon, 0..n),
            rolling_hash(&x, 31),
            Custom::new((0u64, 1u64), counting),
        )
        .unwrap();
        assert_eq!(hs, hr, "n = {n}");
        assert!(
            joins.load(Ordering::Relaxed) > 1,
            "n = {n}: rayon did not split the range"
        );

        let fx = View::<f64>::from_vec("fx", [n], crate::unit_floats(n as u64, n)).unwrap();
        let s: f64 =
            parallel_reduce("d", RangePolicy::new(&Serial, 0..n), dot(&fx, &fx), Sum).unwrap();
        let r1: f64 =
            parallel_reduce("d", RangePolicy::new(&rayon, 0..n), dot(&fx, &fx), Sum).unwrap();
        let r2: f64 =
            parallel_reduce("d", RangePolicy::new(&rayon, 0..n), dot(&fx, &fx), Sum).unwrap();
        assert_close(r1, s, s, F64_TOL, "rayon vs serial dot");
        assert_eq!(
            r1.to_bits(),
            r2.to_bits(),
            "rayon reduction not reproducible"
        );
    }
}

#[kernel]
fn max_i32(i: usize, acc: &mut i32, a: View<i32>) {
    if a[i] > *acc {
        *acc = a[i];
    }
}

#[kernel]
fn sum_2d((i, j): (usize, usize), acc: &mut f64, a: View<f64, 2>) {
    *acc += a[(i, j)];
}

#[kernel]
fn row_totals(team: &TeamMember, acc: &mut i64, a: View<i64, 2>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), Sum, |j, t: &mut i64| {
        *t += a[(l, j)];
    });
    team.single_team(|| {
        *acc += s;
    });
}

/// Reads reduction results another kernel stored in `r` (on the device, without a host round trip).
#[kernel]
fn combine(i: usize, y: ViewMut<f64>, x: View<f64>, r: View<f64>, m: View<i32>) {
    y[i] = x[i] * r[1] + m[0] as f64;
}

/// `parallel_reduce_into` elements of device Views (rank-0 subviews at an offset) from range,
/// MDRange (more tiles than the host joins: joined on the device in two passes) and team
/// reductions, consumed by a later kernel without a fence in between: the results are ordered
/// before the kernel that reads them.
fn reduce_into_then_consume<E: ExecutionSpace>(space: E) {
    check(
        8,
        (sizes(), 1usize..90, 1usize..70, any::<u64>()),
        |(n, rows, cols, seed)| {
            let xs = crate::splitmix(seed, n);
            let a: DevView<E, i32> =
                dev_from_fn(&space, "a", [n], |[i]| (xs[i] % 2001) as i32 - 1000)?;
            let x: DevView<E, f64> = dev_from_fn(&space, "x", [n], |[i]| i as f64 * 0.25)?;
            let g: DevView<E, f64, 2> = dev_from_fn(&space, "g", [rows, cols], |[i, j]| {
                (i * cols + j) as f64 * 0.5
            })?;
            let t: DevView<E, i64, 2> =
                dev_from_fn(&space, "t", [rows, cols], |[i, j]| (i * 7 + j) as i64 - 50)?;
            let r: DevView<E, f64> = dev(&space, "r", [3])?;
            let m: DevView<E, i32> = dev(&space, "m", [1])?;
            let tt: DevView<E, i64> = dev(&space, "tt", [2])?;
            r.fill(-7.0)?;
            parallel_reduce_into(
                "max",
                RangePolicy::new(&space, 0..n),
                max_i32(&a),
                Max,
                &m.subview::<0>([0])?,
            )?;
            let tiles = MDRangePolicy::new(&space, [0, 0], [rows, cols]).tile([1, 1]);
            parallel_reduce_into("grid", tiles, sum_2d(&g), Sum, &r.subview::<0>([1])?)?;
            let teams = TeamPolicy::new(&space, rows, TeamSize::Auto);
            parallel_reduce_into("teams", teams, row_totals(&t), Sum, &tt.subview::<0>([1])?)?;
            let y: DevView<E, f64> = dev(&space, "y", [n])?;
            parallel_for(
                "combine",
                RangePolicy::new(&space, 0..n),
                combine(&y, &x, &r, &m),
            )?;

            let want_max = (0..n)
                .map(|i| (xs[i] % 2001) as i32 - 1000)
                .max()
                .unwrap_or(i32::MIN);
            let want_grid: f64 = (0..rows * cols).map(|k| k as f64 * 0.5).sum();
            let want_teams: i64 = (0..rows)
                .flat_map(|i| (0..cols).map(move |j| (i * 7 + j) as i64 - 50))
                .sum();
            prop_assert_eq!(to_host(&m)[0], want_max);
            let hr = to_host(&r);
            prop_assert_eq!(hr[0], -7.0);
            prop_assert_eq!(hr[2], -7.0);
            assert_close(
                hr[1],
                want_grid,
                want_grid,
                F64_TOL,
                "MDRange sum into r[1]",
            );
            prop_assert_eq!(to_host(&tt), vec![0, want_teams]);
            let hy = to_host(&y);
            for (i, &v) in hy.iter().enumerate() {
                let want = i as f64 * 0.25 * hr[1] + want_max as f64;
                assert_close(v, want, want.abs() + 1.0, F64_TOL, "combine");
            }
            Ok(())
        },
    );
}
per_backend!(reduce_into_then_consume);
