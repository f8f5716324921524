//! [`BinSort`]: Kokkos' `BinSort` with its `BinOp1D`.

use super::host;
use super::kernels::{bin_bounds, k_f32, k_f64, k_i32, k_i64, k_u16, k_u32, k_u64, k_u8};
use super::{check_len, identity, range, upload, workers, PermView, Permute, SortKey, Temp};
use rokkos::{parallel_for, Error, ExecutionSpace, HostSpace, Layout, LayoutStride, Result, View};

/// What a [`BinOp1D`] passes to its kernel, worked out once on the host.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinParams {
    /// Signed integer keys: bins of `width` consecutive values from `min`.
    Signed {
        /// The span's lower end.
        min: i64,
        /// The span's upper end.
        max: i64,
        /// Values per bin (at least 1).
        width: u64,
    },
    /// Unsigned integer keys, as `Signed`.
    Unsigned {
        /// The span's lower end.
        min: u64,
        /// The span's upper end.
        max: u64,
        /// Values per bin (at least 1).
        width: u64,
    },
    /// Float keys: `floor((k - min) * scale)`, in the key type (its values widened to `f64`).
    Float {
        /// The span's lower end.
        min: f64,
        /// The span's upper end.
        max: f64,
        /// `nbins / (max - min)`.
        scale: f64,
    },
}

mod sealed {
    pub trait Sealed {}
    macro_rules! sealed { ($($t:ty),*) => { $(impl Sealed for $t {})* }; }
    sealed!(u8, u16, u32, u64, i32, i64, f32, f64);
}

/// The key types of a [`BinSort`]: `u8`, `u16`, `u32`, `u64`, `i32`, `i64`, `f32`, `f64`
/// (sealed; the kernel types among the [`SortKey`]s).
///
/// ```
/// fn binnable<K: rokkos_algorithms::BinKey>() {}
/// binnable::<u16>();
/// binnable::<f64>();
/// ```
pub trait BinKey: SortKey + sealed::Sealed {
    /// The kernel parameters of `BinOp1D::new(nbins, min, max)`, or `Err` naming what is wrong.
    #[doc(hidden)]
    fn __params(nbins: usize, min: Self, max: Self) -> Result<BinParams>;

    /// The bin of `k`, on the host, as the kernel computes it.
    #[doc(hidden)]
    fn __bin(p: &BinParams, last: usize, k: Self) -> usize;

    /// Writes the bin of every key into `bins`.
    #[doc(hidden)]
    fn __bins<E: ExecutionSpace, L: Layout>(
        space: &E,
        keys: &View<Self, 1, L, E::Memory>,
        p: &BinParams,
        last: usize,
        bins: &PermView<E>,
    ) -> Result<()>;
}

/// Kokkos' `BinOp1D`: `nbins` equal bins spanning `[min, max]`; keys outside the span are
/// clamped into it first, so a key below `min` lands in bin 0 and one above `max` in the bin
/// of `max`.
///
/// * **Integer keys**: bin `b` holds the `width = ceil((max - min + 1) / nbins)` consecutive
///   values from `min + b * width`, computed exactly (no float rounding). When the span has at
///   most `nbins` values, `width` is 1 and each value has its own bin, as in Kokkos; bins past
///   the one of `max` then stay empty.
/// * **Float keys**: bin `floor((k - min) * scale)` with `scale = nbins / (max - min)`, in the
///   key's own precision (`f32` keys in `f32`, so that devices without `f64` bin them), with
///   `max` itself in the last bin (Kokkos gives `max` a bin of its own; here there are exactly `nbins`). NaN goes
///   to the last bin, since NaN sorts last.
///
/// Bins are monotone in the key order, so sorting by bin and then within bins sorts by key.
///
/// ```
/// use rokkos_algorithms::BinOp1D;
///
/// let op = BinOp1D::new(4, 0i32, 99)?;
/// assert_eq!((op.bin(0), op.bin(24), op.bin(25), op.bin(99), op.bin(-7), op.bin(500)), (0, 0, 1, 3, 0, 3));
/// let f = BinOp1D::new(10, 0.0f64, 1.0)?;
/// assert_eq!((f.bin(0.05), f.bin(0.95), f.bin(1.0), f.bin(f64::NAN)), (0, 9, 9, 9));
/// # Ok::<(), rokkos::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinOp1D<K: BinKey> {
    nbins: usize,
    min: K,
    max: K,
    params: BinParams,
}

