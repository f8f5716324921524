//! Cross-backend equivalence suite, one module per Kokkos unit-test family.
//!
//! Every test body is written once, generic over the execution space, and instantiated per backend
//! (Kokkos' `TEST_EXECSPACE` style) as `#[test]` functions in a module named after the body:
//!
//! - [`per_backend!`] instantiates `fn name<E: ExecutionSpace>(space: E)`, the bodies whose subject
//!   is a kernel, a pattern or a View copy, on every backend: `<test>::serial` always,
//!   `<test>::rayon` (a private pool of two workers) plus `<test>::rayon_global` (rayon's global
//!   pool) when the `rayon` feature is on, and `<test>::ir_eval` (the kernels' IR in the reference
//!   evaluator). These bodies never index a View the kernels use from host code: they allocate in
//!   the space's memory ([`dev`], [`dev_from_vec`], [`dev_from_fn`], `new_in(&space.memory_space(),
//!   ..)`), fill with `deep_copy`/`fill`/[`put`], and read results back through host mirrors
//!   ([`to_host`]). `IrEval`'s memory (`rokkos::ir::eval::EvalMemory`) is not host accessible, as a
//!   GPU's is not, so a body that compiles and passes on `ir_eval` is ready for a device backend.
//!   **A device backend is added by one entry in [`per_backend!`]** (a `#[cfg(feature = ..)]`
//!   `#[test] fn <backend>()` calling `super::$name` with its execution space), and nothing else:
//!   `<test>::wgpu` runs every body on the wgpu backend when the `wgpu` feature is on
//!   ([`wgpu_space`], [`capability_gated`]).
//! - [`per_host_backend!`] instantiates `fn name<E: ExecutionSpace<Memory = HostSpace>>(space: E)`
//!   on the host backends only (serial, rayon, rayon_global): the few bodies whose subject is host
//!   memory itself (host guards blocking launches).
//!
//! Tests of host-only View API (host indexing, `host()`/`host_mut()` guards, unmanaged and adopted
//! Views, `View::new`) that need no execution space are plain `#[test]` functions.
//!
//! Each body compares the backend's output with an independent expectation: a plain Rust loop
//! written in the test (the serial reference semantics), a closed form, or the check Kokkos' own
//! test of that family makes.
//!
//! Inputs are drawn with proptest (a handful of cases per property, sized for two CI cores): sizes
//! that include 0, 1, primes and the chunk-boundary sizes 255/256/257 and 1023/1025, layouts
//! (`LayoutRight`, `LayoutLeft`, `LayoutStride` through subviews), MDRange boxes with odd tiles and
//! non-zero begins, chunk sizes, league sizes and data. Integers are compared bit-exactly; floating
//! point results within the relative tolerance stated at each comparison (the rayon backend joins
//! per-chunk partial results, so its summation order differs from the serial one).
//!
//! Run with `cargo test --test equivalence` (all backends) or
//! `cargo test --test equivalence --no-default-features` (serial and ir_eval only).

use proptest::strategy::{Just, Strategy};
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rokkos::{
    create_mirror_view_and_copy, deep_copy, ExecutionSpace, Layout, LayoutRight, MemorySpace, Pod,
    View,
};

