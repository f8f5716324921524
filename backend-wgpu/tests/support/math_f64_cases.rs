//! The inputs and the check of the software f64 math library's tests (`rokkos_device::emit::softmath`),
//! shared by the places that run it: the wgpu backend on an adapter (`tests/math_f64.rs`), the CUDA
//! C compiled for the host (`backend-cuda/tests/math_host.rs`) and the IR evaluator
//! (`device/tests/softmath_eval.rs`). Each case is one
//! function on a deterministic spread over its domain plus its edge cases. Special results (NaN,
//! ±∞, ±0) of the edge cases must match bit for bit (any NaN matches any NaN), zeros their sign,
//! every other result the case's bound in ulps; the maximum ulp distance and where it occurs are
//! printed (`--nocapture`).
//!
//! The bounds are 1 ulp, except where glibc (behind `std` on Linux) is itself documented at 2 ulp
//! (sinh, cosh, tanh, log10): the library is faithfully rounded (within 1 ulp of the exact value;
//! checked offline against mpmath on these inputs), so it can sit 1 ulp from a faithful `std` and
//! 2 from one that is 1 ulp off the other way.

#![allow(dead_code)]

use std::f64::consts;

/// One function (its number in [`NAMES`]) on its inputs, with the bound of the spread.
pub struct Case {
    /// The function, by its number in [`NAMES`].
    pub f: u8,
    /// The spread over the domain: within `bound` ulps of the reference.
    pub cases: Vec<(f64, f64)>,
    /// Edge cases: special results bit for bit, others within `bound`.
    pub edges: Vec<(f64, f64)>,
    /// Ulps allowed from the reference.
    pub bound: u64,
}

impl Case {
    fn new(f: u8, cases: Vec<(f64, f64)>, edges: Vec<(f64, f64)>, bound: u64) -> Case {
        Case {
            f,
            cases,
            edges,
            bound,
        }
    }
    /// Every input pair, the spread first (the order of the results [`check`] takes).
    pub fn inputs(&self) -> Vec<(f64, f64)> {
        self.cases.iter().chain(&self.edges).copied().collect()
    }
}

/// Rust's `std` function number `f` (the reference, but for [`CORRECTED`]).
pub fn std_fn(f: u8, x: f64, y: f64) -> f64 {
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
        17 => x.hypot(y),
        _ => unreachable!(),
    }
}

/// The functions under test, by the number a kernel type carries.
pub const NAMES: [&str; 18] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "exp2", "ln",
    "log2", "log10", "cbrt", "atan2", "powf", "hypot",
];
/// Functions of two arguments start here.
pub const BINARY: u8 = 15;

/// Where glibc (behind Rust's `std`) is measurably off, the correctly rounded value (mpmath at
/// 4000 bits): `x = 6381956970095103·2^797`, the double closest to a multiple of π/2.
const CORRECTED: [(u8, f64, f64); 2] = [
    (1, 5.319372648326541e255, -4.687165924254628e-19), // glibc: -4.68716592425462e-19, 8 ulp
    (2, 5.319372648326541e255, -2.133485385753704e18),  // glibc: -2.1334853857537075e18
];

/// The reference: Rust's `std`, except for [`CORRECTED`].
pub fn reference(f: u8, x: f64, y: f64) -> f64 {
    CORRECTED
        .iter()
        .find(|c| c.0 == f && c.1 == x)
        .map_or_else(|| std_fn(f, x, y), |c| c.2)
}

/// Distance in ulps between two doubles (adjacent doubles are 1 apart, ±0 are 0 apart; two NaNs
/// are equal, a NaN and a number are infinitely far).
pub fn ulp_diff(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    fn ord(x: f64) -> i64 {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN.wrapping_sub(b)
        } else {
            b
        }
    }
    ord(a).abs_diff(ord(b))
}

