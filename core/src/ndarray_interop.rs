//! Zero-copy conversions between host Views and [`ndarray`] arrays (cargo feature `ndarray`).
//!
//! - **Borrowing a View as an array**: [`HostRef::as_array`] / [`HostMut::as_array_mut`] give an
//!   `ArrayView` / `ArrayViewMut` over the View's own memory, with the View's extents and strides
//!   (any layout, subviews included). They borrow the guard, so the allocation stays held (shared
//!   or exclusive) while the array is alive: no launch, copy or other guard can touch it meanwhile.
//!   Strides that are never used (of a dimension of extent 1, and every stride of an empty View)
//!   may be anything in a View, up to `usize::MAX`, which ndarray would read as a negative
//!   `isize`; the array has stride 0 there instead, as `from_shape_ptr`'s safety conditions ask.
//! - **Adopting an owned array**: [`View::from_ndarray`] takes an `Array` without copying its
//!   elements; its strides become the View's, so a row-major array is a `LayoutRight` View, a
//!   column-major one (`.reversed_axes()`, `Array::zeros(shape.f())`) a `LayoutLeft` View, and any
//!   other a `LayoutStride` View. Negative strides (`.invert_axis`, `s![..;-1]`) have no View
//!   equivalent and are refused.
//!
//! Ranks 0 to 6 (ndarray's fixed dimensions `Ix0` .. `Ix6`).
//!
//! ```
//! use ndarray::{array, Array2, ShapeBuilder};
//! use rokkos_core::{View, LayoutLeft, LayoutRight};
//!
//! let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! let v = View::<f64, 2, LayoutRight>::from_ndarray("a", a).unwrap();
//! assert_eq!(v.get((1, 2)), 6.0);
//!
//! let f = Array2::<f64>::zeros((2, 3).f()); // column-major
//! let w = View::<f64, 2, LayoutLeft>::from_ndarray("f", f).unwrap();
//! w.host_mut().as_array_mut()[[1, 0]] = 7.0;
//! assert_eq!(w.host().as_array().sum(), 7.0);
//! ```

use crate::error::{Error, Result};
use crate::index::fmt_index;
use crate::layout::{checked_span, strides_are_injective, Layout};
use crate::space::{HostAccessible, HostBuffer, HostSpace};
use crate::view::{HostMut, HostRef, View};
use bytemuck::Pod;
use ndarray::{Array, ArrayView, ArrayViewMut, Dim, Dimension, ShapeBuilder};

/// `ndarray`'s fixed dimension holding `ix`.
fn dim<const R: usize>(ix: [usize; R]) -> Dim<[usize; R]>
where
    Dim<[usize; R]>: Dimension,
{
    let mut d = Dim::<[usize; R]>::zeros(R);
    d.slice_mut().copy_from_slice(&ix);
    d
}

/// The `ndarray` shape of a View with these extents and strides, meeting every precondition of
/// `from_shape_ptr` that depends on the shape (each listed in `HostRef::as_array`): strides that
/// are non-negative as `isize` (a dimension of extent 1 is never stepped along, so its stride,
/// which may be anything up to `usize::MAX`, becomes 0), offsets between the least and greatest
/// address within `isize::MAX` elements and bytes (the span of a non-empty View fits one
/// allocation), and, for the mutable view, no two indices at one element (View strides are
/// injective). An empty View has no element, so its strides are free: it takes ndarray's own
/// strides for its shape (all 0), which move nowhere, rather than its own, which ndarray would
/// still count (`(extent - 1) * stride` on every axis) and check for overlap. The product of the
/// non-zero extents is within `isize::MAX` because View constructors refuse larger shapes.
fn ndarray_shape<const R: usize>(
    extents: [usize; R],
    strides: [usize; R],
) -> ndarray::StrideShape<Dim<[usize; R]>>
where
    Dim<[usize; R]>: Dimension,
{
    if extents.contains(&0) {
        return dim(extents).into();
    }
    let mut s = strides;
    for k in 0..R {
        if extents[k] == 1 {
            s[k] = 0;
        }
    }
    dim(extents).strides(dim(s))
}

