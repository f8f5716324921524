//! Atomic operations on View elements (Kokkos `TestAtomicOperations` / `TestAtomic`): every
//! operation on every supported type (`i32`, `i64`, `u32`, `u64`, `f32`, `f64`; the narrow
//! `u8`, `u16`, `i8`, `i16` in the element-wise and contended checks of the further operations), all work items
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

// ---- The Kokkos atomics beyond add/sub/min/max/and/or/xor: mul, div, mod, nand, lshift,
// rshift, inc, dec, inc_mod, dec_mod, and the `atomic_<op>_fetch` forms (the new value) of every
// read-modify-write. Each operation is checked two ways: element-wise (work item `i` alone on
// its own elements, every pair of a list of edge values, the fetch form, the `_fetch` form and
// the statement form against Rust's own wrapping operations) and contended (all work items on
// one element with the same operand, so that the final value and the multiset of values handed
// out are known whatever the order).

/// Sorted, for comparing the values handed out as multisets.
fn sorted<T: PartialOrd + Copy>(mut v: Vec<T>) -> Vec<T> {
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v
}

/// Column `k` of an `[n, cols]` LayoutRight host copy.
fn column<T: Copy>(h: &[T], cols: usize, k: usize) -> Vec<T> {
    h.chunks(cols).map(|r| r[k]).collect()
}

