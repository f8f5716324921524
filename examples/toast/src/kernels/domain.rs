//! The iteration domain of every per-sample kernel (spec §1.2): detectors × the samples of each
//! interval, with no padding. [`Intervals`] holds a validated interval list in the space's
//! memory and sizes the policy of each loop design; [`RowIndex`] is a detector → buffer-row map,
//! a rokkos [`InjectiveView`] (checked injective), which with the intervals' chunks held as
//! rokkos [`DisjointRanges`] (checked pairwise disjoint) is what makes the kernels' writes at
//! `out[(row[d], s)]` disjoint, and lets `#[kernel]` prove it: no kernel needs `unsafe`.
//!
//! The team and MDRange designs give a work item a *chunk* of an interval (at most
//! [`CHUNK_SAMPLES`] samples, rounded up to a multiple of the alignment asked for), not the
//! whole interval: with one long interval per detector, a work item per (detector, interval)
//! would leave all threads but one idle, where TOAST's OpenMP loops split the samples.
//! The macros at the bottom write one per-sample body into the three loop designs and launch
//! the one asked for, so each kernel's math exists once.

use super::{invalid, Design, DevView};
use crate::Interval;
use rokkos::prelude::*;
use rokkos::Result;
use rokkos::{DisjointRanges, InjectiveView, Pod};

/// The samples of a work item of the team and MDRange designs: an interval longer than this is
/// split into chunks of `CHUNK_SAMPLES` samples (rounded up to a multiple of the alignment, see
/// [`Intervals::aligned`]), the last one shorter. Enough samples that a chunk's own cost (its
/// bounds, the `per_detector` lookups) is a fraction of a percent of its samples'; few enough
/// that one interval of a typical observation (10^5–10^6 samples) makes tens of work items,
/// which balance over the threads of a host and fill more of a GPU.
pub const CHUNK_SAMPLES: usize = 4096;

/// A sorted, disjoint list of non-empty intervals, in the memory of `E`, with what the three
/// loop designs need: the bounds, the exclusive prefix sum of the lengths (flattened design) and
/// the intervals' chunks with the longest chunk's length (team and MDRange designs).
pub struct Intervals<E: ExecutionSpace> {
    /// `[n_view][2]`: `first`, `last` (inclusive).
    pub(crate) bounds: DevView<E, i64, 2>,
    /// The chunks' bounds (inclusive) as rokkos' [`DisjointRanges`]: every interval split at
    /// `first + m·chunk` into consecutive chunks, in order. A sample of chunk `c` (a thread range
    /// over its bounds, or its start `+ k` guarded by `<=` its end) is owned by whoever owns
    /// `c`, so the team and MDRange designs write `out[(row[d], s)]` without `unsafe`.
    pub(crate) ranges: DisjointRanges<u32, E::Memory>,
    /// `[n_chunk][2]`: the interval each chunk is a part of, and that interval's first sample
    /// (the kernels' `v` and `first`).
    pub(crate) chunks: DevView<E, i64, 2>,
    /// `[n_view + 1]`: `offsets[v] = Σ_{u<v} len_u`, the flat index of view `v`'s first sample.
    pub(crate) offsets: DevView<E, i64>,
    /// `[total]`: the sample at each flat index, every interval's samples in order. Injective
    /// because the intervals are disjoint, so the flattened design's writes at
    /// `out[(row[d], samples[r])]` are owned by the work item `(d, r)` without `unsafe`.
    /// Made on the first flattened launch ([`Intervals::samples`]): the other designs need no
    /// memory of the samples' size.
    samples: std::sync::OnceLock<InjectiveView<u32, E::Memory>>,
    /// The bounds on the host, inclusive, for the sample map.
    host_ranges: Vec<(u32, u32)>,
    /// The lengths, on the host (the offset template sizes its amplitudes from them).
    lens: Vec<i64>,
    n_view: usize,
    n_chunk: usize,
    total: usize,
    max_len: usize,
    max_chunk: usize,
    end: usize,
}

