//! `rokkos::random`: Philox-4x32-10 against Random123's known answers, the same streams on every
//! backend, and the distributions (moments, Kolmogorov–Smirnov, chi-square) with fixed seeds.

use rokkos::prelude::*;
use rokkos::random::*;

#[test]
fn philox_matches_random123_known_answers() {
    let kat: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        (
            [0; 4],
            [0; 2],
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
        ),
        (
            [u32::MAX; 4],
            [u32::MAX; 2],
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
        ),
        (
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
        ),
    ];
    for (c, k, expect) in kat {
        for w in 0..4 {
            assert_eq!(
                philox4x32(c[0], c[1], c[2], c[3], k[0], k[1], w),
                expect[w as usize]
            );
        }
    }
    // The 16-bit-halves product against the 64-bit one.
    for (a, b) in [
        (0u32, 0u32),
        (u32::MAX, u32::MAX),
        (0xD2511F53, 0x12345678),
        (65536, 65535),
    ] {
        assert_eq!(mulhi32(a, b), ((a as u64 * b as u64) >> 32) as u32);
    }
}

#[kernel]
fn draw_all(
    i: usize,
    bits: ViewMut<u32>,
    uf: ViewMut<f32>,
    ud: ViewMut<f64>,
    nf: ViewMut<f32>,
    nd: ViewMut<f64>,
    states: ViewMut<u64>,
    xs: ViewMut<f64>,
    seed: u64,
) {
    let s = i as u64;
    bits[i] = rand_u32(seed, s, 5);
    uf[i] = uniform_f32(seed, s, 1);
    ud[i] = uniform_f64(seed, s, 2);
    nf[i] = normal_f32(seed, s, 0);
    nd[i] = normal_f64(seed, s, 3);
    let mut st = states[i];
    st = xorshift64_next(st);
    st = xorshift64_next(st);
    xs[i] = xorshift64_uniform_f64(st);
    states[i] = st;
}

const N: usize = 1031;
const SEED: u64 = 0x5EED_0123_4567_89AB;

/// One column per generator the kernel draws from, in the kernel's order.
type Draws = (Vec<u32>, Vec<f32>, Vec<f64>, Vec<f32>, Vec<f64>, Vec<f64>);

/// The host's own calls of the same functions: what every backend must produce.
fn expected(pool: &[u64]) -> Draws {
    let s = |i: usize| i as u64;
    (
        (0..N).map(|i| rand_u32(SEED, s(i), 5)).collect(),
        (0..N).map(|i| uniform_f32(SEED, s(i), 1)).collect(),
        (0..N).map(|i| uniform_f64(SEED, s(i), 2)).collect(),
        (0..N).map(|i| normal_f32(SEED, s(i), 0)).collect(),
        (0..N).map(|i| normal_f64(SEED, s(i), 3)).collect(),
        pool.iter()
            .map(|&p| xorshift64_uniform_f64(xorshift64_next(xorshift64_next(p))))
            .collect(),
    )
}

