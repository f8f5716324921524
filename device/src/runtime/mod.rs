//! What every device backend's runtime needs, once: read top-down, this is how a launch on a GPU
//! backend goes, and what the backend itself supplies.
//!
//! 1. [`prepare`]: the kernel's IR, built, validated and hashed once per kernel type
//!    ([`prepare::KernelCache`]), and its arguments in IR parameter order, checked. The backend
//!    supplies: whether a buffer is on its device.
//! 2. The backend emits (or finds) the compiled kernel by IR hash and launch options, and enqueues
//!    it with a parameter block. A launch that may fail gets a number from the [`errors`] book
//!    (which picks its device error record) and a [`errors::LaunchRecord`] to describe a failure.
//!    The backend supplies: its error codes ([`errors::ErrorCodes`]), the record buffer, and
//!    submission numbers (which launches a synchronisation covers).
//! 3. Short-lived device storage (partials, totals, scratch, staging) comes from a [`pool`]. The
//!    backend supplies: how to create a buffer of a size.
//! 4. A reduction leaves one partial per block; the backend joins them on the device down to
//!    [`reduce::HOST_PARTIALS`], then either reads them back for the host join
//!    ([`reduce::Columns::join`], in partial order, so results are the same run to run) or, for
//!    `parallel_reduce_into` a View of its memory, joins them into the View's element on the
//!    device ([`reduce::device_result_element`] says when that is possible) and returns without
//!    waiting. The backend supplies: the device join pass and the read-back. A reducer whose
//!    join is host code (`Custom`) takes the [`ordered`] mode instead: contiguous blocks of work
//!    items folded one per thread, every partial read back and joined on the host in order.
//! 5. At a synchronisation (fence, host read, blocking result) the backend reads the error
//!    records together with the data and hands them to [`errors::ErrorBook::settle`]: each
//!    failure goes to the mailbox of the thread that launched the kernel, and the caller gets its
//!    own ([`errors::ErrorBook::take_mine`]).
//!
//! 6. Launch shapes both backends compute alike (MDRange tiles, grid-stride group counts) are
//!    [`shape`].
//! 7. The caches a launch looks up are [`fast_map::FastMap`]s (a cheaper hash than std's).
//! 8. Which bounds checks a launch keeps ([`bounds`]: all of them in every build, except those
//!    the launcher proved redundant; `ROKKOS_DEVICE_BOUNDS_CHECKS=all` keeps those too).
//! 9. How much work one launch may ask for ([`limits`]: items, teams, and trips per thread,
//!    refused up front beyond them, so that a launch either is refused or finishes; the
//!    emitted loops leave early once the launch has recorded a failure).
//!
//! 10. The pattern methods of the backend's `ExecutionSpace` impl ([`launches`]: the limits check
//!     and the call of the backend's file of that pattern and policy, written once by
//!     [`device_launches!`](crate::device_launches)).
//!
//! rokkos-wgpu and rokkos-cuda use all of it.

pub mod bounds;
pub mod errors;
pub mod fast_map;
pub mod launches;
pub mod limits;
pub mod ordered;
pub mod pool;
pub mod prepare;
pub mod reduce;
pub mod shape;
pub mod team_order;
