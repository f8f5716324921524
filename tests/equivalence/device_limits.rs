//! Launches and allocations of sizes no device can honour in bounded time or memory (issue 28,
//! items 7 and 9): on every backend a launch whose work items fail answers `Err(OutOfBounds)`
//! without running the rest of a huge policy (device backends leave their loops once the launch
//! has recorded the failure), a policy past what a device launch may run is refused up front on
//! the device backends (`Err(InvalidPolicy)` naming the limit of
//! `rokkos_device::runtime::limits`, nothing launched), and a View larger than any memory is
//! `Err(OutOfMemory)` naming it, never a View that fails later.

use crate::{dev, to_host, DevView};
use rokkos::prelude::*;
use rokkos_device::runtime::limits::{ITEMS_MAX, LEAGUE_MAX};

/// Instantiates `fn $name<E: ExecutionSpace>(space: E)` on the device backends only, as
/// `per_backend!` does on all of them: wgpu (with and without 64-bit integers, directly and
/// through `rokkos::Device`) and CUDA (directly and through `Device`). The bodies test what a
/// device launch does where a host backend has nothing to check: limits a host launch does not
/// have (it runs its items one loop trip at a time on the calling threads), and a failure
/// recorded on the device stopping the rest of the launch.
macro_rules! per_device_backend {
    ($name:ident) => {
        mod $name {
            #[cfg(feature = "wgpu")]
            #[test]
            fn wgpu() {
                if let Some(space) = crate::wgpu_space() {
                    super::$name(space);
                }
            }

            #[cfg(feature = "wgpu")]
            #[test]
            fn wgpu_no_int64() {
                if let Some(space) = crate::wgpu_no_int64_space() {
                    super::$name(space);
                }
            }

            #[cfg(feature = "wgpu")]
            #[test]
            fn device_wgpu() {
                if let Some(space) = crate::wgpu_space() {
                    super::$name(rokkos::Device::from(space));
                }
            }

            #[cfg(feature = "cuda")]
            #[test]
            fn cuda() {
                if let Some(space) = crate::cuda_space() {
                    super::$name(space);
                }
            }

            #[cfg(feature = "cuda")]
            #[test]
            fn device_cuda() {
                if let Some(space) = crate::cuda_space() {
                    super::$name(rokkos::Device::from(space));
                }
            }
        }
    };
}

// The `fail_every` kernels count each work item they run in `ran[0]` and then fail (an index
// past `small`, whose extent is 1); the `fail_first` kernels fail at their first work item only
// and count every other item they run. Either way a test sees how much of the policy ran once
// the launch had failed.

#[kernel]
fn fail_every(i: usize, ran: ViewMut<u32>, small: View<u32>) {
    ran.atomic_add(0, 1);
    ran.atomic_add(0, small[i + 7]);
}

#[kernel]
fn fail_every_sum(i: usize, acc: &mut u32, ran: ViewMut<u32>, small: View<u32>) {
    ran.atomic_add(0, 1);
    *acc += small[i + 7];
}

#[kernel(scan)]
fn fail_every_scan(
    i: usize,
    partial: &mut u32,
    is_final: bool,
    small: View<u32>,
    out: ViewMut<u32>,
) {
    if is_final {
        out[i] = *partial;
    }
    *partial += small[i + 7];
}

#[kernel]
fn fail_every_md((i, j): (usize, usize), ran: ViewMut<u32>, small: View<u32>) {
    ran.atomic_add(0, 1);
    ran.atomic_add(0, small[i + j + 7]);
}

#[kernel]
fn fail_every_team(team: &TeamMember, ran: ViewMut<u32>, small: View<u32>) {
    let l = team.league_rank();
    team.single_team(|| {
        ran.atomic_add(0, 1);
        ran.atomic_add(0, small[l + 7]);
    });
}

#[kernel]
fn fail_every_team_sum(team: &TeamMember, acc: &mut u32, ran: ViewMut<u32>, small: View<u32>) {
    let l = team.league_rank();
    team.single_team(|| {
        ran.atomic_add(0, 1);
        *acc += small[l + 7];
    });
}

#[kernel]
fn fail_first(i: usize, ran: ViewMut<u32>, small: View<u32>) {
    if i == 0 {
        ran.atomic_add(0, small[i + 7]);
    } else {
        ran.atomic_add(0, 1);
    }
}

