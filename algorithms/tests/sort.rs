//! `sort`, `sort_by_key` and `BinSort` on every backend, against std's sorts and plain loops.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rokkos::prelude::*;
use rokkos::Error;
use rokkos_algorithms::{sort, sort_by_key, BinOp1D, BinSort};
use rokkos_testing::{dev_from_slice, dev_from_vec, per_backend, splitmix, to_host, DevView};
use std::cmp::Ordering;

fn check<S: Strategy>(
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    if let Err(e) = TestRunner::new(config).run(&strategy, test) {
        panic!("{e}");
    }
}

/// The documented float order, written independently of the kernels: IEEE order with
/// `-0.0 < +0.0`, every NaN after `+inf` and NaNs equal.
fn nan_last_f64(a: &f64, b: &f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.total_cmp(b),
    }
}

fn nan_last_f32(a: &f32, b: &f32) -> Ordering {
    nan_last_f64(&(*a as f64), &(*b as f64))
}

/// Sizes: edges of the merge passes' powers of two, and a few random ones.
fn sizes() -> impl Strategy<Value = usize> + Clone {
    prop_oneof![
        3 => proptest::sample::select(&[0usize, 1, 2, 3, 255, 256, 257, 1025][..]),
        1 => 0usize..2000,
    ]
}

/// Random integers of every kernel width and the host-sorted `i8` / `i16`, with few distinct
/// values in some cases (long runs of equal keys) and the types' extremes.
fn integers<E: ExecutionSpace>(space: E) {
    check(8, (sizes(), any::<u64>(), 1u64..5), |(n, seed, spread)| {
        let raw = splitmix(seed, n);
        let narrow = |r: u64| if spread == 1 { r % 4 } else { r };
        let mut want: Vec<u32> = raw.iter().map(|&r| narrow(r) as u32).collect();
        let v = dev_from_slice(&space, "u32s", &want)?;
        sort(&space, &v)?;
        want.sort();
        prop_assert_eq!(to_host(&v), want);
        Ok(())
    });
    macro_rules! one_type {
        ($($t:ty),*) => {$({
            let raw = splitmix(7, 300);
            let mut want: Vec<$t> = raw.iter().map(|&r| r as $t).collect();
            want[0] = <$t>::MIN;
            want[1] = <$t>::MAX;
            want[2] = <$t>::MIN;
            let v = dev_from_slice(&space, stringify!($t), &want).unwrap();
            sort(&space, &v).unwrap();
            want.sort();
            assert_eq!(to_host(&v), want, "{}", stringify!($t));
        })*};
    }
    one_type!(u8, u16, u64, i8, i16, i32, i64);
}
per_backend!(integers);

fn special_f64(r: u64) -> f64 {
    const SPECIAL: [f64; 10] = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        -5e-324,
        1.0,
        -1.0,
        f64::MAX,
    ];
    match r % 4 {
        0 => SPECIAL[(r >> 8) as usize % SPECIAL.len()],
        // A NaN with the sign bit and a payload.
        1 if r & 0x100 != 0 => f64::from_bits(0xFFF8_0000_0000_0000 | (r >> 20)),
        _ => ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e3,
    }
}

/// Floats with NaNs of both signs and payloads, signed zeros, infinities and subnormals,
/// bit for bit against a stable std sort in the documented order.
fn floats<E: ExecutionSpace>(space: E) {
    check(
        4,
        (
            proptest::sample::select(&[2usize, 257, 1025][..]),
            any::<u64>(),
        ),
        |(n, seed)| {
            let data: Vec<f64> = splitmix(seed, n).into_iter().map(special_f64).collect();
            let v = dev_from_slice(&space, "f64s", &data)?;
            sort(&space, &v)?;
            let mut want = data.clone();
            want.sort_by(nan_last_f64);
            let bits = |x: Vec<f64>| x.into_iter().map(f64::to_bits).collect::<Vec<_>>();
            prop_assert_eq!(bits(to_host(&v)), bits(want));

            let data32: Vec<f32> = data.iter().map(|&x| x as f32).collect();
            let v = dev_from_slice(&space, "f32s", &data32)?;
            sort(&space, &v)?;
            let mut want = data32.clone();
            want.sort_by(nan_last_f32);
            let bits = |x: Vec<f32>| x.into_iter().map(f32::to_bits).collect::<Vec<_>>();
            prop_assert_eq!(bits(to_host(&v)), bits(want));
            Ok(())
        },
    );
}
per_backend!(floats);

