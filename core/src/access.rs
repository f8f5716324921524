//! Native accessors: what a View argument becomes inside a kernel's native body.
//!
//! [`ReadAccess`] is handed out for read-only parameters; it can be indexed freely. [`WriteAccess`] is
//! handed out for writable parameters and for scratch memory; its plain loads and stores are
//! `unsafe`, `#[doc(hidden)]` and only emitted by `#[rokkos::kernel]` where the macro has proven
//! that the index is owned by the work item (or the author wrote `unsafe`), while its atomic
//! operations are public. Indexing is bounds checked: an index outside the extents unwinds out of
//! the kernel with a report (`crate::failure`) that the launch returns as `Err(OutOfBounds)`
//! naming the kernel, the View label, the index and the extents.

use crate::atomic::{AtomicBits, AtomicScalar};
use crate::failure::raise_out_of_bounds;
use crate::index::{in_bounds, ViewIndex};
use crate::layout::Layout;
use std::marker::PhantomData;

/// The failed bounds check of an accessor, out of line and with the index by value, so that the
/// inlined check leaves the index in registers.
#[cold]
#[inline(never)]
fn out_of_bounds<const R: usize>(
    kernel: &'static str,
    view: &str,
    idx: [usize; R],
    extents: [usize; R],
) -> ! {
    raise_out_of_bounds(kernel, view, &idx, &extents)
}

macro_rules! common_accessor_methods {
    () => {
        /// Extent of dimension `k` (0 past the rank).
        #[inline(always)]
        pub fn extent(&self, k: usize) -> usize {
            if k < R {
                self.extents[k]
            } else {
                0
            }
        }
        /// Number of elements.
        #[inline(always)]
        pub fn size(&self) -> usize {
            self.extents.iter().product()
        }
        /// The View's label.
        pub fn label(&self) -> &str {
            self.label
        }
        #[inline(always)]
        fn offset_checked(&self, idx: &[usize; R]) -> usize {
            if !in_bounds(idx, &self.extents) {
                // By value: a reference would keep the index in memory on the hot path too.
                out_of_bounds(self.kernel, self.label, *idx, self.extents);
            }
            L::offset(idx, &self.strides)
        }
    };
}

/// Read-only access to a View inside a kernel.
pub struct ReadAccess<'a, T, const R: usize, L: Layout> {
    ptr: *const T,
    extents: [usize; R],
    strides: [usize; R],
    label: &'a str,
    kernel: &'static str,
    _p: PhantomData<(&'a T, L)>,
}

impl<T, const R: usize, L: Layout> Clone for ReadAccess<'_, T, R, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize, L: Layout> Copy for ReadAccess<'_, T, R, L> {}

// SAFETY: no one writes the memory during the launch: the launch checks reject any writable
// argument overlapping this one, and the launch holds the allocation (shared) until it returns,
// so no host guard can write it meanwhile.
unsafe impl<T: Sync, const R: usize, L: Layout> Sync for ReadAccess<'_, T, R, L> {}
unsafe impl<T: Sync, const R: usize, L: Layout> Send for ReadAccess<'_, T, R, L> {}

impl<'a, T: Copy, const R: usize, L: Layout> ReadAccess<'a, T, R, L> {
    /// # Safety
    /// `ptr` with `extents`/`strides` must address live memory of `T` that nobody writes while the
    /// accessor exists.
    #[doc(hidden)]
    pub unsafe fn new(
        ptr: *const T,
        extents: [usize; R],
        strides: [usize; R],
        label: &'a str,
        kernel: &'static str,
    ) -> Self {
        ReadAccess {
            ptr,
            extents,
            strides,
            label,
            kernel,
            _p: PhantomData,
        }
    }
    common_accessor_methods!();
}

impl<T: Copy, const R: usize, L: Layout> ReadAccess<'_, T, R, L> {
    /// Load without a bounds check. Emitted by `#[rokkos::kernel]` only in the body variant that
    /// host runners call after checking a whole chunk or tile once (`ForBody::__in_bounds`).
    ///
    /// # Safety
    /// `i` must be in bounds (`i[k] < extent(k)` for every `k`).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __get_unchecked<I: ViewIndex<R>>(&self, i: I) -> T {
        // SAFETY: in bounds (the caller's promise), so inside the View's memory; see `new`.
        unsafe { *self.ptr.add(L::offset(&i.to_array(), &self.strides)) }
    }
}

impl<T: Copy, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    /// Load without a bounds check; see [`ReadAccess::__get_unchecked`].
    ///
    /// # Safety
    /// `i` must be in bounds, and owned by the calling work item (owner-computes) or read while
    /// no other work item writes it.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __load_unchecked<I: ViewIndex<R>>(&self, i: I) -> T {
        // SAFETY: in bounds and race-free (the caller's promise).
        unsafe { *self.ptr.add(L::offset(&i.to_array(), &self.strides)) }
    }
    /// Store without a bounds check; see [`ReadAccess::__get_unchecked`].
    ///
    /// # Safety
    /// `i` must be in bounds and no other work item may access that element concurrently.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __store_unchecked<I: ViewIndex<R>>(&self, i: I, v: T) {
        // SAFETY: in bounds and race-free (the caller's promise).
        unsafe { *self.ptr.add(L::offset(&i.to_array(), &self.strides)) = v }
    }
}

impl<T: Copy, const R: usize, L: Layout, I: ViewIndex<R>> std::ops::Index<I>
    for ReadAccess<'_, T, R, L>
{
    type Output = T;
    #[inline(always)]
    fn index(&self, i: I) -> &T {
        let off = self.offset_checked(&i.to_array());
        // SAFETY: offset in bounds of the View; see `new`.
        unsafe { &*self.ptr.add(off) }
    }
}

