//! The team rules of rokkos kernels, written once for both places that enforce them.
//!
//! A team kernel is correct on a GPU only if every thread of a team reaches each barrier and each
//! team-wide construct, in the same order, with the same bounds (*convergence*), if constructs nest
//! only where a backend can run them (*nesting*), and if no two threads touch one element of shared
//! memory, one of them writing, without a team barrier between them (*ordering*). `#[kernel]`
//! checks these rules when the user builds, on a model it builds from the kernel's syntax; the IR
//! validator (`rokkos_core::ir::valid`) checks the convergence and nesting rules again when a
//! kernel is launched, on a model it builds from the recorded IR, so that a kernel the macro
//! accepted is never refused by a backend. Both call the functions of this crate; only the two
//! translations into the [`model`] differ.
//!
//! * [`model`]: a kernel body reduced to what the rules look at: which locals a value depends on
//!   and whether it has a source that differs between threads, control flow, team constructs, and
//!   the memory accesses with the shape of their index.
//! * [`converge`]: uniformity (which values are the same in every thread of a team) and the
//!   convergence and nesting rules.
//! * [`owner`]: the owner-computes rule between work items: which indices make a plain access
//!   to a writable View one work item's alone (the work index itself, or its image under an
//!   injective index View), and that every access to one View holds it the same way.
//! * [`hazard`]: ordering of accesses to shared memory, per thread (what `#[kernel]` requires of
//!   safe code) or per vector lane (what a backend checks before running lanes in parallel).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod converge;
pub mod hazard;
pub mod model;
pub mod owner;

#[cfg(test)]
mod tests;
