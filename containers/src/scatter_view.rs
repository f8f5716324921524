//! [`ScatterView`]: many work items add (or multiply, or take the minimum or maximum) into one
//! array at indices they do not own (Kokkos' `ScatterView`): a histogram, the forces of a
//! neighbour-list MD step, a map accumulated from time-ordered samples.
//!
//! A kernel takes it as a *contribution-only* parameter: `h: ScatterSum<T>` (rank 1) or
//! `ScatterSum<T, R>` for rank `R` up to 6 (`f: ScatterSum<f64, 2>` at `(i, c)`,
//! `g: ScatterSum<u32, 3>` at `(i, j, k)`), and `ScatterProd`, `ScatterMin`, `ScatterMax` for the
//! other operations. The kernel contributes with the operation's method at any index, with no
//! `unsafe`: `h.atomic_add(idx, v)` / `h.atomic_sub(idx, v)` for a sum, `h.atomic_mul(idx, v)`,
//! `h.atomic_min(idx, v)`, `h.atomic_max(idx, v)`. It may not read the ScatterView or write it
//! plainly (`#[kernel]` refuses it at compile time): the values exist only once the copies are
//! combined, by [`ScatterView::contribute_into`], which applies them to a target View of any
//! layout (adding to what it holds, as Kokkos does). [`ScatterView::reset`] starts over.
//!
//! A ScatterView can also be made over a View of yours ([`ScatterView::from_view`], Kokkos'
//! `ScatterView(v)`): that View is its first copy, and Kokkos' round `reset_except(v)`, launch,
//! `contribute(v, sv)` is [`ScatterView::reset_except`], the launch, and `contribute_into(&v)`.
//!
//! How contributions are made, per backend (the rokkos-core `scatter` module has the details):
//! on rayon each thread contributes plainly into a copy of its own (`concurrency + 1` copies,
//! the last one updated atomically by any thread beyond the space's concurrency); on serial into
//! the one copy, plainly; on the IR evaluator, wgpu and CUDA as the IR's atomics on one copy.
//! Integer results are the same on every backend; floating-point sums differ by rounding only
//! (the order of additions differs).
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos::Sum;
//! use rokkos_containers::ScatterView;
//!
//! /// Bins samples in `[0, 1)` into `hist`.
//! #[kernel]
//! fn bin(i: usize, x: View<f64>, hist: ScatterSum<u32>, bins: usize) {
//!     let b = (x[i] * bins as f64) as usize;
//!     hist.atomic_add(b.min(bins - 1), 1);
//! }
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let x = View::<f64>::from_vec("x", [6], vec![0.1, 0.2, 0.25, 0.9, 0.95, 0.99])?;
//! let x = create_mirror_view_and_copy_in(&dev, &x)?;
//! let hist = ScatterView::<u32, 1, Sum, _>::new(&dev, "hist", [4])?;
//! parallel_for("bin", RangePolicy::new(&dev, 0..6), bin(&x, &hist, 4))?;
//! let counts = DeviceView::<u32>::new_on(&dev, "counts", [4])?;
//! hist.contribute_into(&counts)?;
//! assert_eq!(create_mirror_view_and_copy(&counts)?.to_vec(), [2, 1, 0, 3]);
//! # Ok(()) }
//! ```

use rokkos::ir::build::IrNum;
use rokkos::scatter::{ScatterOp, ScatterStorage};
use rokkos::{
    func, kernel, parallel_for, AtomicScalar, Error, ExecutionSpace, Layout, LayoutRight,
    MDRangePolicy, Pod, RangePolicy, Result, Scalar, View,
};

mod sealed {
    pub trait Sealed {}
}

/// A rank as a type, for [`ScatterRank`]: `Rank<3>` is rank 3.
///
/// ```
/// use rokkos_containers::scatter_view::{Rank, ScatterRank};
/// fn supported<const R: usize>() -> usize where Rank<R>: ScatterRank<R> { R }
/// assert_eq!(supported::<3>(), 3);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Rank<const R: usize>;

