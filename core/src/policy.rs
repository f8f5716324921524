//! Execution policies: which work items a parallel pattern runs, and on which execution space.

use crate::error::{Error, Result};
use crate::kernel::{KernelIr, MDWork, RangeWork, TeamWork, WorkKind};
use crate::space::{ExecutionSpace, TeamLimits};
use std::ops::Range;

mod sealed {
    pub trait SealedPolicy {}
}

/// What a launch token ([`crate::launch::Launch`]) knows about its policy: the execution space it
/// runs on and the kind of work item it hands out. Implemented by [`RangePolicy`],
/// [`MDRangePolicy`] and [`TeamPolicy`] only.
pub trait Policy: sealed::SealedPolicy {
    /// The execution space.
    type Space: ExecutionSpace;
    /// The work items.
    type Work: WorkKind;
    /// The policy's own `validate`: its checks against the space's limits.
    fn check(&self, label: &str) -> Result<()>;
    /// The name of the execution space (for messages).
    fn space_name(&self) -> &'static str;
}
impl<E: ExecutionSpace> sealed::SealedPolicy for RangePolicy<E> {}
impl<E: ExecutionSpace> Policy for RangePolicy<E> {
    type Space = E;
    type Work = RangeWork;
    fn check(&self, label: &str) -> Result<()> {
        self.validate(label)
    }
    fn space_name(&self) -> &'static str {
        self.space.name()
    }
}
impl<E: ExecutionSpace, const N: usize> sealed::SealedPolicy for MDRangePolicy<E, N> {}
impl<E: ExecutionSpace, const N: usize> Policy for MDRangePolicy<E, N> {
    type Space = E;
    type Work = MDWork<N>;
    fn check(&self, label: &str) -> Result<()> {
        self.validate(label)
    }
    fn space_name(&self) -> &'static str {
        self.space.name()
    }
}
impl<E: ExecutionSpace> sealed::SealedPolicy for TeamPolicy<E> {}
impl<E: ExecutionSpace> Policy for TeamPolicy<E> {
    type Space = E;
    type Work = TeamWork;
    fn check(&self, label: &str) -> Result<()> {
        self.validate(label)
    }
    fn space_name(&self) -> &'static str {
        self.space.name()
    }
}

/// How a host backend hands a launch's chunks of work to its threads: Kokkos'
/// `Schedule<Static>` / `Schedule<Dynamic>`, set with [`RangePolicy::schedule`],
/// [`MDRangePolicy::schedule`] or [`TeamPolicy::schedule`].
///
/// What each backend does with it:
///
/// | | serial | rayon | wgpu, CUDA |
/// | --- | --- | --- | --- |
/// | `Auto` | one loop in order | about four chunks per thread; each thread claims the chunks of its own contiguous block one by one, then helps with the others' | the hardware scheduler |
/// | `Static` | one loop in order | one contiguous block of chunks per thread, decided before the launch; a block runs whole, in order, on one thread | hint, ignored |
/// | `Dynamic` | one loop in order | the threads claim chunks one at a time from one shared counter, so that uneven work balances | hint, ignored |
///
/// On rayon a chunk of a range holds the policy's chunk size in indices (for `Dynamic`
/// exactly that many, the last chunk shorter, unless the launch would have more than
/// `rokkos_core::host_iter::DYNAMIC_CHUNKS_MAX` chunks; without a chunk size about sixteen per
/// thread); of an MDRange, consecutive tiles; of a team policy, consecutive league ranks
/// ([`TeamPolicy::chunk_size`]). The device backends schedule blocks or workgroups in hardware, as
/// Kokkos' CUDA backend ignores the schedule, so the schedule changes nothing there.
///
/// Results never depend on the schedule beyond what they depend on today: a reduction keeps one
/// partial per chunk and joins the partials in chunk order, whichever thread ran each chunk, so
/// a floating-point result is the same from run to run for a given schedule, chunk size and
/// thread count; a scan keeps its order (its two passes run chunks in any order, and every chunk's
/// offset is the join of the earlier chunks' totals in chunk order).
///
/// ```
/// use rokkos_core::{RangePolicy, Schedule};
/// let p = RangePolicy::new(&(), 0..1000).schedule(Schedule::Dynamic).chunk_size(8);
/// assert_eq!(p.schedule_kind(), Schedule::Dynamic);
/// assert_eq!(RangePolicy::new(&(), 0..10).schedule_kind(), Schedule::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Schedule {
    /// The backend's default (on rayon: per-thread blocks with help from idle threads).
    #[default]
    Auto,
    /// Contiguous, equal blocks of work per thread, decided up front (OpenMP's
    /// `schedule(static)`): no claiming while a launch runs, the best locality from one launch to
    /// the next over the same range.
    Static,
    /// Threads claim chunks from a shared counter as they finish earlier ones (OpenMP's
    /// `schedule(dynamic, chunk)`): for work whose cost varies from item to item.
    Dynamic,
}

