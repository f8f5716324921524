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
use crate::watch::{Access, AccessKind};
use bytemuck::Pod;
use std::any::{Any, TypeId};
use std::ops::Range;

/// Holds `v`'s allocation for `op` (exclusively when `write`), or `Err(Aliasing)` naming `op` when
/// a host guard or a launch holds it in a way that forbids the access.
fn hold<'v, T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &'v View<T, R, L, S>,
    write: bool,
    op: &str,
) -> Result<Hold<'v>> {
    Hold::take(v.alloc.flag(), write).ok_or_else(|| Error::Aliasing {
        kernel: op.into(),
        reason: if v.alloc.flag().is_read_only() {
            format!("View `{}` {}", v.label(), crate::view::READ_ONLY)
        } else {
            format!(
                "View `{}` is borrowed on the host by a host()/host_mut() guard (or by a launch in progress)",
                v.label()
            )
        },
    })
}

/// Asks the watches of a copy's destination and source whether `op` may copy ([`crate::watch`]),
/// then commits it to both; the caller holds both allocations.
fn watch_copy<T, const R: usize, L1, S1, L2, S2>(
    op: &str,
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
    let (wd, ws) = (dst.alloc.watch(), src.alloc.watch());
    if wd.is_none() && ws.is_none() {
        return Ok(());
    }
    let at = |write: bool, label| Access {
        kind: AccessKind::Copy { op },
        write,
        label,
    };
    let (to, from) = (at(true, dst.label()), at(false, src.label()));
    if let Some(w) = wd {
        w.check(&to)?;
    }
    if let Some(w) = ws {
        w.check(&from)?;
    }
    if let Some(w) = wd {
        w.commit(&to);
    }
    if let Some(w) = ws {
        w.commit(&from);
    }
    Ok(())
}

/// `Err(OutOfMemory)` for `count` elements of `T` of host staging memory for View `label`.
fn staging_oom<T>(label: &str, count: usize) -> Error {
    Error::OutOfMemory {
        label: label.to_string(),
        bytes: count.saturating_mul(std::mem::size_of::<T>()),
    }
}

/// `count` zeroed elements of host staging memory for View `label`: a copy through the host that
/// cannot have its buffer fails like a View's allocation (`Err(OutOfMemory)`) instead of aborting
/// the process. Zeroed memory comes from the allocator as untouched pages.
fn staging<T: Pod>(label: &str, count: usize) -> Result<Vec<T>> {
    bytemuck::allocation::try_zeroed_vec(count).map_err(|()| staging_oom::<T>(label, count))
}

/// True when `S` is `HostSpace`, whose host pointer is valid for the whole allocation (it is
/// `HostAccessible`, an `unsafe` promise), where `host_ptr` of an arbitrary space is a safe method
/// that may answer anything.
fn is_host<S: MemorySpace>() -> bool {
    TypeId::of::<S>() == TypeId::of::<HostSpace>()
}

/// The address of the slot at offset 0 of `v` (its element `[0; R]`) when `v` lives in
/// `HostSpace`; offsets below `v.span()` from it lie inside the allocation.
fn host_origin<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Option<*mut T> {
    if !is_host::<S>() {
        return None;
    }
    let base = S::host_ptr(v.buffer())?;
    // SAFETY: every View keeps `offset + span` inside its allocation (`is_host`: `base` is valid
    // for all of it).
    Some(unsafe { (base.as_ptr() as *mut T).add(v.offset) })
}

/// The raw span of a View (all elements between its first and last), read into host memory
/// through the memory space handle `space`. The caller holds `v`'s allocation (shared at least).
fn read_span<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    space: &S,
    _held: &Hold<'_>,
) -> Result<Vec<T>> {
    let mut buf = staging::<T>(v.label(), v.span())?;
    let sz = std::mem::size_of::<T>();
    // SAFETY: the caller holds the allocation, so no `&mut` into it and no writer exists.
    unsafe {
        space.read_bytes(
            v.buffer(),
            v.offset * sz,
            bytemuck::cast_slice_mut(&mut buf),
        )
    }?;
    Ok(buf)
}

