//! Team and thread scratch memory (Kokkos `TestTeamScratch` / `TestScratch`): a round trip through
//! team scratch at levels 0 and 1, thread-private scratch, several scratch Views at once (rank 1
//! and 2, different element types), and scratch inside a team reduction.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Reverses each row of `a` (doubled) through team scratch of one level.
/// Scratch levels are constants in a kernel (each device backend places them statically), so the
/// round trip comes once per level.
macro_rules! reverse_kernel {
    ($name:ident, $level:literal) => {
        #[kernel]
        fn $name(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64, 2>) {
            let l = team.league_rank();
            let n = a.extent(1);
            let tmp = team.team_scratch::<f64, 1>($level, [n]);
            for j in team.thread_range(n) {
                tmp[j] = 2.0 * a[(l, j)];
            }
            team.team_barrier();
            for j in team.thread_range(n) {
                out[(l, j)] = tmp[n - 1 - j];
            }
        }
    };
}
reverse_kernel!(reverse_via_scratch0, 0);
reverse_kernel!(reverse_via_scratch1, 1);

/// Row sums of `3 a` through thread-private scratch.
#[kernel]
fn thread_scratch_sum(team: &TeamMember, a: View<i64, 2>, out: ViewMut<i64>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let mine = team.thread_scratch::<i64, 1>(0, [n]);
    for j in team.vector_range(n) {
        mine[j] = 3 * a[(l, j)];
    }
    let s = team.vector_reduce(n, Sum, |j, acc: &mut i64| {
        *acc += mine[j];
    });
    team.single_team(|| {
        out[l] = s;
    });
}

/// Two scratch Views at two levels: `s0` (i32, level 0) and `s1` (i64, rank 2, level 1).
#[kernel]
fn two_buffers(team: &TeamMember, a: View<i32, 2>, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let s0 = team.team_scratch::<i32, 1>(0, [n]);
    let s1 = team.team_scratch::<i64, 2>(1, [2, n]);
    for j in team.thread_range(n) {
        s0[j] = a[(l, j)];
        s1[(0, j)] = 10 * a[(l, j)] as i64;
        s1[(1, j)] = j as i64;
    }
    team.team_barrier();
    for j in team.thread_range(n) {
        out[(l, j)] = s0[n - 1 - j] as i64 + s1[(0, j)] + s1[(1, n - 1 - j)];
    }
}

/// The sum of squares of the whole matrix, staged through team scratch.
#[kernel]
fn scratch_reduce(team: &TeamMember, acc: &mut i64, a: View<i64, 2>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let tmp = team.team_scratch::<i64, 1>(0, [n]);
    for j in team.thread_range(n) {
        tmp[j] = a[(l, j)] * a[(l, j)];
    }
    team.team_barrier();
    let s = team.thread_reduce(n, Sum, |j, t: &mut i64| {
        *t += tmp[j];
    });
    team.single_team(|| {
        *acc += s;
    });
}

fn leagues() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 7, 64, 257])
}
fn widths() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 3, 31, 64, 255, 1000])
}
/// Bytes for `count` elements of `size` bytes, rounded up to the 8-byte scratch alignment.
fn padded(count: usize, size: usize) -> usize {
    (count * size).div_ceil(8) * 8
}

/// Kokkos TestTeamScratch: write team scratch, barrier, read it back in another order; at both
/// levels, with exactly the requested number of bytes.
fn scratch_round_trip<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), widths(), 0usize..2, any::<u64>()),
        |(league, n, level, seed)| {
            let data = crate::unit_floats(seed, league * n);
            let a: DevView<E, f64, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let out: DevView<E, f64, 2, LayoutLeft> = dev(&space, "out", [league, n])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(level, n * 8, 0);
            if level == 0 {
                parallel_for("reverse_via_scratch", p, reverse_via_scratch0(&a, &out))?;
            } else {
                parallel_for("reverse_via_scratch", p, reverse_via_scratch1(&a, &out))?;
            }
            let want: Vec<f64> = (0..league)
                .flat_map(|l| {
                    let row = &data[l * n..(l + 1) * n];
                    row.iter().rev().map(|v| 2.0 * v).collect::<Vec<_>>()
                })
                .collect();
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}
per_backend!(scratch_round_trip);

