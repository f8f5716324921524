//! [`WgpuSpace`]: Views in wgpu storage buffers.

use super::ctx::{default_ctx, unavailable, Ctx};
use super::segments::Segments;
use rokkos_core::space::check_byte_range;
use rokkos_core::{Error, MemorySpace, Result};
use std::ptr::NonNull;
use std::sync::Arc;

/// The wgpu memory space: every allocation is one storage buffer
/// (`STORAGE | COPY_SRC | COPY_DST`, size rounded up to 8 bytes) on the space's device when it
/// fits the device's `max_buffer_size`, else several ("segments", see [`WgpuBuffer`]); a kernel
/// binds one larger than a storage binding as several chunks, each inside one segment.
///
/// An allocation either exists, every buffer of it, or is `Err(OutOfMemory)` naming the View
/// and the bytes, at once: refused before any buffer is made when the device's Views would
/// hold more than its memory ([`crate::Wgpu::device_memory`], `runtime::budget`), and refused
/// with the buffers already made destroyed when the driver refuses one.
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

/// One View allocation (dropping it frees its buffers): one wgpu buffer, or for a View larger
/// than the device's `max_buffer_size` several "segments" of a power of two of bytes each (the
/// last shorter), in order. A segment is a whole number of the binding chunks of every element
/// type (`runtime::segments`), so a launch binds each chunk from the segment holding it and the
/// shader is the one a single buffer would get.
pub struct WgpuBuffer {
    /// The segments in order (one for a View within `max_buffer_size`).
    pub(crate) segs: Vec<wgpu::Buffer>,
    /// Where the allocation's bytes lie among `segs`.
    pub(crate) layout: Segments,
    /// Bytes asked for (the buffers hold them rounded up to 8).
    pub(crate) bytes: usize,
    pub(crate) ctx: Arc<Ctx>,
}

impl WgpuBuffer {
    /// Bytes of the device's memory budget this allocation holds (`runtime::budget`).
    fn claimed(&self) -> u64 {
        self.layout.total
    }
}

impl WgpuBuffer {
    /// Bytes of the allocation, all segments together (the request rounded up to 8).
    pub(crate) fn size(&self) -> u64 {
        self.layout.total
    }
    /// The first segment: it names the allocation (two Views share an allocation exactly when
    /// they share it), as in bind-group keys and aliasing checks.
    pub(crate) fn first(&self) -> &wgpu::Buffer {
        &self.segs[0]
    }
    /// The segment holding bytes `[offset, offset + size)` and their offset in it; `None` when
    /// they straddle two segments (never for a binding chunk or an element).
    pub(crate) fn within(&self, offset: u64, size: u64) -> Option<(&wgpu::Buffer, u64)> {
        let (j, o) = self.layout.locate(offset);
        (o + size <= self.layout.len(j)).then(|| (&self.segs[j], o))
    }
}

impl Drop for WgpuBuffer {
    fn drop(&mut self) {
        // Cached bind groups naming this allocation would keep its memory alive.
        for b in &self.segs {
            self.ctx.forget_buffer(b);
        }
        self.ctx.memory.give_back(self.claimed());
    }
}

impl std::fmt::Debug for WgpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WgpuBuffer({} bytes", self.bytes)?;
        if self.segs.len() > 1 {
            write!(f, " in {} buffers", self.segs.len())?;
        }
        write!(f, ")")
    }
}

/// Bytes one host read copies through one staging buffer: the staging buffer also holds the
/// error words, and must itself fit the device's `max_buffer_size`; nor is it larger than a
/// View's buffer (so a test limit exercises reads in several batches). A multiple of 4.
fn staging_cap(ctx: &Ctx) -> u64 {
    let err = (crate::emit::memory_err_words() * 4) as u64;
    let cap = ctx
        .limits
        .max_buffer_size
        .saturating_sub(err)
        .min(ctx.buffer_max);
    (cap & !3).max(4)
}

/// Reads bytes `[a0, a1)` (multiples of 4, inside the allocation) to the host: the pieces of one
/// staging buffer each go in one read-back, so a View of several segments costs one wait per
/// staging buffer's worth of bytes.
fn read_words(buffer: &WgpuBuffer, a0: u64, a1: u64) -> Result<Vec<u8>> {
    let ctx = &buffer.ctx;
    let cap = staging_cap(ctx);
    let mut out = Vec::with_capacity((a1 - a0) as usize);
    let pieces = buffer.layout.pieces(a0, a1 - a0, cap);
    let mut batch: Vec<(&wgpu::Buffer, u64, u64)> = Vec::new();
    let mut held = 0;
    for (j, o, n) in pieces {
        if held + n > cap {
            for v in ctx.read_regions(&batch)? {
                out.extend_from_slice(&v);
            }
            batch.clear();
            held = 0;
        }
        batch.push((&buffer.segs[j], o, n));
        held += n;
    }
    for v in ctx.read_regions(&batch)? {
        out.extend_from_slice(&v);
    }
    Ok(out)
}

