//! Sorting Views: [`sort`], [`sort_by_key`] and [`BinSort`], Kokkos' `Kokkos::sort`,
//! `Kokkos::Experimental::sort_by_key` and `Kokkos::BinSort`, on every backend.
//!
//! # The order
//!
//! Integers sort ascending. Floats sort ascending in IEEE 754 order with `-0.0` before `+0.0`
//! and **every NaN last**: after `+inf`, whatever its sign bit or payload. NaNs are equal to
//! each other, so a stable sort keeps them in their original order. (This differs from
//! `f64::total_cmp` only for NaNs with the sign bit set, which `total_cmp` puts first.)
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos_algorithms::sort;
//!
//! # fn main() -> rokkos::Result<()> {
//! let v = View::<f64>::from_vec("v", [6], vec![2.0, f64::NAN, -0.0, -f64::NAN, 0.0, f64::NEG_INFINITY])?;
//! sort(&Serial, &v)?;
//! let got = v.to_vec();
//! assert_eq!(&got[..4], &[f64::NEG_INFINITY, -0.0, 0.0, 2.0]);
//! assert!(got[1].is_sign_negative() && got[2].is_sign_positive());
//! assert!(got[4].is_nan() && got[5].is_nan());
//! # Ok(())
//! # }
//! ```
//!
//! # How
//!
//! * **Host memory** (serial, rayon, and `Device` over them: Views whose [`View::host_twin`] is
//!   `Some`): no kernel. The View's elements are sorted as a host slice (in place when the View
//!   is contiguous, else gathered into a copy and written back) by a stable radix sort on
//!   each key's order-preserving unsigned image (for floats: the order above; NaNs follow in
//!   input order), one byte per pass, most significant varying byte first, until the buckets
//!   fit the cache, where an LSD radix sort finishes them; bytes every key shares cost no pass.
//!   With a space of more than one worker and large inputs, each worker distributes one
//!   contiguous chunk and then sorts one contiguous range of buckets. The workers are scoped
//!   threads, as many as the space's [`concurrency`](rokkos::ExecutionSpace::concurrency)
//!   (`rokkos::Rayon` does not hand its pool to other crates). [`sort_by_key`] sorts (key,
//!   value) pairs the same way; [`BinSort`]'s permutation is a counting sort by bin. All of it
//!   is safe code.
//! * **Devices** (wgpu, CUDA, and the IR evaluator): stable bottom-up merge sorts written as
//!   `#[kernel]`s, `ceil(log2 n)` `parallel_for` passes in which output position `k` finds its
//!   element by a binary search on the merge path of its pair of runs (Green, McColl and Bader,
//!   *GPU merge path*, 2012) and copies it: every write is at the work item's own index (a
//!   gather), which `#[kernel]`'s owner-computes rule proves race-free, with no atomics and no
//!   `unsafe`. `O(n log² n)` work; the index arithmetic is 32-bit, so devices without 64-bit
//!   integers sort 32-bit keys. Input that is already sorted costs one reduction and no pass.
//!   The temporaries (a copy of the keys, and with [`sort_by_key`] two `u32` permutations) live
//!   in the space's memory. A radix sort needs a float's bits as an integer, and the kernel
//!   language has no bit cast; a comparison sort orders floats with `is_nan`, `<` and `signum`
//!   alone, which every backend evaluates exactly.
//!
//! Both sorts are stable and order keys alike, so the output, and every permutation, is the same
//! on every backend.
//!
//! # Element types
//!
//! Keys: `u8`, `u16`, `u32`, `u64`, `i8`, `i16`, `i32`, `i64`, `f32`, `f64`. On devices, all
//! but `i8` and `i16` sort in kernels; a device that lacks one (`f64` or the 64-bit integers on
//! a wgpu adapter without `SHADER_F64` / `SHADER_INT64`) answers its backend's
//! `Err(Unsupported)`. `i8` and `i16` are not kernel types (the IR has no signed 8- or 16-bit
//! integer), so a device View of them is copied to a host mirror, sorted with `slice::sort` and
//! copied back. The same holds for values ([`Permute`]). Views may have any layout, strided subviews included,
//! and at most `u32::MAX` elements (the permutations are `u32`).

