use rokkos::prelude::*;

fn helper(x: f64) -> f64 {
    x * 2.0
}

#[kernel]
fn uses_helper(i: usize, a: ViewMut<f64>) {
    a[i] = helper(a[i]);
}

fn main() {}
