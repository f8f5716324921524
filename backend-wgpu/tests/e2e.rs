//! End-to-end: hand-written kernel values (the shape `#[rokkos::kernel]` generates) run on the wgpu
//! space and compared with the reference evaluator or closed forms. Without an adapter each test
//! prints why and passes, unless `ROKKOS_REQUIRE_WGPU=1`.

use rokkos_core::ir::build::{BuildError, KernelBuilder};
use rokkos_core::ir::{self, Access};
use rokkos_core::kernel::*;
use rokkos_core::*;
use rokkos_wgpu::{Wgpu, WgpuSpace};

mod common;
use common::{space, NoBody};

type DView<T, const R: usize = 1, L = LayoutRight> = View<T, R, L, WgpuSpace>;

fn upload<T: Pod + ir::build::IrScalar, const R: usize, L: Layout>(
    s: &Wgpu,
    label: &str,
    extents: [usize; R],
    f: impl Fn([usize; R]) -> T,
) -> DView<T, R, L> {
    let h = View::<T, R, L>::from_fn(label, extents, f).unwrap();
    let d = DView::<T, R, L>::new_in(&s.memory_space(), label, extents).unwrap();
    deep_copy(&d, &h).unwrap();
    d
}
fn download<T: Pod, const R: usize, L: Layout>(d: &DView<T, R, L>) -> View<T, R, L> {
    let h = View::<T, R, L>::new("h", d.extents()).unwrap();
    deep_copy(&h, d).unwrap();
    h
}

// ---- y[i] = a * x[i] + i (f64), any layouts ----
struct Axpy<'k, L1: Layout, L2: Layout> {
    y: &'k DView<f64, 1, L1>,
    x: &'k DView<f64, 1, L2>,
    a: f64,
}
impl<L1: Layout, L2: Layout> Kernel for Axpy<'_, L1, L2> {
    const NAME: &'static str = "axpy";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.y.__kernel_arg("y", true));
        f(self.x.__kernel_arg("x", false));
    }
}
impl<L1: Layout, L2: Layout> ForKernel<RangeWork> for Axpy<'_, L1, L2> {
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl<L1: Layout, L2: Layout> KernelIr for Axpy<'_, L1, L2> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("axpy", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let y = kb.view::<f64>("y", 1, Access::Writable);
        let x = kb.view::<f64>("x", 1, Access::ReadOnly);
        let a = kb.scalar::<f64>("a");
        kb.store(y, i.clone(), a.get() * x.load(i.clone()) + i.cast::<f64>());
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.y.__binding("y", true)));
        f(KernelArg::View(self.x.__binding("x", false)));
        f(KernelArg::Scalar(ir::Value::F64(self.a)));
    }
}

#[test]
fn for_range_axpy_sizes_and_layouts() {
    let Some(s) = space() else { return };
    for n in [0usize, 1, 7, 256, 257, 1000, 65537] {
        let x = upload::<f64, 1, LayoutLeft>(&s, "x", [n], |[i]| i as f64 * 0.5);
        let y = DView::<f64>::new_in(&s.memory_space(), "y", [n]).unwrap();
        parallel_for(
            "axpy",
            RangePolicy::new(&s, 0..n),
            Axpy {
                y: &y,
                x: &x,
                a: 3.0,
            },
        )
        .unwrap();
        let h = download(&y);
        for i in 0..n {
            assert_eq!(h.get([i]), 3.0 * (i as f64 * 0.5) + i as f64, "n={n} i={i}");
        }
    }
    // A strided subview of a 2-D View (offset + stride), and a sub-range.
    let m = upload::<f64, 2, LayoutRight>(&s, "m", [40, 3], |[i, j]| (i * 3 + j) as f64);
    let col: DView<f64, 1, LayoutStride> = m.subview((.., 2)).unwrap();
    let y =
        DView::<f64, 1, LayoutStride>::new_strided_in(&s.memory_space(), "ys", [40], [2]).unwrap();
    parallel_for(
        "axpy",
        RangePolicy::new(&s, 5..35),
        Axpy {
            y: &y,
            x: &col,
            a: -1.0,
        },
    )
    .unwrap();
    let h = download(&y);
    for i in 0..40 {
        let want = if (5..35).contains(&i) {
            -((i * 3 + 2) as f64) + i as f64
        } else {
            0.0
        };
        assert_eq!(h.get([i]), want, "i={i}");
    }
    s.fence().unwrap();
}

