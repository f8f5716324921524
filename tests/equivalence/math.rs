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
