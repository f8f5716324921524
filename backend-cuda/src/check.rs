//! [`CudaCheck`]: an execution space that runs every launch on the IR evaluator (so a test body's
//! assertions hold as on `IrEval`) and, for every launch, also emits the CUDA C of that exact
//! launch variant, compiles it with NVRTC for `sm_90` and `sm_80` and assembles the PTX with
//! `ptxas -v`. Instantiating a test suite on it checks, on a machine without a GPU, that every
//! kernel the suite launches compiles for the GPUs it targets: a kernel NVRTC or ptxas refuses,
//! or one that spills registers where speed is the point (a kernel of [`NO_SPILL`], every team
//! kernel: [`must_not_spill`]), fails its launch with `Err(Compile)`.
//!
//! Each distinct variant (IR hash and emitter options) is compiled once per process. A construct
//! the emitter does not implement yet is not a failure of the check (the launch runs on the
//! evaluator): it is counted and named, so the log says what the CUDA backend still lacks. Each
//! new variant prints one line to the process's standard error (bypassing the test harness's
//! capture), ending with the running count.

use crate::compile::{compile_ptx, Arch};
use crate::emit::{emit, CudaOptions, EmitError, Entry, IndexWidth};
use rokkos_core::delegate::{For, Reduce, Scan};
use rokkos_core::ir::eval::{EvalMemory, IrEval};
use rokkos_core::kernel::{
    ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
};
use rokkos_core::{
    Error, ExecutionSpace, Launch, MDRangePolicy, RangePolicy, Reducer, Result, TeamLimits,
    TeamPolicy,
};
use rokkos_device::emit::inbounds::Proven;
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::prepare::KernelCache;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The architectures every kernel is compiled for.
pub const ARCHS: [Arch; 2] = [Arch::SM_90, Arch::SM_80];

/// Kernels whose speed is the point, the examples' (BabelStream's; the launch example's `for`,
/// reduction and scan; CG's and the stencils'): a register spill in one fails the check.
pub const NO_SPILL: &[&str] = &[
    "init",
    "copy",
    "mul",
    "add",
    "triad",
    "nstream",
    "dot",
    "empty",
    "increment",
    "sum",
    "prefix",
    "laplacian",
    "step_xr",
    "step_p",
    "jacobi2d",
    "jacobi3d",
];

/// Whether a register spill fails the variant: the examples' kernels ([`NO_SPILL`]) and every
/// team kernel (its shared-memory exchanges and shuffles are where the pattern's speed is
/// decided) that takes no function from the software math library. Spills elsewhere are logged:
/// large test kernels (a range reduction over a rank-4 View with three nested checked loops
/// spills 8 bytes on sm_90), and team kernels calling the library's double-double functions
/// (TOAST's `pixels_healpix_team` with f64 `atan2` spills 8 bytes on sm_90).
pub fn must_not_spill(kernel: &rokkos_core::ir::Kernel, opts: &CudaOptions) -> bool {
    NO_SPILL.contains(&kernel.name.as_str())
        || (opts.team.is_some() && !crate::emit::uses_math_library(kernel))
}

/// Threads per block of the checked variants: the launchers' own, so that the variants checked
/// are the ones launched.
const BLOCK: u32 = crate::runtime::run::BLOCK;

/// The checking space (see the module documentation). [`CudaCheck::new`] fails when NVRTC or
/// `ptxas` is missing.
#[derive(Clone, Debug)]
pub struct CudaCheck {
    ptxas: PathBuf,
}

/// What happened to one variant.
#[derive(Clone)]
enum Outcome {
    Compiled,
    NotEmitted(String),
    /// The log and the source.
    Failed(String, String),
}

#[derive(Default)]
struct Book {
    seen: HashMap<(u64, CudaOptions), Outcome>,
    compiled: usize,
    not_emitted: usize,
}

fn book() -> &'static Mutex<Book> {
    static BOOK: OnceLock<Mutex<Book>> = OnceLock::new();
    BOOK.get_or_init(Mutex::default)
}

fn kernels() -> &'static KernelCache {
    static KERNELS: OnceLock<KernelCache> = OnceLock::new();
    KERNELS.get_or_init(KernelCache::default)
}

/// Counts of this process so far: `(variants compiled and assembled, variants not emitted)`.
pub fn counts() -> (usize, usize) {
    let b = book().lock().unwrap_or_else(|e| e.into_inner());
    (b.compiled, b.not_emitted)
}

