use rokkos::prelude::*;

#[kernel]
fn zero(i: usize, a: ViewMut<i32>) {
    a[i] = 0;
}

fn main() {
    let idx = InjectiveView::new("idx", &[2i32, 0, 1]).unwrap();
    // An InjectiveView is not a View: no kernel can take it as a ViewMut and write it.
    let _ = parallel_for("zero", RangePolicy::new(&Serial, 0..3), zero(&idx));
    // Only 32-bit integer entries (an i64 could be truncated to collide on a 32-bit device index).
    let _ = InjectiveView::new("wide", &[0i64, 1]);
}