/// A 1-D range of indices `begin..end`, optionally with a chunk size (the smallest number of
/// consecutive indices a worker takes).
///
/// On a device backend (wgpu, CUDA) one launch runs at most 2^40 indices
/// (`rokkos_device::runtime::limits::ITEMS_MAX`); a longer range is `Err(InvalidPolicy)` naming the
/// limit, nothing launched, so that every accepted launch finishes in bounded time.
///
/// ```
/// use rokkos_core::RangePolicy;
/// // The first argument is the execution space, e.g. `rokkos::Serial`; any `Clone` value works here.
/// let p = RangePolicy::new(&(), 0..100).chunk_size(16);
/// assert_eq!(p.len(), 100);
/// ```
#[derive(Debug, Clone)]
pub struct RangePolicy<E> {
    space: E,
    begin: usize,
    end: usize,
    chunk: usize,
    schedule: Schedule,
}

impl<E: Clone> RangePolicy<E> {
    /// Indices `range.start..range.end` on `space`.
    pub fn new(space: &E, range: Range<usize>) -> Self {
        RangePolicy {
            space: space.clone(),
            begin: range.start,
            end: range.end,
            chunk: 0,
            schedule: Schedule::Auto,
        }
    }
    /// Sets the chunk size (0 lets the backend choose).
    pub fn chunk_size(mut self, chunk: usize) -> Self {
        self.chunk = chunk;
        self
    }
    /// Sets the schedule (see [`Schedule`]; the default is [`Schedule::Auto`]).
    ///
    /// ```
    /// use rokkos_core::{RangePolicy, Schedule};
    /// let p = RangePolicy::new(&(), 0..64).schedule(Schedule::Static);
    /// assert_eq!(p.schedule_kind(), Schedule::Static);
    /// // Kept when a run-time space hands the policy to the backend it stands for.
    /// assert_eq!(p.with_space(&1u8).schedule_kind(), Schedule::Static);
    /// ```
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }
}

impl<E> RangePolicy<E> {
    /// The same range, chunk size and schedule on another execution space (what a run-time
    /// space hands the backend it stands for; see [`crate::Launch::delegate`]).
    pub fn with_space<E2: Clone>(&self, space: &E2) -> RangePolicy<E2> {
        RangePolicy {
            space: space.clone(),
            begin: self.begin,
            end: self.end,
            chunk: self.chunk,
            schedule: self.schedule,
        }
    }
}

impl<E> RangePolicy<E> {
    /// The execution space.
    pub fn space(&self) -> &E {
        &self.space
    }
    /// First index.
    pub fn begin(&self) -> usize {
        self.begin
    }
    /// One past the last index.
    pub fn end(&self) -> usize {
        self.end
    }
    /// Requested chunk size (0: backend's choice).
    pub fn chunk(&self) -> usize {
        self.chunk
    }
    /// The schedule ([`RangePolicy::schedule`] sets it).
    ///
    /// ```
    /// use rokkos_core::{RangePolicy, Schedule};
    /// assert_eq!(RangePolicy::new(&(), 0..8).schedule_kind(), Schedule::Auto);
    /// ```
    pub fn schedule_kind(&self) -> Schedule {
        self.schedule
    }
    /// Number of indices (0 when `begin >= end`).
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.begin)
    }
    /// True when there is no index.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Checks the policy: `begin <= end`.
    pub fn validate(&self, label: &str) -> Result<()> {
        if self.begin > self.end {
            return Err(Error::policy(
                label,
                format!("range begin {} > end {}", self.begin, self.end),
            ));
        }
        Ok(())
    }
}

/// Which index moves fastest when an MDRange is traversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Iterate {
    /// The last index moves fastest (matches `LayoutRight`).
    #[default]
    Right,
    /// The first index moves fastest (matches `LayoutLeft`).
    Left,
}

/// A rank-`N` box of indices (`2 <= N <= 6`), cut into tiles.
///
/// On a device backend (wgpu, CUDA) one launch runs at most 2^40 points, the product of the
/// box's extents (`rokkos_device::runtime::limits::ITEMS_MAX`); a larger box is `Err(InvalidPolicy)`
/// naming the limit, nothing launched.
#[derive(Debug, Clone)]
pub struct MDRangePolicy<E, const N: usize> {
    space: E,
    begin: [usize; N],
    end: [usize; N],
    tile: [usize; N],
    iterate: Iterate,
    schedule: Schedule,
}