// ---- (sum of x[i]*x[i], minloc of x) : two accumulators ----
struct SumMin<'k> {
    x: &'k DView<i64>,
}
impl Kernel for SumMin<'_> {
    const NAME: &'static str = "summin";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.x.__kernel_arg("x", false));
    }
}
impl ReduceKernel<RangeWork> for SumMin<'_> {
    type Value = (i64, ValLoc<i64>);
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl KernelIr for SumMin<'_> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("summin", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let acc = kb.acc::<i64>("acc");
        let (mv, ml) = kb.acc_valloc::<i64>("m");
        let x = kb.view::<i64>("x", 1, Access::ReadOnly);
        let v = kb.let_("v", x.load(i.clone()));
        kb.acc_set(acc, acc.get() + v.get() * v.get());
        kb.if_(v.get().lt(mv.get()));
        kb.acc_set(mv, v.get());
        kb.acc_set(ml, i.clone());
        kb.end();
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.x.__binding("x", false)));
    }
}

#[test]
fn reduce_range_sum_and_minloc() {
    let Some(s) = space() else { return };
    // Past 4 x 1024 x 256 items every invocation folds several groups of four.
    for n in [0usize, 1, 2, 255, 256, 1023, 4099, 300_001, 1_300_007] {
        let val = |i: usize| ((i as i64 * 7919) % 1000) - 500;
        let x = upload::<i64, 1, LayoutRight>(&s, "x", [n], |[i]| val(i));
        let (sum, ml) = parallel_reduce(
            "summin",
            RangePolicy::new(&s, 0..n),
            SumMin { x: &x },
            (Sum, MinLoc),
        )
        .unwrap();
        let want_sum: i64 = (0..n).map(|i| val(i) * val(i)).sum();
        assert_eq!(sum, want_sum, "n={n}");
        let mut want = ValLoc {
            val: i64::MAX,
            loc: usize::MAX,
        };
        for i in 0..n {
            MinLoc.join(
                &mut want,
                ValLoc {
                    val: val(i),
                    loc: i,
                },
            );
        }
        assert_eq!(ml, want, "n={n}");
    }
    // A host-only reducer in a tuple takes the ordered-partials mode (every partial joined on
    // the host, in order): the sum of squares and the first minimum's location.
    let x = upload::<i64, 1, LayoutRight>(&s, "x", [4], |[i]| i as i64);
    let r = parallel_reduce(
        "summin",
        RangePolicy::new(&s, 0..4),
        SumMin { x: &x },
        (Custom::new(0i64, |a: &mut i64, b| *a += b), MinLoc),
    );
    assert_eq!(r.unwrap(), (14, ValLoc { val: 0, loc: 0 }));
}

// ---- exclusive prefix sum ----
struct Prefix<'k> {
    x: &'k DView<i64>,
    out: &'k DView<i64>,
}
impl Kernel for Prefix<'_> {
    const NAME: &'static str = "prefix";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.x.__kernel_arg("x", false));
        f(self.out.__kernel_arg("out", true));
    }
}
impl ScanKernel<RangeWork> for Prefix<'_> {
    type Value = i64;
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl KernelIr for Prefix<'_> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("prefix", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let p = kb.scan_partial::<i64>("p");
        let fin = kb.is_final();
        let x = kb.view::<i64>("x", 1, Access::ReadOnly);
        let out = kb.view::<i64>("out", 1, Access::Writable);
        kb.if_(fin);
        kb.store(out, i.clone(), p.get());
        kb.end();
        kb.acc_set(p, p.get() + x.load(i));
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.x.__binding("x", false)));
        f(KernelArg::View(self.out.__binding("out", true)));
    }
}

