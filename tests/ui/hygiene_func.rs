// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// A `#[func]`: the IR translation bound `x` by spelling, rustc by hygiene.
macro_rules! func {
    ($x:ident) => {
        #[func]
        fn second($x: f64, x: f64) -> f64 {
            x
        }
    };
}
func!(x);

fn main() {}
