//! Adversarial probes of the newest device rules (session 24's review): kernels that
//! `rokkos_device::runtime::team_order` accepts for an ordered (`Custom`) team reduction must give
//! serial's result on every backend, and kernels whose index arithmetic the 32-bit proof
//! (`rokkos_device::emit::width`) accepts must give serial's result in the 32-bit variant (the
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

/// Accumulator writes in every lane-splitting spelling, mixed with lane-parallel View writes:
/// a `single_thread` in a `thread_range` (once per thread item), a `team_vector_range` (once
/// per index), a loop inside a `vector_range`, and a `thread_range` item's write under a
/// condition next to a `vector_range` that writes its own elements.
#[kernel]
fn lane_mix(
    team: &TeamMember,
    acc: &mut i32,
    cnt: &mut i32,
    a: View<i32, 3>,
    out: ViewMut<i32, 3>,
) {
    let l = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        team.single_thread(|| {
            *acc += a[(l, j, 0)];
        });
        for k in team.vector_range(a.extent(2)) {
            out[(l, j, k)] = a[(l, j, k)] * 2;
            for q in 0..2 {
                *cnt += q + 1;
            }
        }
        if j % 2 == 0 {
            *cnt += 1000;
        }
    }
    for m in team.team_vector_range(a.extent(1) * a.extent(2)) {
        *acc += a[(l, m / a.extent(2), m % a.extent(2))] * 3;
    }
}

/// `lane_mix` without the thread-level write, so that a device may run its lanes physically:
/// every accumulator write sits in a `single_thread` or a lane-splitting range.
#[kernel]
fn lane_split(
    team: &TeamMember,
    acc: &mut i32,
    cnt: &mut i32,
    a: View<i32, 3>,
    out: ViewMut<i32, 3>,
) {
    let l = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        team.single_thread(|| {
            *acc += a[(l, j, 0)];
        });
        for k in team.vector_range(a.extent(2)) {
            out[(l, j, k)] = a[(l, j, k)] * 2;
            for q in 0..2 {
                *cnt += q + 1;
            }
        }
        team.single_thread(|| {
            if j % 2 == 0 {
                *cnt += 1000;
            }
        });
    }
    for m in team.team_vector_range(a.extent(1) * a.extent(2)) {
        *acc += a[(l, m / a.extent(2), m % a.extent(2))] * 3;
    }
}

/// `lane_mix` and `lane_split` count each contribution once, whatever the team size and vector
/// length.
fn lane_mix_counts_once<E: ExecutionSpace>(space: E) {
    check(
        10,
        (0usize..6, 1usize..7, 1usize..9, 0usize..4, 1usize..5),
        |(league, rows, cols, vl_log, ts)| {
            let limits = space.team_limits();
            let vl = (1usize << vl_log).min(limits.vector_length_max);
            let ts = TeamSize::Exactly(ts.min(limits.team_size_max));
            let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
            let f = |l: usize, j: usize, k: usize| ((l * 31 + j * 7 + k * 3) % 23) as i32 - 11;
            let a: DevView<E, i32, 3> =
                dev_from_fn(&space, "a", [league, rows, cols], |[l, j, k]| f(l, j, k))?;
            let out: DevView<E, i32, 3> = dev(&space, "out", [league, rows, cols])?;
            let got = parallel_reduce("lane_mix", policy, lane_mix(&a, &out), (Sum, Sum))?;
            let mut want = (0i32, 0i32);
            let mut want_out = Vec::new();
            for l in 0..league {
                for j in 0..rows {
                    want.0 += f(l, j, 0);
                    want.1 += 3 * cols as i32 + if j % 2 == 0 { 1000 } else { 0 };
                    for k in 0..cols {
                        want.0 += 3 * f(l, j, k);
                        want_out.push(2 * f(l, j, k));
                    }
                }
            }
            prop_assert_eq!(got, want, "team {:?}, vector {}", ts, vl);
            prop_assert_eq!(to_host(&out), want_out.clone());
            let out: DevView<E, i32, 3> = dev(&space, "out", [league, rows, cols])?;
            let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
            let got = parallel_reduce("lane_split", policy, lane_split(&a, &out), (Sum, Sum))?;
            prop_assert_eq!(got, want, "lane_split: team {:?}, vector {}", ts, vl);
            prop_assert_eq!(to_host(&out), want_out);
            Ok(())
        },
    );
}
per_backend!(lane_mix_counts_once);

