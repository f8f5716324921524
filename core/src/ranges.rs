//! [`DisjointRanges`]: a read-only list of inclusive index ranges `first..=last`, checked
//! non-empty, non-negative and pairwise disjoint when it is made, that nothing can write
//! afterwards.
//!
//! `#[kernel]` accepts writes at `out[(.., s)]` without `unsafe` where the sample `s` lies in
//! range `v` and `v` is owned by the work item: a `TeamThreadRange` over
//! `r[(v, 0)] as usize..=r[(v, 1)] as usize`, or `let s = r[(v, 0)] as usize + k;` with the
//! work item returning early when `s > r[(v, 1)] as usize`. Because no two ranges share an
//! index, the sample determines the range it lies in, and (for `first + k`) the offset `k`, so
//! distinct owners reach distinct samples (see the macro's documentation for the exact rule).
//! As for [`crate::InjectiveView`], the argument needs the bounds to stay as checked while the
//! value lives: they are copied into an allocation no other View shares, and no `View` of it is
//! handed out.
//!
//! Ranges are inclusive (`first`, `last`) because that is how interval lists are usually given
//! (TOAST's intervals are), it makes every range non-empty by construction (so "disjoint" has no
//! special case for empty ranges), and a range may end at the element type's largest value.

use crate::access::ReadAccess;
use crate::injective::IndexElem;
use crate::kernel::{ViewArg, ViewBinding};
use crate::layout::LayoutRight;
use crate::space::{HostSpace, MemorySpace};
use crate::{deep_copy, Error, Result, View};

/// A read-only `[len, 2]` View in memory space `M` of inclusive ranges: row `v` is
/// (`first`, `last`) with `0 <= first <= last`, and no index lies in two ranges. Kernels take
/// it as a `DisjointRanges<T>` parameter, read `r[(v, 0)]` and `r[(v, 1)]`, and may write
/// other Views at a sample of range `v` when they own `v` (see the module documentation).
///
/// ```
/// use rokkos_core::DisjointRanges;
/// let r = DisjointRanges::new("intervals", &[(10u32, 19), (0, 4), (20, 20)]).unwrap();
/// assert_eq!((r.len(), r.total(), r.max_len(), r.bound()), (3, 16, 10, 21));
/// // Ranges 0..=4 and 4..=9 share index 4:
/// assert!(DisjointRanges::new("bad", &[(0i32, 4), (4, 9)]).is_err());
/// ```
pub struct DisjointRanges<T: IndexElem, M: MemorySpace = HostSpace> {
    view: View<T, 2, LayoutRight, M>,
    /// One past the largest `last` (0 when empty).
    bound: usize,
    /// The number of indices in all ranges together.
    total: usize,
    /// The longest range's length (0 when empty).
    max_len: usize,
}

impl<T: IndexElem> DisjointRanges<T, HostSpace> {
    /// Checks `ranges` and copies them into a new host View; see [`DisjointRanges::new_in`].
    pub fn new(label: &str, ranges: &[(T, T)]) -> Result<Self> {
        Self::new_in(&HostSpace, label, ranges)
    }
}

impl<T: IndexElem, M: MemorySpace> DisjointRanges<T, M> {
    /// Checks that every range of `ranges` (`(first, last)`, inclusive) has
    /// `0 <= first <= last` and that no two share an index, and copies them into a new View in
    /// `space` that only this value holds. `Err(InvalidArgument)` names a bad range, or two
    /// overlapping ones. The ranges need not be sorted.
    pub fn new_in(space: &M, label: &str, ranges: &[(T, T)]) -> Result<Self> {
        let (bound, total, max_len) = check(label, ranges)?;
        let flat: Vec<T> = ranges.iter().flat_map(|&(f, l)| [f, l]).collect();
        let host = View::<T, 2>::from_vec(label, [ranges.len(), 2], flat)?;
        let view = View::new_in(space, label, [ranges.len(), 2])?;
        deep_copy(&view, &host)?;
        Ok(DisjointRanges {
            view,
            bound,
            total,
            max_len,
        })
    }

    /// [`DisjointRanges::new_in`] in the memory of execution space `space`.
    pub fn new_on<E: crate::ExecutionSpace<Memory = M>>(
        space: &E,
        label: &str,
        ranges: &[(T, T)],
    ) -> Result<Self> {
        Self::new_in(&space.memory_space(), label, ranges)
    }

    /// The number of ranges.
    pub fn len(&self) -> usize {
        self.view.extent(0)
    }

    /// True when there is no range.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The extent of dimension `k` as for a `[len, 2]` View: `len()` for 0, 2 for 1, else 0.
    pub fn extent(&self, k: usize) -> usize {
        self.view.extent(k)
    }

