//! One kernel launch: (compiled function, grid, block, dynamic shared memory, parameter block),
//! enqueued on an instance's stream; the pattern launchers fill these in (`runtime::args`).
//!
//! Every kernel takes one parameter, a struct passed by value: the [`ParamBlock`], whose bytes
//! the emitter's struct layout describes (buffers as 64-bit device addresses, scalars at their
//! natural alignment). The driver copies it at launch, so the block is free once `launch` returns.

use super::cache::Compiled;
use super::device::Instance;
use super::driver;
use super::memory::CudaBuffer;
use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use rokkos_core::{Error, Result};
use std::ffi::c_void;

/// Grid and block shape and dynamic shared memory of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

/// The by-value parameter struct of a launch and the buffers it names (`B`: the buffer type;
/// launches take [`CudaBuffer`]s, the marshalling tests stand-ins).
pub(crate) struct ParamBlock<'a, B = CudaBuffer> {
    bytes: Vec<u8>,
    /// Each buffer, whether the kernel writes it, and where its address goes in `bytes` (which
    /// holds the byte offset into the buffer until the launch writes the address).
    buffers: Vec<(&'a B, bool, usize)>,
}

impl<B> Default for ParamBlock<'_, B> {
    fn default() -> Self {
        ParamBlock {
            bytes: Vec::new(),
            buffers: Vec::new(),
        }
    }
}

impl<B> Clone for ParamBlock<'_, B> {
    fn clone(&self) -> Self {
        ParamBlock {
            bytes: self.bytes.clone(),
            buffers: self.buffers.clone(),
        }
    }
}

impl<'a, B> ParamBlock<'a, B> {
    /// A zeroed block of `size` bytes, filled field by field at the emitter's offsets.
    pub fn zeroed(size: usize) -> Self {
        ParamBlock {
            bytes: vec![0; size],
            buffers: Vec::new(),
        }
    }
    /// The bytes (buffer fields hold their byte offsets until the launch).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// Each buffer field: the buffer, whether the kernel writes it, the field's offset.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn buffers(&self) -> &[(&'a B, bool, usize)] {
        &self.buffers
    }
    /// Puts at `at` the device address of byte `offset` of `buffer` (`buffer_len` bytes), which
    /// the kernel reads (or writes, `write`) within `offset .. offset + len`.
    pub fn put_buffer(
        &mut self,
        at: usize,
        buffer: &'a B,
        buffer_len: usize,
        offset: usize,
        len: usize,
        write: bool,
    ) -> Result<()> {
        rokkos_core::space::check_byte_range(buffer_len, offset, len)?;
        self.put_bytes(at, &(offset as u64).to_le_bytes())?;
        self.buffers.push((buffer, write, at));
        Ok(())
    }
    /// Puts `bytes` at `at`; `Err(InvalidArgument)` past the block's end.
    pub fn put_bytes(&mut self, at: usize, bytes: &[u8]) -> Result<()> {
        let end = at
            .checked_add(bytes.len())
            .filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                self.bytes[at..end].copy_from_slice(bytes);
                Ok(())
            }
            None => Err(Error::InvalidArgument(format!(
                "a {}-byte parameter at byte {at} of a {}-byte parameter block",
                bytes.len(),
                self.bytes.len()
            ))),
        }
    }
}

impl<'a> ParamBlock<'a> {
    /// Appends the device address of byte `offset` of `buffer`, which the kernel reads (or
    /// writes, `write`) within `offset .. offset + len`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn buffer(
        &mut self,
        buffer: &'a CudaBuffer,
        offset: usize,
        len: usize,
        write: bool,
    ) -> Result<()> {
        self.align(8);
        let at = self.bytes.len();
        self.bytes.resize(at + 8, 0);
        self.put_buffer(at, buffer, buffer.len_bytes(), offset, len, write)
    }
    /// Appends a scalar at its natural alignment.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn scalar<T: bytemuck::Pod>(&mut self, v: T) {
        self.align(std::mem::align_of::<T>());
        self.bytes.extend_from_slice(bytemuck::bytes_of(&v));
    }
    fn align(&mut self, a: usize) {
        let n = self.bytes.len().next_multiple_of(a);
        self.bytes.resize(n, 0);
    }
}

impl Instance {
    /// Enqueues `kernel` on this stream.
    ///
    /// # Safety
    ///
    /// `kernel`'s one parameter is a struct laid out exactly as `params` was built, and the
    /// kernel touches device memory only through the buffer addresses in it, within the ranges
    /// given to [`ParamBlock::buffer`], writing only those marked `write`, and no two work items
    /// write one location without atomics.
    pub(crate) unsafe fn launch(
        &self,
        kernel: &Compiled,
        cfg: &LaunchConfig,
        mut params: ParamBlock<'_>,
    ) -> Result<()> {
        let info = &self.device.info;
        let threads = cfg.block.iter().map(|&b| b as u64).product::<u64>();
        let bad = cfg.grid.iter().chain(&cfg.block).any(|&d| d == 0)
            || threads > info.max_threads_per_block as u64
            || cfg.grid.iter().zip(&info.max_grid).any(|(g, m)| g > m);
        if bad {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: grid {:?} x block {:?} outside the device's limits (block of at most {} threads, grid at most {:?})",
                kernel.name, cfg.grid, cfg.block, info.max_threads_per_block, info.max_grid
            )));
        }
        let shared = cfg.shared_bytes as usize;
        if shared > info.shared_per_block_optin {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}`: {shared} bytes of shared memory; the device allows {} per block",
                kernel.name, info.shared_per_block_optin
            )));
        }
        self.bind()?;
        if shared > info.shared_per_block {
            kernel
                .function
                .set_attribute(
                    FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared as i32,
                )
                .map_err(|e| driver::error("cuFuncSetAttribute", e))?;
        }
        // Order every buffer's use on this stream, then write its address into the block.
        for &(buf, write, at) in &params.buffers {
            buf.order(self, write)?;
            let slot = &mut params.bytes[at..at + 8];
            let offset = u64::from_le_bytes((&*slot).try_into().expect("8 bytes"));
            slot.copy_from_slice(&buf.device_ptr(self, offset as usize).to_le_bytes());
        }
        let mut args = [params.bytes.as_mut_ptr() as *mut c_void];
        // SAFETY: the function comes from a loaded module kept alive by `kernel`; the caller
        // vouches for the parameter layout and the accesses; each buffer's use is ordered on
        // this stream, and a buffer dropped before the kernel ends is freed only after it.
        unsafe {
            cudarc::driver::result::launch_kernel(
                kernel.function.cu_function(),
                (cfg.grid[0], cfg.grid[1], cfg.grid[2]),
                (cfg.block[0], cfg.block[1], cfg.block[2]),
                cfg.shared_bytes,
                self.stream.cu_stream(),
                &mut args,
            )
        }
        .map_err(|e| driver::error(&format!("cuLaunchKernel `{}`", kernel.name), e))
    }
}
