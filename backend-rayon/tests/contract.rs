//! The backends against the kernel contract, with hand-written kernel values of the shape
//! `#[rokkos::kernel]` generates (so this test does not depend on the macro).

use rokkos_core::ir::build::{BuildError, KernelBuilder};
use rokkos_core::ir::{self, Access};
use rokkos_core::kernel::*;
use rokkos_core::*;
use rokkos_rayon::Rayon;
use rokkos_serial::Serial;

/// `fn scale(i, y: ViewMut<f64>, x: View<f64>, a: f64) { y[i] = a * x[i]; }`
struct Scale<'k, L1: Layout, L2: Layout> {
    y: &'k View<f64, 1, L1>,
    x: &'k View<f64, 1, L2>,
    a: f64,
}
struct ScaleNative<'k, L1: Layout, L2: Layout> {
    y: WriteAccess<'k, f64, 1, L1>,
    x: ReadAccess<'k, f64, 1, L2>,
    a: f64,
}
impl<L1: Layout, L2: Layout> Kernel for Scale<'_, L1, L2> {
    const NAME: &'static str = "scale";
    type Space = HostSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.y.__kernel_arg("y", true));
        f(self.x.__kernel_arg("x", false));
    }
}
impl<L1: Layout, L2: Layout> ForBody<RangeWork> for ScaleNative<'_, L1, L2> {
    fn call(&self, i: usize) {
        let v = self.a * self.x[i];
        // SAFETY: work item `i` owns element `i` (what `#[kernel]` proves for `y[i] = ..`).
        unsafe { self.y.__store(i, v) };
    }
}
impl<L1: Layout, L2: Layout> ForKernel<RangeWork> for Scale<'_, L1, L2> {
    type Body<'a>
        = ScaleNative<'a, L1, L2>
    where
        Self: 'a;
    unsafe fn bind(&self) -> Self::Body<'_> {
        ScaleNative {
            y: self.y.__write_access("scale"),
            x: self.x.__read_access("scale"),
            a: self.a,
        }
    }
}

impl<L1: Layout, L2: Layout> KernelIr for Scale<'_, L1, L2> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("scale", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let y = kb.view::<f64>("y", 1, Access::Writable);
        let x = kb.view::<f64>("x", 1, Access::ReadOnly);
        let a = kb.scalar::<f64>("a");
        kb.store(y, i.clone(), a.get() * x.load(i));
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, HostSpace>)) {
        f(KernelArg::View(self.y.__binding("y", true)));
        f(KernelArg::View(self.x.__binding("x", false)));
        f(KernelArg::Scalar(ir::Value::F64(self.a)));
    }
}

/// `#[kernel(scan)] fn prefix(i, p: &mut i64, fin: bool, x: View<i64>, out: ViewMut<i64>)`
struct Prefix<'k> {
    x: &'k View<i64>,
    out: &'k View<i64>,
}
struct PrefixNative<'k> {
    x: ReadAccess<'k, i64, 1, LayoutRight>,
    out: WriteAccess<'k, i64, 1, LayoutRight>,
}
impl Kernel for Prefix<'_> {
    const NAME: &'static str = "prefix";
    type Space = HostSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.x.__kernel_arg("x", false));
        f(self.out.__kernel_arg("out", true));
    }
}
impl ScanBody<RangeWork, i64> for PrefixNative<'_> {
    fn call(&self, i: usize, p: &mut i64, fin: bool) {
        if fin {
            // SAFETY: work item `i` owns element `i`.
            unsafe { self.out.__store(i, *p) };
        }
        *p += self.x[i];
    }
}
impl ScanKernel<RangeWork> for Prefix<'_> {
    type Value = i64;
    type Body<'a>
        = PrefixNative<'a>
    where
        Self: 'a;
    unsafe fn bind(&self) -> Self::Body<'_> {
        PrefixNative {
            x: self.x.__read_access("prefix"),
            out: self.out.__write_access("prefix"),
        }
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
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, HostSpace>)) {
        f(KernelArg::View(self.x.__binding("x", false)));
        f(KernelArg::View(self.out.__binding("out", true)));
    }
}

