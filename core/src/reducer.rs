//! Reducers: how partial results of a `parallel_reduce` (or a nested team reduction) combine.
//!
//! A reducer gives the identity (`init`) and a `join`. Several reducers at once are a tuple of
//! reducers over a tuple value, matching a kernel with several accumulators.
//!
//! # The same result on every backend, thread count and chunking
//!
//! A backend folds the work items into partial accumulators, each starting from `init()`, with the
//! kernel's own code, and joins the partials: serial and the IR evaluator fold everything into one
//! accumulator, rayon folds contiguous chunks and joins them in order (each chunk into four
//! interleaved accumulators when the reducer is [`Reducer::commutative`], as every built-in one
//! is: a single running sum is a chain of dependent adds slower than memory), wgpu folds
//! grid-strided items per invocation and joins them in a tree. A [`Custom`] reducer's join is
//! host code, so a device backend folds contiguous blocks and joins their partials in order on
//! the host instead (`rokkos_device::runtime::ordered`), as rayon does. The partition is the backend's, so a result can
//! only be partition-independent if the join does not care about the order or grouping of its
//! operands: every built-in join is **commutative and associative on every value, NaN and signed
//! zeros included** (up to which NaN comes out of two NaNs, whose payload Rust does not specify
//! either). Each reducer below says how it treats NaN, signed zeros and ties. The kernel's own
//! fold is user code, so what is partition-independent depends on it too. Exactly:
//!
//! - **Integers, `bool`, `LAnd`/`LOr`/`BAnd`/`BOr`, integer `Min`/`Max`/`MinMax` and the `Loc`
//!   reducers** (with a fold that, like the join, breaks ties of equal values by the smaller
//!   location: `if v < acc.val || (v == acc.val && i < acc.loc)`): the same bits everywhere.
//! - **Float `Min`, `Max`, `MinMax`**: the same bits everywhere when the fold combines a value
//!   as the join does (IEEE `minimum`: `if v < *acc || v != v || (v == *acc && v.signum() <
//!   (*acc).signum()) { *acc = v }`, `>` for `maximum`). The usual `if v < *acc { *acc = v }`,
//!   `*acc = acc.min(v)` and the NaN-propagating `if v < *acc || v != v` agree with it on every
//!   value but one: of equal zeros they keep the first, so **the sign of a zero extremum** (data
//!   holding both `0.0` and `-0.0`, and no smaller value) depends on the partition. NaN is
//!   partition-independent with all of them: a fold that ignores NaN never lets one into a
//!   partial, one that propagates it agrees with the join.
//! - **Float `Sum` and `Prod`**: rounding makes `+` and `*` non-associative, so results differ in
//!   the last bits between partitions (and a partial may overflow or underflow in one partition
//!   and not in another).
//! - **Integer `Sum` and `Prod` with overflow checks** (debug builds): see below; whether a
//!   reduction fails depends on the partition.
//!
//! A user-defined fold that is not associative (`*acc = *acc * 0.5 + v`) has no
//! partition-independent result at all.
//!
//! The joins follow IEEE 754-2019 `minimum` / `maximum` for `Min`, `Max` and `MinMax` (a NaN
//! partial wins, `-0.0 < 0.0`) rather than Rust's `f64::min` (which drops a NaN and leaves the
//! sign of a zero result open): dropping a NaN would make the result depend on whether the NaN
//! ended up alone in a partial (dropped by the join) or in a partial with other values (kept by a
//! kernel fold that propagates it), i.e. on the thread count; propagating it agrees with both
//! kinds of kernel folds. The `Loc` reducers order `(value, location)` pairs totally: a NaN value
//! beats every number, equal values (`-0.0 == 0.0`, and any two NaNs) go to the smaller location,
//! so the result is "the first index holding the extremum" whatever the partition, exactly what
//! a sequential fold with a strict comparison computes.
//!
//! Integer `Sum` and `Prod` joins wrap. With overflow checks (debug builds) the kernel's own `+=`
//! fails on overflow (`Err(KernelFailed)`), but whether a partial overflows depends on the
//! partition: serial folds every item into one accumulator, rayon one per chunk, a GPU one per
//! invocation, and the joins of partials wrap. So the same kernel on the same data can fail on
//! serial and succeed on rayon (a running sum that leaves the range and comes back), or the
//! other way round (a sum whose chunk partial overflows while serial's order never does). Only a
//! reduction whose every partial sum or product stays in range, in any grouping, is guaranteed
//! to give the same outcome everywhere; fold with `wrapping_add` / `wrapping_mul` to get the
//! same wrapped result on every backend and build instead.
//!
//! ```
//! use rokkos_core::{Reducer, Sum, MinLoc, ValLoc};
//! let mut a = Sum.init();
//! Sum.join(&mut a, 2.5f64);
//! assert_eq!(a, 2.5);
//! let mut m = MinLoc.init();
//! MinLoc.join(&mut m, ValLoc { val: 3i32, loc: 7 });
//! assert_eq!(m, ValLoc { val: 3, loc: 7 });
//! ```

