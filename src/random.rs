//! Random numbers inside kernels, the same on every backend.
//!
//! Two generators, both written as `#[func]`s, so that a kernel calls them like any function and
//! every backend runs the same code (the native path on serial and rayon, the IR on wgpu and the
//! evaluator):
//!
//! - **Counter-based** ([`philox4x32`], Philox-4x32-10 of Salmon et al., *Parallel random numbers:
//!   as easy as 1, 2, 3*, SC'11): draw `k` of stream `index` under `seed` is a pure function of
//!   `(seed, index, k)` ([`rand_u32`], [`uniform_f32`], [`uniform_f64`], [`normal_f32`],
//!   [`normal_f64`]), distinct for every `k: u32` (the stream index takes two of Philox's four
//!   32-bit counter words, the block number of the draw a third: see [`philox_draw`]). No state,
//!   nothing to store: work item `i` uses stream `i` and counts its own draws. It uses only 32-bit integer operations (the 32 × 32 → 64-bit products are built from
//!   16-bit halves), so it also suits adapters without 64-bit shader integers.
//! - **A pool of xorshift64\* states**, as Kokkos' `Random_XorShift64_Pool` has it ([`RandomPool`]):
//!   a View of 64-bit states, one per stream, seeded from one seed; a kernel over the streams reads
//!   its state, advances it with [`xorshift64_next`], draws with [`xorshift64_u64`] /
//!   [`xorshift64_uniform_f64`] / ..., and stores it back (`states[i]`: its own element, as owner
//!   computes requires). Unlike Kokkos' pool, which hands a thread whichever state is free, stream
//!   `i` is always state `i`, so the numbers do not depend on the backend or the thread count.
//!
//! **Same numbers everywhere**: the integer draws and the uniform variates (an integer scaled by a
//! power of two, exact) are bit-identical on serial, rayon, the IR evaluator and wgpu. Normal
//! variates go through `ln`, `sqrt` and `cos` (Box–Muller): bit-identical on the host backends and
//! the evaluator, which share Rust's math; on a GPU within that backend's accuracy for those
//! functions (see `rokkos-wgpu`'s documentation: f64 within about an ulp, f32 as WGSL guarantees).
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos::random;
//!
//! #[kernel]
//! fn fill_uniform(i: usize, out: ViewMut<f64>, seed: u64) {
//!     // A `#[func]` is called by its path, or imported with its module's glob (`random::*`).
//!     out[i] = random::uniform_f64(seed, i as u64, 0);
//! }
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let out = DeviceView::<f64>::new_on(&dev, "u", [1000])?;
//! parallel_for("fill_uniform", RangePolicy::new(&dev, 0..1000), fill_uniform(&out, 42))?;
//! let h = create_mirror_view_and_copy(&out)?;
//! assert!(h.to_vec().iter().all(|&u| (0.0..1.0).contains(&u)));
//! assert_eq!(h.get(3), random::uniform_f64(42, 3, 0)); // the same function on the host
//! # Ok(())
//! # }
//! ```

use crate::func;
use rokkos_core::{create_mirror_view_and_copy_in, ExecutionSpace, LayoutRight, Result, View};

/// The high 32 bits of the 64-bit product `a * b`, from 16-bit halves (32-bit operations only).
#[func]
pub fn mulhi32(a: u32, b: u32) -> u32 {
    let ah = a >> 16;
    let al = a & 0xFFFF;
    let bh = b >> 16;
    let bl = b & 0xFFFF;
    let ll = al * bl;
    let hl = ah * bl;
    let lh = al * bh;
    let hh = ah * bh;
    // Each partial product of 16-bit halves fits in 32 bits, and so do these sums.
    let mid = (ll >> 16) + (hl & 0xFFFF) + (lh & 0xFFFF);
    hh + (hl >> 16) + (lh >> 16) + (mid >> 16)
}

