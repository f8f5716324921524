//! pointing_detector (spec §2.1).

use super::qarray::{mult, Quat, IDENTITY};
use super::{domain, flagged};
use crate::Interval;

/// `quats[quat_index[d]][s] = B(s) ⊗ focalplane[d]` over the intervals, with `B(s)` the boresight,
/// or the identity where the shared flag is set (flags used iff `shared_flags.len() == n_samp`).
///
/// `quats` is `[n_qrows][n_samp][4]`, `n_samp = boresight.len()`.
pub fn pointing_detector(
    focalplane: &[Quat],
    boresight: &[Quat],
    quat_index: &[i32],
    quats: &mut [f64],
    intervals: &[Interval],
    shared_flags: &[u8],
    shared_flag_mask: u8,
) {
    let n_samp = boresight.len();
    let use_flags = shared_flags.len() == n_samp;
    for (d, s) in domain(quat_index.len(), intervals) {
        let b = if use_flags && flagged(shared_flags[s], shared_flag_mask) {
            IDENTITY
        } else {
            boresight[s]
        };
        let q = mult(&b, &focalplane[d]);
        let at = (quat_index[d] as usize * n_samp + s) * 4;
        quats[at..at + 4].copy_from_slice(&q);
    }
}
