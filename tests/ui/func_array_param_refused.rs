use rokkos::prelude::*;

// An array parameter has a scalar element type and a literal length from 1 to 16.
#[func]
fn too_long(a: [f64; 17]) -> f64 {
    a[0]
}

#[func]
fn by_const<const N: usize>(a: [f64; N]) -> f64 {
    a[0]
}

#[func]
fn nested(a: [[f64; 2]; 2]) -> f64 {
    a[0][0]
}

#[func]
fn by_reference(a: &[f64; 3]) -> f64 {
    a[0]
}

#[func]
fn sum3(a: [f64; 3]) -> f64 {
    a[0] + a[1] + a[2]
}

// A repeated argument has a literal length.
const THREE: usize = 3;

#[kernel]
fn repeat_by_const(i: usize, x: View<f64>, y: ViewMut<f64>) {
    y[i] = sum3([x[i]; THREE]);
}

fn main() {}
