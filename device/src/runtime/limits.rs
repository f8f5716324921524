//! How much work one device launch may ask for, so that every launch a device backend accepts
//! finishes in bounded time, and what both GPU backends refuse up front (`Err(InvalidPolicy)`
//! naming the limit, nothing compiled or launched).
//!
//! A host backend runs a policy's work items one loop trip at a time on the calling threads, and
//! returns at the first failure; a device backend hands the whole launch to the device, which
//! gives no control back until every thread has finished its loops. A policy of `usize::MAX`
//! items (or teams) would keep the device busy for centuries and the next fence with it, so a
//! device launch is bounded in three ways:
//!
//! - **Items** ([`ITEMS_MAX`], 2^40): the work items of a `RangePolicy`, the points of an
//!   `MDRangePolicy` (the product of its extents; each extent is at most the product, unless
//!   another is 0). At a GPU's rate of 10^11 to 10^12 simple items a second that is seconds of
//!   work, and it is what wgpu's dispatch limit (65535 x 65535 workgroups of 256) reaches.
//! - **Teams** ([`LEAGUE_MAX`], 2^31 - 1): the league size of a `TeamPolicy`, Kokkos' own bound
//!   (its league size is an `int`) and CUDA's grid limit. Team and vector sizes are bounded by
//!   the device's threads per block or workgroup, and scratch by its memory (`TeamLimits`).
//! - **Trips** ([`TRIPS_MAX`], 2^24): the work items (or teams) one device thread (or block,
//!   workgroup) runs one after another. The backends choose their grids so that no launch
//!   within the two limits above needs more ([`min_groups`]); where a launch cannot have that
//!   many groups in flight (level-1 scratch of a team kernel so large that few teams fit the
//!   device's pool) it is refused ([`check_trips`]) rather than run on a handful of threads.
//!
//! Together with the early stop (a device thread checks its launch's error record between its
//! trips and leaves once a failure is recorded, so a launch that fails at its first item
//! returns as soon as its threads have noticed), a launch either is refused up front or
//! finishes: never a fence that does not return.

use rokkos_core::error::{Error, Result};
use rokkos_core::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use rokkos_core::space::ExecutionSpace;

/// Most work items of one device launch: range indices, or MDRange points.
pub const ITEMS_MAX: u64 = 1 << 40;

/// Most teams of one device launch (a `TeamPolicy`'s league size): `i32::MAX`.
pub const LEAGUE_MAX: u64 = i32::MAX as u64;

/// Most work items (or teams) one device thread (or team) runs in sequence in one launch.
pub const TRIPS_MAX: u64 = 1 << 24;

fn refuse(label: &str, reason: String) -> Error {
    Error::InvalidPolicy {
        label: label.to_string(),
        reason,
    }
}

/// The work items of a range `begin..end` (`end - begin`, 0 for an empty range), or
/// `Err(InvalidPolicy)` naming `label` and [`ITEMS_MAX`] when a device launch cannot run that
/// many.
pub fn range_items(label: &str, begin: usize, end: usize) -> Result<u64> {
    let n = end.saturating_sub(begin) as u64;
    if n > ITEMS_MAX {
        return Err(refuse(
            label,
            format!(
                "a range of {n} work items: a device launch runs at most {ITEMS_MAX} (2^40, \
                 rokkos_device::runtime::limits::ITEMS_MAX); split the work into several launches"
            ),
        ));
    }
    Ok(n)
}

