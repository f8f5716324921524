//! A `#[func]` passed as a value (a kernel's type parameter bounded by `Func1`) must have the
//! bound's signature: a function of another parameter type, result type or arity, or a type that
//! is not a `#[func]`, is refused where it is passed.

use rokkos::ir::build::Func1;
use rokkos::prelude::*;

#[kernel]
#[allow(non_camel_case_types)]
fn count_k<pred: Func1<i64, Output = bool>>(i: usize, acc: &mut usize, v: View<i64>) {
    if pred(v[i]) {
        *acc += 1;
    }
}

fn count<P: Func1<i64, Output = bool>>(v: &View<i64>, _pred: P) -> usize {
    parallel_reduce(
        "count",
        RangePolicy::new(&Serial, 0..v.extent(0)),
        count_k::<P, _, _>(v),
        Sum,
    )
    .unwrap()
}

#[rokkos::func]
fn is_even(x: i64) -> bool {
    x % 2 == 0
}
#[rokkos::func]
fn narrow(x: i32) -> bool {
    x > 0
}
#[rokkos::func]
fn not_a_predicate(x: i64) -> i64 {
    x + 1
}
#[rokkos::func]
fn binary(x: i64, y: i64) -> bool {
    x < y
}
struct Impostor {}

fn main() {
    let v = View::<i64>::from_vec("v", [2], vec![1, 2]).unwrap();
    count(&v, is_even {});
    count(&v, narrow {});
    count(&v, not_a_predicate {});
    count(&v, binary {});
    count(&v, Impostor {});
}
