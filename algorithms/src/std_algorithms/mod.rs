//! The parallel algorithms of Kokkos' `Kokkos::Experimental` namespace, over Views.
//!
//! Each algorithm is a function taking the execution space and rank-1 Views in that space's
//! memory (`View<T, 1, L, E::Memory>`, any layout: `LayoutRight`, `LayoutLeft`, or a strided
//! subview), and runs as kernels on that space: serial, rayon, wgpu, CUDA, or [`rokkos::Device`],
//! whichever it is. As Kokkos' `Kokkos::Experimental::fill(exespace, view, value)` is
//! `fill(&space, &view, value)` here. Every function returns a [`rokkos::Result`]: a launch that
//! fails, an allocation, Views whose extents do not fit together (`Err(ShapeMismatch)` naming
//! both Views), or Views that overlap where one is written (`Err(Aliasing)`) are errors, never
//! panics.
//!
//! | Kokkos | here |
//! | --- | --- |
//! | `fill`, `copy`, `replace`, `swap_ranges` | [`fill`], [`copy`], [`replace`], [`swap_ranges`] |
//! | `reverse`, `reverse_copy` | [`reverse`], [`reverse_copy`] |
//! | `reduce` (sum, with init, with a reducer) | [`reduce`], [`reduce_init`], [`reduce_with`] (`Sum`, `Prod`, `Min`, `Max`) |
//! | `inclusive_scan`, `exclusive_scan` | [`inclusive_scan`], [`exclusive_scan`] |
//! | `adjacent_difference` | [`adjacent_difference`] |
//! | `min_element`, `max_element`, `minmax_element` | [`min_element`], [`max_element`], [`minmax_element`] |
//! | `find`, `count`, `equal` | [`find`], [`count`], [`equal`] |
//! | `unique`, `unique_copy`, `remove`, `remove_copy` | [`unique`], [`unique_copy`], [`remove`], [`remove_copy`] |
//! | `transform` (unary, binary) | [`transform`], [`transform_binary`] |
//! | `transform_reduce` (sum of a unary or binary transformation) | [`transform_reduce`], [`transform_reduce_binary`] |
//! | `find_if`, `find_if_not`, `count_if`, `all_of`, `any_of`, `none_of`, `replace_if` | [`find_if`], [`find_if_not`], [`count_if`], [`all_of`], [`any_of`], [`none_of`], [`replace_if`] |
//! | `copy_if`, `remove_if`, `remove_copy_if` | [`copy_if`], [`remove_if`], [`remove_copy_if`] |
//!
//! `fill` shares its name with `rokkos::fill` (a value into a View, outside any space), which
//! `rokkos::prelude` brings too: with both glob imports, name the one meant
//! (`rokkos_algorithms::fill`, or `use rokkos_algorithms::fill;`).
//!
//! Where Kokkos returns an iterator, these return an index: the position found (the View's
//! extent when there is none, as Kokkos' `end`), or the number of elements written.
//!
//! # User functions
//!
//! The algorithms that apply an operation of the caller's ([`transform`], [`count_if`],
//! [`copy_if`], ...) run it inside their kernels on every backend, so it is kernel code: a
//! `#[rokkos::func]`, passed as its marker value `name {}` (the braced struct of the function's
//! name that `#[func]` defines beside it). The bound ([`Func1`] / [`Func2`]) is checked at
//! compile time: a function of another signature does not compile. A closure cannot be passed:
//! it has no IR for the device backends.
//!
//! ```
//! use rokkos_algorithms::{count_if, copy_if};
//!
//! #[rokkos::func]
//! fn is_even(x: i64) -> bool {
//!     x % 2 == 0
//! }
//!
//! # fn main() -> rokkos::Result<()> {
//! let v = rokkos::View::<i64>::from_vec("v", [5], vec![1, 2, 3, 4, 6])?;
//! assert_eq!(count_if(&rokkos::Serial, &v, is_even {})?, 3);
//! let evens = rokkos::View::<i64>::new("evens", [5])?;
//! assert_eq!(copy_if(&rokkos::Serial, &v, &evens, is_even {})?, 3);
//! assert_eq!(evens.to_vec()[..3], [2, 4, 6]);
//! # Ok(())
//! # }
//! ```
//!
//! # Element types
//!
//! [`Element`]: the scalar types kernels take as View elements (`u8`, `u16`, `i32`, `u32`, `i64`,
//! `u64`, `isize`, `usize`, `f32`, `f64`). The algorithms that reduce or scan the elements
//! themselves ([`reduce`], the scans, the `*_element` searches) also need the value to be a
//! reduction value on every backend ([`rokkos::AccValue`]): not `u8` / `u16`. A device that lacks
//! a type (`f64` or 64-bit integers on some wgpu adapters) answers its backend's
//! `Err(Unsupported)`, as every kernel does.
//!
//! # Semantics
//!
//! As `std`'s (and Kokkos'): [`min_element`] and [`max_element`] give the *first* minimum /
//! maximum, [`minmax_element`] the first minimum and the *last* maximum; [`find`] the first match;
//! [`unique`], [`remove`] and their copies are stable and keep the first element of each run;
//! [`exclusive_scan`] starts from an initial value; [`adjacent_difference`] copies the first
//! element. Integer arithmetic (sums, products, scans, differences) wraps, on every backend and in
//! every build, so its results are the same everywhere. Float comparisons are IEEE's: NaN equals
//! nothing (so [`unique`] keeps every NaN and [`count`] never counts one), and the min/max searches
//! and reductions skip NaN elements (a NaN is neither below nor above anything); see each
//! function. Float sums round according to how the backend splits the work (as every
//! `parallel_reduce` does).
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos_algorithms::*;
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let host = View::<i64>::from_vec("x", [6], vec![3, 1, 4, 1, 5, 9])?;
//! let x = create_mirror_view_and_copy_in(&dev, &host)?;
//! assert_eq!(reduce(&dev, &x)?, 23);
//! assert_eq!(min_element(&dev, &x)?, 1); // the first of the two 1s
//! let sums = DeviceView::<i64>::new_on(&dev, "sums", [6])?;
//! inclusive_scan(&dev, &x, &sums)?;
//! assert_eq!(create_mirror_view_and_copy(&sums)?.to_vec(), [3, 4, 8, 9, 14, 23]);
//! # Ok(())
//! # }
//! ```

