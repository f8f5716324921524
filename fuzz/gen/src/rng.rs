//! The generator's random numbers: SplitMix64, so that a (seed, index) pair names one kernel on
//! every machine and every Rust version (no dependency whose stream could change).

/// A SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The stream of `seed`, decorrelated from the stream of `seed + 1`.
    pub fn new(seed: u64) -> Rng {
        let mut r = Rng(seed ^ 0x5DEE_CE66_D1A4_F87B);
        r.next_u64();
        r
    }
    /// The stream for item `index` of the family `seed` (kernel `index`, input set `index`).
    pub fn derive(seed: u64, salt: u64, index: u64) -> Rng {
        let mut r = Rng::new(seed);
        let a = r.next_u64();
        Rng::new(a ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.rotate_left(32))
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        (self.next_u64() % 100) < percent as u64
    }
    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    /// An index chosen with the given weights (not all zero).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        let mut x = self.next_u64() % total;
        for (k, &w) in weights.iter().enumerate() {
            if x < w as u64 {
                return k;
            }
            x -= w as u64;
        }
        weights.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::derive(7, 1, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::derive(7, 1, 3).next_u64(),
            Rng::derive(7, 1, 4).next_u64()
        );
        assert_ne!(
            Rng::derive(7, 1, 3).next_u64(),
            Rng::derive(8, 1, 3).next_u64()
        );
        let mut r = Rng::new(1);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
            let w = r.weighted(&[0, 3, 0, 1]);
            assert!(w == 1 || w == 3);
        }
    }
}
