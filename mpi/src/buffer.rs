//! A View's elements as an MPI buffer, in any memory space.
//!
//! A host View (`HostSpace`) is used in place: the buffer is the View's own memory, addressed
//! through a derived datatype where it is not contiguous ([`crate::datatype`]), and the call
//! holds the View's allocation (shared to send, exclusive to receive) exactly as a host guard
//! does, so no kernel or guard on any clone of it touches the memory meanwhile. A View of any
//! other memory space (wgpu, cuda, a run-time `Device`) goes through its host mirror
//! (`create_mirror_view`): pinned host memory from the space where it has some, filled by
//! `deep_copy` before a send and copied back by `deep_copy` after a receive; `deep_copy` orders
//! itself after the work queued on that space (it fences the space's own queue), so the data
//! sent is what the kernels before the call wrote. Where the View's memory already is host
//! memory (`Device` over a host backend), the mirror is that memory and nothing is copied.

use crate::comm::Communicator;
use crate::datatype::{shape_of, Element, Shape};
use rokkos_core::{
    create_mirror_view, create_mirror_view_and_copy, deep_copy, HostMut, HostRef, HostSpace,
    Layout, MemorySpace, Result, View,
};
use std::ffi::c_void;

enum Guard<T: Element, const R: usize, L: Layout> {
    Shared(#[allow(dead_code)] HostRef<'static, T, R, L, HostSpace>),
    Exclusive(#[allow(dead_code)] HostMut<'static, T, R, L, HostSpace>),
    Released,
}

/// A host View held for an MPI call, with the address and shape MPI gets.
pub(crate) struct Held<T: Element, const R: usize, L: Layout> {
    // Declared before `view`: dropped first, while the View it borrows is still alive.
    guard: Guard<T, R, L>,
    // Boxed: the guard borrows it, so it must not move while the guard lives.
    view: Box<View<T, R, L, HostSpace>>,
    pub(crate) shape: Shape,
    pub(crate) ptr: *mut c_void,
}

impl<T: Element, const R: usize, L: Layout> Held<T, R, L> {
    pub(crate) fn hold(
        comm: &Communicator,
        call: &str,
        view: View<T, R, L, HostSpace>,
        exclusive: bool,
    ) -> Result<Self> {
        let view = Box::new(view);
        let label = view.label().to_string();
        let shape = shape_of::<T>(comm, call, &label, &view.extents(), &view.strides())?;
        // SAFETY (both transmutes): only the lifetime changes. The guard borrows the boxed View,
        // which lives at a fixed address until this struct drops, after the guard (field order);
        // the box is never moved out or replaced while the guard lives.
        let guard = if exclusive {
            let g = view.try_host_mut()?;
            Guard::Exclusive(unsafe {
                std::mem::transmute::<
                    HostMut<'_, T, R, L, HostSpace>,
                    HostMut<'static, T, R, L, HostSpace>,
                >(g)
            })
        } else {
            let g = view.try_host()?;
            Guard::Shared(unsafe {
                std::mem::transmute::<
                    HostRef<'_, T, R, L, HostSpace>,
                    HostRef<'static, T, R, L, HostSpace>,
                >(g)
            })
        };
        let ptr = origin(&view);
        Ok(Held {
            guard,
            view,
            shape,
            ptr,
        })
    }

    /// `view`'s address and shape for MPI to read, without a hold of its own.
    ///
    /// # Safety
    /// The caller holds `view`'s allocation exclusively through another [`Held`] (of a View whose
    /// elements are disjoint from `view`'s, [`disjoint`]) for as long as MPI reads through the
    /// result, so nothing else touches these elements meanwhile.
    pub(crate) unsafe fn unheld(
        comm: &Communicator,
        call: &str,
        view: View<T, R, L, HostSpace>,
    ) -> Result<Self> {
        let view = Box::new(view);
        let shape = shape_of::<T>(comm, call, view.label(), &view.extents(), &view.strides())?;
        let ptr = origin(&view);
        Ok(Held {
            guard: Guard::Released,
            view,
            shape,
            ptr,
        })
    }

    /// Holds `v` (or its host mirror, filled from it) for sending.
    pub(crate) fn send<S: MemorySpace>(
        comm: &Communicator,
        call: &str,
        v: &View<T, R, L, S>,
    ) -> Result<Self> {
        Self::hold(comm, call, create_mirror_view_and_copy(v)?, false)
    }

    /// Holds `v` (or a host mirror of it) for receiving; [`Held::finish`] copies a mirror back.
    pub(crate) fn recv<S: MemorySpace>(
        comm: &Communicator,
        call: &str,
        v: &View<T, R, L, S>,
    ) -> Result<Self> {
        Self::hold(comm, call, create_mirror_view(v)?, true)
    }

    /// Holds a receive mirror made by `create_mirror_view`; [`Held::finish`] copies it back.
    pub(crate) fn recv_mirror(
        comm: &Communicator,
        call: &str,
        mirror: View<T, R, L, HostSpace>,
    ) -> Result<Self> {
        Self::hold(comm, call, mirror, true)
    }

    /// Releases the hold and copies a receive mirror into `dst` (nothing when the mirror is
    /// `dst`'s own memory).
    pub(crate) fn finish<S: MemorySpace>(mut self, dst: &View<T, R, L, S>) -> Result<()> {
        self.guard = Guard::Released;
        // A host View's mirror is the View itself: nothing to copy (nor to report as a copy).
        if (dst as &dyn std::any::Any).is::<View<T, R, L, HostSpace>>() {
            return Ok(());
        }
        deep_copy(dst, &*self.view)
    }
}

impl<T: Element, const R: usize> Held<T, R, rokkos_core::LayoutRight> {
    /// Releases the hold of a private staging buffer and copies it into `dst`, which never is
    /// the buffer's memory (so the copy is always made, whatever `dst`'s type).
    pub(crate) fn unstage<L2: Layout, S2: MemorySpace>(
        mut self,
        dst: &View<T, R, L2, S2>,
    ) -> Result<()> {
        self.guard = Guard::Released;
        deep_copy(dst, &*self.view)
    }
}

/// The address of a host View's element `[0; R]`, with the provenance of its whole allocation
/// (which the derived datatype's offsets stay in).
fn origin<T: Element, const R: usize, L: Layout>(view: &View<T, R, L, HostSpace>) -> *mut c_void {
    let b = view.__binding("rokkos-mpi", false);
    let base = HostSpace::host_ptr(b.buffer)
        .expect("host memory has a host address")
        .as_ptr();
    // SAFETY: the View's offset lies inside its allocation (every View keeps offset + span
    // inside it).
    unsafe { base.add(b.offset * std::mem::size_of::<T>()) as *mut c_void }
}

/// The base address of a host View's allocation: equal for two Views exactly when they are
/// Views of one memory (or both empty).
pub(crate) fn base<T: Element, const R: usize, L: Layout>(
    view: &View<T, R, L, HostSpace>,
) -> usize {
    let b = view.__binding("rokkos-mpi", false);
    HostSpace::host_ptr(b.buffer).map_or(0, |p| p.as_ptr() as usize)
}

/// Whether two Views of one allocation address disjoint elements: `Some(true)` or
/// `Some(false)` when that can be decided exactly, `None` when a View's strides do not nest (a
/// `LayoutStride` View whose dimensions interleave), where the caller must assume an overlap.
/// Walks the smaller View's elements: `O(min(size))`.
pub(crate) fn disjoint<T: Element, const R1: usize, L1: Layout, const R2: usize, L2: Layout>(
    a: &View<T, R1, L1, HostSpace>,
    b: &View<T, R2, L2, HostSpace>,
) -> Option<bool> {
    let oa = a.__binding("rokkos-mpi", false).offset;
    let ob = b.__binding("rokkos-mpi", false).offset;
    let (ea, sa, eb, sb) = (a.extents(), a.strides(), b.extents(), b.strides());
    if a.size() == 0 || b.size() == 0 {
        return Some(true);
    }
    // Walk the smaller, test membership in the larger.
    type Side<'a> = (&'a [usize], &'a [usize], usize);
    let (walk, inside): (Side, Side) = if a.size() <= b.size() {
        ((&ea, &sa, oa), (&eb, &sb, ob))
    } else {
        ((&eb, &sb, ob), (&ea, &sa, oa))
    };
    let ((walk_e, walk_s, walk_o), (in_e, in_s, in_o)) = (walk, inside);
    let mut dims: Vec<(usize, usize)> = in_e
        .iter()
        .zip(in_s)
        .filter(|(&e, _)| e > 1)
        .map(|(&e, &s)| (e, s))
        .collect();
    dims.sort_by_key(|d| std::cmp::Reverse(d.1));
    // Nested: each stride exceeds the furthest reach of the dimensions inside it, so the
    // greedy division below finds the only candidate index.
    let mut reach = 0usize;
    for &(e, s) in dims.iter().rev() {
        if s <= reach {
            return None;
        }
        reach += (e - 1) * s;
    }
    let contains = |x: usize| -> bool {
        let Some(mut rem) = x.checked_sub(in_o) else {
            return false;
        };
        for &(e, s) in &dims {
            let i = rem / s;
            if i >= e {
                return false;
            }
            rem -= i * s;
        }
        rem == 0
    };
    let mut idx = vec![0usize; walk_e.len()];
    loop {
        let off = walk_o + idx.iter().zip(walk_s).map(|(i, s)| i * s).sum::<usize>();
        if contains(off) {
            return Some(false);
        }
        let mut k = walk_e.len();
        loop {
            if k == 0 {
                return Some(true);
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < walk_e[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rokkos_core::{LayoutLeft, LayoutStride};
    use std::collections::HashSet;

    fn offsets<const R: usize, L: Layout>(v: &View<f64, R, L, HostSpace>) -> HashSet<usize> {
        let o = v.__binding("t", false).offset;
        let (e, s) = (v.extents(), v.strides());
        let mut out = HashSet::new();
        let n: usize = e.iter().product();
        for flat in 0..n {
            let mut rem = flat;
            let mut off = o;
            for k in (0..R).rev() {
                off += (rem % e[k]) * s[k];
                rem /= e[k];
            }
            out.insert(off);
        }
        out
    }

    /// `disjoint` against the sets of offsets, over every pair of blocks of a small grid (row
    /// and column ranges, LayoutRight and LayoutLeft parents).
    #[test]
    fn disjoint_matches_brute_force() {
        let a = View::<f64, 2>::new("a", [4, 5]).unwrap();
        let l = View::<f64, 2, LayoutLeft>::new("l", [4, 5])
            .unwrap()
            .to_layout_stride();
        for parent in [a.to_layout_stride(), l] {
            let mut blocks: Vec<View<f64, 2, LayoutStride>> = Vec::new();
            for (i0, i1) in [(0, 1), (1, 3), (0, 4), (3, 4)] {
                for (j0, j1) in [(0, 1), (0, 5), (2, 4), (4, 5), (1, 2)] {
                    blocks.push(parent.subview((i0..i1, j0..j1)).unwrap());
                }
            }
            for x in &blocks {
                for y in &blocks {
                    let want = offsets(x).is_disjoint(&offsets(y));
                    assert_eq!(disjoint(x, y), Some(want), "{x:?} / {y:?}");
                }
            }
        }
    }
}
