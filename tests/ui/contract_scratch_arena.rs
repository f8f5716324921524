// A scratch arena hands out disjoint regions; resetting it while accessors live would alias them.
// Only `TeamMember::new` (an `unsafe fn` with that contract) resets one.
use rokkos::ScratchArena;

fn main() {
    let arena = ScratchArena::new("k", 64).unwrap();
    arena.reset();
}
