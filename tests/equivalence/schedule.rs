//! Schedules (Kokkos `Schedule<Static>` / `Schedule<Dynamic>`) and team sizes for a kernel
//! (`team_size_max` / `team_size_recommended`), issue 31.
//!
//! Every pattern is launched under each [`Schedule`] and several chunk sizes, on work whose cost
//! grows with the index (item `i` loops `i` times), over empty, size-1 and uneven ranges, and
//! compared with a plain Rust loop: integers bit-exactly, and a floating-point reduction within a
//! tolerance of the serial sum and bit-identical from one run to the next (a `Dynamic` reduction
//! still joins its partials in chunk order). Team sizes: the maximum and the recommendation are
//! at least 1 and ordered, a launch with the maximum runs and computes the right result, one with
//! a team larger than the maximum is `Err(InvalidPolicy)`, and scratch per thread shrinks the
//! maximum.

use crate::{assert_close, dev, dev_from_vec, to_host, unit_floats, DevView, F32_TOL};
use rokkos::prelude::*;
use rokkos::{Error, Schedule, TeamPattern};

/// The schedules every body runs under.
const SCHEDULES: [Schedule; 3] = [Schedule::Auto, Schedule::Static, Schedule::Dynamic];
/// Range sizes: empty, one item, small, a prime, just past a power of two.
const SIZES: [usize; 6] = [0, 1, 2, 13, 97, 1025];
/// Range chunk sizes (0: the backend's choice).
const CHUNKS: [usize; 4] = [0, 1, 3, 64];

/// The uneven work of item `i`: `i` trips of a small hash, so that the last items cost far more
/// than the first ones.
fn uneven_ref(i: usize) -> i32 {
    let mut s = 0i32;
    for k in 0..i {
        s += ((k * 7 + i) % 11) as i32;
    }
    s
}

#[kernel]
fn uneven_fill(i: usize, out: ViewMut<i32>, base: usize) {
    let n = i - base;
    let mut s = 0i32;
    for k in 0..n {
        s += ((k * 7 + n) % 11) as i32;
    }
    out[i] = s;
}

#[kernel]
fn uneven_sum(i: usize, acc: &mut i32) {
    let mut s = 0i32;
    for k in 0..i {
        s += ((k * 7 + i) % 11) as i32;
    }
    *acc += s;
}

#[kernel]
fn float_sum(i: usize, acc: &mut f32, x: View<f32>) {
    let mut s = 0.0f32;
    for k in 0..(i % 17) {
        s += x[i] * (k as f32 + 0.5);
    }
    *acc += s;
}

#[kernel(scan)]
fn uneven_scan(i: usize, partial: &mut i32, is_final: bool, out: ViewMut<i32>) {
    if is_final {
        out[i] = *partial;
    }
    let mut s = 0i32;
    for k in 0..i {
        s += ((k * 7 + i) % 11) as i32;
    }
    *partial += s;
}

/// `parallel_for` over a range with uneven work, under every schedule and chunk size, from a
/// non-zero begin: each element once, the elements outside the range untouched.
fn schedule_range_for<E: ExecutionSpace>(space: E) {
    for schedule in SCHEDULES {
        for chunk in CHUNKS {
            for n in SIZES {
                let begin = 3;
                let out: DevView<E, i32> = dev(&space, "out", [begin + n + 2]).unwrap();
                out.fill(-1).unwrap();
                let p = RangePolicy::new(&space, begin..begin + n)
                    .chunk_size(chunk)
                    .schedule(schedule);
                assert_eq!(p.schedule_kind(), schedule);
                parallel_for("uneven_fill", p, uneven_fill(&out, begin)).unwrap();
                let got = to_host(&out);
                for (i, &v) in got.iter().enumerate() {
                    let want = if (begin..begin + n).contains(&i) {
                        uneven_ref(i - begin)
                    } else {
                        -1
                    };
                    assert_eq!(v, want, "{schedule:?} chunk {chunk} n {n}: element {i}");
                }
            }
        }
    }
}
per_backend!(schedule_range_for);

