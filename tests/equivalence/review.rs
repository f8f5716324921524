//! Adversarial probes of the newest device rules (session 24's review): kernels that
//! `rokkos_core::device::team_order` accepts for an ordered (`Custom`) team reduction must give
//! serial's result on every backend, and kernels whose index arithmetic the 32-bit proof
//! (`rokkos_core::emit::width`) accepts must give serial's result in the 32-bit variant (the
//! `wgpu_no_int64` instances run every body here without 64-bit integers).

use crate::{check, dev, dev_from_fn, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;
use rokkos::Error;

/// A polynomial rolling hash's join: associative, not commutative.
fn hash_join(a: &mut (u32, u32), b: (u32, u32)) {
    a.0 = a.0.wrapping_mul(b.1).wrapping_add(b.0);
    a.1 = a.1.wrapping_mul(b.1);
}

/// Item `i`'s value.
fn value(i: usize) -> u32 {
    (i as u32 ^ 0x5bd1_e995).wrapping_mul(0x0100_0193)
}

/// The rolling hash with `base` of `items`' values, in order.
fn want_hash(items: impl IntoIterator<Item = usize>, base: u32) -> (u32, u32) {
    items.into_iter().fold((0, 1), |(h, p), i| {
        (
            h.wrapping_mul(base).wrapping_add(value(i)),
            p.wrapping_mul(base),
        )
    })
}

/// Thread 0 (a rank held in a local, guarded together with a data test) hashes its league
/// rank's three items after every thread has written its share of `out` and met a barrier.
#[kernel]
fn rank_local_guard(
    team: &TeamMember,
    h: &mut u32,
    p: &mut u32,
    x: View<u32>,
    out: ViewMut<u32, 2>,
    base: u32,
) {
    let l = team.league_rank();
    let r = team.team_rank();
    for j in team.thread_range(out.extent(1)) {
        out[(l, j)] = x[l * 3] + j as u32;
    }
    team.team_barrier();
    if r == 0 && x[l * 3] % 5 != 0 {
        for k in 0..3 {
            *h = (*h).wrapping_mul(base).wrapping_add(x[l * 3 + k]);
            *p = (*p).wrapping_mul(base);
        }
    }
}

/// The `else` of `team_rank() != 0`, and a thread `single` under `team_rank() == 0`: one
/// invocation per team writes, in program order.
#[kernel]
fn rank_else_and_single(team: &TeamMember, h: &mut u32, p: &mut u32, x: View<u32>, base: u32) {
    let l = team.league_rank();
    if team.team_rank() != 0 {
    } else {
        *h = (*h).wrapping_mul(base).wrapping_add(x[l * 3]);
        *p = (*p).wrapping_mul(base);
    }
    if 0 == team.team_rank() {
        team.single_thread(|| {
            *h = (*h).wrapping_mul(base).wrapping_add(x[l * 3 + 1]);
            *p = (*p).wrapping_mul(base);
        });
    }
    team.single_team(|| {
        *h = (*h).wrapping_mul(base).wrapping_add(x[l * 3 + 2]);
        *p = (*p).wrapping_mul(base);
    });
}

/// The items of league rank `l` whose value `rank_local_guard` hashes.
fn guarded_items(league: usize) -> Vec<usize> {
    (0..league)
        .filter(|&l| value(l * 3) % 5 != 0)
        .flat_map(|l| l * 3..l * 3 + 3)
        .collect()
}

/// Kernels `team_order` accepts (writes by thread 0 only, in several spellings) give the serial
/// fold of a non-commutative join for every team shape, league lengths past the launched teams
/// included.
fn ordered_team_guards<E: ExecutionSpace>(space: E) {
    check(
        8,
        (
            proptest::sample::select(vec![0usize, 1, 3, 64, 1500]),
            proptest::sample::select(vec![(1usize, 1usize), (4, 1), (4, 4), (3, 2), (32, 1)]),
            any::<u32>(),
        ),
        |(league, (ts, vl), base)| {
            let base = base | 1;
            let limits = space.team_limits();
            let ts = TeamSize::Exactly(ts.min(limits.team_size_max));
            let vl = vl.min(limits.vector_length_max);
            let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
            let x: DevView<E, u32> = dev_from_fn(&space, "x", [league * 3], |[i]| value(i))?;
            let out: DevView<E, u32, 2> = dev(&space, "out", [league, 5])?;
            let r = Custom::new((0u32, 1u32), hash_join);
            let got = parallel_reduce(
                "rank_local_guard",
                policy.clone(),
                rank_local_guard(&x, &out, base),
                r,
            )?;
            prop_assert_eq!(got, want_hash(guarded_items(league), base));
            let want_out: Vec<u32> = (0..league)
                .flat_map(|l| (0..5).map(move |j| value(l * 3) + j as u32))
                .collect();
            prop_assert_eq!(to_host(&out), want_out);
            let got = parallel_reduce(
                "rank_else_and_single",
                policy,
                rank_else_and_single(&x, base),
                r,
            )?;
            prop_assert_eq!(got, want_hash(0..league * 3, base));
            Ok(())
        },
    );
}
per_backend!(ordered_team_guards);

/// Every thread but 0 leaves the work item; thread 0 then hashes its league rank's items.
#[kernel]
fn rank_early_return(team: &TeamMember, h: &mut u32, p: &mut u32, x: View<u32>, base: u32) {
    let l = team.league_rank();
    if team.team_rank() != 0 {
        return;
    }
    for k in 0..3 {
        *h = (*h).wrapping_mul(base).wrapping_add(x[l * 3 + k]);
        *p = (*p).wrapping_mul(base);
    }
}

/// The usual "every thread but 0 returns" spelling of a thread-0 contribution joins in serial's
/// order too: it must run (not `Err(Unsupported)`) and give the serial fold.
fn ordered_team_early_return<E: ExecutionSpace>(space: E) {
    let base = 0x9E37_79B1u32;
    for (league, ts, vl) in [(0usize, 4usize, 1usize), (1, 4, 1), (70, 4, 2), (9, 32, 1)] {
        let limits = space.team_limits();
        let ts = TeamSize::Exactly(ts.min(limits.team_size_max));
        let vl = vl.min(limits.vector_length_max);
        let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
        let x: DevView<E, u32> = dev_from_fn(&space, "x", [league * 3], |[i]| value(i)).unwrap();
        let r = Custom::new((0u32, 1u32), hash_join);
        match parallel_reduce("rank_early_return", policy, rank_early_return(&x, base), r) {
            Ok(got) => assert_eq!(got, want_hash(0..league * 3, base), "league {league}"),
            // Not `unwrap`: the per-backend harness skips a body that panics with a refusal.
            Err(Error::Unsupported { feature, .. }) => {
                panic!("league {league}, team {ts:?} x {vl}: refused: {feature}")
            }
            Err(e) => panic!("{e}"),
        }
    }
}
per_backend!(ordered_team_early_return);
