//! Size products that overflow are `Err`, never a wrapped size (issue 11, items 2 and 13): View
//! extents whose element count or byte size does not fit, inclusive subview ranges ending at
//! `usize::MAX`, and team scratch requests whose element count or byte size overflows, on every
//! backend. Each overflowing case has a neighbour that fits and must work.

use crate::{check, dev, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;
use rokkos::MemorySpace;

/// Two extents whose product times 8 does not fit in `isize` (at least `2^61` elements): `2^k1 + r1`
/// and `2^k2 + r2` with `k1 + k2 >= 61`.
fn overflowing_pair() -> impl Strategy<Value = (usize, usize)> {
    (1u32..63, any::<u64>(), any::<u64>()).prop_flat_map(|(k1, r1, r2)| {
        ((61 - k1.min(61)).max(1)..63).prop_map(move |k2| {
            let a = (1usize << k1) + (r1 as usize % (1usize << k1));
            let b = (1usize << k2) + (r2 as usize % (1usize << k2));
            (a, b)
        })
    })
}

/// Shapes whose element count or byte size overflows are refused by every constructor with
/// `Err(OutOfMemory)` in every memory space, before anything is allocated; an empty shape with a
/// huge extent is fine.
fn overflowing_extents_are_errors<E: ExecutionSpace>(space: E) {
    let mem = space.memory_space();
    check(24, overflowing_pair(), |(a, b)| {
        let r = View::<f64, 2, LayoutRight, E::Memory>::new_in(&mem, "big", [a, b]);
        prop_assert!(
            matches!(r, Err(Error::OutOfMemory { .. })),
            "{a} x {b}: {r:?}"
        );
        let r = View::<u8, 3, LayoutLeft, E::Memory>::new_uninit_in(&mem, "big", [a, b, 1 << 3]);
        prop_assert!(
            matches!(r, Err(Error::OutOfMemory { .. })),
            "{a} x {b} x 8: {r:?}"
        );
        let r =
            View::<i32, 2, LayoutStride, E::Memory>::new_strided_in(&mem, "big", [a, b], [b, 1]);
        prop_assert!(r.is_err(), "strided {a} x {b}: {r:?}");
        Ok(())
    });
    let r = View::<f64, 2, LayoutRight, E::Memory>::new_in(&mem, "max", [usize::MAX, 2]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    // An empty View may have huge extents, as long as its non-zero ones multiply to at most
    // `isize::MAX`, like the extents of any array memory could hold (ndarray's and slices' rule).
    let empty =
        View::<f64, 2, LayoutRight, E::Memory>::new_in(&mem, "empty", [0, isize::MAX as usize]);
    let empty = empty.expect("an empty View with a huge extent");
    assert_eq!((empty.size(), empty.span()), (0, 0));
    let r = View::<f64, 2, LayoutRight, E::Memory>::new_in(&mem, "empty", [0, usize::MAX]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
}
per_backend!(overflowing_extents_are_errors);

/// A Vec of zero-sized elements can be as long as `usize::MAX`; adopting it under extents whose
/// product overflows used to be accepted (the count was "saturated" to match) and `size()` then
/// overflowed. Counts above `isize::MAX` are refused as well (an `ndarray` view of such a View
/// would break `from_shape_ptr`'s precondition).
#[test]
fn from_vec_refuses_an_overflowing_element_count() {
    // `vec![(); usize::MAX]` would write `usize::MAX` units one by one.
    #[allow(clippy::uninit_vec)]
    fn longest(n: usize) -> Vec<()> {
        let mut v = Vec::new();
        // SAFETY: a Vec of a zero-sized type has capacity `usize::MAX`, and `()` has no bytes to
        // initialise.
        unsafe { v.set_len(n) };
        v
    }
    let r = View::<(), 2>::from_vec("zst", [usize::MAX, 2], longest(usize::MAX));
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    // Element counts (of any element type) stop at `isize::MAX`, as the lengths of arrays that
    // `ndarray` and slices of non-zero-sized types can have.
    let r = View::<(), 2>::from_vec("zst", [usize::MAX, 1], longest(usize::MAX));
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    let most = isize::MAX as usize;
    let v = View::<(), 2>::from_vec("zst", [most, 1], longest(most)).unwrap();
    assert_eq!(v.size(), most);
    let r = View::<(), 2>::from_vec("zst", [usize::MAX, 2], Vec::new());
    assert!(r.is_err(), "{r:?}");
}

#[kernel]
fn put_index(i: usize, out: ViewMut<i64>) {
    out[i] = i as i64 + 1;
}

/// Inclusive ranges whose end is `usize::MAX` (or any end at or past the extent) are
/// `Err(ShapeMismatch)`: `b + 1` used to overflow (a panic in debug builds, an empty View in
/// release builds). Inclusive ranges inside the extent give `b + 1 - a` elements, which a kernel
/// then writes exactly.
fn inclusive_subview_ranges<E: ExecutionSpace>(space: E) {
    let v: DevView<E, i64, 2> = dev(&space, "v", [3, 7]).unwrap();
    for r in [
        v.subview::<2>((.., 0..=usize::MAX)),
        v.subview::<2>((.., ..=usize::MAX)),
        v.subview::<2>((0..=usize::MAX, ..)),
        v.subview::<2>((.., usize::MAX..=usize::MAX)),
        v.subview::<2>((.., 0..=7)),
    ] {
        assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
    }
    check(
        24,
        (
            0usize..9,
            prop_oneof![0usize..9, usize::MAX - 3..=usize::MAX],
        ),
        |(a, b)| {
            let r = v.subview::<1>((1, a..=b));
            if b < 7 && a <= b + 1 {
                let s = r?;
                prop_assert_eq!(s.extents(), [b + 1 - a]);
                let n = s.extent(0);
                v.fill(0)?;
                parallel_for("put_index", RangePolicy::new(&space, 0..n), put_index(&s))?;
                let got = to_host(&v);
                for (p, &x) in got.iter().enumerate() {
                    let (row, col) = (p / 7, p % 7);
                    let want = if row == 1 && (a..=b).contains(&col) {
                        (col - a) as i64 + 1
                    } else {
                        0
                    };
                    prop_assert_eq!(x, want, "({}, {}) of 1, {}..={}", row, col, a, b);
                }
            } else {
                prop_assert!(
                    matches!(r, Err(Error::ShapeMismatch { .. })),
                    "{a}..={b}: {r:?}"
                );
            }
            Ok(())
        },
    );
}
per_backend!(inclusive_subview_ranges);

/// An empty subview keeps an offset inside its allocation (a View's offset addresses its first
/// element, and the host path turns it into a pointer): the first index of a range or an index
/// into a non-empty dimension of an empty View used to be added in, pointing past the end of its
/// (empty) allocation.
#[test]
fn empty_subviews_stay_inside_their_allocation() {
    let empty = View::<f64, 2>::new("empty", [0, 10]).unwrap();
    let s: View<f64, 1, LayoutStride> = empty.subview((.., 5)).unwrap();
    assert_eq!(s.extents(), [0]);
    let s2: View<f64, 2, LayoutStride> = empty.subview((.., 3..8)).unwrap();
    assert_eq!(s2.extents(), [0, 5]);
    let s3: View<f64, 1, LayoutStride> = s2.subview((.., 4)).unwrap();
    for b in [
        s.__binding("s", false),
        s2.__binding("s2", false),
        s3.__binding("s3", false),
    ] {
        assert!(
            b.offset * 8 <= b.buffer.len_bytes(),
            "offset {} past a {}-byte allocation",
            b.offset,
            b.buffer.len_bytes()
        );
    }
    assert_eq!(s.to_vec(), Vec::<f64>::new());
    assert_eq!(s3.host().as_slice(), Some(&[][..]));
}

#[kernel]
fn scratch_of(team: &TeamMember, out: ViewMut<f64, 2>, rows: usize, cols: usize) {
    let l = team.league_rank();
    let s = team.team_scratch::<f64, 2>(0, [rows, cols]);
    for j in team.thread_range(1) {
        s[(0, j)] = 1.0 + l as f64;
    }
    team.team_barrier();
    for j in team.thread_range(1) {
        out[(l, j)] = s[(0, j)];
    }
}

/// Scratch extents whose element count (or byte size) overflows are a scratch request beyond the
/// reservation: an `Err` on every backend (host backends: `Err(KernelFailed)`). The count used to
/// wrap (`[2^60, 16]` is 0 elements), pass the check, and let indexing write out of bounds. A
/// request that fits the reservation runs.
fn overflowing_scratch_requests_fail<E: ExecutionSpace>(space: E) {
    let out: DevView<E, f64, 2> = dev(&space, "out", [3, 1]).unwrap();
    let policy = || TeamPolicy::new(&space, 3, TeamSize::Auto).scratch(0, 256, 0);
    let overflowing = prop_oneof![
        Just((1usize << 60, 16usize)),
        Just((usize::MAX, 2)),
        (32u32..63, 32u32..63).prop_map(|(a, b)| ((1usize << a) + 1, (1usize << b) + 3)),
        (61u32..64).prop_map(|k| (1usize << k, 1usize)),
    ];
    check(12, overflowing, |(rows, cols)| {
        let r = parallel_for("scratch_of", policy(), scratch_of(&out, rows, cols))
            .and_then(|()| space.fence());
        let msg = crate::kernel_failure(&space, r, "scratch_of", "overflowing scratch");
        prop_assert!(msg.contains("scratch"), "{}", msg);
        Ok(())
    });
    check(8, (1usize..=4, 1usize..=8), |(rows, cols)| {
        parallel_for("scratch_of", policy(), scratch_of(&out, rows, cols))?;
        prop_assert_eq!(to_host(&out), vec![1.0, 2.0, 3.0]);
        Ok(())
    });
}
per_backend!(overflowing_scratch_requests_fail);

/// `scratch_size` saturates instead of wrapping, so a request built from it is refused by the
/// policy (`Err(InvalidPolicy)`) rather than reserving a wrapped size.
fn saturated_scratch_sizes_are_refused<E: ExecutionSpace>(space: E) {
    let out: DevView<E, f64, 2> = dev(&space, "out", [3, 1]).unwrap();
    let bytes = scratch_size::<f64>(usize::MAX / 2);
    assert_eq!(bytes, usize::MAX);
    let p = TeamPolicy::new(&space, 3, TeamSize::Auto).scratch(0, bytes, 0);
    let r = parallel_for("scratch_of", p, scratch_of(&out, 1, 1));
    assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{r:?}");
    assert!(to_host(&out).iter().all(|&x| x == 0.0));
}
per_backend!(saturated_scratch_sizes_are_refused);

/// Byte ranges of a memory space's copies are checked, whatever the offset.
#[test]
fn byte_ranges_past_usize_are_refused() {
    let b = rokkos::HostSpace.allocate("b", 16, 8).unwrap();
    let mut dst = [0u8; 4];
    // SAFETY: `b` is a fresh allocation no View or guard lends out.
    let r = unsafe { rokkos::HostSpace.read_bytes(&b, usize::MAX - 1, &mut dst) };
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    // SAFETY: as above.
    let r = unsafe { rokkos::HostSpace.write_bytes(&b, 14, &dst) };
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
}

#[kernel]
fn count_md((i, j): (usize, usize), acc: &mut u64) {
    *acc += (usize::MAX - i + j) as u64;
}

/// An MDRange box ending at `usize::MAX` whose last tile reaches past it: the tile's end used to
/// overflow (a panic in debug builds, skipped indices in release builds).
fn tiles_ending_at_usize_max<E: ExecutionSpace<Memory = HostSpace>>(space: E) {
    let m = usize::MAX;
    for tile in [[7, 1], [3, 2], [0, 0], [usize::MAX, 1]] {
        let p = MDRangePolicy::new(&space, [m - 10, 0], [m, 2]).tile(tile);
        // Each i in m-10..m contributes (m - i) + (m - i + 1): 2 * 55 + 10.
        assert_eq!(
            parallel_reduce("count_md", p, count_md(), Sum).unwrap(),
            120,
            "tile {tile:?}"
        );
    }
}
per_host_backend!(tiles_ending_at_usize_max);
