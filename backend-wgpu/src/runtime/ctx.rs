//! The device context: adapter choice, the pending command encoder, the error-flag buffer, the
//! pipeline cache, and host read-back.

use super::pipeline::{Compiled, JoinPipeline};
use super::pool::{BufferPool, Kind};
use crate::emit::{memory_err_words, ERR_SLOTS, SLOT_WORDS};
use rokkos_core::{Error, Result};
use rokkos_device::runtime::errors::{error_words, ErrorBook, ErrorCodes, RECORDS, RECORD_WORDS};
use rokkos_device::runtime::prepare::KernelCache;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

pub(crate) const BACKEND: &str = "wgpu";
/// Dispatches encoded before the pending encoder is submitted without waiting for a fence.
const BATCH: usize = 32;

pub(crate) use rokkos_device::runtime::errors::LaunchRecord;

// The emitter writes the records the core book reads.
const _: () = assert!(SLOT_WORDS == RECORD_WORDS && ERR_SLOTS == RECORDS);

/// How the WGSL emitter encodes failures other than View indices.
const CODES: ErrorCodes = rokkos_device::emit::codes::ERROR_CODES;

pub(crate) struct State {
    encoder: Option<wgpu::CommandEncoder>,
    pending: usize,
    /// Launches that may record an error, their records and the threads' mailboxes.
    errors: ErrorBook,
    /// Whether work that may record an error was submitted since the record was last read.
    unchecked: bool,
    /// Whether the pending batch holds such work.
    pending_may_fail: bool,
    /// Submissions so far.
    submits: u64,
    /// Parameter blocks of the pending batch (see [`Ctx::encode_with_params`]).
    arena: Option<Arena>,
    /// Parameter blocks kept on the device (see [`Resident`]).
    resident: Option<Resident>,
}

/// One device and queue with everything launches share.
pub(crate) struct Ctx {
    pub adapter_name: String,
    /// Why this adapter was taken (see `runtime::adapters`).
    pub chosen_because: String,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub caps: crate::emit::Caps,
    pub limits: wgpu::Limits,
    /// The largest storage binding a launch makes (`max_storage_buffer_binding_size`, or less
    /// when [`MAX_BINDING_ENV`] or [`crate::Wgpu::with_max_binding`] forces a test limit): a View
    /// whose buffer is larger is bound as several chunks (see `launch::splits`). Never above
    /// `buffer_max`, so that a chunk's power of two of bytes divides a segment's.
    pub binding_max: u64,
    /// The largest wgpu buffer a View's allocation makes (`max_buffer_size`, or less when
    /// [`MAX_BUFFER_ENV`] or [`crate::Wgpu::with_max_buffer`] forces a test limit; at least 8): a
    /// larger View is held in several buffers (see `runtime::segments`).
    pub buffer_max: u64,
    pub state: Mutex<State>,
    pub err_buf: wgpu::Buffer,
    /// Host-mappable copy of `err_buf`, refreshed at the end of every submission that holds a
    /// kernel able to record an error, so that a fence reads the record without a submission of
    /// its own, and skips it when no such kernel ran.
    err_staging: wgpu::Buffer,
    pub pipelines: Mutex<HashMap<(u64, crate::emit::EmitOptions), Arc<Compiled>>>,
    /// Bind groups of recent launches, keyed by the compiled kernel, the buffers bound and the
    /// first chunk bound of each split View (the parameter block is bound with a dynamic offset,
    /// so one bind group serves every launch of a kernel on the same Views). Entries naming a
    /// buffer go when the buffer is dropped.
    pub bind_groups: Mutex<HashMap<BindGroupKey, wgpu::BindGroup>>,
    /// The driver's compiled pipelines, persisted on disk (see [`open_pipeline_cache`]).
    pub pipeline_cache: Option<(wgpu::PipelineCache, std::path::PathBuf)>,
    /// Parameter arenas whose submission has completed, ready for reuse.
    free_arenas: Arc<Mutex<Vec<wgpu::Buffer>>>,
    /// Validated IR and its hash per kernel type (see `launch::prepare`).
    pub kernels: KernelCache,
    uncaptured: Arc<Mutex<Option<String>>>,
    /// Reusable partials, totals and read-back buffers.
    pub pool: BufferPool,
    /// Compiled partials joins, keyed by their WGSL source (see `runtime::partials`).
    pub join_pipelines: Mutex<HashMap<String, Arc<JoinPipeline>>>,
    /// How long a wait polls the queue before it blocks (see [`SPIN_ENV`]).
    spin: std::time::Duration,
    /// The bytes this device's Views may hold and hold (`runtime::budget`).
    pub memory: super::budget::Budget,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "wgpu device on `{}`", self.adapter_name)
    }
}

pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable {
        backend: BACKEND.into(),
        reason: reason.into(),
    }
}

static DEFAULT: OnceLock<std::result::Result<Arc<Ctx>, String>> = OnceLock::new();

/// The process-wide default device (created on first use).
pub(crate) fn default_ctx() -> std::result::Result<Arc<Ctx>, String> {
    DEFAULT.get_or_init(create).clone()
}

/// Environment variable: how many microseconds a fence or a host read polls the queue before it
/// blocks in the driver. On the H100 an empty dispatch's submit-and-wait round trip through Vulkan
/// measured 56 us, of which 16 us is the submission, where CUDA's launch and synchronize took
/// 9 us; a poll returns as soon as the work is done instead of when the driver wakes the thread,
/// as CUDA's default synchronisation does (the gain on the H100 is not measured yet). Default:
/// 1000 on GPUs, 0 (block at once) on a CPU adapter such as lavapipe, whose own threads need the
/// cores a poll would take.
pub const SPIN_ENV: &str = "ROKKOS_WGPU_SPIN_US";

/// Environment variable naming the folder of the on-disk pipeline cache; `off` disables it.
/// Default: `$XDG_CACHE_HOME/rokkos` or `$HOME/.cache/rokkos`.
pub const CACHE_DIR_ENV: &str = "ROKKOS_WGPU_CACHE_DIR";

/// The driver-level pipeline cache of this adapter, loaded from disk when a previous process
/// saved one: a kernel compiled once on a machine is not compiled by the driver again.
fn open_pipeline_cache(
    device: &wgpu::Device,
    info: &wgpu::AdapterInfo,
) -> Option<(wgpu::PipelineCache, std::path::PathBuf)> {
    let dir = match std::env::var_os(CACHE_DIR_ENV) {
        Some(d) if d == "off" => return None,
        Some(d) => std::path::PathBuf::from(d),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache")))?
            .join("rokkos"),
    };
    let file = dir.join(format!("{}.bin", wgpu::util::pipeline_cache_key(info)?));
    let data = std::fs::read(&file).ok();
    // SAFETY: the file is written only by `Ctx::save_pipeline_cache` from `PipelineCache::get_data`
    // of this adapter (its name is wgpu's per-adapter cache key); wgpu checks the header, length,
    // hash and adapter of the data and, with `fallback`, starts an empty cache when they do not
    // match.
    let cache = unsafe {
        device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: Some("rokkos pipeline cache"),
            data: data.as_deref(),
            fallback: true,
        })
    };
    Some((cache, file))
}

/// Environment variable (tests only): the largest storage binding, in bytes, the default device
/// makes, below the adapter's `max_storage_buffer_binding_size`, so that small Views are split
/// over several bindings as Views past the real limit are (see [`crate::Wgpu::with_max_binding`]).
pub const MAX_BINDING_ENV: &str = "ROKKOS_WGPU_MAX_BINDING";

/// Environment variable (tests only): the largest wgpu buffer, in bytes, a View's allocation on
/// the default device makes, below the adapter's `max_buffer_size`, so that small Views are held in
/// several buffers as Views past the real limit are (see [`crate::Wgpu::with_max_buffer`]).
pub const MAX_BUFFER_ENV: &str = "ROKKOS_WGPU_MAX_BUFFER";

