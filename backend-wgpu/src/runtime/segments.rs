//! Where the bytes of one View allocation lie when it is larger than one wgpu buffer: the
//! allocation is cut into "segments" (wgpu buffers) of a power of two of bytes each, the last one
//! shorter. Pure arithmetic, shared by allocation, host reads and writes, device copies, launch
//! bindings and reductions into an element.
//!
//! Why a power of two: a launch binds a View larger than one storage binding as windows of
//! `2^s` elements (`launch::splits`), whose bytes are the largest power of two within the binding
//! limit for every element size (1, 2, 4 or 8 bytes). A segment of a power of two of bytes at least
//! that large is a whole number of windows for every element type, so that no window, no packed
//! `u8`/`u16` word and no element straddles two segments, whatever type the View's elements have
//! (allocation knows only a byte count).

/// The segments of one allocation of `total` bytes (a multiple of 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segments {
    /// Bytes of every segment but the last (the whole allocation when there is one segment).
    pub seg: u64,
    /// Bytes of the allocation, all segments together.
    pub total: u64,
}

/// The largest power of two not above `x` (`x >= 1`).
pub(crate) fn pow2_floor(x: u64) -> u64 {
    1 << x.max(1).ilog2()
}

impl Segments {
    /// The segments of `total` bytes when one buffer holds at most `buffer_max` bytes (at least
    /// 8, see `Ctx::buffer_max`): one when it fits, so that such a View is the single buffer it
    /// always was; else segments of the largest power of two of bytes within `buffer_max`.
    pub fn new(total: u64, buffer_max: u64) -> Self {
        let seg = if total <= buffer_max {
            total
        } else {
            pow2_floor(buffer_max)
        };
        Segments { seg, total }
    }
    /// How many segments there are.
    pub fn count(&self) -> usize {
        if self.seg == 0 {
            return 1;
        }
        self.total.div_ceil(self.seg).max(1) as usize
    }
    /// Bytes of segment `j`.
    pub fn len(&self, j: usize) -> u64 {
        let start = j as u64 * self.seg;
        self.seg.min(self.total - start)
    }
    /// The segment holding byte `at` of the allocation (`at < total`; `total` itself maps to the
    /// end of the last segment) and the offset of that byte in it.
    pub fn locate(&self, at: u64) -> (usize, u64) {
        if self.count() == 1 {
            return (0, at);
        }
        let j = ((at / self.seg) as usize).min(self.count() - 1);
        (j, at - j as u64 * self.seg)
    }
    /// Bytes `[offset, offset + len)` of the allocation as pieces `(segment, offset in it,
    /// length)` in order, each inside one segment and at most `cap` bytes (`cap >= 1`); a piece
    /// cut by `cap` ends at a multiple of `cap` within its segment, so that pieces of a range of
    /// whole words stay whole words when `cap` is.
    pub fn pieces(&self, offset: u64, len: u64, cap: u64) -> Vec<(usize, u64, u64)> {
        let mut out = Vec::new();
        let mut at = offset;
        let end = offset + len;
        while at < end {
            let (j, o) = self.locate(at);
            let seg_end = self.len(j);
            let cap_end = (o / cap + 1).saturating_mul(cap);
            let n = (end - at).min(seg_end - o).min(cap_end - o);
            out.push((j, o, n));
            at += n;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_view_within_one_buffer_is_one_segment() {
        let s = Segments::new(4096, 4096);
        assert_eq!((s.count(), s.len(0), s.locate(4000)), (1, 4096, (0, 4000)));
        // Not a power of two: still one buffer of its own size.
        let s = Segments::new(3000, 3001);
        assert_eq!((s.count(), s.len(0)), (1, 3000));
    }

    #[test]
    fn segments_are_the_power_of_two_within_the_limit() {
        let s = Segments::new(10_000, 3000);
        assert_eq!(s.seg, 2048);
        assert_eq!(s.count(), 5);
        assert_eq!(
            (0..5).map(|j| s.len(j)).collect::<Vec<_>>(),
            [2048, 2048, 2048, 2048, 1808]
        );
        assert_eq!(s.locate(2047), (0, 2047));
        assert_eq!(s.locate(2048), (1, 0));
        assert_eq!(s.locate(10_000), (4, 1808));
    }

    proptest! {
        /// Pieces cover the range exactly, in order, each inside one segment and the cap, and a
        /// window of any power-of-two size up to the segment never straddles two segments.
        #[test]
        fn pieces_tile_the_range(
            total8 in 1u64..4000,
            max in 8u64..20_000,
            a in 0u64..32_000,
            b in 0u64..32_000,
            cap in 1u64..5000,
        ) {
            let total = total8 * 8;
            let s = Segments::new(total, max);
            if total <= max {
                prop_assert_eq!((s.count(), s.seg), (1, total));
            } else {
                prop_assert!(s.seg <= max && s.seg.is_power_of_two() && s.seg >= 8);
            }
            prop_assert_eq!((0..s.count()).map(|j| s.len(j)).sum::<u64>(), total);
            let (lo, hi) = (a.min(b) % (total + 1), a.max(b) % (total + 1));
            let (lo, hi) = (lo.min(hi), lo.max(hi));
            let ps = s.pieces(lo, hi - lo, cap);
            let mut at = lo;
            for &(j, o, n) in &ps {
                prop_assert!(n > 0 && n <= cap && o + n <= s.len(j));
                prop_assert_eq!(j as u64 * s.seg + o, at);
                // Both ends on the cap grid, or on the range's or segment's own ends.
                prop_assert!(o / cap == (o + n - 1) / cap);
                at += n;
            }
            prop_assert_eq!(at, hi);
            if s.count() > 1 {
                let w = pow2_floor(max.min(s.seg));
                for k in 0..total.div_ceil(w) {
                    let (j0, _) = s.locate(k * w);
                    let (j1, _) = s.locate((k * w + w).min(total) - 1);
                    prop_assert_eq!(j0, j1);
                }
            }
        }
    }
}
