use rokkos::prelude::*;

#[kernel]
fn rows((i, j): (usize, usize), m: ViewMut<f64, 2>, row: ViewMut<f64>) {
    m[(i, 0)] = j as f64;
    row[i] = 1.0;
}

fn main() {}
