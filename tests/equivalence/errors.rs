//! Errors instead of undefined behaviour: invalid policies (`Err(InvalidPolicy)`, nothing launched),
//! launch-time argument conflicts (`Err(Aliasing)`, nothing written), shape mismatches, and
//! failures inside kernels (`Err(OutOfBounds)` naming the kernel, the View label, the index and the
//! extents; `Err(KernelFailed)` for the rest), never a panic, on every backend; live host guards
//! blocking launches, and launches releasing their hold on the arguments, on the host backends.

use crate::{dev, to_host, DevView};
use rokkos::prelude::*;
use rokkos::{Layout, MemorySpace};

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>, a: f64) {
    y[i] = a * x[i] + y[i];
}

#[kernel]
fn sum_of(i: usize, acc: &mut f64, x: View<f64>) {
    *acc += x[i];
}

#[kernel(scan)]
fn scan_into(i: usize, partial: &mut f64, is_final: bool, x: View<f64>, out: ViewMut<f64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

#[kernel]
fn team_fill(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    team.single_team(|| {
        out[l] = 1.0;
    });
}

#[kernel]
fn md_fill((i, j): (usize, usize), out: ViewMut<f64, 2>) {
    out[(i, j)] = 1.0;
}

#[kernel]
fn read_ahead(i: usize, out: ViewMut<f64>, small: View<f64>) {
    out[i] = small[i + 1];
}

#[kernel]
fn write_past(i: usize, out: ViewMut<f64, 2>) {
    out[(i, 3)] = 1.0;
}

fn ones<E: ExecutionSpace>(space: &E, label: &str, n: usize) -> DevView<E, f64> {
    let v: DevView<E, f64> = dev(space, label, [n]).unwrap();
    v.fill(1.0).unwrap();
    v
}
fn all_eq<L: Layout, S: MemorySpace>(v: &View<f64, 1, L, S>, x: f64) -> bool {
    to_host(v).iter().all(|&e| e == x)
}

/// `begin > end` is refused by every pattern before anything runs.
fn reversed_ranges<E: ExecutionSpace>(space: E) {
    let y = ones(&space, "y", 10);
    let x = ones(&space, "x", 10);
    #[allow(clippy::reversed_empty_ranges)]
    let bad = 5..2;
    let r = parallel_for(
        "axpy",
        RangePolicy::new(&space, bad.clone()),
        axpy(&y, &x, 2.0),
    );
    match r {
        Err(Error::InvalidPolicy { label, reason }) => {
            assert_eq!(label, "axpy");
            assert!(reason.contains('5') && reason.contains('2'), "{reason}");
        }
        other => panic!("expected InvalidPolicy, got {other:?}"),
    }
    assert!(all_eq(&y, 1.0));
    let r = parallel_reduce(
        "sum",
        RangePolicy::new(&space, bad.clone()),
        sum_of(&x),
        Sum,
    );
    assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{r:?}");
    let r = parallel_scan("scan", RangePolicy::new(&space, bad), scan_into(&x, &y));
    assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{r:?}");
    assert!(all_eq(&y, 1.0));

    let m: DevView<E, f64, 2> = dev(&space, "m", [4, 4]).unwrap();
    let r = parallel_for(
        "md",
        MDRangePolicy::new(&space, [0, 3], [4, 1]),
        md_fill(&m),
    );
    assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{r:?}");
    assert!(to_host(&m).iter().all(|&v| v == 0.0));
}
per_backend!(reversed_ranges);

/// Team policies outside the space's limits: team size, vector length, scratch.
fn invalid_team_policies<E: ExecutionSpace>(space: E) {
    let out: DevView<E, f64> = dev(&space, "out", [4]).unwrap();
    let lim = space.team_limits();
    let bad = [
        TeamPolicy::new(&space, 4, TeamSize::Exactly(lim.team_size_max + 1)),
        TeamPolicy::new(&space, 4, TeamSize::Exactly(0)),
        TeamPolicy::new(&space, 4, TeamSize::Auto).vector_length(3),
        TeamPolicy::new(&space, 4, TeamSize::Auto).vector_length(0),
        TeamPolicy::new(&space, 4, TeamSize::Auto).vector_length(lim.vector_length_max * 2),
        TeamPolicy::new(&space, 4, TeamSize::Auto).scratch(0, lim.scratch_max[0] + 1, 0),
        TeamPolicy::new(&space, 4, TeamSize::Auto).scratch(1, 0, lim.scratch_max[1] + 1),
        TeamPolicy::new(&space, 4, TeamSize::Auto).scratch(0, usize::MAX, usize::MAX),
        TeamPolicy::new(&space, 4, TeamSize::Auto).scratch(2, 8, 0),
    ];
    for p in bad {
        let desc = format!("{p:?}");
        let r = parallel_for("team_fill", p, team_fill(&out));
        assert!(
            matches!(r, Err(Error::InvalidPolicy { .. })),
            "{desc}: {r:?}"
        );
    }
    // On a GPU a team's threads and lanes share one block or workgroup: the largest team at the
    // longest vector length does not fit, whether the kernel's lanes are physical or not.
    if lim.team_size_max > 1 && lim.vector_length_max > 1 {
        let p = TeamPolicy::new(&space, 4, TeamSize::Exactly(lim.team_size_max))
            .vector_length(lim.vector_length_max);
        let r = parallel_for("team_fill", p, team_fill(&out));
        assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{r:?}");
    }
    // A scratch level that does not exist is named as given, and a later valid request for level
    // 1 does not make the launch valid.
    let p = TeamPolicy::new(&space, 4, TeamSize::Auto)
        .scratch(5, 8, 0)
        .scratch(1, 0, 0);
    match parallel_for("team_fill", p, team_fill(&out)) {
        Err(Error::InvalidPolicy { reason, .. }) => {
            assert_eq!(reason, "scratch level 5: only levels 0 and 1 exist")
        }
        r => panic!("expected InvalidPolicy, got {r:?}"),
    }
    assert!(to_host(&out).iter().all(|&v| v == 0.0), "nothing ran");
    // Team size 2 specifically (Kokkos host backends run teams of one thread).
    if lim.team_size_max < 2 {
        let r = parallel_for(
            "team_fill",
            TeamPolicy::new(&space, 4, TeamSize::Exactly(2)),
            team_fill(&out),
        );
        assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{r:?}");
    }
    // Each limit itself is accepted (on a GPU team size and vector length share one workgroup, so
    // the two maxima are not accepted together, as in Kokkos).
    for (ts, vl) in [(lim.team_size_max, 1), (1, lim.vector_length_max)] {
        out.fill(0.0).unwrap();
        let ok = TeamPolicy::new(&space, 4, TeamSize::Exactly(ts))
            .vector_length(vl)
            .scratch(0, lim.scratch_max[0], 0);
        parallel_for("team_fill", ok, team_fill(&out)).unwrap();
        assert!(
            to_host(&out).iter().all(|&v| v == 1.0),
            "team size {ts}, vector length {vl}"
        );
    }
}
per_backend!(invalid_team_policies);

/// A writable View overlapping another argument is refused before anything is written.
fn overlapping_arguments<E: ExecutionSpace>(space: E) {
    let y = ones(&space, "y", 16);
    let r = parallel_for("axpy", RangePolicy::new(&space, 0..16), axpy(&y, &y, 2.0));
    match r {
        Err(Error::Aliasing { kernel, reason }) => {
            assert_eq!(kernel, "axpy");
            assert!(reason.contains("`y`"), "{reason}");
        }
        other => panic!("expected Aliasing, got {other:?}"),
    }
    assert!(all_eq(&y, 1.0));
    // A clone is the same allocation.
    let y2 = y.clone();
    let r = parallel_for("axpy", RangePolicy::new(&space, 0..16), axpy(&y, &y2, 2.0));
    assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    // An overlapping subview.
    let part: DevView<E, f64, 1, LayoutStride> = y.subview((4..12,)).unwrap();
    let head: DevView<E, f64, 1, LayoutStride> = y.subview((0..8,)).unwrap();
    let r = parallel_for(
        "axpy",
        RangePolicy::new(&space, 0..8),
        axpy(&part, &head, 2.0),
    );
    assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    let r = parallel_scan(
        "scan",
        RangePolicy::new(&space, 0..8),
        scan_into(&head, &part),
    );
    assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    assert!(all_eq(&y, 1.0));
    // Disjoint halves of one allocation are fine.
    let lo: DevView<E, f64, 1, LayoutStride> = y.subview((0..8,)).unwrap();
    let hi: DevView<E, f64, 1, LayoutStride> = y.subview((8..16,)).unwrap();
    parallel_for("axpy", RangePolicy::new(&space, 0..8), axpy(&hi, &lo, 2.0)).unwrap();
    assert_eq!(to_host(&y)[8..], [3.0; 8]);
    assert_eq!(to_host(&y)[..8], [1.0; 8]);
    // The same View read twice is fine.
    let s: f64 = parallel_reduce("sum", RangePolicy::new(&space, 0..16), sum_of(&y), Sum).unwrap();
    assert_eq!(s, 32.0);
}
per_backend!(overlapping_arguments);

/// A View borrowed by a live host guard cannot be written by a kernel (nor read, under
/// `host_mut`), and nothing is written. Host memory only: guards exist only for host-accessible
/// Views.
fn host_guards_block_launches<E: ExecutionSpace<Memory = HostSpace>>(space: E) {
    let y = ones(&space, "y", 8);
    let x = ones(&space, "x", 8);
    {
        let g = y.host();
        let r = parallel_for("axpy", RangePolicy::new(&space, 0..8), axpy(&y, &x, 2.0));
        match r {
            Err(Error::Aliasing { reason, .. }) => assert!(reason.contains("`y`"), "{reason}"),
            other => panic!("expected Aliasing, got {other:?}"),
        }
        assert_eq!(g[3], 1.0);
    }
    {
        // A shared guard on a read-only argument is fine.
        let g = x.host();
        parallel_for("axpy", RangePolicy::new(&space, 0..8), axpy(&y, &x, 2.0)).unwrap();
        assert_eq!(g[0], 1.0);
    }
    assert!(all_eq(&y, 3.0));
    {
        let _g = x.host_mut();
        let r = parallel_for("axpy", RangePolicy::new(&space, 0..8), axpy(&y, &x, 2.0));
        assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
        let r = parallel_reduce("sum", RangePolicy::new(&space, 0..8), sum_of(&x), Sum);
        assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    }
    assert!(all_eq(&y, 3.0));
    // A guard on another View of the same allocation counts too.
    let sub: View<f64, 1, LayoutStride> = y.subview((0..4,)).unwrap();
    {
        let _g = sub.host();
        let r = parallel_for("axpy", RangePolicy::new(&space, 4..8), axpy(&y, &x, 2.0));
        assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    }
    assert!(all_eq(&y, 3.0));
    // Nor does `parallel_reduce_into` write its result into a View a guard borrows.
    let total = View::<f64, 0>::new("total", []).unwrap();
    {
        let _g = total.host();
        let r = parallel_reduce_into(
            "sum",
            RangePolicy::new(&space, 0..8),
            sum_of(&x),
            Sum,
            &total,
        );
        match r {
            Err(Error::Aliasing { reason, .. }) => assert!(reason.contains("`total`"), "{reason}"),
            other => panic!("expected Aliasing, got {other:?}"),
        }
    }
    assert_eq!(total.get([]), 0.0);
    parallel_reduce_into(
        "sum",
        RangePolicy::new(&space, 0..8),
        sum_of(&x),
        Sum,
        &total,
    )
    .unwrap();
    assert_eq!(total.get([]), 8.0);
}
per_host_backend!(host_guards_block_launches);

/// Out-of-bounds reads and writes in a kernel fail with `Err(OutOfBounds)` naming the kernel, the
/// View label, the index and the extents, on every backend, never with a panic: host backends catch
/// the body's report at the launch boundary (rayon re-raises a worker's in the caller first), the
/// IR evaluator returns it, and a device backend returns it from the fence that follows the
/// (asynchronous) launch.
fn out_of_bounds_is_an_error<E: ExecutionSpace>(space: E) {
    for n in [1usize, 5, 1000] {
        let out: DevView<E, f64> = dev(&space, "out", [n]).unwrap();
        let small: DevView<E, f64> = dev(&space, "small", [n]).unwrap();
        let r = parallel_for(
            "read_ahead",
            RangePolicy::new(&space, 0..n),
            read_ahead(&out, &small),
        )
        .and_then(|()| space.fence());
        assert_eq!(
            r,
            Err(Error::OutOfBounds {
                kernel: "read_ahead".into(),
                view: "small".into(),
                index: format!("({n})"),
                extents: format!("({n})"),
            }),
            "out-of-bounds read"
        );

        let grid: DevView<E, f64, 2, LayoutLeft> = dev(&space, "grid", [n, 3]).unwrap();
        let r = parallel_for(
            "write_past",
            RangePolicy::new(&space, 0..n),
            write_past(&grid),
        )
        .and_then(|()| space.fence());
        // Every work item writes out of bounds; which one is reported first is the backend's.
        match r {
            Err(Error::OutOfBounds {
                kernel,
                view,
                index,
                extents,
            }) => {
                assert_eq!((kernel.as_str(), view.as_str()), ("write_past", "grid"));
                assert_eq!(extents, format!("({n}, 3)"));
                assert!(index.ends_with(", 3)"), "{index}");
            }
            other => panic!("out-of-bounds write: expected OutOfBounds, got {other:?}"),
        }
        assert!(to_host(&grid).iter().all(|&v| v == 0.0));
    }
}
per_backend!(out_of_bounds_is_an_error);

/// The message of the error, on the serial backend (Kokkos' tests check the message this way).
#[test]
fn out_of_bounds_message_serial() {
    let out = View::<f64>::new("out", [4]).unwrap();
    let small = View::<f64>::new("small", [4]).unwrap();
    let e = parallel_for(
        "read_ahead",
        RangePolicy::new(&Serial, 0..4),
        read_ahead(&out, &small),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel `read_ahead`: index (4) out of bounds for View `small` with extents (4)"
    );
}

/// The same on rayon, where the failing work item runs on a worker thread.
#[cfg(feature = "rayon")]
#[test]
fn out_of_bounds_message_rayon() {
    let out = View::<f64>::new("out", [4096]).unwrap();
    let small = View::<f64>::new("small", [4096]).unwrap();
    let space = rokkos::Rayon::with_threads(2).unwrap();
    let e = parallel_for(
        "read_ahead",
        RangePolicy::new(&space, 0..4096),
        read_ahead(&out, &small),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel `read_ahead`: index (4096) out of bounds for View `small` with extents (4096)"
    );
}

/// Error values display their details.
#[test]
fn error_messages_name_the_views() {
    let a = View::<f64, 2>::new("alpha", [2, 3]).unwrap();
    let b = View::<f64, 2>::new("beta", [3, 2]).unwrap();
    let e = deep_copy(&a, &b).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("alpha") && msg.contains("beta") && msg.contains("(2, 3)"),
        "{msg}"
    );
    let e = View::<f64, 2, LayoutStride>::new_strided("gamma", [3, 4], [1, 1]).unwrap_err();
    assert!(e.to_string().contains("gamma"), "{e}");
}

