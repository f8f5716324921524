//! [`InjectiveView`]: a read-only rank-1 index View whose entries are checked pairwise distinct
//! and non-negative when it is made, and that nothing can write afterwards.
//!
//! `#[kernel]` accepts a write at `out[(idx[i] as usize, ..)]`, with `i` a work index (or the
//! league rank), without `unsafe`: distinct work items give distinct `i`, an injective `idx`
//! maps them to distinct entries, and `as usize` of a non-negative `i32` / `u32` keeps them
//! distinct, so no two work items reach the same element (see the macro's documentation for the
//! exact rule). That argument needs the entries to stay distinct for as long as the View lives:
//! the constructor copies the values into an allocation of its own that no other View shares,
//! and the type hands out no `View` of it, so no kernel can be given it as a `ViewMut` and no
//! host guard can write it.

use crate::access::ReadAccess;
use crate::ir::build::IrScalar;
use crate::kernel::{ViewArg, ViewBinding};
use crate::layout::LayoutRight;
use crate::space::{HostSpace, MemorySpace};
use crate::{deep_copy, Error, Pod, Result, View};

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
}

/// The element types of an [`InjectiveView`]: `i32` and `u32`.
///
/// Only 32-bit integers, so that `idx[i] as usize` is the same injective map on every backend:
/// a non-negative 32-bit value converts to `usize` (and to a GPU's 32-bit index) unchanged,
/// where a 64-bit one could be truncated to collide with another entry.
pub trait IndexElem: Pod + IrScalar + sealed::Sealed + Ord + std::fmt::Display {
    /// The entry as an index, `None` when it is negative.
    fn as_index(self) -> Option<usize>;
}