/// Values follow their keys, and equal keys keep their values' order (keys from a small set).
fn by_key_is_stable<E: ExecutionSpace>(space: E) {
    check(6, (sizes(), any::<u64>()), |(n, seed)| {
        let keys: Vec<u32> = splitmix(seed, n).iter().map(|&r| (r % 9) as u32).collect();
        let vals: Vec<i64> = (0..n as i64).map(|i| 1000 - 3 * i).collect();
        let k = dev_from_slice(&space, "keys", &keys)?;
        let v = dev_from_slice(&space, "vals", &vals)?;
        sort_by_key(&space, &k, &v)?;
        let mut pairs: Vec<(u32, i64)> = keys.iter().copied().zip(vals.iter().copied()).collect();
        pairs.sort_by_key(|p| p.0);
        prop_assert_eq!(to_host(&k), pairs.iter().map(|p| p.0).collect::<Vec<_>>());
        prop_assert_eq!(to_host(&v), pairs.iter().map(|p| p.1).collect::<Vec<_>>());
        Ok(())
    });
    // Float keys with NaNs and zeros, `u16` values; `i16` keys (sorted on the host) with `f32`
    // values; an already sorted input.
    let fk: Vec<f64> = splitmix(3, 500).into_iter().map(special_f64).collect();
    let fv: Vec<u16> = (0..500).collect();
    let k = dev_from_slice(&space, "fkeys", &fk).unwrap();
    let v = dev_from_slice(&space, "fvals", &fv).unwrap();
    sort_by_key(&space, &k, &v).unwrap();
    let mut idx: Vec<usize> = (0..500).collect();
    idx.sort_by(|&a, &b| nan_last_f64(&fk[a], &fk[b]));
    assert_eq!(to_host(&v), idx.iter().map(|&i| fv[i]).collect::<Vec<_>>());

    let sk: Vec<i16> = splitmix(4, 300)
        .iter()
        .map(|&r| (r % 7) as i16 - 3)
        .collect();
    let sv: Vec<f32> = (0..300).map(|i| i as f32).collect();
    let k = dev_from_slice(&space, "i16keys", &sk).unwrap();
    let v = dev_from_slice(&space, "f32vals", &sv).unwrap();
    sort_by_key(&space, &k, &v).unwrap();
    let mut idx: Vec<usize> = (0..300).collect();
    idx.sort_by_key(|&i| sk[i]);
    assert_eq!(to_host(&v), idx.iter().map(|&i| sv[i]).collect::<Vec<_>>());
    assert_eq!(to_host(&k), idx.iter().map(|&i| sk[i]).collect::<Vec<_>>());

    let sorted: Vec<i32> = (0..100).collect();
    let k = dev_from_slice(&space, "sorted", &sorted).unwrap();
    let v = dev_from_slice(&space, "same", &sorted).unwrap();
    sort_by_key(&space, &k, &v).unwrap();
    assert_eq!(to_host(&v), sorted);
}
per_backend!(by_key_is_stable);

