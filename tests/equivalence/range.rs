//! `parallel_for` over a `RangePolicy` (Kokkos `TestRange`): fill with a function of the index,
//! then check every element, over begins, chunk sizes, layouts and element types.

use crate::{check, chunk_sizes, dev, dev_from_fn, dev_from_vec, sizes, to_host, DevView, LARGE};
use proptest::prelude::*;
use rokkos::prelude::*;

#[kernel]
fn fill_index(i: usize, a: ViewMut<i64>, k: i64) {
    a[i] = k * i as i64;
}

#[kernel]
fn fill_row(i: usize, a: ViewMut<i64, 2>) {
    for k in 0..a.extent(1) {
        a[(i, k)] = (i * 1000 + k) as i64;
    }
}

#[kernel]
fn add_thrice(i: usize, y: ViewMut<i64>, x: View<i64>) {
    y[i] += 3 * x[i];
}

#[func]
fn sq(x: f64) -> f64 {
    x * x
}

#[kernel]
fn square_into(i: usize, y: ViewMut<f64>, x: View<f64>) {
    y[i] = sq(x[i]) + 1.0;
}

#[kernel]
fn generic_axpy<T: Float>(i: usize, y: ViewMut<T>, x: View<T>, a: T) {
    y[i] = a * x[i] + y[i];
}

#[kernel]
fn copy_u32(i: usize, dst: ViewMut<u32>, src: View<u32>) {
    dst[i] = src[i];
}

const SENTINEL: i64 = -7;

/// Kokkos TestRange: `a(i) = k * i` over `begin..end`; elements outside the range keep their value.
fn fill_with_index<E: ExecutionSpace>(space: E) {
    check(
        24,
        (sizes(), 0usize..40, chunk_sizes(), -3i64..4),
        |(n, begin, chunk, k)| {
            let a: DevView<E, i64> = dev(&space, "a", [begin + n + 3])?;
            a.fill(SENTINEL)?;
            let policy = RangePolicy::new(&space, begin..begin + n).chunk_size(chunk);
            parallel_for("fill_index", policy, fill_index(&a, k))?;
            let got = to_host(&a);
            for (i, &v) in got.iter().enumerate() {
                let want = if (begin..begin + n).contains(&i) {
                    k * i as i64
                } else {
                    SENTINEL
                };
                prop_assert_eq!(v, want, "element {} (range {}..{})", i, begin, begin + n);
            }
            Ok(())
        },
    );
}
per_backend!(fill_with_index);

/// The same kernel over a `LayoutLeft` rank-1 View and over `LayoutStride` Views (a column of a
/// row-major matrix, and an explicitly strided allocation): only the addressed elements change.
fn fill_strided_layouts<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), 1usize..5, 0usize..4), |(n, width, col)| {
        let col = col % width;
        // LayoutLeft rank 1.
        let l: DevView<E, i64, 1, LayoutLeft> = dev(&space, "left", [n])?;
        parallel_for(
            "fill_left",
            RangePolicy::new(&space, 0..n),
            fill_index(&l, 2),
        )?;
        prop_assert_eq!(
            to_host(&l),
            (0..n as i64).map(|i| 2 * i).collect::<Vec<_>>()
        );

        // A column of a row-major matrix.
        let m: DevView<E, i64, 2> = dev(&space, "m", [n, width])?;
        m.fill(SENTINEL)?;
        let c: DevView<E, i64, 1, LayoutStride> = m.subview((.., col))?;
        prop_assert_eq!(c.strides(), [width]);
        parallel_for(
            "fill_col",
            RangePolicy::new(&space, 0..n),
            fill_index(&c, 5),
        )?;
        let h = to_host(&m);
        for i in 0..n {
            for j in 0..width {
                let want = if j == col { 5 * i as i64 } else { SENTINEL };
                prop_assert_eq!(h[i * width + j], want, "m({}, {})", i, j);
            }
        }

        // An explicitly strided allocation: every third slot.
        let s = DevView::<E, i64, 1, LayoutStride>::new_strided_in(
            &space.memory_space(),
            "s",
            [n],
            [3],
        )?;
        parallel_for(
            "fill_strided",
            RangePolicy::new(&space, 0..n),
            fill_index(&s, -1),
        )?;
        prop_assert_eq!(to_host(&s), (0..n as i64).map(|i| -i).collect::<Vec<_>>());
        Ok(())
    });
}
per_backend!(fill_strided_layouts);

