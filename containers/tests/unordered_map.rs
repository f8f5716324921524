//! `UnorderedMap` on every backend: Kokkos' own tests (`containers/unit_tests/TestUnorderedMap.hpp`:
//! insert with duplicates near and far, find, erase, failed inserts, clear), proptests against a
//! `std::collections::HashMap` on random key sets with duplicates, per-key outcomes, erase and
//! reinsert, rehash, the raw in-kernel probing pattern, and the errors of bad input.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rokkos::prelude::*;
use rokkos_containers::{
    umap_hash_u32, InsertCounts, MapKey, MapValue, UnorderedMap, UnorderedSet, INSERT_EXISTING,
    INSERT_FAILED, INSERT_SUCCESS, INVALID_INDEX, SLOT_ERASED, SLOT_FULL, SLOT_OPEN,
};
use rokkos_testing::{dev, dev_from_slice, per_backend, splitmix, to_host, DevView};
use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::hash::Hash;

/// Key types the tests draw: a key from a random word (folded into `range` values, so that
/// keys repeat), with `K::EMPTY` mixed in.
trait TestKey: MapKey + Eq + Hash + Ord + Debug {
    fn from_word(w: u64, range: u64) -> Self;
}
impl TestKey for u32 {
    fn from_word(w: u64, range: u64) -> Self {
        ((w % range) as u32).wrapping_mul(7919)
    }
}
impl TestKey for i32 {
    fn from_word(w: u64, range: u64) -> Self {
        ((w % range) as i32).wrapping_mul(-7919).wrapping_add(3)
    }
}
impl TestKey for u64 {
    fn from_word(w: u64, range: u64) -> Self {
        ((w % range) << 33) | (w % 3)
    }
}
impl TestKey for i64 {
    fn from_word(w: u64, range: u64) -> Self {
        -(((w % range) as i64) << 31)
    }
}

fn counts(inserted: usize, existing: usize, failed: usize) -> InsertCounts {
    InsertCounts {
        inserted,
        existing,
        failed,
    }
}

/// Kokkos' `test_insert(num_nodes, num_inserts, num_duplicates, near)`: inserts `key(i)` with
/// value `i` (rehashing larger on failure, as Kokkos' `TestInsert::testit`), checks the size,
/// that every key below the largest and none above exists (`TestFind`), then erases them all
/// (`TestErase`) and checks the map is empty.
fn kokkos_insert_case<E: ExecutionSpace>(
    space: &E,
    num_nodes: u32,
    num_inserts: u32,
    num_duplicates: u32,
    near: bool,
) {
    let expected = num_inserts.div_ceil(num_duplicates) as usize;
    let key = |i: u32| {
        if near {
            i / num_duplicates
        } else {
            i % (num_inserts / num_duplicates)
        }
    };
    let keys: Vec<u32> = (0..num_inserts).map(key).collect();
    let vals: Vec<u32> = (0..num_inserts).collect();
    let k = dev_from_slice(space, "keys", &keys).unwrap();
    let v = dev_from_slice(space, "vals", &vals).unwrap();
    let mut map = UnorderedMap::<u32, u32, E>::new(space, "kokkos", num_nodes as usize).unwrap();
    let mut total = InsertCounts::default();
    loop {
        let c = map.insert(&k, &v).unwrap();
        total.inserted += c.inserted;
        if c.failed == 0 {
            break;
        }
        let cap = map.capacity() as u64;
        map.rehash((cap + cap * 3 / 20 + c.failed as u64 / num_duplicates as u64) as usize)
            .unwrap();
    }
    assert_eq!(total.inserted, expected, "keys inserted (near {near})");
    assert_eq!(map.size().unwrap(), expected);
    assert!(!map.failed_insert().unwrap());

    // TestFind: keys 0..max_key exist, the others up to the capacity do not.
    let max_key = num_inserts.div_ceil(num_duplicates);
    let probe: Vec<u32> = (0..map.capacity() as u32).collect();
    let p = dev_from_slice(space, "probe", &probe).unwrap();
    let out = dev::<u32, 1, LayoutRight, E>(space, "exists", [probe.len()]).unwrap();
    assert_eq!(map.exists(&p, &out).unwrap(), expected);
    let got = to_host(&out);
    for (i, e) in got.iter().enumerate() {
        assert_eq!(*e == 1, (i as u32) < max_key, "exists({i}), near {near}");
    }
    // Each key's value is the index of one of its inserts.
    for (kk, vv) in map.entries().unwrap() {
        assert_eq!(key(vv), kk, "value {vv} of key {kk}");
    }

    // TestErase with the same keys.
    map.begin_erase();
    assert_eq!(map.erase(&k).unwrap(), expected);
    map.end_erase().unwrap();
    assert_eq!(map.size().unwrap(), 0);
    assert_eq!(map.exists(&p, &out).unwrap(), 0);
}

