//! The wgpu runtime under the patterns, in dependency order (each module uses only those above
//! it; what every device backend shares lives in `rokkos_device::runtime`):
//!
//! - [`segments`]: where the bytes of an allocation of several buffers lie;
//! - [`adapters`]: which adapter is taken, and why (ranking, `ROKKOS_WGPU_ADAPTER`, `ROKKOS_WGPU_HIDE`);
//! - [`budget`]: how many bytes a device's Views may hold (an allocation exists or is refused);
//! - [`pool`]: wgpu buffers in the shared buffer pool;
//! - [`pipeline`]: compiled pipelines (kernels, partials joins) and how WGSL becomes one;
//! - [`ctx`]: the device context: adapter choice, the pending command encoder and submissions,
//!   the error records (the shared error book), pipeline caches, host read-back and fences;
//! - [`memory`]: `WgpuSpace`, Views in storage buffers;
//! - [`launch`]: preparing a kernel's IR and arguments, compiling and dispatching one launch;
//! - [`window`]: fitting a launch's bindings to the device, as windows of its range if need be;
//! - [`partials`]: joining a reduction's per-workgroup partials on the device;
//! - [`reduction`]: a launched reduction completed as a host value or into a device View.

pub(crate) mod adapters;
pub(crate) mod budget;
pub(crate) mod ctx;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod partials;
pub(crate) mod pipeline;
pub(crate) mod pool;
pub(crate) mod reduction;
pub(crate) mod segments;
pub(crate) mod window;
