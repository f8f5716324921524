//! Memory and execution spaces.
//!
//! A [`MemorySpace`] owns allocations; a View's memory space is part of its type, and only Views in a
//! [`HostAccessible`] space can be indexed from host code (a compile-time property). An
//! [`ExecutionSpace`] runs the parallel patterns; each backend crate implements it, and core's
//! `parallel_*` functions dispatch to it with a launch token ([`Launch`]). The contract of each
//! pattern method is traced in `core/LAUNCH.md`.

use crate::error::{Error, Result};
use crate::kernel::{ForKernel, KernelIr, MDWork, RangeWork, ReduceKernel, ScanKernel, TeamWork};
use crate::launch::Launch;
use crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use crate::reducer::Reducer;
use std::alloc;
use std::any::Any;
use std::fmt::Debug;
use std::ptr::NonNull;

/// Where a View's data lives.
pub trait MemorySpace: Clone + Debug + Default + 'static {
    /// Name used in messages (`"HostSpace"`, ...).
    const NAME: &'static str;
    /// An owning handle to one allocation; dropping it frees the memory.
    type Buffer: 'static;
    /// Allocates `bytes` zero-filled bytes aligned to at least `align`.
    fn allocate(&self, label: &str, bytes: usize, align: usize) -> Result<Self::Buffer>;
    /// The host address of the buffer when host code may dereference it, else `None`.
    fn host_ptr(buffer: &Self::Buffer) -> Option<NonNull<u8>>;
    /// Copies `dst.len()` bytes starting at byte `offset` of `buffer` into `dst`;
    /// `Err(InvalidArgument)` when the range is not inside the buffer.
    ///
    /// # Safety
    /// The bytes read must not be written concurrently nor be borrowed mutably (a `host_mut()`
    /// guard's `&mut T`): the caller holds the allocation's borrow flag, shared at least, as
    /// `deep_copy`, `fill` and a launch token do, or the space is not host accessible.
    unsafe fn read_bytes(&self, buffer: &Self::Buffer, offset: usize, dst: &mut [u8])
        -> Result<()>;
    /// Copies `src` into `buffer` starting at byte `offset`; `Err(InvalidArgument)` when the range
    /// is not inside the buffer.
    ///
    /// # Safety
    /// Nothing else may read or write the bytes written while this runs, and no Rust reference to
    /// them may be alive (a host guard's `&T` / `&mut T`): the caller holds the allocation's borrow
    /// flag exclusively, as `deep_copy`, `fill` and a launch token do, or the space is not host
    /// accessible.
    unsafe fn write_bytes(&self, buffer: &Self::Buffer, offset: usize, src: &[u8]) -> Result<()>;
    /// Copies `len` bytes from byte `src_offset` of `src` to byte `dst_offset` of `dst` (two
    /// distinct allocations of this space) without a round trip through the host, ordered after
    /// the work already submitted to the space. `None` when this space has no such copy for these
    /// arguments; `deep_copy` then goes through the host.
    ///
    /// # Safety
    /// As [`MemorySpace::read_bytes`] for `src` and [`MemorySpace::write_bytes`] for `dst`.
    unsafe fn copy_bytes(
        &self,
        src: &Self::Buffer,
        src_offset: usize,
        dst: &Self::Buffer,
        dst_offset: usize,
        len: usize,
    ) -> Option<Result<()>> {
        let _ = (src, src_offset, dst, dst_offset, len);
        None
    }
    /// Whether `buffer` is an allocation this memory space handle can use: `false` for a buffer
    /// of another device reachable through the same type (a run-time space's memory holds the
    /// buffers of every backend). `create_mirror_view_in` shares a View only when it is. The
    /// default is `true`.
    fn owns(&self, buffer: &Self::Buffer) -> bool {
        let _ = buffer;
        true
    }
    /// The host buffer that *is* `buffer`'s storage, when this memory space keeps that buffer in
    /// ordinary host memory although host code may not index its Views directly (a run-time
    /// space standing for a host backend). `create_mirror_view` then returns a host View of the
    /// same memory, sharing the allocation's borrow flag, instead of a copy, as Kokkos returns
    /// the View itself when its memory is host accessible. The default is `None`; answering
    /// `Some` takes `unsafe` code ([`HostStorage::new`]).
    fn host_storage(buffer: &Self::Buffer) -> Option<HostStorage<'_>> {
        let _ = buffer;
        None
    }
    /// Allocates `bytes` zero-filled bytes of host memory, aligned to at least `align`, for a host
    /// mirror of a View of this space (`create_mirror`, `create_mirror_view`): a device space
    /// answers page-locked (pinned) memory here, which its copies reach at full bus speed. The
    /// default is ordinary host memory.
    fn allocate_mirror(&self, label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        HostSpace.allocate(label, bytes, align)
    }
}

