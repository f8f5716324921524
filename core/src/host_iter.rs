//! Iteration helpers shared by the host backends: chunking a range, tiling an MDRange, sizing team
//! scratch. Kept here once so that serial and rayon traverse work identically.

use crate::kernel::{ForBody, MDWork, RangeWork, ReduceBody, ScanBody};
use crate::policy::{Iterate, MDRangePolicy, TeamPolicy};
use crate::space::TeamLimits;
use std::ops::Range;

/// Team limits of the host backends (serial, rayon): teams of one thread, as in Kokkos' host
/// backends (`TeamSize::Auto` resolves to 1); vector ranges run sequentially, so any power-of-two
/// vector length up to 1024 is accepted; scratch comes from host memory (1 MiB at level 0, 1 GiB at
/// level 1 per team).
pub const HOST_TEAM_LIMITS: TeamLimits = TeamLimits {
    team_size_max: 1,
    team_size_auto: 1,
    vector_length_max: 1024,
    scratch_max: [1 << 20, 1 << 30],
};

/// Splits `begin..end` into `chunks` contiguous pieces of nearly equal length; returns piece `c`
/// (empty when `begin >= end`, `chunks == 0` or `c >= chunks`).
#[inline]
pub fn chunk_bounds(begin: usize, end: usize, chunks: usize, c: usize) -> Range<usize> {
    // A launch only sees validated policies; the guards keep a bad call from panicking anyway.
    if chunks == 0 || c >= chunks {
        return begin..begin;
    }
    let n = end.saturating_sub(begin);
    let base = n / chunks;
    let extra = n % chunks;
    let lo = begin + c * base + c.min(extra);
    let hi = lo + base + usize::from(c < extra);
    lo..hi
}

/// Number of chunks a host backend with `workers` threads uses for `n` items when each chunk must
/// hold at least `min_chunk` items: about four per worker for load balance, never more than `n`.
pub fn chunk_count(n: usize, workers: usize, min_chunk: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let by_size = n.div_ceil(min_chunk.max(1));
    by_size.min(workers.max(1) * 4).max(1)
}

/// The tiles of an MDRange policy, numbered in the policy's iteration order.
#[derive(Debug, Clone)]
pub struct TileGrid<const N: usize> {
    begin: [usize; N],
    end: [usize; N],
    tile: [usize; N],
    count: [usize; N],
    order: Iterate,
}

impl<const N: usize> TileGrid<N> {
    /// Tiles of `policy`; unset tile extents default to the whole range in the fastest dimension and
    /// 1 elsewhere (rows as tasks), which keeps the innermost loop long and contiguous.
    pub fn new<E: Clone>(policy: &MDRangePolicy<E, N>) -> Self {
        let (begin, end, order) = (policy.begin(), policy.end(), policy.order());
        let fastest = if order == Iterate::Right { N - 1 } else { 0 };
        let mut tile = policy.tiles();
        let mut count = [0usize; N];
        for k in 0..N {
            // Validated policies have `begin <= end`; saturating keeps an invalid box empty.
            let len = end[k].saturating_sub(begin[k]);
            if tile[k] == 0 {
                tile[k] = if k == fastest { len } else { 1 };
            }
            // A tile never needs to exceed its dimension; clamping keeps `lo + tile` from overflowing.
            tile[k] = tile[k].min(len).max(1);
            count[k] = len.div_ceil(tile[k]);
        }
        TileGrid {
            begin,
            end,
            tile,
            count,
            order,
        }
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        if self.count.contains(&0) {
            return 0;
        }
        // Each count is at most its dimension's length, and a validated policy's box fits in usize.
        self.count.iter().fold(1usize, |a, &c| a.saturating_mul(c))
    }

    /// True when there is no tile.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Dimensions from slowest to fastest.
    fn dims(&self) -> [usize; N] {
        let mut d = [0usize; N];
        for (k, slot) in d.iter_mut().enumerate() {
            *slot = if self.order == Iterate::Right {
                k
            } else {
                N - 1 - k
            };
        }
        d
    }

    /// The box of tile `t`: its lowest index and one past its highest, per dimension. Tiles are
    /// never empty, so `lo[k] < hi[k]` in every dimension.
    #[inline]
    pub fn tile_box(&self, t: usize) -> ([usize; N], [usize; N]) {
        let dims = self.dims();
        let mut lo = [0usize; N];
        let mut hi = [0usize; N];
        let mut rest = t;
        for &k in dims.iter().rev() {
            let tk = rest % self.count[k];
            rest /= self.count[k];
            // `lo < end` (tk < count); the tile may reach past `usize::MAX` when `end` is near it.
            lo[k] = self.begin[k] + tk * self.tile[k];
            hi[k] = lo[k].saturating_add(self.tile[k]).min(self.end[k]);
        }
        (lo, hi)
    }