/// `fn sumsq(i, acc: &mut i64, x: View<i64>) { *acc += x[i] * x[i]; }`
struct SumSq<'k> {
    x: &'k View<i64>,
}
struct SumSqNative<'k> {
    x: ReadAccess<'k, i64, 1, LayoutRight>,
}
impl Kernel for SumSq<'_> {
    const NAME: &'static str = "sumsq";
    type Space = HostSpace;
    fn visit_views<'a>(&'a self, f: &mut dyn FnMut(ViewArg<'a>)) {
        f(self.x.__kernel_arg("x", false));
    }
}
impl ReduceBody<RangeWork, i64> for SumSqNative<'_> {
    fn call(&self, i: usize, acc: &mut i64) {
        *acc += self.x[i] * self.x[i];
    }
}
impl ReduceKernel<RangeWork> for SumSq<'_> {
    type Value = i64;
    type Body<'a>
        = SumSqNative<'a>
    where
        Self: 'a;
    unsafe fn bind(&self) -> Self::Body<'_> {
        SumSqNative {
            x: self.x.__read_access("sumsq"),
        }
    }
}

impl KernelIr for SumSq<'_> {
    fn build_ir() -> Result<ir::Kernel, BuildError> {
        let mut kb = KernelBuilder::new("sumsq", ir::WorkKind::Range);
        let i = kb.work_index(0);
        let acc = kb.acc::<i64>("acc");
        let x = kb.view::<i64>("x", 1, Access::ReadOnly);
        kb.acc_set(acc, acc.get() + x.load(i.clone()) * x.load(i));
        kb.finish()
    }
    fn visit_args<'a>(&'a self, f: &mut dyn FnMut(KernelArg<'a, HostSpace>)) {
        f(KernelArg::View(self.x.__binding("x", false)));
    }
}

fn run_all<E: ExecutionSpace<Memory = HostSpace>>(space: &E) {
    for n in [0usize, 1, 7, 1000, 65537] {
        let x = View::<f64, 1, LayoutLeft>::from_fn("x", [n], |[i]| i as f64).unwrap();
        let y = View::<f64>::new("y", [n]).unwrap();
        parallel_for(
            "scale",
            RangePolicy::new(space, 0..n),
            Scale {
                y: &y,
                x: &x,
                a: 3.0,
            },
        )
        .unwrap();
        assert!(y
            .to_vec()
            .iter()
            .enumerate()
            .all(|(i, &v)| v == 3.0 * i as f64));

        let xi = View::<i64>::from_fn("xi", [n], |[i]| i as i64).unwrap();
        let s = parallel_reduce(
            "sumsq",
            RangePolicy::new(space, 0..n),
            SumSq { x: &xi },
            Sum,
        )
        .unwrap();
        let m = n as i64;
        assert_eq!(s, (m - 1).max(0) * m * (2 * m - 1) / 6);

        let out = View::<i64>::new("out", [n]).unwrap();
        let total = parallel_scan(
            "prefix",
            RangePolicy::new(space, 0..n),
            Prefix { x: &xi, out: &out },
        )
        .unwrap();
        assert_eq!(total, m * (m - 1) / 2);
        assert!(out
            .to_vec()
            .iter()
            .enumerate()
            .all(|(i, &v)| v == (i as i64) * (i as i64 - 1) / 2));
    }
}

#[test]
fn serial_runs_the_contract() {
    run_all(&Serial);
}

#[test]
fn rayon_runs_the_contract() {
    run_all(&Rayon::with_threads(3).unwrap());
    run_all(&Rayon::new());
}