/// The integer operations beyond the bitwise ones (every integer type).
macro_rules! atomic_int_more {
    ($t:ident) => {
        /// Number of element-wise operations, and the reference: what operation `k` stores over
        /// `a` with operand `v` (div / mod take `v` or 1 where it is 0).
        const EW_OPS: usize = 15;
        fn ew_ref(k: usize, a: $t, v: $t) -> $t {
            let nz = if v == 0 { 1 } else { v };
            match k {
                0 => a.wrapping_mul(v),
                1 => a.wrapping_div(nz),
                2 => a.wrapping_rem(nz),
                3 => !(a & v),
                4 => a.wrapping_shl(v as u32),
                5 => a.wrapping_shr(v as u32),
                6 => a.wrapping_add(1),
                7 => a.wrapping_sub(1),
                8 => a.wrapping_add(v),
                9 => a.wrapping_sub(v),
                10 => a.min(v),
                11 => a.max(v),
                12 => a & v,
                13 => a | v,
                _ => a ^ v,
            }
        }

        /// Operation `k` on column `3k` (fetch form, the old value into `old`), `3k + 1`
        /// (`_fetch` form, the new value into `new`) and `3k + 2` (statement) of row `i`.
        #[kernel]
        fn ew_k(
            i: usize,
            c: ViewMut<$t, 2>,
            old: ViewMut<$t, 2>,
            new: ViewMut<$t, 2>,
            x: View<$t>,
        ) {
            let v = x[i];
            let nz = if v == 0 { 1 } else { v };
            old[(i, 0)] = c.atomic_fetch_mul((i, 0), v);
            new[(i, 0)] = c.atomic_mul_fetch((i, 1), v);
            c.atomic_mul((i, 2), v);
            old[(i, 1)] = c.atomic_fetch_div((i, 3), nz);
            new[(i, 1)] = c.atomic_div_fetch((i, 4), nz);
            c.atomic_div((i, 5), nz);
            old[(i, 2)] = c.atomic_fetch_mod((i, 6), nz);
            new[(i, 2)] = c.atomic_mod_fetch((i, 7), nz);
            c.atomic_mod((i, 8), nz);
            old[(i, 3)] = c.atomic_fetch_nand((i, 9), v);
            new[(i, 3)] = c.atomic_nand_fetch((i, 10), v);
            c.atomic_nand((i, 11), v);
            old[(i, 4)] = c.atomic_fetch_lshift((i, 12), v);
            new[(i, 4)] = c.atomic_lshift_fetch((i, 13), v);
            c.atomic_lshift((i, 14), v);
            old[(i, 5)] = c.atomic_fetch_rshift((i, 15), v);
            new[(i, 5)] = c.atomic_rshift_fetch((i, 16), v);
            c.atomic_rshift((i, 17), v);
            old[(i, 6)] = c.atomic_fetch_inc((i, 18));
            new[(i, 6)] = c.atomic_inc_fetch((i, 19));
            c.atomic_inc((i, 20));
            old[(i, 7)] = c.atomic_fetch_dec((i, 21));
            new[(i, 7)] = c.atomic_dec_fetch((i, 22));
            c.atomic_dec((i, 23));
            old[(i, 8)] = c.atomic_fetch_add((i, 24), v);
            new[(i, 8)] = c.atomic_add_fetch((i, 25), v);
            c.atomic_add((i, 26), v);
            old[(i, 9)] = c.atomic_fetch_sub((i, 27), v);
            new[(i, 9)] = c.atomic_sub_fetch((i, 28), v);
            c.atomic_sub((i, 29), v);
            old[(i, 10)] = c.atomic_fetch_min((i, 30), v);
            new[(i, 10)] = c.atomic_min_fetch((i, 31), v);
            c.atomic_min((i, 32), v);
            old[(i, 11)] = c.atomic_fetch_max((i, 33), v);
            new[(i, 11)] = c.atomic_max_fetch((i, 34), v);
            c.atomic_max((i, 35), v);
            old[(i, 12)] = c.atomic_fetch_and((i, 36), v);
            new[(i, 12)] = c.atomic_and_fetch((i, 37), v);
            c.atomic_and((i, 38), v);
            old[(i, 13)] = c.atomic_fetch_or((i, 39), v);
            new[(i, 13)] = c.atomic_or_fetch((i, 40), v);
            c.atomic_or((i, 41), v);
            old[(i, 14)] = c.atomic_fetch_xor((i, 42), v);
            new[(i, 14)] = c.atomic_xor_fetch((i, 43), v);
            c.atomic_xor((i, 44), v);
        }

        /// The edge values: wrapping, the signed extremes, -1, shift amounts around the width.
        fn edges() -> Vec<$t> {
            let bits = <$t>::BITS as i64;
            vec![
                0,
                1,
                2,
                3,
                7,
                <$t>::MAX,
                <$t>::MIN,
                <$t>::MAX - 1,
                <$t>::MIN.wrapping_add(1),
                (bits - 1) as $t,
                bits as $t,
                (bits + 1) as $t,
                (2 * bits + 3) as $t,
                -1i64 as $t,
                -bits as $t,
                0x5a5a_5a5a_5a5a_5a5au64 as $t,
            ]
        }

        /// Every operation, element-wise: row `i` starts at `edges[i % 16]` with operand
        /// `edges[(i / 16) % 16]` (every pair once `n >= 256`).
        pub(super) fn check_elementwise<E: ExecutionSpace>(
            space: &E,
            n: usize,
            chunk: usize,
        ) -> Result<(), TestCaseError> {
            let e = edges();
            let a = |i: usize| e[i % e.len()];
            let v = |i: usize| e[(i / e.len()) % e.len()];
            let cols = 3 * EW_OPS;
            let c: DevView<E, $t, 2> = dev_from_fn(space, "c", [n, cols], |[i, _]| a(i))?;
            let old: DevView<E, $t, 2> = dev(space, "old", [n, EW_OPS])?;
            let new: DevView<E, $t, 2> = dev(space, "new", [n, EW_OPS])?;
            let x: DevView<E, $t> = dev_from_fn(space, "x", [n], |[i]| v(i))?;
            let p = RangePolicy::new(space, 0..n).chunk_size(chunk);
            parallel_for("elementwise", p, ew_k(&c, &old, &new, &x))?;
            let (hc, ho, hn) = (to_host(&c), to_host(&old), to_host(&new));
            for i in 0..n {
                for k in 0..EW_OPS {
                    let want = ew_ref(k, a(i), v(i));
                    let what = format!("op {k} on {} with {}", a(i), v(i));
                    prop_assert_eq!(ho[i * EW_OPS + k], a(i), "old value of {}", what);
                    prop_assert_eq!(hn[i * EW_OPS + k], want, "new value of {}", what);
                    let row = &hc[i * cols + 3 * k..i * cols + 3 * k + 3];
                    prop_assert_eq!(row, &[want; 3][..], "element after {}", what);
                }
            }
            Ok(())
        }

        /// Contention on one element per operation, every work item with the same operand.
        #[kernel]
        fn contend_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t, 2>, ones: $t) {
            c.atomic_mul(0, 3);
            c.atomic_mul(1, 2);
            old[(i, 0)] = c.atomic_fetch_mul(2, 3);
            old[(i, 1)] = c.atomic_mul_fetch(3, 3);
            c.atomic_inc(4);
            old[(i, 2)] = c.atomic_fetch_inc(5);
            old[(i, 3)] = c.atomic_inc_fetch(6);
            c.atomic_dec(7);
            old[(i, 4)] = c.atomic_dec_fetch(8);
            c.atomic_nand(9, ones);
            old[(i, 5)] = c.atomic_fetch_nand(10, ones);
            c.atomic_lshift(11, 1);
            old[(i, 6)] = c.atomic_fetch_lshift(12, 1);
            c.atomic_rshift(13, 1);
            old[(i, 7)] = c.atomic_fetch_rshift(14, 1);
            c.atomic_div(15, 2);
            old[(i, 8)] = c.atomic_fetch_div(16, 2);
            old[(i, 9)] = c.atomic_add_fetch(17, 1);
            old[(i, 10)] = c.atomic_sub_fetch(18, 1);
            old[(i, 11)] = c.atomic_xor_fetch(19, 1);
        }

        /// Moduli that are powers of two: the final value is the initial one modulo the
        /// smallest, in any order.
        #[kernel]
        fn mod_k(i: usize, c: ViewMut<$t>, m: View<$t>) {
            c.atomic_mod(0, m[i]);
        }

        #[kernel]
        fn div_zero_k(i: usize, c: ViewMut<$t>, z: View<$t>) {
            c.atomic_div(0, z[i]);
        }

        #[kernel]
        fn mod_zero_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t>, z: View<$t>) {
            old[i] = c.atomic_fetch_mod(0, z[i]);
        }

        /// `x`, then `step` applied `n - 1` times: the values a contended element holds in turn.
        fn chain(x: $t, n: usize, step: impl Fn($t) -> $t) -> Vec<$t> {
            std::iter::successors(Some(x), |&y| Some(step(y)))
                .take(n)
                .collect()
        }

        pub(super) fn check_contended_more<E: ExecutionSpace>(
            space: &E,
            n: usize,
            chunk: usize,
        ) -> Result<(), TestCaseError> {
            let p = || RangePolicy::new(space, 0..n).chunk_size(chunk);
            let bits = <$t>::BITS;
            let nt = n as $t;
            let pat = 0x5a5a_5a5a_5a5a_5a5au64 as $t;
            let top = (1 as $t).wrapping_shl(bits - 1);
            let init: Vec<$t> = vec![
                1,
                1,
                1,
                1,
                0,
                0,
                0,
                nt,
                nt,
                pat,
                pat,
                1,
                1,
                top,
                top,
                <$t>::MAX,
                <$t>::MAX,
                0,
                nt,
                0,
            ];
            let c: DevView<E, $t> = dev_from_vec(space, "c", [init.len()], init)?;
            let old: DevView<E, $t, 2> = dev(space, "old", [n, 12])?;
            parallel_for("contend", p(), contend_k(&c, &old, !0))?;
            let (hc, ho) = (to_host(&c), to_host(&old));
            let col = |k: usize| sorted(column(&ho, 12, k));
            let after = |x: $t, f: &dyn Fn($t) -> $t| chain(x, n + 1, f)[n];
            let pow3 = (3 as $t).wrapping_pow(n as u32);
            prop_assert_eq!(hc[0], pow3, "n multiplications by 3");
            // 2^n wraps to 0 once n reaches the width.
            prop_assert_eq!(hc[1], (2 as $t).wrapping_pow(n as u32), "n doublings");
            prop_assert_eq!((hc[2], hc[3]), (pow3, pow3));
            // Every work item multiplies by the same 3: the values handed out are the powers.
            prop_assert_eq!(col(0), sorted(chain(1, n, |y| y.wrapping_mul(3))));
            prop_assert_eq!(col(1), sorted(chain(3, n, |y| y.wrapping_mul(3))));
            // (Sorted: u8 / u16 counts wrap.)
            prop_assert_eq!((hc[4], hc[5], hc[6]), (nt, nt, nt), "n increments");
            prop_assert_eq!(col(2), sorted((0..n).map(|k| k as $t).collect()));
            prop_assert_eq!(col(3), sorted((1..=n).map(|k| k as $t).collect()));
            prop_assert_eq!((hc[7], hc[8]), (0, 0), "n decrements of n");
            prop_assert_eq!(col(4), sorted((0..n).map(|k| k as $t).collect()));
            // nand with all ones flips every bit: parity.
            let flipped = if n % 2 == 0 { pat } else { !pat };
            prop_assert_eq!((hc[9], hc[10]), (flipped, flipped), "n nands with !0");
            prop_assert_eq!(col(5), sorted(chain(pat, n, |y| !y)));
            let shl = after(1, &|y| y.wrapping_shl(1));
            prop_assert_eq!((hc[11], hc[12]), (shl, shl), "n left shifts by 1");
            prop_assert_eq!(col(6), sorted(chain(1, n, |y| y.wrapping_shl(1))));
            // Arithmetic for signed types: MIN >> 1 again and again ends at -1.
            let shr = after(top, &|y| y >> 1);
            prop_assert_eq!((hc[13], hc[14]), (shr, shr), "n right shifts by 1");
            prop_assert_eq!(col(7), sorted(chain(top, n, |y| y >> 1)));
            let half = after(<$t>::MAX, &|y| y / 2);
            prop_assert_eq!((hc[15], hc[16]), (half, half), "n halvings");
            prop_assert_eq!(col(8), sorted(chain(<$t>::MAX, n, |y| y / 2)));
            prop_assert_eq!((hc[17], hc[18]), (nt, 0));
            prop_assert_eq!(col(9), sorted((1..=n).map(|k| k as $t).collect()));
            prop_assert_eq!(col(10), sorted((0..n).map(|k| k as $t).collect()));
            prop_assert_eq!(hc[19], (n % 2) as $t);
            prop_assert_eq!(col(11), sorted(chain(1, n, |y| y ^ 1)));

            // Powers-of-two moduli in any order: the initial value modulo the smallest.
            let m_of = |i: usize| (1 as $t) << (1 + (i * 7) % (bits as usize - 2));
            let start = -123_456_789i64 as $t;
            let m: DevView<E, $t> = dev_from_fn(space, "m", [n], |[i]| m_of(i))?;
            let c: DevView<E, $t> = dev_from_vec(space, "c", [1], vec![start])?;
            parallel_for("mod", p(), mod_k(&c, &m))?;
            let want = (0..n).map(m_of).min().map_or(start, |m| start % m);
            prop_assert_eq!(to_host(&c)[0], want, "{} modulo powers of two", start);
            Ok(())
        }

        /// An integer div / mod by zero fails the work item on every backend (Rust's message),
        /// and the element it would have changed is left as it was.
        pub(super) fn check_zero_divisor<E: ExecutionSpace>(space: &E) {
            let n = 300;
            let z: DevView<E, $t> =
                dev_from_fn(space, "z", [n], |[i]| if i == 123 { 0 } else { 1 }).unwrap();
            let c: DevView<E, $t> = dev_from_vec(space, "c", [1], vec![77]).unwrap();
            let res = parallel_for(
                "div_zero",
                RangePolicy::new(space, 0..n),
                div_zero_k(&c, &z),
            )
            .and_then(|()| space.fence());
            let msg = crate::kernel_failure(space, res, "div_zero_k", "atomic div by zero");
            assert!(msg.contains("attempt to divide by zero"), "{msg}");
            // Dividing by 1 changes nothing either.
            assert_eq!(to_host(&c), vec![77]);
            let old: DevView<E, $t> = dev(space, "old", [n]).unwrap();
            let res = parallel_for(
                "mod_zero",
                RangePolicy::new(space, 0..n),
                mod_zero_k(&c, &old, &z),
            )
            .and_then(|()| space.fence());
            let msg = crate::kernel_failure(space, res, "mod_zero_k", "atomic mod by zero");
            assert!(
                msg.contains("attempt to calculate the remainder with a divisor of zero"),
                "{msg}"
            );
            // 77 % 1 is 0: the element is 77 or 0, whatever the failing work item did not do.
            let left = to_host(&c)[0];
            assert!(left == 0 || left == 77, "{left}");
        }
    };
}

