//! Devices and streams: one [`Device`] per GPU (its context, properties and compiled modules),
//! shared by every [`Instance`] on it; an instance is one stream of that device.

use super::cache::ModuleCache;
use super::driver::{self, unavailable};
use super::errors::ErrorRecords;
use super::memory::CudaBuffer;
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaStream};
use rokkos_core::{Error, Result};
use rokkos_device::runtime::pool::BufferPool;
use rokkos_device::runtime::prepare::KernelCache;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable choosing the device of `Cuda::new()` and `CudaSpace::default()` (an
/// ordinal, default 0).
pub const DEVICE_ENV: &str = "ROKKOS_CUDA_DEVICE";

/// What launches need to know of a device, read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name (`"NVIDIA H100 80GB HBM3"`).
    pub name: String,
    /// Compute capability (major, minor): `(9, 0)` is `sm_90`.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Shared memory a block gets without opting in (48 KiB).
    pub shared_per_block: usize,
    /// Shared memory a kernel may opt in to per block (227 KiB on an H100).
    pub shared_per_block_optin: usize,
    /// Largest grid in x, y and z.
    pub max_grid: [u32; 3],
    /// Device memory in bytes.
    pub total_memory: usize,
}

/// One GPU: its context (the primary one), properties, compiled modules, kernels' IR, and the
/// pool of short-lived launch buffers (reduction partials and results).
pub(crate) struct Device {
    pub ctx: Arc<CudaContext>,
    pub info: DeviceInfo,
    pub modules: ModuleCache,
    pub kernels: KernelCache,
    /// Allocated on the default instance, which lives as long as the device (a buffer of another
    /// instance would keep that instance's stream alive in the pool); a use on another stream is
    /// ordered after the buffer's earlier uses like any View's.
    pub pool: BufferPool<(), CudaBuffer>,
    /// The stream `Cuda::new()` hands out on this device (Kokkos' default instance).
    default: OnceLock<std::result::Result<Arc<Instance>, String>>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cuda:{} ({})", self.info.ordinal, self.info.name)
    }
}

/// One stream on a device: the unit that orders work and is fenced on its own, with the error
/// records of its kernels.
pub(crate) struct Instance {
    pub device: Arc<Device>,
    pub stream: Arc<CudaStream>,
    pub errors: ErrorRecords,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} stream {:p}", self.device, self.stream.cu_stream())
    }
}

/// The device `DEVICE_ENV` names, or 0.
pub(crate) fn default_ordinal() -> Result<usize> {
    parse_ordinal(std::env::var(DEVICE_ENV).ok().as_deref())
}

/// The ordinal a value of `DEVICE_ENV` names (0 when unset or blank).
pub(crate) fn parse_ordinal(v: Option<&str>) -> Result<usize> {
    match v.map(str::trim) {
        Some(t) if !t.is_empty() => t
            .parse()
            .map_err(|_| unavailable(format!("{DEVICE_ENV}=`{t}` is not a device number"))),
        _ => Ok(0),
    }
}

/// The process-wide [`Device`] for `ordinal`, opened on first use. Libraries, the device count
/// and the ordinal are checked before cudarc is asked for anything.
pub(crate) fn device(ordinal: usize) -> Result<Arc<Device>> {
    static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<Device>>>> = OnceLock::new();
    driver::driver()?;
    driver::nvrtc()?;
    let count = CudaContext::device_count().map_err(|e| driver::error("cuDeviceGetCount", e))?;
    if ordinal >= count.max(0) as usize {
        return Err(unavailable(format!(
            "device {ordinal} does not exist ({count} CUDA device{} found)",
            if count == 1 { "" } else { "s" }
        )));
    }
    let map = DEVICES.get_or_init(Default::default);
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = map.get(&ordinal) {
        return Ok(d.clone());
    }
    let d = Arc::new(open(ordinal)?);
    map.insert(ordinal, d.clone());
    Ok(d)
}

