use rokkos::prelude::*;

// mod, nand and the shifts are integer-only, inc_mod / dec_mod unsigned-only: rejected when the
// kernel is compiled, not when it runs.
#[kernel]
fn float_mod(i: usize, c: ViewMut<f32>, x: View<f32>) {
    c.atomic_mod(0, x[i]);
}

#[kernel]
fn float_shift(i: usize, c: ViewMut<f64>, x: View<f64>) {
    let _old = c.atomic_fetch_lshift(0, x[i]);
}

#[kernel]
fn float_nand(i: usize, c: ViewMut<f32>, x: View<f32>) {
    let _new = c.atomic_nand_fetch(0, x[i]);
}

#[kernel]
fn signed_inc_mod(_i: usize, c: ViewMut<i32>) {
    c.atomic_inc_mod(0, 5);
}

fn main() {}
