//! Algorithms that apply a user function inside their kernels: a `#[rokkos::func]` passed as a
//! value (its marker, `name {}`), bounded by [`Func1`] / [`Func2`], so that every backend runs
//! it (the native function on the host, its IR on devices) and a function of the wrong
//! signature is a compile error at the call.

use super::{label, room_for, same_extent, Element};
use rokkos::ir::build::{Func1, Func2};
use rokkos::{
    kernel, parallel_for, parallel_reduce, parallel_scan, AccValue, ExecutionSpace, Layout,
    LayoutRight, Min, RangePolicy, Result, Sum, View,
};

// The kernels' function parameters are type parameters named like values (`f`, `pred`): a
// kernel calls a `#[func]` by a lowercase name, and the macro reaches its `native` and `ir`
// through the name's `Func1` / `Func2` bound.

#[kernel]
#[allow(non_camel_case_types)]
fn transform_k<T: Element, U: Element, f: Func1<T, Output = U>>(
    i: usize,
    src: View<T>,
    dst: ViewMut<U>,
) {
    dst[i] = f(src[i]);
}

#[kernel]
#[allow(non_camel_case_types)]
fn transform_binary_k<T: Element, U: Element, V: Element, f: Func2<T, U, Output = V>>(
    i: usize,
    a: View<T>,
    b: View<U>,
    dst: ViewMut<V>,
) {
    dst[i] = f(a[i], b[i]);
}

#[kernel]
#[allow(non_camel_case_types)]
fn transform_reduce_k<T: Element, U: Element + AccValue, f: Func1<T, Output = U>>(
    i: usize,
    acc: &mut U,
    v: View<T>,
) {
    *acc = (*acc).wrapping_add(f(v[i]));
}

#[kernel]
#[allow(non_camel_case_types)]
fn transform_reduce_binary_k<
    T: Element,
    U: Element,
    V: Element + AccValue,
    f: Func2<T, U, Output = V>,
>(
    i: usize,
    acc: &mut V,
    a: View<T>,
    b: View<U>,
) {
    *acc = (*acc).wrapping_add(f(a[i], b[i]));
}

#[kernel]
#[allow(non_camel_case_types)]
fn find_if_k<T: Element, pred: Func1<T, Output = bool>>(i: usize, acc: &mut usize, v: View<T>) {
    if i < *acc && pred(v[i]) {
        *acc = i;
    }
}

#[kernel]
#[allow(non_camel_case_types)]
fn find_if_not_k<T: Element, pred: Func1<T, Output = bool>>(i: usize, acc: &mut usize, v: View<T>) {
    if i < *acc && !pred(v[i]) {
        *acc = i;
    }
}

#[kernel]
#[allow(non_camel_case_types)]
fn count_if_k<T: Element, pred: Func1<T, Output = bool>>(i: usize, acc: &mut usize, v: View<T>) {
    if pred(v[i]) {
        *acc += 1;
    }
}

#[kernel]
#[allow(non_camel_case_types)]
fn replace_if_k<T: Element, pred: Func1<T, Output = bool>>(i: usize, v: ViewMut<T>, new: T) {
    if pred(v[i]) {
        v[i] = new;
    }
}

/// Scatters the elements whose `pred` is `keep` to position `partial` (the number kept before):
/// distinct kept work items write distinct positions, which owner-computes cannot see, hence the
/// `unsafe` block; the write is in the final pass, as the scan rules require.
#[kernel(scan)]
#[allow(non_camel_case_types)]
fn copy_if_k<T: Element, pred: Func1<T, Output = bool>>(
    i: usize,
    partial: &mut usize,
    is_final: bool,
    src: View<T>,
    dst: ViewMut<T>,
    keep: bool,
) {
    let x = src[i];
    if pred(x) == keep {
        if is_final {
            unsafe {
                dst[*partial] = x;
            }
        }
        *partial += 1;
    }
}

#[kernel]
fn copy_back_k<T: Element>(i: usize, src: View<T>, dst: ViewMut<T>) {
    dst[i] = src[i];
}