/// The ranks a [`ScatterView`] has: 1 to 6, those of a work index (`usize`, or a tuple of 2 to
/// 6 for an `MDRangePolicy`), over which its copies are combined. `ScatterView<T, R, ..>` of
/// another rank does not compile. Sealed: implemented for `Rank<1>` to `Rank<6>` only.
///
/// ```
/// use rokkos_containers::scatter_view::{Rank, ScatterRank};
/// assert_eq!(<Rank<6> as ScatterRank<6>>::RANK, 6);
/// ```
#[diagnostic::on_unimplemented(
    message = "a ScatterView has rank 1 to 6, not {R}",
    label = "rank {R} here",
    note = "the copies are combined over a work index of the ScatterView's rank: `usize`, or an MDRangePolicy's tuple of 2 to 6"
)]
pub trait ScatterRank<const R: usize>: sealed::Sealed {
    /// The rank, `R`.
    const RANK: usize = R;

    /// Combines the copies into `dst`, each element read once, combined with the copies in copy
    /// order and written once; `with_first == false` leaves copy 0 out (it is `dst`, and
    /// `first` is a placeholder that is not read).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn __combine<T, L, E>(
        space: &E,
        dst: &View<T, R, L, E::Memory>,
        first: &View<T, R, LayoutRight, E::Memory>,
        rest: &View<T, 1, LayoutRight, E::Memory>,
        with_first: bool,
        copies: usize,
        op: u32,
    ) -> Result<()>
    where
        T: Pod + Scalar + AtomicScalar + IrNum,
        L: Layout,
        E: ExecutionSpace;
}

/// The work a rank-1 combine runs over.
fn range_of<E: ExecutionSpace>(space: &E, [e0]: [usize; 1]) -> RangePolicy<E> {
    RangePolicy::new(space, 0..e0)
}

/// The work a combine of rank 2 or more runs over.
fn md_of<E: ExecutionSpace, const R: usize>(space: &E, e: [usize; R]) -> MDRangePolicy<E, R> {
    MDRangePolicy::new(space, [0; R], e)
}

/// The strides of a row-major array of extents `e`: how the copies after the first are laid out.
fn row_major<const R: usize>(e: [usize; R]) -> [usize; R] {
    let mut s = [1usize; R];
    for k in (0..R.saturating_sub(1)).rev() {
        s[k] = s[k + 1] * e[k + 1];
    }
    s
}

/// One combining kernel and its [`ScatterRank`] implementation per rank, from one body: the rank,
/// the kernel's name, its work index pattern and type (also the index of `dst` and `first`),
/// the index names with the row-major stride of each, and the policy.
macro_rules! scatter_ranks {
    ($($r:literal: $name:ident, $work:tt: $wty:tt, [$($ix:ident * $s:ident),+], $policy:ident;)+) => {$(
        /// Combines every copy of a ScatterView of this rank into `dst` with operation `op` (0:
        /// add, 1: multiply, 2: minimum, 3: maximum). Each element is its work item's own: it
        /// is read once, combined with the copies in copy order (as the atomics of a single copy
        /// would store them, so a result does not depend on how work was scheduled) and written
        /// once. Copy 0 is `first` (left out when `with_first == 0`: it is `dst`), copy `c >= 1`
        /// the `c - 1`-th row-major block of `n` elements of `rest`.
        #[kernel]
        fn $name<T: AtomicScalar + Scalar + IrNum>(
            $work: $wty,
            dst: ViewMut<T, $r>,
            first: View<T, $r>,
            rest: View<T>,
            with_first: u32,
            copies: usize,
            n: usize,
            $($s: usize,)+
            op: u32,
        ) {
            let at = 0 $(+ $ix * $s)+;
            let mut acc = dst[$work];
            if with_first != 0 {
                acc = combined(acc, first[$work], op);
            }
            let mut c: usize = 1;
            while c < copies {
                acc = combined(acc, rest[(c - 1) * n + at], op);
                c += 1;
            }
            dst[$work] = acc;
        }

        impl sealed::Sealed for Rank<$r> {}

        impl ScatterRank<$r> for Rank<$r> {
            fn __combine<T, L, E>(
                space: &E,
                dst: &View<T, $r, L, E::Memory>,
                first: &View<T, $r, LayoutRight, E::Memory>,
                rest: &View<T, 1, LayoutRight, E::Memory>,
                with_first: bool,
                copies: usize,
                op: u32,
            ) -> Result<()>
            where
                T: Pod + Scalar + AtomicScalar + IrNum,
                L: Layout,
                E: ExecutionSpace,
            {
                let e = dst.extents();
                let [$($s),+] = row_major(e);
                parallel_for(
                    "ScatterView::contribute_into",
                    $policy(space, e),
                    $name(dst, first, rest, u32::from(with_first), copies, dst.size(), $($s,)+ op),
                )
            }
        }
    )+};
}

