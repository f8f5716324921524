//! Distributed reductions of values: the result of a `parallel_reduce` on each rank, joined
//! over a communicator with the same reducer (every built-in one and tuples of them, or any
//! other `Reducer`), and a deterministic floating-point sum.

use crate::comm::Communicator;
use mpi::ffi;
use rokkos_core::{MinMaxVal, Reducer, Result, ValLoc};
use std::ffi::c_int;

/// A reduction value that travels as 64-bit words: the scalars, `bool`, [`ValLoc`],
/// [`MinMaxVal`] and tuples of them (up to 6), as the built-in reducers and their tuples take.
pub trait Wire: Copy {
    /// How many words it takes.
    const WORDS: usize;
    /// Appends its words.
    fn put(&self, out: &mut Vec<u64>);
    /// Reads it back from words `put` wrote.
    fn take(words: &mut std::slice::Iter<'_, u64>) -> Self;
}

fn next(w: &mut std::slice::Iter<'_, u64>) -> u64 {
    // Every caller reads exactly the `WORDS` it wrote.
    *w.next().expect("as many words as were written")
}

macro_rules! wire_int {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            const WORDS: usize = 1;
            fn put(&self, out: &mut Vec<u64>) {
                out.push(*self as u64);
            }
            fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
                next(w) as $t
            }
        }
    )*};
}
wire_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl Wire for f32 {
    const WORDS: usize = 1;
    fn put(&self, out: &mut Vec<u64>) {
        out.push(self.to_bits() as u64);
    }
    fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
        f32::from_bits(next(w) as u32)
    }
}
impl Wire for f64 {
    const WORDS: usize = 1;
    fn put(&self, out: &mut Vec<u64>) {
        out.push(self.to_bits());
    }
    fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
        f64::from_bits(next(w))
    }
}
impl Wire for bool {
    const WORDS: usize = 1;
    fn put(&self, out: &mut Vec<u64>) {
        out.push(*self as u64);
    }
    fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
        next(w) != 0
    }
}
impl<T: Wire> Wire for ValLoc<T> {
    const WORDS: usize = T::WORDS + 1;
    fn put(&self, out: &mut Vec<u64>) {
        self.val.put(out);
        out.push(self.loc as u64);
    }
    fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
        let val = T::take(w);
        ValLoc {
            val,
            loc: next(w) as usize,
        }
    }
}
impl<T: Wire> Wire for MinMaxVal<T> {
    const WORDS: usize = 2 * T::WORDS;
    fn put(&self, out: &mut Vec<u64>) {
        self.min.put(out);
        self.max.put(out);
    }
    fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
        let min = T::take(w);
        MinMaxVal {
            min,
            max: T::take(w),
        }
    }
}
macro_rules! wire_tuple {
    ($($t:ident $v:ident),+) => {
        impl<$($t: Wire),+> Wire for ($($t,)+) {
            const WORDS: usize = 0 $(+ $t::WORDS)+;
            fn put(&self, out: &mut Vec<u64>) {
                let ($($v,)+) = self;
                $($v.put(out);)+
            }
            fn take(w: &mut std::slice::Iter<'_, u64>) -> Self {
                ($($t::take(w),)+)
            }
        }
    };
}
wire_tuple!(A a);
wire_tuple!(A a, B b);
wire_tuple!(A a, B b, C c);
wire_tuple!(A a, B b, C c, D d);
wire_tuple!(A a, B b, C c, D d, E e);
wire_tuple!(A a, B b, C c, D d, E e, F f);

/// A rank-local [`ValLoc`] (location within this rank's part) as a global one: the location
/// shifted by `offset`, this rank's first global index; the identity's `usize::MAX` stays.
///
/// ```
/// use rokkos_core::ValLoc;
/// let g = rokkos_mpi::global_loc(ValLoc { val: 2.5, loc: 3 }, 100);
/// assert_eq!(g.loc, 103);
/// assert_eq!(rokkos_mpi::global_loc(ValLoc { val: 0.0, loc: usize::MAX }, 100).loc, usize::MAX);
/// ```
pub fn global_loc<T>(v: ValLoc<T>, offset: usize) -> ValLoc<T> {
    ValLoc {
        val: v.val,
        loc: if v.loc == usize::MAX {
            v.loc
        } else {
            v.loc + offset
        },
    }
}

impl Communicator {
    /// Joins every rank's `value` with `reducer` and returns the result on every rank: the
    /// values are gathered (`MPI_Allgather`) and folded in rank order, rank 0's first, with the
    /// reducer's own `join`, so every rank gets the same bits, the reducer's semantics hold
    /// exactly (NaN rules of `Min`/`Max`, first location of `MinLoc`/`MaxLoc` given global
    /// locations: [`global_loc`]), and any `Reducer`, tuples included, works. It moves
    /// `size()` values to every rank: meant for the scalar results of `parallel_reduce`. A
    /// reducer's final hook (`with_final`) runs once, on the global result (so a rank's own
    /// `parallel_reduce` should use the reducer without it).
    ///
    /// ```
    /// use rokkos_core::{MaxLoc, Sum, ValLoc};
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let (me, p) = (world.rank(), world.size());
    /// let total = world.allreduce_value(me as u64 + 1, &Sum).unwrap();
    /// assert_eq!(total, (p * (p + 1) / 2) as u64);
    /// let best = world.allreduce_value((ValLoc { val: me as f64, loc: me }, 1.0f64), &(MaxLoc, Sum)).unwrap();
    /// assert_eq!(best.0.loc, p - 1);
    /// assert_eq!(best.1, p as f64);
    /// ```
    pub fn allreduce_value<V: Wire, Rd: Reducer<V>>(&self, value: V, reducer: &Rd) -> Result<V> {
        let call = "allreduce_value";
        let mut mine = Vec::with_capacity(V::WORDS);
        value.put(&mut mine);
        self.agree(
            call,
            "",
            Ok(()),
            [V::WORDS as i64 + 1000, V::WORDS as i64, 0],
        )?;
        let mut all = vec![0u64; V::WORDS * self.size()];
        // SAFETY: `WORDS` words sent by every rank, `size() * WORDS` received.
        let code = unsafe {
            ffi::MPI_Allgather(
                mine.as_ptr() as *const _,
                V::WORDS as c_int,
                ffi::RSMPI_UINT64_T,
                all.as_mut_ptr() as *mut _,
                V::WORDS as c_int,
                ffi::RSMPI_UINT64_T,
                self.raw,
            )
        };
        self.check(code, call, "")?;
        let mut it = all.iter();
        let mut acc = V::take(&mut it);
        for _ in 1..self.size() {
            reducer.join(&mut acc, V::take(&mut it));
        }
        // A final hook (`with_final`) runs once, on the global value.
        rokkos_core::reducer::finalize(reducer, &mut acc);
        Ok(acc)
    }

