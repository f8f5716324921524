//! [`UnorderedMap`]: a fixed-capacity hash map in an execution space's memory (Kokkos'
//! `UnorderedMap`), and [`UnorderedSet`], the same without values (Kokkos'
//! `UnorderedMap<K, void>`).
//!
//! Keys are `u32`, `i32`, `u64` or `i64` ([`MapKey`]); values any of `i32`, `u32`, `i64`,
//! `u64`, `usize`, `isize`, `f32`, `f64` ([`MapValue`]), or `()` for a set. The map holds at most
//! [`UnorderedMap::capacity`] entries; it never grows by itself: an insert into a full table
//! fails (and says so), and [`UnorderedMap::rehash`] moves everything into a larger one.
//!
//! # Bulk operations, on the space
//!
//! Host code hands the map Views of keys (and values) in the space's memory; every operation
//! is one kernel over them, as Kokkos programs call `map.insert(k, v)` from a `parallel_for`:
//!
//! - [`UnorderedMap::insert`] (keys and values), [`UnorderedMap::insert_keys`] (keys only; a
//!   map's values start at zero): counts of keys newly inserted, already present, and failed
//!   because the table is full ([`InsertCounts`]); [`UnorderedMap::insert_outcomes`] and
//!   [`UnorderedMap::insert_keys_outcomes`] also write each key's outcome ([`INSERT_SUCCESS`],
//!   [`INSERT_EXISTING`], [`INSERT_FAILED`]: Kokkos' `UnorderedMapInsertResult`) and slot;
//! - [`UnorderedMap::find`]: each key's slot, [`INVALID_INDEX`] for a missing key;
//!   [`UnorderedMap::exists`]: 1 or 0 per key;
//! - [`UnorderedMap::size`] (a reduction), [`UnorderedMap::failed_insert`] (whether an insert
//!   failed since the last [`UnorderedMap::clear`] or [`UnorderedMap::rehash`]);
//! - [`UnorderedMap::valid_at`], [`UnorderedMap::key_at`], [`UnorderedMap::value_at`]: one
//!   slot, copied to the host; [`UnorderedMap::entries`] every entry;
//! - [`UnorderedMap::create_mirror_in`]: the map copied into another space's memory (Kokkos'
//!   `create_mirror` and `deep_copy` of a map, e.g. to its host mirror and back);
//! - erasing in a phase, as in Kokkos: [`UnorderedMap::begin_erase`], then
//!   [`UnorderedMap::erase`] of Views of keys (each erased slot keeps its key as a tombstone,
//!   so that probing goes on past it), then [`UnorderedMap::end_erase`], which rebuilds the
//!   table so that the erased slots can be used again. Inserts are refused between the two;
//!   finds do not see erased keys.
//!
//! A key is inserted once however many work items insert it at once: one of them gets
//! [`INSERT_SUCCESS`] and writes the value, the others get [`INSERT_EXISTING`] and the same
//! slot (the value is not updated, as Kokkos' default insert operation does). A failed call
//! (a View of the wrong length, an insert during the erase phase) is an `Err` that changes
//! nothing.
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos_containers::{InsertCounts, UnorderedMap, INVALID_INDEX};
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let to_dev = |label: &str, x: Vec<u32>| -> rokkos::Result<_> {
//!     let n = x.len();
//!     create_mirror_view_and_copy_in(&dev, &View::<u32>::from_vec(label, [n], x)?)
//! };
//! let map = UnorderedMap::<u32, u32, _>::new(&dev, "squares", 8)?;
//! let keys = to_dev("keys", vec![3, 1, 3, 7])?;
//! let vals = to_dev("vals", vec![9, 1, 9, 49])?;
//! let counts = map.insert(&keys, &vals)?;
//! assert_eq!(counts, InsertCounts { inserted: 3, existing: 1, failed: 0 });
//! assert_eq!(map.size()?, 3);
//!
//! let probe = to_dev("probe", vec![7, 2])?;
//! let slots = DeviceView::<u32>::new_on(&dev, "slots", [2])?;
//! assert_eq!(map.find(&probe, &slots)?, 1); // one of the two found
//! let slots = create_mirror_view_and_copy(&slots)?.to_vec();
//! assert_eq!(map.value_at(slots[0] as usize)?, Some(49));
//! assert_eq!(slots[1], INVALID_INDEX);
//! # Ok(()) }
//! ```
//!
//! # Inside kernels: the Views and the probing algorithm
//!
//! A `#[func]` takes scalars only, so there is no `insert(map, k, v)` a kernel could call: a
//! callable in-kernel `insert` / `find` needs View parameters in `#[func]`, which the macro
//! does not have yet (and a `macro_rules!` call in a kernel body is opaque to `#[kernel]`).
//! What works today is the *raw* pattern: a kernel takes the map's Views
//! ([`UnorderedMap::keys`], [`UnorderedMap::values`], [`UnorderedMap::states`]) and probes them
//! itself with the algorithm below, the one this module's own kernels run. With
//! `n = map.capacity() - 1` hashed slots, the key `E = K::EMPTY` ([`MapKey::EMPTY`]) and the
//! hash `h` ([`umap_hash_u32`], [`umap_hash_i32`], [`umap_hash_u64`], [`umap_hash_i64`]):
//!
//! - a key `k != E` starts at slot `h(k) % n` and probes `s, s + 1, ..` (wrapping at `n`), at
//!   most `n` slots: `let old = keys.atomic_compare_exchange(s, E, k);` — `old == E`: this work
//!   item claimed slot `s` for `k` (it writes the value); `old == k`: `k` is in slot `s`;
//!   anything else: the next slot. `n` probes without either: the table is full
//!   (set [`UnorderedMap::failed_flag`] word 0 with `atomic_or(0, 1)` to record it);
//! - the key `E` itself lives in the reserved last slot `n` ([`UnorderedMap::reserved_slot`]),
//!   claimed with `states.atomic_compare_exchange(n, SLOT_OPEN, SLOT_FULL)`;
//! - a slot `s < n` holds an entry when `keys[s] != E` and `states[s] == SLOT_OPEN`; slot `n`
//!   when `states[n] == SLOT_FULL`; a state of [`SLOT_ERASED`] marks an erased entry;
//! - a find walks the same sequence and stops at its key (found unless erased) or at an `E`
//!   (absent): reads of `keys` in a kernel that does not insert may be plain (`View<K>`).
//!
//! Writing the value: only the work item whose compare-exchange claimed the slot writes it,
//! once; the owner-computes rule cannot see that (the slot is data-dependent), so the write
//! is either an `atomic_store` (or any atomic, such as the `atomic_add` below) or a plain
//! store in an `unsafe { }` block asserting that uniqueness, as this module's kernels do.
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos_containers::{umap_hash_u32, MapKey, UnorderedMap, SLOT_FULL, SLOT_OPEN};
//!
//! /// Counts how often each word occurs: find-or-insert its slot, then add 1 to the slot's
//! /// value. The values are only ever updated atomically, so no `unsafe` is needed.
//! #[kernel]
//! fn count_words(
//!     i: usize,
//!     words: View<u32>,
//!     keys: ViewMut<u32>,
//!     states: ViewMut<u32>,
//!     counts: ViewMut<u32>,
//!     failed: ViewMut<u32>,
//!     n: usize,
//!     empty: u32,
//!     open: u32,
//!     full: u32,
//! ) {
//!     let k = words[i];
//!     let mut slot = n + 1; // none yet
//!     if k == empty {
//!         states.atomic_compare_exchange(n, open, full);
//!         slot = n;
//!     } else if n > 0 {
//!         let mut s = (umap_hash_u32(k) % (n as u32)) as usize;
//!         let mut probes: usize = 0;
//!         while probes < n {
//!             let old = keys.atomic_compare_exchange(s, empty, k);
//!             if old == empty || old == k {
//!                 slot = s;
//!                 break;
//!             }
//!             s += 1;
//!             if s == n {
//!                 s = 0;
//!             }
//!             probes += 1;
//!         }
//!     }
//!     if slot <= n {
//!         counts.atomic_add(slot, 1);
//!     } else {
//!         failed.atomic_or(0, 1);
//!     }
//! }
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let words = vec![5, 9, 5, u32::MAX, 5, 9];
//! let words = create_mirror_view_and_copy_in(&dev, &View::<u32>::from_vec("w", [6], words)?)?;
//! let map = UnorderedMap::<u32, u32, _>::new(&dev, "counts", 16)?;
//! let n = map.capacity() - 1;
//! parallel_for(
//!     "count_words",
//!     RangePolicy::new(&dev, 0..6),
//!     count_words(&words, map.keys(), map.states(), map.values(), map.failed_flag(),
//!                 n, u32::EMPTY, SLOT_OPEN, SLOT_FULL),
//! )?;
//! let mut got = map.entries()?;
//! got.sort();
//! assert_eq!(got, [(5, 3), (9, 2), (u32::MAX, 1)]);
//! assert!(!map.failed_insert()?);
//! # Ok(()) }
//! ```
//!
//! # Why the key word is the claim (memory ordering)
//!
//! The IR's atomics are *relaxed* on every backend (CUDA's `atomicCAS` and volatile loads,
//! WGSL's atomics, `Ordering::Relaxed` on the host), and a kernel has no fence: a work item
//! may see another's writes to two different words in either order. A design that claims a
//! slot in a state word (EMPTY → BUSY), then stores the key, then marks the state FULL would
//! let a reader see FULL and still read the slot's old key, and one that waits on BUSY would
//! spin forever on a GPU that does not schedule the claimer. So the claim and the key are one
//! word: the compare-exchange `E → k` on the key itself. Relaxed atomics still give every
//! word one modification order that all work items agree on (coherence). Within a launch a
//! key word is only ever changed by a successful compare-exchange from `E`, so its order is
//! `E`, then at most one key, kept until [`UnorderedMap::clear`] or
//! [`UnorderedMap::end_erase`] (which run between launches). A successful compare-exchange is
//! a read-modify-write, which reads the value just before its own in that order: so at most
//! one succeeds per slot. A failed one read a value other than `E`, which can only be the
//! slot's one key, complete (one atomic word), never a stale or half-written one. Two work
//! items inserting `k` therefore walk the same slots: each slot before `k`'s holds another
//! key for both, and at `k`'s slot exactly one compare-exchange finds `E` (success), every
//! other one finds `k` (existing), whichever order they run in. A slot is never taken back,
//! so probing a full table ends after `n` slots with failed-full. The price is one reserved
//! key value per type, `K::EMPTY`, which gets the extra slot `n`, claimed through its state
//! word (whose only content is the claim: the key is known).
//!
//! Values are written by the claiming work item after its claim, and nothing in the insert
//! kernel reads them: a launch's writes are visible to the next launch and to host copies,
//! which is when values are read (a raw kernel that reads values written by other work items
//! of the same launch gets no such guarantee, as in Kokkos without a fence). Erase marks a
//! tombstone in the state word in its own launch; state words and keys are only ever read
//! together in later launches.
//!
//! # Backends
//!
//! `u32` / `i32` keys and 32-bit values run on every backend. `u64` / `i64` keys need 64-bit
//! atomics: native on the host and CUDA; on wgpu the adapter's SHADER_INT64_ATOMIC_ALL_OPS,
//! without which every call answers `Err(Unsupported)` naming the feature (never a wrong
//! result). `f64` values need SHADER_F64 and 64-bit values SHADER_INT64 on wgpu, likewise.

use rokkos::ir::build::{Func1, IrNum};
use rokkos::{
    deep_copy, func, kernel, parallel_reduce, AtomicScalar, Device, Error, ExecutionSpace, Layout,
    LayoutRight, MemorySpace, Pod, RangePolicy, Result, Scalar, Sum, View,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The slot of a missing key in [`UnorderedMap::find`]'s output, and of a failed insert.
pub const INVALID_INDEX: u32 = u32::MAX;

/// An insert outcome ([`UnorderedMap::insert_outcomes`]): the key was not in the map and is
/// now (Kokkos' `success()`).
pub const INSERT_SUCCESS: u32 = 0;
/// An insert outcome: the key was already in the map (or another work item of the same
/// launch inserted it first); its value is unchanged (Kokkos' `existing()`).
pub const INSERT_EXISTING: u32 = 1;
/// An insert outcome: the table is full, the key is not in it (Kokkos' `failed()`).
pub const INSERT_FAILED: u32 = 2;

/// A slot's state word: for a hashed slot (below [`UnorderedMap::reserved_slot`]) its key
/// decides (`K::EMPTY`: free, any other: an entry); for the reserved slot, free.
pub const SLOT_OPEN: u32 = 0;
/// A slot's state word: the reserved slot holds the key `K::EMPTY` (never used for a hashed
/// slot, whose key word is its claim).
pub const SLOT_FULL: u32 = 1;
/// A slot's state word: the slot's entry was erased ([`UnorderedMap::erase`]); its key stays
/// as a tombstone until [`UnorderedMap::end_erase`].
pub const SLOT_ERASED: u32 = 2;

/// Murmur3's 32-bit finalizer: the hash of a `u32` key, from which probing starts at
/// `umap_hash_u32(k) % n` (see the module documentation).
///
/// ```
/// use rokkos_containers::umap_hash_u32;
/// assert_ne!(umap_hash_u32(1), umap_hash_u32(2));
/// assert_eq!(umap_hash_u32(0), 0);
/// ```
#[func]
pub fn umap_hash_u32(k: u32) -> u32 {
    let mut h = k;
    h ^= h >> 16u32;
    h = h.wrapping_mul(0x85eb_ca6bu32);
    h ^= h >> 13u32;
    h = h.wrapping_mul(0xc2b2_ae35u32);
    h ^= h >> 16u32;
    h
}

/// The hash of an `i32` key: [`umap_hash_u32`] of its bits.
///
/// ```
/// use rokkos_containers::{umap_hash_i32, umap_hash_u32};
/// assert_eq!(umap_hash_i32(-1), umap_hash_u32(u32::MAX));
/// ```
#[func]
pub fn umap_hash_i32(k: i32) -> u32 {
    umap_hash_u32(k as u32)
}

/// Murmur3's 64-bit finalizer folded to 32 bits: the hash of a `u64` key.
///
/// ```
/// use rokkos_containers::umap_hash_u64;
/// assert_ne!(umap_hash_u64(1 << 32), umap_hash_u64(1));
/// ```
#[func]
pub fn umap_hash_u64(k: u64) -> u32 {
    let mut h = k;
    h ^= h >> 33u64;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccdu64);
    h ^= h >> 33u64;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53u64);
    h ^= h >> 33u64;
    (h ^ (h >> 32u64)) as u32
}

