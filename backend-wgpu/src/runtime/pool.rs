//! wgpu's buffers in the device pool of `rokkos_device::runtime::pool`: partials, totals and prefixes
//! (storage) and host read-backs (mappable staging). Returning a storage buffer right after its
//! last use was *encoded* is sound: every later use is encoded later on the same queue, and wgpu
//! orders dispatches and copies of one queue in encoding order. A staging buffer goes back only
//! after it was mapped, read and unmapped.

use std::convert::Infallible;

/// What a pooled buffer is for (its usage flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// `STORAGE | COPY_SRC | COPY_DST`: partials, totals, prefixes.
    Storage,
    /// `MAP_READ | COPY_DST`: read-back staging.
    Staging,
}

/// The idle buffers of one device.
pub(crate) type BufferPool = rokkos_device::runtime::pool::BufferPool<Kind, wgpu::Buffer>;
/// A buffer taken from the pool.
pub(crate) type Pooled = rokkos_device::runtime::pool::Pooled<Kind, wgpu::Buffer>;

/// A buffer of `kind` holding at least `bytes` bytes from `pool` (contents undefined).
pub(crate) fn take(pool: &BufferPool, device: &wgpu::Device, kind: Kind, bytes: usize) -> Pooled {
    let made = pool.take(kind, bytes, |size| {
        Ok::<_, Infallible>(create(device, kind, size))
    });
    match made {
        Ok(p) => p,
        Err(never) => match never {},
    }
}

fn create(device: &wgpu::Device, kind: Kind, size: u64) -> wgpu::Buffer {
    let usage = match kind {
        Kind::Storage => {
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST
        }
        Kind::Staging => wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    };
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(match kind {
            Kind::Storage => "rokkos scratch",
            Kind::Staging => "rokkos read-back",
        }),
        size,
        usage,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_wgpu_buffers_have_their_kind_usage() {
        let ctx = match super::super::ctx::default_ctx() {
            Ok(c) => c,
            Err(e) if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") => {
                panic!("ROKKOS_REQUIRE_WGPU=1 but: {e}")
            }
            Err(e) => return eprintln!("skipping: {e}"),
        };
        let pool = BufferPool::default();
        let s = take(&pool, &ctx.device, Kind::Staging, 700);
        assert!(s.usage().contains(wgpu::BufferUsages::MAP_READ) && s.size() >= 700);
        let first = (*s).clone();
        drop(s);
        let again = take(&pool, &ctx.device, Kind::Staging, 600);
        assert!(*again == first);
        let t = take(&pool, &ctx.device, Kind::Storage, 600);
        assert!(t.usage().contains(wgpu::BufferUsages::STORAGE) && *t != first);
    }
}