impl<E: ExecutionSpace> Intervals<E> {
    /// Checks `list` and copies it into `space`'s memory: every interval non-empty
    /// (`0 <= first <= last`), sorted, and disjoint from the next (`last < next.first`).
    /// Disjointness is what lets two views of one detector write their samples concurrently.
    pub fn new(space: &E, list: &[Interval]) -> Result<Self> {
        Self::aligned(space, list, 1)
    }

    /// [`Intervals::new`] with chunk boundaries at multiples of `align` samples from each
    /// interval's first sample (`align` 0 counts as 1): a kernel that sums runs of `align`
    /// samples (the offset template's amplitudes of `step_length` samples) then has each run in
    /// one work item, which adds its samples in order, so the sums do not depend on the
    /// chunking.
    pub(crate) fn aligned(space: &E, list: &[Interval], align: usize) -> Result<Self> {
        let mut prev_last = -1i64;
        let mut offsets = Vec::with_capacity(list.len() + 1);
        let mut total = 0i64;
        let mut max_len = 0i64;
        for (v, iv) in list.iter().enumerate() {
            if iv.first < 0 || iv.last < iv.first || iv.first <= prev_last {
                return Err(invalid(format!(
                    "interval {v} ({}..={}) must satisfy 0 <= first <= last and start after the \
                     previous interval's last sample ({prev_last})",
                    iv.first, iv.last
                )));
            }
            prev_last = iv.last;
            offsets.push(total);
            total += iv.len();
            max_len = max_len.max(iv.len());
        }
        offsets.push(total);
        if prev_last > u32::MAX as i64 {
            return Err(invalid(format!(
                "sample {prev_last} is beyond the 2^32 samples an interval may reach"
            )));
        }
        let flat: Vec<i64> = list.iter().flat_map(|iv| [iv.first, iv.last]).collect();
        // Every sample fits u32 (checked above), so the bounds do.
        let ranges: Vec<(u32, u32)> = list
            .iter()
            .map(|iv| (iv.first as u32, iv.last as u32))
            .collect();
        // Samples are below 2^32: a longer alignment is the same as a chunk per interval.
        let align = (align.max(1) as u64).min(1 << 33);
        let chunk = (CHUNK_SAMPLES as u64).div_ceil(align) * align;
        let mut chunk_ranges = Vec::with_capacity(list.len());
        let mut chunk_of = Vec::with_capacity(2 * list.len());
        let mut max_chunk = 0u64;
        for (v, &(f, l)) in ranges.iter().enumerate() {
            let (mut lo, last) = (f as u64, l as u64);
            while lo <= last {
                // lo < 2^32 and chunk < 2^34: no overflow.
                let hi = (lo + chunk - 1).min(last);
                chunk_ranges.push((lo as u32, hi as u32));
                chunk_of.extend([v as i64, f as i64]);
                max_chunk = max_chunk.max(hi - lo + 1);
                lo = hi + 1;
            }
        }
        let n_chunk = chunk_ranges.len();
        Ok(Intervals {
            bounds: upload(space, "intervals", [list.len(), 2], flat)?,
            ranges: DisjointRanges::new_on(space, "interval chunks", &chunk_ranges)?,
            chunks: upload(space, "interval of each chunk", [n_chunk, 2], chunk_of)?,
            offsets: upload(space, "interval offsets", [list.len() + 1], offsets)?,
            samples: std::sync::OnceLock::new(),
            host_ranges: ranges,
            lens: list.iter().map(Interval::len).collect(),
            n_view: list.len(),
            n_chunk,
            total: total as usize,
            max_len: max_len as usize,
            max_chunk: max_chunk as usize,
            end: (prev_last + 1) as usize,
        })
    }

    /// Reads TOAST 3's intervals, which are **half-open** (`first <= s < last`, as every TOAST 3
    /// kernel loops): empty ones (`first == last`) are skipped, an interval may end at `n_samp`,
    /// and the rest must be sorted and disjoint as in [`Intervals::new`]. `last < first` is an
    /// error naming the interval.
    ///
    /// ```
    /// use rokkos_toast::{kernels::Intervals, Interval};
    /// let iv = Intervals::half_open(&rokkos::Serial, &Interval::list(&[(0, 5), (5, 5), (8, 10)]))?;
    /// assert_eq!((iv.n_view(), iv.total(), iv.end()), (2, 7, 10));
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn half_open(space: &E, list: &[Interval]) -> Result<Self> {
        Self::half_open_aligned(space, list, 1)
    }

