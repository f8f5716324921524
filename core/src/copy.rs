//! `deep_copy`, fills, mirrors, `resize` and `realloc`.
//!
//! Copies between Views of equal extents work across layouts and memory spaces. When both Views are
//! contiguous with the same strides the bytes move in one block; otherwise the elements are gathered
//! in row-major index order into a host staging buffer and scattered into the destination.
//!
//! Every operation holds the allocations it touches (`crate::borrow`) from its check to its last
//! byte: the destination exclusively, the source shared (one exclusive hold when both are the same
//! allocation). A host guard or a launch that holds them makes it `Err(Aliasing)`, and none can
//! start while the copy runs (a profiling hook called in between, for instance).

use crate::borrow::Hold;
use crate::error::{Error, Result};
use crate::index::{fmt_index, for_each_index};
use crate::layout::Layout;
use crate::space::{ExecutionSpace, HostSpace, MemorySpace};
use crate::view::View;
use bytemuck::Pod;
use std::any::Any;

/// Holds `v`'s allocation for `op` (exclusively when `write`), or `Err(Aliasing)` naming `op` when
/// a host guard or a launch holds it in a way that forbids the access.
fn hold<'v, T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &'v View<T, R, L, S>,
    write: bool,
    op: &str,
) -> Result<Hold<'v>> {
    Hold::take(&v.alloc.borrow, write).ok_or_else(|| Error::Aliasing {
        kernel: op.into(),
        reason: format!(
            "View `{}` is borrowed on the host by a host()/host_mut() guard (or by a launch in progress)",
            v.label()
        ),
    })
}

/// The raw span of a View (all elements between its first and last), read into host memory. The
/// caller holds `v`'s allocation (shared at least).
fn read_span<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    _held: &Hold<'_>,
) -> Result<Vec<T>> {
    let mut buf = vec![T::zeroed(); v.span()];
    let sz = std::mem::size_of::<T>();
    // SAFETY: the caller holds the allocation, so no `&mut` into it and no writer exists.
    unsafe {
        v.memory_space().read_bytes(
            v.buffer(),
            v.offset * sz,
            bytemuck::cast_slice_mut(&mut buf),
        )
    }?;
    Ok(buf)
}

/// Writes `data` over `v`'s raw span. The caller holds `v`'s allocation exclusively.
fn write_span<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    data: &[T],
    _held: &Hold<'_>,
) -> Result<()> {
    let sz = std::mem::size_of::<T>();
    // SAFETY: the caller holds the allocation exclusively: no reference into it, no other access.
    unsafe {
        v.memory_space()
            .write_bytes(v.buffer(), v.offset * sz, bytemuck::cast_slice(data))
    }
}

/// All elements of `v` in row-major index order, copied to the host (`v` held shared by the
/// caller).
fn read_logical_held<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    held: &Hold<'_>,
) -> Result<Vec<T>> {
    let span = read_span(v, held)?;
    let mut out = Vec::with_capacity(v.size());
    let strides = v.strides;
    for_each_index(&v.extents, |idx| out.push(span[L::offset(idx, &strides)]));
    Ok(out)
}

/// All elements of `v` in row-major index order, copied to the host.
pub(crate) fn read_logical<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<Vec<T>> {
    let held = hold(v, false, "deep_copy")?;
    read_logical_held(v, &held)
}

