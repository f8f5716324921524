//! [`Device`]: the execution space chosen at run time, and [`DeviceMemory`], the memory space of
//! its Views. A whole application is written against them with no generic parameter, as a C++
//! Kokkos program is against `Kokkos::DefaultExecutionSpace`; `ROKKOS_BACKEND`, a name, or the
//! best backend available picks the hardware when the program starts.
//!
//! How a launch travels: `parallel_for(label, RangePolicy::new(&dev, ..), kernel)` checks and holds
//! the kernel's arguments as for any space and hands [`Device`]'s pattern method a token; that
//! method matches on the backend it stands for (one arm per backend, in [`on_backend!`]) and calls
//! [`Launch::delegate`] with the same policy built for that backend and the pattern to run there
//! (`For`, `Reduce(r)`, `ReduceInto(r, slot)`, `Scan(r)`), which consumes the token, re-validates
//! the policy against the backend's own limits, projects every View's [`DeviceBuffer`] onto the
//! backend's buffer type (`ProjectMemory`, an `unsafe` trait implemented here for each backend's
//! memory) and calls the backend's own pattern method with a token that keeps the original hold.
//! A View allocated for another backend does not project: `Err(InvalidArgument)` naming it.
//!
//! **Adding a backend**: one variant of `Backend`, one of
//! `BufferKind`, one arm in [`on_backend!`] and one in `on_buffer!`, one `ProjectMemory` impl, and
//! its name in [`crate::available_backends`] and [`Device::with_backend`]. No pattern method
//! changes.

use rokkos_core::delegate::{For, Reduce, ReduceInto, Scan};
use rokkos_core::kernel::{
    ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork,
};
use rokkos_core::{
    Error, ExecutionSpace, HostBuffer, HostSpace, HostStorage, Launch, LayoutRight, MDRangePolicy,
    MemorySpace, Pod, ProjectMemory, RangePolicy, Reducer, Result, ResultSlot, TeamLimits,
    TeamPolicy, View,
};
use std::ptr::NonNull;

/// An execution space chosen at run time: serial, rayon, wgpu or CUDA,
/// whichever `ROKKOS_BACKEND`, a name, or the best one available gives. Views of its memory
/// ([`DeviceView`]) work with every pattern, policy, reducer, team feature and `#[kernel]`.
///
/// ```
/// use rokkos::prelude::*;
///
/// #[kernel]
/// fn scale(i: usize, y: ViewMut<f64>, a: f64) {
///     y[i] = a * y[i];
/// }
///
/// # fn main() -> rokkos::Result<()> {
/// let dev = Device::new()?; // ROKKOS_BACKEND, or the best backend compiled in and present
/// let h = View::<f64>::from_fn("h", [100], |[i]| i as f64)?;
/// let y = create_mirror_view_and_copy_in(&dev, &h)?; // host -> device
/// parallel_for("scale", RangePolicy::new(&dev, 0..100), scale(&y, 2.0))?;
/// let back = create_mirror_view_and_copy(&y)?; // device -> host
/// assert_eq!(back.get(7), 14.0);
/// # Ok(())
/// # }
/// ```
///
/// A `Device` is a cheap handle (cloning it clones the backend's handle). The static spaces
/// (`Serial`, `Rayon`, `Wgpu`) stay for code that wants no dispatch at all; one of them becomes a
/// `Device` with `Device::from(space)`.
#[derive(Clone, Debug)]
pub struct Device {
    backend: Backend,
}

/// The backend a [`Device`] stands for.
#[derive(Clone, Debug)]
enum Backend {
    Serial(rokkos_serial::Serial),
    #[cfg(feature = "rayon")]
    Rayon(rokkos_rayon::Rayon),
    #[cfg(feature = "wgpu")]
    Wgpu(rokkos_wgpu::Wgpu),
    #[cfg(feature = "cuda")]
    Cuda(rokkos_cuda::Cuda),
}

/// `$body` with `$s` bound to the backend's own execution space: the one place a [`Device`]
/// dispatches (a new backend is one arm here).
macro_rules! on_backend {
    ($backend:expr, $s:ident => $body:expr) => {
        match $backend {
            Backend::Serial($s) => $body,
            #[cfg(feature = "rayon")]
            Backend::Rayon($s) => $body,
            #[cfg(feature = "wgpu")]
            Backend::Wgpu($s) => $body,
            #[cfg(feature = "cuda")]
            Backend::Cuda($s) => $body,
        }
    };
}

