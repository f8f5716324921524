//! Stream compaction: an exclusive scan gives each kept element its place in the output.

use super::{ensure, Outcome};
use rokkos::prelude::*;

#[kernel(scan)]
fn compact(i: usize, partial: &mut u64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if x[i] % 3 == 0 {
        if is_final {
            // SAFETY (the kernel author's): the scan gives every kept element its own place.
            unsafe {
                out[*partial as usize] = x[i];
            }
        }
        *partial += 1;
    }
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let hx = View::<i64>::from_fn("x", [n], |[i]| (i as i64 * 7919) % 1000 - 500)?;
    let x = create_mirror_view_and_copy_in(dev, &hx)?;
    let out = DeviceView::<i64>::new_on(dev, "kept", [n])?;
    let kept = parallel_scan("compact", RangePolicy::new(dev, 0..n), compact(&x, &out))?;
    let expect: Vec<i64> = hx.to_vec().into_iter().filter(|v| v % 3 == 0).collect();
    ensure(kept as usize == expect.len(), || {
        format!("kept {kept}, expected {}", expect.len())
    })?;
    let got = create_mirror_view_and_copy(&out.subview::<1>((0..expect.len(),))?)?.to_vec();
    ensure(got == expect, || "compacted values differ".into())?;
    Ok(format!("kept {kept} of {n}"))
}
