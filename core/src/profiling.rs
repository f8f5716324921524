//! Profiling hooks in the spirit of Kokkos Tools, and a built-in kernel timer.
//!
//! Register a [`ProfilingHooks`] implementation with [`register`] to be called at the begin and end
//! of every parallel pattern (with its label), at fences, deep copies and allocations, and for user
//! regions ([`push_region`] / [`pop_region`]). With no hooks registered a launch pays one relaxed
//! atomic load.
//!
//! Hooks run with no lock of rokkos held: each event calls the hooks of a snapshot of the list
//! taken when it begins, so a hook may register or [`unregister`] hooks, allocate a View, copy or
//! launch a kernel (each a nested event, reported to the hooks in turn), and other threads may
//! register meanwhile. Deep copies are reported before the copy takes its Views, so a hook may
//! also touch the Views being copied.
//!
//! `ROKKOS_PROFILE=timer` registers the [`KernelTimer`]: while profiling, each launch is followed by a
//! fence so that asynchronous backends are timed to completion. At exit it prints one row per
//! (pattern, label): calls, total, mean, share; `ROKKOS_PROFILE_JSON=path` also writes the table as
//! JSON lines.
//!
//! ```
//! use rokkos_core::profiling::{self, KernelTimer};
//! use std::sync::Arc;
//! let timer = Arc::new(KernelTimer::default());
//! profiling::register(timer.clone());
//! profiling::push_region("setup");
//! profiling::pop_region();
//! assert!(timer.rows().is_empty()); // no kernel ran yet
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once, RwLock};
use std::time::Duration;

/// Which pattern a launch ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// `parallel_for`
    For,
    /// `parallel_reduce`
    Reduce,
    /// `parallel_scan`
    Scan,
}

impl Pattern {
    /// `"for"`, `"reduce"` or `"scan"`.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::For => "for",
            Pattern::Reduce => "reduce",
            Pattern::Scan => "scan",
        }
    }
}

/// Callbacks for profiling tools; every method has an empty default.
pub trait ProfilingHooks: Send + Sync {
    /// A parallel pattern is about to launch on `space`.
    fn begin_parallel(&self, _pattern: Pattern, _space: &str, _label: &str) {}
    /// The pattern finished (including a fence while profiling); `elapsed` is launch to completion.
    fn end_parallel(&self, _pattern: Pattern, _space: &str, _label: &str, _elapsed: Duration) {}
    /// A fence on `space`.
    fn fence(&self, _space: &str) {}
    /// A deep copy of `bytes` bytes.
    fn deep_copy(&self, _dst: &str, _src: &str, _bytes: usize) {}
    /// An allocation of `bytes` bytes in `space`.
    fn allocate(&self, _space: &str, _label: &str, _bytes: usize) {}
    /// The user entered a region.
    fn push_region(&self, _name: &str) {}
    /// The user left the innermost region.
    fn pop_region(&self) {}
}

static ENABLED: AtomicBool = AtomicBool::new(false);
/// The registered hooks, as an immutable snapshot: a caller clones the `Arc` under the read lock
/// and calls the hooks after releasing it, so a hook may register or unregister hooks, allocate,
/// copy or launch (nested events), and another thread may register meanwhile, without waiting for
/// anyone. Writers replace the whole list.
type HookList = Arc<[Arc<dyn ProfilingHooks>]>;
static HOOKS: RwLock<Option<HookList>> = RwLock::new(None);
static ENV: Once = Once::new();