/// Writes `data` (row-major index order, `v.size()` elements) into `v` (held exclusively by the
/// caller).
fn write_logical_held<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    data: &[T],
    held: &Hold<'_>,
) -> Result<()> {
    debug_assert_eq!(data.len(), v.size());
    // Read first so that slots inside the span but outside the View keep their values.
    let mut span = if v.is_contiguous() {
        vec![T::zeroed(); v.span()]
    } else {
        read_span(v, held)?
    };
    let strides = v.strides;
    let mut n = 0usize;
    for_each_index(&v.extents, |idx| {
        span[L::offset(idx, &strides)] = data[n];
        n += 1;
    });
    write_span(v, &span, held)
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
    let dst_hold = hold(dst, true, "deep_copy")?;
    // One allocation (a View into a part of itself) is held once, exclusively; the copy goes
    // through host memory or `ptr::copy`, both of which tolerate the overlap.
    let src_hold = if std::ptr::eq(
        &dst.alloc.borrow as *const _ as *const u8,
        &src.alloc.borrow as *const _ as *const u8,
    ) {
        None
    } else {
        Some(hold(src, false, "deep_copy")?)
    };
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
    // `dst_hold` covers both Views when they share the allocation.
    let src_held = src_hold.as_ref().unwrap_or(&dst_hold);
    if dst.is_contiguous() && src.is_contiguous() && dst.strides == src.strides {
        if let Some(r) = copy_within_space(dst, src) {
            return r;
        }
        if let Some(r) = copy_with_host(dst, src) {
            return r;
        }
        let data = read_span(src, src_held)?;
        return write_span(dst, &data, &dst_hold);
    }
    let data = read_logical_held(src, src_held)?;
    write_logical_held(dst, &data, &dst_hold)
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
    // SAFETY: only called by `deep_copy`, which holds `dst` exclusively and `src` shared (two
    // distinct allocations: checked above).
    unsafe {
        dst.memory_space().copy_bytes(
            src_buf,
            src.offset * sz,
            dst.buffer(),
            dst.offset * sz,
            dst.span() * sz,
        )
    }
}

/// Two contiguous Views of which exactly one is in host memory: the other space reads into, or
/// writes from, the host View's own memory, with no staging copy (a pinned mirror is then copied
/// at full bus speed). `None` when both or neither are host memory. Only called by `deep_copy`,
/// which holds `dst` exclusively and `src` shared.
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
    // `HostSpace` only: its host pointer is valid for the whole allocation (it is
    // `HostAccessible`, an `unsafe` promise), where `host_ptr` of an arbitrary space is a safe
    // method that may answer anything.
    let host = |id: std::any::TypeId| id == std::any::TypeId::of::<HostSpace>();
    let (dst_host, src_host) = (
        host(std::any::TypeId::of::<S1>()),
        host(std::any::TypeId::of::<S2>()),
    );
    let sz = std::mem::size_of::<T>();
    let len = dst.span() * sz;
    match (dst_host, src_host) {
        (true, false) => {
            let d = S1::host_ptr(dst.buffer())?;
            // SAFETY: `d` is the host address of `dst`'s allocation (HostSpace), which holds its
            // span from element `offset`; `deep_copy` holds `dst` exclusively, so no reference into
            // these bytes exists and nothing else reads or writes them meanwhile; `src` lives in
            // another memory space, so the two cannot overlap.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(d.as_ptr().add(dst.offset * sz), len) };
            // SAFETY: `deep_copy` holds `src` (shared): no `&mut` into it and no writer.
            Some(unsafe {
                src.memory_space()
                    .read_bytes(src.buffer(), src.offset * sz, bytes)
            })
        }
        (false, true) => {
            let s = S2::host_ptr(src.buffer())?;
            // SAFETY: as above, for reading `src`'s span, which `deep_copy` holds shared (no
            // `&mut` into it, no writer).
            let bytes = unsafe { std::slice::from_raw_parts(s.as_ptr().add(src.offset * sz), len) };
            // SAFETY: `deep_copy` holds `dst` exclusively.
            Some(unsafe {
                dst.memory_space()
                    .write_bytes(dst.buffer(), dst.offset * sz, bytes)
            })
        }
        _ => None,
    }
}