/// Instantiates the generic test body `fn $name<E: ExecutionSpace>(space: E)` once per backend, as
/// `#[test]` functions inside a module named after the body. Device backends are added here, one
/// entry each.
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

            #[cfg(feature = "rayon")]
            #[test]
            fn rayon_global() {
                super::$name(rokkos::Rayon::new());
            }

            /// The kernels' IR in the reference evaluator, with the Views in its non-host-accessible
            /// memory: proves the IR the GPU backends compile computes what the native body
            /// computes, and that the body treats the Views as device memory.
            #[test]
            fn ir_eval() {
                super::$name(rokkos::ir::eval::IrEval);
            }

            /// The CUDA checking space: the body runs on the IR evaluator, and every kernel it
            /// launches is emitted as CUDA C for that launch and compiled by NVRTC and ptxas for
            /// sm_90 and sm_80 (no GPU needed). Skips, saying why, where NVRTC or ptxas is missing
            /// (unless `ROKKOS_REQUIRE_NVRTC=1`, as in CI).
            #[test]
            fn cuda_check() {
                if let Some(space) = crate::cuda_check_space() {
                    super::$name(space);
                }
            }

            /// The run-time space `rokkos::Device` standing for a host backend (rayon with two
            /// workers, serial without the rayon feature): every launch goes through its dispatch
            /// and the projection of its memory onto host memory.
            #[test]
            fn device() {
                super::$name(crate::host_device());
            }

            /// `rokkos::Device` standing for wgpu: the dispatch onto a device backend.
            #[cfg(feature = "wgpu")]
            #[test]
            fn device_wgpu() {
                if let Some(space) = crate::wgpu_space() {
                    crate::capability_gated("wgpu", || super::$name(rokkos::Device::from(space)));
                }
            }

            /// The wgpu backend (lavapipe in CI): the same body on a GPU. Skips, saying why, only
            /// where no adapter exists (and `ROKKOS_REQUIRE_WGPU` is not set) or where the adapter
            /// lacks a capability the body needs (`Err(Unsupported)`).
            #[cfg(feature = "wgpu")]
            #[test]
            fn wgpu() {
                if let Some(space) = crate::wgpu_space() {
                    crate::capability_gated("wgpu", || super::$name(space));
                }
            }

            /// The CUDA backend (feature `cuda`): the same body on an NVIDIA GPU, or on the host
            /// through `tools/cuda-emu` (CI). Skips, saying why, only where there is no GPU,
            /// driver or NVRTC (unless `ROKKOS_REQUIRE_CUDA=1`). CUDA has every capability the
            /// bodies use, so an `Err(Unsupported)` fails the test, as any other error does.
            #[cfg(feature = "cuda")]
            #[test]
            fn cuda() {
                if let Some(space) = crate::cuda_space() {
                    super::$name(space);
                }
            }

            /// `rokkos::Device` standing for CUDA.
            #[cfg(feature = "cuda")]
            #[test]
            fn device_cuda() {
                if let Some(space) = crate::cuda_space() {
                    super::$name(rokkos::Device::from(space));
                }
            }

            /// The wgpu backend on a device with SHADER_INT64 and SHADER_F64 hidden (what an
            /// OpenGL or WebGPU adapter offers): kernels run through their 32-bit variant. The
            /// body must pass unless it is listed in [`crate::NO_INT64_GATED`], and then it must
            /// be refused naming the hidden feature.
            #[cfg(feature = "wgpu")]
            #[test]
            fn wgpu_no_int64() {
                if let Some(space) = crate::wgpu_no_int64_space() {
                    crate::gated_as_listed(stringify!($name), || super::$name(space));
                }
            }
        }
    };
}

/// Instantiates the host-memory test body `fn $name<E: ExecutionSpace<Memory = HostSpace>>(space: E)`
/// on the host backends only (serial, rayon, rayon_global), for bodies whose subject is host memory.
macro_rules! per_host_backend {
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

            #[cfg(feature = "rayon")]
            #[test]
            fn rayon_global() {
                super::$name(rokkos::Rayon::new());
            }
        }
    };
}

/// The CUDA checking space ([`rokkos_cuda::check::CudaCheck`]), or `None` (after saying why) where
/// NVRTC or ptxas is not installed; a panic then when `ROKKOS_REQUIRE_NVRTC=1`.
pub fn cuda_check_space() -> Option<rokkos_cuda::check::CudaCheck> {
    match rokkos_cuda::check::CudaCheck::new() {
        Ok(s) => Some(s),
        Err(e) if std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_NVRTC=1 but the CUDA checking space is unavailable: {e}")
        }
        Err(e) => {
            eprintln!("skipping the CUDA compile check: {e}");
            None
        }
    }
}

/// `rokkos::Device` standing for a host backend: rayon with two workers, or serial without the
/// rayon feature.
pub fn host_device() -> rokkos::Device {
    #[cfg(feature = "rayon")]
    return rokkos::Device::from(
        rokkos::Rayon::with_threads(2).expect("a rayon pool of 2 threads"),
    );
    #[cfg(not(feature = "rayon"))]
    return rokkos::Device::from(rokkos::Serial);
}

/// A View in the memory space of execution space `E`: the Views kernels launched on `E` take.
pub type DevView<E, T, const R: usize = 1, L = LayoutRight> =
    View<T, R, L, <E as ExecutionSpace>::Memory>;

