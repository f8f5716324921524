//! `deep_copy`, fills, mirrors, `resize` and `realloc`.
//!
//! Copies between Views of equal extents work across layouts and memory spaces. When both Views are
//! contiguous with the same strides the bytes move in one block; otherwise the elements are gathered
//! in row-major index order into a host staging buffer and scattered into the destination.

use crate::error::{Error, Result};
use crate::index::{fmt_index, for_each_index};
use crate::layout::Layout;
use crate::space::{HostSpace, MemorySpace};
use crate::view::View;
use bytemuck::Pod;
use std::any::Any;

fn check_not_borrowed<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    write: bool,
) -> Result<()> {
    check_host_borrow(v, write, "deep_copy")
}

/// `Err(Aliasing)` naming `op` when a `host()`/`host_mut()` guard borrows `v`'s allocation in a
/// way that forbids the access (`write`: any guard; reading: a `host_mut()` guard).
pub(crate) fn check_host_borrow<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    write: bool,
    op: &str,
) -> Result<()> {
    let b = v.alloc.borrow.get();
    if b < 0 || (write && b != 0) {
        return Err(Error::Aliasing {
            kernel: op.into(),
            reason: format!(
                "View `{}` is borrowed on the host by a host()/host_mut() guard",
                v.label()
            ),
        });
    }
    Ok(())
}

/// The raw span of a View (all elements between its first and last), read into host memory.
fn read_span<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<Vec<T>> {
    let mut buf = vec![T::zeroed(); v.span()];
    let sz = std::mem::size_of::<T>();
    v.memory_space().read_bytes(
        v.buffer(),
        v.offset * sz,
        bytemuck::cast_slice_mut(&mut buf),
    )?;
    Ok(buf)
}

fn write_span<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    data: &[T],
) -> Result<()> {
    let sz = std::mem::size_of::<T>();
    v.memory_space()
        .write_bytes(v.buffer(), v.offset * sz, bytemuck::cast_slice(data))
}

/// All elements of `v` in row-major index order, copied to the host.
pub(crate) fn read_logical<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<Vec<T>> {
    check_not_borrowed(v, false)?;
    let span = read_span(v)?;
    let mut out = Vec::with_capacity(v.size());
    let strides = v.strides;
    for_each_index(&v.extents, |idx| out.push(span[L::offset(idx, &strides)]));
    Ok(out)
}

/// Writes `data` (row-major index order, `v.size()` elements) into `v`.
pub(crate) fn write_logical<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    data: &[T],
) -> Result<()> {
    check_not_borrowed(v, true)?;
    debug_assert_eq!(data.len(), v.size());
    // Read first so that slots inside the span but outside the View keep their values.
    let mut span = if v.is_contiguous() {
        vec![T::zeroed(); v.span()]
    } else {
        read_span(v)?
    };
    let strides = v.strides;
    let mut n = 0usize;
    for_each_index(&v.extents, |idx| {
        span[L::offset(idx, &strides)] = data[n];
        n += 1;
    });
    write_span(v, &span)
}

/// Copies `src` into `dst`: equal extents required (`Err(ShapeMismatch)` otherwise, nothing
/// written); any layouts and memory spaces.
///
/// ```
/// use rokkos_core::{deep_copy, View, LayoutLeft};
/// let a = View::<f32, 2>::from_fn("a", [2, 3], |[i, j]| (3 * i + j) as f32).unwrap();
/// let b = View::<f32, 2, LayoutLeft>::new("b", [2, 3]).unwrap();
/// deep_copy(&b, &a).unwrap();
/// assert_eq!(b.get((1, 2)), 5.0);
/// ```
pub fn deep_copy<T, const R: usize, L1, S1, L2, S2>(
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
) -> Result<()>
where
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    if dst.extents != src.extents {
        return Err(Error::shape(format!(
            "deep_copy from `{}` {} into `{}` {}",
            src.label(),
            fmt_index(&src.extents),
            dst.label(),
            fmt_index(&dst.extents)
        )));
    }
    check_not_borrowed(dst, true)?;
    check_not_borrowed(src, false)?;
    if dst.size() == 0 {
        return Ok(());
    }
    crate::profiling::each(|h| {
        h.deep_copy(
            dst.label(),
            src.label(),
            dst.size() * std::mem::size_of::<T>(),
        )
    });
    if dst.is_contiguous() && src.is_contiguous() && dst.strides == src.strides {
        if let Some(r) = copy_within_space(dst, src) {
            return r;
        }
        if let Some(r) = copy_with_host(dst, src) {
            return r;
        }
        let data = read_span(src)?;
        return write_span(dst, &data);
    }
    let data = read_logical(src)?;
    write_logical(dst, &data)
}

/// Two contiguous Views of one memory space, in different allocations: the space's own copy
/// ([`MemorySpace::copy_bytes`]), when it has one.
fn copy_within_space<T, const R: usize, L1, S1, L2, S2>(
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
) -> Option<Result<()>>
where
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    if std::any::TypeId::of::<S1>() != std::any::TypeId::of::<S2>() {
        return None;
    }
    let src_buf = (src.buffer() as &dyn std::any::Any).downcast_ref::<S1::Buffer>()?;
    if std::ptr::eq(src_buf, dst.buffer()) {
        return None;
    }
    let sz = std::mem::size_of::<T>();
    dst.memory_space().copy_bytes(
        src_buf,
        src.offset * sz,
        dst.buffer(),
        dst.offset * sz,
        dst.span() * sz,
    )
}

