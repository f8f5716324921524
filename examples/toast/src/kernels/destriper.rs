//! The kernels of the destriper's solve that are not among TOAST's ten: the binned map's
//! covariance apply and the conjugate-gradient vector algebra (spec §4 steps 3 and 6), so that a
//! whole iteration stays in the space's memory.

use rokkos::prelude::*;

/// `binned[l][p] = C⁻¹[l][p] · zmap[l][p]`, `C⁻¹` symmetric 3×3 stored as its upper triangle
/// `(00, 01, 02, 11, 12, 22)`.
#[kernel]
pub(crate) fn cov_apply(
    (l, p): (usize, usize),
    inv_cov: View<f64, 3>,
    zmap: View<f64, 3>,
    binned: ViewMut<f64, 3>,
) {
    let z0 = zmap[(l, p, 0)];
    let z1 = zmap[(l, p, 1)];
    let z2 = zmap[(l, p, 2)];
    binned[(l, p, 0)] = inv_cov[(l, p, 0)] * z0 + inv_cov[(l, p, 1)] * z1 + inv_cov[(l, p, 2)] * z2;
    binned[(l, p, 1)] = inv_cov[(l, p, 1)] * z0 + inv_cov[(l, p, 3)] * z1 + inv_cov[(l, p, 4)] * z2;
    binned[(l, p, 2)] = inv_cov[(l, p, 2)] * z0 + inv_cov[(l, p, 4)] * z1 + inv_cov[(l, p, 5)] * z2;
}

/// `Σ a[i]·b[i]`.
#[kernel]
pub(crate) fn dot(i: usize, acc: &mut f64, a: View<f64>, b: View<f64>) {
    *acc += a[i] * b[i];
}

/// `x += α·d`, `r −= α·q`.
#[kernel]
pub(crate) fn step_xr(
    i: usize,
    x: ViewMut<f64>,
    r: ViewMut<f64>,
    d: View<f64>,
    q: View<f64>,
    alpha: f64,
) {
    x[i] += alpha * d[i];
    r[i] -= alpha * q[i];
}

/// `d = s + β·d`.
#[kernel]
pub(crate) fn step_d(i: usize, d: ViewMut<f64>, s: View<f64>, beta: f64) {
    d[i] = s[i] + beta * d[i];
}
