// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// Labels have hygiene too: the macro's `break 'row` leaves its own (outer) loop to rustc, and
// the inner loop, labelled by the caller, to a translation that knows labels by spelling.
macro_rules! labels {
    ($l:tt) => {
        #[kernel]
        fn rows(i: usize, a: ViewMut<f64>, n: usize) {
            'row: for k in 0..n {
                $l: for m in 0..n {
                    if m > k {
                        break 'row;
                    }
                    a[i] += 1.0;
                }
            }
        }
    };
}
labels!('row);

fn main() {}
