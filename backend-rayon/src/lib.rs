//! rokkos-rayon: the CPU-threads execution space.
//!
//! Work is cut into a fixed number of contiguous chunks (about four per worker, never smaller than
//! the policy's chunk size; under `Schedule::Dynamic` chunks of the policy's chunk size, or about
//! sixteen per worker: `rokkos_core::host_iter::schedule_chunk_count`); each chunk runs the
//! kernel's native body in a plain loop, so there is no per-element dynamic call. The policy's
//! [`rokkos_core::Schedule`] says how chunks reach threads: `Auto`, each thread's own contiguous
//! block claimed chunk by chunk, then help with the others'; `Static`, one contiguous block per
//! thread decided up front and run whole; `Dynamic`, the next chunk from one shared counter.
//! Reductions fold per chunk and join the partial results in chunk order whichever thread ran
//! each chunk, so a result is the same from run to run for a given thread count, schedule and
//! chunk size. Scans use two passes, each over the chunks in any order, with every chunk's offset
//! joined in chunk order. A launch with a single chunk runs on the calling thread.
//!
//! Who runs the chunks: a launch from a thread outside any rayon pool (a program's main thread,
//! typically) goes to the space's *hot team* (`hot_team`): threads of its own, as many as the
//! space's concurrency counting the caller, that spin briefly between launches and then park, as
//! OpenMP's do, so that a small kernel costs about a microsecond instead of rayon's two thread
//! wake-ups. Team members claim contiguous runs of chunks, so a member that is late (descheduled on
//! a busy machine) finds the work done instead of holding the launch up. A launch from inside a rayon
//! pool (rokkos called from the user's own rayon code), or while another thread's launch holds the
//! team, runs on rayon's work-stealing pool instead, so nested parallelism composes as rayon's
//! does. Both paths cut the work into the same chunks and join the same partial results in the same
//! order, so which one ran never changes a result. A panic in a kernel body (a failing kernel: an
//! index out of bounds, an overflow) stops the launch from starting further chunks, and is
//! re-raised on the launching thread once every chunk has stopped; a chunk holds at most
//! [`rokkos_core::host_iter::MAX_CHUNK_ITEMS`] items unless the policy's chunk size asks for
//! more, so each thread runs at most one chunk after a failure.
//!
//! One file per (pattern, policy), named as in `rokkos-serial`.

#![warn(missing_docs)]

mod for_mdrange;
mod for_range;
mod for_team;
mod hot_team;
mod reduce_mdrange;
mod reduce_range;
mod reduce_team;
mod scan_range;

use hot_team::{HotTeam, Slots};
use rayon::prelude::*;
use rokkos_core::host_iter::{chunk_bounds, team_scratch_bytes};
use rokkos_core::kernel::{
    ForKernel, Kernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
};
use rokkos_core::{
    Error, ExecutionSpace, HostBackend, HostSpace, Launch, MDRangePolicy, RangePolicy, Reducer,
    Result, Schedule, ScratchArena, ScratchPool, TeamLimits, TeamPolicy,
};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

pub use hot_team::DEFAULT_SPIN_US;

/// The rayon execution space: the global rayon pool, or a pool of its own; each with a hot team
/// for launches from outside rayon (see the crate documentation).
///
/// ```
/// use rokkos_core::ExecutionSpace;
/// let r = rokkos_rayon::Rayon::with_threads(2).unwrap();
/// assert_eq!(r.concurrency(), 2);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Rayon {
    pool: Option<Arc<Pool>>,
}

/// A private pool and its hot team (started at the first launch that uses it).
#[derive(Debug)]
struct Pool {
    rayon: rayon::ThreadPool,
    team: OnceLock<Option<HotTeam>>,
}

/// The hot team of the global pool's spaces.
static GLOBAL_TEAM: OnceLock<Option<HotTeam>> = OnceLock::new();