/// `parallel_reduce` over a range with uneven work: the integer sum is exact under every
/// schedule; a floating-point sum is within tolerance of the serial one and the same bits on a
/// second run of the same policy.
fn schedule_range_reduce<E: ExecutionSpace>(space: E) {
    let xs: Vec<f32> = unit_floats(31, 1025)
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let x: DevView<E, f32> = dev_from_vec(&space, "x", [xs.len()], xs.clone()).unwrap();
    for schedule in SCHEDULES {
        for chunk in CHUNKS {
            for n in SIZES {
                let p = RangePolicy::new(&space, 0..n)
                    .chunk_size(chunk)
                    .schedule(schedule);
                let s: i32 = parallel_reduce("uneven_sum", p.clone(), uneven_sum(), Sum).unwrap();
                let want: i32 = (0..n).map(uneven_ref).sum();
                assert_eq!(s, want, "{schedule:?} chunk {chunk} n {n}");

                let f1: f32 = parallel_reduce("float_sum", p.clone(), float_sum(&x), Sum).unwrap();
                let f2: f32 = parallel_reduce("float_sum", p, float_sum(&x), Sum).unwrap();
                let terms: Vec<f64> = (0..n)
                    .flat_map(|i| (0..i % 17).map(move |k| (i, k)))
                    .map(|(i, k)| xs[i] as f64 * (k as f64 + 0.5))
                    .collect();
                let want: f64 = terms.iter().sum();
                let scale: f64 = terms.iter().map(|t| t.abs()).sum();
                let what = format!("{schedule:?} chunk {chunk} n {n}");
                assert_close(f1 as f64, want, scale, F32_TOL, &what);
                assert_eq!(f1.to_bits(), f2.to_bits(), "{what}: two runs differ");
            }
        }
    }
}
per_backend!(schedule_range_reduce);

/// `parallel_scan` with uneven work: the exclusive prefixes and the total under every schedule
/// (a scan keeps its order whatever thread runs which chunk).
fn schedule_range_scan<E: ExecutionSpace>(space: E) {
    for schedule in SCHEDULES {
        for chunk in CHUNKS {
            for n in SIZES {
                let out: DevView<E, i32> = dev(&space, "out", [n]).unwrap();
                let p = RangePolicy::new(&space, 0..n)
                    .chunk_size(chunk)
                    .schedule(schedule);
                let total: i32 = parallel_scan("uneven_scan", p, uneven_scan(&out)).unwrap();
                let mut running = 0i32;
                let mut want = Vec::with_capacity(n);
                for i in 0..n {
                    want.push(running);
                    running += uneven_ref(i);
                }
                assert_eq!(to_host(&out), want, "{schedule:?} chunk {chunk} n {n}");
                assert_eq!(total, running, "{schedule:?} chunk {chunk} n {n}: total");
            }
        }
    }
}
per_backend!(schedule_range_scan);

#[kernel]
fn uneven_fill2((i, j): (usize, usize), out: ViewMut<i32, 2>) {
    let mut s = 0i32;
    for k in 0..(i * j) % 23 {
        s += (k + i) as i32;
    }
    out[(i, j)] = s;
}

#[kernel]
fn uneven_sum2((i, j): (usize, usize), acc: &mut i32) {
    let mut s = 0i32;
    for k in 0..(i * j) % 23 {
        s += (k + i) as i32;
    }
    *acc += s * (j as i32 + 1);
}

fn uneven2_ref(i: usize, j: usize) -> i32 {
    (0..(i * j) % 23).map(|k| (k + i) as i32).sum()
}

/// `parallel_for` and `parallel_reduce` over a 2-D box with uneven work, under every schedule,
/// with default and odd tiles and both orders, including empty and one-point boxes.
fn schedule_mdrange<E: ExecutionSpace>(space: E) {
    let boxes = [
        ([0usize, 0usize], [0usize, 5usize]),
        ([2, 1], [3, 2]),
        ([1, 2], [40, 33]),
    ];
    for schedule in SCHEDULES {
        for (lo, hi) in boxes {
            for tile in [[0usize, 0usize], [3, 5], [1, 1]] {
                for order in [Iterate::Right, Iterate::Left] {
                    let out: DevView<E, i32, 2> =
                        dev(&space, "out", [hi[0] + 1, hi[1] + 1]).unwrap();
                    out.fill(-1).unwrap();
                    let p = MDRangePolicy::new(&space, lo, hi)
                        .tile(tile)
                        .iterate(order)
                        .schedule(schedule);
                    parallel_for("uneven_fill2", p.clone(), uneven_fill2(&out)).unwrap();
                    let s: i32 = parallel_reduce("uneven_sum2", p, uneven_sum2(), Sum).unwrap();
                    let what = format!("{schedule:?} {lo:?}..{hi:?} tile {tile:?} {order:?}");
                    let got = to_host(&out);
                    let w = hi[1] + 1;
                    let mut want_sum = 0i32;
                    for i in 0..=hi[0] {
                        for j in 0..=hi[1] {
                            let inside = (lo[0]..hi[0]).contains(&i) && (lo[1]..hi[1]).contains(&j);
                            let want = if inside { uneven2_ref(i, j) } else { -1 };
                            if inside {
                                want_sum += uneven2_ref(i, j) * (j as i32 + 1);
                            }
                            assert_eq!(got[i * w + j], want, "{what}: ({i}, {j})");
                        }
                    }
                    assert_eq!(s, want_sum, "{what}: sum");
                }
            }
        }
    }
}
per_backend!(schedule_mdrange);