    /// One past the largest index any range holds (0 when empty): a View indexed by the samples
    /// needs at least this extent there.
    pub fn bound(&self) -> usize {
        self.bound
    }

    /// The number of indices in all ranges together.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The longest range's length (0 when empty): the extent an MDRange over
    /// (range, offset in the range) needs in its offset dimension.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.view.label()
    }

    /// The ranges, copied to the host, in the order they were given.
    pub fn to_vec(&self) -> Result<Vec<(T, T)>> {
        let host = View::<T, 2>::new(self.label(), [self.len(), 2])?;
        deep_copy(&host, &self.view)?;
        Ok(host.to_vec().chunks(2).map(|c| (c[0], c[1])).collect())
    }

    /// Describes the View as a read-only kernel argument (used by `#[rokkos::kernel]`).
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
    pub unsafe fn __read_access(&self, kernel: &'static str) -> ReadAccess<'_, T, 2, LayoutRight> {
        // SAFETY: forwarded to the caller; nothing writes this View (no `View` of it escapes).
        unsafe { self.view.__read_access(kernel) }
    }
}

impl<T: IndexElem, M: MemorySpace> std::fmt::Debug for DisjointRanges<T, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisjointRanges")
            .field("label", &self.label())
            .field("len", &self.len())
            .field("bound", &self.bound)
            .field("total", &self.total)
            .finish()
    }
}

/// (bound, total, max_len) of `ranges`, or `Err` naming a bad range or two overlapping ones.
fn check<T: IndexElem>(label: &str, ranges: &[(T, T)]) -> Result<(usize, usize, usize)> {
    let bad = |v: usize, why: &str| {
        let (f, l) = ranges[v];
        Error::InvalidArgument(format!(
            "DisjointRanges `{label}`: range {v} ({f}..={l}) {why}: every range needs \
             0 <= first <= last"
        ))
    };
    let mut spans = Vec::with_capacity(ranges.len());
    for (v, &(f, l)) in ranges.iter().enumerate() {
        let (Some(first), Some(last)) = (f.as_index(), l.as_index()) else {
            return Err(bad(v, "has a negative bound"));
        };
        if last < first {
            return Err(bad(v, "ends before it starts"));
        }
        spans.push((first, last, v));
    }
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 <= w[0].1) {
        let ((a, b), (c, d)) = ((w[0].2, w[1].2), (w[1].0, w[0].1.min(w[1].1)));
        let (a, b) = (a.min(b), a.max(b));
        return Err(Error::InvalidArgument(format!(
            "DisjointRanges `{label}`: ranges {a} and {b} overlap (both hold {c}..={d}): the \
             ranges must be pairwise disjoint"
        )));
    }
    let total = spans.iter().map(|&(f, l, _)| l - f + 1).sum();
    let max_len = spans.iter().map(|&(f, l, _)| l - f + 1).max().unwrap_or(0);
    let bound = spans.last().map_or(0, |&(_, l, _)| l + 1);
    Ok((bound, total, max_len))
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
    fn accepts_disjoint_ranges_and_keeps_them() {
        let given = [(7u32, 9), (0, 0), (1, 6), (u32::MAX, u32::MAX)];
        let r = DisjointRanges::new("iv", &given).unwrap();
        assert_eq!(r.to_vec().unwrap(), given.to_vec());
        assert_eq!((r.len(), r.extent(0), r.extent(1)), (4, 4, 2));
        assert_eq!((r.total(), r.max_len()), (11, 6));
        assert_eq!(r.bound(), u32::MAX as usize + 1);
        let e = DisjointRanges::<i32>::new("none", &[]).unwrap();
        assert!(e.is_empty());
        assert_eq!((e.bound(), e.total(), e.max_len()), (0, 0, 0));
    }

    #[test]
    fn refuses_overlaps_and_bad_bounds() {
        let m = msg(DisjointRanges::new("iv", &[(10i32, 20), (0, 5), (20, 30)]));
        assert!(
            m.contains("ranges 0 and 2 overlap (both hold 20..=20)"),
            "{m}"
        );
        let m = msg(DisjointRanges::new("iv", &[(0u32, 9), (3, 4)]));
        assert!(
            m.contains("ranges 0 and 1 overlap (both hold 3..=4)"),
            "{m}"
        );
        let m = msg(DisjointRanges::new("iv", &[(0u32, 0), (5, 4)]));
        assert!(m.contains("range 1 (5..=4) ends before it starts"), "{m}");
        let m = msg(DisjointRanges::new("iv", &[(-1i32, 4)]));
        assert!(m.contains("range 0 (-1..=4) has a negative bound"), "{m}");
    }
}