    /// Calls `f(lo, hi)` with the box of every tile in `tiles`, in order: the first tile's
    /// coordinates are decomposed from its number, the others follow by an odometer over the tile
    /// coordinates, so that a row of a default tiling costs no division.
    #[inline(always)]
    pub fn for_each_tile_box(
        &self,
        tiles: Range<usize>,
        mut f: impl FnMut(&[usize; N], &[usize; N]),
    ) {
        if tiles.is_empty() {
            return;
        }
        let dims = self.dims();
        let mut coord = [0usize; N];
        let mut rest = tiles.start;
        for &k in dims.iter().rev() {
            coord[k] = rest % self.count[k];
            rest /= self.count[k];
        }
        let (mut lo, mut hi) = ([0usize; N], [0usize; N]);
        for _ in tiles {
            for k in 0..N {
                lo[k] = self.begin[k] + coord[k] * self.tile[k];
                // Saturating: a tile may end past `usize::MAX` when the box ends near it.
                hi[k] = lo[k].saturating_add(self.tile[k]).min(self.end[k]);
            }
            f(&lo, &hi);
            for &k in dims.iter().rev() {
                coord[k] += 1;
                if coord[k] < self.count[k] {
                    break;
                }
                coord[k] = 0;
            }
        }
    }

    /// Calls `f` on every index of tile `t`, in the policy's iteration order.
    #[inline]
    pub fn for_each_in_tile(&self, t: usize, f: impl FnMut([usize; N])) {
        let (lo, hi) = self.tile_box(t);
        self.for_each_in_box(&lo, &hi, f);
    }

    /// Calls `f` on every index of the non-empty box `lo..hi`, in the policy's iteration order.
    #[inline(always)]
    fn for_each_in_box(&self, lo: &[usize; N], hi: &[usize; N], f: impl FnMut([usize; N])) {
        match self.order {
            Iterate::Right => box_loop::<N, true>(lo, hi, f),
            Iterate::Left => box_loop::<N, false>(lo, hi, f),
        }
    }
}

/// Calls `f` on every index of the non-empty box `lo..hi`: a plain counted loop over the fastest
/// dimension (the last when `RIGHT`, else the first) inside an odometer over the others. The
/// fastest dimension is a constant here, so that the body's address arithmetic is visibly affine
/// in the loop counter and loop-invariant otherwise, which is what lets the loop vectorise.
#[inline(always)]
fn box_loop<const N: usize, const RIGHT: bool>(
    lo: &[usize; N],
    hi: &[usize; N],
    mut f: impl FnMut([usize; N]),
) {
    // Dimension `level` of the order slowest to fastest.
    let dim = |level: usize| if RIGHT { level } else { N - 1 - level };
    let inner = dim(N - 1);
    let mut idx = *lo;
    loop {
        for x in lo[inner]..hi[inner] {
            idx[inner] = x;
            f(idx);
        }
        // Advance the outer dimensions like an odometer.
        let mut level = N - 1;
        loop {
            if level == 0 {
                return;
            }
            level -= 1;
            let k = dim(level);
            idx[k] += 1;
            if idx[k] < hi[k] {
                break;
            }
            idx[k] = lo[k];
        }
    }
}

/// Scratch bytes per team at levels 0 and 1 for a host launch (team size as resolved by the policy).
pub fn team_scratch_bytes<E: crate::space::ExecutionSpace>(policy: &TeamPolicy<E>) -> [usize; 2] {
    [
        policy.scratch_bytes(0).unwrap_or(0),
        policy.scratch_bytes(1).unwrap_or(0),
    ]
}

// Chunk runners. The body arrives as a function argument, so the compiler knows its fields (the
// accessors' pointers and extents) cannot change while the loop stores through them, keeps them in
// registers and can vectorise. Reached through a closure's captured reference instead, the same loop
// reloads them after every store and runs several times slower.

/// Runs `body` for every index of `r`: one bounds check for the chunk when the body supports it,
/// then a loop without per-element checks.
#[inline(never)]
pub fn run_for_chunk<B: ForBody<RangeWork>>(body: &B, r: Range<usize>) {
    if r.is_empty() {
        return;
    }
    if body.__in_bounds(r.start, r.end - 1) {
        for i in r {
            // SAFETY: checked for the whole chunk just above.
            unsafe { body.__call_unchecked(i) };
        }
    } else {
        for i in r {
            body.call(i);
        }
    }
}

/// Folds `body` over every index of `r` into `acc` (chunk-checked like [`run_for_chunk`]).
#[inline(never)]
pub fn run_reduce_chunk<A, B: ReduceBody<RangeWork, A>>(body: &B, r: Range<usize>, acc: &mut A) {
    if r.is_empty() {
        return;
    }
    if body.__in_bounds(r.start, r.end - 1) {
        for i in r {
            // SAFETY: checked for the whole chunk just above.
            unsafe { body.__call_unchecked(i, acc) };
        }
    } else {
        for i in r {
            body.call(i, acc);
        }
    }
}