/// A zero-filled View in `space`'s memory.
pub fn dev<T: Pod, const R: usize, L: Layout, E: ExecutionSpace>(
    space: &E,
    label: &str,
    extents: [usize; R],
) -> rokkos::Result<DevView<E, T, R, L>> {
    View::new_in(&space.memory_space(), label, extents)
}

/// A View in `space`'s memory holding `data`, read in the layout's memory order (as
/// `View::from_vec`): a host View adopts `data` and is deep-copied in.
pub fn dev_from_vec<T: Pod, const R: usize, L: Layout, E: ExecutionSpace>(
    space: &E,
    label: &str,
    extents: [usize; R],
    data: Vec<T>,
) -> rokkos::Result<DevView<E, T, R, L>> {
    let host = View::<T, R, L>::from_vec(label, extents, data)?;
    let d = dev(space, label, extents)?;
    deep_copy(&d, &host)?;
    Ok(d)
}

/// A View in `space`'s memory holding `f(index)` (as `View::from_fn`).
pub fn dev_from_fn<T: Pod, const R: usize, L: Layout, E: ExecutionSpace>(
    space: &E,
    label: &str,
    extents: [usize; R],
    f: impl FnMut([usize; R]) -> T,
) -> rokkos::Result<DevView<E, T, R, L>> {
    let host = View::<T, R, L>::from_fn(label, extents, f)?;
    let d = dev(space, label, extents)?;
    deep_copy(&d, &host)?;
    Ok(d)
}

/// The elements of a View in any memory space, in row-major index order (`to_vec` through a host
/// mirror: the View itself when it is in host memory, else a copy).
#[track_caller]
pub fn to_host<T: Pod, const R: usize, L: Layout, S: MemorySpace>(v: &View<T, R, L, S>) -> Vec<T> {
    match create_mirror_view_and_copy(v) {
        Ok(m) => m.to_vec(),
        Err(e) => panic!("copying View `{}` to the host: {e}", v.label()),
    }
}

/// Writes one element of a View in any memory space (a host `set`), through a rank-0 subview.
pub fn put<T: Pod, const R: usize, L: Layout, S: MemorySpace>(
    v: &View<T, R, L, S>,
    index: [usize; R],
    value: T,
) -> rokkos::Result<()> {
    v.subview::<0>(index)?.fill(value)
}

mod affine;
mod array_params;
mod atomics;
mod bitcast;
mod casts;
mod create_mirror;
mod custom_team;
mod device_limits;
mod disjoint;
mod errors;
mod flat_index;
mod func_values;
mod host_team;
mod inclusive;
mod injective;
mod launch_hold;
mod launches;
mod math;
mod mdrange;
mod multi_return;
mod narrow;
mod neighbours;
mod nested_versioning;
mod overflow;
mod range;
mod reduce;
mod reducers;
mod review;
mod rows_per_team;
mod scan;
mod scatter_view;
mod schedule;
mod segments;
mod sizes;
mod small_ints;
mod split;
mod subview;
mod tables;
mod team32;
mod team_basic;
mod team_lanes;
mod team_md_range;
mod team_rules;
mod team_scratch;
mod team_vector;
mod trust;
mod user_traits;
mod view_api;
mod view_copy;
mod view_resize;
mod window_wgpu;

/// Sizes every family tries: empty, tiny, primes, and both sides of the powers of two where
/// chunked backends change how they split.
pub const EDGE_SIZES: &[usize] = &[0, 1, 2, 3, 7, 13, 31, 97, 255, 256, 257, 1023, 1024, 1025];

/// The large size a few tests use (one past 2^16: not a multiple of any chunk count).
pub const LARGE: usize = 65537;

/// A 1-D size: mostly the edge sizes, sometimes anything below 3000.
pub fn sizes() -> impl Strategy<Value = usize> + Clone {
    proptest::prop_oneof![
        3 => proptest::sample::select(EDGE_SIZES),
        1 => 0usize..3000,
    ]
}

/// A small extent for multi-dimensional shapes (0 and 1 included).
pub fn small_extent(max: usize) -> impl Strategy<Value = usize> + Clone {
    proptest::prop_oneof![1 => Just(0usize), 1 => Just(1usize), 6 => 2..=max]
}

