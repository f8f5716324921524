//! `f32` transcendental functions on the wgpu backend are WGSL's built-ins, whose accuracy is what
//! WGSL (and Vulkan) guarantee, not Rust's. This test holds the adapter to those guarantees and
//! prints the error it actually measures per function against Rust's `std` (`--nocapture`), so a
//! run on a new GPU says how accurate its `f32` math is. (`f64` math is a software library with
//! its own test in `backend-wgpu/tests/math_f64.rs`.)
//!
//! The guarantees checked (WGSL § "Floating Point Accuracy", f32): `sin`/`cos` absolute error at
//! most 2^-11 on [-π, π]; `exp`/`exp2` at most 3 + 2·|x| ulp; `ln`/`log2` at most 3 ulp outside
//! [0.5, 2] and absolute error below 2^-21 inside; `atan`/`atan2` at most 4096 ulp.
#![cfg(feature = "wgpu")]

use rokkos::prelude::*;

#[kernel]
fn f32_math(i: usize, out: ViewMut<f32, 2>, x: View<f32>, y: View<f32>) {
    let v = x[i];
    out[(i, 0)] = v.sin();
    out[(i, 1)] = v.cos();
    out[(i, 2)] = (v * 0.125).exp();
    out[(i, 3)] = (v * 0.125).exp2();
    out[(i, 4)] = y[i].ln();
    out[(i, 5)] = y[i].log2();
    out[(i, 6)] = (v * 100.0).atan();
    out[(i, 7)] = v.atan2(y[i] - 1.0);
}

const NAMES: [&str; 8] = ["sin", "cos", "exp", "exp2", "ln", "log2", "atan", "atan2"];

/// Distance in ulps between two finite `f32`s.
fn ulps(a: f32, b: f32) -> u64 {
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

/// The largest error WGSL allows for function `f` at argument `x`, as `(ulps, absolute)`: a result
/// is within bounds when it meets either.
fn allowed(f: usize, x: f32) -> (u64, f32) {
    match f {
        0 | 1 => (0, 2f32.powi(-11)),
        2 | 3 => (3 + 2 * (x * 0.125).abs().ceil() as u64, 0.0),
        4 | 5 if (0.5..=2.0).contains(&x) => (0, 2f32.powi(-21)),
        4 | 5 => (3, 0.0),
        _ => (4096, 0.0),
    }
}

#[test]
fn f32_transcendentals_meet_wgsl_accuracy() {
    let space = match rokkos::Wgpu::new() {
        Ok(s) => s,
        Err(e) if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_WGPU=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let n = 20_000;
    // x on [-π, π] (where sin/cos are bounded); y positive over many decades.
    let xs: Vec<f32> = (0..n)
        .map(|i| ((i as f64 + 0.5) / n as f64 * 2.0 - 1.0) as f32 * std::f32::consts::PI)
        .collect();
    let ys: Vec<f32> = (0..n)
        .map(|i| 10f32.powf((i as f32 / n as f32) * 60.0 - 30.0))
        .collect();
    let mem = space.memory_space();
    let x = View::<f32, 1, LayoutRight, _>::new_in(&mem, "x", [n]).unwrap();
    let y = View::<f32, 1, LayoutRight, _>::new_in(&mem, "y", [n]).unwrap();
    deep_copy(&x, &View::<f32>::from_fn("x", [n], |[i]| xs[i]).unwrap()).unwrap();
    deep_copy(&y, &View::<f32>::from_fn("y", [n], |[i]| ys[i]).unwrap()).unwrap();
    let out = View::<f32, 2, LayoutRight, _>::new_in(&mem, "out", [n, 8]).unwrap();
    parallel_for(
        "f32_math",
        RangePolicy::new(&space, 0..n),
        f32_math(&out, &x, &y),
    )
    .unwrap();
    let got = create_mirror_view_and_copy(&out).unwrap();
    let mut failures = Vec::new();
    for (f, name) in NAMES.iter().enumerate() {
        let (mut max_ulps, mut max_abs) = (0u64, 0f32);
        for i in 0..n {
            let (v, w) = (xs[i], ys[i]);
            let want = match f {
                0 => v.sin(),
                1 => v.cos(),
                2 => (v * 0.125).exp(),
                3 => (v * 0.125).exp2(),
                4 => w.ln(),
                5 => w.log2(),
                6 => (v * 100.0).atan(),
                _ => v.atan2(w - 1.0),
            };
            let g = got.get([i, f]);
            let (u, a) = (ulps(g, want), (g - want).abs());
            max_ulps = max_ulps.max(u);
            max_abs = max_abs.max(a);
            let arg = if f == 4 || f == 5 { w } else { v };
            let (bu, ba) = allowed(f, arg);
            if !(g.is_finite() && (u <= bu || a <= ba)) {
                failures.push(format!(
                    "{name}({arg:e}) = {g:e}, std {want:e} ({u} ulp, abs {a:e})"
                ));
            }
        }
        println!(
            "f32 {name:>5} on `{}`: max {max_ulps} ulp, max abs error {max_abs:e}",
            space.adapter_name()
        );
    }
    assert!(
        failures.is_empty(),
        "{} results outside WGSL's accuracy, e.g. {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
}