/// Index arithmetic the 32-bit proof accepts for small launches: stepped loops up to
/// `u32::MAX` (inclusive forwards, exclusive backwards), subtraction of the policy's begin, shifts,
/// division, remainder, bitwise operators, `min` / `max`, and `usize` values near `2^31`
/// converted to `f32`, `i32` and `u16`.
#[kernel]
fn index_forms(i: usize, out: ViewMut<u32, 2>, f: ViewMut<f32>, b: usize, big: usize) {
    let r = i - b;
    let mut steps = 0u32;
    let mut last = 0usize;
    for j in (r..=4294967295usize).step_by(1 << 30) {
        steps += 1;
        last = j;
    }
    let mut first_back = 0usize;
    let mut back = 0u32;
    for j in (r..4294967295usize).step_by(1 << 30).rev() {
        if back == 0 {
            first_back = j;
        }
        back += 1;
    }
    let v = big + r;
    // `r = i - b` differs between work items: each owns row `r` of `out` and element `r` of `f`.
    unsafe {
        out[(r, 0)] = steps * 1000 + back;
        out[(r, 1)] = (last >> 16) as u32;
        out[(r, 2)] = (first_back >> 3) as u32;
        out[(r, 3)] = (((v >> 2) << 1) + (r << 28)) as u32;
        out[(r, 4)] = (v / 3 + v % 7) as u32;
        out[(r, 5)] = ((v ^ (v >> 1)) | (r & 5)) as u32;
        out[(r, 6)] = v.min(big + 3).max(big + 1) as u32;
        out[(r, 7)] = (v as i32) as u32;
        out[(r, 8)] = (v as u16) as u32;
        f[r] = v as f32;
    }
}

/// `index_forms` against Rust's own `usize` arithmetic, for begins and sizes that keep every
/// value of the launch below `2^32`.
fn index_forms_match_rust<E: ExecutionSpace>(space: E) {
    let atom = (1usize << 31) - 1;
    for (b, n, big) in [(0usize, 1usize, 0usize), (5, 9, 16777213), (3, 4, atom - 2)] {
        let out: DevView<E, u32, 2> = dev(&space, "out", [n, 9]).unwrap();
        let f: DevView<E, f32> = dev(&space, "f", [n]).unwrap();
        let p = RangePolicy::new(&space, b..b + n);
        parallel_for("index_forms", p, index_forms(&out, &f, b, big)).unwrap();
        let mut want = Vec::new();
        let mut want_f = Vec::new();
        for r in 0..n {
            let js: Vec<usize> = (r..=4294967295usize).step_by(1 << 30).collect();
            let back: Vec<usize> = (r..4294967295usize).step_by(1 << 30).rev().collect();
            let v = big + r;
            want.extend([
                js.len() as u32 * 1000 + back.len() as u32,
                (js[js.len() - 1] >> 16) as u32,
                (back[0] >> 3) as u32,
                (((v >> 2) << 1) + (r << 28)) as u32,
                (v / 3 + v % 7) as u32,
                ((v ^ (v >> 1)) | (r & 5)) as u32,
                v.min(big + 3).max(big + 1) as u32,
                (v as i32) as u32,
                (v as u16) as u32,
            ]);
            want_f.push(v as f32);
        }
        assert_eq!(to_host(&out), want, "begin {b}, {n} items, big {big}");
        let got_f = to_host(&f);
        assert_eq!(
            got_f.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want_f.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "usize as f32: {got_f:?} vs {want_f:?}"
        );
    }
}
per_backend!(index_forms_match_rust);

/// An MDRange with non-zero begins, flattened by hand relative to them, and a team index built
/// from every team query.
#[kernel]
fn md_from_begin((i, j): (usize, usize), out: ViewMut<u32>, b0: usize, b1: usize, n: usize) {
    // `(i, j)` owns element `(i - b0) * n + (j - b1)`: `j - b1 < n`.
    unsafe {
        out[(i - b0) * n + (j - b1)] = (i * 100 + j) as u32;
    }
}

#[kernel]
fn team_flat(team: &TeamMember, out: ViewMut<u32>) {
    let base = (team.league_rank() * team.team_size() + team.team_rank()) * team.vector_length();
    for k in team.vector_range(team.vector_length()) {
        // Thread `(l, t)` owns elements `base..base + vector_length`.
        unsafe {
            out[base + k] = (team.league_rank() * 10000 + team.team_rank() * 100 + k) as u32;
        }
    }
}

