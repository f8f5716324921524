use rokkos::prelude::*;

// Work item 1 writes m[(1, 2)] through the second store, work item 2 through the first.
#[kernel]
fn symmetrize(i: usize, m: ViewMut<f64, 2>) {
    for k in 0..m.extent(1) {
        m[(i, k)] = 1.0;
        m[(k, i)] = 1.0;
    }
}

fn main() {}
