//! `DualView` on every backend: the modified flags against Kokkos' rules, syncs that copy only
//! when a side is out of date (counted with the deep-copy profiling hook), the misuse cases
//! (a stale launch, copy or host read is `Err(Unsynced)` naming the DualView), resize keeping the
//! last-modified side, realloc, subviews sharing the flags, and DualView-to-DualView copies.
//! Every expectation is a plain loop over host data.

use rokkos::prelude::*;
use rokkos::profiling::{self, ProfilingHooks};
use rokkos_containers::DualView;
use rokkos_testing::{dev_from_slice, per_backend};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[kernel]
fn add_one(i: usize, y: ViewMut<i32>) {
    y[i] = y[i] + 1;
}

#[kernel]
fn add_one_2d((i, j): (usize, usize), y: ViewMut<i32, 2>) {
    y[(i, j)] = y[(i, j)] + 1;
}

#[kernel]
fn copy_into(i: usize, y: ViewMut<i32>, x: View<i32>) {
    y[i] = x[i];
}

#[kernel]
fn total(i: usize, acc: &mut i32, x: View<i32>) {
    *acc += x[i];
}

/// A DualView whose device side lives in the memory of `E`.
type Dv<E, const R: usize = 1, L = LayoutRight> =
    DualView<i32, R, L, <E as ExecutionSpace>::Memory>;

/// A label no other test (or backend instance running at the same time) uses.
fn unique(what: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("{what}_{}", N.fetch_add(1, Ordering::Relaxed))
}

/// Counts the deep copies between the two sides of the DualView labelled `label` (the device
/// side is `label`, a separate host side `label_mirror`), as the profiling hooks report them.
struct Copies {
    label: String,
    n: AtomicUsize,
}

