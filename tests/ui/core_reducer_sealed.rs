// What backends trust without checking is only rokkos' to say: a user reducer cannot claim a
// device join (`describe`) or a reorderable join (`commutative`) that its `join` does not do (it
// always takes the ordered path with its own `join`), and user types cannot be built-in scalars
// (whose `add` the built-in `Sum` describes as the IR's sum), accumulator values (whose IR layout
// device backends read back), or nested ranges (whose `first_last` the bounds hoisting trusts).
#![forbid(unsafe_code)]
use rokkos::ir::Value;
use rokkos::{AccValue, IntoNestedRange, JoinKind, NestedIndices, Reducer, Scalar};

struct LyingMax;
impl Reducer<f64> for LyingMax {
    fn init(&self) -> f64 {
        f64::NEG_INFINITY
    }
    fn join(&self, dst: &mut f64, src: f64) {
        *dst = dst.max(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>) -> bool {
        out.push(JoinKind::Op(rokkos::ir::ReducerKind::Sum));
        true
    }
    fn commutative(&self) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Num(f64);
impl Scalar for Num {
    const ZERO: Self = Num(0.0);
    const ONE: Self = Num(1.0);
    const LOWEST: Self = Num(f64::NEG_INFINITY);
    const HIGHEST: Self = Num(f64::INFINITY);
    fn add(self, b: Self) -> Self {
        if self.0 > b.0 { self } else { b }
    }
    fn mul(self, b: Self) -> Self {
        Num(self.0 * b.0)
    }
    fn minimum(self, b: Self) -> Self {
        b
    }
    fn maximum(self, b: Self) -> Self {
        b
    }
}
impl AccValue for Num {
    fn push_values(&self, out: &mut Vec<Value>) {
        out.push(Value::F64(self.0));
    }
    fn from_values(values: &mut std::slice::Iter<'_, Value>) -> Option<Self> {
        match values.next()? {
            Value::F64(x) => Some(Num(*x)),
            _ => None,
        }
    }
}

struct Liar(std::ops::Range<usize>);
impl Iterator for Liar {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        self.0.next()
    }
}
impl NestedIndices for Liar {
    fn first_last(&self) -> Option<(usize, usize)> {
        Some((0, 0))
    }
}
impl IntoNestedRange for Liar {
    type Indices = Liar;
    fn into_range(self) -> Liar {
        self
    }
}

fn main() {}