/// Writes `data` over `v`'s raw span from element `at` of the span on, through the memory space
/// handle `space` (`v`'s own, or an execution-space instance's). The caller holds `v`'s
/// allocation exclusively.
fn write_span<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    space: &S,
    at: usize,
    data: &[T],
    _held: &Hold<'_>,
) -> Result<()> {
    let sz = std::mem::size_of::<T>();
    // SAFETY: the caller holds the allocation exclusively: no reference into it, no other access.
    unsafe { space.write_bytes(v.buffer(), (v.offset + at) * sz, bytemuck::cast_slice(data)) }
}

/// All elements of `v` in row-major index order, copied to the host (`v` held shared by the
/// caller).
fn read_logical_held<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    space: &S,
    held: &Hold<'_>,
) -> Result<Vec<T>> {
    let span = read_span(v, space, held)?;
    let mut out = Vec::new();
    out.try_reserve_exact(v.size())
        .map_err(|_| staging_oom::<T>(v.label(), v.size()))?;
    let strides = v.strides;
    for_each_index(&v.extents, |idx| out.push(span[L::offset(idx, &strides)]));
    Ok(out)
}

/// Writes `value(n)` into the `n`-th element of `v` in row-major index order, through a host copy
/// of its span (`v` held exclusively by the caller).
fn write_logical_with<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    space: &S,
    held: &Hold<'_>,
    mut value: impl FnMut(usize) -> T,
) -> Result<()> {
    // Read first so that slots inside the span but outside the View keep their values.
    let mut span = if v.is_contiguous() {
        staging(v.label(), v.span())?
    } else {
        read_span(v, space, held)?
    };
    let strides = v.strides;
    let mut n = 0usize;
    for_each_index(&v.extents, |idx| {
        span[L::offset(idx, &strides)] = value(n);
        n += 1;
    });
    write_span(v, space, 0, &span, held)
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
    copy_as(
        "deep_copy",
        dst,
        src,
        dst.memory_space(),
        src.memory_space(),
    )
}

/// [`deep_copy`] ordered on the execution-space instance `exec` (Kokkos' `deep_copy(exec, dst,
/// src)`): a View of `exec`'s memory space on `exec`'s device is copied through `exec`'s own
/// handle to that memory (on CUDA, `exec`'s stream), so that the copy is ordered with the work
/// submitted to `exec` instead of the View's own instance. A copy between two such Views
/// (contiguous, same strides) is only enqueued: it returns at once, and `exec.fence()` waits for
/// it; the buffers' own ordering across instances keeps later work on either View after it. A
/// copy that involves host memory waits for its end before returning (the host View is borrowed
/// only for the call), as Kokkos allows. Views of other spaces, or of another device, use their
/// own handles, as [`deep_copy`] does; the errors are [`deep_copy`]'s.
///
/// ```
/// use rokkos_core::{deep_copy_on, ir::eval::IrEval, View};
/// let a = View::<f64>::from_vec("a", [3], vec![1.0, 2.0, 3.0])?;
/// let b = View::<f64>::new("b", [3])?;
/// deep_copy_on(&IrEval, &b, &a)?;
/// assert_eq!(b.to_vec(), [1.0, 2.0, 3.0]);
/// # Ok::<(), rokkos_core::Error>(())
/// ```
pub fn deep_copy_on<E, T, const R: usize, L1, S1, L2, S2>(
    exec: &E,
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    let on = exec.memory_space();
    let dst_space = instance_space(&on, dst);
    let src_space = instance_space(&on, src);
    copy_as("deep_copy", dst, src, &dst_space, &src_space)
}

/// `on` as the handle for `v`'s memory when `v` lives in that memory space type and `on` can use
/// its buffer (same device); `v`'s own handle otherwise.
fn instance_space<M: MemorySpace, T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    on: &M,
    v: &View<T, R, L, S>,
) -> S {
    match (on as &dyn Any).downcast_ref::<S>() {
        Some(s) if s.owns(v.buffer()) => s.clone(),
        _ => v.memory_space().clone(),
    }
}