impl<T: Pod, const R: usize, L: Layout, S: HostAccessible> HostRef<'_, T, R, L, S>
where
    Dim<[usize; R]>: Dimension,
{
    /// The View's elements as an `ndarray` array view (no copy), for as long as this guard lives.
    pub fn as_array(&self) -> ArrayView<'_, T, Dim<[usize; R]>> {
        let v = self.view();
        let shape = ndarray_shape(v.extents(), v.strides());
        // SAFETY (`from_shape_ptr`'s conditions, each): the pointer is the View's element
        // `[0; R]`, non-null and aligned for `T` (host memory keeps `HostAccessible`'s promises;
        // an empty View's is its allocation's aligned base or a point inside it), so offsetting
        // it by zero is fine; every element `offset + sum(i_k * s_k)` of an index inside the
        // extents lies in the allocation (every constructor checks the span, subviews shrink it),
        // and an empty View's shape moves nowhere (ndarray's strides for it are 0); `ndarray_shape` makes every
        // stride non-negative and keeps the offsets within `isize::MAX` elements and bytes
        // (allocations are at most `isize::MAX` bytes); the product of the non-zero extents fits
        // `isize::MAX` (View constructors refuse larger shapes); and this guard holds the
        // allocation shared, so nothing writes it while the array lives (the array borrows the
        // guard).
        unsafe { ArrayView::from_shape_ptr(shape, v.host_ptr_at_origin()) }
    }
}

impl<T: Pod, const R: usize, L: Layout, S: HostAccessible> HostMut<'_, T, R, L, S>
where
    Dim<[usize; R]>: Dimension,
{
    /// The View's elements as an `ndarray` array view (no copy).
    pub fn as_array(&self) -> ArrayView<'_, T, Dim<[usize; R]>> {
        let v = self.view();
        let shape = ndarray_shape(v.extents(), v.strides());
        // SAFETY: as in `HostRef::as_array`; the guard holds the allocation exclusively and
        // `&self` keeps `as_array_mut` from running meanwhile.
        unsafe { ArrayView::from_shape_ptr(shape, v.host_ptr_at_origin()) }
    }
    /// The View's elements as a mutable `ndarray` array view (no copy).
    pub fn as_array_mut(&mut self) -> ArrayViewMut<'_, T, Dim<[usize; R]>> {
        let v = self.view();
        let shape = ndarray_shape(v.extents(), v.strides());
        // SAFETY: as in `HostRef::as_array`; distinct indices address distinct elements (View
        // strides are injective, as `ArrayViewMut` requires, and `ndarray_shape` changes only
        // strides of dimensions never stepped along), the guard holds the allocation
        // exclusively, and `&mut self` makes this the only reference through the guard.
        unsafe { ArrayViewMut::from_shape_ptr(shape, v.host_ptr_at_origin()) }
    }
}

impl<T: Pod, const R: usize, L: Layout> View<T, R, L, HostSpace>
where
    Dim<[usize; R]>: Dimension,
{
    /// Adopts `array`'s elements without copying: the View has the array's shape and strides.
    /// `Err(InvalidArgument)` for negative strides, `Err(ShapeMismatch)` when the strides are not
    /// layout `L`'s (a row-major array is `LayoutRight`, a column-major one `LayoutLeft`, any array
    /// `LayoutStride`).
    pub fn from_ndarray(label: &str, array: Array<T, Dim<[usize; R]>>) -> Result<Self> {
        let extents: [usize; R] = array
            .shape()
            .try_into()
            .expect("a Dim<[usize; R]> array has R extents");
        let mut strides = [0usize; R];
        for (k, &s) in array.strides().iter().enumerate() {
            if s < 0 && extents[k] > 1 {
                return Err(Error::InvalidArgument(format!(
                    "ndarray for View `{label}`: stride {s} in dimension {k} is negative; \
                     Views have non-negative strides (copy the array into standard layout first)"
                )));
            }
            // An axis of extent 0 or 1 is never stepped along: its stride is irrelevant.
            strides[k] = if extents[k] > 1 { s as usize } else { 0 };
        }
        if let Some(expect) = L::contiguous_strides(&extents) {
            if (0..R).any(|k| extents[k] > 1 && expect[k] != strides[k]) {
                return Err(Error::shape(format!(
                    "ndarray for View `{label}` with strides {} is not {:?}",
                    fmt_index(&strides),
                    L::KIND
                )));
            }
            strides = expect;
        }
        if !strides_are_injective(&extents, &strides) {
            return Err(Error::InvalidArgument(format!(
                "ndarray for View `{label}`: strides {} overlap",
                fmt_index(&strides)
            )));
        }
        let (data, offset) = array.into_raw_vec_and_offset();
        let offset = offset.unwrap_or(0);
        let fits = checked_span(&extents, &strides)
            .and_then(|span| span.checked_add(offset))
            .is_some_and(|end| end <= data.len() || extents.contains(&0));
        if !fits {
            return Err(Error::InvalidArgument(format!(
                "ndarray for View `{label}`: its elements do not lie in its buffer"
            )));
        }
        let offset = if extents.contains(&0) { 0 } else { offset };
        Ok(View::adopt(
            HostBuffer::from_vec(data),
            label,
            extents,
            strides,
            offset,
        ))
    }
}