/// Kokkos' `UnorderedMap_insert` (sizes scaled down by 10 for CI): far and near duplicates,
/// and a table too small at first so that the rehash loop runs.
fn kokkos_insert<E: ExecutionSpace>(space: E) {
    kokkos_insert_case(&space, 10_000, 9_000, 10, true);
    kokkos_insert_case(&space, 10_000, 9_000, 10, false);
    kokkos_insert_case(&space, 100, 9_000, 3, false);
}
per_backend!(kokkos_insert);

/// Kokkos' `test_failed_insert`: twice as many distinct keys as nodes, no rehash: the flag is
/// set; the counts say exactly which; then a rehash keeps the entries and a second insert
/// places the rest.
fn kokkos_failed_insert<E: ExecutionSpace>(space: E) {
    let nodes = 1000usize;
    let keys: Vec<u32> = (0..2 * nodes as u32).collect();
    let vals: Vec<u32> = keys.iter().map(|k| k * 3 + 1).collect();
    let k = dev_from_slice(&space, "keys", &keys).unwrap();
    let v = dev_from_slice(&space, "vals", &vals).unwrap();
    let mut map = UnorderedMap::<u32, u32, E>::new(&space, "small", nodes).unwrap();
    assert!(!map.failed_insert().unwrap());
    assert_eq!(map.insert(&k, &v).unwrap(), counts(nodes, 0, nodes));
    assert!(map.failed_insert().unwrap());
    assert_eq!(map.size().unwrap(), nodes);
    let before = map.entries().unwrap();
    for (kk, vv) in &before {
        assert_eq!(*vv, kk * 3 + 1);
    }

    map.rehash(4 * nodes).unwrap();
    assert!(!map.failed_insert().unwrap(), "rehash clears the flag");
    let mut after = map.entries().unwrap();
    let mut before = before;
    before.sort();
    after.sort();
    assert_eq!(before, after, "rehash keeps every entry");
    assert_eq!(map.insert(&k, &v).unwrap(), counts(nodes, nodes, 0));
    let mut all = map.entries().unwrap();
    all.sort();
    let want: Vec<(u32, u32)> = keys.iter().map(|&k| (k, k * 3 + 1)).collect();
    assert_eq!(all, want);
    assert!(!map.failed_insert().unwrap());
}
per_backend!(kokkos_failed_insert);

/// Kokkos' `UnorderedMap_clear_zero_size` on a set of `i32`: four keys, rehash(0) keeps them,
/// clear empties the set.
fn kokkos_clear_zero_size<E: ExecutionSpace>(space: E) {
    let mut set = UnorderedSet::<i32, E>::new(&space, "set", 11).unwrap();
    assert_eq!(set.size().unwrap(), 0);
    let k = dev_from_slice(&space, "k", &[2i32, 3, 5, 7]).unwrap();
    assert_eq!(set.insert_keys(&k).unwrap(), counts(4, 0, 0));
    assert_eq!(set.size().unwrap(), 4);
    set.rehash(0).unwrap();
    assert_eq!(
        set.capacity(),
        5,
        "as many hashed slots as entries, and the reserved one"
    );
    assert_eq!(set.size().unwrap(), 4);
    let mut got = set.keys_present().unwrap();
    got.sort();
    assert_eq!(got, [2, 3, 5, 7]);
    set.clear().unwrap();
    assert_eq!(set.size().unwrap(), 0);
    assert!(set.keys_present().unwrap().is_empty());
}
per_backend!(kokkos_clear_zero_size);