/// The current snapshot (`None`: no hooks). The lock is held only for the `Arc` clone.
fn snapshot() -> Option<HookList> {
    HOOKS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Replaces the list by `edit(current)`, and keeps [`enabled`]'s flag in step with it. The old
/// list (and any hook it held last) is dropped after the lock is released: a hook's `Drop` is
/// user code too.
fn update(edit: impl FnOnce(&[Arc<dyn ProfilingHooks>]) -> Vec<Arc<dyn ProfilingHooks>>) {
    let old = {
        let mut g = HOOKS.write().unwrap_or_else(|e| e.into_inner());
        let next = edit(g.as_deref().unwrap_or(&[]));
        ENABLED.store(!next.is_empty(), Ordering::Release);
        let next = (!next.is_empty()).then(|| HookList::from(next));
        std::mem::replace(&mut *g, next)
    };
    drop(old);
}

/// Adds a set of hooks; they stay registered until [`unregister`] removes them. Callable from
/// anywhere, a hook included: hooks run without any lock held, and the list they run from is the
/// one registered when the event began (a hook registered by a hook first sees the next event).
pub fn register(hooks: Arc<dyn ProfilingHooks>) {
    update(|cur| cur.iter().cloned().chain(std::iter::once(hooks)).collect());
}

/// Removes every registration of `hooks` (compared by address, as [`Arc::ptr_eq`] does); returns
/// whether it was registered. Callable from anywhere, a hook included; an event already under way
/// may still call it once.
pub fn unregister(hooks: &Arc<dyn ProfilingHooks>) -> bool {
    let mut found = false;
    update(|cur| {
        cur.iter()
            .filter(|h| {
                let same = std::ptr::addr_eq(Arc::as_ptr(h), Arc::as_ptr(hooks));
                found |= same;
                !same
            })
            .cloned()
            .collect()
    });
    found
}

/// True when any hooks are registered (after reading `ROKKOS_PROFILE` once).
#[inline]
pub fn enabled() -> bool {
    ENV.call_once(init_from_env);
    ENABLED.load(Ordering::Relaxed)
}

/// Calls `f` with every registered hook, from a snapshot of the list and with no lock held.
pub(crate) fn each(f: impl Fn(&dyn ProfilingHooks)) {
    if !enabled() {
        return;
    }
    if let Some(hooks) = snapshot() {
        for h in hooks.iter() {
            f(h.as_ref());
        }
    }
}

/// Enters a named user region.
pub fn push_region(name: &str) {
    each(|h| h.push_region(name));
}
/// Leaves the innermost user region.
pub fn pop_region() {
    each(|h| h.pop_region());
}

/// Per-label timing table: calls and total time of every (pattern, label).
#[derive(Default)]
pub struct KernelTimer {
    table: Mutex<HashMap<TimerKey, (u64, Duration)>>,
}

/// (pattern, space, label)
type TimerKey = (Pattern, String, String);

/// One row of the [`KernelTimer`] table.
#[derive(Debug, Clone, PartialEq)]
pub struct TimerRow {
    /// The pattern.
    pub pattern: Pattern,
    /// The execution space name.
    pub space: String,
    /// The launch label.
    pub label: String,
    /// Number of launches.
    pub calls: u64,
    /// Total time.
    pub total: Duration,
}

impl KernelTimer {
    /// Rows sorted by total time, largest first.
    pub fn rows(&self) -> Vec<TimerRow> {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let mut rows: Vec<TimerRow> = t
            .iter()
            .map(|((p, s, l), &(calls, total))| TimerRow {
                pattern: *p,
                space: s.clone(),
                label: l.clone(),
                calls,
                total,
            })
            .collect();
        rows.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.label.cmp(&b.label)));
        rows
    }

    /// The table as text: label, pattern, space, calls, total, mean, share.
    pub fn report(&self) -> String {
        let rows = self.rows();
        let all: f64 = rows.iter().map(|r| r.total.as_secs_f64()).sum();
        let mut s = format!(
            "{:<40} {:<7} {:<8} {:>8} {:>12} {:>12} {:>7}\n",
            "label", "pattern", "space", "calls", "total (s)", "mean (s)", "share"
        );
        for r in &rows {
            let t = r.total.as_secs_f64();
            s += &format!(
                "{:<40} {:<7} {:<8} {:>8} {:>12.6} {:>12.3e} {:>6.1}%\n",
                r.label,
                r.pattern.name(),
                r.space,
                r.calls,
                t,
                t / r.calls.max(1) as f64,
                if all > 0.0 { 100.0 * t / all } else { 0.0 }
            );
        }
        s
    }

    /// The table as JSON lines.
    pub fn json_lines(&self) -> String {
        self.rows()
            .iter()
            .map(|r| {
                serde_json::json!({
                    "label": r.label, "pattern": r.pattern.name(), "space": r.space,
                    "calls": r.calls, "total_s": r.total.as_secs_f64(),
                })
                .to_string()
                    + "\n"
            })
            .collect()
    }
}

impl ProfilingHooks for KernelTimer {
    fn end_parallel(&self, pattern: Pattern, space: &str, label: &str, elapsed: Duration) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let e = t
            .entry((pattern, space.to_string(), label.to_string()))
            .or_insert((0, Duration::ZERO));
        e.0 += 1;
        e.1 += elapsed;
    }
}

static EXIT_TIMER: RwLock<Option<Arc<KernelTimer>>> = RwLock::new(None);