#[kernel]
fn md3((i, j, k): (usize, usize, usize), out: ViewMut<f64, 3>) {
    out[(i, j, k)] = 1.0;
}

/// Regression: a tile larger than `usize::MAX - begin` overflows in
/// `host_iter::TileGrid::for_each_in_tile` (`lo + tile`): "attempt to add with overflow" in debug
/// builds, a skipped tile in release builds. Expected: the box is filled (or `Err(InvalidPolicy)`).
#[test]
fn huge_tile_extent() {
    let m = View::<f64, 2>::new("m", [4, 4]).unwrap();
    let p = MDRangePolicy::new(&Serial, [1, 0], [3, 2]).tile([usize::MAX, 1]);
    match parallel_for("md", p, md_fill(&m)) {
        Ok(()) => {
            let h = m.host();
            for i in 0..4 {
                for j in 0..4 {
                    let inside = (1..3).contains(&i) && j < 2;
                    assert_eq!(h[(i, j)], if inside { 1.0 } else { 0.0 });
                }
            }
        }
        Err(e) => assert!(matches!(e, Error::InvalidPolicy { .. }), "{e}"),
    }
}

/// Regression: the tile count of a box is a product computed without overflow checks
/// (`TileGrid::len`, also `MDRangePolicy::len`), so a box with an empty dimension but huge other
/// dimensions panics with "attempt to multiply with overflow" (debug) instead of running nothing.
#[test]
fn empty_box_with_huge_dimensions() {
    let m3 = View::<f64, 3>::new("m3", [1, 1, 1]).unwrap();
    let p = MDRangePolicy::new(&Serial, [0, 0, 0], [1 << 40, 1 << 40, 0]);
    let r = parallel_for("md3", p, md3(&m3));
    assert!(
        matches!(r, Ok(()) | Err(Error::InvalidPolicy { .. })),
        "{r:?}"
    );
    assert_eq!(m3.get((0, 0, 0)), 0.0);
}

