//! What the team rules of `#[kernel]` accept, on every backend: writes in `single_thread` at the
//! thread's own index, team ranges whose bounds come from a read-only View (irregular intervals,
//! as in TOAST), from a `single_team` or a broadcast, team scratch read by the thread that wrote
//! it with no barrier and by other threads after one (also in a loop), and stores every vector
//! lane of a thread repeats (each runs once per thread, as on the host). Each against a plain loop.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Each thread adds its own cell in its `single_thread`: the team rank is the thread's own index.
#[kernel]
fn per_thread_cells(team: &TeamMember, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    let r = team.team_rank();
    team.single_thread(|| {
        out[(l, r)] += (1000 * l + r) as i64 + 1;
    });
}

/// Each element once, in a `single_thread` of the thread that owns its index.
#[kernel]
fn once_per_index(team: &TeamMember, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(out.extent(1)) {
        team.single_thread(|| {
            out[(l, j)] += 1;
        });
    }
}

/// Stores and atomics outside vector ranges, which every lane of a thread reaches: once per
/// element on every backend, whatever the vector length.
#[kernel]
fn bump_rows(team: &TeamMember, plain: ViewMut<i64, 2>, atomic: ViewMut<i64, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(plain.extent(1)) {
        plain[(l, j)] += 1;
        atomic.atomic_add((l, j), 1);
    }
}

/// Team `l` handles interval `[iv(l, 0), iv(l, 1))` of the samples: a range and a reduction with
/// bounds loaded from a read-only View at the league rank.
#[kernel]
fn intervals(
    team: &TeamMember,
    iv: View<usize, 2>,
    sig: View<i64>,
    out: ViewMut<i64, 2>,
    sums: ViewMut<i64>,
) {
    let l = team.league_rank();
    let first = iv[(l, 0)];
    let last = iv[(l, 1)];
    for s in team.thread_range(first..last) {
        out[(l, s)] = 2 * sig[s];
    }
    let total = team.thread_reduce(first..last, Sum, |s, acc: &mut i64| {
        *acc += sig[s];
    });
    team.single_team(|| {
        sums[l] = total;
    });
}

/// Bounds from a writable View, made the team's through `single_team` and `team_broadcast`.
#[kernel]
fn bounds_made_uniform(team: &TeamMember, lim: ViewMut<usize, 2>, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    let hi = team.single_team(|| lim[(l, 1)]);
    let lo = team.team_broadcast(lim[(l, 0)], 0);
    for j in team.thread_range(lo..hi) {
        out[(l, j)] = j as i64;
    }
}

/// Team scratch: each thread rereads its own elements with no barrier, then, after a barrier and
/// in every round of a loop with barriers, every thread reads every element.
#[kernel]
fn scratch_rounds(team: &TeamMember, a: View<i64, 2>, out: ViewMut<i64, 2>, rounds: usize) {
    let l = team.league_rank();
    let n = a.extent(1);
    let s = team.team_scratch::<i64, 1>(0, [n]);
    for j in team.thread_range(n) {
        s[j] = a[(l, j)];
        let own = s[j];
        s[j] = 2 * own;
    }
    team.team_barrier();
    for _round in 0..rounds {
        let total = team.thread_reduce(n, Sum, |j, acc: &mut i64| {
            *acc += s[j];
        });
        team.team_barrier();
        for j in team.thread_range(n) {
            s[j] = s[j] / 2 + total % 7;
        }
        team.team_barrier();
    }
    let first = team.team_scratch::<i64, 1>(0, [1]);
    team.single_team(|| {
        first[0] = if n > 0 { s[0] } else { -1 };
    });
    team.team_barrier();
    let f = first[0];
    for j in team.thread_range(n) {
        out[(l, j)] = s[n - 1 - j] + f;
    }
}

fn leagues() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 5, 64, 257])
}
fn vector_lengths() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![1usize, 4, 8, 16])
}

/// `single_thread` at the team rank: thread `r` of team `l` writes cell `(l, r)` once.
fn single_thread_at_team_rank<E: ExecutionSpace>(space: E) {
    check(8, (leagues(), vector_lengths()), |(league, vl)| {
        let vl = vl.min(space.team_limits().vector_length_max);
        let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
        let ts = p.team_size();
        let out: DevView<E, i64, 2> = dev(&space, "out", [league, ts])?;
        parallel_for("per_thread_cells", p, per_thread_cells(&out))?;
        let want: Vec<i64> = (0..league)
            .flat_map(|l| (0..ts).map(move |r| (1000 * l + r) as i64 + 1))
            .collect();
        prop_assert_eq!(to_host(&out), want);
        Ok(())
    });
}
per_backend!(single_thread_at_team_rank);

/// `single_thread` in a `thread_range`: every element incremented exactly once, with any number of
/// vector lanes.
fn single_thread_in_thread_range<E: ExecutionSpace>(space: E) {
    check(
        8,
        (leagues(), 0usize..70, vector_lengths()),
        |(league, w, vl)| {
            let vl = vl.min(space.team_limits().vector_length_max);
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, w])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("once_per_index", p, once_per_index(&out))?;
            prop_assert!(to_host(&out).iter().all(|&v| v == 1));
            Ok(())
        },
    );
}
per_backend!(single_thread_in_thread_range);

