// Only rokkos makes launch tokens: no public constructor, private fields.
use rokkos::prelude::*;
use rokkos::Launch;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>) {
    y[i] += x[i];
}

fn main() {
    let x = View::<f64>::new("x", [4]).unwrap();
    let y = View::<f64>::new("y", [4]).unwrap();
    let k = axpy(&y, &x);
    let policy = RangePolicy::new(&Serial, 0..4);
    let forged = Launch { label: "axpy", policy: &policy, kernel: &k };
    let made = Launch::new("axpy", &policy, &k);
    let _ = Serial.for_range(forged);
    let _ = made;
}