#[test]
fn scan_range_exclusive_prefix() {
    let Some(s) = space() else { return };
    for n in [0usize, 1, 3, 256, 257, 10_007, 70_001] {
        let x = upload::<i64, 1, LayoutRight>(&s, "x", [n], |[i]| (i % 13) as i64 - 4);
        let out = DView::<i64>::new_in(&s.memory_space(), "out", [n]).unwrap();
        let total = parallel_scan(
            "prefix",
            RangePolicy::new(&s, 0..n),
            Prefix { x: &x, out: &out },
        )
        .unwrap();
        let h = download(&out);
        let mut acc = 0i64;
        for i in 0..n {
            assert_eq!(h.get([i]), acc, "n={n} i={i}");
            acc += (i % 13) as i64 - 4;
        }
        assert_eq!(total, acc, "n={n}");
    }
}

// ---- out-of-bounds access is reported ----
#[test]
fn out_of_bounds_is_an_error() {
    let Some(s) = space() else { return };
    let x = upload::<f64, 1, LayoutRight>(&s, "short", [10], |[i]| i as f64);
    let y = DView::<f64>::new_in(&s.memory_space(), "y", [20]).unwrap();
    failing_axpy(&s, &x, &y);
    let r = s.fence();
    assert!(
        matches!(&r, Err(Error::OutOfBounds { view, .. }) if view == "short"),
        "{r:?}"
    );
    // The space stays usable and the flag is cleared.
    s.fence().unwrap();
    let h = download(&y);
    assert_eq!(h.get([3]), 6.0);
    assert_eq!(h.get([15]), 15.0); // load yielded 0

    // Reported by a host read instead of a fence: once, then the space is clean again.
    failing_axpy(&s, &x, &y);
    let h = View::<f64>::new("h", [20]).unwrap();
    let r = deep_copy(&h, &y);
    assert!(matches!(&r, Err(Error::OutOfBounds { .. })), "{r:?}");
    s.fence().unwrap();
    deep_copy(&h, &y).unwrap();
}

// ---- MDRange: b[(i, j)] = a[(i, j)] * 2 + j; reduce sum of a ----
/// An out-of-bounds `Axpy` launch (10-element `x`, 20 work items) on `s`.
fn failing_axpy(s: &Wgpu, x: &DView<f64>, y: &DView<f64>) {
    parallel_for("axpy", RangePolicy::new(s, 0..20), Axpy { y, x, a: 1.0 }).unwrap();
}

/// Each thread's fence reports its own kernel's error, every time, while another thread fences
/// (or reads) in a loop; the other thread, which launched nothing that failed, sees none. (A
/// reader that found another thread's record once cleared `unchecked` before knowing whose it
/// was, so the owner's fence could skip the record and return `Ok`.)
#[test]
fn errors_reach_the_launching_thread_while_another_fences() {
    let Some(s) = space() else { return };
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|sc| {
        let (s2, stop2) = (s.clone(), &stop);
        let other = sc.spawn(move || {
            let z = DView::<f64>::new_in(&s2.memory_space(), "z", [4]).unwrap();
            let h = View::<f64>::new("h", [4]).unwrap();
            let mut rounds = 0u32;
            while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
                s2.fence().unwrap();
                deep_copy(&h, &z).unwrap();
                rounds += 1;
            }
            rounds
        });
        // Stops the other thread however this one leaves the scope (a failed assertion too).
        struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let guard = Stop(&stop);
        let x = upload::<f64, 1, LayoutRight>(&s, "short", [10], |[i]| i as f64);
        let y = DView::<f64>::new_in(&s.memory_space(), "y", [20]).unwrap();
        for round in 0..100 {
            failing_axpy(&s, &x, &y);
            let r = s.fence();
            assert!(
                matches!(&r, Err(Error::OutOfBounds { kernel, view, .. }) if kernel == "axpy" && view == "short"),
                "round {round}: {r:?}"
            );
        }
        s.fence().unwrap();
        drop(guard);
        let rounds = other.join().unwrap();
        assert!(rounds > 0);
    });
}