/// A range kernel writing whole rows `a(i, :)` of rank-2 Views of every layout.
fn fill_rows_all_layouts<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), 0usize..6), |(n, w)| {
        let want: Vec<i64> = (0..n)
            .flat_map(|i| (0..w).map(move |k| (i * 1000 + k) as i64))
            .collect();
        let r: DevView<E, i64, 2> = dev(&space, "r", [n, w])?;
        parallel_for("rows_right", RangePolicy::new(&space, 0..n), fill_row(&r))?;
        prop_assert_eq!(to_host(&r), want.clone());
        let l: DevView<E, i64, 2, LayoutLeft> = dev(&space, "l", [n, w])?;
        parallel_for("rows_left", RangePolicy::new(&space, 0..n), fill_row(&l))?;
        prop_assert_eq!(to_host(&l), want.clone());
        // Rows 1.. of a 3-D View's second plane: a LayoutStride rank-2 subview.
        let big: DevView<E, i64, 3> = dev(&space, "big", [n + 1, 2, w])?;
        let s: DevView<E, i64, 2, LayoutStride> = big.subview((1.., 1, ..))?;
        parallel_for("rows_stride", RangePolicy::new(&space, 0..n), fill_row(&s))?;
        prop_assert_eq!(to_host(&s), want);
        let plane0: DevView<E, i64, 2, LayoutStride> = big.subview((.., 0, ..))?;
        prop_assert!(to_host(&plane0).iter().all(|&v| v == 0));
        Ok(())
    });
}
per_backend!(fill_rows_all_layouts);

/// `y(i) += 3 x(i)` (a read-modify-write of the owned element) against a plain loop.
fn read_modify_write<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), chunk_sizes()),
        |(n, seed, chunk)| {
            let xs = crate::ints(seed, n, -1000, 1000);
            let ys = crate::ints(seed ^ 1, n, -1000, 1000);
            let x: DevView<E, i64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let y: DevView<E, i64> = dev_from_vec(&space, "y", [n], ys.clone())?;
            let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
            parallel_for("add_thrice", p, add_thrice(&y, &x))?;
            let want: Vec<i64> = ys.iter().zip(&xs).map(|(y, x)| y + 3 * x).collect();
            prop_assert_eq!(to_host(&y), want);
            Ok(())
        },
    );
}
per_backend!(read_modify_write);

/// A `#[func]` helper called from a kernel, and generic kernels in both precisions, against the
/// same expression evaluated in a plain loop ([`crate::floats_match`]: bit-exact on host backends).
fn funcs_and_generic_kernels<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), any::<u64>()), |(n, seed)| {
        let xs = crate::unit_floats(seed, n);
        let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs.clone())?;
        let y: DevView<E, f64> = dev(&space, "y", [n])?;
        parallel_for(
            "square_into",
            RangePolicy::new(&space, 0..n),
            square_into(&y, &x),
        )?;
        let want: Vec<f64> = xs.iter().map(|v| v * v + 1.0).collect();
        crate::floats_match(&space, &to_host(&y), &want)?;

        let x64: DevView<E, f64> = dev_from_vec(&space, "x64", [n], xs.clone())?;
        let y64: DevView<E, f64> = dev_from_fn(&space, "y64", [n], |[i]| i as f64 * 0.5)?;
        parallel_for(
            "axpy64",
            RangePolicy::new(&space, 0..n),
            generic_axpy(&y64, &x64, 1.25),
        )?;
        let want: Vec<f64> = (0..n).map(|i| 1.25 * xs[i] + i as f64 * 0.5).collect();
        crate::floats_match(&space, &to_host(&y64), &want)?;

        let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        let x32: DevView<E, f32> = dev_from_vec(&space, "x32", [n], xs32.clone())?;
        let y32: DevView<E, f32, 1, LayoutLeft> = dev_from_fn(&space, "y32", [n], |[i]| i as f32)?;
        parallel_for(
            "axpy32",
            RangePolicy::new(&space, 0..n),
            generic_axpy(&y32, &x32, -0.75f32),
        )?;
        let want: Vec<f32> = (0..n).map(|i| -0.75f32 * xs32[i] + i as f32).collect();
        crate::floats_match(&space, &to_host(&y32), &want)?;
        Ok(())
    });
}
per_backend!(funcs_and_generic_kernels);

