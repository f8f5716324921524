//! TOAST's ten CMB time-stream kernels on rokkos (issue 13, phase A).
//!
//! - [`reference`]: the independent serial reference, written from the spec and sharing no code
//!   with the kernels.
//! - [`Interval`]: the input record both read.

#![warn(missing_docs)]

pub mod gen;
mod interval;
pub mod reference;

pub use interval::Interval;
