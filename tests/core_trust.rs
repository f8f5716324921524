//! What a user's own code may do with rokkos' public, safe items (this file forbids `unsafe`):
//! implement an execution space that hands its launches to a host backend (`Launch::delegate`,
//! the supported way: it runs, and gives the backend's results), and register profiling hooks
//! that themselves register, unregister, allocate and launch, from several threads, without a
//! deadlock (each such test runs under a timeout, so a regression fails instead of hanging).

#![forbid(unsafe_code)]

use rokkos::delegate::{For, Reduce, ReduceInto, Scan};
use rokkos::kernel::{ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork};
use rokkos::prelude::*;
use rokkos::profiling::{self, Pattern, ProfilingHooks};
use rokkos::{DeviceMemory, Launch, Pod, Reducer, ResultSlot, TeamLimits};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// A user execution space that delegates every launch.

/// A user's execution space over `Device` memory that runs every launch on serial through
/// `Launch::delegate`, counting the launches it handed on.
#[derive(Clone, Debug)]
struct Relay {
    handed: Arc<AtomicUsize>,
}

impl Relay {
    fn new() -> Self {
        Relay {
            handed: Arc::new(AtomicUsize::new(0)),
        }
    }
    fn count(&self) {
        self.handed.fetch_add(1, Ordering::Relaxed);
    }
}

impl ExecutionSpace for Relay {
    type Memory = DeviceMemory;
    fn name(&self) -> &'static str {
        "relay"
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) -> rokkos::Result<()> {
        Ok(())
    }
    fn memory_space(&self) -> DeviceMemory {
        // The memory of the backend it delegates to (the default would be `Device::new()`'s).
        Device::from(Serial).memory_space()
    }
    fn team_limits(&self) -> TeamLimits {
        Serial.team_limits()
    }
    fn for_range<K>(&self, l: Launch<'_, RangePolicy<Self>, K>) -> rokkos::Result<()>
    where
        K: ForKernel<RangeWork, Space = DeviceMemory> + KernelIr,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, For)
    }
    fn for_mdrange<const N: usize, K>(
        &self,
        l: Launch<'_, MDRangePolicy<Self, N>, K>,
    ) -> rokkos::Result<()>
    where
        K: ForKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, For)
    }
    fn for_team<K>(&self, l: Launch<'_, TeamPolicy<Self>, K>) -> rokkos::Result<()>
    where
        K: ForKernel<TeamWork, Space = DeviceMemory> + KernelIr,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, For)
    }
    fn reduce_range<K, Rd>(
        &self,
        l: Launch<'_, RangePolicy<Self>, K>,
        r: &Rd,
    ) -> rokkos::Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, Reduce(r))
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        l: Launch<'_, MDRangePolicy<Self, N>, K>,
        r: &Rd,
    ) -> rokkos::Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, Reduce(r))
    }
    fn reduce_team<K, Rd>(
        &self,
        l: Launch<'_, TeamPolicy<Self>, K>,
        r: &Rd,
    ) -> rokkos::Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, Reduce(r))
    }
    fn reduce_range_into<K, Rd>(
        &self,
        l: Launch<'_, RangePolicy<Self>, K>,
        r: &Rd,
        slot: ResultSlot<'_, DeviceMemory>,
    ) -> rokkos::Result<()>
    where
        K: ReduceKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        K::Value: Pod,
        Rd: Reducer<K::Value>,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, ReduceInto(r, slot))
    }
    fn scan_range<K, Rd>(
        &self,
        l: Launch<'_, RangePolicy<Self>, K>,
        r: &Rd,
    ) -> rokkos::Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        self.count();
        let p = l.policy().with_space(&Serial);
        l.delegate(&p, Scan(r))
    }
}

#[kernel]
fn square_into(i: usize, y: ViewMut<i64>, x: View<i64>) {
    y[i] = x[i] * x[i];
}

#[kernel]
fn add_at((i, j): (usize, usize), y: ViewMut<i64, 2>, v: i64) {
    y[(i, j)] = y[(i, j)] + v * (i as i64) + j as i64;
}

