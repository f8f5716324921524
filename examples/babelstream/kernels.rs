//! BabelStream kernels, written once for every backend and both precisions.

use rokkos::prelude::*;

/// BabelStream start values and scalar.
pub const START_A: f64 = 0.1;
/// BabelStream start value of `b`.
pub const START_B: f64 = 0.2;
/// BabelStream start value of `c`.
pub const START_C: f64 = 0.0;
/// BabelStream scalar.
pub const SCALAR: f64 = 0.4;

#[kernel]
pub fn init<T: Float>(i: usize, a: ViewMut<T>, b: ViewMut<T>, c: ViewMut<T>, va: T, vb: T, vc: T) {
    a[i] = va;
    b[i] = vb;
    c[i] = vc;
}

#[kernel]
pub fn copy<T: Float>(i: usize, c: ViewMut<T>, a: View<T>) {
    c[i] = a[i];
}

#[kernel]
pub fn mul<T: Float>(i: usize, b: ViewMut<T>, c: View<T>, scalar: T) {
    b[i] = scalar * c[i];
}

#[kernel]
pub fn add<T: Float>(i: usize, c: ViewMut<T>, a: View<T>, b: View<T>) {
    c[i] = a[i] + b[i];
}

#[kernel]
pub fn triad<T: Float>(i: usize, a: ViewMut<T>, b: View<T>, c: View<T>, scalar: T) {
    a[i] = b[i] + scalar * c[i];
}

#[kernel]
pub fn nstream<T: Float>(i: usize, a: ViewMut<T>, b: View<T>, c: View<T>, scalar: T) {
    a[i] += b[i] + scalar * c[i];
}

#[kernel]
pub fn dot<T: Float>(i: usize, acc: &mut T, a: View<T>, b: View<T>) {
    *acc += a[i] * b[i];
}

/// An empty kernel, for launch overhead (in the run's precision, so that an f32 run needs no
/// SHADER_F64).
#[kernel]
pub fn empty<T: Float>(i: usize, a: View<T>) {
    let _x = a.extent(0) + i;
}
