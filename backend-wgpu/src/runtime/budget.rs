//! How many bytes the Views of one device may hold, and how many they hold: a View's allocation
//! either exists, all its buffers, or is refused at once with `Err(OutOfMemory)`.
//!
//! wgpu creates buffers without saying whether their memory exists. A Vulkan driver that backs
//! device memory lazily (lavapipe maps it from the host on first touch) accepts every buffer of
//! a View far larger than the machine, in pieces of `max_buffer_size` each (8 TiB as 4096 of
//! 2 GiB on a 24 GiB machine), and the View fails later, on first use or never. So a device
//! keeps the count of the bytes its Views hold and refuses, before any buffer is made, an
//! allocation that would take them past the adapter's memory ([`device_memory`]): the largest
//! device-local heap the Vulkan driver reports, or on a CPU adapter, whose buffers are host
//! memory, the host's physical memory (lavapipe reports one heap of 2 GiB but backs buffers
//! past it from the host, as a View of 2 GiB + 16 KiB in `tests/equivalence/segments.rs`
//! shows), or a smaller limit a test sets ([`crate::Wgpu::with_max_memory`]). On other APIs
//! (Metal, DX12, OpenGL) wgpu does not say how much memory there is, and the count refuses
//! nothing.
//!
//! Past that count, what the driver itself refuses is caught too: the instance asks wgpu to
//! refuse (as out of memory) a buffer that would take the heap past the driver's memory budget
//! (`VK_EXT_memory_budget`, DX12's budget: [`MEMORY_BUDGET_PERCENT`]), memory other processes
//! hold included, and every buffer is made under an out-of-memory and a validation error scope
//! (`runtime::memory`), the first refused one ending the allocation with the buffers already
//! made destroyed. What the count does not cover: the short-lived buffers of launches (the
//! pool's partials, staging and level-1 scratch, small next to Views), and memory that the
//! driver's budget does not show.

use std::sync::atomic::{AtomicU64, Ordering};

/// Percent of the driver's memory budget past which wgpu refuses to create a buffer (see the
/// module documentation): all of it, so that a buffer the driver could not back is refused
/// when it is made rather than failing when it is used.
pub(crate) const MEMORY_BUDGET_PERCENT: u8 = 100;

/// The bytes the Views of one device may hold and hold.
#[derive(Debug)]
pub(crate) struct Budget {
    /// The most bytes Views may hold (`None`: unknown, nothing refused by the count).
    capacity: Option<u64>,
    /// The bytes live Views hold (each allocation's buffers, rounded as made).
    held: AtomicU64,
}

impl Budget {
    /// A count of nothing held against `capacity`.
    pub(crate) fn new(capacity: Option<u64>) -> Self {
        Budget {
            capacity,
            held: AtomicU64::new(0),
        }
    }
    /// The most bytes Views may hold, when known.
    pub(crate) fn capacity(&self) -> Option<u64> {
        self.capacity
    }
    /// The bytes live Views hold.
    pub(crate) fn held(&self) -> u64 {
        self.held.load(Ordering::Acquire)
    }
    /// Counts `bytes` more as held when that stays within the capacity (`false`, nothing
    /// counted, otherwise); the caller gives them back with [`Budget::give_back`].
    pub(crate) fn claim(&self, bytes: u64) -> bool {
        let cap = self.capacity.unwrap_or(u64::MAX);
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |h| {
                h.checked_add(bytes).filter(|&t| t <= cap)
            })
            .is_ok()
    }
    /// Gives back `bytes` counted by a successful [`Budget::claim`].
    pub(crate) fn give_back(&self, bytes: u64) {
        self.held.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// The bytes of device memory Views may hold on `adapter`: on a CPU adapter the host's physical
/// memory (its buffers live there) where the host says ([`host_memory`]), else the largest
/// device-local memory heap of a Vulkan adapter; `None` otherwise (wgpu's API does not say how
/// much memory an adapter has).
pub(crate) fn device_memory(adapter: &wgpu::Adapter) -> Option<u64> {
    if adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        if let Some(m) = host_memory() {
            return Some(m);
        }
    }
    vulkan_heap(adapter)
}

/// The host's physical memory in bytes, where the system says (Linux: `MemTotal` of
/// `/proc/meminfo`).
fn host_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// The bytes of the largest device-local memory heap of `adapter`, where it is a Vulkan adapter.
fn vulkan_heap(adapter: &wgpu::Adapter) -> Option<u64> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        // A heap whose memory is local to the device (VK_MEMORY_HEAP_DEVICE_LOCAL_BIT), where
        // wgpu puts storage buffers.
        const DEVICE_LOCAL: u32 = 0x1;
        // SAFETY: the hal adapter is only read: its physical device's memory properties, which
        // Vulkan lets any thread query at any time; nothing is created or destroyed through it,
        // and the guard is dropped before this returns.
        let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
        let instance = hal.shared_instance().raw_instance();
        // SAFETY: the physical device was enumerated from this instance, which the adapter
        // (borrowed for the call) keeps alive.
        let props =
            unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
        let count = (props.memory_heap_count as usize).min(props.memory_heaps.len());
        props.memory_heaps[..count]
            .iter()
            .filter(|h| h.flags.as_raw() & DEVICE_LOCAL != 0)
            .map(|h| h.size)
            .max()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = adapter;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_memory_is_read_where_the_system_says() {
        match std::fs::read_to_string("/proc/meminfo") {
            Ok(_) => assert!(host_memory().is_some_and(|m| m >= 64 << 20)),
            Err(_) => assert_eq!(host_memory(), None),
        }
    }

    #[test]
    fn claims_stay_within_the_capacity_and_come_back() {
        let b = Budget::new(Some(100));
        assert!(b.claim(60));
        assert!(!b.claim(41), "past the capacity");
        assert_eq!(b.held(), 60, "a refused claim counts nothing");
        assert!(b.claim(40));
        assert!(!b.claim(1));
        b.give_back(60);
        assert_eq!(b.held(), 40);
        assert!(b.claim(60));
        assert!(!b.claim(u64::MAX), "no overflow");
        let open = Budget::new(None);
        assert!(open.claim(u64::MAX / 2) && open.claim(1));
        assert_eq!(open.capacity(), None);
        assert_eq!(open.held(), u64::MAX / 2 + 1);
    }
}
