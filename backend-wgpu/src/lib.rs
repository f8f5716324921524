//! rokkos-wgpu: the wgpu execution space. Kernels run as WGSL compute shaders generated from their
//! IR (`rokkos_core::ir`), on any adapter wgpu finds (Vulkan, Metal, DX12; lavapipe in CI).
//!
//! # Mapping
//!
//! - **Code**: [`emit`] walks the validated IR once and writes one WGSL module per (kernel, entry
//!   point, workgroup size, reducer joins); no kernel has hand-written WGSL. Semantics follow the
//!   reference evaluator (`rokkos_core::ir::eval`) exactly: integer overflow fails or wraps as the
//!   kernel's crate's build mode says (see *Failures* below), Rust `as` casts between every pair of
//!   scalar types (widening by the source's signedness, saturating float to integer, NaN to 0),
//!   Rust's `min`/`max`/`clamp`/`signum`/`round`/`fract`/`powi`. Compiled pipelines are cached in memory by the IR's `stable_hash` and options,
//!   and, where the adapter has PIPELINE_CACHE (Vulkan), the driver's compiled code persists on
//!   disk per adapter ([`CACHE_DIR_ENV`]), so a later process does not compile a kernel again.
//! - **Bindings** (group 0): binding 0 the parameter block, 1 the out-of-bounds record, then one
//!   `array<T>` per View parameter (one per chunk of a View larger than a storage binding: see
//!   *Requirements* below) (`read` or `read_write`; `atomic<u32>`/`atomic<i32>` when the View
//!   is used atomically), then the output buffers of reductions/scans.
//! - **Parameters**: scalars, each View's offset/extents/strides, the work bounds and the initial
//!   accumulator values live in one uniform struct (constant memory on GPUs) whose layout
//!   [`params::params_layout`] computes for both the emitter and the launcher. One compiled kernel
//!   therefore serves every shape and every layout (LayoutLeft/Right/Stride, subviews with offsets).
//!   The block of a kernel that cannot record an error stays resident on the device, so launching
//!   it again with the same arguments writes nothing before the dispatch.
//!   When every View argument's elements lie below element 2^32 of its buffer, a variant with 32-bit
//!   address arithmetic is used (index checks stay 64-bit and exact).
//! - **Work**: a range is a grid-stride loop over at most 2^24 invocations (workgroups of 256,
//!   folded into a 2-D grid past 65535 groups); an MDRange tile is one workgroup at a time, the
//!   tiles strided over at most 2^24 invocations' workgroups; `parallel_reduce` folds per
//!   invocation (grid-stride over at most 1024 workgroups), joins in a workgroup tree in workgroup memory with the reducer's
//!   [`rokkos_core::reducer::JoinKind`] spelled in WGSL (commutative and associative on NaN and
//!   signed zeros too, so the result does not depend on the grid: see `rokkos_core::reducer`).
//!   The per-workgroup partials (of any
//!   reduction: range, MDRange tiles, teams) are joined by a small partials-join module with the
//!   same joins: down to 1024 for the host, which joins those with the reducer itself, or, for
//!   `parallel_reduce_into` a View of this space, into the View's element on the device, so that
//!   call returns without waiting. `parallel_scan` is reduce-then-scan: pass 1 block totals, host
//!   exclusive scan of the totals, pass 2 rescans each block from its prefix and calls the body
//!   with `final == true` exactly once per index (no forward-progress assumption).
//! - **Teams** ([`emit::team`]): one workgroup per team of `team_size × vector_length` invocations
//!   (team rank = local index / vector length, lane = local index % vector length); the league is
//!   looped over the dispatched workgroups (at most 2^24 invocations' worth, folded into a 2-D
//!   grid past 65535; at most 1024 for `reduce_team`). `TeamThreadRange`
//!   / `ThreadVectorRange` / `TeamVectorRange` split their indices across threads / lanes / both
//!   (code outside vector ranges runs on every lane, as in Kokkos on GPUs, so a kernel in which
//!   that could differ from the host's lanes-in-order, such as a store or an atomic there, runs
//!   with virtual lanes, below); team-wide reductions,
//!   scans (two passes over contiguous chunks, the total to every thread), broadcasts and
//!   `single(PerTeam)` results go through workgroup memory between `workgroupBarrier`s, reached in
//!   uniform control (the IR validator guarantees it; nested and `single` bodies are functions of
//!   their own, the kernel's locals module-scope private variables). A kernel with a
//!   `ThreadVectorRange` reduction or scan or a `single(PerThread)` result, or whose lanes are not
//!   independent (`rokkos_core::ir::valid::lanes_independent`: each lane must write its own
//!   elements), runs with *virtual* lanes instead: one invocation per thread, vector ranges
//!   sequential in it (`vector_length()` still reports the policy's). `team_barrier` is `storageBarrier` + `workgroupBarrier`.
//!   Scratch level 0 is a workgroup array and level 1 a storage buffer of (workgroups) × (bytes per
//!   team), both sized per launch (a pipeline per size); team scratch comes out of the policy's
//!   per-team bytes and each thread's out of its per-thread bytes (the whole reservation when the
//!   kernel only uses one scope at that level, as the evaluator does). An allocation past its pool
//!   records an error and the fence answers `Err(KernelFailed)` with the evaluator's message.
//!   `team_size × vector_length` above the workgroup limit, or workgroup memory (level-0 scratch +
//!   12 bytes per invocation + a team reduction's tree) above the device's, is `Err(InvalidPolicy)`.
//! - **Bounds**: every View access is checked against the extents; a violation records the
//!   launch's first failing access in that launch's own error record on the device and skips the
//!   access (loads yield 0). The host reports it as `Err(OutOfBounds)` at the next fence, host read
//!   (`read_bytes`, hence `deep_copy`), or blocking reduce/scan result of the thread that launched
//!   the kernel, whichever thread's synchronisation read it (each thread sees the errors of its
//!   own kernels; a thread with several gets the first one read). There are 64 records: a 65th
//!   launch able to fail with none read in between first submits and reads the others.
//! - **Limits and early stop** (`rokkos_device::runtime::limits`, shared with rokkos-cuda): a launch
//!   runs at most 2^40 range indices or MDRange points and at most 2^31 - 1 teams, none of its
//!   workgroups more than 2^24 items or teams one after another; past that the launch is
//!   `Err(InvalidPolicy)` naming the limit, before anything is compiled or dispatched (and a
//!   grid the device cannot dispatch stays `Err(Unsupported)`: an MDRange of more than 2^32
//!   tiles). Every loop of the entry points (grid-stride trips, MDRange tiles and points, league
//!   iterations, ordered blocks) reads the launch's error record as a trip starts and leaves
//!   after it once a failure is recorded (the league loop through workgroup memory, so that its
//!   barriers stay uniform; a workgroup that starts after the failure runs no team), and the
//!   scan's one-item invocations skip their item: a launch that fails at its first item returns
//!   its `Err` after about one trip per invocation in flight, not after the whole policy
//!   (measured on lavapipe: a league of 2^31 - 1 teams failing at team 0 reports in 0.7 s).
//!   Kernels that cannot fail have no such reads.
//! - **Memory** (`runtime::budget`): an allocation either exists, all its buffers, or is
//!   `Err(OutOfMemory)` naming the View and its bytes at once. The device counts the bytes its
//!   Views hold and refuses one that would pass the adapter's memory ([`Wgpu::device_memory`]:
//!   the largest device-local heap its Vulkan driver reports, the host's memory for a CPU
//!   adapter) before making any buffer; wgpu is
//!   asked to refuse a buffer past the driver's memory budget, and each buffer is made under
//!   error scopes, the first refused one destroying those already made.
//! - **Asynchrony**: launches are encoded into a pending command encoder held by the device context.
//!   When the queue is idle it is submitted at once; while earlier work runs, dispatches accumulate
//!   (up to 32) into one submission. A fence, a host read or a blocking result submits what is
//!   pending together with the copy of the out-of-bounds record and waits once: one round trip.
//!   The wait polls the queue for up to [`SPIN_ENV`] microseconds (1000 on a GPU) before it
//!   blocks in the driver.
//! - **Floating point**: IEEE binary32/binary64 as in Rust, with four caveats that come from
//!   the adapter, not from rokkos. First, **the adapter's shader compiler treats the kernel's own
//!   float arithmetic as relaxed**: naga's SPIR-V (and WGSL itself) carries no `NoContraction`
//!   or float-controls mode that would forbid it, so the driver applies real-number algebra
//!   (on lavapipe, Mesa NIR's "inexact" algebraic rules, all measured) to `+ - *` with an
//!   operand it knows as a constant (a literal, a local bound to one, a loop counter after
//!   unrolling) or with identical operands: constants of a chain are combined first
//!   (`(x + c1) - c2` as `x + (c1 - c2)`, `(x * 3.0) * 0.1` as `x * 0.3`), `x * 0.0` is `0.0`,
//!   `x - x` is `0.0`, `x + 0.0` is `x`, `x * 1.0` is `x`. Such a result may differ from Rust's
//!   in its rounding (1 ulp of a sum, unbounded when the reassociated terms cancel:
//!   `(x + 1e16) - 1e16` is `x` on wgpu and `0.0` for `x = 1.0` in Rust), in the sign of a zero
//!   (`-(c1 * (s * c2))` whose product underflows), and in infinities and NaN the rewritten form
//!   drops (`inf * 0.0` and `NaN - NaN` give `0.0`, `(x * 1e300) * 1e-300` does not overflow).
//!   No WGSL spelling stops it without making every such operation slower (an opaque identity
//!   on the bits per operand); the code rokkos generates itself (the math library, `%`,
//!   `mul_add`, `min`/`max`/`clamp`, `is_nan`/`is_finite`, casts, reductions' joins) is written
//!   so that these rules cannot change it. A kernel that needs Rust's results bit for bit from
//!   float arithmetic on constants must run on a host backend (or keep constants in kernel
//!   arguments: a scalar argument is a run-time value the compiler cannot fold). Second, the
//!   GPU compiler may fuse `a * b + c` into one fused
//!   multiply-add (WGSL offers no way to forbid it), so such an expression can differ from the host
//!   backends in the last bit; Vulkan lets an adapter's f32 division and `sqrt` be off by up to
//!   2.5 and 3 ulp (lavapipe's, and IEEE hardware's, are correctly rounded); and an adapter may
//!   flush subnormal f32 arithmetic results to zero (lavapipe does not). Everything rokkos spells
//!   out itself is exact or within the contract whatever the adapter does: float `%` (an exact
//!   `fmod` in integer arithmetic), `mul_add` (a correctly rounded fused multiply-add emulated with
//!   error-free transformations, since WGSL's `fma` need not be fused and lavapipe's f64 one is
//!   not), `min`/`max` (NaN and signed zeros as `rokkos_core::ir::ops::math` pins them), casts,
//!   and the transcendental functions below.
//! - **Debugging**: `ROKKOS_WGPU_DUMP=<folder>` writes the WGSL of every kernel compiled
//!   ([`DUMP_ENV`]); a shader the driver rejects comes back as `Err(Compile)` with its source.
//!
//! # Requirements and what is unsupported
//!
//! - The IR's `usize` is `u64`. Each launch runs a **32-bit variant** of the kernel (every `usize`
//!   spelled `u32`) when `rokkos_device::emit::width` proves it exact and the launch's sizes fit
//!   (extents, bounds and `usize` scalars at most `2^31 - 1`, addresses below `u32::MAX`), else
//!   the 64-bit one. Without **SHADER_INT64** only the 32-bit variant of a kernel that uses no
//!   64-bit integer of its own runs; the others answer `Err(Unsupported)` naming SHADER_INT64,
//!   the kernel and why. `f64` needs **SHADER_F64**, and answers the same way without it. Team
//!   kernels have the 32-bit variant too when their nested ranges and scratch extents are
//!   proven (rule 6 of `rokkos_device::emit::width`) and the league size, team size, vector
//!   length and scratch arenas are at most `2^31 - 1`.
//! - **Team scratch**: atomics on scratch Views and `bool` scratch Views are `Err(Unsupported)`.
//! - **64-bit atomics** (i64/u64/f64 elements) need SHADER_INT64_ATOMIC_ALL_OPS (lavapipe and NVIDIA
//!   have it): `i64` / `u64` natively, `f64` as compare-exchange loops on the bits; without it
//!   `Err(Unsupported)` naming the feature.
//! - **Transcendental functions** (`sin`, `exp`, `powf`, `cbrt`, `hypot`, ...) come from a software
//!   library for both float types (`rokkos_device::emit::softmath`, written once as IR and emitted
//!   as the kernel's helper functions are): SPIR-V's GLSL.std.450 defines none for 64-bit floats,
//!   and its 32-bit ones (WGSL's built-ins) lose NaN, flush subnormals, get special values wrong
//!   and may be thousands of ulps off. Both meet the precision contract of
//!   `rokkos_core::ir::ops::math` (`MathFn::max_ulp`): within 1 ulp of the exact value over the
//!   whole finite range, subnormal arguments and results included, special values (NaN, ±∞, ±0,
//!   overflow, underflow, C99's tables) exactly as Rust gives them. Measured on lavapipe: f32
//!   within 0.75 ulp over 1.6 million inputs (`tests/wgpu_f32_math.rs`, `ROKKOS_MATH_SWEEP=30`;
//!   most functions within 0.6), f64 within 1 ulp (`tests/math_f64.rs`). The f32 library uses no
//!   f64, so adapters without SHADER_F64 run it. It costs more than the built-ins (a few dozen
//!   operations per call, Payne–Hanek argument reduction for trigonometry).
//! - **User-defined (`Custom`) reducers** (their join is host code) run over Range and MDRange
//!   policies in the ordered-partials mode (`rokkos_device::runtime::ordered`): the work items, in
//!   the policy's iteration order (an MDRange's as the host backends walk its tiles), are cut
//!   into at most 64 Ki contiguous blocks, one invocation folds each block with the kernel's
//!   code, and the host joins the blocks' partials in order, as rayon joins its chunks; so an
//!   associative join that is not commutative gives the serial result. It is the slow path (no
//!   coalesced loads, every launch waits, a sequential host join); `parallel_reduce_into` with
//!   such a reducer blocks too. Over a `TeamPolicy` each workgroup runs a contiguous block of
//!   league ranks, every invocation keeping its accumulator across them, and the host joins the
//!   partials league block by league block, invocation by invocation (`ordered::team_blocks`):
//!   serial's result when one invocation per team writes the accumulator (in a `single_team` or
//!   under `team_rank() == 0`); with teams of several invocations any other such kernel is
//!   `Err(Unsupported)` (`team_order::check`). `parallel_scan_with` such a reducer
//!   takes three steps without a device join (fold each block, join the prefixes on the host,
//!   replay each block from its prefix with `final == true`; `scan_range`), the slowest path.
//! - **Views larger than one storage binding** (`max_storage_buffer_binding_size`: 128 MiB on
//!   lavapipe, 2 GiB on most GPUs) are bound as several chunks of their one buffer, each `2^s`
//!   elements for the largest `s` that fits (a whole number of words and of
//!   `min_storage_buffer_offset_alignment`); the accessors take binding `(o >> s) - base` at
//!   `o & (2^s - 1)` in a `switch` (loads, stores, atomics, packed `u8`/`u16` words alike), `base`
//!   being the first chunk bound, a parameter (0 when all are). The number of chunks bound is part
//!   of the pipeline variant; a View that fits one binding gets the same code as before. A launch
//!   whose bindings then exceed `max_storage_buffers_per_shader_stage` (32 on lavapipe: about 4 GiB
//!   of Views per kernel at 128 MiB a binding) runs, for a `RangePolicy` `parallel_for`,
//!   `parallel_reduce` or `parallel_scan` and an `MDRangePolicy` `parallel_for` or
//!   `parallel_reduce`, as a *windowed launch* (`runtime::window`,
//!   [`rokkos_device::emit::window`]): consecutive sub-ranges of one work dimension (the one that
//!   takes the fewest; an MDRange window is tiled on its own), dispatched in order, each binding
//!   the same number of consecutive chunks of each split View from its own base (one compiled
//!   kernel serves every window). This needs every access to a split View to be the work index
//!   plus or minus a literal, or a literal, in each index position (`x[i + 1]`, `a[(i, 2)]`; any
//!   rank and layout), so that the elements a window reaches with in-extent indices lie between
//!   those of its first and last work items; an offset outside the bound chunks goes to the
//!   out-of-bounds record, never to memory. A reduction's windows are complete reductions of
//!   their sub-ranges, joined on the host in window order with the reducer's join (a
//!   `parallel_reduce_into` then writes the element from the host, waiting for the device). An
//!   MDRange reduction whose join is host code (`Custom`) is windowed only in whole tiles of its
//!   slowest tile dimension (dimension 0 for `Iterate::Right`, the last for `Iterate::Left`), so
//!   that its windows, in order, walk the tiles in the host backends' order and every item is
//!   joined in the order of the launch that is not windowed; where one such run of tiles reaches
//!   more chunks than the bindings hold (a LayoutRight View iterated `Iterate::Left`, say) it is
//!   `Err(Unsupported)` saying so. A scan runs its first pass over every window, joins all their
//!   block totals on the host in range order (window `k`'s prefixes start from the total of
//!   windows `0..k`), then its second pass over every window, so its prefixes and total are those
//!   of the launch that is not windowed. Any other launch that does not fit (another index into a
//!   split View, a team policy: its windows would be runs of league ranks, which do not bound the
//!   nested ranges' indices and team and lane ranks it reaches Views through) is
//!   `Err(Unsupported)` naming the kernel, its split Views, the limit
//!   and why windowed launches could not be used. A View larger than `max_buffer_size` (one wgpu
//!   buffer) is held in several buffers ("segments") of the largest power of two of bytes within
//!   that limit, the last one shorter: a segment is a whole number of chunks of every element type
//!   (the binding limit is kept at most the buffer limit), so each chunk is bound from the segment
//!   holding it and the shader is the same. Host reads and writes, device copies (between Views
//!   segmented at different places too), fills, mirrors, resizes, subviews and reductions into an
//!   element span segments; a host read goes through staging buffers of at most `max_buffer_size`
//!   bytes each. [`MAX_BINDING_ENV`], [`MAX_BUFFER_ENV`], [`Wgpu::with_max_binding`],
//!   [`Wgpu::with_max_buffer`] and [`Wgpu::with_test_limits`] force smaller limits for tests.
//!
//! # Failures
//!
//! A work item fails where Rust's native code panics, and the launch reports it as
//! `Err(KernelFailed { kernel, reason })` with Rust's own panic message as the reason (the
//! evaluator gives the same; an index out of bounds stays `Err(OutOfBounds)`), from the next fence,
//! host read or blocking result, like a bounds violation: integer division or remainder by zero and
//! `MIN / -1`, `MIN % -1` (every build: "attempt to divide by zero", "attempt to divide with
//! overflow", ...); overflow of `+ - *`, unary `-`, integer `abs` and shifts by the width or more
//! when the kernel's crate was built with debug assertions (the IR's `overflow_checks`, recorded by
//! `#[kernel]`: "attempt to add with overflow", ...), while without them they wrap and shift
//! amounts are masked, as in release builds; `clamp` with `min > max` or a NaN bound; `step_by(0)`;
//! a scratch request past the reservation. The failing operation yields the wrapped value (0 for a
//! division by zero) and the work item goes on, so the Views a failed launch wrote may hold partial
//! results, as after a panic on the host. The checks cost nothing in a release build beyond the
//! divisor tests of `/` and `%` by a non-literal.
//!
//! # Cargo features
//!
//! - `noop` (measurement only): compiles in wgpu's no-op backend, which
//!   `WGPU_NOOP_BACKEND=1 WGPU_BACKEND=noop` then selects. It runs no shader and copies nothing,
//!   so kernel results are meaningless; what it times is the host's share of each launch
//!   (`scripts/host_overhead.sh` compares it with raw wgpu's).

