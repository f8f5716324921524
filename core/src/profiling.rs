//! Profiling hooks in the spirit of Kokkos Tools, and a built-in kernel timer.
//!
//! Register a [`ProfilingHooks`] implementation with [`register`] to be called at the begin and end
//! of every parallel pattern (with its label), at fences, deep copies and allocations, and for user
//! regions ([`push_region`] / [`pop_region`]). With no hooks registered a launch pays one relaxed
//! atomic load.
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
static HOOKS: RwLock<Vec<Arc<dyn ProfilingHooks>>> = RwLock::new(Vec::new());
static ENV: Once = Once::new();

/// Adds a set of hooks; they stay registered for the rest of the process.
pub fn register(hooks: Arc<dyn ProfilingHooks>) {
    HOOKS.write().unwrap_or_else(|e| e.into_inner()).push(hooks);
    ENABLED.store(true, Ordering::Release);
}

/// True when any hooks are registered (after reading `ROKKOS_PROFILE` once).
#[inline]
pub fn enabled() -> bool {
    ENV.call_once(init_from_env);
    ENABLED.load(Ordering::Relaxed)
}

pub(crate) fn each(f: impl Fn(&dyn ProfilingHooks)) {
    if !enabled() {
        return;
    }
    for h in HOOKS.read().unwrap_or_else(|e| e.into_inner()).iter() {
        f(h.as_ref());
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

extern "C" fn print_timer_at_exit() {
    if let Some(t) = EXIT_TIMER.read().ok().and_then(|g| g.clone()) {
        eprint!("rokkos kernel timer\n{}", t.report());
        if let Ok(path) = std::env::var("ROKKOS_PROFILE_JSON") {
            if let Err(e) = std::fs::write(&path, t.json_lines()) {
                eprintln!("rokkos: cannot write {path}: {e}");
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
        HOOKS.write().unwrap_or_else(|e| e.into_inner()).push(t);
        ENABLED.store(true, Ordering::Release);
        // SAFETY: registering a plain `extern "C"` function with the C runtime.
        unsafe {
            atexit(print_timer_at_exit);
        }
    }
}
