//! The kernels whose IR is checked against their native path, covering the accepted subset.

use rokkos::prelude::*;

#[rokkos::func]
pub fn sq(x: f64) -> f64 {
    x * x
}

#[rokkos::func]
pub fn norm2(x: f64, y: f64) -> f64 {
    (sq(x) + sq(y)).sqrt()
}

/// A generic helper with an early return and an `if` expression as its value.
#[rokkos::func]
pub fn soft_clip<T: Float>(x: T, lim: T) -> T {
    if x > lim {
        return lim;
    }
    if x < -lim {
        -lim
    } else {
        x
    }
}

/// Range `parallel_for`: arithmetic, casts, constants, math methods, bit operations, local arrays,
/// tuples, `if` expressions, block expressions, compound assignments on View elements.
#[kernel]
pub fn expressions(i: usize, out: ViewMut<f64>, bits: ViewMut<u32>, x: View<f64>, k: i32, s: f64) {
    let v = x[i];
    let n = (i as i32) * k - 3;
    let (p, q) = (v * 0.5, 1.5);
    let mut r = v.abs().sqrt() + v.sin() * v.cos() - p.exp() + v.atan2(q);
    r += f64::max(v, s).powi(2) + v.mul_add(2.0, -1.0) + (n as f64).signum();
    r += v.to_degrees().to_radians() - v.hypot(s).ln() + v.clamp(-0.5, 0.5).tanh();
    r -= if n % 2 == 0 {
        1.0
    } else {
        (n.rem_euclid(5) as f64) * std::f64::consts::PI
    };
    let w = [v, 2.0 * v, -v];
    let mut acc = [0.0f64; 3];
    for m in 0..3 {
        acc[m] = w[m] * (m as f64 + 1.0);
    }
    let flag = (v < 0.0 && n > 0) || k == 0 || !v.is_finite() || v.is_nan();
    r += acc[i % 3] + i32::from(flag) as f64 + {
        let t = v.floor();
        t * t
    } - f64::EPSILON;
    out[i] = r;
    out[i] *= 0.5;
    let u = (i as u32) ^ 0x5a;
    bits[i] = ((u << 3) >> 1 | (u & 3)).wrapping_mul(2654435761) % 1000 + (!u & 7);
    bits[i] += (k as u32).wrapping_add(u);
}

/// Range reduce with `Sum`: a loop over a row.
#[kernel]
pub fn row_dot(i: usize, acc: &mut f64, a: View<f64, 2>, x: View<f64>) {
    for j in 0..a.extent(1) {
        *acc += a[(i, j)] * x[j];
    }
}

/// Two accumulators, reduced with `(Min, Max)`.
#[kernel]
pub fn min_max(i: usize, lo: &mut i64, hi: &mut i64, a: View<i64>) {
    let v = a[i];
    if v < *lo {
        *lo = v;
    }
    *hi = (*hi).max(v);
}

/// `MinLoc` over `ValLoc` fields.
#[kernel]
pub fn arg_min(i: usize, acc: &mut ValLoc<f64>, a: View<f64>) {
    if a[i] < acc.val {
        acc.val = a[i];
        acc.loc = i;
    }
}