#[kernel]
fn fail_first_sum(i: usize, acc: &mut u32, ran: ViewMut<u32>, small: View<u32>) {
    if i == 0 {
        *acc += small[i + 7];
    } else {
        ran.atomic_add(0, 1);
        *acc += 1;
    }
}

#[kernel(scan)]
fn fail_first_scan(
    i: usize,
    partial: &mut u32,
    is_final: bool,
    ran: ViewMut<u32>,
    small: View<u32>,
) {
    if is_final {
        ran.atomic_add(0, 1);
    }
    if i == 0 {
        *partial += small[i + 7];
    } else {
        *partial += 1;
    }
}

#[kernel]
fn fail_first_md((i, j): (usize, usize), ran: ViewMut<u32>, small: View<u32>) {
    if i == 0 && j == 0 {
        ran.atomic_add(0, small[i + 7]);
    } else {
        ran.atomic_add(0, 1);
    }
}

#[kernel]
fn fail_first_team(team: &TeamMember, ran: ViewMut<u32>, small: View<u32>) {
    let l = team.league_rank();
    team.single_team(|| {
        if l == 0 {
            ran.atomic_add(0, small[l + 7]);
        } else {
            ran.atomic_add(0, 1);
        }
    });
}

#[kernel]
fn fail_first_team_sum(team: &TeamMember, acc: &mut u32, ran: ViewMut<u32>, small: View<u32>) {
    let l = team.league_rank();
    team.single_team(|| {
        if l == 0 {
            *acc += small[l + 7];
        } else {
            ran.atomic_add(0, 1);
            *acc += 1;
        }
    });
}

/// A team kernel using level-1 team scratch (so that the policy's level-1 request is reserved).
#[kernel]
fn with_level1(team: &TeamMember, ran: ViewMut<u32>) {
    let s = team.team_scratch::<u32, 1>(1, [4]);
    team.single_team(|| {
        s[0] = 1;
        ran.atomic_add(0, s[0]);
    });
}

/// Indices up to `2^31 - 1`: the most a launch may have and still run the 32-bit variant
/// (adapters without SHADER_INT64 run these too).
const HUGE: usize = (1 << 31) - 1;

/// Checks that `r` is a failure of `kernel` reading `small` out of bounds (at index `index`,
/// when given), and that of the `total` items of the policy only a small part ran (`ran`, when
/// given): a device runs at most a trip or two per thread in flight once the failure is
/// recorded, a host backend stops at its first failing item, nowhere near a sixteenth of 2^31.
fn failed_early<E: ExecutionSpace, T: std::fmt::Debug>(
    space: &E,
    r: rokkos::Result<T>,
    (kernel, index): (&str, Option<&str>),
    ran: Option<&DevView<E, u32>>,
    total: usize,
) {
    // A device launch reports at the next synchronisation; a host one at once.
    let r = r.and_then(|_| space.fence());
    match r {
        Err(Error::OutOfBounds {
            kernel: k,
            view,
            index: at,
            extents,
        }) => {
            assert_eq!((k.as_str(), view.as_str()), (kernel, "small"));
            assert_eq!(extents, "(1)");
            if let Some(i) = index {
                assert_eq!(at, i, "{kernel}");
            }
        }
        other => panic!(
            "{kernel} on {}: expected OutOfBounds, got {other:?}",
            space.name()
        ),
    }
    if let Some(ran) = ran {
        let n = to_host(ran)[0] as usize;
        assert!(
            n < total / 16,
            "{kernel} on {}: {n} of {total} items ran although the launch had failed",
            space.name()
        );
    }
}