impl Device {
    /// The device `ROKKOS_BACKEND` names, or, when it is unset, the best backend compiled in and
    /// usable here (CUDA when a GPU, the driver and NVRTC are there, then wgpu when an adapter
    /// with SHADER_INT64 exists, or any adapter with `ROKKOS_WGPU_PARTIAL=1`, then rayon, then
    /// serial). `Err(InvalidArgument)` for an unknown name, `Err(BackendUnavailable)`
    /// for a backend that is not compiled in or has no device.
    pub fn new() -> Result<Device> {
        match crate::backend::env_backend()? {
            Some(name) => Device::with_backend(&name),
            None => {
                let mut last = None;
                for name in crate::available_backends() {
                    match Device::with_backend(name) {
                        Ok(d) => return Ok(d),
                        Err(e) => last = Some(e),
                    }
                }
                Err(last.unwrap_or_else(|| Error::BackendUnavailable {
                    backend: "any".into(),
                    reason: "no backend compiled in".into(),
                }))
            }
        }
    }

    /// The device of the backend called `name` (`serial`, `rayon`, `wgpu`, `cuda`).
    /// `Err(BackendUnavailable)` when it is not compiled in or has no device here,
    /// `Err(InvalidArgument)` for unknown names.
    pub fn with_backend(name: &str) -> Result<Device> {
        let backend = match name {
            "serial" => Backend::Serial(rokkos_serial::Serial),
            #[cfg(feature = "rayon")]
            "rayon" => Backend::Rayon(rokkos_rayon::Rayon::new()),
            #[cfg(feature = "wgpu")]
            "wgpu" => Backend::Wgpu(rokkos_wgpu::Wgpu::new()?),
            #[cfg(feature = "cuda")]
            "cuda" => Backend::Cuda(rokkos_cuda::Cuda::new()?),
            other => return Err(crate::backend::not_available(other)),
        };
        Ok(Device { backend })
    }

    /// Whether the device runs kernels on the host (serial, rayon): its Views are then in host
    /// memory, still reached from host code only through mirrors.
    pub fn is_host(&self) -> bool {
        matches!(self.memory_target(), Target::Host)
    }

    fn memory_target(&self) -> Target {
        match &self.backend {
            Backend::Serial(_) => Target::Host,
            #[cfg(feature = "rayon")]
            Backend::Rayon(_) => Target::Host,
            #[cfg(feature = "wgpu")]
            Backend::Wgpu(w) => Target::Wgpu(w.memory_space()),
            #[cfg(feature = "cuda")]
            Backend::Cuda(c) => Target::Cuda(c.memory_space()),
        }
    }
}

impl From<rokkos_serial::Serial> for Device {
    fn from(s: rokkos_serial::Serial) -> Device {
        Device {
            backend: Backend::Serial(s),
        }
    }
}
#[cfg(feature = "rayon")]
impl From<rokkos_rayon::Rayon> for Device {
    fn from(s: rokkos_rayon::Rayon) -> Device {
        Device {
            backend: Backend::Rayon(s),
        }
    }
}
#[cfg(feature = "wgpu")]
impl From<rokkos_wgpu::Wgpu> for Device {
    fn from(s: rokkos_wgpu::Wgpu) -> Device {
        Device {
            backend: Backend::Wgpu(s),
        }
    }
}
#[cfg(feature = "cuda")]
impl From<rokkos_cuda::Cuda> for Device {
    fn from(s: rokkos_cuda::Cuda) -> Device {
        Device {
            backend: Backend::Cuda(s),
        }
    }
}

/// A View in a [`Device`]'s memory: `DeviceView<f64>` is a rank-1 `f64` View, `DeviceView<f32, 2>`
/// a row-major matrix, `DeviceView<f32, 2, LayoutLeft>` a column-major one. Allocate with
/// [`View::new_on`], copy in and out with `create_mirror_view_and_copy_in` /
/// `create_mirror_view_and_copy`.
pub type DeviceView<T, const R: usize = 1, L = LayoutRight> = View<T, R, L, DeviceMemory>;

/// A View in host memory (the default memory space of `View`).
pub type HostView<T, const R: usize = 1, L = LayoutRight> = View<T, R, L, HostSpace>;