/// A buffer of some memory space seen as the [`HostBuffer`] that is its storage
/// ([`MemorySpace::host_storage`]): what lets a host mirror alias the buffer's memory.
#[derive(Clone, Copy)]
pub struct HostStorage<'a> {
    host: &'a HostBuffer,
}

impl std::fmt::Debug for HostStorage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostStorage({} bytes)", self.host.len_bytes())
    }
}

impl<'a> HostStorage<'a> {
    /// `host` as the storage of the buffer `MemorySpace::host_storage` answers it for.
    ///
    /// # Safety
    /// `host` is that buffer's own storage (for example a field of it), alive as long as the
    /// buffer: every byte of the buffer is a byte of `host`, reached by the space's `host_ptr`,
    /// `read_bytes` and `write_bytes` exactly as `HostSpace`'s reach `host`, and by nothing else
    /// but accesses that claim the buffer's allocation's borrow flag. No other buffer answers the
    /// same `host`. The memory space and its buffer type are `Send` and `Sync` (the alias may be
    /// shared with and dropped on any thread).
    pub unsafe fn new(host: &'a HostBuffer) -> Self {
        HostStorage { host }
    }
    /// The host buffer.
    pub(crate) fn host(&self) -> &'a HostBuffer {
        self.host
    }
}

/// Marker for memory spaces whose data host code may read and write directly.
///
/// # Safety
/// For every buffer `b` that [`MemorySpace::allocate`] returned for `bytes` bytes aligned to
/// `align`, [`MemorySpace::host_ptr`] returns `Some(p)` where `p` is aligned to `align` and valid
/// for reads and writes of `bytes` bytes for as long as `b` lives, and nothing but accesses
/// through `p` (and the space's own byte copies) touches that memory. Views index host memory
/// through `p` without further checks.
pub unsafe trait HostAccessible: MemorySpace {}

/// Ordinary host memory (used by the serial and rayon backends).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostSpace;

/// Host allocation: 64-byte aligned memory owned by rokkos, or memory adopted from the caller.
pub struct HostBuffer {
    ptr: NonNull<u8>,
    bytes: usize,
    owner: HostOwner,
}