/// Narrow elements: neighbouring work items share cache lines (kernels take the IR's types, so the
/// narrowest is 4 bytes); byte Views still work on the host (host Views: no kernel takes them).
fn narrow_elements<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), chunk_sizes()), |(n, chunk)| {
        let src: DevView<E, u32> = dev_from_fn(&space, "src", [n], |[i]| (i * 7 % 251) as u32)?;
        let dst: DevView<E, u32> = dev(&space, "dst", [n])?;
        let p = RangePolicy::new(&space, 0..n).chunk_size(chunk);
        parallel_for("copy_u32", p, copy_u32(&dst, &src))?;
        prop_assert_eq!(to_host(&dst), to_host(&src));
        let bytes = View::<u8>::from_fn("bytes", [n], |[i]| (i * 7 % 251) as u8)?;
        let copy = View::<u8, 1, LayoutLeft>::new("copy", [n])?;
        deep_copy(&copy, &bytes)?;
        prop_assert_eq!(copy.to_vec(), bytes.to_vec());
        Ok(())
    });
}
per_backend!(narrow_elements);

/// One large launch (2^16 + 1 items), where every backend splits the work.
fn large_range<E: ExecutionSpace>(space: E) {
    let a: DevView<E, i64> = dev(&space, "a", [LARGE]).unwrap();
    parallel_for(
        "fill_large",
        RangePolicy::new(&space, 0..LARGE),
        fill_index(&a, 3),
    )
    .unwrap();
    let s = to_host(&a);
    assert!(s.iter().enumerate().all(|(i, &v)| v == 3 * i as i64));
    // Kokkos TestRange also launches an empty range and a range that starts at the end.
    parallel_for(
        "empty",
        RangePolicy::new(&space, LARGE..LARGE),
        fill_index(&a, 0),
    )
    .unwrap();
    parallel_for("empty0", RangePolicy::new(&space, 0..0), fill_index(&a, 0)).unwrap();
    assert_eq!(to_host(&a)[LARGE - 1], 3 * (LARGE as i64 - 1));
}
per_backend!(large_range);

/// The rayon backend, split into many chunks, produces exactly what the serial backend produces.
#[cfg(feature = "rayon")]
#[test]
fn rayon_chunks_match_serial() {
    let rayon = rokkos::Rayon::with_threads(2).unwrap();
    for n in [257usize, 1025, LARGE] {
        for chunk in [0usize, 1, 5, 64] {
            let xs = crate::ints(n as u64, n, -50, 50);
            let x = View::<i64>::from_vec("x", [n], xs).unwrap();
            let ys = View::<i64>::from_fn("ys", [n], |[i]| i as i64).unwrap();
            let yr = View::<i64>::from_fn("yr", [n], |[i]| i as i64).unwrap();
            parallel_for(
                "s",
                RangePolicy::new(&Serial, 0..n).chunk_size(chunk),
                add_thrice(&ys, &x),
            )
            .unwrap();
            parallel_for(
                "r",
                RangePolicy::new(&rayon, 0..n).chunk_size(chunk),
                add_thrice(&yr, &x),
            )
            .unwrap();
            assert_eq!(ys.to_vec(), yr.to_vec(), "n = {n}, chunk = {chunk}");
        }
    }
}

#[func]
fn lerp<T: Float>(a: T, b: T, t: T) -> T {
    a + (b - a) * t
}

#[kernel]
fn control_flow(i: usize, y: ViewMut<i64>, x: View<i64>, skip_odd: bool, limit: usize) {
    if i >= limit {
        return;
    }
    if skip_odd && i % 2 == 1 {
        y[i] = -1;
        return;
    }
    let r = x[i] % 3;
    let v = if r == 0 {
        10
    } else if r == 1 {
        20
    } else {
        30
    };
    let mut acc = 0i64;
    let mut k = 0i64;
    while k < v {
        acc += k;
        k += 1;
    }
    y[i] = acc;
}

#[kernel]
fn lerp_k<T: Float>(i: usize, y: ViewMut<T>, a: View<T>, b: View<T>, t: T) {
    y[i] = lerp(a[i], b[i], t);
}

/// Kernel control flow: early `return`, `if` / `else if` chains, `while` loops, `bool` and `usize`
/// scalar arguments.
fn control_flow_in_kernels<E: ExecutionSpace>(space: E) {
    check(
        16,
        (sizes(), any::<u64>(), any::<bool>(), 0usize..3000),
        |(n, seed, skip_odd, limit)| {
            let xs = crate::ints(seed, n, -100, 100);
            let x: DevView<E, i64> = dev_from_vec(&space, "x", [n], xs.clone())?;
            let y: DevView<E, i64> = dev(&space, "y", [n])?;
            y.fill(7)?;
            let p = RangePolicy::new(&space, 0..n);
            parallel_for("control_flow", p, control_flow(&y, &x, skip_odd, limit))?;
            let want: Vec<i64> = (0..n)
                .map(|i| {
                    if i >= limit {
                        7
                    } else if skip_odd && i % 2 == 1 {
                        -1
                    } else {
                        let v = match xs[i] % 3 {
                            0 => 10,
                            1 => 20,
                            _ => 30,
                        };
                        v * (v - 1) / 2
                    }
                })
                .collect();
            prop_assert_eq!(to_host(&y), want);
            Ok(())
        },
    );
}
per_backend!(control_flow_in_kernels);