#[kernel]
fn uneven_team(team: &TeamMember, out: ViewMut<i32>) {
    let l = team.league_rank();
    let s = team.thread_reduce(l, Sum, |k, acc: &mut i32| {
        *acc += ((k * 7 + l) % 11) as i32;
    });
    team.single_team(|| {
        out[l] = s;
    });
}

#[kernel]
fn uneven_team_sum(team: &TeamMember, acc: &mut i32) {
    let l = team.league_rank();
    let s = team.thread_reduce(l, Sum, |k, a: &mut i32| {
        *a += ((k * 7 + l) % 11) as i32;
    });
    team.single_team(|| {
        *acc += s;
    });
}

/// Team `parallel_for` and `parallel_reduce` whose team `l` does `l` units of work, under every
/// schedule and league chunk size, including empty and one-team leagues.
fn schedule_team<E: ExecutionSpace>(space: E) {
    for schedule in SCHEDULES {
        for chunk in [None, Some(1), Some(2), Some(5)] {
            for league in [0usize, 1, 2, 13, 97] {
                let out: DevView<E, i32> = dev(&space, "out", [league + 1]).unwrap();
                out.fill(-1).unwrap();
                let mut p = TeamPolicy::new(&space, league, TeamSize::Auto).schedule(schedule);
                if let Some(c) = chunk {
                    p = p.chunk_size(c);
                }
                assert_eq!(p.chunk(), chunk);
                parallel_for("uneven_team", p.clone(), uneven_team(&out)).unwrap();
                let s: i32 = parallel_reduce("uneven_team_sum", p, uneven_team_sum(), Sum).unwrap();
                let what = format!("{schedule:?} chunk {chunk:?} league {league}");
                let mut want: Vec<i32> = (0..league).map(uneven_ref).collect();
                assert_eq!(s, want.iter().sum::<i32>(), "{what}: sum");
                want.push(-1);
                assert_eq!(to_host(&out), want, "{what}");
            }
        }
    }
}
per_backend!(schedule_team);

/// A league chunk size of 0 is `Err(InvalidPolicy)` naming the launch and the chunk size, on
/// every backend, for both team patterns, and nothing runs.
fn team_chunk_size_zero<E: ExecutionSpace>(space: E) {
    let out: DevView<E, i32> = dev(&space, "out", [5]).unwrap();
    out.fill(-1).unwrap();
    let p = TeamPolicy::new(&space, 4, TeamSize::Auto).chunk_size(0);
    let check = |r: rokkos::Result<()>, label: &str| match r {
        Err(Error::InvalidPolicy { label: l, reason }) => {
            assert_eq!(l, label);
            assert!(reason.contains("chunk size 0"), "{reason}");
        }
        other => panic!("expected InvalidPolicy, got {other:?}"),
    };
    check(
        parallel_for("zero_chunk", p.clone(), uneven_team(&out)),
        "zero_chunk",
    );
    check(
        parallel_reduce("zero_chunk_sum", p, uneven_team_sum(), Sum).map(|_: i32| ()),
        "zero_chunk_sum",
    );
    assert_eq!(to_host(&out), vec![-1; 5]);
}
per_backend!(team_chunk_size_zero);

/// Fills `out[l * team_size + r] = l * 1000 + r` for every thread `r` of team `l`, through
/// thread-private scratch of `n` i32 (so that the policy's per-thread scratch request is used).
#[kernel]
fn team_ranks(team: &TeamMember, out: ViewMut<i32>, n: usize) {
    let l = team.league_rank();
    let ts = team.team_size();
    let r = team.team_rank();
    let mine = team.thread_scratch::<i32, 1>(0, [n]);
    team.single_thread(|| {
        mine[n - 1] = (l * 1000 + r) as i32;
        // SAFETY: thread `r` of team `l` is the only writer of element `l * ts + r`.
        unsafe {
            out[l * ts + r] = mine[n - 1];
        }
    });
}

#[kernel]
fn team_rank_sum(team: &TeamMember, acc: &mut i32) {
    let s = team.thread_reduce(team.team_size(), Sum, |r, a: &mut i32| {
        *a += (team.league_rank() * 1000 + r) as i32;
    });
    team.single_team(|| {
        *acc += s;
    });
}

