//! Mirrors (Kokkos `TestViewMirror` / `create_mirror_view_and_copy`): for host Views
//! `create_mirror_view` and `create_mirror_view_and_copy` return the View itself (no copy), while
//! `create_mirror` always allocates a zero-filled View of the same extents and layout (row-major
//! strides for `LayoutStride` sources); and the mirror / deep_copy / kernel / deep_copy round trip
//! on every backend (for a device space, `create_mirror_view_and_copy` makes a new host View).

use crate::{check, dev, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;
use std::any::Any;

#[test]
fn mirror_view_of_host_view_is_the_view() {
    let a = View::<f64, 2, LayoutLeft>::from_fn("a", [3, 5], |[i, j]| (i * 5 + j) as f64).unwrap();
    let m = create_mirror_view(&a).unwrap();
    assert!(m.shares_allocation_with(&a));
    assert_eq!(a.use_count(), 2);
    assert_eq!(m.strides(), a.strides());
    m.set((2, 4), -1.0);
    assert_eq!(a.get((2, 4)), -1.0);
    let c = create_mirror_view_and_copy(&a).unwrap();
    assert!(c.shares_allocation_with(&a));
    // Subviews too: the mirror view of a host subview is that subview.
    let s: View<f64, 1, LayoutStride> = a.subview((.., 3)).unwrap();
    let ms = create_mirror_view(&s).unwrap();
    assert!(ms.shares_allocation_with(&a));
    assert_eq!(ms.strides(), s.strides());
    assert_eq!(ms.to_vec(), s.to_vec());
}

#[test]
fn create_mirror_allocates() {
    check(16, proptest::array::uniform3(crate::small_extent(6)), |e| {
        let a = View::<i32, 3, LayoutLeft>::from_fn("src", e, |[i, j, k]| {
            (i + 10 * j + 100 * k) as i32
        })?;
        let m = create_mirror(&a)?;
        prop_assert!(!m.shares_allocation_with(&a));
        prop_assert_eq!(m.extents(), a.extents());
        prop_assert_eq!(m.layout(), a.layout());
        prop_assert_eq!(m.strides(), a.strides());
        prop_assert_eq!(m.label(), "src_mirror");
        prop_assert!(m.to_vec().iter().all(|&v| v == 0));
        deep_copy(&m, &a)?;
        prop_assert_eq!(m.to_vec(), a.to_vec());

        let big = View::<i32, 3>::new("big", [e[0] + 1, e[1], e[2] + 2])?;
        let s: View<i32, 3, LayoutStride> = big.subview((1.., .., 1..e[2] + 1))?;
        let ms = create_mirror(&s)?;
        prop_assert!(ms.is_contiguous());
        prop_assert_eq!(ms.extents(), e);
        if ms.size() > 0 {
            prop_assert_eq!(ms.strides(), [e[1].max(1) * e[2].max(1), e[2].max(1), 1]);
        }
        Ok(())
    });
}

#[kernel]
fn triple(i: usize, y: ViewMut<f32>, x: View<f32>) {
    y[i] = 3.0 * x[i];
}

/// The canonical Kokkos round trip, on every backend: fill a mirror on the host, copy it to the
/// execution space's View, run a kernel, copy back, compare.
fn mirror_round_trip<E: ExecutionSpace>(space: E) {
    check(16, (crate::sizes(), any::<u64>()), |(n, seed)| {
        let x: DevView<E, f32, 1, LayoutLeft> = dev(&space, "x", [n])?;
        let y: DevView<E, f32, 1, LayoutLeft> = dev(&space, "y", [n])?;
        let hx = create_mirror(&x)?;
        let data: Vec<f32> = crate::unit_floats(seed, n)
            .iter()
            .map(|&v| v as f32)
            .collect();
        {
            let mut g = hx.host_mut();
            g.as_mut_slice().unwrap().copy_from_slice(&data);
        }
        deep_copy(&x, &hx)?;
        parallel_for("triple", RangePolicy::new(&space, 0..n), triple(&y, &x))?;
        let hy = create_mirror_view_and_copy(&y)?;
        // A host View is its own mirror, and a View of a `Device` standing for a host backend
        // has a host View of its own memory (same label); a View in device memory gets a new
        // host View.
        match (&y as &dyn Any).downcast_ref::<View<f32, 1, LayoutLeft, HostSpace>>() {
            Some(host_y) => prop_assert!(hy.shares_allocation_with(host_y)),
            None if crate::trust::mirrors_alias(&space) => prop_assert_eq!(hy.label(), "y"),
            None => prop_assert_eq!(hy.label(), "y_mirror"),
        }
        let want: Vec<u32> = data.iter().map(|v| (3.0 * v).to_bits()).collect();
        let got: Vec<u32> = hy.to_vec().iter().map(|v| v.to_bits()).collect();
        prop_assert_eq!(got, want);
        Ok(())
    });
}
per_backend!(mirror_round_trip);
