//! Algorithms that write Views element by element: fill, copy, replace, reverse, swap, and
//! adjacent differences.

use super::{label, same_extent, Element};
use rokkos::{kernel, parallel_for, ExecutionSpace, Layout, RangePolicy, Result, View};

#[kernel]
fn fill_k<T: Element>(i: usize, v: ViewMut<T>, x: T) {
    v[i] = x;
}

#[kernel]
fn copy_k<T: Element>(i: usize, src: View<T>, dst: ViewMut<T>) {
    dst[i] = src[i];
}

#[kernel]
fn replace_k<T: Element>(i: usize, v: ViewMut<T>, old: T, new: T) {
    if v[i] == old {
        v[i] = new;
    }
}

/// Swaps elements `i` and `n - 1 - i`, for `i < n / 2`.
#[kernel]
fn reverse_k<T: Element>(i: usize, v: ViewMut<T>, n: usize) {
    let j = n - 1 - i;
    // Work item `i < n / 2` touches `i` and `n - 1 - i >= n - n / 2 > i`: the pairs of distinct
    // work items are disjoint, but the two forms of index are not one owner-computes form.
    unsafe {
        let t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

#[kernel]
fn reverse_copy_k<T: Element>(i: usize, src: View<T>, dst: ViewMut<T>, n: usize) {
    dst[i] = src[n - 1 - i];
}

#[kernel]
fn swap_k<T: Element>(i: usize, a: ViewMut<T>, b: ViewMut<T>) {
    let t = a[i];
    a[i] = b[i];
    b[i] = t;
}

#[kernel]
fn adjacent_difference_k<T: Element>(i: usize, src: View<T>, dst: ViewMut<T>) {
    if i == 0 {
        dst[i] = src[i];
    } else {
        dst[i] = src[i].wrapping_sub(src[i - 1]);
    }
}

/// Sets every element of `v` to `value` (Kokkos' `fill`).
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f32>::new("v", [4])?;
/// rokkos_algorithms::fill(&rokkos::Serial, &v, 2.5)?;
/// assert_eq!(v.to_vec(), [2.5; 4]);
/// # Ok(())
/// # }
/// ```
pub fn fill<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>, value: T) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    let n = v.extent(0);
    parallel_for(
        &label("fill"),
        RangePolicy::new(space, 0..n),
        fill_k(v, value),
    )
}

/// Copies `src` into `dst`, element by element (Kokkos' `copy`). The extents must be equal
/// (`Err(ShapeMismatch)`), and the two Views may not overlap (`Err(Aliasing)`).
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<i32>::from_vec("a", [3], vec![1, 2, 3])?;
/// let b = rokkos::View::<i32>::new("b", [3])?;
/// rokkos_algorithms::copy(&rokkos::Serial, &a, &b)?;
/// assert_eq!(b.to_vec(), [1, 2, 3]);
/// # Ok(())
/// # }
/// ```
pub fn copy<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    let n = same_extent("copy", src, dst)?;
    parallel_for(
        &label("copy"),
        RangePolicy::new(space, 0..n),
        copy_k(src, dst),
    )
}

/// Replaces every element equal to `old` by `new`, in place (Kokkos' `replace`). Float elements
/// compare as IEEE numbers: `-0.0` equals `0.0`, and a NaN `old` replaces nothing.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<u16>::from_vec("v", [4], vec![7, 1, 7, 2])?;
/// rokkos_algorithms::replace(&rokkos::Serial, &v, 7, 0)?;
/// assert_eq!(v.to_vec(), [0, 1, 0, 2]);
/// # Ok(())
/// # }
/// ```
pub fn replace<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>, old: T, new: T) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    let n = v.extent(0);
    parallel_for(
        &label("replace"),
        RangePolicy::new(space, 0..n),
        replace_k(v, old, new),
    )
}

/// Reverses `v` in place (Kokkos' `reverse`).
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i64>::from_vec("v", [5], vec![1, 2, 3, 4, 5])?;
/// rokkos_algorithms::reverse(&rokkos::Serial, &v)?;
/// assert_eq!(v.to_vec(), [5, 4, 3, 2, 1]);
/// # Ok(())
/// # }
/// ```
pub fn reverse<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    let n = v.extent(0);
    parallel_for(
        &label("reverse"),
        RangePolicy::new(space, 0..n / 2),
        reverse_k(v, n),
    )
}

/// Writes `src` reversed into `dst`: `dst[i] = src[n - 1 - i]` (Kokkos' `reverse_copy`). The
/// extents must be equal and the Views may not overlap.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<u8>::from_vec("a", [3], vec![1, 2, 3])?;
/// let b = rokkos::View::<u8>::new("b", [3])?;
/// rokkos_algorithms::reverse_copy(&rokkos::Serial, &a, &b)?;
/// assert_eq!(b.to_vec(), [3, 2, 1]);
/// # Ok(())
/// # }
/// ```
pub fn reverse_copy<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    let n = same_extent("reverse_copy", src, dst)?;
    parallel_for(
        &label("reverse_copy"),
        RangePolicy::new(space, 0..n),
        reverse_copy_k(src, dst, n),
    )
}

/// Exchanges the elements of `a` and `b` (Kokkos' `swap_ranges` over whole Views). The extents
/// must be equal and the Views may not overlap.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<u32>::from_vec("a", [2], vec![1, 2])?;
/// let b = rokkos::View::<u32>::from_vec("b", [2], vec![8, 9])?;
/// rokkos_algorithms::swap_ranges(&rokkos::Serial, &a, &b)?;
/// assert_eq!((a.to_vec(), b.to_vec()), (vec![8, 9], vec![1, 2]));
/// # Ok(())
/// # }
/// ```
pub fn swap_ranges<E, T, L1, L2>(
    space: &E,
    a: &View<T, 1, L1, E::Memory>,
    b: &View<T, 1, L2, E::Memory>,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    let n = same_extent("swap_ranges", a, b)?;
    parallel_for(
        &label("swap_ranges"),
        RangePolicy::new(space, 0..n),
        swap_k(a, b),
    )
}

/// `dst[0] = src[0]` and `dst[i] = src[i] - src[i - 1]` (Kokkos' and `std`'s
/// `adjacent_difference`; integer differences wrap). The extents must be equal and the Views may
/// not overlap.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<i32>::from_vec("a", [4], vec![1, 4, 9, 16])?;
/// let d = rokkos::View::<i32>::new("d", [4])?;
/// rokkos_algorithms::adjacent_difference(&rokkos::Serial, &a, &d)?;
/// assert_eq!(d.to_vec(), [1, 3, 5, 7]);
/// # Ok(())
/// # }
/// ```
pub fn adjacent_difference<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    let n = same_extent("adjacent_difference", src, dst)?;
    parallel_for(
        &label("adjacent_difference"),
        RangePolicy::new(space, 0..n),
        adjacent_difference_k(src, dst),
    )
}