/// The test limit an environment variable names, if set.
fn env_limit(name: &str) -> std::result::Result<Option<u64>, String> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|e| format!("{name}=`{v}`: not a number of bytes ({e})")),
        Err(_) => Ok(None),
    }
}

fn create() -> std::result::Result<Arc<Ctx>, String> {
    let limits = TestLimits {
        binding: env_limit(MAX_BINDING_ENV)?,
        buffer: env_limit(MAX_BUFFER_ENV)?,
        memory: None,
    };
    create_hiding(super::adapters::hidden_features()?, limits)
}

/// Limits forced below the adapter's for tests (`None`: the adapter's own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TestLimits {
    /// The largest storage binding, in bytes.
    pub binding: Option<u64>,
    /// The largest buffer of a View's allocation, in bytes.
    pub buffer: Option<u64>,
    /// The most bytes the device's Views may hold together.
    pub memory: Option<u64>,
}

/// A device made (or not, and why) for one set of hidden capabilities and test limits.
type Hiding = (
    (wgpu::Features, TestLimits),
    std::result::Result<Arc<Ctx>, String>,
);

/// Devices made by [`hiding_ctx`], one per list of hidden capabilities.
static HIDING: Mutex<Vec<Hiding>> = Mutex::new(Vec::new());

/// A device of its own on the default adapter with the capabilities `hide` lists (as
/// `ROKKOS_WGPU_HIDE` does) hidden and the test limits `limits`; one per (list, limits), made on
/// first use.
pub(crate) fn hiding_ctx(hide: &str, limits: TestLimits) -> std::result::Result<Arc<Ctx>, String> {
    let key = (super::adapters::parse_hidden(hide)?, limits);
    let mut all = HIDING
        .lock()
        .map_err(|_| "a device creation panicked".to_string())?;
    if let Some((_, c)) = all.iter().find(|(h, _)| *h == key) {
        return c.clone();
    }
    let c = create_hiding(key.0, key.1);
    all.push((key, c.clone()));
    c
}

fn create_hiding(
    hidden: wgpu::Features,
    test: TestLimits,
) -> std::result::Result<Arc<Ctx>, String> {
    if let Some(b) = test.buffer.filter(|&b| b < 8) {
        return Err(format!(
            "a buffer limit of {b} bytes: a View's buffer holds at least 8 bytes"
        ));
    }
    let instance = super::adapters::instance();
    let (adapter, chosen_because) = super::adapters::choose(&instance)?;
    let info = adapter.get_info();
    let spin_us = std::env::var(SPIN_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(if info.device_type == wgpu::DeviceType::Cpu {
            0
        } else {
            1000
        });
    let wanted = wgpu::Features::SHADER_F64
        | wgpu::Features::SHADER_INT64
        | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS
        | wgpu::Features::PIPELINE_CACHE;
    // Without SHADER_INT64 the device runs the 32-bit variant of every kernel that has one and
    // uses no 64-bit integer of its own (`rokkos_device::emit::width`); the others answer
    // `Err(Unsupported)` naming SHADER_INT64 and the kernel.
    let features = adapter.features() & wanted & !hidden;
    let mut limits = adapter.limits();
    // rokkos binds one group; asking for more than wgpu-core's own maximum (which an
    // adapter reporting "unlimited", such as wgpu's no-op backend, does) overflows its tables.
    limits.max_bind_groups = limits.max_bind_groups.min(4);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("rokkos"),
        required_features: features,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("adapter `{}`: request_device failed: {e}", info.name))?;
    let pipeline_cache = features
        .contains(wgpu::Features::PIPELINE_CACHE)
        .then(|| open_pipeline_cache(&device, &info))
        .flatten();
    let uncaptured = Arc::new(Mutex::new(None::<String>));
    let sink = uncaptured.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        if let Ok(mut s) = sink.lock() {
            s.get_or_insert_with(|| e.to_string());
        }
    }));
    let err_buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("rokkos error flag"),
        size: (memory_err_words() * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let err_staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("rokkos error flag read-back"),
        size: (memory_err_words() * 4) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let capacity = match (super::budget::device_memory(&adapter), test.memory) {
        (Some(a), Some(t)) => Some(a.min(t)),
        (a, t) => a.or(t),
    };
    let buffer_max = test
        .buffer
        .map_or(limits.max_buffer_size, |m| m.min(limits.max_buffer_size))
        .max(8);
    let binding_max = test
        .binding
        .map_or(limits.max_storage_buffer_binding_size, |m| {
            m.min(limits.max_storage_buffer_binding_size)
        })
        .min(buffer_max);
    Ok(Arc::new(Ctx {
        adapter_name: info.name,
        chosen_because,
        device,
        queue,
        caps: crate::emit::Caps {
            f64: features.contains(wgpu::Features::SHADER_F64),
            int64: features.contains(wgpu::Features::SHADER_INT64),
            atomic64: features.contains(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS),
        },
        binding_max,
        buffer_max,
        limits,
        state: Mutex::new(State {
            encoder: None,
            pending: 0,
            errors: ErrorBook::new(CODES),
            unchecked: false,
            pending_may_fail: false,
            submits: 0,
            arena: None,
            resident: None,
        }),
        pool: Default::default(),
        join_pipelines: Mutex::new(HashMap::new()),
        err_buf,
        err_staging,
        pipelines: Mutex::new(HashMap::new()),
        free_arenas: Arc::new(Mutex::new(Vec::new())),
        bind_groups: Mutex::new(HashMap::new()),
        pipeline_cache,
        kernels: KernelCache::default(),
        uncaptured,
        spin: std::time::Duration::from_micros(spin_us),
        memory: super::budget::Budget::new(capacity),
    }))
}

