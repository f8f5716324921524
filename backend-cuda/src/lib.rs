//! rokkos-cuda: the CUDA execution space, on the driver API and NVRTC through cudarc, both loaded
//! at run time: the crate builds, and every call answers `Err(BackendUnavailable)` naming what is
//! missing, on a machine without CUDA.
//!
//! **Phase A**: the runtime. [`Cuda`] is a stream on a device
//! (`Cuda::new()`, `Cuda::with_device(n)`, [`DEVICE_ENV`]); several instances on one device have
//! their own streams ([`Cuda::partition`], Kokkos' `partition_space`) and are fenced on their own.
//! [`CudaSpace`] is device memory with the whole View API (allocation zero-filled, copies ordered
//! on the space's stream, device-to-device copies, host mirrors in pinned memory). CUDA C is
//! compiled by NVRTC for the device's own architecture ([`compile`]) with the kernel cache in
//! memory and on disk ([`compile::CACHE_DIR_ENV`]). [`ptxas`] assembles NVRTC's PTX with the
//! `ptxas` tool to check generated kernels (registers, spills) on a machine without a GPU.
//!
//! **Phase B, so far**: the CUDA C emitter ([`emit`]), a target of the walk shared with the WGSL
//! writer (`rokkos_core::emit`): `parallel_for` and `parallel_reduce` (every reducer, two passes)
//! over Range and MDRange, `parallel_scan` over a range, atomics on every element type, the IR's
//! integer, float, cast and bounds-check semantics. [`check::CudaCheck`] compiles every kernel a
//! test suite launches with NVRTC and ptxas (no GPU needed). Not yet: team policies and their
//! constructs, the transcendental functions CUDA's library cannot give within the precision
//! contract (the emitter answers `Unsupported` naming them), and the launchers: `Cuda` does not
//! implement `ExecutionSpace` yet, so the facade does not offer it as a backend.
//!
//! # Ordering and safety
//!
//! Every operation of a space is enqueued on its stream. A buffer used by two streams is ordered
//! between them on the device (see `runtime::memory`): a kernel or copy that writes it waits for the
//! other streams' earlier uses, one that reads it for their earlier writes, and its memory is freed
//! only after every stream's last use. Host reads and writes (`deep_copy` to or from a host View)
//! wait for their copy before returning. Raw device pointers never reach safe public API.
//!
//! # Floating point
//!
//! NVRTC compiles with IEEE division and square root, denormals kept, and without contracting
//! `a * b + c` into a fused multiply-add, so kernels compute what Rust computes (see
//! [`compile::NVRTC_OPTIONS`]).

#![warn(missing_docs)]

pub mod check;
pub mod emit;
pub mod ptxas;
mod runtime;

pub use runtime::device::{DeviceInfo, DEVICE_ENV};
pub use runtime::memory::{CudaBuffer, CudaSpace};

/// Compiling CUDA C with NVRTC (no GPU needed) and the on-disk kernel cache.
pub mod compile {
    pub use crate::runtime::cache::{cubin, nvrtc_compiles, CACHE_DIR_ENV};
    pub use crate::runtime::compile::{compile_ptx, nvrtc_version, Arch, NVRTC_OPTIONS};
}

use rokkos_core::Result;
use runtime::device::{self as dev, Instance};
use std::sync::Arc;

/// The CUDA execution space: a cheap handle to one stream on one device.
///
/// ```no_run
/// let gpu = rokkos_cuda::Cuda::new()?; // Err(BackendUnavailable) without libcuda, NVRTC or a GPU
/// let [a, b] = <[rokkos_cuda::Cuda; 2]>::try_from(gpu.partition(2)?).unwrap();
/// a.fence()?; // waits for a's stream only
/// # Ok::<(), rokkos_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Cuda {
    inst: Arc<Instance>,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cuda({:?})", self.inst)
    }
}

impl Cuda {
    /// The default instance of the device [`DEVICE_ENV`] names (0 when unset). Every call returns
    /// a handle to the same stream, as every `Kokkos::Cuda()` names the default instance.
    pub fn new() -> Result<Cuda> {
        Cuda::with_device(dev::default_ordinal()?)
    }
    /// The default instance of device `ordinal`; `Err(BackendUnavailable)` when the driver or
    /// NVRTC is missing, there is no device, or `ordinal` is not one.
    pub fn with_device(ordinal: usize) -> Result<Cuda> {
        let inst = dev::device(ordinal)?.default_instance()?;
        Ok(Cuda { inst })
    }
    /// `n` new instances on this device, each with a stream of its own (Kokkos'
    /// `partition_space`): work on them runs concurrently, and each is fenced on its own.
    pub fn partition(&self, n: usize) -> Result<Vec<Cuda>> {
        (0..n)
            .map(|_| {
                Ok(Cuda {
                    inst: self.inst.device.new_instance()?,
                })
            })
            .collect()
    }
    /// Backend name.
    pub fn name(&self) -> &'static str {
        "cuda"
    }
    /// Waits for all work submitted to this instance's stream (not other instances').
    pub fn fence(&self) -> Result<()> {
        self.inst.fence()
    }
    /// The memory space whose copies are ordered on this instance's stream.
    pub fn memory_space(&self) -> CudaSpace {
        CudaSpace {
            inst: Ok(self.inst.clone()),
        }
    }
    /// What launches know of the device.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.inst.device.info
    }
    /// Whether `other` is a handle to the same stream.
    pub fn same_instance(&self, other: &Cuda) -> bool {
        Arc::ptr_eq(&self.inst, &other.inst)
    }
}
