//! Every `as` cast between the kernel scalar types (`bool`, `u8`, `u16`, `i8`, `i16`, `i32`, `u32`, `i64`, `u64`, `f32`, `f64`,
//! `usize`, `isize`) on every backend, bit for bit against Rust's own `as` on the same values: the
//! edge values of each source type (zero, ±1, the extremes and their neighbours, the powers of two
//! where a narrower type wraps or a float loses precision, ±0, ±inf, NaN, subnormals, the float
//! values around each integer type's range) and random bit patterns. A NaN result matches any NaN
//! (Rust does not specify NaN payloads); everything else, the sign of zero included, must be equal.
//! (Audit item 6: `3000000000u32 as i64` sign-extended on wgpu.)

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;

/// The results of casting one source value to every numeric target, in a fixed column order:
/// i32, u32, i64, u64, usize (as u64), isize (as i64), f32, f64.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    i: [i64; 6],
    f32: f32,
    f64: f64,
}

/// Kernels casting a `View<$t>` to every target type, writing the integer results to `ints`
/// (columns i32, u32, i64, u64, usize, isize widened losslessly to i64 bits) and the float ones to
/// `f32s` / `f64s`. The widening to i64 is itself a cast, so a wrong widening would show as well;
/// the expectation applies the same widening with Rust's `as`.
macro_rules! cast_kernel {
    ($name:ident, $t:ident) => {
        #[kernel]
        fn $name(
            i: usize,
            ints: ViewMut<i64, 2>,
            f32s: ViewMut<f32>,
            f64s: ViewMut<f64>,
            x: View<$t>,
        ) {
            let v = x[i];
            ints[(i, 0)] = (v as i32) as i64;
            ints[(i, 1)] = (v as u32) as i64;
            ints[(i, 2)] = v as i64;
            ints[(i, 3)] = (v as u64) as i64;
            ints[(i, 4)] = (v as usize) as i64;
            ints[(i, 5)] = (v as isize) as i64;
            f32s[i] = v as f32;
            f64s[i] = v as f64;
        }
    };
}
cast_kernel!(from_i32, i32);
cast_kernel!(from_u32, u32);
cast_kernel!(from_i64, i64);
cast_kernel!(from_u64, u64);
cast_kernel!(from_u8, u8);
cast_kernel!(from_u16, u16);
cast_kernel!(from_i8, i8);
cast_kernel!(from_i16, i16);

/// Casts *to* `i8` and `i16` from every wider source (truncating integers, saturating floats with
/// NaN as 0), between the two, and from the unsigned narrow types.
#[kernel]
fn to_signed_small(
    i: usize,
    bytes: ViewMut<i8, 2>,
    halves: ViewMut<i16, 2>,
    a: View<i64>,
    f: View<f64>,
) {
    let v = a[i];
    let x = f[i];
    bytes[(i, 0)] = v as i8;
    bytes[(i, 1)] = (v as i32) as i8;
    bytes[(i, 2)] = (v as u32) as i8;
    bytes[(i, 3)] = (v as u64) as i8;
    bytes[(i, 4)] = x as i8;
    bytes[(i, 5)] = (x as f32) as i8;
    bytes[(i, 6)] = (v as i16) as i8;
    bytes[(i, 7)] = (v as u8) as i8;
    halves[(i, 0)] = v as i16;
    halves[(i, 1)] = (v as i32) as i16;
    halves[(i, 2)] = (v as u32) as i16;
    halves[(i, 3)] = (v as u64) as i16;
    halves[(i, 4)] = x as i16;
    halves[(i, 5)] = (x as f32) as i16;
    halves[(i, 6)] = (v as i8) as i16;
    halves[(i, 7)] = (v as u16) as i16;
}