enum HostOwner {
    /// From [`HostSpace::allocate`]: `base` was allocated with `layout` (the buffer's bytes plus
    /// room to align them), and the buffer starts at the first aligned address at or after it.
    Aligned {
        base: NonNull<u8>,
        layout: alloc::Layout,
    },
    /// An empty buffer: a dangling aligned pointer, nothing to free.
    Empty,
    Adopted(#[allow(dead_code)] Box<dyn Any + Send>),
    /// From [`HostBuffer::from_owner`]: a `Box::into_raw` pointer, freed by `Drop`.
    Boxed(NonNull<dyn Any + Send>),
    Static,
    /// The storage of another allocation, which the View allocation holding this buffer keeps
    /// alive (`crate::view`'s host aliases): nothing to free here.
    Aliased,
}

// SAFETY: a `HostBuffer` owns its memory as a `Box<[u8]>` does (nothing else frees or moves it),
// and its owner is `Send`: `from_vec` keeps a `VecOwner`, `from_owner` requires `O: Send`, static
// memory has no owner, and an alias (`alias_of`) owns nothing (the allocation holding it keeps
// the storage alive, and is itself `Send`). Shared access (`&HostBuffer`) hands out only the address
// and length; reads and writes through them are governed by the allocation's borrow flag.
unsafe impl Send for HostBuffer {}
// SAFETY: as above; `&HostBuffer` has no interior mutability of its own.
unsafe impl Sync for HostBuffer {}

/// The owner of an adopted `Vec`: only ever dropped, never used to reach the elements (the View
/// reaches them, and is `Send` only when its element type is).
struct VecOwner<T>(#[allow(dead_code)] Vec<T>);
// SAFETY: `T: Copy` has no drop glue, so dropping the Vec on another thread only hands its memory
// back to the global allocator, which any thread may do; the elements are never touched through it.
unsafe impl<T: Copy> Send for VecOwner<T> {}

impl HostBuffer {
    /// Adopts a caller's `Vec` without copying; the Vec is dropped with the buffer.
    pub(crate) fn from_vec<T: Copy + 'static>(mut v: Vec<T>) -> Self {
        let bytes = std::mem::size_of_val(v.as_slice());
        let ptr = NonNull::new(v.as_mut_ptr() as *mut u8).expect("Vec pointer is never null");
        HostBuffer {
            ptr,
            bytes,
            owner: HostOwner::Adopted(Box::new(VecOwner(v))),
        }
    }
    /// Wraps memory that lives for the rest of the program.
    pub(crate) fn from_static<T>(s: &'static mut [T]) -> Self {
        let bytes = std::mem::size_of_val(s);
        let ptr = NonNull::new(s.as_mut_ptr() as *mut u8).expect("slice pointer is never null");
        HostBuffer {
            ptr,
            bytes,
            owner: HostOwner::Static,
        }
    }
    /// Wraps memory that lives for the rest of the program and must never be written: the
    /// View made over it holds a read-only borrow flag, which grants no write.
    pub(crate) fn from_static_read_only<T>(s: &'static [T]) -> Self {
        let bytes = std::mem::size_of_val(s);
        // Never written through: the allocation's flag refuses every exclusive hold.
        let ptr = NonNull::new(s.as_ptr() as *mut u8).expect("slice pointer is never null");
        HostBuffer {
            ptr,
            bytes,
            owner: HostOwner::Static,
        }
    }
    /// Adopts host memory owned by `owner` (for example a device runtime's pinned allocation):
    /// the buffer is `owner.as_mut()` as it is right after `owner` was moved to the heap, and
    /// `owner` is dropped, freeing the memory its own way, when the buffer is. `as_mut` is called
    /// once; the memory must keep its address while `owner` is neither used nor moved, which any
    /// safe `AsMut` gives (the slice borrows `owner`). `owner` is `Send` because View handles,
    /// and so the buffer, may be dropped on another thread.
    ///
    /// ```
    /// let b = rokkos_core::HostBuffer::from_owner(vec![0u8; 16]);
    /// assert_eq!(b.len_bytes(), 16);
    /// ```
    pub fn from_owner<O: AsMut<[u8]> + Send + 'static>(owner: O) -> Self {
        // On the heap first, and held through a raw pointer from then on: the slice must be taken
        // where `owner` stays until it is dropped, and moving a `Box` would re-assert its
        // uniqueness over memory the slice may point into.
        let raw: *mut O = Box::into_raw(Box::new(owner));
        // SAFETY: `raw` comes from `Box::into_raw`: valid, aligned, and nothing else refers to it.
        let bytes = unsafe { (*raw).as_mut() };
        let len = bytes.len();
        let ptr = NonNull::new(bytes.as_mut_ptr()).expect("slice pointer is never null");
        let raw: *mut (dyn Any + Send) = raw;
        HostBuffer {
            ptr,
            bytes: len,
            owner: HostOwner::Boxed(NonNull::new(raw).expect("Box::into_raw is never null")),
        }
    }
    /// A buffer over the same bytes as `storage`, owning nothing: for a host alias of another
    /// allocation, which must keep `storage` alive for as long as the result lives.
    pub(crate) fn alias_of(storage: &HostBuffer) -> Self {
        HostBuffer {
            ptr: storage.ptr,
            bytes: storage.bytes,
            owner: HostOwner::Aliased,
        }
    }
    /// The address of the first byte.
    pub(crate) fn addr(&self) -> usize {
        self.ptr.as_ptr() as usize
    }
    /// Size in bytes.
    pub fn len_bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        match self.owner {
            HostOwner::Aligned { base, layout } => {
                // SAFETY: allocated in `HostSpace::allocate` with exactly this layout.
                unsafe { alloc::dealloc(base.as_ptr(), layout) }
            }
            HostOwner::Boxed(owner) => {
                // SAFETY: made by `Box::into_raw` in `from_owner` and dropped only here, once.
                drop(unsafe { Box::from_raw(owner.as_ptr()) })
            }
            _ => {}
        }
    }
}

