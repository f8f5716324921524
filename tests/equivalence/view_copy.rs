//! `deep_copy` and `fill` (Kokkos `TestViewCopy` / `TestDeepCopy`): between every pair of layouts
//! (`LayoutRight`, `LayoutLeft`, `LayoutStride` through subviews and padded strides) for ranks 1 to
//! 4, into and out of non-contiguous subviews without touching the rest of the parent, the empty
//! case, and the errors (shape mismatch, live host guards) leaving the destination untouched; and
//! copies between host memory and each execution space's memory around a kernel.

use crate::check;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rokkos::prelude::*;
use rokkos::{Layout, MemorySpace};

/// The layouts a View of the test is built in.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Right,
    Left,
    /// A subview of a larger row-major View (every dimension one larger, offset by one).
    Sub,
    /// An allocation with padded, column-major strides.
    Padded,
}

fn kinds() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Right),
        Just(Kind::Left),
        Just(Kind::Sub),
        Just(Kind::Padded)
    ]
}

/// A View in `mem` of layout `L` holding `f(idx)` (as `View::from_fn`, through a host View).
fn filled<const R: usize, L: Layout, S: MemorySpace>(
    mem: &S,
    label: &str,
    extents: [usize; R],
    f: impl Fn([usize; R]) -> i64,
) -> rokkos::Result<View<i64, R, L, S>> {
    let v = View::<i64, R, L, S>::new_in(mem, label, extents)?;
    deep_copy(&v, &View::<i64, R, L>::from_fn(label, extents, f)?)?;
    Ok(v)
}

/// A View and the View that owns its allocation (the same, or its parent).
type Made<const R: usize, S> = (View<i64, R, LayoutStride, S>, View<i64, R, LayoutStride, S>);

/// A View in `mem` of `extents` in `kind` holding `f(idx)`, plus the View that owns its allocation.
fn make<const R: usize, S: MemorySpace>(
    mem: &S,
    kind: Kind,
    extents: [usize; R],
    f: impl Fn([usize; R]) -> i64,
) -> rokkos::Result<Made<R, S>> {
    let v = match kind {
        Kind::Right => {
            let v = filled::<R, LayoutRight, S>(mem, "right", extents, f)?.to_layout_stride();
            (v.clone(), v)
        }
        Kind::Left => {
            let v = filled::<R, LayoutLeft, S>(mem, "left", extents, f)?.to_layout_stride();
            (v.clone(), v)
        }
        Kind::Sub => {
            let big =
                View::<i64, R, LayoutRight, S>::new_in(mem, "parent", extents.map(|e| e + 2))?;
            big.fill(-99)?;
            let args = extents.map(|e| rokkos::SliceArg::Range(1, Some(e + 1)));
            let sub: View<i64, R, LayoutStride, S> = big.subview(args)?;
            let tmp = View::<i64, R>::from_fn("tmp", extents, f)?;
            deep_copy(&sub, &tmp)?;
            (sub, big.to_layout_stride())
        }
        Kind::Padded => {
            let mut strides = [0usize; R];
            let mut acc = 1;
            for k in 0..R {
                strides[k] = acc;
                acc *= extents[k] + 1;
            }
            let v =
                View::<i64, R, LayoutStride, S>::new_strided_in(mem, "padded", extents, strides)?;
            v.fill(-99)?;
            let tmp = View::<i64, R>::from_fn("tmp", extents, f)?;
            deep_copy(&v, &tmp)?;
            (v.clone(), v)
        }
    };
    Ok(v)
}

fn code<const R: usize>(idx: [usize; R]) -> i64 {
    idx.iter().fold(7i64, |a, &x| a * 31 + x as i64)
}

