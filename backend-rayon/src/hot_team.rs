//! A fork-join team whose threads are ready when a launch comes, as libgomp's "hot team" is.
//!
//! Launching on rayon's pool from a thread outside it costs two sleeping-thread wake-ups per launch
//! (the job is injected into the pool's queue, a parked worker is woken, and the caller blocks on a
//! lock latch until it is woken in turn): about 15 µs here, against well under 1 µs for an OpenMP
//! `parallel for`. A team keeps `size - 1` threads of its own; between launches each spins on the
//! launch counter for a while (`ROKKOS_RAYON_SPIN_US`, default [`DEFAULT_SPIN_US`]) and then
//! parks. A launch publishes the job, bumps the counter, runs participant 0 on the calling thread
//! and spins until the others are done, so that back-to-back launches cost a few cache-line
//! transfers. One launch at a time: [`HotTeam::try_run`] answers `None` while another thread's
//! launch holds the team, and the caller falls back to rayon.
//!
//! A panic in any participant is caught, the launch still waits for every participant (they borrow
//! the caller's stack), and the first payload is then re-raised on the calling thread.

use rokkos_core::host_iter::chunk_bounds;
use rokkos_core::Schedule;
use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle team thread spins before parking, in microseconds, unless
/// `ROKKOS_RAYON_SPIN_US` says otherwise.
pub const DEFAULT_SPIN_US: u64 = 100;

/// The spin budget: `ROKKOS_RAYON_SPIN_US`, or [`DEFAULT_SPIN_US`].
fn spin_budget() -> Duration {
    let us = std::env::var("ROKKOS_RAYON_SPIN_US")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_SPIN_US);
    Duration::from_micros(us)
}