impl<K: BinKey> BinOp1D<K> {
    /// `nbins` bins over `[min, max]`. `Err(InvalidArgument)` when `nbins` is 0 or above
    /// `u32::MAX`, when `min > max`, and for floats unless `min < max` are finite with a finite
    /// difference.
    pub fn new(nbins: usize, min: K, max: K) -> Result<Self> {
        if nbins == 0 || nbins > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "BinOp1D: {nbins} bins; the number of bins must be in 1..={}",
                u32::MAX
            )));
        }
        let params = K::__params(nbins, min, max)?;
        Ok(BinOp1D {
            nbins,
            min,
            max,
            params,
        })
    }

    /// The number of bins.
    pub fn nbins(&self) -> usize {
        self.nbins
    }

    /// The lower end of the span.
    pub fn min(&self) -> K {
        self.min
    }

    /// The upper end of the span.
    pub fn max(&self) -> K {
        self.max
    }

    /// The bin of key `k` (in `0..nbins()`), as the kernels compute it.
    pub fn bin(&self, k: K) -> usize {
        K::__bin(&self.params, self.nbins - 1, k)
    }
}

macro_rules! int_key {
    ($variant:ident, $wide:ty, $($t:ty => $m:ident, $kw:ty, $kuw:ty);*) => {$(
        impl BinKey for $t {
            fn __params(nbins: usize, min: Self, max: Self) -> Result<BinParams> {
                if min > max {
                    return Err(Error::InvalidArgument(format!(
                        "BinOp1D: min {min} is above max {max}"
                    )));
                }
                let values = (max as i128 - min as i128) as u128 + 1;
                let width = values.div_ceil(nbins as u128).min(u64::MAX as u128) as u64;
                Ok(BinParams::$variant { min: min as $wide, max: max as $wide, width })
            }

            fn __bin(p: &BinParams, last: usize, k: Self) -> usize {
                let BinParams::$variant { min, max, width } = *p else {
                    unreachable!("BinOp1D::new makes the parameters of its key type")
                };
                let c = (k as $wide).clamp(min, max);
                let d = (c as i128 - min as i128) as u64;
                ((d / width) as usize).min(last)
            }

            fn __bins<E: ExecutionSpace, L: Layout>(
                space: &E,
                keys: &View<Self, 1, L, E::Memory>,
                p: &BinParams,
                last: usize,
                bins: &PermView<E>,
            ) -> Result<()> {
                let BinParams::$variant { min, max, width } = *p else {
                    unreachable!("BinOp1D::new makes the parameters of its key type")
                };
                let n = keys.extent(0);
                // `min` and `max` are keys, so they fit the kernel's type; a width past its
                // range puts every key in bin 0 whatever its value (the whole span is one bin).
                let width = width.min(<$kuw>::MAX as u64) as $kuw;
                let k = $m::bin_of(bins, keys, min as $kw, max as $kw, width, last as $kuw);
                parallel_for("BinSort: bins", range(space, n), k)
            }
        }
    )*};
}

int_key!(Signed, i64, i32 => k_i32, i32, u32; i64 => k_i64, i64, u64);
int_key!(Unsigned, u64, u8 => k_u8, u32, u32; u16 => k_u16, u32, u32; u32 => k_u32, u32, u32;
    u64 => k_u64, u64, u64);