/// Checks `got` (the results of `c.f` on `c.inputs()`, in order) against the reference and
/// reports; returns the max ulp. `target` names what computed them in the report.
pub fn check(c: &Case, got: &[f64], target: &str) -> u64 {
    let (cases, bound) = (&c.cases, c.bound);
    let name = NAMES[c.f as usize];
    let all = c.inputs();
    assert_eq!(got.len(), all.len(), "{target}: one result per input");
    let mut worst = (0u64, 0.0, 0.0);
    let mut failures = Vec::new();
    for (k, (&(x, y), &g)) in all.iter().zip(got).enumerate() {
        let want = reference(c.f, x, y);
        let d = ulp_diff(g, want);
        let special = want.is_nan() || want.is_infinite() || want == 0.0;
        let ok = if k >= cases.len() && special || want == 0.0 && g == 0.0 {
            // Bit-equal (any NaN for a NaN): signs of zeros and infinities included.
            g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan())
        } else {
            d <= bound
        };
        if !ok {
            failures.push(format!(
                "{name}({x:e}{}) = {g:e}, std {want:e} ({d} ulp)",
                if c.f >= BINARY {
                    format!(", {y:e}")
                } else {
                    String::new()
                }
            ));
        }
        if d != u64::MAX && d > worst.0 {
            worst = (d, x, y);
        }
    }
    let arg = if c.f >= BINARY {
        format!("({:e}, {:e})", worst.1, worst.2)
    } else {
        format!("{:e}", worst.1)
    };
    println!(
        "{target} {name:>5}: max {} ulp over {} inputs (bound {bound}){}",
        worst.0,
        all.len(),
        if worst.0 > 0 {
            format!(", at {arg}")
        } else {
            String::new()
        }
    );
    assert!(
        failures.is_empty(),
        "{} failures of {name}:\n{}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    worst.0
}

/// splitmix64: a fixed sequence, so every run sees the same inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [a, b).
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
    /// Log-uniform magnitude in [2^lo, 2^hi), random sign if `signed`.
    fn log(&mut self, lo: i32, hi: i32, signed: bool) -> f64 {
        let e = lo + (self.next() % (hi - lo) as u64) as i32;
        let v = (1.0 + self.unit()) * pow2(e);
        if signed && self.next() & 1 == 1 {
            -v
        } else {
            v
        }
    }
    /// Any positive finite double, uniform over the bit patterns (subnormals included).
    fn any_positive(&mut self) -> f64 {
        f64::from_bits(self.next() % 0x7ff0_0000_0000_0000)
    }
    fn sign(&mut self) -> f64 {
        if self.next() & 1 == 1 {
            -1.0
        } else {
            1.0
        }
    }
}

/// `2^e` for `-1074 <= e <= 1023`.
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    }
}

/// `x` stepped by `k` ulps.
fn ulps(x: f64, k: i64) -> f64 {
    f64::from_bits((x.to_bits() as i64 + k) as u64)
}

fn unary(v: Vec<f64>) -> Vec<(f64, f64)> {
    v.into_iter().map(|x| (x, 0.0)).collect()
}

/// Values every unary function sees as edge cases.
fn common_edges() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-300,
        -1e-300,
        1e300,
        -1e300,
    ]
}

// ---- the cases, by test ----

pub fn trig() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(1);
    let mut v = Vec::new();
    for _ in 0..1500 {
        v.push(r.range(-10.0, 10.0));
        v.push(r.range(-1e6, 1e6));
        v.push(r.log(20, 1024, true));
    }
    // Near multiples of π/2 (the reduction's hard cases), on both sides of the Cody–Waite limit.
    for _ in 0..1000 {
        let k = (r.next() % (1 << 21)) as f64;
        let c = k * consts::FRAC_PI_2;
        v.push(r.sign() * ulps(c, (r.next() % 5) as i64 - 2));
    }
    for k in 1..200 {
        v.push(k as f64 * consts::FRAC_PI_2);
        v.push(k as f64 * consts::FRAC_PI_4);
    }
    for _ in 0..300 {
        v.push(r.log(-1074, -20, true));
        v.push(r.range(1.5e6, 1.7e6));
    }
    let mut e = common_edges();
    // The closest double to a multiple of π/2 (|r| ≈ 2^-61), and other classic hard cases.
    e.extend([
        6381956970095103.0 * 2f64.powi(797),
        1e22,
        5.319372648326541e255,
        consts::PI,
        consts::FRAC_PI_2,
        consts::FRAC_PI_4,
        1.6e6,
        -1.6e6,
        2f64.powi(1023),
    ]);
    let (v, e) = (unary(v), unary(e));
    for f in 0..3 {
        out.push(Case::new(f, v.clone(), e.clone(), 1));
    }
    out
}