/// The hash of an `i64` key: [`umap_hash_u64`] of its bits.
///
/// ```
/// use rokkos_containers::{umap_hash_i64, umap_hash_u64};
/// assert_eq!(umap_hash_i64(-2), umap_hash_u64(u64::MAX - 1));
/// ```
#[func]
pub fn umap_hash_i64(k: i64) -> u32 {
    umap_hash_u64(k as u64)
}

mod sealed {
    /// Implemented for the key and value types of this module only.
    pub trait Sealed {}
}

/// The key types of [`UnorderedMap`]: `u32`, `i32`, `u64`, `i64` (sealed).
///
/// ```
/// use rokkos_containers::MapKey;
/// assert_eq!(<i32 as MapKey>::EMPTY, i32::MAX);
/// ```
pub trait MapKey: Pod + Scalar + IrNum + AtomicScalar + PartialEq + sealed::Sealed {
    /// The key value that marks a free slot in [`UnorderedMap::keys`] (the type's largest
    /// value). It is still a valid key: it lives in the reserved slot.
    const EMPTY: Self;
    /// The hash function, a `#[func]` ([`umap_hash_u32`], ...).
    type Hash: Func1<Self, Output = u32>;
}

/// The value types of [`UnorderedMap`] (sealed): `i32`, `u32`, `i64`, `u64`, `usize`, `isize`,
/// `f32`, `f64`, and
/// `()` for a set. (`u8` and `u16` are not among them: wgpu packs them into 32-bit words, where
/// two slots' plain value stores would race.)
pub trait MapValue: Copy + Send + Sync + 'static + sealed::Sealed {
    /// What the values View holds (`u32` for `()`, whose View is empty).
    type Elem: Pod + Scalar + IrNum;
    /// Whether the map stores values (false for `()`).
    const STORED: bool;
}

