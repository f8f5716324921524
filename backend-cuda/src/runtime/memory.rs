//! [`CudaSpace`]: Views in device memory, ordered on a stream; host mirrors in pinned memory.
//!
//! Every operation is enqueued on the stream of the space it is called on. A buffer remembers
//! which streams have used it since they were last ordered before another ([`CudaBuffer::order`]):
//! work on one stream that writes a buffer waits (on the device, through an event) for every
//! other stream's earlier use of it, and work that reads it waits for other streams' earlier
//! writes. Two instances of one device (Kokkos' `partition_space`) can therefore share Views
//! without a data race, and fencing one never waits for the other. Work on a single stream needs
//! no event at all. Freeing a buffer is ordered the same way, so memory a kernel still uses is
//! never handed out again.

use super::device::{self, check_same_device, default_ordinal, Instance};
use super::driver::{self, is_oom, unavailable};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, PinnedHostSlice};
use rokkos_core::space::check_byte_range;
use rokkos_core::{Error, HostBuffer, HostSpace, MemorySpace, Result};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

/// The CUDA memory space: device memory of one GPU, with copies ordered on one stream.
///
/// `CudaSpace::default()` is the default instance of the device `ROKKOS_CUDA_DEVICE` names (0
/// when unset), as [`crate::Cuda::new`] gives; `Cuda::memory_space()` gives the space of that
/// execution space's own stream. Without a usable device, allocating answers
/// `Err(BackendUnavailable)` with the reason.
#[derive(Clone)]
pub struct CudaSpace {
    pub(crate) inst: std::result::Result<Arc<Instance>, String>,
}

impl std::fmt::Debug for CudaSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inst {
            Ok(i) => write!(f, "CudaSpace({i:?})"),
            Err(e) => write!(f, "CudaSpace(unavailable: {e})"),
        }
    }
}

impl Default for CudaSpace {
    fn default() -> Self {
        let inst = default_ordinal()
            .and_then(device::device)
            .and_then(|d| d.default_instance());
        CudaSpace {
            inst: inst.map_err(|e| match e {
                Error::BackendUnavailable { reason, .. } => reason,
                e => e.to_string(),
            }),
        }
    }
}

impl CudaSpace {
    pub(crate) fn instance(&self) -> Result<&Arc<Instance>> {
        self.inst.as_ref().map_err(|e| unavailable(e.clone()))
    }
}

/// One stream's use of a buffer not yet ordered before another stream's.
struct Use {
    stream: Arc<CudaStream>,
    wrote: bool,
}

/// One device allocation (owned by a View's allocation; dropping it frees the memory once the
/// work using it is done).
pub struct CudaBuffer {
    slice: CudaSlice<u8>,
    bytes: usize,
    /// The instance whose stream allocated it (and frees it).
    home: Arc<Instance>,
    uses: Mutex<Vec<Use>>,
}

impl std::fmt::Debug for CudaBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaBuffer({} bytes on {:?})",
            self.bytes, self.home.device
        )
    }
}

impl CudaBuffer {
    /// Size in bytes as requested.
    pub fn len_bytes(&self) -> usize {
        self.bytes
    }

    /// Orders work about to be enqueued on `inst`'s stream, which reads this buffer (or writes it,
    /// `write`), after every use of it on another stream that conflicts: such a stream gets an
    /// event recorded now, covering its earlier work, and `inst`'s stream waits for it on the
    /// device. Then records this use.
    pub(crate) fn order(&self, inst: &Instance, write: bool) -> Result<()> {
        let me = &inst.stream;
        let mut uses = self.uses.lock().unwrap_or_else(|p| p.into_inner());
        let mut kept: Vec<Use> = Vec::with_capacity(uses.len() + 1);
        for u in uses.drain(..) {
            if u.stream.cu_stream() == me.cu_stream() || !(write || u.wrote) {
                kept.push(u);
                continue;
            }
            let event = u
                .stream
                .record_event(None)
                .map_err(|e| driver::error("cuEventRecord", e))?;
            me.wait(&event)
                .map_err(|e| driver::error("cuStreamWaitEvent", e))?;
        }
        match kept
            .iter_mut()
            .find(|u| u.stream.cu_stream() == me.cu_stream())
        {
            Some(u) => u.wrote |= write,
            None => kept.push(Use {
                stream: me.clone(),
                wrote: write,
            }),
        }
        *uses = kept;
        Ok(())
    }