/// An exclusive prefix sum through the final flag.
#[kernel(scan)]
pub fn prefix(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

/// MDRange 2-D with a transposed read, `size()` and an `extent` of a run-time dimension.
#[kernel]
pub fn md2((i, j): (usize, usize), out: ViewMut<f64, 2>, a: View<f64, 2>, s: f64) {
    out[(i, j)] = s * a[(j, i)] + (i * 10 + j) as f64 + (a.size() * a.extent(j % 2)) as f64;
}

/// MDRange 3-D reduce.
#[kernel]
pub fn md3((i, j, k): (usize, usize, usize), acc: &mut i64, a: View<i64, 3>) {
    *acc += a[(i, j, k)] * (k as i64 + 1) - (i * j) as i64;
}

/// A team kernel: scratch, nested ranges, barrier, nested reduce and scan, broadcast, single.
#[kernel]
pub fn team_rows(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64, 2>, sums: ViewMut<f64>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let tmp = team.team_scratch::<f64, 1>(0, [n]);
    for j in team.thread_range(n) {
        tmp[j] = 2.0 * a[(l, j)];
    }
    team.team_barrier();
    let s = team.thread_reduce(n, Sum, |j, acc: &mut f64| {
        *acc += tmp[j];
    });
    let _total = team.thread_scan(n, |j, partial: &mut f64, is_final: bool| {
        if is_final {
            out[(l, j)] = *partial;
        }
        *partial += tmp[n - 1 - j];
    });
    let first = team.team_broadcast(tmp[0], 0);
    let mx = team.single_team(|| if s > first { s } else { first });
    team.single_team(|| {
        sums[l] = s + mx * (team.league_size() as f64);
    });
}

/// A team reduce with vector ranges and thread scratch.
#[kernel]
pub fn team_vec(team: &TeamMember, acc: &mut i64, a: View<i64, 2>, out: ViewMut<i64, 2>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let mine = team.thread_scratch::<i64, 1>(0, [n]);
    for j in team.vector_range(n) {
        mine[j] = 3 * a[(l, j)];
    }
    for j in team.team_vector_range(n) {
        out[(l, j)] = a[(l, j)] - 1;
    }
    let m = team.vector_reduce(n, Max, |j, t: &mut i64| {
        if mine[j] > *t {
            *t = mine[j];
        }
    });
    team.single_team(|| {
        *acc += m;
    });
}

/// Vector reductions and scans and a thread `single` with a result, on lanes that are
/// independent (the CUDA target keeps them physical and exchanges through warp shuffles).
#[kernel]
pub fn lane_sums(team: &TeamMember, a: View<f64, 2>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let n = a.extent(1);
    let s = team.vector_reduce(n, Sum, |j, t: &mut f64| {
        *t += a[(l, j)];
    });
    let p = team.vector_scan(n, |j, partial: &mut f64, _is_final: bool| {
        *partial += a[(l, j)];
    });
    let w = team.single_thread(|| s + p);
    team.single_thread(|| {
        out[(l, team.team_rank())] = w;
    });
}

/// Atomics: a histogram, fetch-add, compare-exchange loop.
#[kernel]
pub fn histogram(i: usize, h: ViewMut<u32>, cnt: ViewMut<i64>, x: View<f64>, nb: usize) {
    let b = ((x[i] * nb as f64) as usize).min(nb - 1);
    h.atomic_add(b, 1);
    let before = cnt.atomic_fetch_add(0, 1);
    cnt.atomic_max(1, before);
    let mut done = false;
    while !done {
        let cur = cnt.atomic_load(2);
        done = cnt.atomic_compare_exchange(2, cur, cur + i as i64) == cur;
    }
}

/// Calls of `#[func]`s, generic and nested.
#[kernel]
pub fn with_funcs(i: usize, out: ViewMut<f64>, a: View<f64>, b: View<f64>) {
    out[i] = norm2(a[i], b[i]) + soft_clip(a[i] * 3.0, 1.0) + soft_clip(2.5f32, 1.0f32) as f64;
}

/// Control flow: early return, `break`, `continue`, `while`, `loop`, stepped and reversed ranges.
#[kernel]
pub fn control(i: usize, out: ViewMut<i64>, x: View<i64>, limit: usize) {
    if i >= limit {
        return;
    }
    let v = x[i];
    if v < -40 {
        out[i] = -1;
        return;
    }
    let mut s = 0i64;
    for k in 0..20 {
        if k % 3 == 0 {
            continue;
        }
        if k as i64 > v.abs() % 17 {
            break;
        }
        s += k as i64;
    }
    let mut n = v;
    let mut steps = 0;
    while n != 1 && n > 0 && steps < 500 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    let mut t = 0usize;
    loop {
        t += 1;
        if t * t > i {
            break;
        }
    }
    for k in (1..7i32).step_by(2).rev() {
        s = s * 3 + k as i64;
    }
    for k in 2..=4 {
        s -= k;
    }
    for k in (0..7usize).rev().step_by(3) {
        s += k as i64;
    }
    out[i] = s + steps + t as i64;
}

/// A kernel generic over the precision.
#[kernel]
pub fn lerp<T: Float>(i: usize, y: ViewMut<T>, a: View<T>, b: View<T>, t: T) {
    y[i] = a[i] + (b[i] - a[i]) * t + T::from_f64(0.5).sqrt() * T::ONE;
}

/// A recursive helper: the IR has no recursion.
#[rokkos::func]
pub fn fact(n: u64) -> u64 {
    if n <= 1 {
        1
    } else {
        n * fact(n - 1)
    }
}

/// Calls a recursive helper: `build_ir` returns `Unsupported`.
#[kernel]
pub fn factorials(i: usize, out: ViewMut<u64>) {
    out[i] = fact(i as u64 % 10);
}
