// Views are neither `Send` nor `Sync`: no other thread can take a guard on, copy into or fill a
// View while the launching thread runs a kernel over it.
use rokkos::prelude::*;

fn main() {
    let v = View::<f64>::new("v", [4]).unwrap();
    let w = v.clone();
    let t = std::thread::spawn(move || w.fill(1.0));
    std::thread::scope(|s| {
        s.spawn(|| v.host_mut()[0] = 2.0);
    });
    let _ = t.join();
}
