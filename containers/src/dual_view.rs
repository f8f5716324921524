//! [`DualView`]: one array kept in two places, a View in a space's memory (the *device side*)
//! and a host View of the same shape (the *host side*), with modified flags that say which side
//! holds the newest data (Kokkos' `DualView`).
//!
//! # The rule: no access ever sees stale data
//!
//! Every access to either side is watched ([`rokkos::watch`]): kernel launches (per View
//! argument), `deep_copy`, `fill`, and host guards (`host()`, `host_mut()`, `get`, `set`), through
//! the DualView's own Views or any clone or subview of them. When the *other* side was modified
//! and not synced, the access is refused with [`Error::Unsynced`] naming the DualView, the access
//! and the `sync_*` call to make first; nothing runs. An access that may write (a writable kernel
//! parameter, a copy's destination, `host_mut()`, `set`) marks its side modified by itself, so
//! `modify_host` / `modify_device` are needed only where Kokkos code calls them anyway (they
//! are kept, with Kokkos' meaning). Launches and copies answer the `Err`; `try_host()`,
//! `try_host_mut()` and this type's [`DualView::host`] / [`DualView::host_mut`] too; the
//! panicking host guards `host()`, `host_mut()`, `get` and `set` panic with it, as they do on a
//! conflicting guard.
//!
//! ```
//! use rokkos::prelude::*;
//! use rokkos_containers::DualView;
//!
//! #[kernel]
//! fn twice(i: usize, y: ViewMut<f64>) {
//!     y[i] = 2.0 * y[i];
//! }
//!
//! # fn main() -> rokkos::Result<()> {
//! let dev = Device::new()?;
//! let x = DualView::<f64>::new_on(&dev, "x", [4])?;
//! // Writing the host side marks it modified.
//! x.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
//! let run = |x: &DualView<f64>| {
//!     parallel_for("twice", RangePolicy::new(&dev, 0..4), twice(x.view_device()))
//! };
//! let stale = run(&x).unwrap_err(); // the device side is out of date: refused, nothing ran
//! assert!(matches!(stale, Error::Unsynced { ref view, .. } if view == "x"), "{stale}");
//! x.sync_device()?; // copies host -> device (nothing to copy when both sides are one memory)
//! run(&x)?; // the kernel writes the device side: it is marked modified
//! assert!(x.need_sync_host());
//! assert!(x.host().is_err()); // the host side is out of date until synced
//! x.sync_host()?;
//! assert_eq!(x.host()?.as_slice().unwrap(), &[2.0, 4.0, 6.0, 8.0]);
//! # Ok(())
//! # }
//! ```
//!
//! # On every backend alike
//!
//! Where the device side's memory is host memory (the static host spaces `Serial` and `Rayon`,
//! whose memory is `HostSpace`, and a `Device` standing for serial or rayon) both sides are one
//! allocation ([`DualView::shares_memory`]) and a sync copies nothing; but the flags are kept and
//! checked exactly as on a GPU, so a program that forgets a sync fails on the CPU as it would
//! on the GPU, instead of passing there and reading stale data on a device. (Kokkos ignores
//! `modify` and `sync` when both sides are one memory space.)
//!
//! # Modified flags
//!
//! Each side has a counter, as in Kokkos: marking a side modified sets its counter one past the
//! larger of the two; a side needs a sync when the other's counter is larger; a sync that copies
//! resets both to zero. Marking a side modified while the other holds changes not yet synced is
//! refused (`Err(Unsynced)`: both sides would hold changes, and no sync could keep both; Kokkos
//! aborts there). Both counters can only be set at once when two threads modify the two sides
//! concurrently; a sync then answers `Err(Unsynced)` instead of dropping either side's changes,
//! and [`DualView::clear_sync_state`] discards the flags.
//!
//! Clones are shallow: they share both sides and the flags. A [`DualView::subview`] shares them
//! too (what a kernel writes through it marks the whole DualView); syncing is done on the
//! DualView it was taken from, which copies every element. [`DualView::resize`] keeps the
//! contents of the side modified last (the device side when neither or both), and
//! [`DualView::realloc`] drops the contents; both give this handle new allocations and fresh
//! flags, and leave other handles on the old ones.