/// Casts *to* `u8` and `u16` from every wider source (truncating integers, saturating floats with
/// NaN as 0), and between the two.
#[kernel]
fn to_small(i: usize, bytes: ViewMut<u8, 2>, halves: ViewMut<u16, 2>, a: View<i64>, f: View<f64>) {
    let v = a[i];
    let x = f[i];
    bytes[(i, 0)] = v as u8;
    bytes[(i, 1)] = (v as i32) as u8;
    bytes[(i, 2)] = (v as u32) as u8;
    bytes[(i, 3)] = (v as u64) as u8;
    bytes[(i, 4)] = x as u8;
    bytes[(i, 5)] = (x as f32) as u8;
    bytes[(i, 6)] = (v as u16) as u8;
    bytes[(i, 7)] = (v > 0) as u8;
    halves[(i, 0)] = v as u16;
    halves[(i, 1)] = (v as i32) as u16;
    halves[(i, 2)] = (v as u32) as u16;
    halves[(i, 3)] = (v as u64) as u16;
    halves[(i, 4)] = x as u16;
    halves[(i, 5)] = (x as f32) as u16;
    halves[(i, 6)] = (v as u8) as u16;
    halves[(i, 7)] = (v < 0) as u16;
}
cast_kernel!(from_f32, f32);
cast_kernel!(from_f64, f64);

/// `bool` sources: a comparison of the input with zero, cast to every integer type (Rust has no
/// `bool as f32`).
#[kernel]
fn from_bool(i: usize, ints: ViewMut<i64, 2>, x: View<i32>) {
    let b = x[i] > 0;
    ints[(i, 0)] = (b as i32) as i64;
    ints[(i, 1)] = (b as u32) as i64;
    ints[(i, 2)] = b as i64;
    ints[(i, 3)] = (b as u64) as i64;
    ints[(i, 4)] = (b as usize) as i64;
    ints[(i, 5)] = (b as isize) as i64;
}

/// `usize` and `isize` sources (the IR's u64 and i64), through a cast from the View's element type.
#[kernel]
fn from_sizes(
    i: usize,
    ints: ViewMut<i64, 2>,
    f32s: ViewMut<f32>,
    f64s: ViewMut<f64>,
    x: View<u64>,
) {
    let u = x[i] as usize;
    let s = x[i] as isize;
    ints[(i, 0)] = (u as i32) as i64;
    ints[(i, 1)] = (s as u32) as i64;
    ints[(i, 2)] = u as i64;
    ints[(i, 3)] = (s as u64) as i64;
    ints[(i, 4)] = (s as usize) as i64;
    ints[(i, 5)] = (u as isize) as i64;
    f32s[i] = s as f32;
    f64s[i] = u as f64;
}

macro_rules! expect_row {
    ($v:expr) => {{
        let v = $v;
        Row {
            i: [
                (v as i32) as i64,
                (v as u32) as i64,
                v as i64,
                (v as u64) as i64,
                (v as usize) as i64,
                (v as isize) as i64,
            ],
            f32: v as f32,
            f64: v as f64,
        }
    }};
}

/// Integer edge values (as i128, cast to each source type by the caller).
fn int_edges() -> Vec<i128> {
    let mut v: Vec<i128> = vec![0, 1, 2, 3, 7, 255, 256, 3_000_000_000, -3_000_000_000];
    for k in [7u32, 8, 15, 16, 23, 24, 25, 31, 32, 52, 53, 54, 62, 63, 64] {
        let p = 1i128 << k;
        v.extend([p - 1, p, p + 1, -p - 1, -p, -p + 1]);
    }
    v.extend([
        i32::MAX as i128,
        i32::MIN as i128,
        u32::MAX as i128,
        i64::MAX as i128,
        i64::MIN as i128,
        u64::MAX as i128,
        -1,
    ]);
    v
}

