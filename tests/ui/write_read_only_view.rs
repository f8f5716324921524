use rokkos::prelude::*;

#[kernel]
fn scale(i: usize, a: View<f64>, s: f64) {
    a[i] = s * a[i];
}

fn main() {}
