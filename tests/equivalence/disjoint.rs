//! Writes at the samples of `DisjointRanges` without `unsafe`: a team per (row, range) with a
//! thread range over the range's samples, and an MDRange over (row, range, offset) that returns
//! past the range's last sample, both writing `out[(rows[d], s)]` (rows an `InjectiveView`),
//! against plain Rust loops over the same ranges; samples outside every range keep their
//! sentinel. Ranges come from proptest: none, one-sample ranges, gaps, one range covering every
//! sample, in any order. Overlapping or inverted ranges are `Err(InvalidArgument)`.

use crate::{check, dev_from_vec, splitmix, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

const SENTINEL: i32 = -7_777;

/// The value both kernels write at sample `s` of range `v` for row `d`, from the old value.
fn f(old: i32, src: i32, v: usize, s: usize) -> i32 {
    old * 3 + src + (v as i32) * 1000 + s as i32
}

/// A team per (d, v), `league = n_rows · n_ranges`.
#[kernel]
fn ranges_team(
    team: &TeamMember,
    iv: DisjointRanges<u32>,
    rows: InjectiveView<i32>,
    src: View<i32, 2>,
    out: ViewMut<i32, 2>,
) {
    let l = team.league_rank();
    let n = iv.extent(0);
    let d = l / n;
    let v = l % n;
    let first = iv[(v, 0)];
    let last = iv[(v, 1)];
    for s in team.thread_range(first as usize..=last as usize) {
        let r = rows[d] as usize;
        out[(r, s)] = out[(r, s)] * 3 + src[(d, s)] + (v as i32) * 1000 + s as i32;
    }
}

/// An MDRange over (d, v, k < the longest range), returning past range `v`.
#[kernel]
fn ranges_md(
    (d, v, k): (usize, usize, usize),
    iv: DisjointRanges<i32>,
    rows: InjectiveView<i32>,
    src: View<i32, 2>,
    out: ViewMut<i32, 2>,
) {
    let s = iv[(v, 0)] as usize + k;
    if s > iv[(v, 1)] as usize {
        return;
    }
    let r = rows[d] as usize;
    out[(r, s)] = out[(r, s)] * 3 + src[(d, s)] + (v as i32) * 1000 + s as i32;
}

/// Disjoint inclusive ranges within `0..n`, in a shuffled order: gaps of 0 to 2 samples, lengths
/// from 1 to 6 (or the whole of `0..n` as one range when `whole`).
fn make_ranges(seed: u64, n: usize, whole: bool) -> Vec<(usize, usize)> {
    if whole {
        return if n == 0 { vec![] } else { vec![(0, n - 1)] };
    }
    let r = splitmix(seed, 2 * n + 2);
    let mut out = Vec::new();
    let mut at = (r[0] % 3) as usize;
    let mut k = 1;
    while at < n {
        let len = 1 + (r[k] % 6) as usize;
        let last = (at + len - 1).min(n - 1);
        out.push((at, last));
        at = last + 1 + (r[k + 1] % 3) as usize;
        k += 2;
    }
    let order = splitmix(seed ^ 9, out.len());
    for i in (1..out.len()).rev() {
        out.swap(i, (order[i] % (i as u64 + 1)) as usize);
    }
    out
}

/// (rows, samples per row, extra buffer rows, seed, one range covering everything).
fn shapes() -> impl Strategy<Value = (usize, usize, usize, u64, bool)> {
    (
        0usize..5,
        prop_oneof![Just(0usize), Just(1usize), 2usize..60],
        0usize..3,
        any::<u64>(),
        proptest::bool::weighted(0.2),
    )
}

/// Runs one design on one case and compares with the loops over the same ranges.
fn case<E: ExecutionSpace>(
    space: &E,
    team: bool,
    (nd, n, extra, seed, whole): (usize, usize, usize, u64, bool),
) -> Result<(), TestCaseError> {
    let ranges = make_ranges(seed, n, whole);
    let m = nd + extra;
    let mut row_map: Vec<usize> = (0..m).collect();
    for (i, x) in splitmix(seed ^ 3, m).into_iter().enumerate().rev() {
        row_map.swap(i, (x % (i as u64 + 1)) as usize);
    }
    row_map.truncate(nd);
    let src: Vec<i32> = splitmix(seed ^ 5, nd * n)
        .into_iter()
        .map(|x| (x % 201) as i32 - 100)
        .collect();
    let init: Vec<i32> = (0..m * n)
        .map(|i| if i % 3 == 0 { SENTINEL } else { i as i32 })
        .collect();
    let rows_v: Vec<i32> = row_map.iter().map(|&r| r as i32).collect();
    let rows = InjectiveView::new_on(space, "rows", &rows_v).unwrap();
    let src_v: DevView<E, i32, 2> = dev_from_vec(space, "src", [nd, n], src.clone()).unwrap();
    let out: DevView<E, i32, 2> = dev_from_vec(space, "out", [m, n], init.clone()).unwrap();
    if team {
        let iv: Vec<(u32, u32)> = ranges.iter().map(|&(a, b)| (a as u32, b as u32)).collect();
        let iv = DisjointRanges::new_on(space, "iv", &iv).unwrap();
        parallel_for(
            "ranges_team",
            TeamPolicy::new(space, nd * iv.len(), TeamSize::Auto),
            ranges_team(&iv, &rows, &src_v, &out),
        )
        .unwrap();
    } else {
        let iv: Vec<(i32, i32)> = ranges.iter().map(|&(a, b)| (a as i32, b as i32)).collect();
        let iv = DisjointRanges::new_on(space, "iv", &iv).unwrap();
        parallel_for(
            "ranges_md",
            MDRangePolicy::new(space, [0, 0, 0], [nd, iv.len(), iv.max_len()]),
            ranges_md(&iv, &rows, &src_v, &out),
        )
        .unwrap();
    }
    let mut want = init;
    for d in 0..nd {
        for (v, &(a, b)) in ranges.iter().enumerate() {
            for s in a..=b {
                let at = row_map[d] * n + s;
                want[at] = f(want[at], src[d * n + s], v, s);
            }
        }
    }
    prop_assert_eq!(to_host(&out), want);
    Ok(())
}

pub fn disjoint_ranges_team<E: ExecutionSpace>(space: E) {
    check(8, shapes(), |c| case(&space, true, c));
}
per_backend!(disjoint_ranges_team);

pub fn disjoint_ranges_mdrange<E: ExecutionSpace>(space: E) {
    check(8, shapes(), |c| case(&space, false, c));
}
per_backend!(disjoint_ranges_mdrange);

/// `first + k` wraps when the offsets start near `usize::MAX`: the wrapped sample lies below
/// `first`, passes the `<= last` guard, and would land in other ranges' samples, written by
/// several work items at once (a data race on rayon). With overflow checks (debug builds) every
/// backend fails the launch at the addition; without them the macro's second guard makes every
/// such work item return, so nothing is written on any backend.
pub fn disjoint_ranges_offset_wraps<E: ExecutionSpace>(space: E) {
    let (kk, nv) = (64usize, 8usize);
    let first = kk + 10;
    let n = first + nv;
    let iv: Vec<(i32, i32)> = (0..nv)
        .map(|v| ((first + v) as i32, (first + v) as i32))
        .collect();
    let iv = DisjointRanges::new_on(&space, "iv", &iv).unwrap();
    let rows = InjectiveView::new_on(&space, "rows", &[0]).unwrap();
    let src: DevView<E, i32, 2> = dev_from_vec(&space, "src", [1, n], vec![1; n]).unwrap();
    let init: Vec<i32> = (0..n as i32).collect();
    let out: DevView<E, i32, 2> = dev_from_vec(&space, "out", [1, n], init.clone()).unwrap();
    // Offsets k in usize::MAX - kk .. usize::MAX - 1: `first + v + k` wraps to 9 + v + j.
    let k0 = usize::MAX - kk;
    let launched = parallel_for(
        "ranges_md",
        MDRangePolicy::new(&space, [0, 0, k0], [1, nv, k0 + kk - 1]),
        ranges_md(&iv, &rows, &src, &out),
    )
    .and_then(|()| space.fence());
    // `overflow_checks` of the kernel IR is the kernel crate's `debug_assertions`, as here.
    if cfg!(debug_assertions) {
        match launched {
            Err(Error::KernelFailed { reason, .. }) => {
                assert!(reason.contains("attempt to add with overflow"), "{reason}")
            }
            other => panic!("expected the addition's overflow check to fail, got {other:?}"),
        }
    } else {
        launched.unwrap();
        assert_eq!(to_host(&out), init);
    }
}
per_backend!(disjoint_ranges_offset_wraps);

/// Overlapping, inverted and negative ranges are refused when made, naming them; valid ones read
/// back unchanged, in the memory of every backend.
pub fn disjoint_ranges_refused<E: ExecutionSpace>(space: E) {
    let message = |r: rokkos::Result<DisjointRanges<i32, E::Memory>>| match r {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected InvalidArgument, got {other:?}"),
    };
    let m = message(DisjointRanges::new_on(
        &space,
        "iv",
        &[(5, 9), (0, 2), (9, 12)],
    ));
    assert!(
        m.contains("`iv`: ranges 0 and 2 overlap (both hold 9..=9)"),
        "{m}"
    );
    let m = message(DisjointRanges::new_on(&space, "iv", &[(3, 2)]));
    assert!(m.contains("range 0 (3..=2) ends before it starts"), "{m}");
    let m = message(DisjointRanges::new_on(&space, "iv", &[(0, 0), (-4, -1)]));
    assert!(m.contains("range 1 (-4..=-1) has a negative bound"), "{m}");
    let ok = DisjointRanges::new_on(&space, "iv", &[(4, 4), (0, 2)]).unwrap();
    assert_eq!(ok.to_vec().unwrap(), vec![(4, 4), (0, 2)]);
    assert_eq!((ok.bound(), ok.total(), ok.max_len()), (5, 4, 3));
}
per_backend!(disjoint_ranges_refused);