use rokkos::watch::{Access, AccessWatch};
use rokkos::{
    create_mirror, deep_copy, DeviceMemory, Error, ExecutionSpace, HostMut, HostRef, HostSpace,
    Layout, LayoutRight, LayoutStride, MemorySpace, Pod, Result, SubviewSpec, View,
};
use std::cell::Cell;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard};

/// One side of a [`DualView`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Host,
    Device,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Host => "host",
            Side::Device => "device",
        }
    }
    fn other(self) -> Side {
        match self {
            Side::Host => Side::Device,
            Side::Device => Side::Host,
        }
    }
    /// The call that brings this side up to date.
    fn sync_call(self) -> &'static str {
        match self {
            Side::Host => "sync_host()",
            Side::Device => "sync_device()",
        }
    }
}

/// The modified counters (Kokkos' `modified_flags`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flags {
    host: u64,
    device: u64,
}

impl Flags {
    fn of(&self, side: Side) -> u64 {
        match side {
            Side::Host => self.host,
            Side::Device => self.device,
        }
    }
    /// Whether `side` is out of date: the other side was modified after it.
    fn stale(&self, side: Side) -> bool {
        self.of(side.other()) > self.of(side)
    }
    fn both_modified(&self) -> bool {
        self.host > 0 && self.device > 0
    }
    fn mark(&mut self, side: Side) {
        let next = self.host.max(self.device).saturating_add(1);
        match side {
            Side::Host => self.host = next,
            Side::Device => self.device = next,
        }
    }
}

/// What every handle, subview and watch of one DualView allocation pair shares.
#[derive(Debug)]
struct Shared {
    label: String,
    flags: Mutex<Flags>,
}

thread_local! {
    /// The [`Shared`] (by address) whose own copies (a sync, a resize, `deep_copy_from`) run on
    /// this thread now: its watches let them through, since they are what brings a side up to
    /// date. Accesses from other threads are still checked.
    static COPYING: Cell<usize> = const { Cell::new(0) };
}

/// Marks the copies of one [`Shared`] on this thread until dropped (restoring the previous one,
/// for a copy of another DualView made meanwhile, e.g. from a profiling hook).
struct Copying(usize);

impl Copying {
    fn enter(shared: &Arc<Shared>) -> Copying {
        Copying(COPYING.with(|c| c.replace(Arc::as_ptr(shared) as usize)))
    }
}

impl Drop for Copying {
    fn drop(&mut self) {
        COPYING.with(|c| c.set(self.0));
    }
}

impl Shared {
    fn new(label: &str, flags: Flags) -> Arc<Shared> {
        Arc::new(Shared {
            label: label.to_string(),
            flags: Mutex::new(flags),
        })
    }
    fn flags(&self) -> MutexGuard<'_, Flags> {
        // No code panics while holding the lock; a poisoned one still holds consistent flags.
        self.flags.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn copying_here(self: &Arc<Self>) -> bool {
        COPYING.with(|c| c.get()) == Arc::as_ptr(self) as usize
    }
    fn unsynced(&self, reason: String) -> Error {
        Error::Unsynced {
            view: self.label.clone(),
            reason,
        }
    }
    fn both_modified(&self, what: &str) -> Error {
        self.unsynced(format!(
            "{what}: both sides were modified (by two threads at once) and neither can be kept \
             without losing the other's changes; clear_sync_state() discards the flags"
        ))
    }
}

/// The watch of one side's allocation.
struct SideWatch {
    shared: Arc<Shared>,
    side: Side,
}

impl AccessWatch for SideWatch {
    fn check(&self, access: &Access<'_>) -> Result<()> {
        if self.shared.copying_here() {
            return Ok(());
        }
        if !self.shared.flags().stale(self.side) {
            return Ok(());
        }
        Err(self.shared.unsynced(format!(
            "{}: View `{}` is its {} side, and the {} side was modified and not synced: \
             call {} first",
            access.what(),
            access.label,
            self.side.name(),
            self.side.other().name(),
            self.side.sync_call()
        )))
    }
    fn commit(&self, access: &Access<'_>) {
        if access.write && !self.shared.copying_here() {
            self.shared.flags().mark(self.side);
        }
    }
}

