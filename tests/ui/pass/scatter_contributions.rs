use rokkos::prelude::*;

// Contributions at any index, in every kind of kernel, with no `unsafe`.
#[kernel]
fn histogram(i: usize, x: View<u32>, h: ScatterSum<u32>) {
    h.atomic_add(x[i] as usize % h.extent(0), 1);
}

#[kernel]
fn pairs((i, j): (usize, usize), f: ScatterSum<f64, 2>, d: View<f64, 2>) {
    f.atomic_add((j, 0), d[(i, j)]);
    f.atomic_sub((i, 1), d[(i, j)]);
}

#[kernel]
fn per_team(team: &TeamMember, lo: ScatterMin<i64>, hi: ScatterMax<i64>, p: ScatterProd<i32>) {
    let l = team.league_rank();
    lo.atomic_min(0, l as i64);
    hi.atomic_max(l % 3, l as i64);
    p.atomic_mul(0, 1);
}

#[kernel]
fn generic<T: rokkos::AtomicScalar>(i: usize, x: View<T>, h: ScatterSum<T>) {
    h.atomic_add(0, x[i]);
}

fn main() {}
