//! Math intrinsics on every backend against the native path: rounding functions on `f32` and
//! `f64` (exact everywhere, including large values with a fraction, where a GPU compiler once
//! truncated wrongly) and the `f64` transcendental functions (within the GPU tolerance of
//! [`crate::floats_match`]).

use crate::{check, dev, dev_from_vec, floats_match, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn rounding_f64(i: usize, out: ViewMut<f64, 2>, x: View<f64>) {
    let v = x[i];
    out[(i, 0)] = v.trunc();
    out[(i, 1)] = v.round();
    out[(i, 2)] = v.fract();
    out[(i, 3)] = v.floor();
    out[(i, 4)] = v.ceil();
}

#[kernel]
fn rounding_f32(i: usize, out: ViewMut<f32, 2>, x: View<f32>) {
    let v = x[i];
    out[(i, 0)] = v.trunc();
    out[(i, 1)] = v.round();
    out[(i, 2)] = v.fract();
    out[(i, 3)] = v.floor();
    out[(i, 4)] = v.ceil();
}

#[kernel]
fn transcendental_f64(i: usize, out: ViewMut<f64, 2>, x: View<f64>, y: View<f64>) {
    let v = x[i];
    let w = y[i];
    let a = v.abs() + 0.5;
    out[(i, 0)] = v.sin();
    out[(i, 1)] = v.cos();
    out[(i, 2)] = (v * 0.1).tan();
    out[(i, 3)] = (v / (1.0 + v.abs())).asin();
    out[(i, 4)] = (v / (1.0 + v.abs())).acos();
    out[(i, 5)] = v.atan();
    out[(i, 6)] = v.atan2(w);
    out[(i, 7)] = (v * 0.1).sinh();
    out[(i, 8)] = (v * 0.1).cosh();
    out[(i, 9)] = v.tanh();
    out[(i, 10)] = (v * 0.5).exp();
    out[(i, 11)] = (v * 0.5).exp2();
    out[(i, 12)] = a.ln();
    out[(i, 13)] = a.log2();
    out[(i, 14)] = a.log10();
    out[(i, 15)] = a.powf(w);
    out[(i, 16)] = v.cbrt();
    out[(i, 17)] = v.hypot(w);
}

/// Values with a fraction at every magnitude from 2^-3 to 2^52 (the fraction is lost near 2^53),
/// both signs, halves included.
fn with_fractions(seed: u64, n: usize) -> Vec<f64> {
    crate::splitmix(seed, n)
        .into_iter()
        .map(|r| {
            let k = (r % 56) as i32 - 3;
            let frac = [0.25, 0.5, 0.75, 0.125][(r >> 8) as usize % 4];
            let v = 2f64.powi(k) + frac;
            if r >> 63 == 1 {
                -v
            } else {
                v
            }
        })
        .collect()
}

fn rounding_matches<E: ExecutionSpace>(space: E) {
    check(8, (1usize..300, any::<u64>()), |(n, seed)| {
        let xs = with_fractions(seed, n);
        let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone())?;
        let out: DevView<E, f64, 2> = dev(&space, "out", [n, 5])?;
        parallel_for(
            "rounding",
            RangePolicy::new(&space, 0..n),
            rounding_f64(&out, &x),
        )?;
        let want: Vec<f64> = xs
            .iter()
            .flat_map(|v| [v.trunc(), v.round(), v.fract(), v.floor(), v.ceil()])
            .collect();
        let got = to_host(&out);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "f64 {} of {}: {} vs {}",
                k % 5,
                xs[k / 5],
                g,
                w
            );
        }
        let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        let x32: DevView<E, f32> = dev_from_vec(&space, "x32", [n], xs32.clone())?;
        let out32: DevView<E, f32, 2> = dev(&space, "out32", [n, 5])?;
        parallel_for(
            "rounding32",
            RangePolicy::new(&space, 0..n),
            rounding_f32(&out32, &x32),
        )?;
        let want32: Vec<f32> = xs32
            .iter()
            .flat_map(|v| [v.trunc(), v.round(), v.fract(), v.floor(), v.ceil()])
            .collect();
        let got32 = to_host(&out32);
        for (k, (g, w)) in got32.iter().zip(&want32).enumerate() {
            prop_assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "f32 {} of {}: {} vs {}",
                k % 5,
                xs32[k / 5],
                g,
                w
            );
        }
        Ok(())
    });
}
per_backend!(rounding_matches);

