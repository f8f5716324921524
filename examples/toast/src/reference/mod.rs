//! **The independent reference**: each of the ten TOAST kernels as plain serial Rust over slices,
//! written from the specification (`toast-kernels.md`, cited by section) and nothing else.
//!
//! It shares **no code** with the rokkos kernels in [`crate::kernels`]: its quaternion algebra
//! uses the general rotation formula of §1.4 where the kernels use the special cases, its HEALPix
//! interleave uses TOAST's 256-entry table where the kernels spread bits arithmetically, and its
//! loops are the spec's triple loop `for idet, for view, for s in first..=last`. The only thing
//! both sides read is the input record [`crate::Interval`]. The tests hold the reference against
//! the spec's fixed cases (§2) and identities (§3), and the kernels against the reference.
//!
//! Conventions: arrays are flat slices in C order with the shapes of the spec's tables; `n_samp`
//! is passed explicitly where no argument's length gives it. Flags are `u8`. Each function's
//! parameters are its spec table's, in order.

// The parameter lists are the spec's argument tables, kept whole so each call reads like the table.
#![allow(clippy::too_many_arguments)]

pub mod healpix;
mod mapmaker;
mod offset;
mod pixels;
mod pointing;
pub mod qarray;
mod stokes;

pub use mapmaker::{build_noise_weighted, noise_weight, scan_map, MapValue};
pub use offset::{
    template_offset_add_to_signal, template_offset_apply_diag_precond,
    template_offset_project_signal,
};
pub use pixels::pixels_healpix;
pub use pointing::pointing_detector;
pub use stokes::{
    stokes_weights_i, stokes_weights_i_toast3, stokes_weights_iqu, stokes_weights_iqu_toast3,
};

use crate::Interval;

/// The samples of one view, `first..=last`, as indices (empty when `last < first`).
fn view_samples(iv: &Interval) -> std::ops::Range<usize> {
    let first = iv.first.max(0) as usize;
    let end = (iv.last + 1).max(iv.first.max(0)) as usize;
    first..end
}

/// The spec's iteration domain (§1.2): every `(idet, s)` with `s` in a view, in loop order.
fn domain(n_det: usize, intervals: &[Interval]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..n_det).flat_map(move |d| {
        intervals
            .iter()
            .flat_map(move |iv| view_samples(iv).map(move |s| (d, s)))
    })
}

/// Whether `flag & mask` is set (§1.3).
fn flagged(flag: u8, mask: u8) -> bool {
    flag & mask != 0
}

/// The local map element of global pixel `p >= 0` (§1.6): `Some(lsm * n_pix_submap + sub)`, or
/// `None` where its submap is not stored (`global2local == -1`), which the spec recommends
/// treating like an invalid pixel.
fn local_pixel(global2local: &[i64], n_pix_submap: i64, p: i64) -> Option<usize> {
    let gsm = p / n_pix_submap;
    let lsm = global2local[gsm as usize];
    (lsm >= 0).then(|| (lsm * n_pix_submap + (p - gsm * n_pix_submap)) as usize)
}
