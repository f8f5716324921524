//! The `f32` transcendental functions of the wgpu backend (the software library written once as
//! IR, `rokkos_device::emit::softmath`) held to the precision contract of
//! `rokkos::ir::ops::math`: within 1 ulp of the exact value, and NaN, infinities, signed zeros,
//! overflow and underflow exactly as Rust's own `f32` methods give them.
//!
//! Each function runs on a few thousand inputs: its edge cases (±0, subnormals, the thresholds
//! where a result overflows, underflows or stops changing, values next to multiples of π/2, the
//! C99 special-value tables of `powf`, `atan2` and `hypot`) and a spread over its domain (both signs,
//! every binade, random bit patterns). The exact value is the `f64` function of the same (exactly
//! widened) arguments, whose own error (under 2⁻⁵² relative) is far below an `f32` ulp. The test
//! prints, per function, the largest error against the exact value and against Rust's `f32` result
//! (`--nocapture`), so a run on a new adapter says what it achieves. (Audit item 8: WGSL's
//! built-ins gave `atan(NaN) = 0`, `hypot(NaN, 1) = 1.414`, `powf(-inf, 0.5) = NaN`,
//! `tanh(1e-40) = 2.98e-8`, flushed subnormals in `ln`/`log2`/`cbrt`, and `asin`/`acos` were up to
//! ~3500 ulp off.)
#![cfg(feature = "wgpu")]

use rokkos::prelude::*;

/// The functions, by column.
const NAMES: [&str; 18] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "exp2", "ln",
    "log2", "log10", "cbrt", "atan2", "powf", "hypot",
];

/// The contract's bound, in ulps of the result, against the exact value.
const MAX_ULP: f64 = 1.0;