mod binsort;
mod host;
mod kernels;

pub use binsort::{BinKey, BinOp1D, BinSort};

use kernels::*;
use rokkos::{
    create_mirror_view_and_copy, deep_copy, parallel_for, parallel_reduce, Error, ExecutionSpace,
    Layout, LayoutRight, MDRangePolicy, Pod, RangePolicy, Result, Sum, View,
};

/// A `u32` permutation View in the memory of execution space `E`.
pub type PermView<E> = View<u32, 1, LayoutRight, <E as ExecutionSpace>::Memory>;

mod sealed {
    pub trait Sealed {}
    macro_rules! sealed { ($($t:ty),*) => { $(impl Sealed for $t {})* }; }
    sealed!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);
}

/// A contiguous temporary View in the memory of execution space `E`.
#[doc(hidden)]
pub type Temp<E, T, const R: usize = 1> = View<T, R, LayoutRight, <E as ExecutionSpace>::Memory>;

/// What [`SortKey::__sort`] found: the sorted keys and the permutation that sorts them, or
/// `None` for both when the keys were already sorted (the permutation is then the identity).
#[doc(hidden)]
pub struct Sorted<E: ExecutionSpace, K: Pod> {
    /// The keys in sorted order.
    pub keys: Option<Temp<E, K>>,
    /// `perm[i]`: the position in the input of the key now at `i` (when asked for).
    pub perm: Option<PermView<E>>,
}

/// The key types [`sort`] and [`sort_by_key`] accept: `u8`, `u16`, `u32`, `u64`, `i8`, `i16`,
/// `i32`, `i64`, `f32`, `f64` (sealed). See the [module documentation](self) for the order and
/// where each type is sorted.
///
/// ```
/// fn sortable<K: rokkos_algorithms::SortKey>() {}
/// sortable::<i16>();
/// sortable::<f32>();
/// ```
pub trait SortKey: Permute + host::HostKey {
    /// Sorts a copy of `keys` (stably), with the permutation when `with_perm`; `keys` is not
    /// written. It has at least two elements and at most `u32::MAX`.
    #[doc(hidden)]
    fn __sort<E: ExecutionSpace, L: Layout>(
        space: &E,
        keys: &View<Self, 1, L, E::Memory>,
        with_perm: bool,
    ) -> Result<Sorted<E, Self>>;
}

/// The value types a permutation can be applied to ([`sort_by_key`], [`BinSort::sort`]): the
/// same types as [`SortKey`] (sealed).
///
/// ```
/// fn movable<V: rokkos_algorithms::Permute>() {}
/// movable::<i8>();
/// movable::<f64>();
/// ```
pub trait Permute: Pod + Send + Sync + sealed::Sealed {
    /// A new View holding `values[perm[i]]` at `i`.
    #[doc(hidden)]
    fn __gather<E: ExecutionSpace, L: Layout>(
        space: &E,
        values: &View<Self, 1, L, E::Memory>,
        perm: &PermView<E>,
    ) -> Result<Temp<E, Self>>;

    /// A new View holding row `perm[i]` of `values` as row `i`.
    #[doc(hidden)]
    fn __gather_rows<E: ExecutionSpace, L: Layout>(
        space: &E,
        values: &View<Self, 2, L, E::Memory>,
        perm: &PermView<E>,
    ) -> Result<Temp<E, Self, 2>>;

    /// Copies `src` into `dst` (same extents).
    #[doc(hidden)]
    fn __store<E: ExecutionSpace, L: Layout>(
        space: &E,
        dst: &View<Self, 1, L, E::Memory>,
        src: &Temp<E, Self>,
    ) -> Result<()>;

    /// Copies `src` into `dst` (same extents), rank 2.
    #[doc(hidden)]
    fn __store_rows<E: ExecutionSpace, L: Layout>(
        space: &E,
        dst: &View<Self, 2, L, E::Memory>,
        src: &Temp<E, Self, 2>,
    ) -> Result<()>;
}

