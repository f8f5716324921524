//! The offset (baseline) template: add_to_signal, project_signal, apply_diag_precond (spec §2.8–
//! §2.10). One detector per call, as TOAST calls them.

use super::{flagged, view_samples};
use crate::Interval;

/// The first amplitude of each view: `amp_offset + Σ_{u<v} n_amp_views[u]` (the cumulative form;
/// the paper-era C++ used `n_amp_views[v−1]`, which the spec rules out).
fn view_offsets(amp_offset: i64, n_amp_views: &[i64]) -> Vec<i64> {
    n_amp_views
        .iter()
        .scan(amp_offset, |off, &n| {
            let here = *off;
            *off += n;
            Some(here)
        })
        .collect()
}

/// `det_data[data_index][s] += amplitudes[a(v, s)]`, `a(v, s) = off_v + (s − first_v) / step_length`.
///
/// `det_data` is `[n_drows][n_samp]`.
pub fn template_offset_add_to_signal(
    n_samp: usize,
    step_length: i64,
    amp_offset: i64,
    n_amp_views: &[i64],
    amplitudes: &[f64],
    data_index: i32,
    det_data: &mut [f64],
    intervals: &[Interval],
) {
    let offsets = view_offsets(amp_offset, n_amp_views);
    let row = data_index as usize * n_samp;
    for (iv, off) in intervals.iter().zip(offsets) {
        for s in view_samples(iv) {
            let a = off + (s as i64 - iv.first) / step_length;
            det_data[row + s] += amplitudes[a as usize];
        }
    }
}

/// `amplitudes[a(v, s)] += det_data[data_index][s]` for every sample not flagged (flags used iff
/// `flag_index >= 0`; `flag_data` is `[n_frows][n_samp]`).
pub fn template_offset_project_signal(
    n_samp: usize,
    data_index: i32,
    det_data: &[f64],
    flag_index: i32,
    flag_data: &[u8],
    flag_mask: u8,
    step_length: i64,
    amp_offset: i64,
    n_amp_views: &[i64],
    amplitudes: &mut [f64],
    intervals: &[Interval],
) {
    let offsets = view_offsets(amp_offset, n_amp_views);
    let row = data_index as usize * n_samp;
    for (iv, off) in intervals.iter().zip(offsets) {
        for s in view_samples(iv) {
            if flag_index >= 0 && flagged(flag_data[flag_index as usize * n_samp + s], flag_mask) {
                continue;
            }
            let a = off + (s as i64 - iv.first) / step_length;
            amplitudes[a as usize] += det_data[row + s];
        }
    }
}

/// `amplitudes_out[i] = amplitudes_in[i] · offset_var[i]`.
pub fn template_offset_apply_diag_precond(
    offset_var: &[f64],
    amplitudes_in: &[f64],
    amplitudes_out: &mut [f64],
) {
    for ((o, i), v) in amplitudes_out.iter_mut().zip(amplitudes_in).zip(offset_var) {
        *o = i * v;
    }
}
