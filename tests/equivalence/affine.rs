//! Writes at an affine map of the work index (issue 31): Kokkos' `TestRange` OffsetTag
//! (`flags(i - offset) = 1` over `offset..offset + n`), `y[i + k]` for a launch-constant `k`,
//! `y[2 * i + 1]`, the reversal `y[n - 1 - i]`, a league rank's `y[(2 * l + 1, t)]` and an
//! MDRange's `out[(i + 1, 3 * j)]`, each compared with a plain loop. A map with an even
//! multiplier is guarded against wrapping: the work item at `2^63` fails instead of meeting work
//! item 0 (`2 * 2^63 + 1 == 1` modulo 2^64).

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn offset_tag(i: usize, flags: ViewMut<i32>, offset: usize) {
    flags[i - offset] += 1;
}

#[kernel]
fn odd_even(i: usize, odd: ViewMut<u32>, even: ViewMut<u32>) {
    odd[2 * i + 1] = i as u32;
    let e = i * 2;
    even[e] = 3 * i as u32;
    even[e] += 1;
    odd[2 * i + 1] += 10;
}

#[kernel]
fn reversed(i: usize, y: ViewMut<i32>, x: View<i32>) {
    let n = x.extent(0);
    y[n - 1 - i] = x[i] * 2;
}

#[kernel]
fn shifted(i: usize, y: ViewMut<i32>, x: View<i32>, k: usize) {
    y[i + k] = x[i] + 1;
}

#[kernel]
fn triple(i: usize, y: ViewMut<u32>) {
    // An odd multiplier needs no guard: multiplying by 3 is a bijection modulo 2^64.
    y[3 * i] = i as u32 + 1;
}

#[kernel]
fn league_rows(team: &TeamMember, y: ViewMut<u32, 2>) {
    let l = team.league_rank();
    for t in team.thread_range(y.extent(1)) {
        y[(2 * l + 1, t)] = (l * 100 + t) as u32;
    }
}

#[kernel]
fn md_affine((i, j): (usize, usize), out: ViewMut<u32, 2>) {
    out[(i + 1, 3 * j)] = (i * 1000 + j) as u32;
}

/// OffsetTag, the shift by a scalar parameter and the reversal, over sizes including 0 and the
/// chunk boundaries.
pub(crate) fn affine_offsets<E: ExecutionSpace>(space: E) {
    check(
        6,
        (crate::sizes(), 0usize..1000, 0usize..5, any::<u64>()),
        |(n, offset, k, seed)| {
            let flags: DevView<E, i32> = dev(&space, "flags", [n])?;
            parallel_for(
                "offset_tag",
                RangePolicy::new(&space, offset..offset + n),
                offset_tag(&flags, offset),
            )?;
            prop_assert_eq!(to_host(&flags), vec![1; n]);

            let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
                .iter()
                .map(|&v| v as i32)
                .collect();
            let x: DevView<E, i32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let y: DevView<E, i32> = dev(&space, "y", [n])?;
            parallel_for("reversed", RangePolicy::new(&space, 0..n), reversed(&y, &x))?;
            let want: Vec<i32> = xs.iter().rev().map(|v| v * 2).collect();
            prop_assert_eq!(to_host(&y), want);

            let z: DevView<E, i32> = dev(&space, "z", [n + k])?;
            parallel_for(
                "shifted",
                RangePolicy::new(&space, 0..n),
                shifted(&z, &x, k),
            )?;
            let mut want = vec![0; n + k];
            for (s, v) in xs.iter().enumerate() {
                want[s + k] = v + 1;
            }
            prop_assert_eq!(to_host(&z), want);
            Ok(())
        },
    );
}

/// Multipliers 2 (guarded) and 3, in a range, a team and an MDRange kernel.
pub(crate) fn affine_multiples<E: ExecutionSpace>(space: E) {
    check(
        6,
        (crate::sizes(), 1usize..5, 1usize..6),
        |(n, league, cols)| {
            let odd: DevView<E, u32> = dev(&space, "odd", [2 * n + 1])?;
            let even: DevView<E, u32> = dev(&space, "even", [2 * n + 1])?;
            parallel_for(
                "odd_even",
                RangePolicy::new(&space, 0..n),
                odd_even(&odd, &even),
            )?;
            let (mut wo, mut we) = (vec![0; 2 * n + 1], vec![0; 2 * n + 1]);
            for i in 0..n {
                wo[2 * i + 1] = i as u32 + 10;
                we[2 * i] = 3 * i as u32 + 1;
            }
            prop_assert_eq!(to_host(&odd), wo);
            prop_assert_eq!(to_host(&even), we);

            let y: DevView<E, u32> = dev(&space, "y", [3 * n])?;
            parallel_for("triple", RangePolicy::new(&space, 0..n), triple(&y))?;
            let mut want = vec![0; 3 * n];
            for i in 0..n {
                want[3 * i] = i as u32 + 1;
            }
            prop_assert_eq!(to_host(&y), want);

            let rows: DevView<E, u32, 2> = dev(&space, "rows", [2 * league + 1, cols])?;
            parallel_for(
                "league_rows",
                TeamPolicy::new(&space, league, TeamSize::Auto),
                league_rows(&rows),
            )?;
            let mut want = vec![0; (2 * league + 1) * cols];
            for l in 0..league {
                for t in 0..cols {
                    want[(2 * l + 1) * cols + t] = (l * 100 + t) as u32;
                }
            }
            prop_assert_eq!(to_host(&rows), want);

            let m = n.min(40);
            let out: DevView<E, u32, 2> = dev(&space, "out", [m + 1, 3 * cols])?;
            parallel_for(
                "md_affine",
                MDRangePolicy::new(&space, [0, 0], [m, cols]),
                md_affine(&out),
            )?;
            let mut want = vec![0; (m + 1) * 3 * cols];
            for i in 0..m {
                for j in 0..cols {
                    want[(i + 1) * 3 * cols + 3 * j] = (i * 1000 + j) as u32;
                }
            }
            prop_assert_eq!(to_host(&out), want);
            Ok(())
        },
    );
}

/// Work items `0` and `2^63` of `odd_even` would both reach `odd[1]` if `2 * i` wrapped: the
/// guarded map sends the second out of bounds, so the launch fails and `odd[1]` keeps work item
/// 0's value.
pub(crate) fn affine_wrap_fails<E: ExecutionSpace>(space: E) {
    let odd: DevView<E, u32> = dev(&space, "odd", [4]).expect("a View");
    let even: DevView<E, u32> = dev(&space, "even", [4]).expect("a View");
    let big = 1usize << 63;
    let r = parallel_for(
        "odd_even",
        RangePolicy::new(&space, big..big + 1),
        odd_even(&odd, &even),
    )
    .and_then(|()| space.fence());
    match r {
        Err(Error::OutOfBounds { .. } | Error::KernelFailed { .. }) => {}
        other => panic!("work item 2^63 of `odd[2 * i + 1]` must fail, got {other:?}"),
    }
    assert_eq!(to_host(&odd), vec![0; 4]);
    assert_eq!(to_host(&even), vec![0; 4]);
}

per_backend!(affine_offsets);
per_backend!(affine_multiples);
per_backend!(affine_wrap_fails);