impl<E: Clone, const N: usize> MDRangePolicy<E, N> {
    /// The box `begin[k]..end[k]` in every dimension `k`.
    pub fn new(space: &E, begin: [usize; N], end: [usize; N]) -> Self {
        MDRangePolicy {
            space: space.clone(),
            begin,
            end,
            tile: [0; N],
            iterate: Iterate::Right,
            schedule: Schedule::Auto,
        }
    }
    /// Tile extents (0 in a dimension lets the backend choose).
    pub fn tile(mut self, tile: [usize; N]) -> Self {
        self.tile = tile;
        self
    }
    /// Traversal order inside and across tiles.
    pub fn iterate(mut self, order: Iterate) -> Self {
        self.iterate = order;
        self
    }
    /// Sets the schedule (see [`Schedule`]): on rayon a chunk is a run of consecutive tiles.
    ///
    /// ```
    /// use rokkos_core::{MDRangePolicy, Schedule};
    /// let p = MDRangePolicy::new(&(), [0, 0], [8, 8]).schedule(Schedule::Dynamic);
    /// assert_eq!(p.schedule_kind(), Schedule::Dynamic);
    /// assert_eq!(p.with_space(&1u8).schedule_kind(), Schedule::Dynamic);
    /// ```
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }
}

impl<E, const N: usize> MDRangePolicy<E, N> {
    /// The same box, tiles, order and schedule on another execution space (see
    /// [`RangePolicy::with_space`]).
    pub fn with_space<E2: Clone>(&self, space: &E2) -> MDRangePolicy<E2, N> {
        MDRangePolicy {
            space: space.clone(),
            begin: self.begin,
            end: self.end,
            tile: self.tile,
            iterate: self.iterate,
            schedule: self.schedule,
        }
    }
}

