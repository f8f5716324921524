//! [`Bitset`]: a fixed number of bits in an execution space's memory (Kokkos' `Bitset`), packed
//! 32 to a `u32` word.
//!
//! Host code works on the whole set through kernels that run on the space: [`Bitset::set_all`],
//! [`Bitset::reset_all`], [`Bitset::count`], [`Bitset::next_set`], [`Bitset::prev_set`],
//! [`Bitset::find_any_set_near`], and the same for clear bits ([`Bitset::next_unset`],
//! [`Bitset::prev_unset`], [`Bitset::find_any_unset_near`]); one bit at a time with [`Bitset::set`], [`Bitset::reset`] (a
//! one-item kernel) and [`Bitset::test`] (a copy of the bit's word to the host).
//!
//! Kernels use the bits through the word View, [`Bitset::words`]: bit `i` is bit `i % 32` of
//! word `i / 32`. A kernel that sets or clears bits shared with other work items uses the
//! atomics (`atomic_or` / `atomic_fetch_or` to set, `atomic_and` / `atomic_fetch_and` with the
//! complement to clear, whose previous value says whether this work item flipped the bit); a
//! kernel that only tests bits takes the words read-only. Bits at or past [`Bitset::size`] in
//! the last word are ignored by every operation here.
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos_containers::Bitset;
//!
//! /// Sets bit `i` for every multiple of `k`.
//! #[kernel]
//! fn mark_multiples(i: usize, words: ViewMut<u32>, k: usize) {
//!     if i % k == 0 {
//!         words.atomic_or(i / 32, 1u32 << ((i % 32) as u32));
//!     }
//! }
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let bits = Bitset::new(&dev, "multiples", 100)?;
//! parallel_for("mark", RangePolicy::new(&dev, 0..100), mark_multiples(bits.words(), 7))?;
//! assert_eq!(bits.count()?, 15); // 0, 7, .., 98
//! assert!(bits.test(49)? && !bits.test(50)?);
//! assert_eq!(bits.next_set(50)?, Some(56));
//! assert_eq!(bits.find_any_set_near(52)?, Some(49));
//! # Ok(()) }
//! ```

use rokkos::{
    deep_copy, kernel, parallel_for, parallel_reduce, Device, Error, ExecutionSpace, LayoutRight,
    Max, Min, RangePolicy, Result, Sum, View,
};

/// Writes `full` to every word and `tail` to word `last`.
#[kernel]
fn fill_words(w: usize, words: ViewMut<u32>, last: usize, tail: u32, full: u32) {
    if w == last {
        words[w] = tail;
    } else {
        words[w] = full;
    }
}

/// Counts the set bits of every word (word `last` masked by `tail`).
#[kernel]
fn count_bits(w: usize, acc: &mut u32, words: View<u32>, last: usize, tail: u32) {
    let mut word = words[w];
    if w == last {
        word &= tail;
    }
    let mut b: u32 = 0;
    while b < 32 {
        *acc += (word >> b) & 1;
        b += 1;
    }
}

/// The smallest index `>= from` of a bit that differs from `flip`'s (all zeros: a set bit; all
/// ones: a clear one), `u32::MAX` for none.
#[kernel]
fn first_set(
    w: usize,
    acc: &mut u32,
    words: View<u32>,
    flip: u32,
    from: u32,
    last: usize,
    tail: u32,
) {
    // Flipped before the tail mask, so that the bits past the size never count, set or clear.
    let mut word = words[w] ^ flip;
    if w == last {
        word &= tail;
    }
    let base = (w as u32) * 32;
    let mut b: u32 = 0;
    while b < 32 {
        let i = base + b;
        if i >= from && ((word >> b) & 1) == 1 && i < *acc {
            *acc = i;
        }
        b += 1;
    }
}

/// One past the largest index `<= upto` of a bit that differs from `flip`'s (0 for none).
#[kernel]
fn last_set(
    w: usize,
    acc: &mut u32,
    words: View<u32>,
    flip: u32,
    upto: u32,
    last: usize,
    tail: u32,
) {
    let mut word = words[w] ^ flip;
    if w == last {
        word &= tail;
    }
    let base = (w as u32) * 32;
    let mut b: u32 = 0;
    while b < 32 {
        let i = base + b;
        if i <= upto && ((word >> b) & 1) == 1 && i + 1 > *acc {
            *acc = i + 1;
        }
        b += 1;
    }
}

/// The nearer of `below` (at or before `hint`) and `above` (at or after it), the lower on a tie.
fn nearer(hint: usize, below: Option<usize>, above: Option<usize>) -> Option<usize> {
    match (below, above) {
        (Some(b), Some(a)) => Some(if a - hint < hint - b { a } else { b }),
        (b, a) => b.or(a),
    }
}