/// A strided subview (one column of a row-major matrix) sorts in place; the other column stays.
fn strided<E: ExecutionSpace>(space: E) {
    let n = 257;
    let data: Vec<i64> = splitmix(11, 2 * n)
        .iter()
        .map(|&r| r as i64 >> 40)
        .collect();
    let m: DevView<E, i64, 2> = dev_from_vec(&space, "m", [n, 2], data.clone()).unwrap();
    let col = m.subview::<1>((.., 1)).unwrap();
    let left = m.subview::<1>((.., 0)).unwrap();
    let vals: Vec<u8> = (0..n).map(|i| i as u8).collect();
    let v = dev_from_slice(&space, "v", &vals).unwrap();
    sort_by_key(&space, &col, &v).unwrap();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by_key(|&i| data[2 * i + 1]);
    assert_eq!(
        to_host(&col),
        idx.iter().map(|&i| data[2 * i + 1]).collect::<Vec<_>>()
    );
    assert_eq!(
        to_host(&left),
        (0..n).map(|i| data[2 * i]).collect::<Vec<_>>()
    );
    assert_eq!(
        to_host(&v),
        idx.iter().map(|&i| vals[i]).collect::<Vec<_>>()
    );
    sort(&space, &left).unwrap();
    let mut want: Vec<i64> = (0..n).map(|i| data[2 * i]).collect();
    want.sort();
    assert_eq!(to_host(&left), want);
    // Keys and values as two columns of one matrix.
    let m: DevView<E, i64, 2> = dev_from_vec(&space, "m2", [n, 2], data.clone()).unwrap();
    let (c0, c1) = (
        m.subview::<1>((.., 0)).unwrap(),
        m.subview::<1>((.., 1)).unwrap(),
    );
    sort_by_key(&space, &c1, &c0).unwrap();
    let mut rows: Vec<(i64, i64)> = (0..n).map(|i| (data[2 * i + 1], data[2 * i])).collect();
    rows.sort_by_key(|r| r.0);
    assert_eq!(
        to_host(&m),
        rows.iter().flat_map(|r| [r.1, r.0]).collect::<Vec<_>>()
    );
}
per_backend!(strided);

/// One size past 2^16 (seventeen merge passes); past 2^12 on the IR evaluator and the CUDA
/// compile check, which interpret every IR operation (the 2^16 case takes them half a minute).
fn large<E: ExecutionSpace>(space: E) {
    let n = if matches!(space.name(), "ir-eval" | "cuda-check") {
        4097
    } else {
        65537
    };
    let mut want: Vec<u32> = splitmix(5, n).iter().map(|&r| r as u32).collect();
    let v = dev_from_slice(&space, "large", &want).unwrap();
    sort(&space, &v).unwrap();
    want.sort_unstable();
    assert_eq!(to_host(&v), want);
}
per_backend!(large);

/// The bin of `k` by the documented rule, in exact integer arithmetic.
fn int_bin(k: i128, nbins: i128, min: i128, max: i128) -> usize {
    let width = (max - min + 1 + nbins - 1) / nbins;
    (((k.clamp(min, max) - min) / width) as usize).min(nbins as usize - 1)
}

