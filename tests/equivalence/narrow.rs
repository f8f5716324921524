//! Kernels whose `usize` values fit 32 bits and that use no 64-bit integer of their own: device
//! backends run them through the 32-bit index variant (`rokkos_device::emit::width`), also on a
//! device without SHADER_INT64 (the `wgpu_no_int64` instance), and every result, failure and
//! error report must be what the serial loop gives. One body (`escaping_usize`) computes a
//! `usize` the proof cannot bound: it runs the 64-bit variant, and is refused without int64.

use crate::{check, dev, dev_from_fn, floats_match, to_host, DevView, EDGE_SIZES};
use proptest::prelude::*;
use rokkos::prelude::*;
use rokkos::Error;

#[kernel]
fn triad32(i: usize, a: ViewMut<f32>, b: View<f32>, c: View<f32>, s: f32) {
    a[i] = b[i] + s * c[i];
}

#[kernel]
fn dot32(i: usize, acc: &mut f32, a: View<f32>, b: View<f32>) {
    *acc += a[i] * b[i];
}

/// Neighbour reads, small index arithmetic, a `usize` loop and a reversed index `n - 1 - i`.
#[kernel]
fn mixed32(i: usize, out: ViewMut<i32>, x: View<i32>, n: usize, m: usize) {
    let mut s = x[i + 1] - x[i];
    for k in 0..m {
        s += (i + k) as i32;
    }
    out[i] = s + (n - 1 - i) as i32;
}

#[kernel]
fn grid32((i, j): (usize, usize), out: ViewMut<f32, 2>, a: View<f32, 2>) {
    out[(i, j)] = a[(i, j)] * 2.0 + (i + j) as f32;
}

/// `c` grows in a `while` loop: the proof cannot bound it, so the 64-bit variant runs.
#[kernel]
fn count_up(i: usize, out: ViewMut<u32>) {
    let mut c = 0usize;
    while c < i {
        c += 1;
    }
    out[i] = (c * 3) as u32;
}

fn stream_f32<E: ExecutionSpace>(space: E) {
    for &n in EDGE_SIZES {
        let b: DevView<E, f32> = dev_from_fn(&space, "b", [n], |[i]| i as f32 * 0.5).unwrap();
        let c: DevView<E, f32> = dev_from_fn(&space, "c", [n], |[i]| (i % 7) as f32).unwrap();
        let a: DevView<E, f32> = dev(&space, "a", [n]).unwrap();
        parallel_for(
            "triad32",
            RangePolicy::new(&space, 0..n),
            triad32(&a, &b, &c, 0.25),
        )
        .unwrap();
        let (hb, hc) = (to_host(&b), to_host(&c));
        let want: Vec<f32> = (0..n).map(|i| hb[i] + 0.25 * hc[i]).collect();
        floats_match(&space, &to_host(&a), &want).unwrap();
        let got: f32 =
            parallel_reduce("dot32", RangePolicy::new(&space, 0..n), dot32(&b, &c), Sum).unwrap();
        // Small integers and halves: every partial sum is exact in f32.
        let want: f32 = (0..n).map(|i| hb[i] * hc[i]).sum();
        assert_eq!(got, want, "n {n}");
    }
}
per_backend!(stream_f32);

fn mixed_indices<E: ExecutionSpace>(space: E) {
    check(
        16,
        (0usize..300, 0usize..4, 0usize..3),
        |(len, m, short)| {
            let x: DevView<E, i32> =
                dev_from_fn(&space, "x", [len + 1 - short.min(len + 1)], |[i]| {
                    (i * i % 11) as i32
                })?;
            let out: DevView<E, i32> = dev(&space, "out", [len])?;
            let hx = to_host(&x);
            // `n` below `len` makes `n - 1 - i` underflow for the last items.
            for n in [len, len / 2] {
                let r = parallel_for(
                    "mixed32",
                    RangePolicy::new(&space, 0..len),
                    mixed32(&out, &x, n, m),
                )
                // A device reports a failure of its work items at the next synchronisation.
                .and_then(|()| space.fence());
                let reads_ok = hx.len() > len || len == 0;
                let subtracts_ok = n == len;
                match r {
                    Ok(()) => {
                        prop_assert!(reads_ok && subtracts_ok, "len {len} n {n}: ran");
                        let want: Vec<i32> = (0..len)
                            .map(|i| {
                                let s =
                                    hx[i + 1] - hx[i] + (0..m).map(|k| (i + k) as i32).sum::<i32>();
                                s + (n - 1 - i) as i32
                            })
                            .collect();
                        prop_assert_eq!(to_host(&out), want);
                    }
                    Err(Error::OutOfBounds { view, index, .. }) => {
                        // The items reading past `x` read at its extent or one beyond.
                        prop_assert!(!reads_ok, "len {len}: spurious out of bounds");
                        prop_assert_eq!(view, "x");
                        let (e0, e1) = (hx.len().to_string(), (hx.len() + 1).to_string());
                        prop_assert!(index.contains(&e0) || index.contains(&e1), "{}", index);
                    }
                    Err(e) => {
                        prop_assert!(
                            !subtracts_ok && e.to_string().contains("subtract with overflow"),
                            "len {len} n {n}: {e}"
                        );
                    }
                }
            }
            Ok(())
        },
    );
}
per_backend!(mixed_indices);

fn grid_f32<E: ExecutionSpace>(space: E) {
    for (r, c) in [(0, 3), (1, 1), (17, 5), (64, 33)] {
        let a: DevView<E, f32, 2> =
            dev_from_fn(&space, "a", [r, c], |[i, j]| (i + 2 * j) as f32).unwrap();
        let out: DevView<E, f32, 2> = dev(&space, "out", [r, c]).unwrap();
        parallel_for(
            "grid32",
            MDRangePolicy::new(&space, [0, 0], [r, c]),
            grid32(&out, &a),
        )
        .unwrap();
        let want: Vec<f32> = (0..r * c)
            .map(|k| {
                let (i, j) = (k / c, k % c);
                (i + 2 * j) as f32 * 2.0 + (i + j) as f32
            })
            .collect();
        assert_eq!(to_host(&out), want, "{r} x {c}");
    }
}
per_backend!(grid_f32);

fn escaping_usize<E: ExecutionSpace>(space: E) {
    let n = 300;
    let out: DevView<E, u32> = dev(&space, "out", [n]).unwrap();
    parallel_for("count_up", RangePolicy::new(&space, 0..n), count_up(&out)).unwrap();
    assert_eq!(
        to_host(&out),
        (0..n).map(|i| (i * 3) as u32).collect::<Vec<_>>()
    );
}
per_backend!(escaping_usize);