    /// [`Intervals::half_open`] with chunks aligned as in [`Intervals::aligned`].
    pub(crate) fn half_open_aligned(space: &E, list: &[Interval], align: usize) -> Result<Self> {
        let mut inclusive = Vec::with_capacity(list.len());
        for (v, iv) in list.iter().enumerate() {
            if iv.last < iv.first {
                return Err(invalid(format!(
                    "TOAST 3 interval {v} ({}..{}) ends before it starts",
                    iv.first, iv.last
                )));
            }
            if iv.last > iv.first {
                inclusive.push(Interval {
                    last: iv.last - 1,
                    ..*iv
                });
            }
        }
        Self::aligned(space, &inclusive, align)
    }

    /// The sample at each flat index (the flattened design's map), made in `space`'s memory on
    /// first use.
    pub(crate) fn samples(&self, space: &E) -> Result<&InjectiveView<u32, E::Memory>> {
        if let Some(s) = self.samples.get() {
            return Ok(s);
        }
        let flat: Vec<u32> = self.host_ranges.iter().flat_map(|&(f, l)| f..=l).collect();
        let made = InjectiveView::new_on(space, "interval samples", &flat)?;
        // Another thread may have made it meanwhile: either copy is the same map.
        let _ = self.samples.set(made);
        Ok(self.samples.get().expect("set above"))
    }

    /// The number of intervals.
    pub fn n_view(&self) -> usize {
        self.n_view
    }

    /// The length of each interval.
    pub fn lens(&self) -> &[i64] {
        &self.lens
    }

    /// The number of chunks the team and MDRange designs give a work item each (per detector):
    /// every interval split into pieces of at most [`CHUNK_SAMPLES`] samples (more when aligned
    /// to a longer run).
    ///
    /// ```
    /// use rokkos_toast::{kernels::{Intervals, CHUNK_SAMPLES}, Interval};
    /// let n = CHUNK_SAMPLES as i64;
    /// let iv = Intervals::new(&rokkos::Serial, &Interval::list(&[(0, 9), (10, 10 + 2 * n)]))?;
    /// // The second interval has 2·CHUNK_SAMPLES + 1 samples: three chunks.
    /// assert_eq!((iv.n_view(), iv.n_chunk()), (2, 4));
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn n_chunk(&self) -> usize {
        self.n_chunk
    }

    /// The number of samples in all intervals together.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The longest interval's length.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// One past the last sample any interval covers (0 without intervals): buffers need at
    /// least this many samples.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Checks that a buffer with `n_samp` samples per row holds every interval.
    pub(crate) fn fit(&self, what: &str, n_samp: usize) -> Result<()> {
        if self.end > n_samp {
            return Err(invalid(format!(
                "{what} has {n_samp} samples per row but the intervals reach sample {}",
                self.end - 1
            )));
        }
        Ok(())
    }
}

/// A detector → buffer-row map in the memory of `E`: entries non-negative and pairwise distinct,
/// checked when it is made ([`row_index`]) and never writable afterwards (rokkos'
/// [`InjectiveView`]). Kernels write `out[(row[d] as usize, s)]` through it without `unsafe`.
pub type RowIndex<E> = InjectiveView<i32, <E as ExecutionSpace>::Memory>;

/// Checks that `rows` is injective and non-negative and copies it into `space`'s memory.
pub fn row_index<E: ExecutionSpace>(space: &E, rows: &[i32]) -> Result<RowIndex<E>> {
    InjectiveView::new_on(space, "row index", rows)
}