impl Rayon {
    /// The space on rayon's global pool (sized by `RAYON_NUM_THREADS` or the core count).
    pub fn new() -> Self {
        Rayon { pool: None }
    }
    /// A space with a pool of its own of `threads` workers; `0` means rayon's default, as for
    /// rayon's `ThreadPoolBuilder::num_threads`: `RAYON_NUM_THREADS` when set, else the number of
    /// logical CPUs.
    ///
    /// ```
    /// use rokkos_core::ExecutionSpace;
    /// let default = rokkos_rayon::Rayon::with_threads(0).unwrap();
    /// assert!(default.concurrency() >= 1);
    /// ```
    pub fn with_threads(threads: usize) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("rokkos-rayon-{i}"))
            .build()
            .map_err(|e| Error::BackendUnavailable {
                backend: "rayon".into(),
                reason: e.to_string(),
            })?;
        Ok(Rayon {
            pool: Some(Arc::new(Pool {
                rayon: pool,
                team: OnceLock::new(),
            })),
        })
    }
    /// Runs `f` inside this space's pool.
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.rayon.install(f),
            None => f(),
        }
    }
    /// The hot team, when this launch may use it: the caller is outside every rayon pool (inside
    /// one, rayon's own scheduling composes with the caller's) and the team could be started.
    fn team(&self) -> Option<&HotTeam> {
        if rayon::current_thread_index().is_some() {
            return None;
        }
        let cell = match &self.pool {
            Some(p) => &p.team,
            None => &GLOBAL_TEAM,
        };
        cell.get_or_init(|| HotTeam::new(self.concurrency()))
            .as_ref()
    }
    /// Runs `f(c)` for every chunk `c` in `0..chunks`, in parallel (inline when there is one
    /// chunk), handing the chunks to threads as `schedule` says (see [`Rayon::run_chunks`]).
    pub(crate) fn for_chunks(
        &self,
        chunks: usize,
        schedule: Schedule,
        f: impl Fn(usize) + Sync + Send,
    ) {
        match chunks {
            0 => {}
            1 => f(0),
            _ => {
                let stop = Stop::default();
                let f = |c: usize| {
                    stop.run(|| f(c));
                };
                self.run_chunks(chunks, schedule, &f);
            }
        }
    }
    /// `f(c)` for every chunk, results in chunk order (which thread ran a chunk never changes
    /// where its result goes).
    pub(crate) fn map_chunks<V: Send>(
        &self,
        chunks: usize,
        schedule: Schedule,
        f: impl Fn(usize) -> V + Sync + Send,
    ) -> Vec<V> {
        match chunks {
            0 => Vec::new(),
            1 => vec![f(0)],
            _ => {
                let stop = Stop::default();
                let f = |c: usize| stop.run(|| f(c));
                let all = |v: Vec<Option<V>>| {
                    v.into_iter()
                        .map(|x| x.expect("a chunk is skipped only after another one panicked, and that panic is re-raised before the results are read"))
                        .collect()
                };
                if schedule == Schedule::Auto {
                    if let Some(team) = self.team() {
                        let slots = Slots::new(chunks);
                        // SAFETY: the team runs each chunk once, and the slots are read after
                        // the launch.
                        let run = |c: usize| unsafe { slots.put(c, f(c)) };
                        if team.try_run(chunks, schedule, &run).is_some() {
                            return all(slots.into_vec());
                        }
                    }
                    return all(self.install(|| (0..chunks).into_par_iter().map(f).collect()));
                }
                let slots = Slots::new(chunks);
                // SAFETY: `run_chunks` runs each chunk once and returns when all are done; the
                // slots are read after it returns.
                let run = |c: usize| unsafe { slots.put(c, f(c)) };
                self.run_chunks(chunks, schedule, &run);
                all(slots.into_vec())
            }
        }
    }
    /// Runs `f(c)` once for every chunk `c` in `0..chunks` on this space's threads and returns
    /// when all are done: on the hot team when it is free (see `hot_team`), else on rayon's pool.
    ///
    /// - [`Schedule::Auto`]: each thread claims the chunks of its own contiguous block one by
    ///   one, then those the others have not claimed yet (on rayon's pool: work stealing over the
    ///   chunks).
    /// - [`Schedule::Static`]: the chunks are cut into one contiguous block per thread before the
    ///   launch; a block runs whole, in chunk order, on one thread: its own, or, where that thread
    ///   has not started it by the time another one is done with its own (a parked or descheduled
    ///   thread), that one, so that no launch waits for an absent thread.
    /// - [`Schedule::Dynamic`]: every thread takes the next chunk from one shared counter until
    ///   none is left.
    fn run_chunks(&self, chunks: usize, schedule: Schedule, f: &(dyn Fn(usize) + Sync)) {
        if let Some(team) = self.team() {
            if team.try_run(chunks, schedule, f).is_some() {
                return;
            }
        }
        let workers = self.concurrency().clamp(1, chunks.max(1));
        match schedule {
            Schedule::Auto => self.install(|| (0..chunks).into_par_iter().for_each(f)),
            Schedule::Static => self.install(|| {
                (0..workers)
                    .into_par_iter()
                    .with_max_len(1)
                    .for_each(|p| chunk_bounds(0, chunks, workers, p).for_each(f))
            }),
            Schedule::Dynamic => {
                let next = AtomicUsize::new(0);
                self.install(|| {
                    (0..workers)
                        .into_par_iter()
                        .with_max_len(1)
                        .for_each(|_| loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= chunks {
                                break;
                            }
                            f(c);
                        })
                })
            }
        }
    }
}