/// Sorts the rank-1 View `view` in place, ascending (see the [module documentation](self) for
/// the float order), on `space`. The sort is stable (equal keys keep their order, which shows
/// only in NaN payloads).
///
/// `Err` where the View has more than `u32::MAX` elements, where a temporary View cannot be
/// allocated, or where the backend cannot run the element type (`Unsupported`); the View is then
/// unchanged.
///
/// ```
/// use rokkos::prelude::*;
///
/// # fn main() -> rokkos::Result<()> {
/// let dev = Device::new()?;
/// let h = View::<i32>::from_vec("x", [5], vec![3, -1, 4, 1, -5])?;
/// let x = create_mirror_view_and_copy_in(&dev, &h)?;
/// rokkos_algorithms::sort(&dev, &x)?;
/// assert_eq!(create_mirror_view_and_copy(&x)?.to_vec(), vec![-5, -1, 1, 3, 4]);
/// # Ok(())
/// # }
/// ```
pub fn sort<E: ExecutionSpace, K: SortKey, L: Layout>(
    space: &E,
    view: &View<K, 1, L, E::Memory>,
) -> Result<()> {
    check_len(view.label(), view.extent(0))?;
    if view.extent(0) < 2 {
        return Ok(());
    }
    if let Some(h) = view.host_twin() {
        return host::sort(&h, workers(space, view.extent(0)));
    }
    match K::__sort(space, view, false)?.keys {
        Some(sorted) => K::__store(space, view, &sorted),
        None => Ok(()),
    }
}

/// Sorts `keys` ascending and moves `values` with them: after the call `keys` is sorted and
/// `values[i]` is the value that sat beside `keys[i]`. Stable: values of equal keys keep their
/// order (Kokkos' `sort_by_key`).
///
/// Keys and values may be Views of one allocation, such as two columns of a matrix (both
/// results are computed before either View is written; where the two Views overlap, the
/// values are written last). `Err(ShapeMismatch)` naming both Views when their extents differ;
/// nothing is changed then.
///
/// ```
/// use rokkos::prelude::*;
///
/// # fn main() -> rokkos::Result<()> {
/// let keys = View::<u32>::from_vec("keys", [5], vec![2, 0, 2, 1, 0])?;
/// let vals = View::<f32>::from_vec("vals", [5], vec![0.0, 1.0, 2.0, 3.0, 4.0])?;
/// rokkos_algorithms::sort_by_key(&Serial, &keys, &vals)?;
/// assert_eq!(keys.to_vec(), vec![0, 0, 1, 2, 2]);
/// assert_eq!(vals.to_vec(), vec![1.0, 4.0, 3.0, 0.0, 2.0]);
/// # Ok(())
/// # }
/// ```
pub fn sort_by_key<E, K, V, LK, LV>(
    space: &E,
    keys: &View<K, 1, LK, E::Memory>,
    values: &View<V, 1, LV, E::Memory>,
) -> Result<()>
where
    E: ExecutionSpace,
    K: SortKey,
    V: Permute,
    LK: Layout,
    LV: Layout,
{
    let n = keys.extent(0);
    if values.extent(0) != n {
        return Err(Error::ShapeMismatch {
            what: format!(
                "sort_by_key: keys `{}` have {n} elements, values `{}` have {}",
                keys.label(),
                values.label(),
                values.extent(0)
            ),
        });
    }
    check_len(keys.label(), n)?;
    if n < 2 {
        return Ok(());
    }
    if let (Some(kh), Some(vh)) = (keys.host_twin(), values.host_twin()) {
        let same = keys.shares_allocation_with(values);
        return host::sort_by_key(&kh, &vh, same, workers(space, n));
    }
    let sorted = K::__sort(space, keys, true)?;
    let (Some(sk), Some(perm)) = (sorted.keys, sorted.perm) else {
        // Already sorted: the stable permutation is the identity.
        return Ok(());
    };
    // Both results exist before either View is written, so a failure leaves both unchanged.
    let sv = V::__gather(space, values, &perm)?;
    K::__store(space, keys, &sk)?;
    V::__store(space, values, &sv)
}

pub(crate) fn check_len(label: &str, n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "sorting View `{label}`: {n} elements, more than the {} a u32 permutation can index",
            u32::MAX
        )));
    }
    Ok(())
}

fn range<E: ExecutionSpace>(space: &E, n: usize) -> RangePolicy<E> {
    RangePolicy::new(space, 0..n)
}

