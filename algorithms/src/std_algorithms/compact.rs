//! Stream compaction: `unique` and `remove`, in place and as copies. One `parallel_scan` both
//! counts the kept elements and scatters each to its position (the exclusive count of the kept
//! elements before it); the in-place forms scatter into a scratch View and copy the kept prefix
//! back.

use super::{label, room_for, Element};
use rokkos::{
    kernel, parallel_for, parallel_scan, ExecutionSpace, Layout, LayoutRight, RangePolicy, Result,
    View,
};

// The scatters write `dst[*partial]`: `partial` counts the kept elements before `i`, so distinct
// kept work items write distinct positions (the `unsafe` blocks assert this disjointness, which
// owner-computes cannot see). The write sits in the final pass, as the scan rules require.

#[kernel(scan)]
fn unique_scatter_k<T: Element>(
    i: usize,
    partial: &mut usize,
    is_final: bool,
    src: View<T>,
    dst: ViewMut<T>,
) {
    let x = src[i];
    let mut keep = true;
    if i > 0 {
        keep = x != src[i - 1];
    }
    if keep {
        if is_final {
            unsafe {
                dst[*partial] = x;
            }
        }
        *partial += 1;
    }
}

#[kernel(scan)]
fn remove_scatter_k<T: Element>(
    i: usize,
    partial: &mut usize,
    is_final: bool,
    src: View<T>,
    dst: ViewMut<T>,
    value: T,
) {
    let x = src[i];
    if x != value {
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

/// Which elements a compaction keeps.
#[derive(Clone, Copy)]
enum Keep<T> {
    /// The first of each run of equal elements.
    FirstOfRun,
    /// Those not equal to the value.
    NotEqual(T),
}

/// Scatters the kept elements of `src` to the front of `dst` (which holds at least `src`'s
/// extent); returns their number.
fn scatter<E, T, L1, L2>(
    space: &E,
    name: &str,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
    keep: Keep<T>,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    let policy = RangePolicy::new(space, 0..src.extent(0));
    match keep {
        Keep::FirstOfRun => parallel_scan(&label(name), policy, unique_scatter_k(src, dst)),
        Keep::NotEqual(value) => {
            parallel_scan(&label(name), policy, remove_scatter_k(src, dst, value))
        }
    }
}

/// Compacts `v` in place: the kept elements through a scratch View, then back to `v`'s front.
fn compact_in_place<E, T, L>(
    space: &E,
    name: &str,
    v: &View<T, 1, L, E::Memory>,
    keep: Keep<T>,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    let n = v.extent(0);
    if n == 0 {
        return Ok(0);
    }
    let tmp = View::<T, 1, LayoutRight, E::Memory>::new_uninit_in(
        &space.memory_space(),
        &format!("{name}_scratch"),
        [n],
    )?;
    let kept = scatter(space, name, v, &tmp, keep)?;
    parallel_for(
        &label(name),
        RangePolicy::new(space, 0..kept),
        copy_back_k(&tmp, v),
    )?;
    Ok(kept)
}

/// Removes consecutive duplicates in place, keeping the first of each run of equal elements, and
/// returns the new length (Kokkos' and `std`'s `unique`, Rust's `Vec::dedup`). The elements from
/// the new length on are left as they were. Floats compare as IEEE numbers: `-0.0` and `0.0`
/// are one run (the first stays), and every NaN stays.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i32>::from_vec("v", [7], vec![1, 1, 2, 2, 2, 1, 3])?;
/// let n = rokkos_algorithms::unique(&rokkos::Serial, &v)?;
/// assert_eq!(&v.to_vec()[..n], [1, 2, 1, 3]);
/// # Ok(())
/// # }
/// ```
pub fn unique<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    compact_in_place(space, "unique", v, Keep::FirstOfRun)
}

/// Writes `src` without its consecutive duplicates to the front of `dst` and returns how many
/// it wrote (Kokkos' `unique_copy`). `dst` must be at least as long as `src`
/// (`Err(ShapeMismatch)`) and may not overlap it; its other elements are left as they were.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<u32>::from_vec("a", [5], vec![4, 4, 4, 5, 4])?;
/// let b = rokkos::View::<u32>::new("b", [5])?;
/// assert_eq!(rokkos_algorithms::unique_copy(&rokkos::Serial, &a, &b)?, 3);
/// assert_eq!(b.to_vec(), [4, 5, 4, 0, 0]);
/// # Ok(())
/// # }
/// ```
pub fn unique_copy<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    room_for("unique_copy", src, dst)?;
    scatter(space, "unique_copy", src, dst, Keep::FirstOfRun)
}

/// Removes the elements equal to `value` in place, keeping the order of the others, and returns
/// the new length (Kokkos' and `std`'s `remove`, Rust's `Vec::retain`). The elements from the new
/// length on are left as they were. Floats compare as IEEE numbers (a NaN `value` removes
/// nothing).
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let v = rokkos::View::<i64>::from_vec("v", [6], vec![0, 3, 0, 0, 4, 5])?;
/// let n = rokkos_algorithms::remove(&rokkos::Serial, &v, 0)?;
/// assert_eq!(&v.to_vec()[..n], [3, 4, 5]);
/// # Ok(())
/// # }
/// ```
pub fn remove<E, T, L>(space: &E, v: &View<T, 1, L, E::Memory>, value: T) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L: Layout,
{
    compact_in_place(space, "remove", v, Keep::NotEqual(value))
}

/// Writes the elements of `src` not equal to `value`, in order, to the front of `dst` and returns
/// how many it wrote (Kokkos' `remove_copy`). `dst` must be at least as long as `src` and may not
/// overlap it; its other elements are left as they were.
///
/// ```
/// # fn main() -> rokkos::Result<()> {
/// let a = rokkos::View::<f64>::from_vec("a", [4], vec![1.0, 0.0, 2.0, -0.0])?;
/// let b = rokkos::View::<f64>::new("b", [4])?;
/// assert_eq!(rokkos_algorithms::remove_copy(&rokkos::Serial, &a, &b, 0.0)?, 2);
/// assert_eq!(b.to_vec()[..2], [1.0, 2.0]);
/// # Ok(())
/// # }
/// ```
pub fn remove_copy<E, T, L1, L2>(
    space: &E,
    src: &View<T, 1, L1, E::Memory>,
    dst: &View<T, 1, L2, E::Memory>,
    value: T,
) -> Result<usize>
where
    E: ExecutionSpace,
    T: Element,
    L1: Layout,
    L2: Layout,
{
    room_for("remove_copy", src, dst)?;
    scatter(space, "remove_copy", src, dst, Keep::NotEqual(value))
}
