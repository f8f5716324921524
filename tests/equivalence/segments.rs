//! Views larger than one wgpu buffer (issue 15, item 4): the wgpu backend holds such a View in
//! several buffers ("segments") and binds each chunk of a split View from the segment holding it.
//! The bodies of `split.rs` and the copy paths below run on every backend as usual and, in
//! `on_segmented_wgpu`, on wgpu devices whose buffers are forced down to a few KiB
//! ([`rokkos::Wgpu::with_test_limits`]), so that Views of a few thousand elements span several
//! segments: kernels of rank 1 to 3, subviews, atomics, `u8` Views, reductions (into an element of
//! a later segment too), host reads and writes whose ends are not whole words across a segment
//! boundary, device copies between Views whose segments start at different places, copies
//! between devices segmented differently, fill, mirrors and resize. Each compares with plain Rust.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn mix(i: usize, y: ViewMut<i32>, x: View<i32>, a: i32) {
    y[i] = y[i] * 3 + a * x[i];
}

#[kernel]
fn sum_f32(i: usize, acc: &mut f32, x: View<f32>) {
    *acc += x[i];
}

/// Host writes and reads of `u8` ranges at any byte (so a range's first and last words are
/// partial, and may lie in different segments), a fill of such a range, a device copy between
/// `i32` subviews at different offsets of two Views, and a reduction into any element of a View
/// of up to three thousand `f32`s. `n` up to 6000 bytes spans a few 4 KiB segments.
fn segment_copies<E: ExecutionSpace>(space: E) {
    check(
        12,
        (0usize..6000, any::<u64>(), 0usize..3000, 1usize..3000),
        |(n, seed, k, m)| {
            let bs: Vec<u8> = crate::splitmix(seed, n).iter().map(|&r| r as u8).collect();
            let b: DevView<E, u8> = dev_from_vec(&space, "b", [n], bs.clone())?;
            prop_assert_eq!(to_host(&b), bs.clone());
            let r = crate::splitmix(seed ^ 3, 4);
            let (lo, hi) = {
                let (p, q) = (r[0] as usize % (n + 1), r[1] as usize % (n + 1));
                (p.min(q), p.max(q))
            };
            // A host write into bytes lo..hi: the bytes around them keep their values.
            let patch: Vec<u8> = (lo..hi).map(|i| (i * 7 + 1) as u8).collect();
            let part: DevView<E, u8, 1, LayoutStride> = b.subview((lo..hi,))?;
            let host = View::<u8, 1>::from_vec("patch", [hi - lo], patch.clone())?;
            deep_copy(&part, &host)?;
            let mut want = bs.clone();
            want[lo..hi].copy_from_slice(&patch);
            prop_assert_eq!(to_host(&b), want.clone());
            prop_assert_eq!(to_host(&part), patch);
            // A fill of a range whose ends are anywhere.
            let (f0, f1) = {
                let (p, q) = (r[2] as usize % (n + 1), r[3] as usize % (n + 1));
                (p.min(q), p.max(q))
            };
            let filled: DevView<E, u8, 1, LayoutStride> = b.subview((f0..f1,))?;
            filled.fill(0xa5)?;
            want[f0..f1].iter_mut().for_each(|v| *v = 0xa5);
            prop_assert_eq!(to_host(&b), want);

            // Device copy from element `k` of one View to element `k / 3 + 1` of another:
            // their segment boundaries fall at different places of the copied run.
            let len = n / 4;
            let xs: Vec<i32> = (0..k + len).map(|i| i as i32 * 5 - 7).collect();
            let x: DevView<E, i32> = dev_from_vec(&space, "x", [k + len], xs.clone())?;
            let d0 = k / 3 + 1;
            let y: DevView<E, i32> = dev(&space, "y", [d0 + len + 2])?;
            y.fill(-1)?;
            let src: DevView<E, i32, 1, LayoutStride> = x.subview((k..k + len,))?;
            let dst: DevView<E, i32, 1, LayoutStride> = y.subview((d0..d0 + len,))?;
            deep_copy(&dst, &src)?;
            let got = to_host(&y);
            for (i, v) in got.iter().enumerate() {
                let want = if (d0..d0 + len).contains(&i) {
                    xs[i - d0 + k]
                } else {
                    -1
                };
                prop_assert_eq!(*v, want, "element {}", i);
            }

            // A reduction into element `k % m` of a View of `m` f32s (a later segment when large).
            let fs: Vec<f32> = (0..len).map(|i| (i % 19) as f32 - 9.0).collect();
            let f: DevView<E, f32> = dev_from_vec(&space, "f", [len], fs.clone())?;
            let out: DevView<E, f32> = dev(&space, "out", [m])?;
            out.fill(0.5)?;
            let slot: DevView<E, f32, 0, LayoutStride> = out.subview([k % m])?;
            parallel_reduce_into(
                "sum_f32_into",
                RangePolicy::new(&space, 0..len),
                sum_f32(&f),
                Sum,
                &slot,
            )?;
            let total: f32 = fs.iter().sum();
            let got = to_host(&out);
            for (i, v) in got.iter().enumerate() {
                prop_assert_eq!(*v, if i == k % m { total } else { 0.5 }, "element {}", i);
            }
            Ok(())
        },
    );
}
per_backend!(segment_copies);

