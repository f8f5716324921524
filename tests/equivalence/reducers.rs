//! Every built-in reducer on every element type it supports (Kokkos `TestReducers`): `Sum`, `Prod`,
//! `Min`, `Max`, `MinLoc`, `MaxLoc`, `MinMax`, `MinMaxLoc`, `BAnd`, `BOr` on `i8`/`i16`/`i32`/`i64`/`u8`/`u16`/`u32`/`u64`, the
//! arithmetic ones on `f32`/`f64`, `LAnd`/`LOr` on `bool`, and `Custom` reducers, each against a
//! plain fold over the same data, including the identities over empty ranges and ties (the smallest
//! location wins).

use crate::{assert_close, check, dev, dev_from_fn, dev_from_vec, sizes, to_host, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;

/// First location of the minimum (ties: the smallest index) of `xs`, indices offset by `begin`.
fn first_min<T: PartialOrd + Copy>(xs: &[T], begin: usize) -> Option<(T, usize)> {
    let mut best: Option<(T, usize)> = None;
    for (k, &v) in xs.iter().enumerate() {
        if best.is_none_or(|(b, _)| v < b) {
            best = Some((v, begin + k));
        }
    }
    best
}
/// First location of the maximum of `xs`, indices offset by `begin`.
fn first_max<T: PartialOrd + Copy>(xs: &[T], begin: usize) -> Option<(T, usize)> {
    let mut best: Option<(T, usize)> = None;
    for (k, &v) in xs.iter().enumerate() {
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, begin + k));
        }
    }
    best
}

/// The sequential `MinLoc` / `MaxLoc` fold from the identity `(identity, usize::MAX)`: an element
/// replaces the best so far when `better(element, best)`.
fn fold_loc<T: Copy>(
    xs: &[T],
    begin: usize,
    identity: T,
    better: impl Fn(T, T) -> bool,
) -> ValLoc<T> {
    let mut best = ValLoc {
        val: identity,
        loc: usize::MAX,
    };
    for (k, &v) in xs.iter().enumerate() {
        if better(v, best.val) {
            best = ValLoc {
                val: v,
                loc: begin + k,
            };
        }
    }
    best
}

/// Integer kernels and their checks, instantiated per type (`$t` is a plain identifier so that the
/// kernel macro sees an ordinary type path).
macro_rules! int_reducers {
    ($m:ident, $t:ident) => {
        mod $m {
            use super::*;

            #[kernel]
            fn sum_k(i: usize, acc: &mut $t, a: View<$t>) {
                *acc += a[i];
            }
            #[kernel]
            fn wrapping_sum_k(i: usize, acc: &mut $t, a: View<$t>) {
                *acc = (*acc).wrapping_add(a[i]);
            }
            #[kernel]
            fn prod_k(i: usize, acc: &mut $t, a: View<$t>) {
                *acc = (*acc).wrapping_mul(a[i]);
            }
            #[kernel]
            fn min_k(i: usize, acc: &mut $t, a: View<$t>) {
                if a[i] < *acc {
                    *acc = a[i];
                }
            }
            #[kernel]
            fn max_k(i: usize, acc: &mut $t, a: View<$t>) {
                if a[i] > *acc {
                    *acc = a[i];
                }
            }
            #[kernel]
            fn minloc_k(i: usize, acc: &mut ValLoc<$t>, a: View<$t>) {
                if a[i] < acc.val {
                    acc.val = a[i];
                    acc.loc = i;
                }
            }
            #[kernel]
            fn maxloc_k(i: usize, acc: &mut ValLoc<$t>, a: View<$t>) {
                if a[i] > acc.val {
                    acc.val = a[i];
                    acc.loc = i;
                }
            }
            #[kernel]
            fn minmax_k(i: usize, acc: &mut MinMaxVal<$t>, a: View<$t>) {
                if a[i] < acc.min {
                    acc.min = a[i];
                }
                if a[i] > acc.max {
                    acc.max = a[i];
                }
            }
            #[kernel]
            fn minmaxloc_k(i: usize, acc: &mut MinMaxLocVal<$t>, a: View<$t>) {
                if a[i] < acc.min_val {
                    acc.min_val = a[i];
                    acc.min_loc = i;
                }
                if a[i] > acc.max_val {
                    acc.max_val = a[i];
                    acc.max_loc = i;
                }
            }
            #[kernel]
            fn band_k(i: usize, acc: &mut $t, a: View<$t>) {
                *acc &= a[i];
            }
            #[kernel]
            fn bor_k(i: usize, acc: &mut $t, a: View<$t>) {
                *acc |= a[i];
            }

            /// Checks every integer reducer over `begin..begin + data.len()` of a View holding
            /// `data` after `begin` zeros.
            pub(super) fn check_all<E: ExecutionSpace>(
                space: &E,
                data: &[i64],
                begin: usize,
                chunk: usize,
            ) -> Result<(), TestCaseError> {
                let n = data.len();
                let xs: Vec<$t> = data.iter().map(|&v| v as $t).collect();
                let view = |vals: &[$t]| -> rokkos::Result<DevView<E, $t>> {
                    dev_from_fn(space, stringify!($t), [begin + n], |[i]| {
                        if i < begin {
                            0
                        } else {
                            vals[i - begin]
                        }
                    })
                };
                let a = view(&xs)?;
                let p = || RangePolicy::new(space, begin..begin + n).chunk_size(chunk);

                // A narrow type's sum leaves its range: folded with `wrapping_add` (the
                // module docs of `rokkos::reducer` say why `+=` would not give one outcome).
                let s: $t = if $t::BITS < 32 {
                    parallel_reduce("sum", p(), wrapping_sum_k(&a), Sum)?
                } else {
                    parallel_reduce("sum", p(), sum_k(&a), Sum)?
                };
                prop_assert_eq!(s, xs.iter().fold(0, |x: $t, &y| x.wrapping_add(y)));

                let odd: Vec<$t> = xs.iter().map(|&v| v | 1).collect();
                let ao = view(&odd)?;
                let pr: $t = parallel_reduce("prod", p(), prod_k(&ao), Prod)?;
                prop_assert_eq!(pr, odd.iter().fold(1, |x: $t, &y| x.wrapping_mul(y)));

                let mn: $t = parallel_reduce("min", p(), min_k(&a), Min)?;
                prop_assert_eq!(mn, xs.iter().copied().min().unwrap_or($t::MAX));
                let mx: $t = parallel_reduce("max", p(), max_k(&a), Max)?;
                prop_assert_eq!(mx, xs.iter().copied().max().unwrap_or($t::MIN));

                // The kernels fold from the reducer's identity with strict comparisons, so (as in
                // Kokkos) an extremum equal to the identity value (e.g. `MaxLoc` over unsigned
                // zeros) keeps the identity's location `usize::MAX`; the reference folds the same way.
                let ml = parallel_reduce("minloc", p(), minloc_k(&a), MinLoc)?;
                let want = fold_loc(&xs, begin, $t::MAX, |v, best| v < best);
                prop_assert_eq!(ml, want);
                let xl = parallel_reduce("maxloc", p(), maxloc_k(&a), MaxLoc)?;
                let want = fold_loc(&xs, begin, $t::MIN, |v, best| v > best);
                prop_assert_eq!(xl, want);

                let mml = parallel_reduce("minmaxloc", p(), minmaxloc_k(&a), MinMaxLoc)?;
                let (lo, hi) = (ml, xl);
                prop_assert_eq!(
                    mml,
                    MinMaxLocVal {
                        min_val: lo.val,
                        max_val: hi.val,
                        min_loc: lo.loc,
                        max_loc: hi.loc,
                    }
                );

                let mm = parallel_reduce("minmax", p(), minmax_k(&a), MinMax)?;
                prop_assert_eq!(
                    mm,
                    MinMaxVal {
                        min: xs.iter().copied().min().unwrap_or($t::MAX),
                        max: xs.iter().copied().max().unwrap_or($t::MIN),
                    }
                );

                // Each element clears (BAnd) or sets (BOr) one bit chosen by its value.
                let bits = $t::BITS as i64;
                let clear: Vec<$t> = data
                    .iter()
                    .map(|&v| !((1 as $t) << v.rem_euclid(bits)))
                    .collect();
                let set: Vec<$t> = data
                    .iter()
                    .map(|&v| (1 as $t) << v.rem_euclid(bits))
                    .collect();
                let ac = view(&clear)?;
                let band: $t = parallel_reduce("band", p(), band_k(&ac), BAnd)?;
                prop_assert_eq!(band, clear.iter().fold(!0, |x: $t, &y| x & y));
                let as_ = view(&set)?;
                let bor: $t = parallel_reduce("bor", p(), bor_k(&as_), BOr)?;
                prop_assert_eq!(bor, set.iter().fold(0, |x: $t, &y| x | y));
                Ok(())
            }
        }
    };
}
int_reducers!(k_i32, i32);
int_reducers!(k_i64, i64);
int_reducers!(k_u32, u32);
int_reducers!(k_u64, u64);
int_reducers!(k_usize, usize);
int_reducers!(k_i8, i8);
int_reducers!(k_i16, i16);
int_reducers!(k_u8, u8);
int_reducers!(k_u16, u16);

