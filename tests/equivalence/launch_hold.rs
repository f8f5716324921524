//! A launch holds its arguments' allocations from the argument checks until the backend returns
//! (issue 11, item 1: "a token must keep what it checked true until the launch is done"), and
//! releases them afterwards, whether the launch succeeded or failed; a host kernel that fails
//! comes back as `Err`, never as a panic (item 13 and the kernel-failure rule).
//!
//! What can run on the launching thread while a host launch is in progress? Views are neither
//! `Send` nor `Sync` (a compile-fail test pins that), so no other thread can reach them; kernel
//! bodies only see accessors. What remains is host code the launch itself calls: a user-written
//! [`Reducer`]'s `init` / `join` (and profiling hooks, which run before and after). The probes below
//! live in such a reducer and reach the launch's own arguments through a thread-local, the way a
//! real program could.

use rokkos::prelude::*;
use rokkos::Reducer;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[kernel]
fn double_into(i: usize, acc: &mut f64, w: ViewMut<f64>, r: View<f64>) {
    w[i] = 2.0 * r[i];
    *acc += r[i];
}

#[kernel]
fn overwrite(i: usize, w: ViewMut<f64>) {
    w[i] = -1.0;
}

#[kernel]
fn total(i: usize, acc: &mut f64, r: View<f64>) {
    *acc += r[i];
}

/// The Views a probe reaches: the written argument, the read argument, the result View.
type Probed = (View<f64>, View<f64>, View<f64, 0>);