/// A View in memory space `S` (the device side) and a host View of the same extents and layout
/// (the host side), with modified flags; see the [module documentation](self) for the rule
/// every access follows.
///
/// `DualView<f64>` is a rank-1 array whose device side is a [`rokkos::DeviceView`] of the
/// run-time [`rokkos::Device`]; `DualView<f32, 2, LayoutLeft, WgpuSpace>` a column-major one in
/// a static space's memory.
pub struct DualView<
    T: Pod,
    const R: usize = 1,
    L: Layout = LayoutRight,
    S: MemorySpace = DeviceMemory,
> {
    device: View<T, R, L, S>,
    host: View<T, R, L, HostSpace>,
    shared: Arc<Shared>,
    /// Both sides are one memory (the host side is a host View of the device side's memory).
    one_memory: bool,
    /// This handle covers the whole allocations (not a subview): it can sync and resize.
    whole: bool,
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> Clone for DualView<T, R, L, S> {
    /// A shallow copy: the same two Views and the same flags.
    fn clone(&self) -> Self {
        DualView {
            device: self.device.clone(),
            host: self.host.clone(),
            shared: self.shared.clone(),
            one_memory: self.one_memory,
            whole: self.whole,
        }
    }
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> std::fmt::Debug for DualView<T, R, L, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DualView")
            .field("label", &self.shared.label)
            .field("device", &self.device)
            .field("host", &self.host)
            .field("flags", &*self.shared.flags())
            .field("shares_memory", &self.one_memory)
            .finish()
    }
}

/// The host side for `device`: a host View of its memory when that memory is host memory,
/// else a new host allocation (zero-filled; pinned where the space provides it).
fn host_side<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    device: &View<T, R, L, S>,
) -> Result<(View<T, R, L, HostSpace>, bool)> {
    match device.host_twin() {
        Some(h) => Ok((h, true)),
        None => Ok((create_mirror(device)?, false)),
    }
}

/// Copies the elements whose indices both Views have (the box of the smaller extents).
fn copy_common<T: Pod, const R: usize, L1: Layout, S1: MemorySpace, L2: Layout, S2: MemorySpace>(
    to: &View<T, R, L1, S1>,
    from: &View<T, R, L2, S2>,
) -> Result<()> {
    let common: [Range<usize>; R] = std::array::from_fn(|k| 0..to.extent(k).min(from.extent(k)));
    deep_copy(
        &to.subview::<R>(common.clone())?,
        &from.subview::<R>(common)?,
    )
}

impl<T: Pod, const R: usize, L: Layout, S: MemorySpace> DualView<T, R, L, S> {
    /// Allocates both sides, zero-filled, the device side in `space` (flags clear).
    ///
    /// ```
    /// use rokkos::{DeviceMemory, LayoutLeft};
    /// use rokkos_containers::DualView;
    /// let memory = DeviceMemory::default();
    /// let a = DualView::<i32, 2, LayoutLeft>::new_in(&memory, "a", [3, 2]).unwrap();
    /// assert_eq!((a.label(), a.extents()), ("a", [3, 2]));
    /// assert!(!a.need_sync_host() && !a.need_sync_device());
    /// ```
    pub fn new_in(space: &S, label: &str, extents: [usize; R]) -> Result<Self> {
        let device = View::new_in(space, label, extents)?;
        Self::pair(device, Flags::default())
    }

    /// Allocates both sides, zero-filled, the device side in the memory of execution space
    /// `space` (Kokkos' `DualView<T*, ExecSpace>("label", n)`).
    ///
    /// ```
    /// use rokkos::{HostSpace, LayoutRight, Serial};
    /// use rokkos_containers::DualView;
    /// let a = DualView::<f32, 1, LayoutRight, HostSpace>::new_on(&Serial, "a", [5]).unwrap();
    /// assert!(a.shares_memory()); // Serial's memory is host memory: one allocation
    /// ```
    pub fn new_on<E: ExecutionSpace<Memory = S>>(
        space: &E,
        label: &str,
        extents: [usize; R],
    ) -> Result<Self> {
        Self::new_in(&space.memory_space(), label, extents)
    }