thread_local! {
    /// Set on team threads: a launch from one of them (impossible from a kernel body today) must
    /// not wait for its own team.
    static ON_TEAM_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// The job of one launch: `f(c)` runs chunk `c` of `chunks`. The reference is only used by a
/// thread that joined the launch (see [`Gate`]) while the launching thread waits for it, so the
/// borrow it erases is alive whenever it is used.
#[derive(Clone, Copy)]
struct Job {
    f: *const (dyn Fn(usize) + Sync + 'static),
    chunks: usize,
    schedule: Schedule,
}

/// The launch gate, one word: the launch number above [`OPEN`], the open flag, and below it the
/// number of team threads inside the launch. A thread joins by a compare-exchange that adds one
/// while the gate is open, and leaves by subtracting one; the launcher closes it by a
/// compare-exchange from "open, nobody inside". A thread that saw the gate open but joins after it
/// closed fails its compare-exchange (the word changed), so no thread touches a job once its
/// launch has returned.
struct Gate;
impl Gate {
    const OPEN: u64 = 1 << 23;
    const EPOCH: u64 = Gate::OPEN << 1;
}

/// Padded to a cache line pair so that the words bouncing between cores do not share a line.
#[repr(align(128))]
struct Line<T>(T);

struct Shared {
    gate: Line<AtomicU64>,
    /// Per participant, the chunks of its own block claimed so far in the current launch (see
    /// [`run_claims`]); a count, so that resetting it needs no knowledge of the block.
    claimed: Box<[Line<AtomicUsize>]>,
    /// The next chunk of a [`Schedule::Dynamic`] launch: every participant claims from it.
    next: Line<AtomicUsize>,
    /// The current job: written by the launcher while the gate is closed and nobody is inside.
    job: UnsafeCell<Option<Job>>,
    /// Participants, the caller included: the number of blocks a launch's chunks are cut into.
    size: usize,
    /// Team threads parked (or about to park) on `wake`.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    /// The first panic payload of the current launch.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    exit: AtomicBool,
    spin: Duration,
}

// SAFETY: `job` is written only by the launcher (holding `HotTeam::launch`) while the gate is
// closed and no thread is inside, and read only by threads that joined the open gate (acquire on
// the compare-exchange that pairs with the opening release store) before they leave it.
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// A team of threads kept hot between launches; see the module documentation.
pub(crate) struct HotTeam {
    shared: Arc<Shared>,
    launch: Mutex<()>,
    threads: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for HotTeam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotTeam")
            .field("size", &self.shared.size)
            .finish()
    }
}

impl HotTeam {
    /// A team of `size` participants: the launching thread and `size - 1` threads of its own.
    /// `None` when the threads cannot be started (the caller then uses rayon).
    pub(crate) fn new(size: usize) -> Option<HotTeam> {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            gate: Line(AtomicU64::new(0)),
            claimed: (0..size).map(|_| Line(AtomicUsize::new(0))).collect(),
            next: Line(AtomicUsize::new(0)),
            job: UnsafeCell::new(None),
            size,
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            panic: Mutex::new(None),
            exit: AtomicBool::new(false),
            spin: spin_budget(),
        });
        let mut team = HotTeam {
            shared,
            launch: Mutex::new(()),
            threads: Vec::with_capacity(size - 1),
        };
        for p in 1..size {
            let s = Arc::clone(&team.shared);
            let t = std::thread::Builder::new()
                .name(format!("rokkos-team-{p}"))
                .spawn(move || worker(&s, p))
                .ok()?;
            team.threads.push(t);
        }
        Some(team)
    }

    /// Runs `f(c)` for every chunk `c` in `0..chunks`, on the calling thread and whichever team
    /// threads join, handing chunks out as `schedule` says (see [`run_claims`]), and returns
    /// when all are done. `None`, running nothing, when the team is busy with another thread's
    /// launch or the caller is a team thread. A panic in `f` is re-raised here once no thread
    /// runs `f` any more.
    pub(crate) fn try_run(
        &self,
        chunks: usize,
        schedule: Schedule,
        f: &(dyn Fn(usize) + Sync),
    ) -> Option<()> {
        if ON_TEAM_THREAD.with(Cell::get) {
            return None;
        }
        let guard = match self.launch.try_lock() {
            Ok(g) => g,
            // No panic is raised while the guard is held, so this cannot happen; take the lock
            // anyway rather than refuse the team forever.
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        let s = &*self.shared;
        let closed = s.gate.0.load(Ordering::Relaxed);
        let epoch = (closed & !(Gate::EPOCH - 1)).wrapping_add(Gate::EPOCH);
        // SAFETY: the gate is closed and nobody is inside (the previous launch made it so before
        // returning), so no thread reads `job`. The lifetime is erased; see `Job`.
        unsafe {
            let f: *const (dyn Fn(usize) + Sync + '_) = f;
            *s.job.get() = Some(Job {
                f: std::mem::transmute::<
                    *const (dyn Fn(usize) + Sync + '_),
                    *const (dyn Fn(usize) + Sync + 'static),
                >(f),
                chunks,
                schedule,
            });
        }
        for c in s.claimed.iter() {
            c.0.store(0, Ordering::Relaxed);
        }
        s.next.0.store(0, Ordering::Relaxed);
        // SeqCst pairs with the sleepers' SeqCst increment and gate re-check: either this load
        // sees a sleeper (and wakes it under the lock), or the sleeper sees the open gate.
        s.gate.0.store(epoch | Gate::OPEN, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| run_claims(s, f, chunks, schedule, 0)));
        // Close the gate once nobody is inside: team threads borrow `f` from this stack.
        let open = epoch | Gate::OPEN;
        let mut spins = 0u32;
        while s
            .gate
            .0
            .compare_exchange_weak(open, epoch, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins = spins.saturating_add(1);
            if spins < 1 << 10 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: closed with nobody inside: no thread reads the job any more.
        unsafe { *s.job.get() = None };
        let theirs = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(guard);
        match (mine, theirs) {
            (Err(p), _) | (Ok(()), Some(p)) => resume_unwind(p),
            (Ok(()), None) => Some(()),
        }
    }
}

/// Runs chunks of the current launch until none is left, as `schedule` says.
///
/// [`Schedule::Auto`]: first participant `me`'s own block, a fixed contiguous share of the
/// chunks (as OpenMP's static schedule and Kokkos' default `Schedule<Static>`), one chunk per
/// claim, then whatever the others have not claimed yet of theirs. The same participant thus runs
/// the same part of every launch over the same range when the team is balanced, so memory a
/// first kernel touched stays with the thread (and the core, cache and NUMA node) that uses it
/// next; a participant that joins late or runs slowly has its chunks taken by the others.
///
/// [`Schedule::Static`]: the same blocks, each claimed whole: `me` runs its own block in chunk
/// order, then every block whose owner has not started it yet (an owner that is parked or
/// descheduled does not hold the launch up), each whole.
///
/// [`Schedule::Dynamic`]: every participant takes the next chunk from one shared counter, so
/// that a participant held up by an expensive chunk leaves the rest to the others.
///
/// Which thread runs a chunk never changes a result: reductions keep one partial per chunk,
/// joined in chunk order.
fn run_claims(
    s: &Shared,
    f: &(dyn Fn(usize) + Sync),
    chunks: usize,
    schedule: Schedule,
    me: usize,
) {
    let size = s.size;
    match schedule {
        Schedule::Auto => {
            for k in 0..size {
                let p = (me + k) % size;
                let Range { start: lo, end: hi } = chunk_bounds(0, chunks, size, p);
                let claimed = &s.claimed[p].0;
                if claimed.load(Ordering::Relaxed) >= hi - lo {
                    continue;
                }
                loop {
                    // Each claim adds one, so a count past the block's length (at most one per
                    // participant) only says that the block is done.
                    let c = claimed.fetch_add(1, Ordering::Relaxed);
                    if c >= hi - lo {
                        break;
                    }
                    f(lo + c);
                }
            }
        }
        Schedule::Static => {
            for k in 0..size {
                let p = (me + k) % size;
                let block = chunk_bounds(0, chunks, size, p);
                let claimed = &s.claimed[p].0;
                // The first claim of a block takes all of it.
                if block.is_empty()
                    || claimed.load(Ordering::Relaxed) != 0
                    || claimed.fetch_add(1, Ordering::Relaxed) != 0
                {
                    continue;
                }
                block.for_each(f);
            }
        }
        Schedule::Dynamic => loop {
            // At most one claim per participant lands past the end.
            let c = s.next.0.fetch_add(1, Ordering::Relaxed);
            if c >= chunks {
                break;
            }
            f(c);
        },
    }
}

impl Drop for HotTeam {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.exit.store(true, Ordering::SeqCst);
        {
            let _l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A team thread: wait for an open gate of a launch it has not joined yet (spinning, then
/// parked), join it, claim and run chunks, leave; until the team is dropped.
fn worker(s: &Shared, me: usize) {
    ON_TEAM_THREAD.with(|c| c.set(true));
    let mut last = 0u64;
    loop {
        let Some(word) = wait_for_launch(s, last) else {
            return;
        };
        last = word & !(Gate::EPOCH - 1);
        if s.gate
            .0
            .compare_exchange(word, word + 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // The launch closed, or another thread joined first: look again.
            last = last.wrapping_sub(Gate::EPOCH);
            continue;
        }
        // SAFETY: inside the open gate: the launcher keeps the job alive and unchanged until
        // this thread leaves.
        if let Some(job) = unsafe { *s.job.get() } {
            // SAFETY: as above.
            let f = unsafe { &*job.f };
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| {
                run_claims(s, f, job.chunks, job.schedule, me)
            })) {
                let mut slot = s.panic.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none() {
                    *slot = Some(payload);
                }
            }
        }
        s.gate.0.fetch_sub(1, Ordering::Release);
    }
}

/// Waits until the gate is open for a launch other than `last` (its epoch bits): spins for the
/// team's budget, then parks. Returns the gate word seen, or `None` when the team is dropped.
fn wait_for_launch(s: &Shared, last: u64) -> Option<u64> {
    let ready = |w: u64| w & Gate::OPEN != 0 && w & !(Gate::EPOCH - 1) != last;
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        let w = s.gate.0.load(Ordering::Relaxed);
        if ready(w) {
            return Some(w);
        }
        if s.exit.load(Ordering::Relaxed) {
            return None;
        }
        spins = spins.wrapping_add(1);
        // Reading the clock costs tens of nanoseconds: look at it every 256 spins only.
        if spins % 256 == 0 && start.elapsed() >= s.spin {
            break;
        }
        std::hint::spin_loop();
    }
    let mut l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
    s.sleepers.fetch_add(1, Ordering::SeqCst);
    let w = loop {
        let w = s.gate.0.load(Ordering::SeqCst);
        if ready(w) || s.exit.load(Ordering::SeqCst) {
            break w;
        }
        l = s.wake.wait(l).unwrap_or_else(|e| e.into_inner());
    };
    s.sleepers.fetch_sub(1, Ordering::SeqCst);
    drop(l);
    if s.exit.load(Ordering::SeqCst) {
        None
    } else {
        Some(w)
    }
}

/// One result slot per chunk, each written by the one participant that runs the chunk and read by
/// the launcher after the launch.
pub(crate) struct Slots<V>(Box<[UnsafeCell<Option<V>>]>);

// SAFETY: each chunk is claimed once, so distinct threads write distinct slots, and the launcher
// reads them only after the launch closed (acquire on the gate, release when each thread left).
unsafe impl<V: Send> Sync for Slots<V> {}

impl<V> Slots<V> {
    pub(crate) fn new(n: usize) -> Self {
        Slots((0..n).map(|_| UnsafeCell::new(None)).collect())
    }
    /// Stores the result of chunk `c`.
    ///
    /// # Safety
    /// Only the thread running chunk `c` calls this, once, while nobody reads the slots.
    pub(crate) unsafe fn put(&self, c: usize, v: V) {
        // SAFETY: the caller's promise: no other access to this slot now.
        unsafe { *self.0[c].get() = Some(v) }
    }
    /// The results in chunk order (every slot was written: no participant panicked).
    pub(crate) fn into_vec(self) -> Vec<V> {
        self.0
            .into_vec()
            .into_iter()
            .map(|c| c.into_inner().expect("every chunk ran"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk runs exactly once per launch, whichever participant claims it, with blocks
    /// of one chunk, empty blocks (fewer chunks than participants) and many chunks, and with one
    /// participant slow enough that the others take its chunks.
    #[test]
    fn every_chunk_runs_once() {
        for size in [2, 3, 5] {
            let team = HotTeam::new(size).expect("team threads");
            for chunks in [2, 3, 4, 7, 20, 64] {
                for launch in 0..20 {
                    let runs: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
                    let slow = launch % size;
                    let f = |c: usize| {
                        runs[c].fetch_add(1, Ordering::Relaxed);
                        if chunk_bounds(0, chunks, size, slow).start == c && launch % 3 == 0 {
                            std::thread::sleep(Duration::from_micros(200));
                        }
                    };
                    team.try_run(chunks, Schedule::Auto, &f)
                        .expect("the team is free");
                    for (c, r) in runs.iter().enumerate() {
                        assert_eq!(
                            r.load(Ordering::Relaxed),
                            1,
                            "size {size} chunks {chunks} chunk {c}"
                        );
                    }
                }
            }
        }
    }
}