/// A generic `#[func]` called from a generic kernel, in both precisions ([`crate::floats_match`]).
fn generic_funcs<E: ExecutionSpace>(space: E) {
    check(12, (sizes(), any::<u64>()), |(n, seed)| {
        let a = crate::unit_floats(seed, n);
        let b = crate::unit_floats(seed ^ 9, n);
        let va: DevView<E, f64> = dev_from_vec(&space, "a", [n], a.clone())?;
        let vb: DevView<E, f64> = dev_from_vec(&space, "b", [n], b.clone())?;
        let y: DevView<E, f64> = dev(&space, "y", [n])?;
        parallel_for(
            "lerp64",
            RangePolicy::new(&space, 0..n),
            lerp_k(&y, &va, &vb, 0.25),
        )?;
        let want: Vec<f64> = (0..n).map(|i| a[i] + (b[i] - a[i]) * 0.25).collect();
        crate::floats_match(&space, &to_host(&y), &want)?;
        let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
        let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
        let va: DevView<E, f32> = dev_from_vec(&space, "a32", [n], a32.clone())?;
        let vb: DevView<E, f32> = dev_from_vec(&space, "b32", [n], b32.clone())?;
        let y: DevView<E, f32, 1, LayoutLeft> = dev(&space, "y32", [n])?;
        parallel_for(
            "lerp32",
            RangePolicy::new(&space, 0..n),
            lerp_k(&y, &va, &vb, 0.75f32),
        )?;
        let want: Vec<f32> = (0..n).map(|i| a32[i] + (b32[i] - a32[i]) * 0.75).collect();
        crate::floats_match(&space, &to_host(&y), &want)?;
        Ok(())
    });
}
per_backend!(generic_funcs);

/// Every compiled-in backend reached through `run_on` (the run-time selection) gives the same
/// result as the serial reference.
#[test]
fn run_on_every_available_backend() {
    struct Fill(usize);
    impl rokkos::SpaceVisitor for Fill {
        type Output = Vec<i64>;
        fn visit<E: ExecutionSpace>(self, space: E) -> Vec<i64> {
            assert!(rokkos::available_backends().contains(&space.name()));
            // Views live in the space's memory; on host spaces they can be read back directly.
            let a = View::<i64, 1, LayoutRight, E::Memory>::new_in(
                &space.memory_space(),
                "a",
                [self.0],
            )
            .unwrap();
            let host = rokkos::create_mirror(&a).unwrap();
            parallel_for(
                "fill",
                RangePolicy::new(&space, 0..self.0),
                fill_index(&a, 4),
            )
            .unwrap();
            deep_copy(&host, &a).unwrap();
            host.to_vec()
        }
    }
    let want: Vec<i64> = (0..1025).map(|i| 4 * i).collect();
    for name in rokkos::available_backends() {
        // Compiled in is not usable here: a device backend may lack a device (or one able to run
        // kernels), which it must say, and which CI does not accept for wgpu (nor the GPU
        // machine for CUDA).
        let required = match *name {
            "wgpu" => std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1"),
            "cuda" => std::env::var("ROKKOS_REQUIRE_CUDA").as_deref() == Ok("1"),
            _ => true,
        };
        match rokkos::run_on(name, Fill(1025)) {
            Err(Error::BackendUnavailable { reason, .. }) if !required => {
                eprintln!("skipped {name}: {reason}")
            }
            r => assert_eq!(r.unwrap(), want, "{name}"),
        }
    }
    // CUDA not compiled in is named as such; compiled in, it runs or says what is missing.
    match rokkos::run_on("cuda", Fill(1)) {
        Ok(v) => assert!(cfg!(feature = "cuda") && v == [0]),
        Err(Error::BackendUnavailable { backend, reason }) => {
            assert_eq!(backend, "cuda");
            if cfg!(feature = "cuda") {
                assert!(
                    ["libcuda", "NVRTC", "device", "driver"]
                        .iter()
                        .any(|w| reason.contains(w)),
                    "{reason}"
                );
            } else {
                assert!(reason.contains("not compiled in"), "{reason}");
            }
        }
        Err(e) => panic!("{e}"),
    }
}

