//! TOAST's ten CMB time-stream kernels on rokkos (issue 13, phase A).
//!
//! - [`reference`]: the independent serial reference, written from the spec and sharing no code
//!   with the kernels.
//! - [`kernels`]: the rokkos kernels, generic over the execution space, in three loop designs.
//! - [`problem`] and [`observation`]: one observation's inputs on the host (with the reference
//!   result of each kernel) and in a space's memory (with a method per kernel).
//! - [`destriper`]: the mini-pipeline: pipelines A and B and a PCG iteration on the device,
//!   beside the same on the host with the reference.
//! - [`gen`]: reproducible inputs for the tests and the benchmark.
//! - [`Interval`]: the input record both read.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod destriper;
pub mod gen;
mod interval;
pub mod kernels;
pub mod observation;
pub mod problem;
pub mod reference;

pub use interval::Interval;