/// Bytes of one parameter arena: the uniform blocks of every launch of one submission.
const ARENA_BYTES: u64 = 64 * 1024;

/// The parameter blocks of the pending batch: one uniform buffer, filled on the host and written
/// with a single queue write just before the batch is submitted (queue writes land before the
/// submission's commands). It is reused once that submission has completed.
pub(crate) struct Arena {
    buf: wgpu::Buffer,
    bytes: Vec<u8>,
}

/// Bytes of the buffer of resident parameter blocks (see [`Resident`]).
const RESIDENT_BYTES: u64 = 64 * 1024;

/// Parameter blocks of launches that cannot record an error, kept on the device: their blocks hold
/// no launch number, so a kernel launched again with the same arguments (every step of a time
/// loop, every repetition of a benchmark) finds its block already there and writes nothing. A
/// block is written once and never overwritten; when the buffer is full a new one replaces it
/// (the old one lives until the work using it completes).
pub(crate) struct Resident {
    buf: wgpu::Buffer,
    slots: HashMap<Vec<u8>, u64>,
    next: u64,
}

/// Most bind groups kept (the cache is cleared when it would grow past this).
const BIND_GROUP_CACHE: usize = 256;

/// A cached bind group's key: the compiled kernel's address, the buffers bound (each View's
/// first), and the first chunk bound of each split View of a windowed launch (empty otherwise).
pub(crate) type BindGroupKey = (usize, Vec<wgpu::Buffer>, Vec<u32>);

