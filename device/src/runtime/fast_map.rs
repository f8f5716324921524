//! Hash maps for the caches a launch looks up (kernels by type, plans and variants by IR hash,
//! proofs by launch sizes, modules by variant key). std's SipHash resists keys chosen to
//! collide, which these caches, keyed by the library's own values, do not need, and it was a
//! sixth of a CUDA launch's host time (several lookups per launch). A map compares keys for
//! equality whatever the hash, so the hash here decides speed only, never which entry is found.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A multiply-rotate hash of the words written (the one rustc uses for its own tables): a few
/// cycles per word, good enough spread for keys that are not adversarial.
#[derive(Clone, Copy, Default, Debug)]
pub struct FastHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(n as u64);
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(v: &T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(v)
    }

    #[test]
    fn keys_are_found_and_distinct_keys_spread() {
        let mut m: FastMap<(u64, Vec<u32>), usize> = FastMap::default();
        for i in 0..2000u64 {
            m.insert((i, vec![i as u32; (i % 5) as usize]), i as usize);
        }
        for i in 0..2000u64 {
            assert_eq!(m[&(i, vec![i as u32; (i % 5) as usize])], i as usize);
        }
        // Strings differing in their last byte, or only in length, hash apart.
        let hs: std::collections::HashSet<u64> =
            ["a", "b", "ab", "abc", "abd", "abcdefgh", "abcdefghi"]
                .iter()
                .map(hash)
                .collect();
        assert_eq!(hs.len(), 7);
        // Consecutive integers (IR hashes are not, but sizes are) spread over a table's buckets,
        // which its hash's low bits pick.
        let low: std::collections::HashSet<u64> = (0..1024u64).map(|i| hash(&i) & 1023).collect();
        assert!(low.len() > 900, "{}", low.len());
    }
}
