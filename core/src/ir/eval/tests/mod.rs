//! Unit tests of the IR: builder → validator → printer / hash → evaluator, on small kernels shaped like
//! the ones `#[rokkos::kernel]` records.

mod builder;
mod evaluation;
mod hashing;
use crate::ir::samples as kernels;
mod printer;
mod ranges;
mod tables;
mod usize_steps;
mod validation;