pub fn inverse_trig() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(2);
    let mut v = Vec::new();
    for _ in 0..3000 {
        v.push(r.range(-1.0, 1.0));
    }
    for _ in 0..600 {
        v.push(r.sign() * (1.0 - r.log(-53, -1, false)));
        v.push(r.sign() * (0.5 + r.range(-1e-3, 1e-3)));
        v.push(r.log(-1074, -1, true));
    }
    let mut e = common_edges();
    e.extend([
        ulps(1.0, -1),
        ulps(-1.0, -1),
        ulps(1.0, 1),
        ulps(-1.0, 1),
        0.975,
    ]);
    let (v, e) = (unary(v), unary(e));
    out.push(Case::new(3, v.clone(), e.clone(), 1));
    out.push(Case::new(4, v.clone(), e.clone(), 1));

    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push(r.range(-5.0, 5.0));
        v.push(r.log(-1074, 1024, true));
    }
    for b in [0.25, 0.75, 4.0 / 3.0, 4.0, 2f64.powi(60)] {
        for k in -3..=3 {
            v.push(ulps(b, k));
            v.push(-ulps(b, k));
        }
    }
    let mut e = common_edges();
    e.extend([2f64.powi(60), 2f64.powi(61), 7e-9, 8e-9]);
    out.push(Case::new(5, unary(v.clone()), unary(e.clone()), 1));
    out
}

pub fn atan2() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(3);
    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push((r.range(-10.0, 10.0), r.range(-10.0, 10.0)));
        v.push((r.log(-1074, 1024, true), r.log(-1074, 1024, true)));
        // Ratios near the ±60-octave limits and near 1.
        let x = r.log(-500, 500, true);
        v.push((x * r.log(-64, 64, true), x));
    }
    let sp = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
    ];
    let e: Vec<(f64, f64)> = sp
        .iter()
        .flat_map(|&y| sp.iter().map(move |&x| (y, x)))
        .collect();
    out.push(Case::new(15, v.clone(), e.clone(), 1));
    out
}

pub fn hyperbolic() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(4);
    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push(r.range(-30.0, 30.0));
        v.push(r.log(-60, 1, true));
    }
    for _ in 0..500 {
        v.push(r.sign() * r.range(700.0, 711.0));
        v.push(r.sign() * r.range(21.0, 23.0));
        v.push(r.log(-1074, -20, true));
    }
    let mut e = common_edges();
    e.extend([
        22.0,
        -22.0,
        710.4758600739439,
        -710.4758600739439,
        710.475860073944,
        1000.0,
        2f64.powi(-26),
        2f64.powi(-28),
    ]);
    let (v, e) = (unary(v), unary(e));
    // glibc documents sinh, cosh and tanh at 2 ulp (measured here: tanh 2).
    out.push(Case::new(6, v.clone(), e.clone(), 2));
    out.push(Case::new(7, v.clone(), e.clone(), 2));
    out.push(Case::new(8, v.clone(), e.clone(), 2));
    out
}

pub fn exponentials() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(5);
    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push(r.range(-745.2, 709.8));
        v.push(r.range(-5.0, 5.0));
        v.push(r.log(-1074, 0, true));
    }
    for _ in 0..300 {
        v.push(r.range(709.0, 709.8));
        v.push(r.range(-745.2, -708.0));
    }
    for k in -1074..=1023 {
        if k % 7 == 0 {
            v.push(k as f64 * consts::LN_2);
        }
    }
    let mut e = common_edges();
    e.extend([
        709.782712893384,
        709.7827128933841,
        -745.1332191019411,
        -745.1332191019412,
        -708.3964185322641,
    ]);
    out.push(Case::new(9, unary(v.clone()), unary(e.clone()), 1));

    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push(r.range(-1075.0, 1024.0));
        v.push(r.range(-2.0, 2.0));
        v.push(r.log(-1074, 0, true));
    }
    for k in -1080..=1030 {
        v.push(k as f64);
        v.push(k as f64 + 0.5);
    }
    let mut e = common_edges();
    e.extend([1024.0, ulps(1024.0, -1), -1074.0, -1075.0, -1074.5, -1022.0]);
    out.push(Case::new(10, unary(v.clone()), unary(e.clone()), 1));
    out
}