macro_rules! map_key {
    ($($t:ty => $h:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl MapKey for $t {
            const EMPTY: Self = <$t>::MAX;
            type Hash = $h;
        }
    )*};
}
map_key!(u32 => umap_hash_u32, i32 => umap_hash_i32, u64 => umap_hash_u64, i64 => umap_hash_i64);

macro_rules! map_value {
    ($($t:ty),*) => {$(
        impl MapValue for $t {
            type Elem = $t;
            const STORED: bool = true;
        }
    )*};
}
map_value!(i32, u32, i64, u64, usize, isize, f32, f64);
impl sealed::Sealed for usize {}
impl sealed::Sealed for isize {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for f64 {}
impl sealed::Sealed for () {}
impl MapValue for () {
    type Elem = u32;
    const STORED: bool = false;
}

/// Counts of an insert's keys by outcome (each key of the input counted once, duplicates
/// included: `inserted + existing + failed` is the number of keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InsertCounts {
    /// Keys newly inserted ([`INSERT_SUCCESS`]).
    pub inserted: usize,
    /// Keys already present, or inserted by another work item first ([`INSERT_EXISTING`]).
    pub existing: usize,
    /// Keys that found the table full ([`INSERT_FAILED`]).
    pub failed: usize,
}

// ////////////////////////////////////////////////////////////////////////////////////////
// Kernels. `n` is the number of hashed slots; slot `n` is the reserved slot of the key
// `empty`. State words: 0 open, 1 full (reserved slot only), 2 erased.

/// Inserts key `i` (and its value, or `fill` where `from_view` is false) with the probing of
/// the module documentation; counts the outcomes and, where `outcomes`, writes them.
#[kernel]
#[allow(non_camel_case_types, clippy::too_many_arguments)]
fn insert_k<K: MapKey, V: Pod + Scalar + IrNum, hash: Func1<K, Output = u32>>(
    i: usize,
    inserted: &mut u32,
    existing: &mut u32,
    failed: &mut u32,
    keys_in: View<K>,
    vals_in: View<V>,
    keys: ViewMut<K>,
    values: ViewMut<V>,
    states: ViewMut<u32>,
    flag: ViewMut<u32>,
    status: ViewMut<u32>,
    index: ViewMut<u32>,
    empty: K,
    n: usize,
    stored: bool,
    from_view: bool,
    fill: V,
    outcomes: bool,
) {
    // The claim of a hashed slot is the compare-exchange E -> k on its key word, so that a
    // key is never seen before it is complete, with relaxed atomics and no fence: see "Why the
    // key word is the claim" in the module documentation.
    let k = keys_in[i];
    let mut st: u32 = 2;
    let mut slot: u32 = u32::MAX;
    if k == empty {
        let old = states.atomic_compare_exchange(n, 0u32, 1u32);
        if old == 0 {
            st = 0;
            slot = n as u32;
        } else if old == 1 {
            st = 1;
            slot = n as u32;
        }
    } else if n > 0 {
        let mut s = (hash(k) % (n as u32)) as usize;
        let mut probes: usize = 0;
        while probes < n {
            let old = keys.atomic_compare_exchange(s, empty, k);
            if old == empty {
                st = 0;
                slot = s as u32;
                break;
            }
            if old == k {
                st = 1;
                slot = s as u32;
                break;
            }
            s += 1;
            if s == n {
                s = 0;
            }
            probes += 1;
        }
    }
    if st == 0 && stored {
        let mut v = fill;
        if from_view {
            v = vals_in[i];
        }
        // SAFETY (the kernel's promise): only the work item whose compare-exchange claimed
        // `slot` gets here with it, once, and no work item of this launch reads values.
        unsafe {
            values[slot as usize] = v;
        }
    }
    if st == 0 {
        *inserted += 1;
    } else if st == 1 {
        *existing += 1;
    } else {
        *failed += 1;
        flag.atomic_or(0, 1u32);
    }
    if outcomes {
        status[i] = st;
        index[i] = slot;
    }
}

