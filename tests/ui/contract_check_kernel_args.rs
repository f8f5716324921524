// The audit's path: take the argument-check token, then a host guard on an argument, then launch.
// Neither the check nor its token is reachable from outside rokkos any more.
use rokkos::prelude::*;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>) {
    y[i] += x[i];
}

fn main() {
    let x = View::<f64>::new("x", [4]).unwrap();
    let y = View::<f64>::new("y", [4]).unwrap();
    let k = axpy(&y, &x);
    let checked: rokkos::Checked<'_, _> = rokkos::check_kernel_args(&k).unwrap();
    let _guard = y.host_mut();
    let _ = checked;
}
