//! The CUDA runtime under the execution space, in dependency order:
//!
//! - [`driver`]: are libcuda and NVRTC there (checked before cudarc's first call), and what their
//!   errors mean as rokkos errors;
//! - [`compile`]: CUDA C to PTX or CUBIN with NVRTC, options that keep Rust's float semantics;
//! - [`cache`]: compiled kernels in memory per device and as CUBINs on disk;
//! - [`device`]: one `Device` per GPU (context, properties, modules), one `Instance` per stream;
//! - [`memory`]: `CudaSpace` (device memory, ordered between streams; pinned mirrors);
//! - [`errors`]: each stream's device error records and the host's book of launches that may fail;
//! - [`launch`]: one launch = (function, grid, block, shared bytes, parameter block) on a stream;
//! - [`args`]: a launch's parameter block from its arguments, at the emitter's offsets;
//! - [`run`]: what every pattern launcher shares (IR and arguments, variants, grid size, passes);
//! - [`reduction`]: a reduction's partials and result, completed for the host or into a View.

pub(crate) mod args;
pub(crate) mod cache;
pub mod compile;
pub(crate) mod device;
pub(crate) mod driver;
pub(crate) mod errors;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod reduction;
pub(crate) mod run;

#[cfg(test)]
mod tests;