fn check_pair<const R: usize>(
    extents: [usize; R],
    src_kind: Kind,
    dst_kind: Kind,
) -> Result<(), TestCaseError> {
    let (src, _src_owner) = make(&HostSpace, src_kind, extents, code)?;
    let (dst, dst_owner) = make(&HostSpace, dst_kind, extents, |_| -5)?;
    let untouched =
        |v: &View<i64, R, LayoutStride>| v.to_vec().iter().filter(|&&x| x == -99).count();
    let before = untouched(&dst_owner);
    deep_copy(&dst, &src)?;
    prop_assert_eq!(dst.to_vec(), src.to_vec());
    // Outside the destination (the rest of a parent View), nothing changed: the marker -99 is
    // never a source value.
    prop_assert_eq!(untouched(&dst_owner), before);
    // And back, into a fresh row-major View.
    let back = View::<i64, R>::new("back", extents)?;
    deep_copy(&back, &dst)?;
    prop_assert_eq!(back.to_vec(), src.to_vec());
    Ok(())
}

#[test]
fn deep_copy_between_layouts() {
    check(
        24,
        (
            proptest::array::uniform4(crate::small_extent(5)),
            kinds(),
            kinds(),
        ),
        |(e, a, b)| {
            check_pair([e[0] * 3], a, b)?;
            check_pair([e[0], e[1]], a, b)?;
            check_pair([e[0], e[1], e[2]], a, b)?;
            check_pair(e, a, b)?;
            Ok(())
        },
    );
}

#[test]
fn deep_copy_typed_layouts_and_large() {
    // Typed (not LayoutStride-erased) Views of different layouts, 2^16 + 1 elements.
    let n = crate::LARGE;
    let a = View::<f64, 2>::from_fn("a", [n, 2], |[i, j]| (2 * i + j) as f64).unwrap();
    let b = View::<f64, 2, LayoutLeft>::new("b", [n, 2]).unwrap();
    deep_copy(&b, &a).unwrap();
    assert_eq!(b.get((n - 1, 1)), (2 * n - 1) as f64);
    assert_eq!(
        b.host().as_slice().unwrap()[n],
        1.0,
        "column-major memory order"
    );
    let c = View::<f64, 2>::new("c", [n, 2]).unwrap();
    deep_copy(&c, &b).unwrap();
    assert_eq!(c.to_vec(), a.to_vec());
    // Same View as source and destination: a no-op.
    deep_copy(&c, &c).unwrap();
    assert_eq!(c.to_vec(), a.to_vec());
}

#[test]
fn fill_subviews_only() {
    check(16, (1usize..8, 1usize..8, 0usize..8), |(r, c, k)| {
        let k = k % c;
        let m = View::<u32, 2, LayoutLeft>::from_fn("m", [r, c], |[i, j]| (i * c + j) as u32)?;
        let col: View<u32, 1, LayoutStride> = m.subview((.., k))?;
        col.fill(777)?;
        let row: View<u32, 1, LayoutStride> = m.subview((r - 1, ..))?;
        rokkos::fill(&row, 5)?;
        let h = m.host();
        for i in 0..r {
            for j in 0..c {
                let want = if i == r - 1 {
                    5
                } else if j == k {
                    777
                } else {
                    (i * c + j) as u32
                };
                prop_assert_eq!(h[(i, j)], want);
            }
        }
        Ok(())
    });
}

#[test]
fn deep_copy_errors_leave_destination_untouched() {
    let src = View::<i32, 2>::from_fn("src", [3, 4], |[i, j]| (i * 4 + j) as i32).unwrap();
    let dst = View::<i32, 2>::from_fn("dst", [4, 3], |_| -1).unwrap();
    let r = deep_copy(&dst, &src);
    assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
    assert!(dst.to_vec().iter().all(|&v| v == -1));
    let msg = r.unwrap_err().to_string();
    assert!(msg.contains("src") && msg.contains("dst"), "{msg}");

    let dst = View::<i32, 2, LayoutLeft>::from_fn("dst2", [3, 4], |_| -1).unwrap();
    {
        let _g = dst.host();
        assert!(matches!(deep_copy(&dst, &src), Err(Error::Aliasing { .. })));
        assert!(matches!(dst.fill(0), Err(Error::Aliasing { .. })));
    }
    {
        let _g = src.host_mut();
        assert!(matches!(deep_copy(&dst, &src), Err(Error::Aliasing { .. })));
    }
    assert!(dst.to_vec().iter().all(|&v| v == -1));
    // A shared guard on the source does not prevent reading it.
    {
        let _g = src.host();
        deep_copy(&dst, &src).unwrap();
    }
    assert_eq!(dst.to_vec(), src.to_vec());
}

