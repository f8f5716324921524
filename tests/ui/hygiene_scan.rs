// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// The scan rule: `if is_final` tested the macro's scalar `is_final`, not the flag, so the write
// ran in every pass (1 on serial, 2 on rayon, 3 on the device backends).
macro_rules! scan {
    ($f:ident) => {
        #[kernel(scan)]
        fn count(i: usize, p: &mut u64, $f: bool, out: ViewMut<u64>, is_final: bool) {
            *p += 1;
            if is_final {
                out[i] += 1;
            }
        }
    };
}
scan!(is_final);

fn main() {}