fn f64_transcendentals_match<E: ExecutionSpace>(space: E) {
    check(6, (1usize..200, any::<u64>()), |(n, seed)| {
        let r = crate::splitmix(seed, 2 * n);
        let unit = |u: u64| (u >> 11) as f64 / (1u64 << 53) as f64;
        let xs: Vec<f64> = (0..n).map(|i| (unit(r[i]) - 0.5) * 60.0).collect();
        let ys: Vec<f64> = (0..n).map(|i| (unit(r[n + i]) - 0.5) * 16.0).collect();
        let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone())?;
        let y: DevView<E, f64> = dev_from_vec(&space, "y", [n], ys.clone())?;
        let out: DevView<E, f64, 2> = dev(&space, "out", [n, 18])?;
        parallel_for(
            "transcendental",
            RangePolicy::new(&space, 0..n),
            transcendental_f64(&out, &x, &y),
        )?;
        let want: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .flat_map(|(&v, &w)| {
                let a = v.abs() + 0.5;
                [
                    v.sin(),
                    v.cos(),
                    (v * 0.1).tan(),
                    (v / (1.0 + v.abs())).asin(),
                    (v / (1.0 + v.abs())).acos(),
                    v.atan(),
                    v.atan2(w),
                    (v * 0.1).sinh(),
                    (v * 0.1).cosh(),
                    v.tanh(),
                    (v * 0.5).exp(),
                    (v * 0.5).exp2(),
                    a.ln(),
                    a.log2(),
                    a.log10(),
                    a.powf(w),
                    v.cbrt(),
                    v.hypot(w),
                ]
            })
            .collect();
        floats_match(&space, &to_host(&out), &want)
    });
}
per_backend!(f64_transcendentals_match);

#[kernel]
fn rem_f64(i: usize, out: ViewMut<f64, 2>, x: View<f64>, y: View<f64>) {
    out[(i, 0)] = x[i] % y[i];
    out[(i, 1)] = x[i].rem_euclid(y[i]);
}

#[kernel]
fn rem_f32(i: usize, out: ViewMut<f32, 2>, x: View<f32>, y: View<f32>) {
    out[(i, 0)] = x[i] % y[i];
    out[(i, 1)] = x[i].rem_euclid(y[i]);
}

/// Edge operand pairs of float `%` (as f64; the f32 test rounds them): huge quotients, exact
/// multiples (a zero result keeps the dividend's sign), infinite and zero divisors, NaN, subnormals.
fn rem_edges() -> Vec<(f64, f64)> {
    let inf = f64::INFINITY;
    let mut v = vec![
        (1e300, 709.7),
        (1e22, 3.0),
        (5.0, inf),
        (5.0, -inf),
        (-5.0, inf),
        (-0.0, 3.0),
        (0.0, -3.0),
        (-6.0, 3.0),
        (6.0, -3.0),
        (-7.5, 2.0),
        (7.5, -2.0),
        (5.0, 0.0),
        (5.0, -0.0),
        (inf, 2.0),
        (-inf, inf),
        (f64::NAN, 2.0),
        (2.0, f64::NAN),
        (0.0, 0.0),
        (5e-324, 3e-323),
        (3e-323, 5e-324),
        (7e-323, 3e-323),
        (-1e-310, 3e-320),
        (f64::MAX, f64::MIN_POSITIVE),
        (f64::MAX, 5e-324),
        (f64::MAX, -1.5),
        (f64::MIN_POSITIVE, 5e-324),
        (1.0, 0.1),
        (-1e-300, 3.0),
        (-1e-30, 3.0),
        (1e38, 3e-38),
        (3.4e38, 1.17e-38),
        (3.4e38, 1e-45),
        (2.0, 3.0),
        (3.0, 3.0),
        (-3.0, 3.0),
        (1e-45, 1e-45),
    ];
    for k in [-1074, -1022, -149, -126, -1, 0, 52, 53, 127, 1023] {
        let p = 2f64.powi(k);
        v.extend([(p, 3.0), (3.0 * p, p), (p * 1.5, p * 0.75), (-p, 0.7)]);
    }
    v
}