/// Writable access to a View (or scratch memory) inside a kernel.
pub struct WriteAccess<'a, T, const R: usize, L: Layout> {
    ptr: *mut T,
    extents: [usize; R],
    strides: [usize; R],
    label: &'a str,
    kernel: &'static str,
    _p: PhantomData<(&'a T, L)>,
}

impl<T, const R: usize, L: Layout> Clone for WriteAccess<'_, T, R, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize, L: Layout> Copy for WriteAccess<'_, T, R, L> {}

// SAFETY: concurrent work items only touch disjoint elements through plain loads and stores (the
// macro's owner-computes rule; `unsafe` blocks carry the author's promise) and otherwise use atomics.
unsafe impl<T: Send, const R: usize, L: Layout> Sync for WriteAccess<'_, T, R, L> {}
unsafe impl<T: Send, const R: usize, L: Layout> Send for WriteAccess<'_, T, R, L> {}

impl<'a, T: Copy, const R: usize, L: Layout> WriteAccess<'a, T, R, L> {
    /// # Safety
    /// `ptr` with `extents`/`strides` must address live, exclusively lent memory of `T`, and the
    /// strides must be injective (distinct indices, distinct elements).
    #[doc(hidden)]
    pub unsafe fn new(
        ptr: *mut T,
        extents: [usize; R],
        strides: [usize; R],
        label: &'a str,
        kernel: &'static str,
    ) -> Self {
        WriteAccess {
            ptr,
            extents,
            strides,
            label,
            kernel,
            _p: PhantomData,
        }
    }
    common_accessor_methods!();

    /// Plain (non-atomic) load, bounds checked. Emitted by `#[rokkos::kernel]` only for indices
    /// owned by the work item, or inside the author's `unsafe { }`.
    ///
    /// # Safety
    /// No other thread writes the element meanwhile (owner computes).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __load<I: ViewIndex<R>>(&self, i: I) -> T {
        let off = self.offset_checked(&i.to_array());
        // SAFETY: in bounds; no concurrent writer (the caller's contract).
        unsafe { *self.ptr.add(off) }
    }
    /// Plain (non-atomic) store, bounds checked. Emitted by `#[rokkos::kernel]` only for indices
    /// owned by the work item, or inside the author's `unsafe { }`.
    ///
    /// # Safety
    /// No other thread reads or writes the element meanwhile (owner computes).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __store<I: ViewIndex<R>>(&self, i: I, v: T) {
        let off = self.offset_checked(&i.to_array());
        // SAFETY: in bounds; no concurrent access (the caller's contract).
        unsafe { *self.ptr.add(off) = v }
    }
    #[inline(always)]
    fn elem(&self, i: [usize; R]) -> *mut T {
        let off = self.offset_checked(&i);
        // SAFETY: in bounds.
        unsafe { self.ptr.add(off) }
    }
}

macro_rules! atomic_methods {
    ($( $(#[$m:meta])* $name:ident / $fetch:ident => $op:ident ),* $(,)?) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name<I: ViewIndex<R>>(&self, i: I, v: T) {
            // SAFETY: element in bounds and aligned; every concurrent access to it is atomic.
            unsafe { T::$op(self.elem(i.to_array()), v); }
        }
        $(#[$m])*
        /// Returns the previous value.
        #[inline(always)]
        pub fn $fetch<I: ViewIndex<R>>(&self, i: I, v: T) -> T {
            // SAFETY: as above.
            unsafe { T::$op(self.elem(i.to_array()), v) }
        }
    )*};
}

impl<T: AtomicScalar, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    atomic_methods!(
        /// Atomically adds `v` to the element.
        atomic_add / atomic_fetch_add => fetch_add,
        /// Atomically subtracts `v` from the element.
        atomic_sub / atomic_fetch_sub => fetch_sub,
        /// Atomically replaces the element by the minimum of it and `v`.
        atomic_min / atomic_fetch_min => fetch_min,
        /// Atomically replaces the element by the maximum of it and `v`.
        atomic_max / atomic_fetch_max => fetch_max,
    );
    /// Atomically reads the element.
    #[inline(always)]
    pub fn atomic_load<I: ViewIndex<R>>(&self, i: I) -> T {
        // SAFETY: as above.
        unsafe { T::load(self.elem(i.to_array())) }
    }
    /// Atomically writes the element.
    #[inline(always)]
    pub fn atomic_store<I: ViewIndex<R>>(&self, i: I, v: T) {
        // SAFETY: as above.
        unsafe { T::store(self.elem(i.to_array()), v) }
    }
    /// Atomically swaps in `v`, returning the previous value.
    #[inline(always)]
    pub fn atomic_exchange<I: ViewIndex<R>>(&self, i: I, v: T) -> T {
        // SAFETY: as above.
        unsafe { T::swap(self.elem(i.to_array()), v) }
    }
    /// Atomically stores `new` if the element equals `expected` (bitwise); returns the previous value
    /// (equal to `expected` when the exchange happened), as Kokkos' `atomic_compare_exchange`.
    #[inline(always)]
    pub fn atomic_compare_exchange<I: ViewIndex<R>>(&self, i: I, expected: T, new: T) -> T {
        // SAFETY: as above.
        unsafe { T::compare_exchange(self.elem(i.to_array()), expected, new) }
    }
}

impl<T: AtomicBits, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    atomic_methods!(
        /// Atomically ANDs `v` into the element.
        atomic_and / atomic_fetch_and => fetch_and,
        /// Atomically ORs `v` into the element.
        atomic_or / atomic_fetch_or => fetch_or,
        /// Atomically XORs `v` into the element.
        atomic_xor / atomic_fetch_xor => fetch_xor,
    );
}