#[kernel]
fn transpose_rows(i: usize, t: ViewMut<i64, 2>, a: View<i64, 2>) {
    for k in 0..a.extent(1) {
        t[(k, i)] = a[(i, k)];
    }
}
#[kernel]
fn transpose_team(team: &TeamMember, a: View<i64, 2>, t: ViewMut<i64, 2>) {
    let row = team.league_rank();
    for j in team.thread_range(a.extent(1)) {
        t[(j, row)] = a[(row, j)];
    }
}
#[kernel]
fn transpose_md((i, j): (usize, usize), t: ViewMut<i64, 2>, a: View<i64, 2>) {
    t[(j, i)] = a[(i, j)];
}
#[kernel]
fn compound_ops(i: usize, y: ViewMut<f64>) {
    y[i] *= 3.0;
    y[i] -= 1.0;
    y[i] = y[i] / 2.0;
}
#[kernel]
fn total_into_rank0(i: usize, total: ViewMut<i64, 0>, x: View<i64>) {
    total.atomic_add((), x[i]);
}

/// Owned writes with the work index in any position (`t(k, i)`), the same from team and MDRange
/// kernels, compound assignments, and atomics on a rank-0 View.
fn index_forms<E: ExecutionSpace>(space: E) {
    check(12, (0usize..300, 0usize..9), |(r, c)| {
        let a: DevView<E, i64, 2> =
            dev_from_fn(&space, "a", [r, c], |[i, j]| (i * 1000 + j) as i64)?;
        let want: Vec<i64> = (0..c)
            .flat_map(|j| (0..r).map(move |i| (i * 1000 + j) as i64))
            .collect();
        let t1: DevView<E, i64, 2, LayoutLeft> = dev(&space, "t1", [c, r])?;
        parallel_for(
            "t1",
            RangePolicy::new(&space, 0..r),
            transpose_rows(&t1, &a),
        )?;
        prop_assert_eq!(to_host(&t1), want.clone());
        let t2: DevView<E, i64, 2> = dev(&space, "t2", [c, r])?;
        let p = TeamPolicy::new(&space, r, TeamSize::Auto);
        parallel_for("t2", p, transpose_team(&a, &t2))?;
        prop_assert_eq!(to_host(&t2), want.clone());
        let t3: DevView<E, i64, 2> = dev(&space, "t3", [c, r])?;
        let p = MDRangePolicy::new(&space, [0, 0], [r, c]).tile([7, 2]);
        parallel_for("t3", p, transpose_md(&t3, &a))?;
        prop_assert_eq!(to_host(&t3), want);

        let y: DevView<E, f64> = dev_from_fn(&space, "y", [r], |[i]| i as f64)?;
        parallel_for("compound", RangePolicy::new(&space, 0..r), compound_ops(&y))?;
        let want: Vec<f64> = (0..r).map(|i| (i as f64 * 3.0 - 1.0) / 2.0).collect();
        prop_assert_eq!(to_host(&y), want);

        let total: DevView<E, i64, 0> = dev(&space, "total", [])?;
        let x: DevView<E, i64> = dev_from_fn(&space, "x", [r], |[i]| i as i64)?;
        parallel_for(
            "rank0",
            RangePolicy::new(&space, 0..r),
            total_into_rank0(&total, &x),
        )?;
        prop_assert_eq!(to_host(&total)[0], (r * r.saturating_sub(1) / 2) as i64);
        Ok(())
    });
}
per_backend!(index_forms);

/// A team per 8 × 8 tile of an `n × m` matrix (both multiples of 8): the tile through team
/// scratch, a barrier, and the transposed store, which the ownership rule accepts without
/// `unsafe` (rows `8 * tj + r` hold the tile's quotient and thread `r` as a radix component).
#[kernel]
fn transpose_tiles(team: &TeamMember, a: View<i32, 2>, t: ViewMut<i32, 2>) {
    let tiles = a.extent(1) / 8;
    let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
    let s = team.team_scratch::<i32, 2>(0, [8, 8]);
    for r in team.thread_range(8) {
        for c in 0..8 {
            s[(r, c)] = a[(ti * 8 + r, tj * 8 + c)];
        }
    }
    team.team_barrier();
    for r in team.thread_range(8) {
        for c in 0..8 {
            t[(tj * 8 + r, ti * 8 + c)] = s[(c, r)];
        }
    }
}

/// Work item `i` writes the block `y[4 * i..4 * i + 4]` (a radix component with a digit of a
/// literal loop), and `z[(8 * i + c, k)]` with `c` from `0..=7`.
#[kernel]
fn blocks_of_four(i: usize, y: ViewMut<u32>, z: ViewMut<u32, 2>) {
    for c in 0..4 {
        y[4 * i + c] = (i * 10 + c) as u32;
    }
    for c in 0..=7 {
        for k in 0..z.extent(1) {
            z[(c + 8 * i, k)] = (i * 100 + c * 10 + k) as u32;
        }
    }
}