/// Float `%` and `rem_euclid` on every backend, bit for bit against Rust (both exact: `%` is C's
/// `fmod`), f32 and f64; a NaN matches any NaN. (Audit item 7: `1e300 % 709.7` was 1.49e284 on
/// wgpu, `1e22 % 3.0` 0, `5.0 % inf` NaN, and `-0.0 % y` lost the sign.)
fn float_rem_is_exact<E: ExecutionSpace>(space: E) {
    check(3, any::<u64>(), |seed| {
        let r = crate::splitmix(seed, 256);
        let mut pairs = rem_edges();
        // Random bit patterns (every exponent, NaN and infinity included) and random ratios.
        for k in 0..64 {
            pairs.push((f64::from_bits(r[2 * k]), f64::from_bits(r[2 * k + 1])));
            let e = (r[128 + k] % 200) as i32 - 100;
            pairs.push((
                (r[192 + k] >> 11) as f64 * 2f64.powi(e),
                (r[128 + k] >> 40) as f64 + 0.5,
            ));
        }
        let n = pairs.len();
        let (xs, ys): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
        let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone())?;
        let y: DevView<E, f64> = dev_from_vec(&space, "y", [n], ys.clone())?;
        let out: DevView<E, f64, 2> = dev(&space, "out", [n, 2])?;
        parallel_for(
            "rem_f64",
            RangePolicy::new(&space, 0..n),
            rem_f64(&out, &x, &y),
        )?;
        let got = to_host(&out);
        let same64 = |g: f64, w: f64| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
        for k in 0..n {
            let (a, b) = (xs[k], ys[k]);
            let (g0, g1) = (got[2 * k], got[2 * k + 1]);
            prop_assert!(
                same64(g0, a % b),
                "{:e} % {:e}: got {:e}, Rust {:e}",
                a,
                b,
                g0,
                a % b
            );
            let w1 = a.rem_euclid(b);
            prop_assert!(
                same64(g1, w1),
                "{:e}.rem_euclid({:e}): got {:e}, Rust {:e}",
                a,
                b,
                g1,
                w1
            );
        }
        // f32: the same pairs rounded, plus random f32 bit patterns.
        let mut xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        let mut ys32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
        for &bits in &r[..64] {
            xs32.push(f32::from_bits(bits as u32));
            ys32.push(f32::from_bits((bits >> 32) as u32));
        }
        let n = xs32.len();
        let x: DevView<E, f32> = dev_from_vec(&space, "x32", [n], xs32.clone())?;
        let y: DevView<E, f32> = dev_from_vec(&space, "y32", [n], ys32.clone())?;
        let out: DevView<E, f32, 2> = dev(&space, "out32", [n, 2])?;
        parallel_for(
            "rem_f32",
            RangePolicy::new(&space, 0..n),
            rem_f32(&out, &x, &y),
        )?;
        let got = to_host(&out);
        let same32 = |g: f32, w: f32| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
        for k in 0..n {
            let (a, b) = (xs32[k], ys32[k]);
            let (g0, g1) = (got[2 * k], got[2 * k + 1]);
            prop_assert!(
                same32(g0, a % b),
                "{:e} % {:e}: got {:e}, Rust {:e}",
                a,
                b,
                g0,
                a % b
            );
            let w1 = a.rem_euclid(b);
            prop_assert!(
                same32(g1, w1),
                "{:e}.rem_euclid({:e}): got {:e}, Rust {:e}",
                a,
                b,
                g1,
                w1
            );
        }
        Ok(())
    });
}
per_backend!(float_rem_is_exact);

#[kernel]
fn min_max_zeros(
    i: usize,
    out: ViewMut<f64, 2>,
    out32: ViewMut<f32, 2>,
    x: View<f64>,
    y: View<f64>,
) {
    let (a, b) = (x[i], y[i]);
    out[(i, 0)] = a.max(b);
    out[(i, 1)] = a.min(b);
    out[(i, 2)] = f64::max(b, a);
    out32[(i, 0)] = (a as f32).max(b as f32);
    out32[(i, 1)] = (a as f32).min(b as f32);
    out32[(i, 2)] = (b as f32).min(a as f32);
}

/// `max`/`min` of floats: a NaN operand gives the other one, and of two zeros (which compare
/// equal) the receiver, as Rust's `max`/`min` return on x86-64 in unoptimised code (Rust leaves
/// the choice open; the IR pins this one, `rokkos::ir::ops::math`). The expectation is spelled
/// out, not computed by `std`. Optimised native code may return either zero (LLVM treats `max` as
/// commutative: `f64::max(-0.0, 0.0)` inlined in a loop gives `0.0` in a release build), so a
/// release build of this test holds the host backends to the value only, the sign of a zero result
/// left open, and the evaluator and device backends to the pinned rule as always. (Audit item 11:
/// `0.0.max(-0.0)` was -0.0 on wgpu.)
fn float_min_max_pin_signed_zeros<E: ExecutionSpace>(space: E) {
    let nan = f64::NAN;
    let pairs = [
        (0.0, -0.0),
        (-0.0, 0.0),
        (0.0, 0.0),
        (-0.0, -0.0),
        (nan, -0.0),
        (-0.0, nan),
        (nan, nan),
        (1.0, -0.0),
        (-1.0, 0.0),
        (f64::INFINITY, nan),
    ];
    let n = pairs.len();
    let (xs, ys): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs).unwrap();
    let y: DevView<E, f64> = dev_from_vec(&space, "y", [n], ys).unwrap();
    let out: DevView<E, f64, 2> = dev(&space, "out", [n, 3]).unwrap();
    let out32: DevView<E, f32, 2> = dev(&space, "out32", [n, 3]).unwrap();
    parallel_for(
        "min_max_zeros",
        RangePolicy::new(&space, 0..n),
        min_max_zeros(&out, &out32, &x, &y),
    )
    .unwrap();
    let (got, got32) = (to_host(&out), to_host(&out32));
    // The pinned rule: NaN loses; equal operands give the receiver.
    let pick = |recv: f64, other: f64, greater: bool| {
        if recv.is_nan() || (greater && other > recv) || (!greater && other < recv) {
            other
        } else {
            recv
        }
    };
    let zero_sign_open = !cfg!(debug_assertions) && matches!(space.name(), "serial" | "rayon");
    let same = |g: f64, w: f64| {
        (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits() || (zero_sign_open && g == w)
    };
    for (k, &(a, b)) in pairs.iter().enumerate() {
        let want = [pick(a, b, true), pick(a, b, false), pick(b, a, true)];
        let want32 = [pick(a, b, true), pick(a, b, false), pick(b, a, false)];
        for c in 0..3 {
            assert!(
                same(got[3 * k + c], want[c]),
                "{} f64 column {c} of ({a:?}, {b:?}): got {:?}, want {:?}",
                space.name(),
                got[3 * k + c],
                want[c]
            );
            assert!(
                same(got32[3 * k + c] as f64, want32[c]),
                "{} f32 column {c} of ({a:?}, {b:?}): got {:?}, want {:?}",
                space.name(),
                got32[3 * k + c],
                want32[c]
            );
        }
    }
}
per_backend!(float_min_max_pin_signed_zeros);