/// `Ok` when `r` is, `Err(InvalidPolicy)` required otherwise.
fn expect_invalid(r: rokkos::Result<()>, what: &str) {
    match r {
        Err(Error::InvalidPolicy { .. }) => {}
        other => panic!("{what}: expected Err(InvalidPolicy), got {other:?}"),
    }
}

/// `team_size_max` / `team_size_recommended` for both team patterns and several vector
/// lengths: at least 1, the recommendation at most the maximum, within the space's limits; a
/// launch with the maximum runs every thread of every team (and a reduction over them sums
/// right), and one with a team of the maximum plus one is `Err(InvalidPolicy)`.
fn team_size_max_launches<E: ExecutionSpace>(space: E) {
    let lim = space.team_limits();
    let league = 3usize;
    for v in [1usize, 2, 4, 8] {
        if v > lim.vector_length_max {
            continue;
        }
        let out: DevView<E, i32> = dev(&space, "out", [league * lim.team_size_max]).unwrap();
        let base = TeamPolicy::new(&space, league, TeamSize::Auto)
            .vector_length(v)
            .scratch(0, 0, 8);
        let kf = team_ranks(&out, 1);
        let kr: TeamRankSumKernel<'_, E::Memory> = team_rank_sum();
        let max = base.team_size_max(&kf, TeamPattern::For).unwrap();
        let rec = base.team_size_recommended(&kf, TeamPattern::For).unwrap();
        let max_r = base.team_size_max(&kr, TeamPattern::Reduce).unwrap();
        let rec_r = base
            .team_size_recommended(&kr, TeamPattern::Reduce)
            .unwrap();
        let what = format!("{} vector length {v}", space.name());
        assert!(
            1 <= rec && rec <= max && max <= lim.team_size_max,
            "{what}: for {rec} {max}"
        );
        assert!(
            1 <= rec_r && rec_r <= max_r && max_r <= lim.team_size_max,
            "{what}: reduce"
        );

        out.fill(-1).unwrap();
        let at = |t: usize| {
            TeamPolicy::new(&space, league, TeamSize::Exactly(t))
                .vector_length(v)
                .scratch(0, 0, 8)
        };
        parallel_for("team_ranks", at(max), team_ranks(&out, 1))
            .unwrap_or_else(|e| panic!("{what}: team size max {max}: {e}"));
        let got = to_host(&out);
        for l in 0..league {
            for r in 0..max {
                assert_eq!(
                    got[l * max + r],
                    (l * 1000 + r) as i32,
                    "{what}: team {l} thread {r}"
                );
            }
        }
        let s: i32 = parallel_reduce("team_rank_sum", at(max_r), team_rank_sum(), Sum)
            .unwrap_or_else(|e| panic!("{what}: reduce at team size max {max_r}: {e}"));
        let want: i32 = (0..league)
            .flat_map(|l| (0..max_r).map(move |r| (l * 1000 + r) as i32))
            .sum();
        assert_eq!(s, want, "{what}: reduce at team size {max_r}");

        expect_invalid(
            parallel_for("team_ranks", at(max + 1), team_ranks(&out, 1)),
            &format!("{what}: for at {}", max + 1),
        );
        expect_invalid(
            parallel_reduce("team_rank_sum", at(max_r + 1), team_rank_sum(), Sum).map(|_: i32| ()),
            &format!("{what}: reduce at {}", max_r + 1),
        );
    }
}
per_backend!(team_size_max_launches);

