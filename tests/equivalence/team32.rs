//! Team kernels with no 64-bit value of their own, whose `usize` values the width proof bounds
//! (`rokkos_device::emit::width`, rule 6): every team construct (team and thread scratch at both
//! levels, nested thread, vector and team-vector ranges, reductions and scans at each level,
//! `single` with a result, a broadcast, barriers) on `i32` / `u32` data. A device backend runs
//! them in the 32-bit index variant, so they also run on an adapter without SHADER_INT64 (the
//! `wgpu_no_int64` instances and Mesa's OpenGL driver).

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Per row `l` of `a`: `out[(l, j)]` the exclusive prefix sum of the doubled row read
/// backwards, `sums[l]` the row's doubled sum plus its largest doubled element plus twice the
/// sum again (through a broadcast and a team `single` with a result).
#[kernel]
fn rows32(team: &TeamMember, a: View<i32, 2>, out: ViewMut<i32, 2>, sums: ViewMut<i32>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let tmp = team.team_scratch::<i32, 1>(1, [n]);
    for j in team.thread_range(n) {
        tmp[j] = 2 * a[(l, j)];
    }
    team.team_barrier();
    let s = team.team_vector_reduce(n, Sum, |j, t: &mut i32| {
        *t += tmp[j];
    });
    let m = team.thread_reduce(n, Max, |j, t: &mut i32| {
        if tmp[j] > *t {
            *t = tmp[j];
        }
    });
    let _total = team.thread_scan(n, |j, partial: &mut i32, is_final: bool| {
        if is_final {
            out[(l, j)] = *partial;
        }
        *partial += tmp[n - 1 - j];
    });
    let twice = team.team_broadcast(2 * s, 0);
    let mx = team.single_team(|| if n > 0 { m } else { 0 });
    team.single_team(|| {
        sums[l] = s + mx + twice;
    });
}

/// Per row `l` of `a` (`u32`): each thread stages the row tripled in its private level-0
/// scratch, a vector reduction sums it, a vector scan numbers the elements below a bound
/// (`cnt[l]` the count), a thread `single` with a result keeps the sum, and a team-vector
/// range writes `b[(l, j)] = a[(l, j)] + j`.
#[kernel]
fn lanes32(
    team: &TeamMember,
    a: View<u32, 2>,
    b: ViewMut<u32, 2>,
    sums: ViewMut<u32>,
    cnt: ViewMut<u32>,
    bound: u32,
) {
    let l = team.league_rank();
    let n = a.extent(1);
    let mine = team.thread_scratch::<u32, 1>(0, [n]);
    for j in team.vector_range(n) {
        mine[j] = 3 * a[(l, j)];
    }
    let s = team.vector_reduce(n, Sum, |j, t: &mut u32| {
        *t += mine[j];
    });
    let below = team.vector_scan(n, |j, partial: &mut u32, _is_final: bool| {
        if mine[j] < bound {
            *partial += 1;
        }
    });
    let kept = team.single_thread(|| s);
    for j in team.team_vector_range(n) {
        b[(l, j)] = a[(l, j)] + j as u32;
    }
    team.single_team(|| {
        sums[l] = kept;
        cnt[l] = below;
    });
}

fn leagues() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 7, 64, 257])
}
fn widths() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 3, 31, 64, 255])
}

/// [`rows32`] against the plain loops.
fn team_constructs_32<E: ExecutionSpace>(space: E) {
    check(
        12,
        (leagues(), widths(), any::<u64>()),
        |(league, n, seed)| {
            let data: Vec<i32> = crate::ints(seed, league * n, -1000, 1000)
                .into_iter()
                .map(|v| v as i32)
                .collect();
            let a: DevView<E, i32, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let out: DevView<E, i32, 2> = dev(&space, "out", [league, n])?;
            let sums: DevView<E, i32> = dev(&space, "sums", [league])?;
            let p = TeamPolicy::new(&space, league, TeamSize::Auto)
                .vector_length(4)
                .scratch(1, 4 * n, 0);
            parallel_for("rows32", p, rows32(&a, &out, &sums))?;
            let (mut want_out, mut want_sums) = (Vec::new(), Vec::new());
            for l in 0..league {
                let row: Vec<i32> = data[l * n..(l + 1) * n].iter().map(|v| 2 * v).collect();
                let mut acc = 0;
                for j in 0..n {
                    want_out.push(acc);
                    acc += row[n - 1 - j];
                }
                let s: i32 = row.iter().sum();
                let m = row.iter().copied().max().unwrap_or(0);
                want_sums.push(s + m + 2 * s);
            }
            prop_assert_eq!(to_host(&out), want_out);
            prop_assert_eq!(to_host(&sums), want_sums);
            Ok(())
        },
    );
}
per_backend!(team_constructs_32);

