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