/// Integer reducers; values in a narrow band so that minima and maxima tie.
fn integer_reducers<E: ExecutionSpace>(space: E) {
    check(
        16,
        (
            sizes(),
            0usize..50,
            any::<u64>(),
            prop_oneof![Just(5i64), Just(1000i64)],
            crate::chunk_sizes(),
        ),
        |(n, begin, seed, width, chunk)| {
            let signed = crate::ints(seed, n, -width, width);
            let unsigned = crate::ints(seed, n, 0, width);
            k_i32::check_all(&space, &signed, begin, chunk)?;
            k_i64::check_all(&space, &signed, begin, chunk)?;
            k_u32::check_all(&space, &unsigned, begin, chunk)?;
            k_u64::check_all(&space, &unsigned, begin, chunk)?;
            k_usize::check_all(&space, &unsigned, begin, chunk)?;
            Ok(())
        },
    );
}
per_backend!(integer_reducers);

/// The integer reducers on the 8- and 16-bit types (Kokkos' `int8_t` / `int16_t` accumulators):
/// wrapped sums and products, extrema across the sign, locations, bit joins. Fewer cases than
/// the wide types: a narrow accumulator takes the same paths at every size.
fn narrow_integer_reducers<E: ExecutionSpace>(space: E) {
    check(
        6,
        (
            sizes(),
            0usize..50,
            any::<u64>(),
            prop_oneof![Just(5i64), Just(1000i64)],
            crate::chunk_sizes(),
        ),
        |(n, begin, seed, width, chunk)| {
            let signed = crate::ints(seed, n, -width, width);
            let unsigned = crate::ints(seed, n, 0, width);
            k_i8::check_all(&space, &signed, begin, chunk)?;
            k_i16::check_all(&space, &signed, begin, chunk)?;
            k_u8::check_all(&space, &unsigned, begin, chunk)?;
            k_u16::check_all(&space, &unsigned, begin, chunk)?;
            Ok(())
        },
    );
}
per_backend!(narrow_integer_reducers);

#[kernel]
fn fsum<T: Float>(i: usize, acc: &mut T, a: View<T>) {
    *acc += a[i];
}
#[kernel]
fn fprod<T: Float>(i: usize, acc: &mut T, a: View<T>) {
    *acc *= a[i];
}
#[kernel]
fn fmin<T: Float>(i: usize, acc: &mut T, a: View<T>) {
    if a[i] < *acc {
        *acc = a[i];
    }
}
#[kernel]
fn fmax<T: Float>(i: usize, acc: &mut T, a: View<T>) {
    if a[i] > *acc {
        *acc = a[i];
    }
}
#[kernel]
fn fminloc<T: Float>(i: usize, acc: &mut ValLoc<T>, a: View<T>) {
    if a[i] < acc.val {
        acc.val = a[i];
        acc.loc = i;
    }
}
#[kernel]
fn fmaxloc<T: Float>(i: usize, acc: &mut ValLoc<T>, a: View<T>) {
    if a[i] > acc.val {
        acc.val = a[i];
        acc.loc = i;
    }
}
#[kernel]
fn fminmaxloc<T: Float>(i: usize, acc: &mut MinMaxLocVal<T>, a: View<T>) {
    if a[i] < acc.min_val {
        acc.min_val = a[i];
        acc.min_loc = i;
    }
    if a[i] > acc.max_val {
        acc.max_val = a[i];
        acc.max_loc = i;
    }
}
#[kernel]
fn fminmax<T: Float>(i: usize, acc: &mut MinMaxVal<T>, a: View<T>) {
    if a[i] < acc.min {
        acc.min = a[i];
    }
    if a[i] > acc.max {
        acc.max = a[i];
    }
}