#![warn(missing_docs)]

pub mod emit;
mod for_mdrange;
mod for_range;
mod for_team;
pub mod params;
mod reduce_mdrange;
mod reduce_range;
mod reduce_team;
mod runtime;
mod scan_range;

pub use runtime::adapters::{adapters, AdapterSummary, ADAPTER_ENV, HIDE_ENV};

/// Environment variable that lets [`Wgpu::new`] take an adapter without SHADER_INT64 (`1`).
pub const PARTIAL_ENV: &str = "ROKKOS_WGPU_PARTIAL";
pub use runtime::ctx::{CACHE_DIR_ENV, MAX_BINDING_ENV, MAX_BUFFER_ENV, SPIN_ENV};
pub use runtime::launch::DUMP_ENV;
pub use runtime::memory::{WgpuBuffer, WgpuSpace};

use rokkos_core::{ExecutionSpace, Result, TeamLimits};
use runtime::ctx::{default_ctx, unavailable, Ctx};
use std::sync::Arc;

/// The wgpu execution space: a cheap handle to a device and queue.
///
/// ```no_run
/// use rokkos_core::ExecutionSpace;
/// let gpu = rokkos_wgpu::Wgpu::new()?; // Err(BackendUnavailable) without an adapter
/// assert_eq!(gpu.name(), "wgpu");
/// # Ok::<(), rokkos_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Wgpu {
    ctx: Arc<Ctx>,
}

