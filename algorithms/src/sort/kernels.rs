//! The kernels behind [`super::sort`], [`super::sort_by_key`] and [`super::BinSort`].
//!
//! The device kernels are gathers: each work item computes which element belongs at its own
//! index and writes only that index, so every write is owned in the sense of `#[kernel]`'s
//! owner-computes rule, with no atomics and no `unsafe`. Output position `k` of a merged pair of
//! runs finds its element by a binary search on the merge path (Green, McColl and Bader, *GPU
//! merge path*, ICS'12), so a pass is one `parallel_for` over the elements. They run on devices
//! only: on host memory the sorts work on host slices (`super::host`), with no kernel.
//!
//! The key kernels are written once per key type (by `key_kernels!`) because the order differs:
//! integers compare with `<`, floats with IEEE 754 `totalOrder` except that every NaN is after
//! `+inf` and all NaNs are equal, which the kernel language can express without reinterpreting
//! bits (`is_nan`, and `signum` to tell `-0.0` from `+0.0`).

use rokkos::ir::build::IrScalar;
use rokkos::{func, kernel, Pod};

/// `dst[i] = src[i]`: moves elements between Views of any layouts.
#[kernel]
pub fn copy_elems<V: Pod + IrScalar + Send + Sync>(i: usize, dst: ViewMut<V>, src: View<V>) {
    dst[i] = src[i];
}

/// `dst[i] = src[perm[i]]`: applies a permutation (Kokkos' `permute_vector`) by gathering.
#[kernel]
pub fn gather<V: Pod + IrScalar + Send + Sync>(
    i: usize,
    dst: ViewMut<V>,
    src: View<V>,
    perm: View<u32>,
) {
    dst[i] = src[perm[i] as usize];
}

/// `dst[(i, j)] = src[(perm[i], j)]`: applies a permutation to the rows of a rank-2 View.
#[kernel]
pub fn gather_rows<V: Pod + IrScalar + Send + Sync>(
    (i, j): (usize, usize),
    dst: ViewMut<V, 2>,
    src: View<V, 2>,
    perm: View<u32>,
) {
    dst[(i, j)] = src[(perm[i] as usize, j)];
}

/// `dst[(i, j)] = src[(i, j)]`.
#[kernel]
pub fn copy_rows<V: Pod + IrScalar + Send + Sync>(
    (i, j): (usize, usize),
    dst: ViewMut<V, 2>,
    src: View<V, 2>,
) {
    dst[(i, j)] = src[(i, j)];
}

/// `p[i] = i`: the identity permutation.
#[kernel]
pub fn iota(i: usize, p: ViewMut<u32>) {
    p[i] = i as u32;
}

