//! Loops that hold an inner loop are versioned too (host backends check their accesses once over
//! the outer range, then run the body unchecked): TOAST's per-sample kernels, a `thread_range`
//! loop over samples with a `for k in 0..nnz` loop inside. Every backend must give the plain
//! loop's result in bounds, and fail with `Err(OutOfBounds)` naming the View and the index of
//! the one access that leaves it, whether that access sits in the outer body or in the inner
//! loop; a loop that runs zero times, outer or inner, raises nothing.

use crate::{dev_from_vec, to_host, DevView};
use rokkos::prelude::*;
use rokkos::Error;

/// TOAST's scan_map shape: the row looked up before the sample loop, a sum over `k` inside it.
#[kernel]
fn team_row_sums(
    team: &TeamMember,
    y: ViewMut<f32, 2>,
    rows: InjectiveView<i32>,
    x: View<f32, 3>,
    n: usize,
) {
    let l = team.league_rank();
    let row = rows[l] as usize;
    for s in team.thread_range(n) {
        let mut acc = 0.0;
        for k in 0..x.extent(2) {
            acc += x[(l, s, k)] * ((k + 1) as f32);
        }
        y[(row, s)] += acc;
    }
}

/// A plain `lo..hi` loop with an inner loop, in a range kernel: a neighbour read in the outer
/// body.
#[kernel]
fn window_blocks(
    i: usize,
    out: ViewMut<f32>,
    a: View<f32, 3>,
    b: View<f32, 2>,
    lo: usize,
    hi: usize,
) {
    let mut t = 0.0;
    for j in lo..hi {
        let mut s = 0.0;
        for k in 0..a.extent(2) {
            s += a[(i, j, k)];
        }
        t += s * b[(i, j + 1)];
    }
    out[i] = t;
}

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7 + seed) % 13) as f32 - 6.0).collect()
}

/// Launches `team_row_sums` over `rows.len()` teams and `n` samples, `y` all ones; the result
/// and `y` afterwards.
fn row_sums<E: ExecutionSpace>(
    space: &E,
    rows: &[i32],
    ye: [usize; 2],
    xe: [usize; 3],
    n: usize,
) -> (rokkos::Result<()>, Vec<f32>) {
    let r = InjectiveView::new_on(space, "rows", rows).unwrap();
    let y: DevView<E, f32, 2> = dev_from_vec(space, "y", ye, vec![1.0; ye[0] * ye[1]]).unwrap();
    let x: DevView<E, f32, 3> =
        dev_from_vec(space, "x", xe, values(xe.iter().product(), 3)).unwrap();
    let policy = TeamPolicy::new(space, rows.len(), TeamSize::Auto);
    let res = parallel_for("team_row_sums", policy, team_row_sums(&y, &r, &x, n))
        .and_then(|_| space.fence());
    (res, to_host(&y))
}

fn expect_oob(r: rokkos::Result<()>, want_view: &str, want_index: &str) {
    match r {
        Err(Error::OutOfBounds {
            kernel,
            view,
            index,
            ..
        }) => {
            assert_eq!(view, want_view, "kernel {kernel}, index {index}");
            assert_eq!(index, want_index, "kernel {kernel}, view {view}");
        }
        other => panic!("expected OutOfBounds on `{want_view}` at {want_index}, got {other:?}"),
    }
}

/// The team kernel in bounds (against a plain loop), with the one access past `y`'s last sample,
/// with the one past `x`'s in the inner loop, and with loops that never run.
pub fn nested_team_loop<E: ExecutionSpace>(space: E) {
    // In bounds: two teams writing rows 1 and 0.
    let (n, nnz) = (5, 3);
    let (r, y) = row_sums(&space, &[1, 0], [2, n], [2, n, nnz], n);
    r.unwrap();
    let x = values(2 * n * nnz, 3);
    let mut want = vec![1.0; 2 * n];
    for (l, row) in [(0usize, 1usize), (1, 0)] {
        for s in 0..n {
            let mut acc = 0.0;
            for k in 0..nnz {
                acc += x[(l * n + s) * nnz + k] * ((k + 1) as f32);
            }
            want[row * n + s] += acc;
        }
    }
    assert_eq!(y, want);

    // One team, `y` one sample short: only `y[(2, 4)]` is out of bounds.
    let (r, _) = row_sums(&space, &[2], [3, 4], [1, 5, 1], 5);
    expect_oob(r, "y", "(2, 4)");
    // `x` one sample short, one `k`: only `x[(0, 4, 0)]` in the inner loop is out of bounds.
    let (r, _) = row_sums(&space, &[0], [1, 5], [1, 4, 1], 5);
    expect_oob(r, "x", "(0, 4, 0)");
    // The looked-up row past `y`, one sample: its write fails.
    let (r, _) = row_sums(&space, &[3], [2, 1], [1, 1, 0], 1);
    expect_oob(r, "y", "(3, 0)");

    // No samples: neither the row nor `x` is ever touched, however far out they are.
    let (r, y) = row_sums(&space, &[9], [1, 2], [1, 0, 4], 0);
    r.unwrap();
    assert_eq!(y, [1.0, 1.0]);
    // An inner loop that never runs (`x` has no `k`) reads nothing past `x`'s samples.
    let (r, y) = row_sums(&space, &[0], [1, 4], [1, 1, 0], 4);
    r.unwrap();
    assert_eq!(y, [1.0; 4]);
}
per_backend!(nested_team_loop);

fn blocks<E: ExecutionSpace>(
    space: &E,
    n: usize,
    ae: [usize; 3],
    be: [usize; 2],
    lo: usize,
    hi: usize,
) -> (rokkos::Result<()>, Vec<f32>) {
    let a: DevView<E, f32, 3> =
        dev_from_vec(space, "a", ae, values(ae.iter().product(), 1)).unwrap();
    let b: DevView<E, f32, 2> =
        dev_from_vec(space, "b", be, values(be.iter().product(), 5)).unwrap();
    let out: DevView<E, f32> = dev_from_vec(space, "out", [n], vec![0.0; n]).unwrap();
    let res = parallel_for(
        "window_blocks",
        RangePolicy::new(space, 0..n),
        window_blocks(&out, &a, &b, lo, hi),
    )
    .and_then(|_| space.fence());
    (res, to_host(&out))
}

/// The range kernel's `lo..hi` loop in bounds (against a plain loop), with the one neighbour
/// read past `b`, and empty.
pub fn nested_plain_loop<E: ExecutionSpace>(space: E) {
    let (n, lo, hi, nnz) = (3, 1, 5, 2);
    let (ae, be) = ([n, hi, nnz], [n, hi + 1]);
    let (r, out) = blocks(&space, n, ae, be, lo, hi);
    r.unwrap();
    let (a, b) = (values(n * hi * nnz, 1), values(n * (hi + 1), 5));
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let mut t = 0.0;
            for j in lo..hi {
                let s: f32 = (0..nnz).map(|k| a[(i * hi + j) * nnz + k]).sum();
                t += s * b[i * (hi + 1) + j + 1];
            }
            t
        })
        .collect();
    assert_eq!(out, want);

    // `b` one column short, one work item: only `b[(0, 5)]` at `j = 4` is out of bounds.
    let (r, _) = blocks(&space, 1, [1, hi, nnz], [1, hi], lo, hi);
    expect_oob(r, "b", "(0, 5)");
    // An empty range touches neither View.
    let (r, out) = blocks(&space, 2, [0, 0, 0], [0, 0], 4, 4);
    r.unwrap();
    assert_eq!(out, [0.0, 0.0]);
}
per_backend!(nested_plain_loop);
