//! The team member handed to team kernels on host backends.
//!
//! Host backends run teams of one thread: nested thread, vector and team-vector ranges run
//! sequentially in the calling worker, barriers are no-ops and broadcasts return their argument.
//! Scratch memory comes from a per-worker arena sized from the policy's scratch request.

use crate::access::WriteAccess;
use crate::error::{Error, Result};
use crate::failure::raise_failed;
use crate::layout::element_count;
use crate::layout::{Layout, LayoutRight};
use crate::reducer::Reducer;
use crate::scalar::Scalar;
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::{Range, RangeInclusive};
use std::sync::Mutex;

mod sealed {
    /// Implemented for `usize`, `Range<usize>` and `RangeInclusive<usize>` only: see
    /// [`super::NestedIndices`].
    pub trait SealedNestedRange {}
    impl SealedNestedRange for usize {}
    impl SealedNestedRange for std::ops::Range<usize> {}
    impl SealedNestedRange for std::ops::RangeInclusive<usize> {}
}

/// Arguments accepted as a nested range: a count `n` (meaning `0..n`), a `Range<usize>` or a
/// `RangeInclusive<usize>` (`first..=last`, which reaches `usize::MAX` without forming `last + 1`).
/// Sealed, as [`NestedIndices`] is.
pub trait IntoNestedRange: sealed::SealedNestedRange {
    /// The indices, in order.
    type Indices: NestedIndices;
    /// The range.
    fn into_range(self) -> Self::Indices;
}
impl IntoNestedRange for usize {
    type Indices = Range<usize>;
    #[inline(always)]
    fn into_range(self) -> Range<usize> {
        0..self
    }
}
impl IntoNestedRange for Range<usize> {
    type Indices = Range<usize>;
    #[inline(always)]
    fn into_range(self) -> Range<usize> {
        self
    }
}
impl IntoNestedRange for RangeInclusive<usize> {
    type Indices = RangeInclusive<usize>;
    #[inline(always)]
    fn into_range(self) -> RangeInclusive<usize> {
        self
    }
}

/// The indices of a nested range, with their first and last element: what `#[kernel]` checks
/// once for a whole range before running its body with unchecked accesses.
///
/// Sealed: that check trusts `first_last` to bound every index the iterator yields (a range that
/// yielded an index past its reported last one would run unchecked accesses out of bounds), which
/// std's ranges of `usize` guarantee and a user iterator need not.
pub trait NestedIndices: sealed::SealedNestedRange + Iterator<Item = usize> {
    /// The first and the last index, or `None` when the range is empty.
    fn first_last(&self) -> Option<(usize, usize)>;
}
impl NestedIndices for Range<usize> {
    #[inline(always)]
    fn first_last(&self) -> Option<(usize, usize)> {
        (self.start < self.end).then(|| (self.start, self.end - 1))
    }
}
impl NestedIndices for RangeInclusive<usize> {
    #[inline(always)]
    fn first_last(&self) -> Option<(usize, usize)> {
        // `is_empty` also covers an exhausted range, whose bounds no longer describe its indices.
        (!self.is_empty()).then(|| (*self.start(), *self.end()))
    }
}

/// Bytes of scratch to request (per team or per thread) for `count` elements of `T`, including
/// the arena's alignment padding: requests built by summing these always fit, in any order of
/// the scratch Views they are for. That is the size rounded up to 8 bytes, plus, for a type
/// aligned to more than 8, the padding its start may need (`align_of::<T>() - 8`). Saturates at
/// `usize::MAX` when the size does not fit, a request every policy refuses
/// (`Err(InvalidPolicy)`).
///
/// ```
/// use rokkos_core::team::scratch_size;
/// assert_eq!(scratch_size::<i32>(3), 16);
/// assert_eq!(scratch_size::<f64>(3), 24);
/// assert_eq!(scratch_size::<u128>(1), 16 + std::mem::align_of::<u128>() - 8);
/// assert_eq!(scratch_size::<f64>(usize::MAX / 4), usize::MAX);
/// ```
pub const fn scratch_size<T>(count: usize) -> usize {
    let pad = if std::mem::align_of::<T>() > 8 {
        std::mem::align_of::<T>() - 8
    } else {
        0
    };
    match count.checked_mul(std::mem::size_of::<T>()) {
        Some(bytes) => match bytes.checked_next_multiple_of(8) {
            Some(b) => match b.checked_add(pad) {
                Some(b) => b,
                None => usize::MAX,
            },
            None => usize::MAX,
        },
        None => usize::MAX,
    }
}

