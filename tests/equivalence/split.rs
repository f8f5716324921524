//! Views larger than one storage binding (issue 15, item 4). The wgpu backend binds such a View as
//! several chunks and its accessors pick the chunk from the element offset; these bodies run on
//! every backend as usual and, in `on_split_wgpu`, on a wgpu device whose bindings are forced down
//! to [`LIMIT`] bytes ([`rokkos::Wgpu::with_max_binding`]), so that Views of a few hundred
//! elements are split into many chunks: rank 1 to 3, LayoutLeft/Right/Stride subviews at offsets,
//! atomics, `u8` Views (packed words), reductions (into a split View's element too), and the copy
//! paths (deep_copy, fill, mirrors, resize). Each compares with a plain Rust loop.

use crate::{check, dev, dev_from_fn, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// The forced binding limit: 256 `i32`s or 1024 `u8`s per chunk, so that the Views below (up to
/// about 15 KiB) take up to 15 bindings each, within lavapipe's 32 per shader stage.
#[cfg(feature = "wgpu")]
pub const LIMIT: u64 = 1024;

#[kernel]
fn scale_add(i: usize, y: ViewMut<i32>, x: View<i32>, a: i32) {
    y[i] = y[i] + a * x[i];
}

#[kernel]
fn put2((i, j): (usize, usize), out: ViewMut<i32, 2>) {
    // In i32, so that no `usize` product needs the 64-bit variant.
    out[(i, j)] = i as i32 * 1000 + j as i32;
}

#[kernel]
fn put3((i, j, k): (usize, usize, usize), out: ViewMut<f32, 3>) {
    out[(i, j, k)] = (i as f32 * 100.0 + j as f32) * 100.0 + k as f32;
}

#[kernel]
fn strided_col(i: usize, col: ViewMut<i32>, src: View<i32>) {
    col[i] = src[i] * 2 + 1;
}

#[kernel]
fn bins(i: usize, counts: ViewMut<u32>, x: View<u32>) {
    counts.atomic_add(x[i] as usize % counts.extent(0), 1);
}

#[kernel]
fn bytes(i: usize, b: ViewMut<u8>, flags: ViewMut<u8>) {
    b[i] = (b[i] as u32 * 3 + i as u32 % 7) as u8;
    flags.atomic_or(i / 8, (1u32 << (i % 8)) as u8);
}

#[kernel]
fn total(i: usize, acc: &mut f32, x: View<f32>) {
    *acc += x[i];
}

/// Rank-1 read-modify-write, rank-2 and rank-3 writes over every element, on Views of up to a
/// few thousand elements (many chunks each when split).
pub(crate) fn split_ranks<E: ExecutionSpace>(space: E) {
    check(
        8,
        (crate::sizes(), 1usize..40, 1usize..9, any::<u64>()),
        |(n, m, l, seed)| {
            let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
                .iter()
                .map(|&v| v as i32)
                .collect();
            let ys: Vec<i32> = crate::ints(seed ^ 1, n, -1000, 1000)
                .iter()
                .map(|&v| v as i32)
                .collect();
            let x: DevView<E, i32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let y: DevView<E, i32> = dev_from_vec(&space, "y", [n], ys.clone())?;
            parallel_for(
                "scale_add",
                RangePolicy::new(&space, 0..n),
                scale_add(&y, &x, 3),
            )?;
            let want: Vec<i32> = ys.iter().zip(&xs).map(|(y, x)| y + 3 * x).collect();
            prop_assert_eq!(to_host(&y), want);

            let a: DevView<E, i32, 2, LayoutLeft> = dev(&space, "a", [m, 37])?;
            parallel_for(
                "put2",
                MDRangePolicy::new(&space, [0, 0], [m, 37]),
                put2(&a),
            )?;
            let want: Vec<i32> = (0..m)
                .flat_map(|i| (0..37).map(move |j| (i * 1000 + j) as i32))
                .collect();
            prop_assert_eq!(to_host(&a), want);

            let b: DevView<E, f32, 3> = dev(&space, "b", [l, m, 5])?;
            parallel_for(
                "put3",
                MDRangePolicy::new(&space, [0, 0, 0], [l, m, 5]),
                put3(&b),
            )?;
            let want: Vec<f32> = (0..l)
                .flat_map(|i| {
                    (0..m).flat_map(move |j| (0..5).map(move |k| ((i * 100 + j) * 100 + k) as f32))
                })
                .collect();
            prop_assert_eq!(to_host(&b), want);
            Ok(())
        },
    );
}
per_backend!(split_ranks);

/// Subviews whose elements start deep inside a split buffer: a column of a LayoutRight View
/// (LayoutStride) written from a column of a LayoutLeft one, and a 2-D block at an offset.
pub(crate) fn split_subviews<E: ExecutionSpace>(space: E) {
    check(8, (1usize..300, 2usize..6), |(rows, cols)| {
        let src: DevView<E, i32, 2, LayoutLeft> =
            dev_from_fn(&space, "src", [rows, cols], |[i, j]| (i * 10 + j) as i32)?;
        let dst: DevView<E, i32, 2> = dev_from_fn(&space, "dst", [rows, cols], |_| -1)?;
        let c = cols - 1;
        let col: DevView<E, i32, 1, LayoutStride> = dst.subview((.., c))?;
        let scol: DevView<E, i32, 1, LayoutStride> = src.subview((.., 1))?;
        parallel_for(
            "strided_col",
            RangePolicy::new(&space, 0..rows),
            strided_col(&col, &scol),
        )?;
        let got = to_host(&dst);
        for i in 0..rows {
            for j in 0..cols {
                let want = if j == c {
                    (i * 10 + 1) as i32 * 2 + 1
                } else {
                    -1
                };
                prop_assert_eq!(got[i * cols + j], want, "({}, {})", i, j);
            }
        }
        // A block at an offset of a rank-2 View: `put2` writes it, the rest stays.
        let big: DevView<E, i32, 2> = dev_from_fn(&space, "big", [rows + 3, 12], |_| 7)?;
        let block: DevView<E, i32, 2, LayoutStride> = big.subview((3..rows + 3, 2..11))?;
        parallel_for(
            "put2_block",
            MDRangePolicy::new(&space, [0, 0], [rows, 9]),
            put2(&block),
        )?;
        let got = to_host(&big);
        for i in 0..rows + 3 {
            for j in 0..12 {
                let inside = i >= 3 && (2..11).contains(&j);
                let want = if inside {
                    ((i - 3) * 1000 + j - 2) as i32
                } else {
                    7
                };
                prop_assert_eq!(got[i * 12 + j], want, "({}, {})", i, j);
            }
        }
        Ok(())
    });
}
per_backend!(split_subviews);

/// Atomic additions into bins spread over many chunks, and packed `u8` Views: plain
/// read-modify-writes and word atomics on bytes of every chunk.
pub(crate) fn split_atomics_and_bytes<E: ExecutionSpace>(space: E) {
    check(
        8,
        (crate::sizes(), 1usize..700, any::<u64>()),
        |(n, m, seed)| {
            let xs: Vec<u32> = crate::splitmix(seed, n).iter().map(|&r| r as u32).collect();
            let x: DevView<E, u32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let counts: DevView<E, u32> = dev(&space, "counts", [m])?;
            parallel_for("bins", RangePolicy::new(&space, 0..n), bins(&counts, &x))?;
            let mut want = vec![0u32; m];
            for v in &xs {
                want[*v as usize % m] += 1;
            }
            prop_assert_eq!(to_host(&counts), want);

            // Past the limit whatever `n` is, so that the packed words always span chunks.
            let nb = n + 1500;
            let bs: Vec<u8> = crate::splitmix(seed ^ 2, nb)
                .iter()
                .map(|&v| v as u8)
                .collect();
            let b: DevView<E, u8> = dev_from_vec(&space, "b", [nb], bs.clone())?;
            let flags: DevView<E, u8> = dev(&space, "flags", [nb.div_ceil(8)])?;
            parallel_for("bytes", RangePolicy::new(&space, 0..nb), bytes(&b, &flags))?;
            let want: Vec<u8> = bs
                .iter()
                .enumerate()
                .map(|(i, &v)| (v as u32 * 3 + i as u32 % 7) as u8)
                .collect();
            prop_assert_eq!(to_host(&b), want);
            let want: Vec<u8> = (0..nb.div_ceil(8))
                .map(|w| {
                    (0..8)
                        .filter(|k| w * 8 + k < nb)
                        .fold(0u8, |f, k| f | (1 << k))
                })
                .collect();
            prop_assert_eq!(to_host(&flags), want);
            Ok(())
        },
    );
}
per_backend!(split_atomics_and_bytes);

/// A reduction over a split View, into a host value and into an element of another split View
/// (the device joins it there); then fill, deep_copy between split Views, a mirror round trip and
/// a resize keep every element.
pub(crate) fn split_reductions_and_copies<E: ExecutionSpace>(space: E) {
    check(
        8,
        (crate::sizes(), 1usize..500, any::<u64>()),
        |(n, m, seed)| {
            // Small integers: every f32 partial sum is exact, so any join order gives the same value.
            let xs: Vec<f32> = crate::ints(seed, n, -50, 50)
                .iter()
                .map(|&v| v as f32)
                .collect();
            let x: DevView<E, f32> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let want: f32 = xs.iter().sum();
            let got = parallel_reduce("total", RangePolicy::new(&space, 0..n), total(&x), Sum)?;
            prop_assert_eq!(got, want);

            let out: DevView<E, f32> = dev(&space, "out", [m])?;
            out.fill(-1.0)?;
            let k = (seed as usize) % m;
            let slot: DevView<E, f32, 0, LayoutStride> = out.subview([k])?;
            parallel_reduce_into(
                "total_into",
                RangePolicy::new(&space, 0..n),
                total(&x),
                Sum,
                &slot,
            )?;
            let got = to_host(&out);
            for (i, v) in got.iter().enumerate() {
                prop_assert_eq!(*v, if i == k { want } else { -1.0 }, "element {}", i);
            }

            let copy: DevView<E, f32> = dev(&space, "copy", [n])?;
            rokkos::deep_copy(&copy, &x)?;
            prop_assert_eq!(to_host(&copy), xs.clone());
            let mut grown = copy.clone();
            grown.resize([n + 100])?;
            let got = to_host(&grown);
            prop_assert_eq!(&got[..n], &xs[..]);
            Ok(())
        },
    );
}
per_backend!(split_reductions_and_copies);

#[kernel]
fn bump(i: usize, x: ViewMut<u32>) {
    x[i] = x[i] + (i % 3) as u32;
}

#[kernel]
fn sum_u32(i: usize, acc: &mut u32, x: View<u32>) {
    *acc += x[i];
}

/// A View past lavapipe's real 128 MiB storage binding limit on the default wgpu device: a fill,
/// a kernel and a reduction over every element, and the elements on both sides of the first
/// chunk boundary read back (lavapipe refused this View at allocation before).
#[cfg(feature = "wgpu")]
#[test]
fn view_over_128_mib_on_wgpu() {
    let Some(s) = crate::wgpu_space() else { return };
    let n = (1usize << 25) + 4099;
    if s.max_binding() >= 4 * n as u64 {
        eprintln!(
            "note: `{}` binds {} bytes at once: nothing to split",
            s.adapter_name(),
            s.max_binding()
        );
    }
    let x = View::<u32, 1, LayoutRight, _>::new_in(&s.memory_space(), "x", [n]).unwrap();
    x.fill(1).unwrap();
    parallel_for("bump", RangePolicy::new(&s, 0..n), bump(&x)).unwrap();
    let got = parallel_reduce("sum_u32", RangePolicy::new(&s, 0..n), sum_u32(&x), Sum).unwrap();
    let want = n as u32 + (0..n).map(|i| (i % 3) as u32).sum::<u32>();
    assert_eq!(got, want);
    let edge = 1usize << 25;
    let around: View<u32, 1, LayoutStride, _> = x.subview((edge - 3..edge + 3,)).unwrap();
    let want: Vec<u32> = (edge - 3..edge + 3).map(|i| 1 + (i % 3) as u32).collect();
    assert_eq!(crate::to_host(&around), want);
}

/// The bodies above on a wgpu device whose storage bindings hold [`LIMIT`] bytes.
#[cfg(feature = "wgpu")]
mod on_split_wgpu {
    fn space() -> Option<rokkos::Wgpu> {
        crate::wgpu_space()?;
        let s =
            rokkos::Wgpu::with_max_binding(super::LIMIT).expect("a device with a binding limit");
        assert_eq!(s.max_binding(), super::LIMIT);
        Some(s)
    }
    /// A kernel whose split Views need more bindings than a shader stage has (lavapipe has 32;
    /// 64 KiB Views take 64 chunks each) runs as windows of its range, each binding the chunks
    /// it reaches (`y[i]`, `x[i]`): the result is the loop's.
    #[test]
    fn too_many_bindings_run_in_windows() {
        use rokkos::prelude::*;
        let Some(s) = space() else { return };
        let n = 1 << 14;
        let xs: Vec<i32> = crate::ints(7, n, -1000, 1000)
            .iter()
            .map(|&v| v as i32)
            .collect();
        let x: crate::DevView<rokkos::Wgpu, i32> =
            crate::dev_from_vec(&s, "x", [n], xs.clone()).unwrap();
        let y: crate::DevView<rokkos::Wgpu, i32> =
            crate::dev_from_fn(&s, "y", [n], |[i]| i as i32).unwrap();
        parallel_for(
            "scale_add",
            RangePolicy::new(&s, 0..n),
            super::scale_add(&y, &x, 3),
        )
        .unwrap();
        let want: Vec<i32> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| i as i32 + 3 * x)
            .collect();
        assert_eq!(crate::to_host(&y), want);
    }
    /// Any binding limit (a power of two from 256 bytes, wgpu's largest offset alignment, or not)
    /// and any size up to 14 chunks per View: a read-modify-write and a reduction match the loop.
    #[test]
    fn limits_and_sizes() {
        use proptest::prelude::*;
        use rokkos::prelude::*;
        if crate::wgpu_space().is_none() {
            return;
        }
        let limits = proptest::sample::select(vec![256u64, 512, 1000, 4096]);
        // A chunk is the largest power of two of elements that fits the limit.
        let chunk = |l: u64| (1usize << l.ilog2()) / 4;
        let case = limits.prop_flat_map(move |l| (Just(l), 0usize..14 * chunk(l), any::<u64>()));
        crate::check(8, case, |(limit, n, seed)| {
            let s = rokkos::Wgpu::with_max_binding(limit).expect("a device with a binding limit");
            let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
                .iter()
                .map(|&v| v as i32)
                .collect();
            let x: crate::DevView<rokkos::Wgpu, i32> =
                crate::dev_from_vec(&s, "x", [n], xs.clone())?;
            let y: crate::DevView<rokkos::Wgpu, i32> =
                crate::dev_from_fn(&s, "y", [n], |[i]| i as i32)?;
            parallel_for(
                "scale_add",
                RangePolicy::new(&s, 0..n),
                super::scale_add(&y, &x, -2),
            )?;
            let want: Vec<i32> = xs
                .iter()
                .enumerate()
                .map(|(i, x)| i as i32 - 2 * x)
                .collect();
            prop_assert_eq!(crate::to_host(&y), want);
            let f: crate::DevView<rokkos::Wgpu, f32> =
                crate::dev_from_vec(&s, "f", [n], xs.iter().map(|&v| v as f32).collect())?;
            let got = parallel_reduce("total", RangePolicy::new(&s, 0..n), super::total(&f), Sum)?;
            prop_assert_eq!(got, xs.iter().map(|&v| v as f32).sum::<f32>());
            Ok(())
        });
    }
    #[test]
    fn ranks() {
        if let Some(s) = space() {
            super::split_ranks(s);
        }
    }
    #[test]
    fn subviews() {
        if let Some(s) = space() {
            super::split_subviews(s);
        }
    }
    #[test]
    fn atomics_and_bytes() {
        if let Some(s) = space() {
            super::split_atomics_and_bytes(s);
        }
    }
    #[test]
    fn reductions_and_copies() {
        if let Some(s) = space() {
            super::split_reductions_and_copies(s);
        }
    }
}
