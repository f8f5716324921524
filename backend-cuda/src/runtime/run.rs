//! What every pattern launcher does the same way: the kernel's IR and arguments checked
//! (`rokkos_device::runtime::prepare`), the CUDA C variant emitted and loaded once per (IR hash,
//! launch options) on the device, the grid sized from the SM count and the kernel's occupancy,
//! and the passes of one launch enqueued under one launch number (its error record).

use super::args::{self, set_value};
use super::cache::Compiled;
use super::device::Instance;
use super::driver::BACKEND;
use super::launch::{LaunchConfig, ParamBlock};
use super::memory::{CudaBuffer, CudaSpace};
use crate::emit::{emit, CudaOptions, EmitError, ParamsLayout};
use rokkos_core::ir::Value;
use rokkos_core::kernel::KernelIr;
use rokkos_core::{Error, Result};
use rokkos_device::emit::width::{IndexWidth, Work};
use rokkos_device::runtime::fast_map::FastMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// Threads per block of every launch (what `check::CudaCheck` compiles: the kernels CI checks
/// are the ones launched). A multiple of the warp, as the reductions' shuffles need.
pub(crate) const BLOCK: u32 = 256;

/// `Err(Unsupported)` naming `feature` on CUDA.
pub(crate) fn unsupported(feature: impl Into<String>) -> Error {
    Error::Unsupported {
        backend: BACKEND.into(),
        feature: feature.into(),
    }
}

/// A launch's kernel and arguments (see `rokkos_device::runtime::prepare`).
pub(crate) type Prepared<'a> = rokkos_device::runtime::prepare::Prepared<'a, CudaSpace>;

/// The IR and arguments of `kernel`, checked; a View whose buffer lives on another device is
/// `Err(InvalidArgument)` naming it.
pub(crate) fn prepare<'a, K: KernelIr<Space = CudaSpace>>(
    inst: &Arc<Instance>,
    kernel: &'a K,
) -> Result<Prepared<'a>> {
    inst.device
        .kernels
        .prepare(kernel, unsupported, |b| b.on_device_of(inst))
}

/// The index variant of this launch (`Prepared::index_width`, the decision every device
/// backend shares): the 32-bit one when the kernel's width plan or this launch's own proof
/// accepts it and the launch satisfies the launch facts. `work` is the policy's work space,
/// `bounds` the policy's bounds and every work field the entry point reads as an index.
pub(crate) fn index_width<M: rokkos_core::MemorySpace>(
    p: &rokkos_device::runtime::prepare::Prepared<'_, M>,
    work: Work,
    bounds: &[u64],
) -> IndexWidth {
    p.index_width(work, bounds).width
}

/// One emitted variant of a kernel: its parameter block and whether it can record an error.
struct Emitted {
    layout: Arc<ParamsLayout>,
    slots: Arc<args::Slots>,
    may_fail: bool,
    source: String,
    team: Option<crate::emit::TeamLaunch>,
}

/// A variant loaded on a device: its entry points in the order asked for.
pub(crate) struct Variant {
    pub layout: Arc<ParamsLayout>,
    /// Where the launch's arguments go in `layout`.
    slots: Arc<args::Slots>,
    pub may_fail: bool,
    pub entries: Vec<Arc<Compiled>>,
    /// Team kernels: the block and shared memory their launch needs.
    pub team: Option<crate::emit::TeamLaunch>,
}

/// The module cache's key of a variant: the IR hash and every launch option (the device's
/// architecture and the NVRTC version are the device's and the process's, and are part of the
/// on-disk key).
pub(crate) fn variant_key(ir_hash: u64, opts: &CudaOptions) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ir_hash.hash(&mut h);
    opts.hash(&mut h);
    h.finish()
}

/// The variant `opts` of `p`'s kernel with entry points `entries`, emitted once per process and
/// compiled and loaded once per device.
pub(crate) fn variant(
    inst: &Instance,
    p: &Prepared<'_>,
    opts: &CudaOptions,
    entries: &[&str],
) -> Result<Variant> {
    static EMITTED: OnceLock<Mutex<FastMap<u64, Arc<Emitted>>>> = OnceLock::new();
    let key = variant_key(p.hash, opts);
    let map = EMITTED.get_or_init(Default::default);
    let found = map
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    let e = match found {
        Some(e) => e,
        None => {
            let src = emit(&p.ir, &p.info, opts).map_err(|e| match e {
                EmitError::Unsupported(f) => unsupported(f),
                EmitError::Mismatch(m) => Error::InvalidArgument(format!("cuda emitter: {m}")),
            })?;
            let e = Arc::new(Emitted {
                slots: Arc::new(args::Slots::of(&src.params)?),
                layout: Arc::new(src.params),
                may_fail: src.may_fail,
                source: src.source,
                team: src.team,
            });
            map.lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(key)
                .or_insert(e)
                .clone()
        }
    };
    let dev = &inst.device;
    let entries = dev
        .modules
        .entries(dev, key, &p.ir.name, entries, || Ok(e.source.clone()))?;
    Ok(Variant {
        layout: e.layout.clone(),
        slots: e.slots.clone(),
        may_fail: e.may_fail,
        entries,
        team: e.team,
    })
}

