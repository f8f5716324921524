//! The smallest and the largest element with their indices (`MinLoc`, `MaxLoc`), in one launch
//! each, and both at once through a tuple of reducers.

use super::{ensure, Outcome};
use rokkos::prelude::*;

#[kernel]
fn min_loc(i: usize, acc: &mut ValLoc<f64>, x: View<f64>) {
    if x[i] < acc.val {
        acc.val = x[i];
        acc.loc = i;
    }
}

#[kernel]
fn both(i: usize, lo: &mut ValLoc<f64>, hi: &mut ValLoc<f64>, x: View<f64>) {
    if x[i] < lo.val {
        lo.val = x[i];
        lo.loc = i;
    }
    if x[i] > hi.val {
        hi.val = x[i];
        hi.loc = i;
    }
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let f = |i: usize| ((i as f64) * 0.37).sin() * (1.0 + i as f64 / n as f64);
    let x = create_mirror_view_and_copy_in(dev, &View::<f64>::from_fn("x", [n], |[i]| f(i))?)?;
    let lo = parallel_reduce("min_loc", RangePolicy::new(dev, 0..n), min_loc(&x), MinLoc)?;
    let (lo2, hi) = parallel_reduce(
        "both",
        RangePolicy::new(dev, 0..n),
        both(&x),
        (MinLoc, MaxLoc),
    )?;
    let mut elo = (f64::INFINITY, usize::MAX);
    let mut ehi = (f64::NEG_INFINITY, usize::MAX);
    for i in 0..n {
        if f(i) < elo.0 {
            elo = (f(i), i);
        }
        if f(i) > ehi.0 {
            ehi = (f(i), i);
        }
    }
    ensure((lo.val, lo.loc) == elo && (lo2.val, lo2.loc) == elo, || {
        format!("min {lo:?}, expected {elo:?}")
    })?;
    ensure((hi.val, hi.loc) == ehi, || {
        format!("max {hi:?}, expected {ehi:?}")
    })?;
    Ok(format!(
        "min {:.4} at {}, max {:.4} at {}",
        lo.val, lo.loc, hi.val, hi.loc
    ))
}
