//! ndarray interop (feature `ndarray`; the tests enable it): host Views borrowed as arrays through
//! their guards and owned arrays adopted without a copy, for every layout, with strides mapped
//! exactly and negative strides refused.

use ndarray::{s, Array, Array2, Array3, ShapeBuilder};
use proptest::prelude::*;
use rokkos::prelude::*;

#[test]
fn adoption_keeps_the_elements_in_place() {
    let a = Array2::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as f64);
    let addr = a.as_ptr() as usize;
    let v = View::<f64, 2>::from_ndarray("a", a).unwrap();
    assert_eq!(v.host().as_slice().unwrap().as_ptr() as usize, addr);
    assert_eq!(v.get((2, 3)), 23.0);
    assert_eq!(v.strides(), [4, 1]);

    let f = Array2::from_shape_fn((3, 4).f(), |(i, j)| (10 * i + j) as f64);
    let w = View::<f64, 2, LayoutLeft>::from_ndarray("f", f.clone()).unwrap();
    assert_eq!(w.strides(), [1, 3]);
    assert_eq!(w.get((2, 1)), 21.0);
    // A column-major array is not row-major.
    assert!(matches!(
        View::<f64, 2>::from_ndarray("f", f),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn negative_strides_are_refused() {
    let mut a = Array2::from_shape_fn((3, 4), |(i, j)| (i + j) as f32);
    a.invert_axis(ndarray::Axis(1));
    let e = View::<f32, 2, LayoutStride>::from_ndarray("inv", a).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("negative")),
        "{e}"
    );
}

