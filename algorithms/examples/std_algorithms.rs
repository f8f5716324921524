//! The parallel algorithms on the default backend (`rokkos::Device`: `ROKKOS_BACKEND`, or the
//! best one compiled in): a summary of dice rolls (sum, extrema, counts, a user predicate), their
//! prefix sums and their runs.
//!
//! ```sh
//! cargo run -p rokkos-algorithms --example std_algorithms
//! ```

use rokkos::prelude::*;
use rokkos_algorithms::*;

/// A user operation for the algorithms that take one: a `#[func]`, so that it runs on every
/// backend (passed as `is_high {}`).
#[rokkos::func]
fn is_high(x: i64) -> bool {
    x >= 5
}

fn main() -> rokkos::Result<()> {
    let dev = Device::new()?;
    let n = 10_000;
    // Dice rolls from a fixed linear congruential sequence: runs of equal rolls are common.
    let mut s = 12345u64;
    let host = View::<i64>::from_fn("rolls", [n], |_| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) % 6 + 1) as i64
    })?;
    let rolls = create_mirror_view_and_copy_in(&dev, &host)?;
    let expect: Vec<i64> = host.to_vec();

    let total = reduce(&dev, &rolls)?;
    let (lo, hi) = minmax_element(&dev, &rolls)?;
    let sixes = count(&dev, &rolls, 6)?;
    let first_six = find(&dev, &rolls, 6)?;
    assert_eq!(total, expect.iter().sum::<i64>());
    assert_eq!(sixes, expect.iter().filter(|&&x| x == 6).count());
    assert_eq!(Some(first_six), expect.iter().position(|&x| x == 6));

    let high = count_if(&dev, &rolls, is_high {})?;
    assert_eq!(high, expect.iter().filter(|&&x| x >= 5).count());

    let prefix = DeviceView::<i64>::new_on(&dev, "prefix", [n])?;
    let sum = inclusive_scan(&dev, &rolls, &prefix)?;
    assert_eq!(sum, total);

    let runs = DeviceView::<i64>::new_on(&dev, "runs", [n])?;
    let distinct_runs = unique_copy(&dev, &rolls, &runs)?;
    let mut dedup = expect.clone();
    dedup.dedup();
    assert_eq!(distinct_runs, dedup.len());

    println!(
        "std_algorithms on {}: {n} rolls, sum {total} (mean {:.3}), first minimum at {lo}, last maximum at {hi}, \
         {sixes} sixes (first at {first_six}), {high} rolls of 5 or 6, {distinct_runs} runs of equal rolls",
        dev.name(),
        total as f64 / n as f64
    );
    Ok(())
}