fn check_float<T: Float, E: ExecutionSpace>(
    space: &E,
    data: &[f64],
    begin: usize,
    tol: f64,
) -> Result<(), TestCaseError> {
    let n = data.len();
    // Quantised to eighths so that minima and maxima tie.
    let xs: Vec<T> = data
        .iter()
        .map(|&v| T::from_f64((v * 8.0).round() / 8.0))
        .collect();
    let a: DevView<E, T> = dev_from_fn(space, "a", [begin + n], |[i]| {
        if i < begin {
            T::ZERO
        } else {
            xs[i - begin]
        }
    })?;
    let p = || RangePolicy::new(space, begin..begin + n);
    let as64: Vec<f64> = xs.iter().map(|v| v.to_f64()).collect();

    let s: T = parallel_reduce("fsum", p(), fsum(&a), Sum)?;
    let scale: f64 = as64.iter().map(|v| v.abs()).sum();
    assert_close(s.to_f64(), as64.iter().sum(), scale, tol, "Sum");

    let factors: Vec<T> = data.iter().map(|&v| T::from_f64(1.0 + v / 64.0)).collect();
    let f: DevView<E, T> = dev_from_fn(space, "f", [begin + n], |[i]| {
        if i < begin {
            T::ONE
        } else {
            factors[i - begin]
        }
    })?;
    let pr: T = parallel_reduce("fprod", p(), fprod(&f), Prod)?;
    let want: f64 = factors.iter().map(|v| v.to_f64()).product();
    assert_close(pr.to_f64(), want, want, tol, "Prod");

    let mn: T = parallel_reduce("fmin", p(), fmin(&a), Min)?;
    let mx: T = parallel_reduce("fmax", p(), fmax(&a), Max)?;
    let want_min = first_min(&as64, begin).map_or(f64::INFINITY, |m| m.0);
    let want_max = first_max(&as64, begin).map_or(f64::NEG_INFINITY, |m| m.0);
    prop_assert_eq!(mn.to_f64(), want_min);
    prop_assert_eq!(mx.to_f64(), want_max);

    let ml = parallel_reduce("fminloc", p(), fminloc(&a), MinLoc)?;
    let want = first_min(&as64, begin).unwrap_or((f64::INFINITY, usize::MAX));
    prop_assert_eq!((ml.val.to_f64(), ml.loc), want);
    let xl = parallel_reduce("fmaxloc", p(), fmaxloc(&a), MaxLoc)?;
    let want = first_max(&as64, begin).unwrap_or((f64::NEG_INFINITY, usize::MAX));
    prop_assert_eq!((xl.val.to_f64(), xl.loc), want);

    let mm = parallel_reduce("fminmax", p(), fminmax(&a), MinMax)?;
    prop_assert_eq!((mm.min.to_f64(), mm.max.to_f64()), (want_min, want_max));

    let mml = parallel_reduce("fminmaxloc", p(), fminmaxloc(&a), MinMaxLoc)?;
    let lo = first_min(&as64, begin).unwrap_or((f64::INFINITY, usize::MAX));
    let hi = first_max(&as64, begin).unwrap_or((f64::NEG_INFINITY, usize::MAX));
    prop_assert_eq!(
        (
            mml.min_val.to_f64(),
            mml.min_loc,
            mml.max_val.to_f64(),
            mml.max_loc
        ),
        (lo.0, lo.1, hi.0, hi.1)
    );
    Ok(())
}

/// Floating-point reducers in both precisions: sums and products within a tolerance, extrema and
/// their locations exactly.
fn float_reducers<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), 0usize..50, any::<u64>()),
        |(n, begin, seed)| {
            let data = crate::unit_floats(seed, n);
            check_float::<f64, E>(&space, &data, begin, 1e-12)?;
            check_float::<f32, E>(&space, &data, begin, crate::F32_TOL)?;
            Ok(())
        },
    );
}
per_backend!(float_reducers);

#[kernel]
fn all_positive(i: usize, acc: &mut bool, a: View<i32>) {
    *acc = *acc && a[i] > 0;
}
#[kernel]
fn any_negative(i: usize, acc: &mut bool, a: View<i32>) {
    *acc = *acc || a[i] < 0;
}

/// `LAnd` / `LOr` over flags with zero, one or several exceptions (and the empty range).
fn logical_reducers<E: ExecutionSpace>(space: E) {
    check(
        16,
        (
            sizes(),
            proptest::collection::vec(any::<prop::sample::Index>(), 0..3),
        ),
        |(n, holes)| {
            let mut xs = vec![1i32; n];
            for h in &holes {
                if n > 0 {
                    xs[h.index(n)] = -1;
                }
            }
            let a: DevView<E, i32> = dev_from_vec(&space, "flags", [n], xs.clone())?;
            let all: bool = parallel_reduce(
                "land",
                RangePolicy::new(&space, 0..n),
                all_positive(&a),
                LAnd,
            )?;
            prop_assert_eq!(all, xs.iter().all(|&v| v > 0));
            let any: bool =
                parallel_reduce("lor", RangePolicy::new(&space, 0..n), any_negative(&a), LOr)?;
            prop_assert_eq!(any, xs.iter().any(|&v| v < 0));
            Ok(())
        },
    );
}
per_backend!(logical_reducers);

#[kernel]
fn abs_max(i: usize, acc: &mut f64, a: View<f64>) {
    if a[i].abs() > acc.abs() {
        *acc = a[i];
    }
}
#[kernel]
fn first_and_last(i: usize, first: &mut i64, last: &mut i64, a: View<i64>) {
    if *first < 0 {
        *first = a[i];
    }
    *last = a[i];
}

