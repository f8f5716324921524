//! Scatter accessors (`ScatterSum<T>` and the others, `rokkos::scatter`) in kernels of every
//! policy on every backend: the copies of the storage, combined here by a plain loop, hold what a
//! plain loop over the contributions computes (integers exactly). 32-bit elements only, so that
//! adapters without 64-bit integers run it too. The container built on them,
//! `rokkos_containers::ScatterView`, is tested in its own crate.

use crate::{dev_from_vec, splitmix, to_host};
use rokkos::prelude::*;
use rokkos::scatter::{ScatterOp, ScatterStorage};
use rokkos::MemorySpace;

#[kernel]
fn hist_range(i: usize, bin: View<u32>, h: ScatterSum<i32>) {
    h.atomic_add(bin[i] as usize, i as i32);
}

#[kernel]
fn hist_md((i, j): (usize, usize), bin: View<u32, 2>, h: ScatterSum<u32, 2>) {
    h.atomic_add((bin[(i, j)] as usize, j % 2), 1);
}

#[kernel]
fn hist_team(team: &TeamMember, bin: View<u32>, hi: ScatterMax<i32>, per: usize) {
    let l = team.league_rank();
    for k in 0..per {
        hi.atomic_max(bin[l * per + k] as usize, (l * per + k) as i32);
    }
}

#[kernel]
fn hist_reduce(i: usize, acc: &mut u32, bin: View<u32>, h: ScatterSum<u32>) {
    h.atomic_add(bin[i] as usize, 2);
    *acc += 1;
}

/// Every copy of `s` combined with `join`, in copy order.
fn combined<
    T: Pod + rokkos::Scalar + rokkos::AtomicScalar,
    const R: usize,
    Op: ScatterOp,
    S: MemorySpace,
>(
    s: &ScatterStorage<T, R, Op, S>,
    join: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = to_host(s.first());
    let rest = to_host(s.rest());
    for copy in rest.chunks(out.len().max(1)) {
        for (o, &x) in out.iter_mut().zip(copy) {
            *o = join(*o, x);
        }
    }
    out
}

fn bins(n: usize, m: usize, seed: u64) -> Vec<u32> {
    splitmix(seed, n)
        .into_iter()
        .map(|x| (x % m as u64) as u32)
        .collect()
}

/// Range, MDRange, team and reduce kernels contributing at indices they do not own.
fn scatter_kernels<E: ExecutionSpace>(space: E) {
    let (n, m) = (1237, 17);
    let b = bins(n, m, 5);
    let bv = dev_from_vec::<u32, 1, LayoutRight, _>(&space, "b", [n], b.clone()).unwrap();

    let s = ScatterStorage::<i32, 1, Sum, E::Memory>::new(&space, "s", [m]).unwrap();
    parallel_for("range", RangePolicy::new(&space, 0..n), hist_range(&bv, &s)).unwrap();
    let mut want = vec![0i32; m];
    for (i, &x) in b.iter().enumerate() {
        want[x as usize] += i as i32;
    }
    assert_eq!(combined(&s, |a, x| a + x), want);

    let (r, c) = (41, 30);
    let b2 = bins(r * c, m, 6);
    let bv2 = dev_from_vec::<u32, 2, LayoutRight, _>(&space, "b2", [r, c], b2.clone()).unwrap();
    let s2 = ScatterStorage::<u32, 2, Sum, E::Memory>::new(&space, "s2", [m, 2]).unwrap();
    parallel_for(
        "md",
        MDRangePolicy::new(&space, [0, 0], [r, c]),
        hist_md(&bv2, &s2),
    )
    .unwrap();
    let mut want2 = vec![0u32; 2 * m];
    for i in 0..r {
        for j in 0..c {
            want2[2 * b2[i * c + j] as usize + j % 2] += 1;
        }
    }
    assert_eq!(combined(&s2, |a, x| a + x), want2);

    let (league, per) = (37, 9);
    let b3 = bins(league * per, m, 7);
    let bv3 =
        dev_from_vec::<u32, 1, LayoutRight, _>(&space, "b3", [league * per], b3.clone()).unwrap();
    let s3 = ScatterStorage::<i32, 1, Max, E::Memory>::new(&space, "s3", [m]).unwrap();
    parallel_for(
        "team",
        TeamPolicy::new(&space, league, TeamSize::Auto),
        hist_team(&bv3, &s3, per),
    )
    .unwrap();
    let mut want3 = vec![i32::MIN; m];
    for (k, &x) in b3.iter().enumerate() {
        want3[x as usize] = want3[x as usize].max(k as i32);
    }
    assert_eq!(combined(&s3, i32::max), want3);

    let s4 = ScatterStorage::<u32, 1, Sum, E::Memory>::new(&space, "s4", [m]).unwrap();
    let count: u32 = parallel_reduce(
        "reduce",
        RangePolicy::new(&space, 0..n),
        hist_reduce(&bv, &s4),
        Sum,
    )
    .unwrap();
    assert_eq!(count, n as u32);
    let mut want4 = vec![0u32; m];
    for &x in &b {
        want4[x as usize] += 2;
    }
    assert_eq!(combined(&s4, |a, x| a + x), want4);
}
per_backend!(scatter_kernels);
