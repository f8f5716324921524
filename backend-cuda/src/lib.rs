//! rokkos-cuda: the CUDA execution space, on the driver API and NVRTC through cudarc, both loaded
//! at run time: the crate builds, and every call answers `Err(BackendUnavailable)` naming what is
//! missing, on a machine without CUDA.
//!
//! **Phase A**: the runtime. [`Cuda`] is a stream on a device
//! (`Cuda::new()`, `Cuda::with_device(n)`, [`DEVICE_ENV`]); several instances on one device have
//! their own streams ([`Cuda::partition`], Kokkos' `partition_space`) and are fenced on their own.
//! [`CudaSpace`] is device memory with the whole View API (allocation zero-filled, copies ordered
//! on the space's stream, device-to-device copies, host mirrors in pinned memory). CUDA C is
//! compiled by NVRTC for the device's own architecture ([`compile`]) with the kernel cache in
//! memory and on disk ([`compile::CACHE_DIR_ENV`]). [`ptxas`] assembles NVRTC's PTX with the
//! `ptxas` tool to check generated kernels (registers, spills) on a machine without a GPU.
//!
//! **Phase B, so far**: the CUDA C emitter ([`emit`]), a target of the walk shared with the WGSL
//! writer (`rokkos_device::emit`): `parallel_for` and `parallel_reduce` (every reducer, two passes)
//! over Range and MDRange, `parallel_scan` over a range, atomics on every element type, the IR's
//! integer, float, cast and bounds-check semantics. [`check::CudaCheck`] compiles every kernel a
//! test suite launches with NVRTC and ptxas (no GPU needed).
//!
//! `Cuda` is an [`ExecutionSpace`]: `parallel_for` over Range and MDRange, `parallel_reduce`
//! over both (to a host value, blocking; into a device View, asynchronous) and `parallel_scan`
//! over a range (the total to the host), one file per (pattern, policy) with the runtime beside
//! them. Range kernels run a grid-stride loop over the blocks the device keeps resident (SMs ×
//! the occupancy calculator's blocks per SM, never more than the range needs); MDRange tiles
//! follow the rule every device backend shares (`rokkos_device::runtime::shape`). Each variant
//! (IR hash and launch options) is emitted once per process and compiled once per device (and
//! on disk). A View of another device is `Err(InvalidArgument)` naming it. A failing kernel
//! (index out of bounds, division by zero, overflow in a debug build, ...) records its first
//! failure on the device; the launching thread's next fence, host read or blocking result
//! returns it as `Err(OutOfBounds)` / `Err(KernelFailed)`, with the wgpu backend's semantics
//! (`rokkos_device::runtime::errors`).
//!
//! Limits and early stop (`rokkos_device::runtime::limits`, shared with rokkos-wgpu): a launch runs
//! at most 2^40 range indices or MDRange points and at most 2^31 - 1 teams; the grid is the
//! resident blocks, or more where a thread (a block, for teams) would otherwise run more than
//! 2^24 items (teams) one after another, and a launch that cannot have that many in flight (a
//! level-1 scratch request that leaves a block or two) is refused. Past a limit the launch is
//! `Err(InvalidPolicy)` naming it, before anything is compiled or launched. Every loop of the
//! entry points (grid-stride trips, MDRange tiles and points, league iterations, scan and
//! ordered blocks) reads the launch's error record (a volatile load) as a trip starts and
//! leaves after it once a failure is recorded; the league loop does so through shared memory,
//! so that its `__syncthreads` stay uniform, and a block that starts after the failure runs no
//! team. A launch failing at its first item thus returns its `Err` after about one trip per
//! thread in flight (on the emulator, a league of 2^31 - 1 teams failing at team 0 in 0.5 s).
//! Allocations past the device's total memory are `Err(OutOfMemory)` before the driver is
//! asked; the driver's own `CUDA_ERROR_OUT_OF_MEMORY` is `Err(OutOfMemory)` too.
//!
//! Team policies: `for_team` / `reduce_team`, launching what `emit::team` writes as
//! `emit::TeamLaunch` says (not yet run on a GPU).
//!
//! Math: CUDA's own functions where the CUDA Math API documents them within the 1-ulp contract
//! (and f32 functions through CUDA's f64 ones, rounded once); the f64 `sin cos tan asin acos atan
//! atan2 sinh powf hypot`, which CUDA documents at 2 ulp, come from the software library of the
//! GPU targets (`rokkos_device::emit::softmath`, written once as IR; its functions are emitted
//! as the kernel's own helper functions are; tested on the host against Rust's `std` and compiled
//! by NVRTC and ptxas in `tests/math_host.rs`).
//!
//! Atomics on u8/u16/i8/i16 Views act on the aligned 32-bit word holding the element (a
//! compare-and-swap loop that replaces only its bits, or CUDA's word-wide and/or/xor; see
//! `emit::atomic`, tested on the host in `tests/narrow_atomics_host.rs`); allocations are whole
//! 8-byte words, so that word is always inside the View's buffer.
//!
//! User-defined (`Custom`) reducers (their join is host code) run over Range and MDRange
//! policies in the ordered-partials mode (`rokkos_device::runtime::ordered`): at most 64 Ki
//! contiguous blocks of work items in the policy's iteration order (an MDRange's runs of the
//! host backends' tiles), one thread folding each (`emit::entry::ordered`), the partials joined
//! in order on the host, so that a join that is associative but not commutative gives the
//! serial result. It is the slow path (uncoalesced loads, a blocking launch, a sequential host
//! join), and it is compiled by NVRTC and ptxas but has not run on a GPU yet. Over a
//! `TeamPolicy` each block runs a contiguous block of league ranks and stores one partial per
//! thread, joined on the host league block by league block, thread by thread
//! (`ordered::team_blocks`: serial's result when one thread per team writes the accumulator, in
//! a `single_team` or under `team_rank() == 0`; with teams of several threads or lanes any
//! other such kernel is `Err(Unsupported)`, `team_order::check`); a scan
//! with such a reducer folds each block, joins the block prefixes on the host, writes them over
//! the partials and replays each block from its prefix (`scan_range`, `emit::entry::ordered_scan`).
//!
//! Not yet: a release-mode switch for the bounds checks (always on).
//!
//! # Ordering and safety
//!
//! Every operation of a space is enqueued on its stream. A buffer used by two streams is ordered
//! between them on the device (see `runtime::memory`): a kernel or copy that writes it waits for the
//! other streams' earlier uses, one that reads it for their earlier writes, and its memory is freed
//! only after every stream's last use. Host reads and writes (`deep_copy` to or from a host View)
//! wait for their copy before returning. Raw device pointers never reach safe public API.
//!
//! # Floating point
//!
//! NVRTC compiles with IEEE division and square root, denormals kept, and without contracting
//! `a * b + c` into a fused multiply-add, so kernels compute what Rust computes (see
//! [`compile::NVRTC_OPTIONS`]).