/// The error of a thread that exits without synchronising stays its own, and does not hold the
/// device's record: later errors of other threads are still reported, once each.
#[test]
fn an_exited_threads_error_does_not_hide_later_ones() {
    let Some(s) = space() else { return };
    for _ in 0..3 {
        std::thread::scope(|sc| {
            let s2 = s.clone();
            sc.spawn(move || {
                let x = upload::<f64, 1, LayoutRight>(&s2, "short", [10], |[i]| i as f64);
                let y = DView::<f64>::new_in(&s2.memory_space(), "y", [20]).unwrap();
                failing_axpy(&s2, &x, &y);
            });
        });
        s.fence().unwrap();
    }
    let x = upload::<f64, 1, LayoutRight>(&s, "short", [10], |[i]| i as f64);
    let y = DView::<f64>::new_in(&s.memory_space(), "y", [20]).unwrap();
    failing_axpy(&s, &x, &y);
    let r = s.fence();
    assert!(matches!(&r, Err(Error::OutOfBounds { .. })), "{r:?}");
    s.fence().unwrap();
    failing_axpy(&s, &x, &y);
    let h = View::<f64>::new("h", [20]).unwrap();
    let r = deep_copy(&h, &y);
    assert!(matches!(&r, Err(Error::OutOfBounds { .. })), "{r:?}");
    deep_copy(&h, &y).unwrap();
    s.fence().unwrap();
}

/// Kernels of two threads that both fail between two synchronisations: each thread's fence
/// reports its own (the device keeps one error record per unread launch, not one in all).
#[test]
fn concurrent_failures_of_two_threads_are_both_reported() {
    let Some(s) = space() else { return };
    let barrier = std::sync::Barrier::new(2);
    std::thread::scope(|sc| {
        for label in ["short_a", "short_b"] {
            let (s, barrier) = (s.clone(), &barrier);
            sc.spawn(move || {
                let x = upload::<f64, 1, LayoutRight>(&s, label, [10], |[i]| i as f64);
                let y = DView::<f64>::new_in(&s.memory_space(), "y", [20]).unwrap();
                // Checked after the rounds, so that a failure cannot leave the other thread
                // waiting at the barrier.
                let mut got = Vec::new();
                for _ in 0..30 {
                    failing_axpy(&s, &x, &y);
                    // Both kernels are launched before either thread synchronises.
                    barrier.wait();
                    got.push(s.fence());
                    barrier.wait();
                }
                for (round, r) in got.iter().enumerate() {
                    assert!(
                        matches!(r, Err(Error::OutOfBounds { view, .. }) if view == label),
                        "{label}, round {round}: {r:?}"
                    );
                }
            });
        }
    });
    s.fence().unwrap();
}

/// More launches that may fail than the device has error records, with no synchronisation in
/// between: the records are read and recycled on the way (one wait per 64 launches), and the
/// error of a failing launch among them is reported once, at the fence.
#[test]
fn many_unread_launches_recycle_the_error_records() {
    let Some(s) = space() else { return };
    let x = upload::<f64, 1, LayoutRight>(&s, "short", [10], |[i]| i as f64);
    let y = DView::<f64>::new_in(&s.memory_space(), "y", [20]).unwrap();
    let y10 = DView::<f64>::new_in(&s.memory_space(), "y10", [10]).unwrap();
    for k in 0..300 {
        // In bounds: may fail (its bounds are checked) but does not.
        parallel_for(
            "axpy",
            RangePolicy::new(&s, 0..10),
            Axpy {
                y: &y10,
                x: &x,
                a: 1.0,
            },
        )
        .unwrap();
        if k == 150 {
            failing_axpy(&s, &x, &y);
        }
    }
    let r = s.fence();
    assert!(
        matches!(&r, Err(Error::OutOfBounds { view, .. }) if view == "short"),
        "{r:?}"
    );
    s.fence().unwrap();
    let h = download(&y10);
    // y[i] = a * x[i] + i with x[i] = i.
    assert!((0..10).all(|i| h.get([i]) == 2.0 * i as f64));
}