/// Float edge values, as f64 (cast to f32 by the f32 caller, which adds its own).
fn float_edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        0.9999999,
        1.5,
        -1.5,
        2.5,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-300,
        f64::MAX,
        f64::MIN,
        f32::MAX as f64,
        f32::MAX as f64 * 1.0000001,
        1e-45,
        1.4e-45,
        3e38,
        -3e38,
        3.5e38,
        3000000000.0,
        -3000000000.0,
        4294967295.5,
        4294967296.0,
        -2147483648.5,
        -2147483649.0,
        2147483647.5,
        9.223372036854776e18,
        -9.223372036854776e18,
        -9.223372036854778e18,
        1.8446744073709552e19,
        1.844674407370955e19,
        16777217.0,
        9007199254740993.0,
    ];
    // The ranges of i8 / u8 and i16 / u16, then those of the wider types.
    v.extend([127.5, -128.5, 255.5, 32767.5, -32768.5, 65535.5]);
    for k in [7, 8, 15, 16, 24, 31, 32, 53, 63, 64] {
        let p = 2f64.powi(k);
        v.extend([p, -p, p - 1.0, p + 1.0, -p - 1.0, p * (1.0 - f64::EPSILON)]);
    }
    v
}

fn rows_match(got: &[Row], want: &[Row], src: &[String]) -> Result<(), TestCaseError> {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        prop_assert_eq!(g.i, w.i, "integer casts of {}", &src[k]);
        let same32 = (g.f32.is_nan() && w.f32.is_nan()) || g.f32.to_bits() == w.f32.to_bits();
        let same64 = (g.f64.is_nan() && w.f64.is_nan()) || g.f64.to_bits() == w.f64.to_bits();
        prop_assert!(
            same32,
            "{} as f32: got {:e}, Rust {:e}",
            &src[k],
            g.f32,
            w.f32
        );
        prop_assert!(
            same64,
            "{} as f64: got {:e}, Rust {:e}",
            &src[k],
            g.f64,
            w.f64
        );
    }
    Ok(())
}

/// Runs the cast kernel `$k` over `$xs` (element type `$t`) and compares with Rust's `as`.
macro_rules! run_casts {
    ($space:expr, $e:ty, $k:ident, $t:ty, $xs:expr) => {{
        let space = $space;
        let xs: Vec<$t> = $xs;
        let n = xs.len();
        let x: DevView<$e, $t> = dev_from_vec(space, "x", [n], xs.clone())?;
        let ints: DevView<$e, i64, 2> = dev(space, "ints", [n, 6])?;
        let f32s: DevView<$e, f32> = dev(space, "f32s", [n])?;
        let f64s: DevView<$e, f64> = dev(space, "f64s", [n])?;
        parallel_for(
            stringify!($k),
            RangePolicy::new(space, 0..n),
            $k(&ints, &f32s, &f64s, &x),
        )?;
        let (gi, gf, gd) = (to_host(&ints), to_host(&f32s), to_host(&f64s));
        let got: Vec<Row> = (0..n)
            .map(|k| Row {
                i: std::array::from_fn(|c| gi[6 * k + c]),
                f32: gf[k],
                f64: gd[k],
            })
            .collect();
        let want: Vec<Row> = xs.iter().map(|&v| expect_row!(v)).collect();
        let src: Vec<String> = xs
            .iter()
            .map(|v| format!("{v:?}{}", stringify!($t)))
            .collect();
        rows_match(&got, &want, &src)?;
    }};
}