#[kernel]
fn fused(
    i: usize,
    out: ViewMut<f64>,
    out32: ViewMut<f32>,
    a: View<f64>,
    b: View<f64>,
    c: View<f64>,
) {
    out[i] = a[i].mul_add(b[i], c[i]);
    out32[i] = (a[i] as f32).mul_add(b[i] as f32, c[i] as f32);
}

/// Triples where a fused multiply-add differs from `a * b + c`, or whose exact value is hard to
/// round: the product's rounding error alone (`c = -fl(a·b)`), products on a rounding tie nudged
/// by a tiny `c` of either sign, cancellation to a subnormal, overflow of the product that `c`
/// brings back, infinities, NaN, zeros of both signs.
fn fma_cases(seed: u64) -> Vec<[f64; 3]> {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let e52 = f64::EPSILON;
    let mut v = vec![
        [1.0 + e52, 1.0 - e52, -1.0],
        [
            1.0 + 2f64.powi(-27),
            1.0 + 2f64.powi(-27),
            -(1.0 + 2f64.powi(-26)),
        ],
        [1.5, 1.0 + e52, 1e-300],
        [1.5, 1.0 + e52, -1e-300],
        [1.5, 1.0 + e52, 5e-324],
        [f64::MAX, 1.5, -f64::MAX],
        [f64::MAX, 2.0, -inf],
        [1e-200, 1e-200, 0.0],
        [1e-200, -1e-200, 0.0],
        [1e-200, -1e-200, -0.0],
        [0.0, -5.0, 0.0],
        [-0.0, 5.0, -0.0],
        [0.0, inf, 1.0],
        [inf, 2.0, -inf],
        [nan, 0.0, 1.0],
        [2.0, 3.0, nan],
        [3.0, 5e-324, -1e-323],
        [2f64.powi(-540), 2f64.powi(-540), 2f64.powi(-1074)],
        [2f64.powi(-540), 2f64.powi(-534), -2f64.powi(-1073)],
        [
            1.0 + 2f64.powi(-12),
            1.0 + 2f64.powi(-12),
            -(1.0 + 2f64.powi(-11)),
        ],
        [1.0 + 2f64.powi(-23), 1.0 - 2f64.powi(-23), -1.0],
        [1e30, 1e30, -1e60],
        [3.4e38, 2.0, -3.4e38],
        [1e-30, 1e-15, 1e-44],
        [1e-22, 1e-22, -1e-44],
        [f64::MIN_POSITIVE, 0.5, 0.0],
        [-f64::MIN_POSITIVE, 0.5, 5e-324],
        [1e308, 10.0, -1e308],
        [1e-310, 1e10, 1e-310],
        // An f32 result one binade below the normal range, one bit dropped by the scaling: the
        // emulation rounded twice there (0x64fb08 instead of Rust's 0x64fb09).
        [
            7.263218e-16f32 as f64,
            1.2767896e-23f32 as f64,
            3e-45f32 as f64,
        ],
    ];
    let r = crate::splitmix(seed, 600);
    let unit = |u: u64| 1.0 + (u >> 12) as f64 * e52;
    for k in 0..100 {
        let (a, b) = (unit(r[3 * k]), unit(r[3 * k + 1]));
        let e = (r[3 * k + 2] % 400) as i32 - 200;
        let (a, b) = (a * 2f64.powi(e), -b);
        v.push([a, b, -(a * b)]);
        v.push([a, b, -(a * b) * (1.0 + e52)]);
        v.push([a, b, f64::from_bits(r[3 * k + 2])]);
        // The f32 column: an f32 product's rounding error.
        let (a32, b32) = (a as f32, b as f32);
        v.push([a32 as f64, b32 as f64, -((a32 * b32) as f64)]);
    }
    for k in 0..50 {
        v.push([
            f64::from_bits(r[300 + 3 * k]),
            f64::from_bits(r[301 + 3 * k]),
            f64::from_bits(r[302 + 3 * k]),
        ]);
    }
    v
}

