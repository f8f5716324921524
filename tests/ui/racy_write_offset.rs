use rokkos::prelude::*;

// `a[i + 1]` alone is the work item's (an affine map of `i`), but with `a[i]` in the same
// kernel work item `i` reads the element work item `i - 1` writes.
#[kernel]
fn shift(i: usize, a: ViewMut<f64>, b: View<f64>) {
    a[i + 1] = a[i] + b[i];
}

fn main() {}