/// One line to the process's standard error, past the test harness's capture (which only takes
/// the print macros), so that the counts reach CI's log.
fn log(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

impl CudaCheck {
    /// The checking space; `Err(BackendUnavailable)` naming what is missing when NVRTC or `ptxas`
    /// is not installed.
    pub fn new() -> Result<CudaCheck> {
        crate::compile::nvrtc_version()?;
        Ok(CudaCheck {
            ptxas: crate::ptxas::find()?,
        })
    }

    /// Emits, compiles and assembles the variant of kernel `K` described by `opts`, once per
    /// process, in the index width the launcher would pick for these arguments and `bounds`
    /// (the policy's, as `runtime::run::index_width` takes them); when that is the 32-bit
    /// variant, the 64-bit one too (a larger launch of the same kernel takes it).
    /// `opts` is `Err(reason)` for a launch no CUDA C can be emitted for whatever the kernel
    /// (a reducer with no device join): that is counted as not emitted.
    fn check<K: KernelIr>(
        &self,
        kernel: &K,
        opts: std::result::Result<CudaOptions, String>,
        work: &[(usize, usize)],
        space: Work,
        bounds: &[u64],
    ) -> Result<()> {
        let unsupported = |m: String| Error::Unsupported {
            backend: "cuda".into(),
            feature: m,
        };
        let p = kernels().prepare(kernel, unsupported, |_| true)?;
        let opts = match opts {
            Ok(o) => o,
            Err(m) => {
                let (c, n) = {
                    let mut b = book().lock().unwrap_or_else(|e| e.into_inner());
                    b.not_emitted += 1;
                    (b.compiled, b.not_emitted)
                };
                log(&format!(
                    "cuda-check: `{}` not emitted as CUDA C: {m} ({c} kernels compiled so far, {n} not emitted)",
                    p.ir.name
                ));
                return Ok(());
            }
        };
        let opts = CudaOptions {
            in_bounds: p.proven(work),
            ..opts
        };
        let widths: &[IndexWidth] = match crate::runtime::run::index_width(&p, space, bounds) {
            IndexWidth::W32 => &[IndexWidth::W32, IndexWidth::W64],
            IndexWidth::W64 => &[IndexWidth::W64],
        };
        for &width in widths {
            self.check_variant(
                &p,
                CudaOptions {
                    width,
                    ..opts.clone()
                },
            )?;
        }
        Ok(())
    }

    /// [`CudaCheck::check`] of one variant.
    fn check_variant<M: rokkos_core::MemorySpace>(
        &self,
        p: &rokkos_device::runtime::prepare::Prepared<'_, M>,
        opts: CudaOptions,
    ) -> Result<()> {
        let key = (p.hash, opts.clone());
        if let Some(o) = book()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .seen
            .get(&key)
        {
            return match o {
                Outcome::Failed(m, src) => Err(compile_error(&p.ir.name, m.clone(), src.clone())),
                _ => Ok(()),
            };
        }
        let outcome = match emit(&p.ir, &p.info, &opts) {
            Err(EmitError::Unsupported(m)) => Outcome::NotEmitted(m),
            Err(EmitError::Mismatch(m)) => {
                Outcome::Failed(format!("emitter mismatch: {m}"), String::new())
            }
            Ok(src) => self.build(&p.ir.name, &src.source, must_not_spill(&p.ir, &opts)),
        };
        let mut b = book().lock().unwrap_or_else(|e| e.into_inner());
        match &outcome {
            Outcome::Compiled => b.compiled += 1,
            Outcome::NotEmitted(_) => b.not_emitted += 1,
            Outcome::Failed(..) => {}
        }
        let (c, n) = (b.compiled, b.not_emitted);
        b.seen.insert(key, outcome.clone());
        drop(b);
        match outcome {
            Outcome::Compiled => {
                log(&format!(
                    "cuda-check: `{}` ({}) compiled by NVRTC and assembled by ptxas for sm_90 \
                     and sm_80 ({c} kernels compiled so far, {n} not emitted)",
                    p.ir.name,
                    match opts.width {
                        IndexWidth::W32 => "32-bit indices",
                        IndexWidth::W64 => "64-bit indices",
                    }
                ));
                Ok(())
            }
            Outcome::NotEmitted(m) => {
                log(&format!(
                    "cuda-check: `{}` not emitted as CUDA C: {m} ({c} kernels compiled so far, {n} not emitted)",
                    p.ir.name
                ));
                Ok(())
            }
            Outcome::Failed(m, src) => Err(compile_error(&p.ir.name, m, src)),
        }
    }

    /// NVRTC and ptxas for every architecture of [`ARCHS`]; a refusal is a failure, and so is a
    /// spill in any of the module's entry points when `strict`.
    fn build(&self, name: &str, source: &str, strict: bool) -> Outcome {
        for arch in ARCHS {
            let ptx = match compile_ptx(source, name, arch) {
                Ok(p) => p,
                Err(e) => return Outcome::Failed(format!("NVRTC for {arch}: {e}"), source.into()),
            };
            let report = match crate::ptxas::assemble(&self.ptxas, &ptx, name, arch) {
                Ok(r) => r,
                Err(e) => return Outcome::Failed(format!("ptxas for {arch}: {e}"), source.into()),
            };
            if !report.iter().any(|f| f.name == crate::emit::entry::ENTRY) {
                return Outcome::Failed(
                    format!("ptxas reported no entry point for {arch}: {report:?}"),
                    source.into(),
                );
            }
            for f in report.iter().filter(|f| f.spills()) {
                if strict {
                    return Outcome::Failed(
                        format!("registers spill on {arch}: {f:?}"),
                        source.into(),
                    );
                }
                log(&format!(
                    "cuda-check: `{name}` spills registers on {arch}: {f:?}"
                ));
            }
        }
        Outcome::Compiled
    }
}

fn compile_error(kernel: &str, log: String, source_code: String) -> Error {
    Error::Compile {
        backend: "cuda".into(),
        kernel: kernel.to_string(),
        log,
        source_code,
    }
}

fn for_opts() -> std::result::Result<CudaOptions, String> {
    Ok(CudaOptions {
        entry: Entry::For,
        block: BLOCK,
        bounds_checks: true,
        joins: Vec::new(),
        in_bounds: Proven::NONE,
        team: None,
        width: IndexWidth::W64,
    })
}

/// The work range of a range launch (what `Prepared::proven` proves accesses over).
fn range_work<S: ExecutionSpace>(policy: &RangePolicy<S>) -> [(usize, usize); 1] {
    [(policy.begin(), policy.end())]
}

/// The work ranges of an MDRange launch, one per dimension.
fn md_work<S: ExecutionSpace, const N: usize>(policy: &MDRangePolicy<S, N>) -> Vec<(usize, usize)> {
    policy.begin().into_iter().zip(policy.end()).collect()
}

/// The work space of a range launch (see `runtime::run::index_width`).
fn range_space<S: ExecutionSpace>(policy: &RangePolicy<S>) -> Work {
    Work::range(policy.begin(), policy.end())
}

/// The work space of an MDRange launch.
fn md_space<S: ExecutionSpace, const N: usize>(policy: &MDRangePolicy<S, N>) -> Work {
    Work::md(&policy.begin(), &policy.end())
}

/// The work space of a team launch.
fn team_space<S: ExecutionSpace>(policy: &TeamPolicy<S>) -> Work {
    Work::team(
        policy.league_size() as u64,
        policy.team_size() as u64,
        policy.vector_len() as u64,
    )
}

/// The bounds of a range launch (see `runtime::run::index_width`).
fn range_bounds<S: ExecutionSpace>(policy: &RangePolicy<S>) -> [u64; 2] {
    [policy.begin() as u64, policy.end() as u64]
}

/// The bounds of an MDRange launch, with the tiles the launcher would take
/// (`for_mdrange::width_bounds`); a policy the launcher refuses has none, so the check falls
/// back to the 64-bit variant (the evaluator reports the refusal).
fn md_bounds<S: ExecutionSpace, const N: usize>(
    label: &str,
    policy: &MDRangePolicy<S, N>,
) -> Vec<u64> {
    let (begin, end) = (policy.begin(), policy.end());
    match rokkos_device::runtime::shape::mdrange_tiles(
        label,
        begin,
        end,
        policy.tiles(),
        BLOCK as usize,
    ) {
        Ok(tiles) => crate::for_mdrange::width_bounds(
            begin,
            end,
            &crate::for_mdrange::work_fields(begin, end, tiles),
        ),
        Err(_) => vec![u64::MAX],
    }
}

/// The bounds of a team launch (see `runtime::run::index_width`): the policy's sizes and each
/// level's whole scratch request (at least the arena the launcher splits from it).
fn team_bounds<S: ExecutionSpace>(policy: &TeamPolicy<S>) -> [u64; 6] {
    let arena = |l: usize| policy.scratch_bytes(l).map_or(u64::MAX, |b| b as u64);
    rokkos_device::emit::width::team_bounds(
        policy.league_size() as u64,
        policy.team_size() as u64,
        policy.vector_len() as u64,
        [arena(0), arena(1)],
    )
}

/// The team shape of `policy` (sizes past `u32` are refused by the emitter's block limit).
fn team_shape<S: ExecutionSpace>(policy: &TeamPolicy<S>) -> crate::emit::TeamShape {
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    crate::emit::TeamShape {
        team: clamp(policy.team_size()),
        vlen: clamp(policy.vector_len()),
    }
}

/// The reduction variant for reducer `r`'s joins: the ordered-partials entry for a reducer
/// whose join is host code (`rokkos_device::runtime::ordered`), as the launchers take it.
fn reduce_opts<V, Rd: Reducer<V>>(r: &Rd) -> std::result::Result<CudaOptions, String> {
    let (entry, joins) = match rokkos_core::reducer::describe_reducer::<V, Rd>(r) {
        Some(joins) => (Entry::Reduce, joins),
        None => (Entry::Ordered { left: false }, Vec::new()),
    };
    Ok(CudaOptions {
        entry,
        joins,
        ..for_opts()?
    })
}

/// Every launch is checked with the options its pattern takes (team launches with the policy's
/// team size and vector length); the emitter answers `Unsupported` for a construct it does not
/// implement yet, which is counted.
impl ExecutionSpace for CudaCheck {
    type Memory = EvalMemory;

    fn name(&self) -> &'static str {
        "cuda-check"
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) -> Result<()> {
        Ok(())
    }
    fn team_limits(&self) -> TeamLimits {
        IrEval.team_limits()
    }
    fn for_range<K>(&self, l: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = EvalMemory> + KernelIr,
    {
        self.check(
            l.kernel(),
            for_opts(),
            &range_work(l.policy()),
            range_space(l.policy()),
            &range_bounds(l.policy()),
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, For)
    }
    fn for_mdrange<const N: usize, K>(&self, l: Launch<'_, MDRangePolicy<Self, N>, K>) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = EvalMemory> + KernelIr,
    {
        self.check(
            l.kernel(),
            for_opts(),
            &md_work(l.policy()),
            md_space(l.policy()),
            &md_bounds(l.label(), l.policy()),
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, For)
    }
    fn for_team<K>(&self, l: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = EvalMemory> + KernelIr,
    {
        let opts = for_opts().map(|o| CudaOptions {
            team: Some(team_shape(l.policy())),
            ..o
        });
        self.check(
            l.kernel(),
            opts,
            &[],
            team_space(l.policy()),
            &team_bounds(l.policy()),
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, For)
    }
    fn reduce_range<K, Rd>(&self, l: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        self.check(
            l.kernel(),
            reduce_opts(r),
            &range_work(l.policy()),
            range_space(l.policy()),
            &range_bounds(l.policy()),
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, Reduce(r))
    }
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        l: Launch<'_, MDRangePolicy<Self, N>, K>,
        r: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        let (opts, bounds) = match reduce_opts(r) {
            // The ordered mode walks the host backends' tiles in the policy's order.
            Ok(
                o @ CudaOptions {
                    entry: Entry::Ordered { .. },
                    ..
                },
            ) => {
                let (tiles, work) = crate::reduce_mdrange::ordered_work(l.policy());
                let (b, e) = (l.policy().begin(), l.policy().end());
                let opts = CudaOptions {
                    entry: Entry::Ordered { left: tiles.left },
                    ..o
                };
                (Ok(opts), crate::for_mdrange::width_bounds(b, e, &work))
            }
            o => (o, md_bounds(l.label(), l.policy())),
        };
        self.check(
            l.kernel(),
            opts,
            &md_work(l.policy()),
            md_space(l.policy()),
            &bounds,
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, Reduce(r))
    }
    fn reduce_team<K, Rd>(&self, l: Launch<'_, TeamPolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        let opts = reduce_opts(r).map(|o| CudaOptions {
            team: Some(team_shape(l.policy())),
            ..o
        });
        self.check(
            l.kernel(),
            opts,
            &[],
            team_space(l.policy()),
            &team_bounds(l.policy()),
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, Reduce(r))
    }
    fn scan_range<K, Rd>(&self, l: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = EvalMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        // A join that is host code takes the ordered scan's slow path, as the launcher does.
        let opts = reduce_opts(r).map(|o| CudaOptions {
            entry: match o.entry {
                Entry::Ordered { .. } => Entry::OrderedScan,
                _ => Entry::Scan,
            },
            ..o
        });
        self.check(
            l.kernel(),
            opts,
            &range_work(l.policy()),
            range_space(l.policy()),
            &range_bounds(l.policy()),
        )?;
        let p = l.policy().with_space(&IrEval);
        l.delegate(&p, Scan(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module NVRTC refuses is a failure of the check (with the source), not a skip.
    #[test]
    fn a_refused_kernel_fails_the_check() {
        let Ok(space) = CudaCheck::new() else {
            if std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1") {
                panic!("ROKKOS_REQUIRE_NVRTC=1 but NVRTC or ptxas is missing");
            }
            return;
        };
        match space.build(
            "broken",
            "extern \"C\" __global__ void rk_main() { undeclared(); }",
            true,
        ) {
            Outcome::Failed(log, src) => {
                assert!(log.contains("NVRTC for sm_90"), "{log}");
                assert!(src.contains("undeclared"), "{src}");
            }
            _ => panic!("a kernel NVRTC refuses passed the check"),
        }
        assert!(matches!(
            space.build(
                "fine",
                "extern \"C\" __global__ void rk_main(float* x) { x[threadIdx.x] = 1.0f; }",
                true,
            ),
            Outcome::Compiled
        ));
    }
}