impl<E, const N: usize> MDRangePolicy<E, N> {
    /// The execution space.
    pub fn space(&self) -> &E {
        &self.space
    }
    /// Lower corner.
    pub fn begin(&self) -> [usize; N] {
        self.begin
    }
    /// Upper corner (exclusive).
    pub fn end(&self) -> [usize; N] {
        self.end
    }
    /// Requested tiles (0: backend's choice).
    pub fn tiles(&self) -> [usize; N] {
        self.tile
    }
    /// Traversal order.
    pub fn order(&self) -> Iterate {
        self.iterate
    }
    /// The schedule ([`MDRangePolicy::schedule`] sets it).
    ///
    /// ```
    /// use rokkos_core::{MDRangePolicy, Schedule};
    /// assert_eq!(MDRangePolicy::new(&(), [0, 0], [2, 2]).schedule_kind(), Schedule::Auto);
    /// ```
    pub fn schedule_kind(&self) -> Schedule {
        self.schedule
    }
    /// Number of work items (saturating at `usize::MAX`; [`MDRangePolicy::validate`] refuses boxes
    /// whose count does not fit).
    pub fn len(&self) -> usize {
        self.checked_len().unwrap_or(usize::MAX)
    }
    fn checked_len(&self) -> Option<usize> {
        let mut lens = (0..N).map(|k| self.end[k].saturating_sub(self.begin[k]));
        if lens.clone().any(|l| l == 0) {
            return Some(0);
        }
        lens.try_fold(1usize, |a, l| a.checked_mul(l))
    }
    /// True when the box holds no index.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Checks rank (2..=6) and that `begin <= end` in every dimension.
    pub fn validate(&self, label: &str) -> Result<()> {
        if !(2..=6).contains(&N) {
            return Err(Error::policy(
                label,
                format!("MDRangePolicy rank {N} outside 2..=6"),
            ));
        }
        if self.checked_len().is_none() {
            return Err(Error::policy(
                label,
                "the box holds more than usize::MAX indices",
            ));
        }
        for k in 0..N {
            if self.begin[k] > self.end[k] {
                return Err(Error::policy(
                    label,
                    format!(
                        "dimension {k}: begin {} > end {}",
                        self.begin[k], self.end[k]
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Team size request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamSize {
    /// Let the backend choose.
    Auto,
    /// Exactly this many threads per team.
    Exactly(usize),
}

/// Scratch request of one level: bytes per team and bytes per thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScratchRequest {
    /// Bytes shared by the whole team.
    pub per_team: usize,
    /// Bytes private to each thread.
    pub per_thread: usize,
}

/// A league of teams; each team has `team_size` threads of `vector_length` lanes and may use scratch
/// memory at levels 0 (small, fast) and 1 (large).
///
/// On a device backend (wgpu, CUDA) one launch runs at most `2^31 - 1` teams
/// (`rokkos_device::runtime::limits::LEAGUE_MAX`, Kokkos' own bound), and no team in flight runs more
/// than 2^24 of them one after another (`rokkos_device::runtime::limits::TRIPS_MAX`: a level-1 scratch
/// request so large that only a few teams fit the device's pool can reach it); past either the
/// launch is `Err(InvalidPolicy)` naming the limit, nothing launched. Team size, vector length
/// and scratch are bounded by the space's [`crate::TeamLimits`].
#[derive(Debug, Clone)]
pub struct TeamPolicy<E> {
    space: E,
    league_size: usize,
    team_size: TeamSize,
    vector_length: usize,
    scratch: [ScratchRequest; 2],
    /// The first level outside 0..=1 that [`TeamPolicy::scratch`] was given, kept apart from the
    /// valid levels so that no later call can erase it and validation names the level as given.
    bad_scratch_level: Option<usize>,
    /// League ranks per chunk ([`TeamPolicy::chunk_size`]); `None`: the backend's choice.
    chunk: Option<usize>,
    schedule: Schedule,
}

/// The pattern a team kernel is launched with, for [`TeamPolicy::team_size_max`] and
/// [`TeamPolicy::team_size_recommended`] (Kokkos' `ParallelForTag` / `ParallelReduceTag`): a
/// device team reduction keeps a tree of partials in a block's shared memory, which a
/// `parallel_for` does not need.
///
/// ```
/// use rokkos_core::TeamPattern;
/// assert_ne!(TeamPattern::For, TeamPattern::Reduce);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TeamPattern {
    /// `parallel_for`.
    For,
    /// `parallel_reduce` (with a built-in reducer; a [`crate::Custom`] reducer whose join runs on
    /// the host needs no tree, so the bound holds for it too).
    Reduce,
}

impl<E: ExecutionSpace> TeamPolicy<E> {
    /// `league_size` teams of `team_size` threads.
    pub fn new(space: &E, league_size: usize, team_size: TeamSize) -> Self {
        TeamPolicy {
            space: space.clone(),
            league_size,
            team_size,
            vector_length: 1,
            scratch: [ScratchRequest::default(); 2],
            bad_scratch_level: None,
            chunk: None,
            schedule: Schedule::Auto,
        }
    }
    /// League ranks per chunk (Kokkos' `set_chunk_size`): on rayon the league is cut into chunks
    /// of consecutive ranks, at least this many per chunk (exactly this many, the last shorter,
    /// under [`Schedule::Dynamic`]); unset, the backend chooses. The device backends schedule
    /// teams in hardware and ignore it. A chunk size of 0 is `Err(InvalidPolicy)` at launch.
    ///
    /// ```
    /// use rokkos_core::{Error, TeamPolicy, TeamSize};
    /// # let space = rokkos_core::ir::eval::IrEval;
    /// let p = TeamPolicy::new(&space, 100, TeamSize::Auto).chunk_size(4);
    /// assert_eq!(p.chunk(), Some(4));
    /// let zero = TeamPolicy::new(&space, 100, TeamSize::Auto).chunk_size(0);
    /// assert!(matches!(zero.validate("k"), Err(Error::InvalidPolicy { .. })));
    /// ```
    pub fn chunk_size(mut self, chunk: usize) -> Self {
        self.chunk = Some(chunk);
        self
    }
    /// Sets the schedule (see [`Schedule`]): on rayon, how the league's chunks are handed to
    /// threads.
    ///
    /// ```
    /// use rokkos_core::{Schedule, TeamPolicy, TeamSize};
    /// # let space = rokkos_core::ir::eval::IrEval;
    /// let p = TeamPolicy::new(&space, 100, TeamSize::Auto).schedule(Schedule::Dynamic);
    /// assert_eq!(p.schedule_kind(), Schedule::Dynamic);
    /// assert_eq!(p.with_space(&space).schedule_kind(), Schedule::Dynamic);
    /// ```
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }
    /// Vector length (a power of two).
    pub fn vector_length(mut self, v: usize) -> Self {
        self.vector_length = v;
        self
    }
    /// Scratch of `level` (0 or 1): `per_team` bytes per team plus `per_thread` bytes per thread.
    /// A level outside 0..=1 is reported when the policy is launched.
    pub fn scratch(mut self, level: usize, per_team: usize, per_thread: usize) -> Self {
        match self.scratch.get_mut(level) {
            Some(slot) => {
                *slot = ScratchRequest {
                    per_team,
                    per_thread,
                }
            }
            None => {
                self.bad_scratch_level.get_or_insert(level);
            }
        }
        self
    }
    /// The same league, team size request, vector length, scratch, chunk size and schedule on
    /// another execution space (see [`RangePolicy::with_space`]); `TeamSize::Auto` is resolved by
    /// that space.
    pub fn with_space<E2: ExecutionSpace>(&self, space: &E2) -> TeamPolicy<E2> {
        TeamPolicy {
            space: space.clone(),
            league_size: self.league_size,
            team_size: self.team_size,
            vector_length: self.vector_length,
            scratch: self.scratch,
            bad_scratch_level: self.bad_scratch_level,
            chunk: self.chunk,
            schedule: self.schedule,
        }
    }
    /// The chunk size request ([`TeamPolicy::chunk_size`]); `None` when unset.
    ///
    /// ```
    /// use rokkos_core::{TeamPolicy, TeamSize};
    /// # let space = rokkos_core::ir::eval::IrEval;
    /// assert_eq!(TeamPolicy::new(&space, 8, TeamSize::Auto).chunk(), None);
    /// ```
    pub fn chunk(&self) -> Option<usize> {
        self.chunk
    }
    /// The schedule ([`TeamPolicy::schedule`] sets it).
    ///
    /// ```
    /// use rokkos_core::{Schedule, TeamPolicy, TeamSize};
    /// # let space = rokkos_core::ir::eval::IrEval;
    /// assert_eq!(TeamPolicy::new(&space, 8, TeamSize::Auto).schedule_kind(), Schedule::Auto);
    /// ```
    pub fn schedule_kind(&self) -> Schedule {
        self.schedule
    }
    /// The execution space.
    pub fn space(&self) -> &E {
        &self.space
    }
    /// Number of teams.
    pub fn league_size(&self) -> usize {
        self.league_size
    }
    /// The team size request.
    pub fn team_size_request(&self) -> TeamSize {
        self.team_size
    }
    /// The team size a launch uses: the request, or the space's choice for `Auto`:
    /// [`TeamLimits::team_size_auto`], lowered where that many threads of this policy's vector
    /// length would exceed [`TeamLimits::team_size_max`] (on a GPU a team's threads and lanes share
    /// one block or workgroup, so `Auto` with vector length 32 on CUDA gives 32 threads, not 128:
    /// Kokkos' `AUTO` depends on the vector length too).
    pub fn team_size(&self) -> usize {
        match self.team_size {
            TeamSize::Auto => {
                let lim = self.space.team_limits();
                let fit = (lim.team_size_max / self.vector_length.max(1)).max(1);
                lim.team_size_auto.min(fit).max(1)
            }
            TeamSize::Exactly(n) => n,
        }
    }
    /// Requested vector length.
    pub fn vector_len(&self) -> usize {
        self.vector_length
    }
    /// Scratch requests of levels 0 and 1.
    pub fn scratch_requests(&self) -> [ScratchRequest; 2] {
        self.scratch
    }
    /// Bytes of scratch one team uses at `level` (per-team plus per-thread times team size);
    /// `None` when that overflows `usize` or `level` is not 0 or 1.
    pub fn scratch_bytes(&self, level: usize) -> Option<usize> {
        let r = self.scratch.get(level)?;
        r.per_thread
            .checked_mul(self.team_size())?
            .checked_add(r.per_team)
    }
    /// The largest team size with which this policy (its vector length and scratch requests,
    /// on its space) can launch `kernel` for `pattern`: Kokkos'
    /// `team_size_max(functor, ParallelForTag())`. A launch with a larger team is
    /// `Err(InvalidPolicy)`, nothing launched; one with this team size passes the policy's checks
    /// and the backend's, with two exceptions the backends document: on CUDA the shared memory a
    /// kernel adds of its own (exchange buffers, a team reduction's tree) is known only once it is
    /// emitted, and is checked at launch; on wgpu the bound counts every vector lane as an
    /// invocation, so a kernel whose lanes stay virtual may launch a few more threads where
    /// workgroup memory is what limits the team.
    ///
    /// It is the space's team size limit, shrunk so that every level's scratch (per team plus per
    /// thread times team size) fits that level's limit; on a GPU a team's threads and vector lanes
    /// share one block or workgroup, so the limit there is the block's threads divided by the
    /// vector length. What else the device backends take into account is documented with
    /// [`ExecutionSpace::team_size_max_for`]'s implementations (wgpu: the kernel's workgroup
    /// memory; CUDA: every team kernel is compiled with `__launch_bounds__` for its block, so its
    /// register use never lowers the block size that launches). `Err(InvalidPolicy)` naming the
    /// kernel when no team size fits (a bad vector length or scratch level, or more scratch per
    /// team than the level allows).
    ///
    /// ```
    /// use rokkos_core::{TeamPattern, TeamPolicy, TeamSize};
    /// # use rokkos_core::ir::{build::BuildError, Kernel as Ir};
    /// # use rokkos_core::kernel::{Kernel, KernelArg, KernelIr, ViewArg};
    /// # struct K;
    /// # impl Kernel for K {
    /// #     const NAME: &'static str = "k";
    /// #     type Space = rokkos_core::HostSpace;
    /// #     fn visit_views<'a>(&'a self, _: &mut dyn FnMut(ViewArg<'a>)) {}
    /// # }
    /// # impl KernelIr for K {
    /// #     fn build_ir() -> Result<Ir, BuildError> { Err(BuildError::Unsupported("example".into())) }
    /// #     fn visit_args<'a>(&'a self, _: &mut dyn FnMut(KernelArg<'a, Self::Space>)) {}
    /// # }
    /// # let kernel = K;
    /// // `kernel` is a `#[rokkos::kernel]` value; host spaces run teams of one thread.
    /// let space = rokkos_core::ir::eval::IrEval;
    /// let p = TeamPolicy::new(&space, 16, TeamSize::Auto).scratch(0, 64, 8);
    /// assert_eq!(p.team_size_max(&kernel, TeamPattern::For).unwrap(), 1);
    /// // Level 0 holds 1 MiB per team on the host: more per team than that never fits.
    /// let big = TeamPolicy::new(&space, 16, TeamSize::Auto).scratch(0, 2 << 20, 0);
    /// assert!(big.team_size_max(&kernel, TeamPattern::For).is_err());
    /// ```
    pub fn team_size_max<K: KernelIr>(&self, kernel: &K, pattern: TeamPattern) -> Result<usize> {
        let ir = kernel.ir().ok();
        self.space
            .team_size_max_for(K::NAME, self, ir.as_ref(), pattern)
    }
    /// The team size this policy should use for `kernel` and `pattern`: Kokkos'
    /// `team_size_recommended`. It is what [`TeamSize::Auto`] resolves to for this vector length
    /// ([`TeamPolicy::team_size`]), lowered to [`TeamPolicy::team_size_max`] where scratch or the
    /// kernel allow fewer threads; never above the maximum, at least 1.
    ///
    /// ```
    /// use rokkos_core::{TeamPattern, TeamPolicy, TeamSize};
    /// # use rokkos_core::ir::{build::BuildError, Kernel as Ir};
    /// # use rokkos_core::kernel::{Kernel, KernelArg, KernelIr, ViewArg};
    /// # struct K;
    /// # impl Kernel for K {
    /// #     const NAME: &'static str = "k";
    /// #     type Space = rokkos_core::HostSpace;
    /// #     fn visit_views<'a>(&'a self, _: &mut dyn FnMut(ViewArg<'a>)) {}
    /// # }
    /// # impl KernelIr for K {
    /// #     fn build_ir() -> Result<Ir, BuildError> { Err(BuildError::Unsupported("example".into())) }
    /// #     fn visit_args<'a>(&'a self, _: &mut dyn FnMut(KernelArg<'a, Self::Space>)) {}
    /// # }
    /// # let kernel = K;
    /// let space = rokkos_core::ir::eval::IrEval;
    /// let p = TeamPolicy::new(&space, 16, TeamSize::Auto).vector_length(8);
    /// let rec = p.team_size_recommended(&kernel, TeamPattern::Reduce).unwrap();
    /// assert!(rec >= 1 && rec <= p.team_size_max(&kernel, TeamPattern::Reduce).unwrap());
    /// ```
    pub fn team_size_recommended<K: KernelIr>(
        &self,
        kernel: &K,
        pattern: TeamPattern,
    ) -> Result<usize> {
        let max = self.team_size_max(kernel, pattern)?;
        let lim = self.space.team_limits();
        let fit = (lim.team_size_max / self.vector_length.max(1)).max(1);
        Ok(lim.team_size_auto.min(fit).min(max).max(1))
    }
    /// The largest team size the space's [`TeamLimits`] allow this policy's vector length and
    /// scratch requests (what [`ExecutionSpace::team_size_max_for`] answers by default);
    /// `lanes_share_threads`: a team of `t` threads of vector length `v` takes `t * v` of the
    /// space's `team_size_max` threads (a GPU block or workgroup), else `t`. `Err(InvalidPolicy)`
    /// naming `label` when no team size fits.
    ///
    /// ```
    /// use rokkos_core::{TeamPolicy, TeamSize};
    /// let space = rokkos_core::ir::eval::IrEval;
    /// let p = TeamPolicy::new(&space, 4, TeamSize::Auto).vector_length(4);
    /// assert_eq!(p.team_size_max_in_limits("k", false).unwrap(), 1);
    /// assert!(p.team_size_max_in_limits("k", true).is_err()); // 4 lanes in a team of 1 thread
    /// ```
    pub fn team_size_max_in_limits(&self, label: &str, lanes_share_threads: bool) -> Result<usize> {
        let lim = self.space.team_limits();
        let v = self.vector_length;
        self.check_lanes_and_levels(label, &lim)?;
        let mut max = if lanes_share_threads {
            lim.team_size_max / v
        } else {
            lim.team_size_max
        };
        if max == 0 {
            return Err(Error::policy(
                label,
                format!(
                    "no team of vector length {v} fits `{}`'s {} threads per team",
                    self.space.name(),
                    lim.team_size_max
                ),
            ));
        }
        for (level, r) in self.scratch.iter().enumerate() {
            let cap = lim.scratch_max[level];
            let Some(room) = cap.checked_sub(r.per_team) else {
                return Err(Error::policy(
                    label,
                    format!(
                        "scratch level {level}: {} bytes per team exceed the limit of {cap} bytes whatever the team size",
                        r.per_team
                    ),
                ));
            };
            if let Some(fit) = room.checked_div(r.per_thread) {
                if fit == 0 {
                    return Err(Error::policy(
                        label,
                        format!(
                            "scratch level {level}: {} bytes per team and {} per thread exceed the limit of {cap} bytes with one thread",
                            r.per_team, r.per_thread
                        ),
                    ));
                }
                max = max.min(fit);
            }
        }
        Ok(max)
    }
    /// The checks [`TeamPolicy::validate`] and [`TeamPolicy::team_size_max_in_limits`] share: the
    /// vector length a power of two within the space's limit, and every scratch level 0 or 1.
    fn check_lanes_and_levels(&self, label: &str, lim: &TeamLimits) -> Result<()> {
        let v = self.vector_length;
        if v == 0 || !v.is_power_of_two() || v > lim.vector_length_max {
            return Err(Error::policy(
                label,
                format!(
                    "vector length {v} is not a power of two in 1..={}",
                    lim.vector_length_max
                ),
            ));
        }
        if let Some(level) = self.bad_scratch_level {
            return Err(Error::policy(
                label,
                format!("scratch level {level}: only levels 0 and 1 exist"),
            ));
        }
        Ok(())
    }
    /// Checks the request against the space's [`TeamLimits`].
    pub fn validate(&self, label: &str) -> Result<()> {
        let lim: TeamLimits = self.space.team_limits();
        let ts = self.team_size();
        if ts == 0 || ts > lim.team_size_max {
            return Err(Error::policy(
                label,
                format!(
                    "team size {ts} outside 1..={} on `{}` (use TeamSize::Auto for portable code)",
                    lim.team_size_max,
                    self.space.name()
                ),
            ));
        }
        self.check_lanes_and_levels(label, &lim)?;
        if self.chunk == Some(0) {
            return Err(Error::policy(
                label,
                "TeamPolicy chunk size 0: a chunk holds at least one team (leave the chunk size \
                 unset for the backend's choice)",
            ));
        }
        for level in 0..2 {
            let bytes = self.scratch_bytes(level);
            match bytes {
                Some(b) if b <= lim.scratch_max[level] => {}
                _ => {
                    return Err(Error::policy(
                        label,
                        format!(
                            "scratch level {level} request of {} bytes per team exceeds the limit of {} bytes",
                            bytes.map_or("more than usize::MAX".to_string(), |b| b.to_string()),
                            lim.scratch_max[level]
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::eval::IrEval;

    fn invalid_reason(r: Result<()>) -> String {
        match r {
            Err(Error::InvalidPolicy { reason, .. }) => reason,
            other => panic!("expected InvalidPolicy, got {other:?}"),
        }
    }

    /// The schedule and the league chunk size are kept by `with_space` (what the run-time
    /// Device hands its backend), and a chunk size of 0 is refused by `validate` naming the
    /// policy, not a panic.
    #[test]
    fn schedule_and_chunk_size_travel_and_zero_is_refused() {
        for s in [Schedule::Auto, Schedule::Static, Schedule::Dynamic] {
            let r = RangePolicy::new(&IrEval, 0..9).schedule(s).chunk_size(3);
            assert_eq!(
                (r.with_space(&()).schedule_kind(), r.with_space(&()).chunk()),
                (s, 3)
            );
            let m = MDRangePolicy::new(&IrEval, [0, 0], [2, 2]).schedule(s);
            assert_eq!(m.with_space(&()).schedule_kind(), s);
            let t = TeamPolicy::new(&IrEval, 4, TeamSize::Auto)
                .schedule(s)
                .chunk_size(2);
            let t2 = t.with_space(&IrEval);
            assert_eq!((t2.schedule_kind(), t2.chunk()), (s, Some(2)));
            assert!(t2.validate("k").is_ok());
        }
        let zero = TeamPolicy::new(&IrEval, 4, TeamSize::Auto).chunk_size(0);
        let reason = invalid_reason(zero.with_space(&IrEval).validate("k"));
        assert!(reason.contains("TeamPolicy chunk size 0"), "{reason}");
        // A range chunk size of 0 keeps meaning "the backend's choice".
        assert!(RangePolicy::new(&IrEval, 0..9)
            .chunk_size(0)
            .validate("k")
            .is_ok());
    }

    /// `team_size_max_in_limits`: the space's team size, divided by the vector length where
    /// lanes are threads, shrunk so that each level's scratch fits, and refused when not even
    /// one thread fits.
    #[test]
    fn team_size_max_follows_vector_length_and_scratch() {
        let lim = IrEval.team_limits();
        let p = |v: usize, l0: (usize, usize), l1: (usize, usize)| {
            TeamPolicy::new(&IrEval, 4, TeamSize::Auto)
                .vector_length(v)
                .scratch(0, l0.0, l0.1)
                .scratch(1, l1.0, l1.1)
        };
        // Host limits: one thread, vector lanes are not threads.
        assert_eq!(
            p(8, (0, 0), (0, 0))
                .team_size_max_in_limits("k", false)
                .unwrap(),
            1
        );
        assert!(p(2, (0, 0), (0, 0))
            .team_size_max_in_limits("k", true)
            .is_err());
        // The whole level for one thread fits; one byte more does not.
        let cap = lim.scratch_max[0];
        assert_eq!(
            p(1, (16, cap - 16), (0, 0))
                .team_size_max_in_limits("k", false)
                .unwrap(),
            1
        );
        let r = invalid_reason(
            p(1, (16, cap - 15), (0, 0))
                .team_size_max_in_limits("k", false)
                .map(drop),
        );
        assert!(
            r.contains("scratch level 0") && r.contains("one thread"),
            "{r}"
        );
        let r = invalid_reason(
            p(1, (0, 0), (lim.scratch_max[1] + 1, 0))
                .team_size_max_in_limits("k", false)
                .map(drop),
        );
        assert!(
            r.contains("scratch level 1") && r.contains("whatever the team size"),
            "{r}"
        );
        let r = invalid_reason(
            p(3, (0, 0), (0, 0))
                .team_size_max_in_limits("k", false)
                .map(drop),
        );
        assert!(r.contains("vector length 3"), "{r}");
        let r = invalid_reason(
            p(1, (0, 0), (0, 0))
                .scratch(4, 0, 0)
                .team_size_max_in_limits("k", false)
                .map(drop),
        );
        assert!(r.contains("scratch level 4"), "{r}");
    }

    /// Levels other than 0 and 1 have no scratch: `None`, where indexing the two requests used to
    /// panic.
    #[test]
    fn scratch_bytes_of_a_missing_level_is_none() {
        let p = TeamPolicy::new(&IrEval, 4, TeamSize::Exactly(1)).scratch(1, 16, 8);
        assert_eq!(p.scratch_bytes(0), Some(0));
        assert_eq!(p.scratch_bytes(1), Some(24));
        for level in [2, 5, usize::MAX] {
            assert_eq!(p.scratch_bytes(level), None, "level {level}");
        }
    }

    /// A bad level is reported as given, and a later valid call for level 1 does not erase it (it
    /// used to be stored as an impossible level-1 request, which the next `.scratch(1, ..)`
    /// overwrote).
    #[test]
    fn a_bad_scratch_level_is_named_and_not_erased() {
        let p = TeamPolicy::new(&IrEval, 4, TeamSize::Auto).scratch(5, 8, 0);
        let reason = invalid_reason(p.validate("k"));
        assert_eq!(reason, "scratch level 5: only levels 0 and 1 exist");
        let p = p.scratch(1, 0, 0).scratch(0, 8, 0);
        assert_eq!(p.scratch_requests()[1], ScratchRequest::default());
        let reason = invalid_reason(p.validate("k"));
        assert_eq!(reason, "scratch level 5: only levels 0 and 1 exist");
        // Kept on another space too.
        let reason = invalid_reason(p.with_space(&IrEval).check("k"));
        assert!(reason.contains("scratch level 5"), "{reason}");
        // The first bad level is the one named.
        let p = TeamPolicy::new(&IrEval, 4, TeamSize::Auto)
            .scratch(7, 0, 0)
            .scratch(2, 0, 0);
        assert!(invalid_reason(p.validate("k")).starts_with("scratch level 7"));
        assert!(TeamPolicy::new(&IrEval, 4, TeamSize::Auto)
            .scratch(1, 0, 0)
            .validate("k")
            .is_ok());
    }
}
