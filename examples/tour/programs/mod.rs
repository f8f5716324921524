//! The nine programs of the tour, each a `run(&Device, size)` that computes on the device it is
//! given and checks its result against a plain host computation. Every one is written against
//! `rokkos::Device` with no generic function: the same code runs on serial, rayon and wgpu.

pub mod atomic_histogram;
pub mod axpy_dot;
pub mod jacobi;
pub mod minmax_loc;
pub mod scan_compact;
pub mod scratch_transpose;
pub mod subviews_mirrors;
pub mod toast_intervals;
pub mod yax_teams;

/// What a program answers: `Err` with what went wrong, or the check it passed.
pub type Outcome = Result<String, Box<dyn std::error::Error>>;

/// A program's entry point: the run-time space and a size.
pub type Program = fn(&rokkos::Device, usize) -> Outcome;

/// Every program: its name and its entry point.
pub const ALL: [(&str, Program); 9] = [
    ("axpy_dot", axpy_dot::run),
    ("jacobi", jacobi::run),
    ("yax_teams", yax_teams::run),
    ("atomic_histogram", atomic_histogram::run),
    ("scan_compact", scan_compact::run),
    ("minmax_loc", minmax_loc::run),
    ("scratch_transpose", scratch_transpose::run),
    ("subviews_mirrors", subviews_mirrors::run),
    ("toast_intervals", toast_intervals::run),
];

/// `Err(what)` unless `ok`.
pub fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), Box<dyn std::error::Error>> {
    if ok {
        Ok(())
    } else {
        Err(what().into())
    }
}