macro_rules! float_key {
    ($($t:ty => $m:ident),*) => {$(
        impl BinKey for $t {
            fn __params(nbins: usize, min: Self, max: Self) -> Result<BinParams> {
                let span = max - min;
                let scale = nbins as $t / span;
                if !(min.is_finite() && max.is_finite() && min < max && scale.is_finite()) {
                    return Err(Error::InvalidArgument(format!(
                        "BinOp1D: float bins need finite min < max whose difference divides \
                         the bin count finitely, got min {min} and max {max}"
                    )));
                }
                Ok(BinParams::Float { min: min as f64, max: max as f64, scale: scale as f64 })
            }

            fn __bin(p: &BinParams, last: usize, k: Self) -> usize {
                let BinParams::Float { min, max, scale } = *p else {
                    unreachable!("BinOp1D::new makes the parameters of its key type")
                };
                // The parameters are values of the key type (widened exactly for `f32`).
                let (min, max, scale) = (min as $t, max as $t, scale as $t);
                if k.is_nan() {
                    return last;
                }
                (((k.clamp(min, max) - min) * scale) as u32).min(last as u32) as usize
            }

            fn __bins<E: ExecutionSpace, L: Layout>(
                space: &E,
                keys: &View<Self, 1, L, E::Memory>,
                p: &BinParams,
                last: usize,
                bins: &PermView<E>,
            ) -> Result<()> {
                let BinParams::Float { min, max, scale } = *p else {
                    unreachable!("BinOp1D::new makes the parameters of its key type")
                };
                let n = keys.extent(0);
                let k = $m::bin_of(bins, keys, min as $t, max as $t, scale as $t, last as u32);
                parallel_for("BinSort: bins", range(space, n), k)
            }
        }
    )*};
}

float_key!(f32 => k_f32, f64 => k_f64);

/// What [`BinSort::create_permute_vector`] computes.
struct Built<E: ExecutionSpace> {
    permute: PermView<E>,
    offsets: Temp<E, u32>,
    counts: Temp<E, u32>,
}

/// Kokkos' `BinSort`: groups the positions of a keys View by bin, and applies that order to
/// any number of other Views.
///
/// [`BinSort::create_permute_vector`] computes the permutation `p` (position `i` of the sorted
/// order holds element `p[i]`), the bin offsets (bin `b` starts at `offsets[b]` in the sorted
/// order) and the bin counts. Within a bin, elements keep their original order, or, with
/// `sort_within_bins`, are sorted by key (stably). Unlike Kokkos', whose order within a bin
/// comes from atomics, the permutation is the same on every backend and every run.
/// [`BinSort::sort`] then permutes a View: `values[i] = old_values[p[i]]`.
///
/// ```
/// use rokkos::prelude::*;
/// use rokkos_algorithms::{BinOp1D, BinSort};
///
/// # fn main() -> rokkos::Result<()> {
/// let keys = View::<i32>::from_vec("keys", [6], vec![7, 1, 9, 4, 0, 5])?;
/// let names = View::<u8>::from_vec("names", [6], b"abcdef".to_vec())?;
/// let mut bs = BinSort::new(&Serial, &keys, BinOp1D::new(2, 0, 9)?, false)?;
/// bs.create_permute_vector()?;
/// assert_eq!(bs.get_permute_vector()?.to_vec(), vec![1, 3, 4, 0, 2, 5]);
/// assert_eq!(bs.get_bin_offsets()?.to_vec(), vec![0, 3]);
/// assert_eq!(bs.get_bin_count()?.to_vec(), vec![3, 3]);
/// bs.sort(&names)?; // any number of Views
/// bs.sort(&keys)?;
/// assert_eq!(names.to_vec(), b"bdeacf".to_vec());
/// assert_eq!(keys.to_vec(), vec![1, 4, 0, 7, 9, 5]);
/// # Ok(())
/// # }
/// ```
pub struct BinSort<E: ExecutionSpace, K: BinKey> {
    space: E,
    keys: View<K, 1, LayoutStride, E::Memory>,
    op: BinOp1D<K>,
    sort_within_bins: bool,
    built: Option<Built<E>>,
}

