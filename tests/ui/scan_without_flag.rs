use rokkos::prelude::*;

#[kernel(scan)]
fn prefix(i: usize, partial: &mut i64, x: View<i64>, out: ViewMut<i64>) {
    out[i] = *partial;
    *partial += x[i];
}

fn main() {}
