// The accessors' unchecked and plain (non-atomic) loads and stores are `unsafe`: only the
// kernel macro, which proves the index is owned by the work item, calls them without an `unsafe`
// block of the author's.
use rokkos::prelude::*;

fn main() {
    let v = View::<f64>::new("v", [4]).unwrap();
    // SAFETY: nothing else uses `v` while the accessors live.
    let (w, r) = unsafe { (v.__write_access("k"), v.__read_access("k")) };
    w.__store(0, 1.0);
    let _ = w.__load(0);
    w.__store_unchecked(1, 2.0);
    let _ = w.__load_unchecked(1);
    let _ = r.__get_unchecked(1);
}
