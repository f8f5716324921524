//! The View API (Kokkos `TestViewAPI`): construction of ranks 0 to 4 in every layout, extents,
//! strides, span, contiguity, labels, reference counting, element access through `get`/`set` and the
//! host guards, `from_fn`/`from_vec`/`to_vec` orders, explicit strides, `try_layout`, and kernels
//! reading Views of ranks 1 to 4 in every layout.

use crate::{check, dev, dev_from_fn, dev_from_vec, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;
use rokkos::Layout;

/// Row-major position of `idx` in `extents`.
fn row_major<const R: usize>(idx: [usize; R], extents: [usize; R]) -> usize {
    idx.iter().zip(&extents).fold(0, |a, (&i, &e)| a * e + i)
}
/// Column-major position of `idx` in `extents`.
fn col_major<const R: usize>(idx: [usize; R], extents: [usize; R]) -> usize {
    idx.iter()
        .zip(&extents)
        .rev()
        .fold(0, |a, (&i, &e)| a * e + i)
}
/// Every multi-index of `extents` in row-major order.
fn indices<const R: usize>(extents: [usize; R]) -> Vec<[usize; R]> {
    let n: usize = extents.iter().product();
    (0..n)
        .map(|mut p| {
            let mut idx = [0usize; R];
            for k in (0..R).rev() {
                idx[k] = p % extents[k];
                p /= extents[k];
            }
            idx
        })
        .collect()
}

/// Checks shape queries and element access of a rank-`R` View in layout `L` against closed forms.
fn check_shape<const R: usize, L: Layout>(extents: [usize; R]) -> Result<(), TestCaseError> {
    let v = View::<i64, R, L>::from_fn("v", extents, |idx| row_major(idx, extents) as i64)?;
    let size: usize = extents.iter().product();
    prop_assert_eq!(v.rank(), R);
    prop_assert_eq!(v.extents(), extents);
    prop_assert_eq!(v.size(), size);
    prop_assert_eq!(v.label(), "v");
    prop_assert!(v.is_contiguous());
    prop_assert_eq!(v.span(), size);
    for (k, &e) in extents.iter().enumerate() {
        prop_assert_eq!(v.extent(k), e);
    }
    prop_assert_eq!(v.extent(R), 0);
    // Strides: LayoutRight and LayoutStride (row-major by default) vs LayoutLeft.
    let mut want = [0usize; R];
    let mut acc = 1;
    if L::KIND == rokkos::LayoutKind::Left {
        for k in 0..R {
            want[k] = acc;
            acc *= extents[k].max(1);
        }
    } else {
        for k in (0..R).rev() {
            want[k] = acc;
            acc *= extents[k].max(1);
        }
    }
    if size > 0 {
        prop_assert_eq!(v.strides(), want);
    }
    // to_vec is row-major whatever the layout; the slice is in memory order.
    prop_assert_eq!(v.to_vec(), (0..size as i64).collect::<Vec<_>>());
    let h = v.host();
    let slice = h.as_slice().expect("contiguous").to_vec();
    for idx in indices(extents) {
        let pos = if L::KIND == rokkos::LayoutKind::Left {
            col_major(idx, extents)
        } else {
            row_major(idx, extents)
        };
        prop_assert_eq!(slice[pos], row_major(idx, extents) as i64);
        prop_assert_eq!(h[idx], row_major(idx, extents) as i64);
    }
    drop(h);
    // set / get and host_mut round trip.
    for idx in indices(extents) {
        v.set(idx, -(row_major(idx, extents) as i64));
    }
    {
        let mut g = v.host_mut();
        for idx in indices(extents) {
            g[idx] *= 2;
        }
    }
    for idx in indices(extents) {
        prop_assert_eq!(v.get(idx), -2 * row_major(idx, extents) as i64);
    }
    // from_vec reads the data in the layout's memory order.
    let data: Vec<i64> = (0..size as i64).collect();
    let w = View::<i64, R, L>::from_vec("w", extents, data)?;
    for idx in indices(extents) {
        let pos = if L::KIND == rokkos::LayoutKind::Left {
            col_major(idx, extents)
        } else {
            row_major(idx, extents)
        };
        prop_assert_eq!(w.get(idx), pos as i64);
    }
    Ok(())
}

fn shapes_and_layouts() {
    check(16, proptest::array::uniform4(crate::small_extent(6)), |e| {
        check_shape::<1, LayoutRight>([e[0]])?;
        check_shape::<1, LayoutLeft>([e[0]])?;
        check_shape::<2, LayoutRight>([e[0], e[1]])?;
        check_shape::<2, LayoutLeft>([e[0], e[1]])?;
        check_shape::<2, LayoutStride>([e[0], e[1]])?;
        check_shape::<3, LayoutRight>([e[0], e[1], e[2]])?;
        check_shape::<3, LayoutLeft>([e[0], e[1], e[2]])?;
        check_shape::<4, LayoutRight>(e)?;
        check_shape::<4, LayoutLeft>(e)?;
        check_shape::<4, LayoutStride>(e)?;
        Ok(())
    });
}

#[test]
fn view_shapes_and_layouts() {
    shapes_and_layouts();
}

#[test]
fn rank0_views() {
    let v = View::<f64, 0>::new("scalar", []).unwrap();
    assert_eq!(v.size(), 1);
    assert_eq!(v.span(), 1);
    assert_eq!(v.get(()), 0.0);
    v.set((), 2.5);
    assert_eq!(v.get(()), 2.5);
    assert_eq!(v.to_vec(), vec![2.5]);
    let l = View::<i32, 0, LayoutLeft>::from_vec("s", [], vec![7]).unwrap();
    assert_eq!(l.get(()), 7);
}

#[test]
fn zero_filled_and_fill() {
    let v = View::<u16, 3, LayoutLeft>::new("z", [3, 0, 2]).unwrap();
    assert_eq!(v.size(), 0);
    assert!(v.to_vec().is_empty());
    v.fill(3).unwrap();
    let w = View::<f32, 2>::new_uninit("u", [5, 4]).unwrap();
    assert!(w.to_vec().iter().all(|&x| x == 0.0));
    w.fill(1.5).unwrap();
    assert!(w.to_vec().iter().all(|&x| x == 1.5));
}

#[test]
fn shallow_copies_and_use_count() {
    let a = View::<i32, 2>::new("a", [3, 4]).unwrap();
    assert_eq!(a.use_count(), 1);
    let b = a.clone();
    assert_eq!(a.use_count(), 2);
    assert!(a.shares_allocation_with(&b));
    b.set((2, 3), 9);
    assert_eq!(a.get((2, 3)), 9);
    let s: View<i32, 1, LayoutStride> = a.subview((1, ..)).unwrap();
    assert_eq!(a.use_count(), 3);
    drop(b);
    drop(s);
    assert_eq!(a.use_count(), 1);
    let c = View::<i32, 2>::new("a", [3, 4]).unwrap();
    assert!(!c.shares_allocation_with(&a));
    assert!(format!("{a:?}").contains("\"a\""));
}

#[test]
fn explicit_strides() {
    // Padded rows: extents [3, 4], row stride 6.
    let p = View::<i64, 2, LayoutStride>::new_strided("padded", [3, 4], [6, 1]).unwrap();
    assert_eq!(p.strides(), [6, 1]);
    assert_eq!(p.span(), 2 * 6 + 4);
    assert!(!p.is_contiguous());
    for i in 0..3 {
        for j in 0..4 {
            p.set((i, j), (10 * i + j) as i64);
        }
    }
    assert_eq!(
        p.to_vec(),
        (0..3)
            .flat_map(|i| (0..4).map(move |j| (10 * i + j) as i64))
            .collect::<Vec<_>>()
    );
    assert!(p.host().as_slice().is_none());
    // Column-major through explicit strides.
    let c = View::<i64, 2, LayoutStride>::new_strided("cm", [3, 4], [1, 3]).unwrap();
    assert!(c.is_contiguous());
    assert!(c.try_layout::<LayoutLeft>().is_ok());
    assert!(matches!(
        c.try_layout::<LayoutRight>(),
        Err(Error::ShapeMismatch { .. })
    ));
    // Overlapping strides are refused.
    for (e, s) in [
        ([3usize, 4usize], [2usize, 1usize]),
        ([3, 4], [0, 1]),
        ([2, 2], [1, 1]),
    ] {
        assert!(
            matches!(
                View::<i64, 2, LayoutStride>::new_strided("bad", e, s),
                Err(Error::InvalidArgument(_))
            ),
            "{e:?} {s:?}"
        );
    }
    // A stride of 0 over an extent of 1 is fine.
    assert!(View::<i64, 2, LayoutStride>::new_strided("ok", [1, 4], [0, 1]).is_ok());
}

#[test]
fn try_layout_conversions() {
    let r = View::<f64, 2>::from_fn("r", [3, 4], |[i, j]| (i * 4 + j) as f64).unwrap();
    assert!(matches!(
        r.try_layout::<LayoutLeft>(),
        Err(Error::ShapeMismatch { .. })
    ));
    let s = r.to_layout_stride();
    assert_eq!(s.layout(), rokkos::LayoutKind::Stride);
    let back = s.try_layout::<LayoutRight>().unwrap();
    assert!(back.shares_allocation_with(&r));
    assert_eq!(back.to_vec(), r.to_vec());
    // Rank 1 and extents of 1 are both layouts at once.
    let v = View::<f64, 1>::new("v", [5]).unwrap();
    assert!(v.try_layout::<LayoutLeft>().is_ok());
    let col = View::<f64, 2>::new("col", [5, 1]).unwrap();
    assert!(col.try_layout::<LayoutLeft>().is_ok());
}

#[test]
fn host_guard_conflicts_panic() {
    let v = View::<i32>::new("guarded", [4]).unwrap();
    let g = v.host();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| v.host_mut()[0] = 1));
    assert!(crate::panic_message(&*r.unwrap_err()).contains("guarded"));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| v.set(0, 1)));
    assert!(r.is_err());
    assert_eq!(v.get(0), 0, "get is allowed under a shared guard");
    drop(g);
    let m = v.host_mut();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| v.get(0)));
    assert!(r.is_err());
    drop(m);
    v.set(0, 1);
    let r = std::panic::catch_unwind(|| {
        let w = View::<i32, 2>::new("oob", [2, 3]).unwrap();
        w.get((1, 3))
    });
    let msg = crate::panic_message(&*r.unwrap_err());
    assert!(
        msg.contains("oob") && msg.contains("(1, 3)") && msg.contains("(2, 3)"),
        "{msg}"
    );
}