/// `mul_add` is one rounding on every backend, f64 and f32, bit for bit against Rust's (audit item
/// 11: wgpu's f64 `fma` on lavapipe is a multiply and an add, 1 ulp off).
fn mul_add_is_fused<E: ExecutionSpace>(space: E) {
    check(3, any::<u64>(), |seed| {
        let cases = fma_cases(seed);
        let n = cases.len();
        let col = |k: usize| cases.iter().map(|t| t[k]).collect::<Vec<f64>>();
        let a: DevView<E, f64> = dev_from_vec(&space, "a", [n], col(0))?;
        let b: DevView<E, f64> = dev_from_vec(&space, "b", [n], col(1))?;
        let c: DevView<E, f64> = dev_from_vec(&space, "c", [n], col(2))?;
        let out: DevView<E, f64> = dev(&space, "out", [n])?;
        let out32: DevView<E, f32> = dev(&space, "out32", [n])?;
        parallel_for(
            "fused",
            RangePolicy::new(&space, 0..n),
            fused(&out, &out32, &a, &b, &c),
        )?;
        let (got, got32) = (to_host(&out), to_host(&out32));
        for (k, t) in cases.iter().enumerate() {
            let want = t[0].mul_add(t[1], t[2]);
            let ok = (want.is_nan() && got[k].is_nan()) || want.to_bits() == got[k].to_bits();
            prop_assert!(
                ok,
                "{:e}.mul_add({:e}, {:e}): got {:e}, Rust {:e}",
                t[0],
                t[1],
                t[2],
                got[k],
                want
            );
            let (a, b, c) = (t[0] as f32, t[1] as f32, t[2] as f32);
            let want = a.mul_add(b, c);
            let ok = (want.is_nan() && got32[k].is_nan()) || want.to_bits() == got32[k].to_bits();
            prop_assert!(
                ok,
                "{:e}f32.mul_add({:e}, {:e}): got {:e}, Rust {:e}",
                a,
                b,
                c,
                got32[k],
                want
            );
        }
        Ok(())
    });
}
per_backend!(mul_add_is_fused);

macro_rules! all_transcendentals {
    ($name:ident, $t:ident) => {
        #[kernel]
        fn $name(i: usize, out: ViewMut<$t, 2>, x: View<$t>, y: View<$t>) {
            let (v, w) = (x[i], y[i]);
            out[(i, 0)] = v.sin();
            out[(i, 1)] = v.cos();
            out[(i, 2)] = v.tan();
            out[(i, 3)] = v.asin();
            out[(i, 4)] = v.acos();
            out[(i, 5)] = v.atan();
            out[(i, 6)] = v.sinh();
            out[(i, 7)] = v.cosh();
            out[(i, 8)] = v.tanh();
            out[(i, 9)] = v.exp();
            out[(i, 10)] = v.exp2();
            out[(i, 11)] = v.ln();
            out[(i, 12)] = v.log2();
            out[(i, 13)] = v.log10();
            out[(i, 14)] = v.cbrt();
            out[(i, 15)] = v.atan2(w);
            out[(i, 16)] = v.powf(w);
            out[(i, 17)] = v.hypot(w);
        }
    };
}
all_transcendentals!(transcendentals_f32, f32);
all_transcendentals!(transcendentals_f64, f64);

/// The functions of `transcendentals_*`, by column, as `rokkos::ir::MathFn`s.
const TRANSCENDENTALS: [rokkos::ir::MathFn; 18] = {
    use rokkos::ir::MathFn as M;
    [
        M::Sin,
        M::Cos,
        M::Tan,
        M::Asin,
        M::Acos,
        M::Atan,
        M::Sinh,
        M::Cosh,
        M::Tanh,
        M::Exp,
        M::Exp2,
        M::Ln,
        M::Log2,
        M::Log10,
        M::Cbrt,
        M::Atan2,
        M::Powf,
        M::Hypot,
    ]
};

macro_rules! std_fn {
    ($f:expr, $x:expr, $y:expr) => {{
        let (x, y) = ($x, $y);
        match $f {
            0 => x.sin(),
            1 => x.cos(),
            2 => x.tan(),
            3 => x.asin(),
            4 => x.acos(),
            5 => x.atan(),
            6 => x.sinh(),
            7 => x.cosh(),
            8 => x.tanh(),
            9 => x.exp(),
            10 => x.exp2(),
            11 => x.ln(),
            12 => x.log2(),
            13 => x.log10(),
            14 => x.cbrt(),
            15 => x.atan2(y),
            16 => x.powf(y),
            _ => x.hypot(y),
        }
    }};
}

/// Pairs every function meets: signed zeros, subnormals, infinities, NaN, the C99 special cases of
/// `powf`, `atan2` and `hypot`, values where results overflow or underflow, and ordinary ones.
fn special_pairs() -> Vec<(f64, f64)> {
    let xs = [
        0.0,
        -0.0,
        5e-324,
        -1e-310,
        1e-40,
        -1.4e-45,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        0.9999,
        3.0,
        -2.5,
        1e-20,
        89.0,
        -104.0,
        720.0,
        -750.0,
        1e10,
        f32::MAX as f64,
        f64::MAX,
    ];
    let ys = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        3.0,
        -3.0,
        2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    xs.iter()
        .flat_map(|&x| ys.iter().map(move |&y| (x, y)))
        .collect()
}

