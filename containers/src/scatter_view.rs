//! [`ScatterView`]: many work items add (or multiply, or take the minimum or maximum) into one
//! array at indices they do not own (Kokkos' `ScatterView`): a histogram, the forces of a
//! neighbour-list MD step, a map accumulated from time-ordered samples.
//!
//! A kernel takes it as a *contribution-only* parameter: `h: ScatterSum<T>` (rank 1) or
//! `ScatterSum<T, 2>`, and `ScatterProd`, `ScatterMin`, `ScatterMax` for the other operations.
//! The kernel contributes with the operation's method at any index, with no `unsafe`:
//! `h.atomic_add(idx, v)` / `h.atomic_sub(idx, v)` for a sum, `h.atomic_mul(idx, v)`,
//! `h.atomic_min(idx, v)`, `h.atomic_max(idx, v)`. It may not read the ScatterView or write it
//! plainly (`#[kernel]` refuses it at compile time): the values exist only once the copies are
//! combined, by [`ScatterView::contribute_into`], which applies them to a target View (adding to
//! what it holds, as Kokkos does). [`ScatterView::reset`] starts over.
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
    func, kernel, parallel_for, AtomicScalar, Error, ExecutionSpace, Layout, MDRangePolicy, Pod,
    RangePolicy, Result, Scalar, View,
};

/// Combines every copy of a rank-1 ScatterView into `dst` with operation `op` (0: add, 1:
/// multiply, 2: minimum, 3: maximum). Each element is its work item's own: it is read once,
/// combined with the copies in copy order (as the atomics of a single copy would store them, so
/// a result does not depend on how work was scheduled) and written once.
#[kernel]
fn combine_1<T: AtomicScalar + Scalar + IrNum>(
    i: usize,
    dst: ViewMut<T>,
    first: View<T>,
    rest: View<T>,
    extra: usize,
    n: usize,
    op: u32,
) {
    let mut acc = dst[i];
    let mut c: usize = 0;
    while c <= extra {
        let mut x = first[i];
        if c > 0 {
            x = rest[(c - 1) * n + i];
        }
        acc = combined(acc, x, op);
        c += 1;
    }
    dst[i] = acc;
}

/// [`combine_1`] for rank 2 (the copies row-major, `e1` columns).
#[kernel]
fn combine_2<T: AtomicScalar + Scalar + IrNum>(
    (i, j): (usize, usize),
    dst: ViewMut<T, 2>,
    first: View<T, 2>,
    rest: View<T>,
    extra: usize,
    n: usize,
    e1: usize,
    op: u32,
) {
    let mut acc = dst[(i, j)];
    let mut c: usize = 0;
    while c <= extra {
        let mut x = first[(i, j)];
        if c > 0 {
            x = rest[(c - 1) * n + i * e1 + j];
        }
        acc = combined(acc, x, op);
        c += 1;
    }
    dst[(i, j)] = acc;
}

/// `acc` combined with `x` by operation `op` (codes as in [`combine_1`]), as the operation's
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

/// A scatter-contribution array on execution space `E`, of rank `R` (1 or 2) and operation `Op`
/// ([`rokkos::Sum`], [`rokkos::Prod`], [`rokkos::Min`], [`rokkos::Max`]); see the
/// [module documentation](self).
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
    /// # Ok::<(), rokkos::Error>(())
    /// ```
    pub fn new(space: &E, label: &str, extents: [usize; R]) -> Result<Self> {
        Ok(ScatterView {
            storage: ScatterStorage::new(space, label, extents)?,
            space: space.clone(),
        })
    }

    /// Sets every element back to the operation's identity: the contributions so far are dropped
    /// (Kokkos' `reset`). `Err(Aliasing)` while a launch or a host guard uses the ScatterView.
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
        let id = Op::identity::<T>();
        self.first().fill(id)?;
        // The per-thread copies (all but the first) are reset by the threads of the space, as
        // they are combined: on rayon they are most of the memory.
        let m = self.rest().size();
        if m == 0 {
            return Ok(());
        }
        parallel_for(
            "ScatterView::reset",
            RangePolicy::new(&self.space, 0..m),
            fill_k(self.rest(), id),
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

    fn check_shape(&self, dst: [usize; R]) -> Result<()> {
        if dst != self.extents() {
            return Err(Error::ShapeMismatch {
                what: format!(
                    "ScatterView `{}` of extents {:?} contributed into a View of extents {dst:?}",
                    self.label(),
                    self.extents()
                ),
            });
        }
        Ok(())
    }
}

impl<T, Op, E> ScatterView<T, 1, Op, E>
where
    T: Pod + Scalar + AtomicScalar + IrNum,
    Op: ScatterOp,
    E: ExecutionSpace,
{
    /// Applies the contributions to `dst` (Kokkos' `contribute_into`): each element becomes
    /// `dst op contribution`, so a sum adds to what `dst` holds. The ScatterView keeps its
    /// contributions (call [`ScatterView::reset`] to start over). `Err(ShapeMismatch)` for
    /// other extents, `Err(Aliasing)` when `dst` is busy; `dst` is untouched then.
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
    pub fn contribute_into<L: Layout>(&self, dst: &View<T, 1, L, E::Memory>) -> Result<()> {
        self.check_shape(dst.extents())?;
        let n = self.extents()[0];
        parallel_for(
            "ScatterView::contribute_into",
            RangePolicy::new(&self.space, 0..n),
            combine_1(
                dst,
                self.first(),
                self.rest(),
                self.copies() - 1,
                n,
                op_code::<Op>(),
            ),
        )
    }
}

impl<T, Op, E> ScatterView<T, 2, Op, E>
where
    T: Pod + Scalar + AtomicScalar + IrNum,
    Op: ScatterOp,
    E: ExecutionSpace,
{
    /// [`ScatterView::contribute_into`] for a rank-2 ScatterView (forces `[n, 3]`, ...).
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
    /// # fn main() -> rokkos::Result<()> {
    /// let f = ScatterView::<f64, 2, Sum, _>::new(&Rayon::new(), "f", [4, 3])?;
    /// parallel_for("push", RangePolicy::new(f.space(), 0..3), push(&f))?;
    /// let out = View::<f64, 2>::new("out", [4, 3])?;
    /// f.contribute_into(&out)?;
    /// let x: Vec<f64> = out.to_vec().chunks(3).map(|r| r[0]).collect();
    /// assert_eq!(x, [-1.0, 0.0, 0.0, 1.0]);
    /// # Ok(()) }
    /// ```
    pub fn contribute_into<L: Layout>(&self, dst: &View<T, 2, L, E::Memory>) -> Result<()> {
        self.check_shape(dst.extents())?;
        let [e0, e1] = self.extents();
        parallel_for(
            "ScatterView::contribute_into",
            MDRangePolicy::new(&self.space, [0, 0], [e0, e1]),
            combine_2(
                dst,
                self.first(),
                self.rest(),
                self.copies() - 1,
                e0 * e1,
                e1,
                op_code::<Op>(),
            ),
        )
    }
}
