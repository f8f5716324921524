//! Hierarchical parallelism (Kokkos `TestTeamVector`): `thread_range` -> `vector_range` nesting with
//! writes and reductions, `team_vector_range`, `vector_scan`, `team_vector_reduce` with `MinLoc`,
//! and a thread reduction whose body is itself a vector reduction, against plain loops.

use crate::{assert_close, check, dev, dev_from_vec, to_host, DevView, F64_TOL};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn nested_write(team: &TeamMember, out: ViewMut<i64, 3>) {
    let l = team.league_rank();
    for j in team.thread_range(out.extent(1)) {
        for k in team.vector_range(out.extent(2)) {
            out[(l, j, k)] = ((l * 100 + j) * 100 + k) as i64;
        }
    }
}

#[kernel]
fn nested_sums(team: &TeamMember, a: View<f64, 3>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        let s = team.vector_reduce(a.extent(2), Sum, |k, acc: &mut f64| {
            *acc += a[(l, j, k)];
        });
        team.single_thread(|| {
            out[(l, j)] = s;
        });
    }
}

#[kernel]
fn team_vector_fill(team: &TeamMember, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    for j in team.team_vector_range(out.extent(1)) {
        out[(l, j)] = (l * 7 + j * 3) as i64;
    }
}

#[kernel]
fn vector_prefix(team: &TeamMember, a: View<i64, 3>, out: ViewMut<i64, 3>) {
    let l = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        let _total = team.vector_scan(a.extent(2), |k, partial: &mut i64, is_final: bool| {
            if is_final {
                out[(l, j, k)] = *partial;
            }
            *partial += a[(l, j, k)];
        });
    }
}

#[kernel]
fn row_argmin(team: &TeamMember, a: View<f64, 2>, val: ViewMut<f64>, loc: ViewMut<i64>) {
    let l = team.league_rank();
    // MinLoc as two built-in reductions (nested reducers are the scalar ones on every backend):
    // the minimum, then the first index holding it.
    let m = team.team_vector_reduce(a.extent(1), Min, |j, acc: &mut f64| {
        if a[(l, j)] < *acc {
            *acc = a[(l, j)];
        }
    });
    let at = team.team_vector_reduce(a.extent(1), Min, |j, acc: &mut i64| {
        if a[(l, j)] == m && (j as i64) < *acc {
            *acc = j as i64;
        }
    });
    team.single_team(|| {
        val[l] = m;
        loc[l] = if at == i64::MAX { -1 } else { at };
    });
}

/// The largest row sum of each team's matrix: a thread reduction (`Max`) over vector
/// reductions (`Sum`), all summed over the league.
#[kernel]
fn max_row_sum(team: &TeamMember, acc: &mut i64, a: View<i64, 3>) {
    let l = team.league_rank();
    let m = team.thread_reduce(a.extent(1), Max, |j, mx: &mut i64| {
        let s = team.vector_reduce(a.extent(2), Sum, |k, t: &mut i64| {
            *t += a[(l, j, k)];
        });
        if s > *mx {
            *mx = s;
        }
    });
    team.single_team(|| {
        *acc += m;
    });
}

fn shapes() -> impl Strategy<Value = (usize, usize, usize)> {
    (
        proptest::sample::select(vec![0usize, 1, 2, 5, 17, 64]),
        crate::small_extent(12),
        crate::small_extent(20),
    )
}
fn vector_lengths() -> impl Strategy<Value = usize> {
    proptest::sample::select(vec![1usize, 2, 8, 32])
}

/// Triple nesting writes every element `(league, thread, vector)` once.
fn thread_vector_nesting<E: ExecutionSpace>(space: E) {
    check(16, (shapes(), vector_lengths()), |((league, m, n), vl)| {
        let out: DevView<E, i64, 3, LayoutLeft> = dev(&space, "out", [league, m, n])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
        parallel_for("nested_write", p, nested_write(&out))?;
        let want: Vec<i64> = (0..league)
            .flat_map(|l| {
                (0..m).flat_map(move |j| (0..n).map(move |k| ((l * 100 + j) * 100 + k) as i64))
            })
            .collect();
        prop_assert_eq!(to_host(&out), want);

        let tv: DevView<E, i64, 2> = dev(&space, "tv", [league, n])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
        parallel_for("team_vector_fill", p, team_vector_fill(&tv))?;
        let want: Vec<i64> = (0..league)
            .flat_map(|l| (0..n).map(move |j| (l * 7 + j * 3) as i64))
            .collect();
        prop_assert_eq!(to_host(&tv), want);
        Ok(())
    });
}
per_backend!(thread_vector_nesting);