/// Called by the C runtime at exit, where a panic could not unwind (it would abort): writes to
/// stderr without `eprint!`, which panics when stderr is closed.
extern "C" fn print_timer_at_exit() {
    use std::io::Write;
    if let Some(t) = EXIT_TIMER.read().ok().and_then(|g| g.clone()) {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "rokkos kernel timer\n{}", t.report());
        if let Ok(path) = std::env::var("ROKKOS_PROFILE_JSON") {
            if let Err(e) = std::fs::write(&path, t.json_lines()) {
                let _ = writeln!(err, "rokkos: cannot write {path}: {e}");
            }
        }
    }
}

extern "C" {
    fn atexit(cb: extern "C" fn()) -> std::os::raw::c_int;
}

fn init_from_env() {
    if std::env::var("ROKKOS_PROFILE")
        .map(|v| v.split(',').any(|x| x.trim() == "timer"))
        .unwrap_or(false)
    {
        let t = Arc::new(KernelTimer::default());
        *EXIT_TIMER.write().unwrap_or_else(|e| e.into_inner()) = Some(t.clone());
        register(t);
        // SAFETY: registering a plain `extern "C"` function with the C runtime.
        unsafe {
            atexit(print_timer_at_exit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::mpsc;

    /// Counts the user regions named `name` it sees.
    struct Regions {
        name: &'static str,
        seen: AtomicUsize,
    }
    impl ProfilingHooks for Regions {
        fn push_region(&self, name: &str) {
            if name == self.name {
                self.seen.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// In its region, registers `then` once, and unregisters itself the second time.
    struct Registrar {
        then: Arc<dyn ProfilingHooks>,
        me: Mutex<Option<Arc<dyn ProfilingHooks>>>,
        calls: AtomicUsize,
    }
    impl ProfilingHooks for Registrar {
        fn push_region(&self, name: &str) {
            if name != "profiling::tests::registrar" {
                return;
            }
            if self.calls.fetch_add(1, Ordering::Relaxed) == 0 {
                register(self.then.clone());
            } else if let Some(me) = self.me.lock().unwrap().take() {
                assert!(unregister(&me));
            }
        }
    }

    /// A hook may register and unregister hooks while it runs (the list was read-locked while the
    /// hooks ran, so this deadlocked); a hook registered during an event first sees the next one.
    #[test]
    fn hooks_register_and_unregister_from_inside_a_hook() {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let then = Arc::new(Regions {
                name: "profiling::tests::registrar",
                seen: AtomicUsize::new(0),
            });
            let registrar = Arc::new(Registrar {
                then: then.clone(),
                me: Mutex::new(None),
                calls: AtomicUsize::new(0),
            });
            let as_dyn: Arc<dyn ProfilingHooks> = registrar.clone();
            *registrar.me.lock().unwrap() = Some(as_dyn.clone());
            register(as_dyn);
            for _ in 0..3 {
                push_region("profiling::tests::registrar");
                pop_region();
            }
            let then_dyn: Arc<dyn ProfilingHooks> = then.clone();
            assert!(unregister(&then_dyn));
            let _ = tx.send((
                registrar.calls.load(Ordering::Relaxed),
                then.seen.load(Ordering::Relaxed),
            ));
        });
        let got = rx
            .recv_timeout(Duration::from_secs(15))
            .expect("a hook registering a hook deadlocked (or panicked)");
        assert_eq!(got, (2, 2));
    }

    /// Unregistering answers whether the hooks were registered, compares by address, and turns
    /// the fast path back on when the list empties (other tests' hooks may be registered
    /// meanwhile, so only this test's own are looked at).
    #[test]
    fn unregister_removes_exactly_what_was_registered() {
        let a: Arc<dyn ProfilingHooks> = Arc::new(Regions {
            name: "profiling::tests::a",
            seen: AtomicUsize::new(0),
        });
        let b: Arc<dyn ProfilingHooks> = Arc::new(Regions {
            name: "profiling::tests::a",
            seen: AtomicUsize::new(0),
        });
        assert!(!unregister(&a));
        register(a.clone());
        register(a.clone());
        assert!(enabled());
        assert!(!unregister(&b));
        assert!(unregister(&a));
        assert!(!unregister(&a));
        let listed = snapshot().is_some_and(|l| {
            l.iter()
                .any(|h| std::ptr::addr_eq(Arc::as_ptr(h), Arc::as_ptr(&a)))
        });
        assert!(!listed);
    }
}
