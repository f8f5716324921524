//! Reductions and prefix scans of a View's elements.

use super::{label, same_extent, Element};
use rokkos::ir::build::{IrBits, IrInt};
use rokkos::{
    kernel, parallel_reduce, parallel_scan, AccValue, BAnd, BOr, ExecutionSpace, Layout, Max, Min,
    Prod, RangePolicy, Reducer, Result, Sum, View,
};
use std::ops::{BitAnd, BitOr};

#[kernel]
fn sum_k<T: Element + AccValue>(i: usize, acc: &mut T, v: View<T>) {
    *acc = (*acc).wrapping_add(v[i]);
}

#[kernel]
fn prod_k<T: Element + AccValue>(i: usize, acc: &mut T, v: View<T>) {
    *acc = (*acc).wrapping_mul(v[i]);
}

/// A strict comparison never lets a NaN into a partial, so NaN elements are skipped on every
/// backend (the join would otherwise let a NaN partial win).
#[kernel]
fn min_k<T: Element + AccValue>(i: usize, acc: &mut T, v: View<T>) {
    let x = v[i];
    if x < *acc {
        *acc = x;
    }
}

#[kernel]
fn max_k<T: Element + AccValue>(i: usize, acc: &mut T, v: View<T>) {
    let x = v[i];
    if x > *acc {
        *acc = x;
    }
}

#[kernel]
fn band_k<T: Element + AccValue + IrInt + IrBits + BitAnd<Output = T>>(
    i: usize,
    acc: &mut T,
    v: View<T>,
) {
    *acc = *acc & v[i];
}

#[kernel]
fn bor_k<T: Element + AccValue + IrInt + IrBits + BitOr<Output = T>>(
    i: usize,
    acc: &mut T,
    v: View<T>,
) {
    *acc = *acc | v[i];
}

#[kernel(scan)]
fn inclusive_k<T: Element + AccValue>(
    i: usize,
    partial: &mut T,
    is_final: bool,
    src: View<T>,
    dst: ViewMut<T>,
) {
    *partial = (*partial).wrapping_add(src[i]);
    if is_final {
        dst[i] = *partial;
    }
}

#[kernel(scan)]
fn exclusive_k<T: Element + AccValue>(
    i: usize,
    partial: &mut T,
    is_final: bool,
    src: View<T>,
    dst: ViewMut<T>,
    init: T,
) {
    let x = src[i];
    if is_final {
        dst[i] = init.wrapping_add(*partial);
    }
    *partial = (*partial).wrapping_add(x);
}

/// The sum of `v`'s elements (Kokkos' `reduce(exespace, view)`): one `parallel_reduce`. Integer
/// sums wrap; float sums round according to the backend's partition of the work. `0` for an
/// empty View.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f64>::from_vec("v", [4], vec![0.5, 1.0, 2.0, 4.0])?;
/// assert_eq!(rokkos_algorithms::reduce(&rokkos::Serial, &v)?, 7.5);
/// # Ok(())
/// # }
/// ```
pub fn reduce<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>) -> Result<T>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L: Layout,
{
    reduce_with(space, v, Sum)
}

/// `init` plus the sum of `v`'s elements (Kokkos' `reduce(exespace, view, init_value)`).
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<u32>::from_vec("v", [3], vec![1, 2, 3])?;
/// assert_eq!(rokkos_algorithms::reduce_init(&rokkos::Serial, &v, 10)?, 16);
/// # Ok(())
/// # }
/// ```
pub fn reduce_init<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>, init: T) -> Result<T>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L: Layout,
{
    Ok(init.wrapping_add(reduce(space, v)?))
}

/// `v`'s elements folded by a built-in reducer (Kokkos' `reduce` with a joiner): [`Sum`],
/// [`Prod`], [`Min`] or [`Max`], and for integers [`BAnd`] and [`BOr`] (see [`ViewReducer`]);
/// an empty View gives the reducer's identity (`0`, `1`, the highest or the lowest value, all
/// bits set, none).
///
/// ```
/// use rokkos::{Max, Min, Prod};
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i64>::from_vec("v", [4], vec![3, -2, 5, 1])?;
/// let s = rokkos::Serial;
/// assert_eq!(rokkos_algorithms::reduce_with(&s, &v, Prod)?, -30);
/// assert_eq!(rokkos_algorithms::reduce_with(&s, &v, Min)?, -2);
/// assert_eq!(rokkos_algorithms::reduce_with(&s, &v, Max)?, 5);
/// let bits = rokkos::View::<u32>::from_vec("bits", [3], vec![0b1110, 0b0111, 0b1111])?;
/// assert_eq!(rokkos_algorithms::reduce_with(&s, &bits, rokkos::BAnd)?, 0b0110);
/// assert_eq!(rokkos_algorithms::reduce_with(&s, &bits, rokkos::BOr)?, 0b1111);
/// # Ok(())
/// # }
/// ```
pub fn reduce_with<E, T, L, Rd>(space: &E, v: &View<T, 1, L, E::Memory>, reducer: Rd) -> Result<T>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L: Layout,
    Rd: ViewReducer<T>,
{
    reducer.reduce_view(space, v)
}