/// `inc_mod` / `dec_mod` (unsigned types).
macro_rules! atomic_unsigned_more {
    ($t:ident) => {
        fn inc_mod_ref(a: $t, v: $t) -> $t {
            if a >= v {
                0
            } else {
                a + 1
            }
        }
        fn dec_mod_ref(a: $t, v: $t) -> $t {
            if a == 0 || a > v {
                v
            } else {
                a - 1
            }
        }

        #[kernel]
        fn uew_k(
            i: usize,
            c: ViewMut<$t, 2>,
            old: ViewMut<$t, 2>,
            new: ViewMut<$t, 2>,
            x: View<$t>,
        ) {
            let v = x[i];
            old[(i, 0)] = c.atomic_fetch_inc_mod((i, 0), v);
            new[(i, 0)] = c.atomic_inc_mod_fetch((i, 1), v);
            c.atomic_inc_mod((i, 2), v);
            old[(i, 1)] = c.atomic_fetch_dec_mod((i, 3), v);
            new[(i, 1)] = c.atomic_dec_mod_fetch((i, 4), v);
            c.atomic_dec_mod((i, 5), v);
        }

        #[kernel]
        fn ucontend_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t, 2>) {
            c.atomic_inc_mod(0, 6);
            old[(i, 0)] = c.atomic_fetch_inc_mod(1, 6);
            old[(i, 1)] = c.atomic_inc_mod_fetch(2, 6);
            c.atomic_dec_mod(3, 6);
            old[(i, 2)] = c.atomic_fetch_dec_mod(4, 6);
            old[(i, 3)] = c.atomic_dec_mod_fetch(5, 6);
        }

        pub(super) fn check_mod_counters<E: ExecutionSpace>(
            space: &E,
            n: usize,
            chunk: usize,
        ) -> Result<(), TestCaseError> {
            let p = || RangePolicy::new(space, 0..n).chunk_size(chunk);
            // Element-wise against the reference, every pair of edge values.
            let e = edges();
            let a = |i: usize| e[i % e.len()];
            let v = |i: usize| e[(i / e.len()) % e.len()];
            let c: DevView<E, $t, 2> = dev_from_fn(space, "c", [n, 6], |[i, _]| a(i))?;
            let old: DevView<E, $t, 2> = dev(space, "old", [n, 2])?;
            let new: DevView<E, $t, 2> = dev(space, "new", [n, 2])?;
            let x: DevView<E, $t> = dev_from_fn(space, "x", [n], |[i]| v(i))?;
            parallel_for("uelementwise", p(), uew_k(&c, &old, &new, &x))?;
            let (hc, ho, hn) = (to_host(&c), to_host(&old), to_host(&new));
            for i in 0..n {
                let want = [inc_mod_ref(a(i), v(i)), dec_mod_ref(a(i), v(i))];
                for k in 0..2 {
                    let what = format!("op {k} on {} with {}", a(i), v(i));
                    prop_assert_eq!(ho[2 * i + k], a(i), "old value of {}", what);
                    prop_assert_eq!(hn[2 * i + k], want[k], "new value of {}", what);
                    prop_assert_eq!(&hc[6 * i + 3 * k..6 * i + 3 * k + 3], &[want[k]; 3][..]);
                }
            }
            // A counter cycling through 0..=6, up and down: every value handed out in turn.
            let c: DevView<E, $t> = dev(space, "c", [6])?;
            let old: DevView<E, $t, 2> = dev(space, "old", [n, 4])?;
            parallel_for("ucontend", p(), ucontend_k(&c, &old))?;
            let (hc, ho) = (to_host(&c), to_host(&old));
            let up = |k: usize| (k % 7) as $t;
            let down = |k: usize| ((7 - k % 7) % 7) as $t;
            prop_assert_eq!(hc, vec![up(n), up(n), up(n), down(n), down(n), down(n)]);
            let col = |k: usize| sorted(column(&ho, 4, k));
            prop_assert_eq!(col(0), sorted((0..n).map(up).collect()));
            prop_assert_eq!(col(1), sorted((1..=n).map(up).collect()));
            prop_assert_eq!(col(2), sorted((0..n).map(down).collect()));
            prop_assert_eq!(col(3), sorted((1..=n).map(down).collect()));
            Ok(())
        }
    };
}

