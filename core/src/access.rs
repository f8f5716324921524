//! Native accessors: what a View argument becomes inside a kernel's native body.
//!
//! [`ReadAccess`] is handed out for read-only parameters; it can be indexed freely. [`WriteAccess`] is
//! handed out for writable parameters and for scratch memory; its plain loads and stores are
//! `unsafe`, `#[doc(hidden)]` and only emitted by `#[rokkos::kernel]` where the macro has proven
//! that the index is owned by the work item (or the author wrote `unsafe`), while its atomic
//! operations are public. Indexing is bounds checked: an index outside the extents unwinds out of
//! the kernel with a report (`crate::failure`) that the launch returns as `Err(OutOfBounds)`
//! naming the kernel, the View label, the index and the extents.
//!
//! A backend that runs a launch's work items one at a time on the calling thread (serial) binds
//! the body through [`crate::Launch::sequential`]: its write accessors then do the atomic
//! read-modify-writes (`atomic_add`, ...) as a plain read and write, with the same result. No
//! other work item can run between the two, and no other thread can touch the element: the
//! launch holds every writable allocation exclusively until it returns (`crate::launch`), so
//! host guards, copies and launches on other threads are refused meanwhile. On x86 a `lock`ed
//! instruction is a full barrier that also keeps the loads of later work items from starting
//! early; a serial launch has no one to order against.

use crate::atomic::{AtomicBits, AtomicScalar, AtomicUnsigned};
use crate::failure::raise_out_of_bounds;
use crate::index::{in_bounds, ViewIndex};
use crate::ir::AtomicOp;
use crate::layout::Layout;
use std::cell::Cell;
use std::marker::PhantomData;

thread_local! {
    /// True while this thread binds the body of a launch whose work items all run on it, one at
    /// a time ([`crate::Launch::sequential`]): write accessors made meanwhile use plain
    /// read-modify-writes for their atomics.
    static SEQUENTIAL_BIND: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is binding the body of a sequential launch (see [`SEQUENTIAL_BIND`]).
pub(crate) fn sequential_bind() -> bool {
    SEQUENTIAL_BIND.with(Cell::get)
}

/// Runs `bind` with [`SEQUENTIAL_BIND`] set, restoring its previous value afterwards (also when
/// `bind` unwinds).
///
/// # Safety
/// Every write accessor made while `bind` runs, and every copy of one, must be used on this
/// thread only, by one work item at a time, while nothing else accesses its memory.
pub(crate) unsafe fn bind_sequential<B>(bind: impl FnOnce() -> B) -> B {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SEQUENTIAL_BIND.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(SEQUENTIAL_BIND.with(|c| c.replace(true)));
    bind()
}

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
    /// Made for a launch that runs its work items one at a time on one thread (see the module
    /// documentation): atomics are plain read-modify-writes.
    sequential: bool,
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
    /// strides must be injective (distinct indices, distinct elements). Made while a sequential
    /// launch binds its body ([`crate::Launch::sequential`]), the accessor must also keep that
    /// method's promise: used on this thread only, by one work item at a time.
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
            sequential: SEQUENTIAL_BIND.with(Cell::get),
            _p: PhantomData,
        }
    }
    common_accessor_methods!();

    /// The address of element `[0; R]` (for the scatter accessor, `crate::scatter`).
    pub(crate) fn ptr(&self) -> *mut T {
        self.ptr
    }

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

impl<T: AtomicScalar, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    /// The read-modify-write `op` with operand `v` at `i`, returning the old value: `atomic` on
    /// the element's address, or, in a sequential launch, a plain read and write storing what
    /// `atomic` would.
    #[inline(always)]
    fn rmw(&self, i: [usize; R], op: AtomicOp, v: T, atomic: impl FnOnce(*mut T) -> T) -> T {
        let p = self.elem(i);
        if self.sequential && T::__plain_ok(op, v) {
            // SAFETY: in bounds and aligned; the launch runs one work item at a time on this
            // thread and holds the allocation exclusively, so nothing else touches the element
            // between the read and the write (see the module documentation).
            unsafe {
                let old = p.read();
                p.write(T::__stored(op, old, v));
                old
            }
        } else {
            atomic(p)
        }
    }
    /// [`WriteAccess::rmw`] for the operand-less operations (`inc`, `dec`).
    #[inline(always)]
    fn rmw_no_operand(&self, i: [usize; R], op: AtomicOp, atomic: impl FnOnce(*mut T) -> T) -> T {
        let p = self.elem(i);
        if self.sequential {
            // SAFETY: as in `rmw`.
            unsafe {
                let old = p.read();
                p.write(T::__stored(op, old, old));
                old
            }
        } else {
            atomic(p)
        }
    }
}