/// The identity permutation of `0..n` in `space`'s memory.
pub(crate) fn identity<E: ExecutionSpace>(space: &E, n: usize) -> Result<PermView<E>> {
    let p = View::new_uninit_in(&space.memory_space(), "sort: permutation", [n])?;
    if n > 0 {
        parallel_for("sort: iota", range(space, n), iota(&p))?;
    }
    Ok(p)
}

/// The workers a host sort of `n` elements uses on `space`.
pub(crate) fn workers<E: ExecutionSpace>(space: &E, n: usize) -> usize {
    host::workers(space.concurrency(), n)
}

/// [`SortKey`] and [`Permute`] for the types kernels can hold: the merge sort in kernels (for
/// memory that is not host memory).
macro_rules! kernel_types {
    ($($t:ty => $m:ident),*) => {$(
        impl SortKey for $t {
            fn __sort<E: ExecutionSpace, L: Layout>(
                space: &E,
                keys: &View<Self, 1, L, E::Memory>,
                with_perm: bool,
            ) -> Result<Sorted<E, Self>> {
                let n = keys.extent(0);
                let d: u32 = parallel_reduce("sort: descents", range(space, n), $m::descents(keys), Sum)?;
                if d == 0 {
                    return Ok(Sorted { keys: None, perm: None });
                }
                let mem = space.memory_space();
                let mut a: Temp<E, $t> = View::new_uninit_in(&mem, "sort: keys", [n])?;
                let mut b: Temp<E, $t> = View::new_uninit_in(&mem, "sort: keys'", [n])?;
                // A permutation View stands in for the unused `pdst`/`psrc` when `!with_perm`.
                let plen = if with_perm { n } else { 0 };
                let mut pa: PermView<E> = View::new_uninit_in(&mem, "sort: permutation", [plen])?;
                let mut pb: PermView<E> = View::new_uninit_in(&mem, "sort: permutation'", [plen])?;
                parallel_for("sort: load", range(space, n), copy_elems(&a, keys))?;
                if with_perm {
                    parallel_for("sort: iota", range(space, n), iota(&pa))?;
                }
                let mut w = 1usize;
                while w < n {
                    // `w < n <= u32::MAX`.
                    if with_perm {
                        let k = $m::merge_perm(&b, &a, &pb, &pa, w as u32);
                        parallel_for("sort: merge", range(space, n), k)?;
                        std::mem::swap(&mut pa, &mut pb);
                    } else {
                        parallel_for("sort: merge", range(space, n), $m::merge(&b, &a, w as u32))?;
                    }
                    std::mem::swap(&mut a, &mut b);
                    w *= 2;
                }
                Ok(Sorted { keys: Some(a), perm: with_perm.then_some(pa) })
            }
        }

        impl Permute for $t {
            fn __gather<E: ExecutionSpace, L: Layout>(
                space: &E,
                values: &View<Self, 1, L, E::Memory>,
                perm: &PermView<E>,
            ) -> Result<Temp<E, Self>> {
                let n = values.extent(0);
                let out = View::new_uninit_in(&space.memory_space(), "sort: values", [n])?;
                if n > 0 {
                    parallel_for("sort: gather", range(space, n), gather(&out, values, perm))?;
                }
                Ok(out)
            }

            fn __gather_rows<E: ExecutionSpace, L: Layout>(
                space: &E,
                values: &View<Self, 2, L, E::Memory>,
                perm: &PermView<E>,
            ) -> Result<Temp<E, Self, 2>> {
                let ext = values.extents();
                let out = View::new_uninit_in(&space.memory_space(), "sort: rows", ext)?;
                if ext[0] > 0 && ext[1] > 0 {
                    let md = MDRangePolicy::new(space, [0, 0], ext);
                    parallel_for("sort: gather rows", md, gather_rows(&out, values, perm))?;
                }
                Ok(out)
            }

            fn __store<E: ExecutionSpace, L: Layout>(
                space: &E,
                dst: &View<Self, 1, L, E::Memory>,
                src: &Temp<E, Self>,
            ) -> Result<()> {
                let n = dst.extent(0);
                if n > 0 {
                    parallel_for("sort: store", range(space, n), copy_elems(dst, src))?;
                }
                Ok(())
            }

            fn __store_rows<E: ExecutionSpace, L: Layout>(
                space: &E,
                dst: &View<Self, 2, L, E::Memory>,
                src: &Temp<E, Self, 2>,
            ) -> Result<()> {
                let ext = dst.extents();
                if ext[0] > 0 && ext[1] > 0 {
                    let md = MDRangePolicy::new(space, [0, 0], ext);
                    parallel_for("sort: store rows", md, copy_rows(dst, src))?;
                }
                Ok(())
            }
        }
    )*};
}

