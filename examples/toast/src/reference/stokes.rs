//! stokes_weights_IQU and stokes_weights_I (spec §2.3, §2.4), paper-era form.

use super::domain;
use super::qarray::rotate;
use crate::Interval;

/// `weights[weight_index[d]][s] = cal·[1, η cos ψ, η sin ψ]` with `η = (1−ε)/(1+ε)` and `ψ` twice
/// the detector's angle from the meridian (plus twice the HWP angle when `hwp.len() == n_samp`).
///
/// `quats` is `[n_qrows][n_samp][4]`, `weights` `[n_wrows][n_samp][3]`.
pub fn stokes_weights_iqu(
    n_samp: usize,
    quat_index: &[i32],
    quats: &[f64],
    weight_index: &[i32],
    weights: &mut [f64],
    hwp: &[f64],
    intervals: &[Interval],
    epsilon: &[f64],
    cal: f64,
) {
    let use_hwp = hwp.len() == n_samp;
    for (d, s) in domain(quat_index.len(), intervals) {
        let at = (quat_index[d] as usize * n_samp + s) * 4;
        let q = [quats[at], quats[at + 1], quats[at + 2], quats[at + 3]];
        let vd = rotate(&q, &[0.0, 0.0, 1.0]);
        let vo = rotate(&q, &[1.0, 0.0, 0.0]);
        let by = vo[0] * vd[1] - vo[1] * vd[0];
        let bx = -vd[2] * (vo[0] * vd[0] + vo[1] * vd[1]) + vo[2] * (vd[0] * vd[0] + vd[1] * vd[1]);
        let mut psi = by.atan2(bx);
        if use_hwp {
            psi += 2.0 * hwp[s];
        }
        psi *= 2.0;
        let eta = (1.0 - epsilon[d]) / (1.0 + epsilon[d]);
        let at = (weight_index[d] as usize * n_samp + s) * 3;
        weights[at] = cal;
        weights[at + 1] = cal * eta * psi.cos();
        weights[at + 2] = cal * eta * psi.sin();
    }
}

/// `weights[weight_index[d]][s] = cal` (`weights` is `[n_wrows][n_samp]`).
pub fn stokes_weights_i(
    n_samp: usize,
    weight_index: &[i32],
    weights: &mut [f64],
    intervals: &[Interval],
    cal: f64,
) {
    for (d, s) in domain(weight_index.len(), intervals) {
        weights[weight_index[d] as usize * n_samp + s] = cal;
    }
}

/// TOAST 3's stokes_weights_IQU: `weights[weight_index[d]][s] = cal[d]·[1, η cos ψ, u·η sin ψ]`
/// over TOAST 3's **half-open** intervals (`first <= s < last`), with `α` the angle from the
/// meridian vector of the line of sight to the detector's x-axis about the line of sight,
/// `ψ = 2α` and `u = 1` (−1 with `iau`) without a half-wave plate, and with one (`hwp.len() ==
/// n_samp`) `ψ = 2(2(γ[d] − hwp[s]) − α)` and `u` negated.
///
/// ```
/// use rokkos_toast::{reference::stokes_weights_iqu_toast3, Interval};
/// // The identity quaternion, no half-wave plate: α = 0, all polarisation in Q.
/// let mut w = vec![0.0; 6];
/// let quats = [0., 0., 0., 1., 0., 0., 0., 1.];
/// let iv = Interval::list(&[(1, 2)]);
/// stokes_weights_iqu_toast3(2, &[0], &quats, &[0], &mut w, &[0.0], &iv, &[0.0], &[0.0], &[2.0], false);
/// assert_eq!(w, vec![0.0, 0.0, 0.0, 2.0, 2.0, 0.0]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn stokes_weights_iqu_toast3(
    n_samp: usize,
    quat_index: &[i32],
    quats: &[f64],
    weight_index: &[i32],
    weights: &mut [f64],
    hwp: &[f64],
    intervals: &[Interval],
    epsilon: &[f64],
    gamma: &[f64],
    cal: &[f64],
    iau: bool,
) {
    let use_hwp = hwp.len() == n_samp;
    for d in 0..quat_index.len() {
        let eta = (1.0 - epsilon[d]) / (1.0 + epsilon[d]);
        for iv in intervals {
            // `s` indexes three arrays of different layouts: a range reads as the spec does.
            #[allow(clippy::needless_range_loop)]
            for s in iv.first as usize..iv.last as usize {
                let at = (quat_index[d] as usize * n_samp + s) * 4;
                let q = [quats[at], quats[at + 1], quats[at + 2], quats[at + 3]];
                let vd = rotate(&q, &[0.0, 0.0, 1.0]);
                let vo = rotate(&q, &[1.0, 0.0, 0.0]);
                // The meridian direction at vd, pointing south.
                let phi = vd[1].atan2(vd[0]);
                let r = (1.0 - vd[2] * vd[2]).sqrt();
                let vm = [vd[2] * phi.cos(), vd[2] * phi.sin(), -r];
                let cross = [
                    vm[1] * vo[2] - vm[2] * vo[1],
                    vm[2] * vo[0] - vm[0] * vo[2],
                    vm[0] * vo[1] - vm[1] * vo[0],
                ];
                let alpha = (cross[0] * vd[0] + cross[1] * vd[1] + cross[2] * vd[2])
                    .atan2(vm[0] * vo[0] + vm[1] * vo[1] + vm[2] * vo[2]);
                let mut u = if iau { -1.0 } else { 1.0 };
                let psi = if use_hwp {
                    u = -u;
                    2.0 * (2.0 * (gamma[d] - hwp[s]) - alpha)
                } else {
                    2.0 * alpha
                };
                let at = (weight_index[d] as usize * n_samp + s) * 3;
                weights[at] = cal[d];
                weights[at + 1] = cal[d] * eta * psi.cos();
                weights[at + 2] = u * cal[d] * eta * psi.sin();
            }
        }
    }
}

/// TOAST 3's stokes_weights_I: `weights[weight_index[d]][s] = cal[d]` over half-open intervals
/// (`weights` is `[n_wrows][n_samp]`).
///
/// ```
/// use rokkos_toast::{reference::stokes_weights_i_toast3, Interval};
/// let mut w = vec![0.0; 3];
/// stokes_weights_i_toast3(3, &[0], &mut w, &Interval::list(&[(1, 3)]), &[5.0]);
/// assert_eq!(w, vec![0.0, 5.0, 5.0]);
/// ```
pub fn stokes_weights_i_toast3(
    n_samp: usize,
    weight_index: &[i32],
    weights: &mut [f64],
    intervals: &[Interval],
    cal: &[f64],
) {
    for (d, &row) in weight_index.iter().enumerate() {
        for iv in intervals {
            for s in iv.first as usize..iv.last as usize {
                weights[row as usize * n_samp + s] = cal[d];
            }
        }
    }
}