/// Every pattern over a policy of about 2^31 items (or teams) each of which fails: the launch
/// answers `Err(OutOfBounds)` and the rest of the policy does not run (before the early stop a
/// device ran all of it: about 20 s per launch on lavapipe, minutes on the CUDA emulator; and
/// a league of `usize::MAX` teams never returned). A scan kernel may not write in its first
/// pass (its writes go under `if is_final`), so only the scan's result is checked.
fn huge_launches_stop_at_a_failure<E: ExecutionSpace>(space: E) {
    let small: DevView<E, u32> = dev(&space, "small", [1]).unwrap();
    let fresh = || -> DevView<E, u32> { dev(&space, "ran", [1]).unwrap() };

    let ran = fresh();
    let r = parallel_for(
        "fail_every",
        RangePolicy::new(&space, 0..HUGE),
        fail_every(&ran, &small),
    );
    failed_early(&space, r, ("fail_every", None), Some(&ran), HUGE);

    let ran = fresh();
    let r: rokkos::Result<u32> = parallel_reduce(
        "fail_every_sum",
        RangePolicy::new(&space, 0..HUGE),
        fail_every_sum(&ran, &small),
        Sum,
    );
    failed_early(&space, r, ("fail_every_sum", None), Some(&ran), HUGE);

    let out = fresh();
    let r: rokkos::Result<u32> = parallel_scan(
        "fail_every_scan",
        RangePolicy::new(&space, 0..HUGE),
        fail_every_scan(&small, &out),
    );
    failed_early(&space, r, ("fail_every_scan", None), None, HUGE);

    let ran = fresh();
    let (m, n) = (1 << 16, (1 << 15) - 1);
    let r = parallel_for(
        "fail_every_md",
        MDRangePolicy::new(&space, [0, 0], [m, n]),
        fail_every_md(&ran, &small),
    );
    failed_early(&space, r, ("fail_every_md", None), Some(&ran), m * n);

    for team in [TeamSize::Auto, TeamSize::Exactly(1)] {
        let ran = fresh();
        let r = parallel_for(
            "fail_every_team",
            TeamPolicy::new(&space, LEAGUE_MAX as usize, team),
            fail_every_team(&ran, &small),
        );
        let league = LEAGUE_MAX as usize;
        failed_early(&space, r, ("fail_every_team", None), Some(&ran), league);
    }

    let ran = fresh();
    let r: rokkos::Result<u32> = parallel_reduce(
        "fail_every_team_sum",
        TeamPolicy::new(&space, LEAGUE_MAX as usize, TeamSize::Auto),
        fail_every_team_sum(&ran, &small),
        Sum,
    );
    let league = LEAGUE_MAX as usize;
    failed_early(&space, r, ("fail_every_team_sum", None), Some(&ran), league);
}
per_backend!(huge_launches_stop_at_a_failure);

/// On a device, a launch of about 2^31 items (or teams) whose first item alone fails stops the
/// rest once the failure is recorded (each thread in flight checks the launch's error record
/// between its trips): `Err(OutOfBounds)` at index 7 of `small`, and few of the other items
/// ran. (A host backend runs the items of the chunks it has started: the early stop is what
/// the device backends add.)
// Run only by the device instances, which the wgpu and cuda features build.
#[cfg_attr(not(any(feature = "wgpu", feature = "cuda")), allow(dead_code))]
fn device_launches_stop_after_the_first_failure<E: ExecutionSpace>(space: E) {
    let small: DevView<E, u32> = dev(&space, "small", [1]).unwrap();
    let fresh = || -> DevView<E, u32> { dev(&space, "ran", [1]).unwrap() };

    let ran = fresh();
    let r = parallel_for(
        "fail_first",
        RangePolicy::new(&space, 0..HUGE),
        fail_first(&ran, &small),
    );
    failed_early(&space, r, ("fail_first", Some("(7)")), Some(&ran), HUGE);

    let ran = fresh();
    let r: rokkos::Result<u32> = parallel_reduce(
        "fail_first_sum",
        RangePolicy::new(&space, 0..HUGE),
        fail_first_sum(&ran, &small),
        Sum,
    );
    failed_early(&space, r, ("fail_first_sum", Some("(7)")), Some(&ran), HUGE);

    let ran = fresh();
    let r: rokkos::Result<u32> = parallel_scan(
        "fail_first_scan",
        RangePolicy::new(&space, 0..HUGE),
        fail_first_scan(&ran, &small),
    );
    failed_early(&space, r, ("fail_first_scan", Some("(7)")), None, HUGE);

    let ran = fresh();
    let (m, n) = (1 << 16, (1 << 15) - 1);
    let r = parallel_for(
        "fail_first_md",
        MDRangePolicy::new(&space, [0, 0], [m, n]),
        fail_first_md(&ran, &small),
    );
    failed_early(&space, r, ("fail_first_md", Some("(7)")), Some(&ran), m * n);

    for team in [TeamSize::Auto, TeamSize::Exactly(1)] {
        let ran = fresh();
        let r = parallel_for(
            "fail_first_team",
            TeamPolicy::new(&space, LEAGUE_MAX as usize, team),
            fail_first_team(&ran, &small),
        );
        failed_early(
            &space,
            r,
            ("fail_first_team", Some("(7)")),
            Some(&ran),
            LEAGUE_MAX as usize,
        );
    }

    let ran = fresh();
    let r: rokkos::Result<u32> = parallel_reduce(
        "fail_first_team_sum",
        TeamPolicy::new(&space, LEAGUE_MAX as usize, TeamSize::Auto),
        fail_first_team_sum(&ran, &small),
        Sum,
    );
    failed_early(
        &space,
        r,
        ("fail_first_team_sum", Some("(7)")),
        Some(&ran),
        LEAGUE_MAX as usize,
    );

    // The space is usable afterwards: a small launch of the same kernel runs every item.
    let ran = fresh();
    let ok: DevView<E, u32> = dev(&space, "small", [8]).unwrap();
    parallel_for(
        "fail_first",
        RangePolicy::new(&space, 1..100),
        fail_first(&ran, &ok),
    )
    .unwrap();
    assert_eq!(to_host(&ran), vec![99]);
}
per_device_backend!(device_launches_stop_after_the_first_failure);