#[kernel]
fn sum_of(i: usize, acc: &mut i64, x: View<i64>) {
    *acc += x[i];
}

#[kernel(scan)]
fn prefix(i: usize, partial: &mut i64, is_final: bool, x: View<i64>, out: ViewMut<i64>) {
    if is_final {
        out[i] = *partial;
    }
    *partial += x[i];
}

#[kernel]
fn team_rows(team: &TeamMember, acc: &mut i64, x: View<i64, 2>) {
    let r = team.league_rank();
    let s = team.thread_reduce(x.extent(1), Sum, |j, t: &mut i64| {
        *t += x[(r, j)];
    });
    team.single_team(|| {
        *acc += s;
    });
}

#[kernel]
fn mark_rows(team: &TeamMember, y: ViewMut<i64>) {
    let r = team.league_rank();
    team.single_team(|| {
        y[r] = 10 * r as i64;
    });
}

fn host_of<T: Pod, const R: usize>(v: &DeviceView<T, R>) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().to_vec()
}

/// A user space that delegates properly gets the backend's results for every pattern, with the
/// launch checks of core still in force (an aliasing launch is refused before it reaches the
/// space).
#[test]
fn a_user_space_that_delegates_runs_every_pattern() {
    // Under the timeout too: with hooks of the other tests registered, a deadlock there would
    // block this test's launches.
    within_timeout("a delegating user space", delegating_user_space);
}

fn delegating_user_space() {
    let relay = Relay::new();
    let n = 257;
    let hx = View::<i64>::from_fn("x", [n], |[i]| i as i64 - 100).unwrap();
    let x = create_mirror_view_and_copy_in(&relay, &hx).unwrap();
    let y = DeviceView::<i64>::new_in(&relay.memory_space(), "y", [n]).unwrap();

    parallel_for(
        "square",
        RangePolicy::new(&relay, 0..n),
        square_into(&y, &x),
    )
    .unwrap();
    let want: Vec<i64> = (0..n as i64).map(|i| (i - 100) * (i - 100)).collect();
    assert_eq!(host_of(&y), want);

    let total: i64 =
        parallel_reduce("sum", RangePolicy::new(&relay, 0..n), sum_of(&x), Sum).unwrap();
    assert_eq!(total, (0..n as i64).map(|i| i - 100).sum::<i64>());

    let slot = DeviceView::<i64, 0>::new_in(&relay.memory_space(), "slot", []).unwrap();
    parallel_reduce_into(
        "sum_into",
        RangePolicy::new(&relay, 0..n),
        sum_of(&y),
        Sum,
        &slot,
    )
    .unwrap();
    assert_eq!(host_of(&slot), vec![want.iter().sum::<i64>()]);

    let out = DeviceView::<i64>::new_in(&relay.memory_space(), "out", [n]).unwrap();
    let scanned: i64 =
        parallel_scan("prefix", RangePolicy::new(&relay, 0..n), prefix(&x, &out)).unwrap();
    assert_eq!(scanned, total);
    let mut run = 0;
    let prefixes: Vec<i64> = (0..n as i64)
        .map(|i| {
            let p = run;
            run += i - 100;
            p
        })
        .collect();
    assert_eq!(host_of(&out), prefixes);

    let grid = DeviceView::<i64, 2>::new_in(&relay.memory_space(), "grid", [5, 7]).unwrap();
    parallel_for(
        "add_at",
        MDRangePolicy::new(&relay, [0, 0], [5, 7]),
        add_at(&grid, 3),
    )
    .unwrap();
    let want_grid: Vec<i64> = (0..5)
        .flat_map(|i| (0..7).map(move |j| 3 * i + j))
        .collect();
    assert_eq!(host_of(&grid), want_grid);

    let rows: i64 = parallel_reduce(
        "team_rows",
        TeamPolicy::new(&relay, 5, TeamSize::Auto),
        team_rows(&grid),
        Sum,
    )
    .unwrap();
    assert_eq!(rows, want_grid.iter().sum::<i64>());
    let marks = DeviceView::<i64>::new_in(&relay.memory_space(), "marks", [5]).unwrap();
    parallel_for(
        "mark_rows",
        TeamPolicy::new(&relay, 5, TeamSize::Auto),
        mark_rows(&marks),
    )
    .unwrap();
    assert_eq!(host_of(&marks), vec![0, 10, 20, 30, 40]);

    assert_eq!(relay.handed.load(Ordering::Relaxed), 7);
    // Core's checks come first: an aliasing launch never reaches the user space.
    let r = parallel_for("alias", RangePolicy::new(&relay, 0..n), square_into(&y, &y));
    assert!(matches!(r, Err(Error::Aliasing { .. })), "{r:?}");
    assert_eq!(relay.handed.load(Ordering::Relaxed), 7);
}