/// The bodies of `split.rs` and [`segment_copies`] on wgpu devices with small buffers.
#[cfg(feature = "wgpu")]
mod on_segmented_wgpu {
    use proptest::prelude::*;
    use rokkos::prelude::*;

    /// 4 KiB buffers bound as 1 KiB chunks: the Views of `split.rs` (up to about 15 KiB) span up
    /// to four segments of four chunks each.
    fn space() -> Option<rokkos::Wgpu> {
        crate::wgpu_space()?;
        let s = rokkos::Wgpu::with_test_limits(Some(1024), Some(4096))
            .expect("a device with test limits");
        assert_eq!((s.max_binding(), s.max_buffer()), (1024, 4096));
        Some(s)
    }

    #[test]
    fn ranks() {
        if let Some(s) = space() {
            crate::split::split_ranks(s);
        }
    }
    #[test]
    fn subviews() {
        if let Some(s) = space() {
            crate::split::split_subviews(s);
        }
    }
    #[test]
    fn atomics_and_bytes() {
        if let Some(s) = space() {
            crate::split::split_atomics_and_bytes(s);
        }
    }
    #[test]
    fn reductions_and_copies() {
        if let Some(s) = space() {
            crate::split::split_reductions_and_copies(s);
        }
    }
    #[test]
    fn copies() {
        if let Some(s) = space() {
            super::segment_copies(s);
        }
    }
    /// Buffers of one chunk each (`with_max_buffer` alone also caps bindings at the buffer).
    #[test]
    fn one_chunk_per_segment() {
        if crate::wgpu_space().is_none() {
            return;
        }
        let s = rokkos::Wgpu::with_max_buffer(2048).expect("a device with a buffer limit");
        assert_eq!((s.max_binding(), s.max_buffer()), (2048, 2048));
        super::segment_copies(s.clone());
        crate::split::split_atomics_and_bytes(s);
    }

    /// A View of 3 segments of 4 KiB (refused at allocation before Views could span buffers),
    /// the elements on both sides of each boundary written by a kernel and read back one by one.
    #[test]
    fn a_view_past_the_buffer_limit_is_allocated_in_segments() {
        let Some(s) = space() else { return };
        let n = 2500;
        let x = View::<i32, 1, LayoutRight, _>::new_in(&s.memory_space(), "x", [n]).unwrap();
        let y = View::<i32, 1, LayoutRight, _>::new_in(&s.memory_space(), "y", [n]).unwrap();
        y.fill(2).unwrap();
        parallel_for("mix", RangePolicy::new(&s, 0..n), super::mix(&x, &y, 5)).unwrap();
        for i in [0, 1023, 1024, 1025, 2047, 2048, 2049, n - 1] {
            let one: View<i32, 1, LayoutStride, _> = x.subview((i..i + 1,)).unwrap();
            assert_eq!(crate::to_host(&one), vec![10], "element {i}");
        }
    }