#[kernel]
fn fail_at(i: usize, ran: ViewMut<u32>, small: View<u32>, at: usize) {
    if i == at {
        ran.atomic_add(0, small[i + 7]);
    } else {
        ran.atomic_add(0, 1);
    }
}

/// A launch of about 2^31 items of which one alone fails: the rest of the launch stops.
///
/// On a host backend the failing item is 2^20, so that the other threads are well into their own
/// share when it fails. rayon starts no chunk once one has failed, and a chunk holds at most
/// `MAX_CHUNK_ITEMS` (2^20) items, so each thread runs at most about one chunk after the failure;
/// before, each ran its whole share of the chunks (half of 2^31 items on 2 threads). Serial and
/// the IR evaluator stop at the failing item.
///
/// On a device the failing item is 0, in the first trip of the first thread group. A device's
/// threads stride over the range (thread `t` runs items `t`, `t + grid`, ...), so item 2^20
/// belongs to group 2^20 / group size; a device that runs groups one after another, as lavapipe
/// does, finishes every group before that one, all their trips, before the item fails (about
/// 290 million items on lavapipe): work done before the failure, not after it. With the failure
/// in group 0, every group that starts later must see it at its first trip and stop.
fn a_failure_stops_the_other_threads<E: ExecutionSpace>(space: E) {
    let at = if crate::trust::mirrors_alias(&space) {
        rokkos::host_iter::MAX_CHUNK_ITEMS
    } else {
        0
    };
    let small: DevView<E, u32> = dev(&space, "small", [1]).unwrap();
    let ran: DevView<E, u32> = dev(&space, "ran", [1]).unwrap();
    let r = parallel_for(
        "fail_at",
        RangePolicy::new(&space, 0..HUGE),
        fail_at(&ran, &small, at),
    );
    let index = format!("({})", at + 7);
    failed_early(&space, r, ("fail_at", Some(&index)), Some(&ran), HUGE);
}
per_backend!(a_failure_stops_the_other_threads);

/// A View of 8 TiB (`1 << 40` f64) exists nowhere: `Err(OutOfMemory)` naming it and its bytes,
/// at once, on every backend; the space stays usable.
fn an_impossible_view_is_refused_at_once<E: ExecutionSpace>(space: E) {
    let huge: rokkos::Result<DevView<E, f64>> = dev(&space, "huge", [1 << 40]);
    match huge {
        Err(Error::OutOfMemory { label, bytes }) => {
            assert_eq!(label, "huge");
            assert_eq!(bytes, 8 << 40);
        }
        other => panic!("{}: expected OutOfMemory, got {other:?}", space.name()),
    }
    let two: rokkos::Result<DevView<E, f64, 2>> = dev(&space, "huge2", [1 << 20, 1 << 20]);
    assert!(
        matches!(&two, Err(Error::OutOfMemory { label, .. }) if label == "huge2"),
        "{}: {two:?}",
        space.name()
    );
    let v: DevView<E, f64> = dev(&space, "after", [16]).unwrap();
    v.fill(2.0).unwrap();
    assert_eq!(to_host(&v), vec![2.0; 16]);
}
per_backend!(an_impossible_view_is_refused_at_once);