/// The alignment of an arena's first byte: that of every type up to a cache line of 64 bytes
/// (a larger one is aligned too, taking padding from the arena).
const BASE_ALIGN: usize = 64;

/// Scratch memory of one team at one level: a bump allocator over a byte buffer.
pub struct ScratchArena {
    // Kept only to own the memory; all access goes through `base`.
    _buf: Vec<u64>,
    /// The first byte handed out: [`BASE_ALIGN`]-aligned, so that offsets aligned for a type
    /// are addresses aligned for it (the buffer itself is only 8-aligned).
    base: *mut u8,
    capacity: usize,
    used: Cell<usize>,
}

// SAFETY: the arena owns its buffer, and `base` points into that heap block, which moving the
// arena does not move; moving it needs no borrow alive, so no team can be using it meanwhile.
unsafe impl Send for ScratchArena {}

impl ScratchArena {
    /// An arena of `bytes` bytes (zero-filled once; reused across teams without clearing), or
    /// `Err(OutOfMemory)` naming `label` (the launch's kernel) when the memory cannot be had.
    pub fn new(label: &str, bytes: usize) -> Result<Self> {
        let oom = || Error::OutOfMemory {
            label: label.to_string(),
            bytes,
        };
        // Zeroed by the allocator: fresh pages, untouched until a team uses them. The extra
        // words let `base` start at the next multiple of BASE_ALIGN inside the buffer.
        let words = bytes
            .div_ceil(8)
            .checked_add(BASE_ALIGN / 8)
            .ok_or_else(oom)?;
        let mut buf: Vec<u64> = bytemuck::allocation::try_zeroed_vec(words).map_err(|()| oom())?;
        let start = buf.as_mut_ptr() as *mut u8;
        let skip = start.align_offset(BASE_ALIGN);
        // SAFETY: `skip < BASE_ALIGN`, and the buffer has BASE_ALIGN bytes beyond `bytes`.
        let base = unsafe { start.add(skip) };
        Ok(ScratchArena {
            capacity: bytes.div_ceil(8) * 8,
            _buf: buf,
            base,
            used: Cell::new(0),
        })
    }
    /// An arena of no bytes (allocates nothing, cannot fail).
    fn empty() -> Self {
        ScratchArena {
            _buf: Vec::new(),
            // Never dereferenced: every request it grants is of no bytes.
            base: std::ptr::without_provenance_mut(BASE_ALIGN),
            capacity: 0,
            used: Cell::new(0),
        }
    }
    /// The arenas of levels 0 and 1 for one team at a time.
    pub fn pair(label: &str, bytes: [usize; 2]) -> Result<[Self; 2]> {
        Ok([Self::new(label, bytes[0])?, Self::new(label, bytes[1])?])
    }
    /// Frees everything allocated so far (start of a new team). Only [`TeamMember::new`] calls it:
    /// accessors handed out earlier must be dead by then, which its contract guarantees.
    fn reset(&self) {
        self.used.set(0);
    }
    fn capacity(&self) -> usize {
        self.capacity
    }
    fn take<T>(&self, count: usize) -> Option<*mut T> {
        let align = std::mem::align_of::<T>().max(8);
        if count.checked_mul(std::mem::size_of::<T>())? == 0 {
            // No bytes: an aligned pointer that is never dereferenced, wherever the arena is.
            return Some(std::ptr::without_provenance_mut(align));
        }
        // The offset of the next address aligned for `T` (from the address: a `T` of any
        // alignment is never misaligned). `scratch_size`'s padding covers the distance.
        let at = (self.base as usize).checked_add(self.used.get())?;
        let start = at.checked_next_multiple_of(align)? - self.base as usize;
        let end = start.checked_add(count.checked_mul(std::mem::size_of::<T>())?)?;
        if end > self.capacity() {
            return None;
        }
        self.used.set(end);
        // SAFETY: `start..end` lies inside the buffer; each call hands out a fresh, disjoint range.
        Some(unsafe { self.base.add(start) } as *mut T)
    }
}