/// A `+=` and an atomic in a `thread_range` body run once per element, whatever the vector length
/// (on wgpu they ran once per lane: 2 and 16 with vector length 16).
fn stores_outside_vector_ranges_run_once<E: ExecutionSpace>(space: E) {
    check(
        8,
        (leagues(), 0usize..70, vector_lengths()),
        |(league, w, vl)| {
            let vl = vl.min(space.team_limits().vector_length_max);
            let plain: DevView<E, i64, 2> = dev(&space, "plain", [league, w])?;
            let atomic: DevView<E, i64, 2> = dev(&space, "atomic", [league, w])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("bump_rows", p, bump_rows(&plain, &atomic))?;
            prop_assert!(to_host(&plain).iter().all(|&v| v == 1));
            prop_assert!(to_host(&atomic).iter().all(|&v| v == 1));
            Ok(())
        },
    );
}
per_backend!(stores_outside_vector_ranges_run_once);

/// Irregular intervals (empty ones, single samples, gaps, one covering everything), one team each,
/// the bounds read from a read-only View; samples outside a team's interval keep their sentinel.
fn team_ranges_over_intervals_from_a_view<E: ExecutionSpace>(space: E) {
    let shapes = (
        0usize..200,
        proptest::collection::vec((0usize..210, 0usize..30), 0..40),
    );
    check(12, (shapes, any::<u64>()), |((n, raw), seed)| {
        let iv: Vec<usize> = raw
            .iter()
            .flat_map(|&(a, len)| {
                let first = a.min(n);
                [first, (first + len).min(n)]
            })
            .chain(if raw.is_empty() { vec![] } else { vec![0, n] })
            .collect();
        let league = iv.len() / 2;
        let sig = crate::ints(seed, n, -500, 500);
        let ivd: DevView<E, usize, 2> = dev_from_vec(&space, "iv", [league, 2], iv.clone())?;
        let sigd: DevView<E, i64> = dev_from_vec(&space, "sig", [n], sig.clone())?;
        let out: DevView<E, i64, 2> = dev(&space, "out", [league, n])?;
        out.fill(-7)?;
        let sums: DevView<E, i64> = dev(&space, "sums", [league])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto);
        parallel_for("intervals", p, intervals(&ivd, &sigd, &out, &sums))?;
        let (mut want, mut want_sums) = (vec![-7i64; league * n], vec![0i64; league]);
        for l in 0..league {
            for s in iv[2 * l]..iv[2 * l + 1] {
                want[l * n + s] = 2 * sig[s];
                want_sums[l] += sig[s];
            }
        }
        prop_assert_eq!(to_host(&out), want);
        prop_assert_eq!(to_host(&sums), want_sums);
        Ok(())
    });
}
per_backend!(team_ranges_over_intervals_from_a_view);

/// Bounds from a writable View through `single_team` and `team_broadcast`.
fn team_range_bounds_through_single_and_broadcast<E: ExecutionSpace>(space: E) {
    check(
        8,
        (leagues(), 0usize..50, any::<u64>()),
        |(league, w, seed)| {
            let r = crate::splitmix(seed, 2 * league);
            let lim: Vec<usize> = (0..league)
                .flat_map(|l| {
                    let lo = (r[2 * l] % (w as u64 + 1)) as usize;
                    [lo, lo + (r[2 * l + 1] % (w - lo + 1) as u64) as usize]
                })
                .collect();
            let limd: DevView<E, usize, 2> = dev_from_vec(&space, "lim", [league, 2], lim.clone())?;
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, w])?;
            out.fill(-1)?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            parallel_for("bounds_made_uniform", p, bounds_made_uniform(&limd, &out))?;
            let want: Vec<i64> = (0..league)
                .flat_map(|l| {
                    let (lo, hi) = (lim[2 * l], lim[2 * l + 1]);
                    (0..w).map(move |j| if (lo..hi).contains(&j) { j as i64 } else { -1 })
                })
                .collect();
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}
per_backend!(team_range_bounds_through_single_and_broadcast);

/// Team scratch read back by its writer without a barrier, and by every thread after barriers,
/// over several rounds.
fn team_scratch_rounds_with_barriers<E: ExecutionSpace>(space: E) {
    check(
        10,
        (leagues(), 0usize..70, 0usize..4, any::<u64>()),
        |(league, n, rounds, seed)| {
            let data = crate::ints(seed, league * n, -1000, 1000);
            let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, n])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, 8 * n + 8, 0);
            parallel_for("scratch_rounds", p, scratch_rounds(&a, &out, rounds))?;
            let mut want = Vec::new();
            for l in 0..league {
                let mut s: Vec<i64> = data[l * n..(l + 1) * n].iter().map(|v| 2 * v).collect();
                for _ in 0..rounds {
                    let total: i64 = s.iter().sum();
                    s.iter_mut().for_each(|v| *v = *v / 2 + total % 7);
                }
                let f = if n > 0 { s[0] } else { -1 };
                want.extend((0..n).map(|j| s[n - 1 - j] + f));
            }
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}
per_backend!(team_scratch_rounds_with_barriers);