/// Many work items inserting one key: exactly one entry, one success, the others existing at
/// the same slot.
fn same_key_everywhere<E: ExecutionSpace>(space: E) {
    let n = 5000;
    for key in [42u32, u32::EMPTY] {
        let map = UnorderedMap::<u32, u32, E>::new(&space, "one", 64).unwrap();
        let k = dev_from_slice(&space, "k", &vec![key; n]).unwrap();
        let vals: Vec<u32> = (0..n as u32).collect();
        let v = dev_from_slice(&space, "v", &vals).unwrap();
        let outcome = dev::<u32, 1, LayoutRight, E>(&space, "outcome", [n]).unwrap();
        let slot = dev::<u32, 1, LayoutRight, E>(&space, "slot", [n]).unwrap();
        assert_eq!(
            map.insert_outcomes(&k, &v, &outcome, &slot).unwrap(),
            counts(1, n - 1, 0)
        );
        assert_eq!(map.size().unwrap(), 1);
        let outcome = to_host(&outcome);
        let slot = to_host(&slot);
        let winner = outcome.iter().position(|&o| o == INSERT_SUCCESS).unwrap();
        assert_eq!(
            outcome.iter().filter(|&&o| o == INSERT_EXISTING).count(),
            n - 1
        );
        assert!(slot.iter().all(|&s| s == slot[0]), "one slot for key {key}");
        let e = map.entries().unwrap();
        assert_eq!(e, [(key, winner as u32)], "the winner's value");
        if key == u32::EMPTY {
            assert_eq!(slot[0] as usize, map.reserved_slot());
        }
    }
}
per_backend!(same_key_everywhere);

