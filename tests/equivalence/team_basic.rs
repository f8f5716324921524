//! `TeamPolicy` basics (Kokkos `TestTeamBasic` / `TestTeam`): league rank, league size, team size,
//! team rank and vector length are reported correctly and every team runs exactly once; nested
//! thread ranges (`n` and `a..b`), thread reductions and scans, broadcasts, barriers, `single_*`,
//! and team-level `parallel_reduce`, each against a plain loop.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn team_info(team: &TeamMember, out: ViewMut<i64, 2>, visits: ViewMut<i32>) {
    let l = team.league_rank();
    team.single_team(|| {
        visits.atomic_add(l, 1);
        out[(l, 0)] = l as i64;
        out[(l, 1)] = team.league_size() as i64;
        out[(l, 2)] = team.team_size() as i64;
        out[(l, 3)] = team.team_rank() as i64;
        out[(l, 4)] = team.vector_length() as i64;
    });
}

#[kernel]
fn row_sums(team: &TeamMember, a: View<i64, 2>, out: ViewMut<i64>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), Sum, |j, acc: &mut i64| {
        *acc += a[(l, j)];
    });
    team.single_team(|| {
        out[l] = s;
    });
}

#[kernel]
fn fill_band(team: &TeamMember, out: ViewMut<i64, 2>, lo: usize) {
    let l = team.league_rank();
    for j in team.thread_range(lo..out.extent(1)) {
        out[(l, j)] = (l * 1000 + j) as i64;
    }
}

#[kernel]
fn row_prefix(team: &TeamMember, a: View<i64, 2>, out: ViewMut<i64, 2>, totals: ViewMut<i64>) {
    let l = team.league_rank();
    let total = team.thread_scan(a.extent(1), |j, partial: &mut i64, is_final: bool| {
        if is_final {
            out[(l, j)] = *partial;
        }
        *partial += a[(l, j)];
    });
    team.single_team(|| {
        totals[l] = total;
    });
}

#[kernel]
fn team_misc(team: &TeamMember, out: ViewMut<i64>) {
    // A typed binding of the league rank owns the team's writes like the untyped one.
    let l: usize = team.league_rank();
    let v = team.team_broadcast(3 * l as i64, 0);
    team.team_barrier();
    let w = team.single_thread(|| v + 1);
    team.single_team(|| {
        out[l] = w;
    });
}

#[kernel]
fn team_total(team: &TeamMember, acc: &mut i64, a: View<i64, 2>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), Sum, |j, t: &mut i64| {
        *t += a[(l, j)];
    });
    team.single_team(|| {
        *acc += s;
    });
}

#[kernel]
fn team_max_and_count(team: &TeamMember, mx: &mut i64, count: &mut i64, a: View<i64, 2>) {
    let l = team.league_rank();
    let m = team.thread_reduce(a.extent(1), Max, |j, t: &mut i64| {
        if a[(l, j)] > *t {
            *t = a[(l, j)];
        }
    });
    team.single_team(|| {
        if m > *mx {
            *mx = m;
        }
        *count += 1;
    });
}

fn leagues() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 3, 7, 13, 64, 255, 257])
}
fn team_sizes() -> impl Strategy<Value = TeamSize> {
    prop_oneof![Just(TeamSize::Auto), Just(TeamSize::Exactly(1))]
}
fn vector_lengths() -> impl Strategy<Value = usize> {
    proptest::sample::select(vec![1usize, 2, 4, 8, 32, 1024])
}

