//! The software math library of the GPU targets, written once as IR: generic Rust that builds
//! each function with the IR builder for `f32` and `f64` alike ([`library`]), added to a kernel
//! by the pass [`lower_math`], which turns the math calls a target takes from the library into
//! calls of those functions. Each emitter then writes them as it writes any helper function,
//! so the library has no text in any target language, and the IR evaluator runs it as it is
//! emitted (the host tests check it there against Rust's `std`).
//!
//! What a target takes from the library is its own choice (its `software` predicate): WGSL's
//! `fma` need not be fused, so the WGSL target takes `mul_add`; CUDA's is, so it does not.

mod dd;
mod exact;
mod exp;
mod float;
mod inverse;
pub mod library;
mod log;
mod lower;
mod roots;
mod trig;

pub use lower::lower_math;

#[cfg(test)]
mod tests;
