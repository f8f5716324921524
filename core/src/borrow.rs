//! The borrow flag of one allocation, and the RAII holds taken on it.
//!
//! Every allocation has one flag, shared by every View of it. Host guards (`View::host` /
//! `View::host_mut`, and `View::get` / `View::set` for the duration of one access), `deep_copy` /
//! `fill`, and kernel launches (for as long as the launch token lives, see `crate::launch`) all
//! hold it the same way, like a `RwLock` that never waits: any number of shared holds, or one
//! exclusive hold. Whoever holds it may touch the allocation's memory accordingly; whoever cannot
//! get a hold must not touch it at all. That single rule is what lets host code hand out `&T` /
//! `&mut T` into memory that kernels also read and write.
//!
//! The flag is atomic because View handles cross threads: a hold is taken by one atomic
//! read-modify-write that both checks and claims (a compare-exchange for exclusive holds, an
//! increment for shared ones), so a guard on one thread and a launch on another cannot both
//! succeed. Taking a hold acquires and releasing it releases, so whatever the previous holder
//! wrote happens-before what the next holder reads.

use std::sync::atomic::{AtomicIsize, Ordering};

/// The borrow state of one allocation: `> 0` shared holds, `-1` one exclusive hold, `0` free.
///
/// A read-only allocation ([`BorrowFlag::read_only`]) starts with one shared hold that is never
/// released, so that no exclusive hold, and so no write, is ever granted on it.
#[derive(Debug, Default)]
pub(crate) struct BorrowFlag(AtomicIsize, bool);

impl BorrowFlag {
    /// The flag of memory that must never be written: every exclusive hold is refused.
    pub(crate) fn read_only() -> Self {
        BorrowFlag(AtomicIsize::new(1), true)
    }
    /// Whether this is a [`BorrowFlag::read_only`] flag (for the refusals' messages).
    #[inline]
    pub(crate) fn is_read_only(&self) -> bool {
        self.1
    }
    /// Whether a shared hold could be taken now (no exclusive hold is alive). A snapshot: with
    /// other threads it may change at once, so it is for tests and messages only; access goes
    /// through a [`Hold`].
    #[cfg(test)]
    pub(crate) fn readable(&self) -> bool {
        self.0.load(Ordering::Acquire) >= 0
    }
    /// Whether an exclusive hold could be taken now (no hold at all is alive); a snapshot, as
    /// [`BorrowFlag::readable`].
    #[cfg(test)]
    pub(crate) fn writable(&self) -> bool {
        self.0.load(Ordering::Acquire) == 0
    }
}

/// A hold on a [`BorrowFlag`], released on drop.
#[derive(Debug)]
pub(crate) struct Hold<'a> {
    flag: &'a BorrowFlag,
    exclusive: bool,
}

impl<'a> Hold<'a> {
    /// A shared hold, or `None` while an exclusive hold is alive.
    #[inline]
    pub(crate) fn shared(flag: &'a BorrowFlag) -> Option<Self> {
        let mut b = flag.0.load(Ordering::Relaxed);
        loop {
            // `isize::MAX` shared holds would need more memory than exists; refusing keeps `+ 1`
            // exact.
            if b < 0 || b == isize::MAX {
                return None;
            }
            match flag
                .0
                .compare_exchange_weak(b, b + 1, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => {
                    return Some(Hold {
                        flag,
                        exclusive: false,
                    })
                }
                Err(now) => b = now,
            }
        }
    }
    /// An exclusive hold, or `None` while any other hold is alive.
    #[inline]
    pub(crate) fn exclusive(flag: &'a BorrowFlag) -> Option<Self> {
        flag.0
            .compare_exchange(0, -1, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| Hold {
                flag,
                exclusive: true,
            })
    }
    /// A hold of the given kind.
    #[inline]
    pub(crate) fn take(flag: &'a BorrowFlag, exclusive: bool) -> Option<Self> {
        if exclusive {
            Self::exclusive(flag)
        } else {
            Self::shared(flag)
        }
    }
}

impl Drop for Hold<'_> {
    #[inline]
    fn drop(&mut self) {
        let f = &self.flag.0;
        if self.exclusive {
            f.store(0, Ordering::Release);
        } else {
            f.fetch_sub(1, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_holds_stack_and_exclude_an_exclusive_one() {
        let f = BorrowFlag::default();
        let a = Hold::shared(&f).unwrap();
        let b = Hold::shared(&f).unwrap();
        assert!(Hold::exclusive(&f).is_none());
        assert!(f.readable() && !f.writable());
        drop(a);
        assert!(Hold::exclusive(&f).is_none());
        drop(b);
        let x = Hold::exclusive(&f).unwrap();
        assert!(Hold::shared(&f).is_none() && Hold::exclusive(&f).is_none());
        assert!(!f.readable());
        drop(x);
        assert!(f.writable());
    }

    #[test]
    fn a_read_only_flag_never_grants_an_exclusive_hold() {
        let f = BorrowFlag::read_only();
        assert!(f.is_read_only() && !BorrowFlag::default().is_read_only());
        assert!(Hold::exclusive(&f).is_none());
        let a = Hold::shared(&f).unwrap();
        drop(a);
        assert!(Hold::exclusive(&f).is_none() && f.readable() && !f.writable());
    }

    /// Threads racing for holds: at every moment either one exclusive hold or only shared ones
    /// exist (each exclusive holder checks it is alone by bumping a counter nobody else may see
    /// above zero).
    #[test]
    fn holds_exclude_each_other_across_threads() {
        use std::sync::atomic::AtomicUsize;
        let f = BorrowFlag::default();
        let inside = AtomicUsize::new(0);
        let readers = AtomicUsize::new(0);
        let exclusive_won = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in 0..4 {
                let (f, inside, readers, won) = (&f, &inside, &readers, &exclusive_won);
                s.spawn(move || {
                    for k in 0..2000 {
                        if (t + k) % 3 == 0 {
                            if let Some(_h) = Hold::exclusive(f) {
                                won.fetch_add(1, Ordering::Relaxed);
                                assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                                assert_eq!(readers.load(Ordering::SeqCst), 0);
                                inside.fetch_sub(1, Ordering::SeqCst);
                            }
                        } else if let Some(_h) = Hold::shared(f) {
                            readers.fetch_add(1, Ordering::SeqCst);
                            assert_eq!(inside.load(Ordering::SeqCst), 0);
                            readers.fetch_sub(1, Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        assert!(f.writable());
        assert!(exclusive_won.load(Ordering::Relaxed) > 0);
    }
}
