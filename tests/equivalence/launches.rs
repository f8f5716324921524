//! Many launches between two fences, with repeated and with distinct arguments (Kokkos launches are
//! asynchronous; a device backend batches them and keeps their parameters on the device): every
//! launch must see its own arguments, in launch order, whatever the backend reuses.

use crate::{check, dev, dev_from_fn, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn add_scaled(i: usize, y: ViewMut<i64>, x: View<i64>, s: i64) {
    y[i] += s * x[i];
}

#[kernel]
fn count_up(i: usize, acc: &mut i64, y: View<i64>, s: i64) {
    *acc += y[i] + s;
}

/// `rounds` passes over `distinct` scalar values (more values than a device keeps resident when
/// `distinct` is large), each launch adding `s * x` into `y`, with one reduction into a device View
/// per pass; the results are read only at the end.
fn repeated_and_distinct_arguments<E: ExecutionSpace>(space: E) {
    check(
        4,
        (
            1usize..200,
            prop_oneof![1usize..50, 700usize..1500],
            1usize..3,
        ),
        |(n, distinct, rounds)| {
            let x: DevView<E, i64> = dev_from_fn(&space, "x", [n], |[i]| i as i64 - 7)?;
            let y: DevView<E, i64> = dev(&space, "y", [n])?;
            let sums: DevView<E, i64> = dev(&space, "sums", [rounds])?;
            let policy = || RangePolicy::new(&space, 0..n);
            for r in 0..rounds {
                for s in 0..distinct as i64 {
                    parallel_for("add", policy(), add_scaled(&y, &x, s - 3))?;
                }
                let slot = sums.subview::<0>([r])?;
                parallel_reduce_into("count", policy(), count_up(&y, 1), Sum, &slot)?;
            }
            let per_round: i64 = (0..distinct as i64).map(|s| s - 3).sum();
            let hy = to_host(&y);
            for (i, &v) in hy.iter().enumerate() {
                prop_assert_eq!(v, rounds as i64 * per_round * (i as i64 - 7), "y[{}]", i);
            }
            let hs = to_host(&sums);
            for (r, &v) in hs.iter().enumerate() {
                let ysum: i64 = (0..n as i64)
                    .map(|i| (r as i64 + 1) * per_round * (i - 7))
                    .sum();
                prop_assert_eq!(v, ysum + n as i64, "sums[{}]", r);
            }
            Ok(())
        },
    );
}
per_backend!(repeated_and_distinct_arguments);