/// The scratch arenas of one host team launch, made before any team runs: a launch whose
/// scratch does not fit in memory fails whole (`Err(OutOfMemory)`), never after some teams ran.
/// Tasks borrow a pair of arenas (levels 0 and 1) for a run of teams and give it back; a task
/// that finds none free waits for the end of the launch's parallel part (see
/// [`ScratchPool::with`]).
pub struct ScratchPool {
    bytes: [usize; 2],
    free: Mutex<Vec<[ScratchArena; 2]>>,
}

impl ScratchPool {
    /// Up to `pairs` pairs of arenas of `bytes[0]` and `bytes[1]` bytes: as many as the memory
    /// holds, for fewer tasks at once rather than none, and `Err(OutOfMemory)` naming `label`
    /// (the kernel) when not even one pair fits. A launch without scratch allocates nothing.
    pub fn new(label: &str, bytes: [usize; 2], pairs: usize) -> Result<Self> {
        let pairs = if bytes == [0, 0] { 0 } else { pairs };
        let mut free = Vec::with_capacity(pairs);
        for _ in 0..pairs {
            match ScratchArena::pair(label, bytes) {
                Ok(pair) => free.push(pair),
                Err(e) if free.is_empty() => return Err(e),
                Err(_) => break,
            }
        }
        Ok(ScratchPool {
            bytes,
            free: Mutex::new(free),
        })
    }
    /// Runs `f` with a pair of arenas nobody else is using, or answers `None` when every pair is
    /// lent out (more tasks at once than the pool was made for: a kernel's nested rayon work can
    /// make its worker start another task of the same launch).
    pub fn with<R>(&self, f: impl FnOnce(&[ScratchArena; 2]) -> R) -> Option<R> {
        if self.bytes == [0, 0] {
            // Empty arenas allocate nothing: no need to share them.
            return Some(f(&[ScratchArena::empty(), ScratchArena::empty()]));
        }
        let pair = self.lock().pop()?;
        // Given back even when `f` panics, so that the pool stays whole for the launch's end.
        let lent = Lent { pool: self, pair };
        Some(f(&lent.pair))
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<[ScratchArena; 2]>> {
        // Only `pop` and `push` run under the lock, and neither panics: the Vec never holds more
        // pairs than it was made with, so `push` never reallocates.
        self.free.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A pair of arenas lent out by a [`ScratchPool`], given back on drop.
struct Lent<'p> {
    pool: &'p ScratchPool,
    pair: [ScratchArena; 2],
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        let empty = [ScratchArena::empty(), ScratchArena::empty()];
        let pair = std::mem::replace(&mut self.pair, empty);
        self.pool.lock().push(pair);
    }
}

/// One team's handle in a host team kernel.
pub struct TeamMember<'t> {
    league_rank: usize,
    league_size: usize,
    vector_length: usize,
    kernel: &'static str,
    scratch: [&'t ScratchArena; 2],
    _not_sync: PhantomData<Cell<()>>,
}

impl<'t> TeamMember<'t> {
    /// Handle for team `league_rank` of `league_size`. Backends only.
    ///
    /// # Safety
    /// The member, and every scratch accessor it hands out, must stay on the creating thread, and each
    /// arena must serve one team at a time: scratch accessors are `Sync` because only the kernel
    /// body, which runs on this thread, can reach them.
    #[doc(hidden)]
    pub unsafe fn new(
        kernel: &'static str,
        league_rank: usize,
        league_size: usize,
        vector_length: usize,
        scratch: [&'t ScratchArena; 2],
    ) -> Self {
        scratch[0].reset();
        scratch[1].reset();
        TeamMember {
            league_rank,
            league_size,
            vector_length,
            kernel,
            scratch,
            _not_sync: PhantomData,
        }
    }
    /// This team's index in the league.
    #[inline(always)]
    pub fn league_rank(&self) -> usize {
        self.league_rank
    }
    /// Number of teams.
    #[inline(always)]
    pub fn league_size(&self) -> usize {
        self.league_size
    }
    /// This thread's index in the team (always 0 on host backends).
    #[inline(always)]
    pub fn team_rank(&self) -> usize {
        0
    }
    /// Threads per team (1 on host backends).
    #[inline(always)]
    pub fn team_size(&self) -> usize {
        1
    }
    /// Vector length of the launch (host backends run vector ranges sequentially).
    #[inline(always)]
    pub fn vector_length(&self) -> usize {
        self.vector_length
    }
    /// Waits for all threads of the team.
    #[inline(always)]
    pub fn team_barrier(&self) {}
    /// Returns `value` as held by thread `src` of the team.
    #[inline(always)]
    pub fn team_broadcast<T: Copy>(&self, value: T, _src: usize) -> T {
        value
    }
    /// Kokkos' functor form of `team_broadcast`: thread `src` applies `f` to its `value`, and
    /// every thread of the team receives the result. In a kernel, `#[kernel]` writes the call as
    /// `if team.team_rank() == src { f(value) } else { value }` broadcast from `src`, so only
    /// thread `src` runs `f` on every backend.
    ///
    /// ```text
    /// let twice = team.team_broadcast_with(x, 0, |v| v * 2.0);
    /// ```
    #[inline(always)]
    pub fn team_broadcast_with<T: Copy>(&self, value: T, src: usize, f: impl FnOnce(T) -> T) -> T {
        let mine = if self.team_rank() == src {
            f(value)
        } else {
            value
        };
        self.team_broadcast(mine, src)
    }
    /// Indices of a `TeamThreadRange`: split across the team's threads.
    #[inline(always)]
    pub fn thread_range<N: IntoNestedRange>(&self, r: N) -> N::Indices {
        r.into_range()
    }
    /// Indices of a `ThreadVectorRange`: split across the calling thread's vector lanes.
    #[inline(always)]
    pub fn vector_range<N: IntoNestedRange>(&self, r: N) -> N::Indices {
        r.into_range()
    }
    /// Indices of a `TeamVectorRange`: split across all threads and lanes of the team.
    #[inline(always)]
    pub fn team_vector_range<N: IntoNestedRange>(&self, r: N) -> N::Indices {
        r.into_range()
    }
    /// Indices of a `TeamThreadMDRange` of `extents` (2 to 8 of them in Kokkos; any rank here),
    /// in row-major order. In a kernel, `for [i, j] in team.thread_md_range([n0, n1]) { .. }`
    /// splits the first extent across the team's threads and runs the others in each thread, as
    /// Kokkos' host backends and its CUDA backend do with `Iterate::Right`: `#[kernel]` writes it as
    /// `for i in team.thread_range(n0) { for j in 0..n1 { .. } }`, so every backend and every rule
    /// sees plain nested ranges.
    ///
    /// ```text
    /// #[kernel]
    /// fn fill(team: &TeamMember, y: ViewMut<f64, 3>) {
    ///     let l = team.league_rank();
    ///     for [i, j] in team.thread_md_range([y.extent(1), y.extent(2)]) {
    ///         y[(l, i, j)] = (i * 10 + j) as f64;
    ///     }
    /// }
    /// ```
    #[inline(always)]
    pub fn thread_md_range<const N: usize>(&self, extents: [usize; N]) -> MdIndices<N> {
        MdIndices::new(extents)
    }
    /// Indices of a `ThreadVectorMDRange` of `extents`: the first extent split across the calling
    /// thread's vector lanes, the others run in each lane (see [`TeamMember::thread_md_range`]).
    #[inline(always)]
    pub fn vector_md_range<const N: usize>(&self, extents: [usize; N]) -> MdIndices<N> {
        MdIndices::new(extents)
    }
    /// Indices of a `TeamVectorMDRange` of `extents` (at least 2): the first extent split across
    /// the team's threads and the second across each thread's vector lanes, as Kokkos documents;
    /// the others run in each lane. `#[kernel]` writes it as a `thread_range` over the first
    /// extent holding a `vector_range` over the second.
    #[inline(always)]
    pub fn team_vector_md_range<const N: usize>(&self, extents: [usize; N]) -> MdIndices<N> {
        MdIndices::new(extents)
    }
    /// Reduction over a `TeamThreadMDRange`: `f([i, j, ..], acc)` for every index of `extents`;
    /// every thread of the team receives the result. In a kernel, `#[kernel]` writes it as a
    /// `thread_reduce` over the first extent whose closure loops over the others, so it takes
    /// every reducer `thread_reduce` takes.
    #[inline(always)]
    pub fn thread_md_reduce<T, Rd: Reducer<T>, const N: usize>(
        &self,
        extents: [usize; N],
        reducer: Rd,
        f: impl FnMut([usize; N], &mut T),
    ) -> T {
        md_reduce(extents, &reducer, f)
    }
    /// Reduction over a `ThreadVectorMDRange` (see [`TeamMember::thread_md_reduce`]).
    #[inline(always)]
    pub fn vector_md_reduce<T, Rd: Reducer<T>, const N: usize>(
        &self,
        extents: [usize; N],
        reducer: Rd,
        f: impl FnMut([usize; N], &mut T),
    ) -> T {
        md_reduce(extents, &reducer, f)
    }
    /// Reduction over a `TeamVectorMDRange`: a sum, as in Kokkos (whose `TeamVectorMDRange`
    /// reductions are limited to sums). `#[kernel]` writes it as a `thread_reduce` over the first
    /// extent adding up a `vector_reduce` over the second.
    #[inline(always)]
    pub fn team_vector_md_reduce<T, Rd: Reducer<T>, const N: usize>(
        &self,
        extents: [usize; N],
        reducer: Rd,
        f: impl FnMut([usize; N], &mut T),
    ) -> T {
        md_reduce(extents, &reducer, f)
    }
    /// Reduction over a `TeamThreadRange`; every thread of the team receives the result.
    #[inline(always)]
    pub fn thread_reduce<T, Rd: Reducer<T>>(
        &self,
        r: impl IntoNestedRange,
        reducer: Rd,
        f: impl FnMut(usize, &mut T),
    ) -> T {
        nested_reduce(r.into_range(), &reducer, f)
    }
    /// Reduction over a `ThreadVectorRange`; every lane receives the result.
    #[inline(always)]
    pub fn vector_reduce<T, Rd: Reducer<T>>(
        &self,
        r: impl IntoNestedRange,
        reducer: Rd,
        f: impl FnMut(usize, &mut T),
    ) -> T {
        nested_reduce(r.into_range(), &reducer, f)
    }
    /// Reduction over a `TeamVectorRange`.
    #[inline(always)]
    pub fn team_vector_reduce<T, Rd: Reducer<T>>(
        &self,
        r: impl IntoNestedRange,
        reducer: Rd,
        f: impl FnMut(usize, &mut T),
    ) -> T {
        nested_reduce(r.into_range(), &reducer, f)
    }
    /// Exclusive sum scan over a `TeamThreadRange`: `f(j, partial, is_final)`; returns the total.
    #[inline(always)]
    pub fn thread_scan<T: Scalar>(
        &self,
        r: impl IntoNestedRange,
        f: impl FnMut(usize, &mut T, bool),
    ) -> T {
        nested_scan(r.into_range(), f)
    }
    /// Exclusive sum scan over a `ThreadVectorRange`; returns the total.
    #[inline(always)]
    pub fn vector_scan<T: Scalar>(
        &self,
        r: impl IntoNestedRange,
        f: impl FnMut(usize, &mut T, bool),
    ) -> T {
        nested_scan(r.into_range(), f)
    }
    /// Exclusive sum scan over a `TeamVectorRange`; returns the total.
    #[inline(always)]
    pub fn team_vector_scan<T: Scalar>(
        &self,
        r: impl IntoNestedRange,
        f: impl FnMut(usize, &mut T, bool),
    ) -> T {
        nested_scan(r.into_range(), f)
    }
    /// Runs `f` once for the whole team and broadcasts its result to every thread.
    #[inline(always)]
    pub fn single_team<T>(&self, f: impl FnOnce() -> T) -> T {
        f()
    }
    /// Runs `f` once per thread (one vector lane) and broadcasts its result to the thread's lanes.
    #[inline(always)]
    pub fn single_thread<T>(&self, f: impl FnOnce() -> T) -> T {
        f()
    }
    /// Team-shared scratch View of `extents` at `level`, in `LayoutRight`.
    ///
    /// A request beyond what the policy reserved for the level (including one whose element count
    /// or byte size overflows) fails the launch with `Err(KernelFailed)` naming the sizes.
    pub fn team_scratch<T: Copy, const R: usize>(
        &self,
        level: usize,
        extents: [usize; R],
    ) -> WriteAccess<'t, T, R, LayoutRight> {
        self.scratch_view(level, extents, "team scratch")
    }
    /// Thread-private scratch View of `extents` at `level`, in `LayoutRight`.
    pub fn thread_scratch<T: Copy, const R: usize>(
        &self,
        level: usize,
        extents: [usize; R],
    ) -> WriteAccess<'t, T, R, LayoutRight> {
        self.scratch_view(level, extents, "thread scratch")
    }
    fn scratch_view<T: Copy, const R: usize>(
        &self,
        level: usize,
        extents: [usize; R],
        what: &'static str,
    ) -> WriteAccess<'t, T, R, LayoutRight> {
        let arena = self.scratch[level.min(1)];
        // A count that overflows `usize` fits no reservation (and must not wrap into one that does).
        let count = element_count(&extents);
        let taken = match count {
            Some(n) if level < 2 => arena.take::<T>(n),
            _ => None,
        };
        let Some(ptr) = taken else {
            let size = std::mem::size_of::<T>();
            let cap = arena.capacity();
            raise_failed(
                self.kernel,
                match count {
                    Some(n) => format!(
                        "{what} of {n} elements of {size} bytes at level {level} exceeds the {cap} bytes the TeamPolicy reserved \
                         (request it with TeamPolicy::scratch)"
                    ),
                    None => format!(
                        "{what} with extents {} has more than usize::MAX elements (of {size} bytes); level {level} has the {cap} bytes \
                         the TeamPolicy reserved",
                        crate::index::fmt_index(&extents)
                    ),
                },
            )
        };
        let strides = LayoutRight::contiguous_strides(&extents).expect("LayoutRight has strides");
        // SAFETY: a fresh disjoint region of the team's arena, used by this team only (team size 1).
        unsafe { WriteAccess::new(ptr, extents, strides, what, self.kernel) }
    }
}

