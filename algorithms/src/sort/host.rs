//! The sorts on host memory: Views whose data is ordinary host memory (serial, rayon, and
//! `Device` over them) are sorted through host slices, with no kernel.
//!
//! Keys map to unsigned integers that order as the keys do ([`HostKey::bits`]; NaNs, which
//! have none, follow in input order), and a radix sort on bytes orders any elements carrying
//! them (the keys alone, key-value pairs, or key-position pairs for a permutation): stable,
//! `O(n)` per byte, and a byte that is the same in every key costs no pass. It distributes by
//! the most significant varying byte first, so that the buckets soon fit the cache, where an
//! LSD radix sort (or an insertion sort) finishes them ([`sort_by`]). With more than one worker,
//! each distributes one contiguous chunk of the input, and then sorts one contiguous range of
//! buckets; every distribution keeps the input order within a bucket, so the result is the
//! stable order, the same on every backend. All of it is safe code: every thread writes a
//! `&mut` slice or a buffer of its own.
//!
//! The workers are scoped threads, as many as the execution space's concurrency: `rokkos::Rayon`
//! does not expose its pool to other crates, so the threads are not that pool's own, but there
//! are as many as it has.

use rokkos::{Error, HostSpace, Layout, Pod, Result, View};

/// Bits per radix digit: 8 keeps a pass's 256 output streams within the caches.
const DIGIT_BITS: usize = 8;
const BUCKETS: usize = 1 << DIGIT_BITS;
/// The counts of each value of one digit.
type Hist = [usize; BUCKETS];

/// An order-preserving unsigned image of a key: radix digits, least significant first.
pub trait Radix: Copy + Ord + Send + Sync + Into<u64> {
    /// Radix digits in the image.
    const DIGITS: usize;
    /// Digit `d` (bits `DIGIT_BITS * d..DIGIT_BITS * (d + 1)`).
    #[inline(always)]
    fn digit(self, d: usize) -> usize {
        ((self.into() >> (DIGIT_BITS * d)) as usize) & (BUCKETS - 1)
    }
}

macro_rules! radix {
    ($($t:ty),*) => {$(
        impl Radix for $t {
            const DIGITS: usize = (<$t>::BITS as usize).div_ceil(DIGIT_BITS);
        }
    )*};
}
radix!(u8, u16, u32, u64);

/// A key type as the host sorts it: its order-preserving unsigned image.
pub trait HostKey: Pod + Send + Sync {
    /// The image type.
    type Bits: Radix;
    /// The image of the key, `None` for NaN (which sorts after every image, all NaNs tied):
    /// `a` sorts before `b` exactly when `a.bits() < b.bits()`, and equal images are equal
    /// keys, bit for bit ([`HostKey::from_bits`] inverts it).
    fn bits(self) -> Option<Self::Bits>;
    /// The key whose image is `b`.
    fn from_bits(b: Self::Bits) -> Self;
}

macro_rules! unsigned_key {
    ($($t:ty),*) => {$(
        impl HostKey for $t {
            type Bits = $t;
            #[inline(always)]
            fn bits(self) -> Option<$t> {
                Some(self)
            }
            #[inline(always)]
            fn from_bits(b: $t) -> $t {
                b
            }
        }
    )*};
}
unsigned_key!(u8, u16, u32, u64);

macro_rules! signed_key {
    ($($t:ty => $u:ty),*) => {$(
        impl HostKey for $t {
            type Bits = $u;
            /// Two's complement with the sign bit flipped: `MIN` maps to 0, `MAX` to the top.
            #[inline(always)]
            fn bits(self) -> Option<$u> {
                Some((self as $u) ^ (1 << (<$u>::BITS - 1)))
            }
            #[inline(always)]
            fn from_bits(b: $u) -> $t {
                (b ^ (1 << (<$u>::BITS - 1))) as $t
            }
        }
    )*};
}
signed_key!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

