// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// Bounds hoisting: `x[i]` was taken for an access at the work index, checked once per chunk,
// and read unchecked at the scalar `i`.
macro_rules! hoisting {
    ($w:ident) => {
        #[kernel]
        fn gather($w: usize, y: ViewMut<f64>, x: View<f64>, i: usize) {
            y[$w] = x[i];
        }
    };
}
hoisting!(i);

fn main() {}