macro_rules! atomic_methods {
    ($( $(#[$m:meta])* $name:ident / $fetch:ident / $op_fetch:ident => $op:ident, $v:ident ),* $(,)?) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name<I: ViewIndex<R>>(&self, i: I, v: T) {
            self.$fetch(i, v);
        }
        $(#[$m])*
        /// Returns the previous value.
        #[inline(always)]
        pub fn $fetch<I: ViewIndex<R>>(&self, i: I, v: T) -> T {
            // SAFETY: element in bounds and aligned; every concurrent access to it is atomic.
            self.rmw(i.to_array(), AtomicOp::$v, v, |p| unsafe { T::$op(p, v) })
        }
        $(#[$m])*
        /// Returns the new value (the one stored; Kokkos' `atomic_<op>_fetch`).
        #[inline(always)]
        pub fn $op_fetch<I: ViewIndex<R>>(&self, i: I, v: T) -> T {
            let old = self.$fetch(i, v);
            T::__stored(AtomicOp::$v, old, v)
        }
    )*};
}

/// The operand-less atomics (`inc`, `dec`): as [`atomic_methods`] without the value.
macro_rules! atomic_methods_no_operand {
    ($( $(#[$m:meta])* $name:ident / $fetch:ident / $op_fetch:ident => $op:ident, $v:ident ),* $(,)?) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name<I: ViewIndex<R>>(&self, i: I) {
            self.$fetch(i);
        }
        $(#[$m])*
        /// Returns the previous value.
        #[inline(always)]
        pub fn $fetch<I: ViewIndex<R>>(&self, i: I) -> T {
            // SAFETY: element in bounds and aligned; every concurrent access to it is atomic.
            self.rmw_no_operand(i.to_array(), AtomicOp::$v, |p| unsafe { T::$op(p) })
        }
        $(#[$m])*
        /// Returns the new value (the one stored; Kokkos' `atomic_<op>_fetch`).
        #[inline(always)]
        pub fn $op_fetch<I: ViewIndex<R>>(&self, i: I) -> T {
            let old = self.$fetch(i);
            T::__stored(AtomicOp::$v, old, old)
        }
    )*};
}

impl<T: AtomicScalar, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    atomic_methods!(
        /// Atomically adds `v` to the element (wrapping for integers).
        atomic_add / atomic_fetch_add / atomic_add_fetch => fetch_add, Add,
        /// Atomically subtracts `v` from the element (wrapping for integers).
        atomic_sub / atomic_fetch_sub / atomic_sub_fetch => fetch_sub, Sub,
        /// Atomically replaces the element by the minimum of it and `v`.
        atomic_min / atomic_fetch_min / atomic_min_fetch => fetch_min, Min,
        /// Atomically replaces the element by the maximum of it and `v`.
        atomic_max / atomic_fetch_max / atomic_max_fetch => fetch_max, Max,
        /// Atomically multiplies the element by `v` (wrapping for integers).
        ///
        /// ```
        /// # use rokkos_core::{LayoutRight, WriteAccess};
        /// # let mut data = [3i32];
        /// # // SAFETY: one live element, used by nothing else.
        /// # let c = unsafe {
        /// #     WriteAccess::<i32, 1, LayoutRight>::new(data.as_mut_ptr(), [1], [1], "c", "doc")
        /// # };
        /// // In a kernel, `c` is a `ViewMut<i32>` holding `[3]`.
        /// assert_eq!(c.atomic_fetch_mul(0, -2), 3);
        /// assert_eq!(c.atomic_mul_fetch(0, 5), -30);
        /// c.atomic_mul(0, 0);
        /// assert_eq!(c.atomic_load(0), 0);
        /// ```
        atomic_mul / atomic_fetch_mul / atomic_mul_fetch => fetch_mul, Mul,
        /// Atomically divides the element by `v` (integers: truncating; `MIN / -1` wraps to
        /// `MIN`). An integer `v` of 0 fails the work item (`attempt to divide by zero`, reported
        /// as `Err(KernelFailed)`, as a plain `/` does) and leaves the element as it is.
        atomic_div / atomic_fetch_div / atomic_div_fetch => fetch_div, Div,
    );
    atomic_methods_no_operand!(
        /// Atomically adds 1 to the element (wrapping for integers).
        atomic_inc / atomic_fetch_inc / atomic_inc_fetch => fetch_inc, Inc,
        /// Atomically subtracts 1 from the element (wrapping for integers).
        atomic_dec / atomic_fetch_dec / atomic_dec_fetch => fetch_dec, Dec,
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
        atomic_and / atomic_fetch_and / atomic_and_fetch => fetch_and, And,
        /// Atomically ORs `v` into the element.
        atomic_or / atomic_fetch_or / atomic_or_fetch => fetch_or, Or,
        /// Atomically XORs `v` into the element.
        atomic_xor / atomic_fetch_xor / atomic_xor_fetch => fetch_xor, Xor,
        /// Atomically replaces the element by `!(element & v)`.
        atomic_nand / atomic_fetch_nand / atomic_nand_fetch => fetch_nand, Nand,
        /// Atomically replaces the element by its remainder modulo `v` (the sign of the
        /// element; `MIN % -1` is 0). A `v` of 0 fails the work item (`attempt to calculate the
        /// remainder with a divisor of zero`, as a plain `%` does) and leaves the element as it is.
        atomic_mod / atomic_fetch_mod / atomic_mod_fetch => fetch_mod, Mod,
        /// Atomically shifts the element left by `v`, the amount masked to the width (as
        /// `wrapping_shl`).
        atomic_lshift / atomic_fetch_lshift / atomic_lshift_fetch => fetch_lshift, Lshift,
        /// Atomically shifts the element right by `v` (arithmetic for signed types), the amount
        /// masked to the width (as `wrapping_shr`).
        atomic_rshift / atomic_fetch_rshift / atomic_rshift_fetch => fetch_rshift, Rshift,
    );
}

impl<T: AtomicUnsigned, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    atomic_methods!(
        /// Atomically increments the element modulo `v + 1`: `0` if it is `>= v`, else the
        /// element plus 1 (Kokkos' `atomic_inc_mod`).
        ///
        /// ```
        /// # use rokkos_core::{LayoutRight, WriteAccess};
        /// # let mut data = [0u32];
        /// # // SAFETY: one live element, used by nothing else.
        /// # let c = unsafe {
        /// #     WriteAccess::<u32, 1, LayoutRight>::new(data.as_mut_ptr(), [1], [1], "c", "doc")
        /// # };
        /// // In a kernel, `c` is a `ViewMut<u32>` holding `[0]`: a counter cycling through 0..=2.
        /// let seen: Vec<u32> = (0..5).map(|_| c.atomic_fetch_inc_mod(0, 2)).collect();
        /// assert_eq!(seen, [0, 1, 2, 0, 1]);
        /// assert_eq!(c.atomic_dec_mod_fetch(0, 2), 1);
        /// assert_eq!(c.atomic_dec_mod_fetch(0, 2), 0);
        /// assert_eq!(c.atomic_dec_mod_fetch(0, 2), 2);
        /// ```
        atomic_inc_mod / atomic_fetch_inc_mod / atomic_inc_mod_fetch => fetch_inc_mod, IncMod,
        /// Atomically decrements the element modulo `v + 1`: `v` if it is 0 or `> v`, else the
        /// element minus 1 (Kokkos' `atomic_dec_mod`).
        atomic_dec_mod / atomic_fetch_dec_mod / atomic_dec_mod_fetch => fetch_dec_mod, DecMod,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::LayoutRight;
    use proptest::prelude::*;

    /// Two rank-1 accessors over `a` and `b`: the first made as a sequential launch binds its
    /// body (plain read-modify-writes), the second as any other launch does (atomics).
    fn pair<'a, T: Copy>(
        a: &'a mut [T],
        b: &'a mut [T],
    ) -> (
        WriteAccess<'a, T, 1, LayoutRight>,
        WriteAccess<'a, T, 1, LayoutRight>,
    ) {
        // SAFETY: each slice is live and used only through its accessor, on this thread, one
        // access at a time.
        let plain = unsafe {
            bind_sequential(|| WriteAccess::new(a.as_mut_ptr(), [a.len()], [1], "a", "test"))
        };
        // SAFETY: as above.
        let atomic = unsafe { WriteAccess::new(b.as_mut_ptr(), [b.len()], [1], "b", "test") };
        (plain, atomic)
    }

    #[test]
    fn only_accessors_bound_sequentially_are_sequential() {
        let (mut a, mut b) = ([0.0f64; 2], [0.0f64; 2]);
        let (plain, atomic) = pair(&mut a, &mut b);
        assert!(plain.sequential && !atomic.sequential);
        // The flag is restored once the binding returns, also after it unwound.
        assert!(!SEQUENTIAL_BIND.with(Cell::get));
        let unwound = std::panic::catch_unwind(|| {
            // SAFETY: nothing is made here.
            unsafe { bind_sequential(|| panic!("binding failed")) }
        });
        assert!(unwound.is_err());
        assert!(!SEQUENTIAL_BIND.with(Cell::get));
    }

    proptest! {
        /// Every read-modify-write stores and returns the same thing whether it is done as a
        /// plain read and write (sequential launches) or atomically.
        #[test]
        fn plain_and_atomic_updates_agree(
            init in proptest::collection::vec(any::<i64>(), 1..6),
            ops in proptest::collection::vec((0usize..6, 0u8..16, -3i64..40), 1..40),
        ) {
            let n = init.len();
            let (mut ia, mut ib) = (init.clone(), init.clone());
            let (mut fa, mut fb): (Vec<f64>, Vec<f64>) =
                (init.iter().map(|&x| x as f64 * 0.25).collect(), vec![0.0; n]);
            fb.copy_from_slice(&fa);
            let (ip, iq) = pair(&mut ia, &mut ib);
            let (fp, fq) = pair(&mut fa, &mut fb);
            for &(i, op, v) in &ops {
                let i = i % n;
                let x = v as f64 * 0.5;
                let got = |a: &WriteAccess<'_, i64, 1, LayoutRight>| match op {
                    0 => a.atomic_fetch_add(i, v),
                    1 => a.atomic_fetch_sub(i, v),
                    2 => a.atomic_fetch_mul(i, v),
                    3 => a.atomic_fetch_min(i, v),
                    4 => a.atomic_fetch_max(i, v),
                    5 => a.atomic_fetch_and(i, v),
                    6 => a.atomic_fetch_or(i, v),
                    7 => a.atomic_fetch_xor(i, v),
                    8 => a.atomic_fetch_nand(i, v),
                    9 => a.atomic_fetch_lshift(i, v),
                    10 => a.atomic_fetch_rshift(i, v),
                    11 => a.atomic_fetch_inc(i),
                    12 => a.atomic_fetch_dec(i),
                    13 => a.atomic_add_fetch(i, v),
                    14 if v != 0 => a.atomic_fetch_div(i, v),
                    _ if v != 0 => a.atomic_fetch_mod(i, v),
                    _ => a.atomic_load(i),
                };
                prop_assert_eq!(got(&ip), got(&iq));
                let gotf = |a: &WriteAccess<'_, f64, 1, LayoutRight>| match op % 8 {
                    0 => a.atomic_fetch_add(i, x),
                    1 => a.atomic_fetch_sub(i, x),
                    2 => a.atomic_fetch_mul(i, x),
                    3 => a.atomic_fetch_min(i, x),
                    4 => a.atomic_fetch_max(i, x),
                    5 => a.atomic_fetch_div(i, x),
                    6 => a.atomic_fetch_inc(i),
                    _ => a.atomic_sub_fetch(i, x),
                };
                prop_assert_eq!(gotf(&fp).to_bits(), gotf(&fq).to_bits());
            }
            let (iseen, fseen) = ((0..n).map(|i| ip.atomic_load(i)).collect::<Vec<_>>(),
                (0..n).map(|i| fp.atomic_load(i).to_bits()).collect::<Vec<_>>());
            prop_assert_eq!(iseen, (0..n).map(|i| iq.atomic_load(i)).collect::<Vec<_>>());
            prop_assert_eq!(fseen, (0..n).map(|i| fq.atomic_load(i).to_bits()).collect::<Vec<_>>());
        }
    }

    /// An integer div / mod by zero fails before touching the element in a sequential launch
    /// too (the plain path is not taken for it).
    #[test]
    fn plain_updates_keep_the_zero_divisor_failure() {
        let (mut a, mut b) = ([7i32], [7i32]);
        let (plain, _) = pair(&mut a, &mut b);
        for op in [0, 1] {
            let failed = std::panic::catch_unwind(|| {
                if op == 0 {
                    plain.atomic_div(0, 0)
                } else {
                    plain.atomic_mod(0, 0)
                }
            });
            let msg = failed.expect_err("a zero divisor fails");
            let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains("zero"), "{msg}");
        }
        assert_eq!(plain.atomic_load(0), 7);
    }
}
