//! rokkos-rayon: the CPU-threads execution space.
//!
//! Work is cut into a fixed number of contiguous chunks (about four per worker, never smaller than
//! the policy's chunk size); each chunk runs the kernel's native body in a plain loop, so there is no
//! per-element dynamic call. Reductions fold per chunk and join the partial results in chunk order,
//! so a result is the same from run to run for a given thread count. Scans use two passes.
//! A launch with a single chunk runs on the calling thread.
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
use rokkos_core::host_iter::team_scratch_bytes;
use rokkos_core::kernel::{
    ForKernel, Kernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
};
use rokkos_core::{
    Error, ExecutionSpace, HostBackend, HostSpace, Launch, MDRangePolicy, RangePolicy, Reducer,
    Result, ScratchArena, ScratchPool, TeamLimits, TeamPolicy,
};
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Runs `f(c)` for every chunk `c` in `0..chunks`, in parallel (inline when there is one chunk).
    pub(crate) fn for_chunks(&self, chunks: usize, f: impl Fn(usize) + Sync + Send) {
        match chunks {
            0 => {}
            1 => f(0),
            _ => {
                let stop = Stop::default();
                let f = |c: usize| {
                    stop.run(|| f(c));
                };
                if let Some(team) = self.team() {
                    if team.try_run(chunks, &f).is_some() {
                        return;
                    }
                }
                self.install(|| (0..chunks).into_par_iter().for_each(f))
            }
        }
    }
    /// `f(c)` for every chunk, results in chunk order.
    pub(crate) fn map_chunks<V: Send>(
        &self,
        chunks: usize,
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
                if let Some(team) = self.team() {
                    let slots = Slots::new(chunks);
                    // SAFETY: the team runs each chunk once, and the slots are read after the
                    // launch.
                    let run = |c: usize| unsafe { slots.put(c, f(c)) };
                    if team.try_run(chunks, &run).is_some() {
                        return all(slots.into_vec());
                    }
                }
                all(self.install(|| (0..chunks).into_par_iter().map(f).collect()))
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
        pool: &ScratchPool,
        f: impl Fn(usize, &[ScratchArena; 2]) -> V + Sync + Send,
    ) -> Vec<V> {
        let first = self.map_chunks(chunks, |c| pool.with(|arenas| f(c, arenas)));
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// With fewer pairs of arenas than chunks running at once, the chunks that find none free run
    /// later: each chunk runs exactly once and the results stay in chunk order.
    #[test]
    fn team_chunks_without_a_free_pair_run_later_in_order() {
        let space = Rayon::with_threads(4).unwrap();
        let pool = ScratchPool::new("k", [8, 0], 1).unwrap();
        let runs: Vec<AtomicUsize> = (0..16).map(|_| AtomicUsize::new(0)).collect();
        let out = space.map_team_chunks(16, &pool, |c, _| {
            runs[c].fetch_add(1, Ordering::Relaxed);
            // Keeps the one pair lent while other chunks start.
            std::thread::sleep(std::time::Duration::from_millis(2));
            c * 10
        });
        assert_eq!(out, (0..16).map(|c| c * 10).collect::<Vec<_>>());
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }
}
