//! Iteration helpers shared by the host backends: chunking a range, tiling an MDRange, sizing team
//! scratch. Kept here once so that serial and rayon traverse work identically.

use crate::kernel::{ForBody, MDWork, RangeWork, ReduceBody, ScanBody, WorkKind};
use crate::policy::{Iterate, MDRangePolicy, Schedule, TeamPolicy};
use crate::reducer::Reducer;
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

/// The most items (indices, teams) a host chunk holds unless the policy's chunk size asks for
/// more: a launch whose kernel fails stops starting chunks (rokkos-rayon), so this bounds the
/// work each thread still does after a failure to one chunk. At 2^20 items a chunk still costs a
/// few nanoseconds per item of scheduling at most.
pub const MAX_CHUNK_ITEMS: usize = 1 << 20;

/// Number of chunks a host backend with `workers` threads uses for `n` items when each chunk must
/// hold at least `min_chunk` items: about four per worker for load balance, but enough that no
/// chunk holds more than [`MAX_CHUNK_ITEMS`] (or `min_chunk`, when larger); never more than `n`.
///
/// ```
/// use rokkos_core::host_iter::{chunk_count, MAX_CHUNK_ITEMS};
/// assert_eq!(chunk_count(1000, 2, 1), 8);
/// assert_eq!(chunk_count(3, 2, 1), 3);
/// assert_eq!(chunk_count(1 << 31, 2, 1), (1 << 31) / MAX_CHUNK_ITEMS);
/// ```
pub fn chunk_count(n: usize, workers: usize, min_chunk: usize) -> usize {
    chunk_count_of(n, 1, workers, min_chunk)
}

/// [`chunk_count`] for `n` units of `unit_items` items each (MDRange tiles): no chunk holds more
/// than [`MAX_CHUNK_ITEMS`] items unless a single unit does.
pub fn chunk_count_of(n: usize, unit_items: usize, workers: usize, min_chunk: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let min_chunk = min_chunk.max(1);
    let by_size = n.div_ceil(min_chunk);
    let max_units = (MAX_CHUNK_ITEMS / unit_items.max(1)).max(min_chunk).max(1);
    by_size
        .min(workers.max(1) * 4)
        .max(n.div_ceil(max_units))
        .max(1)
}

/// Chunks per worker a [`Schedule::Dynamic`] launch aims at when the policy sets no chunk size:
/// more than [`chunk_count`]'s four, so that threads that finish early find chunks left to claim.
///
/// ```
/// use rokkos_core::host_iter::{schedule_chunk_count, DYNAMIC_CHUNKS_PER_WORKER};
/// use rokkos_core::Schedule;
/// let c = schedule_chunk_count(1 << 20, 1, 4, 0, Schedule::Dynamic);
/// assert_eq!(c, 4 * DYNAMIC_CHUNKS_PER_WORKER);
/// ```
pub const DYNAMIC_CHUNKS_PER_WORKER: usize = 16;

/// Most chunks a [`Schedule::Dynamic`] launch cuts its work into: a chunk size so small that the
/// launch would have more is raised (a reduction keeps one partial per chunk, joined in chunk
/// order, and a scan one total).
///
/// ```
/// use rokkos_core::host_iter::{schedule_chunk_count, DYNAMIC_CHUNKS_MAX};
/// use rokkos_core::Schedule;
/// // Chunks of one index over 2^20 indices: raised to 16 indices per chunk.
/// assert_eq!(schedule_chunk_count(1 << 20, 1, 2, 1, Schedule::Dynamic), DYNAMIC_CHUNKS_MAX);
/// ```
pub const DYNAMIC_CHUNKS_MAX: usize = 1 << 16;

