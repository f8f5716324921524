// Two parameters of one spelling are refused (the body's checks would see one name).
use rokkos::prelude::*;

#[kernel]
fn twice(i: usize, a: ViewMut<f64>, a: View<f64>) {
    a[i] = 1.0;
}

#[kernel(scan)]
fn flag_twice(i: usize, p: &mut u64, f: bool, out: ViewMut<u64>, f: bool) {
    *p += 1;
    if f {
        out[i] = *p;
    }
}

fn main() {}