/// Tiled and blocked writes the radix rule owns, on every backend against plain loops.
fn radix_writes<E: ExecutionSpace>(space: E) {
    check(8, (0usize..5, 0usize..5, 0usize..40), |(tr, tc, nb)| {
        let (r, c) = (tr * 8, tc * 8);
        let a: DevView<E, i32, 2> =
            dev_from_fn(&space, "a", [r, c], |[i, j]| (i * 1000 + j) as i32)?;
        let want: Vec<i32> = (0..c)
            .flat_map(|j| (0..r).map(move |i| (i * 1000 + j) as i32))
            .collect();
        let t: DevView<E, i32, 2> = dev(&space, "t", [c, r])?;
        let p =
            TeamPolicy::new(&space, tr * tc, TeamSize::Auto).scratch(0, scratch_size::<i32>(64), 0);
        parallel_for("tiles", p, transpose_tiles(&a, &t))?;
        prop_assert_eq!(to_host(&t), want);

        let y: DevView<E, u32> = dev(&space, "y", [4 * nb])?;
        let z: DevView<E, u32, 2> = dev(&space, "z", [8 * nb, 3])?;
        parallel_for(
            "blocks",
            RangePolicy::new(&space, 0..nb),
            blocks_of_four(&y, &z),
        )?;
        let wy: Vec<u32> = (0..4 * nb).map(|e| ((e / 4) * 10 + e % 4) as u32).collect();
        prop_assert_eq!(to_host(&y), wy);
        let wz: Vec<u32> = (0..8 * nb)
            .flat_map(|e| (0..3).map(move |k| ((e / 8) * 100 + (e % 8) * 10 + k) as u32))
            .collect();
        prop_assert_eq!(to_host(&z), wz);
        Ok(())
    });
}
per_backend!(radix_writes);

/// `h * 31 + v`, wrapping: a fingerprint of the sequence of values a loop visits (their order
/// included).
#[func]
fn mix(h: u64, v: u64) -> u64 {
    h.wrapping_mul(31).wrapping_add(v)
}

/// The number of inclusive loops [`inclusive_to_max`] fingerprints.
const INCLUSIVE_LOOPS: usize = 9;

/// Inclusive ranges ending at (or starting at) the extremes of their type, with `step_by`,
/// `rev`, both adapter orders, `continue` and `break`: a half-open `a..(b + 1)` would wrap and run
/// none of them. The extremes come both as literals and as arguments (`hi`, `hi_i`, `hi_u`, `lo_l`
/// are `u32::MAX`, `i32::MAX`, `usize::MAX`, `i64::MIN`); `d` and the step `k` vary per work item,
/// making some ranges empty.
#[kernel]
fn inclusive_to_max(i: usize, out: ViewMut<u64, 2>, hi: u32, hi_i: i32, hi_u: usize, lo_l: i64) {
    let d = (i % 5) as u32;
    let k = 1 + i / 5;
    let mut h = 0u64;
    for v in (u32::MAX - 3 - d)..=u32::MAX {
        h = mix(h, v as u64);
    }
    out[(i, 0)] = h;
    h = 0;
    for v in ((hi - 7 - d)..=hi).step_by(k) {
        if v % 3 == 0 {
            continue;
        }
        h = mix(h, v as u64);
    }
    out[(i, 1)] = h;
    h = 0;
    for v in ((i32::MAX - 6 - d as i32)..=i32::MAX).rev() {
        h = mix(h, v as u64);
    }
    out[(i, 2)] = h;
    h = 0;
    for v in ((hi_i - 9 - d as i32)..=hi_i).rev().step_by(k) {
        if v % 4 == 1 {
            continue;
        }
        h = mix(h, v as u64);
    }
    out[(i, 3)] = h;
    h = 0;
    for v in ((hi_u - 8 - d as usize)..=hi_u).step_by(k) {
        if v == hi_u - 2 {
            break;
        }
        h = mix(h, v as u64);
    }
    out[(i, 4)] = h;
    h = 0;
    for v in ((i64::MAX - 5 - d as i64)..=i64::MAX).rev().step_by(k) {
        h = mix(h, v as u64);
    }
    out[(i, 5)] = h;
    h = 0;
    for v in (lo_l..=(lo_l + d as i64 + 3)).rev().step_by(k) {
        h = mix(h, v as u64);
    }
    out[(i, 6)] = h;
    h = 0;
    for v in ((hi - d)..=(hi - 2)).rev() {
        h = mix(h, v as u64);
    }
    out[(i, 7)] = h;
    h = 0;
    for v in (0..=d).rev().step_by(k) {
        h = mix(h, v as u64);
    }
    out[(i, 8)] = h;
}