/// A built-in reducer that [`reduce_with`] folds a View's elements with: each comes with its own
/// kernel, whose fold agrees with the reducer's join.
///
/// - [`Sum`] and [`Prod`]: wrapping for integers; for floats the rounding follows the backend's
///   partition of the work.
/// - [`Min`] and [`Max`]: NaN elements are skipped (a View of NaNs only gives the identity,
///   `+inf` / `-inf`); of equal zeros the result's sign is the one some partition met first.
/// - [`BAnd`] and [`BOr`] (integers only): the bits set in every element, in any.
///
/// Sealed.
///
/// ```
/// use rokkos_algorithms::ViewReducer;
/// fn takes<R: ViewReducer<f64>>(_: R) {}
/// takes(rokkos::Sum);
/// ```
pub trait ViewReducer<T: Element + AccValue>: Reducer<T> + sealed::Sealed {
    /// Folds `v`'s elements on `space` (what [`reduce_with`] calls).
    fn reduce_view<E: ExecutionSpace, L: Layout>(
        &self,
        space: &E,
        v: &View<T, 1, L, E::Memory>,
    ) -> Result<T>;
}

mod sealed {
    /// Implemented for the reducers [`super::ViewReducer`] lists.
    pub trait Sealed {}
}

macro_rules! view_reducer {
    ($($r:ident => $k:ident, $name:literal $(, $bound:path)*;)*) => {$(
        impl sealed::Sealed for $r {}
        impl<T> ViewReducer<T> for $r
        where
            T: Element + AccValue $(+ $bound)*,
            $r: Reducer<T>,
        {
            fn reduce_view<E: ExecutionSpace, L: Layout>(
                &self,
                space: &E,
                v: &View<T, 1, L, E::Memory>,
            ) -> Result<T> {
                parallel_reduce(
                    &label($name),
                    RangePolicy::new(space, 0..v.extent(0)),
                    $k(v),
                    $r,
                )
            }
        }
    )*};
}
view_reducer! {
    Sum => sum_k, "reduce";
    Prod => prod_k, "reduce_prod";
    Min => min_k, "reduce_min";
    Max => max_k, "reduce_max";
    BAnd => band_k, "reduce_band", IrInt, IrBits, BitAnd<Output = T>;
    BOr => bor_k, "reduce_bor", IrInt, IrBits, BitOr<Output = T>;
}

/// Inclusive prefix sums: `dst[i] = src[0] + .. + src[i]` (Kokkos' `inclusive_scan`), one
/// `parallel_scan`; returns the total. Integer sums wrap. The extents must be equal and the Views
/// may not overlap.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<i32>::from_vec("a", [4], vec![1, 2, 3, 4])?;
/// let s = rokkos::View::<i32>::new("s", [4])?;
/// assert_eq!(rokkos_algorithms::inclusive_scan(&rokkos::Serial, &a, &s)?, 10);
/// assert_eq!(s.to_vec(), [1, 3, 6, 10]);
/// # Ok(())
/// # }
/// ```
pub fn inclusive_scan<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
) -> Result<T>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L1: Layout,
    L2: Layout,
{
    let n = same_extent("inclusive_scan", src, dst)?;
    parallel_scan(
        &label("inclusive_scan"),
        RangePolicy::new(space, 0..n),
        inclusive_k(src, dst),
    )
}

/// Exclusive prefix sums from `init`: `dst[i] = init + src[0] + .. + src[i - 1]` (Kokkos'
/// `exclusive_scan`), one `parallel_scan`; returns `init` plus the total. Integer sums wrap. The
/// extents must be equal and the Views may not overlap.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<i32>::from_vec("a", [4], vec![1, 2, 3, 4])?;
/// let s = rokkos::View::<i32>::new("s", [4])?;
/// assert_eq!(rokkos_algorithms::exclusive_scan(&rokkos::Serial, &a, &s, 100)?, 110);
/// assert_eq!(s.to_vec(), [100, 101, 103, 106]);
/// # Ok(())
/// # }
/// ```
pub fn exclusive_scan<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
    init: T,
) -> Result<T>
where
    E: ExecutionSpace,
    T: Element + AccValue,
    L1: Layout,
    L2: Layout,
{
    let n = same_extent("exclusive_scan", src, dst)?;
    let total = parallel_scan(
        &label("exclusive_scan"),
        RangePolicy::new(space, 0..n),
        exclusive_k(src, dst, init),
    )?;
    Ok(init.wrapping_add(total))
}