macro_rules! float_key {
    ($($t:ty => $u:ty, $i:ty),*) => {$(
        impl HostKey for $t {
            type Bits = $u;
            /// The module's float order: negative floats have every bit flipped (larger
            /// magnitudes first, `-0.0` just below `+0.0`), the others their sign bit set.
            /// Branch-free: the signs of random data would defeat a branch predictor.
            #[inline(always)]
            fn bits(self) -> Option<$u> {
                if self.is_nan() {
                    return None;
                }
                let b = self.to_bits();
                let flip = (((b as $i) >> (<$u>::BITS - 1)) as $u) | (1 << (<$u>::BITS - 1));
                Some(b ^ flip)
            }
            #[inline(always)]
            fn from_bits(b: $u) -> $t {
                let flip = (((!b as $i) >> (<$u>::BITS - 1)) as $u) | (1 << (<$u>::BITS - 1));
                <$t>::from_bits(b ^ flip)
            }
        }
    )*};
}
float_key!(f32 => u32, i32, f64 => u64, i64);

/// Whether `a` may precede `b` in a sorted sequence (the order of [`HostKey::bits`], NaN last).
#[inline(always)]
fn in_order<K: HostKey>(a: K, b: K) -> bool {
    match (a.bits(), b.bits()) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(x), Some(y)) => x <= y,
    }
}

/// Whether the keys are sorted.
fn keys_sorted<K: HostKey>(keys: impl Iterator<Item = K>) -> bool {
    let mut keys = keys;
    let Some(mut prev) = keys.next() else {
        return true;
    };
    for k in keys {
        if !in_order(prev, k) {
            return false;
        }
        prev = k;
    }
    true
}

/// Items (key, payload) in sorted order: the images of the keys that have one with their
/// payloads, sorted, then the NaN-keyed items in input order.
struct SortedItems<K: HostKey, P> {
    images: Vec<(K::Bits, P)>,
    nans: Vec<(K, P)>,
}

impl<K: HostKey, P: Copy> SortedItems<K, P> {
    /// The stable sort of `items` (`len` of them) on `threads` workers.
    fn new(items: impl Iterator<Item = (K, P)>, len: usize, threads: usize) -> Self
    where
        P: Send + Sync,
    {
        let mut images = Vec::with_capacity(len);
        let mut nans = Vec::new();
        for (k, p) in items {
            match k.bits() {
                Some(b) => images.push((b, p)),
                None => nans.push((k, p)),
            }
        }
        sort_by(&mut images, threads, |x: &(K::Bits, P)| x.0);
        SortedItems { images, nans }
    }

    /// The keys in sorted order.
    fn keys(&self) -> impl Iterator<Item = K> + '_ {
        let head = self.images.iter().map(|x| K::from_bits(x.0));
        head.chain(self.nans.iter().map(|x| x.0))
    }

    /// The payloads in the keys' sorted order.
    fn payloads(&self) -> impl Iterator<Item = P> + '_ {
        let head = self.images.iter().map(|x| x.1);
        head.chain(self.nans.iter().map(|x| x.1))
    }
}

/// Below this many elements one thread sorts: each of the three parallel phases waits for
/// threads to be scheduled, which on a busy machine takes milliseconds, as long as a serial
/// sort of a few hundred thousand elements.
const PAR_MIN: usize = 1 << 20;
/// The least elements per worker.
const PAR_CHUNK: usize = 1 << 18;

/// How many workers sort `n` elements on a space of `concurrency` workers.
pub fn workers(concurrency: usize, n: usize) -> usize {
    if n < PAR_MIN {
        1
    } else {
        concurrency.clamp(1, (n / PAR_CHUNK).max(1))
    }
}

/// Whether `v` is sorted by `key` (non-decreasing).
fn is_sorted_by<T, B: Ord>(v: &[T], key: impl Fn(&T) -> B) -> bool {
    v.windows(2).all(|w| key(&w[0]) <= key(&w[1]))
}

