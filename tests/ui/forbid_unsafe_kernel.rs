//! A crate that forbids unsafe code cannot hide an `unsafe` block in a kernel: the lint sees the
//! block where the user wrote it.
#![forbid(unsafe_code)]
use rokkos::prelude::*;

/// Every work item bumps element 0: a race the `unsafe` block asserts away. (The access at the
/// work index makes the macro emit the body twice, checked and chunk-checked: still one error.)
#[kernel]
fn bump_first(i: usize, a: ViewMut<i64>) {
    a[i] += 1;
    unsafe {
        a[0] += 1;
    }
}

fn main() -> rokkos::Result<()> {
    let a = View::<i64>::new("a", [1])?;
    parallel_for("bump", RangePolicy::new(&Serial, 0..4), bump_first(&a))
}