/// A launch's stop flag: set by a chunk that unwinds (its kernel failed), read before each chunk
/// starts, so that a failing launch does not run the rest of its work before it reports.
#[derive(Default)]
struct Stop(AtomicBool);

impl Stop {
    /// `Some(f())`, or `None` without calling `f` once a chunk of this launch has unwound.
    #[inline]
    fn run<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        if self.0.load(Ordering::Relaxed) {
            return None;
        }
        /// Sets the flag when dropped by an unwinding chunk.
        struct OnUnwind<'a>(&'a AtomicBool);
        impl Drop for OnUnwind<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }
        let _guard = OnUnwind(&self.0);
        Some(f())
    }
}

impl Rayon {
    /// The scratch arenas of a team launch cut into `chunks`: a pair for each task that can run at
    /// once (one per worker; fewer when memory is short), made before any team runs, so that
    /// scratch that does not fit in memory fails the launch whole with `Err(OutOfMemory)` naming
    /// the kernel.
    pub(crate) fn scratch_pool<K: Kernel>(
        &self,
        policy: &TeamPolicy<Rayon>,
        chunks: usize,
    ) -> Result<ScratchPool> {
        let pairs = self.concurrency().min(chunks);
        ScratchPool::new(K::NAME, team_scratch_bytes(policy), pairs)
    }
    /// [`Rayon::map_chunks`] for team chunks: `f(c, arenas)` with a pair of arenas from `pool`.
    /// A chunk that finds every pair lent out (the pool is smaller than the worker count, or a
    /// kernel's nested rayon work made its worker start another chunk of the same launch) runs
    /// after the others, on the calling thread, once every pair is back: no arena is allocated
    /// after the launch started.
    pub(crate) fn map_team_chunks<V: Send>(
        &self,
        chunks: usize,
        schedule: Schedule,
        pool: &ScratchPool,
        f: impl Fn(usize, &[ScratchArena; 2]) -> V + Sync + Send,
    ) -> Vec<V> {
        let first = self.map_chunks(chunks, schedule, |c| pool.with(|arenas| f(c, arenas)));
        first
            .into_iter()
            .enumerate()
            .map(|(c, v)| {
                v.unwrap_or_else(|| {
                    pool.with(|arenas| f(c, arenas))
                        .expect("every pair is back in the pool once the chunks have joined")
                })
            })
            .collect()
    }
}

impl ExecutionSpace for Rayon {
    type Memory = HostSpace;