impl ProfilingHooks for Copies {
    fn deep_copy(&self, dst: &str, src: &str, _bytes: usize) {
        let mine = |l: &str| l == self.label || l.strip_suffix("_mirror") == Some(&self.label);
        if mine(dst) && mine(src) {
            self.n.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Registers a [`Copies`] for `label` while it lives.
struct Counter(Arc<Copies>, Arc<dyn ProfilingHooks>);

impl Counter {
    fn new(label: &str) -> Counter {
        let c = Arc::new(Copies {
            label: label.to_string(),
            n: AtomicUsize::new(0),
        });
        let h: Arc<dyn ProfilingHooks> = c.clone();
        profiling::register(h.clone());
        Counter(c, h)
    }
    fn get(&self) -> usize {
        self.0.n.load(Ordering::Relaxed)
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        profiling::unregister(&self.1);
    }
}

/// `e` is `Err(Unsynced)` for the DualView `label`, telling the caller to make `call`.
#[track_caller]
fn assert_unsynced(e: &Error, label: &str, call: &str) {
    match e {
        Error::Unsynced { view, reason } => {
            assert_eq!(view, label, "{e}");
            assert!(reason.contains(call), "{e}");
            assert!(
                e.to_string().contains(&format!("DualView `{label}`")),
                "{e}"
            );
        }
        other => panic!("expected Err(Unsynced) for `{label}`, got {other:?}"),
    }
}

/// The device side's elements, read through an independent host View (a checked read).
fn device_values<E: ExecutionSpace, const R: usize, L: Layout>(dv: &Dv<E, R, L>) -> Vec<i32> {
    let out = View::<i32, R, L>::new("out", dv.extents()).unwrap();
    deep_copy(&out, dv.view_device()).unwrap();
    out.to_vec()
}

/// The flags through host writes, device kernels and host-side kernels; every stale access is
/// refused; syncs copy exactly when a side is out of date (and never when both are one memory).
fn flags_syncs_and_stale_accesses<E: ExecutionSpace>(space: E) {
    let n = 37;
    let label = unique("flags");
    let dv = Dv::<E>::new_on(&space, &label, [n]).unwrap();
    let copies = Counter::new(&label);
    let per_copy = usize::from(!dv.shares_memory());
    assert!(!dv.need_sync_host() && !dv.need_sync_device());
    assert_eq!(
        (dv.label(), dv.extents(), dv.size()),
        (label.as_str(), [n], n)
    );

    // Nothing to do on fresh flags (Kokkos' default-constructed case).
    dv.sync_host().unwrap();
    dv.sync_device().unwrap();
    assert_eq!(copies.get(), 0);

    {
        let mut g = dv.host_mut().unwrap();
        for i in 0..n {
            g[i] = 3 * i as i32;
        }
    }
    assert!(dv.need_sync_device() && !dv.need_sync_host());

    // The device side is out of date: launches, reductions and copies of it are refused.
    let policy = || RangePolicy::new(&space, 0..n);
    let e = parallel_for("add_one", policy(), add_one(dv.view_device())).unwrap_err();
    assert_unsynced(&e, &label, "sync_device()");
    assert!(e.to_string().contains("add_one"), "{e}");
    let e = parallel_reduce("total", policy(), total(dv.view_device()), Sum).unwrap_err();
    assert_unsynced(&e, &label, "sync_device()");
    let e = deep_copy(&View::<i32>::new("tmp", [n]).unwrap(), dv.view_device()).unwrap_err();
    assert_unsynced(&e, &label, "sync_device()");
    let e = dv.view_device().fill(0).unwrap_err();
    assert_unsynced(&e, &label, "sync_device()");
    assert!(
        dv.need_sync_device() && !dv.need_sync_host(),
        "refusals change no flag"
    );
    // A launch refused for one argument marks none of the others.
    let other = Dv::<E>::new_on(&space, &unique("other"), [n]).unwrap();
    let e = parallel_for(
        "copy_into",
        policy(),
        copy_into(other.view_device(), dv.view_device()),
    )
    .unwrap_err();
    assert_unsynced(&e, &label, "sync_device()");
    assert!(!other.need_sync_host(), "the refused launch wrote nothing");

    dv.sync_device().unwrap();
    assert_eq!(copies.get(), per_copy);
    assert!(!dv.need_sync_device() && !dv.need_sync_host());
    dv.sync_device().unwrap();
    assert_eq!(copies.get(), per_copy, "a second sync copies nothing");

    // Reading the device side marks nothing; writing it marks it modified.
    let s: i32 = parallel_reduce("total", policy(), total(dv.view_device()), Sum).unwrap();
    assert_eq!(s, (0..n as i32).map(|i| 3 * i).sum::<i32>());
    assert!(!dv.need_sync_host());
    parallel_for("add_one", policy(), add_one(dv.view_device())).unwrap();
    assert!(dv.need_sync_host() && !dv.need_sync_device());

    // Now the host side is out of date.
    assert_unsynced(&dv.host().err().unwrap(), &label, "sync_host()");
    assert_unsynced(&dv.host_mut().err().unwrap(), &label, "sync_host()");
    let host = dv.view_host().clone();
    assert!(catch_unwind(AssertUnwindSafe(|| host.get(0))).is_err());
    assert!(catch_unwind(AssertUnwindSafe(|| host.set(0, 1))).is_err());
    let e = parallel_for("add_one", RangePolicy::new(&Serial, 0..n), add_one(&host)).unwrap_err();
    assert_unsynced(&e, &label, "sync_host()");

    dv.sync_host().unwrap();
    assert_eq!(copies.get(), 2 * per_copy);
    let want: Vec<i32> = (0..n as i32).map(|i| 3 * i + 1).collect();
    assert_eq!(dv.host().unwrap().as_slice().unwrap(), &want[..]);

    // A kernel on a host space writing the host side marks it.
    parallel_for(
        "add_one",
        RangePolicy::new(&Serial, 0..n),
        add_one(dv.view_host()),
    )
    .unwrap();
    assert!(dv.need_sync_device());
    let e = parallel_reduce("total", policy(), total(dv.view_device()), Sum).unwrap_err();
    assert_unsynced(&e, &label, "sync_device()");
    dv.sync_device().unwrap();
    assert_eq!(copies.get(), 3 * per_copy);
    let s: i32 = parallel_reduce("total", policy(), total(dv.view_device()), Sum).unwrap();
    assert_eq!(s, (0..n as i32).map(|i| 3 * i + 2).sum::<i32>());
    // A `parallel_reduce_into` result on the device side marks it (and is refused while stale).
    let r = Dv::<E, 0>::new_on(&space, &unique("sum"), []).unwrap();
    parallel_reduce_into(
        "total",
        policy(),
        total(dv.view_device()),
        Sum,
        r.view_device(),
    )
    .unwrap();
    assert!(r.need_sync_host());
    r.sync_host().unwrap();
    assert_eq!(r.view_host().get([]), s);
    r.view_host().set([], 0);
    let e = parallel_reduce_into(
        "total",
        policy(),
        total(dv.view_device()),
        Sum,
        r.view_device(),
    )
    .unwrap_err();
    assert_unsynced(&e, r.label(), "sync_device()");
    assert_eq!(
        device_values::<E, 1, LayoutRight>(&dv),
        (0..n as i32).map(|i| 3 * i + 2).collect::<Vec<_>>()
    );
}
per_backend!(flags_syncs_and_stale_accesses);

/// Kokkos' counters: a side marked while the other holds unsynced changes is refused; clones
/// share the flags; clear_sync_state forgets them.
fn modify_rules_and_clones<E: ExecutionSpace>(space: E) {
    let label = unique("modify");
    let a = Dv::<E>::new_on(&space, &label, [5]).unwrap();
    let b = a.clone();
    let copies = Counter::new(&label);
    a.modify_device().unwrap();
    assert!(b.need_sync_host() && !b.need_sync_device());
    assert_unsynced(&b.modify_host().unwrap_err(), &label, "sync_host()");
    a.modify_device().unwrap(); // marking the modified side again is fine
    assert!(a.need_sync_host());
    b.sync_host().unwrap();
    assert_eq!(copies.get(), usize::from(!a.shares_memory()));
    assert!(!a.need_sync_host() && !a.need_sync_device());
    b.modify_host().unwrap();
    assert!(a.need_sync_device());
    assert_unsynced(&a.modify_device().unwrap_err(), &label, "sync_device()");
    a.clear_sync_state();
    assert!(!a.need_sync_device() && !b.need_sync_host());
    a.sync_device().unwrap();
    assert_eq!(
        copies.get(),
        usize::from(!a.shares_memory()),
        "nothing to sync after clear"
    );
}
per_backend!(modify_rules_and_clones);

/// Kokkos' resize cases: on the device (device modified last), then on the host; the kept
/// side holds the common box, the rest is zero; realloc drops everything.
fn resize_and_realloc<E: ExecutionSpace>(space: E) {
    let label = unique("resize");
    let mut a = Dv::<E, 2, LayoutLeft>::new_on(&space, &label, [4, 3]).unwrap();
    let before = a.clone();
    a.view_device().fill(1).unwrap();
    assert!(a.need_sync_host());
    a.resize([8, 6]).unwrap();
    assert_eq!(a.extents(), [8, 6]);
    assert_eq!(
        before.extents(),
        [4, 3],
        "other handles keep the old allocation"
    );
    assert!(
        a.need_sync_host() && !a.need_sync_device(),
        "the device side was kept"
    );
    a.sync_host().unwrap();
    let want: Vec<i32> = (0..8)
        .flat_map(|i| (0..6).map(move |j| i32::from(i < 4 && j < 3)))
        .collect();
    assert_eq!(a.view_host().to_vec(), want);
    assert_eq!(device_values::<E, 2, LayoutLeft>(&a), want);

    {
        let mut g = a.host_mut().unwrap();
        for i in 0..8 {
            for j in 0..6 {
                g[(i, j)] = (10 * i + j) as i32;
            }
        }
    }
    a.resize([2, 7]).unwrap();
    assert!(
        a.need_sync_device() && !a.need_sync_host(),
        "the host side was kept"
    );
    a.sync_device().unwrap();
    let want: Vec<i32> = (0..2)
        .flat_map(|i: i32| (0..7).map(move |j| if j < 6 { 10 * i + j } else { 0 }))
        .collect();
    assert_eq!(device_values::<E, 2, LayoutLeft>(&a), want);
    assert_eq!(a.view_host().to_vec(), want);

    a.resize([2, 7]).unwrap(); // same extents: nothing happens
    assert!(!a.need_sync_device() && !a.need_sync_host());

    a.modify_device().unwrap();
    a.realloc([3, 3]).unwrap();
    assert_eq!(a.extents(), [3, 3]);
    assert!(!a.need_sync_device() && !a.need_sync_host());
    assert_eq!(device_values::<E, 2, LayoutLeft>(&a), vec![0; 9]);
    assert_eq!(a.view_host().to_vec(), vec![0; 9]);
    assert_eq!(a.label(), label);
}
per_backend!(resize_and_realloc);

/// Kokkos' "combinations" test: host writes, a subview written on the device, a sync of the
/// whole DualView; a subview shares the flags but cannot sync itself.
fn subviews_share_the_flags<E: ExecutionSpace>(space: E) {
    let label = unique("combo");
    let a = Dv::<E, 2, LayoutLeft>::new_on(&space, &label, [10, 3]).unwrap();
    a.view_device().fill(1).unwrap();
    a.sync_host().unwrap();
    a.view_host().set((5, 1), 3);
    a.view_host().set((6, 1), 4);
    a.view_host().set((7, 2), 5);
    assert!(a.need_sync_device());
    let b = a.subview::<2>((6..9, 0..2)).unwrap();
    assert_eq!(b.extents(), [3, 2]);
    assert!(b.need_sync_device());
    assert!(b.sync_device().is_err(), "a subview cannot sync");
    a.sync_device().unwrap();
    let md = MDRangePolicy::new(&space, [0, 0], [3, 2]);
    parallel_for("add_one_2d", md, add_one_2d(b.view_device())).unwrap();
    assert!(a.need_sync_host(), "the subview's write marks the DualView");
    assert!(a.host().is_err());
    a.sync_host().unwrap();
    let mut want = vec![1i32; 30];
    let at = |i: usize, j: usize| 3 * i + j; // row-major, as to_vec reads
    want[at(5, 1)] = 3;
    want[at(6, 1)] = 4;
    want[at(7, 2)] = 5;
    for i in 6..9 {
        for j in 0..2 {
            want[at(i, j)] += 1;
        }
    }
    assert_eq!(a.view_host().to_vec(), want);
    let mut row = a.subview::<1>((4, ..)).unwrap();
    assert!(row.resize([2]).is_err());
}
per_backend!(subviews_share_the_flags);

/// deep_copy between DualViews copies the side that is up to date, and marks that side of the
/// destination; a DualView made from an existing device View starts with the device side newest.
fn copies_between_dual_views<E: ExecutionSpace>(space: E) {
    let n = 300;
    let (la, lb) = (unique("src"), unique("dst"));
    let a = Dv::<E>::new_on(&space, &la, [n]).unwrap();
    let b = Dv::<E>::new_on(&space, &lb, [n]).unwrap();
    {
        let mut g = a.host_mut().unwrap();
        for i in 0..n {
            g[i] = i as i32 * 7 - 100;
        }
    }
    b.modify_device().unwrap(); // overwritten whole: the destination's flags do not matter
    b.deep_copy_from(&a).unwrap();
    assert!(b.need_sync_device() && !b.need_sync_host());
    b.sync_device().unwrap();
    let want: Vec<i32> = (0..n as i32).map(|i| i * 7 - 100).collect();
    assert_eq!(device_values::<E, 1, LayoutRight>(&b), want);

    a.sync_device().unwrap();
    parallel_for(
        "add_one",
        RangePolicy::new(&space, 0..n),
        add_one(a.view_device()),
    )
    .unwrap();
    b.deep_copy_from(&a).unwrap(); // device to device
    assert!(b.need_sync_host() && !b.need_sync_device());
    b.sync_host().unwrap();
    let want: Vec<i32> = want.iter().map(|x| x + 1).collect();
    assert_eq!(b.view_host().to_vec(), want);

    let short = Dv::<E>::new_on(&space, &unique("short"), [n - 1]).unwrap();
    assert!(matches!(
        short.deep_copy_from(&a),
        Err(Error::ShapeMismatch { .. })
    ));

    let data: Vec<i32> = (0..n as i32).map(|i| i ^ 0x55).collect();
    let d = dev_from_slice(&space, &unique("ext"), &data).unwrap();
    let c = DualView::from_device_view(d.clone()).unwrap();
    assert!(c.need_sync_host());
    assert!(matches!(
        DualView::from_device_view(d.clone()),
        Err(Error::InvalidArgument(_))
    ));
    // Other handles of the View are the device side too.
    parallel_for("add_one", RangePolicy::new(&space, 0..n), add_one(&d)).unwrap();
    c.sync_host().unwrap();
    let want: Vec<i32> = data.iter().map(|x| x + 1).collect();
    assert_eq!(c.view_host().to_vec(), want);
    c.view_host().set(0, 0);
    let e = parallel_for("add_one", RangePolicy::new(&space, 0..n), add_one(&d)).unwrap_err();
    assert_unsynced(&e, c.label(), "sync_device()");
}
per_backend!(copies_between_dual_views);
