//! Math calls that a user trait could answer: a kernel's `x.wrapping_add(y)` on `f64` (which has
//! no such inherent method), `T::max` on a type parameter bounded by a user trait with a `max`,
//! and `i32::from_f64` from a user trait. The IR gives each name its `std` meaning; the native
//! path once let rustc resolve the name to the user's trait, so the host ran the user's function
//! while the devices ran `std`'s. Every backend now computes `std`'s.

use crate::{dev_from_vec, to_host};
use rokkos::prelude::*;

/// Answers the math names with other arithmetic, so that reaching it shows in the results.
/// Never called: what the test checks (rustc sees that too).
#[allow(dead_code)]
pub trait Impostor: Sized {
    fn wrapping_add(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn from_f64(x: f64) -> Self;
}

impl Impostor for f64 {
    fn wrapping_add(self, o: f64) -> f64 {
        self * o
    }
    fn max(self, o: f64) -> f64 {
        self - o
    }
    fn from_f64(_: f64) -> f64 {
        -1.0
    }
}

impl Impostor for i32 {
    fn wrapping_add(self, o: i32) -> i32 {
        self ^ o
    }
    fn max(self, o: i32) -> i32 {
        self - o
    }
    fn from_f64(_: f64) -> i32 {
        42
    }
}

#[kernel]
fn concrete_k(i: usize, x: View<f64>, y: ViewMut<f64>, n: ViewMut<i32>) {
    y[i] = x[i].wrapping_add(2.0);
    n[i] = i32::from_f64(x[i]);
}

#[kernel]
fn generic_k<T: rokkos::Float + Impostor>(i: usize, x: View<T>, y: ViewMut<T>) {
    y[i] = T::max(x[i], T::from_f64(1.5)) + x[i].max(T::from_f64(2.5));
}

fn user_traits_do_not_answer_math_calls<E: ExecutionSpace>(space: E) {
    let xs = vec![0.5, 1.0, 2.0, 3.0];
    let x = dev_from_vec::<f64, 1, LayoutRight, E>(&space, "x", [4], xs.clone()).unwrap();
    let y = dev_from_vec::<f64, 1, LayoutRight, E>(&space, "y", [4], vec![0.0; 4]).unwrap();
    let n = dev_from_vec::<i32, 1, LayoutRight, E>(&space, "n", [4], vec![0; 4]).unwrap();
    parallel_for(
        "concrete",
        RangePolicy::new(&space, 0..4),
        concrete_k(&x, &y, &n),
    )
    .unwrap();
    let want: Vec<f64> = xs.iter().map(|v| v + 2.0).collect();
    assert_eq!(to_host(&y), want);
    assert_eq!(to_host(&n), [0, 1, 2, 3]);
    parallel_for(
        "generic",
        RangePolicy::new(&space, 0..4),
        generic_k::<f64, _, _, _>(&x, &y),
    )
    .unwrap();
    let want: Vec<f64> = xs.iter().map(|v| v.max(1.5) + v.max(2.5)).collect();
    assert_eq!(to_host(&y), want);
}
per_backend!(user_traits_do_not_answer_math_calls);