fn open(ordinal: usize) -> Result<Device> {
    let ctx = CudaContext::new(ordinal).map_err(|e| driver::error("opening the context", e))?;
    // SAFETY: every buffer is created after this call, and rokkos orders buffers between streams
    // itself (`memory::Uses`), including before they are freed; cudarc's per-buffer events, which
    // record only the last reader, would add a wait and an event per argument to every launch.
    unsafe { ctx.disable_event_tracking() };
    let attr = |a: Attr| -> Result<u32> {
        ctx.attribute(a)
            .map(|v| v.max(0) as u32)
            .map_err(|e| driver::error("cuDeviceGetAttribute", e))
    };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| driver::error("compute capability", e))?;
    let info = DeviceInfo {
        ordinal,
        name: ctx
            .name()
            .map_err(|e| driver::error("cuDeviceGetName", e))?,
        compute_capability: (major.max(0) as u32, minor.max(0) as u32),
        sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        warp_size: attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_threads_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        shared_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as usize,
        shared_per_block_optin: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
            as usize,
        max_grid: [
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ],
        total_memory: ctx
            .total_mem()
            .map_err(|e| driver::error("cuDeviceTotalMem", e))?,
    };
    Ok(Device {
        ctx,
        info,
        modules: ModuleCache::default(),
        kernels: KernelCache::default(),
        pool: BufferPool::default(),
        default: OnceLock::new(),
    })
}

impl Device {
    /// This device's default instance (created once).
    pub(crate) fn default_instance(self: &Arc<Self>) -> Result<Arc<Instance>> {
        self.default
            .get_or_init(|| self.new_instance().map_err(|e| e.to_string()))
            .clone()
            .map_err(unavailable)
    }

    /// A new instance with a stream of its own.
    pub(crate) fn new_instance(self: &Arc<Self>) -> Result<Arc<Instance>> {
        let stream = self
            .ctx
            .new_stream()
            .map_err(|e| driver::error("cuStreamCreate", e))?;
        self.ctx
            .bind_to_thread()
            .map_err(|e| driver::error("cuCtxSetCurrent", e))?;
        let errors = ErrorRecords::new(&stream)?;
        Ok(Arc::new(Instance {
            device: self.clone(),
            stream,
            errors,
        }))
    }

    /// The `sm_XX` architecture of this device.
    pub(crate) fn arch(&self) -> super::compile::Arch {
        let (major, minor) = self.info.compute_capability;
        super::compile::Arch::new(major, minor)
    }
}

impl Instance {
    /// Waits for the work of this stream, then reports the calling thread's first kernel failure
    /// recorded meanwhile (`Err(OutOfBounds)`, `Err(KernelFailed)`; see `runtime::errors`).
    pub(crate) fn fence(&self) -> Result<()> {
        self.sync(true)
    }

    /// Waits for the work of this stream, then reports an error the driver recorded meanwhile
    /// (cudarc keeps errors of calls made from `Drop` impls in the context).
    pub(crate) fn wait(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| driver::error("cuStreamSynchronize", e))?;
        self.device
            .ctx
            .check_err()
            .map_err(|e| driver::error("an earlier asynchronous call", e))
    }

    /// Binds the device's context to the calling thread (needed before raw driver calls).
    pub(crate) fn bind(&self) -> Result<()> {
        self.device
            .ctx
            .bind_to_thread()
            .map_err(|e| driver::error("cuCtxSetCurrent", e))
    }
}

/// Whether two instances share a device (Views may move between their streams).
pub(crate) fn same_device(a: &Instance, b: &Instance) -> bool {
    Arc::ptr_eq(&a.device, &b.device)
}

/// `Err(InvalidArgument)` naming `what` when `a` and `b` are on different devices.
pub(crate) fn check_same_device(a: &Instance, b: &Instance, what: &str) -> Result<()> {
    if same_device(a, b) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what}: the buffer lives on {:?}, the space on {:?}",
            b.device, a.device
        )))
    }
}