/// mul, div, inc, dec and the `_fetch` forms on floats, with exact values.
macro_rules! atomic_float_more {
    ($t:ident) => {
        const FEW_OPS: usize = 8;
        fn few_ref(k: usize, a: $t, v: $t) -> $t {
            let nz = if v == 0.0 { 1.0 } else { v };
            match k {
                0 => a * v,
                1 => a / nz,
                2 => a + 1.0,
                3 => a - 1.0,
                4 => a + v,
                5 => a - v,
                6 => {
                    if v < a {
                        v
                    } else {
                        a
                    }
                }
                _ => {
                    if v > a {
                        v
                    } else {
                        a
                    }
                }
            }
        }

        #[kernel]
        fn few_k(
            i: usize,
            c: ViewMut<$t, 2>,
            old: ViewMut<$t, 2>,
            new: ViewMut<$t, 2>,
            x: View<$t>,
        ) {
            let v = x[i];
            let nz = if v == 0.0 { 1.0 } else { v };
            old[(i, 0)] = c.atomic_fetch_mul((i, 0), v);
            new[(i, 0)] = c.atomic_mul_fetch((i, 1), v);
            c.atomic_mul((i, 2), v);
            old[(i, 1)] = c.atomic_fetch_div((i, 3), nz);
            new[(i, 1)] = c.atomic_div_fetch((i, 4), nz);
            c.atomic_div((i, 5), nz);
            old[(i, 2)] = c.atomic_fetch_inc((i, 6));
            new[(i, 2)] = c.atomic_inc_fetch((i, 7));
            c.atomic_inc((i, 8));
            old[(i, 3)] = c.atomic_fetch_dec((i, 9));
            new[(i, 3)] = c.atomic_dec_fetch((i, 10));
            c.atomic_dec((i, 11));
            old[(i, 4)] = c.atomic_fetch_add((i, 12), v);
            new[(i, 4)] = c.atomic_add_fetch((i, 13), v);
            c.atomic_add((i, 14), v);
            old[(i, 5)] = c.atomic_fetch_sub((i, 15), v);
            new[(i, 5)] = c.atomic_sub_fetch((i, 16), v);
            c.atomic_sub((i, 17), v);
            old[(i, 6)] = c.atomic_fetch_min((i, 18), v);
            new[(i, 6)] = c.atomic_min_fetch((i, 19), v);
            c.atomic_min((i, 20), v);
            old[(i, 7)] = c.atomic_fetch_max((i, 21), v);
            new[(i, 7)] = c.atomic_max_fetch((i, 22), v);
            c.atomic_max((i, 23), v);
        }

        /// `x` and `y` are 2 for the first 64 work items; after them `x` alternates -1 and 1
        /// and `y` is 1, so every product and quotient is an exact power of two.
        #[kernel]
        fn fcontend_k(i: usize, c: ViewMut<$t>, old: ViewMut<$t, 2>, x: View<$t>, y: View<$t>) {
            c.atomic_mul(0, x[i]);
            c.atomic_div(1, y[i]);
            old[(i, 0)] = c.atomic_fetch_mul(2, 2.0);
            old[(i, 1)] = c.atomic_div_fetch(3, 0.5);
            old[(i, 2)] = c.atomic_inc_fetch(4);
            old[(i, 3)] = c.atomic_fetch_dec(5);
            c.atomic_inc(6);
            c.atomic_dec(7);
        }

        pub(super) fn check_float_more<E: ExecutionSpace>(
            space: &E,
            n: usize,
            chunk: usize,
        ) -> Result<(), TestCaseError> {
            let p = || RangePolicy::new(space, 0..n).chunk_size(chunk);
            // Element-wise: values whose products, quotients and sums are exact.
            let av: [$t; 8] = [0.0, 1.0, -2.0, 0.5, 3.0, 1024.0, -0.25, 7.0];
            let xv: [$t; 8] = [0.0, 1.0, -2.0, 0.5, 4.0, 1024.0, -0.25, 8.0];
            let a = |i: usize| av[i % 8];
            let v = |i: usize| xv[(i / 8) % 8];
            let cols = 3 * FEW_OPS;
            let c: DevView<E, $t, 2> = dev_from_fn(space, "c", [n, cols], |[i, _]| a(i))?;
            let old: DevView<E, $t, 2> = dev(space, "old", [n, FEW_OPS])?;
            let new: DevView<E, $t, 2> = dev(space, "new", [n, FEW_OPS])?;
            let x: DevView<E, $t> = dev_from_fn(space, "x", [n], |[i]| v(i))?;
            parallel_for("felementwise", p(), few_k(&c, &old, &new, &x))?;
            let (hc, ho, hn) = (to_host(&c), to_host(&old), to_host(&new));
            for i in 0..n {
                for k in 0..FEW_OPS {
                    let want = few_ref(k, a(i), v(i));
                    let what = format!("op {k} on {} with {}", a(i), v(i));
                    prop_assert_eq!(ho[i * FEW_OPS + k], a(i), "old value of {}", what);
                    prop_assert_eq!(hn[i * FEW_OPS + k], want, "new value of {}", what);
                    let row = &hc[i * cols + 3 * k..i * cols + 3 * k + 3];
                    prop_assert_eq!(row, &[want; 3][..], "element after {}", what);
                }
            }

            // Contended.
            let two = |i: usize| i < 64;
            let x: DevView<E, $t> = dev_from_fn(space, "x", [n], |[i]| {
                if two(i) {
                    2.0
                } else if i % 2 == 0 {
                    -1.0
                } else {
                    1.0
                }
            })?;
            let y: DevView<E, $t> =
                dev_from_fn(space, "y", [n], |[i]| if two(i) { 2.0 } else { 1.0 })?;
            let nf = n as $t;
            let init: Vec<$t> = vec![1.0, (2.0 as $t).powi(70), 1.0, 1.0, 0.0, nf, 0.0, nf];
            let c: DevView<E, $t> = dev_from_vec(space, "c", [8], init)?;
            let old: DevView<E, $t, 2> = dev(space, "old", [n, 4])?;
            parallel_for("fcontend", p(), fcontend_k(&c, &old, &x, &y))?;
            let (hc, ho) = (to_host(&c), to_host(&old));
            let doublings = n.min(64) as i32;
            let negations = (64..n).filter(|i| i % 2 == 0).count();
            let sign: $t = if negations % 2 == 0 { 1.0 } else { -1.0 };
            let p2 = |k: usize| (2.0 as $t).powi(k as i32);
            prop_assert_eq!(hc[0], sign * (2.0 as $t).powi(doublings), "products");
            prop_assert_eq!(hc[1], (2.0 as $t).powi(70 - doublings), "quotients");
            // Doubling from 1 overflows to infinity, exactly as `powi` does.
            prop_assert_eq!(hc[2], p2(n));
            prop_assert_eq!(hc[3], p2(n));
            prop_assert_eq!(&hc[4..], &[nf, 0.0, nf, 0.0][..]);
            let col = |k: usize| sorted(column(&ho, 4, k));
            prop_assert_eq!(col(0), (0..n).map(p2).collect::<Vec<_>>());
            prop_assert_eq!(col(1), (1..=n).map(p2).collect::<Vec<_>>());
            prop_assert_eq!(col(2), (1..=n).map(|k| k as $t).collect::<Vec<_>>());
            prop_assert_eq!(col(3), sorted((1..=n).map(|k| k as $t).collect()));
            Ok(())
        }
    };
}