impl MemorySpace for HostSpace {
    const NAME: &'static str = "HostSpace";
    type Buffer = HostBuffer;

    fn allocate(&self, label: &str, bytes: usize, align: usize) -> Result<HostBuffer> {
        let oom = || Error::OutOfMemory {
            label: label.to_string(),
            bytes,
        };
        let align = align.max(64);
        if !align.is_power_of_two() {
            return Err(oom());
        }
        if bytes == 0 {
            let ptr = NonNull::new(align as *mut u8).expect("alignment is non-zero");
            return Ok(HostBuffer {
                ptr,
                bytes,
                owner: HostOwner::Empty,
            });
        }
        // Zeroed memory at the allocator's own alignment, with room to align it here: the system
        // allocator gives that from `calloc`, whose large blocks are fresh pages that nobody touches
        // until the first kernel does (in parallel, on the threads that will use them, as an OpenMP
        // program's first touch). Asked for the alignment itself, it would `posix_memalign` and
        // then clear every byte on this thread: 0.45 s for three 256 MiB Views here.
        let layout = alloc::Layout::from_size_align(bytes.checked_add(align).ok_or_else(oom)?, 16)
            .map_err(|_| oom())?;
        // SAFETY: layout has non-zero size.
        let base = NonNull::new(unsafe { alloc::alloc_zeroed(layout) }).ok_or_else(oom)?;
        let addr = base.as_ptr() as usize;
        let offset = (addr.wrapping_add(align - 1) & !(align - 1)).wrapping_sub(addr);
        // SAFETY: `offset < align`, so `offset + bytes` stays inside the `bytes + align` allocated.
        let ptr = unsafe { NonNull::new_unchecked(base.as_ptr().add(offset)) };
        Ok(HostBuffer {
            ptr,
            bytes,
            owner: HostOwner::Aligned { base, layout },
        })
    }
    fn host_ptr(buffer: &HostBuffer) -> Option<NonNull<u8>> {
        Some(buffer.ptr)
    }
    unsafe fn read_bytes(&self, buffer: &HostBuffer, offset: usize, dst: &mut [u8]) -> Result<()> {
        check_byte_range(buffer.bytes, offset, dst.len())?;
        // SAFETY: range checked; no concurrent writer or `&mut` (the caller's contract);
        // `ptr::copy` tolerates overlap.
        unsafe { std::ptr::copy(buffer.ptr.as_ptr().add(offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
    unsafe fn write_bytes(&self, buffer: &HostBuffer, offset: usize, src: &[u8]) -> Result<()> {
        check_byte_range(buffer.bytes, offset, src.len())?;
        // SAFETY: range checked; nothing else touches the bytes (the caller's contract);
        // `ptr::copy` tolerates overlap.
        unsafe { std::ptr::copy(src.as_ptr(), buffer.ptr.as_ptr().add(offset), src.len()) };
        Ok(())
    }
}
// SAFETY: `allocate` returns `bytes` bytes aligned to `max(align, 64)` (or a dangling aligned
// pointer for 0 bytes) that only the buffer owns; adopted Vecs and static slices are owned by the
// buffer alone, and their element alignment is the View element's.
unsafe impl HostAccessible for HostSpace {}

/// Checks that bytes `offset .. offset + len` lie inside a `total`-byte buffer (for
/// [`MemorySpace::read_bytes`] / [`MemorySpace::write_bytes`] implementations).
///
/// ```
/// use rokkos_core::space::check_byte_range;
/// assert!(check_byte_range(16, 8, 8).is_ok());
/// assert!(check_byte_range(16, 9, 8).is_err());
/// assert!(check_byte_range(16, usize::MAX, 2).is_err());
/// ```
pub fn check_byte_range(total: usize, offset: usize, len: usize) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= total => Ok(()),
        _ => Err(Error::InvalidArgument(format!(
            "byte range {offset}..{} outside a {total}-byte buffer",
            offset.saturating_add(len)
        ))),
    }
}

/// Limits an execution space imposes on team policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeamLimits {
    /// Largest team size a launch may request.
    pub team_size_max: usize,
    /// Team size used for `TeamSize::Auto`, lowered by [`crate::TeamPolicy::team_size`] where
    /// that many threads of the policy's vector length would exceed `team_size_max`.
    pub team_size_auto: usize,
    /// Largest vector length (a power of two).
    pub vector_length_max: usize,
    /// Largest scratch request per team, in bytes, for levels 0 and 1 (per-team plus
    /// per-thread times team size).
    pub scratch_max: [usize; 2],
}

/// Where `parallel_reduce_into` stores a reduction's result: the element at byte `byte_offset` of
/// `buffer`, an allocation of the execution space's own memory. A device backend writes it from
/// the device, so the launch stays asynchronous like any other.
///
/// Only core makes one, for a launch that holds the result's allocation exclusively and whose
/// View arguments do not overlap the result element (see [`crate::launch`]); it lives no longer
/// than the space's `reduce_*_into` call that receives it. It is neither `Clone` nor `Copy`, and
/// [`ResultSlot::write`] consumes it: the element is written at most once, from one thread, and
/// never while the kernel runs over bytes it could reach.
#[derive(Debug)]
pub struct ResultSlot<'a, M: MemorySpace> {
    buffer: &'a M::Buffer,
    byte_offset: usize,
    elem_bytes: usize,
}

