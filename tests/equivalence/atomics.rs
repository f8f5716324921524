//! Atomic operations on View elements (Kokkos `TestAtomicOperations` / `TestAtomic`): every
//! operation on every supported type (`i32`, `i64`, `u32`, `u64`, `f32`, `f64`), all work items
//! contending for one element, with a known final value: `n` additions of 1, `n` subtractions,
//! min/max over distinct values, fetch-add handing out every previous value exactly once, exchange
//! conserving the multiset of values, a compare-exchange loop, bitwise and/or/xor (parity), plus
//! histograms on Views of several layouts.

use crate::{check, dev, dev_from_fn, dev_from_vec, put, to_host, DevView};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;

/// Kernels and checks every atomic type supports. `$t` is a plain identifier so that the kernel
/// macro sees an ordinary type path.
macro_rules! atomic_common {
    ($t:ident) => {
        #[kernel]
        fn add_k(i: usize, c: ViewMut<$t>, x: View<$t>) {
            c.atomic_add(0, x[i]);
        }
        #[kernel]
        fn sub_k(i: usize, c: ViewMut<$t>, x: View<$t>) {
            c.atomic_sub(0, x[i]);
        }
        #[kernel]
        fn min_max_k(i: usize, c: ViewMut<$t>, x: View<$t>) {
            c.atomic_min(0, x[i]);
            c.atomic_max(1, x[i]);
        }
        #[kernel]
        fn fetch_add_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t>, x: View<$t>) {
            old[i] = c.atomic_fetch_add(0, x[i]);
        }
        #[kernel]
        fn fetch_min_max_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t, 2>, x: View<$t>) {
            old[(i, 0)] = c.atomic_fetch_min(0, x[i]);
            old[(i, 1)] = c.atomic_fetch_max(1, x[i]);
        }
        #[kernel]
        fn exchange_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t>, x: View<$t>) {
            old[i] = c.atomic_exchange(0, x[i]);
        }
        #[kernel]
        fn cas_increment_k(i: usize, c: ViewMut<$t>, x: View<$t>) {
            let mut done = false;
            while !done {
                let cur = c.atomic_load(0);
                done = c.atomic_compare_exchange(0, cur, cur + x[i]) == cur;
            }
        }
        #[kernel]
        fn load_store_k(i: usize, c: ViewMut<$t>, seen: ViewMut<$t>, x: View<$t>) {
            seen[i] = c.atomic_load(1);
            c.atomic_store(0, x[i]);
        }

        fn as_t(v: usize) -> $t {
            v as $t
        }

        /// All operations with `n` work items on one contended element (`c(0)`, and `c(1)`).
        pub(super) fn check_common<E: ExecutionSpace>(
            space: &E,
            n: usize,
            chunk: usize,
        ) -> Result<(), TestCaseError> {
            let p = || RangePolicy::new(space, 0..n).chunk_size(chunk);
            let ones: DevView<E, $t> = dev_from_fn(space, "ones", [n], |_| as_t(1))?;
            // Distinct values 5..n + 5 in a scrambled order.
            let perm = |i: usize| if n == 0 { 0 } else { (i * 7919 + 3) % n };
            let distinct: DevView<E, $t> =
                dev_from_fn(space, "distinct", [n], |[i]| as_t(perm(i) + 5))?;

            let c: DevView<E, $t> = dev(space, "c", [2])?;
            parallel_for("add", p(), add_k(&c, &ones))?;
            prop_assert_eq!(to_host(&c)[0], as_t(n));

            put(&c, [0], as_t(n))?;
            parallel_for("sub", p(), sub_k(&c, &ones))?;
            prop_assert_eq!(to_host(&c)[0], as_t(0));

            put(&c, [0], as_t(1_000_000))?;
            put(&c, [1], as_t(0))?;
            parallel_for("min_max", p(), min_max_k(&c, &distinct))?;
            let (lo, hi) = if n == 0 { (1_000_000, 0) } else { (5, n + 4) };
            let hc = to_host(&c);
            prop_assert_eq!((hc[0], hc[1]), (as_t(lo), as_t(hi)));

            // fetch_add of 1: every previous value 0..n exactly once.
            c.fill(as_t(0))?;
            let old: DevView<E, $t> = dev(space, "old", [n])?;
            parallel_for("fetch_add", p(), fetch_add_k(&c, &old, &ones))?;
            prop_assert_eq!(to_host(&c)[0], as_t(n));
            let mut seen: Vec<usize> = to_host(&old).iter().map(|&v| v as usize).collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..n).collect::<Vec<_>>());

            // fetch_min / fetch_max return a value no better than the final one.
            put(&c, [0], as_t(1_000_000))?;
            put(&c, [1], as_t(0))?;
            let old2: DevView<E, $t, 2> = dev(space, "old2", [n, 2])?;
            parallel_for("fetch_min_max", p(), fetch_min_max_k(&c, &old2, &distinct))?;
            let hc = to_host(&c);
            prop_assert_eq!((hc[0], hc[1]), (as_t(lo), as_t(hi)));
            let h = to_host(&old2);
            for i in 0..n {
                prop_assert!(h[2 * i] >= hc[0] && h[2 * i + 1] <= hc[1]);
            }

            // exchange: the previous values plus the final one are the initial value plus the
            // values swapped in.
            put(&c, [0], as_t(1))?;
            parallel_for("exchange", p(), exchange_k(&c, &old, &distinct))?;
            let mut all: Vec<usize> = to_host(&old).iter().map(|&v| v as usize).collect();
            all.push(to_host(&c)[0] as usize);
            all.sort_unstable();
            let mut want: Vec<usize> = (0..n).map(|i| perm(i) + 5).collect();
            want.push(1);
            want.sort_unstable();
            prop_assert_eq!(all, want);

            // A compare-exchange retry loop implementing an increment.
            put(&c, [0], as_t(0))?;
            parallel_for("cas", p(), cas_increment_k(&c, &ones))?;
            prop_assert_eq!(to_host(&c)[0], as_t(n));

            // Atomic loads of an element nobody writes; stores of values from a known set.
            put(&c, [0], as_t(0))?;
            put(&c, [1], as_t(42))?;
            let seen: DevView<E, $t> = dev(space, "seen", [n])?;
            parallel_for("load_store", p(), load_store_k(&c, &seen, &distinct))?;
            prop_assert!(to_host(&seen).iter().all(|&v| v == as_t(42)));
            let last = to_host(&c)[0] as usize;
            let ok = if n == 0 {
                last == 0
            } else {
                (5..n + 5).contains(&last)
            };
            prop_assert!(ok, "last stored value {}", last);
            Ok(())
        }
    };
}