use crate::scalar::{Bits, Scalar};
use std::fmt;

/// Identity and associative combination of partial results of type `T`.
///
/// A user reducer implements [`Reducer::init`] and [`Reducer::join`]; every backend then runs
/// that `join` itself, in iteration order (the path [`Custom`] documents). The two other methods
/// say what a backend may do *instead* of calling `join`: join on a device with a built-in
/// operation ([`Reducer::describe`]), or regroup and reorder the partials
/// ([`Reducer::commutative`]). A backend trusts those answers without checking them against
/// `join`, so only rokkos' own reducers give them: their last parameter is a type that code
/// outside `rokkos-core` cannot name, so another crate can neither override nor call them (ask
/// through [`describe_reducer`] and [`is_commutative`] instead). A user reducer whose `join`
/// takes the maximum therefore gets its maximum on every backend, whatever it is called.
pub trait Reducer<T>: Sync {
    /// The identity value every partial result starts from.
    fn init(&self) -> T;
    /// Folds `src` into `dst`.
    fn join(&self, dst: &mut T, src: T);
    /// For device backends, which join the partial results on the device: appends one
    /// [`JoinKind`] per accumulator and returns `true`, or returns `false` for a reducer whose join
    /// exists only as host code (the default: every reducer defined outside rokkos, and
    /// [`Custom`]). Overridden only inside rokkos-core (its last parameter);
    /// read it with [`describe_reducer`].
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        let _ = out;
        false
    }
    /// Whether `join` is commutative and associative (floats: up to rounding), so that a
    /// backend may group and order the work items' contributions as it likes: `true` for every
    /// built-in reducer and tuples of them. The default (every reducer defined outside rokkos,
    /// and [`Custom`]) is `false`: such a reducer's partials are folded from contiguous runs of
    /// work items and joined in iteration order. Overridden only inside rokkos-core; read it with
    /// [`is_commutative`].
    fn commutative(&self, _: sealed::Seal) -> bool {
        false
    }
    /// Whether the reducer has a final hook ([`WithFinal`]), run on the reduced value once the
    /// reduction is complete. Overridden only inside rokkos-core; read it with [`has_final`].
    fn has_final(&self, _: sealed::Seal) -> bool {
        false
    }
    /// Runs the final hook on the reduced `value` (nothing without one). Overridden only inside
    /// rokkos-core; call it with [`finalize`].
    fn finalize(&self, value: &mut T, _: sealed::Seal) {
        let _ = value;
    }
}

/// What keeps [`Reducer::describe`] and [`Reducer::commutative`] to rokkos-core's own reducers.
mod sealed {
    /// The last parameter of [`super::Reducer::describe`] and [`super::Reducer::commutative`]:
    /// public in a private module, so another crate can neither name it (to write an override)
    /// nor make one (to call them).
    pub struct Seal;
}