impl<'a, M: MemorySpace> ResultSlot<'a, M> {
    pub(crate) fn new(buffer: &'a M::Buffer, byte_offset: usize, elem_bytes: usize) -> Self {
        ResultSlot {
            buffer,
            byte_offset,
            elem_bytes,
        }
    }
    /// The same element in `buffer`, the storage of this slot's buffer in another memory space
    /// (`ResultSlot::project`).
    pub(crate) fn with_buffer<M2: MemorySpace>(
        &self,
        buffer: &'a M2::Buffer,
    ) -> ResultSlot<'a, M2> {
        ResultSlot {
            buffer,
            byte_offset: self.byte_offset,
            elem_bytes: self.elem_bytes,
        }
    }
    /// The allocation holding the result View's element.
    pub fn buffer(&self) -> &'a M::Buffer {
        self.buffer
    }
    /// Byte offset of the element in [`ResultSlot::buffer`].
    pub fn byte_offset(&self) -> usize {
        self.byte_offset
    }
    /// Writes `value` into the slot from the host (what a backend without a device-side join
    /// does once it has the value), consuming the slot. `Err(InvalidArgument)` when `T` is not
    /// the result's size.
    pub fn write<T: bytemuck::Pod>(self, value: T) -> Result<()> {
        if std::mem::size_of::<T>() != self.elem_bytes {
            return Err(Error::InvalidArgument(format!(
                "a result of {} bytes written into a {}-byte result View",
                std::mem::size_of::<T>(),
                self.elem_bytes
            )));
        }
        // SAFETY: core made this slot for a launch that holds the result's allocation exclusively
        // until the `reduce_*_into` call receiving the slot returns, and the slot cannot outlive
        // it; no View argument of the launch overlaps the element (`ArgHold::acquire`), so a
        // kernel of the launch running meanwhile never touches these bytes; and the slot is
        // consumed here, so this is the only write through it.
        unsafe {
            M::default().write_bytes(self.buffer, self.byte_offset, bytemuck::bytes_of(&value))
        }
    }
}