/// Offsets, counts and the permutation against a plain loop, with and without sorting within
/// bins; then the permutation applied to Views of other types and to rows.
fn binsort<E: ExecutionSpace>(space: E) {
    check(5, (sizes(), any::<u64>(), 1i64..12), |(n, seed, nbins)| {
        let keys: Vec<i32> = splitmix(seed, n)
            .iter()
            .map(|&r| (r % 200) as i32 - 50)
            .collect();
        let k = dev_from_slice(&space, "keys", &keys)?;
        for within in [false, true] {
            let mut bs = BinSort::new(&space, &k, BinOp1D::new(nbins as usize, 0, 99)?, within)?;
            bs.create_permute_vector()?;
            let bin: Vec<usize> = keys
                .iter()
                .map(|&x| int_bin(x as i128, nbins as i128, 0, 99))
                .collect();
            let mut counts = vec![0u32; nbins as usize];
            for &b in &bin {
                counts[b] += 1;
            }
            let mut offsets = vec![0u32; nbins as usize];
            for b in 1..nbins as usize {
                offsets[b] = offsets[b - 1] + counts[b - 1];
            }
            let mut perm: Vec<u32> = (0..n as u32).collect();
            if within {
                perm.sort_by_key(|&i| (bin[i as usize], keys[i as usize]));
            } else {
                perm.sort_by_key(|&i| bin[i as usize]);
            }
            prop_assert_eq!(to_host(bs.get_bin_count()?), counts);
            prop_assert_eq!(to_host(bs.get_bin_offsets()?), offsets);
            prop_assert_eq!(to_host(bs.get_permute_vector()?), perm.clone());
            let vals: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let v = dev_from_slice(&space, "vals", &vals)?;
            bs.sort(&v)?;
            prop_assert_eq!(
                to_host(&v),
                perm.iter().map(|&p| vals[p as usize]).collect::<Vec<_>>()
            );
        }
        Ok(())
    });
    // Random float keys (NaNs, infinities, keys outside the span) against the documented rule.
    check(3, (sizes(), any::<u64>(), 1usize..40), |(n, seed, nb)| {
        let keys: Vec<f64> = splitmix(seed, n).into_iter().map(special_f64).collect();
        let (min, max) = (-100.0, 300.0);
        let k = dev_from_slice(&space, "fkeys", &keys)?;
        let mut bs = BinSort::new(&space, &k, BinOp1D::new(nb, min, max)?, true)?;
        bs.create_permute_vector()?;
        let bin = |x: f64| {
            if x.is_nan() {
                nb - 1
            } else {
                (((x.clamp(min, max) - min) * (nb as f64 / (max - min))) as usize).min(nb - 1)
            }
        };
        let mut counts = vec![0u32; nb];
        keys.iter().for_each(|&x| counts[bin(x)] += 1);
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.sort_by(|&a, &b| nan_last_f64(&keys[a as usize], &keys[b as usize]));
        prop_assert_eq!(to_host(bs.get_bin_count()?), counts);
        prop_assert_eq!(to_host(bs.get_permute_vector()?), perm);
        Ok(())
    });
    // Float keys with NaN in the last bin, rows of a rank-2 View, `i8` values (host path).
    let keys: Vec<f32> = vec![0.7, f32::NAN, -3.0, 0.25, 1.0, 0.5, 0.0, 2.0];
    let k = dev_from_slice(&space, "fkeys", &keys).unwrap();
    let mut bs = BinSort::new(&space, &k, BinOp1D::new(4, 0.0, 1.0).unwrap(), false).unwrap();
    bs.create_permute_vector().unwrap();
    // Bins by the rule: 0.7 -> 2, NaN -> 3, -3 -> 0, 0.25 -> 1, 1 -> 3, 0.5 -> 2, 0 -> 0, 2 -> 3.
    assert_eq!(
        to_host(bs.get_permute_vector().unwrap()),
        vec![2, 6, 3, 0, 5, 1, 4, 7]
    );
    assert_eq!(to_host(bs.get_bin_count().unwrap()), vec![2, 1, 2, 3]);
    let rows: Vec<i32> = (0..16).collect();
    let r: DevView<E, i32, 2> = dev_from_vec(&space, "rows", [8, 2], rows).unwrap();
    bs.sort_rows(&r).unwrap();
    assert_eq!(
        to_host(&r),
        vec![4, 5, 12, 13, 6, 7, 0, 1, 10, 11, 2, 3, 8, 9, 14, 15]
    );
    let small: Vec<i8> = (0..8).map(|i| -i).collect();
    let s = dev_from_slice(&space, "i8s", &small).unwrap();
    bs.sort(&s).unwrap();
    assert_eq!(to_host(&s), vec![-2, -6, -3, 0, -5, -1, -4, -7]);

    // The whole `i64` span in three bins (a width past `i64`), and more bins than `u8` values.
    let wide = [i64::MAX, 0, i64::MIN, -1, i64::MIN + 1, 1 << 62];
    let k = dev_from_slice(&space, "wide", &wide).unwrap();
    let mut bs = BinSort::new(
        &space,
        &k,
        BinOp1D::new(3, i64::MIN, i64::MAX).unwrap(),
        false,
    )
    .unwrap();
    bs.create_permute_vector().unwrap();
    let counts = |b: &[usize], nbins: usize| {
        (0..nbins)
            .map(|i| b.iter().filter(|&&x| x == i).count() as u32)
            .collect::<Vec<_>>()
    };
    let bins: Vec<usize> = wide
        .iter()
        .map(|&x| int_bin(x as i128, 3, i64::MIN as i128, i64::MAX as i128))
        .collect();
    assert_eq!(to_host(bs.get_bin_count().unwrap()), counts(&bins, 3));
    let bytes = [5u8, 3, 200, 4, 0, 3];
    let k = dev_from_slice(&space, "bytes", &bytes).unwrap();
    let mut bs = BinSort::new(&space, &k, BinOp1D::new(10, 3u8, 5).unwrap(), true).unwrap();
    bs.create_permute_vector().unwrap();
    let bins: Vec<usize> = bytes
        .iter()
        .map(|&x| int_bin(x as i128, 10, 3, 5))
        .collect();
    assert_eq!(to_host(bs.get_bin_count().unwrap()), counts(&bins, 10));
    assert_eq!(
        to_host(bs.get_bin_offsets().unwrap()),
        vec![0, 3, 4, 6, 6, 6, 6, 6, 6, 6]
    );
    assert_eq!(
        to_host(bs.get_permute_vector().unwrap()),
        vec![4, 1, 5, 3, 0, 2]
    );
}
per_backend!(binsort);

