//! pixels_healpix, nest and ring (spec §2.2).

use super::math;
use super::{
    expect_extent, fit_rows, invalid, same_detectors, Design, DevView, Intervals, RowIndex,
};
use rokkos::prelude::*;
use rokkos::Result;

per_sample_kernels! {
    /// The pixel of one sample's line of sight, or −1 where the shared flag is set; marks the
    /// pixel's submap as hit.
    kernels pixels_healpix_team, pixels_healpix_mdrange, pixels_healpix_flat;
    generics [];
    params (
        quat_index: InjectiveView<i32>,
        quats: View<f64, 3>,
        shared_flags: View<u8>,
        shared_flag_mask: u8,
        pixel_index: InjectiveView<i32>,
        pixels: ViewMut<i64, 2>,
        hit_submaps: ViewMut<u8>,
        n_pix_submap: i64,
        nside: i64,
        factor: i64,
        nest: bool,
    );
    |d, _v, _first, s| {
        let row = pixel_index[d] as usize;
        if shared_flags.extent(0) == quats.extent(1) && (shared_flags[s] & shared_flag_mask) != 0 {
            pixels[(row, s)] = -1;
        } else {
            let q = quat_index[d] as usize;
            let x = quats[(q, s, 0)];
            let y = quats[(q, s, 1)];
            let z = quats[(q, s, 2)];
            let w = quats[(q, s, 3)];
            let dx = math::los_x(x, y, z, w);
            let dy = math::los_y(x, y, z, w);
            let dz = math::los_z(x, y);
            let p = if nest {
                math::vec2pix_nest(nside, factor, dx, dy, dz)
            } else {
                math::vec2pix_ring(nside, dx, dy, dz)
            };
            pixels[(row, s)] = p;
            // Many samples mark the same submap: an atomic byte OR makes that race-free (on wgpu
            // an OR on the byte's 32-bit word, which leaves the neighbouring submaps' bytes).
            hit_submaps.atomic_or((p / n_pix_submap) as usize, 1);
        }
    }
}

/// The arguments of pixels_healpix (spec §2.2), in the memory of `E`.
pub struct PixelsHealpix<'a, E: ExecutionSpace> {
    /// Detector → row of `quats`.
    pub quat_index: &'a RowIndex<E>,
    /// `[n_qrows][n_samp][4]` detector quaternions.
    pub quats: &'a DevView<E, f64, 3>,
    /// `[n_samp]` shared flags, used when there is one per sample.
    pub shared_flags: &'a DevView<E, u8>,
    /// Flag bits that make a sample's pixel −1.
    pub shared_flag_mask: u8,
    /// Detector → row of `pixels`.
    pub pixel_index: &'a RowIndex<E>,
    /// `[n_prows][n_samp]` output.
    pub pixels: &'a DevView<E, i64, 2>,
    /// The samples to compute.
    pub intervals: &'a Intervals<E>,
    /// `[12·nside² / n_pix_submap]`: set to 1 where hit, never cleared.
    pub hit_submaps: &'a DevView<E, u8>,
    /// Pixels per submap.
    pub n_pix_submap: i64,
    /// The HEALPix resolution, a power of two up to 2^29.
    pub nside: i64,
    /// NEST ordering, else RING.
    pub nest: bool,
}

impl<E: ExecutionSpace> PixelsHealpix<'_, E> {
    /// Checks the shapes and the resolution and launches the kernel with loop design `design`.
    pub fn run(&self, space: &E, design: Design) -> Result<()> {
        let n_det = same_detectors(&[
            ("quat_index", self.quat_index.len()),
            ("pixel_index", self.pixel_index.len()),
        ])?;
        let n_samp = self.quats.extent(1);
        let nside = self.nside;
        if !(1..=1 << 29).contains(&nside) || nside & (nside - 1) != 0 {
            return Err(invalid(format!(
                "nside {nside} is not a power of two between 1 and 2^29"
            )));
        }
        let npix = 12 * nside * nside;
        if self.n_pix_submap < 1 || self.hit_submaps.extent(0) as i64 * self.n_pix_submap < npix {
            return Err(invalid(format!(
                "{} submaps of {} pixels do not cover the {npix} pixels of nside {nside}",
                self.hit_submaps.extent(0),
                self.n_pix_submap
            )));
        }
        expect_extent("quats", 2, self.quats.extent(2), 4)?;
        expect_extent("pixels", 1, self.pixels.extent(1), n_samp)?;
        fit_rows(self.quat_index, "quats", self.quats.extent(0))?;
        fit_rows(self.pixel_index, "pixels", self.pixels.extent(0))?;
        self.intervals.fit("quats", n_samp)?;
        launch_per_sample!(
            space,
            "toast::pixels_healpix",
            design,
            n_det,
            self.intervals,
            [
                pixels_healpix_team,
                pixels_healpix_mdrange,
                pixels_healpix_flat
            ](
                self.quat_index,
                self.quats,
                self.shared_flags,
                self.shared_flag_mask,
                self.pixel_index,
                self.pixels,
                self.hit_submaps,
                self.n_pix_submap,
                nside,
                nside.trailing_zeros() as i64,
                self.nest,
            )
        )
    }
}