impl<E: ExecutionSpace, K: BinKey> BinSort<E, K> {
    /// A bin sort of `keys` (a rank-1 View of any layout, shared, not copied) on `space`.
    /// Nothing is computed until [`BinSort::create_permute_vector`]. `Err(InvalidArgument)`
    /// when `keys` has more than `u32::MAX` elements.
    pub fn new<L: Layout>(
        space: &E,
        keys: &View<K, 1, L, E::Memory>,
        op: BinOp1D<K>,
        sort_within_bins: bool,
    ) -> Result<Self> {
        check_len(keys.label(), keys.extent(0))?;
        Ok(BinSort {
            space: space.clone(),
            keys: keys.to_layout_stride(),
            op,
            sort_within_bins,
            built: None,
        })
    }

    /// Computes the bin of every key, the permutation, the bin offsets and the bin counts from
    /// the keys as they are now (calling it again recomputes them).
    pub fn create_permute_vector(&mut self) -> Result<()> {
        if let Some(kh) = self.keys.host_twin() {
            return self.build_on_host(&kh);
        }
        let space = &self.space;
        let n = self.keys.extent(0);
        let nbins = self.op.nbins();
        let mem = space.memory_space();
        let bins: PermView<E> = View::new_uninit_in(&mem, "BinSort: bins", [n])?;
        if n > 0 {
            K::__bins(space, &self.keys, &self.op.params, nbins - 1, &bins)?;
        }
        let (permute, sorted_bins) = if n < 2 {
            (identity(space, n)?, bins)
        } else if self.sort_within_bins {
            // Bins are monotone in the key order: sorting by key sorts by bin too.
            match K::__sort(space, &self.keys, true)?.perm {
                Some(p) => {
                    let sb = u32::__gather(space, &bins, &p)?;
                    (p, sb)
                }
                None => (identity(space, n)?, bins),
            }
        } else {
            let s = u32::__sort(space, &bins, true)?;
            match (s.perm, s.keys) {
                (Some(p), Some(sb)) => (p, sb),
                _ => (identity(space, n)?, bins),
            }
        };
        let offsets: Temp<E, u32> = View::new_uninit_in(&mem, "BinSort: bin offsets", [nbins])?;
        let counts: Temp<E, u32> = View::new_uninit_in(&mem, "BinSort: bin counts", [nbins])?;
        parallel_for(
            "BinSort: bin bounds",
            range(space, nbins),
            bin_bounds(&offsets, &counts, &sorted_bins),
        )?;
        self.built = Some(Built {
            permute,
            offsets,
            counts,
        });
        Ok(())
    }

    /// [`BinSort::create_permute_vector`] for keys in host memory: the bins by
    /// [`BinOp1D::bin`] and a counting sort by bin, or a stable sort by key within bins.
    fn build_on_host(&mut self, keys: &View<K, 1, LayoutStride, HostSpace>) -> Result<()> {
        let keys = host::read(keys)?;
        let (n, nbins) = (keys.len(), self.op.nbins());
        // `BinOp1D::new` bounds `nbins` by `u32::MAX`.
        let bins: Vec<u32> = keys.iter().map(|&k| self.op.bin(k) as u32).collect();
        let (permute, offsets, counts) = if self.sort_within_bins {
            // Bins are monotone in the key order: sorting by key sorts by bin too.
            let perm = host::permutation(&keys, workers(&self.space, n));
            let mut counts = vec![0u32; nbins];
            for &b in &bins {
                counts[b as usize] += 1;
            }
            (perm, host::offsets(&counts), counts)
        } else {
            host::counting_sort(&bins, nbins)
        };
        let space = &self.space;
        self.built = Some(Built {
            permute: upload(space, "BinSort: permutation", [n], permute)?,
            offsets: upload(space, "BinSort: bin offsets", [nbins], offsets)?,
            counts: upload(space, "BinSort: bin counts", [nbins], counts)?,
        });
        Ok(())
    }

