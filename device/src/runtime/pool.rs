//! Reusable device buffers for the short-lived storage of launches (per-block partials, block
//! totals, scratch, read-back staging), grouped by kind and power-of-two size class and handed out
//! exclusively: a [`Pooled`] goes back to its pool when dropped.
//!
//! Creating a buffer costs a driver allocation (and on wgpu a new bind group); a reduction inside
//! a solver loop would pay it at every call. The backend says when giving a buffer back early is
//! sound: on wgpu and on one CUDA stream, returning it right after its last use was *enqueued* is,
//! because every later use is enqueued later on the same queue or stream and runs after it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// Smallest size class (bytes).
pub const MIN_CLASS: u64 = 256;
/// Largest size class kept for reuse; larger requests get a buffer of their own, freed on drop.
pub const MAX_CLASS: u64 = 16 << 20;
/// Idle buffers kept per kind and size class.
pub const KEEP: usize = 4;

type Free<K, B> = Arc<Mutex<HashMap<(K, u64), Vec<B>>>>;

/// The idle buffers of one device (or stream), of kinds `K`.
pub struct BufferPool<K, B> {
    free: Free<K, B>,
}

impl<K, B> Default for BufferPool<K, B> {
    fn default() -> Self {
        BufferPool {
            free: Arc::new(Mutex::new(HashMap::new())),
        }
    }
}

/// A buffer taken from a [`BufferPool`]; dropping it gives it back (or frees it when it is larger
/// than the pool keeps).
pub struct Pooled<K: Copy + Eq + Hash, B> {
    buf: Option<B>,
    home: Option<((K, u64), Free<K, B>)>,
}

impl<K: Copy + Eq + Hash, B> std::ops::Deref for Pooled<K, B> {
    type Target = B;
    fn deref(&self) -> &B {
        self.buf
            .as_ref()
            .expect("a pooled buffer is present until dropped")
    }
}

impl<K: Copy + Eq + Hash, B> Pooled<K, B> {
    /// Whether the buffer outlives this use (it is kept in the pool): caches naming it may keep
    /// their entries.
    pub fn lasting(&self) -> bool {
        self.home.is_some()
    }
    /// Frees the buffer instead of giving it back (when its state is unknown, e.g. a failed map).
    pub fn discard(mut self) {
        self.home = None;
    }
}

impl<K: Copy + Eq + Hash, B> Drop for Pooled<K, B> {
    fn drop(&mut self) {
        if let (Some((key, free)), Some(buf)) = (self.home.take(), self.buf.take()) {
            if let Ok(mut f) = free.lock() {
                let idle = f.entry(key).or_default();
                if idle.len() < KEEP {
                    idle.push(buf);
                }
            }
        }
    }
}

impl<K: Copy + Eq + Hash, B> BufferPool<K, B> {
    /// A buffer of `kind` holding at least `bytes` bytes (at least 8, a multiple of 4), for the
    /// caller's exclusive use until the handle is dropped; `create(size)` makes one when none is
    /// idle. Its contents are undefined.
    pub fn take<E>(
        &self,
        kind: K,
        bytes: usize,
        create: impl FnOnce(u64) -> Result<B, E>,
    ) -> Result<Pooled<K, B>, E> {
        let want = (bytes as u64).div_ceil(4) * 4;
        let class = want.max(MIN_CLASS).next_power_of_two();
        if class > MAX_CLASS {
            return Ok(Pooled {
                buf: Some(create(want.max(8))?),
                home: None,
            });
        }
        let key = (kind, class);
        let idle = self
            .free
            .lock()
            .ok()
            .and_then(|mut f| f.get_mut(&key).and_then(Vec::pop));
        let buf = match idle {
            Some(b) => b,
            None => create(class)?,
        };
        Ok(Pooled {
            buf: Some(buf),
            home: Some((key, self.free.clone())),
        })
    }

    /// Idle buffers of `kind` in the size class of `bytes`.
    pub fn idle(&self, kind: K, bytes: usize) -> usize {
        let class = ((bytes as u64).div_ceil(4) * 4)
            .max(MIN_CLASS)
            .next_power_of_two();
        self.free
            .lock()
            .map_or(0, |f| f.get(&(kind, class)).map_or(0, Vec::len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Kind {
        Storage,
        Staging,
    }

    /// Buffers are numbered in creation order; the number is their identity.
    struct Maker(std::cell::Cell<u32>);
    impl Maker {
        fn make(&self, size: u64) -> Result<(u32, u64), Infallible> {
            self.0.set(self.0.get() + 1);
            Ok((self.0.get(), size))
        }
    }

    #[test]
    fn buffers_are_reused_by_kind_and_size_class_and_large_ones_are_not_kept() {
        let m = Maker(Default::default());
        let pool = BufferPool::<Kind, (u32, u64)>::default();
        let a = pool.take(Kind::Storage, 1000, |s| m.make(s)).unwrap();
        assert!(a.1 >= 1000 && a.lasting());
        let first = a.0;
        drop(a);
        // Same kind and class: the same buffer; held, a second request gets another one.
        let b = pool.take(Kind::Storage, 700, |s| m.make(s)).unwrap();
        assert_eq!(b.0, first);
        let c = pool.take(Kind::Storage, 700, |s| m.make(s)).unwrap();
        assert_ne!(c.0, first);
        // Another kind never shares it.
        let s = pool.take(Kind::Staging, 700, |s| m.make(s)).unwrap();
        assert_ne!(s.0, first);
        // A discarded buffer is not given back.
        drop(c);
        drop(b);
        let d = pool.take(Kind::Storage, 700, |s| m.make(s)).unwrap();
        let e = pool.take(Kind::Storage, 700, |s| m.make(s)).unwrap();
        assert!(d.0 == first || e.0 == first);
        let kept = d.0;
        d.discard();
        let f = pool.take(Kind::Storage, 700, |s| m.make(s)).unwrap();
        assert_ne!(f.0, kept);
        // Above the largest class: a buffer of its own size, not kept.
        let big = pool
            .take(Kind::Storage, (MAX_CLASS + 4) as usize, |s| m.make(s))
            .unwrap();
        assert!(!big.lasting() && big.1 == MAX_CLASS + 4);
        // At most KEEP idle buffers per class.
        let many: Vec<_> = (0..KEEP + 3)
            .map(|_| pool.take(Kind::Storage, 4096, |s| m.make(s)).unwrap())
            .collect();
        drop(many);
        assert_eq!(pool.idle(Kind::Storage, 4096), KEEP);
        // A failed creation is the caller's error, and nothing is kept.
        let r = pool.take(Kind::Staging, 1 << 12, |_| {
            Err::<(u32, u64), _>("no memory")
        });
        assert!(matches!(r, Err("no memory")));
    }
}
