//! Writes through an `InjectiveView` without `unsafe`: a range kernel scattering through an
//! injection, an MDRange kernel through one injection per dimension (into `LayoutRight` and
//! `LayoutLeft` Views), and a team kernel writing the row its league rank maps to, against plain
//! Rust loops over the same maps; elements no work item reaches keep their sentinel. A map with a
//! repeated entry is `Err(InvalidArgument)` naming the value. A row looked up inside a team loop
//! (TOAST's noise_weight shape) is checked once per loop on the host, and fails as it should.

use crate::{check, dev, dev_from_vec, splitmix, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

const SENTINEL: f64 = -7.5;

/// `out[idx[i]] = 2·src[i] + 1`, then `out[idx[i]] += i` through a local holding the lookup.
#[kernel]
fn scatter(i: usize, idx: InjectiveView<i32>, src: View<f64>, out: ViewMut<f64>) {
    out[idx[i] as usize] = 2.0 * src[i] + 1.0;
    let r = idx[i] as usize;
    out[r] += i as f64;
}

/// `out[(rows[d], cols[s])] = src[(d, s)] · out[(rows[d], cols[s])]` (a read and a write of the
/// written View through both maps).
#[kernel]
fn scatter2(
    (d, s): (usize, usize),
    rows: InjectiveView<u32>,
    cols: InjectiveView<i32>,
    src: View<f64, 2>,
    out: ViewMut<f64, 2>,
) {
    let r = rows[d] as usize;
    out[(r, cols[s] as usize)] = src[(d, s)] * out[(r, cols[s] as usize)];
}

/// Team `l` writes row `idx[l]` of `out`: `out[(idx[l], j)] = src[(l, j)] - j`.
#[kernel]
fn team_rows(team: &TeamMember, idx: InjectiveView<i32>, src: View<f64, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let r = idx[l] as usize;
    for j in team.thread_range(src.extent(1)) {
        out[(r, j)] = src[(l, j)] - j as f64;
    }
}

/// `n` distinct values below `m >= n`, in random order (a partial Fisher-Yates shuffle of `0..m`).
fn injection(seed: u64, n: usize, m: usize) -> Vec<usize> {
    let mut all: Vec<usize> = (0..m).collect();
    for (k, r) in splitmix(seed, n).into_iter().enumerate() {
        let j = k + (r % (m - k) as u64) as usize;
        all.swap(k, j);
    }
    all.truncate(n);
    all
}

fn values(seed: u64, n: usize) -> Vec<f64> {
    splitmix(seed, n)
        .into_iter()
        .map(|x| (x % 2001) as f64 / 8.0 - 125.0)
        .collect()
}

/// A map shape: `n` entries into `0..n + extra`.
fn shapes() -> impl Strategy<Value = (usize, usize, u64)> {
    (
        prop_oneof![Just(0usize), Just(1usize), 2usize..300],
        0usize..40,
        any::<u64>(),
    )
}

pub fn injective_range<E: ExecutionSpace>(space: E) {
    check(8, shapes(), |(n, extra, seed)| {
        let m = n + extra;
        let map = injection(seed, n, m);
        let src = values(seed ^ 1, n);
        let idx_vals: Vec<i32> = map.iter().map(|&v| v as i32).collect();
        let idx = InjectiveView::new_on(&space, "idx", &idx_vals).unwrap();
        let src_v: DevView<E, f64> = dev_from_vec(&space, "src", [n], src.clone()).unwrap();
        let out: DevView<E, f64> = dev_from_vec(&space, "out", [m], vec![SENTINEL; m]).unwrap();
        parallel_for(
            "scatter",
            RangePolicy::new(&space, 0..n),
            scatter(&idx, &src_v, &out),
        )
        .unwrap();
        let mut want = vec![SENTINEL; m];
        for i in 0..n {
            want[map[i]] = 2.0 * src[i] + 1.0 + i as f64;
        }
        prop_assert_eq!(to_host(&out), want);
        Ok(())
    });
}
per_backend!(injective_range);

fn scatter2_case<E: ExecutionSpace, L: Layout>(
    space: &E,
    (nd, ns, extra, seed): (usize, usize, usize, u64),
) -> Result<(), TestCaseError> {
    let (mr, mc) = (nd + extra, ns + extra / 2);
    let rows = injection(seed, nd, mr);
    let cols = injection(seed ^ 2, ns, mc);
    let src = values(seed ^ 3, nd * ns);
    let init = values(seed ^ 4, mr * mc);
    let rows_v: Vec<u32> = rows.iter().map(|&v| v as u32).collect();
    let cols_v: Vec<i32> = cols.iter().map(|&v| v as i32).collect();
    let rows_iv = InjectiveView::new_on(space, "rows", &rows_v).unwrap();
    let cols_iv = InjectiveView::new_on(space, "cols", &cols_v).unwrap();
    let src_v: DevView<E, f64, 2> = dev_from_vec(space, "src", [nd, ns], src.clone()).unwrap();
    // The host View reads `init` in row-major order whatever `L` is: `from_fn` by index.
    let host = View::<f64, 2, L>::from_fn("init", [mr, mc], |[r, c]| init[r * mc + c]).unwrap();
    let out: DevView<E, f64, 2, L> = dev(space, "out", [mr, mc]).unwrap();
    deep_copy(&out, &host).unwrap();
    parallel_for(
        "scatter2",
        MDRangePolicy::new(space, [0, 0], [nd, ns]),
        scatter2(&rows_iv, &cols_iv, &src_v, &out),
    )
    .unwrap();
    let mut want = init.clone();
    for d in 0..nd {
        for s in 0..ns {
            let at = rows[d] * mc + cols[s];
            want[at] *= src[d * ns + s];
        }
    }
    prop_assert_eq!(to_host(&out), want);
    Ok(())
}

pub fn injective_mdrange<E: ExecutionSpace>(space: E) {
    let shape = (0usize..20, 0usize..20, 0usize..6, any::<u64>());
    check(6, shape.clone(), |c| {
        scatter2_case::<E, LayoutRight>(&space, c)
    });
    check(6, shape, |c| scatter2_case::<E, LayoutLeft>(&space, c));
}
per_backend!(injective_mdrange);

pub fn injective_team<E: ExecutionSpace>(space: E) {
    let shape = (0usize..12, 0usize..70, 0usize..5, any::<u64>());
    check(6, shape, |(league, cols, extra, seed)| {
        let m = league + extra;
        let map = injection(seed, league, m);
        let src = values(seed ^ 5, league * cols);
        let idx_vals: Vec<i32> = map.iter().map(|&v| v as i32).collect();
        let idx = InjectiveView::new_on(&space, "idx", &idx_vals).unwrap();
        let src_v: DevView<E, f64, 2> =
            dev_from_vec(&space, "src", [league, cols], src.clone()).unwrap();
        let out: DevView<E, f64, 2> =
            dev_from_vec(&space, "out", [m, cols], vec![SENTINEL; m * cols]).unwrap();
        parallel_for(
            "team_rows",
            TeamPolicy::new(&space, league, TeamSize::Auto),
            team_rows(&idx, &src_v, &out),
        )
        .unwrap();
        let mut want = vec![SENTINEL; m * cols];
        for l in 0..league {
            for j in 0..cols {
                want[map[l] * cols + j] = src[l * cols + j] - j as f64;
            }
        }
        prop_assert_eq!(to_host(&out), want);
        Ok(())
    });
}
per_backend!(injective_team);

/// A repeated entry is refused when the map is made, naming the value and where it repeats; so
/// is a negative one. Nothing is allocated on failure, and a valid map reads back unchanged.
pub fn injective_refused<E: ExecutionSpace>(space: E) {
    let message = |r: rokkos::Result<InjectiveView<i32, E::Memory>>| match r {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected InvalidArgument, got {other:?}"),
    };
    let m = message(InjectiveView::new_on(&space, "rows", &[5, 1, 9, 1]));
    assert!(m.contains("value 1 appears twice (entries 1 and 3)"), "{m}");
    assert!(m.contains("`rows`"), "{m}");
    let m = message(InjectiveView::new_on(&space, "rows", &[0, -3]));
    assert!(m.contains("-3, negative"), "{m}");
    let ok = InjectiveView::new_on(&space, "rows", &[5, 1, 9]).unwrap();
    assert_eq!(ok.to_vec().unwrap(), vec![5, 1, 9]);
    assert_eq!(ok.bound(), 10);
}
per_backend!(injective_refused);

/// An entry past the written View's extent is the written View's ordinary bounds error
/// (`Err(OutOfBounds)` naming the kernel, the View and the index), on every backend; the
/// elements in range keep their values or get the work item's (no other element is touched).
pub fn injective_out_of_range<E: ExecutionSpace>(space: E) {
    let idx = InjectiveView::new_on(&space, "idx", &[1, 4, 0]).unwrap();
    let src: DevView<E, f64> = dev_from_vec(&space, "src", [3], vec![1.0, 2.0, 3.0]).unwrap();
    let out: DevView<E, f64> = dev_from_vec(&space, "out", [4], vec![SENTINEL; 4]).unwrap();
    let r = parallel_for(
        "scatter",
        RangePolicy::new(&space, 0..3),
        scatter(&idx, &src, &out),
    )
    .and_then(|()| space.fence());
    assert_eq!(
        r,
        Err(Error::OutOfBounds {
            kernel: "scatter".into(),
            view: "out".into(),
            index: "(4)".into(),
            extents: "(4)".into(),
        })
    );
    let got = to_host(&out);
    assert_eq!(got[2..4], [SENTINEL, SENTINEL]);
    assert!(
        [SENTINEL, 7.0, 9.0].contains(&got[0]) && [SENTINEL, 3.0].contains(&got[1]),
        "{got:?}"
    );
}
per_backend!(injective_out_of_range);

/// TOAST's noise_weight shape: the row is looked up in the loop body, where it has the same value
/// in every iteration (`let row = rows[l] as usize;`), and team `l` runs `lens[l]` samples. The
/// host path checks such a loop once, binding the row before it runs (only when it runs).
#[kernel]
fn weigh_rows(
    team: &TeamMember,
    det: ViewMut<f32, 2>,
    rows: InjectiveView<i32>,
    w: View<f32>,
    lens: View<u32>,
) {
    let l = team.league_rank();
    for s in team.thread_range(lens[l] as usize) {
        let row = rows[l] as usize;
        let scale = w[l];
        det[(row, s)] *= scale;
    }
}

/// `weigh_rows` against a plain loop, every team's sample count from 0 to the row length.
pub fn invariant_row_lookup<E: ExecutionSpace>(space: E) {
    let shape = (1usize..10, 1usize..70, 0usize..4, any::<u64>());
    check(6, shape, |(league, cols, extra, seed)| {
        let m = league + extra;
        let map = injection(seed, league, m);
        let lens: Vec<u32> = splitmix(seed ^ 7, league)
            .iter()
            .map(|&x| (x % (cols as u64 + 1)) as u32)
            .collect();
        // f32, so that adapters without SHADER_F64 run it too; one rounding, exact everywhere.
        let w: Vec<f32> = values(seed ^ 8, league).iter().map(|&x| x as f32).collect();
        let init: Vec<f32> = values(seed ^ 9, m * cols)
            .iter()
            .map(|&x| x as f32)
            .collect();
        let idx: Vec<i32> = map.iter().map(|&v| v as i32).collect();
        let rows = InjectiveView::new_on(&space, "rows", &idx).unwrap();
        let w_v: DevView<E, f32> = dev_from_vec(&space, "w", [league], w.clone()).unwrap();
        let lens_v: DevView<E, u32> = dev_from_vec(&space, "lens", [league], lens.clone()).unwrap();
        let det: DevView<E, f32, 2> = dev_from_vec(&space, "det", [m, cols], init.clone()).unwrap();
        parallel_for(
            "weigh_rows",
            TeamPolicy::new(&space, league, TeamSize::Auto),
            weigh_rows(&det, &rows, &w_v, &lens_v),
        )
        .unwrap();
        let mut want = init;
        for l in 0..league {
            for s in 0..lens[l] as usize {
                want[map[l] * cols + s] *= w[l];
            }
        }
        prop_assert_eq!(to_host(&det), want);
        Ok(())
    });
}
per_backend!(invariant_row_lookup);

/// A looked-up row outside the View fails the launch with `Err(OutOfBounds)` naming the View and
/// the row, and only when the loop runs: a team with no samples never reads its row.
pub fn invariant_row_out_of_bounds<E: ExecutionSpace>(space: E) {
    let rows = InjectiveView::new_on(&space, "rows", &[0, 7]).unwrap();
    let w: DevView<E, f32> = dev_from_vec(&space, "w", [2], vec![2.0, 3.0]).unwrap();
    let run = |lens: Vec<u32>| {
        let det: DevView<E, f32, 2> = dev_from_vec(&space, "det", [2, 4], vec![1.0; 8]).unwrap();
        let lens: DevView<E, u32> = dev_from_vec(&space, "lens", [2], lens).unwrap();
        let r = parallel_for(
            "weigh_rows",
            TeamPolicy::new(&space, 2, TeamSize::Auto),
            weigh_rows(&det, &rows, &w, &lens),
        )
        .and_then(|_| space.fence());
        (r, det)
    };
    let (r, det) = run(vec![3, 0]);
    r.unwrap();
    assert_eq!(to_host(&det), [2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    match run(vec![3, 2]).0 {
        Err(Error::OutOfBounds { view, index, .. }) => {
            assert_eq!(view, "det");
            assert!(index.starts_with("(7, "), "{index}");
        }
        other => panic!("expected OutOfBounds on det, got {other:?}"),
    }
}
per_backend!(invariant_row_out_of_bounds);

/// An `InjectiveView` parameter rebound to team scratch is written by the kernel, so a `let` that
/// reads it is not loop-invariant: each iteration reads the value the one before wrote (audit:
/// the host path bound `r` once, and gave [0, 1, 2] where the source says [0, 11, 22], but only
/// when an unrelated access let the loop's check pass).
// The parameter `idx` is shadowed at once: that is the point.
#[allow(unused_variables)]
#[kernel]
fn rebound_lookup(
    team: &TeamMember,
    out: ViewMut<u32, 2>,
    idx: InjectiveView<u32>,
    w: View<u32, 2>,
    z: View<u32>,
    far: usize,
) {
    let l = team.league_rank();
    let idx = team.team_scratch::<u32, 1>(0, [1]);
    team.single_team(|| {
        idx[0] = 0;
        let mut t = 0u32;
        if far == 0 {
            for s in 0..3 {
                let r = idx[0] as usize;
                idx[0] = idx[0] + 1;
                out[(l, s)] = w[(r, s)] + t;
            }
        } else {
            // The same loop with an access that never runs but fails the loop's hoisted check.
            for s in 0..3 {
                let r = idx[0] as usize;
                idx[0] = idx[0] + 1;
                out[(l, s)] = w[(r, s)] + t;
                if s > 100 {
                    t = z[s + 1000];
                }
            }
        }
    });
}

pub fn rebound_injective_is_not_invariant<E: ExecutionSpace>(space: E) {
    let idx = InjectiveView::new_on(&space, "idx", &[0]).unwrap();
    let w: DevView<E, u32, 2> =
        crate::dev_from_fn(&space, "w", [4, 3], |[i, j]| (10 * i + j) as u32).unwrap();
    let z: DevView<E, u32> = dev_from_vec(&space, "z", [1], vec![0]).unwrap();
    for far in [0, 1] {
        let out: DevView<E, u32, 2> = dev(&space, "out", [2, 3]).unwrap();
        let policy =
            TeamPolicy::new(&space, 2, TeamSize::Auto).scratch(0, scratch_size::<u32>(1), 0);
        parallel_for(
            "rebound_lookup",
            policy,
            rebound_lookup(&out, &idx, &w, &z, far),
        )
        .unwrap();
        assert_eq!(to_host(&out), [0, 11, 22, 0, 11, 22], "far = {far}");
    }
}
per_backend!(rebound_injective_is_not_invariant);