/// Word `word` (0..=3) of the Philox-4x32-10 block of counter `(c0, c1, c2, c3)` under key
/// `(k0, k1)`. Checked against Random123's known-answer vectors.
#[func]
#[allow(clippy::too_many_arguments)]
pub fn philox4x32(c0: u32, c1: u32, c2: u32, c3: u32, k0: u32, k1: u32, word: u32) -> u32 {
    let mut x0 = c0;
    let mut x1 = c1;
    let mut x2 = c2;
    let mut x3 = c3;
    let mut y0 = k0;
    let mut y1 = k1;
    for round in 0..10u32 {
        if round > 0 {
            y0 = y0.wrapping_add(0x9E37_79B9);
            y1 = y1.wrapping_add(0xBB67_AE85);
        }
        let hi0 = mulhi32(0xD251_1F53, x0);
        let lo0 = x0.wrapping_mul(0xD251_1F53);
        let hi1 = mulhi32(0xCD9E_8D57, x2);
        let lo1 = x2.wrapping_mul(0xCD9E_8D57);
        let n0 = hi1 ^ x1 ^ y0;
        let n2 = hi0 ^ x3 ^ y1;
        x0 = n0;
        x1 = lo1;
        x2 = n2;
        x3 = lo0;
    }
    if word == 0 {
        x0
    } else if word == 1 {
        x1
    } else if word == 2 {
        x2
    } else {
        x3
    }
}

/// Word `word` (0..=3) of block `block` of stream `index` under `seed`: the Philox-4x32-10 block
/// of counter `(index, block, 0)` (index in the first two counter words, low word first) and key
/// `seed`. Every draw below is one word of one block: draw number `d` (counted in 32-bit words,
/// over the whole range of `u64`) is word `d % 4` of block `d / 4`, and the draws these functions
/// take are below 2^34, so their blocks fit the third counter word and distinct draws are
/// distinct (block, word) pairs. The fourth counter word stays 0.
#[func]
pub fn philox_draw(seed: u64, index: u64, block: u32, word: u32) -> u32 {
    philox4x32(
        index as u32,
        (index >> 32) as u32,
        block,
        0,
        seed as u32,
        (seed >> 32) as u32,
        word,
    )
}

/// Draw `k` (a 32-bit integer) of stream `index` under `seed`: word `k % 4` of block `k / 4`
/// ([`philox_draw`]).
#[func]
pub fn rand_u32(seed: u64, index: u64, k: u32) -> u32 {
    philox_draw(seed, index, k >> 2, k & 3)
}

/// A 32-bit integer as a uniform `f32` in `[0, 1)`: its top 24 bits times 2^-24 (exact).
#[func]
pub fn u32_to_unit_f32(x: u32) -> f32 {
    (x >> 8) as f32 * 5.960_464_5e-8
}

/// Two 32-bit integers as a uniform `f64` in `[0, 1)`: 53 of their bits times 2^-53 (exact).
#[func]
pub fn u32x2_to_unit_f64(hi: u32, lo: u32) -> f64 {
    ((hi >> 5) as f64 * 67_108_864.0 + (lo >> 6) as f64) * 1.110_223_024_625_156_5e-16
}

/// Uniform `f32` number `k` of stream `index` in `[0, 1)` (draw `k`).
#[func]
pub fn uniform_f32(seed: u64, index: u64, k: u32) -> f32 {
    u32_to_unit_f32(rand_u32(seed, index, k))
}

/// Uniform `f64` number `k` of stream `index` in `[0, 1)`: draws `2k` and `2k + 1` (words
/// `2 (k % 2)` and `2 (k % 2) + 1` of block `k / 2`), for every `k` up to `u32::MAX`. The draw
/// numbers are formed without an integer product, so none wraps (nor, in a debug build, panics).
#[func]
pub fn uniform_f64(seed: u64, index: u64, k: u32) -> f64 {
    let block = k >> 1;
    let word = (k & 1) << 1;
    u32x2_to_unit_f64(
        philox_draw(seed, index, block, word),
        philox_draw(seed, index, block, word + 1),
    )
}