/// The points of an MDRange box `begin..end` (the product of its extents; 0 when one is
/// empty), or `Err(InvalidPolicy)` naming `label` and [`ITEMS_MAX`] when a device launch cannot
/// run that many.
pub fn mdrange_items<const N: usize>(
    label: &str,
    begin: [usize; N],
    end: [usize; N],
) -> Result<u64> {
    let ext: Vec<u64> = (0..N)
        .map(|k| end[k].saturating_sub(begin[k]) as u64)
        .collect();
    if ext.contains(&0) {
        return Ok(0);
    }
    let points = ext
        .iter()
        .try_fold(1u64, |a, &e| a.checked_mul(e).filter(|&p| p <= ITEMS_MAX));
    points.ok_or_else(|| {
        refuse(
            label,
            format!(
                "an MDRange of extents {ext:?} has more than {ITEMS_MAX} points: a device launch \
                 runs at most 2^40 (rokkos_device::runtime::limits::ITEMS_MAX)"
            ),
        )
    })
}

/// `Ok` when a device launch can run a league of `league` teams, else `Err(InvalidPolicy)`
/// naming `label` and [`LEAGUE_MAX`].
pub fn check_league(label: &str, league: usize) -> Result<()> {
    if league as u64 > LEAGUE_MAX {
        return Err(refuse(
            label,
            format!(
                "a league of {league} teams: a device launch runs at most {LEAGUE_MAX} \
                 (2^31 - 1, rokkos_device::runtime::limits::LEAGUE_MAX)"
            ),
        ));
    }
    Ok(())
}

/// [`range_items`] of a policy: what both device backends check before a range launch.
pub fn check_range<E>(label: &str, policy: &RangePolicy<E>) -> Result<u64> {
    range_items(label, policy.begin(), policy.end())
}

/// [`mdrange_items`] of a policy: what both device backends check before an MDRange launch.
pub fn check_mdrange<E, const N: usize>(label: &str, policy: &MDRangePolicy<E, N>) -> Result<u64> {
    mdrange_items(label, policy.begin(), policy.end())
}

/// [`check_league`] of a policy: what both device backends check before a team launch (team
/// size, vector length and scratch are checked against the space's `TeamLimits` before a
/// launch exists, and the teams in flight by the backend, [`check_trips`]).
pub fn check_team<E: ExecutionSpace>(label: &str, policy: &TeamPolicy<E>) -> Result<()> {
    check_league(label, policy.league_size())
}

/// The fewest groups of `per_group` threads (or teams in flight, `per_group == 1`) that run
/// `items` with at most [`TRIPS_MAX`] each: a backend launches at least this many.
pub fn min_groups(items: u64, per_group: u64) -> u64 {
    items.div_ceil(per_group.max(1).saturating_mul(TRIPS_MAX))
}

/// `Ok` when `groups` groups of `per_group` threads (or teams in flight) run `items` work
/// items (or teams) with at most [`TRIPS_MAX`] each, else `Err(InvalidPolicy)` naming `label`,
/// the limit and `why` (what keeps the launch to `groups`).
pub fn check_trips(label: &str, items: u64, groups: u64, per_group: u64, why: &str) -> Result<()> {
    if groups.max(1) >= min_groups(items, per_group) {
        return Ok(());
    }
    let most = groups
        .max(1)
        .saturating_mul(per_group.max(1))
        .saturating_mul(TRIPS_MAX);
    Err(refuse(
        label,
        format!(
            "{items} work items on {groups} groups in flight ({why}) would run more than \
             {TRIPS_MAX} (2^24, rokkos_device::runtime::limits::TRIPS_MAX) one after another on \
             each; this launch can run at most {most}"
        ),
    ))
}