/// [`lanes32`] against the plain loops.
fn vector_constructs_32<E: ExecutionSpace>(space: E) {
    check(
        12,
        (leagues(), widths(), any::<u64>()),
        |(league, n, seed)| {
            let data: Vec<u32> = crate::ints(seed, league * n, 0, 1000)
                .into_iter()
                .map(|v| v as u32)
                .collect();
            let a: DevView<E, u32, 2> = dev_from_vec(&space, "a", [league, n], data.clone())?;
            let b: DevView<E, u32, 2> = dev(&space, "b", [league, n])?;
            let sums: DevView<E, u32> = dev(&space, "sums", [league])?;
            let cnt: DevView<E, u32> = dev(&space, "cnt", [league])?;
            // Each thread's pool starts 8-byte aligned: request whole 8-byte words.
            let per_thread = (4 * n).div_ceil(8) * 8;
            let lim = space.team_limits();
            let fit = lim.scratch_max[0]
                .checked_div(per_thread)
                .unwrap_or(usize::MAX);
            let ts = TeamSize::Exactly(lim.team_size_auto.min(fit).clamp(1, 8));
            let p = TeamPolicy::new(&space, league, ts)
                .vector_length(4)
                .scratch(0, 0, per_thread);
            parallel_for("lanes32", p, lanes32(&a, &b, &sums, &cnt, 1500))?;
            let (mut want_b, mut want_sums, mut want_cnt) = (Vec::new(), Vec::new(), Vec::new());
            for l in 0..league {
                let row = &data[l * n..(l + 1) * n];
                want_b.extend(row.iter().enumerate().map(|(j, v)| v + j as u32));
                want_sums.push(row.iter().map(|v| 3 * v).sum::<u32>());
                want_cnt.push(row.iter().filter(|v| 3 * **v < 1500).count() as u32);
            }
            prop_assert_eq!(to_host(&b), want_b);
            prop_assert_eq!(to_host(&sums), want_sums);
            prop_assert_eq!(to_host(&cnt), want_cnt);
            Ok(())
        },
    );
}
per_backend!(vector_constructs_32);

/// Per team `l`: a thread reduction over `0..m * m`, `m` the extent of a 16-element team
/// scratch View read back with `extent(0)`, summing `q % m`; `out[l]` that sum plus `l`. The
/// width proof bounds `m * m` by the allocation's value (256), so the kernel runs in the 32-bit
/// variant; bounded by any scratch extent the launch facts allow, `m * m` could pass 2^32.
#[kernel]
fn scratch_extent32(team: &TeamMember, out: ViewMut<u32>) {
    let l = team.league_rank();
    let tmp = team.team_scratch::<u32, 1>(0, [16]);
    let m = tmp.extent(0);
    let c = team.thread_reduce(m * m, Sum, |q, t: &mut u32| {
        *t += (q % m) as u32;
    });
    team.single_team(|| {
        out[l] = c + l as u32;
    });
}

/// [`scratch_extent32`] against the closed form: `sum_{q < 256} q % 16 = 16 * 120`.
fn scratch_extent_bounds_32<E: ExecutionSpace>(space: E) {
    check(4, leagues(), |league| {
        let out: DevView<E, u32> = dev(&space, "out", [league])?;
        let p = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, 64, 0);
        parallel_for("scratch_extent32", p, scratch_extent32(&out))?;
        let want: Vec<u32> = (0..league as u32).map(|l| 16 * 120 + l).collect();
        prop_assert_eq!(to_host(&out), want);
        Ok(())
    });
}
per_backend!(scratch_extent_bounds_32);