    /// A floating-point sum whose bits depend only on the sequence of partial sums, not on how
    /// it is spread over ranks: every rank passes its partials (e.g. one per fixed block of
    /// global indices, blocks in global order), the partials of all ranks are gathered in rank
    /// order (`MPI_Allgatherv`) and summed on every rank by one fixed pairwise tree over the
    /// whole sequence. So the same global sequence of partials gives the same bits on 1, 2, 4
    /// or any number of ranks, and every rank gets the same value. The promise holds when the
    /// per-rank partials themselves do not depend on the rank count (blocks of a size fixed
    /// independently of it, each summed the same way); with one partial per rank it holds only
    /// from run to run at a fixed rank count. Cost: every rank receives all partials (`O(total)`
    /// words, against `O(1)` for `MPI_Allreduce`) and adds them all (`O(total)` flops), plus one
    /// `MPI_Allgather` of the counts.
    ///
    /// ```
    /// # let mpi = rokkos_mpi::Mpi::init().unwrap();
    /// let world = mpi.world().unwrap();
    /// let (me, p) = (world.rank(), world.size());
    /// // 8 blocks in all, spread over the ranks in order.
    /// let mine: Vec<f64> = (0..8).filter(|b| b * p / 8 == me).map(|b| 0.1 * b as f64).collect();
    /// let s = world.deterministic_sum(&mine).unwrap();
    /// let alone = rokkos_mpi::pairwise_sum(&(0..8).map(|b| 0.1 * b as f64).collect::<Vec<_>>());
    /// assert_eq!(s.to_bits(), alone.to_bits());
    /// ```
    pub fn deterministic_sum<F: DetFloat>(&self, partials: &[F]) -> Result<F> {
        let call = "deterministic_sum";
        self.agree(call, "", Ok(()), [F::CODE, 1, 0])?;
        let n = c_int::try_from(partials.len())
            .map_err(|_| self.invalid(call, "more partials than MPI's count limit"))?;
        let mut counts = vec![0 as c_int; self.size()];
        // SAFETY: one int sent by every rank, `size()` received.
        let code = unsafe {
            ffi::MPI_Allgather(
                &n as *const c_int as *const _,
                1,
                ffi::RSMPI_INT32_T,
                counts.as_mut_ptr() as *mut _,
                1,
                ffi::RSMPI_INT32_T,
                self.raw,
            )
        };
        self.check(code, "MPI_Allgather", "")?;
        let mut displs = Vec::with_capacity(self.size());
        let mut total: usize = 0;
        for &c in &counts {
            displs.push(
                c_int::try_from(total).map_err(|_| {
                    self.invalid(call, "more partials in all than MPI's count limit")
                })?,
            );
            total += c as usize;
        }
        let mut all = vec![F::default(); total];
        // SAFETY: `n` elements sent, `counts[r]` at `displs[r]` received, inside `all`.
        let code = unsafe {
            ffi::MPI_Allgatherv(
                partials.as_ptr() as *const _,
                n,
                F::datatype(),
                all.as_mut_ptr() as *mut _,
                counts.as_ptr(),
                displs.as_ptr(),
                F::datatype(),
                self.raw,
            )
        };
        self.check(code, "MPI_Allgatherv", "")?;
        Ok(pairwise_sum(&all))
    }
}

/// The float types of [`Communicator::deterministic_sum`].
pub trait DetFloat: crate::datatype::Element + Default + std::ops::Add<Output = Self> {}
impl DetFloat for f32 {}
impl DetFloat for f64 {}

/// The fixed pairwise tree [`Communicator::deterministic_sum`] adds with: the sum of `x[a..b]`
/// is the sum of its first `2^k` elements plus the rest, `2^k` the largest power of two below
/// `b - a`; `0` for an empty slice.
///
/// ```
/// assert_eq!(rokkos_mpi::pairwise_sum(&[1.0f64, 2.0, 3.0]), (1.0 + 2.0) + 3.0);
/// ```
pub fn pairwise_sum<F: DetFloat>(x: &[F]) -> F {
    match x.len() {
        0 => F::default(),
        1 => x[0],
        n => {
            let m = if n.is_power_of_two() {
                n / 2
            } else {
                n.next_power_of_two() / 2
            };
            let (a, b) = x.split_at(m);
            pairwise_sum(a) + pairwise_sum(b)
        }
    }
}