/// Bitwise operations of the integer types.
macro_rules! atomic_bits {
    ($t:ident) => {
        #[kernel]
        fn bits_k(i: usize, c: ViewMut<$t>, x: View<$t>) {
            c.atomic_xor(0, x[i]);
            c.atomic_or(1, x[i]);
            c.atomic_and(2, !x[i]);
            c.atomic_fetch_xor(3, 1);
        }

        pub(super) fn check_bits<E: ExecutionSpace>(
            space: &E,
            n: usize,
            chunk: usize,
        ) -> Result<(), TestCaseError> {
            let bits = <$t>::BITS as usize;
            // Work item i flips bit i % bits.
            let x: DevView<E, $t> = dev_from_fn(space, "x", [n], |[i]| (1 as $t) << (i % bits))?;
            let c: DevView<E, $t> = dev_from_vec(space, "c", [4], vec![0, 0, !0, 0])?;
            let p = RangePolicy::new(space, 0..n).chunk_size(chunk);
            parallel_for("bits", p, bits_k(&c, &x))?;
            let (mut xor, mut or, mut and) = (0 as $t, 0 as $t, !0 as $t);
            for i in 0..n {
                let b = (1 as $t) << (i % bits);
                xor ^= b;
                or |= b;
                and &= !b;
            }
            prop_assert_eq!(to_host(&c), vec![xor, or, and, (n % 2) as $t]);
            Ok(())
        }
    };
}

