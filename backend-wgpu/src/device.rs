//! The device context: adapter choice, the pending command encoder, the error-flag buffer, the
//! pipeline cache, and host read-back.

use crate::emit::memory_err_words;
use rokkos_core::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) const BACKEND: &str = "wgpu";
/// Dispatches encoded before the pending encoder is submitted without waiting for a fence.
const BATCH: usize = 32;

/// What the host remembers of a launch until its work is known to be complete, to describe an
/// out-of-bounds record.
pub(crate) struct LaunchRecord {
    pub kernel: String,
    /// Label and extents of each View parameter.
    pub views: Vec<(String, Vec<usize>)>,
    /// Names of the body's locals (for local-array records).
    pub locals: Vec<String>,
}

pub(crate) struct State {
    encoder: Option<wgpu::CommandEncoder>,
    pending: usize,
    pub launches: HashMap<u32, LaunchRecord>,
    pub next_launch: u32,
}

/// One device and queue with everything launches share.
pub(crate) struct Ctx {
    pub adapter_name: String,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub caps: crate::emit::Caps,
    pub limits: wgpu::Limits,
    pub state: Mutex<State>,
    pub err_buf: wgpu::Buffer,
    pub pipelines: Mutex<HashMap<(u64, String), Arc<wgpu::ComputePipeline>>>,
    uncaptured: Arc<Mutex<Option<String>>>,
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

fn create() -> std::result::Result<Arc<Ctx>, String> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = match std::env::var("ROKKOS_WGPU_ADAPTER") {
        Ok(want) if !want.is_empty() => {
            let all = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
            let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
            let w = want.to_lowercase();
            all.into_iter()
                .find(|a| a.get_info().name.to_lowercase().contains(&w))
                .ok_or_else(|| {
                    format!("no adapter name contains ROKKOS_WGPU_ADAPTER=`{want}` (adapters: {names:?})")
                })?
        }
        _ => pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .map_err(|e| format!("no wgpu adapter: {e}"))?,
    };
    let info = adapter.get_info();
    let wanted = wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64;
    let features = adapter.features() & wanted;
    let limits = adapter.limits();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("rokkos"),
        required_features: features,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("adapter `{}`: request_device failed: {e}", info.name))?;
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
    Ok(Arc::new(Ctx {
        adapter_name: info.name,
        device,
        queue,
        caps: crate::emit::Caps {
            f64: features.contains(wgpu::Features::SHADER_F64),
            int64: features.contains(wgpu::Features::SHADER_INT64),
        },
        limits,
        state: Mutex::new(State {
            encoder: None,
            pending: 0,
            launches: HashMap::new(),
            next_launch: 1,
        }),
        err_buf,
        pipelines: Mutex::new(HashMap::new()),
        uncaptured,
    }))
}

impl Ctx {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records work into the pending encoder; submits after a batch of dispatches.
    pub(crate) fn encode(&self, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut st = self.lock();
        let enc = st.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        });
        f(enc);
        st.pending += 1;
        if st.pending >= BATCH {
            Self::submit_locked(self, &mut st);
        }
    }

    fn submit_locked(&self, st: &mut State) {
        if let Some(enc) = st.encoder.take() {
            self.queue.submit(Some(enc.finish()));
        }
        st.pending = 0;
    }

    /// Submits the pending encoder (without waiting).
    pub(crate) fn submit(&self) {
        let mut st = self.lock();
        self.submit_locked(&mut st);
    }

    fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| unavailable(format!("device poll failed: {e}")))?;
        Ok(())
    }

    /// A device error nobody captured (a rokkos bug), as an error.
    fn take_uncaptured(&self) -> Result<()> {
        let e = self.uncaptured.lock().ok().and_then(|mut s| s.take());
        match e {
            Some(msg) => Err(Error::InvalidArgument(format!("wgpu device error: {msg}"))),
            None => Ok(()),
        }
    }

    /// Submit + wait, then turn an out-of-bounds record into an error.
    pub(crate) fn fence(&self) -> Result<()> {
        self.submit();
        self.wait()?;
        self.take_uncaptured()?;
        self.check_oob()
    }

    /// Copies `size` bytes at `offset` (both multiples of 4) of `buf` to the host (submits pending
    /// work first and waits).
    pub(crate) fn read_back(&self, buf: &wgpu::Buffer, offset: u64, size: u64) -> Result<Vec<u8>> {
        if size == 0 {
            return Ok(Vec::new());
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("rokkos read-back"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        {
            let mut st = self.lock();
            let enc = st.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            enc.copy_buffer_to_buffer(buf, offset, &staging, 0, size);
            self.submit_locked(&mut st);
        }
        let slot = Arc::new(Mutex::new(None));
        let s2 = slot.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            if let Ok(mut s) = s2.lock() {
                *s = Some(r);
            }
        });
        self.wait()?;
        match slot.lock().ok().and_then(|mut s| s.take()) {
            Some(Ok(())) => {}
            other => {
                return Err(unavailable(format!(
                    "mapping a read-back buffer failed: {other:?}"
                )))
            }
        }
        let data = staging
            .get_mapped_range(..)
            .map_err(|e| unavailable(format!("mapped range: {e:?}")))?
            .to_vec();
        staging.unmap();
        self.take_uncaptured()?;
        Ok(data)
    }

    /// Reads the error flag; when set, clears it and returns `Err(OutOfBounds)` describing the
    /// first recorded access. All launches submitted so far are complete afterwards.
    pub(crate) fn check_oob(&self) -> Result<()> {
        let words = memory_err_words();
        let bytes = self.read_back(&self.err_buf, 0, (words * 4) as u64)?;
        let w: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut st = self.lock();
        if w[0] == 0 {
            st.launches.clear();
            return Ok(());
        }
        self.queue
            .write_buffer(&self.err_buf, 0, &vec![0u8; words * 4]);
        let (launch, code, rank) = (w[1], w[2], (w[3] as usize).min(8));
        let index: Vec<u64> = (0..rank)
            .map(|d| w[4 + 2 * d] as u64 | ((w[5 + 2 * d] as u64) << 32))
            .collect();
        let rec = st.launches.get(&launch);
        let (kernel, view, extents) = match rec {
            Some(r) if (code as usize) < r.views.len() => (
                r.kernel.clone(),
                r.views[code as usize].0.clone(),
                format!("{:?}", r.views[code as usize].1),
            ),
            Some(r) if code >= crate::emit::ARRAY_CODE => {
                let l = (code - crate::emit::ARRAY_CODE) as usize;
                (
                    r.kernel.clone(),
                    format!(
                        "local array `{}`",
                        r.locals.get(l).cloned().unwrap_or_default()
                    ),
                    "(its length)".into(),
                )
            }
            _ => ("?".into(), "?".into(), "?".into()),
        };
        st.launches.clear();
        Err(Error::OutOfBounds {
            kernel,
            view,
            index: format!("{index:?}"),
            extents,
        })
    }
}
