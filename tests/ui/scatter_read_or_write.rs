use rokkos::prelude::*;

// A scatter accessor takes contributions only: reading it (a partial value of one copy),
// writing it plainly (also inside `unsafe`), or any other method is refused.
#[kernel]
fn reads(i: usize, h: ScatterSum<f64>, out: ViewMut<f64>) {
    out[i] = h[i];
}

#[kernel]
fn writes(i: usize, h: ScatterSum<f64>) {
    h[i] = 1.0;
}

#[kernel]
fn writes_unsafe(i: usize, h: ScatterSum<u32>) {
    unsafe {
        h[i] += 1;
    }
}

#[kernel]
fn other_op(i: usize, h: ScatterMax<i32>) {
    h.atomic_add(i, 1);
    let _old = h.atomic_fetch_max(i, 2);
}

fn main() {}