#![warn(missing_docs)]

pub mod check;
pub mod emit;
mod for_mdrange;
mod for_range;
mod for_team;
pub mod ptxas;
mod reduce_mdrange;
mod reduce_range;
mod reduce_team;
mod runtime;
mod scan_range;

pub use runtime::device::{DeviceInfo, DEVICE_ENV};
pub use runtime::memory::{CudaBuffer, CudaSpace};

/// Compiling CUDA C with NVRTC (no GPU needed) and the on-disk kernel cache.
pub mod compile {
    pub use crate::runtime::cache::{cubin, nvrtc_compiles, CACHE_DIR_ENV};
    pub use crate::runtime::compile::{compile_ptx, nvrtc_version, Arch, NVRTC_OPTIONS};
}

use rokkos_core::{ExecutionSpace, Result, TeamLimits};
use runtime::device::{self as dev, Instance};
use std::sync::Arc;

/// The CUDA execution space: a cheap handle to one stream on one device.
///
/// ```no_run
/// let gpu = rokkos_cuda::Cuda::new()?; // Err(BackendUnavailable) without libcuda, NVRTC or a GPU
/// let [a, b] = <[rokkos_cuda::Cuda; 2]>::try_from(gpu.partition(2)?).unwrap();
/// a.fence()?; // waits for a's stream only
/// # Ok::<(), rokkos_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Cuda {
    inst: Arc<Instance>,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cuda({:?})", self.inst)
    }
}

