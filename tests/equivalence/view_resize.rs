//! `resize` and `realloc` (Kokkos `TestViewResize` / `TestResize`): growing and shrinking in every
//! dimension keeps the elements whose indices exist in both shapes and zero-fills the new ones, in
//! both contiguous layouts and for strided Views; other handles keep the old allocation; `realloc`
//! zero-fills.

use crate::check;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;
use rokkos::Layout;

fn code<const R: usize>(idx: [usize; R]) -> i64 {
    idx.iter().fold(1i64, |a, &x| a * 17 + x as i64)
}

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

fn check_resize<const R: usize, L: Layout>(
    old: [usize; R],
    new: [usize; R],
) -> Result<(), TestCaseError> {
    let mut v = View::<i64, R, L>::from_fn("v", old, code)?;
    let other = v.clone();
    v.resize(new)?;
    prop_assert_eq!(v.extents(), new);
    prop_assert_eq!(v.label(), "v");
    prop_assert!(!v.shares_allocation_with(&other));
    for idx in each(new) {
        let kept = (0..R).all(|k| idx[k] < old[k]);
        prop_assert_eq!(v.get(idx), if kept { code(idx) } else { 0 }, "{:?}", idx);
    }
    // The other handle still sees the old allocation and values.
    prop_assert_eq!(other.extents(), old);
    for idx in each(old) {
        prop_assert_eq!(other.get(idx), code(idx));
    }
    // realloc: fresh zeros, no copy.
    v.realloc(old)?;
    prop_assert_eq!(v.extents(), old);
    prop_assert!(v.to_vec().iter().all(|&x| x == 0));
    Ok(())
}

#[test]
fn resize_keeps_common_elements() {
    check(
        32,
        (
            proptest::array::uniform3(crate::small_extent(6)),
            proptest::array::uniform3(crate::small_extent(6)),
        ),
        |(a, b)| {
            check_resize::<1, LayoutRight>([a[0] * 7], [b[0] * 5])?;
            check_resize::<2, LayoutRight>([a[0], a[1]], [b[0], b[1]])?;
            check_resize::<2, LayoutLeft>([a[0], a[1]], [b[0], b[1]])?;
            check_resize::<3, LayoutLeft>(a, b)?;
            check_resize::<3, LayoutRight>(a, b)?;
            check_resize::<3, LayoutStride>(a, b)?;
            Ok(())
        },
    );
}

#[test]
fn resize_of_a_strided_subview() {
    let m = View::<f64, 2>::from_fn("m", [4, 6], |[i, j]| (i * 6 + j) as f64).unwrap();
    let mut col: View<f64, 1, LayoutStride> = m.subview((.., 2)).unwrap();
    col.resize([6]).unwrap();
    assert_eq!(col.to_vec(), vec![2.0, 8.0, 14.0, 20.0, 0.0, 0.0]);
    assert!(col.is_contiguous());
    assert_eq!(m.get((3, 2)), 20.0, "the parent is unchanged");
}

#[test]
fn resize_while_borrowed_is_an_error() {
    let mut v = View::<i32>::new("b", [4]).unwrap();
    let w = v.clone();
    let g = w.host_mut();
    assert!(matches!(v.resize([8]), Err(Error::Aliasing { .. })));
    drop(g);
    assert_eq!(v.extents(), [4]);
    v.resize([8]).unwrap();
    assert_eq!(v.extents(), [8]);
}
