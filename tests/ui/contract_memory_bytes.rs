// A memory space's byte copies write memory that a host guard may have lent out as `&T`: they are
// `unsafe`, and callers hold the allocation (as deep_copy, fill and launches do).
use rokkos::prelude::*;
use rokkos::MemorySpace;

fn main() {
    let v = View::<f64>::new("v", [4]).unwrap();
    let guard = v.host();
    let first: &f64 = &guard[0];
    let b = v.__binding("v", false);
    let _ = HostSpace.write_bytes(b.buffer, 0, &[0xff; 8]);
    let mut out = [0u8; 8];
    let _ = HostSpace.read_bytes(b.buffer, 0, &mut out);
    println!("{first}");
}