mod a_i32 {
    use super::*;
    atomic_common!(i32);
    atomic_bits!(i32);
}
mod a_i64 {
    use super::*;
    atomic_common!(i64);
    atomic_bits!(i64);
}
mod a_u32 {
    use super::*;
    atomic_common!(u32);
    atomic_bits!(u32);
}
mod a_u64 {
    use super::*;
    atomic_common!(u64);
    atomic_bits!(u64);
}
mod a_f32 {
    use super::*;
    atomic_common!(f32);
}
mod a_f64 {
    use super::*;
    atomic_common!(f64);
}

fn atomic_sizes() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 7, 255, 256, 257, 1025, 4099])
}

/// Every atomic operation on every type, with `n` work items on one element.
fn contended_element<E: ExecutionSpace>(space: E) {
    check(10, (atomic_sizes(), crate::chunk_sizes()), |(n, chunk)| {
        a_i32::check_common(&space, n, chunk)?;
        a_i64::check_common(&space, n, chunk)?;
        a_u32::check_common(&space, n, chunk)?;
        a_u64::check_common(&space, n, chunk)?;
        a_f32::check_common(&space, n, chunk)?;
        a_f64::check_common(&space, n, chunk)?;
        a_i32::check_bits(&space, n, chunk)?;
        a_i64::check_bits(&space, n, chunk)?;
        a_u32::check_bits(&space, n, chunk)?;
        a_u64::check_bits(&space, n, chunk)?;
        Ok(())
    });
}
per_backend!(contended_element);

#[kernel]
fn hist(i: usize, h: ViewMut<i32>, x: View<i32>, nb: i32) {
    h.atomic_add((x[i] % nb) as usize, 1);
}

#[kernel]
fn weighted_hist(i: usize, h: ViewMut<f64, 2>, x: View<i32>, w: View<f64>, nb: i32) {
    h.atomic_add(((x[i] % nb) as usize, 1), w[i]);
}

/// Histograms against a plain loop, into a rank-1 View, a column of a `LayoutLeft` matrix
/// (`f64` weights that are exact in binary, so the result is exact in any order), and a
/// `LayoutStride` subview.
fn histograms<E: ExecutionSpace>(space: E) {
    check(
        16,
        (crate::sizes(), 1i32..40, any::<u64>()),
        |(n, nb, seed)| {
            let xs: Vec<i32> = crate::ints(seed, n, 0, 1000)
                .into_iter()
                .map(|v| v as i32)
                .collect();
            let ws: Vec<f64> = (0..n).map(|i| (i % 5) as f64 * 0.25).collect();
            let x: DevView<E, i32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let w: DevView<E, f64> = dev_from_vec(&space, "w", [n], ws.clone())?;
            let mut want = vec![0i32; nb as usize];
            let mut want_w = vec![0f64; nb as usize];
            for i in 0..n {
                want[(xs[i] % nb) as usize] += 1;
                want_w[(xs[i] % nb) as usize] += ws[i];
            }

            let h: DevView<E, i32> = dev(&space, "h", [nb as usize])?;
            parallel_for("hist", RangePolicy::new(&space, 0..n), hist(&h, &x, nb))?;
            prop_assert_eq!(to_host(&h), want.clone());

            let hw: DevView<E, f64, 2, LayoutLeft> = dev(&space, "hw", [nb as usize, 2])?;
            parallel_for(
                "weighted",
                RangePolicy::new(&space, 0..n),
                weighted_hist(&hw, &x, &w, nb),
            )?;
            let col: DevView<E, f64, 1, LayoutStride> = hw.subview((.., 1))?;
            prop_assert_eq!(to_host(&col), want_w);
            let col0: DevView<E, f64, 1, LayoutStride> = hw.subview((.., 0))?;
            prop_assert!(to_host(&col0).iter().all(|&v| v == 0.0));

            let big: DevView<E, i32, 2> = dev(&space, "big", [nb as usize, 3])?;
            let hs: DevView<E, i32, 1, LayoutStride> = big.subview((.., 2))?;
            parallel_for(
                "hist_stride",
                RangePolicy::new(&space, 0..n),
                hist(&hs, &x, nb),
            )?;
            prop_assert_eq!(to_host(&hs), want);
            Ok(())
        },
    );
}
per_backend!(histograms);
