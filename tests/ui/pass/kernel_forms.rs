//! Every signature form of `#[kernel]` compiles, runs, and produces no warnings.
#![deny(warnings)]

use rokkos::prelude::*;

#[rokkos::func]
fn sq(x: f64) -> f64 {
    x * x
}

mod util {
    #[rokkos::func]
    pub fn cube<T: rokkos::Float>(x: T) -> T {
        x * x * x
    }
}

/// A generic triad.
#[kernel]
pub fn triad<T: rokkos::Float>(i: usize, a: ViewMut<T>, b: View<T>, c: View<T>, s: T) {
    a[i] = b[i] + s * c[i];
}

#[kernel]
fn dot(i: usize, acc: &mut f64, a: View<f64>, b: View<f64>) {
    *acc += a[i] * b[i];
}

#[kernel]
fn minmax(i: usize, lo: &mut f64, hi: &mut f64, a: View<f64>) {
    if a[i] < *lo {
        *lo = a[i];
    }
    if a[i] > *hi {
        *hi = a[i];
    }
}

#[kernel(scan)]
fn prefix(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

#[kernel]
fn mat((i, j): (usize, usize), m: ViewMut<f64, 2>, k: f64) {
    m[(i, j)] = k * (i + j) as f64;
}

#[kernel]
fn rowsum(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), Sum, |j, acc: &mut f64| {
        *acc += a[(l, j)];
    });
    team.single_team(|| {
        out[l] = s;
    });
}

#[kernel]
fn staged(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let sc = team.team_scratch::<f64, 1>(0, [4]);
    for j in team.thread_range(4) {
        sc[j] = (10 * l + j) as f64;
    }
    team.team_barrier();
    for j in team.thread_range(4) {
        out[(l, j)] = sc[3 - j];
    }
}

#[kernel]
fn mixed(i: usize, a: ViewMut<f64>, hist: ViewMut<f64>, c: ViewMut<f32>) {
    let mut w = [0.0f64; 3];
    for k in (0..3).rev() {
        w[k] = k as f64;
    }
    a[i] += sq(w[2]) - 4.0 + std::f64::consts::PI * 0.0;
    hist.atomic_add(i % 2, 1.0);
    c[i] = util::cube(i as f32);
}

#[kernel]
fn count(i: usize, acc: &mut u64, n: u64) {
    *acc += (i as u64) * n;
}

fn main() -> rokkos::Result<()> {
    let space = Serial;
    let n = 10;
    let a = View::<f64>::new("a", [n])?;
    let b = View::<f64>::from_fn("b", [n], |[i]| i as f64)?;
    let c = View::<f64, 1, LayoutLeft>::from_fn("c", [n], |[i]| 2.0 * i as f64)?;
    parallel_for(
        "triad",
        RangePolicy::new(&space, 0..n),
        triad(&a, &b, &c, 0.5),
    )?;
    assert_eq!(a.get(3), 6.0);
    let s: f64 = parallel_reduce("dot", RangePolicy::new(&space, 0..n), dot(&b, &b), Sum)?;
    assert_eq!(s, 285.0);
    let mm = parallel_reduce("mm", RangePolicy::new(&space, 0..n), minmax(&b), (Min, Max))?;
    assert_eq!(mm, (0.0, 9.0));
    let x = View::<i64>::from_fn("x", [n], |[i]| i as i64)?;
    let o = View::<i64>::new("o", [n])?;
    assert_eq!(
        parallel_scan("prefix", RangePolicy::new(&space, 0..n), prefix(&x, &o))?,
        45
    );
    assert_eq!(o.get(4), 6);
    let m = View::<f64, 2>::new("m", [3, 4])?;
    parallel_for(
        "mat",
        MDRangePolicy::new(&space, [0, 0], [3, 4]),
        mat(&m, 2.0),
    )?;
    assert_eq!(m.get((2, 3)), 10.0);
    let out = View::<f64>::new("out", [3])?;
    parallel_for(
        "rowsum",
        TeamPolicy::new(&space, 3, TeamSize::Auto),
        rowsum(&m, &out),
    )?;
    assert_eq!(out.get(2), 28.0);
    let o2 = View::<f64, 2>::new("o2", [3, 4])?;
    let policy = TeamPolicy::new(&space, 3, TeamSize::Auto).scratch(0, 64, 0);
    parallel_for("staged", policy, staged(&o2))?;
    assert_eq!(o2.get((1, 0)), 13.0);
    let h = View::<f64>::new("h", [2])?;
    let f = View::<f32>::new("f", [n])?;
    parallel_for("mixed", RangePolicy::new(&space, 0..n), mixed(&a, &h, &f))?;
    assert_eq!((h.get(0), f.get(3)), (5.0, 27.0));
    let t: u64 = parallel_reduce("count", RangePolicy::new(&space, 0..n), count(2), Sum)?;
    assert_eq!(t, 90);
    Ok(())
}
