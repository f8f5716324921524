//! Reproducible input data for the tests and the benchmark: a small seeded generator, unit
//! quaternions, interval lists of every shape the spec allows (§1.2), and the satellite scan of
//! the benchmark workflow (§4). Inputs only: nothing here is kernel code.

use crate::Interval;
use std::f64::consts::PI;

/// SplitMix64: a tiny, seedable, well-mixed generator (reproducible across platforms).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform in `lo..hi` (`lo < hi`).
    pub fn below(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo) as u64) as i64
    }

    /// A uniformly distributed unit quaternion `(x, y, z, w)` (Shoemake's method).
    pub fn unit_quat(&mut self) -> [f64; 4] {
        let (u1, u2, u3) = (self.uniform(), self.uniform(), self.uniform());
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let (t1, t2) = (2.0 * PI * u2, 2.0 * PI * u3);
        [a * t1.sin(), a * t1.cos(), b * t2.sin(), b * t2.cos()]
    }
}

/// The shapes of interval lists the tests draw (spec §1.2 and issue item 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalShape {
    /// No interval at all (a no-op).
    None,
    /// One interval covering every sample (`view = None`).
    Full,
    /// Every interval one sample long, with gaps between some.
    SingleSamples,
    /// Intervals of random lengths with random gaps (some zero) between them.
    Gaps,
}

/// Every shape, for strategies that pick one.
pub const INTERVAL_SHAPES: [IntervalShape; 4] = [
    IntervalShape::None,
    IntervalShape::Full,
    IntervalShape::SingleSamples,
    IntervalShape::Gaps,
];

/// A sorted, disjoint interval list of `shape` over `n_samp` samples, each interval inside
/// `0..n_samp` and non-empty.
pub fn intervals(rng: &mut Rng, shape: IntervalShape, n_samp: usize) -> Vec<Interval> {
    let n = n_samp as i64;
    let mut out = Vec::new();
    match shape {
        IntervalShape::None => {}
        IntervalShape::Full if n > 0 => out.push(Interval::samples(0, n - 1)),
        IntervalShape::Full => {}
        IntervalShape::SingleSamples => {
            let mut s = rng.below(0, 3);
            while s < n {
                out.push(Interval::samples(s, s));
                s += 1 + rng.below(0, 3);
            }
        }
        IntervalShape::Gaps => {
            let mut s = rng.below(0, 5);
            while s < n {
                let last = (s + rng.below(0, 40)).min(n - 1);
                out.push(Interval::samples(s, last));
                s = last + 1 + rng.below(0, 8);
            }
        }
    }
    out
}

/// `n_view` equal intervals over `n_samp` samples with a gap of `gap` samples between
/// neighbours (the benchmark's scan intervals; one interval covering all samples when `n_view`
/// is 1 and `gap` 0).
pub fn regular_intervals(n_samp: usize, n_view: usize, gap: usize) -> Vec<Interval> {
    if n_view == 0 || n_samp == 0 {
        return Vec::new();
    }
    let stride = n_samp / n_view;
    (0..n_view)
        .filter_map(|v| {
            let first = v * stride;
            let end = if v + 1 == n_view {
                n_samp
            } else {
                (v + 1) * stride
            };
            let last = end.saturating_sub(if v + 1 == n_view { 1 } else { gap + 1 });
            (last >= first && end > first).then(|| Interval::samples(first as i64, last as i64))
        })
        .collect()
}