/// Whether a backend may regroup and reorder `reducer`'s joins ([`Reducer::commutative`]): `true`
/// for the built-in reducers and tuples of them, `false` for every other reducer, which is then
/// joined in iteration order.
///
/// ```
/// use rokkos_core::reducer::is_commutative;
/// use rokkos_core::{Custom, Max, Sum};
/// assert!(is_commutative::<f64, _>(&Sum));
/// assert!(is_commutative::<(f64, i32), _>(&(Sum, Max)));
/// assert!(!is_commutative(&Custom::new(0i32, |a: &mut i32, b| *a += b)));
/// ```
pub fn is_commutative<T, Rd: Reducer<T> + ?Sized>(reducer: &Rd) -> bool {
    reducer.commutative(sealed::Seal)
}

/// Whether `reducer` has a final hook ([`WithFinal`], also inside a tuple of reducers).
///
/// ```
/// use rokkos_core::reducer::has_final;
/// use rokkos_core::{Max, ReducerExt, Sum};
/// assert!(!has_final::<f64, _>(&Sum));
/// assert!(has_final::<(f64, i32), _>(&(Sum.with_final(|s: &mut f64| *s /= 2.0), Max)));
/// ```
pub fn has_final<T, Rd: Reducer<T> + ?Sized>(reducer: &Rd) -> bool {
    reducer.has_final(sealed::Seal)
}

/// Runs `reducer`'s final hook on the reduced `value` (nothing when it has none): what
/// `parallel_reduce` does once the reduction is complete, and what code that joins values with
/// a reducer itself (across MPI ranks, say) calls once at the end.
///
/// ```
/// use rokkos_core::reducer::finalize;
/// use rokkos_core::{Reducer, ReducerExt, Sum};
/// let norm = Sum.with_final(|s: &mut f64| *s = s.sqrt());
/// let mut acc = norm.init();
/// for x in [3.0f64, 4.0] {
///     norm.join(&mut acc, x * x);
/// }
/// finalize(&norm, &mut acc);
/// assert_eq!(acc, 5.0);
/// ```
pub fn finalize<T, Rd: Reducer<T> + ?Sized>(reducer: &Rd, value: &mut T) {
    reducer.finalize(value, sealed::Seal)
}

/// A reducer with a final hook (Kokkos' `final` member of a reduction functor or reducer):
/// `hook` runs on the host, once, on the reduced value, after every join and before the value
/// reaches the caller (`parallel_reduce`'s result, or the View of `parallel_reduce_into`, which
/// then waits for the value). Everything else is `reducer`'s: its identity, its join, and on a
/// device backend its device join, so a device still joins the partials itself. Made with
/// [`ReducerExt::with_final`]; a tuple of reducers runs each member's hook on its own value.
///
/// Scans refuse it (`Err(InvalidArgument)`): a scan's values are its prefixes, which a final
/// hook is not defined on. Nested reductions in kernels name their reducer (`Sum`, `Max`, ...),
/// so they have none.
///
/// ```
/// use rokkos_core::{Reducer, ReducerExt, Sum, Max};
/// let mean_of_4 = Sum.with_final(|s: &mut f64| *s /= 4.0);
/// let mut acc = mean_of_4.init();
/// for x in [1.0, 2.0, 3.0, 6.0] {
///     mean_of_4.join(&mut acc, x);
/// }
/// rokkos_core::reducer::finalize(&mean_of_4, &mut acc);
/// assert_eq!(acc, 3.0);
/// ```
#[derive(Clone, Copy)]
pub struct WithFinal<Rd, F> {
    reducer: Rd,
    hook: F,
}

impl<Rd: fmt::Debug, F> fmt::Debug for WithFinal<Rd, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WithFinal({:?})", self.reducer)
    }
}

impl<T, Rd: Reducer<T>, F: Fn(&mut T) + Sync> Reducer<T> for WithFinal<Rd, F> {
    fn init(&self) -> T {
        self.reducer.init()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        self.reducer.join(dst, src)
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        self.reducer.describe(out, sealed::Seal)
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        self.reducer.commutative(sealed::Seal)
    }
    fn has_final(&self, _: sealed::Seal) -> bool {
        true
    }
    fn finalize(&self, value: &mut T, _: sealed::Seal) {
        // An inner hook first: `r.with_final(f).with_final(g)` runs `f`, then `g`.
        self.reducer.finalize(value, sealed::Seal);
        (self.hook)(value)
    }
}