/// [`deep_copy`] on behalf of operation `op` (`deep_copy`, `resize`), which its errors name,
/// through the memory space handles `dst_space` and `src_space` (the Views' own, or an
/// execution-space instance's: [`deep_copy_on`]).
fn copy_as<T, const R: usize, L1, S1, L2, S2>(
    op: &str,
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
    dst_space: &S1,
    src_space: &S2,
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
            "{op} from `{}` {} into `{}` {}",
            src.label(),
            fmt_index(&src.extents),
            dst.label(),
            fmt_index(&dst.extents)
        )));
    }
    // Reported before the Views are held (as Kokkos' `beginDeepCopy`): a hook is user code, and
    // may read or write these very Views.
    if dst.size() != 0 {
        crate::profiling::each(|h| {
            h.deep_copy(
                dst.label(),
                src.label(),
                dst.size() * std::mem::size_of::<T>(),
            )
        });
    }
    let dst_hold = hold(dst, true, op)?;
    // One allocation (a View into a part of itself) is held once, exclusively; the copy goes
    // through host memory or `ptr::copy`, both of which tolerate the overlap.
    let src_hold = if std::ptr::eq(
        dst.alloc.flag() as *const _ as *const u8,
        src.alloc.flag() as *const _ as *const u8,
    ) {
        None
    } else {
        Some(hold(src, false, op)?)
    };
    watch_copy(op, dst, src)?;
    // Nothing to move when both are the very same elements (a View and itself, or a host mirror
    // of its memory): the holds above still refused a copy that a guard or launch conflicts with.
    if dst.size() == 0 || dst.same_elements_as(src) {
        return Ok(());
    }
    if let Some(r) = copy_host_to_host(dst, src, src_hold.is_some()) {
        return r;
    }
    // `dst_hold` covers both Views when they share the allocation.
    let src_held = src_hold.as_ref().unwrap_or(&dst_hold);
    if dst.is_contiguous() && src.is_contiguous() && dst.strides == src.strides {
        if let Some(r) = copy_within_space(dst, src, dst_space) {
            return r;
        }
        if let Some(r) = copy_with_host(dst, src, dst_space, src_space) {
            return r;
        }
        let data = read_span(src, src_space, src_held)?;
        return write_span(dst, dst_space, 0, &data, &dst_hold);
    }
    let data = read_logical_held(src, src_space, src_held)?;
    write_logical_with(dst, dst_space, &dst_hold, |n| data[n])
}

/// Two Views in `HostSpace`: copied in place, with no staging buffer: one `ptr::copy` when both
/// are contiguous with the same strides (it tolerates the overlap of a View and a part of
/// itself), element by element when they are in `distinct` allocations. `None` otherwise. Only
/// called by `copy_as`, which holds `dst` exclusively and `src` shared (or both through one
/// exclusive hold).
fn copy_host_to_host<T, const R: usize, L1, S1, L2, S2>(
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
    distinct: bool,
) -> Option<Result<()>>
where
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    let (d, s) = (host_origin(dst)?, host_origin(src)?);
    if dst.is_contiguous() && src.is_contiguous() && dst.strides == src.strides {
        // SAFETY: both spans (equal: same extents and strides) lie inside their allocations,
        // which the holds keep from every other access and reference.
        unsafe { std::ptr::copy(s, d, dst.span()) };
        return Some(Ok(()));
    }
    if !distinct {
        return None;
    }
    let (ds, ss) = (dst.strides, src.strides);
    for_each_index(&dst.extents, |idx| {
        // SAFETY: an index inside the extents has an offset below the span, inside the
        // allocation; the two allocations are distinct and held as above.
        unsafe { *d.add(L1::offset(idx, &ds)) = *s.add(L2::offset(idx, &ss)) }
    });
    Some(Ok(()))
}