mod m_i32 {
    use super::*;
    atomic_int_more!(i32);
}
mod m_i64 {
    use super::*;
    atomic_int_more!(i64);
}
mod m_u32 {
    use super::*;
    atomic_int_more!(u32);
    atomic_unsigned_more!(u32);
}
mod m_u64 {
    use super::*;
    atomic_int_more!(u64);
    atomic_unsigned_more!(u64);
}
mod m_u8 {
    use super::*;
    atomic_int_more!(u8);
    atomic_unsigned_more!(u8);
}
mod m_u16 {
    use super::*;
    atomic_int_more!(u16);
    atomic_unsigned_more!(u16);
}
mod m_i8 {
    use super::*;
    atomic_int_more!(i8);
}
mod m_i16 {
    use super::*;
    atomic_int_more!(i16);
}
mod m_f32 {
    use super::*;
    atomic_float_more!(f32);
}
mod m_f64 {
    use super::*;
    atomic_float_more!(f64);
}

/// Every new operation and form, element-wise on edge values and contended, on every type.
fn more_atomic_operations<E: ExecutionSpace>(space: E) {
    let sizes = proptest::sample::select(vec![0usize, 1, 2, 7, 256, 257, 1025, 4099]);
    check(8, (sizes, crate::chunk_sizes()), |(n, chunk)| {
        m_i32::check_elementwise(&space, n, chunk)?;
        m_i32::check_contended_more(&space, n, chunk)?;
        m_u32::check_elementwise(&space, n, chunk)?;
        m_u32::check_contended_more(&space, n, chunk)?;
        m_u32::check_mod_counters(&space, n, chunk)?;
        // u8 / u16: packed into 32-bit words on wgpu, word-wide CAS loops on CUDA.
        m_u8::check_elementwise(&space, n, chunk)?;
        m_u8::check_contended_more(&space, n, chunk)?;
        m_u8::check_mod_counters(&space, n, chunk)?;
        m_u16::check_elementwise(&space, n, chunk)?;
        m_u16::check_contended_more(&space, n, chunk)?;
        m_u16::check_mod_counters(&space, n, chunk)?;
        m_f32::check_float_more(&space, n, chunk)?;
        m_i64::check_elementwise(&space, n, chunk)?;
        m_i64::check_contended_more(&space, n, chunk)?;
        m_u64::check_elementwise(&space, n, chunk)?;
        m_u64::check_contended_more(&space, n, chunk)?;
        m_u64::check_mod_counters(&space, n, chunk)?;
        m_f64::check_float_more(&space, n, chunk)?;
        Ok(())
    });
}
per_backend!(more_atomic_operations);