/// What [`inclusive_to_max`] records for work item `i`, from Rust's iterators.
fn inclusive_to_max_host(i: usize) -> [u64; INCLUSIVE_LOOPS] {
    fn fp(it: impl Iterator<Item = u64>) -> u64 {
        it.fold(0, |h, v| h.wrapping_mul(31).wrapping_add(v))
    }
    let (d, k) = ((i % 5) as u32, 1 + i / 5);
    let di = d as i32;
    [
        fp(((u32::MAX - 3 - d)..=u32::MAX).map(u64::from)),
        fp(((u32::MAX - 7 - d)..=u32::MAX)
            .step_by(k)
            .filter(|v| v % 3 != 0)
            .map(u64::from)),
        fp(((i32::MAX - 6 - di)..=i32::MAX).rev().map(|v| v as u64)),
        fp(((i32::MAX - 9 - di)..=i32::MAX)
            .rev()
            .step_by(k)
            .filter(|v| v % 4 != 1)
            .map(|v| v as u64)),
        fp(((usize::MAX - 8 - d as usize)..=usize::MAX)
            .step_by(k)
            .take_while(|&v| v != usize::MAX - 2)
            .map(|v| v as u64)),
        fp(((i64::MAX - 5 - d as i64)..=i64::MAX)
            .rev()
            .step_by(k)
            .map(|v| v as u64)),
        fp((i64::MIN..=(i64::MIN + d as i64 + 3))
            .rev()
            .step_by(k)
            .map(|v| v as u64)),
        fp(((u32::MAX - d)..=(u32::MAX - 2)).rev().map(u64::from)),
        fp((0..=d).rev().step_by(k).map(u64::from)),
    ]
}

/// Inclusive ranges up to the maximum of their type run their full range on every backend,
/// including the IR evaluator and wgpu, where `b + 1` used to wrap to an empty loop.
fn inclusive_ranges_reach_max<E: ExecutionSpace>(space: E) {
    const N: usize = 20;
    let out: DevView<E, u64, 2> = dev(&space, "out", [N, INCLUSIVE_LOOPS]).unwrap();
    parallel_for(
        "inclusive_to_max",
        RangePolicy::new(&space, 0..N),
        inclusive_to_max(&out, u32::MAX, i32::MAX, usize::MAX, i64::MIN),
    )
    .unwrap();
    let got = to_host(&out);
    for i in 0..N {
        let want = inclusive_to_max_host(i);
        for (j, w) in want.iter().enumerate() {
            assert_eq!(
                got[i * INCLUSIVE_LOOPS + j],
                *w,
                "work item {i}, loop {j} on {}",
                space.name()
            );
        }
    }
}
per_backend!(inclusive_ranges_reach_max);

/// The number of loops [`typed_literal_steps`] fingerprints.
const TYPED_STEP_LOOPS: usize = 4;

/// Literal steps written with `step_by`'s own parameter type (`2usize`) on counters of other
/// types: Rust accepts them, and so must the macro (it once turned the literal into an
/// `Expr<usize>` where the counter's type was expected, and the kernel did not compile).
#[kernel]
fn typed_literal_steps(i: usize, out: ViewMut<u64, 2>) {
    let n = i as u64;
    let mut h = 0u64;
    for v in (0u64..n).step_by(2usize) {
        h = mix(h, v);
    }
    out[(i, 0)] = h;
    h = 0;
    for v in (0u32..=(n as u32)).rev().step_by(3usize) {
        h = mix(h, v as u64);
    }
    out[(i, 1)] = h;
    h = 0;
    for v in (-(i as i32)..(i as i32)).step_by(4usize).rev() {
        h = mix(h, v as u64);
    }
    out[(i, 2)] = h;
    h = 0;
    for v in (0i32..=(i as i32)).step_by(1usize) {
        h = mix(h, v as u64);
    }
    out[(i, 3)] = h;
}