/// Two contiguous Views of one memory space, in different allocations: the space's own copy
/// ([`MemorySpace::copy_bytes`]), when it has one.
fn copy_within_space<T, const R: usize, L1, S1, L2, S2>(
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
    space: &S1,
) -> Option<Result<()>>
where
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    if TypeId::of::<S1>() != TypeId::of::<S2>() {
        return None;
    }
    let src_buf = (src.buffer() as &dyn std::any::Any).downcast_ref::<S1::Buffer>()?;
    if std::ptr::eq(src_buf, dst.buffer()) {
        return None;
    }
    let sz = std::mem::size_of::<T>();
    // SAFETY: only called by `copy_as`, which holds `dst` exclusively and `src` shared (two
    // distinct allocations: checked above).
    unsafe {
        space.copy_bytes(
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
/// at full bus speed). `None` when both or neither are host memory. Only called by `copy_as`,
/// which holds `dst` exclusively and `src` shared.
fn copy_with_host<T, const R: usize, L1, S1, L2, S2>(
    dst: &View<T, R, L1, S1>,
    src: &View<T, R, L2, S2>,
    dst_space: &S1,
    src_space: &S2,
) -> Option<Result<()>>
where
    T: Pod,
    L1: Layout,
    S1: MemorySpace,
    L2: Layout,
    S2: MemorySpace,
{
    let (dst_host, src_host) = (is_host::<S1>(), is_host::<S2>());
    let sz = std::mem::size_of::<T>();
    let len = dst.span() * sz;
    match (dst_host, src_host) {
        (true, false) => {
            let d = S1::host_ptr(dst.buffer())?;
            // SAFETY: `d` is the host address of `dst`'s allocation (HostSpace), which holds its
            // span from element `offset`; `copy_as` holds `dst` exclusively, so no reference into
            // these bytes exists and nothing else reads or writes them meanwhile; `src` lives in
            // another memory space, so the two cannot overlap.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(d.as_ptr().add(dst.offset * sz), len) };
            // SAFETY: `copy_as` holds `src` (shared): no `&mut` into it and no writer.
            Some(unsafe { src_space.read_bytes(src.buffer(), src.offset * sz, bytes) })
        }
        (false, true) => {
            let s = S2::host_ptr(src.buffer())?;
            // SAFETY: as above, for reading `src`'s span, which `copy_as` holds shared (no
            // `&mut` into it, no writer).
            let bytes = unsafe { std::slice::from_raw_parts(s.as_ptr().add(src.offset * sz), len) };
            // SAFETY: `copy_as` holds `dst` exclusively.
            Some(unsafe { dst_space.write_bytes(dst.buffer(), dst.offset * sz, bytes) })
        }
        _ => None,
    }
}

/// The most bytes [`fill`] stages at once for a View that host code cannot write in place.
const FILL_BLOCK_BYTES: usize = 1 << 20;

/// Sets every element of `dst` to `value` (Kokkos' `deep_copy(view, scalar)`). A `HostSpace` View
/// is written in place; other spaces get the value through a host block of at most 1 MiB (or, for
/// a View with gaps in its span, a host copy of the span, so that the gaps keep their bytes).
pub fn fill<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    dst: &View<T, R, L, S>,
    value: T,
) -> Result<()> {
    fill_through(dst, dst.memory_space(), value)
}

/// [`fill`] ordered on the execution-space instance `exec` (Kokkos' `deep_copy(exec, view,
/// value)`): a View of `exec`'s memory on `exec`'s device is written through `exec`'s handle
/// (on CUDA, `exec`'s stream, after the View's earlier uses on other instances), as
/// [`deep_copy_on`] copies. The call returns once the value is written, as [`fill`] does.
///
/// ```
/// use rokkos_core::{fill_on, ir::eval::IrEval, View};
/// let v = View::<i32, 2>::new("v", [2, 3])?;
/// fill_on(&IrEval, &v, 7)?;
/// assert_eq!(v.to_vec(), [7; 6]);
/// # Ok::<(), rokkos_core::Error>(())
/// ```
pub fn fill_on<E: ExecutionSpace, T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    exec: &E,
    dst: &View<T, R, L, S>,
    value: T,
) -> Result<()> {
    fill_through(dst, &instance_space(&exec.memory_space(), dst), value)
}