/// `dst[i] = f(src[i])` (Kokkos' `transform` with a unary operation). `f` is a `#[rokkos::func]`
/// of one parameter, passed as its marker `f {}`. The extents must be equal and the Views may not
/// overlap.
///
/// ```
/// #[rokkos::func]
/// fn square(x: i64) -> i64 { x * x }
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<i64>::from_vec("a", [3], vec![1, 2, 3])?;
/// let b = rokkos::View::<i64>::new("b", [3])?;
/// rokkos_algorithms::transform(&rokkos::Serial, &a, &b, square {})?;
/// assert_eq!(b.to_vec(), [1, 4, 9]);
/// # Ok(())
/// # }
/// ```
pub fn transform<E, T, U, L1, L2, F>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<U, 1, L2, E::Memory>,
    f: F,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    U: Element,
    L1: Layout,
    L2: Layout,
    F: Func1<T, Output = U>,
{
    let _ = f;
    let n = same_extent("transform", src, dst)?;
    parallel_for(
        &label("transform"),
        RangePolicy::new(space, 0..n),
        transform_k::<T, U, F, _, _, _>(src, dst),
    )
}

/// `dst[i] = f(a[i], b[i])` (Kokkos' `transform` with a binary operation). The three extents must
/// be equal and `dst` may not overlap `a` or `b`.
///
/// ```
/// #[rokkos::func]
/// fn axpy2(x: f64, y: f64) -> f64 { 2.0 * x + y }
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<f64>::from_vec("a", [2], vec![1.0, 2.0])?;
/// let b = rokkos::View::<f64>::from_vec("b", [2], vec![0.5, 0.25])?;
/// let c = rokkos::View::<f64>::new("c", [2])?;
/// rokkos_algorithms::transform_binary(&rokkos::Serial, &a, &b, &c, axpy2 {})?;
/// assert_eq!(c.to_vec(), [2.5, 4.25]);
/// # Ok(())
/// # }
/// ```
pub fn transform_binary<E, T, U, V, L1, L2, L3, F>(
    space: &E,
    a: &View<T, 1, L1, E::Memory>,
    b: &View<U, 1, L2, E::Memory>,
    dst: &View<V, 1, L3, E::Memory>,
    f: F,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    U: Element,
    V: Element,
    L1: Layout,
    L2: Layout,
    L3: Layout,
    F: Func2<T, U, Output = V>,
{
    let _ = f;
    let n = same_extent("transform_binary", a, b)?;
    same_extent("transform_binary", a, dst)?;
    parallel_for(
        &label("transform_binary"),
        RangePolicy::new(space, 0..n),
        transform_binary_k::<T, U, V, F, _, _, _, _>(a, b, dst),
    )
}

/// `init` plus the sum of `f(v[i])` (Kokkos' `transform_reduce` with the sum as the reduction
/// and a unary transformation), in one `parallel_reduce`. Integer sums wrap.
///
/// ```
/// #[rokkos::func]
/// fn square(x: f64) -> f64 { x * x }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f64>::from_vec("v", [3], vec![1.0, 2.0, 3.0])?;
/// assert_eq!(rokkos_algorithms::transform_reduce(&rokkos::Serial, &v, 0.5, square {})?, 14.5);
/// # Ok(())
/// # }
/// ```
pub fn transform_reduce<E, T, U, L, F>(
    space: &E,
    v: &View<T, 1, L, E::Memory>,
    init: U,
    f: F,
) -> Result<U>
where
    E: ExecutionSpace,
    T: Element,
    U: Element + AccValue,
    L: Layout,
    F: Func1<T, Output = U>,
{
    let _ = f;
    let s = parallel_reduce(
        &label("transform_reduce"),
        RangePolicy::new(space, 0..v.extent(0)),
        transform_reduce_k::<T, U, F, _, _>(v),
        Sum,
    )?;
    Ok(init.wrapping_add(s))
}

/// `init` plus the sum of `f(a[i], b[i])` (Kokkos' `transform_reduce` over two Views with the sum
/// as the reduction; an inner product with `f = x * y`). The extents must be equal.
///
/// ```
/// #[rokkos::func]
/// fn mul(x: i32, y: i32) -> i32 { x * y }
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<i32>::from_vec("a", [3], vec![1, 2, 3])?;
/// let b = rokkos::View::<i32>::from_vec("b", [3], vec![4, 5, 6])?;
/// assert_eq!(rokkos_algorithms::transform_reduce_binary(&rokkos::Serial, &a, &b, 0, mul {})?, 32);
/// # Ok(())
/// # }
/// ```
pub fn transform_reduce_binary<E, T, U, V, L1, L2, F>(
    space: &E,
    a: &View<T, 1, L1, E::Memory>,
    b: &View<U, 1, L2, E::Memory>,
    init: V,
    f: F,
) -> Result<V>
where
    E: ExecutionSpace,
    T: Element,
    U: Element,
    V: Element + AccValue,
    L1: Layout,
    L2: Layout,
    F: Func2<T, U, Output = V>,
{
    let _ = f;
    let n = same_extent("transform_reduce_binary", a, b)?;
    let s = parallel_reduce(
        &label("transform_reduce_binary"),
        RangePolicy::new(space, 0..n),
        transform_reduce_binary_k::<T, U, V, F, _, _, _>(a, b),
        Sum,
    )?;
    Ok(init.wrapping_add(s))
}

/// The index of the first element for which `pred` is true (Kokkos' `find_if`), or the View's
/// extent when there is none. `pred` is a `#[rokkos::func]` returning `bool`, passed as `pred {}`.
///
/// ```
/// #[rokkos::func]
/// fn is_negative(x: i32) -> bool { x < 0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i32>::from_vec("v", [4], vec![3, -1, 4, -5])?;
/// assert_eq!(rokkos_algorithms::find_if(&rokkos::Serial, &v, is_negative {})?, 1);
/// # Ok(())
/// # }
/// ```
pub fn find_if<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    let n = v.extent(0);
    let first = parallel_reduce(
        &label("find_if"),
        RangePolicy::new(space, 0..n),
        find_if_k::<T, P, _, _>(v),
        Min,
    )?;
    Ok(first.min(n))
}

