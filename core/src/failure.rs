//! How a host kernel that fails while it runs becomes an `Err` of its launch.
//!
//! rokkos' own checks inside a native body (View and scratch bounds in `crate::access`, the
//! scratch reservation in `crate::team`) unwind with a typed payload through
//! [`std::panic::resume_unwind`], which does not run the panic hook, so nothing is printed. Every
//! launch runs its backend under [`catch`], in one place (`crate::pattern`), which turns that
//! payload into [`Error::OutOfBounds`] or [`Error::KernelFailed`], and any other panic of the
//! kernel body (Rust's own `attempt to add with overflow`, `attempt to divide by zero`, a user's
//! `panic!`, a rayon worker's panic re-raised in the joining thread) into
//! [`Error::KernelFailed`] with the panic message as the reason.
//!
//! Builds with `panic = "abort"` cannot unwind: there a failing kernel aborts the process.

use crate::error::{Error, Result};
use crate::index::fmt_index;
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// The payload rokkos' own checks unwind with.
#[derive(Debug)]
enum KernelPanic {
    OutOfBounds {
        kernel: &'static str,
        view: String,
        index: String,
        extents: String,
    },
    Failed {
        kernel: &'static str,
        reason: String,
    },
}

/// Unwinds out of a native body with an out-of-bounds report (no panic hook runs).
#[cold]
#[inline(never)]
pub(crate) fn raise_out_of_bounds(
    kernel: &'static str,
    view: &str,
    idx: &[usize],
    extents: &[usize],
) -> ! {
    resume_unwind(Box::new(KernelPanic::OutOfBounds {
        kernel,
        view: view.to_string(),
        index: fmt_index(idx),
        extents: fmt_index(extents),
    }))
}

/// Unwinds out of a native body with a failure report (no panic hook runs).
#[cold]
#[inline(never)]
pub(crate) fn raise_failed(kernel: &'static str, reason: String) -> ! {
    resume_unwind(Box::new(KernelPanic::Failed { kernel, reason }))
}

/// Runs one launch of kernel `kernel`, turning its unwinding into the launch's `Err`.
///
/// The closure only borrows what the launch needs; `AssertUnwindSafe` is right because a failed
/// launch reports `Err` and the Views it wrote may hold partial results, which
/// [`Error::KernelFailed`] documents. Nothing rokkos owns is left in a broken state: the argument
/// holds are released by their owner after this returns.
#[inline]
pub(crate) fn catch<R>(kernel: &'static str, launch: impl FnOnce() -> Result<R>) -> Result<R> {
    // The result is written in place rather than returned through `catch_unwind`, which would
    // copy the (large) `Result` in and out of its own buffer on every launch.
    let mut out = None;
    match catch_unwind(AssertUnwindSafe(|| out = Some(launch()))) {
        // `out` is always set when the closure returned; the fallback only avoids a panic path.
        Ok(()) => {
            out.unwrap_or_else(|| Err(to_error(kernel, Box::new("the launch returned nothing"))))
        }
        Err(payload) => Err(to_error(kernel, payload)),
    }
}

fn to_error(kernel: &'static str, payload: Box<dyn Any + Send>) -> Error {
    let payload = match payload.downcast::<KernelPanic>() {
        Ok(p) => {
            return match *p {
                KernelPanic::OutOfBounds {
                    kernel,
                    view,
                    index,
                    extents,
                } => Error::OutOfBounds {
                    kernel: kernel.to_string(),
                    view,
                    index,
                    extents,
                },
                KernelPanic::Failed { kernel, reason } => Error::KernelFailed {
                    kernel: kernel.to_string(),
                    reason,
                },
            }
        }
        Err(other) => other,
    };
    let reason = if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the kernel panicked with a payload that is not a message".to_string()
    };
    Error::KernelFailed {
        kernel: kernel.to_string(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_payloads_become_their_variants() {
        let e = catch::<()>("k", || raise_out_of_bounds("k", "v", &[3, 1], &[3, 2])).unwrap_err();
        assert_eq!(
            e,
            Error::OutOfBounds {
                kernel: "k".into(),
                view: "v".into(),
                index: "(3, 1)".into(),
                extents: "(3, 2)".into()
            }
        );
        let e = catch::<()>("k", || raise_failed("k", "scratch".into())).unwrap_err();
        assert_eq!(
            e,
            Error::KernelFailed {
                kernel: "k".into(),
                reason: "scratch".into()
            }
        );
    }

    #[test]
    fn other_panics_keep_their_message() {
        let e = catch::<()>("k", || resume_unwind(Box::new(String::from("boom")))).unwrap_err();
        assert_eq!(e.to_string(), "kernel `k` failed: boom");
        let e = catch::<()>("k", || resume_unwind(Box::new("static"))).unwrap_err();
        assert_eq!(e.to_string(), "kernel `k` failed: static");
        let e = catch::<()>("k", || resume_unwind(Box::new(7u8))).unwrap_err();
        assert!(matches!(e, Error::KernelFailed { .. }), "{e}");
        assert_eq!(catch("k", || Ok(5)).unwrap(), 5);
    }
}
