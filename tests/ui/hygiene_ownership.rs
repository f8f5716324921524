// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// Owner computes: the caller's `i` is the work index, the macro's `i` a scalar; `a[i]` indexes by
// the scalar, so every work item wrote one element (lost updates on rayon and wgpu).
macro_rules! ownership {
    ($w:ident) => {
        #[kernel]
        fn racy($w: usize, a: ViewMut<u64>, i: usize) {
            a[i] += 1;
        }
    };
}
ownership!(i);

fn main() {}
