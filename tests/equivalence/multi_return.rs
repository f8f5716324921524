//! `#[func]`s returning several values: a tuple (with an early `return (..)`), an array, a
//! generic tuple, and one calling another, bound with `let (a, b) = f(..)` /
//! `let [x, y, z] = f(..)` in kernels and functions, against the same functions called natively
//! in a plain loop (integer-valued data: every result is exact).

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Truncated quotient and remainder, `(0, a)` for a zero divisor (an early return).
#[func]
fn divmod(a: i32, b: i32) -> (i32, i32) {
    if b == 0 {
        return (0, a);
    }
    (a / b, a % b)
}

/// The cross product of `(a0, a1, a2)` and `(b0, b1, b2)`.
#[func]
fn cross(a0: f64, a1: f64, a2: f64, b0: f64, b1: f64, b2: f64) -> [f64; 3] {
    [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]
}

/// The smaller and the larger of `a` and `b`, generic.
#[func]
fn order<T: Float>(a: T, b: T) -> (T, T) {
    if a < b {
        return (a, b);
    }
    (b, a)
}

/// Calls another multi-value function: the quotient and remainder of `a` by `b` plus one each.
#[func]
fn divmod_plus(a: i32, b: i32) -> [i32; 2] {
    let (q, r) = divmod(a, b);
    [q + 1, r + 1]
}

#[kernel]
fn multi(
    i: usize,
    a: View<i32>,
    b: View<i32>,
    x: View<f64, 2>,
    oi: ViewMut<i32, 2>,
    of: ViewMut<f64, 2>,
) {
    let (q, r) = divmod(a[i], b[i]);
    let [c0, c1, c2]: [f64; 3] = cross(
        x[(i, 0)],
        x[(i, 1)],
        x[(i, 2)],
        x[(i, 3)],
        x[(i, 4)],
        x[(i, 5)],
    );
    let (lo, hi) = order(x[(i, 0)], x[(i, 1)]);
    let [p, _] = divmod_plus(a[i] + 1, b[i]);
    let (_, s) = divmod(a[i], 7);
    oi[(i, 0)] = q;
    oi[(i, 1)] = r;
    oi[(i, 2)] = p;
    oi[(i, 3)] = s;
    of[(i, 0)] = c0;
    of[(i, 1)] = c1;
    of[(i, 2)] = c2;
    of[(i, 3)] = lo;
    of[(i, 4)] = hi;
}

pub fn multi_return_funcs<E: ExecutionSpace>(space: E) {
    let sizes = prop_oneof![Just(0usize), Just(1usize), 2usize..90];
    check(8, (sizes, any::<u64>()), |(n, seed)| {
        let a: Vec<i32> = crate::ints(seed, n, -500, 500)
            .into_iter()
            .map(|v| v as i32)
            .collect();
        // Zero divisors included (the early return).
        let b: Vec<i32> = crate::ints(seed ^ 1, n, -6, 7)
            .into_iter()
            .map(|v| v as i32)
            .collect();
        let x: Vec<f64> = crate::ints(seed ^ 2, 6 * n, -40, 40)
            .into_iter()
            .map(|v| v as f64)
            .collect();
        let av: DevView<E, i32> = dev_from_vec(&space, "a", [n], a.clone())?;
        let bv: DevView<E, i32> = dev_from_vec(&space, "b", [n], b.clone())?;
        let xv: DevView<E, f64, 2> = dev_from_vec(&space, "x", [n, 6], x.clone())?;
        let oi: DevView<E, i32, 2> = dev(&space, "oi", [n, 4])?;
        let of: DevView<E, f64, 2> = dev(&space, "of", [n, 5])?;
        parallel_for(
            "multi",
            RangePolicy::new(&space, 0..n),
            multi(&av, &bv, &xv, &oi, &of),
        )?;
        let (mut wi, mut wf) = (Vec::new(), Vec::new());
        for i in 0..n {
            let (q, r) = divmod(a[i], b[i]);
            let xi = &x[6 * i..6 * i + 6];
            let [c0, c1, c2] = cross(xi[0], xi[1], xi[2], xi[3], xi[4], xi[5]);
            let (lo, hi) = order(xi[0], xi[1]);
            let [p, _] = divmod_plus(a[i] + 1, b[i]);
            let (_, s) = divmod(a[i], 7);
            wi.extend([q, r, p, s]);
            wf.extend([c0, c1, c2, lo, hi]);
        }
        prop_assert_eq!(to_host(&oi), wi);
        prop_assert_eq!(to_host(&of), wf);
        Ok(())
    });
}
per_backend!(multi_return_funcs);
