//! The rokkos kernels against the independent reference, on every backend compiled in: serial,
//! rayon (two workers), the IR evaluator (the kernels' IR, in memory the host cannot index, as
//! a GPU's), wgpu (lavapipe in CI) and CUDA (the host emulator in CI), each loop design on each.
//!
//! Every body is written once, generic over the execution space, and instantiated per backend
//! by [`per_backend!`] (the equivalence suite's pattern). Inputs are [`Problem::random`]
//! observations drawn by proptest: detectors 0 to 3 in rows of which two are nobody's, 0 to 80
//! samples, interval lists of every shape (none, one covering everything, one-sample views,
//! random lengths with gaps), flags of every kind, submaps that are not local. Outputs start
//! from sentinels, so a sample written outside the intervals shows.
//!
//! Tolerances (spec §3): pixels, hits and flags exact; quaternions and weights 1e-12 absolute;
//! the atomic accumulations (build_noise_weighted, project_signal) 1e-12·√n relative to the sum
//! of the magnitudes of their n terms; other float results 1e-12 relative.

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rokkos::ExecutionSpace;
use rokkos_toast::gen::{IntervalShape, INTERVAL_SHAPES};
use rokkos_toast::kernels::Design;
use rokkos_toast::problem::{Problem, SENTINEL};

mod chunks;
mod destriper;
mod errors;
mod fixed;
mod mapmaker;
mod offset;
mod offset_owned;
mod pointing;
mod toast3;

/// Instantiates `fn $name<E: ExecutionSpace>(space: E)` once per backend, as `#[test]`s in a
/// module named after it.
macro_rules! per_backend {
    ($name:ident) => {
        mod $name {
            #[test]
            fn serial() {
                super::$name(rokkos::Serial);
            }

            #[cfg(feature = "rayon")]
            #[test]
            fn rayon() {
                super::$name(rokkos::Rayon::with_threads(2).expect("a rayon pool of 2 threads"));
            }

            #[test]
            fn ir_eval() {
                super::$name(rokkos::ir::eval::IrEval);
            }

            /// The IR evaluator, with every launched kernel's CUDA C compiled by NVRTC and
            /// assembled by ptxas (skips without them, unless `ROKKOS_REQUIRE_NVRTC=1`).
            #[test]
            fn cuda_check() {
                if let Some(space) = crate::cuda_check_space() {
                    super::$name(space);
                }
            }

            /// Skips, saying why, where no adapter exists (unless `ROKKOS_REQUIRE_WGPU=1`) or
            /// where the adapter lacks a capability (f64, 64-bit atomics: `Err(Unsupported)`).
            #[cfg(feature = "wgpu")]
            #[test]
            fn wgpu() {
                if let Some(space) = crate::wgpu_space() {
                    crate::capability_gated(|| super::$name(space));
                }
            }

            /// The CUDA backend on a GPU, or on the host through the CUDA emulator
            /// (`tools/cuda-emu`, as in CI). Skips, saying why, where there is neither (unless
            /// `ROKKOS_REQUIRE_CUDA=1`); CUDA has every capability the kernels use.
            #[cfg(feature = "cuda")]
            #[test]
            fn cuda() {
                if let Some(space) = crate::cuda_space() {
                    super::$name(space);
                }
            }
        }
    };
}
pub(crate) use per_backend;

/// The CUDA checking space, or `None` (after saying why) without NVRTC or ptxas; with
/// `ROKKOS_REQUIRE_NVRTC=1` (CI) their absence fails instead.
pub fn cuda_check_space() -> Option<rokkos_cuda::check::CudaCheck> {
    match rokkos_cuda::check::CudaCheck::new() {
        Ok(s) => Some(s),
        Err(e) if std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_NVRTC=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// The CUDA execution space, or `None` (after saying why) without a GPU, driver or NVRTC; with
/// `ROKKOS_REQUIRE_CUDA=1` (CI, on the emulator) their absence fails instead.
#[cfg(feature = "cuda")]
pub fn cuda_space() -> Option<rokkos::Cuda> {
    match rokkos::Cuda::new() {
        Ok(s) => Some(s),
        Err(e) if std::env::var("ROKKOS_REQUIRE_CUDA").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_CUDA=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// The wgpu execution space, or `None` (after saying why) without an adapter; with
/// `ROKKOS_REQUIRE_WGPU=1` (CI) a missing adapter fails instead.
#[cfg(feature = "wgpu")]
pub fn wgpu_space() -> Option<rokkos::Wgpu> {
    match rokkos::Wgpu::new() {
        Ok(s) => Some(s),
        Err(e) if std::env::var("ROKKOS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_WGPU=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// Runs a test body on wgpu; a failure caused by the backend answering `Err(Unsupported)` (a
/// capability this adapter lacks, named in the message) is reported as a skip, every other
/// failure fails the test.
#[cfg(feature = "wgpu")]
pub fn capability_gated(body: impl FnOnce()) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    if let Err(p) = r {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        match msg.find("`wgpu` cannot do this:") {
            Some(at) => eprintln!("skipped on wgpu (capability): {}", &msg[at..]),
            None => std::panic::resume_unwind(p),
        }
    }
}

/// Runs `test` on `cases` inputs from `strategy`; panics with the minimal failing input.
pub fn check<S: Strategy>(
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    if let Err(e) = TestRunner::new(config).run(&strategy, test) {
        panic!("{e}");
    }
}

/// The inputs of one case: a seed, detectors, samples, an interval shape, a design.
pub type Case = (u64, usize, usize, IntervalShape, Design);

/// Cases: detectors 0..=3, samples 0..=80 (edges 0 and 1 included), every interval shape and
/// every loop design.
pub fn cases() -> impl Strategy<Value = Case> {
    (
        proptest::prelude::any::<u64>(),
        0usize..4,
        proptest::prop_oneof![1 => proptest::strategy::Just(0usize), 1 => proptest::strategy::Just(1usize), 6 => 2usize..81],
        proptest::sample::select(INTERVAL_SHAPES.to_vec()),
        proptest::sample::select(Design::ALL.to_vec()),
    )
}

/// The random problem of a case.
pub fn problem(c: &Case) -> Problem {
    Problem::random(c.0, c.1, c.2, c.3)
}

/// Compares floats: where `want` is the sentinel exactly, elsewhere within `tol(i)`.
pub fn close(
    what: &str,
    got: &[f64],
    want: &[f64],
    tol: impl Fn(usize) -> f64,
) -> Result<(), TestCaseError> {
    proptest::prop_assert_eq!(got.len(), want.len(), "{}: lengths", what);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if w == SENTINEL {
            proptest::prop_assert_eq!(g, w, "{}[{}] must be untouched", what, i);
        } else {
            proptest::prop_assert!(
                (g - w).abs() <= tol(i),
                "{}[{}]: {} vs reference {} (tolerance {:e})",
                what,
                i,
                g,
                w,
                tol(i)
            );
        }
    }
    Ok(())
}

/// `|x|` elementwise.
pub fn abs(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| x.abs()).collect()
}

/// The error of a launch as a test failure.
pub fn ok<T>(r: rokkos::Result<T>) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(e.to_string()))
}

/// The space's name, for messages.
pub fn name<E: ExecutionSpace>(space: &E) -> &'static str {
    space.name()
}