struct Md<'k, L: Layout> {
    a: &'k DView<f32, 2, L>,
    b: &'k DView<f32, 2, L>,
}
impl<L: Layout> Kernel for Md<'_, L> {
    const NAME: &'static str = "md";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.a.__kernel_arg("a", false));
        f(self.b.__kernel_arg("b", true));
    }
}
impl<L: Layout> ForKernel<MDWork<2>> for Md<'_, L> {
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl<L: Layout> KernelIr for Md<'_, L> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("md", ir::WorkKind::MDRange(2));
        let i = kb.work_index(0);
        let j = kb.work_index(1);
        let a = kb.view::<f32>("a", 2, Access::ReadOnly);
        let b = kb.view::<f32>("b", 2, Access::Writable);
        kb.store(
            b,
            [i.clone(), j.clone()],
            a.load([i, j.clone()]) * 2.0f32 + j.cast::<f32>(),
        );
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.a.__binding("a", false)));
        f(KernelArg::View(self.b.__binding("b", true)));
    }
}

fn md_case<L: Layout>(s: &Wgpu, n0: usize, n1: usize, tile: [usize; 2]) {
    let a = upload::<f32, 2, L>(s, "a", [n0, n1], |[i, j]| (i * 100 + j) as f32);
    let b = DView::<f32, 2, L>::new_in(&s.memory_space(), "b", [n0, n1]).unwrap();
    let pol = MDRangePolicy::new(s, [1, 0], [n0, n1]).tile(tile);
    parallel_for("md", pol, Md { a: &a, b: &b }).unwrap();
    let h = download(&b);
    for i in 0..n0 {
        for j in 0..n1 {
            let want = if i >= 1 {
                (i * 100 + j) as f32 * 2.0 + j as f32
            } else {
                0.0
            };
            assert_eq!(h.get([i, j]), want, "{n0}x{n1} tile {tile:?} at ({i},{j})");
        }
    }
}

#[test]
fn for_mdrange_layouts_and_tiles() {
    let Some(s) = space() else { return };
    md_case::<LayoutRight>(&s, 17, 33, [0, 0]);
    md_case::<LayoutLeft>(&s, 5, 300, [4, 8]);
    md_case::<LayoutRight>(&s, 1, 1, [0, 0]);
    md_case::<LayoutLeft>(&s, 64, 3, [16, 1]);
}

mod props {
    use super::*;
    use proptest::prelude::*;
    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
        #[test]
        fn axpy_matches_closed_form(n in 0usize..5000, begin in 0usize..50, a in -4.0f64..4.0) {
            let Some(s) = space() else { return Ok(()) };
            let begin = begin.min(n);
            let x = upload::<f64, 1, LayoutLeft>(&s, "x", [n], |[i]| i as f64 - 7.0);
            let y = DView::<f64>::new_in(&s.memory_space(), "y", [n]).unwrap();
            parallel_for("axpy", RangePolicy::new(&s, begin..n), Axpy { y: &y, x: &x, a }).unwrap();
            let h = download(&y);
            for i in 0..n {
                let want = if i >= begin { a * (i as f64 - 7.0) + i as f64 } else { 0.0 };
                // GPU compilers may fuse `a * x + y` into one fma (one rounding instead of two).
                let tol = 2.0 * f64::EPSILON * (a * (i as f64 - 7.0)).abs().max(want.abs());
                prop_assert!((h.get([i]) - want).abs() <= tol, "y[{}] = {} want {}", i, h.get([i]), want);
            }
        }
    }
}