fn flattened_from_begins<E: ExecutionSpace>(space: E) {
    for (b0, b1, r, c) in [
        (0usize, 0usize, 3usize, 4usize),
        (7, 2, 5, 3),
        (1000, 40000, 2, 9),
    ] {
        let out: DevView<E, u32> = dev(&space, "out", [r * c]).unwrap();
        let p = MDRangePolicy::new(&space, [b0, b1], [b0 + r, b1 + c]);
        parallel_for("md_from_begin", p, md_from_begin(&out, b0, b1, c)).unwrap();
        let want: Vec<u32> = (0..r)
            .flat_map(|x| (0..c).map(move |y| ((b0 + x) * 100 + b1 + y) as u32))
            .collect();
        assert_eq!(to_host(&out), want, "begin ({b0}, {b1}), {r} x {c}");
    }
    for (league, ts, vl) in [(3usize, 2usize, 4usize), (5, 1, 1), (2, 8, 2)] {
        let limits = space.team_limits();
        let ts = ts.min(limits.team_size_max);
        let vl = vl.min(limits.vector_length_max);
        let policy = TeamPolicy::new(&space, league, TeamSize::Exactly(ts)).vector_length(vl);
        let out: DevView<E, u32> = dev(&space, "out", [league * ts * vl]).unwrap();
        parallel_for("team_flat", policy, team_flat(&out)).unwrap();
        let want: Vec<u32> = (0..league * ts * vl)
            .map(|g| {
                let (l, t, k) = (g / (ts * vl), g / vl % ts, g % vl);
                (l * 10000 + t * 100 + k) as u32
            })
            .collect();
        assert_eq!(to_host(&out), want, "league {league}, team {ts} x {vl}");
    }
}
per_backend!(flattened_from_begins);

/// Contributions made in a nested scan's final pass: to the launch's accumulator, and to the
/// team's own View elements (the same writes outside `if fin` are refused at compile time,
/// `tests/ui/scan_side_effects.rs`: a device runs the body in two passes).
#[kernel]
fn scan_side_effects(team: &TeamMember, acc: &mut i32, a: View<i32, 2>, out: ViewMut<i32, 2>) {
    let l = team.league_rank();
    let total = team.thread_scan(a.extent(1), |j, p: &mut i32, fin: bool| {
        if fin {
            *acc += a[(l, j)];
            out[(l, j)] += 1;
        }
        *p += a[(l, j)];
    });
    team.single_team(|| {
        *acc += total * 1000;
    });
}

/// A nested scan's final pass runs once per index on every backend, whatever passes it makes
/// before: the accumulator and the View count each index once.
fn scan_body_side_effects_count_once<E: ExecutionSpace>(space: E) {
    for (league, rows, ts, vl) in [
        (1usize, 5usize, 4usize, 1usize),
        (3, 37, 8, 2),
        (2, 300, 32, 1),
    ] {
        let limits = space.team_limits();
        let ts = TeamSize::Exactly(ts.min(limits.team_size_max));
        let vl = vl.min(limits.vector_length_max);
        let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);
        let f = |l: usize, j: usize| ((l * 13 + j * 5) % 9) as i32 - 4;
        let a: DevView<E, i32, 2> =
            dev_from_fn(&space, "a", [league, rows], |[l, j]| f(l, j)).unwrap();
        let out: DevView<E, i32, 2> = dev(&space, "out", [league, rows]).unwrap();
        let got = parallel_reduce(
            "scan_side_effects",
            policy,
            scan_side_effects(&a, &out),
            Sum,
        )
        .unwrap();
        let sum: i32 = (0..league)
            .flat_map(|l| (0..rows).map(move |j| f(l, j)))
            .sum();
        assert_eq!(
            got,
            sum * 1001,
            "league {league}, {rows} rows, team {ts:?} x {vl}"
        );
        assert_eq!(
            to_host(&out),
            vec![1; league * rows],
            "league {league}, {rows} rows"
        );
    }
}
per_backend!(scan_body_side_effects_count_once);

/// A scan kernel whose body adds to its own element in the final pass (`is_final && ..` and
/// the `else` of `!is_final`).
#[kernel(scan)]
fn scan_bumps(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>) {
    if is_final && x[i] >= 0 {
        out[i] += 1;
    }
    if !is_final {
    } else {
        out[i] += *partial * 10;
    }
    *partial += x[i];
}

/// The top-level scan's body runs in two or three passes on rayon and wgpu; its final-pass side
/// effects count once per index everywhere (unguarded ones are refused at compile time,
/// `tests/ui/scan_side_effects.rs`: they counted 2 and 3 times there).
fn scan_kernel_side_effects_count_once<E: ExecutionSpace>(space: E) {
    for n in [1usize, 7, 1000, 70000] {
        let x: DevView<E, i32> = dev_from_fn(&space, "x", [n], |[i]| (i % 3) as i32).unwrap();
        let out: DevView<E, i32> = dev(&space, "out", [n]).unwrap();
        let p = RangePolicy::new(&space, 0..n);
        let total = parallel_scan("scan_bumps", p, scan_bumps(&x, &out)).unwrap();
        let mut run = 0;
        let mut want = Vec::new();
        for i in 0..n {
            want.push(1 + run * 10);
            run += (i % 3) as i32;
        }
        assert_eq!(total, run, "{n} items");
        assert_eq!(to_host(&out), want, "{n} items");
    }
}
per_backend!(scan_kernel_side_effects_count_once);