/// Number of chunks a host backend with `workers` threads cuts `n` units of `unit_items` items
/// each (indices: 1; MDRange tiles: the tile's items; league ranks: 1) into under `schedule`,
/// for a policy chunk size `chunk` (0: unset). Chunks are then cut by [`chunk_bounds`] (nearly
/// equal, contiguous, in order).
///
/// - [`Schedule::Auto`] and [`Schedule::Static`]: [`chunk_count_of`] (about four per worker,
///   none smaller than `chunk`, none above [`MAX_CHUNK_ITEMS`] items unless `chunk` asks for more);
///   `Static` hands them out as one contiguous block per worker.
/// - [`Schedule::Dynamic`]: chunks of at most `chunk` units (`n.div_ceil(chunk)` of them), or,
///   without a chunk size, about [`DYNAMIC_CHUNKS_PER_WORKER`] per worker; at most
///   [`DYNAMIC_CHUNKS_MAX`] chunks, and none above [`MAX_CHUNK_ITEMS`] items unless `chunk` asks
///   for more.
///
/// ```
/// use rokkos_core::host_iter::schedule_chunk_count;
/// use rokkos_core::Schedule;
/// assert_eq!(schedule_chunk_count(1000, 1, 2, 0, Schedule::Auto), 8);
/// assert_eq!(schedule_chunk_count(1000, 1, 2, 0, Schedule::Dynamic), 32);
/// assert_eq!(schedule_chunk_count(1000, 1, 2, 10, Schedule::Dynamic), 100);
/// assert_eq!(schedule_chunk_count(0, 1, 2, 10, Schedule::Dynamic), 0);
/// ```
pub fn schedule_chunk_count(
    n: usize,
    unit_items: usize,
    workers: usize,
    chunk: usize,
    schedule: Schedule,
) -> usize {
    match schedule {
        Schedule::Auto | Schedule::Static => chunk_count_of(n, unit_items, workers, chunk),
        Schedule::Dynamic => {
            if n == 0 {
                return 0;
            }
            let max_units = (MAX_CHUNK_ITEMS / unit_items.max(1)).max(chunk).max(1);
            let want = match chunk {
                0 => workers.max(1).saturating_mul(DYNAMIC_CHUNKS_PER_WORKER),
                c => n.div_ceil(c),
            };
            want.min(DYNAMIC_CHUNKS_MAX)
                .max(n.div_ceil(max_units))
                .clamp(1, n)
        }
    }
}

/// Work items a default MDRange tile aims at on the host (see [`TileGrid::new`]): enough that the
/// per-tile work is a few percent of a tile's, few enough that a tile of a 3-D stencil's planes
/// stays in the caches.
pub const MIN_TILE_ITEMS: usize = 2048;