impl Cuda {
    /// The default instance of the device [`DEVICE_ENV`] names (0 when unset). Every call returns
    /// a handle to the same stream, as every `Kokkos::Cuda()` names the default instance.
    pub fn new() -> Result<Cuda> {
        Cuda::with_device(dev::default_ordinal()?)
    }
    /// The default instance of device `ordinal`; `Err(BackendUnavailable)` when the driver or
    /// NVRTC is missing, there is no device, or `ordinal` is not one.
    pub fn with_device(ordinal: usize) -> Result<Cuda> {
        let inst = dev::device(ordinal)?.default_instance()?;
        Ok(Cuda { inst })
    }
    /// `n` new instances on this device, each with a stream of its own (Kokkos'
    /// `partition_space`): work on them runs concurrently, and each is fenced on its own.
    pub fn partition(&self, n: usize) -> Result<Vec<Cuda>> {
        (0..n)
            .map(|_| {
                Ok(Cuda {
                    inst: self.inst.device.new_instance()?,
                })
            })
            .collect()
    }
    /// Backend name.
    pub fn name(&self) -> &'static str {
        "cuda"
    }
    /// Waits for all work submitted to this instance's stream (not other instances').
    pub fn fence(&self) -> Result<()> {
        self.inst.fence()
    }
    /// The memory space whose copies are ordered on this instance's stream.
    pub fn memory_space(&self) -> CudaSpace {
        CudaSpace {
            inst: Ok(self.inst.clone()),
        }
    }
    /// What launches know of the device.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.inst.device.info
    }
    /// Whether `other` is a handle to the same stream.
    pub fn same_instance(&self, other: &Cuda) -> bool {
        Arc::ptr_eq(&self.inst, &other.inst)
    }
}

// The pattern methods (`device_launches!`, shared with rokkos-wgpu) check the policy against what
// a device launch may run and hand it and the kernel to the file of that (pattern, policy).
impl ExecutionSpace for Cuda {
    type Memory = CudaSpace;