#[kernel]
fn stepped_sum(i: usize, out: ViewMut<u64>, k: usize) {
    let mut s = 0u64;
    for j in (i..i + 10).step_by(k) {
        s += j as u64;
    }
    out[i] = s;
}

/// A `for` loop whose step is a run-time 0 fails on every backend, as `step_by(0)` does in Rust:
/// host backends return `Err(KernelFailed)` with Rust's message, the IR evaluator and device
/// backends an error naming the step. A positive step gives Rust's sums.
fn zero_loop_step_fails<E: ExecutionSpace>(space: E) {
    let n = 37;
    let out: DevView<E, u64> = dev(&space, "out", [n]).unwrap();
    for k in [1usize, 3, 10, 11] {
        parallel_for(
            "stepped",
            RangePolicy::new(&space, 0..n),
            stepped_sum(&out, k),
        )
        .unwrap();
        let want: Vec<u64> = (0..n)
            .map(|i| (i..i + 10).step_by(k).map(|j| j as u64).sum())
            .collect();
        assert_eq!(to_host(&out), want, "step {k}");
    }
    let r = parallel_for(
        "stepped",
        RangePolicy::new(&space, 0..n),
        stepped_sum(&out, 0),
    )
    .and_then(|()| space.fence());
    let msg = crate::kernel_failure(&space, r, "stepped_sum", "step_by(0)");
    assert!(msg.contains("step"), "{msg}");
}
per_backend!(zero_loop_step_fails);