    /// deep_copy between Views of three devices whose segments and chunks differ (through the
    /// host), both ways, at offsets, and a mirror round trip.
    #[test]
    fn copies_between_devices_segmented_differently() {
        if crate::wgpu_space().is_none() {
            return;
        }
        let a = space().expect("checked");
        let b = rokkos::Wgpu::with_test_limits(Some(256), Some(1000)).expect("test limits");
        let c = rokkos::Wgpu::new().expect("checked");
        crate::check(6, (1usize..3000, 0usize..500), |(n, k)| {
            let xs: Vec<i32> = (0..n + k).map(|i| (i as i32).wrapping_mul(-7919)).collect();
            let x: crate::DevView<rokkos::Wgpu, i32> =
                crate::dev_from_vec(&a, "x", [n + k], xs.clone())?;
            let y: crate::DevView<rokkos::Wgpu, i32> = crate::dev(&b, "y", [n])?;
            let z: crate::DevView<rokkos::Wgpu, i32> = crate::dev(&c, "z", [n + 1])?;
            let src: crate::DevView<rokkos::Wgpu, i32, 1, LayoutStride> = x.subview((k..k + n,))?;
            deep_copy(&y, &src)?;
            prop_assert_eq!(crate::to_host(&y), xs[k..].to_vec());
            let zs: crate::DevView<rokkos::Wgpu, i32, 1, LayoutStride> = z.subview((1..n + 1,))?;
            deep_copy(&zs, &y)?;
            let mut want = vec![0];
            want.extend_from_slice(&xs[k..]);
            prop_assert_eq!(crate::to_host(&z), want);
            // Back onto the first device, at another offset.
            let back: crate::DevView<rokkos::Wgpu, i32> = crate::dev(&a, "back", [n + 3])?;
            let bs: crate::DevView<rokkos::Wgpu, i32, 1, LayoutStride> =
                back.subview((3..n + 3,))?;
            deep_copy(&bs, &zs)?;
            prop_assert_eq!(&crate::to_host(&back)[3..], &xs[k..]);
            let m = rokkos::create_mirror_view_and_copy(&back)?;
            let again: crate::DevView<rokkos::Wgpu, i32> = crate::dev(&b, "again", [n + 3])?;
            deep_copy(&again, &m)?;
            prop_assert_eq!(crate::to_host(&again), crate::to_host(&back));
            Ok(())
        });
    }