/// Something that runs parallel patterns: a backend's handle (cheap to clone).
///
/// Each pattern method receives a [`Launch`] token: the label, the policy already validated
/// against the space's limits, and the kernel whose arguments passed the aliasing checks of
/// `crate::pattern` and stay held until the method returns. Only core makes tokens, and a token is
/// typed with this space's own policy type, so the methods cannot be called directly nor handed a
/// token made for another space. Host backends run the kernel's native body (see
/// [`HostBackend`]); device backends run its IR.
pub trait ExecutionSpace: Clone + Debug + 'static {
    /// The memory space kernels launched here read and write.
    type Memory: MemorySpace;
    /// Backend name (`"serial"`, `"rayon"`, ...).
    fn name(&self) -> &'static str;
    /// Number of concurrent workers.
    fn concurrency(&self) -> usize;
    /// Waits for all work submitted to this space.
    fn fence(&self) -> Result<()>;
    /// A handle to the memory space, for allocating Views.
    fn memory_space(&self) -> Self::Memory {
        Self::Memory::default()
    }
    /// Team policy limits of this space.
    fn team_limits(&self) -> TeamLimits;
    /// The largest team size `policy` can launch a kernel with for `pattern` on this space
    /// ([`TeamPolicy::team_size_max`] calls it): `kernel` is the kernel's IR where it could be
    /// built, `label` names the kernel in errors. By default the space's [`TeamLimits`], shrunk
    /// by the policy's scratch requests ([`TeamPolicy::team_size_max_in_limits`], vector lanes not
    /// counted as threads, as on the host backends); a device backend counts a team's lanes as
    /// threads of its block and adds what it knows of the kernel.
    ///
    /// ```
    /// use rokkos_core::{ExecutionSpace, TeamPattern, TeamPolicy, TeamSize};
    /// let space = rokkos_core::ir::eval::IrEval;
    /// let p = TeamPolicy::new(&space, 8, TeamSize::Auto).vector_length(4);
    /// assert_eq!(space.team_size_max_for("k", &p, None, TeamPattern::For).unwrap(), 1);
    /// ```
    fn team_size_max_for(
        &self,
        label: &str,
        policy: &TeamPolicy<Self>,
        kernel: Option<&crate::ir::Kernel>,
        pattern: crate::policy::TeamPattern,
    ) -> Result<usize> {
        let _ = (kernel, pattern);
        policy.team_size_max_in_limits(label, false)
    }

    /// `parallel_for` over a range.
    fn for_range<K>(&self, launch: Launch<'_, RangePolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<RangeWork, Space = Self::Memory> + KernelIr;
    /// `parallel_for` over a multidimensional range.
    fn for_mdrange<const N: usize, K>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
    ) -> Result<()>
    where
        K: ForKernel<MDWork<N>, Space = Self::Memory> + KernelIr;
    /// `parallel_for` over a league of teams.
    fn for_team<K>(&self, launch: Launch<'_, TeamPolicy<Self>, K>) -> Result<()>
    where
        K: ForKernel<TeamWork, Space = Self::Memory> + KernelIr;
    /// `parallel_reduce` over a range.
    fn reduce_range<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<RangeWork, Space = Self::Memory> + KernelIr,
        Rd: Reducer<K::Value>;
    /// `parallel_reduce` over a multidimensional range.
    fn reduce_mdrange<const N: usize, K, Rd>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<MDWork<N>, Space = Self::Memory> + KernelIr,
        Rd: Reducer<K::Value>;
    /// `parallel_reduce` over a league of teams.
    fn reduce_team<K, Rd>(
        &self,
        launch: Launch<'_, TeamPolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ReduceKernel<TeamWork, Space = Self::Memory> + KernelIr,
        Rd: Reducer<K::Value>;
    /// `parallel_reduce_into` over a range: the result goes to `slot` (a rank-0 View of this
    /// space's memory, held by the launch). By default the value is computed as by
    /// [`ExecutionSpace::reduce_range`] and written from the host; a device backend overrides this
    /// to keep the launch asynchronous.
    fn reduce_range_into<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
        slot: ResultSlot<'_, Self::Memory>,
    ) -> Result<()>
    where
        K: ReduceKernel<RangeWork, Space = Self::Memory> + KernelIr,
        K::Value: bytemuck::Pod,
        Rd: Reducer<K::Value>,
    {
        slot.write(self.reduce_range(launch, reducer)?)
    }
    /// As [`ExecutionSpace::reduce_range_into`] over a multidimensional range.
    fn reduce_mdrange_into<const N: usize, K, Rd>(
        &self,
        launch: Launch<'_, MDRangePolicy<Self, N>, K>,
        reducer: &Rd,
        slot: ResultSlot<'_, Self::Memory>,
    ) -> Result<()>
    where
        K: ReduceKernel<MDWork<N>, Space = Self::Memory> + KernelIr,
        K::Value: bytemuck::Pod,
        Rd: Reducer<K::Value>,
    {
        slot.write(self.reduce_mdrange(launch, reducer)?)
    }
    /// As [`ExecutionSpace::reduce_range_into`] over a league of teams.
    fn reduce_team_into<K, Rd>(
        &self,
        launch: Launch<'_, TeamPolicy<Self>, K>,
        reducer: &Rd,
        slot: ResultSlot<'_, Self::Memory>,
    ) -> Result<()>
    where
        K: ReduceKernel<TeamWork, Space = Self::Memory> + KernelIr,
        K::Value: bytemuck::Pod,
        Rd: Reducer<K::Value>,
    {
        slot.write(self.reduce_team(launch, reducer)?)
    }
    /// `parallel_scan` over a range: calls the kernel with `final == true` exactly once per index,
    /// in any order, with the exclusive prefix (under `reducer`) of all earlier indices; returns the total.
    fn scan_range<K, Rd>(
        &self,
        launch: Launch<'_, RangePolicy<Self>, K>,
        reducer: &Rd,
    ) -> Result<K::Value>
    where
        K: ScanKernel<RangeWork, Space = Self::Memory> + KernelIr,
        Rd: Reducer<K::Value>;
}