macro_rules! check_transcendentals {
    ($space:expr, $e:ty, $k:ident, $t:ident, $pairs:expr) => {{
        let space = $space;
        let pairs: Vec<($t, $t)> = $pairs.iter().map(|&(a, b)| (a as $t, b as $t)).collect();
        let n = pairs.len();
        let x: DevView<$e, $t> =
            dev_from_vec(space, "x", [n], pairs.iter().map(|p| p.0).collect())?;
        let y: DevView<$e, $t> =
            dev_from_vec(space, "y", [n], pairs.iter().map(|p| p.1).collect())?;
        let out: DevView<$e, $t, 2> = dev(space, "out", [n, 18])?;
        parallel_for(
            stringify!($k),
            RangePolicy::new(space, 0..n),
            $k(&out, &x, &y),
        )?;
        let got = to_host(&out);
        for (k, &(a, b)) in pairs.iter().enumerate() {
            for (f, func) in TRANSCENDENTALS.iter().enumerate() {
                let (g, w): ($t, $t) = (got[18 * k + f], std_fn!(f, a, b));
                let arg = if f >= 15 {
                    format!("({a:e}, {b:e})")
                } else {
                    format!("{a:e}")
                };
                if !w.is_finite() || w == 0.0 || !g.is_finite() || g == 0.0 {
                    prop_assert!(
                        (w.is_nan() && g.is_nan()) || w.to_bits() == g.to_bits(),
                        "{} {}{}{}: got {:e}, Rust {:e}",
                        space.name(),
                        stringify!($t),
                        func.name(),
                        arg,
                        g,
                        w
                    );
                } else {
                    let d = (g.to_bits() as i64 - w.to_bits() as i64).unsigned_abs();
                    prop_assert!(
                        g.signum() == w.signum() && d <= u64::from(func.max_ulp_from_std()),
                        "{} {}{}{}: got {:e}, Rust {:e} ({} ulp, contract {})",
                        space.name(),
                        stringify!($t),
                        func.name(),
                        arg,
                        g,
                        w,
                        d,
                        func.max_ulp_from_std()
                    );
                }
            }
        }
    }};
}

/// The special pairs and 100 random ones of `seed`, for the transcendental tests.
fn transcendental_pairs(seed: u64) -> Vec<(f64, f64)> {
    let mut pairs = special_pairs();
    let r = crate::splitmix(seed, 200);
    for k in 0..100 {
        let unit = |u: u64| (u >> 11) as f64 / (1u64 << 53) as f64;
        let x = (unit(r[2 * k]) - 0.5) * 2f64.powi((r[2 * k] % 40) as i32 - 10);
        pairs.push((x, (unit(r[2 * k + 1]) - 0.5) * 20.0));
    }
    pairs
}

/// Every transcendental function, f32 and f64 (one test each, so that the f32 one runs on the
/// device without SHADER_INT64 and SHADER_F64), on every backend: NaN, infinities, signed zeros,
/// overflow and underflow exactly as Rust gives them, finite results within the contract's distance
/// from Rust's (`MathFn::max_ulp_from_std`; 0 on the host backends and the evaluator, which are
/// Rust). (Audit items 8 and 11: on wgpu `atan(NaN)` was 0, `hypot(NaN, 1)` 1.414, `powf(-inf, 0.5)`
/// NaN, `tanh(1e-40)` 2.98e-8, `sinh(-0.0)` 0.0, subnormals flushed by `ln`, `log2`, `cbrt`.)
fn f32_transcendentals_keep_rusts_special_values<E: ExecutionSpace>(space: E) {
    check(2, any::<u64>(), |seed| {
        let pairs = transcendental_pairs(seed);
        check_transcendentals!(&space, E, transcendentals_f32, f32, pairs);
        Ok(())
    });
}
per_backend!(f32_transcendentals_keep_rusts_special_values);

/// [`f32_transcendentals_keep_rusts_special_values`] on `f64`.
fn f64_transcendentals_keep_rusts_special_values<E: ExecutionSpace>(space: E) {
    check(2, any::<u64>(), |seed| {
        let pairs = transcendental_pairs(seed);
        check_transcendentals!(&space, E, transcendentals_f64, f64, pairs);
        Ok(())
    });
}
per_backend!(f64_transcendentals_keep_rusts_special_values);