/// Runs the scan `body` over every index of `r`, carrying `acc` (chunk-checked like
/// [`run_for_chunk`]).
#[inline(never)]
pub fn run_scan_chunk<A, B: ScanBody<RangeWork, A>>(
    body: &B,
    r: Range<usize>,
    acc: &mut A,
    is_final: bool,
) {
    if r.is_empty() {
        return;
    }
    if body.__in_bounds(r.start, r.end - 1) {
        for i in r {
            // SAFETY: checked for the whole chunk just above.
            unsafe { body.__call_unchecked(i, acc, is_final) };
        }
    } else {
        for i in r {
            body.call(i, acc, is_final);
        }
    }
}

/// The last index of a non-empty box `lo..hi`.
#[inline(always)]
fn last_of<const N: usize>(hi: &[usize; N]) -> [usize; N] {
    hi.map(|h| h - 1)
}

/// Runs `body` over tiles `tiles` of `grid`: one bounds check per tile (its box, extended by the
/// body's neighbour offsets) when the body supports it, then loops without per-element checks.
#[inline(never)]
pub fn run_for_tiles<const N: usize, B: ForBody<MDWork<N>>>(
    body: &B,
    grid: &TileGrid<N>,
    tiles: Range<usize>,
) {
    grid.for_each_tile_box(tiles, |lo, hi| {
        if body.__in_bounds(*lo, last_of(hi)) {
            // SAFETY: checked for the whole tile just above.
            grid.for_each_in_box(lo, hi, |idx| unsafe { body.__call_unchecked(idx) });
        } else {
            grid.for_each_in_box(lo, hi, |idx| body.call(idx));
        }
    });
}

/// Folds `body` over tiles `tiles` of `grid` into `acc` (tile-checked like [`run_for_tiles`]).
#[inline(never)]
pub fn run_reduce_tiles<const N: usize, A, B: ReduceBody<MDWork<N>, A>>(
    body: &B,
    grid: &TileGrid<N>,
    tiles: Range<usize>,
    acc: &mut A,
) {
    grid.for_each_tile_box(tiles, |lo, hi| {
        if body.__in_bounds(*lo, last_of(hi)) {
            // SAFETY: checked for the whole tile just above.
            grid.for_each_in_box(lo, hi, |idx| unsafe {
                body.__call_unchecked(idx, &mut *acc)
            });
        } else {
            grid.for_each_in_box(lo, hi, |idx| body.call(idx, &mut *acc));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_range_once() {
        for n in [0usize, 1, 7, 100, 1001] {
            for c in 1..9 {
                let mut next = 5;
                for k in 0..c {
                    let r = chunk_bounds(5, 5 + n, c, k);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, 5 + n);
            }
        }
    }

    #[test]
    fn bad_shapes_give_empty_work_instead_of_panicking() {
        assert_eq!(chunk_bounds(10, 5, 4, 0), 10..10);
        assert_eq!(chunk_bounds(0, 5, 0, 0), 0..0);
        assert_eq!(chunk_bounds(0, 5, 2, 7), 0..0);
        let inverted = MDRangePolicy::new(&(), [3, 0], [1, 4]);
        assert_eq!(TileGrid::new(&inverted).len(), 0);
    }

    /// A tile ending past `usize::MAX`: `lo + tile` used to overflow (debug: a panic; release: a
    /// wrapped, empty tile whose indices were skipped).
    #[test]
    fn tiles_near_the_end_of_usize() {
        let m = usize::MAX;
        let p = MDRangePolicy::new(&(), [m - 10, 0], [m, 2]).tile([7, 2]);
        let g = TileGrid::new(&p);
        let mut seen = Vec::new();
        for t in 0..g.len() {
            g.for_each_in_tile(t, |i| seen.push(i));
        }
        let want: Vec<[usize; 2]> = (m - 10..m).flat_map(|i| [[i, 0], [i, 1]]).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn tiles_cover_the_box_once() {
        for order in [Iterate::Right, Iterate::Left] {
            let p = MDRangePolicy::new(&(), [1, 2, 0], [4, 7, 5])
                .tile([2, 3, 0])
                .iterate(order);
            let g = TileGrid::new(&p);
            let mut seen = std::collections::HashSet::new();
            for t in 0..g.len() {
                g.for_each_in_tile(t, |i| assert!(seen.insert(i)));
            }
            assert_eq!(seen.len(), 3 * 5 * 5);
            // The odometer over tiles visits the boxes their numbers decompose to, from any start.
            for start in 0..g.len() {
                let mut t = start;
                g.for_each_tile_box(start..g.len(), |lo, hi| {
                    assert_eq!((*lo, *hi), g.tile_box(t), "tile {t} from {start}");
                    t += 1;
                });
                assert_eq!(t, g.len());
            }
            assert!(seen
                .iter()
                .all(|i| (1..4).contains(&i[0]) && (2..7).contains(&i[1]) && i[2] < 5));
        }
    }
}