fn every_cast_matches_rust<E: ExecutionSpace>(space: E) {
    check(3, any::<u64>(), |seed| {
        let rnd = crate::splitmix(seed, 64);
        let mut ints = int_edges();
        ints.extend(rnd.iter().map(|&r| r as i64 as i128));
        let floats = float_edges();
        run_casts!(
            &space,
            E,
            from_i32,
            i32,
            ints.iter().map(|&v| v as i32).collect()
        );
        run_casts!(
            &space,
            E,
            from_u32,
            u32,
            ints.iter().map(|&v| v as u32).collect()
        );
        run_casts!(
            &space,
            E,
            from_i64,
            i64,
            ints.iter().map(|&v| v as i64).collect()
        );
        run_casts!(
            &space,
            E,
            from_u64,
            u64,
            ints.iter().map(|&v| v as u64).collect()
        );
        run_casts!(
            &space,
            E,
            from_u8,
            u8,
            ints.iter().map(|&v| v as u8).collect()
        );
        run_casts!(
            &space,
            E,
            from_u16,
            u16,
            ints.iter().map(|&v| v as u16).collect()
        );
        run_casts!(
            &space,
            E,
            from_i8,
            i8,
            ints.iter().map(|&v| v as i8).collect()
        );
        run_casts!(
            &space,
            E,
            from_i16,
            i16,
            ints.iter().map(|&v| v as i16).collect()
        );
        // Casts to u8 and u16, paired integer and float sources.
        let n = ints.len().max(floats.len());
        let av: Vec<i64> = (0..n).map(|k| ints[k % ints.len()] as i64).collect();
        let fv: Vec<f64> = (0..n).map(|k| floats[k % floats.len()]).collect();
        let a: DevView<E, i64> = dev_from_vec(&space, "a", [n], av.clone())?;
        let f: DevView<E, f64> = dev_from_vec(&space, "f", [n], fv.clone())?;
        let bytes: DevView<E, u8, 2> = dev(&space, "bytes", [n, 8])?;
        let halves: DevView<E, u16, 2> = dev(&space, "halves", [n, 8])?;
        parallel_for(
            "to_small",
            RangePolicy::new(&space, 0..n),
            to_small(&bytes, &halves, &a, &f),
        )?;
        let (gb, gh) = (to_host(&bytes), to_host(&halves));
        for k in 0..n {
            let (v, x) = (av[k], fv[k]);
            let wb = [
                v as u8,
                (v as i32) as u8,
                (v as u32) as u8,
                (v as u64) as u8,
                x as u8,
                (x as f32) as u8,
                (v as u16) as u8,
                (v > 0) as u8,
            ];
            let wh = [
                v as u16,
                (v as i32) as u16,
                (v as u32) as u16,
                (v as u64) as u16,
                x as u16,
                (x as f32) as u16,
                (v as u8) as u16,
                (v < 0) as u16,
            ];
            prop_assert_eq!(&gb[8 * k..8 * k + 8], &wb[..], "to u8 from {} / {:?}", v, x);
            prop_assert_eq!(
                &gh[8 * k..8 * k + 8],
                &wh[..],
                "to u16 from {} / {:?}",
                v,
                x
            );
        }
        let sbytes: DevView<E, i8, 2> = dev(&space, "sbytes", [n, 8])?;
        let shalves: DevView<E, i16, 2> = dev(&space, "shalves", [n, 8])?;
        parallel_for(
            "to_signed_small",
            RangePolicy::new(&space, 0..n),
            to_signed_small(&sbytes, &shalves, &a, &f),
        )?;
        let (gb, gh) = (to_host(&sbytes), to_host(&shalves));
        for k in 0..n {
            let (v, x) = (av[k], fv[k]);
            let wb = [
                v as i8,
                (v as i32) as i8,
                (v as u32) as i8,
                (v as u64) as i8,
                x as i8,
                (x as f32) as i8,
                (v as i16) as i8,
                (v as u8) as i8,
            ];
            let wh = [
                v as i16,
                (v as i32) as i16,
                (v as u32) as i16,
                (v as u64) as i16,
                x as i16,
                (x as f32) as i16,
                (v as i8) as i16,
                (v as u16) as i16,
            ];
            prop_assert_eq!(&gb[8 * k..8 * k + 8], &wb[..], "to i8 from {} / {:?}", v, x);
            prop_assert_eq!(
                &gh[8 * k..8 * k + 8],
                &wh[..],
                "to i16 from {} / {:?}",
                v,
                x
            );
        }
        let mut f32s: Vec<f32> = floats.iter().map(|&v| v as f32).collect();
        f32s.extend([
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            2147483520.0,
            -2147483648.0,
            4294967040.0,
            9.2233715e18,
            1.8446743e19,
        ]);
        f32s.extend(rnd.iter().map(|&r| f32::from_bits(r as u32)));
        run_casts!(&space, E, from_f32, f32, f32s);
        let mut f64s = floats.clone();
        f64s.extend(rnd.iter().map(|&r| f64::from_bits(r)));
        run_casts!(&space, E, from_f64, f64, f64s);

        // Sources of type usize and isize.
        let us: Vec<u64> = ints.iter().map(|&v| v as u64).collect();
        let n = us.len();
        let x: DevView<E, u64> = dev_from_vec(&space, "x", [n], us.clone())?;
        let ints_v: DevView<E, i64, 2> = dev(&space, "ints", [n, 6])?;
        let f32v: DevView<E, f32> = dev(&space, "f32s", [n])?;
        let f64v: DevView<E, f64> = dev(&space, "f64s", [n])?;
        parallel_for(
            "from_sizes",
            RangePolicy::new(&space, 0..n),
            from_sizes(&ints_v, &f32v, &f64v, &x),
        )?;
        let (gi, gf, gd) = (to_host(&ints_v), to_host(&f32v), to_host(&f64v));
        for (k, &w) in us.iter().enumerate() {
            let (u, s) = (w as usize, w as isize);
            let want = [
                (u as i32) as i64,
                (s as u32) as i64,
                u as i64,
                (s as u64) as i64,
                (s as usize) as i64,
                (u as isize) as i64,
            ];
            prop_assert_eq!(
                &gi[6 * k..6 * k + 6],
                &want[..],
                "usize/isize casts of {}",
                w
            );
            prop_assert_eq!(
                gf[k].to_bits(),
                (s as f32).to_bits(),
                "{} as isize as f32",
                w
            );
            prop_assert_eq!(
                gd[k].to_bits(),
                (u as f64).to_bits(),
                "{} as usize as f64",
                w
            );
        }

        // bool sources.
        let bs: Vec<i32> = vec![0, 1, -1, 5];
        let x: DevView<E, i32> = dev_from_vec(&space, "x", [4], bs.clone())?;
        let ints_v: DevView<E, i64, 2> = dev(&space, "ints", [4, 6])?;
        parallel_for(
            "from_bool",
            RangePolicy::new(&space, 0..4),
            from_bool(&ints_v, &x),
        )?;
        let gi = to_host(&ints_v);
        for (k, &v) in bs.iter().enumerate() {
            let b = v > 0;
            prop_assert_eq!(
                &gi[6 * k..6 * k + 6],
                &[b as i64; 6][..],
                "{} as integers",
                b
            );
        }
        Ok(())
    });
}
per_backend!(every_cast_matches_rust);

/// The audit's case, alone: `3000000000u32 as i64` (and `as isize`) stays positive.
fn u32_to_i64_zero_extends<E: ExecutionSpace>(space: E) {
    let x: DevView<E, u32> = dev_from_vec(&space, "x", [2], vec![3_000_000_000, u32::MAX]).unwrap();
    let ints: DevView<E, i64, 2> = dev(&space, "ints", [2, 6]).unwrap();
    let f32s: DevView<E, f32> = dev(&space, "f32s", [2]).unwrap();
    let f64s: DevView<E, f64> = dev(&space, "f64s", [2]).unwrap();
    parallel_for(
        "from_u32",
        RangePolicy::new(&space, 0..2),
        from_u32(&ints, &f32s, &f64s, &x),
    )
    .unwrap();
    let gi = to_host(&ints);
    assert_eq!(gi[2], 3_000_000_000, "3000000000u32 as i64");
    assert_eq!(gi[5], 3_000_000_000, "3000000000u32 as isize");
    assert_eq!(gi[8], u32::MAX as i64, "u32::MAX as i64");
}
per_backend!(u32_to_i64_zero_extends);