/// `Custom` reducers: the value of largest magnitude (commutative), and "first"/"last" element
/// (associative but not commutative: the partial results must be joined in index order).
fn custom_reducers<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), crate::chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::unit_floats(seed, n);
            let a: DevView<E, f64> = dev_from_vec(&space, "a", [n], xs.clone())?;
            let r = Custom::new(0.0f64, |a: &mut f64, b: f64| {
                if b.abs() > a.abs() {
                    *a = b
                }
            });
            let got = parallel_reduce(
                "abs_max",
                RangePolicy::new(&space, 0..n).chunk_size(chunk),
                abs_max(&a),
                r,
            )?;
            let want = xs
                .iter()
                .fold(0.0f64, |m, &v| if v.abs() > m.abs() { v } else { m });
            prop_assert_eq!(got, want);

            let ids: DevView<E, i64> = dev_from_fn(&space, "ids", [n], |[i]| (i * 3) as i64)?;
            let first = Custom::new(-1i64, |a: &mut i64, b: i64| {
                if *a < 0 {
                    *a = b
                }
            });
            let last = Custom::new(-1i64, |a: &mut i64, b: i64| {
                if b >= 0 {
                    *a = b
                }
            });
            let (f, l) = parallel_reduce(
                "first_last",
                RangePolicy::new(&space, 0..n).chunk_size(chunk),
                first_and_last(&ids),
                (first, last),
            )?;
            let want_l = if n == 0 { -1 } else { 3 * (n as i64 - 1) };
            prop_assert_eq!((f, l), (if n == 0 { -1 } else { 0 }, want_l));
            Ok(())
        },
    );
}
per_backend!(custom_reducers);

#[kernel]
fn hash_2d((i, j): (usize, usize), h: &mut u32, p: &mut u32, x: View<u32, 2>, base: u32) {
    *h = (*h).wrapping_mul(base).wrapping_add(x[(i, j)]);
    *p = (*p).wrapping_mul(base);
}
#[kernel]
fn hash_3d((i, j, k): (usize, usize, usize), h: &mut u32, p: &mut u32, x: View<u32, 3>, base: u32) {
    *h = (*h).wrapping_mul(base).wrapping_add(x[(i, j, k)]);
    *p = (*p).wrapping_mul(base);
}

/// The join of [`hash_2d`] / [`hash_3d`] (a polynomial rolling hash): associative, not
/// commutative, so the partials must be joined in iteration order.
fn hash_join(a: &mut (u32, u32), b: (u32, u32)) {
    a.0 = a.0.wrapping_mul(b.1).wrapping_add(b.0);
    a.1 = a.1.wrapping_mul(b.1);
}

/// A data value for point `idx` (any fixed mixing of the coordinates).
fn point_value(idx: &[usize]) -> u32 {
    idx.iter().fold(0x9E37_79B9u32, |h, &c| {
        (h ^ c as u32).wrapping_mul(0x0100_0193)
    })
}

/// The rolling hash of `point_value` over `points`, in order.
fn hash_of(points: impl Iterator<Item = Vec<usize>>, base: u32) -> (u32, u32) {
    points.fold((0, 1), |(h, p), idx| {
        (
            h.wrapping_mul(base).wrapping_add(point_value(&idx)),
            p.wrapping_mul(base),
        )
    })
}

/// A `Custom` reducer with a non-commutative join over MDRanges (2-D and 3-D, non-zero begins,
/// empty boxes): the result is the hash of the points in row-major order (the iteration order
/// of the default tiles and of whole-row ones); a 2-D box of one-point tiles has more tiles than
/// a device backend's ordered partials (64 Ki), so its blocks hold several tiles.
fn custom_mdrange<E: ExecutionSpace>(space: E) {
    let base = 1_000_003u32;
    let ext = crate::small_extent(30);
    check(
        6,
        (ext.clone(), ext.clone(), ext, 0usize..3, 0usize..3),
        |(n0, n1, n2, b0, b1)| {
            let (e0, e1, e2) = (b0 + n0, b1 + n1, n2);
            let x: DevView<E, u32, 2> =
                dev_from_fn(&space, "x", [e0, e1], |[i, j]| point_value(&[i, j]))?;
            let p = MDRangePolicy::new(&space, [b0, b1], [e0, e1]);
            let r = Custom::new((0u32, 1u32), hash_join);
            let got = parallel_reduce("hash_2d", p, hash_2d(&x, base), r)?;
            let rows = (b0..e0).flat_map(|i| (b1..e1).map(move |j| vec![i, j]));
            prop_assert_eq!(got, hash_of(rows, base));

            let y: DevView<E, u32, 3> = dev_from_fn(&space, "y", [e0, e1, e2], |[i, j, k]| {
                point_value(&[i, j, k])
            })?;
            let p = MDRangePolicy::new(&space, [b0, b1, 0], [e0, e1, e2]).tile([1, 1, 0]);
            let got = parallel_reduce("hash_3d", p, hash_3d(&y, base), r)?;
            let rows = (b0..e0)
                .flat_map(|i| (b1..e1).flat_map(move |j| (0..e2).map(move |k| vec![i, j, k])));
            prop_assert_eq!(got, hash_of(rows, base));
            Ok(())
        },
    );
    let (n0, n1) = (290, 230);
    let x: DevView<E, u32, 2> =
        dev_from_fn(&space, "x", [n0, n1], |[i, j]| point_value(&[i, j])).unwrap();
    let p = MDRangePolicy::new(&space, [0, 0], [n0, n1]).tile([1, 1]);
    let got = parallel_reduce(
        "hash_2d",
        p,
        hash_2d(&x, base),
        Custom::new((0u32, 1u32), hash_join),
    )
    .unwrap();
    let rows = (0..n0).flat_map(|i| (0..n1).map(move |j| vec![i, j]));
    assert_eq!(got, hash_of(rows, base), "{n0} x {n1} one-point tiles");
}
per_backend!(custom_mdrange);

#[kernel]
fn first_multiple((i, j): (usize, usize), first: &mut i32, x: View<u32, 2>) {
    if *first < 0 && x[(i, j)] % 3 == 0 {
        *first = i as i32 * 1000 + j as i32;
    }
}

