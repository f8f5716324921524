//! The TOAST kernels as rokkos `#[kernel]`s, generic over the execution space: one source for
//! serial, rayon, the IR evaluator and wgpu (and CUDA when it lands).
//!
//! Each kernel is a struct of its arguments (Views in the space's memory, the spec's argument
//! table) with a `run(space, design)` that checks shapes, then launches the chosen loop
//! [`Design`]. Every output is written at `out[(row[d], s)]` with `row` a [`RowIndex`], rokkos'
//! [`rokkos::InjectiveView`] (entries checked pairwise distinct when it is made, never written
//! afterwards), so `#[kernel]` accepts those writes as the work item's own wherever `d` and the
//! sample are owned by it: in the flattened design (an MDRange over detector × flat sample index,
//! the sample looked up in the intervals' injective sample map).
//!
//! In the team and MDRange designs the sample is the index of a thread range over
//! `first..=last`, or `first + k` after returning where it passes `last`, with the bounds read
//! from the intervals as rokkos [`rokkos::DisjointRanges`] (checked pairwise disjoint when
//! [`Intervals::new`] makes them): a sample determines its interval, so `#[kernel]` accepts those
//! writes too, and the crate forbids `unsafe` code.
//!
//! Flags, masks and `hit_submaps` are `u8` Views (`hit_submaps` marked with an atomic byte OR),
//! the team design's range is `first..=last`, and the interval bounds are loaded directly from
//! the read-only intervals View at the team's index (team-uniform on every backend).
//!
//! Missing beyond that (reported, no workaround needed): `#[func]` returns one scalar, so a
//! quaternion product is four functions; an integer map type in `scan_map` needs a conversion to
//! `f64` on a type parameter (`T::to_f64` exists for `Float` only), so `ScanMap` takes `f32` and
//! `f64` maps.

#[macro_use]
mod domain;
pub(crate) mod destriper;
mod mapmaker;
pub mod math;
mod offset;
mod pixels;
mod pointing;
mod stokes;
pub mod toast3;

pub(crate) use domain::fit_rows;
pub use domain::{row_index, upload, Intervals, RowIndex, CHUNK_SAMPLES};
pub use mapmaker::{BuildNoiseWeighted, NoiseWeight, ScanMap, ScanMode};
pub use offset::{OffsetAddToSignal, OffsetApplyDiagPrecond, OffsetProjectSignal, OffsetTemplate};
pub use pixels::PixelsHealpix;
pub use pointing::PointingDetector;
pub use stokes::{StokesWeightsI, StokesWeightsIqu};

use rokkos::prelude::*;
use rokkos::Result;

/// A View in the memory of execution space `E`, C order (the spec's layout).
pub type DevView<E, T, const R: usize = 1> = View<T, R, LayoutRight, <E as ExecutionSpace>::Memory>;

/// How a per-sample kernel walks detectors × interval samples (spec §1.2, issue 13 item 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// A team per (detector, interval), a thread range over its samples (OpenMP, May 2023).
    Team,
    /// An MDRange over (detector, interval, k < longest length), returning early past the
    /// interval's end (OpenMP, July 2023).
    MDRange,
    /// An MDRange over every (detector, flat sample index) pair, the sample read from the
    /// intervals' injective sample map and the interval found by binary search in the prefix
    /// sum of the lengths: no padding at all, and no `unsafe`.
    Flat,
}

impl Design {
    /// Every design.
    pub const ALL: [Design; 3] = [Design::Team, Design::MDRange, Design::Flat];

    /// The design's name in labels and benchmark output.
    pub fn name(self) -> &'static str {
        match self {
            Design::Team => "team",
            Design::MDRange => "mdrange",
            Design::Flat => "flat",
        }
    }
}

fn invalid(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

/// `Err` unless `got == want`, naming the View and the dimension.
fn expect_extent(what: &str, dim: usize, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(invalid(format!(
            "{what} has extent {got} in dimension {dim}, expected {want}"
        )));
    }
    Ok(())
}

/// `Err` unless `got >= want`: a per-detector parameter View needs a value per detector.
fn expect_at_least(what: &str, got: usize, want: usize) -> Result<()> {
    if got < want {
        return Err(invalid(format!(
            "{what} has {got} entries, fewer than the {want} detectors"
        )));
    }
    Ok(())
}

/// The common detector count of several per-detector index Views, or `Err` naming them.
fn same_detectors(lens: &[(&str, usize)]) -> Result<usize> {
    let n = lens.first().map_or(0, |l| l.1);
    if let Some((name, len)) = lens.iter().find(|l| l.1 != n) {
        return Err(invalid(format!(
            "{name} has {len} detectors, {} has {n}",
            lens[0].0
        )));
    }
    Ok(n)
}