macro_rules! exact_functions {
    ($name:ident, $t:ident) => {
        #[kernel]
        fn $name(i: usize, out: ViewMut<$t, 2>, x: View<$t>, y: View<$t>, n: View<i32>) {
            let (v, w) = (x[i], y[i]);
            out[(i, 0)] = v.sqrt();
            out[(i, 1)] = v.abs();
            out[(i, 2)] = v.floor();
            out[(i, 3)] = v.ceil();
            out[(i, 4)] = v.round();
            out[(i, 5)] = v.trunc();
            out[(i, 6)] = v.fract();
            out[(i, 7)] = v.signum();
            out[(i, 8)] = v.recip();
            out[(i, 9)] = v.powi(n[i]);
            out[(i, 10)] = -v;
            out[(i, 11)] = v * w;
            out[(i, 12)] = v + w;
            out[(i, 13)] = v - w;
            out[(i, 14)] = v / w;
            out[(i, 15)] = v.clamp(-1.0, 1.0);
        }
    };
}
exact_functions!(exact_f32, f32);
exact_functions!(exact_f64, f64);

macro_rules! exact_reference {
    ($v:expr, $w:expr, $n:expr) => {{
        let (v, w, n) = ($v, $w, $n);
        [
            v.sqrt(),
            v.abs(),
            v.floor(),
            v.ceil(),
            v.round(),
            v.trunc(),
            v.fract(),
            v.signum(),
            v.recip(),
            v.powi(n),
            -v,
            v * w,
            v + w,
            v - w,
            v / w,
            v.clamp(-1.0, 1.0),
        ]
    }};
}

macro_rules! check_exact {
    ($space:expr, $e:ty, $k:ident, $t:ident, $cases:expr) => {{
        let space = $space;
        let cases: Vec<($t, $t, i32)> = $cases
            .iter()
            .map(|&(a, b, n)| (a as $t, b as $t, n))
            .collect();
        let m = cases.len();
        let x: DevView<$e, $t> =
            dev_from_vec(space, "x", [m], cases.iter().map(|c| c.0).collect())?;
        let y: DevView<$e, $t> =
            dev_from_vec(space, "y", [m], cases.iter().map(|c| c.1).collect())?;
        let n: DevView<$e, i32> =
            dev_from_vec(space, "n", [m], cases.iter().map(|c| c.2).collect())?;
        let out: DevView<$e, $t, 2> = dev(space, "out", [m, 16])?;
        parallel_for(
            stringify!($k),
            RangePolicy::new(space, 0..m),
            $k(&out, &x, &y, &n),
        )?;
        let got = to_host(&out);
        const NAMES: [&str; 16] = [
            "sqrt", "abs", "floor", "ceil", "round", "trunc", "fract", "signum", "recip", "powi",
            "neg", "mul", "add", "sub", "div", "clamp",
        ];
        for (k, &(a, b, p)) in cases.iter().enumerate() {
            let want = exact_reference!(a, b, p);
            for c in 0..16 {
                let g = got[16 * k + c];
                prop_assert!(
                    (g.is_nan() && want[c].is_nan()) || g.to_bits() == want[c].to_bits(),
                    "{} {} {}({:?}, {:?}, {}): got {:?}, Rust {:?}",
                    space.name(),
                    stringify!($t),
                    NAMES[c],
                    a,
                    b,
                    p,
                    g,
                    want[c]
                );
            }
        }
    }};
}

/// The exact float functions and operators on signed zeros, infinities, NaN, halves and
/// subnormals, bit for bit against Rust on every backend (the sign of every zero included:
/// `floor(-0.5)`, `round(-0.4)`, `fract(-3.0)`, `powi(-0.0, 3)`, `signum(-0.0)`, `recip(-0.0)`,
/// `sqrt(-0.0)`, `-0.0 + 0.0`, ...).
fn exact_functions_keep_signed_zeros<E: ExecutionSpace>(space: E) {
    let vals = [
        0.0f64,
        -0.0,
        0.5,
        -0.5,
        -0.4,
        1.5,
        -2.5,
        -3.0,
        1e-310,
        -1e-40,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        4503599627370497.5,
        -8388609.5,
        1e300,
    ];
    let mut cases = Vec::new();
    for (k, &a) in vals.iter().enumerate() {
        for &b in &[0.0, -0.0, 2.0, -1e-300, f64::INFINITY, f64::NAN] {
            cases.push((a, b, [0, 1, -1, 2, 3, -3, 31][k % 7]));
        }
    }
    check(1, Just(()), |()| {
        check_exact!(&space, E, exact_f32, f32, cases);
        check_exact!(&space, E, exact_f64, f64, cases);
        Ok(())
    });
}
per_backend!(exact_functions_keep_signed_zeros);

/// The float predicates and `signum` of every class of value, on both float types. `x` and `y`
/// come from a View, so that no compiler knows them; the results are 0/1 flags.
#[kernel]
fn predicates(i: usize, out: ViewMut<i32, 2>, s: ViewMut<f64, 2>, x: View<f64>, y: View<f32>) {
    let v = x[i];
    let w = y[i];
    out[(i, 0)] = v.is_nan() as i32;
    out[(i, 1)] = v.is_finite() as i32;
    out[(i, 2)] = w.is_nan() as i32;
    out[(i, 3)] = w.is_finite() as i32;
    // A loop that only a finite value enters (the fuzzer's reproducer of `is_finite(inf)`).
    let mut n = 0;
    while v.is_finite() && n < 2 {
        n += 1;
    }
    out[(i, 4)] = n;
    s[(i, 0)] = v.signum();
    s[(i, 1)] = w.signum() as f64;
}