/// Checks that `r` is `Err(InvalidPolicy)` for `label` naming `limit`, and that nothing ran.
// Run only by the device instances, which the wgpu and cuda features build.
#[cfg_attr(not(any(feature = "wgpu", feature = "cuda")), allow(dead_code))]
fn refused<E: ExecutionSpace, T: std::fmt::Debug>(
    space: &E,
    r: rokkos::Result<T>,
    label: &str,
    limit: &str,
    ran: &DevView<E, u32>,
) {
    match r {
        Err(Error::InvalidPolicy { label: l, reason }) => {
            assert_eq!(l, label);
            assert!(reason.contains(limit), "{label}: {reason}");
        }
        other => panic!(
            "{label} on {}: expected InvalidPolicy naming {limit}, got {other:?}",
            space.name()
        ),
    }
    space.fence().unwrap();
    assert_eq!(to_host(ran), vec![0], "{label}: nothing runs");
}

/// Policies past what one device launch may run (`rokkos_device::runtime::limits`) are refused
/// before anything is compiled or launched: ranges and MDRange boxes of more than 2^40 items,
/// leagues of more than 2^31 - 1 teams, and a league that the teams in flight (few, with a
/// level-1 scratch request as large as the space allows) would run more than 2^24 deep. Before,
/// a league of `usize::MAX` teams launched and the next fence never returned (wgpu), or the
/// launch itself never returned (CUDA).
// Run only by the device instances, which the wgpu and cuda features build.
#[cfg_attr(not(any(feature = "wgpu", feature = "cuda")), allow(dead_code))]
fn device_launch_limits<E: ExecutionSpace>(space: E) {
    let small: DevView<E, u32> = dev(&space, "small", [1]).unwrap();
    let ran: DevView<E, u32> = dev(&space, "ran", [1]).unwrap();
    let items = ITEMS_MAX as usize;
    for n in [items + 1, usize::MAX] {
        let r = parallel_for(
            "for",
            RangePolicy::new(&space, 0..n),
            fail_first(&ran, &small),
        );
        refused(&space, r, "for", "ITEMS_MAX", &ran);
        let r: rokkos::Result<u32> = parallel_reduce(
            "sum",
            RangePolicy::new(&space, 0..n),
            fail_first_sum(&ran, &small),
            Sum,
        );
        refused(&space, r, "sum", "ITEMS_MAX", &ran);
        let r: rokkos::Result<u32> = parallel_scan(
            "scan",
            RangePolicy::new(&space, 0..n),
            fail_first_scan(&ran, &small),
        );
        refused(&space, r, "scan", "ITEMS_MAX", &ran);
    }
    for end in [[1 << 20, (1 << 20) + 1], [1 << 30, 1 << 30]] {
        let r = parallel_for(
            "md",
            MDRangePolicy::new(&space, [0, 0], end),
            fail_first_md(&ran, &small),
        );
        refused(&space, r, "md", "ITEMS_MAX", &ran);
    }
    for league in [LEAGUE_MAX as usize + 1, usize::MAX] {
        let r = parallel_for(
            "team",
            TeamPolicy::new(&space, league, TeamSize::Auto),
            fail_first_team(&ran, &small),
        );
        refused(&space, r, "team", "LEAGUE_MAX", &ran);
        let r: rokkos::Result<u32> = parallel_reduce(
            "team_sum",
            TeamPolicy::new(&space, league, TeamSize::Auto),
            fail_first_team_sum(&ran, &small),
            Sum,
        );
        refused(&space, r, "team_sum", "LEAGUE_MAX", &ran);
    }
    // As much level-1 scratch per team as the space allows leaves a team or two in flight: a
    // league of 2^25 would run 2^24 deep on each.
    let most = space.team_limits().scratch_max[1];
    let p = TeamPolicy::new(&space, 1 << 25, TeamSize::Exactly(1)).scratch(1, most, 0);
    let r = parallel_for("scratchy", p, with_level1(&ran));
    refused(&space, r, "scratchy", "TRIPS_MAX", &ran);
    // Within the limits the same space runs (a small league of the scratch kernel).
    let p = TeamPolicy::new(&space, 3, TeamSize::Exactly(1)).scratch(1, 64, 0);
    parallel_for("scratchy", p, with_level1(&ran)).unwrap();
    assert_eq!(to_host(&ran), vec![3]);
}

per_device_backend!(device_launch_limits);
