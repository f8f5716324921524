//! scan_map, noise_weight and build_noise_weighted (spec §2.5–§2.7).

use super::{domain, flagged, local_pixel};
use crate::Interval;

/// A map element type of scan_map: f64, f32, i64 or i32, read as f64 (§1.1).
pub trait MapValue: Copy {
    /// The value as f64.
    fn to_f64(self) -> f64;
}

macro_rules! map_value {
    ($($t:ty),*) => {$(
        impl MapValue for $t {
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
map_value!(f64, f32, i64, i32);

/// `det_data ⊕= data_scale·Σ_k w_k·m_k(pix)`: zero first when `should_zero` (every in-interval
/// sample, even with an invalid pixel), then skip pixels < 0 (and, as the spec recommends, pixels
/// whose submap is not local), then the first mode set of subtract, scale, add.
///
/// `mapdata` is `[n_local_submap][n_pix_submap][nnz]`, `det_data` `[n_drows][n_samp]`, `pixels`
/// `[n_prows][n_samp]`, `weights` `[n_wrows][n_samp][nnz]`.
pub fn scan_map<T: MapValue>(
    n_samp: usize,
    nnz: usize,
    global2local: &[i64],
    n_pix_submap: i64,
    mapdata: &[T],
    det_data: &mut [f64],
    data_index: &[i32],
    pixels: &[i64],
    pixel_index: &[i32],
    weights: &[f64],
    weight_index: &[i32],
    intervals: &[Interval],
    data_scale: f64,
    should_zero: bool,
    should_subtract: bool,
    should_scale: bool,
) {
    for (d, s) in domain(data_index.len(), intervals) {
        let out = &mut det_data[data_index[d] as usize * n_samp + s];
        if should_zero {
            *out = 0.0;
        }
        let p = pixels[pixel_index[d] as usize * n_samp + s];
        if p < 0 {
            continue;
        }
        let Some(lpix) = local_pixel(global2local, n_pix_submap, p) else {
            continue;
        };
        let w = &weights[(weight_index[d] as usize * n_samp + s) * nnz..][..nnz];
        let m = &mapdata[lpix * nnz..][..nnz];
        let v = data_scale * w.iter().zip(m).map(|(w, m)| w * m.to_f64()).sum::<f64>();
        if should_subtract {
            *out -= v;
        } else if should_scale {
            *out *= v;
        } else {
            *out += v;
        }
    }
}

/// `det_data[data_index[d]][s] *= detector_weights[d]`.
pub fn noise_weight(
    n_samp: usize,
    det_data: &mut [f64],
    data_index: &[i32],
    intervals: &[Interval],
    detector_weights: &[f64],
) {
    for (d, s) in domain(data_index.len(), intervals) {
        det_data[data_index[d] as usize * n_samp + s] *= detector_weights[d];
    }
}

/// `zmap[pix][k] += det_data·det_scale[d]·w_k` for every good sample: pixel ≥ 0 with a local
/// submap, detector flag clear (flags used iff `det_flags_n_samp == n_samp`, the second extent of
/// `det_flags`), shared flag clear (used iff `shared_flags.len() == n_samp`).
///
/// `zmap` is `[n_local_submap][n_pix_submap][nnz]`; the sums run in the spec's loop order.
pub fn build_noise_weighted(
    n_samp: usize,
    nnz: usize,
    global2local: &[i64],
    zmap: &mut [f64],
    pixel_index: &[i32],
    pixels: &[i64],
    weight_index: &[i32],
    weights: &[f64],
    data_index: &[i32],
    det_data: &[f64],
    flag_index: &[i32],
    det_flags: &[u8],
    det_flags_n_samp: usize,
    det_scale: &[f64],
    det_flag_mask: u8,
    intervals: &[Interval],
    shared_flags: &[u8],
    shared_flag_mask: u8,
    n_pix_submap: i64,
) {
    let use_det_flags = det_flags_n_samp == n_samp;
    let use_shared = shared_flags.len() == n_samp;
    for (d, s) in domain(data_index.len(), intervals) {
        let p = pixels[pixel_index[d] as usize * n_samp + s];
        if p < 0
            || use_det_flags
                && flagged(
                    det_flags[flag_index[d] as usize * n_samp + s],
                    det_flag_mask,
                )
            || use_shared && flagged(shared_flags[s], shared_flag_mask)
        {
            continue;
        }
        let Some(lpix) = local_pixel(global2local, n_pix_submap, p) else {
            continue;
        };
        let a = det_data[data_index[d] as usize * n_samp + s] * det_scale[d];
        let w = &weights[(weight_index[d] as usize * n_samp + s) * nnz..][..nnz];
        for (z, w) in zmap[lpix * nnz..][..nnz].iter_mut().zip(w) {
            *z += a * w;
        }
    }
}
