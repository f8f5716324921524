//! A histogram with atomic increments: many work items add into few bins.

use super::{ensure, Outcome};
use rokkos::prelude::*;
use rokkos::random;

#[kernel]
fn histogram(i: usize, bins: ViewMut<u32>, weights: ViewMut<f64>, seed: u64) {
    let r = random::rand_u32(seed, i as u64, 0);
    let b = (r % bins.extent(0) as u32) as usize;
    bins.atomic_add(b, 1);
    weights.atomic_add(b, 0.5);
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let nb = 17;
    let bins = DeviceView::<u32>::new_on(dev, "bins", [nb])?;
    let weights = DeviceView::<f64>::new_on(dev, "weights", [nb])?;
    parallel_for(
        "histogram",
        RangePolicy::new(dev, 0..n),
        histogram(&bins, &weights, 11),
    )?;
    let mut expect = vec![0u32; nb];
    for i in 0..n {
        expect[(random::rand_u32(11, i as u64, 0) % nb as u32) as usize] += 1;
    }
    let got = create_mirror_view_and_copy(&bins)?.to_vec();
    let w = create_mirror_view_and_copy(&weights)?.to_vec();
    ensure(got == expect, || {
        format!("bins {got:?}, expected {expect:?}")
    })?;
    ensure(
        w.iter().zip(&expect).all(|(w, &c)| *w == 0.5 * c as f64),
        || "weights".into(),
    )?;
    Ok(format!("{n} samples into {nb} bins"))
}
