//! `#[func]`s taking arrays `[T; N]` (lowered to `N` scalar parameters of the IR function): an
//! array literal, a repeat literal and a local array as arguments, an array in and an array out,
//! a callee writing to its own copy (Rust passes arrays by value), one calling another with its
//! array parameter, and a local array copied at its place in the argument list when a later
//! argument writes to it. The expectations are closed forms on the host (integer-valued data:
//! every result is exact, whatever a GPU compiler fuses).

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// `a·b` for 3-vectors.
#[func]
fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `Σ (w[j] + k)·(j + 1)`, adding `k` to its own copy of `w` first.
#[func]
fn shifted_sum(mut w: [i32; 4], k: i32) -> i32 {
    let (mut s, mut j) = (0, 0);
    while j < 4 {
        w[j] += k;
        s += w[j] * (j as i32 + 1);
        j += 1;
    }
    s
}

/// The components rotated by one.
#[func]
fn rotate(v: [f32; 3]) -> [f32; 3] {
    [v[1], v[2], v[0]]
}

/// `|v|²` through `dot3`, passing its own array parameter on.
#[func]
fn norm2(v: [f32; 3]) -> f32 {
    dot3(v, v)
}

#[kernel]
fn array_args(i: usize, a: View<i32>, x: View<f32, 2>, oi: ViewMut<i32, 2>, of: ViewMut<f32, 2>) {
    let u = [x[(i, 0)], x[(i, 1)], x[(i, 2)]];
    let d = dot3(u, [x[(i, 3)], x[(i, 4)], x[(i, 5)]]);
    let mut w = [a[i]; 4];
    w[1] = a[i] * 2;
    let s = shifted_sum(w, 3);
    let [r0, r1, r2] = rotate(u);
    let t = dot3([1.0; 3], u);
    // `w` goes in as it is before the second argument writes to it.
    let late = shifted_sum(w, {
        w[0] = 100;
        1
    });
    oi[(i, 0)] = s;
    oi[(i, 1)] = w[1];
    oi[(i, 2)] = w[0];
    oi[(i, 3)] = late;
    of[(i, 0)] = d;
    of[(i, 1)] = r0;
    of[(i, 2)] = r1;
    of[(i, 3)] = r2;
    of[(i, 4)] = t;
    of[(i, 5)] = norm2(u);
}

pub fn func_array_params<E: ExecutionSpace>(space: E) {
    let sizes = prop_oneof![Just(0usize), Just(1usize), 2usize..90];
    check(8, (sizes, any::<u64>()), |(n, seed)| {
        let a: Vec<i32> = crate::ints(seed, n, -500, 500)
            .into_iter()
            .map(|v| v as i32)
            .collect();
        let x: Vec<f32> = crate::ints(seed ^ 2, 6 * n, -40, 40)
            .into_iter()
            .map(|v| v as f32)
            .collect();
        let av: DevView<E, i32> = dev_from_vec(&space, "a", [n], a.clone())?;
        let xv: DevView<E, f32, 2> = dev_from_vec(&space, "x", [n, 6], x.clone())?;
        let oi: DevView<E, i32, 2> = dev(&space, "oi", [n, 4])?;
        let of: DevView<E, f32, 2> = dev(&space, "of", [n, 6])?;
        parallel_for(
            "array_args",
            RangePolicy::new(&space, 0..n),
            array_args(&av, &xv, &oi, &of),
        )?;
        let (mut wi, mut wf) = (Vec::new(), Vec::new());
        for i in 0..n {
            let ai = a[i];
            let u = &x[6 * i..6 * i + 3];
            let v = &x[6 * i + 3..6 * i + 6];
            let w = [ai, 2 * ai, ai, ai];
            let sum =
                |w: [i32; 4], k: i32| -> i32 { (0..4).map(|j| (w[j] + k) * (j as i32 + 1)).sum() };
            wi.extend([sum(w, 3), 2 * ai, 100, sum(w, 1)]);
            wf.extend([
                u[0] * v[0] + u[1] * v[1] + u[2] * v[2],
                u[1],
                u[2],
                u[0],
                u[0] + u[1] + u[2],
                u[0] * u[0] + u[1] * u[1] + u[2] * u[2],
            ]);
        }
        prop_assert_eq!(to_host(&oi), wi);
        prop_assert_eq!(to_host(&of), wf);
        Ok(())
    });
}
per_backend!(func_array_params);
