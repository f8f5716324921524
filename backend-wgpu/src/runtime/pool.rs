//! Reusable device buffers for the short-lived storage of reductions and scans (per-workgroup
//! partials, block totals) and for host read-backs (mappable staging buffers).
//!
//! Creating a buffer costs an allocation in the driver and, because a new buffer needs a new
//! bind group, a bind group too; a reduction inside a solver loop would pay both at every call.
//! Buffers here are grouped by kind and power-of-two size class and handed out exclusively: a
//! [`Pooled`] goes back to the pool when dropped.
//!
//! Returning a storage buffer right after its last use was *encoded* (not executed) is sound:
//! every later use is encoded later on the same queue, and wgpu orders and synchronises
//! dispatches and copies of one queue in encoding order. A staging buffer is returned only after
//! it was mapped, read and unmapped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a pooled buffer is for (its usage flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// `STORAGE | COPY_SRC | COPY_DST`: partials, totals, prefixes.
    Storage,
    /// `MAP_READ | COPY_DST`: read-back staging.
    Staging,
}

impl Kind {
    fn usage(self) -> wgpu::BufferUsages {
        match self {
            Kind::Storage => {
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
            }
            Kind::Staging => wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        }
    }
}

/// Smallest size class (bytes).
const MIN_CLASS: u64 = 256;
/// Largest size class kept for reuse; larger requests get a buffer of their own, freed on drop.
const MAX_CLASS: u64 = 16 << 20;
/// Idle buffers kept per kind and size class.
const KEEP: usize = 4;

type Free = Arc<Mutex<HashMap<(Kind, u64), Vec<wgpu::Buffer>>>>;

/// The idle buffers of one device.
#[derive(Default)]
pub(crate) struct BufferPool {
    free: Free,
}

/// A buffer taken from a [`BufferPool`]; dropping it gives it back (or frees it when it is larger
/// than the pool keeps).
pub(crate) struct Pooled {
    buf: wgpu::Buffer,
    home: Option<((Kind, u64), Free)>,
}

impl std::ops::Deref for Pooled {
    type Target = wgpu::Buffer;
    fn deref(&self) -> &wgpu::Buffer {
        &self.buf
    }
}

impl Pooled {
    /// Whether the buffer outlives this use (it is kept in the pool): bind groups naming it may
    /// be cached.
    pub(crate) fn lasting(&self) -> bool {
        self.home.is_some()
    }
}

impl Pooled {
    /// Frees the buffer instead of giving it back (after a failed map, whose state is unknown).
    pub(crate) fn discard(mut self) {
        self.home = None;
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some((key, free)) = self.home.take() {
            if let Ok(mut f) = free.lock() {
                let idle = f.entry(key).or_default();
                if idle.len() < KEEP {
                    idle.push(self.buf.clone());
                }
            }
        }
    }
}

impl BufferPool {
    /// A buffer of `kind` holding at least `bytes` bytes (at least 8, a multiple of 4), for the
    /// caller's exclusive use until the returned handle is dropped. Its contents are undefined.
    pub(crate) fn take(&self, device: &wgpu::Device, kind: Kind, bytes: usize) -> Pooled {
        let want = (bytes as u64).div_ceil(4) * 4;
        let class = want.max(MIN_CLASS).next_power_of_two();
        if class > MAX_CLASS {
            return Pooled {
                buf: create(device, kind, want.max(8)),
                home: None,
            };
        }
        let key = (kind, class);
        let idle = self
            .free
            .lock()
            .ok()
            .and_then(|mut f| f.get_mut(&key).and_then(Vec::pop));
        Pooled {
            buf: idle.unwrap_or_else(|| create(device, kind, class)),
            home: Some((key, self.free.clone())),
        }
    }
}

fn create(device: &wgpu::Device, kind: Kind, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(match kind {
            Kind::Storage => "rokkos scratch",
            Kind::Staging => "rokkos read-back",
        }),
        size,
        usage: kind.usage(),
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device, or `None` without an adapter (a failure when `ROKKOS_REQUIRE_WGPU=1`).
    fn device() -> Option<std::sync::Arc<crate::device::Ctx>> {
        match crate::device::default_ctx() {
            Ok(c) => Some(c),
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
    fn buffers_are_reused_by_kind_and_size_class_and_large_ones_are_not_kept() {
        let Some(ctx) = device() else { return };
        let pool = BufferPool::default();
        let a = pool.take(&ctx.device, Kind::Storage, 1000);
        assert!(a.size() >= 1000 && a.lasting());
        let first = (*a).clone();
        drop(a);
        // Same kind and class: the same buffer; held, a second request gets another one.
        let b = pool.take(&ctx.device, Kind::Storage, 700);
        assert!(*b == first);
        let c = pool.take(&ctx.device, Kind::Storage, 700);
        assert!(*c != first);
        // Another kind never shares it.
        let s = pool.take(&ctx.device, Kind::Staging, 700);
        assert!(*s != first && s.usage().contains(wgpu::BufferUsages::MAP_READ));
        // A discarded buffer is not given back.
        drop(c);
        drop(b);
        let d = pool.take(&ctx.device, Kind::Storage, 700);
        let e = pool.take(&ctx.device, Kind::Storage, 700);
        assert!(*d == first || *e == first);
        let kept = (*d).clone();
        d.discard();
        let f = pool.take(&ctx.device, Kind::Storage, 700);
        assert!(*f != kept);
        // Above the largest class: a buffer of its own size, not kept.
        let big = pool.take(&ctx.device, Kind::Storage, (MAX_CLASS + 4) as usize);
        assert!(!big.lasting() && big.size() == MAX_CLASS + 4);
        // At most KEEP idle buffers per class.
        let many: Vec<Pooled> = (0..KEEP + 3)
            .map(|_| pool.take(&ctx.device, Kind::Storage, 4096))
            .collect();
        drop(many);
        let idle = pool.free.lock().unwrap();
        assert_eq!(idle[&(Kind::Storage, 4096)].len(), KEEP);
    }
}