    /// A DualView whose device side is `device` (an existing View, with its contents) and whose
    /// host side is a new host mirror (or a host View of the same memory): the device side is
    /// marked modified, so the host side is read after a `sync_host()`. Every View of `device`'s
    /// allocation reports to the DualView from now on (as its device side).
    /// `Err(InvalidArgument)` when that allocation belongs to another DualView already.
    ///
    /// ```
    /// use rokkos::{deep_copy, Device, DeviceView, View};
    /// use rokkos_containers::DualView;
    /// # fn main() -> rokkos::Result<()> {
    /// let dev = Device::new()?;
    /// let d = DeviceView::<u32>::new_on(&dev, "d", [3])?;
    /// deep_copy(&d, &View::<u32>::from_vec("src", [3], vec![7, 8, 9])?)?;
    /// let dv = DualView::from_device_view(d)?;
    /// assert!(dv.need_sync_host());
    /// dv.sync_host()?;
    /// assert_eq!(dv.view_host().to_vec(), [7, 8, 9]);
    /// # Ok(()) }
    /// ```
    pub fn from_device_view(device: View<T, R, L, S>) -> Result<Self> {
        if device.is_watched() {
            return Err(Error::InvalidArgument(format!(
                "View `{}` already belongs to a DualView (or another watched container)",
                device.label()
            )));
        }
        Self::pair(device, Flags { host: 0, device: 1 })
    }

    /// The pair of `device` and its host side, both watched, with `flags`.
    fn pair(device: View<T, R, L, S>, flags: Flags) -> Result<Self> {
        let (host, one_memory) = host_side(&device)?;
        let shared = Shared::new(device.label(), flags);
        device.watch(Arc::new(SideWatch {
            shared: shared.clone(),
            side: Side::Device,
        }))?;
        host.watch(Arc::new(SideWatch {
            shared: shared.clone(),
            side: Side::Host,
        }))?;
        Ok(DualView {
            device,
            host,
            shared,
            one_memory,
            whole: true,
        })
    }

    /// The label (the device side's).
    pub fn label(&self) -> &str {
        &self.shared.label
    }
    /// The extents.
    pub fn extents(&self) -> [usize; R] {
        self.device.extents()
    }
    /// The extent of dimension `k` (0 past the rank).
    pub fn extent(&self, k: usize) -> usize {
        self.device.extent(k)
    }
    /// The number of elements.
    pub fn size(&self) -> usize {
        self.device.size()
    }
    /// The span of the device side (elements between its first and last, gaps included).
    pub fn span(&self) -> usize {
        self.device.span()
    }
    /// Whether both sides are one memory (the device side's memory is host memory), where a
    /// sync copies nothing.
    pub fn shares_memory(&self) -> bool {
        self.one_memory
    }

    /// The device side: the View kernels launched on the space take (Kokkos' `view_device()`).
    /// Its accesses follow the [rule](self): refused while the host side holds unsynced
    /// changes, and marking the device side modified when they may write.
    pub fn view_device(&self) -> &View<T, R, L, S> {
        &self.device
    }
    /// The host side (Kokkos' `view_host()`), under the same rule as [`DualView::view_device`].
    pub fn view_host(&self) -> &View<T, R, L, HostSpace> {
        &self.host
    }

