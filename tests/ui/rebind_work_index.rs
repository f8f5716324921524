use rokkos::prelude::*;

#[kernel]
fn shifted(i: usize, a: ViewMut<f64>) {
    let i = i + 1;
    a[i] = 0.0;
}

#[kernel]
fn mutable(mut i: usize, a: ViewMut<f64>) {
    a[i] = 0.0;
}

fn main() {}