// `#[kernel]` bodies here are generic over the element type; the arithmetic they do on it goes
// through [`Element`]'s wrapping methods (native path) and the IR's (device path).

mod compact;
mod functional;
mod modifying;
mod numeric;
mod search;

pub use compact::{remove, remove_copy, unique, unique_copy};
pub use functional::{
    all_of, any_of, copy_if, count_if, find_if, find_if_not, none_of, remove_copy_if, remove_if,
    replace_if, transform, transform_binary, transform_reduce, transform_reduce_binary,
};
pub use modifying::{adjacent_difference, copy, fill, replace, reverse, reverse_copy, swap_ranges};
pub use numeric::{exclusive_scan, inclusive_scan, reduce, reduce_init, reduce_with, ViewReducer};
/// The bounds of the user functions the algorithms take (from `rokkos::ir::build`).
pub use rokkos::ir::build::{Func1, Func2};
pub use search::{count, equal, find, max_element, min_element, minmax_element};

use rokkos::ir::build::IrNum;
use rokkos::{Error, Layout, MemorySpace, Pod, Result, Scalar, View};

/// The element types the algorithms take: the scalar types kernels take as View elements on every
/// backend (`u8`, `u16`, `i32`, `u32`, `i64`, `u64`, `isize`, `usize`, `f32`, `f64`).
///
/// Sealed (its supertraits are). Its methods are the arithmetic the algorithms' kernels do: the
/// same on the host and in the kernel IR, wrapping for integers in every build.
///
/// ```
/// use rokkos_algorithms::Element;
/// assert_eq!(Element::wrapping_add(250u8, 10), 4);
/// assert_eq!(Element::wrapping_sub(1.5f64, 2.0), -0.5);
/// ```
pub trait Element: Pod + Scalar + IrNum + sealed::Sealed {
    /// `self + b`, wrapping for integers (a plain `+` for floats).
    fn wrapping_add(self, b: Self) -> Self;
    /// `self - b`, wrapping for integers (a plain `-` for floats).
    fn wrapping_sub(self, b: Self) -> Self;
    /// `self * b`, wrapping for integers (a plain `*` for floats).
    fn wrapping_mul(self, b: Self) -> Self;
}

mod sealed {
    /// Implemented for [`super::Element`]'s types only.
    pub trait Sealed {}
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            #[inline(always)]
            fn wrapping_add(self, b: Self) -> Self { <$t>::wrapping_add(self, b) }
            #[inline(always)]
            fn wrapping_sub(self, b: Self) -> Self { <$t>::wrapping_sub(self, b) }
            #[inline(always)]
            fn wrapping_mul(self, b: Self) -> Self { <$t>::wrapping_mul(self, b) }
        }
    )*};
}
int_element!(u8, u16, i32, u32, i64, u64, isize, usize);

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            #[inline(always)]
            fn wrapping_add(self, b: Self) -> Self { self + b }
            #[inline(always)]
            fn wrapping_sub(self, b: Self) -> Self { self - b }
            #[inline(always)]
            fn wrapping_mul(self, b: Self) -> Self { self * b }
        }
    )*};
}
float_element!(f32, f64);

/// The launch label of algorithm `name`, for profiling (`ROKKOS_PROFILE=timer` lists them).
fn label(name: &str) -> String {
    format!("rokkos_algorithms::{name}")
}

/// `Err(ShapeMismatch)` unless `a` and `b` have the same extent.
fn same_extent<T: Pod, U: Pod, La: Layout, Lb: Layout, S: MemorySpace>(
    algorithm: &str,
    a: &View<T, 1, La, S>,
    b: &View<U, 1, Lb, S>,
) -> Result<usize> {
    let (n, m) = (a.extent(0), b.extent(0));
    if n == m {
        Ok(n)
    } else {
        Err(Error::ShapeMismatch {
            what: format!(
                "`{algorithm}`: View `{}` has extent {n} but View `{}` has extent {m}; they must be equal",
                a.label(),
                b.label()
            ),
        })
    }
}

/// `Err(ShapeMismatch)` unless `dst` can hold all of `src` (an output whose length depends on
/// the data); returns `src`'s extent.
fn room_for<T: Pod, La: Layout, Lb: Layout, S: MemorySpace>(
    algorithm: &str,
    src: &View<T, 1, La, S>,
    dst: &View<T, 1, Lb, S>,
) -> Result<usize> {
    let (n, m) = (src.extent(0), dst.extent(0));
    if m >= n {
        Ok(n)
    } else {
        Err(Error::ShapeMismatch {
            what: format!(
                "`{algorithm}`: destination View `{}` has extent {m}, less than the extent {n} of source View `{}`",
                dst.label(),
                src.label()
            ),
        })
    }
}