/// A chunk size for `RangePolicy::chunk_size` (0: the backend's choice).
pub fn chunk_sizes() -> impl Strategy<Value = usize> + Clone {
    proptest::sample::select(vec![0usize, 1, 2, 3, 7, 16, 64, 100, 1000, 5000])
}

/// Runs the property `test` on `cases` inputs drawn from `strategy`; panics with the minimal failing
/// input when it fails. Usable inside generic test bodies, unlike `proptest!`.
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
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

/// Asserts `|got - want| <= rel * scale` where `scale` bounds the magnitude of the terms combined
/// (for sums: the sum of absolute values; at least 1).
#[track_caller]
pub fn assert_close(got: f64, want: f64, scale: f64, rel: f64, what: &str) {
    let tol = rel * scale.abs().max(1.0);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:e}, expected {want:e} (difference {:e} > tolerance {tol:e})",
        (got - want).abs()
    );
}

/// Relative tolerance for `f64` sums of up to ~10^5 terms in any order.
pub const F64_TOL: f64 = 1e-12;
/// Relative tolerance for `f32` sums of up to ~10^5 terms in any order.
pub const F32_TOL: f64 = 1e-3;

/// A deterministic pseudo-random sequence (SplitMix64), for data that must be reproducible from a
/// seed drawn by proptest.
pub fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// `n` values in `lo..hi` (integers), from `seed`.
pub fn ints(seed: u64, n: usize, lo: i64, hi: i64) -> Vec<i64> {
    let w = (hi - lo) as u64;
    splitmix(seed, n)
        .into_iter()
        .map(|r| lo + (r % w) as i64)
        .collect()
}

/// `n` values in `[-1, 1)`, from `seed`.
pub fn unit_floats(seed: u64, n: usize) -> Vec<f64> {
    splitmix(seed, n)
        .into_iter()
        .map(|r| (r >> 11) as f64 / (1u64 << 52) as f64 - 1.0)
        .collect()
}

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// The error of a launch (followed by a fence) that must fail inside a work item, on any backend:
/// never a panic (the caller does not catch one), always `Err(KernelFailed)` naming the kernel, on
/// every backend.
pub fn kernel_failure<E: rokkos::ExecutionSpace>(
    space: &E,
    r: Result<(), rokkos::Error>,
    kernel: &str,
    what: &str,
) -> String {
    let e = match r {
        Err(e) => e,
        Ok(()) => panic!("{what}: the launch succeeded"),
    };
    match &e {
        rokkos::Error::KernelFailed { kernel: k, .. } => assert_eq!(k, kernel, "{what}"),
        other => panic!(
            "{what} on `{}`: expected KernelFailed, got {other:?}",
            space.name()
        ),
    }
    e.to_string()
}

