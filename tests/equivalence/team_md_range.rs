//! Nested MD ranges (Kokkos `TestTeamMDRange`): `TeamThreadMDRange`, `ThreadVectorMDRange` and
//! `TeamVectorMDRange` loops of rank 2 and 3 write every element once, and their reductions
//! (`Sum`, `Max`, and the sum of `TeamVectorMDRange`) give what plain loops give; `_` binds no
//! index.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

fn code(l: usize, i: usize, j: usize, k: usize) -> i64 {
    (((l * 50 + i) * 50 + j) * 50 + k) as i64
}

/// `TeamThreadMDRange` of rank 2 and 3.
#[kernel]
fn md_thread_fill(team: &TeamMember, out2: ViewMut<i64, 3>, out3: ViewMut<i64, 4>) {
    let l = team.league_rank();
    for [i, j] in team.thread_md_range([out2.extent(1), out2.extent(2)]) {
        out2[(l, i, j)] = (((l * 50 + i) * 50 + j) * 50) as i64;
    }
    for [i, j, k] in team.thread_md_range([out3.extent(1), out3.extent(2), out3.extent(3)]) {
        out3[(l, i, j, k)] = (((l * 50 + i) * 50 + j) * 50 + k) as i64;
    }
}

/// `ThreadVectorMDRange` in a thread range, and `TeamVectorMDRange`.
#[kernel]
fn md_vector_fill(team: &TeamMember, tv: ViewMut<i64, 4>, tvm: ViewMut<i64, 4>) {
    let l = team.league_rank();
    for i in team.thread_range(tv.extent(1)) {
        for [j, k] in team.vector_md_range([tv.extent(2), tv.extent(3)]) {
            tv[(l, i, j, k)] = (((l * 50 + i) * 50 + j) * 50 + k) as i64;
        }
    }
    for [i, j, k] in team.team_vector_md_range([tvm.extent(1), tvm.extent(2), tvm.extent(3)]) {
        tvm[(l, i, j, k)] = (((l * 50 + i) * 50 + j) * 50 + k) as i64;
    }
}

/// Per team: the sum and the maximum of its 3-D block by `thread_md_reduce`, the sum by
/// `team_vector_md_reduce`, the sum of the (non-empty) rows' maxima by `vector_md_reduce` in a
/// thread reduction, and the count of a 2-D range bound as `[_, _]`.
#[kernel]
fn md_reductions(team: &TeamMember, a: View<i64, 4>, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    let sum = team.thread_md_reduce(
        [a.extent(1), a.extent(2), a.extent(3)],
        Sum,
        |[i, j, k], s: &mut i64| {
            *s += a[(l, i, j, k)];
        },
    );
    let mx = team.thread_md_reduce(
        [a.extent(1), a.extent(2), a.extent(3)],
        Max,
        |[i, j, k], m: &mut i64| {
            if a[(l, i, j, k)] > *m {
                *m = a[(l, i, j, k)];
            }
        },
    );
    let count = team.thread_md_reduce([a.extent(1), a.extent(3)], Sum, |[_, _], n: &mut i64| {
        *n += 1;
    });
    let tv = team.team_vector_md_reduce(
        [a.extent(1), a.extent(2), a.extent(3)],
        Sum,
        |[i, j, k], s: &mut i64| *s += a[(l, i, j, k)],
    );
    let rows = team.thread_reduce(a.extent(1), Sum, |i, acc: &mut i64| {
        // The local takes the name of the closure's accumulator, which is one only in there.
        let m = team.vector_md_reduce([a.extent(2), a.extent(3)], Max, |[j, k], m: &mut i64| {
            if a[(l, i, j, k)] > *m {
                *m = a[(l, i, j, k)];
            }
        });
        // An empty row's maximum is the identity, `i64::MIN`: not added.
        if m > i64::MIN {
            *acc += m;
        }
    });
    team.single_team(|| {
        out[(l, 0)] = sum;
        out[(l, 1)] = mx;
        out[(l, 2)] = tv;
        out[(l, 3)] = rows;
        out[(l, 4)] = count;
    });
}

fn shapes() -> impl Strategy<Value = (usize, [usize; 3])> {
    (
        proptest::sample::select(vec![0usize, 1, 2, 5, 33]),
        [
            proptest::sample::select(vec![0usize, 1, 3, 9]),
            proptest::sample::select(vec![0usize, 1, 4, 7]),
            proptest::sample::select(vec![0usize, 1, 2, 19]),
        ],
    )
}
fn vector_lengths() -> impl Strategy<Value = usize> {
    proptest::sample::select(vec![1usize, 2, 8, 32])
}

/// Every element of each team's block written once with its own code.
fn md_ranges_fill<E: ExecutionSpace>(space: E) {
    check(
        16,
        (shapes(), vector_lengths()),
        |((league, [a, b, c]), vl)| {
            let out2: DevView<E, i64, 3> = dev(&space, "out2", [league, a, b])?;
            let out3: DevView<E, i64, 4> = dev(&space, "out3", [league, a, b, c])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("md_thread_fill", p, md_thread_fill(&out2, &out3))?;
            let tv: DevView<E, i64, 4, LayoutLeft> = dev(&space, "tv", [league, a, b, c])?;
            let tvm: DevView<E, i64, 4> = dev(&space, "tvm", [league, a, b, c])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("md_vector_fill", p, md_vector_fill(&tv, &tvm))?;
            let mut want2 = Vec::new();
            let mut want3 = Vec::new();
            for l in 0..league {
                for i in 0..a {
                    for j in 0..b {
                        want2.push(code(l, i, j, 0));
                        for k in 0..c {
                            want3.push(code(l, i, j, k));
                        }
                    }
                }
            }
            prop_assert_eq!(to_host(&out2), want2);
            prop_assert_eq!(&to_host(&out3), &want3);
            prop_assert_eq!(&to_host(&tv), &want3);
            prop_assert_eq!(&to_host(&tvm), &want3);
            Ok(())
        },
    );
}
per_backend!(md_ranges_fill);

/// The MD reductions against plain loops over the same block (empty blocks give the identities).
fn md_range_reductions<E: ExecutionSpace>(space: E) {
    check(
        16,
        (shapes(), vector_lengths(), any::<u64>()),
        |((league, [a, b, c]), vl, seed)| {
            let data = crate::ints(seed, league * a * b * c, -1000, 1000);
            let v: DevView<E, i64, 4> = dev_from_vec(&space, "a", [league, a, b, c], data.clone())?;
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, 5])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).vector_length(vl);
            parallel_for("md_reductions", p, md_reductions(&v, &out))?;
            let got = to_host(&out);
            let block = a * b * c;
            for l in 0..league {
                let d = &data[l * block..(l + 1) * block];
                let sum: i64 = d.iter().sum();
                let rows: i64 = (0..a)
                    .filter_map(|i| d[i * b * c..(i + 1) * b * c].iter().copied().max())
                    .sum();
                let mx = d.iter().copied().max().unwrap_or(i64::MIN);
                let g = &got[l * 5..(l + 1) * 5];
                prop_assert_eq!(g[0], sum, "thread_md_reduce Sum, team {}", l);
                prop_assert_eq!(g[1], mx, "thread_md_reduce Max, team {}", l);
                prop_assert_eq!(g[2], sum, "team_vector_md_reduce, team {}", l);
                prop_assert_eq!(g[3], rows, "vector_md_reduce Max per row, team {}", l);
                prop_assert_eq!(
                    g[4],
                    (a * c) as i64,
                    "thread_md_reduce over `[_, _]`, team {}",
                    l
                );
            }
            Ok(())
        },
    );
}
per_backend!(md_range_reductions);