// ---- casts and exact math against the reference evaluator ----
struct Casts<'k> {
    x: &'k DView<f32>,
    oi: &'k DView<i32>,
    ou: &'k DView<u64>,
    of: &'k DView<f32>,
}
impl Kernel for Casts<'_> {
    const NAME: &'static str = "casts";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.x.__kernel_arg("x", false));
        f(self.oi.__kernel_arg("oi", true));
        f(self.ou.__kernel_arg("ou", true));
        f(self.of.__kernel_arg("of", true));
    }
}
impl ForKernel<RangeWork> for Casts<'_> {
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}
impl KernelIr for Casts<'_> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("casts", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let x = kb.view::<f32>("x", 1, Access::ReadOnly);
        let oi = kb.view::<i32>("oi", 1, Access::Writable);
        let ou = kb.view::<u64>("ou", 1, Access::Writable);
        let of = kb.view::<f32>("of", 1, Access::Writable);
        let v = kb.let_("v", x.load(i.clone()));
        let k = kb.let_("k", v.get().cast::<i32>());
        kb.store(
            oi,
            i.clone(),
            (k.get() << 35i32) ^ (k.get() >> 3i32) ^ (k.get() % 7),
        );
        kb.store(
            ou,
            i.clone(),
            v.get().cast::<u64>() + v.get().cast::<i64>().cast::<u64>() * 3,
        );
        kb.store(
            of,
            i.clone(),
            v.get().round() + v.get().signum() * 1000.0f32 + v.get().min(0.5f32) + v.get().fract(),
        );
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.x.__binding("x", false)));
        f(KernelArg::View(self.oi.__binding("oi", true)));
        f(KernelArg::View(self.ou.__binding("ou", true)));
        f(KernelArg::View(self.of.__binding("of", true)));
    }
}

#[test]
fn casts_and_exact_math_match_the_evaluator() {
    let Some(s) = space() else { return };
    let xs: Vec<f32> = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        1e10,
        -1e10,
        3e38,
        -3e38,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2147483520.0,
        -2147483648.0,
        4294967040.0,
        123.456,
        -7.75,
        1e-40,
    ];
    let n = xs.len();
    let x = upload::<f32, 1, LayoutRight>(&s, "x", [n], |[i]| xs[i]);
    let oi = DView::<i32>::new_in(&s.memory_space(), "oi", [n]).unwrap();
    let ou = DView::<u64>::new_in(&s.memory_space(), "ou", [n]).unwrap();
    let of = DView::<f32>::new_in(&s.memory_space(), "of", [n]).unwrap();
    parallel_for(
        "casts",
        RangePolicy::new(&s, 0..n),
        Casts {
            x: &x,
            oi: &oi,
            ou: &ou,
            of: &of,
        },
    )
    .unwrap();
    let (gi, gu, gf) = (
        download(&oi).to_vec(),
        download(&ou).to_vec(),
        download(&of).to_vec(),
    );
    let k = Casts::build_ir().unwrap();
    let (mut xv, mut ei, mut eu, mut ef) =
        (xs.clone(), vec![0i32; n], vec![0u64; n], vec![0f32; n]);
    let mut args = vec![
        ir::eval::ArgValue::view(&mut xv, &[n]),
        ir::eval::ArgValue::view(&mut ei, &[n]),
        ir::eval::ArgValue::view(&mut eu, &[n]),
        ir::eval::ArgValue::view(&mut ef, &[n]),
    ];
    ir::eval::eval_for(
        &k,
        &ir::eval::WorkSet::Range {
            begin: 0,
            end: n as u64,
        },
        &mut args,
    )
    .unwrap();
    drop(args);
    for i in 0..n {
        assert_eq!(gi[i], ei[i], "i32 path for x = {}", xs[i]);
        assert_eq!(gu[i], eu[i], "u64 path for x = {}", xs[i]);
        assert!(
            gf[i].to_bits() == ef[i].to_bits() || (gf[i].is_nan() && ef[i].is_nan()),
            "f32 path for x = {}: {} vs {}",
            xs[i],
            gf[i],
            ef[i]
        );
    }
}