/// Blocks of [`BLOCK`] threads the device runs at once for `f` (SMs × resident blocks per SM),
/// within the grid's x limit: the most a grid-stride launch needs.
pub(crate) fn resident_blocks(inst: &Instance, f: &Compiled) -> Result<u64> {
    let info = &inst.device.info;
    inst.bind()?;
    let per_sm = f.blocks_per_sm(BLOCK)? as u64;
    Ok((info.sm_count.max(1) as u64 * per_sm).min(info.max_grid[0].max(1) as u64))
}

/// The parameter block of `p`'s arguments (and `init`, a reduction's identity) for `v`.
pub(crate) fn params<'a>(v: &Variant, p: &Prepared<'a>, init: &[Value]) -> Result<ParamBlock<'a>> {
    v.slots
        .fill(&v.layout, &p.views, &p.scalars, init, CudaBuffer::len_bytes)
}

/// Enqueues the passes `steps` (entry point index in `v.entries`, blocks) in order on `inst`'s
/// stream, all with the block `params` and [`BLOCK`] threads; a variant that may fail first
/// gets a launch number (its error record), shared by its passes.
pub(crate) fn enqueue(
    inst: &Instance,
    p: &Prepared<'_>,
    v: &Variant,
    params: ParamBlock<'_>,
    steps: &[(usize, u64)],
) -> Result<()> {
    let steps: Vec<Step> = steps
        .iter()
        .map(|&(entry, blocks)| Step {
            entry,
            blocks,
            block: [BLOCK, 1, 1],
            shared_bytes: 0,
        })
        .collect();
    enqueue_steps(inst, p, v, params, &steps)
}

/// One pass of a launch: the entry point (index in `Variant::entries`), the grid's blocks, the
/// block's shape and its dynamic shared memory.
pub(crate) struct Step {
    pub entry: usize,
    pub blocks: u64,
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

/// [`enqueue`] with each pass's block shape and dynamic shared memory given (team launches).
pub(crate) fn enqueue_steps(
    inst: &Instance,
    p: &Prepared<'_>,
    v: &Variant,
    params: ParamBlock<'_>,
    steps: &[Step],
) -> Result<()> {
    let rec = v.may_fail.then(|| p.launch_record());
    let layout = &v.layout;
    let err_at = layout.offset("err").ok_or_else(|| {
        Error::InvalidArgument("the kernel's parameter block has no error record".into())
    })?;
    inst.numbered_launch(rec, |id| {
        let mut params = params;
        set_value(&mut params, layout, "launch", Value::U32(id))?;
        params.put_bytes(err_at, &inst.records_ptr().to_le_bytes())?;
        for &Step {
            entry,
            blocks,
            block,
            shared_bytes,
        } in steps
        {
            let f = v.entries.get(entry).ok_or_else(|| {
                Error::InvalidArgument(format!("no entry point {entry} in the variant"))
            })?;
            let grid = u32::try_from(blocks)
                .map_err(|_| unsupported(format!("a grid of {blocks} blocks (more than 2^32)")))?;
            let cfg = LaunchConfig {
                grid: [grid, 1, 1],
                block,
                shared_bytes,
            };
            // SAFETY: the block was filled at the offsets the emitter declared for this variant
            // (`args`), with every View's whole buffer, and the pooled buffers' sizes, as the
            // ranges; the generated kernel checks every View index against its extent (bounds
            // checks are on), except at the accesses the launcher proved inside the View's
            // extents for every work item of the policy (`in_bounds`); reductions write their partials at
            // block indices below the grid the partials were sized for (the ordered mode: at
            // thread indices below `nparts`, the partials' count), and their result at
            // element 0; team kernels index their level-1 pool below `grid * l1s` bytes and
            // their dynamic shared memory below the level-0 pools' bytes, which the launcher
            // passed as `shared_bytes`; `#[kernel]` guarantees that two work items write no element through
            // plain stores (owner computes), the rest is atomic.
            unsafe { inst.launch(f, &cfg, params.clone()) }?;
        }
        Ok(())
    })
}
