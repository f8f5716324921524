//! Inclusive nested ranges (`first..=last`) in `thread_range` / `vector_range` /
//! `team_vector_range` and their reduce and scan forms: irregular per-team intervals read from a
//! View (the TOAST shape), empty intervals (`last < first`), and ends at `usize::MAX`, against plain
//! Rust loops over the same `RangeInclusive`s.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Per team `l`, the interval `iv[(l, 0)]..=iv[(l, 1)]` of columns: a thread range writes each
/// sample, nested vector ranges write a second View, and the reduce and scan forms of the three
/// kinds sum over the same interval.
#[kernel]
fn intervals(
    team: &TeamMember,
    iv: View<i64, 2>,
    a: View<i64, 2>,
    out: ViewMut<i64, 2>,
    tv: ViewMut<i64, 3>,
    pre: ViewMut<i64, 2>,
    sums: ViewMut<i64, 2>,
) {
    let l = team.league_rank();
    let first = iv[(l, 0)] as usize;
    let last = iv[(l, 1)] as usize;
    for j in team.thread_range(first..=last) {
        out[(l, j)] = a[(l, j)] * 3 + 1;
        for k in team.vector_range(first..=last) {
            tv[(l, j, k)] = a[(l, k)] - a[(l, j)];
        }
    }
    let s1 = team.thread_reduce(first..=last, Sum, |j, acc: &mut i64| {
        *acc += a[(l, j)];
    });
    let s2 = team.team_vector_reduce(first..=last, Max, |j, acc: &mut i64| {
        if a[(l, j)] > *acc {
            *acc = a[(l, j)];
        }
    });
    let s3 = team.thread_reduce(first..=last, Sum, |j, acc: &mut i64| {
        let row = team.vector_reduce(first..=last, Sum, |k, t: &mut i64| {
            *t += a[(l, k)] * (j as i64);
        });
        *acc += row;
    });
    let s4 = team.team_vector_scan(first..=last, |j, partial: &mut i64, is_final: bool| {
        if is_final {
            pre[(l, j)] = *partial;
        }
        *partial += a[(l, j)];
    });
    let s5 = team.thread_scan(first..=last, |_j, partial: &mut i64, _is_final: bool| {
        *partial += 1;
    });
    team.single_team(|| {
        sums[(l, 0)] = s1;
        sums[(l, 1)] = s2;
        sums[(l, 2)] = s3;
        sums[(l, 3)] = s4;
        sums[(l, 4)] = s5;
    });
}

/// Ranges that end at `usize::MAX`: `from..=usize::MAX` for `from` near the top, counted and
/// summed by every reduce and scan form and visited by every loop form (a team-wide atomic count).
#[kernel]
fn top_ends(team: &TeamMember, out: ViewMut<i64, 2>, visits: ViewMut<i64, 2>, back: usize) {
    let l = team.league_rank();
    let from = usize::MAX - back;
    let n1 = team.thread_reduce(from..=usize::MAX, Sum, |_j, acc: &mut i64| {
        *acc += 1;
    });
    let n2 = team.vector_reduce(from..=usize::MAX, Sum, |j, acc: &mut i64| {
        *acc += (usize::MAX - j) as i64;
    });
    let n3 = team.team_vector_reduce(from..=usize::MAX, Min, |j, acc: &mut i64| {
        if ((usize::MAX - j) as i64) < *acc {
            *acc = (usize::MAX - j) as i64;
        }
    });
    let n4 = team.thread_scan(from..=usize::MAX, |_j, partial: &mut i64, _f: bool| {
        *partial += 2;
    });
    let n5 = team.vector_scan(from..=usize::MAX, |_j, partial: &mut i64, _f: bool| {
        *partial += 3;
    });
    let n6 = team.team_vector_scan(from..=usize::MAX, |_j, partial: &mut i64, _f: bool| {
        *partial += 5;
    });
    for j in team.thread_range(from..=usize::MAX) {
        visits.atomic_add((l, 0), (usize::MAX - j) as i64 + 1);
        for _k in team.vector_range(from..=usize::MAX) {
            visits.atomic_add((l, 1), 1);
        }
    }
    for _j in team.team_vector_range(from..=usize::MAX) {
        visits.atomic_add((l, 2), 1);
    }
    team.single_team(|| {
        out[(l, 0)] = n1;
        out[(l, 1)] = n2;
        out[(l, 2)] = n3;
        out[(l, 3)] = n4;
        out[(l, 4)] = n5;
        out[(l, 5)] = n6;
    });
}