thread_local! {
    static PROBED: RefCell<Option<Probed>> = const { RefCell::new(None) };
    static SEEN: RefCell<Vec<(&'static str, bool)>> = const { RefCell::new(Vec::new()) };
}

/// Whether `f` completes without panicking (the panic of a refused guard is expected).
fn runs(f: impl FnOnce()) -> bool {
    catch_unwind(AssertUnwindSafe(f)).is_ok()
}

/// Every host access to the probed Views, and whether it was let through.
fn probe(w: &View<f64>, r: &View<f64>, result: &View<f64, 0>) -> Vec<(&'static str, bool)> {
    let src = View::<f64>::new("src", [w.extent(0)]).unwrap();
    vec![
        ("w.host()", runs(|| drop(w.host()))),
        ("w.host_mut()", runs(|| drop(w.host_mut()))),
        (
            "w.get()",
            runs(|| {
                w.get(0);
            }),
        ),
        ("w.set()", runs(|| w.set(0, 7.0))),
        ("deep_copy(w)", deep_copy(w, &src).is_ok()),
        ("w.fill()", w.fill(7.0).is_ok()),
        (
            "launch writing w",
            parallel_for("overwrite", RangePolicy::new(&Serial, 0..1), overwrite(w)).is_ok(),
        ),
        ("r.host()", runs(|| drop(r.host()))),
        (
            "r.get()",
            runs(|| {
                r.get(0);
            }),
        ),
        ("r.host_mut()", runs(|| drop(r.host_mut()))),
        ("r.fill()", r.fill(7.0).is_ok()),
        (
            "launch writing r",
            parallel_for("overwrite", RangePolicy::new(&Serial, 0..1), overwrite(r)).is_ok(),
        ),
        (
            "launch reading r",
            parallel_reduce("total", RangePolicy::new(&Serial, 0..1), total(r), Sum).is_ok(),
        ),
        ("result.host()", runs(|| drop(result.host()))),
        ("result.fill()", result.fill(7.0).is_ok()),
    ]
}

/// What a launch that writes `w`, reads `r` and stores into `result` must let through: shared
/// access to `r`, nothing else.
const EXPECTED: [(&str, bool); 15] = [
    ("w.host()", false),
    ("w.host_mut()", false),
    ("w.get()", false),
    ("w.set()", false),
    ("deep_copy(w)", false),
    ("w.fill()", false),
    ("launch writing w", false),
    ("r.host()", true),
    ("r.get()", true),
    ("r.host_mut()", false),
    ("r.fill()", false),
    ("launch writing r", false),
    ("launch reading r", true),
    ("result.host()", false),
    ("result.fill()", false),
];

/// A sum whose `init` probes the Views of [`PROBED`] (once per launch, on the launching thread:
/// worker threads have their own, empty, thread-locals).
#[derive(Clone, Copy)]
struct Probe;
impl Reducer<f64> for Probe {
    fn init(&self) -> f64 {
        PROBED.with(|p| {
            if let Some((w, r, result)) = &*p.borrow() {
                SEEN.with(|s| {
                    if s.borrow().is_empty() {
                        *s.borrow_mut() = probe(w, r, result);
                    }
                });
            }
        });
        0.0
    }
    fn join(&self, dst: &mut f64, src: f64) {
        *dst += src;
    }
}

/// During a launch, every host access to its written argument and its result View is refused,
/// and so is every write to its read argument, while shared reads of that argument (a guard, `get`,
/// another read-only launch) go through. Afterwards everything is free again.
fn launch_holds_its_arguments<E: ExecutionSpace<Memory = HostSpace>>(space: E) {
    let n = 64;
    let w = View::<f64>::new("w", [n]).unwrap();
    let r = View::<f64>::from_fn("r", [n], |[i]| i as f64).unwrap();
    let result = View::<f64, 0>::new("result", []).unwrap();
    PROBED.with(|p| *p.borrow_mut() = Some((w.clone(), r.clone(), result.clone())));
    SEEN.with(|s| s.borrow_mut().clear());
    parallel_reduce_into(
        "double_into",
        RangePolicy::new(&space, 0..n),
        double_into(&w, &r),
        Probe,
        &result,
    )
    .unwrap();
    PROBED.with(|p| *p.borrow_mut() = None);
    let seen = SEEN.with(|s| std::mem::take(&mut *s.borrow_mut()));
    assert_eq!(seen, EXPECTED.to_vec());
    // The launch's own results, untouched by the refused probes.
    let want: Vec<f64> = (0..n).map(|i| 2.0 * i as f64).collect();
    assert_eq!(w.to_vec(), want);
    assert_eq!(r.to_vec(), (0..n).map(|i| i as f64).collect::<Vec<_>>());
    assert_eq!(result.get([]), (n * (n - 1) / 2) as f64);
    // Released: every access works again.
    assert_eq!(
        probe(&w, &r, &result),
        EXPECTED.map(|(k, _)| (k, true)).to_vec()
    );
}
per_host_backend!(launch_holds_its_arguments);

#[kernel]
fn add_one(i: usize, out: ViewMut<i32>, x: View<i32>) {
    out[i] = x[i] + 1;
}

#[kernel]
fn read_ahead(i: usize, out: ViewMut<f64>, small: View<f64>) {
    out[i] = small[i + 1];
}

/// Asserts that both Views can be borrowed exclusively again: the failed launch released them.
fn released<L: Layout, M: Layout, T: rokkos::Pod, U: rokkos::Pod>(
    a: &View<T, 1, L>,
    b: &View<U, 1, M>,
) {
    drop(a.host_mut());
    drop(b.host_mut());
    a.fill(T::zeroed()).unwrap();
}

/// A host kernel that fails returns `Err` from its launch (never a panic), and the launch releases
/// its arguments: out-of-bounds (`Err(OutOfBounds)`), Rust's arithmetic overflow check in builds
/// that have it (`Err(KernelFailed)` with Rust's message), and an argument conflict found halfway
/// through the argument list (the holds already taken are released).
fn failed_launches_release_their_arguments<E: ExecutionSpace<Memory = HostSpace>>(space: E) {
    let n = 300;
    let out = View::<f64>::new("out", [n]).unwrap();
    let small = View::<f64>::new("small", [n]).unwrap();
    let r = parallel_for(
        "read_ahead",
        RangePolicy::new(&space, 0..n),
        read_ahead(&out, &small),
    );
    assert!(matches!(r, Err(Error::OutOfBounds { .. })), "{r:?}");
    released(&out, &small);

    let x =
        View::<i32>::from_fn("x", [n], |[i]| if i == 200 { i32::MAX } else { i as i32 }).unwrap();
    let y = View::<i32>::new("y", [n]).unwrap();
    let r = parallel_for("add_one", RangePolicy::new(&space, 0..n), add_one(&y, &x));
    if cfg!(debug_assertions) {
        match r {
            Err(Error::KernelFailed { kernel, reason }) => {
                assert_eq!(kernel, "add_one");
                assert!(reason.contains("overflow"), "{reason}");
            }
            other => panic!("expected KernelFailed, got {other:?}"),
        }
    } else {
        r.unwrap();
        assert_eq!(y.get(200), i32::MIN);
    }
    released(&y, &x);

    // `y` is checked and held first, then `x` is found borrowed: `y` must not stay held.
    {
        let _g = x.host_mut();
        let r = parallel_for("add_one", RangePolicy::new(&space, 0..n), add_one(&y, &x));
        assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    }
    released(&y, &x);
}
per_host_backend!(failed_launches_release_their_arguments);

/// A user's `panic!` inside a reducer the launch calls is the launch's `Err(KernelFailed)` too,
/// with the panic's message.
#[cfg(feature = "rayon")]
#[test]
fn a_panicking_join_is_a_failed_launch() {
    #[derive(Clone, Copy)]
    struct Fussy;
    impl Reducer<f64> for Fussy {
        fn init(&self) -> f64 {
            0.0
        }
        fn join(&self, dst: &mut f64, src: f64) {
            if src > 1e6 {
                panic!("partial {src} too large");
            }
            *dst += src;
        }
    }
    // Eight chunks of 512 elements: every partial is 5.12e6.
    let r = View::<f64>::from_fn("r", [4096], |_| 10000.0).unwrap();
    let space = rokkos::Rayon::with_threads(2).unwrap();
    let e = parallel_reduce("total", RangePolicy::new(&space, 0..4096), total(&r), Fussy);
    match e {
        Err(Error::KernelFailed { kernel, reason }) => {
            assert_eq!(kernel, "total");
            assert!(reason.contains("too large"), "{reason}");
        }
        other => panic!("expected KernelFailed, got {other:?}"),
    }
    drop(r.host_mut());
}

#[kernel]
#[allow(clippy::too_many_arguments)]
fn six(
    i: usize,
    a: ViewMut<f64>,
    b: ViewMut<f64>,
    c: ViewMut<f64>,
    d: View<f64>,
    e: View<f64>,
    f: View<f64>,
) {
    a[i] = d[i] + 1.0;
    b[i] = e[i] + 2.0;
    c[i] = f[i] + 3.0;
}

/// Kernels with more View arguments than a launch keeps inline are checked and held the same way
/// (the overflow goes to the heap): an overlap between the first and the last argument is found,
/// a guard on the last one refuses the launch, and a valid launch holds and releases all six.
fn many_arguments_are_checked_and_held<E: ExecutionSpace<Memory = HostSpace>>(space: E) {
    let n = 16;
    let base = View::<f64>::new("base", [2 * n]).unwrap();
    let lo: View<f64, 1, LayoutStride> = base.subview((0..n,)).unwrap();
    let hi: View<f64, 1, LayoutStride> = base.subview((n..2 * n,)).unwrap();
    let v: Vec<View<f64>> = (0..4)
        .map(|k| View::<f64>::from_fn("v", [n], |[i]| (10 * k + i) as f64).unwrap())
        .collect();
    let p = || RangePolicy::new(&space, 0..n);
    // `a` (written) and `f` (read) overlap: found although `f` is the sixth argument.
    let lo_again: View<f64, 1, LayoutStride> = base.subview((n / 2..n + 1,)).unwrap();
    let r = parallel_for("six", p(), six(&lo, &v[0], &v[1], &v[2], &v[3], &lo_again));
    match r {
        Err(Error::Aliasing { reason, .. }) => {
            assert!(reason.contains("`a`") && reason.contains("`f`"), "{reason}")
        }
        other => panic!("expected Aliasing, got {other:?}"),
    }
    {
        let _g = v[3].host_mut();
        let r = parallel_for("six", p(), six(&lo, &hi, &v[0], &v[1], &v[2], &v[3]));
        assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    }
    // Disjoint halves of one allocation as two written arguments, four read ones.
    parallel_for("six", p(), six(&lo, &hi, &v[0], &v[1], &v[2], &v[3])).unwrap();
    let got = base.to_vec();
    for i in 0..n {
        assert_eq!(got[i], (10 + i) as f64 + 1.0);
        assert_eq!(got[n + i], (20 + i) as f64 + 2.0);
    }
    assert_eq!(
        v[0].to_vec(),
        (0..n).map(|i| (30 + i) as f64 + 3.0).collect::<Vec<_>>()
    );
    for x in &v {
        drop(x.host_mut());
    }
    drop(base.host_mut());
}
per_host_backend!(many_arguments_are_checked_and_held);

/// A read-only unmanaged View (`View::unmanaged_read_only`, memory lent only for reading) is
/// read by kernels and host code like any View, and every write to it is refused, saying why,
/// with nothing run or written: a kernel taking it as a writable parameter, `deep_copy` and
/// `fill` into it, `try_host_mut`, and the panicking `host_mut` / `set`.
fn read_only_views_refuse_every_write<E: ExecutionSpace<Memory = HostSpace>>(space: E) {
    let n = 257;
    let data: &'static [i32] = Box::leak((0..n as i32).map(|i| 3 * i).collect());
    let ro = View::<i32>::unmanaged_read_only("lent", data, [n]).unwrap();
    let out = View::<i32>::new("out", [n]).unwrap();
    parallel_for(
        "add_one",
        RangePolicy::new(&space, 0..n),
        add_one(&out, &ro),
    )
    .unwrap();
    let want: Vec<i32> = data.iter().map(|x| x + 1).collect();
    assert_eq!(out.to_vec(), want);
    assert_eq!(ro.to_vec(), data);

    let read_only = |r: rokkos::Result<()>, what: &str| match r {
        Err(Error::Aliasing { reason, .. }) => {
            assert!(
                reason.contains("View `lent`") && reason.contains("is read-only"),
                "{what}: {reason}"
            )
        }
        other => panic!("{what}: expected Err(Aliasing), got {other:?}"),
    };
    read_only(
        parallel_for(
            "add_one",
            RangePolicy::new(&space, 0..n),
            add_one(&ro, &out),
        ),
        "launch writing it",
    );
    read_only(rokkos::deep_copy(&ro, &out), "deep_copy into it");
    read_only(ro.fill(7), "fill");
    read_only(ro.try_host_mut().map(drop), "try_host_mut");
    for (what, write) in [
        (
            "host_mut",
            Box::new(|| drop(ro.host_mut())) as Box<dyn Fn()>,
        ),
        ("set", Box::new(|| ro.set(0, 1))),
    ] {
        let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write)).unwrap_err();
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| p.downcast_ref::<&str>().unwrap_or(&"?").to_string());
        assert!(msg.contains("read-only"), "{what}: {msg}");
    }
    // Nothing was written, and reading still works (the refusals took no hold).
    assert_eq!(ro.to_vec(), data);
    assert_eq!(ro.host()[[5]], 15);
    // Copying out of it works.
    let copy = View::<i32>::new("copy", [n]).unwrap();
    rokkos::deep_copy(&copy, &ro).unwrap();
    assert_eq!(copy.to_vec(), data);
}
per_host_backend!(read_only_views_refuse_every_write);