/// Explicit tiles that are not whole rows and `Iterate::Left` change the order in which the host
/// backends visit an MDRange (tile after tile); `Custom` reducers with non-commutative joins (a
/// rolling hash, the first point holding a multiple of 3) give exactly serial's result on every
/// backend: the devices walk the same tiles, and so does the IR evaluator (`ir_eval`,
/// `cuda_check`), which once walked the box row by row.
fn custom_mdrange_tiled<E: ExecutionSpace>(space: E) {
    let base = 1_000_003u32;
    let r = Custom::new((0u32, 1u32), hash_join);
    let first = Custom::new(-1i32, |a: &mut i32, b: i32| {
        if *a < 0 {
            *a = b
        }
    });
    for order in [Iterate::Right, Iterate::Left] {
        for tiles in [[3, 5, 2], [1, 4, 7], [0, 0, 0]] {
            let (b, e) = ([1, 0, 2], [12, 9, 10]);
            let hx = View::<u32, 3>::from_fn("x", e, |[i, j, k]| point_value(&[i, j, k])).unwrap();
            let want = parallel_reduce(
                "hash_3d",
                MDRangePolicy::new(&Serial, b, e).tile(tiles).iterate(order),
                hash_3d(&hx, base),
                r,
            )
            .unwrap();
            let x: DevView<E, u32, 3> =
                dev_from_fn(&space, "x", e, |[i, j, k]| point_value(&[i, j, k])).unwrap();
            let got = parallel_reduce(
                "hash_3d",
                MDRangePolicy::new(&space, b, e).tile(tiles).iterate(order),
                hash_3d(&x, base),
                r,
            )
            .unwrap();
            assert_eq!(got, want, "tiles {tiles:?}, {order:?}");
            let t2 = [tiles[0], tiles[1]];
            let hy = View::<u32, 2>::from_fn("y", [30, 17], |[i, j]| point_value(&[i, j])).unwrap();
            let y: DevView<E, u32, 2> =
                dev_from_fn(&space, "y", [30, 17], |[i, j]| point_value(&[i, j])).unwrap();
            let host = MDRangePolicy::new(&Serial, [2, 1], [30, 17])
                .tile(t2)
                .iterate(order);
            let dev = MDRangePolicy::new(&space, [2, 1], [30, 17])
                .tile(t2)
                .iterate(order);
            let want = parallel_reduce("hash_2d", host.clone(), hash_2d(&hy, base), r).unwrap();
            let got = parallel_reduce("hash_2d", dev.clone(), hash_2d(&y, base), r).unwrap();
            assert_eq!(got, want, "2-D tiles {t2:?}, {order:?}");
            let want = parallel_reduce("first_multiple", host, first_multiple(&hy), first).unwrap();
            let got = parallel_reduce("first_multiple", dev, first_multiple(&y), first).unwrap();
            assert_eq!(got, want, "first multiple, 2-D tiles {t2:?}, {order:?}");
        }
    }
}
per_backend!(custom_mdrange_tiled);

#[kernel]
fn league_ranks(team: &TeamMember, acc: &mut i32) {
    if team.team_rank() == 0 {
        *acc = team.league_rank() as i32;
    }
}

/// A `Custom` reducer over a team policy on wgpu (the ordered-partials mode for teams, once
/// refused) gives serial's result: the last league rank, written by each team's thread 0.
#[cfg(feature = "wgpu")]
#[test]
fn custom_team_reductions_match_serial_on_wgpu() {
    let Some(wgpu) = crate::wgpu_space() else {
        return;
    };
    let last = Custom::new(-1i32, |a: &mut i32, v: i32| {
        if v >= 0 {
            *a = v
        }
    });
    for league in [0, 1, 5, 3000] {
        let p = TeamPolicy::new(&wgpu, league, TeamSize::Auto);
        let got = parallel_reduce("ranks", p, league_ranks(), last).unwrap();
        let host = parallel_reduce(
            "ranks",
            TeamPolicy::new(&Serial, league, TeamSize::Auto),
            league_ranks(),
            last,
        );
        assert_eq!(got, host.unwrap(), "league {league}");
        assert_eq!(got, league as i32 - 1);
    }
}

#[kernel]
fn argmin_and_sum(i: usize, m: &mut ValLoc<f64>, s: &mut f64, a: View<f64>) {
    if a[i] < m.val {
        m.val = a[i];
        m.loc = i;
    }
    *s += a[i];
}

#[kernel]
fn five_ways(
    i: usize,
    s: &mut i64,
    p: &mut i64,
    lo: &mut i64,
    hi: &mut i64,
    bits: &mut u64,
    a: View<i64>,
) {
    *s += a[i];
    *p = (*p).wrapping_mul(a[i]);
    if a[i] < *lo {
        *lo = a[i];
    }
    if a[i] > *hi {
        *hi = a[i];
    }
    *bits |= 1u64 << (a[i].rem_euclid(64) as u64);
}

/// Tuples of reducers: a `ValLoc` next to a sum, and the largest tuple (five reducers at once).
fn tuple_reducers<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), crate::chunk_sizes()),
        |(n, seed, chunk)| {
            let xs: Vec<f64> = crate::unit_floats(seed, n)
                .iter()
                .map(|v| (v * 4.0).round())
                .collect();
            let a: DevView<E, f64> = dev_from_vec(&space, "a", [n], xs.clone())?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let (m, s) = parallel_reduce("argmin_and_sum", p, argmin_and_sum(&a), (MinLoc, Sum))?;
            let want = first_min(&xs, 0).unwrap_or((f64::INFINITY, usize::MAX));
            prop_assert_eq!((m.val, m.loc), want);
            prop_assert_eq!(s, xs.iter().sum::<f64>(), "small integers sum exactly");

            let is = crate::ints(seed, n, -20, 20);
            let ai: DevView<E, i64> = dev_from_vec(&space, "ai", [n], is.clone())?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            let got = parallel_reduce("five_ways", p, five_ways(&ai), (Sum, Prod, Min, Max, BOr))?;
            let want = (
                is.iter().sum::<i64>(),
                is.iter().fold(1i64, |x, &y| x.wrapping_mul(y)),
                is.iter().copied().min().unwrap_or(i64::MAX),
                is.iter().copied().max().unwrap_or(i64::MIN),
                is.iter().fold(0u64, |x, &y| x | 1u64 << y.rem_euclid(64)),
            );
            prop_assert_eq!(got, want);
            Ok(())
        },
    );
}
per_backend!(tuple_reducers);

// ---- NaN, signed zeros and ties: the same result on every backend and partition (audit item 9).