#[kernel]
fn divide(i: usize, q: ViewMut<i64>, r: ViewMut<u32>, x: View<i64>, d: i64, e: u32) {
    q[i] = x[i] / d;
    r[i] = (i as u32) % e;
}

/// Integer division and remainder by a run-time zero fail on every backend with an `Err` (host
/// backends: `Err(KernelFailed)` with Rust's message), and by non-zero values give Rust's results.
fn division_by_zero_fails<E: ExecutionSpace>(space: E) {
    let n = 50;
    let xs: Vec<i64> = (0..n).map(|i| (i as i64 - 25) * 1_000_003).collect();
    let x: DevView<E, i64> = crate::dev_from_vec(&space, "x", [n], xs.clone()).unwrap();
    let q: DevView<E, i64> = dev(&space, "q", [n]).unwrap();
    let r: DevView<E, u32> = dev(&space, "r", [n]).unwrap();
    for (d, e) in [(7i64, 3u32), (-2, 1), (i64::MAX, 17)] {
        parallel_for(
            "divide",
            RangePolicy::new(&space, 0..n),
            divide(&q, &r, &x, d, e),
        )
        .unwrap();
        let want_q: Vec<i64> = xs.iter().map(|v| v / d).collect();
        let want_r: Vec<u32> = (0..n as u32).map(|i| i % e).collect();
        assert_eq!(to_host(&q), want_q, "x / {d}");
        assert_eq!(to_host(&r), want_r, "i % {e}");
    }
    for (d, e) in [(0i64, 3u32), (5, 0)] {
        let res = parallel_for(
            "divide",
            RangePolicy::new(&space, 0..n),
            divide(&q, &r, &x, d, e),
        )
        .and_then(|()| space.fence());
        let msg = crate::kernel_failure(&space, res, "divide", "division by zero");
        assert!(msg.contains("zero"), "{msg}");
    }
}
per_backend!(division_by_zero_fails);

