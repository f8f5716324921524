// The allocation's borrow flag is not reachable: resetting it would let two `host_mut()` guards
// alias (the kernel-argument description used to expose it as a public `Cell`).
use rokkos::prelude::*;

fn main() {
    let v = View::<f64>::new("v", [4]).unwrap();
    let mut g1 = v.host_mut();
    v.__kernel_arg("v", true).borrow.set(0);
    let mut g2 = v.host_mut();
    g1[0] = 1.0;
    g2[0] = 2.0;
}