/// Mismatched and aliased Views, unbuilt BinSorts and bad bin operators are errors that name
/// what is wrong, and change nothing.
fn errors<E: ExecutionSpace>(space: E) {
    let k = dev_from_slice(&space, "the_keys", &[3u32, 1, 2]).unwrap();
    let v = dev_from_slice(&space, "the_values", &[1.0f64, 2.0]).unwrap();
    match sort_by_key(&space, &k, &v) {
        Err(Error::ShapeMismatch { what }) => {
            assert!(
                what.contains("the_keys") && what.contains("the_values"),
                "{what}"
            )
        }
        other => panic!("expected ShapeMismatch, got {other:?}"),
    }
    assert_eq!(to_host(&k), vec![3, 1, 2]);
    // The same View as keys and values: both come out sorted.
    let kk = dev_from_slice(&space, "both", &[3u32, 1, 2]).unwrap();
    sort_by_key(&space, &kk, &kk).unwrap();
    assert_eq!(to_host(&kk), vec![1, 2, 3]);
    let mut bs = BinSort::new(&space, &k, BinOp1D::new(2, 0u32, 3).unwrap(), false).unwrap();
    assert!(
        matches!(bs.sort(&v), Err(Error::InvalidArgument(m)) if m.contains("create_permute_vector"))
    );
    bs.create_permute_vector().unwrap();
    match bs.sort(&v) {
        Err(Error::ShapeMismatch { what }) => assert!(what.contains("the_values"), "{what}"),
        other => panic!("expected ShapeMismatch, got {other:?}"),
    }
    assert_eq!(to_host(&v), vec![1.0, 2.0]);
    assert!(BinOp1D::new(0, 0i32, 1).is_err());
    assert!(BinOp1D::new(3, 5i64, 1).is_err());
    assert!(BinOp1D::new(3, 1.0f64, 1.0).is_err());
    assert!(BinOp1D::new(3, 0.0f32, f32::NAN).is_err());
    // Empty and single-element Views.
    let e = dev_from_slice::<f32, E>(&space, "empty", &[]).unwrap();
    sort(&space, &e).unwrap();
    let one = dev_from_slice(&space, "one", &[f32::NAN]).unwrap();
    sort(&space, &one).unwrap();
    assert!(to_host(&one)[0].is_nan());
    let mut bs = BinSort::new(&space, &e, BinOp1D::new(3, 0.0, 1.0).unwrap(), true).unwrap();
    bs.create_permute_vector().unwrap();
    assert_eq!(to_host(bs.get_bin_count().unwrap()), vec![0, 0, 0]);
    assert_eq!(to_host(bs.get_permute_vector().unwrap()), Vec::<u32>::new());
}
per_backend!(errors);

