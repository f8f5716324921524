//! The one error type of the rokkos crate family.

use std::fmt;

/// Result alias used by every fallible rokkos call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a rokkos call. User input never panics the library, and a
/// kernel that fails while it runs is an `Err` of its launch (host backends) or of the next fence
/// or host read (device backends), never a panic: [`Error::OutOfBounds`] for an index outside a
/// View's extents, [`Error::KernelFailed`] for the rest. The exceptions are host code outside
/// kernels, which keeps Rust's conventions: `View::get` / `View::set` and host-guard indexing out
/// of bounds panic like slice indexing, and host borrow conflicts (a guard that would alias
/// another guard or a launch in progress) panic like `RefCell`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A policy asks for something outside its limits; nothing was launched.
    #[error("invalid policy for `{label}`: {reason}")]
    InvalidPolicy {
        /// Label of the parallel call (or the policy kind when built outside a call).
        label: String,
        /// Which limit was broken, with the numbers.
        reason: String,
    },
    /// Two Views (or a View and a requested shape) disagree in shape or layout.
    #[error("shape mismatch: {what}")]
    ShapeMismatch {
        /// What was compared, with both shapes.
        what: String,
    },
    /// Kernel arguments overlap where one of them is written, or a View is borrowed on
    /// the host while a kernel would use it.
    #[error("argument conflict in kernel `{kernel}`: {reason}")]
    Aliasing {
        /// Kernel name.
        kernel: String,
        /// The Views involved and why they conflict.
        reason: String,
    },
    /// An index inside a kernel was outside a View's (or a scratch View's) extents: caught by the
    /// host backends' bounds checks, recorded by a bounds-checked device launch.
    #[error(
        "kernel `{kernel}`: index {index} out of bounds for View `{view}` with extents {extents}"
    )]
    OutOfBounds {
        /// Kernel name.
        kernel: String,
        /// View label.
        view: String,
        /// The offending index, formatted.
        index: String,
        /// The View's extents, formatted.
        extents: String,
    },
    /// The device cannot do this (a type, an atomic, a feature).
    #[error("`{backend}` cannot do this: {feature}")]
    Unsupported {
        /// Backend name.
        backend: String,
        /// The missing capability.
        feature: String,
    },
    /// The backend is compiled in but cannot be used here.
    #[error("backend `{backend}` is unavailable: {reason}")]
    BackendUnavailable {
        /// Backend name.
        backend: String,
        /// Why (no driver, no device, not compiled in, ...).
        reason: String,
    },
    /// An allocation failed, or a shape's size does not fit in one allocation.
    #[error("{}", oom_message(label, *bytes))]
    OutOfMemory {
        /// View label (the kernel name for a launch's team scratch).
        label: String,
        /// Requested bytes; `usize::MAX` stands for a size that does not fit in `usize`: an element
        /// count, span or byte size that overflows.
        bytes: usize,
    },
    /// Generated code was refused by a device compiler: a rokkos bug. Carries the source and log.
    #[error("`{backend}` failed to compile kernel `{kernel}`:\n{log}\n--- generated source ---\n{source_code}")]
    Compile {
        /// Backend name.
        backend: String,
        /// Kernel name.
        kernel: String,
        /// Compiler log.
        log: String,
        /// Generated source.
        source_code: String,
    },
    /// A kernel failed while it ran, for a reason other than an out-of-bounds index: an integer
    /// division or remainder by zero, an arithmetic overflow where the build mode makes overflow an
    /// error, a loop step that is not positive, a scratch request beyond the policy's reservation,
    /// or (host backends) any other panic of the kernel body. Every backend reports the same
    /// failure with this variant; the Views the kernel wrote may hold partial results.
    #[error("kernel `{kernel}` failed: {reason}")]
    KernelFailed {
        /// Kernel name.
        kernel: String,
        /// What went wrong, in the words Rust's own panic would use where there is one.
        reason: String,
    },
    /// A bad argument to a rokkos call, e.g. an unknown backend name or a bad stride set.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An access to one copy of data kept in two places (a side of a `DualView`) was refused
    /// because it would see out-of-date data or lose the other copy's changes: the other side
    /// was modified and not synced. Nothing was read or written.
    #[error("DualView `{view}`: {reason}")]
    Unsynced {
        /// The label of the data (the DualView's).
        view: String,
        /// Which access, which side was modified, and what to call first.
        reason: String,
    },
    /// An MPI call failed for a reason of MPI's own (rokkos-mpi): a peer process that died, a
    /// network or resource failure, an internal error; argument errors MPI reports are
    /// [`Error::InvalidArgument`] and truncated messages [`Error::ShapeMismatch`]. MPI's
    /// communicators return errors (`MPI_ERRORS_RETURN`), so the job is not aborted and the
    /// caller may decide; the MPI standard leaves MPI's state after most errors undefined, so
    /// further calls on the communicator may fail too.
    ///
    /// ```
    /// let e = rokkos_core::Error::Mpi {
    ///     rank: 1,
    ///     call: "MPI_Send".into(),
    ///     view: "u".into(),
    ///     class: 16,
    ///     message: "MPI_ERR_OTHER: known error not in list".into(),
    /// };
    /// assert_eq!(
    ///     e.to_string(),
    ///     "MPI error on rank 1 in MPI_Send on View `u`: MPI_ERR_OTHER: known error not in list (error class 16)"
    /// );
    /// ```
    #[error(
        "MPI error on rank {rank} in {call}{}: {message} (error class {class})",
        on_view(view)
    )]
    Mpi {
        /// The rank (in the communicator of the call) that saw the error.
        rank: usize,
        /// The MPI function.
        call: String,
        /// The label of the View the call carried, or empty.
        view: String,
        /// MPI's error class (`MPI_Error_class`), which is portable across MPI libraries.
        class: i32,
        /// MPI's own message (`MPI_Error_string`).
        message: String,
    },
}

/// ` on View `label`` for a non-empty label, for [`Error::Mpi`]'s message.
fn on_view(label: &str) -> String {
    if label.is_empty() {
        String::new()
    } else {
        format!(" on View `{label}`")
    }
}

/// The message of [`Error::OutOfMemory`]: `usize::MAX` bytes is no real request but a size that
/// overflowed, and is said so rather than printed as a number.
fn oom_message(label: &str, bytes: usize) -> String {
    if bytes == usize::MAX {
        format!(
            "out of memory for `{label}`: its size overflows (element count, span or byte size past usize::MAX)"
        )
    } else {
        format!("out of memory allocating {bytes} bytes for `{label}`")
    }
}

impl Error {
    pub(crate) fn policy(label: &str, reason: impl fmt::Display) -> Self {
        Error::InvalidPolicy {
            label: label.to_string(),
            reason: reason.to_string(),
        }
    }
    pub(crate) fn shape(what: impl fmt::Display) -> Self {
        Error::ShapeMismatch {
            what: what.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An overflowing size is said to overflow, not printed as 18446744073709551615 bytes.
    #[test]
    fn out_of_memory_messages_are_honest() {
        let real = Error::OutOfMemory {
            label: "a".into(),
            bytes: 1 << 40,
        };
        assert_eq!(
            real.to_string(),
            "out of memory allocating 1099511627776 bytes for `a`"
        );
        let overflow = Error::OutOfMemory {
            label: "b".into(),
            bytes: usize::MAX,
        };
        let msg = overflow.to_string();
        assert!(msg.contains("`b`") && msg.contains("overflows"), "{msg}");
        assert!(!msg.contains(&usize::MAX.to_string()), "{msg}");
    }
}
