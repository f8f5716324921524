//! [`WgpuSpace`]: Views in wgpu storage buffers.

use super::ctx::{default_ctx, unavailable, Ctx, BACKEND};
use rokkos_core::{Error, MemorySpace, Result};
use std::ptr::NonNull;
use std::sync::Arc;

/// The wgpu memory space: every allocation is one storage buffer
/// (`STORAGE | COPY_SRC | COPY_DST`, size rounded up to 8 bytes) on the space's device, of at
/// most the device's `max_buffer_size`; a kernel binds one larger than a storage binding may be
/// as several chunks.
///
/// `WgpuSpace::default()` is bound to the process-wide default device, the one [`crate::Wgpu::new`]
/// uses. When no adapter exists, allocating answers `Err(BackendUnavailable)` with the reason.
#[derive(Clone)]
pub struct WgpuSpace {
    pub(crate) ctx: std::result::Result<Arc<Ctx>, String>,
}

impl std::fmt::Debug for WgpuSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.ctx {
            Ok(c) => write!(f, "WgpuSpace({})", c.adapter_name),
            Err(e) => write!(f, "WgpuSpace(unavailable: {e})"),
        }
    }
}

impl Default for WgpuSpace {
    fn default() -> Self {
        WgpuSpace { ctx: default_ctx() }
    }
}

impl WgpuSpace {
    pub(crate) fn ctx(&self) -> Result<&Arc<Ctx>> {
        self.ctx.as_ref().map_err(|e| unavailable(e.clone()))
    }
}

/// One wgpu allocation (owned by a View's allocation; dropping it frees the buffer).
pub struct WgpuBuffer {
    pub(crate) buf: wgpu::Buffer,
    pub(crate) bytes: usize,
    pub(crate) ctx: Arc<Ctx>,
}

impl Drop for WgpuBuffer {
    fn drop(&mut self) {
        // Cached bind groups naming this buffer would keep its memory alive.
        self.ctx.forget_buffer(&self.buf);
    }
}

impl std::fmt::Debug for WgpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WgpuBuffer({} bytes)", self.bytes)
    }
}

impl MemorySpace for WgpuSpace {
    const NAME: &'static str = "WgpuSpace";
    type Buffer = WgpuBuffer;

    fn allocate(&self, label: &str, bytes: usize, _align: usize) -> Result<WgpuBuffer> {
        let ctx = self.ctx()?.clone();
        // A multiple of 8 bytes, at least 8: a binding of `array<f64>` (or i64/u64) must hold one
        // element even for an empty View.
        let size = (bytes.div_ceil(8) * 8).max(8) as u64;
        // A View larger than one storage binding is bound as several chunks of this one buffer
        // (`launch::splits`); only one wgpu buffer's own limit bounds it.
        let max = ctx.limits.max_buffer_size;
        if size > max {
            return Err(Error::Unsupported {
                backend: BACKEND.into(),
                feature: format!(
                    "View `{label}` of {bytes} bytes: above the device's max_buffer_size ({max} bytes on `{}`; a View over several buffers is not implemented)",
                    ctx.adapter_name
                ),
            });
        }
        let oom = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let v = pollster::block_on(val.pop());
        let o = pollster::block_on(oom.pop());
        if o.is_some() || v.is_some() {
            return Err(Error::OutOfMemory {
                label: label.to_string(),
                bytes,
            });
        }
        Ok(WgpuBuffer { buf, bytes, ctx })
    }
    fn host_ptr(_buffer: &WgpuBuffer) -> Option<NonNull<u8>> {
        None
    }
    fn owns(&self, buffer: &WgpuBuffer) -> bool {
        self.ctx.as_ref().is_ok_and(|c| Arc::ptr_eq(c, &buffer.ctx))
    }
    unsafe fn read_bytes(&self, buffer: &WgpuBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        rokkos_core::space::check_byte_range(buffer.bytes, offset, dst.len())?;
        let ctx = &buffer.ctx;
        if dst.is_empty() {
            return ctx.fence();
        }
        let a0 = offset & !3;
        let a1 = (offset + dst.len()).div_ceil(4) * 4;
        let data = ctx.read_back(&buffer.buf, a0 as u64, (a1 - a0) as u64)?;
        dst.copy_from_slice(&data[offset - a0..offset - a0 + dst.len()]);
        Ok(())
    }
    unsafe fn copy_bytes(
        &self,
        src: &WgpuBuffer,
        src_offset: usize,
        dst: &WgpuBuffer,
        dst_offset: usize,
        len: usize,
    ) -> Option<Result<()>> {
        // A buffer copy on the device, queued after the launches already recorded (asynchronous,
        // like them); wgpu copies whole words, so unaligned requests go through the host.
        let aligned = [src_offset, dst_offset, len].iter().all(|x| x % 4 == 0);
        if !aligned || !Arc::ptr_eq(&src.ctx, &dst.ctx) {
            return None;
        }
        let checked = rokkos_core::space::check_byte_range(src.bytes, src_offset, len)
            .and_then(|()| rokkos_core::space::check_byte_range(dst.bytes, dst_offset, len));
        Some(checked.map(|()| {
            dst.ctx.encode_copy(
                &src.buf,
                src_offset as u64,
                &dst.buf,
                dst_offset as u64,
                len as u64,
            )
        }))
    }
    unsafe fn write_bytes(&self, buffer: &WgpuBuffer, offset: usize, src: &[u8]) -> Result<()> {
        rokkos_core::space::check_byte_range(buffer.bytes, offset, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        let ctx = &buffer.ctx;
        // Earlier launches must see the old contents: submit them before the queue write.
        ctx.submit();
        let a0 = offset & !3;
        let a1 = (offset + src.len()).div_ceil(4) * 4;
        if a0 == offset && a1 == offset + src.len() {
            ctx.queue.write_buffer(&buffer.buf, offset as u64, src);
        } else {
            let mut data = ctx.read_back(&buffer.buf, a0 as u64, (a1 - a0) as u64)?;
            data[offset - a0..offset - a0 + src.len()].copy_from_slice(src);
            ctx.queue.write_buffer(&buffer.buf, a0 as u64, &data);
        }
        Ok(())
    }
}