#[test]
fn huge_allocation_is_an_error() {
    let r = View::<f64, 2>::new("huge", [usize::MAX / 2, 4]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    let r = View::<u8, 1>::new("huge2", [isize::MAX as usize]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
}

#[kernel]
fn sum_rank1(i: usize, acc: &mut i64, a: View<i64>) {
    *acc += a[i];
}
#[kernel]
fn sum_rank2(i: usize, acc: &mut i64, a: View<i64, 2>) {
    for j in 0..a.extent(1) {
        *acc += a[(i, j)];
    }
}
#[kernel]
fn sum_rank3(i: usize, acc: &mut i64, a: View<i64, 3>) {
    for j in 0..a.extent(1) {
        for k in 0..a.extent(2) {
            *acc += a[(i, j, k)] * (k as i64 + 1);
        }
    }
}
#[kernel]
fn sum_rank4(i: usize, acc: &mut i64, a: View<i64, 4>) {
    for j in 0..a.extent(1) {
        for k in 0..a.extent(2) {
            for l in 0..a.extent(3) {
                *acc += a[(i, j, k, l)] * (l as i64 + 1);
            }
        }
    }
}

/// Kernels read Views of ranks 1 to 4 in every layout (including strided subviews) exactly as the
/// host wrote them.
fn kernels_read_every_rank_and_layout<E: ExecutionSpace>(space: E) {
    check(
        12,
        (
            proptest::array::uniform4(crate::small_extent(7)),
            any::<u64>(),
        ),
        |(e, seed)| {
            let n: usize = e.iter().product();
            let data = crate::ints(seed, n, -100, 100);
            let want4: i64 = indices(e)
                .iter()
                .map(|idx| data[row_major(*idx, e)] * (idx[3] as i64 + 1))
                .sum();
            let r4: DevView<E, i64, 4> =
                dev_from_fn(&space, "r4", e, |idx| data[row_major(idx, e)])?;
            let l4: DevView<E, i64, 4, LayoutLeft> = dev(&space, "l4", e)?;
            deep_copy(&l4, &r4)?;
            let big: DevView<E, i64, 4> = dev(&space, "big", [e[0], e[1] + 1, e[2], e[3] + 2])?;
            let s4: DevView<E, i64, 4, LayoutStride> = big.subview((.., 1.., .., 1..e[3] + 1))?;
            deep_copy(&s4, &r4)?;
            let p = || RangePolicy::new(&space, 0..e[0]);
            prop_assert_eq!(parallel_reduce("r4", p(), sum_rank4(&r4), Sum)?, want4);
            prop_assert_eq!(parallel_reduce("l4", p(), sum_rank4(&l4), Sum)?, want4);
            prop_assert_eq!(parallel_reduce("s4", p(), sum_rank4(&s4), Sum)?, want4);

            let e3 = [e[0], e[1], e[2]];
            let d3 = crate::ints(seed ^ 3, e3.iter().product(), -100, 100);
            let r3: DevView<E, i64, 3, LayoutLeft> =
                dev_from_fn(&space, "r3", e3, |idx| d3[row_major(idx, e3)])?;
            let want3: i64 = indices(e3)
                .iter()
                .map(|idx| d3[row_major(*idx, e3)] * (idx[2] as i64 + 1))
                .sum();
            prop_assert_eq!(parallel_reduce("r3", p(), sum_rank3(&r3), Sum)?, want3);
            if e[3] > 0 {
                let s3: DevView<E, i64, 3, LayoutStride> = s4.subview((.., .., .., 0))?;
                let want3s: i64 = indices(e3)
                    .iter()
                    .map(|idx| {
                        data[row_major([idx[0], idx[1], idx[2], 0], e)] * (idx[2] as i64 + 1)
                    })
                    .sum();
                prop_assert_eq!(parallel_reduce("s3", p(), sum_rank3(&s3), Sum)?, want3s);
            }

            let e2 = [e[0], e[1]];
            let d2 = crate::ints(seed ^ 2, e[0] * e[1], -100, 100);
            let r2: DevView<E, i64, 2, LayoutLeft> =
                dev_from_fn(&space, "r2", e2, |idx| d2[row_major(idx, e2)])?;
            prop_assert_eq!(
                parallel_reduce("r2", p(), sum_rank2(&r2), Sum)?,
                d2.iter().sum::<i64>()
            );
            let d1 = crate::ints(seed ^ 1, e[0], -100, 100);
            let r1: DevView<E, i64, 1, LayoutLeft> =
                dev_from_vec(&space, "r1", [e[0]], d1.clone())?;
            prop_assert_eq!(
                parallel_reduce("r1", p(), sum_rank1(&r1), Sum)?,
                d1.iter().sum::<i64>()
            );
            Ok(())
        },
    );
}
per_backend!(kernels_read_every_rank_and_layout);
