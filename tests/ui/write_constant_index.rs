use rokkos::prelude::*;

#[kernel]
fn total(i: usize, a: ViewMut<f64>, b: View<f64>) {
    a[0] += b[i];
}

fn main() {}