/// The slot of key `i` (`u32::MAX` when absent or erased) into `index`, counting the found.
#[kernel]
#[allow(non_camel_case_types, clippy::too_many_arguments)]
fn find_k<K: MapKey, hash: Func1<K, Output = u32>>(
    i: usize,
    found: &mut u32,
    keys_in: View<K>,
    keys: View<K>,
    states: View<u32>,
    index: ViewMut<u32>,
    empty: K,
    n: usize,
    as_flags: bool,
) {
    let k = keys_in[i];
    let mut slot: u32 = u32::MAX;
    if k == empty {
        if states[n] == 1 {
            slot = n as u32;
        }
    } else if n > 0 {
        let mut s = (hash(k) % (n as u32)) as usize;
        let mut probes: usize = 0;
        while probes < n {
            let kk = keys[s];
            if kk == k {
                if states[s] == 0 {
                    slot = s as u32;
                }
                break;
            }
            if kk == empty {
                break;
            }
            s += 1;
            if s == n {
                s = 0;
            }
            probes += 1;
        }
    }
    if slot != u32::MAX {
        *found += 1;
    }
    if as_flags {
        if slot != u32::MAX {
            index[i] = 1;
        } else {
            index[i] = 0;
        }
    } else {
        index[i] = slot;
    }
}

/// Marks key `i` erased (its slot's state to 2), counting the keys this work item erased.
#[kernel]
#[allow(non_camel_case_types)]
fn erase_k<K: MapKey, hash: Func1<K, Output = u32>>(
    i: usize,
    erased: &mut u32,
    keys_in: View<K>,
    keys: View<K>,
    states: ViewMut<u32>,
    empty: K,
    n: usize,
) {
    let k = keys_in[i];
    if k == empty {
        if states.atomic_compare_exchange(n, 1u32, 2u32) == 1 {
            *erased += 1;
        }
    } else if n > 0 {
        let mut s = (hash(k) % (n as u32)) as usize;
        let mut probes: usize = 0;
        while probes < n {
            let kk = keys[s];
            if kk == k {
                if states.atomic_compare_exchange(s, 0u32, 2u32) == 0 {
                    *erased += 1;
                }
                break;
            }
            if kk == empty {
                break;
            }
            s += 1;
            if s == n {
                s = 0;
            }
            probes += 1;
        }
    }
}

/// Counts the live slots (hashed: a key and an open state; reserved: a full state).
#[kernel]
fn size_k<K: MapKey>(
    s: usize,
    acc: &mut u32,
    keys: View<K>,
    states: View<u32>,
    empty: K,
    n: usize,
) {
    if s < n {
        if keys[s] != empty && states[s] == 0 {
            *acc += 1;
        }
    } else if states[s] == 1 {
        *acc += 1;
    }
}

/// Inserts the live entry of old slot `s` (tables `old_*` of `m` hashed slots) into the table
/// of `n` hashed slots, counting those that found it full (none, when `n` is at least the
/// number of entries). The old keys are distinct, so every claim is new.
#[kernel]
#[allow(non_camel_case_types, clippy::too_many_arguments)]
fn reinsert_k<K: MapKey, V: Pod + Scalar + IrNum, hash: Func1<K, Output = u32>>(
    s: usize,
    failed: &mut u32,
    old_keys: View<K>,
    old_values: View<V>,
    old_states: View<u32>,
    keys: ViewMut<K>,
    values: ViewMut<V>,
    states: ViewMut<u32>,
    empty: K,
    m: usize,
    n: usize,
    stored: bool,
) {
    let mut live = false;
    let mut slot: usize = n + 1;
    if s < m {
        let k = old_keys[s];
        if k != empty && old_states[s] == 0 {
            live = true;
            if n > 0 {
                let mut t = (hash(k) % (n as u32)) as usize;
                let mut probes: usize = 0;
                while probes < n {
                    if keys.atomic_compare_exchange(t, empty, k) == empty {
                        slot = t;
                        break;
                    }
                    t += 1;
                    if t == n {
                        t = 0;
                    }
                    probes += 1;
                }
            }
        }
    } else if old_states[s] == 1 {
        live = true;
        states.atomic_store(n, 1u32);
        slot = n;
    }
    if live && slot > n {
        *failed += 1;
    }
    if live && slot <= n && stored {
        // SAFETY (the kernel's promise): each old entry is one work item, and its claim of
        // `slot` (a compare-exchange, or the one reserved slot of the one key `empty`) is
        // unique; nothing in this launch reads values.
        unsafe {
            values[slot] = old_values[s];
        }
    }
}

// ////////////////////////////////////////////////////////////////////////////////////////

/// The Views of one table.
struct Table<K: Pod, V: Pod, S: MemorySpace> {
    keys: View<K, 1, LayoutRight, S>,
    values: View<V, 1, LayoutRight, S>,
    states: View<u32, 1, LayoutRight, S>,
}

impl<K: Pod, V: Pod, S: MemorySpace> Clone for Table<K, V, S> {
    fn clone(&self) -> Self {
        Table {
            keys: self.keys.clone(),
            values: self.values.clone(),
            states: self.states.clone(),
        }
    }
}

/// A fixed-capacity hash map from `K` to `V` in the memory of execution space `E` (the
/// run-time [`rokkos::Device`] by default); see the [module documentation](self). Clones are
/// shallow: they share the table (until one of them is [`UnorderedMap::rehash`]ed, which gives
/// it a new one, as in Kokkos) and the erase phase.
pub struct UnorderedMap<K: MapKey, V: MapValue = (), E: ExecutionSpace = Device> {
    space: E,
    table: Table<K, V::Elem, E::Memory>,
    flag: View<u32, 1, LayoutRight, E::Memory>,
    erasing: Arc<AtomicBool>,
    label: String,
}

