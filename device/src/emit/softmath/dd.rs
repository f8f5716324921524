//! Pair arithmetic and polynomials the function families share: the quotient of two pairs (double-double in `f64`, double-float in `f32`), Horner
//! evaluation and the Taylor coefficients `1/k!`.

use super::exact::{o, two_prod};
use super::float::{bind, LibFloat};
use rokkos_core::ir::build::{Expr, FunctionBuilder};

/// `(n.0 + n.1) / (d.0 + d.1)` as a pair, written into `f`'s body: the quotient `q`, corrected by
/// the exact residual `n - q·d` (from [`two_prod`]) divided by `d.0`. The numerator's head and the
/// quotient go through the opaque identity, so that a relaxed compiler cannot cancel the residual.
pub(super) fn div_dd<T: LibFloat>(
    f: &mut FunctionBuilder<'_>,
    n: (Expr<T>, Expr<T>),
    d: (Expr<T>, Expr<T>),
) -> (Expr<T>, Expr<T>) {
    let nx = o(f, n.0);
    let nx = bind(f, "dd_nx", nx);
    let ny = bind(f, "dd_ny", n.1);
    let dx = bind(f, "dd_dx", d.0);
    let dy = bind(f, "dd_dy", d.1);
    let q = o(f, nx.clone() / dx.clone());
    let q = bind(f, "dd_q", q);
    let (px, py) = two_prod(f, q.clone(), dx.clone());
    let r = o(f, nx - px);
    let lo = bind(f, "dd_lo", ((r - py) + (ny - q.clone() * dy)) / dx);
    (q, lo)
}

/// A Horner evaluation of `Σ c[i]·xⁱ` with `mul_add` (the targets' own `fma`, fused or not: both
/// are accurate enough for the polynomial parts, whose rounding errors the error budgets
/// include); each coefficient is rounded once to `T`. `x` should be a local (it is read once per
/// coefficient).
pub(super) fn horner<T: LibFloat>(x: &Expr<T>, c: &[f64]) -> Expr<T> {
    let mut it = c.iter().rev();
    let mut s = T::c(*it.next().expect("a coefficient"));
    for &ci in it {
        s = s.mul_add(x.clone(), T::c(ci));
    }
    s
}

/// `1/k!` as `f64` (k! is exact in `f64` up to 22!, so this is rounded once).
pub(super) fn inv_factorial(k: u32) -> f64 {
    1.0 / (1..=k).map(f64::from).product::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taylor_coefficients() {
        assert_eq!(inv_factorial(0), 1.0);
        assert_eq!(inv_factorial(2), 0.5);
        assert_eq!(inv_factorial(3), 1.0 / 6.0);
        assert_eq!(inv_factorial(18), 1.0 / 6_402_373_705_728_000.0);
    }
}