/// Scratch per thread shrinks the maximum: with `per_thread` bytes per thread the maximum is at
/// most what the level's limit holds (`(limit - per_team) / per_thread`), a launch with it runs
/// and one thread more is refused; a per-team request above the level's limit leaves no team
/// size (`Err(InvalidPolicy)` naming the kernel).
fn team_size_max_scratch<E: ExecutionSpace>(space: E) {
    let lim = space.team_limits();
    let league = 2usize;
    let out: DevView<E, i32> = dev(&space, "out", [league * lim.team_size_max]).unwrap();
    let kernel = team_ranks(&out, 1);
    let plain = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, 0, 8);
    let unshrunk = plain.team_size_max(&kernel, TeamPattern::For).unwrap();
    // Enough per thread that only about a quarter of the unshrunk team fits (at least one).
    let per_team = 64usize;
    let per_thread = ((lim.scratch_max[0] - per_team) / unshrunk.div_ceil(4).max(1)).max(8) / 8 * 8;
    let n = per_thread / 4;
    let kernel = team_ranks(&out, n);
    let p = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, per_team, per_thread);
    let max = p.team_size_max(&kernel, TeamPattern::For).unwrap();
    let what = format!("{} per thread {per_thread}", space.name());
    assert!(max >= 1, "{what}");
    assert!(
        max * per_thread + per_team <= lim.scratch_max[0],
        "{what}: max {max}"
    );
    assert!(max <= unshrunk, "{what}: {max} > {unshrunk}");
    if unshrunk >= 4 {
        assert!(max < unshrunk, "{what}: scratch did not shrink {unshrunk}");
    }
    let at = |t: usize| {
        TeamPolicy::new(&space, league, TeamSize::Exactly(t)).scratch(0, per_team, per_thread)
    };
    out.fill(-1).unwrap();
    parallel_for("team_ranks", at(max), team_ranks(&out, n))
        .unwrap_or_else(|e| panic!("{what}: team size max {max}: {e}"));
    let got = to_host(&out);
    for l in 0..league {
        for r in 0..max {
            assert_eq!(
                got[l * max + r],
                (l * 1000 + r) as i32,
                "{what}: team {l} thread {r}"
            );
        }
    }
    expect_invalid(
        parallel_for("team_ranks", at(max + 1), team_ranks(&out, n)),
        &format!("{what}: at {}", max + 1),
    );
    // More per team than the level holds: no team size fits.
    let over =
        TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, lim.scratch_max[0] + 1, 0);
    match over.team_size_max(&kernel, TeamPattern::For) {
        Err(Error::InvalidPolicy { label, reason }) => {
            assert_eq!(label, "team_ranks");
            assert!(reason.contains("scratch level 0"), "{reason}");
        }
        other => panic!("{what}: expected InvalidPolicy, got {other:?}"),
    }
}
per_backend!(team_size_max_scratch);

/// [`team_rank_sum`] with `n` i32 of thread scratch, each thread writing its rank into the last.
#[kernel]
fn scratch_rank_sum(team: &TeamMember, acc: &mut i32, n: usize) {
    let l = team.league_rank();
    let mine = team.thread_scratch::<i32, 1>(0, [n]);
    team.single_thread(|| {
        mine[n - 1] = team.team_rank() as i32;
    });
    let s = team.thread_reduce(team.team_size(), Sum, |r, a: &mut i32| {
        *a += (l * 1000 + r) as i32;
    });
    team.single_team(|| {
        *acc += s + mine[n - 1];
    });
}

/// A reduction over teams whose per-thread scratch leaves little of the level's limit: at the
/// team size `team_size_max` gives for the reduction pattern the launch runs and sums right (on
/// CUDA the maximum counts the shared memory the kernel declares itself, its partials and
/// exchange words, besides the scratch arena), and one thread more is refused.
fn team_size_max_reduce_scratch<E: ExecutionSpace>(space: E) {
    let lim = space.team_limits();
    let league = 2usize;
    let plain = TeamPolicy::new(&space, league, TeamSize::Auto).scratch(0, 0, 8);
    let k1: ScratchRankSumKernel<'_, E::Memory> = scratch_rank_sum(1);
    let unshrunk = plain.team_size_max(&k1, TeamPattern::Reduce).unwrap();
    let per_thread = (lim.scratch_max[0] / unshrunk.max(1)).max(8) / 8 * 8;
    let n = per_thread / 4;
    let at = |t: TeamSize| TeamPolicy::new(&space, league, t).scratch(0, 0, per_thread);
    let kn: ScratchRankSumKernel<'_, E::Memory> = scratch_rank_sum(n);
    let max = at(TeamSize::Auto)
        .team_size_max(&kn, TeamPattern::Reduce)
        .unwrap();
    let what = format!("{} per thread {per_thread}", space.name());
    assert!(1 <= max && max <= unshrunk, "{what}: max {max}");
    let s: i32 = parallel_reduce(
        "scratch_rank_sum",
        at(TeamSize::Exactly(max)),
        scratch_rank_sum(n),
        Sum,
    )
    .unwrap_or_else(|e| panic!("{what}: reduce at team size max {max}: {e}"));
    // Each team adds its threads' `l * 1000 + r` and thread 0's rank, 0.
    let want: i32 = (0..league)
        .flat_map(|l| (0..max).map(move |r| (l * 1000 + r) as i32))
        .sum();
    assert_eq!(s, want, "{what}");
    expect_invalid(
        parallel_reduce(
            "scratch_rank_sum",
            at(TeamSize::Exactly(max + 1)),
            scratch_rank_sum(n),
            Sum,
        )
        .map(|_: i32| ()),
        &format!("{what}: at {}", max + 1),
    );
}
per_backend!(team_size_max_reduce_scratch);