/// Bin `b`'s first position in `sorted` (ascending bin indices) and its element count: two
/// binary searches, so every bin writes its own entries.
#[kernel]
pub fn bin_bounds(b: usize, offsets: ViewMut<u32>, counts: ViewMut<u32>, sorted: View<u32>) {
    let n = sorted.extent(0);
    let key = b as u32;
    let mut lo = 0usize;
    let mut hi = n;
    while lo < hi {
        let m = (lo + hi) / 2;
        if sorted[m] < key {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    let first = lo;
    hi = n;
    while lo < hi {
        let m = (lo + hi) / 2;
        if sorted[m] <= key {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    offsets[b] = first as u32;
    counts[b] = (lo - first) as u32;
}

/// The kernels whose comparisons depend on the key type: `less`, the number of descents (zero
/// when already sorted), and the merge passes (keys alone, or keys with a permutation).
macro_rules! key_kernels {
    ($m:ident, $t:ty, int, $w:ty, $uw:ty) => {
        pub mod $m {
            use super::*;
            /// The key order: `a < b`.
            #[func]
            pub fn less(a: $t, b: $t) -> bool {
                a < b
            }

            /// The bin of key `i`: `(clamp(k, min, max) - min) / width`, at most `last`, in
            /// the key's width (32 bits for the narrower keys, so that devices without 64-bit
            /// integers bin them).
            #[kernel]
            #[allow(clippy::too_many_arguments)]
            pub fn bin_of(
                i: usize,
                bins: ViewMut<u32>,
                keys: View<$t>,
                min: $w,
                max: $w,
                width: $uw,
                last: $uw,
            ) {
                let k = keys[i] as $w;
                let c = if k < min {
                    min
                } else if k > max {
                    max
                } else {
                    k
                };
                // `c >= min`, so the wrapped difference is the distance even where `c - min`
                // overflows the signed type.
                let d = (c as $uw).wrapping_sub(min as $uw);
                bins[i] = (d / width).min(last) as u32;
            }
            key_kernels!(@common $t);
        }
    };
    ($m:ident, $t:ty, float) => {
        pub mod $m {
            use super::*;
            /// The key order: ascending, `-0.0` before `+0.0`, every NaN after `+inf`, NaNs
            /// equal to each other.
            #[func]
            pub fn less(a: $t, b: $t) -> bool {
                if a.is_nan() {
                    return false;
                }
                if b.is_nan() {
                    return true;
                }
                if a < b {
                    return true;
                }
                // Only zeros of opposite signs are equal and ordered: signum is -1 for -0.0.
                a == b && a.signum() < b.signum()
            }

            /// The bin of key `i`: `floor((clamp(k, min, max) - min) * scale)` in the key's
            /// precision, at most `last`; NaN goes to `last` (NaN sorts last).
            #[kernel]
            #[allow(clippy::too_many_arguments)]
            pub fn bin_of(
                i: usize,
                bins: ViewMut<u32>,
                keys: View<$t>,
                min: $t,
                max: $t,
                scale: $t,
                last: u32,
            ) {
                let k = keys[i];
                if k.is_nan() {
                    bins[i] = last;
                } else {
                    let c = if k < min {
                        min
                    } else if k > max {
                        max
                    } else {
                        k
                    };
                    // `c - min >= 0`; the float-to-integer cast saturates, as Rust's does.
                    let b = ((c - min) * scale) as u32;
                    bins[i] = b.min(last);
                }
            }
            key_kernels!(@common $t);
        }
    };
    (@common $t:ty) => {
        /// 1 where `src[i]` is below its predecessor.
        #[kernel]
        pub fn descents(i: usize, acc: &mut u32, src: View<$t>) {
            if i > 0 && less(src[i], src[i - 1]) {
                *acc += 1;
            }
        }

        /// One merge pass over runs of length `w`: `dst[k]` is element `k` of the merge of
        /// its pair of runs.
        #[kernel]
        pub fn merge(k_: usize, dst: ViewMut<$t>, src: View<$t>, w: u32) {
            // In `u32` (the View has at most `u32::MAX` elements), written so that nothing
            // exceeds `n`: a device without 64-bit integers runs it too.
            let n = src.extent(0) as u32;
            let k = k_ as u32;
            let q = k / w;
            let lo = (q - q % 2) * w;
            let mid = if n - lo > w { lo + w } else { n };
            let hi = if n - mid > w { mid + w } else { n };
            let la = mid - lo;
            let lb = hi - mid;
            let kk = k - lo;
            // The number of elements of the left run among the pair's first `kk` outputs: the
            // left run's `m`-th precedes the right run's `kk - m - 1`-th unless that is smaller
            // (ties go to the left run, which keeps the merge stable).
            let mut a_lo = if kk > lb { kk - lb } else { 0 };
            let mut a_hi = if kk < la { kk } else { la };
            while a_lo < a_hi {
                let m = a_lo + (a_hi - a_lo) / 2;
                if less(src[(mid + (kk - m - 1)) as usize], src[(lo + m) as usize]) {
                    a_hi = m;
                } else {
                    a_lo = m + 1;
                }
            }
            let a = a_lo;
            let b = kk - a;
            let take_a = if a >= la {
                false
            } else if b >= lb {
                true
            } else {
                !less(src[(mid + b) as usize], src[(lo + a) as usize])
            };
            let s = if take_a { (lo + a) as usize } else { (mid + b) as usize };
            dst[k_] = src[s];
        }

        /// [`merge`] carrying a permutation along with the keys.
        #[kernel]
        pub fn merge_perm(
            k_: usize,
            dst: ViewMut<$t>,
            src: View<$t>,
            pdst: ViewMut<u32>,
            psrc: View<u32>,
            w: u32,
        ) {
            // In `u32` (the View has at most `u32::MAX` elements), written so that nothing
            // exceeds `n`: a device without 64-bit integers runs it too.
            let n = src.extent(0) as u32;
            let k = k_ as u32;
            let q = k / w;
            let lo = (q - q % 2) * w;
            let mid = if n - lo > w { lo + w } else { n };
            let hi = if n - mid > w { mid + w } else { n };
            let la = mid - lo;
            let lb = hi - mid;
            let kk = k - lo;
            // The number of elements of the left run among the pair's first `kk` outputs: the
            // left run's `m`-th precedes the right run's `kk - m - 1`-th unless that is smaller
            // (ties go to the left run, which keeps the merge stable).
            let mut a_lo = if kk > lb { kk - lb } else { 0 };
            let mut a_hi = if kk < la { kk } else { la };
            while a_lo < a_hi {
                let m = a_lo + (a_hi - a_lo) / 2;
                if less(src[(mid + (kk - m - 1)) as usize], src[(lo + m) as usize]) {
                    a_hi = m;
                } else {
                    a_lo = m + 1;
                }
            }
            let a = a_lo;
            let b = kk - a;
            let take_a = if a >= la {
                false
            } else if b >= lb {
                true
            } else {
                !less(src[(mid + b) as usize], src[(lo + a) as usize])
            };
            let s = if take_a { (lo + a) as usize } else { (mid + b) as usize };
            dst[k_] = src[s];
            pdst[k_] = psrc[s];
        }
    };
}

key_kernels!(k_u8, u8, int, u32, u32);
key_kernels!(k_u16, u16, int, u32, u32);
key_kernels!(k_u32, u32, int, u32, u32);
key_kernels!(k_u64, u64, int, u64, u64);
key_kernels!(k_i32, i32, int, i32, u32);
key_kernels!(k_i64, i64, int, i64, u64);
key_kernels!(k_f32, f32, float);
key_kernels!(k_f64, f64, float);