/// Sorts `v` stably by `key` on `threads` workers (nothing to do when already sorted).
///
/// A most-significant-digit-first radix sort: the elements are distributed by their highest
/// digit that is not the same in every key (the input cut into one chunk per worker, each
/// worker distributing its chunk into a buffer of its own, then each worker gathering a
/// contiguous range of buckets into `v` from every buffer, earlier chunks first), and each
/// bucket is sorted by the digits below, recursively, down to buckets small enough for the
/// cache, which an LSD radix sort (or, for a handful of elements, an insertion sort) finishes.
/// Every distribution keeps the input order among equal digits, so the sort is stable, and
/// each pass over main memory moves whole buckets instead of scattering over all of `v`.
pub fn sort_by<T, B, F>(v: &mut [T], threads: usize, key: F)
where
    T: Copy + Send + Sync,
    B: Radix,
    F: Fn(&T) -> B + Sync,
{
    let n = v.len();
    if n < 2 || is_sorted_by(v, &key) {
        return;
    }
    let threads = threads.clamp(1, n);
    let chunk = n.div_ceil(threads);
    // The highest digit that differs between keys (there is one: `v` is not sorted).
    let mut varies = vec![false; B::DIGITS];
    let mut hists: Vec<Vec<Hist>> = vec![Vec::new(); v.len().div_ceil(chunk)];
    let src: &[T] = v;
    run_parallel(
        hists.iter_mut().zip(src.chunks(chunk)),
        |(h, c): (&mut Vec<Hist>, &[T])| *h = histograms(c, B::DIGITS, &key),
    );
    for (d, flag) in varies.iter_mut().enumerate() {
        let mut total = [0usize; BUCKETS];
        for h in &hists {
            total.iter_mut().zip(&h[d]).for_each(|(t, c)| *t += c);
        }
        *flag = !total.contains(&n);
    }
    let Some(top) = varies.iter().rposition(|&f| f) else {
        return;
    };
    // Each worker distributes its chunk by digit `top` into a buffer of its own.
    let mut parts: Vec<Vec<T>> = vec![Vec::new(); hists.len()];
    run_parallel(
        parts.iter_mut().zip(src.chunks(chunk)).zip(&hists),
        |((out, c), h): ((&mut Vec<T>, &[T]), &Vec<Hist>)| {
            *out = c.to_vec();
            scatter(c, out, &h[top], top, &key);
        },
    );
    // Bucket `b` of part `p` is `parts[p][starts[p][b]..starts[p][b + 1]]`.
    let starts: Vec<[usize; BUCKETS + 1]> = hists.iter().map(|h| prefix(&h[top])).collect();
    let mut sizes = [0usize; BUCKETS];
    for h in &hists {
        sizes.iter_mut().zip(&h[top]).for_each(|(s, c)| *s += c);
    }
    // Contiguous ranges of buckets of about `n / threads` elements, one per worker.
    let mut groups = Vec::with_capacity(threads);
    let mut rest: &mut [T] = v;
    let mut first = 0;
    let mut filled = 0;
    for (b, &size) in sizes.iter().enumerate() {
        filled += size;
        // The last worker takes whatever is left.
        if b == BUCKETS - 1 || (filled >= chunk && groups.len() + 1 < threads) {
            let (here, tail) = std::mem::take(&mut rest).split_at_mut(filled);
            groups.push((here, first..b + 1));
            rest = tail;
            first = b + 1;
            filled = 0;
        }
    }
    // Every bucket then sorts from a worker's gathered copy into its place in `v`.
    let finish = |mine: &mut [T], out: &mut [T], buckets: std::ops::Range<usize>| {
        if top == 0 {
            out.copy_from_slice(mine);
            return;
        }
        let mut at = 0;
        for b in buckets {
            let r = at..at + sizes[b];
            sort_to(&mut mine[r.clone()], &mut out[r], top - 1, &key);
            at += sizes[b];
        }
    };
    if parts.len() == 1 {
        // One worker: its buffer is the gathered copy already.
        let (out, buckets) = groups.pop().unwrap_or_default();
        finish(&mut parts[0], out, buckets);
        return;
    }
    let (parts, starts) = (&parts, &starts);
    run_parallel(
        groups.into_iter(),
        |(out, buckets): (&mut [T], std::ops::Range<usize>)| {
            let mut mine = Vec::with_capacity(out.len());
            for b in buckets.clone() {
                for (part, st) in parts.iter().zip(starts) {
                    mine.extend_from_slice(&part[st[b]..st[b + 1]]);
                }
            }
            finish(&mut mine, out, buckets);
        },
    );
}