/// `is_nan`, `is_finite` and `signum` give Rust's answers for ±0, subnormals, the extremes, ±∞
/// and NaNs of either sign. On wgpu `is_finite(∞)` was true: the IR spelled it `x - x == x - x`,
/// which lavapipe folds to `true`.
fn float_predicates_match<E: ExecutionSpace>(space: E) {
    let xs: Vec<f64> = vec![
        0.0,
        -0.0,
        1.5,
        -2.0,
        f64::MIN_POSITIVE / 4.0,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
        1e300,
    ];
    let ys: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let n = xs.len();
    let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone()).unwrap();
    let y: DevView<E, f32> = dev_from_vec(&space, "y", [n], ys.clone()).unwrap();
    let out: DevView<E, i32, 2> = dev(&space, "out", [n, 5]).unwrap();
    let s: DevView<E, f64, 2> = dev(&space, "s", [n, 2]).unwrap();
    parallel_for(
        "predicates",
        RangePolicy::new(&space, 0..n),
        predicates(&out, &s, &x, &y),
    )
    .unwrap();
    let (got, sg) = (to_host(&out), to_host(&s));
    for i in 0..n {
        let (v, w) = (xs[i], ys[i]);
        let want = [
            v.is_nan() as i32,
            v.is_finite() as i32,
            w.is_nan() as i32,
            w.is_finite() as i32,
            if v.is_finite() { 2 } else { 0 },
        ];
        assert_eq!(&got[i * 5..i * 5 + 5], &want, "{v:?} on {}", space.name());
        for (g, w) in [(sg[i * 2], v.signum()), (sg[i * 2 + 1], w.signum() as f64)] {
            assert!(
                (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits(),
                "signum({v:?}) = {g:?}, Rust {w:?} on {}",
                space.name()
            );
        }
    }
}
per_backend!(float_predicates_match);

/// Operations whose operands are all constants. naga evaluates such an operation when it creates
/// the shader and refused each of these (`abs` of an f64, casts of 64-bit integers, `log2(0)`,
/// `asin(2)`, a shift whose result overflows, an infinite quotient): the launch failed with
/// `Err(Compile)` on wgpu where Rust computes a value (fuzzer finding `fuzz/naga-const`).
#[kernel]
fn constant_operands(i: usize, f: ViewMut<f64, 2>, n: ViewMut<i64, 2>) {
    f[(i, 0)] = (-2.5f64).abs();
    f[(i, 1)] = 0.0f32.log2() as f64;
    f[(i, 2)] = (1.0e30f32 / -1.0e-30f32) as f64;
    f[(i, 3)] = (16u32 as i64) as f64;
    f[(i, 4)] = 2.0f64.asin();
    f[(i, 5)] = (-0.0f64).sqrt();
    n[(i, 0)] = (1i64 as u32) as i64;
    n[(i, 1)] = (127i32 << 31) as i64;
    n[(i, 2)] = (-1i64 as u64 >> 1) as i64;
    n[(i, 3)] = 3000000000u32 as i64;
}

/// [`constant_operands`] gives Rust's values on every backend.
fn constant_operands_compile<E: ExecutionSpace>(space: E) {
    let f: DevView<E, f64, 2> = dev(&space, "f", [2, 6]).unwrap();
    let n: DevView<E, i64, 2> = dev(&space, "n", [2, 4]).unwrap();
    parallel_for(
        "constant_operands",
        RangePolicy::new(&space, 0..2),
        constant_operands(&f, &n),
    )
    .unwrap();
    use std::hint::black_box as black;
    let want_f = [
        black(-2.5f64).abs(),
        black(0.0f32).log2() as f64,
        (black(1.0e30f32) / black(-1.0e-30f32)) as f64,
        black(16u32) as i64 as f64,
        black(2.0f64).asin(),
        black(-0.0f64).sqrt(),
    ];
    let want_n = [
        black(1i64) as u32 as i64,
        (black(127i32) << 31) as i64,
        (black(-1i64) as u64 >> 1) as i64,
        black(3000000000u32) as i64,
    ];
    let (gf, gn) = (to_host(&f), to_host(&n));
    for i in 0..2 {
        for (k, w) in want_f.iter().enumerate() {
            let g = gf[i * 6 + k];
            assert!(
                (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits(),
                "value {k}: {g:?}, Rust {w:?} on {}",
                space.name()
            );
        }
        assert_eq!(&gn[i * 4..i * 4 + 4], &want_n, "on {}", space.name());
    }
}
per_backend!(constant_operands_compile);
