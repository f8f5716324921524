//! Random constants with edge values over-represented: what literals in generated kernels and the
//! fuzzer's input data are drawn from (one distribution for both).

use crate::rng::Rng;
use crate::ty::{int_range, Lit, Ty};

/// Float constants every float type is tried with.
const SPECIAL_F64: &[f64] = &[
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    f64::MAX,
    f64::MIN,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    2.2250738585072e-308, // largest subnormal region
    f64::EPSILON,
    1e300,
    -1e300,
    1e22,
    3.0,
    709.7,
    9007199254740993.0, // 2^53 + 1 (rounds)
    4503599627370495.5,
    std::f64::consts::PI,
    -std::f64::consts::FRAC_PI_2,
    1e-40,
];
const SPECIAL_F32: &[f32] = &[
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1e-45,
    -1e-45,
    1e-40,
    f32::EPSILON,
    16777217.0,
    3e38,
    8388607.5,
];

/// A random constant of `ty`.
pub fn random_lit(rng: &mut Rng, ty: Ty) -> Lit {
    match ty {
        Ty::Bool => Lit::bool(rng.chance(50)),
        Ty::F32 | Ty::F64 => random_float(rng, ty),
        _ => random_int(rng, ty),
    }
}

/// A random integer of an integer type `ty`.
pub fn random_int(rng: &mut Rng, ty: Ty) -> Lit {
    let (min, max) = int_range(ty);
    let signed = ty.is_signed_int();
    let v: i128 = match rng.weighted(&[40, 25, 10, 10, 15]) {
        0 => {
            let x = rng.below(17) as i128;
            if signed && rng.chance(40) {
                -x
            } else {
                x
            }
        }
        1 => *rng.pick(&[0, 1, -1, min, max, min + 1, max - 1]),
        2 => {
            let bits = ty.bits() as i128;
            *rng.pick(&[bits - 1, bits, bits + 1, 2 * bits - 1, 2 * bits, 1000, -1])
        }
        3 => {
            let p = rng.below(ty.bits() as usize) as u32;
            let v = 1i128 << p;
            if signed && rng.chance(30) {
                -v
            } else {
                v - (rng.chance(30) as i128)
            }
        }
        _ => rng.next_u64() as i64 as i128,
    };
    Lit::int(ty, v)
}

/// A random float of a float type `ty`.
pub fn random_float(rng: &mut Rng, ty: Ty) -> Lit {
    let v: f64 = match rng.weighted(&[30, 8, 30, 20, 12]) {
        0 => *rng.pick(SPECIAL_F64),
        1 if ty == Ty::F32 => *rng.pick(SPECIAL_F32) as f64,
        1 => f64::from_bits(rng.next_u64()),
        2 => {
            let whole = rng.below(200) as f64 - 100.0;
            whole + rng.below(8) as f64 / 8.0
        }
        3 => {
            let e = rng.below(81) as i32 - 40;
            let m = 1.0 + rng.below(1000) as f64 / 1000.0;
            let s = if rng.chance(50) { -1.0 } else { 1.0 };
            s * m * 10f64.powi(e)
        }
        _ => (rng.next_u64() as i64 >> rng.below(64)) as f64,
    };
    Lit::float(ty, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_cover_the_edges() {
        let mut r = Rng::new(3);
        let ints: Vec<Lit> = (0..4000).map(|_| random_lit(&mut r, Ty::I32)).collect();
        assert!(ints.iter().any(|l| l.as_i128() == i32::MIN as i128));
        assert!(ints.iter().any(|l| l.as_i128() == i32::MAX as i128));
        assert!(ints.iter().any(|l| l.as_i128() == 32));
        let fs: Vec<f64> = (0..4000)
            .map(|_| random_lit(&mut r, Ty::F32).as_f64())
            .collect();
        assert!(fs.iter().any(|x| x.is_nan()));
        assert!(fs.iter().any(|x| *x == 0.0 && x.is_sign_negative()));
        assert!(fs.iter().any(|x| x.is_infinite()));
        assert!(fs
            .iter()
            .any(|x| *x != 0.0 && x.abs() < f32::MIN_POSITIVE as f64));
        for l in ints.iter().chain(
            &(0..500)
                .map(|_| random_lit(&mut r, Ty::U64))
                .collect::<Vec<_>>(),
        ) {
            let (lo, hi) = int_range(l.ty);
            assert!((lo..=hi).contains(&l.as_i128()));
        }
    }
}