/// Every kernel the suite runs has the same IR hash in two processes: the suite's `ir_eval` tests
/// run twice in child processes, each logging `<kernel> <hash>` per launch (`IrEval`'s hash log),
/// and the two logs must name the same kernels with the same hashes.
///
/// Both children run this very executable and draw the same proptest inputs, so that the only
/// thing that can differ between the logs is the hash itself: on Linux they are started from
/// `/proc/self/exe`, which stays this process's file even when a concurrent `cargo` build replaces
/// the one at `current_exe()`, and `PROPTEST_RNG_SEED` is fixed (a property whose inputs decide
/// which kernels launch would otherwise log different kernels in the two runs).
#[test]
fn ir_hashes_of_every_kernel_are_stable_across_processes() {
    use std::collections::BTreeSet;
    let dir = std::env::temp_dir().join(format!("rokkos-ir-hash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let own = std::path::Path::new("/proc/self/exe");
    let exe = if own.exists() {
        own.to_path_buf()
    } else {
        std::env::current_exe().unwrap()
    };
    let seed = std::process::id().to_string();
    let mut logs = Vec::new();
    for run in 0..2 {
        let log = dir.join(format!("run{run}.log"));
        let _ = std::fs::remove_file(&log);
        let out = std::process::Command::new(&exe)
            .args(["ir_eval", "--test-threads=2"])
            .env(rokkos::ir::eval::HASH_LOG, &log)
            .env("PROPTEST_RNG_SEED", &seed)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "child run {run} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: BTreeSet<String> = text.lines().map(str::to_string).collect();
        logs.push(lines);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let kernels: BTreeSet<&str> = logs[0]
        .iter()
        .filter_map(|l| l.split_once(' ').map(|(n, _)| n))
        .collect();
    assert!(
        kernels.len() >= 90,
        "only {} kernels logged: {kernels:?}",
        kernels.len()
    );
    // Only the lines one process logged and the other did not, so that a failure names them.
    let only: Vec<(usize, &String)> = logs[0]
        .symmetric_difference(&logs[1])
        .map(|l| (if logs[0].contains(l) { 0 } else { 1 }, l))
        .collect();
    assert!(
        only.is_empty(),
        "IR hashes differ between two processes; (run, line) logged by one run only: {only:?}"
    );
}

/// The wgpu execution space, or `None` (after saying why) when this machine has no adapter. With
/// `ROKKOS_REQUIRE_WGPU=1` (CI) a missing adapter is a failure instead.
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

/// The CUDA execution space, or `None` (saying why) where there is no GPU, driver or NVRTC; with
/// `ROKKOS_REQUIRE_CUDA=1` (the GPU machine) its absence fails the test.
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

/// The wgpu space with SHADER_INT64 and SHADER_F64 hidden ([`rokkos::Wgpu::with_hidden`]), or
/// `None` as [`wgpu_space`] says.
#[cfg(feature = "wgpu")]
pub fn wgpu_no_int64_space() -> Option<rokkos::Wgpu> {
    wgpu_space()?;
    match rokkos::Wgpu::with_hidden("int64,f64") {
        Ok(s) => Some(s),
        Err(e) => {
            panic!("the default wgpu device exists but one with int64 and f64 hidden does not: {e}")
        }
    }
}

/// The equivalence tests that need a 64-bit integer or an f64 of their own (or a kernel the
/// 32-bit variant does not cover), with the feature their refusal names: on a device without
/// SHADER_INT64 and SHADER_F64 they answer `Err(Unsupported)`; every other test passes there.
pub const NO_INT64_GATED: &[(&str, &str)] = &[
    ("affine_wrap_fails", "SHADER_INT64"),
    ("atomic_division_by_zero_fails", "SHADER_INT64"),
    ("clamp_with_bad_bounds_fails", "SHADER_F64"),
    ("constant_operands_compile", "SHADER_F64"),
    ("contended_element", "SHADER_INT64"),
    ("control_flow_in_kernels", "SHADER_INT64"),
    ("copy_kernel_copy_back", "SHADER_INT64"),
    ("custom_reducers", "SHADER_F64"),
    ("disjoint_ranges_mdrange", "SHADER_INT64"),
    ("disjoint_ranges_offset_wraps", "SHADER_INT64"),
    ("disjoint_ranges_team", "SHADER_INT64"),
    ("division_by_zero_fails", "SHADER_INT64"),
    ("escaping_usize", "SHADER_INT64"),
    ("every_cast_matches_rust", "SHADER_F64"),
    ("exact_functions_keep_signed_zeros", "SHADER_F64"),
    ("f64_bit_casts_match_rust", "SHADER_F64"),
    (
        "f64_transcendentals_keep_rusts_special_values",
        "SHADER_F64",
    ),
    ("f64_transcendentals_match", "SHADER_F64"),
    ("fill_rows_all_layouts", "SHADER_INT64"),
    ("fill_strided_layouts", "SHADER_INT64"),
    ("fill_with_index", "SHADER_INT64"),
    ("float_dot", "SHADER_F64"),
    ("float_min_max_pin_signed_zeros", "SHADER_F64"),
    ("float_predicates_match", "SHADER_F64"),
    ("float_reducers", "SHADER_F64"),
    ("float_rem_is_exact", "SHADER_F64"),
    ("func_array_params", "SHADER_INT64"),
    ("funcs_and_generic_kernels", "SHADER_F64"),
    ("generic_bit_casts_match_rust", "SHADER_F64"),
    ("generic_funcs", "SHADER_F64"),
    ("histograms", "SHADER_INT64"),
    ("huge_steps_match_rust", "SHADER_INT64"),
    ("inclusive_float_scan", "SHADER_F64"),
    ("inclusive_intervals", "SHADER_INT64"),
    ("inclusive_ranges_reach_max", "SHADER_INT64"),
    ("inclusive_subview_ranges", "SHADER_INT64"),
    ("inclusive_top_ends", "SHADER_INT64"),
    ("index_forms", "SHADER_INT64"),
    ("injective_mdrange", "SHADER_F64"),
    ("injective_out_of_range", "SHADER_F64"),
    ("injective_range", "SHADER_F64"),
    ("injective_team", "SHADER_F64"),
    ("integer_arithmetic_fails_as_rust", "SHADER_INT64"),
    ("integer_reducers", "SHADER_INT64"),
    ("invalid_team_policies", "SHADER_F64"),
    ("invariant_row_lookup", "SHADER_INT64"),
    ("invariant_row_out_of_bounds", "SHADER_INT64"),
    ("kernels_on_disjoint_subviews", "SHADER_F64"),
    ("kernels_read_every_rank_and_layout", "SHADER_INT64"),
    ("large_range", "SHADER_INT64"),
    ("md_range_reductions", "SHADER_INT64"),
    ("md_ranges_fill", "SHADER_INT64"),
    ("mdrange_2d", "SHADER_INT64"),
    ("mdrange_3d", "SHADER_INT64"),
    ("mdrange_4d", "SHADER_INT64"),
    ("mdrange_5d", "SHADER_INT64"),
    ("mdrange_6d", "SHADER_INT64"),
    ("mdrange_on_subview", "SHADER_INT64"),
    ("more_atomic_operations", "SHADER_INT64"),
    ("mul_add_is_fused", "SHADER_F64"),
    ("multi_return_funcs", "SHADER_F64"),
    ("narrow_integer_reducers", "SHADER_INT64"),
    ("neighbour_reduce", "SHADER_F64"),
    ("neighbours_2d", "SHADER_F64"),
    ("neighbours_3d", "SHADER_F64"),
    ("neighbours_nested_reduce", "SHADER_F64"),
    ("neighbours_plain_loop", "SHADER_F64"),
    ("neighbours_range", "SHADER_F64"),
    ("neighbours_team_loop", "SHADER_F64"),
    ("nested_team_loop", "SHADER_INT64"),
    ("nested_vector_reduce", "SHADER_F64"),
    ("nested_vector_scan", "SHADER_INT64"),
    ("one_final_call_per_index", "SHADER_INT64"),
    ("ordered_join", "SHADER_INT64"),
    ("other_failures_are_kernel_failed", "SHADER_INT64"),
    ("out_of_bounds_is_an_error", "SHADER_F64"),
    ("overflowing_scratch_requests_fail", "SHADER_F64"),
    ("overlapping_arguments", "SHADER_F64"),
    ("prefix_sum_of_data", "SHADER_INT64"),
    ("prefix_sum_of_index", "SHADER_INT64"),
    ("read_modify_write", "SHADER_INT64"),
    ("reduce_into_rank0", "SHADER_INT64"),
    ("reduce_into_then_consume", "SHADER_F64"),
    ("reduce_of_reductions", "SHADER_INT64"),
    ("reduce_rank2_rows", "SHADER_INT64"),
    ("reducers_treat_nan_and_zeros_alike", "SHADER_F64"),
    ("repeated_and_distinct_arguments", "SHADER_INT64"),
    ("rounding_matches", "SHADER_F64"),
    ("rows_per_team_spmv", "SHADER_INT64"),
    ("scan_with_max", "SHADER_INT64"),
    ("scratch_in_reduce", "SHADER_INT64"),
    ("scratch_overuse_fails", "SHADER_F64"),
    ("scratch_round_trip", "SHADER_F64"),
    ("several_accumulators", "SHADER_INT64"),
    ("several_scratch_views", "SHADER_INT64"),
    ("single_thread_at_team_rank", "SHADER_INT64"),
    ("single_thread_in_thread_range", "SHADER_INT64"),
    ("stores_outside_vector_ranges_run_once", "SHADER_INT64"),
    ("stream_compaction", "SHADER_INT64"),
    ("sum_of_index", "SHADER_INT64"),
    ("table_indexed_by_data", "SHADER_F64"),
    ("table_lookups_match_a_loop", "SHADER_INT64"),
    ("table_read_past_its_end_fails", "SHADER_F64"),
    ("team_broadcast_and_single", "SHADER_INT64"),
    ("team_identity", "SHADER_INT64"),
    (
        "team_range_bounds_through_single_and_broadcast",
        "SHADER_INT64",
    ),
    ("team_ranges_over_intervals_from_a_view", "SHADER_INT64"),
    ("team_reduce", "SHADER_INT64"),
    ("team_reducers_treat_nan_and_zeros_alike", "SHADER_F64"),
    ("team_row_sums", "SHADER_INT64"),
    ("team_scratch_rounds_with_barriers", "SHADER_INT64"),
    ("team_thread_range_bounds", "SHADER_INT64"),
    ("team_thread_scan", "SHADER_INT64"),
    ("team_vector_minloc", "SHADER_F64"),
    ("thread_private_scratch", "SHADER_INT64"),
    ("thread_vector_nesting", "SHADER_INT64"),
    ("tuple_reducers", "SHADER_F64"),
    ("typed_step_literals", "SHADER_INT64"),
    ("u32_to_i64_zero_extends", "SHADER_F64"),
    ("user_traits_do_not_answer_math_calls", "SHADER_F64"),
    ("wide_draw_numbers_stay_distinct", "SHADER_INT64"),
    ("zero_loop_step_fails", "SHADER_INT64"),
];

/// Runs test body `name` on the wgpu space with 64-bit features hidden: it must pass unless
/// [`NO_INT64_GATED`] lists it, and a listed one must be refused naming its feature (so that the
/// list is exact both ways: a newly gated test and a newly passing one both fail here).
pub fn gated_as_listed(name: &str, body: impl FnOnce()) {
    let listed = NO_INT64_GATED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f);
    // The refusal as `Display` prints it (a body that panics with the error) or as `Debug` does
    // (a body that unwraps it or prints the launch's result).
    let refusal = |msg: &str| {
        ["`wgpu` cannot do this:", "Unsupported { backend: \"wgpu\""]
            .iter()
            .find_map(|m| msg.find(m))
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    match (r, listed) {
        (Ok(()), None) => {}
        (Ok(()), Some(f)) => panic!(
            "`{name}` is listed in NO_INT64_GATED (needs {f}) but passed without it: remove it from the list"
        ),
        (Err(p), listed) => {
            let msg = panic_message(&*p);
            let at = refusal(&msg);
            match (at, listed) {
                (Some(at), Some(f)) if msg[at..].contains(f) => {
                    eprintln!("gated without {f}: {}", &msg[at..]);
                }
                (Some(at), _) => {
                    eprintln!("NO_INT64_GATED_CANDIDATE {name}: {}", &msg[at..]);
                    panic!("`{name}` was refused without 64-bit features but NO_INT64_GATED does not list it so: {}", &msg[at..])
                }
                _ => std::panic::resume_unwind(p),
            }
        }
    }
}

/// Runs a test body on a device backend; a failure whose cause is the backend answering
/// `Err(Unsupported)` (a capability this adapter lacks, named in the message) is reported as a
/// skip with that reason. Every other failure fails the test.
pub fn capability_gated(backend: &str, body: impl FnOnce()) {
    let marker = format!("`{backend}` cannot do this:");
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    if let Err(p) = r {
        let msg = panic_message(&*p);
        match msg.find(&marker) {
            Some(at) => eprintln!("skipped on {backend} (capability): {}", &msg[at..]),
            None => std::panic::resume_unwind(p),
        }
    }
}

/// Compares a kernel's float results with the plain-loop expectation: bit for bit on the host
/// backends and the IR evaluator (the same operations in the same order), and within four roundings
/// of `max(|want|, 1)` on GPU backends, whose compilers may fuse `a * b + c` into one fused
/// multiply-add (one rounding instead of two; WGSL cannot forbid it).
pub fn floats_match<E: rokkos::ExecutionSpace, T: rokkos::Float>(
    space: &E,
    got: &[T],
    want: &[T],
) -> Result<(), TestCaseError> {
    let exact = matches!(space.name(), "serial" | "rayon" | "ir-eval" | "cuda-check");
    let eps = if std::mem::size_of::<T>() == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    proptest::prop_assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g.to_f64(), w.to_f64());
        if exact {
            proptest::prop_assert_eq!(g.to_bits(), w.to_bits(), "element {}: {} vs {}", i, g, w);
        } else {
            proptest::prop_assert!(
                (g - w).abs() <= 4.0 * eps * w.abs().max(1.0),
                "element {}: {} vs {}",
                i,
                g,
                w
            );
        }
    }
    Ok(())
}