/// [`typed_literal_steps`] against Rust's iterators.
fn typed_step_literals<E: ExecutionSpace>(space: E) {
    fn fp(it: impl Iterator<Item = u64>) -> u64 {
        it.fold(0, |h, v| h.wrapping_mul(31).wrapping_add(v))
    }
    const N: usize = 13;
    let out: DevView<E, u64, 2> = dev(&space, "out", [N, TYPED_STEP_LOOPS]).unwrap();
    parallel_for(
        "typed_literal_steps",
        RangePolicy::new(&space, 0..N),
        typed_literal_steps(&out),
    )
    .unwrap();
    let got = to_host(&out);
    for i in 0..N {
        let (n, s) = (i as u64, i as i32);
        let want = [
            fp((0..n).step_by(2)),
            fp((0..=(n as u32)).rev().step_by(3).map(u64::from)),
            fp((-s..s).step_by(4).rev().map(|v| v as u64)),
            fp((0..=(i as i32)).map(|v| v as u64)),
        ];
        for (j, w) in want.iter().enumerate() {
            assert_eq!(
                got[i * TYPED_STEP_LOOPS + j],
                *w,
                "work item {i}, loop {j} on {}",
                space.name()
            );
        }
    }
}
per_backend!(typed_step_literals);

/// Steps for [`huge_steps`]: around and beyond the range of 32-bit counters.
const HUGE_STEPS: [usize; 8] = [
    1,
    3,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    1 << 32,
    (1 << 32) + 1,
    usize::MAX,
];

/// The number of loops [`huge_steps`] fingerprints.
const HUGE_LOOPS: usize = 5;

/// Run-time `usize` steps on `u32` and `i32` counters. Rust's `step_by` takes a `usize`, so a step
/// beyond the counter's range visits the first value only; cast to the counter's type (as the IR
/// once did) 2^32 became 0 (an error), 2^32 + 1 became 1 (every value) and 2^31 a negative `i32`
/// (an error). The loops `break` after 40 values, so that step 1 over a whole type ends.
#[kernel]
fn huge_steps(i: usize, out: ViewMut<u64, 2>, steps: View<usize>, hi: u32, lo_i: i32) {
    let k = steps[i];
    let mut h = 0u64;
    let mut c = 0u32;
    for v in (0..=hi).step_by(k) {
        h = mix(h, v as u64);
        c += 1;
        if c == 40 {
            break;
        }
    }
    out[(i, 0)] = h;
    h = 0;
    c = 0;
    for v in (1..hi).step_by(k) {
        h = mix(h, v as u64);
        c += 1;
        if c == 40 {
            break;
        }
    }
    out[(i, 1)] = h;
    h = 0;
    c = 0;
    for v in (lo_i..=i32::MAX).step_by(k) {
        h = mix(h, v as u64);
        c += 1;
        if c == 40 {
            break;
        }
    }
    out[(i, 2)] = h;
    h = 0;
    c = 0;
    for v in (lo_i..0).rev().step_by(k) {
        h = mix(h, v as u64);
        c += 1;
        if c == 40 {
            break;
        }
    }
    out[(i, 3)] = h;
    h = 0;
    for v in (0u32..10).step_by(k).rev() {
        h = mix(h, v as u64);
    }
    out[(i, 4)] = h;
}

/// What [`huge_steps`] records for step `k`, from Rust's iterators.
fn huge_steps_host(k: usize) -> [u64; HUGE_LOOPS] {
    fn fp(it: impl Iterator<Item = u64>) -> u64 {
        it.take(40)
            .fold(0, |h, v| h.wrapping_mul(31).wrapping_add(v))
    }
    [
        fp((0..=u32::MAX).step_by(k).map(u64::from)),
        fp((1..u32::MAX).step_by(k).map(u64::from)),
        fp((i32::MIN..=i32::MAX).step_by(k).map(|v| v as u64)),
        fp((i32::MIN..0).rev().step_by(k).map(|v| v as u64)),
        fp((0u32..10).step_by(k).rev().map(u64::from)),
    ]
}

/// Run-time `usize` steps beyond a 32-bit counter's range behave as in Rust on every backend.
fn huge_steps_match_rust<E: ExecutionSpace>(space: E) {
    let n = HUGE_STEPS.len();
    let steps: DevView<E, usize> = dev_from_vec(&space, "steps", [n], HUGE_STEPS.to_vec()).unwrap();
    let out: DevView<E, u64, 2> = dev(&space, "out", [n, HUGE_LOOPS]).unwrap();
    parallel_for(
        "huge_steps",
        RangePolicy::new(&space, 0..n),
        huge_steps(&out, &steps, u32::MAX, i32::MIN),
    )
    .unwrap();
    let got = to_host(&out);
    for (i, &k) in HUGE_STEPS.iter().enumerate() {
        for (j, w) in huge_steps_host(k).iter().enumerate() {
            assert_eq!(
                got[i * HUGE_LOOPS + j],
                *w,
                "step {k}, loop {j} on {}",
                space.name()
            );
        }
    }
}
per_backend!(huge_steps_match_rust);