/// The index of the first element for which `pred` is false (Kokkos' `find_if_not`), or the
/// View's extent when there is none.
///
/// ```
/// #[rokkos::func]
/// fn is_negative(x: i32) -> bool { x < 0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i32>::from_vec("v", [4], vec![-3, -1, 4, -5])?;
/// assert_eq!(rokkos_algorithms::find_if_not(&rokkos::Serial, &v, is_negative {})?, 2);
/// # Ok(())
/// # }
/// ```
pub fn find_if_not<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    let n = v.extent(0);
    let first = parallel_reduce(
        &label("find_if_not"),
        RangePolicy::new(space, 0..n),
        find_if_not_k::<T, P, _, _>(v),
        Min,
    )?;
    Ok(first.min(n))
}

/// The number of elements for which `pred` is true (Kokkos' `count_if`).
///
/// ```
/// #[rokkos::func]
/// fn is_even(x: i64) -> bool { x % 2 == 0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i64>::from_vec("v", [5], vec![1, 2, 3, 4, 6])?;
/// assert_eq!(rokkos_algorithms::count_if(&rokkos::Serial, &v, is_even {})?, 3);
/// # Ok(())
/// # }
/// ```
pub fn count_if<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    parallel_reduce(
        &label("count_if"),
        RangePolicy::new(space, 0..v.extent(0)),
        count_if_k::<T, P, _, _>(v),
        Sum,
    )
}

/// Whether `pred` is true for every element (Kokkos' `all_of`; `true` for an empty View).
///
/// ```
/// #[rokkos::func]
/// fn positive(x: f32) -> bool { x > 0.0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f32>::from_vec("v", [2], vec![1.0, 2.0])?;
/// assert!(rokkos_algorithms::all_of(&rokkos::Serial, &v, positive {})?);
/// # Ok(())
/// # }
/// ```
pub fn all_of<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<bool>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    Ok(count_if(space, v, pred)? == v.extent(0))
}

/// Whether `pred` is true for some element (Kokkos' `any_of`; `false` for an empty View).
///
/// ```
/// #[rokkos::func]
/// fn positive(x: f32) -> bool { x > 0.0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f32>::from_vec("v", [2], vec![-1.0, 2.0])?;
/// assert!(rokkos_algorithms::any_of(&rokkos::Serial, &v, positive {})?);
/// # Ok(())
/// # }
/// ```
pub fn any_of<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<bool>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    Ok(count_if(space, v, pred)? > 0)
}

/// Whether `pred` is false for every element (Kokkos' `none_of`; `true` for an empty View).
///
/// ```
/// #[rokkos::func]
/// fn positive(x: f32) -> bool { x > 0.0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<f32>::from_vec("v", [2], vec![-1.0, -2.0])?;
/// assert!(rokkos_algorithms::none_of(&rokkos::Serial, &v, positive {})?);
/// # Ok(())
/// # }
/// ```
pub fn none_of<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<bool>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    Ok(count_if(space, v, pred)? == 0)
}