#[inline(always)]
fn nested_reduce<T, Rd: Reducer<T>>(
    r: impl Iterator<Item = usize>,
    reducer: &Rd,
    mut f: impl FnMut(usize, &mut T),
) -> T {
    let mut acc = reducer.init();
    for j in r {
        f(j, &mut acc);
    }
    acc
}

/// The indices of a nested MD range ([`TeamMember::thread_md_range`] and kin), in row-major
/// order (last index fastest); none when an extent is 0.
#[derive(Clone, Debug)]
pub struct MdIndices<const N: usize> {
    extents: [usize; N],
    next: Option<[usize; N]>,
}

impl<const N: usize> MdIndices<N> {
    fn new(extents: [usize; N]) -> Self {
        let next = (!extents.contains(&0)).then_some([0; N]);
        MdIndices { extents, next }
    }
}

impl<const N: usize> Iterator for MdIndices<N> {
    type Item = [usize; N];
    #[inline]
    fn next(&mut self) -> Option<[usize; N]> {
        let cur = self.next?;
        let mut idx = cur;
        // Odometer step: the last index fastest; past the end when the first one carries out.
        let mut d = N;
        self.next = loop {
            if d == 0 {
                break None;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < self.extents[d] {
                break Some(idx);
            }
            idx[d] = 0;
        };
        Some(cur)
    }
}

fn md_reduce<T, Rd: Reducer<T>, const N: usize>(
    extents: [usize; N],
    reducer: &Rd,
    mut f: impl FnMut([usize; N], &mut T),
) -> T {
    let mut acc = reducer.init();
    for idx in MdIndices::new(extents) {
        f(idx, &mut acc);
    }
    acc
}

#[inline(always)]
fn nested_scan<T: Scalar>(
    r: impl Iterator<Item = usize>,
    mut f: impl FnMut(usize, &mut T, bool),
) -> T {
    let mut acc = T::ZERO;
    for j in r {
        f(j, &mut acc, true);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A nested MD range visits what `for_each_index` visits, in the same order, once each;
        /// an extent of 0 anywhere gives no index.
        #[test]
        fn md_indices_are_row_major(e0 in 0usize..5, e1 in 0usize..5, e2 in 0usize..4) {
            let mut want = Vec::new();
            crate::index::for_each_index(&[e0, e1, e2], |i| want.push(*i));
            let got: Vec<[usize; 3]> = MdIndices::new([e0, e1, e2]).collect();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(got.len(), e0 * e1 * e2);
            let sum = md_reduce([e0, e1, e2], &crate::reducer::Sum, |[i, j, k], acc: &mut usize| {
                *acc += i * 100 + j * 10 + k
            });
            prop_assert_eq!(sum, want.iter().map(|[i, j, k]| i * 100 + j * 10 + k).sum::<usize>());
        }
    }

    /// Over-aligned element types get aligned addresses wherever the arena's buffer lies and
    /// whatever was taken before (a `u128`, a 32- and a 128-byte aligned struct after a `u8`),
    /// an empty request included; requests sized by summing `scratch_size` fit, in any order.
    #[test]
    fn scratch_of_over_aligned_types_is_aligned() {
        #[derive(Clone, Copy)]
        #[repr(C, align(32))]
        struct A32([f64; 4]);
        #[derive(Clone, Copy)]
        #[repr(C, align(128))]
        struct A128([u8; 128]);
        for bytes in [0usize, 1, 24, 200, 1000] {
            let want = scratch_size::<u8>(3)
                + scratch_size::<u128>(2)
                + scratch_size::<A32>(3)
                + scratch_size::<A128>(1)
                + scratch_size::<u8>(5);
            let a = ScratchArena::new("t", bytes.max(want)).unwrap();
            assert!(a.take::<u8>(3).is_some());
            let p = a.take::<u128>(2).expect("fits its scratch_size");
            assert_eq!(p as usize % std::mem::align_of::<u128>(), 0);
            let p = a.take::<A32>(3).expect("fits its scratch_size");
            assert_eq!(p as usize % 32, 0);
            let p = a.take::<A128>(1).expect("fits its scratch_size");
            assert_eq!(p as usize % 128, 0);
            assert!(a.take::<u8>(5).is_some());
            let p = a.take::<A128>(0).expect("nothing always fits");
            assert_eq!(p as usize % 128, 0);
        }
        let e = ScratchArena::empty();
        assert_eq!(e.take::<A32>(0).unwrap() as usize % 32, 0);
        assert_eq!(e.take::<A128>(0).unwrap() as usize % 128, 0);
        assert!(e.take::<A32>(1).is_none());
    }

    /// Bytes no allocator can provide (the address space is smaller), though below `isize::MAX`.
    const UNOBTAINABLE: usize = isize::MAX as usize - 7;

    /// An arena that cannot be had is `Err(OutOfMemory)` naming the kernel, not an abort.
    #[test]
    fn arena_allocation_failure_is_an_error() {
        match ScratchArena::new("kern", UNOBTAINABLE) {
            Err(Error::OutOfMemory { label, bytes }) => {
                assert_eq!((label.as_str(), bytes), ("kern", UNOBTAINABLE))
            }
            Err(e) => panic!("expected OutOfMemory, got {e:?}"),
            Ok(_) => panic!("expected OutOfMemory, got an arena"),
        }
        let r = ScratchPool::new("kern", [64, UNOBTAINABLE], 2);
        assert!(matches!(r, Err(Error::OutOfMemory { .. })));
        assert_eq!(ScratchArena::new("kern", 20).unwrap().capacity(), 24);
    }

    /// The pool lends each pair to one borrower at a time, says `None` when all are lent, and gets
    /// a pair back even from a borrower that panicked.
    #[test]
    fn pool_lends_each_pair_once() {
        let pool = ScratchPool::new("kern", [16, 32], 2).unwrap();
        let caps = pool.with(|[a, b]| {
            pool.with(|_| assert!(pool.with(|_| ()).is_none(), "two pairs, both lent"))
                .expect("a second pair");
            [a.capacity(), b.capacity()]
        });
        assert_eq!(caps, Some([16, 32]));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.with(|_| panic!("kernel failed"))
        }));
        assert!(r.is_err());
        pool.with(|_| assert!(pool.with(|_| ()).is_some(), "the pair came back"))
            .expect("a pair");
        // Without scratch nothing is shared, so nothing runs out.
        let none = ScratchPool::new("kern", [0, 0], 0).unwrap();
        assert_eq!(
            none.with(|_| none.with(|[a, _]| a.capacity())),
            Some(Some(0))
        );
    }
}