/// Standard normal `f64` number `k` of stream `index`: Box–Muller over uniform numbers `2k` and
/// `2k + 1`, that is draws `4k .. 4k + 4`, the four words of block `k`, for every `k` up to
/// `u32::MAX`.
#[func]
pub fn normal_f64(seed: u64, index: u64, k: u32) -> f64 {
    // 1 - u is in (0, 1]: its logarithm is finite.
    let u1 = 1.0
        - u32x2_to_unit_f64(
            philox_draw(seed, index, k, 0),
            philox_draw(seed, index, k, 1),
        );
    let u2 = u32x2_to_unit_f64(
        philox_draw(seed, index, k, 2),
        philox_draw(seed, index, k, 3),
    );
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Standard normal `f32` number `k` of stream `index`: Box–Muller over uniform `f32` numbers `2k`
/// and `2k + 1` (draws `2k` and `2k + 1`: words `2 (k % 2)` and `2 (k % 2) + 1` of block
/// `k / 2`), for every `k` up to `u32::MAX`.
#[func]
pub fn normal_f32(seed: u64, index: u64, k: u32) -> f32 {
    let block = k >> 1;
    let word = (k & 1) << 1;
    let u1 = 1.0 - u32_to_unit_f32(philox_draw(seed, index, block, word));
    let u2 = u32_to_unit_f32(philox_draw(seed, index, block, word + 1));
    (-2.0 * u1.ln()).sqrt() * (6.283_185_5 * u2).cos()
}

/// The next xorshift64\* state (Marsaglia's xorshift with shifts 12, 25, 27, as Kokkos'
/// `Random_XorShift64`). A state of 0 stays 0: [`RandomPool`] never makes one.
#[func]
pub fn xorshift64_next(state: u64) -> u64 {
    let mut x = state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x
}

/// The 64-bit number of xorshift64\* state `state` (the state times 2685821657736338717).
#[func]
pub fn xorshift64_u64(state: u64) -> u64 {
    state.wrapping_mul(2_685_821_657_736_338_717)
}

/// The number of `state` as a uniform `f64` in `[0, 1)`: its top 53 bits times 2^-53.
#[func]
pub fn xorshift64_uniform_f64(state: u64) -> f64 {
    (xorshift64_u64(state) >> 11) as f64 * 1.110_223_024_625_156_5e-16
}

/// The number of `state` as a uniform `f32` in `[0, 1)`: its top 24 bits times 2^-24.
#[func]
pub fn xorshift64_uniform_f32(state: u64) -> f32 {
    (xorshift64_u64(state) >> 40) as f32 * 5.960_464_5e-8
}

/// SplitMix64 of `x`: how [`RandomPool`] turns one seed into well-mixed, distinct states.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A pool of xorshift64\* generator states in an execution space's memory, one per stream, all
/// derived from one seed (Kokkos' `Random_XorShift64_Pool`). Pass [`RandomPool::states`] to a kernel
/// as a writable View; work item `i` owns state `i` (see the module documentation).
///
/// ```
/// use rokkos::prelude::*;
/// use rokkos::random::*;
///
/// #[kernel]
/// fn mean_of_draws(i: usize, acc: &mut f64, states: ViewMut<u64>, draws: u32) {
///     let mut s = states[i];
///     for _ in 0..draws {
///         s = xorshift64_next(s);
///         *acc += xorshift64_uniform_f64(s);
///     }
///     states[i] = s;
/// }
///
/// # fn main() -> rokkos::Result<()> {
/// let dev = Device::new()?;
/// let pool = RandomPool::new_on(&dev, 2024, 256)?;
/// let sum: f64 = parallel_reduce(
///     "mean", RangePolicy::new(&dev, 0..256), mean_of_draws(pool.states(), 100), Sum)?;
/// assert!((sum / 25600.0 - 0.5).abs() < 0.01);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct RandomPool<S: rokkos_core::MemorySpace = rokkos_core::HostSpace> {
    states: View<u64, 1, LayoutRight, S>,
}

impl<S: rokkos_core::MemorySpace> RandomPool<S> {
    /// `streams` states for `seed` in the memory of `space`: state `i` is SplitMix64 of
    /// `(seed, i)`, never 0.
    pub fn new_on<E: ExecutionSpace<Memory = S>>(
        space: &E,
        seed: u64,
        streams: usize,
    ) -> Result<Self> {
        let host = View::<u64>::from_fn("random_pool_states", [streams], |[i]| {
            let s = splitmix64(splitmix64(seed) ^ (i as u64));
            if s == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                s
            }
        })?;
        Ok(RandomPool {
            states: create_mirror_view_and_copy_in(space, &host)?,
        })
    }
    /// The states, one per stream: pass it to a kernel as a writable View.
    pub fn states(&self) -> &View<u64, 1, LayoutRight, S> {
        &self.states
    }
    /// The number of streams.
    pub fn streams(&self) -> usize {
        self.states.extent(0)
    }
}