impl std::fmt::Debug for Wgpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Wgpu({})", self.ctx.adapter_name)
    }
}

impl Wgpu {
    /// The space on the process-wide default device: the adapter whose name contains
    /// `ROKKOS_WGPU_ADAPTER` when that is set, else the best-ranked one (Vulkan, Metal or DX12
    /// before OpenGL, then discrete before integrated before CPU devices, then the capabilities
    /// kernels use: see [`adapters`], which lists them all). SHADER_F64, SHADER_INT64 and 64-bit
    /// atomics are requested when the adapter has them and `ROKKOS_WGPU_HIDE` does not hide them,
    /// with the adapter's limits.
    ///
    /// An adapter that really lacks SHADER_INT64 (OpenGL, WebGPU, many mobile GPUs) is taken only
    /// when [`PARTIAL_ENV`] is `1`; otherwise this is `Err(BackendUnavailable)` saying so, and
    /// `Device::new()` falls back to a host backend. Such an adapter runs only the kernels whose
    /// 32-bit variant suffices (see [`rokkos_device::emit::width`]), and on Mesa's OpenGL driver
    /// two results still differ from Rust's (f32 `clamp` of a NaN with inverted bounds, i32
    /// `rem` by -1 under overflow checks), so it is not chosen silently.
    pub fn new() -> Result<Wgpu> {
        let ctx = default_ctx().map_err(unavailable)?;
        let hidden = runtime::adapters::hidden_features().map_err(unavailable)?;
        let opted_in = std::env::var(PARTIAL_ENV).as_deref() == Ok("1");
        if !ctx.caps.int64 && !hidden.contains(wgpu::Features::SHADER_INT64) && !opted_in {
            return Err(unavailable(format!(
                "adapter `{}` has no SHADER_INT64: it runs only kernels whose indices fit 32 bits \
                 and that use no 64-bit integers, so rokkos takes it only with {PARTIAL_ENV}=1 \
                 ({ADAPTER_ENV} can name another adapter; `cargo run --example adapters \
                 --features wgpu` lists them)",
                ctx.adapter_name
            )));
        }
        Ok(Wgpu { ctx })
    }
    /// A space on a device of its own on the same adapter, with the shader capabilities `hide`
    /// lists hidden (a comma-separated list of `int64`, `f64`, `atomic64`, as
    /// [`HIDE_ENV`] takes): what a user of an adapter without them gets, in a process whose
    /// default device has them (the test suite runs the equivalence tests so). One device per
    /// list, made on first use; Views of one space cannot be used by another.
    pub fn with_hidden(hide: &str) -> Result<Wgpu> {
        runtime::ctx::hiding_ctx(hide, Default::default())
            .map(|ctx| Wgpu { ctx })
            .map_err(unavailable)
    }
    /// A space on a device of its own on the same adapter (one per limit, made on first use)
    /// whose storage bindings hold at most `bytes` bytes, for tests: every View larger than that
    /// is split over several bindings, as a View past the adapter's
    /// `max_storage_buffer_binding_size` is, so that small Views exercise the split code.
    /// [`MAX_BINDING_ENV`] does the same for the default device. A limit below the adapter's
    /// `min_storage_buffer_offset_alignment` cannot split anything: launches on Views larger than
    /// it answer `Err(Unsupported)`.
    pub fn with_max_binding(bytes: u64) -> Result<Wgpu> {
        Self::with_test_limits(Some(bytes), None)
    }
    /// A space on a device of its own on the same adapter (one per limit, made on first use)
    /// whose Views are held in wgpu buffers of at most `bytes` bytes, for tests: every View larger
    /// than that is allocated as several buffers ("segments", each the largest power of two of
    /// bytes within the limit), as a View past the adapter's `max_buffer_size` is, so that small
    /// Views exercise the segment code. Storage bindings are then at most `bytes` too.
    /// [`MAX_BUFFER_ENV`] does the same for the default device. A limit below 8 bytes is
    /// `Err(BackendUnavailable)`.
    pub fn with_max_buffer(bytes: u64) -> Result<Wgpu> {
        Self::with_test_limits(None, Some(bytes))
    }
    /// A space on a device of its own on the same adapter (one per pair of limits, made on first
    /// use) with both test limits of [`Wgpu::with_max_binding`] and [`Wgpu::with_max_buffer`]
    /// (`None`: the adapter's own), so that a View spans several buffers of several bindings
    /// each.
    pub fn with_test_limits(max_binding: Option<u64>, max_buffer: Option<u64>) -> Result<Wgpu> {
        let limits = runtime::ctx::TestLimits {
            binding: max_binding,
            buffer: max_buffer,
            memory: None,
        };
        runtime::ctx::hiding_ctx("", limits)
            .map(|ctx| Wgpu { ctx })
            .map_err(unavailable)
    }
    /// A space on a device of its own on the same adapter (one per limit, made on first use)
    /// whose Views may hold at most `bytes` bytes together (below the adapter's memory, which
    /// [`Wgpu::device_memory`] reports), with buffers of at most `max_buffer` bytes (`None`:
    /// the adapter's `max_buffer_size`): an allocation that would pass it is `Err(OutOfMemory)`
    /// at once, as one past the adapter's memory is, so that tests can reach that refusal with
    /// small Views, split ones included.
    pub fn with_max_memory(bytes: u64, max_buffer: Option<u64>) -> Result<Wgpu> {
        let limits = runtime::ctx::TestLimits {
            binding: None,
            buffer: max_buffer,
            memory: Some(bytes),
        };
        runtime::ctx::hiding_ctx("", limits)
            .map(|ctx| Wgpu { ctx })
            .map_err(unavailable)
    }
    /// The most bytes this space's Views may hold together: the adapter's largest device-local
    /// memory heap as its Vulkan driver reports it, or for a CPU adapter such as lavapipe, whose
    /// buffers are host memory, the host's physical memory; or the limit of
    /// [`Wgpu::with_max_memory`]. `None` where wgpu does not say (Metal, DX12, OpenGL), and
    /// then only the driver refuses an allocation. A View that would take
    /// [`Wgpu::memory_in_use`] past it is `Err(OutOfMemory)` before any buffer is made.
    pub fn device_memory(&self) -> Option<u64> {
        self.ctx.memory.capacity()
    }
    /// The bytes this space's live Views hold (each allocation rounded up to 8 bytes; the
    /// launches' short-lived buffers are not counted).
    pub fn memory_in_use(&self) -> u64 {
        self.ctx.memory.held()
    }
    /// The largest storage binding a launch on this space makes, in bytes (see
    /// [`Wgpu::with_max_binding`]).
    pub fn max_binding(&self) -> u64 {
        self.ctx.binding_max
    }
    /// The largest wgpu buffer a View's allocation on this space makes, in bytes; a larger View
    /// is held in several (see [`Wgpu::with_max_buffer`]).
    pub fn max_buffer(&self) -> u64 {
        self.ctx.buffer_max
    }
    /// The adapter's name (e.g. `"llvmpipe (LLVM 19.1.7, 256 bits)"`).
    pub fn adapter_name(&self) -> &str {
        &self.ctx.adapter_name
    }
    /// Why this adapter was taken, in words (e.g. "the only adapter found").
    pub fn chosen_because(&self) -> &str {
        &self.ctx.chosen_because
    }
    /// Whether the device has SHADER_F64.
    pub fn has_f64(&self) -> bool {
        self.ctx.caps.f64
    }
    /// Whether the device has SHADER_INT64 (without it, only kernels whose 32-bit variant
    /// suffices run: see [`rokkos_device::emit::width`]).
    pub fn has_int64(&self) -> bool {
        self.ctx.caps.int64
    }
    /// Whether the device has SHADER_INT64_ATOMIC_ALL_OPS (atomics on `i64`, `u64`, `f64`).
    pub fn has_atomic64(&self) -> bool {
        self.ctx.caps.atomic64
    }
}