/// A fixed-capacity hash set (Kokkos' `UnorderedMap<K, void>`): an [`UnorderedMap`] without
/// values.
///
/// ```
/// use rokkos::{Serial, View};
/// use rokkos_containers::UnorderedSet;
/// let set = UnorderedSet::<i32, _>::new(&Serial, "seen", 10)?;
/// let keys = View::<i32>::from_vec("k", [5], vec![-1, 4, -1, 4, 0])?;
/// assert_eq!(set.insert_keys(&keys)?.inserted, 3);
/// let mut got = set.keys_present()?;
/// got.sort();
/// assert_eq!(got, [-1, 0, 4]);
/// # Ok::<(), rokkos::Error>(())
/// ```
pub type UnorderedSet<K, E = Device> = UnorderedMap<K, (), E>;

impl<K: MapKey, V: MapValue, E: ExecutionSpace> Clone for UnorderedMap<K, V, E> {
    /// A shallow copy: the same table.
    fn clone(&self) -> Self {
        UnorderedMap {
            space: self.space.clone(),
            table: self.table.clone(),
            flag: self.flag.clone(),
            erasing: self.erasing.clone(),
            label: self.label.clone(),
        }
    }
}

impl<K: MapKey, V: MapValue, E: ExecutionSpace> std::fmt::Debug for UnorderedMap<K, V, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnorderedMap")
            .field("label", &self.label)
            .field("capacity", &self.capacity())
            .field("space", &self.space.name())
            .finish()
    }
}

/// The per-key outcome and slot Views of an insert.
type Outcomes<'a, L3, L4, S> = (&'a View<u32, 1, L3, S>, &'a View<u32, 1, L4, S>);

/// A zero-length View in `space`'s memory: the stand-in for an optional kernel argument.
fn none<T: Pod, E: ExecutionSpace>(
    space: &E,
    label: &str,
) -> Result<View<T, 1, LayoutRight, E::Memory>> {
    View::new_on(space, label, [0])
}

/// One element of a View in any memory space, on the host.
fn element<T: Pod, S: MemorySpace>(v: &View<T, 1, LayoutRight, S>, i: usize) -> Result<T> {
    let host = View::<T>::new("UnorderedMap::element", [1])?;
    deep_copy(&host, &v.subview::<1>((i..i + 1,))?)?;
    Ok(host.get(0))
}

impl<K: MapKey, V: MapValue, E: ExecutionSpace> UnorderedMap<K, V, E> {
    /// A map holding up to `capacity` entries, empty, in `space`'s memory: `capacity` hashed
    /// slots and the reserved slot of the key `K::EMPTY` ([`UnorderedMap::capacity`] is
    /// `capacity + 1`). Kokkos rounds the capacity up for probing speed; this keeps what it is
    /// given, so ask for about twice the entries for a fast table. `Err(InvalidArgument)` for a
    /// capacity of `u32::MAX - 1` or more (slots are 32-bit), `Err(OutOfMemory)` as for a View.
    pub fn new(space: &E, label: &str, capacity: usize) -> Result<Self> {
        let table = Self::new_table(space, label, capacity)?;
        Ok(UnorderedMap {
            space: space.clone(),
            table,
            flag: View::new_on(space, &format!("{label}.failed_insert"), [1])?,
            erasing: Arc::new(AtomicBool::new(false)),
            label: label.to_string(),
        })
    }

    fn new_table(space: &E, label: &str, capacity: usize) -> Result<Table<K, V::Elem, E::Memory>> {
        if capacity >= (u32::MAX - 1) as usize {
            return Err(Error::InvalidArgument(format!(
                "UnorderedMap `{label}` of capacity {capacity}: at most {} slots",
                u32::MAX - 2
            )));
        }
        let keys = View::new_on(space, &format!("{label}.keys"), [capacity + 1])?;
        keys.fill(K::EMPTY)?;
        let nv = if V::STORED { capacity + 1 } else { 0 };
        Ok(Table {
            keys,
            values: View::new_on(space, &format!("{label}.values"), [nv])?,
            states: View::new_on(space, &format!("{label}.states"), [capacity + 1])?,
        })
    }

