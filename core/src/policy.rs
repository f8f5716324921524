//! Execution policies: which work items a parallel pattern runs, and on which execution space.

use crate::error::{Error, Result};
use crate::kernel::{MDWork, RangeWork, TeamWork, WorkKind};
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
}

impl<E: Clone> RangePolicy<E> {
    /// Indices `range.start..range.end` on `space`.
    pub fn new(space: &E, range: Range<usize>) -> Self {
        RangePolicy {
            space: space.clone(),
            begin: range.start,
            end: range.end,
            chunk: 0,
        }
    }
    /// Sets the chunk size (0 lets the backend choose).
    pub fn chunk_size(mut self, chunk: usize) -> Self {
        self.chunk = chunk;
        self
    }
}

impl<E> RangePolicy<E> {
    /// The same range and chunk size on another execution space (what a run-time space hands the
    /// backend it stands for; see [`crate::Launch::delegate`]).
    pub fn with_space<E2: Clone>(&self, space: &E2) -> RangePolicy<E2> {
        RangePolicy {
            space: space.clone(),
            begin: self.begin,
            end: self.end,
            chunk: self.chunk,
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
}

impl<E, const N: usize> MDRangePolicy<E, N> {
    /// The same box, tiles and order on another execution space (see
    /// [`RangePolicy::with_space`]).
    pub fn with_space<E2: Clone>(&self, space: &E2) -> MDRangePolicy<E2, N> {
        MDRangePolicy {
            space: space.clone(),
            begin: self.begin,
            end: self.end,
            tile: self.tile,
            iterate: self.iterate,
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
        }
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
    /// The same league, team size request, vector length and scratch on another execution space
    /// (see [`RangePolicy::with_space`]); `TeamSize::Auto` is resolved by that space.
    pub fn with_space<E2: ExecutionSpace>(&self, space: &E2) -> TeamPolicy<E2> {
        TeamPolicy {
            space: space.clone(),
            league_size: self.league_size,
            team_size: self.team_size,
            vector_length: self.vector_length,
            scratch: self.scratch,
            bad_scratch_level: self.bad_scratch_level,
        }
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