/// Replaces every element for which `pred` is true by `new`, in place (Kokkos' `replace_if`).
///
/// ```
/// #[rokkos::func]
/// fn is_negative(x: i32) -> bool { x < 0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i32>::from_vec("v", [3], vec![-3, 1, -2])?;
/// rokkos_algorithms::replace_if(&rokkos::Serial, &v, is_negative {}, 0)?;
/// assert_eq!(v.to_vec(), [0, 1, 0]);
/// # Ok(())
/// # }
/// ```
pub fn replace_if<E, T, L, P>(
    space: &E,
    v: &View<T, 1, L, E::Memory>,
    pred: P,
    new: T,
) -> Result<()>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    parallel_for(
        &label("replace_if"),
        RangePolicy::new(space, 0..v.extent(0)),
        replace_if_k::<T, P, _, _>(v, new),
    )
}

/// Scatters the elements of `src` whose `pred` is `keep` to the front of `dst`, in order.
fn scatter_if<E, T, L1, L2, P>(
    space: &E,
    name: &str,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
    keep: bool,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
    P: Func1<T, Output = bool>,
{
    parallel_scan(
        &label(name),
        RangePolicy::new(space, 0..src.extent(0)),
        copy_if_k::<T, P, _, _, _>(src, dst, keep),
    )
}

/// Writes the elements of `src` for which `pred` is true, in order, to the front of `dst` and
/// returns how many it wrote (Kokkos' `copy_if`: stream compaction, one `parallel_scan` that
/// counts and scatters). `dst` must be at least as long as `src` (`Err(ShapeMismatch)`) and may
/// not overlap it; its other elements are left as they were.
///
/// ```
/// #[rokkos::func]
/// fn is_even(x: u32) -> bool { x % 2 == 0 }
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<u32>::from_vec("a", [5], vec![1, 2, 4, 5, 8])?;
/// let b = rokkos::View::<u32>::new("b", [5])?;
/// assert_eq!(rokkos_algorithms::copy_if(&rokkos::Serial, &a, &b, is_even {})?, 3);
/// assert_eq!(b.to_vec()[..3], [2, 4, 8]);
/// # Ok(())
/// # }
/// ```
pub fn copy_if<E, T, L1, L2, P>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
    pred: P,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    room_for("copy_if", src, dst)?;
    scatter_if::<E, T, L1, L2, P>(space, "copy_if", src, dst, true)
}

/// Writes the elements of `src` for which `pred` is false, in order, to the front of `dst` and
/// returns how many it wrote (Kokkos' `remove_copy_if`). `dst` must be at least as long as `src`
/// and may not overlap it.
///
/// ```
/// #[rokkos::func]
/// fn is_even(x: u32) -> bool { x % 2 == 0 }
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<u32>::from_vec("a", [5], vec![1, 2, 4, 5, 8])?;
/// let b = rokkos::View::<u32>::new("b", [5])?;
/// assert_eq!(rokkos_algorithms::remove_copy_if(&rokkos::Serial, &a, &b, is_even {})?, 2);
/// assert_eq!(b.to_vec()[..2], [1, 5]);
/// # Ok(())
/// # }
/// ```
pub fn remove_copy_if<E, T, L1, L2, P>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
    pred: P,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    room_for("remove_copy_if", src, dst)?;
    scatter_if::<E, T, L1, L2, P>(space, "remove_copy_if", src, dst, false)
}

/// Removes the elements for which `pred` is true in place, keeping the order of the others, and
/// returns the new length (Kokkos' and `std`'s `remove_if`, Rust's `Vec::retain` with the
/// predicate negated). The elements from the new length on are left as they were.
///
/// ```
/// #[rokkos::func]
/// fn is_even(x: i64) -> bool { x % 2 == 0 }
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i64>::from_vec("v", [5], vec![2, 3, 4, 5, 7])?;
/// let n = rokkos_algorithms::remove_if(&rokkos::Serial, &v, is_even {})?;
/// assert_eq!(&v.to_vec()[..n], [3, 5, 7]);
/// # Ok(())
/// # }
/// ```
pub fn remove_if<E, T, L, P>(space: &E, v: &View<T, 1, L, E::Memory>, pred: P) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
    P: Func1<T, Output = bool>,
{
    let _ = pred;
    let n = v.extent(0);
    if n == 0 {
        return Ok(0);
    }
    let tmp = View::<T, 1, LayoutRight, E::Memory>::new_uninit_in(
        &space.memory_space(),
        "remove_if_scratch",
        [n],
    )?;
    let kept = scatter_if::<E, T, L, LayoutRight, P>(space, "remove_if", v, &tmp, false)?;
    parallel_for(
        &label("remove_if"),
        RangePolicy::new(space, 0..kept),
        copy_back_k(&tmp, v),
    )?;
    Ok(kept)
}
