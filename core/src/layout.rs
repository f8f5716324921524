//! Layouts: how a multi-index maps to an offset.
//!
//! The offset of index `idx` is `sum(idx[k] * stride[k])`. [`LayoutRight`] (row-major) knows at compile
//! time that the last stride is 1 and [`LayoutLeft`] (column-major) that the first is 1, so that the
//! native kernel path indexes contiguous data with unit stride and the compiler can vectorise it.
//! [`LayoutStride`] keeps every stride at run time.

/// The run-time tag of a layout, for messages and for backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutKind {
    /// Row-major: the last index moves fastest.
    Right,
    /// Column-major: the first index moves fastest.
    Left,
    /// Arbitrary non-overlapping strides.
    Stride,
}

mod sealed {
    pub trait SealedLayout {}
    impl SealedLayout for super::LayoutRight {}
    impl SealedLayout for super::LayoutLeft {}
    impl SealedLayout for super::LayoutStride {}
}

/// A memory layout of a multidimensional View: [`LayoutRight`], [`LayoutLeft`] or
/// [`LayoutStride`] (sealed: Views index memory through [`Layout::offset`] after checking only the
/// index against the extents, so an offset outside the View's span would be undefined behaviour).
pub trait Layout:
    sealed::SealedLayout + Copy + Default + Send + Sync + 'static + std::fmt::Debug
{
    /// Which layout this is.
    const KIND: LayoutKind;
    /// The strides of a freshly allocated contiguous View of these extents, or `None` for
    /// [`LayoutStride`], which has no canonical strides.
    fn contiguous_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]>;
    /// Offset of `idx`; `strides` are the View's strides (entries the layout fixes are ignored).
    fn offset<const R: usize>(idx: &[usize; R], strides: &[usize; R]) -> usize;
}

/// Row-major layout (C order): the host default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutRight;
/// Column-major layout (Fortran order): the GPU default, so that the first (fastest) parallel
/// index is coalesced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutLeft;
/// Arbitrary strides, as produced by most subviews.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutStride;

impl Layout for LayoutRight {
    const KIND: LayoutKind = LayoutKind::Right;
    fn contiguous_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        let mut s = [0usize; R];
        let mut acc = 1usize;
        for k in (0..R).rev() {
            s[k] = acc;
            acc = acc.saturating_mul(extents[k].max(1));
        }
        Some(s)
    }
    #[inline(always)]
    fn offset<const R: usize>(idx: &[usize; R], strides: &[usize; R]) -> usize {
        let mut off = 0usize;
        if R > 0 {
            for k in 0..R - 1 {
                off += idx[k] * strides[k];
            }
            off += idx[R - 1];
        }
        off
    }
}

impl Layout for LayoutLeft {
    const KIND: LayoutKind = LayoutKind::Left;
    fn contiguous_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        let mut s = [0usize; R];
        let mut acc = 1usize;
        for k in 0..R {
            s[k] = acc;
            acc = acc.saturating_mul(extents[k].max(1));
        }
        Some(s)
    }
    #[inline(always)]
    fn offset<const R: usize>(idx: &[usize; R], strides: &[usize; R]) -> usize {
        let mut off = 0usize;
        if R > 0 {
            off += idx[0];
            for k in 1..R {
                off += idx[k] * strides[k];
            }
        }
        off
    }
}

impl Layout for LayoutStride {
    const KIND: LayoutKind = LayoutKind::Stride;
    fn contiguous_strides<const R: usize>(_extents: &[usize; R]) -> Option<[usize; R]> {
        None
    }
    #[inline(always)]
    fn offset<const R: usize>(idx: &[usize; R], strides: &[usize; R]) -> usize {
        let mut off = 0usize;
        for k in 0..R {
            off += idx[k] * strides[k];
        }
        off
    }
}

/// Number of elements of a shape (`None` on overflow).
pub fn element_count(extents: &[usize]) -> Option<usize> {
    extents.iter().try_fold(1usize, |a, &e| a.checked_mul(e))
}

/// One past the largest offset a View of this shape touches (0 for an empty View), saturating at
/// `usize::MAX` (no View has such a shape: constructors refuse it through [`checked_span`]).
#[inline]
pub fn span_of(extents: &[usize], strides: &[usize]) -> usize {
    checked_span(extents, strides).unwrap_or(usize::MAX)
}