/// [`fill`] through the memory space handle `space`.
fn fill_through<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    dst: &View<T, R, L, S>,
    space: &S,
    value: T,
) -> Result<()> {
    let held = hold(dst, true, "fill")?;
    let access = Access {
        kind: AccessKind::Copy { op: "fill" },
        write: true,
        label: dst.label(),
    };
    crate::watch::observe(dst.alloc.watch(), access)?;
    if dst.size() == 0 {
        return Ok(());
    }
    if let Some(origin) = host_origin(dst) {
        fill_in_place(dst, origin, value);
        return Ok(());
    }
    if dst.is_contiguous() {
        return fill_by_blocks(dst, space, value, &held);
    }
    write_logical_with(dst, space, &held, |_| value)
}

/// Sets every element of `dst`, a `HostSpace` View whose slot 0 is at `origin`
/// ([`host_origin`]). The caller holds `dst` exclusively.
fn fill_in_place<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    dst: &View<T, R, L, S>,
    origin: *mut T,
    value: T,
) {
    if dst.is_contiguous() {
        // SAFETY: a contiguous View's elements are the `size` slots from `origin`, inside the
        // allocation; the caller's exclusive hold keeps every other access and reference away.
        unsafe { std::slice::from_raw_parts_mut(origin, dst.size()) }.fill(value);
        return;
    }
    let strides = dst.strides;
    for_each_index(&dst.extents, |idx| {
        // SAFETY: an index inside the extents has an offset below the span, inside the
        // allocation; held exclusively as above.
        unsafe { *origin.add(L::offset(idx, &strides)) = value }
    });
}