#[kernel]
fn negate(i: usize, y: ViewMut<i64, 2>, x: View<i64, 2>) {
    for j in 0..x.extent(1) {
        y[(i, j)] = -x[(i, j)];
    }
}

/// Kokkos' host/device round trip: deep_copy into a View of another layout in the space's memory,
/// run a kernel on it, deep_copy the result back to the host, compare with the host computation.
fn copy_kernel_copy_back<E: ExecutionSpace>(space: E) {
    check(
        16,
        (0usize..50, 0usize..9, kinds(), any::<u64>()),
        |(r, c, kind, seed)| {
            let data = crate::ints(seed, r * c, -1000, 1000);
            let host = View::<i64, 2>::from_vec("host", [r, c], data.clone())?;
            let mem = space.memory_space();
            let (dev_in, _o1) = make(&mem, kind, [r, c], |_| 0)?;
            let (dev_out, _o2) = make(&mem, kind, [r, c], |_| 0)?;
            deep_copy(&dev_in, &host)?;
            parallel_for(
                "negate",
                RangePolicy::new(&space, 0..r),
                negate(&dev_out, &dev_in),
            )?;
            let result = View::<i64, 2, LayoutLeft>::new("result", [r, c])?;
            deep_copy(&result, &dev_out)?;
            prop_assert_eq!(result.to_vec(), data.iter().map(|v| -v).collect::<Vec<_>>());
            Ok(())
        },
    );
}
per_backend!(copy_kernel_copy_back);

/// `deep_copy_on(exec, dst, src)` (Kokkos' `deep_copy(exec, ..)`): between two Views of the
/// space's memory (enqueued on the instance: the fence waits for it), to and from host Views,
/// between layouts, and a shape mismatch refused with the destination untouched; `fill_on`.
fn deep_copy_on_an_instance<E: ExecutionSpace>(space: E) {
    check(8, (crate::sizes(), any::<u64>()), |(n, seed)| {
        let xs = crate::ints(seed, n, -1000, 1000);
        let a: crate::DevView<E, i64> = crate::dev_from_vec(&space, "a", [n], xs.clone())?;
        let b: crate::DevView<E, i64> = crate::dev(&space, "b", [n])?;
        deep_copy_on(&space, &b, &a)?;
        space.fence()?;
        prop_assert_eq!(crate::to_host(&b), xs.clone());
        let h = View::<i64>::new("h", [n])?;
        deep_copy_on(&space, &h, &b)?;
        prop_assert_eq!(h.to_vec(), xs.clone());
        let twice: Vec<i64> = xs.iter().flat_map(|&v| [v, -v]).collect();
        let m = View::<i64, 2>::from_vec("m", [n, 2], twice.clone())?;
        let left: crate::DevView<E, i64, 2, LayoutLeft> = crate::dev(&space, "left", [n, 2])?;
        deep_copy_on(&space, &left, &m)?;
        let back = View::<i64, 2>::new("back", [n, 2])?;
        deep_copy_on(&space, &back, &left)?;
        prop_assert_eq!(back.to_vec(), twice);
        // `fill_on`, Kokkos' `deep_copy(exec, view, value)`: whole, and a strided column whose
        // neighbours keep their values.
        fill_on(&space, &b, -5)?;
        prop_assert_eq!(crate::to_host(&b), vec![-5; n]);
        let col: crate::DevView<E, i64, 1, LayoutStride> = left.subview((.., 1))?;
        fill_on(&space, &col, 9)?;
        let want: Vec<i64> = xs.iter().flat_map(|&v| [v, 9]).collect();
        deep_copy_on(&space, &back, &left)?;
        prop_assert_eq!(back.to_vec(), want);
        let short: crate::DevView<E, i64> = crate::dev(&space, "short", [n + 1])?;
        let err = deep_copy_on(&space, &short, &a).unwrap_err();
        prop_assert!(matches!(err, Error::ShapeMismatch { .. }), "{err:?}");
        prop_assert!(crate::to_host(&short).iter().all(|&v| v == 0));
        Ok(())
    });
}
per_backend!(deep_copy_on_an_instance);