/// `Max` folded the way its join combines: a NaN element wins (and stays), `0.0 > -0.0`.
#[kernel]
#[allow(clippy::eq_op)] // `x != x`: NaN, for any `T: Float`.
fn ieee_max<T: Float>(i: usize, acc: &mut T, a: View<T>) {
    let x = a[i];
    let m = *acc;
    if x != x || (m == m && (x > m || (x == m && T::ONE / x > T::ONE / m))) {
        *acc = x;
    }
}
/// `Min` folded the way its join combines: a NaN element wins, `-0.0 < 0.0`.
#[kernel]
#[allow(clippy::eq_op)] // `x != x`: NaN, for any `T: Float`.
fn ieee_min<T: Float>(i: usize, acc: &mut T, a: View<T>) {
    let x = a[i];
    let m = *acc;
    if x != x || (m == m && (x < m || (x == m && T::ONE / x < T::ONE / m))) {
        *acc = x;
    }
}
/// `MinMax` folded as its join combines.
#[kernel]
#[allow(clippy::eq_op)] // `x != x`: NaN, for any `T: Float`.
fn ieee_minmax<T: Float>(i: usize, acc: &mut MinMaxVal<T>, a: View<T>) {
    let x = a[i];
    let (lo, hi) = (acc.min, acc.max);
    if x != x || (lo == lo && (x < lo || (x == lo && T::ONE / x < T::ONE / lo))) {
        acc.min = x;
    }
    if x != x || (hi == hi && (x > hi || (x == hi && T::ONE / x > T::ONE / hi))) {
        acc.max = x;
    }
}
/// `MinLoc` folded as its join combines: the first NaN wins, else the first minimum.
#[kernel]
#[allow(clippy::eq_op)] // `x != x`: NaN, for any `T: Float`.
fn nan_minloc<T: Float>(i: usize, acc: &mut ValLoc<T>, a: View<T>) {
    let x = a[i];
    let m = acc.val;
    if (x != x && m == m) || x < m {
        acc.val = x;
        acc.loc = i;
    }
}
/// `MaxLoc` folded as its join combines: the first NaN wins, else the first maximum.
#[kernel]
#[allow(clippy::eq_op)] // `x != x`: NaN, for any `T: Float`.
fn nan_maxloc<T: Float>(i: usize, acc: &mut ValLoc<T>, a: View<T>) {
    let x = a[i];
    let m = acc.val;
    if (x != x && m == m) || x > m {
        acc.val = x;
        acc.loc = i;
    }
}