/// Thread-private scratch (`per_thread` bytes of the request).
fn thread_private_scratch<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), widths(), any::<u64>()),
        |(league, n, seed)| {
            let data = crate::ints(seed, league * n, -1000, 1000);
            let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let out: DevView<E, i64> = dev(&space, "out", [league])?;
            // Per-thread scratch is multiplied by the team size: take as many threads as fit.
            let lim = space.team_limits();
            let fit = lim.scratch_max[0].checked_div(n * 8).unwrap_or(usize::MAX);
            let ts = TeamSize::Exactly(lim.team_size_auto.min(fit).max(1));
            let p = TeamPolicy::new(&space, league, ts)
                .vector_length(4)
                .scratch(0, 0, n * 8);
            parallel_for("thread_scratch_sum", p, thread_scratch_sum(&a, &out))?;
            let want: Vec<i64> = (0..league)
                .map(|l| 3 * data[l * n..(l + 1) * n].iter().sum::<i64>())
                .collect();
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}
per_backend!(thread_private_scratch);

/// Two scratch Views of different types, ranks and levels in the same team.
fn several_scratch_views<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), widths(), any::<u64>()),
        |(league, n, seed)| {
            let data: Vec<i32> = crate::ints(seed, league * n, -1000, 1000)
                .into_iter()
                .map(|v| v as i32)
                .collect();
            let a: DevView<E, i32, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let out: DevView<E, i64, 2> = dev(&space, "out", [league, n])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto)
                .scratch(0, padded(n, 4), 0)
                .scratch(1, padded(2 * n, 8), 0);
            parallel_for("two_buffers", p, two_buffers(&a, &out))?;
            let mut want = Vec::with_capacity(league * n);
            for l in 0..league {
                let row = &data[l * n..(l + 1) * n];
                for j in 0..n {
                    want.push(row[n - 1 - j] as i64 + 10 * row[j] as i64 + (n - 1 - j) as i64);
                }
            }
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}
per_backend!(several_scratch_views);

/// Team scratch inside a team `parallel_reduce`.
fn scratch_in_reduce<E: ExecutionSpace>(space: E) {
    check(
        16,
        (leagues(), widths(), any::<u64>()),
        |(league, n, seed)| {
            let data = crate::ints(seed, league * n, -1000, 1000);
            let a: DevView<E, i64, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, n * 8, 0);
            let got: i64 = parallel_reduce("scratch_reduce", p, scratch_reduce(&a), Sum)?;
            prop_assert_eq!(got, data.iter().map(|v| v * v).sum::<i64>());
            Ok(())
        },
    );
}
per_backend!(scratch_in_reduce);

/// Using more scratch than the policy reserved fails inside the kernel, as an `Err` naming the
/// sizes on every backend (host backends: `Err(KernelFailed)`), never a panic.
fn scratch_overuse_fails<E: ExecutionSpace>(space: E) {
    let a: DevView<E, f64, 2> = dev(&space, "a", [4, 16]).unwrap();
    let out: DevView<E, f64, 2> = dev(&space, "out", [4, 16]).unwrap();
    let p = TeamPolicy::new(&space, 4, TeamSize::Auto).scratch(0, 8 * 15, 0);
    let r = parallel_for("too_little_scratch", p, reverse_via_scratch0(&a, &out))
        .and_then(|()| space.fence());
    let msg = crate::kernel_failure(&space, r, "reverse_via_scratch0", "scratch overuse");
    assert!(msg.contains("scratch") && msg.contains("16"), "{msg}");
}
per_backend!(scratch_overuse_fails);