/// Sets every element of `dst` to `value` (Kokkos' `deep_copy(view, scalar)`).
pub fn fill<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    dst: &View<T, R, L, S>,
    value: T,
) -> Result<()> {
    let held = hold(dst, true, "fill")?;
    if dst.is_contiguous() {
        return write_span(dst, &vec![value; dst.size()], &held);
    }
    write_logical_held(dst, &vec![value; dst.size()], &held)
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
            let held = hold(&new, true, "resize")?;
            write_logical_held(&new, &data, &held)?;
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

/// A View in the memory of execution space `space` with the extents and layout of `v` (Kokkos'
/// `create_mirror_view(space, v)`): `v` itself (shared, no copy) when it already lives in that
/// memory, otherwise a new allocation there (contents not copied; `LayoutStride` sources get
/// row-major strides).
pub fn create_mirror_view_in<E, T, const R: usize, L, S>(
    space: &E,
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, E::Memory>>
where
    E: ExecutionSpace,
    T: Pod,
    L: Layout,
    S: MemorySpace,
{
    let memory = space.memory_space();
    if let Some(same) = (v as &dyn Any).downcast_ref::<View<T, R, L, E::Memory>>() {
        if memory.owns(same.buffer()) {
            return Ok(same.clone());
        }
    }
    create_mirror_in(space, v)
}

/// A new View in the memory of execution space `space` with the extents and layout of `v`
/// (contents not copied; Kokkos' `create_mirror(space, v)`).
pub fn create_mirror_in<E, T, const R: usize, L, S>(
    space: &E,
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, E::Memory>>
where
    E: ExecutionSpace,
    T: Pod,
    L: Layout,
    S: MemorySpace,
{
    View::new_in(&space.memory_space(), v.label(), v.extents)
}

/// [`create_mirror_view_in`] followed by a copy when a new allocation was made: `v`'s contents in
/// the memory of `space`, host to device or device to host (Kokkos'
/// `create_mirror_view_and_copy(space, v)`).
///
/// ```
/// use rokkos_core::{create_mirror_view_and_copy_in, View, HostSpace, ExecutionSpace};
/// # fn demo<E: ExecutionSpace>(dev: &E) -> rokkos_core::Result<()> {
/// let h = View::<f64>::from_fn("h", [4], |[i]| i as f64)?;
/// let d = create_mirror_view_and_copy_in(dev, &h)?; // in `dev`'s memory
/// # Ok(()) }
/// ```
pub fn create_mirror_view_and_copy_in<E, T, const R: usize, L, S>(
    space: &E,
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, E::Memory>>
where
    E: ExecutionSpace,
    T: Pod,
    L: Layout,
    S: MemorySpace,
{
    let m = create_mirror_view_in(space, v)?;
    let same = (v as &dyn Any)
        .downcast_ref::<View<T, R, L, E::Memory>>()
        .is_some_and(|d| d.shares_allocation_with(&m));
    if !same {
        deep_copy(&m, v)?;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiling::{self, ProfilingHooks};
    use std::cell::{Cell, RefCell};
    use std::sync::Arc;

    thread_local! {
        static WATCHED: RefCell<Option<[View<f64>; 2]>> = const { RefCell::new(None) };
        // (readable, writable) of dst and src, as the hook saw them.
        static SEEN: Cell<Option<[(bool, bool); 2]>> = const { Cell::new(None) };
    }

    struct Watch;
    impl ProfilingHooks for Watch {
        fn deep_copy(&self, _dst: &str, _src: &str, _bytes: usize) {
            WATCHED.with(|w| {
                if let Some(views) = &*w.borrow() {
                    let state = views.each_ref().map(|v| {
                        let f = &v.alloc.borrow;
                        (f.readable(), f.writable())
                    });
                    SEEN.with(|c| c.set(Some(state)));
                }
            });
        }
    }

    /// The profiling hook `deep_copy` calls runs user code between the borrow check and the copy;
    /// the copy must hold both Views through it (it used to check, call the hook, then write, so a
    /// guard taken in the hook could coexist with the write).
    #[test]
    fn deep_copy_holds_both_views_through_its_hook() {
        profiling::register(Arc::new(Watch));
        let dst = View::<f64>::new("dst", [4]).unwrap();
        let src = View::<f64>::from_fn("src", [4], |[i]| i as f64).unwrap();
        WATCHED.with(|w| *w.borrow_mut() = Some([dst.clone(), src.clone()]));
        deep_copy(&dst, &src).unwrap();
        WATCHED.with(|w| *w.borrow_mut() = None);
        // dst held exclusively (no other access), src shared (reads only).
        assert_eq!(SEEN.with(Cell::get), Some([(false, false), (true, false)]));
        assert_eq!(dst.to_vec(), vec![0.0, 1.0, 2.0, 3.0]);
        // Released afterwards.
        assert!(dst.alloc.borrow.writable() && src.alloc.borrow.writable());
    }
}
