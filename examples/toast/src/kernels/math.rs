//! The math the kernels share, as `#[func]`s (one source for the host and the device): quaternion
//! products and the two rotations the kernels need, the polarisation angle, and HEALPix vec2pix
//! with the φ snap (spec §1.4, §1.5, §2.3).
//!
//! A `#[func]` returns one scalar, so a quaternion product is four functions, one per component,
//! and a rotated vector three (issue 13's "whatever else the port shows missing": tuple or array
//! returns from `#[func]`).

// Quaternion products take two quaternions as eight scalars.
#![allow(clippy::too_many_arguments)]

use rokkos::func;

/// x of the Hamilton product `p ⊗ q` (apply `q` first), components `(x, y, z, w)`.
#[func]
pub fn qmul_x(px: f64, py: f64, pz: f64, pw: f64, qx: f64, qy: f64, qz: f64, qw: f64) -> f64 {
    px * qw + py * qz - pz * qy + pw * qx
}

/// y of `p ⊗ q`.
#[func]
pub fn qmul_y(px: f64, py: f64, pz: f64, pw: f64, qx: f64, qy: f64, qz: f64, qw: f64) -> f64 {
    -px * qz + py * qw + pz * qx + pw * qy
}

/// z of `p ⊗ q`.
#[func]
pub fn qmul_z(px: f64, py: f64, pz: f64, pw: f64, qx: f64, qy: f64, qz: f64, qw: f64) -> f64 {
    px * qy - py * qx + pz * qw + pw * qz
}

/// w of `p ⊗ q`.
#[func]
pub fn qmul_w(px: f64, py: f64, pz: f64, pw: f64, qx: f64, qy: f64, qz: f64, qw: f64) -> f64 {
    -px * qx - py * qy - pz * qz + pw * qw
}

/// x of the line of sight `R(q)ẑ = (2(yw+xz), 2(yz−xw), 1−2(x²+y²))`.
#[func]
pub fn los_x(x: f64, y: f64, z: f64, w: f64) -> f64 {
    2.0 * (y * w + x * z)
}

/// y of `R(q)ẑ`.
#[func]
pub fn los_y(x: f64, y: f64, z: f64, w: f64) -> f64 {
    2.0 * (y * z - x * w)
}

/// z of `R(q)ẑ` (it depends on `x` and `y` only).
#[func]
pub fn los_z(x: f64, y: f64) -> f64 {
    1.0 - 2.0 * (x * x + y * y)
}

/// The paper-era polarisation angle `atan2(by, bx)` of §2.3: the detector's x-axis
/// `vo = R(q)x̂ = (1−2(y²+z²), 2(zw+xy), 2(xz−yw))` measured against the meridian of the line
/// of sight `vd = R(q)ẑ` (COSMO convention, plus π, which doubling removes).
#[func]
pub fn pol_angle(x: f64, y: f64, z: f64, w: f64) -> f64 {
    let dx = los_x(x, y, z, w);
    let dy = los_y(x, y, z, w);
    let dz = los_z(x, y);
    let ox = 1.0 - 2.0 * (y * y + z * z);
    let oy = 2.0 * (z * w + x * y);
    let oz = 2.0 * (x * z - y * w);
    let by = ox * dy - oy * dx;
    let bx = -dz * (ox * dx + oy * dy) + oz * (dx * dx + dy * dy);
    by.atan2(bx)
}

/// TOAST 3's polarisation angle α of quaternion `(x, y, z, w)`: the rotation from the meridian
/// vector `vm = (vd_z cos φ, vd_z sin φ, −√(1−vd_z²))` of the line of sight `vd = R(q)ẑ`
/// (`φ = atan2(vd_y, vd_x)`) to the detector's x-axis `vo = R(q)x̂`, about `vd`:
/// `α = atan2((vm × vo)·vd, vm·vo)`.
///
/// ```
/// use rokkos_toast::kernels::math::pol_angle_meridian;
/// // The identity looks at the north pole, its x-axis along the meridian φ = 0.
/// assert_eq!(pol_angle_meridian(0.0, 0.0, 0.0, 1.0), 0.0);
/// // A quarter turn about the line of sight turns the x-axis by π/2 from it.
/// let h = std::f64::consts::FRAC_1_SQRT_2;
/// let a = pol_angle_meridian(0.0, 0.0, h, h);
/// assert!((a.abs() - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
/// ```
#[func]
pub fn pol_angle_meridian(x: f64, y: f64, z: f64, w: f64) -> f64 {
    let dx = los_x(x, y, z, w);
    let dy = los_y(x, y, z, w);
    let dz = los_z(x, y);
    let ox = 1.0 - 2.0 * (y * y + z * z);
    let oy = 2.0 * (z * w + x * y);
    let oz = 2.0 * (x * z - y * w);
    let dir_ang = dy.atan2(dx);
    let dir_r = (1.0 - dz * dz).sqrt();
    let mx = dz * dir_ang.cos();
    let my = dz * dir_ang.sin();
    let mz = -dir_r;
    let ay = dx * (my * oz - mz * oy) - dy * (mx * oz - mz * ox) + dz * (mx * oy - my * ox);
    let ax = mx * ox + my * oy + mz * oz;
    ay.atan2(ax)
}

