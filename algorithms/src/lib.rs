//! Kokkos' algorithms on rokkos, on every backend: the parallel algorithms of
//! `Kokkos::Experimental` (fill, copy, transform, reduce, scans, searches, compaction, ...) in
//! [`std_algorithms`], and sorting (`sort`, `sort_by_key`, `BinSort`) in [`mod@sort`].
//!
//! Every function takes the execution space it runs on and Views in that space's memory, and
//! returns `rokkos::Result`: the same call runs on serial, rayon, wgpu, cuda and `rokkos::Device`.

pub mod sort;
pub mod std_algorithms;

pub use sort::*;
pub use std_algorithms::*;