pub fn logarithms() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(6);
    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push(r.any_positive());
        v.push(r.range(0.5, 2.0));
    }
    for _ in 0..1000 {
        v.push(1.0 + r.sign() * r.log(-53, -1, false));
        v.push(ulps(1.0, (r.next() % 41) as i64 - 20));
    }
    for k in -1074..=1023 {
        v.push(2f64.powi(k));
    }
    for k in -307..=308 {
        v.push(format!("1e{k}").parse().unwrap());
    }
    let mut e = common_edges();
    e.extend([10.0, 100.0, 1000.0, 1e22, 0.1, consts::E, -3.0]);
    let (v, e) = (unary(v), unary(e));
    out.push(Case::new(11, v.clone(), e.clone(), 1));
    out.push(Case::new(12, v.clone(), e.clone(), 1));
    // glibc documents log10 at 2 ulp (measured here: 2, where ours is correctly rounded).
    out.push(Case::new(13, v.clone(), e.clone(), 2));
    out
}

pub fn cbrt() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(7);
    let mut v = Vec::new();
    for _ in 0..3000 {
        v.push(r.sign() * r.any_positive());
        v.push(r.range(-10.0, 10.0));
    }
    for k in 1..1000 {
        let c = (k * k * k) as f64;
        v.push(c);
        v.push(-c * 2f64.powi(-300));
    }
    let mut e = common_edges();
    e.extend([8.0, -27.0, 1e-310]);
    out.push(Case::new(14, unary(v.clone()), unary(e.clone()), 1));
    out
}

pub fn hypot() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(8);
    let mut v = Vec::new();
    for _ in 0..2000 {
        v.push((r.log(-1074, 1024, true), r.log(-1074, 1024, true)));
        let x = r.log(-1000, 1000, true);
        v.push((x, x * r.log(-30, 30, true)));
        v.push((r.range(-10.0, 10.0), r.range(-10.0, 10.0)));
    }
    for _ in 0..300 {
        v.push((r.range(0.5, 1.0) * f64::MAX, r.range(0.0, 0.7) * f64::MAX));
        v.push((r.log(-1074, -1000, true), r.log(-1074, -1000, true)));
    }
    let sp = [
        0.0,
        -0.0,
        3.0,
        -4.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        5e-324,
    ];
    let e: Vec<(f64, f64)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    out.push(Case::new(17, v.clone(), e.clone(), 1));
    out
}

pub fn powf() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(9);
    let mut v = Vec::new();
    for _ in 0..1500 {
        v.push((r.log(-10, 10, false), r.range(-50.0, 50.0)));
        // x near 1 with y large enough that |y ln x| reaches 700.
        let x = 1.0 + r.sign() * r.log(-45, -1, false);
        v.push((x, r.range(-700.0, 700.0) / x.ln()));
    }
    for _ in 0..500 {
        // Results near overflow and in the subnormal range.
        let x = r.range(1.5, 1e10);
        v.push((x, (709.78 - r.range(0.0, 0.01)) / x.ln()));
        v.push((x, r.range(-745.0, -708.0) / x.ln()));
    }
    for _ in 0..800 {
        // Negative bases with integral exponents (odd and even).
        v.push((-r.range(0.1, 10.0), ((r.next() % 601) as i64 - 300) as f64));
    }
    for _ in 0..100 {
        v.push((-r.range(0.1, 10.0), r.range(-5.0, 5.0)));
    }
    for b in 2..20 {
        for k in -30..30 {
            v.push((b as f64, k as f64));
        }
    }
    let xs = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        5e-324,
    ];
    let ys = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        3.0,
        -3.0,
        0.5,
        -0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e300,
        -1e300,
        9007199254740992.0,
        9007199254740991.0,
    ];
    let e: Vec<(f64, f64)> = xs
        .iter()
        .flat_map(|&x| ys.iter().map(move |&y| (x, y)))
        .collect();
    out.push(Case::new(16, v.clone(), e.clone(), 1));
    out
}
