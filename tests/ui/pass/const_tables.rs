use rokkos::prelude::*;

// Constant tables in kernels and in `#[func]`s: any constant expression of the element type,
// read before their declaration in the block (items are in scope in their whole block), in
// nested blocks, and with one name in two bodies meaning two tables; scalar constants.

#[func]
fn weight(k: usize) -> f64 {
    const W: [f64; 3] = [1.0 / 3.0, core::f64::consts::PI, -0.0];
    W[k % 3]
}

#[func]
fn other_weight(k: usize) -> f64 {
    const W: [f64; 2] = [2.0, 4.0];
    W[k % 2]
}

#[kernel]
fn uses_tables(i: usize, y: ViewMut<f64>, z: ViewMut<u64>) {
    const SHIFT: u32 = 1;
    z[i] = (BITS[i % 2] as u64) << SHIFT;
    const BITS: [u8; 2] = [1 << 7, u8::MAX];
    if i > 3 {
        const NEAR: [usize; 2] = [10, 20];
        y[i] = weight(i) + other_weight(NEAR[i % 2]);
    } else {
        y[i] = weight(i);
    }
}

fn main() {}
