//! The CUDA runtime under the execution space, in dependency order:
//!
//! - [`driver`]: are libcuda and NVRTC there (checked before cudarc's first call), and what their
//!   errors mean as rokkos errors;
//! - [`compile`]: CUDA C to PTX or CUBIN with NVRTC, options that keep Rust's float semantics;
//! - [`cache`]: compiled kernels in memory per device and as CUBINs on disk;
//! - [`device`]: one `Device` per GPU (context, properties, modules), one `Instance` per stream;
//! - [`memory`]: `CudaSpace` (device memory, ordered between streams; pinned mirrors);
//! - [`launch`]: one launch = (function, grid, block, shared bytes, parameter block) on a stream.

#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod cache;
pub mod compile;
pub(crate) mod device;
pub(crate) mod driver;
// Phase B's pattern launchers call it; today only the runtime smoke test does.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod launch;
pub(crate) mod memory;

#[cfg(test)]
mod tests;