/// Buckets of at most this many bytes are sorted in the cache, by [`lsd`].
const CACHE_BYTES: usize = 1 << 19;
/// Buckets of at most this many elements are sorted by insertion.
const INSERTION: usize = 24;

/// Sorts `a` stably by digits `0..=d` of `key` (the higher ones are the same in every key),
/// with `b` (as long) as scratch; the result is in `a`. A distribution goes from `a` to `b`
/// and the buckets then sort from `b` back into `a` ([`sort_to`]): no pass copies back.
fn sort_in<T: Copy, B: Radix>(a: &mut [T], b: &mut [T], d: usize, key: &impl Fn(&T) -> B) {
    let n = a.len();
    if std::mem::size_of_val(a) <= CACHE_BYTES || d == 0 {
        lsd(a, b, d, key);
        return;
    }
    let h = histogram(a, d, key);
    if h.contains(&n) {
        return sort_in(a, b, d - 1, key);
    }
    scatter(a, b, &h, d, key);
    let starts = prefix(&h);
    for w in starts.windows(2) {
        let r = w[0]..w[1];
        sort_to(&mut b[r.clone()], &mut a[r], d - 1, key);
    }
}

/// Sorts the elements of `src` stably by digits `0..=d` of `key` into `dst` (as long), using
/// `src` as scratch.
fn sort_to<T: Copy, B: Radix>(src: &mut [T], dst: &mut [T], d: usize, key: &impl Fn(&T) -> B) {
    let n = src.len();
    if std::mem::size_of_val(src) <= CACHE_BYTES {
        lsd(src, dst, d, key);
        dst.copy_from_slice(src);
        return;
    }
    let h = histogram(src, d, key);
    if h.contains(&n) && d > 0 {
        return sort_to(src, dst, d - 1, key);
    }
    scatter(src, dst, &h, d, key);
    if d == 0 {
        return;
    }
    let starts = prefix(&h);
    for w in starts.windows(2) {
        let r = w[0]..w[1];
        sort_in(&mut dst[r.clone()], &mut src[r], d - 1, key);
    }
}

/// Stable LSD radix sort of `v` by digits `0..=d` of `key`, skipping the digits every key
/// shares, with `buf` (as long) as scratch; the result is in `v`. A handful of elements are
/// sorted by insertion instead.
fn lsd<T: Copy, B: Radix>(v: &mut [T], buf: &mut [T], d: usize, key: &impl Fn(&T) -> B) {
    let n = v.len();
    if n <= INSERTION {
        insertion_sort(v, key);
        return;
    }
    let hist = histograms(v, d + 1, key);
    let (mut src, mut dst) = (v, buf);
    let mut in_v = true;
    for (d, h) in hist.iter().enumerate() {
        // A digit shared by every key moves nothing.
        if h.contains(&n) {
            continue;
        }
        scatter(src, dst, h, d, key);
        std::mem::swap(&mut src, &mut dst);
        in_v = !in_v;
    }
    if !in_v {
        dst.copy_from_slice(src);
    }
}