/// IEEE 754-2019 `maximum` (`greater`) or `minimum` of `xs` from the identity: NaN if any element
/// is NaN, else the extremum with `-0.0 < 0.0`. Written independently of the reducers.
fn ieee_extremum(xs: &[f64], greater: bool) -> f64 {
    if xs.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let key = |v: f64| {
        (
            v,
            if greater {
                v.is_sign_positive()
            } else {
                v.is_sign_negative()
            },
        )
    };
    let mut best = if greater {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    for &v in xs {
        let better = if greater { v > best } else { v < best };
        if better || (v == best && key(v).1 && !key(best).1) {
            best = v;
        }
    }
    best
}
/// The first location of a NaN, else of the extremum (compared with `<` / `>`, so `-0.0 == 0.0`),
/// with the value found there; the identity when `xs` is empty.
fn first_loc(xs: &[f64], begin: usize, greater: bool) -> (f64, usize) {
    if let Some(k) = xs.iter().position(|v| v.is_nan()) {
        return (xs[k], begin + k);
    }
    let found = if greater {
        first_max(xs, begin)
    } else {
        first_min(xs, begin)
    };
    found.unwrap_or((
        if greater {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        },
        usize::MAX,
    ))
}

/// Bitwise equality with any NaN equal to any NaN.
fn same_bits(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Data with ties, both zeros, and `nans` NaNs at positions chosen by `seed`.
fn tricky_data(seed: u64, n: usize, nans: usize) -> Vec<f64> {
    let r = crate::splitmix(seed, n + nans);
    let mut xs: Vec<f64> = r[..n]
        .iter()
        .map(|&u| match u % 8 {
            0 => 0.0,
            1 => -0.0,
            2 => 0.5,
            3 => -0.5,
            _ => ((u >> 8) % 7) as f64 - 3.0,
        })
        .collect();
    if n > 0 {
        for &u in &r[n..] {
            xs[(u >> 3) as usize % n] = f64::NAN;
        }
    }
    xs
}

/// Every float reducer over `data` (after `begin` filler elements) with chunk size `chunk`; the
/// results as f64 bit patterns in a fixed order, checked against the independent expectations.
fn nan_results<T: Float, E: ExecutionSpace>(
    space: &E,
    data: &[f64],
    begin: usize,
    chunk: usize,
) -> Result<Vec<u64>, TestCaseError> {
    let n = data.len();
    let xs: Vec<T> = data.iter().map(|&v| T::from_f64(v)).collect();
    let a: DevView<E, T> = dev_from_fn(space, "a", [begin + n], |[i]| {
        if i < begin {
            T::from_f64(f64::NAN)
        } else {
            xs[i - begin]
        }
    })?;
    let p = || RangePolicy::new(space, begin..begin + n).chunk_size(chunk);
    let mx: T = parallel_reduce("ieee_max", p(), ieee_max(&a), Max)?;
    let mn: T = parallel_reduce("ieee_min", p(), ieee_min(&a), Min)?;
    let mm = parallel_reduce("ieee_minmax", p(), ieee_minmax(&a), MinMax)?;
    let ml = parallel_reduce("nan_minloc", p(), nan_minloc(&a), MinLoc)?;
    let xl = parallel_reduce("nan_maxloc", p(), nan_maxloc(&a), MaxLoc)?;
    // The usual strict folds never let a NaN into a partial: NaN elements are ignored.
    let sml = parallel_reduce("fminloc", p(), fminloc(&a), MinLoc)?;
    let sxl = parallel_reduce("fmaxloc", p(), fmaxloc(&a), MaxLoc)?;
    let smx: T = parallel_reduce("fmax", p(), fmax(&a), Max)?;

    let what = format!("{} with chunk {chunk} over {data:?}", space.name());
    let (wmax, wmin) = (ieee_extremum(data, true), ieee_extremum(data, false));
    prop_assert!(
        same_bits(mx.to_f64(), wmax),
        "Max {:?} != {:?}: {}",
        mx,
        wmax,
        what
    );
    prop_assert!(
        same_bits(mn.to_f64(), wmin),
        "Min {:?} != {:?}: {}",
        mn,
        wmin,
        what
    );
    prop_assert!(
        same_bits(mm.min.to_f64(), wmin),
        "MinMax.min {:?}: {}",
        mm.min,
        what
    );
    prop_assert!(
        same_bits(mm.max.to_f64(), wmax),
        "MinMax.max {:?}: {}",
        mm.max,
        what
    );
    for (got, greater, name) in [(ml, false, "MinLoc"), (xl, true, "MaxLoc")] {
        let (v, l) = first_loc(data, begin, greater);
        prop_assert!(
            same_bits(got.val.to_f64(), v) && got.loc == l,
            "{} ({:?}, {}) != ({:?}, {}): {}",
            name,
            got.val,
            got.loc,
            v,
            l,
            what
        );
    }
    let finite: Vec<f64> = data.iter().copied().filter(|v| !v.is_nan()).collect();
    let (v, l) = first_loc(&finite, 0, false);
    let l = if l == usize::MAX {
        l
    } else {
        begin
            + data
                .iter()
                .position(|x| x.to_bits() == v.to_bits() || *x == v)
                .unwrap_or(0)
    };
    prop_assert!(
        same_bits(sml.val.to_f64(), v) && sml.loc == l,
        "strict MinLoc ({:?}, {}) != ({:?}, {}): {}",
        sml.val,
        sml.loc,
        v,
        l,
        what
    );
    let (v, _) = first_loc(&finite, 0, true);
    prop_assert!(
        sxl.val.to_f64() == v || (n == 0),
        "strict MaxLoc {:?}: {}",
        sxl.val,
        what
    );
    prop_assert!(
        smx.to_f64() == finite.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "strict Max {:?}: {}",
        smx,
        what
    );
    Ok([
        mx.to_f64(),
        mn.to_f64(),
        mm.min.to_f64(),
        mm.max.to_f64(),
        ml.val.to_f64(),
        ml.loc as f64,
        xl.val.to_f64(),
        xl.loc as f64,
        sml.val.to_f64(),
        sml.loc as f64,
    ]
    .iter()
    .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
    .collect())
}

/// NaN and signed zeros through every float reducer, each folded by a kernel that combines an
/// element as the reducer's join does: the results are the IEEE 754-2019 `minimum`/`maximum` and
/// the first location of a NaN or of the extremum, bit for bit (zero signs included), on every
/// backend and for every chunk size; the usual strict folds ignore NaN elements everywhere.
fn reducers_treat_nan_and_zeros_alike<E: ExecutionSpace>(space: E) {
    // Past a few workgroups' worth on the parallel backends; the evaluator is slow.
    let large = if matches!(space.name(), "ir-eval" | "cuda-check") {
        1025
    } else {
        crate::LARGE
    };
    check(
        8,
        (
            prop_oneof![3 => sizes(), 1 => Just(large)],
            0usize..20,
            any::<u64>(),
            0usize..4,
        ),
        |(n, begin, seed, nans)| {
            let data = tricky_data(seed, n, nans);
            let mut first = None;
            for chunk in [0, 1, 1000] {
                let r64 = nan_results::<f64, E>(&space, &data, begin, chunk)?;
                let r32 = nan_results::<f32, E>(&space, &data, begin, chunk)?;
                // Chunking changes the partition on rayon; nothing else may change.
                match &first {
                    None => first = Some((r64, r32)),
                    Some(f) => prop_assert_eq!(f, &(r64, r32), "chunk {} differs", chunk),
                }
            }
            Ok(())
        },
    );
}
per_backend!(reducers_treat_nan_and_zeros_alike);

/// The rayon backend with 1 to 4 threads gives the same bits as serial for the NaN-and-zeros data
/// (a partial per chunk: the thread count changes the partition).
#[cfg(feature = "rayon")]
#[test]
fn reducer_results_do_not_depend_on_the_thread_count() {
    for seed in 0..6u64 {
        let data = tricky_data(seed, 3001, (seed % 3) as usize + 1);
        let want = nan_results::<f64, _>(&rokkos::Serial, &data, 5, 0).unwrap();
        for threads in 1..=4 {
            let space = rokkos::Rayon::with_threads(threads).unwrap();
            for chunk in [0, 1, 64] {
                let got = nan_results::<f64, _>(&space, &data, 5, chunk).unwrap();
                assert_eq!(got, want, "seed {seed}, {threads} threads, chunk {chunk}");
            }
        }
    }
}

/// The reducers' joins directly: commutative on NaN and signed zeros, ties to the smaller location.
#[test]
fn joins_are_commutative_on_nan_and_zeros() {
    use rokkos::Reducer;
    let vals = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for &a in &vals {
        for &b in &vals {
            let (mut x, mut y) = (a, b);
            Max.join(&mut x, b);
            Max.join(&mut y, a);
            assert!(same_bits(x, y), "Max({a}, {b}): {x} vs {y}");
            let (mut x, mut y) = (a, b);
            Min.join(&mut x, b);
            Min.join(&mut y, a);
            assert!(same_bits(x, y), "Min({a}, {b}): {x} vs {y}");
            let (pa, pb) = (ValLoc { val: a, loc: 3 }, ValLoc { val: b, loc: 8 });
            let (mut x, mut y) = (pa, pb);
            MinLoc.join(&mut x, pb);
            MinLoc.join(&mut y, pa);
            assert!(
                same_bits(x.val, y.val) && x.loc == y.loc,
                "MinLoc({a}, {b})"
            );
            let (mut x, mut y) = (pa, pb);
            MaxLoc.join(&mut x, pb);
            MaxLoc.join(&mut y, pa);
            assert!(
                same_bits(x.val, y.val) && x.loc == y.loc,
                "MaxLoc({a}, {b})"
            );
        }
    }
    let mut m = 0.0f64;
    Max.join(&mut m, -0.0);
    assert!(m.is_sign_positive());
    let mut m = 0.0f64;
    Min.join(&mut m, -0.0);
    assert!(m.is_sign_negative());
    let mut l = ValLoc {
        val: 0.0f64,
        loc: 9,
    };
    MinLoc.join(&mut l, ValLoc { val: -0.0, loc: 4 });
    assert_eq!((l.val.to_bits(), l.loc), ((-0.0f64).to_bits(), 4));
}

/// Nested team reductions fold and join the same way (on wgpu a team's threads and lanes are real,
/// so their partials meet in the team's join).
#[kernel]
fn row_ieee(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let mx = team.thread_reduce(a.extent(1), Max, |j, acc: &mut f64| {
        let x = a[(l, j)];
        let m = *acc;
        if x.is_nan() || (!m.is_nan() && (x > m || (x == m && 1.0 / x > 1.0 / m))) {
            *acc = x;
        }
    });
    let mn = team.team_vector_reduce(a.extent(1), Min, |j, acc: &mut f64| {
        let x = a[(l, j)];
        let m = *acc;
        if x.is_nan() || (!m.is_nan() && (x < m || (x == m && 1.0 / x < 1.0 / m))) {
            *acc = x;
        }
    });
    team.single_team(|| {
        out[(l, 0)] = mx;
        out[(l, 1)] = mn;
    });
}

/// Team-level `Max` / `Min` over rows with NaN and signed zeros: IEEE `maximum` / `minimum` of
/// each row on every backend.
fn team_reducers_treat_nan_and_zeros_alike<E: ExecutionSpace>(space: E) {
    check(
        6,
        (1usize..40, 1usize..300, any::<u64>()),
        |(rows, cols, seed)| {
            let data: Vec<f64> = (0..rows)
                .flat_map(|r| tricky_data(seed ^ r as u64, cols, (r % 3) / 2))
                .collect();
            let a: DevView<E, f64, 2> = dev_from_vec(&space, "a", [rows, cols], data.clone())?;
            let out: DevView<E, f64, 2> = dev(&space, "out", [rows, 2])?;
            let p = TeamPolicy::new(&space, rows, TeamSize::Auto).vector_length(4);
            parallel_for("row_ieee", p, row_ieee(&a, &out))?;
            let got = to_host(&out);
            for r in 0..rows {
                let row = &data[r * cols..(r + 1) * cols];
                let (wmax, wmin) = (ieee_extremum(row, true), ieee_extremum(row, false));
                prop_assert!(
                    same_bits(got[2 * r], wmax),
                    "row {} max {:?} != {:?}: {:?}",
                    r,
                    got[2 * r],
                    wmax,
                    row
                );
                prop_assert!(
                    same_bits(got[2 * r + 1], wmin),
                    "row {} min {:?} != {:?}: {:?}",
                    r,
                    got[2 * r + 1],
                    wmin,
                    row
                );
            }
            Ok(())
        },
    );
}
per_backend!(team_reducers_treat_nan_and_zeros_alike);

#[kernel]
fn isum(i: usize, acc: &mut i32, a: View<i32>) {
    *acc += a[i];
}

#[kernel]
fn isum_max(i: usize, s: &mut i32, m: &mut i32, a: View<i32>) {
    *s += a[i];
    if a[i] > *m {
        *m = a[i];
    }
}

#[kernel]
fn team_isum(team: &TeamMember, acc: &mut i32, a: View<i32, 2>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), Sum, |j, t: &mut i32| {
        *t += a[(l, j)];
    });
    team.single_team(|| {
        *acc += s;
    });
}

