// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// The `InjectiveView` proof: the caller's `r` holds the lookup `idx[i]`, the macro's `r` is a
// scalar, and `a[r]` writes at the scalar from every work item.
macro_rules! injective {
    ($r:ident) => {
        #[kernel]
        fn scatter(i: usize, a: ViewMut<f64>, idx: InjectiveView<u32>, r: usize) {
            let $r = idx[i] as usize;
            a[r] = 1.0;
        }
    };
}
injective!(r);

fn main() {}