/// One random case checked against a HashMap: `keys` (with repeats) into a map of `capacity`
/// hashed slots, with values that are a function of the key (so that which duplicate wins does
/// not matter) through `insert_outcomes`; then find, exists, size, entries; then erase a part,
/// reinsert it with new values, and rehash.
fn check_against_hashmap<K: TestKey, E: ExecutionSpace>(
    space: &E,
    keys: &[K],
    capacity: usize,
    seed: u64,
) -> rokkos::Result<()> {
    let n = keys.len();
    let value = |k: &K, round: u32| -> u32 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        k.hash(&mut h);
        (std::hash::Hasher::finish(&h) as u32) ^ round
    };
    let vals: Vec<u32> = keys.iter().map(|k| value(k, 0)).collect();
    let kd = dev_from_slice(space, "keys", keys)?;
    let vd = dev_from_slice(space, "vals", &vals)?;
    let outcome: DevView<E, u32> = dev(space, "outcome", [n])?;
    let slot: DevView<E, u32> = dev(space, "slot", [n])?;
    let mut map = UnorderedMap::<K, u32, E>::new(space, "random", capacity)?;
    let c = map.insert_outcomes(&kd, &vd, &outcome, &slot)?;

    let distinct: HashSet<K> = keys.iter().copied().collect();
    let has_empty = distinct.contains(&K::EMPTY);
    let hashed = distinct.len() - usize::from(has_empty);
    let fit = hashed.min(capacity) + usize::from(has_empty);
    assert_eq!(
        c.inserted,
        fit,
        "inserted of {n} keys, {} distinct",
        distinct.len()
    );
    assert_eq!(c.inserted + c.existing + c.failed, n);
    assert_eq!(map.failed_insert()?, c.failed > 0);
    assert_eq!(map.size()?, fit);

    // Per key: one success per present key, existing at the same slot for its repeats, failed
    // for every occurrence of an absent key.
    let outcome = to_host(&outcome);
    let slot = to_host(&slot);
    let mut slot_of: HashMap<K, u32> = HashMap::new();
    let mut successes: HashMap<K, usize> = HashMap::new();
    for i in 0..n {
        match outcome[i] {
            INSERT_SUCCESS | INSERT_EXISTING => {
                assert_ne!(slot[i], INVALID_INDEX);
                let s = *slot_of.entry(keys[i]).or_insert(slot[i]);
                assert_eq!(s, slot[i], "key {:?} in two slots", keys[i]);
                if outcome[i] == INSERT_SUCCESS {
                    *successes.entry(keys[i]).or_default() += 1;
                }
            }
            INSERT_FAILED => assert_eq!(slot[i], INVALID_INDEX),
            o => panic!("outcome {o}"),
        }
    }
    let present: HashSet<K> = slot_of.keys().copied().collect();
    assert_eq!(present.len(), fit);
    assert!(present.iter().all(|k| successes.get(k) == Some(&1)));
    for i in 0..n {
        if outcome[i] == INSERT_FAILED {
            assert!(
                !present.contains(&keys[i]),
                "{:?} both failed and present",
                keys[i]
            );
        }
    }
    if has_empty {
        assert!(
            present.contains(&K::EMPTY),
            "the reserved slot always has room"
        );
        assert_eq!(slot_of[&K::EMPTY] as usize, map.reserved_slot());
    }
    let want: HashMap<K, u32> = present.iter().map(|k| (*k, value(k, 0))).collect();
    let got: HashMap<K, u32> = map.entries()?.into_iter().collect();
    assert_eq!(got, want);
    for (k, s) in &slot_of {
        assert_eq!(map.key_at(*s as usize)?, Some(*k));
        assert!(map.valid_at(*s as usize)?);
    }

    // find / exists of the keys and of keys never inserted.
    let mut probe: Vec<K> = keys.to_vec();
    probe.extend(
        splitmix(seed ^ 1, 16)
            .iter()
            .map(|&w| K::from_word(w, 1 << 20)),
    );
    let pd = dev_from_slice(space, "probe", &probe)?;
    let found: DevView<E, u32> = dev(space, "found", [probe.len()])?;
    let exists: DevView<E, u32> = dev(space, "exists", [probe.len()])?;
    let nf = map.find(&pd, &found)?;
    assert_eq!(map.exists(&pd, &exists)?, nf);
    let found = to_host(&found);
    let exists = to_host(&exists);
    for (i, k) in probe.iter().enumerate() {
        match slot_of.get(k) {
            Some(&s) => assert_eq!((found[i], exists[i]), (s, 1), "find {k:?}"),
            None => assert_eq!((found[i], exists[i]), (INVALID_INDEX, 0), "find {k:?}"),
        }
    }

    // Erase every other present key (each twice), end the phase, reinsert them with new values.
    let mut sorted: Vec<K> = present.iter().copied().collect();
    sorted.sort();
    let gone: Vec<K> = sorted.iter().copied().step_by(2).collect();
    let mut twice = gone.clone();
    twice.extend(gone.iter().copied());
    let gd = dev_from_slice(space, "gone", &twice)?;
    map.begin_erase();
    assert_eq!(map.erase(&gd)?, gone.len());
    assert_eq!(map.size()?, fit - gone.len());
    let gf: DevView<E, u32> = dev(space, "gone_found", [twice.len()])?;
    assert_eq!(map.find(&gd, &gf)?, 0, "erased keys are not found");
    map.end_erase()?;
    assert_eq!(map.size()?, fit - gone.len());
    let mut keep: HashMap<K, u32> = want.clone();
    for k in &gone {
        keep.remove(k);
    }
    assert_eq!(map.entries()?.into_iter().collect::<HashMap<_, _>>(), keep);
    let new_vals: Vec<u32> = twice.iter().map(|k| value(k, 1)).collect();
    let nd = dev_from_slice(space, "new_vals", &new_vals)?;
    let c = map.insert(&gd, &nd)?;
    assert_eq!(
        c,
        counts(gone.len(), gone.len(), 0),
        "the freed slots take them back"
    );
    let mut want2 = keep;
    for k in &gone {
        want2.insert(*k, value(k, 1));
    }
    assert_eq!(map.entries()?.into_iter().collect::<HashMap<_, _>>(), want2);

    // Rehash larger: the same entries, and the keys that failed now fit.
    map.rehash(distinct.len() + 3)?;
    assert_eq!(map.entries()?.into_iter().collect::<HashMap<_, _>>(), want2);
    let c = map.insert(&kd, &vd)?;
    assert_eq!(c.inserted, distinct.len() - fit);
    assert_eq!(c.failed, 0);
    assert_eq!(map.size()?, distinct.len());
    Ok(())
}

