//! Subviews (Kokkos `TestViewSubview`): every combination of index / range / full arguments on
//! ranks 2 to 4 of both contiguous layouts, checked element by element against the parent, writes
//! through subviews (host and kernels) landing exactly in the parent's addressed elements,
//! subviews of subviews, `try_layout` back to a contiguous layout, and the errors.

use crate::{check, dev_from_fn, to_host, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;
use rokkos::{Layout, SliceArg};

/// One subview argument for an extent `e`: an index, a range, or everything.
fn slice_arg(e: usize) -> BoxedStrategy<SliceArg> {
    let full = Just(SliceArg::Range(0, None)).boxed();
    if e == 0 {
        return prop_oneof![full, Just(SliceArg::Range(0, Some(0)))].boxed();
    }
    prop_oneof![
        (0..e).prop_map(SliceArg::Index),
        (0..=e, 0..=e).prop_map(|(a, b)| SliceArg::Range(a.min(b), Some(a.max(b)))),
        (0..=e).prop_map(|a| SliceArg::Range(a, None)),
        (0..e, 0..e).prop_map(|(a, b)| SliceArg::RangeInclusive(a.min(b), a.max(b))),
        // `a..=a - 1` is empty, as in Rust.
        (1..=e).prop_map(|a| SliceArg::RangeInclusive(a, a - 1)),
        full,
    ]
    .boxed()
}

/// Parent index of subview index `sub` under `args`.
fn parent_index<const R: usize>(args: &[SliceArg; R], sub: &[usize]) -> [usize; R] {
    let mut out = [0usize; R];
    let mut k = 0;
    for (d, a) in args.iter().enumerate() {
        out[d] = match *a {
            SliceArg::Index(i) => i,
            SliceArg::Range(lo, _) | SliceArg::RangeInclusive(lo, _) => {
                k += 1;
                lo + sub[k - 1]
            }
        };
    }
    out
}

fn kept_extents<const R: usize>(args: &[SliceArg; R], extents: [usize; R]) -> Vec<usize> {
    args.iter()
        .enumerate()
        .filter_map(|(d, a)| match *a {
            SliceArg::Index(_) => None,
            SliceArg::Range(lo, hi) => Some(hi.unwrap_or(extents[d]) - lo),
            SliceArg::RangeInclusive(lo, hi) => Some(hi + 1 - lo),
        })
        .collect()
}

/// Every index of `extents` (row-major).
fn each<const R: usize>(extents: [usize; R]) -> Vec<[usize; R]> {
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

/// Takes the subview `args` of a rank-`R` View in layout `L` as rank `R2` (when that is the number of
/// kept dimensions), checks extents and every element, writes through it and checks the parent.
fn check_subview<const R: usize, const R2: usize, L: Layout>(
    extents: [usize; R],
    args: [SliceArg; R],
) -> Result<(), TestCaseError> {
    let code = |idx: [usize; R]| idx.iter().fold(0i64, |a, &x| a * 10 + x as i64);
    let parent = View::<i64, R, L>::from_fn("parent", extents, code)?;
    let kept = kept_extents(&args, extents);
    let sub = parent.subview::<R2>(args);
    if kept.len() != R2 {
        prop_assert!(matches!(sub, Err(Error::ShapeMismatch { .. })), "{:?}", sub);
        return Ok(());
    }
    let sub = sub?;
    prop_assert_eq!(sub.extents().to_vec(), kept.clone());
    prop_assert_eq!(sub.layout(), rokkos::LayoutKind::Stride);
    let mut sub_ext = [0usize; R2];
    sub_ext.copy_from_slice(&kept);
    for s in each(sub_ext) {
        let p = parent_index(&args, &s);
        prop_assert_eq!(sub.get(s), code(p));
        sub.set(s, -1 - code(p));
    }
    // Exactly the addressed elements of the parent changed.
    let touched: std::collections::HashSet<[usize; R]> = each(sub_ext)
        .iter()
        .map(|s| parent_index(&args, s))
        .collect();
    for p in each(extents) {
        let want = if touched.contains(&p) {
            -1 - code(p)
        } else {
            code(p)
        };
        prop_assert_eq!(parent.get(p), want, "parent {:?}", p);
    }
    // A copy in any layout holds the same elements in the same (row-major) order.
    let copy = View::<i64, R2, LayoutLeft>::new("copy", sub_ext)?;
    deep_copy(&copy, &sub)?;
    prop_assert_eq!(copy.to_vec(), sub.to_vec());
    Ok(())
}

fn shape3() -> impl Strategy<Value = ([usize; 3], [SliceArg; 3])> {
    proptest::array::uniform3(0usize..5).prop_flat_map(|e| {
        (
            Just(e),
            (slice_arg(e[0]), slice_arg(e[1]), slice_arg(e[2])).prop_map(|(a, b, c)| [a, b, c]),
        )
    })
}
fn shape4() -> impl Strategy<Value = ([usize; 4], [SliceArg; 4])> {
    proptest::array::uniform4(0usize..4).prop_flat_map(|e| {
        (
            Just(e),
            (
                slice_arg(e[0]),
                slice_arg(e[1]),
                slice_arg(e[2]),
                slice_arg(e[3]),
            )
                .prop_map(|(a, b, c, d)| [a, b, c, d]),
        )
    })
}

#[test]
fn subviews_of_rank3_and_rank4() {
    check(48, shape3(), |(e, args)| {
        check_subview::<3, 1, LayoutRight>(e, args)?;
        check_subview::<3, 2, LayoutRight>(e, args)?;
        check_subview::<3, 3, LayoutLeft>(e, args)?;
        check_subview::<3, 2, LayoutLeft>(e, args)?;
        check_subview::<3, 1, LayoutStride>(e, args)?;
        Ok(())
    });
    check(32, shape4(), |(e, args)| {
        check_subview::<4, 2, LayoutRight>(e, args)?;
        check_subview::<4, 3, LayoutLeft>(e, args)?;
        check_subview::<4, 1, LayoutLeft>(e, args)?;
        check_subview::<4, 4, LayoutRight>(e, args)?;
        Ok(())
    });
}

#[test]
fn subview_of_subview_and_try_layout() {
    let a =
        View::<i32, 3>::from_fn("a", [4, 5, 6], |[i, j, k]| (100 * i + 10 * j + k) as i32).unwrap();
    let plane: View<i32, 2, LayoutStride> = a.subview((2, .., ..)).unwrap();
    // A whole plane of a row-major View is itself row-major.
    let pr = plane.try_layout::<LayoutRight>().unwrap();
    assert_eq!(pr.get((3, 4)), 234);
    assert!(plane.try_layout::<LayoutLeft>().is_err());
    let row: View<i32, 1, LayoutStride> = plane.subview((1, 2..5)).unwrap();
    assert_eq!(row.to_vec(), vec![212, 213, 214]);
    let col: View<i32, 1, LayoutStride> = plane.subview((.., 5)).unwrap();
    assert_eq!(col.strides(), [6]);
    assert_eq!(col.to_vec(), vec![205, 215, 225, 235, 245]);
    let inner: View<i32, 2, LayoutStride> = a.subview((1..3, 2, 1..=3)).unwrap();
    assert_eq!(inner.extents(), [2, 3]);
    assert_eq!(inner.to_vec(), vec![121, 122, 123, 221, 222, 223]);
    let single: View<i32, 0, LayoutStride> = a.subview((3, 4, 5)).unwrap();
    assert_eq!(single.get(()), 345);
    // Empty ranges, including at the end.
    let empty: View<i32, 1, LayoutStride> = a.subview((0, 0, 6..6)).unwrap();
    assert_eq!(empty.size(), 0);
    assert!(empty.to_vec().is_empty());
    // Arrays of arguments work too (of `Copy` arguments: indices or `SliceArg`s).
    let arr: View<i32, 3, LayoutStride> = a
        .subview([
            SliceArg::Range(1, Some(3)),
            SliceArg::Range(0, None),
            SliceArg::Range(4, Some(6)),
        ])
        .unwrap();
    assert_eq!(arr.get((1, 4, 1)), 245);
    let point: View<i32, 0, LayoutStride> = a.subview([1usize, 2, 3]).unwrap();
    assert_eq!(point.get(()), 123);
}

#[test]
fn subview_errors() {
    let a = View::<f64, 2>::new("a", [3, 4]).unwrap();
    for r in [
        a.subview::<1>((3, ..)),
        a.subview::<1>((.., 4)),
        a.subview::<1>((0..4, 0)),
        a.subview::<1>((.., ..)),
        a.subview::<1>((0, 1)),
    ] {
        assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
    }
    #[allow(clippy::reversed_empty_ranges)]
    let r = a.subview::<1>((1, 3..2));
    assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
}

#[kernel]
fn scale_into(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
    y[i] = a * x[i];
}
#[kernel]
fn scale_rows(i: usize, y: ViewMut<f64, 2>, x: View<f64, 2>, a: f64) {
    for j in 0..y.extent(1) {
        y[(i, j)] = a * x[(i, j)];
    }
}

/// Kernels reading one subview and writing a disjoint one of the same allocation: only the written
/// subview's elements change.
fn kernels_on_disjoint_subviews<E: ExecutionSpace>(space: E) {
    check(
        16,
        (1usize..40, 1usize..12, 0usize..3),
        |(rows, cols, which)| {
            let m: DevView<E, f64, 2> =
                dev_from_fn(&space, "m", [rows, cols], |[i, j]| (i * cols + j) as f64)?;
            let before = to_host(&m);
            // Row 0 -> row `rows - 1` (distinct when rows > 1): disjoint byte ranges.
            if rows > 1 {
                let src: DevView<E, f64, 1, LayoutStride> = m.subview((0, ..))?;
                let dst: DevView<E, f64, 1, LayoutStride> = m.subview((rows - 1, ..))?;
                parallel_for(
                    "rows",
                    RangePolicy::new(&space, 0..cols),
                    scale_into(&dst, &src, 2.0),
                )?;
                let after = to_host(&m);
                for (p, (&b, &a)) in before.iter().zip(&after).enumerate() {
                    let (i, j) = (p / cols, p % cols);
                    let want = if i == rows - 1 { 2.0 * j as f64 } else { b };
                    prop_assert_eq!(a, want, "({}, {})", i, j);
                }
            }
            // Upper and lower halves of a 3-D View (rank-2 subviews through an index).
            let t: DevView<E, f64, 3, LayoutLeft> =
                dev_from_fn(&space, "t", [2, rows, cols], |[h, i, j]| {
                    (h * 1000 + i * cols + j) as f64
                })?;
            let top: DevView<E, f64, 2, LayoutStride> = t.subview((which % 2, .., ..))?;
            let bottom: DevView<E, f64, 2, LayoutStride> = t.subview((1 - which % 2, .., ..))?;
            // In LayoutLeft the two halves interleave in memory: their elements are disjoint but their
            // byte ranges overlap. The launch checks compare byte ranges, so they may refuse the launch
            // (a conservative answer, see the suite report); if they accept it, the result must be right.
            let tb = to_host(&t);
            let r = parallel_for(
                "halves",
                RangePolicy::new(&space, 0..rows),
                scale_rows(&bottom, &top, -1.0),
            );
            match r {
                Err(Error::Aliasing { .. }) => prop_assert_eq!(to_host(&t), tb),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
                Ok(()) => {
                    prop_assert_eq!(
                        to_host(&bottom),
                        to_host(&top).iter().map(|v| -v).collect::<Vec<_>>()
                    );
                }
            }
            Ok(())
        },
    );
}
per_backend!(kernels_on_disjoint_subviews);
