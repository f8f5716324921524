//! Access watches: how the owner of an allocation (a container such as `rokkos-containers`'
//! `DualView`) sees, and may refuse, every access to its memory.
//!
//! [`View::watch`](crate::View::watch) attaches one [`AccessWatch`] to a View's allocation; every
//! View of that allocation (clones, subviews, host mirrors that alias its memory) then reports to
//! it. Each access that holds the allocation's borrow flag (`crate::borrow`) consults it once the
//! flag is held and before any byte is touched: a kernel launch for each View argument (and a
//! `parallel_reduce_into` result), `deep_copy` / `fill` / `resize` for their source and
//! destination, and the host guards `host()` / `host_mut()` / `try_host*` / `get` / `set`. First
//! every watch of the access is asked [`AccessWatch::check`]; when one answers `Err`, the access
//! is refused with that error (launches, copies and `try_*` guards return it; `host()`,
//! `host_mut()`, `get` and `set` panic with it, as they do on a conflicting guard) and nothing is
//! read, written or committed. When all agree, each is told [`AccessWatch::commit`] and the access
//! proceeds (a kernel may still fail afterwards: a commit means "may have been touched").
//!
//! A watch only observes: it cannot reach the memory, and the borrow rules hold whatever it
//! answers. It runs while the access holds the allocation, so it must not touch the watched
//! Views itself (their flags are held: such an access would be refused or panic).
//!
//! ```
//! use rokkos_core::watch::{Access, AccessWatch};
//! use rokkos_core::{Error, Result, View};
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::sync::Arc;
//!
//! /// Counts writes, and refuses every access once frozen.
//! #[derive(Default)]
//! struct Writes(AtomicUsize, std::sync::atomic::AtomicBool);
//! impl AccessWatch for Writes {
//!     fn check(&self, access: &Access<'_>) -> Result<()> {
//!         if self.1.load(Ordering::Relaxed) {
//!             return Err(Error::InvalidArgument(format!("frozen: {}", access.what())));
//!         }
//!         Ok(())
//!     }
//!     fn commit(&self, access: &Access<'_>) {
//!         if access.write {
//!             self.0.fetch_add(1, Ordering::Relaxed);
//!         }
//!     }
//! }
//!
//! let v = View::<i32>::new("v", [4]).unwrap();
//! let w = Arc::new(Writes::default());
//! v.watch(w.clone()).unwrap();
//! v.set(0, 1);
//! v.fill(2).unwrap();
//! assert_eq!(v.get(3), 2);
//! assert_eq!(w.0.load(Ordering::Relaxed), 2);
//! w.1.store(true, Ordering::Relaxed);
//! assert!(v.try_host().is_err());
//! ```

use crate::error::Result;

/// What touches a watched allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AccessKind<'a> {
    /// A kernel launch binding the View as parameter `param` of kernel `kernel` (`param` is
    /// `"result"` for the result View of `parallel_reduce_into`).
    Launch {
        /// The kernel's name.
        kernel: &'a str,
        /// The parameter.
        param: &'a str,
    },
    /// `deep_copy`, `fill` or `resize` (`op` says which).
    Copy {
        /// The operation.
        op: &'a str,
    },
    /// Host code through a guard or one element (`op`: `host()`, `host_mut()`, `get`, `set`, ...).
    Host {
        /// The method.
        op: &'a str,
    },
}

/// One access to a watched allocation, as [`AccessWatch`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access<'a> {
    /// Who accesses it.
    pub kind: AccessKind<'a>,
    /// Whether the access may write (a writable kernel parameter, a copy's destination, a fill,
    /// `host_mut()`, `set`).
    pub write: bool,
    /// The label of the View the access goes through.
    pub label: &'a str,
}

impl Access<'_> {
    /// The access in words, for messages: "kernel `k` writes parameter `y`", "deep_copy reads",
    /// "host code writes through host_mut()".
    pub fn what(&self) -> String {
        let rw = if self.write { "writes" } else { "reads" };
        match self.kind {
            AccessKind::Launch { kernel, param } => {
                format!("kernel `{kernel}` {rw} parameter `{param}`")
            }
            AccessKind::Copy { op } => format!("{op} {rw}"),
            AccessKind::Host { op } => format!("host code {rw} it through {op}"),
        }
    }
}

/// The observer of an allocation's accesses (see the module documentation).
pub trait AccessWatch: Send + Sync + 'static {
    /// Whether `access` may proceed: `Err` refuses it, and that error is what the access answers.
    fn check(&self, access: &Access<'_>) -> Result<()>;
    /// `access` passed every check and proceeds.
    fn commit(&self, access: &Access<'_>) {
        let _ = access;
    }
}

/// Checks and commits one access through `watch` (the guards, `get`, `set`, `fill`).
#[inline]
pub(crate) fn observe(watch: Option<&dyn AccessWatch>, access: Access<'_>) -> Result<()> {
    match watch {
        None => Ok(()),
        Some(w) => observe_cold(w, access),
    }
}

#[cold]
#[inline(never)]
fn observe_cold(w: &dyn AccessWatch, access: Access<'_>) -> Result<()> {
    w.check(&access)?;
    w.commit(&access);
    Ok(())
}

/// A watch as kernel arguments carry it ([`crate::kernel::ViewArg`]): `Copy`, and `Debug` without
/// asking the watch to be.
#[derive(Clone, Copy)]
pub(crate) struct WatchRef<'a>(pub(crate) &'a dyn AccessWatch);

impl std::fmt::Debug for WatchRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessWatch")
    }
}