#[test]
fn guards_hold_the_view_while_the_array_lives() {
    let v = View::<i32, 2>::from_fn("v", [2, 3], |[i, j]| (3 * i + j) as i32).unwrap();
    {
        let g = v.host();
        let a = g.as_array();
        assert_eq!(a.sum(), 15);
        // A writer is refused while the array (through its guard) lives.
        assert!(v.try_host_mut().is_err());
    }
    {
        let mut g = v.host_mut();
        let mut a = g.as_array_mut();
        a.row_mut(1).fill(0);
    }
    assert_eq!(v.to_vec(), vec![0, 1, 2, 0, 0, 0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any non-negative stride pattern ndarray can make (C or F order, then a slice with a start,
    /// a step and a transposition) is adopted as a LayoutStride View holding the same elements,
    /// and a View of any layout reads back as the same array.
    #[test]
    fn arrays_and_views_agree(
        e in prop::array::uniform3(1usize..6),
        f_order in any::<bool>(),
        start in prop::array::uniform3(0usize..2),
        step in prop::array::uniform3(1usize..3),
        transpose in any::<bool>(),
    ) {
        let full = if f_order {
            Array3::from_shape_fn((e[0] + 2, e[1] + 2, e[2] + 2).f(), |(i, j, k)| (100 * i + 10 * j + k) as u32)
        } else {
            Array3::from_shape_fn((e[0] + 2, e[1] + 2, e[2] + 2), |(i, j, k)| (100 * i + 10 * j + k) as u32)
        };
        let sliced = full.slice(s![
            start[0]..;step[0] as isize,
            start[1]..;step[1] as isize,
            start[2]..;step[2] as isize
        ]).to_owned();
        // `to_owned` of a slice is contiguous; build a strided owned array from the full one
        // instead, keeping its buffer and offset.
        let mut owned: Array<u32, _> = full.clone();
        owned.slice_collapse(s![
            start[0]..;step[0] as isize,
            start[1]..;step[1] as isize,
            start[2]..;step[2] as isize
        ]);
        if transpose {
            owned.swap_axes(0, 2);
        }
        let expect: Vec<u32> = owned.iter().copied().collect();
        let v = View::<u32, 3, LayoutStride>::from_ndarray("v", owned.clone()).unwrap();
        prop_assert_eq!(v.extents().to_vec(), owned.shape().to_vec());
        prop_assert_eq!(v.to_vec(), expect.clone());
        let g = v.host();
        prop_assert_eq!(g.as_array(), owned.view());
        prop_assert_eq!(sliced.len(), v.size());
        // The same elements in Views of each layout, read back as arrays.
        let r = View::<u32, 3, LayoutRight>::from_fn("r", v.extents(), |[i, j, k]| v.get((i, j, k))).unwrap();
        let l = View::<u32, 3, LayoutLeft>::from_fn("l", v.extents(), |[i, j, k]| v.get((i, j, k))).unwrap();
        let (gr, gl) = (r.host(), l.host());
        prop_assert_eq!(gr.as_array(), owned.view());
        prop_assert_eq!(gl.as_array(), owned.view());
    }
}

/// A dimension of extent 1 or 0 is never stepped along, so `new_strided` accepts any stride for it,
/// up to `usize::MAX`; as an `isize` such a stride is negative, which `ArrayView::from_shape_ptr`
/// forbids (a safety precondition; debug builds of ndarray assert it). The borrowed array gets
/// stride 0 there, and reads and writes the same elements as the View.
#[test]
fn strides_of_unit_dimensions_above_isize_max_are_normalised() {
    for huge in [isize::MAX as usize + 1, usize::MAX - 7, usize::MAX] {
        let v = View::<f64, 3, LayoutStride>::new_strided("v", [2, 1, 3], [3, huge, 1]).unwrap();
        for i in 0..2 {
            for k in 0..3 {
                v.set((i, 0, k), (10 * i + k) as f64);
            }
        }
        {
            let g = v.host();
            let a = g.as_array();
            assert_eq!(a.shape(), &[2, 1, 3]);
            assert!(a.strides().iter().all(|&s| s >= 0), "{:?}", a.strides());
            assert_eq!(a[[1, 0, 2]], 12.0);
            assert_eq!(a.sum(), 0.0 + 1.0 + 2.0 + 10.0 + 11.0 + 12.0);
        }
        {
            let mut g = v.host_mut();
            g.as_array_mut()[[0, 0, 1]] = -1.0;
            assert_eq!(g.as_array()[[0, 0, 1]], -1.0);
        }
        assert_eq!(v.get((0, 0, 1)), -1.0);
        // A subview keeping the unit dimension keeps its stride, and converts as well.
        let s: View<f64, 2, LayoutStride> = v.subview((1, .., ..)).unwrap();
        assert_eq!(s.strides(), [huge, 1]);
        assert_eq!(s.host().as_array().row(0).to_vec(), vec![10.0, 11.0, 12.0]);
    }
}

/// An empty View has no elements, so its strides are free too (as large as `usize::MAX`); its
/// array has all strides 0 (ndarray counts `(extent - 1) * stride` on every axis, the empty ones
/// included, against `isize::MAX`), and is empty.
#[test]
fn empty_views_convert_whatever_their_strides() {
    let v =
        View::<u8, 3, LayoutStride>::new_strided("e", [4, 0, 5], [usize::MAX, 1, usize::MAX / 3])
            .unwrap();
    assert_eq!(v.size(), 0);
    let g = v.host();
    let a = g.as_array();
    assert_eq!(a.shape(), &[4, 0, 5]);
    assert_eq!(a.strides(), &[0, 0, 0]);
    assert!(a.is_empty());
    assert_eq!(a.iter().count(), 0);
    drop(g);
    let mut g = v.host_mut();
    assert_eq!(g.as_array_mut().iter_mut().count(), 0);
    drop(g);
    // An empty subview of a non-empty View, at the end of its allocation.
    let w = View::<f32, 2>::from_fn("w", [3, 4], |[i, j]| (i * 4 + j) as f32).unwrap();
    let tail: View<f32, 2, LayoutStride> = w.subview((3..3, ..)).unwrap();
    assert!(tail.host().as_array().is_empty());
}

/// `from_shape_ptr` also requires the product of the non-zero extents to be at most `isize::MAX`,
/// even for an empty array. Such shapes are refused when the View is made (they used to be
/// accepted when another extent was 0).
#[test]
fn shapes_whose_nonzero_extents_overflow_are_refused() {
    let r = View::<u8, 2>::new("wide", [0, usize::MAX]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    let r = View::<u8, 3, LayoutStride>::new_strided("wide", [1 << 32, 0, 1 << 32], [1, 1, 1]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    let r = View::<u8, 2>::from_vec("wide", [0, isize::MAX as usize + 1], Vec::new());
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    // At the limit it is a View, and an (empty) array.
    let v = View::<u8, 2>::new("edge", [0, isize::MAX as usize]).unwrap();
    assert_eq!(v.host().as_array().shape(), &[0, isize::MAX as usize]);
}