#[kernel]
fn f32_math(i: usize, out: ViewMut<f32, 2>, x: View<f32>, y: View<f32>) {
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

fn rust32(f: usize, x: f32, y: f32) -> f32 {
    match f {
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
}

fn exact(f: usize, x: f32, y: f32) -> f64 {
    let (x, y) = (x as f64, y as f64);
    match f {
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
}

/// The distance of `got` from the exact value `want`, in ulps of `f32` at `want` (the ulp of the
/// binade of `|want|`, 2⁻¹⁴⁹ below the normal range).
fn ulp_error(got: f32, want: f64) -> f64 {
    let a = want.abs();
    let e = if a < f32::MIN_POSITIVE as f64 {
        -149
    } else {
        a.log2().floor() as i32 - 23
    };
    ((got as f64) - want).abs() / 2f64.powi(e)
}

/// Distance in ulps between two finite `f32`s.
fn ulps32(a: f32, b: f32) -> u64 {
    let ord = |x: f32| {
        let b = x.to_bits() as i32 as i64;
        if b < 0 {
            i32::MIN as i64 - b
        } else {
            b
        }
    };
    ord(a).abs_diff(ord(b))
}

/// A deterministic pseudo-random sequence (SplitMix64).
fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// `n` values with magnitudes spread log-uniformly over `[2^lo, 2^hi]`, both signs unless
/// `positive`.
fn spread(seed: u64, n: usize, lo: f64, hi: f64, positive: bool) -> Vec<f32> {
    splitmix(seed, n)
        .into_iter()
        .map(|r| {
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            let v = 2f64.powf(lo + (hi - lo) * u) as f32;
            if !positive && r & 1 == 1 {
                -v
            } else {
                v
            }
        })
        .collect()
}

/// `n` values uniform in `[lo, hi]`.
fn uniform(seed: u64, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    splitmix(seed, n)
        .into_iter()
        .map(|r| (lo + (hi - lo) * ((r >> 11) as f64 / (1u64 << 53) as f64)) as f32)
        .collect()
}

/// `x` and its neighbours one and two ulps away on both sides.
fn around(x: f32) -> Vec<f32> {
    let b = x.to_bits();
    [b.wrapping_sub(2), b.wrapping_sub(1), b, b + 1, b + 2]
        .into_iter()
        .map(f32::from_bits)
        .collect()
}

/// Values every function meets: zeros, subnormals, the extremes, infinities, NaN.
fn common_edges() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.5,
        2.0,
    ];
    for k in [-126, -24, -13, -12, -11, 12, 24, 25, 26, 27, 60, 126] {
        v.extend(around(2f32.powi(k)));
        v.extend(around(-(2f32.powi(k))));
    }
    v
}

/// How many times the default number of random inputs to draw: `ROKKOS_MATH_SWEEP=<n>` (default 1,
/// a few thousand inputs per function, what CI runs) for a longer sweep on demand.
fn sweep() -> usize {
    std::env::var("ROKKOS_MATH_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// The inputs `(x, y)` of function `f`.
fn inputs(f: usize) -> Vec<(f32, f32)> {
    let seed = 1000 + f as u64 + 7919 * (sweep() as u64 - 1);
    let spread = |seed: u64, n: usize, lo: f64, hi: f64, positive: bool| {
        spread(seed, n * sweep(), lo, hi, positive)
    };
    let uniform = |seed: u64, n: usize, lo: f64, hi: f64| uniform(seed, n * sweep(), lo, hi);
    let one = |xs: Vec<f32>| -> Vec<(f32, f32)> { xs.into_iter().map(|x| (x, 1.0)).collect() };
    let bits = |n: usize| -> Vec<f32> {
        splitmix(seed * 7, n * sweep())
            .into_iter()
            .map(|r| f32::from_bits(r as u32))
            .collect()
    };
    let mut xs = common_edges();
    match f {
        // sin, cos, tan: multiples of π/2 and their neighbours, the whole range.
        0..=2 => {
            for k in 1..64 {
                xs.extend(around((k as f64 * std::f64::consts::FRAC_PI_2) as f32));
            }
            use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI, TAU};
            for &c in &[FRAC_PI_4, FRAC_PI_2, PI, 3.0 * FRAC_PI_2, TAU, 1e4, 1e6] {
                xs.extend(around(c));
                xs.extend(around(-c));
            }
            // Floats known to be very close to multiples of π/2.
            for b in [
                0x4afd_0ad8u32,
                0x5922_aa80,
                0x5d08_0000,
                0x6d0c_28d7,
                0x7a54_0000,
            ] {
                xs.extend(around(f32::from_bits(b)));
            }
            xs.extend(spread(seed, 2000, -20.0, 20.0, false));
            xs.extend(spread(seed + 1, 500, 20.0, 127.9, false));
            xs.extend(bits(300));
            one(xs)
        }
        // asin, acos: [-1, 1] and just outside.
        3 | 4 => {
            for c in [0.5f32, -0.5, 1.0, -1.0, 0.999_999_9, 0.25] {
                xs.extend(around(c));
            }
            xs.extend(uniform(seed, 2000, -1.0, 1.0));
            xs.extend(spread(seed + 1, 500, -30.0, 0.0, false));
            one(xs)
        }
        // atan.
        5 => {
            for c in [0.25f32, 0.75, 1.3333334, 4.0, 67108864.0] {
                xs.extend(around(c));
                xs.extend(around(-c));
            }
            xs.extend(spread(seed, 2500, -30.0, 40.0, false));
            xs.extend(bits(300));
            one(xs)
        }
        // sinh, cosh, tanh.
        6..=8 => {
            for c in [9.0f32, 10.0, 12.0, 88.72284, 89.41599, 89.416, 90.0] {
                xs.extend(around(c));
                xs.extend(around(-c));
            }
            xs.extend(uniform(seed, 2000, -92.0, 92.0));
            xs.extend(spread(seed + 1, 800, -30.0, 4.0, false));
            one(xs)
        }
        // exp, exp2.
        9 | 10 => {
            let (lo, hi) = if f == 9 {
                (-106.0, 92.0)
            } else {
                (-152.0, 130.0)
            };
            for c in [
                88.72283f32,
                88.72284,
                -87.33654,
                -103.27893,
                -103.97208,
                127.99999,
                -126.0,
                -149.0,
                -150.0,
            ] {
                xs.extend(around(c));
            }
            xs.extend(uniform(seed, 2500, lo, hi));
            xs.extend(spread(seed + 1, 500, -30.0, 2.0, false));
            one(xs)
        }
        // ln, log2, log10: every positive float (subnormals included), powers of 2 and 10.
        11..=13 => {
            for k in 0..11 {
                xs.extend(around(10f32.powi(k)));
                xs.push(10f32.powi(-k));
            }
            for k in -149..128 {
                xs.push(2f32.powi(k));
            }
            use std::f32::consts::{FRAC_1_SQRT_2, SQRT_2};
            for c in [FRAC_1_SQRT_2, SQRT_2, 0.99999994, 1.0000001] {
                xs.extend(around(c));
            }
            xs.extend(bits(2000).into_iter().map(f32::abs));
            xs.extend(spread(seed, 1000, -10.0, 10.0, true));
            one(xs)
        }
        // cbrt: every float.
        14 => {
            for k in [1, 8, 27, 64, 1000] {
                xs.extend(around(k as f32));
                xs.extend(around(-(k as f32)));
            }
            xs.extend(bits(2500));
            xs.extend(spread(seed, 500, -140.0, 127.0, false));
            one(xs)
        }
        // atan2: the C99 special cases and pairs over every quadrant and magnitude ratio.
        15 => {
            let sp = [
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1e-40,
                -3.0,
            ];
            let mut v: Vec<(f32, f32)> = sp
                .iter()
                .flat_map(|&y| sp.iter().map(move |&x| (y, x)))
                .collect();
            let a = spread(seed, 3000, -40.0, 40.0, false);
            let b = spread(seed + 1, 3000, -40.0, 40.0, false);
            v.extend(a.into_iter().zip(b));
            let c = spread(seed + 2, 300, -149.0, 127.0, false);
            let d = spread(seed + 3, 300, -149.0, 127.0, false);
            v.extend(c.into_iter().zip(d));
            v
        }
        // powf: the C99 special cases, negative bases with integer exponents, and the range.
        16 => {
            let sx = [
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                0.5,
                -0.5,
                2.0,
                -2.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1e-40,
            ];
            let sy = [
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                2.0,
                3.0,
                -3.0,
                0.5,
                -0.5,
                2.5,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                16777216.0,
                16777215.0,
            ];
            let mut v: Vec<(f32, f32)> = sx
                .iter()
                .flat_map(|&x| sy.iter().map(move |&y| (x, y)))
                .collect();
            let a = spread(seed, 2500, -8.0, 8.0, true);
            let b = uniform(seed + 1, 2500, -40.0, 40.0);
            v.extend(a.into_iter().zip(b));
            let a = spread(seed + 2, 500, -126.0, 127.0, true);
            let b = uniform(seed + 3, 500, -1.5, 1.5);
            v.extend(a.into_iter().zip(b));
            let a = uniform(seed + 4, 300, -3.0, 3.0);
            let b = splitmix(seed + 5, 300 * sweep())
                .into_iter()
                .map(|r| (r % 41) as f32 - 20.0);
            v.extend(a.into_iter().zip(b));
            v
        }
        // hypot: special cases, every magnitude and ratio.
        _ => {
            let sp = [
                0.0f32,
                -0.0,
                3.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1e-40,
                f32::MAX,
            ];
            let mut v: Vec<(f32, f32)> = sp
                .iter()
                .flat_map(|&y| sp.iter().map(move |&x| (y, x)))
                .collect();
            let a = spread(seed, 3000, -149.0, 127.9, false);
            let b = spread(seed + 1, 3000, -149.0, 127.9, false);
            v.extend(a.into_iter().zip(b));
            v
        }
    }
}

/// Whether `x` is a value Rust's result must match exactly: NaN, an infinity or a zero.
fn special(x: f32) -> bool {
    !x.is_finite() || x == 0.0
}

/// The space `space` gives, or `None` (saying why) when there is no such device and
/// `ROKKOS_REQUIRE_WGPU=1` does not ask for one.
fn device(space: rokkos::Result<rokkos::Wgpu>) -> Option<rokkos::Wgpu> {
    match space {
        Ok(s) => Some(s),
        Err(e) if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_WGPU=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

#[test]
fn f32_transcendentals_meet_the_contract() {
    if let Some(space) = device(rokkos::Wgpu::new()) {
        meets_the_contract(&space);
    }
}

/// The same on a device without SHADER_INT64 and SHADER_F64 (hidden on the default adapter, as a
/// GL- or WebGPU-class adapter lacks them): the library needs neither, the Payne–Hanek reduction
/// of sin, cos and tan included.
#[test]
fn f32_transcendentals_without_64_bit_types() {
    if let Some(space) = device(rokkos::Wgpu::with_hidden("int64,f64")) {
        assert!(!space.has_int64() && !space.has_f64());
        meets_the_contract(&space);
    }
}

fn meets_the_contract(space: &rokkos::Wgpu) {
    let per_fn: Vec<Vec<(f32, f32)>> = (0..NAMES.len()).map(inputs).collect();
    let all: Vec<(f32, f32)> = per_fn.iter().flatten().copied().collect();
    let n = all.len();
    let mem = space.memory_space();
    let x = View::<f32, 1, LayoutRight, _>::new_in(&mem, "x", [n]).unwrap();
    let y = View::<f32, 1, LayoutRight, _>::new_in(&mem, "y", [n]).unwrap();
    deep_copy(&x, &View::<f32>::from_fn("x", [n], |[i]| all[i].0).unwrap()).unwrap();
    deep_copy(&y, &View::<f32>::from_fn("y", [n], |[i]| all[i].1).unwrap()).unwrap();
    let out = View::<f32, 2, LayoutRight, _>::new_in(&mem, "out", [n, NAMES.len()]).unwrap();
    parallel_for(
        "f32_math",
        RangePolicy::new(space, 0..n),
        f32_math(&out, &x, &y),
    )
    .unwrap();
    let got = create_mirror_view_and_copy(&out).unwrap();
    let mut failures = Vec::new();
    let mut start = 0;
    for (f, name) in NAMES.iter().enumerate() {
        let (mut worst, mut worst_at, mut vs_rust) = (0f64, (0f32, 0f32), 0u64);
        for (k, &(a, b)) in per_fn[f].iter().enumerate() {
            let g = got.get([start + k, f]);
            let r = rust32(f, a, b);
            let arg = if f >= 15 {
                format!("({a:e}, {b:e})")
            } else {
                format!("{a:e}")
            };
            if special(r) || special(g) {
                let same = (r.is_nan() && g.is_nan()) || r.to_bits() == g.to_bits();
                if !same {
                    failures.push(format!("{name}{arg} = {g:e}, Rust {r:e}"));
                }
                continue;
            }
            let err = ulp_error(g, exact(f, a, b));
            if err > worst {
                (worst, worst_at) = (err, (a, b));
            }
            vs_rust = vs_rust.max(ulps32(g, r));
            if err > MAX_ULP {
                failures.push(format!(
                    "{name}{arg} = {g:e}, exact {:e}, Rust {r:e} ({err:.3} ulp)",
                    exact(f, a, b)
                ));
            }
        }
        println!(
            "f32 {name:>5} on `{}`: max {worst:.3} ulp from exact at {:?} over {} inputs, max {vs_rust} ulp from Rust",
            space.adapter_name(),
            if f >= 15 { worst_at } else { (worst_at.0, f32::NAN) },
            per_fn[f].len()
        );
        start += per_fn[f].len();
    }
    assert!(
        failures.is_empty(),
        "{} results outside the contract (at most {MAX_ULP} ulp; NaN, infinities and zeros as Rust), e.g.\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}
