//! Kokkos' rows-per-team pattern (issue 31, item 1): team `l` owns rows
//! `l * R..(l * R + R).min(n)`, its threads one row each and the vector lanes the row's
//! entries, as in the three-level CRS SpMV, with no `unsafe` and no `DisjointRanges`. Compared
//! with a plain CRS loop, for a launch-constant `R` as a scalar parameter and as a literal.

use crate::{check, dev, dev_from_vec, splitmix, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn spmv_rows(
    team: &TeamMember,
    y: ViewMut<i32>,
    row_ptr: View<u32>,
    cols: View<u32>,
    vals: View<i32>,
    x: View<i32>,
    rows_per_team: usize,
) {
    let l = team.league_rank();
    let n = y.extent(0);
    let first = l * rows_per_team;
    for r in team.thread_range(first..(first + rows_per_team).min(n)) {
        let lo = row_ptr[r] as usize;
        let hi = row_ptr[r + 1] as usize;
        let s = team.vector_reduce(lo..hi, Sum, |k, acc: &mut i32| {
            *acc += vals[k] * x[cols[k] as usize];
        });
        team.single_thread(|| {
            y[r] = s;
        });
    }
}

#[kernel]
fn rows_of_four(team: &TeamMember, y: ViewMut<i32>, x: View<i32>) {
    let l = team.league_rank();
    let n = y.extent(0);
    for r in team.thread_range(l * 4..n.min(l * 4 + 4)) {
        y[r] = 3 * x[r] + l as i32;
    }
}

/// A random CRS matrix: (row pointers, column indices, values).
fn crs(seed: u64, n: usize) -> (Vec<u32>, Vec<u32>, Vec<i32>) {
    let r = splitmix(seed, 3 * n * 8 + 1);
    let (mut ptr, mut cols, mut vals) = (vec![0u32], Vec::new(), Vec::new());
    let mut at = 0;
    for _ in 0..n {
        let len = (r[at] % 7) as usize;
        at += 1;
        for _ in 0..len {
            cols.push((r[at] % n as u64) as u32);
            vals.push((r[at + 1] % 21) as i32 - 10);
            at += 2;
        }
        ptr.push(cols.len() as u32);
    }
    (ptr, cols, vals)
}

pub(crate) fn rows_per_team_spmv<E: ExecutionSpace>(space: E) {
    check(
        8,
        (crate::sizes(), 1usize..9, any::<u64>()),
        |(n, per, seed)| {
            let n = n.min(600);
            let (ptr, cols, vals) = crs(seed, n);
            let xs: Vec<i32> = splitmix(seed ^ 7, n)
                .iter()
                .map(|&v| (v % 11) as i32 - 5)
                .collect();
            let nnz = cols.len();
            let row_ptr: DevView<E, u32> = dev_from_vec(&space, "row_ptr", [n + 1], ptr.clone())?;
            let col_v: DevView<E, u32> = dev_from_vec(&space, "cols", [nnz], cols.clone())?;
            let val_v: DevView<E, i32> = dev_from_vec(&space, "vals", [nnz], vals.clone())?;
            let x: DevView<E, i32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let y: DevView<E, i32> = dev(&space, "y", [n])?;
            // One team more than needed: its block is past the rows, so its range is empty.
            let league = n.div_ceil(per) + 1;
            parallel_for(
                "spmv_rows",
                TeamPolicy::new(&space, league, TeamSize::Auto),
                spmv_rows(&y, &row_ptr, &col_v, &val_v, &x, per),
            )?;
            let want: Vec<i32> = (0..n)
                .map(|r| {
                    (ptr[r] as usize..ptr[r + 1] as usize)
                        .map(|k| vals[k] * xs[cols[k] as usize])
                        .sum()
                })
                .collect();
            prop_assert_eq!(to_host(&y), want);
            Ok(())
        },
    );
}

/// The block of a literal `R`, its end written `n.min(l * 4 + 4)`, in a kernel the 32-bit
/// index proof accepts (so it also runs on a device without 64-bit integers).
pub(crate) fn rows_per_team_literal<E: ExecutionSpace>(space: E) {
    check(8, (crate::sizes(), any::<u64>()), |(n, seed)| {
        let xs: Vec<i32> = splitmix(seed, n)
            .iter()
            .map(|&v| (v % 11) as i32 - 5)
            .collect();
        let x: DevView<E, i32> = dev_from_vec(&space, "x", [n], xs.clone())?;
        let z: DevView<E, i32> = dev(&space, "z", [n])?;
        parallel_for(
            "rows_of_four",
            TeamPolicy::new(&space, n.div_ceil(4), TeamSize::Auto),
            rows_of_four(&z, &x),
        )?;
        let want: Vec<i32> = (0..n).map(|r| 3 * xs[r] + (r / 4) as i32).collect();
        prop_assert_eq!(to_host(&z), want);
        Ok(())
    });
}

per_backend!(rows_per_team_spmv);
per_backend!(rows_per_team_literal);