/// Random key sets with repeats (sizes from 0 and 1 up), capacities from too small through
/// exactly full to roomy, for each key type.
fn random_against_hashmap_of<K: TestKey, E: ExecutionSpace>(space: &E) {
    let config = Config {
        cases: 8,
        failure_persistence: None,
        ..Config::default()
    };
    let sizes = prop_oneof![
        2 => proptest::sample::select(&[0usize, 1, 2, 5, 64, 257][..]),
        1 => 0usize..1500,
    ];
    // Capacity as distinct keys + slack: negative is too small, 0 exactly full.
    let slack = prop_oneof![Just(0i64), Just(-1), Just(1), -20i64..40];
    let strategy = (sizes, any::<u64>(), 1u64..4, slack, 0u32..4);
    TestRunner::new(config)
        .run(&strategy, |(n, seed, dup, slack, empty_every)| {
            let words = splitmix(seed, n);
            let range = (n as u64 / dup).max(1);
            let keys: Vec<K> = words
                .iter()
                .enumerate()
                .map(|(i, &w)| {
                    if empty_every > 0 && i as u32 % (7 * empty_every) == 3 {
                        K::EMPTY
                    } else {
                        K::from_word(w, range)
                    }
                })
                .collect();
            let distinct: HashSet<K> = keys.iter().copied().collect();
            let hashed = distinct.len() - usize::from(distinct.contains(&K::EMPTY));
            let capacity = (hashed as i64 + slack).max(0) as usize;
            check_against_hashmap(space, &keys, capacity, seed)
                .unwrap_or_else(|e| panic!("{} keys, capacity {capacity}: {e}", keys.len()));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

fn random_u32<E: ExecutionSpace>(space: E) {
    random_against_hashmap_of::<u32, E>(&space);
}
per_backend!(random_u32);

fn random_i32<E: ExecutionSpace>(space: E) {
    random_against_hashmap_of::<i32, E>(&space);
}
per_backend!(random_i32);

/// 64-bit keys: on wgpu they need SHADER_INT64_ATOMIC_ALL_OPS, whose absence is an
/// `Err(Unsupported)` naming it (a capability skip in these tests), never a wrong result.
fn random_64<E: ExecutionSpace>(space: E) {
    random_against_hashmap_of::<u64, E>(&space);
    random_against_hashmap_of::<i64, E>(&space);
}
per_backend!(random_64);

/// Values of every type, and a set, through one insert, find and `value_at`.
fn value_types<E: ExecutionSpace>(space: E) {
    fn one<V: MapValue<Elem = V> + rokkos::Pod + PartialEq + Debug, E: ExecutionSpace>(
        space: &E,
        vals: [V; 3],
    ) {
        let map = UnorderedMap::<i32, V, E>::new(space, "typed", 8).unwrap();
        let k = dev_from_slice(space, "k", &[-4i32, i32::MAX, 9]).unwrap();
        let v = dev_from_slice(space, "v", &vals).unwrap();
        assert_eq!(map.insert(&k, &v).unwrap(), counts(3, 0, 0));
        let slot: DevView<E, u32> = dev(space, "slot", [3]).unwrap();
        assert_eq!(map.find(&k, &slot).unwrap(), 3);
        for (s, want) in to_host(&slot).into_iter().zip(vals) {
            assert_eq!(map.value_at(s as usize).unwrap(), Some(want));
        }
        // insert_keys on a map: a new key's value is zero, an old one's unchanged.
        let k2 = dev_from_slice(space, "k2", &[9i32, 100]).unwrap();
        assert_eq!(map.insert_keys(&k2).unwrap(), counts(1, 1, 0));
        let s2: DevView<E, u32> = dev(space, "s2", [2]).unwrap();
        assert_eq!(map.find(&k2, &s2).unwrap(), 2);
        let mut e = map.entries().unwrap();
        e.sort_by_key(|p| p.0);
        let z = <V as rokkos::Zeroable>::zeroed();
        assert_eq!(
            e,
            [(-4, vals[0]), (9, vals[2]), (100, z), (i32::MAX, vals[1])]
        );
    }
    one(&space, [1i32, -2, 3]);
    one(&space, [1u32, 2, u32::MAX]);
    one(&space, [-1i64, 1 << 40, 3]);
    one(&space, [1u64 << 50, 2, 3]);
    one(&space, [usize::MAX, 0, 7]);
    one(&space, [-3isize, isize::MIN, 8]);
    one(&space, [0.5f32, -1.5, f32::MAX]);
    one(&space, [0.25f64, 1e300, -0.0]);

    let set = UnorderedSet::<u32, E>::new(&space, "set", 3).unwrap();
    let k = dev_from_slice(&space, "k", &[1u32, 2, 3, 4, 1]).unwrap();
    assert_eq!(set.insert_keys(&k).unwrap(), counts(3, 1, 1));
}
per_backend!(value_types);

/// Views of the wrong length, slots past the end, and calls in the wrong phase: an
/// `Err(InvalidArgument)` naming what was wrong, and the map unchanged.
fn bad_input<E: ExecutionSpace>(space: E) {
    let mut map = UnorderedMap::<u32, u32, E>::new(&space, "strict", 10).unwrap();
    let k = dev_from_slice(&space, "the_keys", &[1u32, 2, 3]).unwrap();
    let v = dev_from_slice(&space, "the_vals", &[10u32, 20, 30]).unwrap();
    map.insert(&k, &v).unwrap();
    let short = dev_from_slice(&space, "short_vals", &[1u32, 2]).unwrap();
    let expect_invalid = |e: Error, words: &[&str]| match &e {
        Error::InvalidArgument(m) => {
            for w in words {
                assert!(m.contains(w), "{m} should name {w}");
            }
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    };
    expect_invalid(map.insert(&short, &v).map(|_| ()).unwrap_err(), &[]);
    let k4 = dev_from_slice(&space, "four_keys", &[7u32, 8, 9, 11]).unwrap();
    expect_invalid(
        map.insert(&k4, &v).map(|_| ()).unwrap_err(),
        &["`strict`", "`the_vals`"],
    );
    let o: DevView<E, u32> = dev(&space, "out_short", [2]).unwrap();
    let s: DevView<E, u32> = dev(&space, "slot_ok", [3]).unwrap();
    expect_invalid(
        map.insert_outcomes(&k, &v, &o, &s).map(|_| ()).unwrap_err(),
        &["`out_short`"],
    );
    expect_invalid(
        map.insert_keys_outcomes(&k, &s, &o)
            .map(|_| ())
            .unwrap_err(),
        &["`out_short`"],
    );
    expect_invalid(map.find(&k, &o).map(|_| ()).unwrap_err(), &["`out_short`"]);
    expect_invalid(
        map.exists(&k, &o).map(|_| ()).unwrap_err(),
        &["`out_short`"],
    );
    for e in [
        map.valid_at(11).map(|_| ()).unwrap_err(),
        map.key_at(12).map(|_| ()).unwrap_err(),
        map.value_at(usize::MAX).map(|_| ()).unwrap_err(),
    ] {
        expect_invalid(e, &["`strict`", "capacity 11"]);
    }
    expect_invalid(map.erase(&k).map(|_| ()).unwrap_err(), &["begin_erase"]);
    map.begin_erase();
    expect_invalid(
        map.insert(&k4, &k4).map(|_| ()).unwrap_err(),
        &["begin_erase"],
    );
    expect_invalid(
        map.insert_keys(&k4).map(|_| ()).unwrap_err(),
        &["begin_erase"],
    );
    expect_invalid(map.rehash(100).unwrap_err(), &["rehash"]);
    map.end_erase().unwrap();
    // The map's own Views as input, one View as both outputs: refused at launch, not a race.
    let both: DevView<E, u32> = dev(&space, "both", [3]).unwrap();
    for e in [
        map.insert_keys(map.keys()).map(|_| ()).unwrap_err(),
        map.insert_keys_outcomes(&k, &both, &both)
            .map(|_| ())
            .unwrap_err(),
        map.insert(&k, &map.values().subview::<1>((0..3,)).unwrap())
            .map(|_| ())
            .unwrap_err(),
    ] {
        assert!(matches!(e, Error::Aliasing { .. }), "{e:?}");
    }
    // Nothing changed.
    let mut e = map.entries().unwrap();
    e.sort();
    assert_eq!(e, [(1, 10), (2, 20), (3, 30)]);
    assert_eq!(map.capacity(), 11);
    assert!(!map.failed_insert().unwrap());
    // Clones share the table.
    let c = map.clone();
    c.clear().unwrap();
    assert_eq!(map.size().unwrap(), 0);
}
per_backend!(bad_input);

#[test]
fn capacities_past_u32_are_refused() {
    let e = UnorderedMap::<u32, u32, _>::new(&Serial, "huge", u32::MAX as usize - 1).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("`huge`")),
        "{e}"
    );
}

// ////////////////////////////////////////////////////////////////////////////////////////
// The raw pattern: user kernels probing the map's Views themselves.

/// Find-or-insert of word `i`, then an atomic add to its slot's count (the module
/// documentation's algorithm, written out in a user kernel).
#[kernel]
#[allow(clippy::too_many_arguments)]
fn user_count(
    i: usize,
    words: View<u32>,
    keys: ViewMut<u32>,
    states: ViewMut<u32>,
    counts: ViewMut<u32>,
    failed: ViewMut<u32>,
    n: usize,
    empty: u32,
    open: u32,
    full: u32,
) {
    let k = words[i];
    let mut slot = n + 1;
    if k == empty {
        states.atomic_compare_exchange(n, open, full);
        slot = n;
    } else if n > 0 {
        let mut s = (umap_hash_u32(k) % (n as u32)) as usize;
        let mut probes: usize = 0;
        while probes < n {
            let old = keys.atomic_compare_exchange(s, empty, k);
            if old == empty || old == k {
                slot = s;
                break;
            }
            s += 1;
            if s == n {
                s = 0;
            }
            probes += 1;
        }
    }
    if slot <= n {
        counts.atomic_add(slot, 1);
    } else {
        failed.atomic_or(0, 1);
    }
}

/// A user find with plain reads (nothing inserts in this launch): the count of word `i`, or 0.
#[kernel]
#[allow(clippy::too_many_arguments)]
fn user_lookup(
    i: usize,
    words: View<u32>,
    keys: View<u32>,
    states: View<u32>,
    counts: View<u32>,
    out: ViewMut<u32>,
    n: usize,
    empty: u32,
    full: u32,
    erased: u32,
) {
    let k = words[i];
    let mut c: u32 = 0;
    if k == empty {
        if states[n] == full {
            c = counts[n];
        }
    } else if n > 0 {
        let mut s = (umap_hash_u32(k) % (n as u32)) as usize;
        let mut probes: usize = 0;
        while probes < n {
            if keys[s] == k {
                if states[s] != erased {
                    c = counts[s];
                }
                break;
            }
            if keys[s] == empty {
                break;
            }
            s += 1;
            if s == n {
                s = 0;
            }
            probes += 1;
        }
    }
    out[i] = c;
}

/// The raw pattern on every backend: counting words with the user kernel against a HashMap,
/// read back through the map's own find and the user's lookup; and a too-small table whose
/// failures the user kernel records in the map's flag.
fn raw_user_kernels<E: ExecutionSpace>(space: E) {
    for (n, range, cap) in [
        (4000usize, 300u64, 600usize),
        (0, 1, 4),
        (1, 1, 0),
        (3000, 5000, 64),
    ] {
        let mut words: Vec<u32> = splitmix(n as u64, n)
            .iter()
            .map(|w| (w % range) as u32 * 13)
            .collect();
        if n > 10 {
            words[5] = u32::MAX;
            words[9] = u32::MAX;
        }
        let wd = dev_from_slice(&space, "words", &words).unwrap();
        let map = UnorderedMap::<u32, u32, E>::new(&space, "wordcount", cap).unwrap();
        let hashed = map.capacity() - 1;
        parallel_for(
            "user_count",
            RangePolicy::new(&space, 0..n),
            user_count(
                &wd,
                map.keys(),
                map.states(),
                map.values(),
                map.failed_flag(),
                hashed,
                u32::EMPTY,
                SLOT_OPEN,
                SLOT_FULL,
            ),
        )
        .unwrap();
        let mut want: HashMap<u32, u32> = HashMap::new();
        for w in &words {
            *want.entry(*w).or_default() += 1;
        }
        let got: HashMap<u32, u32> = map.entries().unwrap().into_iter().collect();
        let distinct_hashed = want.keys().filter(|&&k| k != u32::MAX).count();
        if distinct_hashed <= hashed {
            assert_eq!(got, want, "{n} words");
            assert!(!map.failed_insert().unwrap());
        } else {
            // Full: the keys that got in have their full counts, the others none.
            assert_eq!(
                got.len(),
                hashed + usize::from(want.contains_key(&u32::MAX))
            );
            for (k, c) in &got {
                assert_eq!(want[k], *c, "count of {k}");
            }
            assert!(map.failed_insert().unwrap());
        }
        let out: DevView<E, u32> = dev(&space, "out", [n]).unwrap();
        parallel_for(
            "user_lookup",
            RangePolicy::new(&space, 0..n),
            user_lookup(
                &wd,
                map.keys(),
                map.states(),
                map.values(),
                &out,
                hashed,
                u32::EMPTY,
                SLOT_FULL,
                SLOT_ERASED,
            ),
        )
        .unwrap();
        let out = to_host(&out);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(out[i], got.get(w).copied().unwrap_or(0), "lookup of {w}");
        }
        // The map's own find agrees with the user's probing.
        let slot: DevView<E, u32> = dev(&space, "slot", [n]).unwrap();
        assert_eq!(
            map.find(&wd, &slot).unwrap(),
            words.iter().filter(|w| got.contains_key(w)).count()
        );
    }
}
per_backend!(raw_user_kernels);

/// Keys and values in any layout: the columns of a `[n, 2]` View (strided subviews).
fn strided_inputs<E: ExecutionSpace>(space: E) {
    let n = 300;
    let data: Vec<u32> = (0..n as u32).flat_map(|i| [i % 100, 5 * i]).collect();
    let pairs =
        rokkos_testing::dev_from_vec::<u32, 2, LayoutRight, E>(&space, "pairs", [n, 2], data)
            .unwrap();
    let keys = pairs.subview::<1>((.., 0)).unwrap();
    let vals = pairs.subview::<1>((.., 1)).unwrap();
    let map = UnorderedMap::<u32, u32, E>::new(&space, "strided", 128).unwrap();
    assert_eq!(map.insert(&keys, &vals).unwrap(), counts(100, 200, 0));
    for (k, v) in map.entries().unwrap() {
        assert_eq!((v / 5) % 100, k, "value {v} of key {k}");
    }
    let found: DevView<E, u32> = dev(&space, "found", [n]).unwrap();
    assert_eq!(map.find(&keys, &found).unwrap(), n);
}
per_backend!(strided_inputs);

/// Kokkos' `test_deep_copy`: a map filled on the space, mirrored to the host, found there
/// (`TestFind`), mirrored back into the space and found again, with the same size, capacity
/// and failed-insert flag.
fn kokkos_deep_copy<E: ExecutionSpace>(space: E) {
    let nodes = 2000u32;
    let keys: Vec<u32> = (0..nodes).collect();
    let k = dev_from_slice(&space, "keys", &keys).unwrap();
    let map = UnorderedMap::<u32, u32, E>::new(&space, "deep", nodes as usize).unwrap();
    assert_eq!(map.insert(&k, &k).unwrap(), counts(nodes as usize, 0, 0));
    let find_errors = |found: &[u32]| {
        found
            .iter()
            .enumerate()
            .filter(|&(i, &e)| (e == 1) != (i < nodes as usize))
            .count()
    };
    let probe: Vec<u32> = (0..map.capacity() as u32).collect();

    let host = map.create_mirror_in(&Serial).unwrap();
    assert_eq!(host.size().unwrap(), map.size().unwrap());
    assert_eq!(host.capacity(), map.capacity());
    let hp = View::<u32>::from_vec("probe", [probe.len()], probe.clone()).unwrap();
    let hout = View::<u32>::new("exists", [probe.len()]).unwrap();
    host.exists(&hp, &hout).unwrap();
    assert_eq!(find_errors(&hout.to_vec()), 0);

    let back = host.create_mirror_in(&space).unwrap();
    assert_eq!(back.size().unwrap(), nodes as usize);
    let p = dev_from_slice(&space, "probe", &probe).unwrap();
    let out: DevView<E, u32> = dev(&space, "exists", [probe.len()]).unwrap();
    back.exists(&p, &out).unwrap();
    assert_eq!(find_errors(&to_host(&out)), 0);
    let mut e = back.entries().unwrap();
    e.sort();
    assert_eq!(e, keys.iter().map(|&k| (k, k)).collect::<Vec<_>>());

    // The flag travels too, and the copies are independent tables.
    let more: Vec<u32> = (nodes..nodes + 10).collect();
    let m = dev_from_slice(&space, "more", &more).unwrap();
    assert_eq!(map.insert(&m, &m).unwrap().failed, 10);
    let host2 = map.create_mirror_in(&Serial).unwrap();
    assert!(host2.failed_insert().unwrap());
    assert!(!back.failed_insert().unwrap());
    back.clear().unwrap();
    assert_eq!(map.size().unwrap(), nodes as usize);
}
per_backend!(kokkos_deep_copy);
