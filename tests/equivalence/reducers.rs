//! Every built-in reducer on every element type it supports (Kokkos `TestReducers`): `Sum`, `Prod`,
//! `Min`, `Max`, `MinLoc`, `MaxLoc`, `MinMax`, `BAnd`, `BOr` on `i32`/`i64`/`u32`/`u64`, the
//! arithmetic ones on `f32`/`f64`, `LAnd`/`LOr` on `bool`, and `Custom` reducers, each against a
//! plain fold over the same data, including the identities over empty ranges and ties (the smallest
//! location wins).

use crate::{assert_close, check, dev_from_fn, dev_from_vec, sizes, DevView};
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

                let s: $t = parallel_reduce("sum", p(), sum_k(&a), Sum)?;
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