/// The same operations on `i8` / `i16` (packed into 32-bit words on wgpu and read back
/// sign-extended, word-wide CAS loops on CUDA): fewer sizes than the wider types, since the
/// narrow paths are the same for every size past a word.
fn narrow_signed_atomic_operations<E: ExecutionSpace>(space: E) {
    let sizes = proptest::sample::select(vec![0usize, 1, 7, 257, 1025]);
    check(4, (sizes, crate::chunk_sizes()), |(n, chunk)| {
        m_i8::check_elementwise(&space, n, chunk)?;
        m_i8::check_contended_more(&space, n, chunk)?;
        m_i16::check_elementwise(&space, n, chunk)?;
        m_i16::check_contended_more(&space, n, chunk)?;
        Ok(())
    });
}
per_backend!(narrow_signed_atomic_operations);

/// An atomic div / mod by zero is a kernel failure with Rust's message on every backend.
fn atomic_division_by_zero_fails<E: ExecutionSpace>(space: E) {
    m_i32::check_zero_divisor(&space);
    m_u32::check_zero_divisor(&space);
    m_u8::check_zero_divisor(&space);
    m_u16::check_zero_divisor(&space);
    m_i8::check_zero_divisor(&space);
    m_i16::check_zero_divisor(&space);
    m_i64::check_zero_divisor(&space);
    m_u64::check_zero_divisor(&space);
}
per_backend!(atomic_division_by_zero_fails);
