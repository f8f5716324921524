// `parallel_reduce_into`'s result slot is made by rokkos only (for a launch that holds the result
// View); a user cannot aim one at an arbitrary buffer and offset.
use rokkos::prelude::*;
use rokkos::ResultSlot;

fn main() {
    let v = View::<f64>::new("v", [4]).unwrap();
    let b = v.__binding("v", true);
    let slot = ResultSlot::<HostSpace> { buffer: b.buffer, byte_offset: 8 };
    let _ = slot.write(1.0f64);
}