/// The memory space of [`Device`]: each allocation lives in the memory of the backend the device
/// stands for (host memory for serial and rayon, a storage buffer for wgpu, device memory for
/// CUDA). It is not host
/// accessible, whatever the backend: host code reaches its Views through mirrors, as in Kokkos,
/// so a program that runs on rayon runs unchanged on a GPU. On serial and rayon,
/// `create_mirror_view` of a [`DeviceView`] is a host View of the same memory (no allocation,
/// no copy; `create_mirror_view_and_copy` copies nothing), as Kokkos returns the View itself
/// when its memory is host accessible; it shares the View's borrow flag, so a guard on the mirror
/// and a launch on the View exclude each other. `create_mirror` always allocates.
///
/// `DeviceMemory::default()` is the memory of `Device::new()` (what `ROKKOS_BACKEND` or the best
/// backend gives); a device's own is `dev.memory_space()`.
#[derive(Clone, Debug)]
pub struct DeviceMemory {
    target: Target,
}

#[derive(Clone, Debug)]
enum Target {
    Host,
    #[cfg(feature = "wgpu")]
    Wgpu(rokkos_wgpu::WgpuSpace),
    #[cfg(feature = "cuda")]
    Cuda(rokkos_cuda::CudaSpace),
    /// `Device::new()` failed when the handle was made: allocations answer this error.
    Unavailable(Error),
}

impl Default for DeviceMemory {
    fn default() -> Self {
        match Device::new() {
            Ok(d) => d.memory_space(),
            Err(e) => DeviceMemory {
                target: Target::Unavailable(e),
            },
        }
    }
}

/// One allocation of [`DeviceMemory`]: a buffer of the backend's own memory space.
pub struct DeviceBuffer(BufferKind);

enum BufferKind {
    Host(HostBuffer),
    #[cfg(feature = "wgpu")]
    Wgpu(rokkos_wgpu::WgpuBuffer),
    #[cfg(feature = "cuda")]
    Cuda(rokkos_cuda::CudaBuffer),
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            BufferKind::Host(h) => write!(f, "DeviceBuffer(host, {} bytes)", h.len_bytes()),
            #[cfg(feature = "wgpu")]
            BufferKind::Wgpu(w) => write!(f, "DeviceBuffer({w:?})"),
            #[cfg(feature = "cuda")]
            BufferKind::Cuda(c) => write!(f, "DeviceBuffer({c:?})"),
        }
    }
}

/// `$body` with `$b` bound to the backend buffer of a [`DeviceBuffer`] and `$m` to a handle of
/// its memory space: every byte operation goes to the memory the buffer came from.
macro_rules! on_buffer {
    ($buffer:expr, $m:ident, $b:ident => $body:expr) => {
        match &$buffer.0 {
            BufferKind::Host($b) => {
                let $m = HostSpace;
                $body
            }
            #[cfg(feature = "wgpu")]
            BufferKind::Wgpu($b) => {
                // Its byte operations use the buffer's own device, not the handle's.
                let $m = rokkos_wgpu::WgpuSpace::default();
                $body
            }
            #[cfg(feature = "cuda")]
            BufferKind::Cuda($b) => {
                // The stream that allocated it: its device, and the errors of its kernels.
                let $m = $b.space();
                $body
            }
        }
    };
}

impl MemorySpace for DeviceMemory {
    const NAME: &'static str = "DeviceMemory";
    type Buffer = DeviceBuffer;