/// [`ReducerExt::with_final`] on every reducer.
pub trait ReducerExt: Sized {
    /// This reducer with the final hook `hook` ([`WithFinal`]).
    ///
    /// ```
    /// use rokkos_core::{ReducerExt, Sum};
    /// let norm = Sum.with_final(|s: &mut f64| *s = s.sqrt());
    /// # let _ = norm;
    /// ```
    fn with_final<F>(self, hook: F) -> WithFinal<Self, F> {
        WithFinal {
            reducer: self,
            hook,
        }
    }
}
impl<Rd> ReducerExt for Rd {}

/// Sum reducer (`+`, identity 0).
#[derive(Debug, Clone, Copy, Default)]
pub struct Sum;
/// Product reducer (`*`, identity 1).
#[derive(Debug, Clone, Copy, Default)]
pub struct Prod;
/// Minimum reducer (identity: highest value, `+inf` for floats).
///
/// Floats join by IEEE 754-2019 `minimum` ([`Scalar::minimum`]): a NaN partial makes the result
/// NaN, and `-0.0` is below `0.0`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Min;
/// Maximum reducer (identity: lowest value, `-inf` for floats).
///
/// Floats join by IEEE 754-2019 `maximum` ([`Scalar::maximum`]): a NaN partial makes the result
/// NaN, and `0.0` is above `-0.0`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Max;
/// Minimum with its location ([`ValLoc`]).
///
/// Joins keep the smaller value; a NaN value is smaller than every number (so a NaN that reaches a
/// partial wins); equal values (`-0.0 == 0.0`, two NaNs) keep the smaller location, so the result
/// is the first location of the minimum whatever the partition. Of two partials with equal values
/// and locations (only a kernel that stores its own locations can make them) the first joined stays.
///
/// The identity is `ValLoc { val: highest value, loc: usize::MAX }`, as in Kokkos: a kernel that
/// compares strictly (`if x < acc.val`) leaves `loc == usize::MAX` when every value equals the
/// identity (e.g. all `+inf`), and an empty range returns the identity.
#[derive(Debug, Clone, Copy, Default)]
pub struct MinLoc;
/// Maximum with its location ([`ValLoc`]): as [`MinLoc`] with the order reversed (a NaN value is
/// larger than every number; equal values keep the smaller location).
///
/// The identity is `ValLoc { val: lowest value, loc: usize::MAX }`: over unsigned data that is all
/// zero, a strictly comparing kernel returns `loc == usize::MAX`; compare with `>=` on the first
/// hit or check `loc` if that matters.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaxLoc;
/// Minimum and maximum at once ([`MinMaxVal`]): `min` joined as [`Min`], `max` as [`Max`].
#[derive(Debug, Clone, Copy, Default)]
pub struct MinMax;
/// Minimum and maximum with their locations at once ([`MinMaxLocVal`], Kokkos' `MinMaxLoc`):
/// `min_val`/`min_loc` joined as [`MinLoc`], `max_val`/`max_loc` as [`MaxLoc`], with their NaN
/// and tie rules (the first location of each extremum, whatever the partition).
///
/// The identity is `min_val` the highest value, `max_val` the lowest, both locations
/// `usize::MAX`. A kernel takes `acc: &mut MinMaxLocVal<T>` and updates the four fields:
///
/// ```
/// use rokkos_core::{MinMaxLoc, MinMaxLocVal, Reducer};
/// let mut a = MinMaxLoc.init();
/// for (i, v) in [3.0f64, -1.0, 7.0, -1.0, 7.0].into_iter().enumerate() {
///     MinMaxLoc.join(&mut a, MinMaxLocVal { min_val: v, max_val: v, min_loc: i, max_loc: i });
/// }
/// assert_eq!(a, MinMaxLocVal { min_val: -1.0, max_val: 7.0, min_loc: 1, max_loc: 2 });
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct MinMaxLoc;
/// Logical AND over `bool` (identity `true`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LAnd;
/// Logical OR over `bool` (identity `false`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LOr;
/// Bitwise AND over integers (identity: all bits set).
#[derive(Debug, Clone, Copy, Default)]
pub struct BAnd;
/// Bitwise OR over integers (identity 0).
#[derive(Debug, Clone, Copy, Default)]
pub struct BOr;