/// Kokkos TestTeamBasic: each team sees its league rank and the league size, the team size the
/// policy resolved (1 on host backends) with team rank 0 in its `single`, and the requested vector
/// length; each team's `single` runs exactly once.
fn team_identity<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), team_sizes(), vector_lengths()),
        |(league, ts, vl)| {
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, 5])?;
            let visits: DevView<E, i32> = dev(&space, "visits", [league])?;
            // The drawn vector length, within what this space supports (1024 on host backends).
            let vl = vl.min(space.team_limits().vector_length_max);
            let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
            let team_size = policy.team_size();
            // `Auto` is the space's choice unless that many threads of this vector length would
            // not fit the largest team (a GPU block or workgroup); then as many as fit.
            let lim = space.team_limits();
            let want = match ts {
                TeamSize::Auto if lim.team_size_auto * vl > lim.team_size_max => {
                    (lim.team_size_max / vl).max(1)
                }
                TeamSize::Auto => lim.team_size_auto.max(1),
                TeamSize::Exactly(n) => n,
            };
            prop_assert_eq!(team_size, want);
            parallel_for("team_info", policy, team_info(&out, &visits))?;
            let h = to_host(&out);
            for l in 0..league {
                let row = &h[5 * l..5 * l + 5];
                prop_assert_eq!(row[0], l as i64);
                prop_assert_eq!(row[1], league as i64);
                prop_assert_eq!(row[2], team_size as i64);
                prop_assert_eq!(row[3], 0);
                prop_assert_eq!(row[4], vl as i64);
            }
            prop_assert!(to_host(&visits).iter().all(|&v| v == 1));
            Ok(())
        },
    );
}
per_backend!(team_identity);

/// Row sums through `thread_reduce`, over Views of every layout.
fn team_row_sums<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), 0usize..40, any::<u64>()),
        |(league, w, seed)| {
            let data = crate::ints(seed, league * w, -1000, 1000);
            let want: Vec<i64> = (0..league)
                .map(|l| data[l * w..(l + 1) * w].iter().sum())
                .collect();
            let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, w], data)?;
            let out: DevView<E, i64> = dev(&space, "out", [league])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            parallel_for("row_sums", p, row_sums(&a, &out))?;
            prop_assert_eq!(to_host(&out), want.clone());

            let left: DevView<E, i64, 2, LayoutLeft> = dev(&space, "left", [league, w])?;
            deep_copy(&left, &a)?;
            let out_s: DevView<E, i64, 2> = dev(&space, "out_s", [league, 3])?;
            let col: DevView<E, i64, 1, LayoutStride> = out_s.subview((.., 2))?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(4);
            parallel_for("row_sums_left", p, row_sums(&left, &col))?;
            prop_assert_eq!(to_host(&col), want);
            Ok(())
        },
    );
}
per_backend!(team_row_sums);

/// `thread_range(lo..n)` touches exactly the columns `lo..n` of the team's row.
fn team_thread_range_bounds<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), 0usize..30, 0usize..35),
        |(league, w, lo)| {
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, w])?;
            out.fill(-1)?;
            let lo = lo.min(w);
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            parallel_for("fill_band", p, fill_band(&out, lo))?;
            let h = to_host(&out);
            for l in 0..league {
                for j in 0..w {
                    let want = if j >= lo { (l * 1000 + j) as i64 } else { -1 };
                    prop_assert_eq!(h[l * w + j], want, "({}, {})", l, j);
                }
            }
            Ok(())
        },
    );
}
per_backend!(team_thread_range_bounds);

/// `thread_scan`: the exclusive prefix of each row, and the row total it returns.
fn team_thread_scan<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), 0usize..40, any::<u64>()),
        |(league, w, seed)| {
            let data = crate::ints(seed, league * w, -100, 100);
            let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, w], data.clone())?;
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, w])?;
            let totals: DevView<E, i64> = dev(&space, "totals", [league])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            parallel_for("row_prefix", p, row_prefix(&a, &out, &totals))?;
            let mut want = Vec::with_capacity(league * w);
            let mut want_totals = Vec::with_capacity(league);
            for l in 0..league {
                let mut run = 0;
                for j in 0..w {
                    want.push(run);
                    run += data[l * w + j];
                }
                want_totals.push(run);
            }
            prop_assert_eq!(to_host(&out), want);
            prop_assert_eq!(to_host(&totals), want_totals);
            Ok(())
        },
    );
}
per_backend!(team_thread_scan);

/// `team_broadcast`, `team_barrier` and `single_thread` (results handed back to the team).
fn team_broadcast_and_single<E: ExecutionSpace>(space: E) {
    check(8, leagues(), |league| {
        let out: DevView<E, i64> = dev(&space, "out", [league])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto);
        parallel_for("team_misc", p, team_misc(&out))?;
        prop_assert_eq!(
            to_host(&out),
            (0..league as i64).map(|l| 3 * l + 1).collect::<Vec<_>>()
        );
        Ok(())
    });
}
per_backend!(team_broadcast_and_single);

