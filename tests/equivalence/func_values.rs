//! `#[func]`s passed to kernels as values (a type parameter bounded by `Func1`): each launch runs
//! the function it was given, on every backend.

use crate::{dev_from_vec, to_host};
use rokkos::ir::build::Func1;
use rokkos::prelude::*;

#[kernel]
#[allow(non_camel_case_types)]
fn apply_k<f: Func1<i32, Output = i32>>(i: usize, a: ViewMut<i32>) {
    a[i] = f(a[i]);
}

fn apply<E: ExecutionSpace, F: Func1<i32, Output = i32>>(space: &E, _f: F) -> Vec<i32> {
    let a = dev_from_vec::<i32, 1, LayoutRight, E>(space, "a", [3], vec![1, 2, 3]).unwrap();
    parallel_for(
        "apply",
        RangePolicy::new(space, 0..3),
        apply_k::<F, _, _>(&a),
    )
    .unwrap();
    to_host(&a)
}

/// Two functions of one name, declared in two blocks of one function: their types print alike
/// (`type_name` is not unique), and the device backends' kernel cache once keyed kernels by that
/// name, so the second launch ran the first function's IR.
fn same_named_funcs_in_two_blocks<E: ExecutionSpace>(space: E) {
    let one = {
        #[rokkos::func]
        fn g(x: i32) -> i32 {
            x + 1
        }
        apply(&space, g {})
    };
    let two = {
        #[rokkos::func]
        fn g(x: i32) -> i32 {
            x * 10
        }
        apply(&space, g {})
    };
    assert_eq!(one, [2, 3, 4]);
    assert_eq!(two, [10, 20, 30]);
}
per_backend!(same_named_funcs_in_two_blocks);