/// The largest `t` in `1..=max` with `fits(t)`, for a `fits` that holds up to some size and
/// not above it (what a team size limit is: more threads never need less memory); `None` when
/// not even `fits(1)` holds or `max` is 0. Used by the device backends' `team_size_max_for`.
///
/// ```
/// use rokkos_device::runtime::limits::largest_fitting;
/// assert_eq!(largest_fitting(1024, |t| t * 48 <= 16384), Some(341));
/// assert_eq!(largest_fitting(64, |_| true), Some(64));
/// assert_eq!(largest_fitting(64, |_| false), None);
/// ```
pub fn largest_fitting(max: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    if max == 0 || !fits(1) {
        return None;
    }
    // Invariant: fits(lo), and every size above hi does not fit.
    let (mut lo, mut hi) = (1usize, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest size below every threshold, for every limit and threshold, and none when
    /// not even one fits.
    #[test]
    fn largest_fitting_finds_the_threshold() {
        for max in [0usize, 1, 2, 3, 7, 64, 1000, 1024] {
            for k in [0usize, 1, 2, 5, 63, 64, 65, 999, 1023, 1024, 5000] {
                let want = if max == 0 || k == 0 {
                    None
                } else {
                    Some(max.min(k))
                };
                assert_eq!(
                    largest_fitting(max, |t| t <= k),
                    want,
                    "max {max}, threshold {k}"
                );
            }
        }
    }

    fn reason(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(Error::InvalidPolicy { label, reason }) => {
                assert_eq!(label, "k");
                reason
            }
            other => panic!("expected InvalidPolicy, got {other:?}"),
        }
    }

    #[test]
    fn ranges_up_to_the_item_limit_pass_and_name_it_beyond() {
        assert_eq!(range_items("k", 5, 2).unwrap(), 0);
        assert_eq!(range_items("k", 3, 10).unwrap(), 7);
        assert_eq!(range_items("k", 1, 1 + (1 << 40)).unwrap(), 1 << 40);
        let r = reason(range_items("k", 0, (1 << 40) + 1));
        assert!(
            r.contains("ITEMS_MAX") && r.contains("1099511627777"),
            "{r}"
        );
        assert!(reason(range_items("k", 0, usize::MAX)).contains("ITEMS_MAX"));
    }

    #[test]
    fn mdranges_count_their_points_without_overflow() {
        assert_eq!(mdrange_items("k", [0, 0], [3, 4]).unwrap(), 12);
        // An empty dimension leaves nothing to run, whatever the others.
        assert_eq!(
            mdrange_items("k", [0, 5, 0], [usize::MAX, 5, usize::MAX]).unwrap(),
            0
        );
        assert_eq!(
            mdrange_items("k", [0, 0], [1 << 20, 1 << 20]).unwrap(),
            1 << 40
        );
        let r = reason(mdrange_items("k", [0, 0], [1 << 20, (1 << 20) + 1]));
        assert!(r.contains("ITEMS_MAX"), "{r}");
        // The product of large extents overflows u64: still the same refusal.
        let r = reason(mdrange_items("k", [0, 0, 0], [usize::MAX, usize::MAX, 2]));
        assert!(r.contains("ITEMS_MAX"), "{r}");
    }

    #[test]
    fn leagues_are_bounded_by_i32_max() {
        check_league("k", 0).unwrap();
        check_league("k", i32::MAX as usize).unwrap();
        let r = reason(check_league("k", i32::MAX as usize + 1));
        assert!(r.contains("LEAGUE_MAX") && r.contains("2147483647"), "{r}");
        assert!(reason(check_league("k", usize::MAX)).contains("LEAGUE_MAX"));
    }

    #[test]
    fn trips_grow_the_grid_or_refuse_naming_why() {
        assert_eq!(min_groups(0, 256), 0);
        assert_eq!(min_groups(1, 256), 1);
        assert_eq!(min_groups(256 << 24, 256), 1);
        assert_eq!(min_groups((256 << 24) + 1, 256), 2);
        assert_eq!(min_groups(1 << 40, 256), 256);
        assert_eq!(min_groups(u64::MAX, 0), u64::MAX.div_ceil(TRIPS_MAX));
        check_trips("k", 1 << 24, 1, 1, "x").unwrap();
        check_trips("k", 0, 0, 1, "x").unwrap();
        let r = reason(check_trips("k", (1 << 24) + 1, 1, 1, "level-1 scratch"));
        assert!(
            r.contains("TRIPS_MAX") && r.contains("level-1 scratch"),
            "{r}"
        );
    }
}
