//! The borrow flag of one allocation, and the RAII holds taken on it.
//!
//! Every allocation has one flag, shared by every View of it. Host guards (`View::host` /
//! `View::host_mut`), `deep_copy` / `fill`, and kernel launches (for as long as the launch token
//! lives, see `crate::launch`) all hold it the same way, like a `RefCell`: any number of shared
//! holds, or one exclusive hold. Whoever holds it may touch the allocation's memory accordingly;
//! whoever cannot get a hold must not touch it at all. That single rule is what lets host code
//! hand out `&T` / `&mut T` into memory that kernels also read and write.

use std::cell::Cell;

/// The borrow state of one allocation: `> 0` shared holds, `-1` one exclusive hold, `0` free.
#[derive(Debug, Default)]
pub(crate) struct BorrowFlag(Cell<isize>);

impl BorrowFlag {
    /// Whether a shared hold could be taken now (no exclusive hold is alive).
    pub(crate) fn readable(&self) -> bool {
        self.0.get() >= 0
    }
    /// Whether an exclusive hold could be taken now (no hold at all is alive).
    pub(crate) fn writable(&self) -> bool {
        self.0.get() == 0
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
    pub(crate) fn shared(flag: &'a BorrowFlag) -> Option<Self> {
        let b = flag.0.get();
        // `isize::MAX` shared holds would need more memory than exists; refusing keeps `+ 1` exact.
        if b < 0 || b == isize::MAX {
            return None;
        }
        flag.0.set(b + 1);
        Some(Hold {
            flag,
            exclusive: false,
        })
    }
    /// An exclusive hold, or `None` while any other hold is alive.
    pub(crate) fn exclusive(flag: &'a BorrowFlag) -> Option<Self> {
        if flag.0.get() != 0 {
            return None;
        }
        flag.0.set(-1);
        Some(Hold {
            flag,
            exclusive: true,
        })
    }
    /// A hold of the given kind.
    pub(crate) fn take(flag: &'a BorrowFlag, exclusive: bool) -> Option<Self> {
        if exclusive {
            Self::exclusive(flag)
        } else {
            Self::shared(flag)
        }
    }
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        let f = &self.flag.0;
        if self.exclusive {
            f.set(0);
        } else {
            f.set(f.get() - 1);
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
}