/// Runs `draw_all` on `space`; `exact_normals` when the backend shares Rust's `ln`/`sqrt`/`cos`.
fn same_stream_on<E: ExecutionSpace>(space: E, exact_normals: bool) {
    let pool = RandomPool::new_on(&space, 7, N).unwrap();
    let host_pool = create_mirror_view_and_copy(pool.states()).unwrap().to_vec();
    let bits = View::<u32, 1, LayoutRight, E::Memory>::new_on(&space, "bits", [N]).unwrap();
    let uf = View::<f32, 1, LayoutRight, E::Memory>::new_on(&space, "uf", [N]).unwrap();
    let ud = View::<f64, 1, LayoutRight, E::Memory>::new_on(&space, "ud", [N]).unwrap();
    let nf = View::<f32, 1, LayoutRight, E::Memory>::new_on(&space, "nf", [N]).unwrap();
    let nd = View::<f64, 1, LayoutRight, E::Memory>::new_on(&space, "nd", [N]).unwrap();
    let xs = View::<f64, 1, LayoutRight, E::Memory>::new_on(&space, "xs", [N]).unwrap();
    parallel_for(
        "draw_all",
        RangePolicy::new(&space, 0..N),
        draw_all(&bits, &uf, &ud, &nf, &nd, pool.states(), &xs, SEED),
    )
    .unwrap();
    let (eb, euf, eud, enf, end, exs) = expected(&host_pool);
    let name = space.name();
    assert_eq!(
        create_mirror_view_and_copy(&bits).unwrap().to_vec(),
        eb,
        "{name}"
    );
    let bits_of = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let bits_of64 = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits_of(create_mirror_view_and_copy(&uf).unwrap().to_vec()),
        bits_of(euf),
        "{name}"
    );
    assert_eq!(
        bits_of64(create_mirror_view_and_copy(&ud).unwrap().to_vec()),
        bits_of64(eud),
        "{name}"
    );
    assert_eq!(
        bits_of64(create_mirror_view_and_copy(&xs).unwrap().to_vec()),
        bits_of64(exs),
        "{name}"
    );
    let got_nf = create_mirror_view_and_copy(&nf).unwrap().to_vec();
    let got_nd = create_mirror_view_and_copy(&nd).unwrap().to_vec();
    if exact_normals {
        assert_eq!(bits_of(got_nf), bits_of(enf), "{name}");
        assert_eq!(bits_of64(got_nd), bits_of64(end), "{name}");
    } else {
        for (g, e) in got_nd.iter().zip(&end) {
            assert!(
                (g - e).abs() <= 1e-13 * e.abs().max(1.0),
                "{name}: {g} vs {e}"
            );
        }
        for (g, e) in got_nf.iter().zip(&enf) {
            assert!(
                (g - e).abs() <= 1e-3 * e.abs().max(1.0),
                "{name}: {g} vs {e}"
            );
        }
    }
    // The pool advanced by two steps, state by state.
    let after = create_mirror_view_and_copy(pool.states()).unwrap().to_vec();
    let adv: Vec<u64> = host_pool
        .iter()
        .map(|&p| xorshift64_next(xorshift64_next(p)))
        .collect();
    assert_eq!(after, adv, "{name}");
}

#[test]
fn same_stream_on_serial() {
    same_stream_on(Serial, true);
}

#[test]
fn same_stream_on_rayon() {
    same_stream_on(Rayon::with_threads(2).unwrap(), true);
}

#[test]
fn same_stream_on_ir_eval() {
    same_stream_on(rokkos::ir::eval::IrEval, true);
}

#[test]
fn same_stream_on_device() {
    same_stream_on(Device::from(Serial), true);
}

#[cfg(feature = "wgpu")]
#[test]
fn same_stream_on_wgpu() {
    match rokkos::Wgpu::new() {
        Ok(w) => same_stream_on(w, false),
        Err(e) if std::env::var_os("ROKKOS_REQUIRE_WGPU").is_some() => panic!("{e}"),
        Err(e) => eprintln!("skipped: {e}"),
    }
}

#[kernel]
fn uniforms(i: usize, out: ViewMut<f64>, seed: u64) {
    out[i] = uniform_f64(seed, (i / 4) as u64, (i % 4) as u32);
}

#[kernel]
fn normals(i: usize, out: ViewMut<f64>, seed: u64) {
    out[i] = normal_f64(seed, (i / 2) as u64, (i % 2) as u32);
}

#[kernel]
fn low_bytes(i: usize, out: ViewMut<u32>, seed: u64) {
    out[i] = rand_u32(seed, (i / 8) as u64, (i % 8) as u32) & 0xFF;
}

/// Kolmogorov–Smirnov statistic of `xs` against the distribution function `cdf`.
fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(k, &x)| {
            let f = cdf(x);
            (f - k as f64 / n).abs().max(((k + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}

/// The standard normal distribution function (erf by Abramowitz–Stegun 7.1.26, |error| < 1.5e-7,
/// far below what the KS bound below resolves).
fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    0.5 * (1.0 + if x < 0.0 { -erf } else { erf })
}

fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    (
        m,
        xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0),
    )
}

const STATS_N: usize = 1 << 16;

#[test]
fn uniform_f64_is_uniform() {
    let dev = Device::from(Rayon::new());
    let out = DeviceView::<f64>::new_on(&dev, "u", [STATS_N]).unwrap();
    parallel_for(
        "uniforms",
        RangePolicy::new(&dev, 0..STATS_N),
        uniforms(&out, 12345),
    )
    .unwrap();
    let u = create_mirror_view_and_copy(&out).unwrap().to_vec();
    assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    let (m, v) = mean_var(&u);
    let n = STATS_N as f64;
    // Five standard errors: the mean's is sqrt(1/12n), the variance's sqrt(1/180n).
    assert!(
        (m - 0.5).abs() < 5.0 * (1.0 / (12.0 * n)).sqrt(),
        "mean {m}"
    );
    assert!(
        (v - 1.0 / 12.0).abs() < 5.0 * (1.0 / (180.0 * n)).sqrt(),
        "variance {v}"
    );
    // KS at the 0.1% level: D < 1.95 / sqrt(n).
    let d = ks(u, |x| x.clamp(0.0, 1.0));
    assert!(d < 1.95 / n.sqrt(), "KS {d}");
}