/// Largest vector length offered (a power of two).
const VECTOR_LENGTH_MAX: usize = 32;

// The pattern methods (`device_launches!`, shared with rokkos-cuda) check the policy against what
// a device launch may run and hand it and the kernel to the file of that (pattern, policy).
impl ExecutionSpace for Wgpu {
    type Memory = WgpuSpace;

    fn name(&self) -> &'static str {
        "wgpu"
    }
    fn concurrency(&self) -> usize {
        self.ctx.limits.max_compute_invocations_per_workgroup as usize
            * self.ctx.limits.max_compute_workgroups_per_dimension as usize
    }
    fn fence(&self) -> Result<()> {
        self.ctx.fence()
    }
    fn memory_space(&self) -> WgpuSpace {
        WgpuSpace {
            ctx: Ok(self.ctx.clone()),
        }
    }
    fn team_limits(&self) -> TeamLimits {
        let max = (self.ctx.limits.max_compute_invocations_per_workgroup as usize).max(1);
        // A power of two no larger than the workgroup, so that one thread of full vector length fits.
        let vmax = VECTOR_LENGTH_MAX.min(1 << max.ilog2());
        // The exchange buffers of nested reductions, scans and broadcasts take 12 bytes per
        // invocation; the rest of workgroup memory is level-0 scratch. Level 1 lives in a storage
        // buffer of (teams in flight) x (bytes per team). A launch whose team x vector length or
        // total workgroup memory (with a team reduction's buffers) exceeds the device answers
        // Err(InvalidPolicy).
        let wmem = self.ctx.limits.max_compute_workgroup_storage_size as usize;
        TeamLimits {
            team_size_max: max,
            team_size_auto: 64.min(max / vmax).max(1),
            vector_length_max: vmax,
            scratch_max: [
                wmem.saturating_sub(12 * max),
                (self.ctx.limits.max_storage_buffer_binding_size as usize).min(u32::MAX as usize),
            ],
        }
    }
    /// The space's limits for the policy's vector length and scratch, with a team's lanes
    /// counted as invocations of its workgroup, lowered until the workgroup memory a launch
    /// would take fits `max_compute_workgroup_storage_size`: the level-0 arena (the kernel's
    /// scratch split as the launch splits it), 12 bytes per invocation of exchange buffers and,
    /// for [`rokkos_core::TeamPattern::Reduce`], the tree of the kernel's accumulators (4 bytes
    /// or more per field, per invocation rounded up to a power of two). The invocations are
    /// counted as team size x vector length even where a kernel's lanes end up virtual, so the
    /// bound is safe for every kernel (such a kernel may launch a few more threads).
    fn team_size_max_for(
        &self,
        label: &str,
        policy: &rokkos_core::TeamPolicy<Self>,
        kernel: Option<&rokkos_core::ir::Kernel>,
        pattern: rokkos_core::TeamPattern,
    ) -> Result<usize> {
        let max = policy.team_size_max_in_limits(label, true)?;
        let v = policy.vector_len() as u64;
        let wlim = self.ctx.limits.max_compute_workgroup_storage_size as u64;
        let tree = match (pattern, kernel) {
            (rokkos_core::TeamPattern::Reduce, Some(k)) => k
                .acc_fields()
                .iter()
                .map(|(_, t)| t.size().max(4) as u64)
                .sum::<u64>(),
            _ => 0,
        };
        let r = policy.scratch_requests()[0];
        let fits = |t: usize| -> bool {
            let t = t as u64;
            let split = rokkos_device::emit::team::level0_split(
                kernel,
                r.per_team as u64,
                r.per_thread as u64,
                t,
            );
            let Some((tp, tq)) = split else { return false };
            let wg = t * v;
            let mem = tq
                .checked_mul(t)
                .and_then(|a| a.checked_add(tp))
                .map(|a| a.div_ceil(4) * 4)
                .and_then(|a| a.checked_add(12 * wg))
                .and_then(|a| a.checked_add(tree.checked_mul(wg.next_power_of_two())?));
            mem.is_some_and(|m| m <= wlim)
        };
        rokkos_device::runtime::limits::largest_fitting(max, fits).ok_or_else(|| {
            rokkos_core::Error::InvalidPolicy {
                label: label.to_string(),
                reason: format!(
                    "no team of vector length {v} fits the device's {wlim} bytes of workgroup memory with this scratch"
                ),
            }
        })
    }
    rokkos_device::device_launches!(memory = WgpuSpace, runtime = ctx);
}