impl IndexElem for i32 {
    fn as_index(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

impl IndexElem for u32 {
    fn as_index(self) -> Option<usize> {
        usize::try_from(self).ok()
    }
}

/// A read-only rank-1 View in memory space `M` whose entries are non-negative and pairwise
/// distinct: an injective map from `0..len()` to indices. Kernels take it as an `InjectiveView<T>`
/// parameter and may write other Views at `v[idx[i] as usize]` (see the module documentation).
///
/// The name says the property that makes such writes race-free; it is a View because kernels
/// index it like one, and it only ever reads.
pub struct InjectiveView<T: IndexElem, M: MemorySpace = HostSpace> {
    view: View<T, 1, LayoutRight, M>,
    /// One past the largest entry (0 when empty).
    bound: usize,
}

impl<T: IndexElem> InjectiveView<T, HostSpace> {
    /// Checks `values` and copies them into a new host View; see [`InjectiveView::new_in`].
    pub fn new(label: &str, values: &[T]) -> Result<Self> {
        Self::new_in(&HostSpace, label, values)
    }
}

impl<T: IndexElem, M: MemorySpace> InjectiveView<T, M> {
    /// Checks that `values` are non-negative and pairwise distinct and copies them into a new
    /// View in `space` that only this value holds. `Err(InvalidArgument)` names a negative entry
    /// or the first repeated value (the smallest one) and two positions holding it.
    pub fn new_in(space: &M, label: &str, values: &[T]) -> Result<Self> {
        let bound = check(label, values)?;
        let host = View::<T, 1>::from_vec(label, [values.len()], values.to_vec())?;
        let view = View::new_in(space, label, [values.len()])?;
        deep_copy(&view, &host)?;
        Ok(InjectiveView { view, bound })
    }

    /// [`InjectiveView::new_in`] in the memory of execution space `space`.
    pub fn new_on<E: crate::ExecutionSpace<Memory = M>>(
        space: &E,
        label: &str,
        values: &[T],
    ) -> Result<Self> {
        Self::new_in(&space.memory_space(), label, values)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.view.extent(0)
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The extent of dimension `k` (`len()` for 0, else 0), as for a View.
    pub fn extent(&self, k: usize) -> usize {
        self.view.extent(k)
    }

    /// One past the largest entry (0 when empty): a View indexed through this map needs at least
    /// this extent there.
    pub fn bound(&self) -> usize {
        self.bound
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.view.label()
    }

    /// The entries, copied to the host.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let host = View::<T, 1>::new(self.label(), [self.len()])?;
        deep_copy(&host, &self.view)?;
        Ok(host.to_vec())
    }

    /// Describes the View as a read-only kernel argument (used by `#[rokkos::kernel]`): the
    /// launch holds its borrow shared, like any read-only View.
    #[doc(hidden)]
    pub fn __kernel_arg(&self, param: &'static str) -> ViewArg<'_> {
        self.view.__kernel_arg(param, false)
    }

    /// The View as a device backend binds it, read-only (used by `#[rokkos::kernel]`).
    #[doc(hidden)]
    pub fn __binding(&self, param: &'static str) -> ViewBinding<'_, M> {
        self.view.__binding(param, false)
    }

    /// Read accessor for a kernel's native body.
    ///
    /// # Safety
    /// As for [`View::__read_access`].
    #[doc(hidden)]
    pub unsafe fn __read_access(&self, kernel: &'static str) -> ReadAccess<'_, T, 1, LayoutRight> {
        // SAFETY: forwarded to the caller; nothing writes this View (no `View` of it escapes).
        unsafe { self.view.__read_access(kernel) }
    }
}

impl<T: IndexElem, M: MemorySpace> std::fmt::Debug for InjectiveView<T, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InjectiveView")
            .field("label", &self.label())
            .field("len", &self.len())
            .field("bound", &self.bound)
            .finish()
    }
}

/// One past the largest of `values`, or `Err` naming a negative or repeated one.
fn check<T: IndexElem>(label: &str, values: &[T]) -> Result<usize> {
    let mut sorted: Vec<(T, usize)> = values.iter().copied().zip(0..).collect();
    sorted.sort_unstable();
    if let Some(&(v, at)) = sorted.first().filter(|(v, _)| v.as_index().is_none()) {
        return Err(Error::InvalidArgument(format!(
            "InjectiveView `{label}`: entry {at} is {v}, negative: an index map needs \
             non-negative entries"
        )));
    }
    if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        let (a, b) = (w[0].1.min(w[1].1), w[0].1.max(w[1].1));
        return Err(Error::InvalidArgument(format!(
            "InjectiveView `{label}`: value {} appears twice (entries {a} and {b}): an index \
             map must be injective, no two entries equal",
            w[0].0
        )));
    }
    Ok(sorted
        .last()
        .and_then(|(v, _)| v.as_index())
        .map_or(0, |m| m + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg<T: std::fmt::Debug>(r: Result<T>) -> String {
        match r {
            Err(Error::InvalidArgument(m)) => m,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn accepts_injections_and_keeps_them() {
        let v = InjectiveView::new("rows", &[4i32, 0, 2]).unwrap();
        assert_eq!(v.to_vec().unwrap(), vec![4, 0, 2]);
        assert_eq!((v.len(), v.bound(), v.extent(0)), (3, 5, 3));
        let e = InjectiveView::<u32>::new("none", &[]).unwrap();
        assert!(e.is_empty());
        assert_eq!(e.bound(), 0);
        let u = InjectiveView::new("u", &[u32::MAX, 0]).unwrap();
        assert_eq!(u.bound(), u32::MAX as usize + 1);
    }

    #[test]
    fn refuses_repeats_and_negatives() {
        let m = msg(InjectiveView::new("rows", &[3i32, 7, 1, 7, 3]));
        assert!(m.contains("value 3 appears twice (entries 0 and 4)"), "{m}");
        let m = msg(InjectiveView::new("rows", &[3u32, 5, 5]));
        assert!(m.contains("value 5 appears twice (entries 1 and 2)"), "{m}");
        let m = msg(InjectiveView::new("rows", &[0i32, -2, 1]));
        assert!(m.contains("entry 1 is -2, negative"), "{m}");
    }
}
