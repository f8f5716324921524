// A type of the user's with inherent `native` and `ir` functions, called as if it were a
// `#[func]`: without the `unsafe` marker trait that only `#[func]` implements, host and device
// backends could run two different functions. Refused: `FuncMarker` is required at the call.
use rokkos::ir::build::{Expr, FuncScope};
use rokkos::prelude::*;

#[allow(non_camel_case_types)]
pub struct fake {}
impl fake {
    pub fn native(x: i64) -> i64 {
        x
    }
    pub fn ir(_s: &mut impl FuncScope, x: Expr<i64>) -> Expr<i64> {
        x + 1
    }
}

#[kernel]
fn calls_fake(i: usize, a: ViewMut<i64>) {
    a[i] = fake(a[i]);
}

fn main() {}