/// `tt = φ·2/π` in `[0, 4)` for the direction `(x, y, ·)`, with φ snapped to 0 within
/// `10·DBL_EPSILON` (§1.5 step 2: without the snap a tiny negative φ gives `tt == 4.0` and an
/// invalid nest pixel).
#[func]
pub fn healpix_tt(x: f64, y: f64) -> f64 {
    let mut phi = y.atan2(x);
    if phi.abs() < 10.0 * f64::EPSILON {
        phi = 0.0;
    }
    let mut tt = phi * std::f64::consts::FRAC_2_PI;
    if phi < 0.0 {
        tt += 4.0;
    }
    tt
}

/// Bits `0..32` of `v` moved to the even positions `0, 2, .., 62` (the nest interleave, by
/// shifts and masks rather than TOAST's table).
#[func]
pub fn spread_bits(v: i64) -> i64 {
    let mut b = v & 0xFFFF_FFFF;
    b = (b | (b << 16)) & 0x0000_FFFF_0000_FFFF;
    b = (b | (b << 8)) & 0x00FF_00FF_00FF_00FF;
    b = (b | (b << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    b = (b | (b << 2)) & 0x3333_3333_3333_3333;
    (b | (b << 1)) & 0x5555_5555_5555_5555
}

/// The NEST pixel of unit vector `(x, y, z)` at `nside = 2^factor` (§1.5 steps 1–3).
#[func]
pub fn vec2pix_nest(nside: i64, factor: i64, x: f64, y: f64, z: f64) -> i64 {
    let tt = healpix_tt(x, y);
    if z.abs() <= 2.0 / 3.0 {
        nest_belt(nside, factor, tt, z)
    } else {
        nest_cap(nside, factor, tt, z)
    }
}

/// The RING pixel of unit vector `(x, y, z)` (§1.5 steps 1, 2, 4).
#[func]
pub fn vec2pix_ring(nside: i64, x: f64, y: f64, z: f64) -> i64 {
    let tt = healpix_tt(x, y);
    if z.abs() <= 2.0 / 3.0 {
        ring_belt(nside, tt, z)
    } else {
        ring_cap(nside, tt, z)
    }
}

/// `jp` of the equatorial belt: `trunc(nside(½ + tt) − ¾·nside·z)`.
#[func]
fn belt_jp(nside: i64, tt: f64, z: f64) -> i64 {
    let ns = nside as f64;
    (0.5 * ns + ns * tt - 0.75 * ns * z) as i64
}

/// `jm` of the equatorial belt: `trunc(nside(½ + tt) + ¾·nside·z)`.
#[func]
fn belt_jm(nside: i64, tt: f64, z: f64) -> i64 {
    let ns = nside as f64;
    (0.5 * ns + ns * tt + 0.75 * ns * z) as i64
}

/// The NEST pixel from `(x, y)` in `face` (bits interleaved, face above them).
#[func]
fn nest_pixel(factor: i64, face: i64, ix: i64, iy: i64) -> i64 {
    spread_bits(ix) + (spread_bits(iy) << 1) + (face << (2 * factor))
}

/// NEST, equatorial belt (§1.5 step 3a).
#[func]
fn nest_belt(nside: i64, factor: i64, tt: f64, z: f64) -> i64 {
    let jp = belt_jp(nside, tt, z);
    let jm = belt_jm(nside, tt, z);
    let ifp = jp >> factor;
    let ifm = jm >> factor;
    let face = if ifp == ifm {
        if ifp == 4 {
            4
        } else {
            ifp + 4
        }
    } else if ifp < ifm {
        ifp
    } else {
        ifm + 8
    };
    nest_pixel(
        factor,
        face,
        jm & (nside - 1),
        nside - 1 - (jp & (nside - 1)),
    )
}

/// NEST, polar caps (§1.5 step 3b).
#[func]
fn nest_cap(nside: i64, factor: i64, tt: f64, z: f64) -> i64 {
    let ntt = (tt as i64).min(3);
    let tp = tt - ntt as f64;
    let t = nside as f64 * (3.0 * (1.0 - z.abs())).sqrt();
    let jp = ((tp * t) as i64).min(nside - 1);
    let jm = (((1.0 - tp) * t) as i64).min(nside - 1);
    if z >= 0.0 {
        nest_pixel(factor, ntt, nside - 1 - jm, nside - 1 - jp)
    } else {
        nest_pixel(factor, ntt + 8, jp, jm)
    }
}

/// RING, equatorial belt (§1.5 step 4a).
#[func]
fn ring_belt(nside: i64, tt: f64, z: f64) -> i64 {
    let jp = belt_jp(nside, tt, z);
    let jm = belt_jm(nside, tt, z);
    let ir = nside + 1 + jp - jm;
    let kshift = 1 - (ir & 1);
    let ip = ((jp + jm - nside + kshift + 1) >> 1).rem_euclid(4 * nside);
    2 * (nside * nside - nside) + (ir - 1) * 4 * nside + ip
}

/// RING, polar caps (§1.5 step 4b); `ip` clamped to `4·ir − 1` where `tt·ir` rounds up to `4·ir`.
#[func]
fn ring_cap(nside: i64, tt: f64, z: f64) -> i64 {
    let tp = tt - tt.floor();
    let t = nside as f64 * (3.0 * (1.0 - z.abs())).sqrt();
    let jp = (tp * t) as i64;
    let jm = ((1.0 - tp) * t) as i64;
    let ir = jp + jm + 1;
    let ip = ((tt * ir as f64) as i64).min(4 * ir - 1);
    if z > 0.0 {
        2 * ir * (ir - 1) + ip
    } else {
        12 * nside * nside - 2 * ir * (ir + 1) + ip
    }
}
