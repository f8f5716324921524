//! `Bitset` on every backend against a `Vec<bool>`: bits set inside a kernel with the atomics,
//! counts, single-bit tests, set and reset, the searches, and the errors of indices past the end.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rokkos::prelude::*;
use rokkos_containers::Bitset;
use rokkos_testing::{dev_from_slice, per_backend, splitmix, to_host};

/// Sets bit `i` where `on[i]` is 1: concurrent work items share words, so through the atomics.
#[kernel]
fn set_where(i: usize, words: ViewMut<u32>, on: View<u32>) {
    if on[i] == 1 {
        words.atomic_fetch_or(i / 32, 1u32 << ((i % 32) as u32));
    }
}

/// Clears bit `i` where `off[i]` is 1.
#[kernel]
fn clear_where(i: usize, words: ViewMut<u32>, off: View<u32>) {
    if off[i] == 1 {
        words.atomic_and(i / 32, !(1u32 << ((i % 32) as u32)));
    }
}

fn next_set(bits: &[bool], from: usize) -> Option<usize> {
    (from..bits.len()).find(|&i| bits[i])
}
fn prev_set(bits: &[bool], upto: usize) -> Option<usize> {
    (0..bits.len().min(upto.saturating_add(1)))
        .rev()
        .find(|&i| bits[i])
}
/// The nearest set bit, the lower one on a tie, by scanning every bit.
fn nearest(bits: &[bool], hint: usize) -> Option<usize> {
    (0..bits.len())
        .filter(|&i| bits[i])
        .min_by_key(|&i| (i.abs_diff(hint), i))
}

fn check_against<E: ExecutionSpace>(b: &Bitset<E>, want: &[bool], probes: &[usize]) {
    let n = want.len();
    assert_eq!(b.count().unwrap(), want.iter().filter(|&&x| x).count());
    for &p in probes {
        assert_eq!(
            b.next_set(p).unwrap(),
            next_set(want, p),
            "next_set({p}) of {n}"
        );
        assert_eq!(
            b.prev_set(p).unwrap(),
            prev_set(want, p),
            "prev_set({p}) of {n}"
        );
        assert_eq!(
            b.find_any_set_near(p).unwrap(),
            nearest(want, p),
            "near({p}) of {n}"
        );
        // The clear-bit searches are the set-bit searches of the complement.
        let clear: Vec<bool> = want.iter().map(|&x| !x).collect();
        assert_eq!(
            b.next_unset(p).unwrap(),
            next_set(&clear, p),
            "next_unset({p}) of {n}"
        );
        assert_eq!(
            b.prev_unset(p).unwrap(),
            prev_set(&clear, p),
            "prev_unset({p}) of {n}"
        );
        assert_eq!(
            b.find_any_unset_near(p).unwrap(),
            nearest(&clear, p),
            "unset near({p}) of {n}"
        );
        if p < n {
            assert_eq!(b.test(p).unwrap(), want[p], "test({p}) of {n}");
        }
    }
    // The words as the kernels see them: no bit past the size, bit i at word i / 32.
    let words = to_host(b.words());
    for (w, word) in words.iter().enumerate() {
        for k in 0..32 {
            let i = 32 * w + k;
            let on = (word >> k) & 1 == 1;
            assert_eq!(on, i < n && want[i], "word {w} bit {k} of {n}");
        }
    }
}

/// Random bit patterns at word-boundary sizes: set and cleared in kernels, checked by counts,
/// tests and searches at probes around every word edge, then changed one bit at a time.
fn random_patterns<E: ExecutionSpace>(space: E) {
    let sizes = prop_oneof![
        3 => proptest::sample::select(&[0usize, 1, 31, 32, 33, 64, 95, 1000][..]),
        1 => 0usize..2500,
    ];
    let config = Config {
        cases: 6,
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (sizes, any::<u64>(), 1u64..8);
    TestRunner::new(config)
        .run(&strategy, |(n, seed, density)| {
            let raw = splitmix(seed, 2 * n);
            let mut want: Vec<bool> = raw[..n].iter().map(|r| r % density == 0).collect();
            let off: Vec<bool> = raw[n..].iter().map(|r| r % 3 == 0).collect();
            let b = Bitset::new(&space, "bits", n)?;
            assert_eq!(b.size(), n);
            assert_eq!(b.count()?, 0);
            let on_v: Vec<u32> = want.iter().map(|&x| u32::from(x)).collect();
            let on = dev_from_slice(&space, "on", &on_v)?;
            parallel_for(
                "set_where",
                RangePolicy::new(&space, 0..n),
                set_where(b.words(), &on),
            )?;
            // Around the edges of the first, a middle and the last words, past the end, and random.
            let last = n / 32;
            let mut probes: Vec<usize> = [0, 1, last / 2, last, last + 1]
                .into_iter()
                .flat_map(|w| [32 * w, (32 * w).saturating_sub(1), 32 * w + 1])
                .chain([n, n + 5, usize::MAX])
                .collect();
            probes.extend(raw.iter().take(8).map(|r| (*r as usize) % (n + 1)));
            check_against(&b, &want, &probes);

            let off_v: Vec<u32> = off.iter().map(|&x| u32::from(x)).collect();
            let off_d = dev_from_slice(&space, "off", &off_v)?;
            parallel_for(
                "clear_where",
                RangePolicy::new(&space, 0..n),
                clear_where(b.words(), &off_d),
            )?;
            for (w, o) in want.iter_mut().zip(&off) {
                *w &= !o;
            }
            check_against(&b, &want, &probes);

            if n > 0 {
                let i = (seed as usize) % n;
                b.set(i)?;
                want[i] = true;
                b.reset((i + n / 2) % n)?;
                want[(i + n / 2) % n] = false;
                check_against(&b, &want, &[i, (i + n / 2) % n, 0, n - 1]);
            }
            b.set_all()?;
            check_against(&b, &vec![true; n], &probes);
            b.reset_all()?;
            check_against(&b, &vec![false; n], &probes);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}
per_backend!(random_patterns);

/// Indices past the end are errors naming the Bitset, and change nothing.
fn bad_indices<E: ExecutionSpace>(space: E) {
    let b = Bitset::new(&space, "small", 40).unwrap();
    b.set(39).unwrap();
    for e in [
        b.test(40).unwrap_err(),
        b.set(40).unwrap_err(),
        b.reset(99).unwrap_err(),
    ] {
        match &e {
            Error::InvalidArgument(m) => {
                assert!(m.contains("`small`") && m.contains("40 bits"), "{e}")
            }
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }
    assert_eq!(b.count().unwrap(), 1);
    assert_eq!(b.next_set(40).unwrap(), None);
    assert_eq!(b.prev_set(usize::MAX).unwrap(), Some(39));
    let clone = b.clone();
    clone.reset(39).unwrap();
    assert_eq!(b.count().unwrap(), 0, "clones share the bits");
}
per_backend!(bad_indices);

#[test]
fn sizes_past_u32_are_refused() {
    let e = Bitset::new(&Serial, "huge", u32::MAX as usize + 1).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}