    fn name(&self) -> &'static str {
        "cuda"
    }
    fn concurrency(&self) -> usize {
        let i = &self.inst.device.info;
        i.sm_count as usize * i.max_threads_per_sm as usize
    }
    fn fence(&self) -> Result<()> {
        self.inst.fence()
    }
    fn memory_space(&self) -> CudaSpace {
        Cuda::memory_space(self)
    }
    fn team_limits(&self) -> TeamLimits {
        // Block = vector lanes x team threads, level-0 scratch in shared memory (`for_team`).
        let i = &self.inst.device.info;
        let max = (i.max_threads_per_block as usize).max(1);
        TeamLimits {
            team_size_max: max,
            team_size_auto: 128.min(max),
            vector_length_max: (i.warp_size as usize).clamp(1, max),
            scratch_max: [
                i.shared_per_block_optin,
                i.total_memory.min(u32::MAX as usize),
            ],
        }
    }
    /// The space's limits for the policy's vector length and scratch, with a team's lanes
    /// counted as threads of its block, lowered until the level-0 scratch (rounded to 8 bytes as
    /// the launch rounds it) fits the device's shared memory per block. Registers never lower it:
    /// every team kernel is compiled with `__launch_bounds__(team size x vector length)`, so
    /// NVRTC fits the kernel's registers to its block (spilling if it must) and a block of that
    /// size always launches. The shared memory a kernel declares of its own (the stop flags, the
    /// exchange words of team broadcasts and nested reductions, a team reduction's tree) is what
    /// the kernel's module for that team size declares, as the launch counts it, so that a launch
    /// at the answer passes the launch's own check and one thread more does not. For the reduction
    /// pattern that is the launch of a built-in reducer, with its tree; a custom reducer's launch
    /// (partials in global memory) declares less, so its answer may be below the largest team
    /// that would launch.
    fn team_size_max_for(
        &self,
        label: &str,
        policy: &rokkos_core::TeamPolicy<Self>,
        kernel: Option<&rokkos_core::ir::Kernel>,
        pattern: rokkos_core::TeamPattern,
    ) -> Result<usize> {
        let max = policy.team_size_max_in_limits(label, true)?;
        let optin = self.inst.device.info.shared_per_block_optin as u64;
        let r = policy.scratch_requests()[0];
        let v = policy.vector_len();
        // Validated once: the search below emits the kernel for each team size it tries.
        let kernel = kernel.and_then(|k| Some((k, rokkos_core::ir::valid::validate(k).ok()?)));
        let fits = |t: usize| -> bool {
            let split = rokkos_device::emit::team::level0_split(
                kernel.as_ref().map(|(k, _)| *k),
                r.per_team as u64,
                r.per_thread as u64,
                t as u64,
            );
            let own = kernel
                .as_ref()
                .and_then(|(k, info)| own_shared_bytes(k, info, pattern, t, v));
            split
                .and_then(|(tp, tq)| emit::TeamLaunch::dynamic_shared_bytes(tp, tq, t as u64))
                .zip(own)
                .and_then(|(b, own)| (b as u64).checked_add(own))
                .is_some_and(|b| b <= optin)
        };
        rokkos_device::runtime::limits::largest_fitting(max, fits).ok_or_else(|| {
            rokkos_core::Error::InvalidPolicy {
                label: label.to_string(),
                reason: format!(
                    "no team fits the device's {optin} bytes of shared memory per block with this level-0 scratch"
                ),
            }
        })
    }
    rokkos_device::device_launches!(memory = CudaSpace, runtime = inst);
}

/// The shared memory team kernel `k` declares itself in a block of `team` threads of `vlen` lanes,
/// as its launch counts it: the module's static shared memory (the stop flags, the exchange
/// words), emitted for that shape, and for the reduction pattern the team reduction's tree, a
/// partial of each accumulator field per thread of the block (`emit::team`). `None` when the
/// kernel cannot be emitted for that shape (its launch fails too). `info` is `k` validated.
fn own_shared_bytes(
    k: &rokkos_core::ir::Kernel,
    info: &rokkos_core::ir::valid::KernelInfo,
    pattern: rokkos_core::TeamPattern,
    team: usize,
    vlen: usize,
) -> Option<u64> {
    let shape = emit::TeamShape {
        team: u32::try_from(team).ok()?,
        vlen: u32::try_from(vlen).ok()?,
    };
    let reduce = pattern == rokkos_core::TeamPattern::Reduce && !k.acc_fields().is_empty();
    let opts = emit::CudaOptions {
        // The ordered entry needs no joins and declares what the tree entry declares but the
        // tree, which is added below.
        entry: if reduce {
            emit::Entry::Ordered { left: false }
        } else {
            emit::Entry::For
        },
        block: runtime::run::BLOCK,
        bounds_checks: true,
        joins: vec![],
        in_bounds: Default::default(),
        team: Some(shape),
        width: emit::IndexWidth::W64,
    };
    let declared = emit::emit(k, info, &opts).ok()?.team?.static_shared_bytes as u64;
    let tree = if reduce {
        let threads = emit::team::dims(k, info, shape).ok()?.wg() as u64;
        let per: u64 = k
            .acc_fields()
            .iter()
            .map(|(_, t)| t.size().max(1) as u64)
            .sum();
        threads.checked_mul(per)?
    } else {
        0
    };
    declared.checked_add(tree)
}