    /// A read guard on the host side; `Err(Unsynced)` while the device side holds unsynced
    /// changes, `Err(Aliasing)` while a conflicting guard or launch is alive.
    pub fn host(&self) -> Result<HostRef<'_, T, R, L, HostSpace>> {
        self.host.try_host()
    }
    /// A write guard on the host side, which marks it modified; `Err(Unsynced)` while the
    /// device side holds unsynced changes, `Err(Aliasing)` while another guard or a launch is
    /// alive.
    ///
    /// ```
    /// use rokkos::{HostSpace, LayoutRight, Serial};
    /// use rokkos_containers::DualView;
    /// let a = DualView::<i64, 2, LayoutRight, HostSpace>::new_on(&Serial, "a", [2, 2]).unwrap();
    /// a.host_mut().unwrap()[(1, 0)] = 5;
    /// assert!(a.need_sync_device());
    /// ```
    pub fn host_mut(&self) -> Result<HostMut<'_, T, R, L, HostSpace>> {
        self.host.try_host_mut()
    }

    /// Whether the host side is out of date (the device side was modified after it).
    pub fn need_sync_host(&self) -> bool {
        self.shared.flags().stale(Side::Host)
    }
    /// Whether the device side is out of date (the host side was modified after it).
    pub fn need_sync_device(&self) -> bool {
        self.shared.flags().stale(Side::Device)
    }

    /// Marks the host side modified (accesses that may write do this by themselves).
    /// `Err(Unsynced)` while the device side holds unsynced changes: call `sync_host()` first.
    pub fn modify_host(&self) -> Result<()> {
        self.modify(Side::Host)
    }
    /// Marks the device side modified (accesses that may write do this by themselves).
    /// `Err(Unsynced)` while the host side holds unsynced changes: call `sync_device()` first.
    ///
    /// ```
    /// use rokkos::{Device, Error};
    /// use rokkos_containers::DualView;
    /// # fn main() -> rokkos::Result<()> {
    /// let a = DualView::<f64>::new_on(&Device::new()?, "a", [8])?;
    /// a.modify_device()?;
    /// assert!(a.need_sync_host());
    /// assert!(matches!(a.modify_host(), Err(Error::Unsynced { .. })));
    /// a.clear_sync_state();
    /// a.modify_host()?;
    /// assert!(a.need_sync_device());
    /// # Ok(()) }
    /// ```
    pub fn modify_device(&self) -> Result<()> {
        self.modify(Side::Device)
    }
    fn modify(&self, side: Side) -> Result<()> {
        let mut f = self.shared.flags();
        if f.stale(side) {
            return Err(self.shared.unsynced(format!(
                "modify_{}() while the {} side holds changes not synced to it: call {} first \
                 (or clear_sync_state() to drop them)",
                side.name(),
                side.other().name(),
                side.sync_call()
            )));
        }
        f.mark(side);
        Ok(())
    }
    /// Resets both flags to "in sync" without copying (Kokkos' `clear_sync_state`): whatever
    /// one side changed and the other lacks is no longer tracked.
    pub fn clear_sync_state(&self) {
        *self.shared.flags() = Flags::default();
    }

    /// Brings the host side up to date: copies device -> host when the device side was modified
    /// after it (nothing when both sides are one memory), then clears the flags; does nothing
    /// when the host side is not out of date. On `Err` (a guard or launch holds a side, the copy
    /// failed, or this is a subview) nothing changed.
    pub fn sync_host(&self) -> Result<()> {
        self.sync(Side::Host)
    }
    /// Brings the device side up to date: copies host -> device when the host side was modified
    /// after it (nothing when both sides are one memory), then clears the flags; as
    /// [`DualView::sync_host`] otherwise.
    pub fn sync_device(&self) -> Result<()> {
        self.sync(Side::Device)
    }
    fn sync(&self, to: Side) -> Result<()> {
        let flags = *self.shared.flags();
        if flags.both_modified() {
            return Err(self.shared.both_modified(to.sync_call()));
        }
        if !flags.stale(to) {
            return Ok(());
        }
        if !self.whole {
            return Err(self.shared.unsynced(format!(
                "{} on a subview: sync the DualView it was taken from (a sync copies every \
                 element the flags cover)",
                to.sync_call()
            )));
        }
        if !self.one_memory {
            let _copying = Copying::enter(&self.shared);
            match to {
                Side::Host => deep_copy(&self.host, &self.device)?,
                Side::Device => deep_copy(&self.device, &self.host)?,
            }
        }
        let mut f = self.shared.flags();
        // Only what this sync saw is cleared: a side marked by another thread meanwhile stays.
        if *f == flags {
            *f = Flags::default();
        }
        Ok(())
    }

    /// Gives this handle new allocations of `extents`, keeping the elements whose indices both
    /// shapes have on the side modified last (the device side when neither was); the other side
    /// starts zero-filled, and the kept side is marked modified (Kokkos' `DualView::resize`).
    /// Other handles keep the old allocations and flags. Does nothing when the extents are
    /// unchanged. On `Err` (an allocation or the copy failed, both sides were modified, a guard
    /// or launch holds the kept side, or this is a subview) nothing changed.
    ///
    /// ```
    /// use rokkos::{HostSpace, LayoutRight, Serial};
    /// use rokkos_containers::DualView;
    /// # fn main() -> rokkos::Result<()> {
    /// let mut a = DualView::<u8, 1, LayoutRight, HostSpace>::new_on(&Serial, "a", [3])?;
    /// a.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1, 2, 3]);
    /// a.resize([5])?; // the host side was modified last: its contents are kept
    /// assert!(a.need_sync_device());
    /// assert_eq!(a.view_host().to_vec(), [1, 2, 3, 0, 0]);
    /// # Ok(()) }
    /// ```
    pub fn resize(&mut self, extents: [usize; R]) -> Result<()> {
        self.check_whole("resize")?;
        let flags = *self.shared.flags();
        if flags.both_modified() {
            return Err(self.shared.both_modified("resize"));
        }
        if extents == self.extents() {
            return Ok(());
        }
        let space = self.device.memory_space().clone();
        let device = View::<T, R, L, S>::new_in(&space, self.label(), extents)?;
        let (host, one_memory) = host_side(&device)?;
        // The kept side is the newest (or, in one memory, the same bytes as the other), so its
        // watch lets this handle's own copy read it; the new Views are not watched yet.
        let kept = if flags.device >= flags.host {
            Side::Device
        } else {
            Side::Host
        };
        {
            let _copying = Copying::enter(&self.shared);
            // In one memory the host side is the device side's bytes: either copy keeps both.
            if one_memory || kept == Side::Device {
                copy_common(&device, &self.device)?;
            } else {
                copy_common(&host, &self.host)?;
            }
        }
        let mut fresh = Flags::default();
        fresh.mark(kept);
        *self = Self::watched(device, host, one_memory, fresh)?;
        Ok(())
    }

    /// Gives this handle new zero-filled allocations of `extents` with clear flags, dropping
    /// the contents (Kokkos' `DualView::realloc`); other handles keep the old ones.
    pub fn realloc(&mut self, extents: [usize; R]) -> Result<()> {
        self.check_whole("realloc")?;
        let space = self.device.memory_space().clone();
        let device = View::<T, R, L, S>::new_in(&space, self.label(), extents)?;
        let (host, one_memory) = host_side(&device)?;
        *self = Self::watched(device, host, one_memory, Flags::default())?;
        Ok(())
    }

    fn watched(
        device: View<T, R, L, S>,
        host: View<T, R, L, HostSpace>,
        one_memory: bool,
        flags: Flags,
    ) -> Result<Self> {
        let shared = Shared::new(device.label(), flags);
        device.watch(Arc::new(SideWatch {
            shared: shared.clone(),
            side: Side::Device,
        }))?;
        host.watch(Arc::new(SideWatch {
            shared: shared.clone(),
            side: Side::Host,
        }))?;
        Ok(DualView {
            device,
            host,
            shared,
            one_memory,
            whole: true,
        })
    }

    fn check_whole(&self, what: &str) -> Result<()> {
        if self.whole {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "{what} of a subview of DualView `{}`: only the DualView itself can be {what}d",
                self.label()
            )))
        }
    }

    /// A DualView of part of this one (Kokkos' `subview(dual_view, ..)`): the same part of both
    /// sides, with the same flags, so that what a kernel writes through it marks this
    /// DualView's side modified. `spec` is as for [`View::subview`]. A subview cannot sync,
    /// resize or realloc (`Err`: sync the DualView it was taken from).
    ///
    /// ```
    /// use rokkos::{HostSpace, LayoutRight, Serial};
    /// use rokkos_containers::DualView;
    /// # fn main() -> rokkos::Result<()> {
    /// let a = DualView::<i32, 2, LayoutRight, HostSpace>::new_on(&Serial, "a", [4, 3])?;
    /// let row = a.subview::<1>((2, ..))?;
    /// row.view_device().fill(7)?; // marks a's device side modified
    /// assert!(a.need_sync_host() && row.sync_host().is_err());
    /// a.sync_host()?;
    /// assert_eq!(a.view_host().get((2, 1)), 7);
    /// # Ok(()) }
    /// ```
    pub fn subview<const R2: usize>(
        &self,
        spec: impl SubviewSpec<R> + Clone,
    ) -> Result<DualView<T, R2, LayoutStride, S>> {
        Ok(DualView {
            device: self.device.subview::<R2>(spec.clone())?,
            host: self.host.subview::<R2>(spec)?,
            shared: self.shared.clone(),
            one_memory: self.one_memory,
            whole: false,
        })
    }

    /// Copies every element of `src` into this DualView (Kokkos' `deep_copy(dst, src)` of two
    /// DualViews): from `src`'s host side into this host side when `src`'s device side is out of
    /// date, else device side to device side; the side written is then this DualView's only
    /// modified one (whatever either side held before is overwritten). `Err(ShapeMismatch)` for
    /// other extents, `Err(Unsynced)` when both of `src`'s sides were modified, `Err` for a
    /// subview; on `Err` this DualView is unchanged.
    ///
    /// ```
    /// use rokkos::{HostSpace, LayoutRight, Serial};
    /// use rokkos_containers::DualView;
    /// # fn main() -> rokkos::Result<()> {
    /// let a = DualView::<u16, 1, LayoutRight, HostSpace>::new_on(&Serial, "a", [2])?;
    /// let b = DualView::<u16, 1, LayoutRight, HostSpace>::new_on(&Serial, "b", [2])?;
    /// a.view_host().set(1, 9); // a's host side is the newest
    /// b.deep_copy_from(&a)?;
    /// assert!(b.need_sync_device());
    /// assert_eq!(b.view_host().get(1), 9);
    /// # Ok(()) }
    /// ```
    pub fn deep_copy_from<L2: Layout, S2: MemorySpace>(
        &self,
        src: &DualView<T, R, L2, S2>,
    ) -> Result<()> {
        self.check_whole("deep_copy_from")?;
        let from = *src.shared.flags();
        if from.both_modified() {
            return Err(src.shared.both_modified("deep_copy_from"));
        }
        let side = if from.stale(Side::Device) {
            Side::Host
        } else {
            Side::Device
        };
        {
            // This DualView's watches let the copy through (it overwrites every element, so the
            // other side's state does not matter); `src`'s check its read as usual.
            let _copying = Copying::enter(&self.shared);
            match side {
                Side::Host => deep_copy(&self.host, &src.host)?,
                Side::Device => deep_copy(&self.device, &src.device)?,
            }
        }
        let mut fresh = Flags::default();
        fresh.mark(side);
        *self.shared.flags() = fresh;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rokkos::Serial;

    /// Both counters set (what two threads modifying the two sides at once leave): every sync,
    /// resize and copy from it is refused, nothing is copied, and clear_sync_state recovers.
    #[test]
    fn both_sides_modified_is_refused_everywhere() {
        type Dv = DualView<i32, 1, LayoutRight, HostSpace>;
        let mut a = Dv::new_on(&Serial, "both", [4]).unwrap();
        let b = Dv::new_on(&Serial, "other", [4]).unwrap();
        let both = Flags { host: 2, device: 1 };
        *a.shared.flags() = both;
        for e in [
            a.sync_host().unwrap_err(),
            a.sync_device().unwrap_err(),
            a.resize([8]).unwrap_err(),
            b.deep_copy_from(&a).unwrap_err(),
        ] {
            match &e {
                Error::Unsynced { view, reason } => {
                    assert_eq!(view, "both");
                    assert!(reason.contains("both sides were modified"), "{e}");
                }
                other => panic!("expected Unsynced, got {other:?}"),
            }
        }
        assert_eq!(*a.shared.flags(), both);
        assert_eq!(a.extents(), [4]);
        a.clear_sync_state();
        a.sync_host().unwrap();
        a.resize([8]).unwrap();
        assert_eq!(a.extents(), [8]);
    }

    /// Kokkos' counter arithmetic: one past the larger, the newer side needs no sync.
    #[test]
    fn counters_follow_kokkos() {
        let mut f = Flags::default();
        f.mark(Side::Device);
        assert_eq!(f, Flags { host: 0, device: 1 });
        assert!(f.stale(Side::Host) && !f.stale(Side::Device));
        f.mark(Side::Device);
        assert_eq!(f.device, 2);
        f.mark(Side::Host);
        assert_eq!(f, Flags { host: 3, device: 2 });
        assert!(f.both_modified() && f.stale(Side::Device));
    }
}