/// An execution space that runs kernels' native bodies on host threads: what makes
/// [`Launch::for_body`], [`Launch::reduce_body`] and [`Launch::scan_body`] available.
///
/// The macro proves that two *different* work items never touch the same element through plain
/// accesses (owner computes); this trait is the other half of that argument.
///
/// What an implementor can rely on: a token for one of its policies reaches only its own pattern
/// methods, called by core (`crate::pattern`, or [`Launch::delegate`] on behalf of a space that
/// hands it the launch), once per launch: tokens are neither `Clone` nor `Copy`, `delegate`
/// consumes the token it is given and calls the target space's method itself, so no other code
/// (in particular no user [`ExecutionSpace`]) ever holds a token of this space, nor a body made
/// from one.
///
/// # Safety
/// An implementor runs each body it gets from a token only while the pattern method that received
/// the token runs, and never runs the same work item on two threads at once: for a range or
/// MDRange, each index of the policy at most once per launch (`parallel_scan`: at most once with
/// `is_final == false` and once with `is_final == true`, the two never at the same time); for a
/// team policy, each league rank on one thread, with its own [`crate::TeamMember`] (whose own
/// contract applies). Work items outside the policy are not run. It does not hand the token or a
/// body to code that could break this (a body is `Sync`: it must not reach another thread except
/// to run distinct work items of this launch).
pub unsafe trait HostBackend: ExecutionSpace {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_allocations_are_aligned_zeroed_and_freed() {
        for align in [1usize, 8, 64, 128, 4096] {
            for bytes in [0usize, 1, 63, 64, 65, 4095, 1 << 20, (8 << 20) + 3] {
                let b = HostSpace.allocate("t", bytes, align).unwrap();
                assert_eq!(b.len_bytes(), bytes);
                assert_eq!(b.addr() % align.max(64), 0, "{bytes} bytes at {align}");
                let mut got = vec![1u8; bytes];
                // SAFETY: nothing else holds the fresh buffer.
                unsafe { HostSpace.read_bytes(&b, 0, &mut got).unwrap() };
                assert!(got.iter().all(|&x| x == 0), "{bytes} bytes at {align}");
                // The last byte is writable: the alignment slack was allocated, not taken from it.
                if bytes > 0 {
                    // SAFETY: as above.
                    unsafe { HostSpace.write_bytes(&b, bytes - 1, &[7]).unwrap() };
                }
            }
        }
        // An alignment that is not a power of two, or a size that overflows with it, is refused.
        assert!(HostSpace.allocate("t", 8, 96).is_err());
        assert!(matches!(
            HostSpace.allocate("t", usize::MAX - 8, 64),
            Err(Error::OutOfMemory { .. })
        ));
    }
}