    /// Any pair of limits (buffer limits that are powers of two or not, bindings below or at
    /// them) and sizes up to 14 chunks per View: a read-modify-write, a reduction and a reduction
    /// into the View's last element match the loop.
    #[test]
    fn limits_and_sizes() {
        if crate::wgpu_space().is_none() {
            return;
        }
        let limits = proptest::sample::select(vec![
            (256u64, 256u64),
            (256, 1000),
            (512, 4096),
            (1000, 3000),
            (4096, 4096),
        ]);
        let chunk = |l: u64| (1usize << l.ilog2()) / 4;
        let case = limits.prop_flat_map(move |(bind, buf)| {
            (Just((bind, buf)), 0usize..14 * chunk(bind), any::<u64>())
        });
        crate::check(10, case, |((bind, buf), n, seed)| {
            let s = rokkos::Wgpu::with_test_limits(Some(bind), Some(buf)).expect("test limits");
            let xs: Vec<i32> = crate::ints(seed, n, -1000, 1000)
                .iter()
                .map(|&v| v as i32)
                .collect();
            let x: crate::DevView<rokkos::Wgpu, i32> =
                crate::dev_from_vec(&s, "x", [n], xs.clone())?;
            let y: crate::DevView<rokkos::Wgpu, i32> =
                crate::dev_from_fn(&s, "y", [n], |[i]| i as i32)?;
            parallel_for("mix", RangePolicy::new(&s, 0..n), super::mix(&y, &x, -2))?;
            let want: Vec<i32> = xs
                .iter()
                .enumerate()
                .map(|(i, x)| i as i32 * 3 - 2 * x)
                .collect();
            prop_assert_eq!(crate::to_host(&y), want);
            let fs: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
            let f: crate::DevView<rokkos::Wgpu, f32> =
                crate::dev_from_vec(&s, "f", [n], fs.clone())?;
            let total: f32 = fs.iter().sum();
            let got = parallel_reduce(
                "sum_f32",
                RangePolicy::new(&s, 0..n),
                super::sum_f32(&f),
                Sum,
            )?;
            prop_assert_eq!(got, total);
            // Into the last element of a View as large as `f`'s (its last segment).
            let out: crate::DevView<rokkos::Wgpu, f32> = crate::dev(&s, "out", [n + 1])?;
            out.fill(0.25)?;
            let last: crate::DevView<rokkos::Wgpu, f32, 0, LayoutStride> = out.subview([n])?;
            parallel_reduce_into(
                "sum_f32_last",
                RangePolicy::new(&s, 0..n),
                super::sum_f32(&f),
                Sum,
                &last,
            )?;
            let got = crate::to_host(&out);
            prop_assert_eq!(&got[..n], &vec![0.25; n][..]);
            prop_assert_eq!(got[n], total);
            Ok(())
        });
    }
}

#[kernel]
fn bump_u32(i: usize, x: ViewMut<u32>) {
    x[i] = x[i] + (i % 5) as u32;
}

#[kernel]
fn sum_u32(i: usize, acc: &mut u32, x: View<u32>) {
    *acc += x[i];
}

/// A View past the default device's real `max_buffer_size` (2 GiB - 1 on lavapipe: a View of
/// 2 GiB + 16 KiB, held in three buffers of 1 GiB and bound as 17 chunks of 128 MiB), filled, run
/// through a kernel and a reduction, and read back on both sides of each segment boundary. Ignored
/// by default: on lavapipe it takes 4.3 GB of memory and a minute (debug build). Run it with
/// `cargo test --features wgpu --test equivalence -- --ignored view_over_max_buffer_size`.
#[cfg(feature = "wgpu")]
#[test]
#[ignore]
fn view_over_max_buffer_size_on_wgpu() {
    let Some(s) = crate::wgpu_space() else { return };
    let max = s.max_buffer();
    if max > 2 << 30 {
        eprintln!(
            "note: `{}` holds {max} bytes in one buffer: a View past it does not fit this test",
            s.adapter_name()
        );
        return;
    }
    let n = (max / 4) as usize + 4096;
    let x = View::<u32, 1, LayoutRight, _>::new_in(&s.memory_space(), "x", [n]).unwrap();
    x.fill(1).unwrap();
    parallel_for("bump_u32", RangePolicy::new(&s, 0..n), bump_u32(&x)).unwrap();
    let got = parallel_reduce("sum_u32", RangePolicy::new(&s, 0..n), sum_u32(&x), Sum).unwrap();
    let want = (0..n).fold(0u32, |a, i| a.wrapping_add(1 + (i % 5) as u32));
    assert_eq!(got, want);
    let seg = 1usize << (max.ilog2() - 2);
    for edge in [seg, 2 * seg, n - 3] {
        let around: View<u32, 1, LayoutStride, _> = x.subview((edge - 3..edge + 3,)).unwrap();
        let want: Vec<u32> = (edge - 3..edge + 3).map(|i| 1 + (i % 5) as u32).collect();
        assert_eq!(crate::to_host(&around), want, "around element {edge}");
    }
}
