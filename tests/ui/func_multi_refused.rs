use rokkos::prelude::*;

// A result of several values is a tuple of scalars or an array of at most 16 scalars.
#[func]
fn too_long(x: f64) -> [f64; 17] {
    [x; 17]
}

#[func]
fn nested(x: f64) -> ((f64, f64), f64) {
    ((x, x), x)
}

// The values are returned as a literal, in every branch.
#[func]
fn not_literal(x: f64) -> (f64, f64) {
    let y = x + 1.0;
    if x > 0.0 {
        (x, y)
    } else {
        (y, x)
    }
}

#[func]
fn pair(x: f64) -> (f64, f64) {
    (x, -x)
}

// Several values are bound to names, not kept as one value.
#[kernel]
fn as_one(i: usize, x: View<f64>, y: ViewMut<f64>) {
    let p = pair(x[i]);
    y[i] = x[i];
}

fn main() {}