scatter_ranks! {
    1: combine_rank_1, i: usize, [i * s0], range_of;
    2: combine_rank_2, (i, j): (usize, usize), [i * s0, j * s1], md_of;
    3: combine_rank_3, (i, j, k): (usize, usize, usize), [i * s0, j * s1, k * s2], md_of;
    4: combine_rank_4, (i, j, k, l): (usize, usize, usize, usize),
        [i * s0, j * s1, k * s2, l * s3], md_of;
    5: combine_rank_5, (i, j, k, l, m): (usize, usize, usize, usize, usize),
        [i * s0, j * s1, k * s2, l * s3, m * s4], md_of;
    6: combine_rank_6, (i, j, k, l, m, o): (usize, usize, usize, usize, usize, usize),
        [i * s0, j * s1, k * s2, l * s3, m * s4, o * s5], md_of;
}

/// `acc` combined with `x` by operation `op` (codes as in [`combine_rank_1`]), as the operation's
/// atomic stores it: integer sums and products wrap, and a floating-point minimum or maximum
/// keeps `acc` unless `x` is strictly smaller or larger (a NaN contribution never wins).
#[func]
fn combined<T: AtomicScalar + Scalar + IrNum>(acc: T, x: T, op: u32) -> T {
    let mut r = acc;
    if op == 0 {
        r = acc.wrapping_add(x);
    } else if op == 1 {
        r = acc.wrapping_mul(x);
    } else if op == 2 {
        if x < acc {
            r = x;
        }
    } else if x > acc {
        r = x;
    }
    r
}

/// Sets every element of `v` to `x`: the copies' reset, in parallel on the ScatterView's space.
#[kernel]
fn fill_k<T: AtomicScalar + Scalar + IrNum>(i: usize, v: ViewMut<T>, x: T) {
    v[i] = x;
}

/// A scatter-contribution array on execution space `E`, of rank `R` (1 to 6: [`ScatterRank`])
/// and operation `Op` ([`rokkos::Sum`], [`rokkos::Prod`], [`rokkos::Min`], [`rokkos::Max`]); see
/// the [module documentation](self).
///
/// A `&ScatterView` is passed to a kernel's constructor where the kernel takes `ScatterSum<T>`
/// (or the operation's parameter type): it derefs to the storage the kernel binds. Clones share
/// the copies.
///
/// ```
/// use rokkos::prelude::*;
/// use rokkos::Max;
/// use rokkos_containers::ScatterView;
///
/// /// The largest value seen per key.
/// #[kernel]
/// fn top(i: usize, key: View<u32>, val: View<i64>, best: ScatterMax<i64>) {
///     best.atomic_max(key[i] as usize, val[i]);
/// }
///
/// # fn main() -> rokkos::Result<()> {
/// let dev = Device::new()?;
/// let key = create_mirror_view_and_copy_in(&dev, &View::<u32>::from_vec("key", [5], vec![0, 1, 0, 1, 2])?)?;
/// let val = create_mirror_view_and_copy_in(&dev, &View::<i64>::from_vec("val", [5], vec![5, -3, 9, -7, 1])?)?;
/// let best = ScatterView::<i64, 1, Max, _>::new(&dev, "best", [3])?;
/// parallel_for("top", RangePolicy::new(&dev, 0..5), top(&key, &val, &best))?;
/// let out = DeviceView::<i64>::new_on(&dev, "out", [3])?;
/// best.contribute_into(&out)?; // max(0, ...) per key
/// assert_eq!(create_mirror_view_and_copy(&out)?.to_vec(), [9, 0, 1]);
/// # Ok(()) }
/// ```
pub struct ScatterView<T: Pod, const R: usize, Op, E: ExecutionSpace> {
    storage: ScatterStorage<T, R, Op, E::Memory>,
    space: E,
}

impl<T: Pod, const R: usize, Op, E: ExecutionSpace> Clone for ScatterView<T, R, Op, E> {
    fn clone(&self) -> Self {
        ScatterView {
            storage: self.storage.clone(),
            space: self.space.clone(),
        }
    }
}

impl<T: Pod, const R: usize, Op, E: ExecutionSpace> std::fmt::Debug for ScatterView<T, R, Op, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScatterView")
            .field("space", &self.space.name())
            .field("storage", &self.storage)
            .finish()
    }
}