/// The host path (a radix sort of host slices, on `Serial`) and the device path (the merge
/// kernels, on the IR evaluator) give the same permutation, ties included: float keys with
/// signed zeros, NaNs of both signs with payloads and long runs of equal keys, positions as
/// values; and the same `BinSort` permutations.
#[test]
fn host_and_device_paths_agree() {
    use rokkos::ir::eval::IrEval;
    fn run<E: ExecutionSpace>(space: E, keys: &[f64], nbins: usize) -> (Vec<u64>, Vec<Vec<u32>>) {
        let n = keys.len();
        let positions: Vec<u32> = (0..n as u32).collect();
        let k = dev_from_slice(&space, "keys", keys).unwrap();
        let v = dev_from_slice(&space, "positions", &positions).unwrap();
        sort_by_key(&space, &k, &v).unwrap();
        let mut perms = vec![to_host(&v)];
        let k = dev_from_slice(&space, "keys", keys).unwrap();
        for within in [false, true] {
            let op = BinOp1D::new(nbins, -10.0, 10.0).unwrap();
            let mut bs = BinSort::new(&space, &k, op, within).unwrap();
            bs.create_permute_vector().unwrap();
            perms.push(to_host(bs.get_permute_vector().unwrap()));
            perms.push(to_host(bs.get_bin_offsets().unwrap()));
        }
        // Integer keys with few distinct values, through `u32::__sort` on the device side.
        let ik: Vec<i32> = keys.iter().map(|&x| (x as i32) % 3).collect();
        let k = dev_from_slice(&space, "ikeys", &ik).unwrap();
        let v = dev_from_slice(&space, "positions", &positions).unwrap();
        sort_by_key(&space, &k, &v).unwrap();
        perms.push(to_host(&v));
        let f = dev_from_slice(&space, "floats", keys).unwrap();
        sort(&space, &f).unwrap();
        (to_host(&f).into_iter().map(f64::to_bits).collect(), perms)
    }
    check(
        3,
        (0usize..1500, any::<u64>(), 1usize..20),
        |(n, seed, nbins)| {
            let keys: Vec<f64> = splitmix(seed, n)
                .into_iter()
                .map(|r| {
                    if r % 5 < 2 {
                        special_f64(r >> 3)
                    } else {
                        ((r >> 8) % 7) as f64 - 3.0
                    }
                })
                .collect();
            prop_assert_eq!(run(Serial, &keys, nbins), run(IrEval, &keys, nbins));
            Ok(())
        },
    );
}

/// The parallel host path (chunks distributed and buckets sorted on two threads) on a size
/// past its threshold, with few distinct keys: stable, as std's stable sort.
#[cfg(feature = "rayon")]
#[test]
fn rayon_parallel_sort_is_stable() {
    let space = rokkos::Rayon::with_threads(2).unwrap();
    // Past the size where the host path starts using threads (2^20).
    let n = (1 << 20) + 3;
    let keys: Vec<f32> = splitmix(21, n)
        .iter()
        .map(|&r| match r % 11 {
            0 => f32::NAN,
            1 => -0.0,
            2 => 0.0,
            _ => (r % 50) as f32 - 25.0,
        })
        .collect();
    let vals: Vec<u32> = (0..n as u32).collect();
    let k = dev_from_slice(&space, "keys", &keys).unwrap();
    let v = dev_from_slice(&space, "vals", &vals).unwrap();
    sort_by_key(&space, &k, &v).unwrap();
    let mut idx: Vec<u32> = vals.clone();
    idx.sort_by(|&a, &b| nan_last_f32(&keys[a as usize], &keys[b as usize]));
    assert_eq!(to_host(&v), idx);
    let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let want: Vec<f32> = idx.iter().map(|&i| keys[i as usize]).collect();
    assert_eq!(bits(&to_host(&k)), bits(&want));
}