kernel_types!(u8 => k_u8, u16 => k_u16, u32 => k_u32, u64 => k_u64, i32 => k_i32, i64 => k_i64,
    f32 => k_f32, f64 => k_f64);

/// [`SortKey`] and [`Permute`] for `i8` and `i16`, which kernels cannot hold: through a host
/// mirror.
macro_rules! host_types {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            fn __sort<E: ExecutionSpace, L: Layout>(
                space: &E,
                keys: &View<Self, 1, L, E::Memory>,
                with_perm: bool,
            ) -> Result<Sorted<E, Self>> {
                let host = create_mirror_view_and_copy(keys)?.to_vec();
                if host.windows(2).all(|w| w[0] <= w[1]) {
                    return Ok(Sorted { keys: None, perm: None });
                }
                let mut idx: Vec<u32> = (0..host.len() as u32).collect();
                idx.sort_by_key(|&i| host[i as usize]);
                let sorted: Vec<$t> = idx.iter().map(|&i| host[i as usize]).collect();
                let perm = if with_perm { Some(upload(space, "sort: permutation", [idx.len()], idx)?) } else { None };
                Ok(Sorted { keys: Some(upload(space, "sort: keys", [host.len()], sorted)?), perm })
            }
        }

        impl Permute for $t {
            fn __gather<E: ExecutionSpace, L: Layout>(
                space: &E,
                values: &View<Self, 1, L, E::Memory>,
                perm: &PermView<E>,
            ) -> Result<Temp<E, Self>> {
                let v = create_mirror_view_and_copy(values)?.to_vec();
                let p = create_mirror_view_and_copy(perm)?.to_vec();
                let out: Vec<$t> = p.iter().map(|&i| v[i as usize]).collect();
                upload(space, "sort: values", [out.len()], out)
            }

            fn __gather_rows<E: ExecutionSpace, L: Layout>(
                space: &E,
                values: &View<Self, 2, L, E::Memory>,
                perm: &PermView<E>,
            ) -> Result<Temp<E, Self, 2>> {
                let [rows, cols] = values.extents();
                let v = create_mirror_view_and_copy(values)?.to_vec();
                let p = create_mirror_view_and_copy(perm)?.to_vec();
                let mut out = Vec::with_capacity(rows * cols);
                for &r in &p {
                    let r = r as usize;
                    out.extend_from_slice(&v[r * cols..(r + 1) * cols]);
                }
                upload(space, "sort: rows", [rows, cols], out)
            }

            fn __store<E: ExecutionSpace, L: Layout>(
                _space: &E,
                dst: &View<Self, 1, L, E::Memory>,
                src: &Temp<E, Self>,
            ) -> Result<()> {
                deep_copy(dst, src)
            }

            fn __store_rows<E: ExecutionSpace, L: Layout>(
                _space: &E,
                dst: &View<Self, 2, L, E::Memory>,
                src: &Temp<E, Self, 2>,
            ) -> Result<()> {
                deep_copy(dst, src)
            }
        }
    )*};
}

host_types!(i8, i16);

/// A new View in `space`'s memory holding `data` (row-major).
pub(crate) fn upload<E: ExecutionSpace, T: Pod, const R: usize>(
    space: &E,
    label: &str,
    extents: [usize; R],
    data: Vec<T>,
) -> Result<Temp<E, T, R>> {
    let host = View::<T, R>::from_vec(label, extents, data)?;
    let d = View::new_uninit_in(&space.memory_space(), label, extents)?;
    deep_copy(&d, &host)?;
    Ok(d)
}