// ---- 64-bit atomics: s[i % 4] += x[i] on i64 and f64 ----
struct Atomics64<'k> {
    si: &'k DView<i64>,
    sf: &'k DView<f64>,
    x: &'k DView<i64>,
}
impl Kernel for Atomics64<'_> {
    const NAME: &'static str = "atomics64";
    type Space = WgpuSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.si.__kernel_arg("si", true));
        f(self.sf.__kernel_arg("sf", true));
        f(self.x.__kernel_arg("x", false));
    }
}
impl KernelIr for Atomics64<'_> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("atomics64", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let si = kb.view::<i64>("si", 1, Access::Writable);
        let sf = kb.view::<f64>("sf", 1, Access::Writable);
        let x = kb.view::<i64>("x", 1, Access::ReadOnly);
        let bucket = i.clone() % 4usize;
        kb.atomic_add(si, bucket.clone(), x.load(i.clone()));
        kb.atomic_add(sf, bucket, x.load(i).cast::<f64>() * 0.5);
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, WgpuSpace>)) {
        f(KernelArg::View(self.si.__binding("si", true)));
        f(KernelArg::View(self.sf.__binding("sf", true)));
        f(KernelArg::View(self.x.__binding("x", false)));
    }
}
impl ForKernel<RangeWork> for Atomics64<'_> {
    type Body<'a>
        = NoBody
    where
        Self: 'a;
    unsafe fn bind(&self) -> NoBody {
        NoBody
    }
}

#[test]
fn atomics_on_64_bit_elements() {
    let Some(s) = space() else { return };
    let n = 10_007;
    let x = upload::<i64, 1, LayoutRight>(&s, "x", [n], |[i]| (i as i64 % 13) - 6);
    let si = DView::<i64>::new_in(&s.memory_space(), "si", [4]).unwrap();
    let sf = DView::<f64>::new_in(&s.memory_space(), "sf", [4]).unwrap();
    let r = parallel_for(
        "atomics64",
        RangePolicy::new(&s, 0..n),
        Atomics64 {
            si: &si,
            sf: &sf,
            x: &x,
        },
    )
    .and_then(|()| s.fence());
    if let Err(Error::Unsupported { feature, .. }) = &r {
        assert!(
            !s.has_atomic64(),
            "refused although the adapter has 64-bit atomics: {feature}"
        );
        eprintln!("skipping 64-bit atomics: {feature}");
        return;
    }
    r.unwrap();
    let (hi, hf) = (download(&si), download(&sf));
    for b in 0..4 {
        let want: i64 = (b..n).step_by(4).map(|i| (i as i64 % 13) - 6).sum();
        assert_eq!(hi.get([b]), want, "i64 bucket {b}");
        // Halves of small integers: exact in any order.
        assert_eq!(hf.get([b]), want as f64 * 0.5, "f64 bucket {b}");
    }
}

// ---- deep_copy between two device Views: a device copy when both are contiguous ----
#[test]
fn deep_copy_device_to_device() {
    let Some(s) = space() else { return };
    for n in [1usize, 7, 1000, 65537] {
        let a = upload::<f64, 1, LayoutRight>(&s, "a", [n], |[i]| i as f64 * 0.5 - 3.0);
        // Contiguous to contiguous (the device copy), then into a subview at an offset.
        let b = DView::<f64>::new_in(&s.memory_space(), "b", [n]).unwrap();
        deep_copy(&b, &a).unwrap();
        let big = DView::<f64>::new_in(&s.memory_space(), "big", [n + 5]).unwrap();
        let tail = big.subview([SliceArg::Range(5, Some(n + 5))]).unwrap();
        deep_copy(&tail, &b).unwrap();
        // Strided on one side (through the host).
        let m = DView::<f64, 2>::new_in(&s.memory_space(), "m", [n, 2]).unwrap();
        let col = m
            .subview([SliceArg::Range(0, None), SliceArg::Index(1)])
            .unwrap();
        deep_copy(&col, &a).unwrap();
        let (hb, hbig, hm) = (download(&b), download(&big), download(&m));
        for i in 0..n {
            let want = i as f64 * 0.5 - 3.0;
            assert_eq!(hb.get([i]), want, "b[{i}] n={n}");
            assert_eq!(hbig.get([i + 5]), want, "big[{}] n={n}", i + 5);
            assert_eq!(hm.get([i, 1]), want, "m[{i}, 1] n={n}");
            assert_eq!(hm.get([i, 0]), 0.0);
        }
        for i in 0..5 {
            assert_eq!(hbig.get([i]), 0.0);
        }
    }
}
