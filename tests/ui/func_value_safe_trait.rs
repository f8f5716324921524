//! A kernel's type parameter called like a function (`g(x)`: a `#[func]` passed as a value) is
//! called through the `unsafe` traits `Func1`..`Func3` only. A bound of the user's own, safe trait
//! with a `native` and an `ir` of its own (which could compute different things) is refused: with
//! it, the host would run `native` and the devices `ir`.

use rokkos::ir::build::{Expr, FuncScope};
use rokkos::prelude::*;

pub trait Mine {
    fn native(x: i64) -> i64;
    fn ir(s: &mut impl FuncScope, x: Expr<i64>) -> Expr<i64>;
}
pub struct Liar;
impl Mine for Liar {
    fn native(x: i64) -> i64 {
        x
    }
    fn ir(_s: &mut impl FuncScope, x: Expr<i64>) -> Expr<i64> {
        x + 2
    }
}

#[kernel]
#[allow(non_camel_case_types)]
fn calls_tp<g: Mine>(i: usize, a: ViewMut<i64>) {
    a[i] = g(a[i]);
}

/// With generic arguments, and with two parameters.
#[kernel]
#[allow(non_camel_case_types)]
fn calls_tp2<g: Mine>(i: usize, a: ViewMut<i64>) {
    a[i] = g(a[i], a[i]);
}

fn main() {
    let a = View::<i64>::new("a", [3]).unwrap();
    parallel_for("g", RangePolicy::new(&Serial, 0..3), calls_tp::<Liar, _, _>(&a)).unwrap();
}