#[kernel(scan)]
fn iprefix(i: usize, partial: &mut i32, is_final: bool, a: View<i32>, out: ViewMut<i32>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += a[i];
}

/// Final hooks (Kokkos' `final`): run once, on the host, on the reduced value, for a host
/// result, a result View of the space's memory or of the host's, each member of a tuple, a
/// `Custom` reducer (the ordered path of device backends) and a team policy; hooks stack in
/// order; a scan refuses a reducer with one and writes nothing.
fn final_hooks<E: ExecutionSpace>(space: E) {
    check(8, (sizes(), any::<u64>()), |(n, seed)| {
        let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
            .iter()
            .map(|&v| v as i32)
            .collect();
        let a: DevView<E, i32> = dev_from_vec(&space, "a", [n], xs.clone())?;
        let p = || RangePolicy::new(&space, 0..n);
        let hook = |s: &mut i32| *s = 3 * *s + 1;
        let sum: i32 = xs.iter().sum();
        let max = xs.iter().copied().max().unwrap_or(i32::MIN);

        let got = parallel_reduce("final", p(), isum(&a), Sum.with_final(hook))?;
        prop_assert_eq!(got, 3 * sum + 1);
        let on_device: DevView<E, i32, 0> = dev(&space, "on_device", [])?;
        parallel_reduce_into(
            "final_into",
            p(),
            isum(&a),
            Sum.with_final(hook),
            &on_device,
        )?;
        prop_assert_eq!(to_host(&on_device), vec![3 * sum + 1]);
        let on_host = View::<i32, 0>::new("on_host", [])?;
        parallel_reduce_into("final_host", p(), isum(&a), Sum.with_final(hook), &on_host)?;
        prop_assert_eq!(on_host.get(()), 3 * sum + 1);

        // Each member of a tuple runs its own hook; stacked hooks run inner first.
        let twice = Max
            .with_final(|m: &mut i32| *m = m.wrapping_mul(2))
            .with_final(|m: &mut i32| *m = m.wrapping_add(5));
        let (s, m) = parallel_reduce("tuple", p(), isum_max(&a), (Sum.with_final(hook), twice))?;
        prop_assert_eq!((s, m), (3 * sum + 1, max.wrapping_mul(2).wrapping_add(5)));

        let custom = Custom::new(0i32, |x: &mut i32, y: i32| *x += y).with_final(hook);
        prop_assert_eq!(
            parallel_reduce("custom", p(), isum(&a), custom)?,
            3 * sum + 1
        );

        let (league, w) = (n % 17, n / 17);
        let rows: DevView<E, i32, 2> =
            dev_from_vec(&space, "rows", [league, w], xs[..league * w].to_vec())?;
        let tp = TeamPolicy::new(&space, league, TeamSize::Auto);
        let want: i32 = xs[..league * w].iter().sum();
        let got = parallel_reduce("team_final", tp, team_isum(&rows), Sum.with_final(hook))?;
        prop_assert_eq!(got, 3 * want + 1);

        let out: DevView<E, i32> = dev(&space, "out", [n])?;
        let err = parallel_scan_with("scan_final", p(), iprefix(&a, &out), Sum.with_final(hook))
            .unwrap_err();
        prop_assert!(
            matches!(&err, rokkos::Error::InvalidArgument(m) if m.contains("final hook")),
            "{err:?}"
        );
        prop_assert!(to_host(&out).iter().all(|&v| v == 0));
        Ok(())
    });
}
per_backend!(final_hooks);