/// Two contiguous Views of which exactly one is in host memory: the other space reads into, or
/// writes from, the host View's own memory, with no staging copy (a pinned mirror is then copied
/// at full bus speed). `None` when both or neither are host memory.
fn copy_with_host<T, const R: usize, L1, S1, L2, S2>(
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
) -> Option<Result<()>>
where
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    let sz = std::mem::size_of::<T>();
    let len = dst.span() * sz;
    match (S1::host_ptr(dst.buffer()), S2::host_ptr(src.buffer())) {
        (Some(d), None) => {
            // SAFETY: `d` is the host address of `dst`'s allocation, which holds its span from
            // element `offset`; the caller checked that no host guard borrows `dst` and Views are
            // neither `Send` nor `Sync`, so nothing else reads or writes these bytes meanwhile;
            // `src` lives in another (non-host) memory space, so the two cannot overlap.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(d.as_ptr().add(dst.offset * sz), len) };
            Some(
                src.memory_space()
                    .read_bytes(src.buffer(), src.offset * sz, bytes),
            )
        }
        (None, Some(s)) => {
            // SAFETY: as above, for reading `src`'s span (no `host_mut()` guard holds it).
            let bytes = unsafe { std::slice::from_raw_parts(s.as_ptr().add(src.offset * sz), len) };
            Some(
                dst.memory_space()
                    .write_bytes(dst.buffer(), dst.offset * sz, bytes),
            )
        }
        _ => None,
    }
}

/// Sets every element of `dst` to `value` (Kokkos' `deep_copy(view, scalar)`).
pub fn fill<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    dst: &View<T, R, L, S>,
    value: T,
) -> Result<()> {
    check_not_borrowed(dst, true)?;
    if dst.is_contiguous() {
        return write_span(dst, &vec![value; dst.size()]);
    }
    write_logical(dst, &vec![value; dst.size()])
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> View<T, R, L, S> {
    /// Sets every element to `value`.
    pub fn fill(&self, value: T) -> Result<()> {
        fill(self, value)
    }

    /// Replaces this handle's allocation by one of `extents`, keeping the elements whose indices
    /// exist in both shapes (new ones are zero). Other handles keep the old allocation, as in Kokkos.
    pub fn resize(&mut self, extents: [usize; R]) -> Result<()> {
        let old = read_logical(self)?;
        let new = View::<T, R, L, S>::new_in(self.memory_space(), self.label(), extents)?;
        let mut data = vec![T::zeroed(); new.size()];
        let (oe, ne) = (self.extents, extents);
        let row_major = |idx: &[usize; R], e: &[usize; R]| {
            idx.iter().zip(e).fold(0usize, |acc, (&i, &n)| acc * n + i)
        };
        for_each_index(&ne, |idx| {
            if (0..R).all(|k| idx[k] < oe[k]) {
                data[row_major(idx, &ne)] = old[row_major(idx, &oe)];
            }
        });
        if !data.is_empty() {
            write_logical(&new, &data)?;
        }
        *self = new;
        Ok(())
    }

    /// Replaces this handle's allocation by a fresh zero-filled one of `extents` (no copy).
    pub fn realloc(&mut self, extents: [usize; R]) -> Result<()> {
        *self = View::<T, R, L, S>::new_in(self.memory_space(), self.label(), extents)?;
        Ok(())
    }
}

/// A host View with the same extents and layout as `v`: `v` itself (shared, no copy) when `v` is
/// already in host memory, otherwise a new allocation (contents not copied).
///
/// ```
/// use rokkos_core::{create_mirror_view, View};
/// let a = View::<u8, 1>::new("a", [4]).unwrap();
/// let m = create_mirror_view(&a).unwrap();
/// assert!(m.shares_allocation_with(&a));
/// ```
pub fn create_mirror_view<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, HostSpace>> {
    if let Some(h) = (v as &dyn Any).downcast_ref::<View<T, R, L, HostSpace>>() {
        return Ok(h.clone());
    }
    create_mirror(v)
}

/// A new host View with the same extents and layout as `v` (contents not copied); `LayoutStride`
/// sources get row-major strides.
pub fn create_mirror<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, HostSpace>> {
    let label = format!("{}_mirror", v.label());
    // The source's space chooses the memory: a device space gives pinned memory.
    View::<T, R, L, HostSpace>::with_host_memory(&label, v.extents, |bytes, align| {
        v.memory_space().allocate_mirror(&label, bytes, align)
    })
}

/// [`create_mirror_view`] followed by a copy when a new allocation was made.
pub fn create_mirror_view_and_copy<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, HostSpace>> {
    let m = create_mirror_view(v)?;
    let same = (v as &dyn Any)
        .downcast_ref::<View<T, R, L, HostSpace>>()
        .is_some_and(|h| h.shares_allocation_with(&m));
    if !same {
        deep_copy(&m, v)?;
    }
    Ok(m)
}