    fn name(&self) -> &'static str {
        "rayon"
    }
    fn concurrency(&self) -> usize {
        match &self.pool {
            Some(p) => p.rayon.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }
    fn fence(&self) -> Result<()> {
        Ok(())
    }
    fn team_limits(&self) -> TeamLimits {
        rokkos_core::host_iter::HOST_TEAM_LIMITS
    }
    fn for_range<K>(&self, launch: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = HostSpace> + KernelIr,
    {
        for_range::run(self, launch);
        Ok(())
    }
    fn for_mdrange<const N: usize, K>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
    ) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = HostSpace> + KernelIr,
    {
        for_mdrange::run(self, launch);
        Ok(())
    }
    fn for_team<K>(&self, launch: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = HostSpace> + KernelIr,
    {
        for_team::run(self, launch)
    }
    fn reduce_range<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(reduce_range::run(self, launch, reducer))
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(reduce_mdrange::run(self, launch, reducer))
    }
    fn reduce_team<K, Rd>(
        &self,
        launch: Launch<'_, TeamPolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        reduce_team::run(self, launch, reducer)
    }
    fn scan_range<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = HostSpace> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        Ok(scan_range::run(self, launch, reducer))
    }
}

// SAFETY: every pattern hands each chunk of indices, tiles or league ranks to exactly one task
// (`host_iter::chunk_bounds` cuts disjoint pieces), and all tasks finish before the pattern method
// returns (`for_chunks` / `map_chunks` join them). A scan runs its non-final pass over every chunk,
// joins, then its final pass: one index never runs in both passes at once. Each league rank gets
// its own `TeamMember` over its task's arenas.
unsafe impl HostBackend for Rayon {}