/// ANDs `keep` into word `w`, then ORs `bits` into it (one work item).
#[kernel]
fn update_word(_k: usize, words: ViewMut<u32>, w: usize, keep: u32, bits: u32) {
    words.atomic_and(w, keep);
    words.atomic_or(w, bits);
}

/// A fixed-size set of bits in the memory of execution space `E` (the run-time
/// [`rokkos::Device`] by default); see the [module documentation](self).
pub struct Bitset<E: ExecutionSpace = Device> {
    space: E,
    words: View<u32, 1, LayoutRight, E::Memory>,
    size: usize,
}

impl<E: ExecutionSpace> Clone for Bitset<E> {
    /// A shallow copy: the same bits.
    fn clone(&self) -> Self {
        Bitset {
            space: self.space.clone(),
            words: self.words.clone(),
            size: self.size,
        }
    }
}

impl<E: ExecutionSpace> std::fmt::Debug for Bitset<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bitset")
            .field("label", &self.words.label())
            .field("size", &self.size)
            .field("space", &self.space.name())
            .finish()
    }
}

impl<E: ExecutionSpace> Bitset<E> {
    /// `size` bits, all reset, in `space`'s memory. `Err(InvalidArgument)` when `size` is above
    /// `u32::MAX` (bit indices are 32-bit on every backend), `Err(OutOfMemory)` as for a View.
    pub fn new(space: &E, label: &str, size: usize) -> Result<Self> {
        if size > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "Bitset `{label}` of {size} bits: at most {} bits",
                u32::MAX
            )));
        }
        let words = View::new_on(space, label, [size.div_ceil(32)])?;
        Ok(Bitset {
            space: space.clone(),
            words,
            size,
        })
    }

    /// The number of bits.
    pub fn size(&self) -> usize {
        self.size
    }
    /// The label.
    pub fn label(&self) -> &str {
        self.words.label()
    }
    /// The words: bit `i` is bit `i % 32` of word `i / 32` (for kernels; see the module
    /// documentation).
    pub fn words(&self) -> &View<u32, 1, LayoutRight, E::Memory> {
        &self.words
    }

    fn word_count(&self) -> usize {
        self.words.extent(0)
    }
    /// The last word's index and the mask of its bits below `size` (all bits for no words).
    fn tail(&self) -> (usize, u32) {
        let last = self.word_count().saturating_sub(1);
        match self.size % 32 {
            0 => (last, u32::MAX),
            r => (last, (1u32 << r) - 1),
        }
    }
    fn policy(&self, words: std::ops::Range<usize>) -> RangePolicy<E> {
        RangePolicy::new(&self.space, words)
    }
    fn check_index(&self, i: usize, what: &str) -> Result<()> {
        if i < self.size {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "{what}({i}) on Bitset `{}` of {} bits",
                self.label(),
                self.size
            )))
        }
    }

    /// Sets every bit (a kernel on the space; Kokkos' `set()`).
    pub fn set_all(&self) -> Result<()> {
        let (last, tail) = self.tail();
        let k = fill_words(&self.words, last, tail, u32::MAX);
        parallel_for("Bitset::set_all", self.policy(0..self.word_count()), k)
    }

    /// Resets every bit (a kernel on the space; Kokkos' `reset()` / `clear()`).
    pub fn reset_all(&self) -> Result<()> {
        let k = fill_words(&self.words, 0, 0, 0);
        parallel_for("Bitset::reset_all", self.policy(0..self.word_count()), k)
    }

    /// The number of set bits (a reduction on the space).
    ///
    /// ```
    /// use rokkos::Serial;
    /// use rokkos_containers::Bitset;
    /// let b = Bitset::new(&Serial, "b", 70).unwrap();
    /// b.set_all().unwrap();
    /// b.reset(3).unwrap();
    /// assert_eq!(b.count().unwrap(), 69);
    /// b.reset_all().unwrap();
    /// assert_eq!(b.count().unwrap(), 0);
    /// ```
    pub fn count(&self) -> Result<usize> {
        let (last, tail) = self.tail();
        let k = count_bits(&self.words, last, tail);
        let n: u32 = parallel_reduce("Bitset::count", self.policy(0..self.word_count()), k, Sum)?;
        Ok(n as usize)
    }

    /// Whether bit `i` is set (its word copied to the host). `Err(InvalidArgument)` for `i` at
    /// or past [`Bitset::size`].
    pub fn test(&self, i: usize) -> Result<bool> {
        self.check_index(i, "test")?;
        let w = i / 32;
        let host = View::<u32>::new("Bitset::test", [1])?;
        deep_copy(&host, &self.words.subview::<1>((w..w + 1,))?)?;
        Ok((host.get(0) >> (i % 32)) & 1 == 1)
    }

    /// Sets bit `i` (a one-item kernel, atomic like a kernel's own `atomic_or`).
    /// `Err(InvalidArgument)` for `i` at or past [`Bitset::size`].
    pub fn set(&self, i: usize) -> Result<()> {
        self.check_index(i, "set")?;
        let k = update_word(&self.words, i / 32, u32::MAX, 1u32 << (i % 32));
        parallel_for("Bitset::set", self.policy(0..1), k)
    }

    /// Resets bit `i` (a one-item kernel). `Err(InvalidArgument)` for `i` at or past
    /// [`Bitset::size`].
    pub fn reset(&self, i: usize) -> Result<()> {
        self.check_index(i, "reset")?;
        let k = update_word(&self.words, i / 32, !(1u32 << (i % 32)), 0);
        parallel_for("Bitset::reset", self.policy(0..1), k)
    }

    /// The first set bit at or after `from` (a reduction over the words from `from`'s on), or
    /// `None`.
    pub fn next_set(&self, from: usize) -> Result<Option<usize>> {
        self.next_where(from, 0, "Bitset::next_set")
    }

    /// The first clear bit at or after `from`, or `None` (every bit from `from` on is set, or
    /// `from` is past the end).
    ///
    /// ```
    /// # let dev = rokkos::Device::new()?;
    /// let bits = rokkos_containers::Bitset::new(&dev, "b", 40)?;
    /// bits.set_all()?;
    /// bits.reset(35)?;
    /// assert_eq!(bits.next_unset(3)?, Some(35));
    /// assert_eq!(bits.next_unset(36)?, None);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn next_unset(&self, from: usize) -> Result<Option<usize>> {
        self.next_where(from, u32::MAX, "Bitset::next_unset")
    }

    /// The last set bit at or before `upto` (any `upto`: past the end means the last bit), or
    /// `None`.
    pub fn prev_set(&self, upto: usize) -> Result<Option<usize>> {
        self.prev_where(upto, 0, "Bitset::prev_set")
    }

    /// The last clear bit at or before `upto` (any `upto`: past the end means the last bit), or
    /// `None`.
    ///
    /// ```
    /// # let dev = rokkos::Device::new()?;
    /// let bits = rokkos_containers::Bitset::new(&dev, "b", 40)?;
    /// bits.set_all()?;
    /// bits.reset(2)?;
    /// assert_eq!(bits.prev_unset(1000)?, Some(2));
    /// assert_eq!(bits.prev_unset(1)?, None);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn prev_unset(&self, upto: usize) -> Result<Option<usize>> {
        self.prev_where(upto, u32::MAX, "Bitset::prev_unset")
    }

    /// A set bit nearest to `hint` (the lower one on a tie), or `None` when no bit is set
    /// (Kokkos' `find_any_set_near`, which returns some set bit near the hint: this one is the
    /// nearest).
    pub fn find_any_set_near(&self, hint: usize) -> Result<Option<usize>> {
        let below = self.prev_set(hint)?;
        let above = self.next_set(hint)?;
        Ok(nearer(hint, below, above))
    }

    /// A clear bit nearest to `hint` (the lower one on a tie), or `None` when every bit is set
    /// (Kokkos' `find_any_unset_near`: the free slot nearest a hint, as an allocator over the
    /// bits asks for).
    ///
    /// ```
    /// # let dev = rokkos::Device::new()?;
    /// let bits = rokkos_containers::Bitset::new(&dev, "slots", 64)?;
    /// bits.set_all()?;
    /// bits.reset(10)?;
    /// bits.reset(50)?;
    /// assert_eq!(bits.find_any_unset_near(20)?, Some(10));
    /// assert_eq!(bits.find_any_unset_near(40)?, Some(50));
    /// bits.set_all()?;
    /// assert_eq!(bits.find_any_unset_near(20)?, None);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn find_any_unset_near(&self, hint: usize) -> Result<Option<usize>> {
        let below = self.prev_unset(hint)?;
        let above = self.next_unset(hint)?;
        Ok(nearer(hint, below, above))
    }

    /// The first bit at or after `from` whose value differs from `flip`'s bits.
    fn next_where(&self, from: usize, flip: u32, label: &str) -> Result<Option<usize>> {
        if from >= self.size {
            return Ok(None);
        }
        let (last, tail) = self.tail();
        let k = first_set(&self.words, flip, from as u32, last, tail);
        let policy = self.policy(from / 32..self.word_count());
        let i: u32 = parallel_reduce(label, policy, k, Min)?;
        Ok((i != u32::MAX).then_some(i as usize))
    }

    /// The last bit at or before `upto` whose value differs from `flip`'s bits.
    fn prev_where(&self, upto: usize, flip: u32, label: &str) -> Result<Option<usize>> {
        if self.size == 0 {
            return Ok(None);
        }
        let upto = upto.min(self.size - 1);
        let (last, tail) = self.tail();
        let k = last_set(&self.words, flip, upto as u32, last, tail);
        let i: u32 = parallel_reduce(label, self.policy(0..upto / 32 + 1), k, Max)?;
        Ok(i.checked_sub(1).map(|i| i as usize))
    }
}
