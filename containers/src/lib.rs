//! Kokkos' containers on rokkos, built from the public model (Views, patterns, atomics) so that
//! they run on every backend: serial, rayon, wgpu, CUDA and the run-time `rokkos::Device`.
//!
//! - [`DualView`]: one array kept as a device View and a host View, with modified flags; an
//!   access to a side that is out of date is an `Err` naming the DualView, never stale data.
//! - [`Bitset`]: a fixed number of bits in a space's memory, with counts and searches run as
//!   kernels, and used inside kernels through its words and the atomics.
//! - [`ScatterView`]: scatter-add (or multiply, minimum, maximum) from many work items into one
//!   array: a copy per thread combined afterwards on host backends, atomics on devices.
//! - [`UnorderedMap`] (and [`UnorderedSet`]): a fixed-capacity hash map, with bulk inserts,
//!   finds and erases run as kernels, and its Views probed by kernels of your own.

pub mod bitset;
pub mod dual_view;
pub mod scatter_view;
pub mod unordered_map;

pub use bitset::*;
pub use dual_view::*;
pub use scatter_view::ScatterView;
pub use unordered_map::*;
