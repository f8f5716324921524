use rokkos::prelude::*;

#[kernel]
fn with_match(i: usize, a: ViewMut<i32>) {
    match i {
        0 => a[i] = 1,
        _ => a[i] = 2,
    }
}

#[kernel]
fn with_print(i: usize, a: View<f64>) {
    println!("{}", a[i]);
}

#[kernel]
fn with_closure(i: usize, a: ViewMut<f64>) {
    let f = |x: f64| x * 2.0;
    a[i] = f(1.0);
}

#[kernel]
fn with_method(i: usize, a: ViewMut<f64>, b: View<f64>) {
    a[i] = b[i].to_string().len() as f64;
}

#[kernel]
fn with_reference(i: usize, a: ViewMut<f64>, b: View<f64>) {
    let r = &b[i];
    a[i] = 0.0;
}

#[kernel]
fn with_string(i: usize, a: ViewMut<f64>) {
    let name = "a";
    a[i] = 0.0;
}

fn main() {}
