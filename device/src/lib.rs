//! What only the device backends (`rokkos-cuda`, `rokkos-wgpu`) share.
//!
//! - [`emit`]: the source emitters' common part: the walk over a validated IR kernel that both
//!   the CUDA C and the WGSL writer follow, names, the width proofs that let 64-bit indices run in
//!   32 bits, the in-bounds proofs that drop bounds checks, windows, error codes and the math
//!   library.
//! - [`runtime`]: the device runtime skeleton: launch shapes and bounds, error records, buffer
//!   pools, compiled-kernel caches, ordered partials for reproducible reductions and team order.
//!
//! Host backends do not depend on this crate, so `cargo build -p rokkos-serial` or
//! `-p rokkos-rayon` compiles none of it.

#![warn(missing_docs)]

pub mod emit;
pub mod runtime;

// The path `device_launches!` names core's items by, whatever the backend calls its dependency.
#[doc(hidden)]
pub use rokkos_core as __core;