/// Per-team intervals inside `0..n`, some empty (`last = first - 1`, and `0..=-1` read as
/// `0..=usize::MAX` is never drawn: an empty interval at 0 is `1..=0`).
fn interval_cases() -> impl Strategy<Value = (usize, usize, usize, u64)> {
    (
        proptest::sample::select(vec![1usize, 2, 5, 9]),
        1usize..24,
        proptest::sample::select(vec![1usize, 2, 8]),
        any::<u64>(),
    )
}

fn inclusive_intervals<E: ExecutionSpace>(space: E) {
    check(16, interval_cases(), |(league, n, vl, seed)| {
        let data = crate::ints(seed, league * n, -40, 40);
        let bounds = crate::splitmix(seed ^ 0x5eed, 2 * league);
        let mut iv = Vec::with_capacity(2 * league);
        for l in 0..league {
            let first = (bounds[2 * l] % n as u64) as i64;
            // From `first - 1` (empty) up to `n - 1`; an empty interval at 0 is `1..=0`.
            let last = first - 1 + (bounds[2 * l + 1] % (n as u64 - first as u64 + 1)) as i64;
            let (first, last) = if last < 0 { (1, 0) } else { (first, last) };
            iv.extend([first, last]);
        }
        let ivv: DevView<E, i64, 2> = dev_from_vec(&space, "iv", [league, 2], iv.clone())?;
        let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
        let sentinel = -7_777i64;
        let out: DevView<E, i64, 2> =
            dev_from_vec(&space, "out", [league, n], vec![sentinel; league * n])?;
        let tv: DevView<E, i64, 3> =
            dev_from_vec(&space, "tv", [league, n, n], vec![sentinel; league * n * n])?;
        let pre: DevView<E, i64, 2> =
            dev_from_vec(&space, "pre", [league, n], vec![sentinel; league * n])?;
        let sums: DevView<E, i64, 2> = dev(&space, "sums", [league, 5])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
        parallel_for(
            "inclusive_intervals",
            p,
            intervals(&ivv, &a, &out, &tv, &pre, &sums),
        )?;
        let (got, gtv, gpre, gsums) = (to_host(&out), to_host(&tv), to_host(&pre), to_host(&sums));
        for l in 0..league {
            let (first, last) = (iv[2 * l] as usize, iv[2 * l + 1] as usize);
            let row = &data[l * n..(l + 1) * n];
            let mut run = 0;
            for j in 0..n {
                let inside = (first..=last).contains(&j);
                let want = if inside { row[j] * 3 + 1 } else { sentinel };
                prop_assert_eq!(got[l * n + j], want, "out l={} j={}", l, j);
                for k in 0..n {
                    let want = if inside && (first..=last).contains(&k) {
                        row[k] - row[j]
                    } else {
                        sentinel
                    };
                    prop_assert_eq!(gtv[(l * n + j) * n + k], want, "tv l={} j={} k={}", l, j, k);
                }
                let want = if inside { run } else { sentinel };
                prop_assert_eq!(gpre[l * n + j], want, "pre l={} j={}", l, j);
                if inside {
                    run += row[j];
                }
            }
            let span = first..=last;
            let s1: i64 = span.clone().map(|j| row[j]).sum();
            let s2 = span.clone().map(|j| row[j]).max().unwrap_or(i64::MIN);
            let s3: i64 = span
                .clone()
                .map(|j| span.clone().map(|k| row[k] * j as i64).sum::<i64>())
                .sum();
            let s5 = span.clone().count() as i64;
            prop_assert_eq!(
                &gsums[l * 5..l * 5 + 5],
                &[s1, s2, s3, run, s5][..],
                "sums l={}",
                l
            );
        }
        Ok(())
    });
}
per_backend!(inclusive_intervals);

fn inclusive_top_ends<E: ExecutionSpace>(space: E) {
    for back in [0usize, 1, 6] {
        for vl in [1usize, 4] {
            let league = 3;
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, 6]).unwrap();
            let visits: DevView<E, i64, 2> = dev(&space, "visits", [league, 3]).unwrap();
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("top_ends", p, top_ends(&out, &visits, back)).unwrap();
            // Independent expectation: Rust's own `RangeInclusive` up to `usize::MAX`.
            let span = usize::MAX - back..=usize::MAX;
            let n = span.clone().count() as i64;
            let dist: i64 = span.clone().map(|j| (usize::MAX - j) as i64).sum();
            let near = span.clone().map(|j| (usize::MAX - j) as i64).min().unwrap();
            let want: Vec<i64> = (0..league)
                .flat_map(|_| [n, dist, near, 2 * n, 3 * n, 5 * n])
                .collect();
            assert_eq!(to_host(&out), want, "back={back} vl={vl}");
            let visited: Vec<i64> = (0..league).flat_map(|_| [dist + n, n * n, n]).collect();
            assert_eq!(to_host(&visits), visited, "back={back} vl={vl}");
        }
    }
}
per_backend!(inclusive_top_ends);