// ---------------------------------------------------------------------------------------------
// Profiling hooks that call back into rokkos.

/// Runs `body` on its own thread and fails the test when it has not finished within 15 s (a
/// deadlock), instead of hanging the test binary.
fn within_timeout(what: &str, body: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let t = std::thread::spawn(move || {
        body();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(15)) {
        Ok(()) => t.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The body panicked: report its panic.
            if let Err(p) = t.join() {
                std::panic::resume_unwind(p)
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after 15 s (deadlock)")
        }
    }
}

/// Counts the launches of one label.
struct CountLabel {
    label: &'static str,
    seen: AtomicUsize,
}
impl ProfilingHooks for CountLabel {
    fn begin_parallel(&self, _: Pattern, _: &str, label: &str) {
        if label == self.label {
            self.seen.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// On its label's first launch, registers `late` from inside `begin_parallel`; on its label's
/// later launches, unregisters itself.
struct RegistersFromInside {
    label: &'static str,
    late: Arc<dyn ProfilingHooks>,
    me: Mutex<Option<Arc<dyn ProfilingHooks>>>,
    calls: AtomicUsize,
}
impl ProfilingHooks for RegistersFromInside {
    fn begin_parallel(&self, _: Pattern, _: &str, label: &str) {
        if label != self.label {
            return;
        }
        if self.calls.fetch_add(1, Ordering::Relaxed) == 0 {
            profiling::register(self.late.clone());
        } else if let Some(me) = self.me.lock().unwrap().take() {
            assert!(profiling::unregister(&me));
        }
    }
}

#[kernel]
fn bump(i: usize, y: ViewMut<f64>) {
    y[i] += 1.0;
}

/// A hook that registers another hook from inside `begin_parallel` (and later unregisters
/// itself there) used to deadlock: the hooks were called under the list's read lock.
#[test]
fn a_hook_registers_and_unregisters_hooks_from_inside_a_hook() {
    within_timeout("registering from a hook", || {
        const LABEL: &str = "core_trust::registers_from_inside";
        let late = Arc::new(CountLabel {
            label: LABEL,
            seen: AtomicUsize::new(0),
        });
        let hook = Arc::new(RegistersFromInside {
            label: LABEL,
            late: late.clone(),
            me: Mutex::new(None),
            calls: AtomicUsize::new(0),
        });
        let as_dyn: Arc<dyn ProfilingHooks> = hook.clone();
        *hook.me.lock().unwrap() = Some(as_dyn.clone());
        profiling::register(as_dyn.clone());
        let y = View::<f64>::new("y", [8]).unwrap();
        for _ in 0..3 {
            parallel_for(LABEL, RangePolicy::new(&Serial, 0..8), bump(&y)).unwrap();
        }
        assert_eq!(y.to_vec(), vec![3.0; 8]);
        // `hook` ran for the first two launches (it unregistered itself in the second); `late`,
        // registered during the first, ran from the second on.
        assert_eq!(hook.calls.load(Ordering::Relaxed), 2);
        assert_eq!(late.seen.load(Ordering::Relaxed), 2);
        assert!(!profiling::unregister(&as_dyn));
        let late_dyn: Arc<dyn ProfilingHooks> = late;
        assert!(profiling::unregister(&late_dyn));
    });
}

/// While its label's launch begins: lets another thread start registering hooks, waits until
/// it has, then allocates a View and launches a kernel (nested allocation and launch events).
struct NestedWork {
    label: &'static str,
    go: Mutex<Option<mpsc::Sender<()>>>,
    registered: Mutex<Option<mpsc::Receiver<()>>>,
    nested_sum: Mutex<Option<f64>>,
}
impl ProfilingHooks for NestedWork {
    fn begin_parallel(&self, _: Pattern, _: &str, label: &str) {
        if label != self.label {
            return;
        }
        if let Some(go) = self.go.lock().unwrap().take() {
            go.send(()).unwrap();
            // Give the registering thread time to wait for the list's lock if it must; with the
            // list locked while hooks run, it waits, and the nested events below then blocked
            // behind it.
            if let Some(rx) = self.registered.lock().unwrap().take() {
                let _ = rx.recv_timeout(Duration::from_millis(300));
            }
        }
        let v = View::<f64>::from_fn("nested", [16], |[i]| i as f64).unwrap();
        let w = View::<f64>::new("nested_copy", [16]).unwrap();
        deep_copy(&w, &v).unwrap();
        parallel_for(
            "core_trust::nested",
            RangePolicy::new(&Serial, 0..16),
            bump(&w),
        )
        .unwrap();
        *self.nested_sum.lock().unwrap() = Some(w.to_vec().iter().sum());
    }
}

/// A hook that allocates, copies and launches (nested events) while another thread registers and
/// unregisters hooks: used to block for good once the other thread waited for the write lock.
#[test]
fn a_hook_allocates_and_launches_while_another_thread_registers() {
    within_timeout("nested events while registering", || {
        const LABEL: &str = "core_trust::nested_work";
        let (go_tx, go_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel();
        let hook = Arc::new(NestedWork {
            label: LABEL,
            go: Mutex::new(Some(go_tx)),
            registered: Mutex::new(Some(done_rx)),
            nested_sum: Mutex::new(None),
        });
        let as_dyn: Arc<dyn ProfilingHooks> = hook.clone();
        profiling::register(as_dyn.clone());
        let registrar = std::thread::spawn(move || {
            go_rx.recv().unwrap();
            let extra: Arc<dyn ProfilingHooks> = Arc::new(CountLabel {
                label: "core_trust::never",
                seen: AtomicUsize::new(0),
            });
            profiling::register(extra.clone());
            let _ = done_tx.send(());
            for _ in 0..50 {
                assert!(profiling::unregister(&extra));
                profiling::register(extra.clone());
            }
            assert!(profiling::unregister(&extra));
        });
        let y = View::<f64>::new("y", [4]).unwrap();
        parallel_for(LABEL, RangePolicy::new(&Serial, 0..4), bump(&y)).unwrap();
        registrar.join().unwrap();
        assert_eq!(y.to_vec(), vec![1.0; 4]);
        // The nested launch ran: 0 + 1 + ... + 15, plus one each.
        assert_eq!(*hook.nested_sum.lock().unwrap(), Some(120.0 + 16.0));
        assert!(profiling::unregister(&as_dyn));
    });
}

/// Hooks on several threads at once, each registering and unregistering its own hook around
/// launches that its hook sees: every launch is reported to the hooks registered before it began,
/// and nothing waits for anything.
#[test]
fn hooks_register_and_run_from_many_threads() {
    within_timeout("hooks on many threads", || {
        let threads: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    let label: &'static str = ["mt0", "mt1", "mt2", "mt3"][t];
                    let hook = Arc::new(CountLabel {
                        label,
                        seen: AtomicUsize::new(0),
                    });
                    let as_dyn: Arc<dyn ProfilingHooks> = hook.clone();
                    let y = View::<f64>::new("y", [8]).unwrap();
                    for _ in 0..20 {
                        profiling::register(as_dyn.clone());
                        parallel_for(label, RangePolicy::new(&Serial, 0..8), bump(&y)).unwrap();
                        assert!(profiling::unregister(&as_dyn));
                    }
                    assert_eq!(hook.seen.load(Ordering::Relaxed), 20);
                    assert_eq!(y.to_vec(), vec![20.0; 8]);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    });
}
