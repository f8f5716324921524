//! Searches: extrema with their positions, the first match, counts, equality.

use super::{label, Element};
use rokkos::{
    kernel, parallel_reduce, AccValue, ExecutionSpace, Layout, MaxLoc, Min, MinLoc, RangePolicy,
    Result, Sum, ValLoc, View,
};

// The `Loc` folds below take an element when it is strictly better, or equal at a smaller
// location, as the `MinLoc` / `MaxLoc` joins do, so the result is the first extremum whatever
// the partition; a NaN element is never better, so none reaches a partial.

#[kernel]
fn min_loc_k<T: Element + AccValue>(i: usize, acc: &mut ValLoc<T>, v: View<T>) {
    let x = v[i];
    if x < acc.val || (x == acc.val && i < acc.loc) {
        acc.val = x;
        acc.loc = i;
    }
}

#[kernel]
fn max_loc_k<T: Element + AccValue>(i: usize, acc: &mut ValLoc<T>, v: View<T>) {
    let x = v[i];
    if x > acc.val || (x == acc.val && i < acc.loc) {
        acc.val = x;
        acc.loc = i;
    }
}

/// The maximum's location is kept reversed (`n - 1 - i`), so that the smallest one, which the
/// join keeps among equal values, is the last maximum.
#[kernel]
fn minmax_loc_k<T: Element + AccValue>(
    i: usize,
    lo: &mut ValLoc<T>,
    hi: &mut ValLoc<T>,
    v: View<T>,
    n: usize,
) {
    let x = v[i];
    if x < lo.val || (x == lo.val && i < lo.loc) {
        lo.val = x;
        lo.loc = i;
    }
    let r = n - 1 - i;
    if x > hi.val || (x == hi.val && r < hi.loc) {
        hi.val = x;
        hi.loc = r;
    }
}

#[kernel]
fn find_k<T: Element>(i: usize, acc: &mut usize, v: View<T>, x: T) {
    if v[i] == x && i < *acc {
        *acc = i;
    }
}

#[kernel]
fn count_k<T: Element>(i: usize, acc: &mut usize, v: View<T>, x: T) {
    if v[i] == x {
        *acc += 1;
    }
}

#[kernel]
fn mismatch_count_k<T: Element>(i: usize, acc: &mut usize, a: View<T>, b: View<T>) {
    if a[i] != b[i] {
        *acc += 1;
    }
}

/// A location the `Loc` reducers left at their identity (`usize::MAX`: no element taken, which
/// only a View of NaNs gives) is the first element, as `std`'s strict comparisons leave it.
fn loc_or_first(loc: usize, n: usize) -> usize {
    if loc < n {
        loc
    } else {
        0
    }
}

/// The index of the first smallest element (Kokkos' and `std`'s `min_element`), or `0` for an
/// empty View (its extent, Kokkos' `end`). NaN elements are skipped (a NaN is neither below nor
/// above anything); a View of NaNs only gives `0`.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f64>::from_vec("v", [5], vec![3.0, 1.0, f64::NAN, 1.0, 2.0])?;
/// assert_eq!(rokkos_algorithms::min_element(&rokkos::Serial, &v)?, 1);
/// # Ok(())
/// # }
/// ```
pub fn min_element<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L: Layout,
{
    let n = v.extent(0);
    if n == 0 {
        return Ok(0);
    }
    let r = parallel_reduce(
        &label("min_element"),
        RangePolicy::new(space, 0..n),
        min_loc_k(v),
        MinLoc,
    )?;
    Ok(loc_or_first(r.loc, n))
}

/// The index of the first largest element (Kokkos' and `std`'s `max_element`), or `0` for an
/// empty View. NaN elements are skipped; a View of NaNs only gives `0`.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i32>::from_vec("v", [4], vec![1, 9, 3, 9])?;
/// assert_eq!(rokkos_algorithms::max_element(&rokkos::Serial, &v)?, 1);
/// # Ok(())
/// # }
/// ```
pub fn max_element<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L: Layout,
{
    let n = v.extent(0);
    if n == 0 {
        return Ok(0);
    }
    let r = parallel_reduce(
        &label("max_element"),
        RangePolicy::new(space, 0..n),
        max_loc_k(v),
        MaxLoc,
    )?;
    Ok(loc_or_first(r.loc, n))
}

/// The indices of the first smallest and the *last* largest element, as `std::minmax_element`
/// (and Kokkos') give them, in one `parallel_reduce`; `(0, 0)` for an empty View. NaN elements
/// are skipped; a View of NaNs only gives `(0, n - 1)`.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i64>::from_vec("v", [6], vec![4, 1, 9, 1, 9, 2])?;
/// assert_eq!(rokkos_algorithms::minmax_element(&rokkos::Serial, &v)?, (1, 4));
/// # Ok(())
/// # }
/// ```
pub fn minmax_element<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>) -> Result<(usize, usize)>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L: Layout,
{
    let n = v.extent(0);
    if n == 0 {
        return Ok((0, 0));
    }
    let (lo, hi) = parallel_reduce(
        &label("minmax_element"),
        RangePolicy::new(space, 0..n),
        minmax_loc_k(v, n),
        (MinLoc, MaxLoc),
    )?;
    Ok((loc_or_first(lo.loc, n), n - 1 - loc_or_first(hi.loc, n)))
}

/// The index of the first element equal to `value` (Kokkos' `find`), or the View's extent when
/// there is none. Floats compare as IEEE numbers (`-0.0 == 0.0`; a NaN is found nowhere).
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<u8>::from_vec("v", [4], vec![5, 7, 5, 7])?;
/// assert_eq!(rokkos_algorithms::find(&rokkos::Serial, &v, 7)?, 1);
/// assert_eq!(rokkos_algorithms::find(&rokkos::Serial, &v, 6)?, 4);
/// # Ok(())
/// # }
/// ```
pub fn find<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>, value: T) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    let n = v.extent(0);
    let first = parallel_reduce(
        &label("find"),
        RangePolicy::new(space, 0..n),
        find_k(v, value),
        Min,
    )?;
    Ok(first.min(n))
}

/// The number of elements equal to `value` (Kokkos' `count`). Floats compare as IEEE numbers.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i32>::from_vec("v", [5], vec![1, 2, 1, 1, 3])?;
/// assert_eq!(rokkos_algorithms::count(&rokkos::Serial, &v, 1)?, 3);
/// # Ok(())
/// # }
/// ```
pub fn count<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>, value: T) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    parallel_reduce(
        &label("count"),
        RangePolicy::new(space, 0..v.extent(0)),
        count_k(v, value),
        Sum,
    )
}

/// Whether `a` and `b` hold the same elements in the same order (Kokkos' `equal`; as `==` on
/// slices, Views of different extents are not equal). Floats compare as IEEE numbers: a NaN
/// makes them unequal.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<f32>::from_vec("a", [2], vec![1.0, -0.0])?;
/// let b = rokkos::View::<f32>::from_vec("b", [2], vec![1.0, 0.0])?;
/// assert!(rokkos_algorithms::equal(&rokkos::Serial, &a, &b)?);
/// # Ok(())
/// # }
/// ```
pub fn equal<E, T, L1, L2>(
    space: &E,
    a: &View<T, 1, L1, E::Memory>,
    b: &View<T, 1, L2, E::Memory>,
) -> Result<bool>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    let n = a.extent(0);
    if b.extent(0) != n {
        return Ok(false);
    }
    let mismatches: usize = parallel_reduce(
        &label("equal"),
        RangePolicy::new(space, 0..n),
        mismatch_count_k(a, b),
        Sum,
    )?;
    Ok(mismatches == 0)
}
