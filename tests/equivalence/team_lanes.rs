//! The launch's accumulator in team kernels with vector lanes: code outside vector-level ranges
//! and `single`s runs once per thread on the host backends, so a contribution made there counts
//! once per thread, whatever the vector length; a device that runs a thread's lanes as parallel
//! invocations (each folding its own copy of the accumulator) must not count it once per lane.
//! A contribution inside a `vector_range` runs on one lane per index and counts once either way.

use crate::{check, dev_from_fn, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// Every element of row `l`, added to the accumulator from a `thread_range`.
#[kernel]
fn rows_into_acc(team: &TeamMember, acc: &mut i32, a: View<i32, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        *acc += a[(l, j)];
    }
}

/// Every element of block `l`, added to the accumulator from a `vector_range` in a
/// `thread_range`.
#[kernel]
fn lanes_into_acc(team: &TeamMember, acc: &mut i32, a: View<i32, 3>) {
    let l = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        for k in team.vector_range(a.extent(2)) {
            *acc += a[(l, j, k)];
        }
    }
}

fn value(i: usize) -> i32 {
    (i as i32 * 37) % 101 - 50
}

/// Both kernels give the sum of their View's elements for every team size and vector length.
fn accumulator_counts_once_per_thread<E: ExecutionSpace>(space: E) {
    check(
        10,
        (0usize..9, 1usize..12, 1usize..7, 0usize..5, 1usize..5),
        |(league, rows, cols, vl_log, ts)| {
            let limits = space.team_limits();
            let vl = (1usize << vl_log).min(limits.vector_length_max);
            let ts = TeamSize::Exactly(ts.min(limits.team_size_max));
            let policy = TeamPolicy::new(&space, league, ts).vector_length(vl);

            let a2: DevView<E, i32, 2> =
                dev_from_fn(&space, "a2", [league, rows], |[l, j]| value(l * rows + j))?;
            let want: i32 = (0..league * rows).map(value).sum();
            let got = parallel_reduce("rows_into_acc", policy.clone(), rows_into_acc(&a2), Sum)?;
            prop_assert_eq!(got, want, "thread_range, team {:?}, vector {}", ts, vl);

            let a3: DevView<E, i32, 3> =
                dev_from_fn(&space, "a3", [league, rows, cols], |[l, j, k]| {
                    value((l * rows + j) * cols + k)
                })?;
            let want: i32 = (0..league * rows * cols).map(value).sum();
            let got = parallel_reduce("lanes_into_acc", policy, lanes_into_acc(&a3), Sum)?;
            prop_assert_eq!(got, want, "vector_range, team {:?}, vector {}", ts, vl);
            Ok(())
        },
    );
}
per_backend!(accumulator_counts_once_per_thread);