/// Kokkos' functor form of the broadcast: the last thread applies the closure to its value, and
/// every thread receives the result.
#[kernel]
fn broadcast_functor(team: &TeamMember, out: ViewMut<i32, 2>) {
    let l = team.league_rank();
    let r = team.team_rank();
    let src = team.team_size() - 1;
    let got = team.team_broadcast_with((r * 10 + l) as i32, src, |v| v * 2 + 1);
    out[(l, r)] = got;
}

/// `team_broadcast_with`: every thread of team `l` gets `2 * (10 * src + l) + 1` from thread
/// `src` (the last), whatever its own value.
fn team_broadcast_functor<E: ExecutionSpace>(space: E) {
    let width = space.team_limits().team_size_max.min(64);
    check(8, leagues(), |league| {
        let out: DevView<E, i32, 2> = dev(&space, "out", [league, width])?;
        out.fill(-1)?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto);
        let ts = p
            .team_size_max(&broadcast_functor(&out), TeamPattern::For)?
            .min(width);
        let p = TeamPolicy::new(&space, league, TeamSize::Exactly(ts));
        parallel_for("broadcast_functor", p, broadcast_functor(&out))?;
        let got = to_host(&out);
        for l in 0..league {
            for r in 0..width {
                let want = if r < ts {
                    (2 * (10 * (ts - 1) + l) + 1) as i32
                } else {
                    -1
                };
                prop_assert_eq!(got[l * width + r], want, "team {} thread {}", l, r);
            }
        }
        Ok(())
    });
}
per_backend!(team_broadcast_functor);

/// Team-level `parallel_reduce`: the total over all teams, with one and with two accumulators
/// (an empty league gives the identities).
fn team_reduce<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), 0usize..30, any::<u64>()),
        |(league, w, seed)| {
            let data = crate::ints(seed, league * w, -1000, 1000);
            let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, w], data.clone())?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            let total: i64 = parallel_reduce("team_total", p, team_total(&a), Sum)?;
            prop_assert_eq!(total, data.iter().sum::<i64>());
            let p = TeamPolicy::new(&space, league, TeamSize::Auto);
            let (mx, count) = parallel_reduce("team_max", p, team_max_and_count(&a), (Max, Sum))?;
            prop_assert_eq!(mx, data.iter().copied().max().unwrap_or(i64::MIN));
            prop_assert_eq!(count, league as i64);
            Ok(())
        },
    );
}
per_backend!(team_reduce);

/// Rayon with many league chunks gives exactly the serial results.
#[cfg(feature = "rayon")]
#[test]
fn rayon_league_chunks_match_serial() {
    let rayon = rokkos::Rayon::with_threads(2).unwrap();
    for league in [9usize, 100, 1025] {
        let data = crate::ints(league as u64, league * 17, -1000, 1000);
        let a = View::<i64, 2>::from_vec("a", [league, 17], data).unwrap();
        let os = View::<i64>::new("os", [league]).unwrap();
        let or = View::<i64>::new("or", [league]).unwrap();
        parallel_for(
            "s",
            TeamPolicy::new(&Serial, league, TeamSize::Auto),
            row_sums(&a, &os),
        )
        .unwrap();
        parallel_for(
            "r",
            TeamPolicy::new(&rayon, league, TeamSize::Auto),
            row_sums(&a, &or),
        )
        .unwrap();
        assert_eq!(os.to_vec(), or.to_vec());
        let ts: i64 = parallel_reduce(
            "s",
            TeamPolicy::new(&Serial, league, TeamSize::Auto),
            team_total(&a),
            Sum,
        )
        .unwrap();
        let tr: i64 = parallel_reduce(
            "r",
            TeamPolicy::new(&rayon, league, TeamSize::Auto),
            team_total(&a),
            Sum,
        )
        .unwrap();
        assert_eq!(ts, tr);
    }
}