/// Queues the write of `data` at byte `at` (both multiples of 4) of the allocation, one queue
/// write per segment it touches.
fn write_words(buffer: &WgpuBuffer, at: u64, data: &[u8]) {
    let mut done = 0usize;
    for (j, o, n) in buffer.layout.pieces(at, data.len() as u64, u64::MAX) {
        let n = n as usize;
        buffer
            .ctx
            .queue
            .write_buffer(&buffer.segs[j], o, &data[done..done + n]);
        done += n;
    }
}

impl MemorySpace for WgpuSpace {
    const NAME: &'static str = "WgpuSpace";
    type Buffer = WgpuBuffer;

    fn allocate(&self, label: &str, bytes: usize, _align: usize) -> Result<WgpuBuffer> {
        let ctx = self.ctx()?.clone();
        // A multiple of 8 bytes, at least 8: a binding of `array<f64>` (or i64/u64) must hold one
        // element even for an empty View.
        let refused = || Error::OutOfMemory {
            label: label.to_string(),
            bytes,
        };
        let size = (bytes.div_ceil(8) * 8).max(8) as u64;
        let layout = Segments::new(size, ctx.buffer_max);
        // Refused before any buffer exists when the device's Views would hold more than its
        // memory (`runtime::budget`): a driver backing memory lazily would accept every one.
        if !ctx.memory.claim(layout.total) {
            return Err(refused());
        }
        // Each buffer under its own scopes, so that the first one refused ends the allocation
        // (a View of thousands of buffers is not made in full to be thrown away), and the ones
        // made are destroyed: never a View with part of its memory.
        let mut segs: Vec<wgpu::Buffer> = Vec::with_capacity(layout.count());
        for j in 0..layout.count() {
            let oom = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let val = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: layout.len(j),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let v = pollster::block_on(val.pop());
            let o = pollster::block_on(oom.pop());
            segs.push(b);
            if o.is_some() || v.is_some() {
                for b in &segs {
                    b.destroy();
                }
                ctx.memory.give_back(layout.total);
                return Err(refused());
            }
        }
        Ok(WgpuBuffer {
            segs,
            layout,
            bytes,
            ctx,
        })
    }
    fn host_ptr(_buffer: &WgpuBuffer) -> Option<NonNull<u8>> {
        None
    }
    fn owns(&self, buffer: &WgpuBuffer) -> bool {
        self.ctx.as_ref().is_ok_and(|c| Arc::ptr_eq(c, &buffer.ctx))
    }
    unsafe fn read_bytes(&self, buffer: &WgpuBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        check_byte_range(buffer.bytes, offset, dst.len())?;
        if dst.is_empty() {
            return buffer.ctx.fence();
        }
        let a0 = offset & !3;
        let a1 = (offset + dst.len()).div_ceil(4) * 4;
        let data = read_words(buffer, a0 as u64, a1 as u64)?;
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
        // Buffer copies on the device, queued after the launches already recorded (asynchronous,
        // like them); wgpu copies whole words, so unaligned requests go through the host.
        let aligned = [src_offset, dst_offset, len].iter().all(|x| x % 4 == 0);
        if !aligned || !Arc::ptr_eq(&src.ctx, &dst.ctx) {
            return None;
        }
        let checked = check_byte_range(src.bytes, src_offset, len)
            .and_then(|()| check_byte_range(dst.bytes, dst_offset, len));
        Some(checked.map(|()| {
            // One copy per run of bytes inside one segment of each side (segment ends are
            // multiples of 8, so every copy stays whole words).
            let (mut s, mut d, end) = (
                src_offset as u64,
                dst_offset as u64,
                (src_offset + len) as u64,
            );
            while s < end {
                let (sj, so) = src.layout.locate(s);
                let (dj, doff) = dst.layout.locate(d);
                let n = (end - s)
                    .min(src.layout.len(sj) - so)
                    .min(dst.layout.len(dj) - doff);
                dst.ctx
                    .encode_copy(&src.segs[sj], so, &dst.segs[dj], doff, n);
                s += n;
                d += n;
            }
        }))
    }
    unsafe fn write_bytes(&self, buffer: &WgpuBuffer, offset: usize, src: &[u8]) -> Result<()> {
        check_byte_range(buffer.bytes, offset, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        let ctx = &buffer.ctx;
        // Earlier launches must see the old contents: submit them before the queue writes.
        ctx.submit();
        let end = offset + src.len();
        // Whole words in the middle are written as they are; a word only partly written (at
        // either end) is read back and patched, so its other bytes keep their values.
        let (m0, m1) = (offset.div_ceil(4) * 4, end & !3);
        if m0 >= m1 {
            let (a0, a1) = (offset & !3, end.div_ceil(4) * 4);
            let mut data = read_words(buffer, a0 as u64, a1 as u64)?;
            data[offset - a0..end - a0].copy_from_slice(src);
            write_words(buffer, a0 as u64, &data);
            return Ok(());
        }
        let edges: Vec<usize> = [(offset < m0).then(|| m0 - 4), (m1 < end).then_some(m1)]
            .into_iter()
            .flatten()
            .collect();
        // Both in one read-back; a word never straddles two segments (their ends are multiples
        // of 8).
        let regions: Vec<(&wgpu::Buffer, u64, u64)> = edges
            .iter()
            .map(|&w| {
                let (j, o) = buffer.layout.locate(w as u64);
                (&buffer.segs[j], o, 4)
            })
            .collect();
        let mut words = ctx.read_regions(&regions)?;
        for (&w, word) in edges.iter().zip(&mut words) {
            for (k, b) in word.iter_mut().enumerate() {
                if (offset..end).contains(&(w + k)) {
                    *b = src[w + k - offset];
                }
            }
        }
        for (&w, word) in edges.iter().zip(&words) {
            write_words(buffer, w as u64, word);
        }
        write_words(buffer, m0 as u64, &src[m0 - offset..m1 - offset]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::ctx::{hiding_ctx, TestLimits};
    use super::*;

    /// A space on a device whose Views are held in buffers of 4 KiB, or `None` (skipped) when
    /// there is no adapter.
    fn small_buffers() -> Option<WgpuSpace> {
        let limits = TestLimits {
            binding: Some(1024),
            buffer: Some(4096),
            memory: None,
        };
        match hiding_ctx("", limits) {
            Ok(c) => Some(WgpuSpace { ctx: Ok(c) }),
            Err(e) if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") => {
                panic!("ROKKOS_REQUIRE_WGPU=1 but: {e}")
            }
            Err(e) => {
                eprintln!("skipping: {e}");
                None
            }
        }
    }

    #[test]
    fn a_large_allocation_is_segments_and_bytes_cross_them() {
        let Some(s) = small_buffers() else { return };
        let a = s.allocate("a", 10_000, 8).unwrap();
        let sizes: Vec<u64> = a.segs.iter().map(wgpu::Buffer::size).collect();
        assert_eq!(sizes, [4096, 4096, 1808]);
        assert_eq!(format!("{a:?}"), "WgpuBuffer(10000 bytes in 3 buffers)");
        let small = s.allocate("small", 4096, 8).unwrap();
        assert_eq!(
            (small.segs.len(), format!("{small:?}")),
            (1, "WgpuBuffer(4096 bytes)".into())
        );
        let data: Vec<u8> = (0..10_000).map(|i| (i * 31 % 251) as u8).collect();
        // SAFETY (all calls below): the buffers are this test's own; nothing else touches them.
        unsafe { s.write_bytes(&a, 0, &data) }.unwrap();
        // Partial words at both ends, on either side of the first boundary.
        unsafe { s.write_bytes(&a, 4093, &[1, 2, 3, 4, 5, 6]) }.unwrap();
        unsafe { s.write_bytes(&a, 8190, &[9; 3]) }.unwrap();
        let mut want = data.clone();
        want[4093..4099].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        want[8190..8193].copy_from_slice(&[9; 3]);
        let mut got = vec![0u8; 10_000];
        unsafe { s.read_bytes(&a, 0, &mut got) }.unwrap();
        assert_eq!(got, want);
        let mut mid = vec![0u8; 4101];
        unsafe { s.read_bytes(&a, 4091, &mut mid) }.unwrap();
        assert_eq!(mid, want[4091..8192]);
        // A device copy whose source and destination cross their boundaries at different places.
        let b = s.allocate("b", 9_000, 8).unwrap();
        let copied = unsafe { s.copy_bytes(&a, 100, &b, 2000, 6000) };
        copied.expect("an aligned copy on one device").unwrap();
        let mut got = vec![0u8; 9_000];
        unsafe { s.read_bytes(&b, 0, &mut got) }.unwrap();
        let mut wb = vec![0u8; 9_000];
        wb[2000..8000].copy_from_slice(&want[100..6100]);
        assert_eq!(got, wb);
        // A range past the end is refused, whole.
        assert!(unsafe { s.read_bytes(&a, 9_999, &mut [0u8; 2]) }.is_err());
        assert!(unsafe { s.write_bytes(&a, 9_999, &[0u8; 2]) }.is_err());
    }
}
