//! Counts distinct keys with an `UnorderedMap`, and benchmarks it.
//!
//! `cargo run -p rokkos-containers --example unordered_map` inserts random `u32` keys (with
//! repeats) into a map on the run-time `Device` (`ROKKOS_BACKEND=serial|rayon|wgpu|cuda` picks
//! it), finds them again, and checks both against a `std::collections::HashMap`.
//!
//! `cargo run --release -p rokkos-containers --example unordered_map -- --bench [--json]
//! [--n N] [--reps R]` times, on rayon, inserts and finds of `N` (2^22) random `u32` keys into a
//! map at load factor 0.5 (capacity `2N`), against a sharded `std::collections::HashMap` on a
//! rayon pool of as many threads: keys go by hash to one shard per thread, each shard filled by
//! one thread (which scans every key and takes its own). The baseline runs twice: with std's
//! default hasher (SipHash, what `HashMap::new` gives) and with the map's own `umap_hash_u32`. An insert rep starts
//! from an empty table (rokkos: `clear`, which refills the slots; std: new shards of the full
//! capacity); a find rep looks every key up into an array of slots (rokkos) or values (std).
//! It prints the rates and the ratio rokkos / baseline of each; `--json` one object per line.

use rayon::prelude::*;
use rokkos::prelude::*;
use rokkos_containers::{umap_hash_u32, UnorderedMap};
use std::collections::HashMap;
use std::time::Instant;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1).cloned())
}

fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

fn random_keys(n: usize, seed: u64) -> Vec<u32> {
    rokkos_testing::splitmix(seed, n)
        .into_iter()
        .map(|z| (z >> 32) as u32)
        .collect()
}

fn main() -> rokkos::Result<()> {
    if flag("--bench") {
        return bench();
    }
    let n: usize = arg("--n").and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let dev = Device::new()?;
    // Keys from a range of n / 4 values: each about four times.
    let keys: Vec<u32> = random_keys(n, 7)
        .into_iter()
        .map(|k| k % (n as u32 / 4).max(1))
        .collect();
    let vals: Vec<u32> = (0..n as u32).collect();
    let kd =
        create_mirror_view_and_copy_in(&dev, &View::<u32>::from_vec("keys", [n], keys.clone())?)?;
    let vd = create_mirror_view_and_copy_in(&dev, &View::<u32>::from_vec("vals", [n], vals)?)?;
    let map = UnorderedMap::<u32, u32, _>::new(&dev, "distinct", n / 2)?;
    let c = map.insert(&kd, &vd)?;

    let mut want: HashMap<u32, Vec<u32>> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        want.entry(*k).or_default().push(i as u32);
    }
    assert_eq!(c.inserted, want.len(), "distinct keys");
    assert_eq!(c.existing, n - want.len());
    assert_eq!(c.failed, 0);
    for (k, v) in map.entries()? {
        assert!(
            want[&k].contains(&v),
            "the value of {k} is one of its inserts' indices"
        );
    }
    let slots = DeviceView::<u32>::new_on(&dev, "slots", [n])?;
    assert_eq!(map.find(&kd, &slots)?, n, "every key found");
    println!(
        "{n} keys on {}: {} distinct ({} repeats), {} of {} slots used",
        dev.name(),
        c.inserted,
        c.existing,
        map.size()?,
        map.capacity()
    );
    Ok(())
}

/// Best and median of `reps` runs of `f`, in seconds.
fn time(reps: usize, mut f: impl FnMut() -> rokkos::Result<()>) -> rokkos::Result<(f64, f64)> {
    f()?; // warm-up
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok((t[0], t[t.len() / 2]))
}

