//! `Custom` reducers (a join that exists only as host code) over team policies and in scans:
//! the device backends' ordered-partials mode for teams (`rokkos_device::runtime::ordered::
//! team_blocks`) gives serial's result for associative, non-commutative joins when one
//! invocation per team contributes, for empty and one-team leagues, leagues longer than the
//! teams a device launches, team sizes above one and vector lengths above one; a kernel whose
//! several threads write the accumulator is refused on device teams of several threads
//! (`rokkos_device::runtime::team_order`); the ordered scan's slow path (`ordered::scan_prefixes`)
//! gives each index serial's exclusive prefix.

use crate::{check, dev_from_fn, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;
use rokkos::Error;

/// A polynomial rolling hash's join: associative, not commutative (the partials must be joined
/// in league order, and each contribution counted once).
fn hash_join(a: &mut (u32, u32), b: (u32, u32)) {
    a.0 = a.0.wrapping_mul(b.1).wrapping_add(b.0);
    a.1 = a.1.wrapping_mul(b.1);
}

/// The value of league rank `l`.
fn league_value(l: usize) -> u32 {
    (l as u32 ^ 0x9E37_79B9).wrapping_mul(0x0100_0193)
}

/// The rolling hash of `league_value` over `0..league` with `base`.
fn want_hash(league: usize, base: u32) -> (u32, u32) {
    (0..league).fold((0, 1), |(h, p), l| {
        (
            h.wrapping_mul(base).wrapping_add(league_value(l)),
            p.wrapping_mul(base),
        )
    })
}

/// One contribution per team, from its `single_team`, after a thread reduction that every
/// thread and lane takes part in.
#[kernel]
fn league_hash(team: &TeamMember, h: &mut u32, p: &mut u32, x: View<u32>, base: u32) {
    let l = team.league_rank();
    let s = team.thread_reduce(4usize, Sum, |j, t: &mut u32| {
        *t += j as u32;
    });
    team.single_team(|| {
        *h = (*h).wrapping_mul(base).wrapping_add(x[l] ^ s ^ 6);
        *p = (*p).wrapping_mul(base);
    });
}

/// The first and the last league rank whose value is even, each from the team's `single_team`.
#[kernel]
fn first_last_even(team: &TeamMember, first: &mut i32, last: &mut i32, x: View<u32>) {
    let l = team.league_rank();
    team.single_team(|| {
        if x[l] % 2 == 0 {
            if *first < 0 {
                *first = l as i32;
            }
            *last = l as i32;
        }
    });
}

/// The last league rank whose value is even, from the team's `single_team`.
#[kernel]
fn last_even(team: &TeamMember, last: &mut i32, x: View<u32>) {
    let l = team.league_rank();
    team.single_team(|| {
        if x[l] % 2 == 0 {
            *last = l as i32;
        }
    });
}

fn leagues() -> impl Strategy<Value = usize> + Clone {
    // 2500: more leagues than a device launches teams for a reduction (1024 at most).
    proptest::sample::select(vec![0usize, 1, 2, 7, 64, 257, 2500])
}

fn shapes() -> impl Strategy<Value = (TeamSize, usize)> {
    proptest::sample::select(vec![
        (TeamSize::Auto, 1usize),
        (TeamSize::Exactly(1), 1),
        (TeamSize::Exactly(3), 4),
        (TeamSize::Exactly(8), 2),
        (TeamSize::Exactly(32), 1),
    ])
}

/// A non-commutative `Custom` join (a rolling hash over the league) and first/last reducers
/// (a tuple of two `Custom`s) over team policies equal the serial fold over the league.
fn custom_team_reducers<E: ExecutionSpace>(space: E) {
    let first = Custom::new(-1i32, |a: &mut i32, b: i32| {
        if *a < 0 {
            *a = b
        }
    });
    let last = Custom::new(-1i32, |a: &mut i32, b: i32| {
        if b >= 0 {
            *a = b
        }
    });
    check(
        12,
        (leagues(), shapes(), any::<u32>()),
        |(league, (ts, vl), base)| {
            let base = base | 1;
            let x: DevView<E, u32> = dev_from_fn(&space, "x", [league], |[l]| league_value(l))?;
            // The drawn shape, within what this space supports (teams of one on the host).
            let limits = space.team_limits();
            let vl = vl.min(limits.vector_length_max);
            let ts = match ts {
                TeamSize::Exactly(n) => TeamSize::Exactly(n.min(limits.team_size_max)),
                auto => auto,
            };
            let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
            let r = Custom::new((0u32, 1u32), hash_join);
            let got = parallel_reduce("league_hash", policy.clone(), league_hash(&x, base), r)?;
            prop_assert_eq!(got, want_hash(league, base));

            let evens: Vec<usize> = (0..league).filter(|&l| league_value(l) % 2 == 0).collect();
            let want = (
                evens.first().map_or(-1, |&l| l as i32),
                evens.last().map_or(-1, |&l| l as i32),
            );
            let got = parallel_reduce(
                "first_last_even",
                policy.clone(),
                first_last_even(&x),
                (first, last),
            )?;
            prop_assert_eq!(got, want);

            // Into a device View: the host joins the partials, then writes the element.
            let slots: DevView<E, i32> = crate::dev(&space, "slots", [2])?;
            let slot = slots.subview::<0>([1])?;
            parallel_reduce_into("last_even", policy, last_even(&x), last, &slot)?;
            prop_assert_eq!(crate::to_host(&slots), vec![0, want.1]);
            Ok(())
        },
    );
}
per_backend!(custom_team_reducers);

/// The last non-zero value before each index (0 before the first): an associative join that is
/// not commutative, so the device backends take the ordered scan's slow path.
#[kernel(scan)]
fn last_nonzero(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>) {
    if is_final {
        out[i] = *partial;
    }
    if x[i] != 0 {
        *partial = x[i];
    }
}

/// `parallel_scan_with` a `Custom` reducer ("last non-zero so far"): each index sees the
/// exclusive prefix and the total is the last non-zero value, against a plain loop; sizes past
/// the ordered path's 64 Ki blocks give blocks of several items.
fn custom_scan<E: ExecutionSpace>(space: E) {
    let last = Custom::new(0i32, |a: &mut i32, b: i32| {
        if b != 0 {
            *a = b
        }
    });
    let run = |n: usize, seed: u64| -> std::result::Result<(), TestCaseError> {
        // Mostly zeros, so that "last non-zero" reaches back across blocks.
        let xs: Vec<i32> = crate::ints(seed, n, -40, 40)
            .into_iter()
            .map(|v| if v.abs() < 35 { 0 } else { v as i32 })
            .collect();
        let x: DevView<E, i32> = crate::dev_from_vec(&space, "x", [n], xs.clone())?;
        let out: DevView<E, i32> = crate::dev(&space, "out", [n])?;
        let p = RangePolicy::new(&space, 0..n);
        let total = parallel_scan_with("last_nonzero", p, last_nonzero(&x, &out), last)?;
        let mut want = Vec::with_capacity(n);
        let mut run = 0;
        for &v in &xs {
            want.push(run);
            if v != 0 {
                run = v;
            }
        }
        prop_assert_eq!(total, run);
        prop_assert_eq!(crate::to_host(&out), want);
        Ok(())
    };
    check(16, (crate::sizes(), any::<u64>()), |(n, seed)| run(n, seed));
    run(crate::LARGE + 3, 7).unwrap();
}
per_backend!(custom_scan);

/// Item `(l, j)`'s hash contribution, written by whichever thread runs `j`: several threads of
/// a team write the accumulator.
#[kernel]
fn item_hash(team: &TeamMember, h: &mut u32, p: &mut u32, x: View<u32>, base: u32) {
    let l = team.league_rank();
    for j in team.thread_range(3usize) {
        *h = (*h).wrapping_mul(base).wrapping_add(x[l * 3 + j]);
        *p = (*p).wrapping_mul(base);
    }
}

/// A non-commutative `Custom` join written by several threads of a team: the host backends
/// (teams of one thread) fold the items in order; a device with more than one thread per team
/// would join them thread by thread, so it refuses the launch with `Err(Unsupported)` naming
/// the kernel and the ways out, and loses nothing (the View the result was for keeps its value,
/// the same launch with teams of one and a commutative reducer over many threads both run).
fn custom_team_order_refused<E: ExecutionSpace>(space: E) {
    let base = 0x9E37_79B1u32;
    let r = Custom::new((0u32, 1u32), hash_join);
    for league in [0usize, 1, 5, 70] {
        let want = want_hash(league * 3, base);
        let x: DevView<E, u32> =
            dev_from_fn(&space, "x", [league * 3], |[i]| league_value(i)).unwrap();
        // One thread of one lane per team: in order on every backend.
        let one = TeamPolicy::new(&space, league, TeamSize::Exactly(1));
        let got = parallel_reduce("item_hash", one, item_hash(&x, base), r).unwrap();
        assert_eq!(got, want, "league {league}");
        if space.team_limits().team_size_max < 4 {
            continue;
        }
        let four = TeamPolicy::new(&space, league, TeamSize::Exactly(4));
        match parallel_reduce("item_hash", four.clone(), item_hash(&x, base), r) {
            Err(Error::Unsupported { feature, .. }) => {
                for part in ["item_hash", "single_team", "team_rank() == 0", "4 thread"] {
                    assert!(feature.contains(part), "{part:?} missing in: {feature}");
                }
            }
            other => panic!("league {league}: {other:?}"),
        }
        // Into a device View: refused before anything is written.
        let slots: DevView<E, u32> = crate::dev_from_vec(&space, "slots", [1], vec![7]).unwrap();
        let last = Custom::new(0u32, |a: &mut u32, b: u32| *a = b);
        let slot = slots.subview::<0>([0]).unwrap();
        let res = parallel_reduce_into("last_item", four.clone(), last_item(), last, &slot);
        assert!(matches!(res, Err(Error::Unsupported { .. })), "{res:?}");
        assert_eq!(crate::to_host(&slots), vec![7]);
        // A commutative reducer over the same teams runs.
        let sums = parallel_reduce("item_hash", four, item_hash(&x, 1), (Sum, Sum)).unwrap();
        let want_sum = (0..league * 3).fold(0u32, |s, i| s.wrapping_add(league_value(i)));
        assert_eq!(sums, (want_sum, 0), "league {league}");
    }
}
per_backend!(custom_team_order_refused);

/// Every thread of a team writes the league rank.
#[kernel]
fn last_item(team: &TeamMember, acc: &mut u32) {
    *acc = team.league_rank() as u32;
}