/// Stable insertion sort of `v` by `key`.
fn insertion_sort<T: Copy, B: Radix>(v: &mut [T], key: &impl Fn(&T) -> B) {
    for i in 1..v.len() {
        let x = v[i];
        let kx = key(&x);
        let mut j = i;
        while j > 0 && kx < key(&v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// The histograms of digits `0..digits` of the keys of `v`, from one read.
fn histograms<T, B: Radix>(v: &[T], digits: usize, key: &impl Fn(&T) -> B) -> Vec<Hist> {
    let mut hist = vec![[0usize; BUCKETS]; digits];
    for x in v {
        let k = key(x);
        for (d, h) in hist.iter_mut().enumerate() {
            h[k.digit(d)] += 1;
        }
    }
    hist
}

/// The histogram of digit `d` of the keys of `v`.
fn histogram<T, B: Radix>(v: &[T], d: usize, key: &impl Fn(&T) -> B) -> [usize; BUCKETS] {
    let mut h = [0usize; BUCKETS];
    for x in v {
        h[key(x).digit(d)] += 1;
    }
    h
}

/// Where each bucket of histogram `h` starts, and the total.
fn prefix(h: &Hist) -> [usize; BUCKETS + 1] {
    let mut starts = [0usize; BUCKETS + 1];
    for b in 0..BUCKETS {
        starts[b + 1] = starts[b] + h[b];
    }
    starts
}

/// Distributes `src` into `dst` (as long) by digit `d` of `key`, whose histogram over `src` is
/// `h`, keeping the order of `src` within every bucket.
fn scatter<T: Copy, B: Radix>(
    src: &[T],
    dst: &mut [T],
    h: &Hist,
    d: usize,
    key: &impl Fn(&T) -> B,
) {
    let mut off = [0usize; BUCKETS];
    off.copy_from_slice(&prefix(h)[..BUCKETS]);
    for x in src {
        let b = key(x).digit(d);
        dst[off[b]] = *x;
        off[b] += 1;
    }
}

/// Runs `f` on every item: one scoped thread per item but the first, and the calling thread,
/// which then takes every item whose thread has not started yet (or could not be started).
fn run_parallel<I, F>(items: I, f: F)
where
    I: Iterator,
    I::Item: Send,
    F: Fn(I::Item) + Sync,
{
    use std::sync::Mutex;
    let slots: Vec<Mutex<Option<I::Item>>> = items.map(|it| Mutex::new(Some(it))).collect();
    let take = |slot: &Mutex<Option<I::Item>>| slot.lock().ok().and_then(|mut g| g.take());
    let (f, take) = (&f, &take);
    std::thread::scope(|s| {
        for slot in slots.iter().skip(1) {
            // A thread that cannot be started leaves its item to the calling thread.
            let _ = std::thread::Builder::new().spawn_scoped(s, move || {
                if let Some(it) = take(slot) {
                    f(it);
                }
            });
        }
        for slot in &slots {
            if let Some(it) = take(slot) {
                f(it);
            }
        }
    });
}

/// The elements of a rank-1 host View, in index order, read under a shared guard.
pub fn read<T: Pod, L: Layout>(v: &View<T, 1, L, HostSpace>) -> Result<Vec<T>> {
    let g = v.try_host()?;
    Ok(match g.as_slice() {
        Some(s) => s.to_vec(),
        None => (0..v.extent(0)).map(|i| g[i]).collect(),
    })
}

/// Writes `data` (one element per index) into a rank-1 host View under an exclusive guard.
fn write<T: Pod, L: Layout>(
    v: &View<T, 1, L, HostSpace>,
    data: impl Iterator<Item = T>,
) -> Result<()> {
    let mut g = v.try_host_mut()?;
    write_guarded(&mut g, data);
    Ok(())
}

fn write_guarded<T: Pod, L: Layout>(
    g: &mut rokkos::HostMut<'_, T, 1, L, HostSpace>,
    data: impl Iterator<Item = T>,
) {
    match g.as_mut_slice() {
        Some(s) => s.iter_mut().zip(data).for_each(|(o, x)| *o = x),
        None => data.enumerate().for_each(|(i, x)| g[i] = x),
    }
}

/// [`super::sort`] of a host View on `threads` workers.
pub fn sort<K: HostKey, L: Layout>(v: &View<K, 1, L, HostSpace>, threads: usize) -> Result<()> {
    let n = v.extent(0);
    let mut g = v.try_host_mut()?;
    let sorted = match g.as_slice() {
        Some(s) => {
            if keys_sorted(s.iter().copied()) {
                return Ok(());
            }
            SortedItems::new(s.iter().map(|&k| (k, ())), n, threads)
        }
        None => {
            if keys_sorted((0..n).map(|i| g[i])) {
                return Ok(());
            }
            SortedItems::new((0..n).map(|i| (g[i], ())), n, threads)
        }
    };
    write_guarded(&mut g, sorted.keys());
    Ok(())
}

/// [`super::sort_by_key`] of host Views of the same extent on `threads` workers; `same` when
/// the two Views are of one allocation (one borrow flag, so their guards exclude each other).
pub fn sort_by_key<K: HostKey, V: Pod + Send + Sync, LK: Layout, LV: Layout>(
    keys: &View<K, 1, LK, HostSpace>,
    values: &View<V, 1, LV, HostSpace>,
    same: bool,
    threads: usize,
) -> Result<()> {
    let n = keys.extent(0);
    let sorted = {
        let (kg, vg) = (keys.try_host()?, values.try_host()?);
        match (kg.as_slice(), vg.as_slice()) {
            (Some(k), Some(v)) => {
                if keys_sorted(k.iter().copied()) {
                    return Ok(());
                }
                SortedItems::new(k.iter().copied().zip(v.iter().copied()), n, threads)
            }
            _ => {
                if keys_sorted((0..n).map(|i| kg[i])) {
                    return Ok(());
                }
                SortedItems::new((0..n).map(|i| (kg[i], vg[i])), n, threads)
            }
        }
    };
    let (keys_out, values_out) = (|| sorted.keys(), || sorted.payloads());
    if !same {
        let mut kg = keys.try_host_mut()?;
        // Both guards before either write, so a refusal changes nothing; a refusal of the
        // second may also mean the Views are two host Views of one allocation (one flag but two
        // allocation records), which the one-at-a-time writes below serve.
        if let Ok(mut vg) = values.try_host_mut() {
            write_guarded(&mut kg, keys_out());
            write_guarded(&mut vg, values_out());
            return Ok(());
        }
    }
    // One guard at a time, the values last (where the Views overlap, they win). Should the
    // values' guard be refused after all, the keys get their old elements back.
    let old = read(keys)?;
    write(keys, keys_out())?;
    if let Err(e) = write(values, values_out()) {
        return match write(keys, old.iter().copied()) {
            Ok(()) => Err(e),
            Err(restore) => Err(Error::Aliasing {
                kernel: "sort_by_key".into(),
                reason: format!(
                    "writing values `{}` was refused ({e}), and restoring keys `{}` too \
                     ({restore}): the keys are sorted, the values are not",
                    values.label(),
                    keys.label()
                ),
            }),
        };
    }
    Ok(())
}

/// The stable sorting permutation of `keys`: `p[i]` is the position of the key that sorts to
/// `i`.
pub fn permutation<K: HostKey>(keys: &[K], threads: usize) -> Vec<u32> {
    // `check_len` bounds every View sorted here by `u32::MAX` elements.
    let items = keys.iter().enumerate().map(|(i, &k)| (k, i as u32));
    SortedItems::new(items, keys.len(), threads)
        .payloads()
        .collect()
}

/// The stable counting sort of `bins` (each below `nbins`): the permutation, the bins'
/// offsets and their counts.
pub fn counting_sort(bins: &[u32], nbins: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut counts = vec![0u32; nbins];
    for &b in bins {
        counts[b as usize] += 1;
    }
    let offsets = offsets(&counts);
    let mut next = offsets.clone();
    let mut perm = vec![0u32; bins.len()];
    for (i, &b) in bins.iter().enumerate() {
        let slot = &mut next[b as usize];
        perm[*slot as usize] = i as u32;
        *slot += 1;
    }
    (perm, offsets, counts)
}

/// The exclusive prefix sums of `counts`.
pub fn offsets(counts: &[u32]) -> Vec<u32> {
    let mut sum = 0u32;
    counts
        .iter()
        .map(|&c| {
            let o = sum;
            sum += c;
            o
        })
        .collect()
}

/// `values[i] = old[perm[i]]` for a rank-1 host View (`perm` read first, so it may be the
/// View itself).
pub fn permute<V: Pod, L: Layout>(values: &View<V, 1, L, HostSpace>, perm: &[u32]) -> Result<()> {
    let mut g = values.try_host_mut()?;
    match g.as_mut_slice() {
        Some(s) => {
            let old = s.to_vec();
            for (o, &p) in s.iter_mut().zip(perm) {
                *o = old[p as usize];
            }
        }
        None => {
            let old: Vec<V> = (0..values.extent(0)).map(|i| g[i]).collect();
            for (i, &p) in perm.iter().enumerate() {
                g[i] = old[p as usize];
            }
        }
    }
    Ok(())
}

/// Row `i` of the rank-2 host View `values` becomes its old row `perm[i]`.
pub fn permute_rows<V: Pod, L: Layout>(
    values: &View<V, 2, L, HostSpace>,
    perm: &[u32],
) -> Result<()> {
    let [rows, cols] = values.extents();
    let mut g = values.try_host_mut()?;
    if values.is_contiguous() && values.strides() == [cols, 1] {
        if let Some(s) = g.as_mut_slice() {
            let old = s.to_vec();
            for (out, &p) in s.chunks_exact_mut(cols).zip(perm) {
                let p = p as usize;
                out.copy_from_slice(&old[p * cols..(p + 1) * cols]);
            }
            return Ok(());
        }
    }
    let mut old = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            old.push(g[(i, j)]);
        }
    }
    for (i, &p) in perm.iter().enumerate() {
        for j in 0..cols {
            g[(i, j)] = old[p as usize * cols + j];
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The radix sort against std's stable sort, with runs of equal keys (the positions tell
    /// whether ties kept their order), keys whose high digits are all equal, keys varying only in
    /// their high digits, and sizes past the cache threshold (nested distributions), on 1 to 5
    /// workers.
    #[test]
    fn sort_by_matches_std_stable() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let kinds: [fn(u64) -> u64; 4] =
            [|r| r % 97, |r| r, |r| r % (1 << 20), |r| (r >> 61) << 50];
        for n in [0usize, 1, 2, 3, 25, 100, 1000, 70_000, 200_001] {
            for kind in kinds {
                let data: Vec<(u64, u32)> = (0..n as u32).map(|i| (kind(next()), i)).collect();
                let mut want = data.clone();
                want.sort_by_key(|p| p.0);
                for threads in [1, 2, 3, 5] {
                    let mut got = data.clone();
                    sort_by(&mut got, threads, |p| p.0);
                    assert!(got == want, "n {n}, {threads} threads");
                }
            }
        }
    }

    #[test]
    fn key_images_order_like_the_module_docs() {
        let xs = [
            f64::NEG_INFINITY,
            -1.0,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::INFINITY,
        ];
        assert!(xs.windows(2).all(|w| w[0].bits() < w[1].bits()));
        for x in xs {
            let y = x as f32;
            assert_eq!(
                <f64 as HostKey>::from_bits(x.bits().unwrap()).to_bits(),
                x.to_bits()
            );
            assert_eq!(
                <f32 as HostKey>::from_bits(y.bits().unwrap()).to_bits(),
                y.to_bits()
            );
        }
        assert_eq!((-f64::NAN).bits(), None);
        assert!(i8::MIN.bits() < (-1i8).bits() && (-1i8).bits() < 0i8.bits());
        assert_eq!(i64::MAX.bits(), Some(u64::MAX));
        assert_eq!(<i16 as HostKey>::from_bits((-7i16).bits().unwrap()), -7);
    }
}