fn bench() -> rokkos::Result<()> {
    let n: usize = arg("--n").and_then(|s| s.parse().ok()).unwrap_or(1 << 22);
    let reps: usize = arg("--reps").and_then(|s| s.parse().ok()).unwrap_or(5);
    let json = flag("--json");
    let space = Rayon::new();
    let threads = space.concurrency();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("a rayon pool of {threads} threads: {e}")))?;

    let keys = random_keys(n, 1);
    let vals: Vec<u32> = (0..n as u32).collect();
    let distinct = {
        let mut s = keys.clone();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    let kd = View::<u32>::from_vec("keys", [n], keys.clone())?;
    let vd = View::<u32>::from_vec("vals", [n], vals.clone())?;
    let slots = View::<u32>::new("slots", [n])?;
    let map = UnorderedMap::<u32, u32, _>::new(&space, "bench", 2 * n)?;

    // rokkos
    let insert = time(reps, || {
        map.clear()?;
        let c = map.insert(&kd, &vd)?;
        assert_eq!((c.inserted, c.failed), (distinct, 0));
        Ok(())
    })?;
    let find = time(reps, || {
        assert_eq!(map.find(&kd, &slots)?, n);
        Ok(())
    })?;

    // The baselines, checked against each other and against the map below.
    let (std_insert, std_find, found) =
        sharded_std::<std::collections::hash_map::RandomState>(&pool, &keys, distinct, reps)?;
    let (fx_insert, fx_find, found_fx) = sharded_std::<Fmix>(&pool, &keys, distinct, reps)?;
    assert_eq!(found, found_fx);

    // The two agree: every key's value is the index of one of its inserts.
    let host_vals = map.values().to_vec();
    let s = slots.to_vec();
    for (i, &k) in keys.iter().enumerate().step_by(997) {
        assert_eq!(keys[host_vals[s[i] as usize] as usize], k);
        assert_eq!(keys[found[i] as usize], k);
    }

    let cases = [
        (
            "insert",
            insert,
            [
                ("sharded_std_hashmap", std_insert),
                ("sharded_std_hashmap_fmix", fx_insert),
            ],
        ),
        (
            "find",
            find,
            [
                ("sharded_std_hashmap", std_find),
                ("sharded_std_hashmap_fmix", fx_find),
            ],
        ),
    ];
    for (kernel, (best, median), baselines) in cases {
        let rate = n as f64 / best / 1e6;
        let line = |imp: &str, b: f64, m: f64| {
            format!(
                "{{\"bench\":\"unordered_map\",\"kernel\":\"{kernel}\",\"impl\":\"{imp}\",\"backend\":\"rayon\",\"dtype\":\"u32\",\"n\":{n},\"distinct\":{distinct},\"capacity\":{},\"threads\":{threads},\"best_s\":{b:.6},\"median_s\":{m:.6},\"metric\":\"Mkeys/s\",\"value\":{:.2}}}",
                map.capacity(),
                n as f64 / b / 1e6
            )
        };
        if json {
            println!("{}", line("rokkos", best, median));
        } else {
            println!("{kernel:>6}: rokkos UnorderedMap best {best:.4} s ({rate:.1} Mkeys/s, median {median:.4} s)");
        }
        for (imp, (sbest, smedian)) in baselines {
            let srate = n as f64 / sbest / 1e6;
            let ratio = rate / srate;
            if json {
                println!("{}", line(imp, sbest, smedian));
                println!(
                    "{{\"bench\":\"unordered_map\",\"kernel\":\"{kernel}\",\"backend\":\"rayon\",\"dtype\":\"u32\",\"n\":{n},\"threads\":{threads},\"baseline\":\"{imp}\",\"metric\":\"ratio_rokkos_over_baseline\",\"value\":{ratio:.3}}}"
                );
            } else {
                println!(
                    "{kernel:>6}: {imp} best {sbest:.4} s ({srate:.1} Mkeys/s, median {smedian:.4} s): ratio rokkos / it {ratio:.2}"
                );
            }
        }
    }
    Ok(())
}

/// std's `HashMap` hashing a `u32` key with [`umap_hash_u32`] (the map's own hash) instead of
/// SipHash: the baseline without the cost of a DoS-resistant hasher.
#[derive(Clone, Copy, Default)]
struct Fmix;
struct FmixHasher(u64);
impl std::hash::BuildHasher for Fmix {
    type Hasher = FmixHasher;
    fn build_hasher(&self) -> FmixHasher {
        FmixHasher(0)
    }
}
impl std::hash::Hasher for FmixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = u64::from(umap_hash_u32((self.0 as u32) ^ u32::from(*b)));
        }
    }
    fn write_u32(&mut self, k: u32) {
        // hashbrown takes the top 7 bits as the tag: spread the 32-bit hash over 64.
        let h = umap_hash_u32(k);
        self.0 = (u64::from(h) << 32) | u64::from(umap_hash_u32(h ^ 0x9e37_79b9));
    }
}

type Timing = (f64, f64);

/// Inserts (one shard per thread, each filled by its thread) and finds of `keys` with std's
/// `HashMap` and hasher `S`; the found values.
fn sharded_std<S: std::hash::BuildHasher + Default + Send + Sync>(
    pool: &rayon::ThreadPool,
    keys: &[u32],
    distinct: usize,
    reps: usize,
) -> rokkos::Result<(Timing, Timing, Vec<u32>)> {
    let n = keys.len();
    let threads = pool.current_num_threads();
    // Shard t holds the keys whose hash is t modulo the thread count.
    let shard = |k: u32| (umap_hash_u32(k) as usize) % threads;
    let build = || -> Vec<HashMap<u32, u32, S>> {
        pool.install(|| {
            (0..threads)
                .into_par_iter()
                .map(|t| {
                    let mut m = HashMap::with_capacity_and_hasher(2 * n / threads, S::default());
                    for (i, &k) in keys.iter().enumerate() {
                        if shard(k) == t {
                            m.entry(k).or_insert(i as u32);
                        }
                    }
                    m
                })
                .collect()
        })
    };
    let mut shards = Vec::new();
    let insert = time(reps, || {
        shards = build();
        assert_eq!(shards.iter().map(HashMap::len).sum::<usize>(), distinct);
        Ok(())
    })?;
    let mut found = vec![0u32; n];
    let find = time(reps, || {
        pool.install(|| {
            found
                .par_chunks_mut(1 << 14)
                .zip(keys.par_chunks(1 << 14))
                .for_each(|(out, ks)| {
                    for (o, &k) in out.iter_mut().zip(ks) {
                        *o = shards[shard(k)].get(&k).copied().unwrap_or(u32::MAX);
                    }
                })
        });
        assert!(found.iter().all(|&v| v != u32::MAX));
        Ok(())
    })?;
    Ok((insert, find, found))
}
