use rokkos::prelude::*;

#[kernel]
fn shift(i: usize, a: ViewMut<f64>, b: View<f64>) {
    a[i + 1] = b[i];
}

fn main() {}