/// Writes `value` over the span of `dst`, a contiguous View (every slot of its span is an
/// element), one block of host memory at a time. The caller holds `dst` exclusively.
fn fill_by_blocks<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    dst: &View<T, R, L, S>,
    space: &S,
    value: T,
    held: &Hold<'_>,
) -> Result<()> {
    let span = dst.span();
    let block_len = (FILL_BLOCK_BYTES / std::mem::size_of::<T>().max(1)).clamp(1, span);
    let mut block = staging::<T>(dst.label(), block_len)?;
    block.fill(value);
    let mut at = 0;
    while at < span {
        let n = block_len.min(span - at);
        write_span(dst, space, at, &block[..n], held)?;
        at += n;
    }
    Ok(())
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> View<T, R, L, S> {
    /// Sets every element to `value`.
    pub fn fill(&self, value: T) -> Result<()> {
        fill(self, value)
    }

    /// Replaces this handle's allocation by one of `extents`, keeping the elements whose indices
    /// exist in both shapes (new ones are zero). Other handles keep the old allocation, as in Kokkos.
    /// On `Err` (the new allocation or the copy failed, or a host guard or launch holds the View:
    /// `Err(Aliasing)` naming `resize`) this View is left as it was.
    pub fn resize(&mut self, extents: [usize; R]) -> Result<()> {
        let new = View::<T, R, L, S>::new_in(self.memory_space(), self.label(), extents)?;
        // The box of indices both shapes have, copied between subviews: in place between host
        // Views, through one host copy of the box otherwise (never of the whole of either View).
        let common: [Range<usize>; R] = std::array::from_fn(|k| 0..self.extents[k].min(extents[k]));
        let (to, from) = (
            new.subview::<R>(common.clone())?,
            self.subview::<R>(common)?,
        );
        copy_as("resize", &to, &from, to.memory_space(), from.memory_space())?;
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
/// already a host View; a host View of `v`'s own memory when `v`'s memory space keeps it in host
/// memory ([`MemorySpace::host_storage`]: a `DeviceView` of a `Device` standing for serial or
/// rayon), as Kokkos returns the View itself when its memory is host accessible; otherwise a new
/// allocation (contents not copied).
///
/// A mirror of `v`'s own memory shares `v`'s borrow flag: a guard on it and a launch or copy on
/// `v` exclude each other as on one View, and writes through it are seen by `v` without a copy.
/// Portable code still copies with `deep_copy` (a no-op between a View and such a mirror) or
/// [`create_mirror_view_and_copy`], since on a GPU the mirror is a separate allocation.
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
    if let Some(h) = v.host_alias() {
        return Ok(h);
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

/// [`create_mirror_view`] followed by a copy when a new allocation was made (none when the mirror
/// is `v` itself or a host View of `v`'s memory).
pub fn create_mirror_view_and_copy<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
) -> Result<View<T, R, L, HostSpace>> {
    let m = create_mirror_view(v)?;
    if !m.same_elements_as(v) {
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
    // Into host memory, of a View kept in host memory: a host View of that memory, as
    // `create_mirror_view` makes.
    if (&memory as &dyn Any).is::<HostSpace>() {
        if let Some(alias) = v.host_alias() {
            if let Ok(m) = (Box::new(alias) as Box<dyn Any>).downcast::<View<T, R, L, E::Memory>>()
            {
                return Ok(*m);
            }
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
    if !m.same_elements_as(v) {
        deep_copy(&m, v)?;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::eval::EvalMemory;
    use crate::layout::{LayoutLeft, LayoutRight, LayoutStride};
    use crate::profiling::{self, ProfilingHooks};
    use crate::space::check_byte_range;
    use std::cell::{Cell, RefCell};
    use std::sync::Arc;

    /// Device-like memory that stores nothing: its bytes read as zero and writes are only
    /// measured. A View in it may be as large as `isize::MAX` bytes, which no host staging buffer
    /// can be (no address space holds it), so the paths that stage a copy on the host fail for
    /// certain, without using up the machine's memory.
    #[derive(Clone, Debug, Default)]
    struct Phantom;
    struct PhantomBuffer(usize);

    thread_local! {
        /// Bytes of the largest `write_bytes`, and how many there were, on this thread.
        static PHANTOM_WRITES: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    }

    impl MemorySpace for Phantom {
        const NAME: &'static str = "Phantom";
        type Buffer = PhantomBuffer;
        fn allocate(&self, _label: &str, bytes: usize, _align: usize) -> Result<PhantomBuffer> {
            Ok(PhantomBuffer(bytes))
        }
        fn host_ptr(_buffer: &PhantomBuffer) -> Option<std::ptr::NonNull<u8>> {
            None
        }
        unsafe fn read_bytes(
            &self,
            b: &PhantomBuffer,
            offset: usize,
            dst: &mut [u8],
        ) -> Result<()> {
            check_byte_range(b.0, offset, dst.len())?;
            dst.fill(0);
            Ok(())
        }
        unsafe fn write_bytes(&self, b: &PhantomBuffer, offset: usize, src: &[u8]) -> Result<()> {
            check_byte_range(b.0, offset, src.len())?;
            PHANTOM_WRITES.with(|w| {
                let (largest, count) = w.get();
                w.set((largest.max(src.len()), count + 1));
            });
            Ok(())
        }
    }

    /// Elements of `u64` in the largest phantom View: `isize::MAX` bytes, less one element.
    const HUGE: usize = isize::MAX as usize / 8 - 1;

    fn expect_oom(r: Result<()>, label: &str) {
        match r {
            Err(Error::OutOfMemory { label: l, bytes }) => {
                assert_eq!(l, label);
                assert!(bytes > 1 << 60 && bytes < usize::MAX, "{bytes}");
            }
            other => panic!("expected OutOfMemory for `{label}`, got {other:?}"),
        }
    }

    /// A copy whose host staging buffer cannot be had is `Err(OutOfMemory)` naming the View staged,
    /// not an abort, and nothing is written.
    #[test]
    fn staging_failures_are_out_of_memory() {
        PHANTOM_WRITES.with(|w| w.set((0, 0)));
        let a = View::<u64, 1, LayoutRight, Phantom>::new_in(&Phantom, "a", [HUGE]).unwrap();
        let b = View::<u64, 1, LayoutRight, Phantom>::new_in(&Phantom, "b", [HUGE]).unwrap();
        expect_oom(deep_copy(&b, &a), "a");
        // Different layouts: element by element, through the source's span.
        let n = HUGE / 2;
        let r = View::<u64, 2, LayoutRight, Phantom>::new_in(&Phantom, "r", [2, n]).unwrap();
        let l = View::<u64, 2, LayoutLeft, Phantom>::new_in(&Phantom, "l", [2, n]).unwrap();
        expect_oom(deep_copy(&l, &r), "r");
        // A fill of a View with gaps keeps the gaps: it stages the span.
        let gaps = View::<u64, 2, LayoutStride, Phantom>::new_strided_in(
            &Phantom,
            "gaps",
            [2, n - 1],
            [n, 1],
        )
        .unwrap();
        expect_oom(gaps.fill(7), "gaps");
        assert_eq!(PHANTOM_WRITES.with(Cell::get), (0, 0), "nothing written");
    }

    /// A resize whose copy fails leaves the View as it was: same allocation, same extents.
    #[test]
    fn a_failed_resize_changes_nothing() {
        let mut v =
            View::<u64, 1, LayoutRight, Phantom>::new_in(&Phantom, "v", [HUGE / 2]).unwrap();
        let before = v.clone();
        expect_oom(v.resize([HUGE / 2 + 1]), "v");
        assert!(v.shares_allocation_with(&before));
        assert_eq!(v.extents(), [HUGE / 2]);
    }

    /// A resize refused because a host guard holds the View names `resize`, not `deep_copy`, and
    /// leaves the View as it was.
    #[test]
    fn a_blocked_resize_names_itself() {
        let mut v = View::<f64, 2>::from_fn("v", [2, 3], |[i, j]| (10 * i + j) as f64).unwrap();
        let other = v.clone();
        let guard = other.host_mut();
        match v.resize([3, 3]) {
            Err(Error::Aliasing { kernel, .. }) => assert_eq!(kernel, "resize"),
            r => panic!("expected Aliasing, got {r:?}"),
        }
        drop(guard);
        assert!(v.shares_allocation_with(&other));
        assert_eq!(v.extents(), [2, 3]);
    }

    /// Resizing keeps the common box and zeroes the rest, in host memory (in place) and in a
    /// memory host code cannot index (through the host), for both contiguous layouts.
    #[test]
    fn resize_keeps_the_common_box() {
        fn check<L: Layout, S: MemorySpace>(space: &S) {
            let src =
                View::<i64, 2>::from_fn("src", [3, 4], |[i, j]| (10 * i + j + 1) as i64).unwrap();
            let mut v = View::<i64, 2, L, S>::new_in(space, "v", [3, 4]).unwrap();
            deep_copy(&v, &src).unwrap();
            v.resize([4, 2]).unwrap();
            let out = View::<i64, 2>::new("out", [4, 2]).unwrap();
            deep_copy(&out, &v).unwrap();
            assert_eq!(out.to_vec(), vec![1, 2, 11, 12, 21, 22, 0, 0]);
            v.resize([2, 3]).unwrap();
            let out = View::<i64, 2>::new("out", [2, 3]).unwrap();
            deep_copy(&out, &v).unwrap();
            assert_eq!(out.to_vec(), vec![1, 2, 0, 11, 12, 0]);
            v.resize([0, 3]).unwrap();
            assert_eq!(v.extents(), [0, 3]);
        }
        check::<LayoutRight, _>(&HostSpace);
        check::<LayoutLeft, _>(&HostSpace);
        check::<LayoutRight, _>(&EvalMemory);
        check::<LayoutLeft, _>(&EvalMemory);
    }

    /// A fill of memory host code cannot write stages one bounded block, not the whole View.
    #[test]
    fn fill_stages_a_bounded_block() {
        PHANTOM_WRITES.with(|w| w.set((0, 0)));
        let n = 3 * FILL_BLOCK_BYTES / 8 + 5;
        let v = View::<u64, 1, LayoutRight, Phantom>::new_in(&Phantom, "v", [n]).unwrap();
        v.fill(9).unwrap();
        assert_eq!(PHANTOM_WRITES.with(Cell::get), (FILL_BLOCK_BYTES, 4));
    }

    /// Fills write every element and nothing else: contiguous and with gaps, in host memory and
    /// in memory host code cannot index, with Views larger than one block.
    #[test]
    fn fill_writes_exactly_the_elements() {
        fn check<S: MemorySpace>(space: &S) {
            let n = FILL_BLOCK_BYTES / 4 + 3;
            let whole = View::<u32, 1, LayoutRight, S>::new_in(space, "whole", [n]).unwrap();
            whole.fill(5).unwrap();
            let out = View::<u32>::new("out", [n]).unwrap();
            deep_copy(&out, &whole).unwrap();
            assert!(out.to_vec().iter().all(|&x| x == 5));
            let grid = View::<u32, 2, LayoutRight, S>::new_in(space, "grid", [3, 4]).unwrap();
            grid.subview::<2>((0..2, 1..3)).unwrap().fill(7).unwrap();
            let out = View::<u32, 2>::new("out", [3, 4]).unwrap();
            deep_copy(&out, &grid).unwrap();
            assert_eq!(out.to_vec(), [0, 7, 7, 0, 0, 7, 7, 0, 0, 0, 0, 0]);
        }
        check(&HostSpace);
        check(&EvalMemory);
    }

    thread_local! {
        static WATCHED: RefCell<Option<[View<f64>; 2]>> = const { RefCell::new(None) };
        // What the hook found: the source's first element through a guard, and whether it could
        // borrow the destination exclusively.
        static SEEN: Cell<Option<(f64, bool)>> = const { Cell::new(None) };
    }

    struct Watch;
    impl ProfilingHooks for Watch {
        fn deep_copy(&self, _dst: &str, _src: &str, _bytes: usize) {
            WATCHED.with(|w| {
                if let Some([dst, src]) = &*w.borrow() {
                    let first = src
                        .try_host()
                        .map(|g| g.as_slice().map_or(f64::NAN, |s| s[0]));
                    let dst_free = dst.try_host_mut().is_ok();
                    SEEN.with(|c| c.set(Some((first.unwrap_or(f64::NAN), dst_free))));
                }
            });
        }
    }

    /// The profiling hook `deep_copy` calls is user code: it runs before the copy holds its Views,
    /// so it may use them (a guard on either), and the copy then takes and checks its holds
    /// itself: a guard the hook took is gone by then (it used to check, call the hook, then
    /// write, so a guard taken in the hook could coexist with the write; later the hook ran
    /// under the holds, so a hook could not touch the Views at all).
    #[test]
    fn deep_copy_calls_its_hook_before_holding_the_views() {
        let hook: Arc<dyn ProfilingHooks> = Arc::new(Watch);
        profiling::register(hook.clone());
        let dst = View::<f64>::new("dst", [4]).unwrap();
        let src = View::<f64>::from_fn("src", [4], |[i]| 1.0 + i as f64).unwrap();
        WATCHED.with(|w| *w.borrow_mut() = Some([dst.clone(), src.clone()]));
        deep_copy(&dst, &src).unwrap();
        WATCHED.with(|w| *w.borrow_mut() = None);
        assert!(profiling::unregister(&hook));
        assert_eq!(SEEN.with(Cell::get), Some((1.0, true)));
        assert_eq!(dst.to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
        assert!(dst.alloc.flag().writable() && src.alloc.flag().writable());
    }
}