    /// The number of slots: the hashed slots and the reserved one (Kokkos' `capacity()`:
    /// a kernel over `0..capacity()` visits every slot, with [`UnorderedMap::valid_at`]'s rule).
    ///
    /// ```
    /// use rokkos_containers::UnorderedMap;
    /// let m = UnorderedMap::<u64, f64, _>::new(&rokkos::Serial, "m", 100)?;
    /// assert_eq!((m.capacity(), m.reserved_slot()), (101, 100));
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn capacity(&self) -> usize {
        self.table.keys.extent(0)
    }
    /// The reserved slot, `capacity() - 1`, which holds the key `K::EMPTY` when present; the
    /// slots below it are the hashed ones.
    pub fn reserved_slot(&self) -> usize {
        self.capacity() - 1
    }
    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }
    /// The space the map's kernels run on.
    pub fn space(&self) -> &E {
        &self.space
    }
    /// The key of every slot (`K::EMPTY` in a free hashed slot), for kernels: see the module
    /// documentation.
    pub fn keys(&self) -> &View<K, 1, LayoutRight, E::Memory> {
        &self.table.keys
    }
    /// The state word of every slot ([`SLOT_OPEN`], [`SLOT_FULL`], [`SLOT_ERASED`]), for
    /// kernels.
    pub fn states(&self) -> &View<u32, 1, LayoutRight, E::Memory> {
        &self.table.states
    }
    /// The failed-insert flag (word 0 nonzero once an insert found the table full), for
    /// kernels that insert with the raw pattern.
    pub fn failed_flag(&self) -> &View<u32, 1, LayoutRight, E::Memory> {
        &self.flag
    }
    /// Whether the map is between [`UnorderedMap::begin_erase`] and [`UnorderedMap::end_erase`].
    pub fn erasable(&self) -> bool {
        self.erasing.load(Ordering::Relaxed)
    }

    fn hashed(&self) -> usize {
        self.capacity() - 1
    }
    fn policy(&self, n: usize) -> RangePolicy<E> {
        RangePolicy::new(&self.space, 0..n)
    }
    fn same_length<T: Pod, L: Layout>(
        &self,
        what: &str,
        v: &View<T, 1, L, E::Memory>,
        n: usize,
    ) -> Result<()> {
        if v.extent(0) == n {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "UnorderedMap `{}`: {what} View `{}` has {} elements, the keys {n}",
            self.label,
            v.label(),
            v.extent(0)
        )))
    }
    fn check_slot(&self, slot: usize, what: &str) -> Result<()> {
        if slot < self.capacity() {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "{what}({slot}) on UnorderedMap `{}` of capacity {}",
            self.label,
            self.capacity()
        )))
    }
    fn not_erasing(&self, what: &str) -> Result<()> {
        if !self.erasable() {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "{what} on UnorderedMap `{}` between begin_erase and end_erase",
            self.label
        )))
    }

    /// The shared insert: values from `vals` (or zero), outcomes into `out` when given.
    fn insert_impl<L1: Layout, L2: Layout, L3: Layout, L4: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        vals: Option<&View<V::Elem, 1, L2, E::Memory>>,
        out: Option<Outcomes<'_, L3, L4, E::Memory>>,
    ) -> Result<InsertCounts> {
        self.not_erasing("insert")?;
        let n = keys.extent(0);
        if let Some(v) = vals {
            self.same_length("values", v, n)?;
        }
        if let Some((st, ix)) = out {
            self.same_length("outcome", st, n)?;
            self.same_length("slot", ix, n)?;
        }
        let t = &self.table;
        let zero = <V::Elem as rokkos::Zeroable>::zeroed();
        // Zero-length stand-ins for the optional Views (the kernel does not touch them).
        let no_values = none::<V::Elem, E>(&self.space, "UnorderedMap::no_values")?;
        let (no_outcomes, no_slots) = (
            none::<u32, E>(&self.space, "UnorderedMap::no_outcomes")?,
            none::<u32, E>(&self.space, "UnorderedMap::no_slots")?,
        );
        macro_rules! launch {
            ($vals:expr, $st:expr, $ix:expr, $outcomes:expr) => {
                parallel_reduce(
                    "UnorderedMap::insert",
                    self.policy(n),
                    insert_k::<K, V::Elem, K::Hash, _, _, _, _, _, _, _, _, _>(
                        keys,
                        $vals,
                        &t.keys,
                        &t.values,
                        &t.states,
                        &self.flag,
                        $st,
                        $ix,
                        K::EMPTY,
                        self.hashed(),
                        V::STORED,
                        vals.is_some(),
                        zero,
                        $outcomes,
                    ),
                    (Sum, Sum, Sum),
                )?
            };
        }
        let (inserted, existing, failed): (u32, u32, u32) = match (vals, out) {
            (Some(v), Some((st, ix))) => launch!(v, st, ix, true),
            (Some(v), None) => launch!(v, &no_outcomes, &no_slots, false),
            (None, Some((st, ix))) => launch!(&no_values, st, ix, true),
            (None, None) => launch!(&no_values, &no_outcomes, &no_slots, false),
        };
        Ok(InsertCounts {
            inserted: inserted as usize,
            existing: existing as usize,
            failed: failed as usize,
        })
    }

    /// Inserts `keys` (a kernel on the space); a map's newly inserted values are zero, those of
    /// keys already present unchanged. `Err(InvalidArgument)` between
    /// [`UnorderedMap::begin_erase`] and [`UnorderedMap::end_erase`]; nothing changes then.
    pub fn insert_keys<L: Layout>(&self, keys: &View<K, 1, L, E::Memory>) -> Result<InsertCounts> {
        self.insert_impl::<L, LayoutRight, LayoutRight, LayoutRight>(keys, None, None)
    }

    /// [`UnorderedMap::insert_keys`], also writing each key's outcome ([`INSERT_SUCCESS`],
    /// [`INSERT_EXISTING`], [`INSERT_FAILED`]) into `outcome` and its slot ([`INVALID_INDEX`]
    /// for a failed one) into `slot`. `Err(InvalidArgument)` naming the View whose length is
    /// not the keys'.
    pub fn insert_keys_outcomes<L1: Layout, L2: Layout, L3: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        outcome: &View<u32, 1, L2, E::Memory>,
        slot: &View<u32, 1, L3, E::Memory>,
    ) -> Result<InsertCounts> {
        self.insert_impl::<L1, LayoutRight, L2, L3>(keys, None, Some((outcome, slot)))
    }

    /// The slot of each key of `keys` into `slot` ([`INVALID_INDEX`] for a missing one), and
    /// the number found (a kernel on the space). `Err(InvalidArgument)` naming `slot` when its
    /// length is not the keys'.
    pub fn find<L1: Layout, L2: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        slot: &View<u32, 1, L2, E::Memory>,
    ) -> Result<usize> {
        self.find_impl(keys, slot, false)
    }

    /// 1 for each key of `keys` in the map, 0 for the others, into `out`, and the number found.
    ///
    /// ```
    /// use rokkos::{Serial, View};
    /// use rokkos_containers::UnorderedSet;
    /// let set = UnorderedSet::<u32, _>::new(&Serial, "s", 4)?;
    /// set.insert_keys(&View::<u32>::from_vec("k", [2], vec![10, 20])?)?;
    /// let out = View::<u32>::new("out", [3])?;
    /// assert_eq!(set.exists(&View::<u32>::from_vec("q", [3], vec![20, 30, 10])?, &out)?, 2);
    /// assert_eq!(out.to_vec(), [1, 0, 1]);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn exists<L1: Layout, L2: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        out: &View<u32, 1, L2, E::Memory>,
    ) -> Result<usize> {
        self.find_impl(keys, out, true)
    }

    fn find_impl<L1: Layout, L2: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        out: &View<u32, 1, L2, E::Memory>,
        as_flags: bool,
    ) -> Result<usize> {
        let n = keys.extent(0);
        self.same_length(if as_flags { "exists" } else { "slot" }, out, n)?;
        let found: u32 = parallel_reduce(
            "UnorderedMap::find",
            self.policy(n),
            find_k::<K, K::Hash, _, _, _, _, _>(
                keys,
                &self.table.keys,
                &self.table.states,
                out,
                K::EMPTY,
                self.hashed(),
                as_flags,
            ),
            Sum,
        )?;
        Ok(found as usize)
    }

    /// The number of entries (a reduction over the slots; Kokkos' `size()`).
    pub fn size(&self) -> Result<usize> {
        let n: u32 = parallel_reduce(
            "UnorderedMap::size",
            self.policy(self.capacity()),
            size_k(
                &self.table.keys,
                &self.table.states,
                K::EMPTY,
                self.hashed(),
            ),
            Sum,
        )?;
        Ok(n as usize)
    }

    /// Whether an insert found the table full since the map was made, cleared or rehashed
    /// (Kokkos' `failed_insert()`).
    pub fn failed_insert(&self) -> Result<bool> {
        Ok(element(&self.flag, 0)? != 0)
    }

    /// Removes every entry and resets the failed-insert flag, keeping the capacity (Kokkos'
    /// `clear()`). Also ends an erase phase.
    pub fn clear(&self) -> Result<()> {
        self.table.keys.fill(K::EMPTY)?;
        self.table.states.fill(SLOT_OPEN)?;
        self.flag.fill(0)?;
        self.erasing.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Whether slot `slot` holds an entry (Kokkos' `valid_at`); its key and state words copied
    /// to the host. `Err(InvalidArgument)` for a slot at or past [`UnorderedMap::capacity`].
    pub fn valid_at(&self, slot: usize) -> Result<bool> {
        self.check_slot(slot, "valid_at")?;
        let state = element(&self.table.states, slot)?;
        if slot == self.reserved_slot() {
            return Ok(state == SLOT_FULL);
        }
        Ok(state == SLOT_OPEN && element(&self.table.keys, slot)? != K::EMPTY)
    }

    /// The key in slot `slot`, or `None` for a slot without an entry (Kokkos' `key_at`).
    /// `Err(InvalidArgument)` for a slot at or past [`UnorderedMap::capacity`].
    pub fn key_at(&self, slot: usize) -> Result<Option<K>> {
        Ok(self
            .valid_at(slot)?
            .then_some(if slot == self.reserved_slot() {
                K::EMPTY
            } else {
                element(&self.table.keys, slot)?
            }))
    }

    /// The keys of every entry, in slot order (the tables copied to the host).
    pub fn keys_present(&self) -> Result<Vec<K>> {
        Ok(self.live_slots()?.into_iter().map(|(_, k)| k).collect())
    }

    /// (slot, key) of every entry, from host copies of the tables.
    fn live_slots(&self) -> Result<Vec<(usize, K)>> {
        let keys = rokkos::create_mirror_view_and_copy(&self.table.keys)?.to_vec();
        let states = rokkos::create_mirror_view_and_copy(&self.table.states)?.to_vec();
        let n = self.hashed();
        Ok((0..=n)
            .filter(|&s| {
                if s < n {
                    keys[s] != K::EMPTY && states[s] == SLOT_OPEN
                } else {
                    states[s] == SLOT_FULL
                }
            })
            .map(|s| (s, if s < n { keys[s] } else { K::EMPTY }))
            .collect())
    }

    /// Starts an erase phase (Kokkos' `begin_erase`): [`UnorderedMap::erase`] is allowed, and
    /// inserts are refused, until [`UnorderedMap::end_erase`].
    pub fn begin_erase(&self) {
        self.erasing.store(true, Ordering::Relaxed);
    }

    /// Erases `keys` (a kernel on the space), returning how many entries it erased (keys not
    /// present, and repeats, erase nothing). The slots stay taken until
    /// [`UnorderedMap::end_erase`]; finds no longer see the keys. `Err(InvalidArgument)` outside
    /// an erase phase.
    pub fn erase<L: Layout>(&self, keys: &View<K, 1, L, E::Memory>) -> Result<usize> {
        if !self.erasable() {
            return Err(Error::InvalidArgument(format!(
                "erase on UnorderedMap `{}` outside begin_erase / end_erase",
                self.label
            )));
        }
        let n: u32 = parallel_reduce(
            "UnorderedMap::erase",
            self.policy(keys.extent(0)),
            erase_k::<K, K::Hash, _, _, _, _>(
                keys,
                &self.table.keys,
                &self.table.states,
                K::EMPTY,
                self.hashed(),
            ),
            Sum,
        )?;
        Ok(n as usize)
    }

    /// Ends an erase phase (Kokkos' `end_erase`): the table is rebuilt in place without the
    /// erased entries (copied aside, cleared, the live entries inserted again: clones see the
    /// result), so that their slots can take new keys. Nothing to do outside a phase. On `Err`
    /// (out of memory for the copy, a failed launch) the table is as it was, still erasable.
    pub fn end_erase(&self) -> Result<()> {
        if !self.erasable() {
            return Ok(());
        }
        let t = &self.table;
        let old = Table {
            keys: View::new_on(
                &self.space,
                "UnorderedMap::end_erase.keys",
                [t.keys.extent(0)],
            )?,
            values: View::new_on(
                &self.space,
                "UnorderedMap::end_erase.values",
                [t.values.extent(0)],
            )?,
            states: View::new_on(
                &self.space,
                "UnorderedMap::end_erase.states",
                [t.states.extent(0)],
            )?,
        };
        deep_copy(&old.keys, &t.keys)?;
        deep_copy(&old.values, &t.values)?;
        deep_copy(&old.states, &t.states)?;
        let rebuilt = t
            .keys
            .fill(K::EMPTY)
            .and_then(|()| t.states.fill(SLOT_OPEN))
            .and_then(|()| self.reinsert(&old, t));
        if let Err(e) = rebuilt {
            // Put the table back as it was (still in the erase phase), then report.
            deep_copy(&t.keys, &old.keys)?;
            deep_copy(&t.values, &old.values)?;
            deep_copy(&t.states, &old.states)?;
            return Err(e);
        }
        self.erasing.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Moves every entry into a table of `capacity` hashed slots, or of as many as there are
    /// entries if `capacity` is smaller (Kokkos' `rehash`), and clears the failed-insert flag.
    /// Clones made before keep the old table. On `Err` (out of memory, a capacity of
    /// `u32::MAX - 1` or more, between `begin_erase` and `end_erase`) the map is unchanged.
    ///
    /// ```
    /// use rokkos::{Serial, View};
    /// use rokkos_containers::UnorderedMap;
    /// let mut m = UnorderedMap::<u32, f32, _>::new(&Serial, "m", 2)?;
    /// let k = View::<u32>::from_vec("k", [3], vec![1, 2, 3])?;
    /// let v = View::<f32>::from_vec("v", [3], vec![0.5, 1.5, 2.5])?;
    /// assert_eq!(m.insert(&k, &v)?.failed, 1); // 2 slots for 3 keys
    /// assert!(m.failed_insert()?);
    /// m.rehash(8)?;
    /// assert!(!m.failed_insert()?);
    /// assert_eq!(m.insert(&k, &v)?.inserted, 1); // the one that failed
    /// let mut e = m.entries()?;
    /// e.sort_by_key(|&(k, _)| k);
    /// assert_eq!(e, [(1, 0.5), (2, 1.5), (3, 2.5)]);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn rehash(&mut self, capacity: usize) -> Result<()> {
        self.not_erasing("rehash")?;
        let live = self.size()?;
        let live_hashed = live - usize::from(self.valid_at(self.reserved_slot())?);
        let table = Self::new_table(&self.space, &self.label, capacity.max(live_hashed))?;
        let flag = View::new_on(&self.space, &format!("{}.failed_insert", self.label), [1])?;
        self.reinsert(&self.table, &table)?;
        self.table = table;
        self.flag = flag;
        Ok(())
    }

    /// A copy of the map in `space`'s memory, of the same capacity and contents (Kokkos'
    /// `create_mirror` followed by `deep_copy` of a map, as from a device map to its
    /// `HostMirror` and back): the slots are copied as they are, so the copy finds every key
    /// where the original does, and it carries the failed-insert flag. Not in an erase phase.
    /// `Err(InvalidArgument)` during the original's erase phase; `Err` of the copies as
    /// [`rokkos::deep_copy`]'s.
    ///
    /// ```
    /// use rokkos::prelude::*;
    /// use rokkos_containers::UnorderedMap;
    /// # fn main() -> rokkos::Result<()> {
    /// let dev = Device::new()?;
    /// let keys = create_mirror_view_and_copy_in(&dev, &View::<u64>::from_vec("k", [3], vec![4, 8, 15])?)?;
    /// let map = UnorderedSet::<u64, _>::new(&dev, "ids", 8)?;
    /// map.insert_keys(&keys)?;
    /// let host = map.create_mirror_in(&Serial)?; // a map in host memory
    /// let out = View::<u32>::new("out", [2])?;
    /// assert_eq!(host.exists(&View::<u64>::from_vec("q", [2], vec![8, 9])?, &out)?, 1);
    /// assert_eq!(out.to_vec(), [1, 0]);
    /// # Ok(()) }
    /// # use rokkos_containers::UnorderedSet;
    /// ```
    pub fn create_mirror_in<E2: ExecutionSpace>(
        &self,
        space: &E2,
    ) -> Result<UnorderedMap<K, V, E2>> {
        self.not_erasing("create_mirror_in")?;
        let copy = UnorderedMap::<K, V, E2>::new(space, &self.label, self.hashed())?;
        deep_copy(&copy.table.keys, &self.table.keys)?;
        deep_copy(&copy.table.values, &self.table.values)?;
        deep_copy(&copy.table.states, &self.table.states)?;
        deep_copy(&copy.flag, &self.flag)?;
        Ok(copy)
    }

    /// Inserts every live entry of `old` into the empty table `new`.
    fn reinsert(
        &self,
        old: &Table<K, V::Elem, E::Memory>,
        new: &Table<K, V::Elem, E::Memory>,
    ) -> Result<()> {
        let m = old.keys.extent(0) - 1;
        let failed: u32 = parallel_reduce(
            "UnorderedMap::rehash",
            self.policy(m + 1),
            reinsert_k::<K, V::Elem, K::Hash, _, _, _, _, _, _, _>(
                &old.keys,
                &old.values,
                &old.states,
                &new.keys,
                &new.values,
                &new.states,
                K::EMPTY,
                m,
                new.keys.extent(0) - 1,
                V::STORED,
            ),
            Sum,
        )?;
        if failed != 0 {
            return Err(Error::InvalidArgument(format!(
                "UnorderedMap `{}`: {failed} entries did not fit the new table",
                self.label
            )));
        }
        Ok(())
    }
}

impl<K: MapKey, V: MapValue<Elem = V> + Pod, E: ExecutionSpace> UnorderedMap<K, V, E> {
    /// Inserts `keys` with `values` (a kernel on the space; Kokkos' `insert(k, v)` from every
    /// work item): a key already present keeps its value. `Err(InvalidArgument)` naming
    /// `values` when its length is not the keys', or between [`UnorderedMap::begin_erase`] and
    /// [`UnorderedMap::end_erase`]; nothing changes then.
    pub fn insert<L1: Layout, L2: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        values: &View<V, 1, L2, E::Memory>,
    ) -> Result<InsertCounts> {
        self.insert_impl::<L1, L2, LayoutRight, LayoutRight>(keys, Some(values), None)
    }

    /// [`UnorderedMap::insert`], also writing each key's outcome and slot (as
    /// [`UnorderedMap::insert_keys_outcomes`]).
    ///
    /// ```
    /// use rokkos::{Serial, View};
    /// use rokkos_containers::{UnorderedMap, INSERT_EXISTING, INSERT_FAILED, INSERT_SUCCESS, INVALID_INDEX};
    /// let m = UnorderedMap::<i32, i64, _>::new(&Serial, "m", 2)?;
    /// let k = View::<i32>::from_vec("k", [4], vec![-5, 6, -5, 7])?;
    /// let v = View::<i64>::from_vec("v", [4], vec![1, 2, 3, 4])?;
    /// let (outcome, slot) = (View::<u32>::new("o", [4])?, View::<u32>::new("s", [4])?);
    /// m.insert_outcomes(&k, &v, &outcome, &slot)?; // serial: in key order
    /// assert_eq!(outcome.to_vec(), [INSERT_SUCCESS, INSERT_SUCCESS, INSERT_EXISTING, INSERT_FAILED]);
    /// let s = slot.to_vec();
    /// assert_eq!((s[0] == s[2], s[3]), (true, INVALID_INDEX));
    /// assert_eq!(m.value_at(s[0] as usize)?, Some(1)); // the first insert's value
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn insert_outcomes<L1: Layout, L2: Layout, L3: Layout, L4: Layout>(
        &self,
        keys: &View<K, 1, L1, E::Memory>,
        values: &View<V, 1, L2, E::Memory>,
        outcome: &View<u32, 1, L3, E::Memory>,
        slot: &View<u32, 1, L4, E::Memory>,
    ) -> Result<InsertCounts> {
        self.insert_impl(keys, Some(values), Some((outcome, slot)))
    }

    /// The value of every slot, for kernels (meaningful where the slot holds an entry).
    pub fn values(&self) -> &View<V, 1, LayoutRight, E::Memory> {
        &self.table.values
    }

    /// The value in slot `slot`, or `None` for a slot without an entry (Kokkos' `value_at`).
    /// `Err(InvalidArgument)` for a slot at or past [`UnorderedMap::capacity`].
    pub fn value_at(&self, slot: usize) -> Result<Option<V>> {
        if !self.valid_at(slot)? {
            return Ok(None);
        }
        Ok(Some(element(&self.table.values, slot)?))
    }

    /// (key, value) of every entry, in slot order (the tables copied to the host).
    pub fn entries(&self) -> Result<Vec<(K, V)>> {
        let values = rokkos::create_mirror_view_and_copy(&self.table.values)?.to_vec();
        Ok(self
            .live_slots()?
            .into_iter()
            .map(|(s, k)| (k, values[s]))
            .collect())
    }
}