#[test]
fn overlapping_writable_argument_is_refused_and_nothing_written() {
    let y = View::<f64>::from_fn("y", [10], |[i]| i as f64).unwrap();
    let err = parallel_for(
        "scale",
        RangePolicy::new(&Serial, 0..10),
        Scale {
            y: &y,
            x: &y,
            a: 2.0,
        },
    )
    .unwrap_err();
    assert!(matches!(err, Error::Aliasing { .. }), "{err}");
    assert_eq!(y.get(3), 3.0);
    let sub: View<f64, 1, LayoutStride> = y.subview((2..5,)).unwrap();
    let other = View::<f64>::new("other", [3]).unwrap();
    let sub_right = sub.try_layout::<LayoutRight>().unwrap();
    let ok = parallel_for(
        "scale",
        RangePolicy::new(&Serial, 0..3),
        Scale {
            y: &other,
            x: &sub_right,
            a: 2.0,
        },
    );
    assert!(ok.is_ok());
    assert_eq!(other.to_vec(), vec![4.0, 6.0, 8.0]);
}

#[test]
fn live_host_guard_is_refused() {
    let y = View::<f64>::new("y", [4]).unwrap();
    let x = View::<f64>::new("x", [4]).unwrap();
    let g = y.host();
    let err = parallel_for(
        "scale",
        RangePolicy::new(&Serial, 0..4),
        Scale {
            y: &y,
            x: &x,
            a: 2.0,
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("borrowed on the host"), "{err}");
    drop(g);
    let _shared = x.host(); // read-only argument: a shared guard is fine
    parallel_for(
        "scale",
        RangePolicy::new(&Serial, 0..4),
        Scale {
            y: &y,
            x: &x,
            a: 2.0,
        },
    )
    .unwrap();
}

#[test]
fn out_of_bounds_is_an_error_naming_kernel_label_index_extent() {
    let y = View::<f64>::new("short", [4]).unwrap();
    let x = View::<f64>::new("x", [8]).unwrap();
    for space in [Rayon::with_threads(2).unwrap(), Rayon::new()] {
        let err = parallel_for(
            "scale",
            RangePolicy::new(&space, 0..8),
            Scale {
                y: &y,
                x: &x,
                a: 1.0,
            },
        )
        .unwrap_err();
        // Work items 4..8 all fail, on two threads: whichever failure is recorded first is the
        // one reported (a loaded machine can run chunk 6 before chunk 4).
        let Error::OutOfBounds { index, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(
            ["(4)", "(5)", "(6)", "(7)"].contains(&index.as_str()),
            "{err:?}"
        );
        assert_eq!(
            err,
            Error::OutOfBounds {
                kernel: "scale".into(),
                view: "short".into(),
                index: index.clone(),
                extents: "(4)".into()
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "kernel `scale`: index {index} out of bounds for View `short` with extents (4)"
            )
        );
        // The launch released its hold on the arguments: host access works again.
        y.host_mut()[0] = 0.0;
        x.set(0, 0.0);
    }
}

#[test]
fn invalid_range_policy_is_an_error() {
    let y = View::<f64>::new("y", [4]).unwrap();
    let x = View::<f64>::new("x", [4]).unwrap();
    #[allow(clippy::reversed_empty_ranges)]
    let err = parallel_for(
        "scale",
        RangePolicy::new(&Serial, 3..1),
        Scale {
            y: &y,
            x: &x,
            a: 1.0,
        },
    )
    .unwrap_err();
    assert!(matches!(err, Error::InvalidPolicy { .. }));
}

#[test]
fn kernel_timer_records_labels() {
    use rokkos_core::profiling::{self, KernelTimer, Pattern};
    let timer = std::sync::Arc::new(KernelTimer::default());
    profiling::register(timer.clone());
    let x = View::<i64>::from_fn("xi", [100], |[i]| i as i64).unwrap();
    for _ in 0..3 {
        parallel_reduce(
            "timed::sumsq",
            RangePolicy::new(&Rayon::new(), 0..100),
            SumSq { x: &x },
            Sum,
        )
        .unwrap();
    }
    let rows = timer.rows();
    let row = rows
        .iter()
        .find(|r| r.label == "timed::sumsq")
        .expect("row for the label");
    assert_eq!(
        (row.calls, row.pattern, row.space.as_str()),
        (3, Pattern::Reduce, "rayon")
    );
    assert!(timer.report().contains("timed::sumsq"));
    assert!(timer.json_lines().contains("\"calls\":3"));
}