    fn built(&self, what: &str) -> Result<&Built<E>> {
        self.built.as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "BinSort of `{}`: {what} before create_permute_vector()",
                self.keys.label()
            ))
        })
    }

    /// Permutes `values` (rank 1, any layout, any [`Permute`] type, `keys` itself included):
    /// `values[i] = old_values[p[i]]`. `Err(ShapeMismatch)` naming both Views when `values`
    /// does not have one element per key, `Err(InvalidArgument)` before
    /// [`BinSort::create_permute_vector`]; `values` is unchanged then.
    pub fn sort<V: Permute, L: Layout>(&self, values: &View<V, 1, L, E::Memory>) -> Result<()> {
        let b = self.built("sort()")?;
        self.check_rows(values.label(), values.extent(0))?;
        if values.extent(0) < 2 {
            return Ok(());
        }
        if let (Some(vh), Some(ph)) = (values.host_twin(), b.permute.host_twin()) {
            // The permutation is read first: `values` may be the permutation View itself.
            return host::permute(&vh, &host::read(&ph)?);
        }
        let tmp = V::__gather(&self.space, values, &b.permute)?;
        V::__store(&self.space, values, &tmp)
    }

    /// Permutes the rows of the rank-2 View `values`: row `i` becomes the old row `p[i]`.
    /// Errors as [`BinSort::sort`].
    ///
    /// ```
    /// use rokkos::prelude::*;
    /// use rokkos_algorithms::{BinOp1D, BinSort};
    ///
    /// # fn main() -> rokkos::Result<()> {
    /// let keys = View::<f32>::from_vec("keys", [3], vec![0.9, 0.1, 0.5])?;
    /// let xyz = View::<f64, 2>::from_vec("xyz", [3, 2], vec![9.0, 9.5, 1.0, 1.5, 5.0, 5.5])?;
    /// let mut bs = BinSort::new(&Serial, &keys, BinOp1D::new(4, 0.0, 1.0)?, true)?;
    /// bs.create_permute_vector()?;
    /// bs.sort_rows(&xyz)?;
    /// assert_eq!(xyz.to_vec(), vec![1.0, 1.5, 5.0, 5.5, 9.0, 9.5]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn sort_rows<V: Permute, L: Layout>(
        &self,
        values: &View<V, 2, L, E::Memory>,
    ) -> Result<()> {
        let b = self.built("sort_rows()")?;
        self.check_rows(values.label(), values.extent(0))?;
        if values.extent(0) < 2 || values.extent(1) == 0 {
            return Ok(());
        }
        if let (Some(vh), Some(ph)) = (values.host_twin(), b.permute.host_twin()) {
            return host::permute_rows(&vh, &host::read(&ph)?);
        }
        let tmp = V::__gather_rows(&self.space, values, &b.permute)?;
        V::__store_rows(&self.space, values, &tmp)
    }

    fn check_rows(&self, label: &str, rows: usize) -> Result<()> {
        let n = self.keys.extent(0);
        if rows != n {
            return Err(Error::ShapeMismatch {
                what: format!(
                    "BinSort::sort: keys `{}` have {n} elements, `{label}` has {rows} rows",
                    self.keys.label()
                ),
            });
        }
        Ok(())
    }

    /// The permutation: position `i` of the binned order holds element `p[i]`.
    pub fn get_permute_vector(&self) -> Result<&PermView<E>> {
        Ok(&self.built("get_permute_vector()")?.permute)
    }

    /// Where each bin starts in the binned order (`nbins` entries, ascending).
    pub fn get_bin_offsets(&self) -> Result<&Temp<E, u32>> {
        Ok(&self.built("get_bin_offsets()")?.offsets)
    }

    /// How many keys fall in each bin (`nbins` entries).
    pub fn get_bin_count(&self) -> Result<&Temp<E, u32>> {
        Ok(&self.built("get_bin_count()")?.counts)
    }

    /// Whether elements are sorted by key within their bins.
    pub fn get_sort_within_bins(&self) -> bool {
        self.sort_within_bins
    }

    /// The bin operator.
    pub fn bin_op(&self) -> &BinOp1D<K> {
        &self.op
    }
}