/// A value with the index where it was found, for [`MinLoc`] / [`MaxLoc`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ValLoc<T> {
    /// The value.
    pub val: T,
    /// Where it was found (`usize::MAX` for the identity).
    pub loc: usize,
}

/// Minimum and maximum with where each was found, for [`MinMaxLoc`] (the field names of Kokkos'
/// `MinMaxLocScalar`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MinMaxLocVal<T> {
    /// The minimum.
    pub min_val: T,
    /// The maximum.
    pub max_val: T,
    /// Where the minimum was found (`usize::MAX` for the identity).
    pub min_loc: usize,
    /// Where the maximum was found (`usize::MAX` for the identity).
    pub max_loc: usize,
}

/// Minimum and maximum, for [`MinMax`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MinMaxVal<T> {
    /// The minimum.
    pub min: T,
    /// The maximum.
    pub max: T,
}

impl<T: Scalar> Reducer<T> for Sum {
    fn init(&self) -> T {
        T::ZERO
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        *dst = dst.add(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::Sum));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Scalar> Reducer<T> for Prod {
    fn init(&self) -> T {
        T::ONE
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        *dst = dst.mul(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::Prod));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Scalar> Reducer<T> for Min {
    fn init(&self) -> T {
        T::HIGHEST
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        *dst = dst.minimum(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::Min));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Scalar> Reducer<T> for Max {
    fn init(&self) -> T {
        T::LOWEST
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        *dst = dst.maximum(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::Max));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Scalar> Reducer<ValLoc<T>> for MinLoc {
    fn init(&self) -> ValLoc<T> {
        ValLoc {
            val: T::HIGHEST,
            loc: usize::MAX,
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut ValLoc<T>, src: ValLoc<T>) {
        if loc_wins(src, *dst, |a, b| a < b) {
            *dst = src;
        }
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::MinLoc);
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Scalar> Reducer<ValLoc<T>> for MaxLoc {
    fn init(&self) -> ValLoc<T> {
        ValLoc {
            val: T::LOWEST,
            loc: usize::MAX,
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut ValLoc<T>, src: ValLoc<T>) {
        if loc_wins(src, *dst, |a, b| a > b) {
            *dst = src;
        }
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::MaxLoc);
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
/// Whether `src` replaces `dst` in a `Loc` join: a NaN value wins over a number, `better` decides
/// between numbers, and equal values (or two NaNs) go to the smaller location.
#[inline(always)]
fn loc_wins<T: Scalar>(src: ValLoc<T>, dst: ValLoc<T>, better: impl Fn(T, T) -> bool) -> bool {
    #[allow(clippy::eq_op)] // `x != x` is the NaN test `Scalar` (no `is_nan`) allows.
    let (s_nan, d_nan) = (src.val != src.val, dst.val != dst.val);
    if s_nan || d_nan {
        s_nan && (!d_nan || src.loc < dst.loc)
    } else {
        better(src.val, dst.val) || (src.val == dst.val && src.loc < dst.loc)
    }
}

impl<T: Scalar> Reducer<MinMaxLocVal<T>> for MinMaxLoc {
    fn init(&self) -> MinMaxLocVal<T> {
        MinMaxLocVal {
            min_val: T::HIGHEST,
            max_val: T::LOWEST,
            min_loc: usize::MAX,
            max_loc: usize::MAX,
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut MinMaxLocVal<T>, src: MinMaxLocVal<T>) {
        let (s_min, s_max) = (src.min_part(), src.max_part());
        if loc_wins(s_min, dst.min_part(), |a, b| a < b) {
            (dst.min_val, dst.min_loc) = (s_min.val, s_min.loc);
        }
        if loc_wins(s_max, dst.max_part(), |a, b| a > b) {
            (dst.max_val, dst.max_loc) = (s_max.val, s_max.loc);
        }
    }
    // Device backends see two accumulators, the minimum's (value, location) and the maximum's,
    // in that order: the IR fields the kernel macro declares for a `MinMaxLocVal` and the order
    // of `AccValue` below.
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::MinLoc);
        out.push(JoinKind::MaxLoc);
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}

impl<T: Copy> MinMaxLocVal<T> {
    fn min_part(&self) -> ValLoc<T> {
        ValLoc {
            val: self.min_val,
            loc: self.min_loc,
        }
    }
    fn max_part(&self) -> ValLoc<T> {
        ValLoc {
            val: self.max_val,
            loc: self.max_loc,
        }
    }
}

impl<T: Scalar> Reducer<MinMaxVal<T>> for MinMax {
    fn init(&self) -> MinMaxVal<T> {
        MinMaxVal {
            min: T::HIGHEST,
            max: T::LOWEST,
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut MinMaxVal<T>, src: MinMaxVal<T>) {
        dst.min = dst.min.minimum(src.min);
        dst.max = dst.max.maximum(src.max);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::MinMax);
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl Reducer<bool> for LAnd {
    fn init(&self) -> bool {
        true
    }
    #[inline(always)]
    fn join(&self, dst: &mut bool, src: bool) {
        *dst = *dst && src;
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::LAnd));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl Reducer<bool> for LOr {
    fn init(&self) -> bool {
        false
    }
    #[inline(always)]
    fn join(&self, dst: &mut bool, src: bool) {
        *dst = *dst || src;
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::LOr));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Bits> Reducer<T> for BAnd {
    fn init(&self) -> T {
        T::ALL
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        *dst = dst.and(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::BAnd));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}
impl<T: Bits> Reducer<T> for BOr {
    fn init(&self) -> T {
        T::ZERO
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        *dst = dst.or(src);
    }
    fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
        out.push(JoinKind::Op(crate::ir::ReducerKind::BOr));
        true
    }
    fn commutative(&self, _: sealed::Seal) -> bool {
        true
    }
}

/// A user-defined reducer from an identity value and an associative join function.
///
/// The join need not be commutative: every backend joins partial results in iteration order.
/// Serial folds everything into one accumulator, rayon joins its contiguous chunks in order, and
/// the device backends (wgpu, CUDA), which cannot run host code, fold contiguous blocks of work
/// items one per device thread and join the blocks' partials on the host, in order (the
/// ordered-partials mode, `rokkos_device::runtime::ordered`; Range, MDRange and team policies, and
/// scans, whose block prefixes the host joins). So "the first value", "the last value" or a
/// rolling hash give the serial result everywhere. Over a team policy a device team has several
/// threads, each with its own accumulator, joined thread by thread
/// (`rokkos_device::runtime::ordered::team_blocks`): that is the serial result when one thread per team
/// writes the accumulator (in `team.single_team(..)`, under `if team.team_rank() == 0`, or after
/// `if team.team_rank() != 0 { return; }`), and a device refuses any other such launch with
/// teams of more than one thread or lane (`Err(Unsupported)`, `rokkos_device::runtime::team_order`)
/// rather than join in another order. On a device this is the slow path: use a built-in reducer
/// where one fits.
///
/// ```
/// use rokkos_core::{Custom, Reducer};
/// // Reduce to the value with the largest absolute value.
/// let r = Custom::new(0.0f64, |a: &mut f64, b: f64| if b.abs() > a.abs() { *a = b });
/// let mut x = r.init();
/// r.join(&mut x, -3.0);
/// r.join(&mut x, 2.0);
/// assert_eq!(x, -3.0);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Custom<T, F> {
    identity: T,
    join: F,
}
impl<T, F> Custom<T, F> {
    /// A reducer with this identity and join.
    pub fn new(identity: T, join: F) -> Self {
        Custom { identity, join }
    }
}
impl<T: Copy + Sync, F: Fn(&mut T, T) + Sync> Reducer<T> for Custom<T, F> {
    fn init(&self) -> T {
        self.identity
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: T) {
        (self.join)(dst, src)
    }
}

macro_rules! tuple_reducer {
    ($($r:ident $t:ident $i:tt),+) => {
        impl<$($r: Reducer<$t>, $t),+> Reducer<($($t,)+)> for ($($r,)+) {
            fn init(&self) -> ($($t,)+) {
                ($(self.$i.init(),)+)
            }
            #[inline(always)]
            fn join(&self, dst: &mut ($($t,)+), src: ($($t,)+)) {
                $(self.$i.join(&mut dst.$i, src.$i);)+
            }
            fn describe(&self, out: &mut Vec<JoinKind>, _: sealed::Seal) -> bool {
                true $(&& self.$i.describe(out, sealed::Seal))+
            }
            fn commutative(&self, _: sealed::Seal) -> bool {
                true $(&& self.$i.commutative(sealed::Seal))+
            }
            fn has_final(&self, _: sealed::Seal) -> bool {
                false $(|| self.$i.has_final(sealed::Seal))+
            }
            fn finalize(&self, value: &mut ($($t,)+), _: sealed::Seal) {
                $(self.$i.finalize(&mut value.$i, sealed::Seal);)+
            }
        }
    };
}
tuple_reducer!(R0 T0 0, R1 T1 1);
tuple_reducer!(R0 T0 0, R1 T1 1, R2 T2 2);
tuple_reducer!(R0 T0 0, R1 T1 1, R2 T2 2, R3 T3 3);
tuple_reducer!(R0 T0 0, R1 T1 1, R2 T2 2, R3 T3 3, R4 T4 4);

/// How a device backend joins the partial results of one accumulator: what [`Reducer::describe`]
/// reports for the built-in reducers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinKind {
    /// A plain scalar reducer (`Sum`, `Prod`, `Min`, `Max`, `LAnd`, `LOr`, `BAnd`, `BOr`).
    Op(crate::ir::ReducerKind),
    /// [`MinLoc`]: smaller value wins (a NaN value wins over any number), equal values (`±0`, two
    /// NaNs) keep the smaller location.
    MinLoc,
    /// [`MaxLoc`]: larger value wins (a NaN value wins over any number), equal values keep the
    /// smaller location.
    MaxLoc,
    /// [`MinMax`]: IEEE `minimum` and `maximum` at once.
    MinMax,
}

/// The reducers' join kinds, or `None` for a host-only ([`Custom`]) reducer.
///
/// ```
/// use rokkos_core::reducer::{describe_reducer, JoinKind};
/// use rokkos_core::{Custom, MinLoc, Sum, ValLoc};
/// use rokkos_core::ir::ReducerKind;
/// assert_eq!(describe_reducer::<(f64, ValLoc<f64>), _>(&(Sum, MinLoc)), Some(vec![JoinKind::Op(ReducerKind::Sum), JoinKind::MinLoc]));
/// assert_eq!(describe_reducer(&Custom::new(0i32, |a: &mut i32, b| *a += b)), None);
/// ```
pub fn describe_reducer<T, Rd: Reducer<T> + ?Sized>(reducer: &Rd) -> Option<Vec<JoinKind>> {
    let mut out = Vec::new();
    reducer.describe(&mut out, sealed::Seal).then_some(out)
}

/// Accumulator values a device backend (or the IR evaluator) exchanges as IR values: one
/// [`crate::ir::Value`] per field, in [`crate::ir::Kernel::acc_fields`] order.
///
/// Sealed (the IR's scalar types, [`ValLoc`], [`MinMaxVal`] and tuples of them): device backends
/// read a reduction's bytes back by these conversions and the IR's accumulator layout, so they
/// must agree with it, which only the types the IR knows can promise.
pub trait AccValue: acc_sealed::SealedAccValue + Copy {
    /// Appends the fields.
    fn push_values(&self, out: &mut Vec<crate::ir::Value>);
    /// Reads the fields back; `None` when the values do not have the expected types.
    fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self>;
}

mod acc_sealed {
    /// Implemented for the accumulator types the IR knows: see [`super::AccValue`].
    pub trait SealedAccValue {}
}

macro_rules! acc_scalar {
    ($($t:ty => $v:ident as $ir:ty),*) => {$(
        impl acc_sealed::SealedAccValue for $t {}
        impl AccValue for $t {
            fn push_values(&self, out: &mut Vec<crate::ir::Value>) {
                out.push(crate::ir::Value::$v(*self as $ir));
            }
            fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self> {
                match values.next()? {
                    crate::ir::Value::$v(x) => Some(*x as $t),
                    _ => None,
                }
            }
        }
    )*};
}
acc_scalar!(i32 => I32 as i32, u32 => U32 as u32, i64 => I64 as i64, u64 => U64 as u64,
    isize => I64 as i64, usize => U64 as u64, f32 => F32 as f32, f64 => F64 as f64,
    i8 => I8 as i8, i16 => I16 as i16, u8 => U8 as u8, u16 => U16 as u16);

impl acc_sealed::SealedAccValue for bool {}
impl AccValue for bool {
    fn push_values(&self, out: &mut Vec<crate::ir::Value>) {
        out.push(crate::ir::Value::Bool(*self));
    }
    fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self> {
        match values.next()? {
            crate::ir::Value::Bool(x) => Some(*x),
            _ => None,
        }
    }
}
impl<T: AccValue> acc_sealed::SealedAccValue for ValLoc<T> {}
impl<T: AccValue> AccValue for ValLoc<T> {
    fn push_values(&self, out: &mut Vec<crate::ir::Value>) {
        self.val.push_values(out);
        self.loc.push_values(out);
    }
    fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self> {
        let val = T::from_values(values)?;
        let loc = usize::from_values(values)?;
        Some(ValLoc { val, loc })
    }
}
impl<T: AccValue> acc_sealed::SealedAccValue for MinMaxVal<T> {}
impl<T: AccValue> AccValue for MinMaxVal<T> {
    fn push_values(&self, out: &mut Vec<crate::ir::Value>) {
        self.min.push_values(out);
        self.max.push_values(out);
    }
    fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self> {
        let min = T::from_values(values)?;
        let max = T::from_values(values)?;
        Some(MinMaxVal { min, max })
    }
}

impl<T: AccValue> acc_sealed::SealedAccValue for MinMaxLocVal<T> {}
impl<T: AccValue> AccValue for MinMaxLocVal<T> {
    fn push_values(&self, out: &mut Vec<crate::ir::Value>) {
        self.min_val.push_values(out);
        self.min_loc.push_values(out);
        self.max_val.push_values(out);
        self.max_loc.push_values(out);
    }
    fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self> {
        let min_val = T::from_values(values)?;
        let min_loc = usize::from_values(values)?;
        let max_val = T::from_values(values)?;
        let max_loc = usize::from_values(values)?;
        Some(MinMaxLocVal {
            min_val,
            max_val,
            min_loc,
            max_loc,
        })
    }
}

macro_rules! tuple_acc {
    ($($r:ident $t:ident $i:tt),+) => {
        impl<$($t: AccValue),+> acc_sealed::SealedAccValue for ($($t,)+) {}
        impl<$($t: AccValue),+> AccValue for ($($t,)+) {
            fn push_values(&self, out: &mut Vec<crate::ir::Value>) {
                $(self.$i.push_values(out);)+
            }
            fn from_values(values: &mut std::slice::Iter<'_, crate::ir::Value>) -> Option<Self> {
                Some(($($t::from_values(values)?,)+))
            }
        }
    };
}
tuple_acc!(R0 T0 0, R1 T1 1);
tuple_acc!(R0 T0 0, R1 T1 1, R2 T2 2);
tuple_acc!(R0 T0 0, R1 T1 1, R2 T2 2, R3 T3 3);
tuple_acc!(R0 T0 0, R1 T1 1, R2 T2 2, R3 T3 3, R4 T4 4);