    /// The device address of byte `offset` (crate-internal: raw device pointers never reach safe
    /// public API). The caller has checked the range and ordered the use ([`CudaBuffer::order`]).
    pub(crate) fn device_ptr(&self, inst: &Instance, offset: usize) -> CUdeviceptr {
        // Event tracking is off (see `device::open`), so the guard records nothing.
        let (ptr, _guard) = self.slice.device_ptr(&inst.stream);
        ptr + offset as CUdeviceptr
    }

    /// The memory space of the stream that allocated this buffer (its byte operations are
    /// ordered there, and its kernels' errors are reported there).
    pub fn space(&self) -> CudaSpace {
        CudaSpace {
            inst: Ok(self.home.clone()),
        }
    }

    /// Whether the buffer lives on `inst`'s device.
    pub(crate) fn on_device_of(&self, inst: &Instance) -> bool {
        device::same_device(&self.home, inst)
    }
}

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        // The slice is freed on its home stream right after this (stream-ordered): make that
        // stream wait for every other stream's use first. An error here has nowhere to go but
        // the context's record, which the next fence reports.
        let home = self.home.clone();
        if let Err(e) = self.order(&home, true) {
            eprintln!("rokkos-cuda: ordering the release of a buffer failed: {e}");
        }
    }
}

/// Page-locked host memory adopted by a [`HostBuffer`] (a mirror).
struct Pinned {
    _mem: PinnedHostSlice<u8>,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: `Pinned` owns its allocation like a `Box<[u8]>` (`ptr` points into `_mem`, which is
// `Send`); a View handle, and with it the mirror's buffer, may be dropped on another thread.
unsafe impl Send for Pinned {}

impl AsMut<[u8]> for Pinned {
    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` and `len` describe the allocation `_mem` owns, which lives as long as
        // `self`; `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl MemorySpace for CudaSpace {
    const NAME: &'static str = "CudaSpace";
    type Buffer = CudaBuffer;

    fn allocate(&self, label: &str, bytes: usize, _align: usize) -> Result<CudaBuffer> {
        let inst = self.instance()?;
        let oom = || Error::OutOfMemory {
            label: label.to_string(),
            bytes,
        };
        // Whole 8-byte words, at least one: a kernel's view of an empty allocation stays valid,
        // and the driver refuses zero-byte allocations. Device allocations are 256-byte aligned,
        // so the aligned 32-bit word holding any 8- or 16-bit element, on which that element's
        // atomics act (`emit::atomic`), lies inside the allocation.
        let size = bytes.checked_next_multiple_of(8).ok_or_else(oom)?.max(8);
        if size > inst.device.info.total_memory {
            return Err(oom());
        }
        inst.bind()?;
        let slice = inst.stream.alloc_zeros::<u8>(size).map_err(|e| {
            if is_oom(&e) {
                oom()
            } else {
                driver::error("cuMemAllocAsync", e)
            }
        })?;
        Ok(CudaBuffer {
            slice,
            bytes,
            home: inst.clone(),
            // The zero fill runs on the home stream: other streams wait for it.
            uses: Mutex::new(vec![Use {
                stream: inst.stream.clone(),
                wrote: true,
            }]),
        })
    }

    fn host_ptr(_buffer: &CudaBuffer) -> Option<NonNull<u8>> {
        None
    }

    fn owns(&self, buffer: &CudaBuffer) -> bool {
        self.instance().is_ok_and(|i| buffer.on_device_of(i))
    }

    unsafe fn read_bytes(&self, buffer: &CudaBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        check_byte_range(buffer.bytes, offset, dst.len())?;
        let inst = self.instance()?;
        check_same_device(inst, &buffer.home, "read_bytes")?;
        if !dst.is_empty() {
            buffer.order(inst, false)?;
            inst.bind()?;
            let src = buffer.device_ptr(inst, offset);
            // SAFETY: `src .. src + dst.len()` lies inside the allocation (checked above) and is
            // ordered after its writers; `dst` is writable for its length and the fence below
            // returns only once the copy has finished (or the context is dead, when no copy runs).
            unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, src, inst.stream.cu_stream()) }
                .map_err(|e| driver::error("cuMemcpyDtoHAsync", e))?;
        }
        inst.fence()
    }

    unsafe fn write_bytes(&self, buffer: &CudaBuffer, offset: usize, src: &[u8]) -> Result<()> {
        check_byte_range(buffer.bytes, offset, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        let inst = self.instance()?;
        check_same_device(inst, &buffer.home, "write_bytes")?;
        buffer.order(inst, true)?;
        inst.bind()?;
        let dst = buffer.device_ptr(inst, offset);
        // SAFETY: as in `read_bytes`. A pinned `src` is read by the copy engine after this call
        // returns, so the fence below is what keeps the caller from changing it meanwhile.
        unsafe { cudarc::driver::result::memcpy_htod_async(dst, src, inst.stream.cu_stream()) }
            .map_err(|e| driver::error("cuMemcpyHtoDAsync", e))?;
        // A host write waits for its copy; a kernel failure found meanwhile stays in its
        // thread's mailbox for the next fence or host read.
        inst.sync(false)
    }

    unsafe fn copy_bytes(
        &self,
        src: &CudaBuffer,
        src_offset: usize,
        dst: &CudaBuffer,
        dst_offset: usize,
        len: usize,
    ) -> Option<Result<()>> {
        let inst = match self.instance() {
            Ok(i) => i,
            Err(e) => return Some(Err(e)),
        };
        // Buffers of another device go through the host.
        if !src.on_device_of(inst) || !dst.on_device_of(inst) {
            return None;
        }
        let run = || -> Result<()> {
            check_byte_range(src.bytes, src_offset, len)?;
            check_byte_range(dst.bytes, dst_offset, len)?;
            if len == 0 {
                return Ok(());
            }
            src.order(inst, false)?;
            dst.order(inst, true)?;
            inst.bind()?;
            let (s, d) = (
                src.device_ptr(inst, src_offset),
                dst.device_ptr(inst, dst_offset),
            );
            // SAFETY: both ranges lie inside their allocations (two distinct ones, by the
            // trait's contract) and are ordered on this stream after their conflicting uses.
            unsafe { cudarc::driver::result::memcpy_dtod_async(d, s, len, inst.stream.cu_stream()) }
                .map_err(|e| driver::error("cuMemcpyDtoDAsync", e))
        };
        Some(run())
    }

    fn allocate_mirror(&self, label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        let inst = self.instance()?;
        // Pinned memory cannot be empty, and is a scarce resource: an empty mirror, or one the
        // driver cannot pin, is ordinary host memory (correct, only slower to copy).
        if bytes == 0 || bytes >= isize::MAX as usize {
            return HostSpace.allocate(label, bytes, align);
        }
        inst.bind()?;
        // PORTABLE: every context may copy from it. Not WRITECOMBINED (cudarc's default), which
        // the host reads very slowly, and mirrors are read by the host.
        // SAFETY: the memory is zero-filled below before anything reads it.
        let mem = unsafe {
            inst.device
                .ctx
                .alloc_pinned_with_flags::<u8>(bytes, cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE)
        };
        let mut mem = match mem {
            Ok(m) => m,
            Err(e) if is_oom(&e) => return HostSpace.allocate(label, bytes, align),
            Err(e) => return Err(driver::error("cuMemHostAlloc", e)),
        };
        let ptr = mem
            .as_mut_ptr()
            .map_err(|e| driver::error("cuEventSynchronize", e))?;
        let ptr = NonNull::new(ptr).ok_or_else(|| unavailable("cuMemHostAlloc returned null"))?;
        // SAFETY: `ptr` is the start of a fresh `bytes`-byte allocation nobody else refers to.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, bytes) };
        Ok(HostBuffer::from_owner(Pinned {
            _mem: mem,
            ptr,
            len: bytes,
        }))
    }
}