/// Checks that a buffer with `n_rows` rows holds every row `index` names.
pub(crate) fn fit_rows<M: rokkos::MemorySpace>(
    index: &InjectiveView<i32, M>,
    what: &str,
    n_rows: usize,
) -> Result<()> {
    if index.bound() > n_rows {
        return Err(invalid(format!(
            "{what} has {n_rows} rows but the row index names row {}",
            index.bound() - 1
        )));
    }
    Ok(())
}

/// A View in `space`'s memory holding `data` (C order), copied from the host.
pub fn upload<E: ExecutionSpace, T: Pod, const R: usize>(
    space: &E,
    label: &str,
    extents: [usize; R],
    data: Vec<T>,
) -> Result<DevView<E, T, R>> {
    let host = View::<T, R>::from_vec(label, extents, data)?;
    let dev = View::new_in(&space.memory_space(), label, extents)?;
    deep_copy(&dev, &host)?;
    Ok(dev)
}

impl Design {
    /// The team policy: one team per (detector, chunk of an interval).
    pub(crate) fn team<E: ExecutionSpace>(
        space: &E,
        n_det: usize,
        iv: &Intervals<E>,
    ) -> TeamPolicy<E> {
        TeamPolicy::new(space, n_det * iv.n_chunk, TeamSize::Auto)
    }

    /// The MDRange policy over (detector, chunk, sample within the longest chunk).
    pub(crate) fn mdrange<E: ExecutionSpace>(
        space: &E,
        n_det: usize,
        iv: &Intervals<E>,
    ) -> MDRangePolicy<E, 3> {
        MDRangePolicy::new(space, [0, 0, 0], [n_det, iv.n_chunk, iv.max_chunk])
    }

    /// The flat range over every (detector, flat index of a sample in an interval).
    pub(crate) fn flat<E: ExecutionSpace>(
        space: &E,
        n_det: usize,
        iv: &Intervals<E>,
    ) -> MDRangePolicy<E, 2> {
        MDRangePolicy::new(space, [0, 0], [n_det, iv.total])
    }
}