/// Folds partial results in order.
pub(crate) fn join_in_order<V, Rd: Reducer<V>>(reducer: &Rd, partials: Vec<V>) -> V {
    let mut acc = reducer.init();
    for p in partials {
        reducer.join(&mut acc, p);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::thread::ThreadId;
    use std::time::{Duration, Instant};

    /// Runs `f` on `space` both ways a launch can run: on the hot team (from this thread, outside
    /// every pool) and on rayon's pool (from inside it).
    fn both_paths(space: &Rayon, f: impl Fn() + Sync + Send) {
        f();
        space.install(&f);
    }

    /// Under `Schedule::Dynamic` the chunks go to whichever thread is free: chunk 0 does not
    /// finish until every other chunk has run, which only another thread can do while it waits,
    /// and the other chunks all ran on a thread other than chunk 0's. (Under a static split the
    /// chunks after 0 in its block would wait for it forever.) A wait past a minute is reported
    /// as the failure it would be, not timed.
    #[test]
    fn dynamic_chunks_go_to_whichever_thread_is_free() {
        let space = Rayon::with_threads(2).unwrap();
        let chunks = 16;
        both_paths(&space, || {
            let done = AtomicUsize::new(0);
            let ran_on: Vec<Mutex<Option<ThreadId>>> =
                (0..chunks).map(|_| Mutex::new(None)).collect();
            space.for_chunks(chunks, Schedule::Dynamic, |c| {
                if c == 0 {
                    let start = Instant::now();
                    while done.load(Ordering::Acquire) < chunks - 1 {
                        assert!(
                            start.elapsed() < Duration::from_secs(60),
                            "no other thread claimed the remaining chunks"
                        );
                        std::thread::yield_now();
                    }
                }
                *ran_on[c].lock().unwrap() = Some(std::thread::current().id());
                done.fetch_add(1, Ordering::Release);
            });
            let ids: Vec<ThreadId> = ran_on
                .iter()
                .map(|m| m.lock().unwrap().expect("ran"))
                .collect();
            assert!(ids[1..].iter().all(|&t| t != ids[0]), "{ids:?}");
        });
    }

    /// Under `Schedule::Static` each thread's chunks are whole blocks of the up-front split (one
    /// contiguous block per thread), each run in chunk order; every chunk runs once.
    #[test]
    fn static_blocks_run_whole_and_in_order() {
        let space = Rayon::with_threads(2).unwrap();
        for chunks in [2usize, 3, 16, 33] {
            both_paths(&space, || {
                let per_thread: Mutex<HashMap<ThreadId, Vec<usize>>> = Mutex::default();
                space.for_chunks(chunks, Schedule::Static, |c| {
                    // Uneven work, so that a thread done early would steal if it could.
                    if c % 2 == 1 {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    per_thread
                        .lock()
                        .unwrap()
                        .entry(std::thread::current().id())
                        .or_default()
                        .push(c);
                });
                let blocks: Vec<_> = (0..2).map(|p| chunk_bounds(0, chunks, 2, p)).collect();
                let mut seen = vec![0usize; chunks];
                for list in per_thread.into_inner().unwrap().values() {
                    let mut at = 0;
                    while at < list.len() {
                        let b = blocks
                            .iter()
                            .find(|b| b.start == list[at])
                            .unwrap_or_else(|| panic!("{list:?} starts a run inside a block"));
                        assert_eq!(&list[at..at + b.len()], &b.clone().collect::<Vec<_>>()[..]);
                        at += b.len();
                    }
                    list.iter().for_each(|&c| seen[c] += 1);
                }
                assert!(seen.iter().all(|&n| n == 1), "{chunks} chunks: {seen:?}");
            });
        }
    }

    /// Whatever the schedule, `map_chunks` runs each chunk once and returns the results in chunk
    /// order (what keeps a reduction's join order fixed), and a launch of 0 or 1 chunk runs
    /// inline.
    #[test]
    fn every_schedule_keeps_results_in_chunk_order() {
        let space = Rayon::with_threads(3).unwrap();
        for schedule in [Schedule::Auto, Schedule::Static, Schedule::Dynamic] {
            for chunks in [0usize, 1, 2, 7, 100] {
                both_paths(&space, || {
                    let runs: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
                    let out = space.map_chunks(chunks, schedule, |c| {
                        runs[c].fetch_add(1, Ordering::Relaxed);
                        c * 3 + 1
                    });
                    assert_eq!(out, (0..chunks).map(|c| c * 3 + 1).collect::<Vec<_>>());
                    assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
                });
            }
        }
    }

    /// A panicking chunk under `Dynamic` or `Static` is re-raised on the launching thread once
    /// every thread has stopped, and no chunk runs twice (how many run after the failure depends
    /// on how fast the other threads are, so it is not asserted here).
    #[test]
    fn a_failing_chunk_is_re_raised_under_every_schedule() {
        let space = Rayon::with_threads(2).unwrap();
        for schedule in [Schedule::Static, Schedule::Dynamic] {
            let runs: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                space.for_chunks(1000, schedule, |c| {
                    runs[c].fetch_add(1, Ordering::Relaxed);
                    assert_ne!(c, 0, "chunk 0 fails");
                })
            }));
            let msg = r.expect_err("the failure is re-raised");
            let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains("chunk 0 fails"), "{schedule:?}: {msg}");
            assert_eq!(runs[0].load(Ordering::Relaxed), 1, "{schedule:?}");
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) <= 1),
                "{schedule:?}"
            );
        }
    }

    /// With fewer pairs of arenas than chunks running at once, the chunks that find none free run
    /// later: each chunk runs exactly once and the results stay in chunk order.
    #[test]
    fn team_chunks_without_a_free_pair_run_later_in_order() {
        let space = Rayon::with_threads(4).unwrap();
        let pool = ScratchPool::new("k", [8, 0], 1).unwrap();
        let runs: Vec<AtomicUsize> = (0..16).map(|_| AtomicUsize::new(0)).collect();
        let out = space.map_team_chunks(16, Schedule::Auto, &pool, |c, _| {
            runs[c].fetch_add(1, Ordering::Relaxed);
            // Keeps the one pair lent while other chunks start.
            std::thread::sleep(std::time::Duration::from_millis(2));
            c * 10
        });
        assert_eq!(out, (0..16).map(|c| c * 10).collect::<Vec<_>>());
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }
}
