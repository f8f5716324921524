use rokkos::prelude::*;

fn helper(x: f64) -> f64 {
    x * 2.0
}

#[kernel]
fn uses_helper(i: usize, a: ViewMut<f64>) {
    a[i] = helper(a[i]);
}


/// A `#[func]` with a result is translated into the IR like a kernel: one error.
#[rokkos::func]
fn twice_helper(x: f64) -> f64 {
    helper(x) + helper(x)
}

/// One without a result is not: its callees are checked through their marker types.
#[rokkos::func]
fn discard(x: f64) {
    helper(x);
}

fn main() {}
