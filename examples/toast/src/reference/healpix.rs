//! HEALPix vec→pix, nest and ring, exactly as spec §1.5 (TOAST's `HealpixPixels`), with the φ snap
//! at `10·DBL_EPSILON` the spec requires.

/// `2/π` (the spec's `TWOINVPI` = 0.63661977236758134308, the same double).
const TWOINVPI: f64 = std::f64::consts::FRAC_2_PI;
/// `2/3`: the polar-cap boundary in `z`.
const TWOTHIRDS: f64 = 2.0 / 3.0;
/// φ within this of 0 is snapped to 0 (§1.5 step 2).
const PHI_SNAP: f64 = 10.0 * f64::EPSILON;

/// TOAST's `utab`: entry `m` has bit `i` of `m` at bit `2i`.
const UTAB: [i64; 256] = {
    let mut t = [0i64; 256];
    let mut m = 0;
    while m < 256 {
        let mut v = 0i64;
        let mut i = 0;
        while i < 8 {
            v |= ((m as i64 >> i) & 1) << (2 * i);
            i += 1;
        }
        t[m] = v;
        m += 1;
    }
    t
};

/// Bit `i` of `x` at bit `2i` and of `y` at bit `2i + 1`, through `utab` one byte at a time (§1.5).
fn interleave(x: i64, y: i64) -> i64 {
    let mut out = 0;
    for k in 0..4 {
        out |= UTAB[((x >> (8 * k)) & 0xff) as usize] << (16 * k);
        out |= UTAB[((y >> (8 * k)) & 0xff) as usize] << (16 * k + 1);
    }
    out
}

/// The pixelisation constants of one `nside`.
#[derive(Clone, Copy, Debug)]
pub struct Healpix {
    nside: i64,
    factor: i64,
    npix: i64,
    ncap: i64,
    halfnside: f64,
    tqnside: f64,
}

/// Where a direction lies: `z`, `tt = φ·2/π` in `[0, 4)`, the region (±1 belt, ±2 cap) and
/// `rtz = sqrt(3(1 − |z|))` (§1.5 steps 1 and 2).
struct ZPhi {
    z: f64,
    tt: f64,
    region: i32,
    rtz: f64,
}

impl Healpix {
    /// The constants for `nside`, a power of two up to 2^29; `None` otherwise (TOAST's loop that
    /// finds `log2(nside)` would never end).
    pub fn new(nside: i64) -> Option<Healpix> {
        if !(1..=1 << 29).contains(&nside) || nside & (nside - 1) != 0 {
            return None;
        }
        Some(Healpix {
            nside,
            factor: nside.trailing_zeros() as i64,
            npix: 12 * nside * nside,
            ncap: 2 * (nside * nside - nside),
            halfnside: 0.5 * nside as f64,
            tqnside: 0.75 * nside as f64,
        })
    }

    /// `nside`.
    pub fn nside(&self) -> i64 {
        self.nside
    }

    /// `12·nside²`.
    pub fn npix(&self) -> i64 {
        self.npix
    }

    /// The pixel of unit vector `d` (§1.5).
    pub fn vec2pix(&self, d: &[f64; 3], nest: bool) -> i64 {
        let phi = d[1].atan2(d[0]);
        self.zphi2pix(self.zphi(d[2], phi), nest)
    }

    /// The pixel at colatitude `theta` and longitude `phi` (radians), with `z = cos θ` and `φ`
    /// taken directly rather than through a vector (the route `ang2pix` takes, used to check
    /// the pointing chain of §3 independently of `atan2`).
    pub fn ang2pix(&self, theta: f64, phi: f64, nest: bool) -> i64 {
        let phi = phi.rem_euclid(2.0 * std::f64::consts::PI);
        self.zphi2pix(self.zphi(theta.cos(), phi), nest)
    }

    fn zphi(&self, z: f64, phi: f64) -> ZPhi {
        let za = z.abs();
        let sign = if z > 0.0 { 1 } else { -1 };
        let region = if za <= TWOTHIRDS { sign } else { 2 * sign };
        let phi = if phi.abs() < PHI_SNAP { 0.0 } else { phi };
        let tt = if phi >= 0.0 {
            phi * TWOINVPI
        } else {
            phi * TWOINVPI + 4.0
        };
        ZPhi {
            z,
            tt,
            region,
            rtz: (3.0 * (1.0 - za)).sqrt(),
        }
    }

    fn zphi2pix(&self, p: ZPhi, nest: bool) -> i64 {
        match (nest, p.region.abs() == 1) {
            (true, true) => self.nest_belt(&p),
            (true, false) => self.nest_cap(&p),
            (false, true) => self.ring_belt(&p),
            (false, false) => self.ring_cap(&p),
        }
    }

    /// `(jp, jm)` of the equatorial belt (§1.5 step 3a, 1–2).
    fn belt_jpjm(&self, p: &ZPhi) -> (i64, i64) {
        let t1 = self.halfnside + self.nside as f64 * p.tt;
        let t2 = self.tqnside * p.z;
        ((t1 - t2) as i64, (t1 + t2) as i64)
    }

    fn nest_belt(&self, p: &ZPhi) -> i64 {
        let (jp, jm) = self.belt_jpjm(p);
        let ifp = jp >> self.factor;
        let ifm = jm >> self.factor;
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
        let x = jm & (self.nside - 1);
        let y = (self.nside - 1) - (jp & (self.nside - 1));
        interleave(x, y) + (face << (2 * self.factor))
    }

    fn nest_cap(&self, p: &ZPhi) -> i64 {
        let ntt = (p.tt as i64).min(3);
        let tp = p.tt - ntt as f64;
        let t = self.nside as f64 * p.rtz;
        let jp = ((tp * t) as i64).min(self.nside - 1);
        let jm = (((1.0 - tp) * t) as i64).min(self.nside - 1);
        let (face, x, y) = if p.z >= 0.0 {
            (ntt, self.nside - 1 - jm, self.nside - 1 - jp)
        } else {
            (ntt + 8, jp, jm)
        };
        interleave(x, y) + (face << (2 * self.factor))
    }

    fn ring_belt(&self, p: &ZPhi) -> i64 {
        let (jp, jm) = self.belt_jpjm(p);
        let ir = self.nside + 1 + jp - jm;
        let kshift = 1 - (ir & 1);
        let ip = ((jp + jm - self.nside + kshift + 1) >> 1).rem_euclid(4 * self.nside);
        self.ncap + (ir - 1) * 4 * self.nside + ip
    }

    fn ring_cap(&self, p: &ZPhi) -> i64 {
        let tp = p.tt - p.tt.floor();
        let t = self.nside as f64 * p.rtz;
        let jp = (tp * t) as i64;
        let jm = ((1.0 - tp) * t) as i64;
        let ir = jp + jm + 1;
        let mut ip = (p.tt * ir as f64) as i64;
        ip -= ip / (4 * ir);
        if p.region > 0 {
            2 * ir * (ir - 1) + ip
        } else {
            self.npix - 2 * ir * (ir + 1) + ip
        }
    }
}

#[cfg(test)]
mod tests {
    use super::interleave;

    /// The examples of §1.5.
    #[test]
    fn interleave_examples() {
        assert_eq!(interleave(3, 1), 7);
        assert_eq!(interleave(1, 3), 11);
        assert_eq!(interleave(2, 2), 12);
        assert_eq!(interleave(1 << 28, 0), 1 << 56);
        assert_eq!(interleave(0, 1 << 28), 1 << 57);
    }
}