#[test]
fn normal_f64_is_normal() {
    let dev = Device::from(Rayon::new());
    let out = DeviceView::<f64>::new_on(&dev, "n", [STATS_N]).unwrap();
    parallel_for(
        "normals",
        RangePolicy::new(&dev, 0..STATS_N),
        normals(&out, 777),
    )
    .unwrap();
    let z = create_mirror_view_and_copy(&out).unwrap().to_vec();
    assert!(z.iter().all(|x| x.is_finite()));
    let (m, v) = mean_var(&z);
    let n = STATS_N as f64;
    assert!(m.abs() < 5.0 / n.sqrt(), "mean {m}");
    assert!((v - 1.0).abs() < 5.0 * (2.0 / n).sqrt(), "variance {v}");
    let d = ks(z, normal_cdf);
    assert!(d < 1.95 / n.sqrt(), "KS {d}");
}

#[test]
fn low_bytes_pass_chi_square() {
    let dev = Device::from(Serial);
    let out = DeviceView::<u32>::new_on(&dev, "b", [STATS_N]).unwrap();
    parallel_for(
        "low_bytes",
        RangePolicy::new(&dev, 0..STATS_N),
        low_bytes(&out, 99),
    )
    .unwrap();
    let mut counts = [0f64; 256];
    for b in create_mirror_view_and_copy(&out).unwrap().to_vec() {
        counts[b as usize] += 1.0;
    }
    let e = STATS_N as f64 / 256.0;
    let chi2: f64 = counts.iter().map(|c| (c - e) * (c - e) / e).sum();
    // 255 degrees of freedom: mean 255, standard deviation sqrt(510) ~ 22.6; 5 of them.
    assert!(
        (chi2 - 255.0).abs() < 5.0 * 510f64.sqrt(),
        "chi-square {chi2}"
    );
}

#[test]
fn streams_and_seeds_differ() {
    assert_ne!(rand_u32(1, 0, 0), rand_u32(2, 0, 0));
    assert_ne!(rand_u32(1, 0, 0), rand_u32(1, 1, 0));
    assert_ne!(rand_u32(1, 0, 0), rand_u32(1, 0, 1));
    assert_ne!(rand_u32(1, 0, 0), rand_u32(1, 1 << 32, 0));
    let p = RandomPool::new_on(&Serial, 3, 1000).unwrap();
    let mut s = p.states().to_vec();
    assert!(s.iter().all(|&x| x != 0));
    s.sort_unstable();
    s.dedup();
    assert_eq!(s.len(), 1000);
}

/// Widening the draw numbers changed no value the former `2 * k` / `4 * k` reached without
/// wrapping: the uniform and normal numbers are still built from the same draws of `rand_u32`
/// (`uniform_f64` from draws 2k and 2k+1 for k < 2^31, `normal_f32` likewise, `normal_f64` from
/// draws 4k .. 4k+4 for k < 2^30), bit for bit.
#[test]
fn small_draw_numbers_keep_their_values() {
    let (seed, s) = (0x5EED_0123_4567_89AB, 12_345u64);
    let ks = [
        0u32,
        1,
        2,
        3,
        1000,
        65_537,
        (1 << 30) - 1,
        1 << 30,
        (1 << 31) - 1,
    ];
    for k in ks {
        let (d0, d1) = (rand_u32(seed, s, 2 * k), rand_u32(seed, s, 2 * k + 1));
        assert_eq!(
            uniform_f64(seed, s, k).to_bits(),
            u32x2_to_unit_f64(d0, d1).to_bits(),
            "uniform_f64 at {k}"
        );
        let u1 = 1.0 - u32_to_unit_f32(d0);
        let u2 = u32_to_unit_f32(d1);
        let old = (-2.0 * u1.ln()).sqrt() * (6.283_185_5 * u2).cos();
        assert_eq!(
            normal_f32(seed, s, k).to_bits(),
            old.to_bits(),
            "normal_f32 at {k}"
        );
        if k < 1 << 30 {
            let d = |j: u32| rand_u32(seed, s, 4 * k + j);
            let u1 = 1.0 - u32x2_to_unit_f64(d(0), d(1));
            let u2 = u32x2_to_unit_f64(d(2), d(3));
            let old = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            assert_eq!(
                normal_f64(seed, s, k).to_bits(),
                old.to_bits(),
                "normal_f64 at {k}"
            );
        }
    }
}
