//! TOAST's ten CMB time-stream kernels on rokkos (issue 13, phase A).
//!
//! - [`reference`]: the independent serial reference, written from the spec and sharing no code
//!   with the kernels.
//! - [`kernels`]: the rokkos kernels, generic over the execution space, in three loop designs.
//! - [`gen`]: reproducible inputs for the tests and the benchmark.
//! - [`Interval`]: the input record both read.

#![warn(missing_docs)]

pub mod gen;
mod interval;
pub mod kernels;
pub mod observation;
pub mod problem;
pub mod reference;

pub use interval::Interval;