impl<T: Pod, const R: usize, Op, E: ExecutionSpace> std::ops::Deref for ScatterView<T, R, Op, E> {
    type Target = ScatterStorage<T, R, Op, E::Memory>;
    fn deref(&self) -> &Self::Target {
        &self.storage
    }
}

/// The operation's code in the combining kernels.
fn op_code<Op: ScatterOp>() -> u32 {
    match Op::NAME {
        "Sum" => 0,
        "Prod" => 1,
        "Min" => 2,
        _ => 3,
    }
}

impl<T, const R: usize, Op, E> ScatterView<T, R, Op, E>
where
    T: Pod + Scalar + AtomicScalar + IrNum,
    Op: ScatterOp,
    E: ExecutionSpace,
    Rank<R>: ScatterRank<R>,
{
    /// A ScatterView of `extents` on `space`, every element at the operation's identity (0 for a
    /// sum, 1 for a product, the type's largest value for a minimum, its lowest for a maximum).
    /// `Err(OutOfMemory)` when the copies do not fit.
    ///
    /// ```
    /// use rokkos::{Serial, Sum};
    /// use rokkos_containers::ScatterView;
    /// let h = ScatterView::<f64, 2, Sum, _>::new(&Serial, "forces", [10, 3])?;
    /// assert_eq!((h.extents(), h.copies()), ([10, 3], 1));
    /// let g = ScatterView::<u32, 3, Sum, _>::new(&Serial, "grid", [4, 5, 6])?;
    /// assert_eq!(g.extents(), [4, 5, 6]);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn new(space: &E, label: &str, extents: [usize; R]) -> Result<Self> {
        Ok(ScatterView {
            storage: ScatterStorage::new(space, label, extents)?,
            space: space.clone(),
        })
    }

    /// A ScatterView whose first copy *is* `view` (Kokkos' `ScatterView(original_view)`): the
    /// contributions of a launch go partly straight into `view` (on serial and device backends,
    /// where there is one copy, all of them), the other copies start at the operation's
    /// identity, and `view` keeps the values it holds. The round Kokkos writes as
    /// `reset_except(v)`, a launch, `contribute(v, sv)` then leaves `view` holding its old
    /// values combined with the round's contributions, on every backend:
    /// [`ScatterView::reset_except`] with `view` before the launch, and
    /// [`ScatterView::contribute_into`] `view` after it (which combines only the other copies
    /// into it, since copy 0 already is it).
    ///
    /// Contributing into any other View combines every copy, `view`'s values among them; and
    /// [`ScatterView::reset`] sets `view` to the identity too. While the ScatterView lives,
    /// `view` is shared with it: a launch that takes both, or a host guard on `view` during a
    /// launch on the ScatterView, is `Err(Aliasing)`.
    ///
    /// `view` must be row-major (the strides of a `LayoutRight` View of its extents, as every
    /// `LayoutRight` and every contiguous rank-1 View has), since the copies are:
    /// `Err(ShapeMismatch)` naming it otherwise (make the ScatterView with
    /// [`ScatterView::new`] and `contribute_into` a View of another layout).
    /// `Err(OutOfMemory)` when the other copies do not fit.
    ///
    /// ```
    /// use rokkos::prelude::*;
    /// use rokkos::Sum;
    /// use rokkos_containers::ScatterView;
    ///
    /// #[kernel]
    /// fn spread(i: usize, f: ScatterSum<i64, 3>) {
    ///     f.atomic_add((i % 2, 0, i % 3), 1);
    /// }
    /// # fn main() -> rokkos::Result<()> {
    /// let space = Rayon::new();
    /// let f = View::<i64, 3>::from_vec("f", [2, 1, 3], vec![10; 6])?;
    /// let sv = ScatterView::<i64, 3, Sum, _>::from_view(&space, &f)?;
    /// for _round in 0..2 {
    ///     sv.reset_except(&f)?;
    ///     parallel_for("spread", RangePolicy::new(&space, 0..12), spread(&sv))?;
    ///     sv.contribute_into(&f)?;
    /// }
    /// assert_eq!(f.to_vec(), [14; 6]); // 10, and 2 from each of two rounds
    /// # Ok(()) }
    /// ```
    pub fn from_view<L: Layout>(space: &E, view: &View<T, R, L, E::Memory>) -> Result<Self> {
        Ok(ScatterView {
            storage: ScatterStorage::over(space, view)?,
            space: space.clone(),
        })
    }

    /// Sets every element back to the operation's identity: the contributions so far are dropped
    /// (Kokkos' `reset`). On a ScatterView [made over a View](ScatterView::from_view) that View
    /// is reset too (it is the first copy); [`ScatterView::reset_except`] keeps it.
    /// `Err(Aliasing)` while a launch or a host guard uses the ScatterView.
    ///
    /// ```
    /// use rokkos::{Serial, Sum, View};
    /// use rokkos_containers::ScatterView;
    /// let h = ScatterView::<i32, 1, Sum, _>::new(&Serial, "h", [2])?;
    /// h.reset()?;
    /// let out = View::<i32>::from_vec("out", [2], vec![4, 5])?;
    /// h.contribute_into(&out)?;
    /// assert_eq!(out.to_vec(), [4, 5]);
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn reset(&self) -> Result<()> {
        self.first().fill(Op::identity::<T>())?;
        self.reset_rest()
    }

    /// Resets every copy except the one that is `keep` (Kokkos' `reset_except(v)`): `keep` must
    /// be the View the ScatterView was [made over](ScatterView::from_view) (or a handle of its
    /// first copy, [`ScatterStorage::first`], which that View is), and keeps its values; the
    /// other copies go back to the operation's identity. So contributions that follow combine
    /// with what `keep` holds, and [`ScatterView::contribute_into`] `keep` completes the round.
    ///
    /// Unlike Kokkos, which resets every copy when `keep` is no copy of the ScatterView, any
    /// other View (another allocation, or another part of the same one) is
    /// `Err(InvalidArgument)` naming both, and nothing is reset: a ScatterView made with
    /// [`ScatterView::new`] aliases no View of yours, so call [`ScatterView::reset`] there.
    /// `Err(Aliasing)` while a launch or a host guard uses the copies.
    ///
    /// ```
    /// use rokkos::{Serial, Max, View};
    /// use rokkos_containers::ScatterView;
    /// let best = View::<i32, 2>::from_vec("best", [1, 2], vec![3, -1])?;
    /// let sv = ScatterView::<i32, 2, Max, _>::from_view(&Serial, &best)?;
    /// sv.reset_except(&best)?;
    /// assert_eq!(best.to_vec(), [3, -1]); // kept
    /// let other = View::<i32, 2>::new("other", [1, 2])?;
    /// assert!(sv.reset_except(&other).is_err());
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn reset_except<L: Layout>(&self, keep: &View<T, R, L, E::Memory>) -> Result<()> {
        if !self.first_is(keep) {
            return Err(Error::InvalidArgument(format!(
                "ScatterView `{}`: reset_except(`{}`) keeps the View the ScatterView was made over (`ScatterView::from_view`), and `{}` (extents {:?}) is not it: {}",
                self.label(),
                keep.label(),
                keep.label(),
                keep.extents(),
                if keep.shares_allocation_with(self.first()) {
                    "it addresses other elements of that View's allocation"
                } else {
                    "it is another allocation (call `reset` to reset every copy)"
                }
            )));
        }
        self.reset_rest()
    }

    /// The copies after the first back to the identity, by the threads of the space: on rayon
    /// they are most of the memory.
    fn reset_rest(&self) -> Result<()> {
        let m = self.rest().size();
        if m == 0 {
            return Ok(());
        }
        parallel_for(
            "ScatterView::reset",
            RangePolicy::new(&self.space, 0..m),
            fill_k(self.rest(), Op::identity::<T>()),
        )
    }

    /// The space the ScatterView's kernels run on.
    ///
    /// ```
    /// use rokkos::{ExecutionSpace, Serial, Sum};
    /// use rokkos_containers::ScatterView;
    /// let h = ScatterView::<u64, 1, Sum, _>::new(&Serial, "h", [1])?;
    /// assert_eq!(h.space().name(), "serial");
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn space(&self) -> &E {
        &self.space
    }

    /// Applies the contributions to `dst`, a View of the ScatterView's extents in any layout
    /// (Kokkos' `contribute_into`): each element becomes `dst op contribution`, so a sum adds to
    /// what `dst` holds. When `dst` is the View the ScatterView was
    /// [made over](ScatterView::from_view), which is the first copy, the other copies are
    /// combined into it (with one copy, as on devices, there is nothing to do). The ScatterView
    /// keeps its contributions (call [`ScatterView::reset`] or [`ScatterView::reset_except`] to
    /// start over). `Err(ShapeMismatch)` for other extents, `Err(Aliasing)` when `dst` is busy
    /// or shares memory with the copies otherwise; `dst` is untouched then.
    ///
    /// ```
    /// use rokkos::prelude::*;
    /// use rokkos::Sum;
    /// use rokkos_containers::ScatterView;
    ///
    /// #[kernel]
    /// fn count(i: usize, h: ScatterSum<u64>) {
    ///     h.atomic_add(i % 3, 1);
    /// }
    /// # fn main() -> rokkos::Result<()> {
    /// let h = ScatterView::<u64, 1, Sum, _>::new(&Rayon::new(), "h", [3])?;
    /// parallel_for("count", RangePolicy::new(h.space(), 0..10), count(&h))?;
    /// let out = View::<u64>::from_vec("out", [3], vec![100, 0, 0])?;
    /// h.contribute_into(&out)?;
    /// assert_eq!(out.to_vec(), [104, 3, 3]);
    /// # Ok(()) }
    /// ```
    ///
    /// Rank 2 (forces `[n, 3]`) and rank 3 (a grid), into a column-major target:
    ///
    /// ```
    /// use rokkos::prelude::*;
    /// use rokkos::Sum;
    /// use rokkos_containers::ScatterView;
    ///
    /// /// Work item `i` pushes particle `i + 1` by +1 and itself by -1 along `x`.
    /// #[kernel]
    /// fn push(i: usize, f: ScatterSum<f64, 2>) {
    ///     f.atomic_add((i + 1, 0), 1.0);
    ///     f.atomic_sub((i, 0), 1.0);
    /// }
    /// /// Deposits one unit per sample `i` in cell `i % 24` of a `[2, 3, 4]` grid.
    /// #[kernel]
    /// fn deposit(i: usize, g: ScatterSum<u32, 3>) {
    ///     g.atomic_add(((i / 12) % 2, (i / 4) % 3, i % 4), 1);
    /// }
    /// # fn main() -> rokkos::Result<()> {
    /// let f = ScatterView::<f64, 2, Sum, _>::new(&Rayon::new(), "f", [4, 3])?;
    /// parallel_for("push", RangePolicy::new(f.space(), 0..3), push(&f))?;
    /// let out = View::<f64, 2>::new("out", [4, 3])?;
    /// f.contribute_into(&out)?;
    /// let x: Vec<f64> = out.to_vec().chunks(3).map(|r| r[0]).collect();
    /// assert_eq!(x, [-1.0, 0.0, 0.0, 1.0]);
    ///
    /// let g = ScatterView::<u32, 3, Sum, _>::new(&Rayon::new(), "g", [2, 3, 4])?;
    /// parallel_for("deposit", RangePolicy::new(g.space(), 0..48), deposit(&g))?;
    /// let cells = View::<u32, 3, LayoutLeft>::new("cells", [2, 3, 4])?;
    /// g.contribute_into(&cells)?;
    /// assert_eq!(cells.to_vec(), [2; 24]); // 48 samples, each cell twice
    /// # Ok(()) }
    /// ```
    pub fn contribute_into<L: Layout>(&self, dst: &View<T, R, L, E::Memory>) -> Result<()> {
        if dst.extents() != self.extents() {
            return Err(Error::ShapeMismatch {
                what: format!(
                    "ScatterView `{}` of extents {:?} contributed into View `{}` of extents {:?}",
                    self.label(),
                    self.extents(),
                    dst.label(),
                    dst.extents()
                ),
            });
        }
        let op = op_code::<Op>();
        if !self.first_is(dst) {
            return Rank::<R>::__combine(
                &self.space,
                dst,
                self.first(),
                self.rest(),
                true,
                self.copies(),
                op,
            );
        }
        if self.copies() == 1 {
            return Ok(());
        }
        // `dst` is copy 0: the kernel does not read `first`, which may not alias `dst` (a launch
        // refuses a View bound writable and read-only at once), so an empty View stands in.
        let unused = View::new_in(
            self.first().memory_space(),
            "(copy 0 is the target)",
            [0; R],
        )?;
        Rank::<R>::__combine(
            &self.space,
            dst,
            &unused,
            self.rest(),
            false,
            self.copies(),
            op,
        )
    }
}
