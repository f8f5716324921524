//! pixels_healpix, nest and ring (spec §2.2).

use super::healpix::Healpix;
use super::qarray::rotate;
use super::{domain, flagged};
use crate::Interval;

/// The HEALPix pixel of each sample's line of sight `R(q)ẑ`, or −1 where the shared flag is set
/// (flags used iff `shared_flags.len() == n_samp`); `hit_submaps[p / n_pix_submap] = 1` for every
/// unflagged pixel, never cleared.
///
/// `quats` is `[n_qrows][n_samp][4]`, `pixels` `[n_prows][n_samp]`.
///
/// # Panics
///
/// When `nside` is not a power of two up to 2^29 (the spec's kernel would loop forever).
pub fn pixels_healpix(
    n_samp: usize,
    quat_index: &[i32],
    quats: &[f64],
    shared_flags: &[u8],
    shared_flag_mask: u8,
    pixel_index: &[i32],
    pixels: &mut [i64],
    intervals: &[Interval],
    hit_submaps: &mut [u8],
    n_pix_submap: i64,
    nside: i64,
    nest: bool,
) {
    let hp = Healpix::new(nside).expect("nside must be a power of two up to 2^29");
    let use_flags = shared_flags.len() == n_samp;
    for (d, s) in domain(quat_index.len(), intervals) {
        let at = (quat_index[d] as usize * n_samp + s) * 4;
        let q = [quats[at], quats[at + 1], quats[at + 2], quats[at + 3]];
        let out = &mut pixels[pixel_index[d] as usize * n_samp + s];
        if use_flags && flagged(shared_flags[s], shared_flag_mask) {
            *out = -1;
        } else {
            let p = hp.vec2pix(&rotate(&q, &[0.0, 0.0, 1.0]), nest);
            *out = p;
            hit_submaps[(p / n_pix_submap) as usize] = 1;
        }
    }
}
