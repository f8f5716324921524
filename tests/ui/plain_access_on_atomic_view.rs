use rokkos::prelude::*;

#[kernel]
fn histogram(i: usize, bins: ViewMut<u32>, x: View<u32>) {
    bins.atomic_add(x[i] as usize, 1);
    bins[i] = 0;
}

fn main() {}
