//! The native (host) generator: kernel bodies become ordinary Rust over raw accessors.

pub mod calls;
pub mod generate;
pub mod hoist;
pub mod math;
pub mod rewrite;