    fn allocate(&self, label: &str, bytes: usize, align: usize) -> Result<DeviceBuffer> {
        Ok(DeviceBuffer(match &self.target {
            Target::Host => BufferKind::Host(HostSpace.allocate(label, bytes, align)?),
            #[cfg(feature = "wgpu")]
            Target::Wgpu(w) => BufferKind::Wgpu(w.allocate(label, bytes, align)?),
            #[cfg(feature = "cuda")]
            Target::Cuda(c) => BufferKind::Cuda(c.allocate(label, bytes, align)?),
            Target::Unavailable(e) => return Err(e.clone()),
        }))
    }
    fn host_ptr(buffer: &DeviceBuffer) -> Option<NonNull<u8>> {
        on_buffer!(buffer, _m, b => host_ptr_of(&_m, b))
    }
    unsafe fn read_bytes(
        &self,
        buffer: &DeviceBuffer,
        offset: usize,
        dst: &mut [u8],
    ) -> Result<()> {
        // SAFETY: the caller's contract, for the same bytes.
        on_buffer!(buffer, m, b => unsafe { m.read_bytes(b, offset, dst) })
    }
    unsafe fn write_bytes(&self, buffer: &DeviceBuffer, offset: usize, src: &[u8]) -> Result<()> {
        // SAFETY: the caller's contract, for the same bytes.
        on_buffer!(buffer, m, b => unsafe { m.write_bytes(b, offset, src) })
    }
    unsafe fn copy_bytes(
        &self,
        src: &DeviceBuffer,
        src_offset: usize,
        dst: &DeviceBuffer,
        dst_offset: usize,
        len: usize,
    ) -> Option<Result<()>> {
        match (&src.0, &dst.0) {
            // SAFETY: the caller's contract, for the same bytes.
            (BufferKind::Host(s), BufferKind::Host(d)) => unsafe {
                HostSpace.copy_bytes(s, src_offset, d, dst_offset, len)
            },
            #[cfg(feature = "wgpu")]
            // SAFETY: as above.
            (BufferKind::Wgpu(s), BufferKind::Wgpu(d)) => unsafe {
                rokkos_wgpu::WgpuSpace::default().copy_bytes(s, src_offset, d, dst_offset, len)
            },
            #[cfg(feature = "cuda")]
            // SAFETY: as above.
            (BufferKind::Cuda(s), BufferKind::Cuda(d)) => unsafe {
                d.space().copy_bytes(s, src_offset, d, dst_offset, len)
            },
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
    fn owns(&self, buffer: &DeviceBuffer) -> bool {
        match (&self.target, &buffer.0) {
            (Target::Host, BufferKind::Host(_)) => true,
            #[cfg(feature = "wgpu")]
            (Target::Wgpu(w), BufferKind::Wgpu(b)) => w.owns(b),
            #[cfg(feature = "cuda")]
            (Target::Cuda(c), BufferKind::Cuda(b)) => c.owns(b),
            _ => false,
        }
    }
    fn host_storage(buffer: &DeviceBuffer) -> Option<HostStorage<'_>> {
        match &buffer.0 {
            // SAFETY: a buffer of kind `Host` *is* its `HostBuffer` (a field, living as long as
            // it), so no other buffer answers it; `host_ptr`, `read_bytes` and `write_bytes` on it
            // are `HostSpace`'s on that field (`on_buffer!`), and everything else that reaches
            // those bytes (launches on the host backends, through `ProjectMemory`) claims the
            // allocation's borrow flag. `DeviceMemory` and `DeviceBuffer` are `Send + Sync`
            // (checked below).
            BufferKind::Host(h) => Some(unsafe { HostStorage::new(h) }),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
    fn allocate_mirror(&self, label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        match &self.target {
            #[cfg(feature = "wgpu")]
            Target::Wgpu(w) => w.allocate_mirror(label, bytes, align),
            #[cfg(feature = "cuda")]
            Target::Cuda(c) => c.allocate_mirror(label, bytes, align),
            _ => HostSpace.allocate(label, bytes, align),
        }
    }
}

/// `HostStorage::new`'s contract asks the space and its buffers to be shareable across threads.
const _: fn() = || {
    fn send_sync<X: Send + Sync>() {}
    send_sync::<DeviceMemory>();
    send_sync::<DeviceBuffer>();
};

/// `M::host_ptr(b)` through a value of `M` (the macro above binds one).
fn host_ptr_of<M: MemorySpace>(_m: &M, b: &M::Buffer) -> Option<NonNull<u8>> {
    M::host_ptr(b)
}

// SAFETY: a `DeviceBuffer` of kind `Host` *is* its `HostBuffer` (a field, living as long as it),
// so two buffers never project to one; `DeviceMemory::host_ptr`, `read_bytes` and `write_bytes`
// on it are `HostSpace`'s on that field (`on_buffer!`).
unsafe impl ProjectMemory<HostSpace> for DeviceMemory {
    #[inline]
    fn project(buffer: &DeviceBuffer) -> Option<&HostBuffer> {
        match &buffer.0 {
            BufferKind::Host(h) => Some(h),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

// SAFETY: as for `HostSpace`, with the `Wgpu` kind and `WgpuSpace`'s operations.
#[cfg(feature = "wgpu")]
unsafe impl ProjectMemory<rokkos_wgpu::WgpuSpace> for DeviceMemory {
    #[inline]
    fn project(buffer: &DeviceBuffer) -> Option<&rokkos_wgpu::WgpuBuffer> {
        match &buffer.0 {
            BufferKind::Wgpu(w) => Some(w),
            _ => None,
        }
    }
}

// SAFETY: as for `HostSpace`, with the `Cuda` kind and `CudaSpace`'s operations.
#[cfg(feature = "cuda")]
unsafe impl ProjectMemory<rokkos_cuda::CudaSpace> for DeviceMemory {
    #[inline]
    fn project(buffer: &DeviceBuffer) -> Option<&rokkos_cuda::CudaBuffer> {
        match &buffer.0 {
            BufferKind::Cuda(c) => Some(c),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

// Every pattern method is one `on_backend!` over `Launch::delegate`: the backend's own method (named
// by `For` / `Reduce` / `ReduceInto` / `Scan` and the policy type, and called by `delegate`), with
// the policy rebuilt for it and the kernel's buffers (and the result slot) projected onto its memory.
impl ExecutionSpace for Device {
    type Memory = DeviceMemory;

    fn name(&self) -> &'static str {
        on_backend!(&self.backend, s => s.name())
    }
    fn concurrency(&self) -> usize {
        on_backend!(&self.backend, s => s.concurrency())
    }
    fn fence(&self) -> Result<()> {
        on_backend!(&self.backend, s => s.fence())
    }
    fn memory_space(&self) -> DeviceMemory {
        DeviceMemory {
            target: self.memory_target(),
        }
    }
    fn team_limits(&self) -> TeamLimits {
        on_backend!(&self.backend, s => s.team_limits())
    }
    fn team_size_max_for(
        &self,
        label: &str,
        policy: &TeamPolicy<Self>,
        kernel: Option<&rokkos_core::ir::Kernel>,
        pattern: rokkos_core::TeamPattern,
    ) -> Result<usize> {
        // The backend this device stands for answers, as it runs the launch.
        on_backend!(&self.backend, s => s.team_size_max_for(label, &policy.with_space(s), kernel, pattern))
    }
    #[inline]
    fn for_range<K>(&self, l: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = DeviceMemory> + KernelIr,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, For) })
    }
    #[inline]
    fn for_mdrange<const N: usize, K>(&self, l: Launch<'_, MDRangePolicy<Self, N>, K>) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, For) })
    }
    #[inline]
    fn for_team<K>(&self, l: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = DeviceMemory> + KernelIr,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, For) })
    }
    #[inline]
    fn reduce_range<K, Rd>(&self, l: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, Reduce(r)) })
    }
    #[inline]
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        l: Launch<'_, MDRangePolicy<Self, N>, K>,
        r: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, Reduce(r)) })
    }
    #[inline]
    fn reduce_team<K, Rd>(&self, l: Launch<'_, TeamPolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, Reduce(r)) })
    }
    #[inline]
    fn reduce_range_into<K, Rd>(
        &self,
        l: Launch<'_, RangePolicy<Self>, K>,
        r: &Rd,
        slot: ResultSlot<'_, DeviceMemory>,
    ) -> Result<()>
    where
        K: ReduceKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        K::Value: Pod,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => {
            let p = l.policy().with_space(s);
            l.delegate(&p, ReduceInto(r, slot))
        })
    }
    #[inline]
    fn reduce_mdrange_into<const N: usize, K, Rd>(
        &self,
        l: Launch<'_, MDRangePolicy<Self, N>, K>,
        r: &Rd,
        slot: ResultSlot<'_, DeviceMemory>,
    ) -> Result<()>
    where
        K: ReduceKernel<MDWork<N>, Space = DeviceMemory> + KernelIr,
        K::Value: Pod,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => {
            let p = l.policy().with_space(s);
            l.delegate(&p, ReduceInto(r, slot))
        })
    }
    #[inline]
    fn reduce_team_into<K, Rd>(
        &self,
        l: Launch<'_, TeamPolicy<Self>, K>,
        r: &Rd,
        slot: ResultSlot<'_, DeviceMemory>,
    ) -> Result<()>
    where
        K: ReduceKernel<TeamWork, Space = DeviceMemory> + KernelIr,
        K::Value: Pod,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => {
            let p = l.policy().with_space(s);
            l.delegate(&p, ReduceInto(r, slot))
        })
    }
    #[inline]
    fn scan_range<K, Rd>(&self, l: Launch<'_, RangePolicy<Self>, K>, r: &Rd) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = DeviceMemory> + KernelIr,
        Rd: Reducer<K::Value>,
    {
        on_backend!(&self.backend, s => { let p = l.policy().with_space(s); l.delegate(&p, Scan(r)) })
    }
}