/// `ROKKOS_DEVICE_BOUNDS_CHECKS` (read once per process, so set in a child process running this
/// suite's wgpu out-of-bounds test): with every check kept (`all`), and with a request to turn
/// them off (`0`, which is not honoured: device checks stay on in every build), the out-of-bounds
/// read and write are still `Err(OutOfBounds)`. With no adapter, or one that cannot run the body
/// (OpenGL has no f64), the child skips it, saying so, and no kernel reads the setting: that is
/// reported here rather than taken for a missing warning (CI's lavapipe runs the body).
#[cfg(feature = "wgpu")]
#[test]
fn device_bounds_check_settings_still_report() {
    let exe = std::env::current_exe().expect("the test executable");
    for setting in ["all", "0"] {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "errors::out_of_bounds_is_an_error::wgpu",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(rokkos_device::runtime::bounds::ENV, setting)
            .output()
            .expect("the child test process");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{setting}: {text}");
        assert!(text.contains("1 passed"), "{setting}: {text}");
        if let Some(at) = text.find("skipped") {
            let why = text[at..].lines().next().unwrap_or_default();
            eprintln!("{setting}: not checked, the child test was {why}");
            continue;
        }
        if setting == "0" {
            assert!(text.contains("not honoured"), "{text}");
        }
    }
}
