//! The TOAST kernels' benchmark (spec §4, issue 13 item 7).
//!
//! ```text
//! cargo run --release -p rokkos-toast -- [--backend serial|rayon|wgpu|cuda] [--n-det 256]
//!     [--n-samp 360000] [--n-view 100] [--nside 1024] [--reps 5] [--design all|team|mdrange|flat] [--json]
//! ```
//!
//! It builds the satellite observation of [`Problem::satellite`] (the defaults are the issue's
//! benchmark configuration; on a 2-core machine use `--n-det 16`), runs every kernel once per
//! loop design and checks the result against the serial reference (same tolerances as the
//! tests), then times `--reps` runs of each (inputs reset before each run, outside the timing;
//! a fence ends each run) and prints the best and median. Then the mini-pipeline per design:
//! the destriper's pipelines A and B and one PCG iteration with every array in the space's
//! memory, the iteration checked against the same run on the host with the serial reference.
//! With `--json` every (kernel, design) is one JSON object per line, and a last line says
//! whether every result matched. The exit status is non-zero when any did not.
//! `ROKKOS_PROFILE=timer` adds rokkos' kernel timer table at exit.

mod bench;

use bench::args;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            // Usage errors exit with 2, as in the other examples.
            eprintln!("rokkos-toast: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = bench::reserve_host_memory(&args) {
        eprintln!("rokkos-toast: {e}");
        return ExitCode::FAILURE;
    }
    match rokkos::run_on(&args.backend, bench::Bench(&args)) {
        Ok(Ok(true)) => ExitCode::SUCCESS,
        Ok(Ok(false)) => {
            eprintln!("rokkos-toast: some results did not match the serial reference");
            ExitCode::FAILURE
        }
        Ok(Err(e)) | Err(e) => {
            eprintln!("rokkos-toast: {e}");
            ExitCode::FAILURE
        }
    }
}
