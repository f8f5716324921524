//! The interval record of TOAST (spec §1.2): the input both the reference and the rokkos kernels
//! read. It is data, not code, so sharing it keeps the reference independent.

/// One view of the samples: the C record `{f64 start; f64 stop; i64 first; i64 last}`.
///
/// Kernels use only `first` and `last`, and `last` is **inclusive** (the paper-era convention the
/// spec requires): the view covers samples `first..=last`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Interval {
    /// Time stamp of the first sample (unused by the kernels).
    pub start: f64,
    /// Time stamp of the last sample (unused by the kernels).
    pub stop: f64,
    /// First sample of the view.
    pub first: i64,
    /// Last sample of the view, inclusive.
    pub last: i64,
}

impl Interval {
    /// The view `first..=last`, with time stamps at 100 Hz (the benchmark's sample rate).
    pub fn samples(first: i64, last: i64) -> Self {
        Interval {
            start: first as f64 * 0.01,
            stop: last as f64 * 0.01,
            first,
            last,
        }
    }

    /// The views `(first, last)` of `pairs`, in order.
    pub fn list(pairs: &[(i64, i64)]) -> Vec<Interval> {
        pairs
            .iter()
            .map(|&(f, l)| Interval::samples(f, l))
            .collect()
    }

    /// The number of samples in the view (`last - first + 1`; zero or less when empty).
    pub fn len(&self) -> i64 {
        self.last - self.first + 1
    }

    /// True when the view covers no sample.
    pub fn is_empty(&self) -> bool {
        self.len() <= 0
    }
}