/// Writes one per-sample body as the three loop-design kernels of spec §1.2:
///
/// - `team`: a team per (detector, chunk of an interval), `TeamThreadRange` over the chunk's
///   samples;
/// - `mdrange`: an MDRange over (detector, chunk, k < the longest chunk's length) that returns
///   early where `start + k` is past the chunk's end;
/// - `flat`: an MDRange over every (detector, flat sample index) pair: the sample is the
///   intervals' injective sample map at the flat index, the interval (for bodies that need it)
///   found by a binary search of the prefix sum of the lengths.
///
/// The body sees the detector `d`, the interval `v`, its first sample `first` (i64) and the
/// sample `s` (names chosen by the caller) and the kernel's own parameters, and writes at
/// `out[(row, s)]` with `let row = index[d] as usize;` (`index` an `InjectiveView` parameter).
///
/// An optional `per_detector { .. }` block before the body holds what depends on `d`, `v` and
/// `first` only (the row lookups `let row = index[d] as usize;`, per-detector parameters): the
/// team design runs it once per team (a chunk), before its sample loop, the other two designs
/// once per work item before the body. The compiler cannot hoist those lookups itself: the body's
/// stores go through raw pointers that, as far as it knows, may alias the index Views, so it
/// would reload and re-check each of them at every sample. The block must read only what is
/// in bounds for every detector (or guard the read as the body would).
///
/// `#[kernel]` proves every write at `out[(row, s)]` owned by the work item, with no `unsafe`:
/// `row` is `d` through an `InjectiveView`, and `s` is held by what owns it in each design. In
/// the flat kernel `d` and the flat index are work indices and `s` a lookup of the flat index in
/// an `InjectiveView`. In the other two `s` is a sample of chunk `c` of the chunks'
/// [`DisjointRanges`] (checked pairwise disjoint by rokkos), so it determines `c` (and, as
/// the chunk's start `+ k` in the MDRange design, `k`); the team design owns `d` and `c` as the
/// league rank's quotient and remainder by the number of chunks. `v` and `first` are read from
/// the chunk's entry of the intervals' chunk table: the body may read with them, not own by
/// them.
macro_rules! per_sample_kernels {
    (
        $(#[$meta:meta])*
        kernels $team:ident, $mdrange:ident, $flat:ident;
        generics [$($gen:tt)*];
        params ($($params:tt)*);
        $(per_detector { $($pre:tt)* })?
        |$d:ident, $v:ident, $first:ident, $s:ident| $body:block
    ) => {
        $(#[$meta])*
        #[kernel]
        fn $team<$($gen)*>(
            iv_team: &TeamMember,
            iv_ranges: DisjointRanges<u32>,
            iv_chunks: View<i64, 2>,
            $($params)*
        ) {
            let iv_rank = iv_team.league_rank();
            let iv_n_chunk = iv_ranges.extent(0);
            let $d = iv_rank / iv_n_chunk;
            let iv_c = iv_rank % iv_n_chunk;
            // Loads from a read-only View at a team-uniform index are team-uniform, so they
            // can bound the team range on every backend.
            let iv_lo = iv_ranges[(iv_c, 0)];
            let iv_hi = iv_ranges[(iv_c, 1)];
            let $v = iv_chunks[(iv_c, 0)] as usize;
            let $first = iv_chunks[(iv_c, 1)];
            $($($pre)*)?
            for $s in iv_team.thread_range(iv_lo as usize..=iv_hi as usize) {
                $body
            }
        }

        $(#[$meta])*
        #[kernel]
        fn $mdrange<$($gen)*>(
            ($d, iv_c, iv_k): (usize, usize, usize),
            iv_ranges: DisjointRanges<u32>,
            iv_chunks: View<i64, 2>,
            $($params)*
        ) {
            let $s = iv_ranges[(iv_c, 0)] as usize + iv_k;
            if $s > iv_ranges[(iv_c, 1)] as usize {
                return;
            }
            let $v = iv_chunks[(iv_c, 0)] as usize;
            let $first = iv_chunks[(iv_c, 1)];
            $($($pre)*)?
            $body
        }

        $(#[$meta])*
        #[kernel]
        fn $flat<$($gen)*>(
            ($d, iv_r): (usize, usize),
            iv_bounds: View<i64, 2>,
            iv_samples: InjectiveView<u32>,
            iv_offsets: View<i64>,
            $($params)*
        ) {
            let iv_flat = iv_r as i64;
            // The last interval whose first flat index is <= r (lengths are positive, so the
            // offsets increase strictly).
            let mut iv_lo = 0usize;
            let mut iv_hi = iv_bounds.extent(0);
            while iv_hi - iv_lo > 1 {
                let iv_mid = (iv_lo + iv_hi) / 2;
                if iv_offsets[iv_mid] <= iv_flat {
                    iv_lo = iv_mid;
                } else {
                    iv_hi = iv_mid;
                }
            }
            let $v = iv_lo;
            let $first = iv_bounds[($v, 0)];
            // The intervals' sample map is injective: `s` is owned by the work item's `iv_r`.
            let $s = iv_samples[iv_r] as usize;
            $($($pre)*)?
            $body
        }
    };
}

/// Launches one of the three kernels [`per_sample_kernels!`] wrote, with the policy of the
/// chosen design over `n_det` detectors and the intervals `iv`, and the kernel's own arguments.
macro_rules! launch_per_sample {
    (
        $space:expr, $label:expr, $design:expr, $n_det:expr, $iv:expr,
        [$team:ident, $mdrange:ident, $flat:ident]($($arg:expr),* $(,)?)
    ) => {{
        let (space, iv, n_det) = ($space, $iv, $n_det);
        match $design {
            Design::Team => parallel_for(
                $label,
                Design::team(space, n_det, iv),
                $team(&iv.ranges, &iv.chunks, $($arg),*),
            ),
            Design::MDRange => parallel_for(
                $label,
                Design::mdrange(space, n_det, iv),
                $mdrange(&iv.ranges, &iv.chunks, $($arg),*),
            ),
            Design::Flat => parallel_for(
                $label,
                Design::flat(space, n_det, iv),
                $flat(&iv.bounds, iv.samples(space)?, &iv.offsets, $($arg),*),
            ),
        }
    }};
}