/// [`span_of`], or `None` when it overflows `usize`.
///
/// ```
/// use rokkos_core::layout::checked_span;
/// assert_eq!(checked_span(&[3, 4], &[8, 1]), Some(20));
/// assert_eq!(checked_span(&[0, usize::MAX], &[1, 1]), Some(0));
/// assert_eq!(checked_span(&[2, 2], &[usize::MAX, 1]), None);
/// ```
#[inline]
pub fn checked_span(extents: &[usize], strides: &[usize]) -> Option<usize> {
    if extents.contains(&0) {
        return Some(0);
    }
    extents
        .iter()
        .zip(strides)
        .try_fold(1usize, |acc, (&e, &s)| {
            acc.checked_add((e - 1).checked_mul(s)?)
        })
}

/// True when no two distinct indices of the shape map to the same offset: sorted by stride, each
/// stride must exceed the largest offset the dimensions before it reach together (then the
/// highest dimension in which two indices differ moves the offset by more than all lower ones can
/// make up). Soundness of parallel writes relies on this, so every View rokkos builds satisfies it.
/// An empty shape has no two indices, whatever its strides.
pub fn strides_are_injective(extents: &[usize], strides: &[usize]) -> bool {
    if extents.contains(&0) {
        return true;
    }
    let mut dims: Vec<(usize, usize)> = extents
        .iter()
        .copied()
        .zip(strides.iter().copied())
        .filter(|&(e, _)| e > 1)
        .collect();
    dims.sort_by_key(|&(_, s)| s);
    let mut reach = 1usize; // one past the largest offset of the dimensions so far
    for (e, s) in dims {
        if s < reach {
            return false;
        }
        match (e - 1).checked_mul(s).and_then(|r| r.checked_add(reach)) {
            Some(r) => reach = r,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The criterion against brute force: every small shape and stride pattern it accepts maps
    /// distinct indices to distinct offsets, and it accepts the strides of stepped slices such as
    /// (2, 14, 35) for extents (4, 3, 2), which the former `stride >= extent * previous stride`
    /// rule refused.
    #[test]
    fn injectivity_is_exact_enough_and_never_wrong() {
        assert!(strides_are_injective(&[4, 3, 2], &[2, 14, 35]));
        assert!(!strides_are_injective(&[4, 3, 2], &[2, 6, 35]));
        for e0 in 1..4 {
            for e1 in 1..4 {
                for s0 in 0..5 {
                    for s1 in 0..8 {
                        let (e, s) = ([e0, e1], [s0, s1]);
                        let mut seen = std::collections::HashSet::new();
                        let mut distinct = true;
                        for i in 0..e0 {
                            for j in 0..e1 {
                                distinct &= seen.insert(i * s0 + j * s1);
                            }
                        }
                        if strides_are_injective(&e, &s) {
                            assert!(distinct, "{e:?} {s:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn right_and_left_offsets_match_closed_forms() {
        let e = [3usize, 4, 5];
        let sr = LayoutRight::contiguous_strides(&e).unwrap();
        let sl = LayoutLeft::contiguous_strides(&e).unwrap();
        assert_eq!(sr, [20, 5, 1]);
        assert_eq!(sl, [1, 3, 12]);
        for i in 0..3 {
            for j in 0..4 {
                for k in 0..5 {
                    assert_eq!(LayoutRight::offset(&[i, j, k], &sr), i * 20 + j * 5 + k);
                    assert_eq!(LayoutLeft::offset(&[i, j, k], &sl), i + 3 * j + 12 * k);
                    assert_eq!(LayoutStride::offset(&[i, j, k], &sr), i * 20 + j * 5 + k);
                }
            }
        }
    }

    #[test]
    fn injectivity_check() {
        assert!(strides_are_injective(&[3, 4], &[4, 1]));
        assert!(strides_are_injective(&[3, 4], &[1, 3]));
        assert!(!strides_are_injective(&[3, 4], &[2, 1]));
        assert!(!strides_are_injective(&[3, 4], &[0, 1]));
        assert!(strides_are_injective(&[1, 4], &[0, 1]));
        assert!(strides_are_injective(&[0, 3], &[1, usize::MAX]));
        assert_eq!(span_of(&[3, 4], &[8, 1]), 20);
        assert_eq!(span_of(&[0, 4], &[8, 1]), 0);
    }
}
