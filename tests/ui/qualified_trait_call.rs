//! A kernel body calls associated functions through the type (`f64::max`, `T::from_f64`), not
//! through a trait (`<f64 as Mine>::max`): the host would run the trait's function, while the IR
//! records the built-in `max` for the devices.

use rokkos::prelude::*;

pub trait Mine {
    fn max(a: Self, b: Self) -> Self;
}
impl Mine for f64 {
    fn max(a: f64, b: f64) -> f64 {
        a + b
    }
}

#[kernel]
fn qualified_k(i: usize, a: ViewMut<f64>) {
    a[i] = <f64 as Mine>::max(a[i], a[i]);
}

/// The same through a kernel's type parameter.
#[kernel]
fn qualified_generic_k<T: rokkos::Float + Mine>(i: usize, a: ViewMut<T>) {
    a[i] = <T as Mine>::max(a[i], a[i]);
}

/// Without a trait, `<T>::f` is `T::f` and stays accepted.
#[kernel]
fn plain_qself_k<T: rokkos::Float>(i: usize, a: ViewMut<T>) {
    a[i] = <T>::from_f64(1.0);
}

fn main() {}