impl Ctx {
    /// Writes the pipeline cache to disk (after a new pipeline was compiled). Failing to write is
    /// not an error of the launch: the cache is an optimisation.
    pub(crate) fn save_pipeline_cache(&self) {
        let Some((cache, file)) = &self.pipeline_cache else {
            return;
        };
        let Some(data) = cache.get_data() else { return };
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        let saved = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&tmp, &data))
            .and_then(|()| std::fs::rename(&tmp, file));
        if saved.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// Drops cached bind groups that name `buf`.
    pub(crate) fn forget_buffer(&self, buf: &wgpu::Buffer) {
        if let Ok(mut m) = self.bind_groups.lock() {
            m.retain(|k, _| !k.1.contains(buf));
        }
    }

    /// The bind group for `key`, from the cache or made by `make` (and cached unless `cache` is
    /// false, for launches whose buffers are used once).
    pub(crate) fn bind_group(
        &self,
        key: BindGroupKey,
        cache: bool,
        make: impl FnOnce() -> wgpu::BindGroup,
    ) -> wgpu::BindGroup {
        if !cache {
            return make();
        }
        let mut m = self.bind_groups.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(bg) = m.get(&key) {
            return bg.clone();
        }
        if m.len() >= BIND_GROUP_CACHE {
            m.clear();
        }
        let bg = make();
        m.insert(key, bg.clone());
        bg
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a buffer-to-buffer copy in the pending encoder (submitted like a launch).
    pub(crate) fn encode_copy(
        &self,
        src: &wgpu::Buffer,
        src_offset: u64,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        len: u64,
    ) {
        let mut st = self.lock();
        let enc = st.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        });
        enc.copy_buffer_to_buffer(src, src_offset, dst, dst_offset, len);
        st.pending += 1;
        if st.pending >= BATCH || self.queue_idle() {
            self.submit_locked(&mut st);
        }
    }

    /// Whether no submission is executing (a non-blocking poll).
    fn queue_idle(&self) -> bool {
        matches!(
            self.device.poll(wgpu::PollType::Poll),
            Ok(wgpu::PollStatus::QueueEmpty)
        )
    }

    fn submit_locked(&self, st: &mut State) {
        if let Some(mut enc) = st.encoder.take() {
            if st.pending_may_fail {
                let bytes = (memory_err_words() * 4) as u64;
                enc.copy_buffer_to_buffer(&self.err_buf, 0, &self.err_staging, 0, bytes);
                st.unchecked = true;
                st.pending_may_fail = false;
            }
            let arena = st.arena.take();
            if let Some(a) = &arena {
                self.queue.write_buffer(&a.buf, 0, &a.bytes);
            }
            self.queue.submit(Some(enc.finish()));
            if let Some(a) = arena {
                let free = self.free_arenas.clone();
                self.queue.on_submitted_work_done(move || {
                    if let Ok(mut f) = free.lock() {
                        f.push(a.buf);
                    }
                });
            }
            st.submits += 1;
        }
        st.pending = 0;
    }

    /// Records one dispatch whose parameter block is `block`: reserves a slot for it in the
    /// pending batch's arena and calls `f` with the pending encoder, the buffer holding the block,
    /// the block's offset in it (a dynamic offset), and whether that buffer outlives the launch
    /// (a pooled arena or the resident blocks: bind groups naming it may be cached). Then
    /// submits when the batch is full or the queue idle. Blocks of launches that cannot record an error are kept
    /// resident instead (see [`Resident`]); blocks larger than an arena get a buffer of their own.
    /// `defer`: the caller encodes more work right away that completes this launch (a reduction's
    /// join or read-back), so an idle queue does not trigger a submission of its own; both go in
    /// one.
    #[allow(clippy::type_complexity)]
    pub(crate) fn encode_with_params(
        &self,
        block: &mut [u8],
        record: Option<(LaunchRecord, &dyn Fn(&mut [u8], u32))>,
        may_fail: bool,
        defer: bool,
        f: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer, u64, bool),
    ) -> Result<()> {
        let align = (self.limits.min_uniform_buffer_offset_alignment as u64).max(16);
        let len = (block.len() as u64).div_ceil(16) * 16;
        let mut st = self.lock();
        let launch = match record {
            Some((rec, set_launch)) => {
                let id = self.number_launch(&mut st, rec)?;
                set_launch(block, id);
                id
            }
            None => 0,
        };
        let block: &[u8] = block;
        let resident = if may_fail || len > RESIDENT_BYTES / 16 {
            None
        } else {
            Some(self.resident_slot(&mut st, block, align, len))
        };
        let (buf, offset, pooled) = if let Some(r) = resident {
            r
        } else if len > ARENA_BYTES {
            let own = wgpu::util::DeviceExt::create_buffer_init(
                &self.device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("rokkos params"),
                    contents: block,
                    usage: wgpu::BufferUsages::UNIFORM,
                },
            );
            (own, 0, false)
        } else {
            let used = st.arena.as_ref().map_or(0, |a| a.bytes.len() as u64);
            if used.div_ceil(align) * align + len > ARENA_BYTES {
                // This batch's arena is full: submit the batch, start another.
                self.submit_locked(&mut st);
            }
            if st.arena.is_none() {
                let reused = self.free_arenas.lock().ok().and_then(|mut f| f.pop());
                let buf = reused.unwrap_or_else(|| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("rokkos params arena"),
                        size: ARENA_BYTES,
                        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                });
                st.arena = Some(Arena {
                    buf,
                    bytes: Vec::new(),
                });
            }
            let a = st.arena.as_mut().expect("the arena was just ensured");
            let offset = (a.bytes.len() as u64).div_ceil(align) * align;
            a.bytes.resize(offset as usize, 0);
            a.bytes.extend_from_slice(block);
            a.bytes.resize((offset + len) as usize, 0);
            (a.buf.clone(), offset, true)
        };
        // The pending encoder is the next submission.
        let batch = st.submits + 1;
        st.errors.set_batch(launch, batch);
        let enc = st.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        });
        f(enc, &buf, offset, pooled);
        st.pending += 1;
        st.pending_may_fail |= may_fail;
        // Launches stay asynchronous either way; what changes is when the GPU sees them. While
        // earlier work is still running, dispatches accumulate in one command buffer (one
        // submission for many kernels); when the queue is idle they go at once, so the GPU never
        // waits for the host to fill a batch.
        if st.pending >= BATCH || (!defer && self.queue_idle()) {
            self.submit_locked(&mut st);
        }
        Ok(())
    }

    /// Numbers a launch that may record an error and remembers it: its number's low bits pick a
    /// free error record on the device. When all are held by launches not read yet, the pending
    /// work is submitted and the records read first (one wait, every [`ERR_SLOTS`] such
    /// launches without a synchronisation at most).
    fn number_launch(&self, st: &mut MutexGuard<'_, State>, rec: LaunchRecord) -> Result<u32> {
        match st.errors.number(rec) {
            Ok(id) => Ok(id),
            Err(rec) => {
                self.drain_locked(st)?;
                st.errors
                    .number(rec)
                    .map_err(|_| unavailable("every error record is still held after reading them"))
            }
        }
    }

    /// Submits the pending work, waits for it and reads the error records: their errors go to
    /// the mailboxes of the threads that launched the failing kernels, and every record is free
    /// again. Holds the lock throughout.
    fn drain_locked(&self, st: &mut MutexGuard<'_, State>) -> Result<()> {
        self.submit_locked(st);
        let covered = st.submits;
        if st.unchecked {
            let words = self.read_record_locked()?;
            st.unchecked = false;
            self.settle_locked(st, Some(&words), covered, false)
        } else {
            self.wait()?;
            self.settle_locked(st, None, covered, false)
        }
    }

    /// The error records as the last submission that holds a kernel able to record an error left
    /// them (`err_staging`); waits for it. The caller holds the lock, so that no submission
    /// writes the staging buffer while it is mapped.
    fn read_record_locked(&self) -> Result<Vec<u32>> {
        let slot = Arc::new(Mutex::new(None));
        let s2 = slot.clone();
        // Resolves once every submission that copies into it has completed.
        self.err_staging
            .map_async(wgpu::MapMode::Read, .., move |r| {
                if let Ok(mut s) = s2.lock() {
                    *s = Some(r);
                }
            });
        self.wait_mapped(&slot, "the error record")?;
        let words: Vec<u32> = {
            let data = self
                .err_staging
                .get_mapped_range(..)
                .map_err(|e| unavailable(format!("mapped range: {e:?}")))?;
            error_words(&data)
        };
        self.err_staging.unmap();
        Ok(words)
    }

    /// The resident copy of `block` (`len` bytes rounded up, slots aligned to `align`): found, or
    /// written now (the queue write lands before the pending batch's commands run).
    fn resident_slot(
        &self,
        st: &mut State,
        block: &[u8],
        align: u64,
        len: u64,
    ) -> (wgpu::Buffer, u64, bool) {
        if let Some(r) = &st.resident {
            if let Some(&off) = r.slots.get(block) {
                return (r.buf.clone(), off, true);
            }
        }
        let full = st
            .resident
            .as_ref()
            .is_none_or(|r| r.next.div_ceil(align) * align + len > RESIDENT_BYTES);
        if full {
            if let Some(old) = st.resident.take() {
                self.forget_buffer(&old.buf);
            }
            st.resident = Some(Resident {
                buf: self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rokkos resident params"),
                    size: RESIDENT_BYTES,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                slots: HashMap::new(),
                next: 0,
            });
        }
        let r = st
            .resident
            .as_mut()
            .expect("the resident buffer was just ensured");
        let off = r.next.div_ceil(align) * align;
        let mut padded = block.to_vec();
        padded.resize(len as usize, 0);
        self.queue.write_buffer(&r.buf, off, &padded);
        r.next = off + len;
        r.slots.insert(block.to_vec(), off);
        (r.buf.clone(), off, true)
    }

    /// Submits the pending encoder (without waiting).
    pub(crate) fn submit(&self) {
        let mut st = self.lock();
        self.submit_locked(&mut st);
    }

    /// Waits until the `map_async` callback that fills `slot` has run. Another thread's poll may
    /// have taken the mapping off wgpu's queue and not yet run the callback when this thread's own
    /// wait returns, so this waits again until it has.
    fn wait_mapped(
        &self,
        slot: &Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>,
        what: &str,
    ) -> Result<()> {
        for _ in 0..100_000 {
            self.wait()?;
            match slot.lock().ok().and_then(|mut s| s.take()) {
                Some(Ok(())) => return Ok(()),
                Some(Err(e)) => return Err(unavailable(format!("mapping {what} failed: {e}"))),
                None => std::thread::yield_now(),
            }
        }
        Err(unavailable(format!("mapping {what} never completed")))
    }

    /// Waits until every submission so far has completed (running the callbacks of finished
    /// work): polls for up to `spin`, then blocks in the driver.
    fn wait(&self) -> Result<()> {
        let failed = |e: wgpu::PollError| unavailable(format!("device poll failed: {e}"));
        if !self.spin.is_zero() {
            let t0 = std::time::Instant::now();
            loop {
                if self
                    .device
                    .poll(wgpu::PollType::Poll)
                    .map_err(failed)?
                    .is_queue_empty()
                {
                    return Ok(());
                }
                if t0.elapsed() >= self.spin {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(failed)?;
        Ok(())
    }

    /// The calling thread's own error `mine`, or else a device error nobody captured: one
    /// synchronisation reports one error, and the other waits for the next one.
    fn then_uncaptured(&self, mine: Result<()>) -> Result<()> {
        mine?;
        self.take_uncaptured()
    }

    /// A device error nobody captured (a rokkos bug), as an error.
    fn take_uncaptured(&self) -> Result<()> {
        let e = self.uncaptured.lock().ok().and_then(|mut s| s.take());
        match e {
            Some(msg) => Err(Error::InvalidArgument(format!("wgpu device error: {msg}"))),
            None => Ok(()),
        }
    }

    /// Submit + wait, then turn an out-of-bounds record into an error: one round trip, and no
    /// submission of its own (every submission ends by copying the record to `err_staging`).
    pub(crate) fn fence(&self) -> Result<()> {
        let mine = {
            let mut st = self.lock();
            self.submit_locked(&mut st);
            let covered = st.submits;
            if !st.unchecked {
                // Every record was read after the work that could write it: wait unlocked.
                drop(st);
                self.wait()?;
                // Another thread's synchronisation may have read this thread's error.
                let mine = self.settle_locked(&mut self.lock(), None, covered, true);
                return self.then_uncaptured(mine);
            }
            // The lock is held until the staging buffer is unmapped.
            let words = self.read_record_locked()?;
            st.unchecked = false;
            self.settle_locked(&mut st, Some(&words), covered, true)
        };
        self.then_uncaptured(mine)
    }

    /// The one host synchronisation: submits the pending work together with copies of every
    /// region (`buffer, offset, size`, offsets and sizes multiples of 4) and of the error words
    /// into one staging buffer, waits once, and returns each region's bytes. An out-of-bounds
    /// record then becomes the error (and is cleared).
    pub(crate) fn read_regions(
        &self,
        regions: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Vec<Vec<u8>>> {
        let err_bytes = (memory_err_words() * 4) as u64;
        let total = err_bytes + regions.iter().map(|r| r.2).sum::<u64>();
        let staging = super::pool::take(&self.pool, &self.device, Kind::Staging, total as usize);
        let submitted = {
            let mut st = self.lock();
            let enc = st.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            enc.copy_buffer_to_buffer(&self.err_buf, 0, &staging, 0, err_bytes);
            let mut at = err_bytes;
            for &(buf, offset, size) in regions {
                if size > 0 {
                    enc.copy_buffer_to_buffer(buf, offset, &staging, at, size);
                }
                at += size;
            }
            self.submit_locked(&mut st);
            st.submits
        };
        let slot = Arc::new(Mutex::new(None));
        let s2 = slot.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            if let Ok(mut s) = s2.lock() {
                *s = Some(r);
            }
        });
        let mapped = self
            .wait_mapped(&slot, "a read-back buffer")
            .and_then(|()| {
                staging
                    .get_mapped_range(..)
                    .map_err(|e| unavailable(format!("mapped range: {e:?}")))
            });
        let (words, out) = {
            let data = match mapped {
                Ok(d) => d,
                Err(e) => {
                    // Its map state is unknown: it must not serve another read-back.
                    staging.discard();
                    return Err(e);
                }
            };
            let words = error_words(&data[..err_bytes as usize]);
            let mut at = err_bytes as usize;
            let out: Vec<Vec<u8>> = regions
                .iter()
                .map(|r| {
                    let v = data[at..at + r.2 as usize].to_vec();
                    at += r.2 as usize;
                    v
                })
                .collect();
            (words, out)
        };
        staging.unmap();
        let mine = {
            // This read saw the record after every submission up to its own: unless another
            // thread submitted since, a fence need not read it again.
            let mut st = self.lock();
            if st.submits == submitted {
                st.unchecked = false;
            }
            self.settle_locked(&mut st, Some(&words), submitted, true)
        };
        self.then_uncaptured(mine)?;
        Ok(out)
    }

    /// Settles a synchronisation with the state locked. `words`: the error records, read back
    /// after every submission up to `covered` completed; a new error there goes to the mailbox of
    /// the thread that launched the failing kernel (its first one stays), and its record on the
    /// device is cleared. Then the launches of the submissions up to `covered` are complete and
    /// their records read (by this or an earlier read): they are forgotten and their records
    /// freed. `take_mine`: the calling thread's mailbox is the result.
    fn settle_locked(
        &self,
        st: &mut State,
        words: Option<&[u32]>,
        covered: u64,
        take_mine: bool,
    ) -> Result<()> {
        st.errors.settle(words, covered, |slot| {
            // Lands before any later submission, hence before the record's next launch.
            self.queue.write_buffer(
                &self.err_buf,
                (slot * SLOT_WORDS * 4) as u64,
                &[0u8; SLOT_WORDS * 4],
            );
        });
        if take_mine {
            st.errors.take_mine()
        } else {
            Ok(())
        }
    }
}