/// Vector reductions nested in thread ranges: per-row sums within a relative tolerance.
fn nested_vector_reduce<E: ExecutionSpace>(space: E) {
    check(
        16,
        (shapes(), vector_lengths(), any::<u64>()),
        |((league, m, n), vl, seed)| {
            let data = crate::unit_floats(seed, league * m * n);
            let a: DevView<E, f64, 3> = dev_from_vec(&space, "a", [league, m, n], data.clone())?;
            let out: DevView<E, f64, 2> = dev(&space, "out", [league, m])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("nested_sums", p, nested_sums(&a, &out))?;
            let got = to_host(&out);
            for r in 0..league * m {
                let row = &data[r * n..(r + 1) * n];
                let scale: f64 = row.iter().map(|v| v.abs()).sum();
                assert_close(got[r], row.iter().sum(), scale, F64_TOL, "row sum");
            }
            Ok(())
        },
    );
}
per_backend!(nested_vector_reduce);

/// `vector_scan` nested in a thread range: exclusive prefix of every innermost row.
fn nested_vector_scan<E: ExecutionSpace>(space: E) {
    check(16, (shapes(), any::<u64>()), |((league, m, n), seed)| {
        let data = crate::ints(seed, league * m * n, -50, 50);
        let a: DevView<E, i64, 3> = dev_from_vec(&space, "a", [league, m, n], data.clone())?;
        let out: DevView<E, i64, 3> = dev(&space, "out", [league, m, n])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto);
        parallel_for("vector_prefix", p, vector_prefix(&a, &out))?;
        let mut want = Vec::with_capacity(data.len());
        for row in data.chunks(n.max(1)) {
            let mut run = 0;
            for &v in row {
                want.push(run);
                run += v;
            }
        }
        prop_assert_eq!(to_host(&out), want);
        Ok(())
    });
}
per_backend!(nested_vector_scan);

/// `team_vector_reduce` with `MinLoc` per row (ties: first column; empty rows: the identity).
fn team_vector_minloc<E: ExecutionSpace>(space: E) {
    check(16, (shapes(), any::<u64>()), |((league, _, n), seed)| {
        let data: Vec<f64> = crate::ints(seed, league * n, 0, 9)
            .into_iter()
            .map(|v| v as f64 * 0.5)
            .collect();
        let a: DevView<E, f64, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
        let val: DevView<E, f64> = dev(&space, "val", [league])?;
        let loc: DevView<E, i64> = dev(&space, "loc", [league])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto);
        parallel_for("row_argmin", p, row_argmin(&a, &val, &loc))?;
        let (hval, hloc) = (to_host(&val), to_host(&loc));
        for l in 0..league {
            let row = &data[l * n..(l + 1) * n];
            let mut best = (f64::INFINITY, usize::MAX);
            for (j, &v) in row.iter().enumerate() {
                if v < best.0 {
                    best = (v, j);
                }
            }
            prop_assert_eq!(hval[l], best.0);
            prop_assert_eq!(hloc[l], best.1 as i64);
        }
        Ok(())
    });
}
per_backend!(team_vector_minloc);

/// A thread reduction over vector reductions, inside a team `parallel_reduce`.
fn reduce_of_reductions<E: ExecutionSpace>(space: E) {
    check(
        16,
        (
            proptest::sample::select(vec![0usize, 1, 3, 17, 64]),
            1usize..10,
            0usize..15,
            any::<u64>(),
        ),
        |(league, m, n, seed)| {
            let data = crate::ints(seed, league * m * n, -100, 100);
            let a: DevView<E, i64, 3> = dev_from_vec(&space, "a", [league, m, n], data.clone())?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(8);
            let got: i64 = parallel_reduce("max_row_sum", p, max_row_sum(&a), Sum)?;
            let want: i64 = (0..league)
                .map(|l| {
                    (0..m)
                        .map(|j| {
                            data[(l * m + j) * n..(l * m + j + 1) * n]
                                .iter()
                                .sum::<i64>()
                        })
                        .max()
                        .unwrap()
                })
                .sum();
            prop_assert_eq!(got, want);
            Ok(())
        },
    );
}
per_backend!(reduce_of_reductions);