/// Widens default row tiles (`tile` is whole in the fastest dimension, 1 elsewhere) over the next
/// dimensions, slowest last, while the tile holds fewer than [`MIN_TILE_ITEMS`] items and fewer
/// than a 64th of the box (so that up to 16 workers still get four chunks each). A dimension is
/// widened only when every faster one is whole, which keeps the visiting order of the box.
fn widen_rows<const N: usize>(tile: &mut [usize; N], len: &[usize; N], order: Iterate) {
    let total = len.iter().fold(1usize, |a, &l| a.saturating_mul(l));
    let target = (total / 64).clamp(1, MIN_TILE_ITEMS);
    let dim = |level: usize| {
        if order == Iterate::Right {
            N - 1 - level
        } else {
            level
        }
    };
    let mut items = tile[dim(0)];
    for level in 1..N {
        let k = dim(level);
        if items >= target || tile[dim(level - 1)] < len[dim(level - 1)] {
            break;
        }
        tile[k] = target.div_ceil(items.max(1)).clamp(1, len[k].max(1));
        items = items.saturating_mul(tile[k]);
    }
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
    /// Tiles of `policy`. When the policy sets no tile extent, a tile is the whole range in the
    /// fastest dimension, widened over the next dimensions (each whole but the last one widened)
    /// until it holds [`MIN_TILE_ITEMS`] work items or a 64th of the box; unset extents of a
    /// partly tiled policy are the whole range in the fastest dimension and 1 elsewhere.
    ///
    /// Tiles that are whole in every faster dimension visit the box in exactly the order of rows,
    /// so widening keeps the serial order; it changes how often a task pays the per-tile work (the
    /// odometer step and the tile's bounds check), which a row of a 256³ box (254 items) does not
    /// amortise, and puts chunk boundaries on the coarser tiles.
    pub fn new<E: Clone>(policy: &MDRangePolicy<E, N>) -> Self {
        let (begin, end, order) = (policy.begin(), policy.end(), policy.order());
        let fastest = if order == Iterate::Right { N - 1 } else { 0 };
        let mut tile = policy.tiles();
        // Validated policies have `begin <= end`; saturating keeps an invalid box empty.
        let len: [usize; N] = std::array::from_fn(|k| end[k].saturating_sub(begin[k]));
        let unset = tile.iter().all(|&t| t == 0);
        let mut count = [0usize; N];
        for k in 0..N {
            if tile[k] == 0 {
                tile[k] = if k == fastest { len[k] } else { 1 };
            }
            // A tile never needs to exceed its dimension; clamping keeps `lo + tile` from overflowing.
            tile[k] = tile[k].min(len[k]).max(1);
        }
        if unset && N > 1 {
            widen_rows(&mut tile, &len, order);
        }
        for k in 0..N {
            count[k] = len[k].div_ceil(tile[k]);
        }
        TileGrid {
            begin,
            end,
            tile,
            count,
            order,
        }
    }

    /// Work items in a whole tile (saturating).
    pub fn tile_items(&self) -> usize {
        self.tile.iter().fold(1usize, |a, &t| a.saturating_mul(t))
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        if self.count.contains(&0) {
            return 0;
        }
        // Each count is at most its dimension's length, and a validated policy's box fits in usize.
        self.count.iter().fold(1usize, |a, &c| a.saturating_mul(c))
    }

    /// The extent of a tile in each dimension (the last tile of a dimension may be cut shorter
    /// by the box's end).
    pub fn tile_extents(&self) -> [usize; N] {
        self.tile
    }

    /// The number of tiles in each dimension.
    pub fn tile_counts(&self) -> [usize; N] {
        self.count
    }

    /// The iteration order of the tiles and of the points in a tile.
    pub fn order(&self) -> Iterate {
        self.order
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

    /// Calls `row` on every row of the non-empty box `lo..hi` along its fastest dimension, in
    /// the policy's iteration order (see `box_rows`).
    #[inline(always)]
    fn for_each_row_in_box(
        &self,
        lo: &[usize; N],
        hi: &[usize; N],
        row: impl FnMut(&mut [usize; N], usize, Range<usize>),
    ) {
        match self.order {
            Iterate::Right => box_rows::<N, true>(lo, hi, row),
            Iterate::Left => box_rows::<N, false>(lo, hi, row),
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
    box_rows::<N, RIGHT>(lo, hi, |idx, inner, xs| {
        for x in xs {
            idx[inner] = x;
            f(*idx);
        }
    });
}

/// Calls `row(idx, inner, xs)` for every row of the non-empty box `lo..hi` along its fastest
/// dimension `inner` (the last when `RIGHT`, else the first), in the box's order: `idx` holds
/// the row's other coordinates, and the row's indices are `idx` with `idx[inner]` set to each
/// `x` of `xs`.
#[inline(always)]
fn box_rows<const N: usize, const RIGHT: bool>(
    lo: &[usize; N],
    hi: &[usize; N],
    mut row: impl FnMut(&mut [usize; N], usize, Range<usize>),
) {
    // Dimension `level` of the order slowest to fastest.
    let dim = |level: usize| if RIGHT { level } else { N - 1 - level };
    let inner = dim(N - 1);
    let mut idx = *lo;
    loop {
        row(&mut idx, inner, lo[inner]..hi[inner]);
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

/// Accumulators [`run_reduce_lanes`] interleaves.
pub const REDUCE_LANES: usize = 4;

/// Folds `body` over every index of `r` for a reducer whose join is commutative and associative
/// ([`Reducer::commutative`]), and returns the partial: item `r.start + k` goes into accumulator
/// `k % REDUCE_LANES`, and the accumulators are joined in lane order at the end. Items still run
/// one by one in index order (so the first failing item is the one a plain fold would meet); only
/// the accumulator they fold into changes. Why: a fold into one accumulator is a dependency chain
/// (a float sum adds one item per add latency, 3-4 cycles), slower than memory delivers a
/// streaming dot product on one core; four independent chains are not. The chunk is checked
/// like [`run_for_chunk`]; a chunk that fails the check takes the plain fold.
#[inline(never)]
pub fn run_reduce_lanes<A, B: ReduceBody<RangeWork, A>, Rd: Reducer<A>>(
    body: &B,
    r: Range<usize>,
    reducer: &Rd,
) -> A {
    let mut a0 = reducer.init();
    let n = r.len();
    if n < 2 * REDUCE_LANES || !body.__in_bounds(r.start, r.end - 1) {
        run_reduce_chunk(body, r, &mut a0);
        return a0;
    }
    let (mut a1, mut a2, mut a3) = (reducer.init(), reducer.init(), reducer.init());
    let whole = r.start + n / REDUCE_LANES * REDUCE_LANES;
    let mut i = r.start;
    while i < whole {
        // SAFETY: the whole chunk was checked just above.
        unsafe {
            body.__call_unchecked(i, &mut a0);
            body.__call_unchecked(i + 1, &mut a1);
            body.__call_unchecked(i + 2, &mut a2);
            body.__call_unchecked(i + 3, &mut a3);
        }
        i += REDUCE_LANES;
    }
    let lanes = [&mut a0, &mut a1, &mut a2];
    for (k, j) in (whole..r.end).enumerate() {
        // SAFETY: as above.
        unsafe { body.__call_unchecked(j, &mut *lanes[k]) };
    }
    reducer.join(&mut a0, a1);
    reducer.join(&mut a0, a2);
    reducer.join(&mut a0, a3);
    a0
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

/// A scan body's non-final pass seen as a reduction body, so that the first pass of a parallel
/// scan (each chunk's total) can take [`run_reduce_lanes`] when the scan's join is commutative.
/// Why it may: a scan body folds its contribution into `partial` alike in both passes (the
/// kernel macro rejects a body that does otherwise) and writes nothing when `!is_final` outside
/// `unsafe`, so its non-final calls are the fold of a reduction; every item is still called once
/// in index order, a chunk's total only sets where the next chunk's final pass starts, and the
/// final pass still runs each chunk in index order.
pub struct ScanTotals<'a, B>(pub &'a B);

impl<W: WorkKind, A, B: ScanBody<W, A>> ReduceBody<W, A> for ScanTotals<'_, B> {
    #[inline(always)]
    fn call(&self, work: W::Item<'_>, acc: &mut A) {
        self.0.call(work, acc, false)
    }
    #[inline(always)]
    fn __in_bounds(&self, first: W::Item<'_>, last: W::Item<'_>) -> bool {
        self.0.__in_bounds(first, last)
    }
    #[inline(always)]
    unsafe fn __call_unchecked(&self, work: W::Item<'_>, acc: &mut A) {
        // SAFETY: the caller's promise for `ReduceBody::__call_unchecked` is the scan body's.
        unsafe { self.0.__call_unchecked(work, acc, false) }
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

/// Folds `body` over tiles `tiles` of `grid` for a commutative reducer, as [`run_reduce_lanes`]
/// does over a range: along each row of the fastest dimension, consecutive items go to four
/// interleaved accumulators, which are joined in lane order at the end. Items run in the
/// policy's order; a tile that fails its check takes the plain fold (into the first lane).
#[inline(never)]
pub fn run_reduce_tiles_lanes<const N: usize, A, B, Rd>(
    body: &B,
    grid: &TileGrid<N>,
    tiles: Range<usize>,
    reducer: &Rd,
) -> A
where
    B: ReduceBody<MDWork<N>, A>,
    Rd: Reducer<A>,
{
    let mut a0 = reducer.init();
    let (mut a1, mut a2, mut a3) = (reducer.init(), reducer.init(), reducer.init());
    grid.for_each_tile_box(tiles, |lo, hi| {
        if !body.__in_bounds(*lo, last_of(hi)) {
            grid.for_each_in_box(lo, hi, |idx| body.call(idx, &mut a0));
            return;
        }
        grid.for_each_row_in_box(lo, hi, |idx, inner, xs| {
            let whole = xs.start + xs.len() / REDUCE_LANES * REDUCE_LANES;
            let mut x = xs.start;
            // SAFETY (every call below): checked for the whole tile just above.
            while x < whole {
                let at = |k: usize| {
                    let mut i = *idx;
                    i[inner] = x + k;
                    i
                };
                unsafe {
                    body.__call_unchecked(at(0), &mut a0);
                    body.__call_unchecked(at(1), &mut a1);
                    body.__call_unchecked(at(2), &mut a2);
                    body.__call_unchecked(at(3), &mut a3);
                }
                x += REDUCE_LANES;
            }
            let lanes = [&mut a0, &mut a1, &mut a2];
            for (k, x) in (whole..xs.end).enumerate() {
                idx[inner] = x;
                unsafe { body.__call_unchecked(*idx, &mut *lanes[k]) };
            }
        });
    });
    reducer.join(&mut a0, a1);
    reducer.join(&mut a0, a2);
    reducer.join(&mut a0, a3);
    a0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reduce body that records the order it is called in, fails (panics) at `fail_at`, and
    /// folds `(count, sum of i², MinLoc and MaxLoc of a constant)` so that the lanes' partials
    /// can be checked against the items.
    struct Recorder {
        calls: std::sync::Mutex<Vec<usize>>,
        fail_at: Option<usize>,
        in_bounds: bool,
    }
    type Acc = (
        u64,
        u64,
        crate::reducer::ValLoc<u64>,
        crate::reducer::ValLoc<u64>,
    );
    impl ReduceBody<RangeWork, Acc> for Recorder {
        fn call(&self, i: usize, acc: &mut Acc) {
            self.calls.lock().unwrap().push(i);
            assert_ne!(Some(i), self.fail_at, "item {i} fails");
            let v = i as u64;
            acc.0 += 1;
            acc.1 = acc.1.wrapping_add(v.wrapping_mul(v));
            // MinLoc / MaxLoc folds that break ties by the smaller location, as the reducer
            // docs ask: all values equal, so both keep the first index.
            if 7 < acc.2.val || (7 == acc.2.val && i < acc.2.loc) {
                acc.2 = crate::reducer::ValLoc { val: 7, loc: i };
            }
            if 7 > acc.3.val || (7 == acc.3.val && i < acc.3.loc) {
                acc.3 = crate::reducer::ValLoc { val: 7, loc: i };
            }
        }
        fn __in_bounds(&self, _first: usize, _last: usize) -> bool {
            self.in_bounds
        }
    }

    proptest::proptest! {
        /// The lanes fold gives what one accumulator gives (integers and ties by location are
        /// grouping-independent) and calls every item once, in index order, whether the chunk
        /// passes its check or not.
        #[test]
        fn reduce_lanes_match_one_accumulator(start in 0usize..50, len in 0usize..70, in_bounds: bool) {
            use crate::reducer::{MaxLoc, MinLoc, Sum};
            let r = start..start + len;
            let red = (Sum, Sum, MinLoc, MaxLoc);
            let body = Recorder { calls: Default::default(), fail_at: None, in_bounds };
            let got = run_reduce_lanes(&body, r.clone(), &red);
            proptest::prop_assert_eq!(body.calls.into_inner().unwrap(), r.clone().collect::<Vec<_>>());
            let sq: u64 = r.clone().map(|i| (i * i) as u64).sum();
            proptest::prop_assert_eq!((got.0, got.1), (len as u64, sq));
            // The first index holding the extremum; the identity's location when there is none.
            let first = if len == 0 { usize::MAX } else { start };
            proptest::prop_assert_eq!((got.2.loc, got.3.loc), (first, first));
        }
    }

    /// A rank-3 reduce body that records its calls and folds `(count, Σ hash(index))`.
    struct Recorder3 {
        calls: std::sync::Mutex<Vec<[usize; 3]>>,
        in_bounds: bool,
    }
    fn hash3(i: [usize; 3]) -> u64 {
        (i[0] as u64 * 1_000_003 + i[1] as u64 * 1009 + i[2] as u64).wrapping_mul(0x9e37_79b9)
    }
    impl ReduceBody<MDWork<3>, (u64, u64)> for Recorder3 {
        fn call(&self, i: [usize; 3], acc: &mut (u64, u64)) {
            self.calls.lock().unwrap().push(i);
            acc.0 += 1;
            acc.1 = acc.1.wrapping_add(hash3(i));
        }
        fn __in_bounds(&self, _first: [usize; 3], _last: [usize; 3]) -> bool {
            self.in_bounds
        }
    }

    proptest::proptest! {
        /// The MDRange lanes fold visits the tiles' items in the policy's order (each once) and
        /// gives one accumulator's integer result, for any box, tile shape and order.
        #[test]
        fn reduce_tiles_lanes_match_one_accumulator(
            lo in proptest::array::uniform3(0usize..4),
            len in proptest::array::uniform3(0usize..9),
            tile in proptest::array::uniform3(0usize..5),
            left: bool,
            in_bounds: bool,
        ) {
            use crate::reducer::Sum;
            let hi = [lo[0] + len[0], lo[1] + len[1], lo[2] + len[2]];
            let order = if left { Iterate::Left } else { Iterate::Right };
            let p = MDRangePolicy::new(&(), lo, hi).tile(tile).iterate(order);
            let g = TileGrid::new(&p);
            let body = Recorder3 { calls: Default::default(), in_bounds };
            let got = run_reduce_tiles_lanes(&body, &g, 0..g.len(), &(Sum, Sum));
            let want = row_major_visits(&p);
            let sum = want.iter().fold(0u64, |a, &i| a.wrapping_add(hash3(i)));
            proptest::prop_assert_eq!(got, (want.len() as u64, sum));
            proptest::prop_assert_eq!(body.calls.into_inner().unwrap(), want);
        }
    }

    /// An item that fails stops the fold there, as a plain fold does: the items before it ran,
    /// none after it.
    #[test]
    fn reduce_lanes_fail_at_the_same_item() {
        use crate::reducer::{MaxLoc, MinLoc, Sum};
        for fail in [0usize, 1, 5, 17, 18, 19] {
            let body = Recorder {
                calls: Default::default(),
                fail_at: Some(fail),
                in_bounds: true,
            };
            let red = (Sum, Sum, MinLoc, MaxLoc);
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_reduce_lanes(&body, 0..20, &red)
            }));
            assert!(res.is_err());
            assert_eq!(
                body.calls.into_inner().unwrap_or_else(|e| e.into_inner()),
                (0..=fail).collect::<Vec<_>>()
            );
        }
    }

    fn row_major_visits<const N: usize>(p: &MDRangePolicy<(), N>) -> Vec<[usize; N]> {
        let g = TileGrid::new(p);
        let mut seen = Vec::new();
        for t in 0..g.len() {
            g.for_each_in_tile(t, |i| seen.push(i));
        }
        seen
    }

    #[test]
    fn default_tiles_widen_rows_and_keep_the_order() {
        // A 254³ interior: rows of 254 widened to 9 rows (2286 items) per tile.
        let p = MDRangePolicy::new(&(), [1, 1, 1], [255, 255, 255]);
        let g = TileGrid::new(&p);
        assert_eq!(g.tile, [1, 9, 254]);
        assert_eq!(g.len(), 254 * 254usize.div_ceil(9));
        // Small boxes keep at least 64 tiles where they have that many rows; 2-D rows of 4094 stay rows.
        assert_eq!(
            TileGrid::new(&MDRangePolicy::new(&(), [0, 0], [64, 10])).tile,
            [1, 10]
        );
        assert_eq!(
            TileGrid::new(&MDRangePolicy::new(&(), [1, 1], [4095, 4095])).tile,
            [1, 4094]
        );
        // Rank 4 with short rows widens over every dimension, the slowest last and partly.
        let g4 = TileGrid::new(&MDRangePolicy::new(&(), [0; 4], [100, 50, 8, 4]));
        assert_eq!(g4.tile, [2, 50, 8, 4]);
        // A tile set by the user is kept as given.
        let set = MDRangePolicy::new(&(), [0, 0, 0], [9, 9, 9]).tile([0, 0, 3]);
        assert_eq!(TileGrid::new(&set).tile, [1, 1, 3]);
        // Whatever the shape and order, the tiles visit the box in the order of its rows.
        for order in [Iterate::Right, Iterate::Left] {
            for ext in [[3usize, 5, 7], [70, 2, 3], [1, 1, 300], [40, 40, 1]] {
                let p = MDRangePolicy::new(&(), [0; 3], ext).iterate(order);
                let mut want = Vec::new();
                let (a, b, c) = if order == Iterate::Right {
                    (0, 1, 2)
                } else {
                    (2, 1, 0)
                };
                for x in 0..ext[a] {
                    for y in 0..ext[b] {
                        for z in 0..ext[c] {
                            let mut i = [0; 3];
                            (i[a], i[b], i[c]) = (x, y, z);
                            want.push(i);
                        }
                    }
                }
                assert_eq!(row_major_visits(&p), want, "{ext:?} {order:?}");
            }
        }
    }

    proptest::proptest! {
        /// Every schedule's chunk count is 0 for no work and otherwise in `1..=n`; no chunk holds
        /// more than `MAX_CHUNK_ITEMS` items unless the chunk size asks for more; a `Dynamic`
        /// chunk holds at most the chunk size unless the launch would pass `DYNAMIC_CHUNKS_MAX`
        /// chunks; `Auto` and `Static` cut alike.
        #[test]
        fn schedule_chunk_counts_are_bounded(
            n in proptest::prop_oneof![0usize..5000, 0usize..(1 << 40)],
            unit in proptest::prop_oneof![proptest::strategy::Just(1usize), 1usize..5000],
            workers in 1usize..64,
            chunk in proptest::prop_oneof![proptest::strategy::Just(0usize), 1usize..10_000],
        ) {
            for s in [Schedule::Auto, Schedule::Static, Schedule::Dynamic] {
                let c = schedule_chunk_count(n, unit, workers, chunk, s);
                if n == 0 {
                    proptest::prop_assert_eq!(c, 0);
                    continue;
                }
                proptest::prop_assert!(c >= 1 && c <= n, "{:?}: {}", s, c);
                let longest = n.div_ceil(c);
                let cap = (MAX_CHUNK_ITEMS / unit).max(chunk).max(1);
                proptest::prop_assert!(longest <= cap, "{:?}: {} per chunk", s, longest);
                if s == Schedule::Dynamic && chunk > 0 && n.div_ceil(chunk) <= DYNAMIC_CHUNKS_MAX {
                    proptest::prop_assert!(longest <= chunk, "{} per chunk > {}", longest, chunk);
                }
                if s == Schedule::Dynamic {
                    proptest::prop_assert!(c <= DYNAMIC_CHUNKS_MAX.max(n.div_ceil(cap)));
                }
            }
            proptest::prop_assert_eq!(
                schedule_chunk_count(n, unit, workers, chunk, Schedule::Static),
                chunk_count_of(n, unit, workers, chunk)
            );
        }
    }

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
    fn chunks_are_bounded_in_items_unless_the_policy_asks_for_more() {
        for (n, unit, workers, min) in [
            (1usize << 31, 1usize, 2usize, 1usize),
            (usize::MAX, 1, 16, 1),
            (1 << 31, 4096, 2, 1),
            (1 << 40, 1, 1, 1 << 30),
            (5, 1 << 30, 2, 1),
        ] {
            let chunks = chunk_count_of(n, unit, workers, min);
            assert!(
                chunks >= 1 && chunks <= n,
                "{n} {unit} {workers} {min}: {chunks}"
            );
            let longest = n.div_ceil(chunks);
            let cap = (MAX_CHUNK_ITEMS / unit).max(min).max(1);
            assert!(
                longest <= cap,
                "{n} {unit}: {longest} units per chunk, cap {cap}"
            );
        }
        // Small launches keep about four chunks per worker.
        assert_eq!(chunk_count(1 << 16, 4, 1), 16);
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
