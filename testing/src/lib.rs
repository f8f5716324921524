//! Test support for crates built on `rokkos`: one test body, every backend.
//!
//! [`per_backend!`] instantiates `fn name<E: ExecutionSpace>(space: E)` as `#[test]` functions in a
//! module named after the body, one per backend (Kokkos' `TEST_EXECSPACE` style): `serial`,
//! `rayon` (two workers), `ir_eval` (the kernels' IR in the reference evaluator, whose memory is not
//! host accessible, as a GPU's is not), `cuda_check` (every kernel also compiled as CUDA C by NVRTC
//! and ptxas), `device` (`rokkos::Device` over a host backend), and with the calling crate's
//! features `wgpu`, `device_wgpu`, `cuda` and `device_cuda`. The `#[cfg(feature = ..)]` in the
//! expansion are the calling crate's features: forward `rayon`, `wgpu` and `cuda` to this crate's.
//!
//! Device instances skip, saying why, where no adapter, GPU or NVRTC exists, unless
//! `ROKKOS_REQUIRE_WGPU=1`, `ROKKOS_REQUIRE_CUDA=1` or `ROKKOS_REQUIRE_NVRTC=1` (CI) make that a
//! failure.

use rokkos::{
    create_mirror_view_and_copy, deep_copy, ExecutionSpace, Layout, LayoutRight, MemorySpace, Pod,
    View,
};

pub use proptest;

/// Instantiates the generic test body `fn $name<E: ExecutionSpace>(space: E)` once per backend, as
/// `#[test]` functions inside a module named after the body.
#[macro_export]
macro_rules! per_backend {
    ($name:ident) => {
        mod $name {
            #[test]
            fn serial() {
                super::$name(::rokkos::Serial);
            }

            #[cfg(feature = "rayon")]
            #[test]
            fn rayon() {
                super::$name(::rokkos::Rayon::with_threads(2).expect("a rayon pool of 2 threads"));
            }

            #[test]
            fn ir_eval() {
                super::$name(::rokkos::ir::eval::IrEval);
            }

            #[test]
            fn cuda_check() {
                if let Some(space) = $crate::cuda_check_space() {
                    super::$name(space);
                }
            }

            #[test]
            fn device() {
                super::$name($crate::host_device());
            }

            #[cfg(feature = "wgpu")]
            #[test]
            fn wgpu() {
                if let Some(space) = $crate::wgpu_space() {
                    $crate::capability_gated("wgpu", || super::$name(space));
                }
            }

            #[cfg(feature = "wgpu")]
            #[test]
            fn device_wgpu() {
                if let Some(space) = $crate::wgpu_space() {
                    $crate::capability_gated("wgpu", || {
                        super::$name(::rokkos::Device::from(space))
                    });
                }
            }

            #[cfg(feature = "cuda")]
            #[test]
            fn cuda() {
                if let Some(space) = $crate::cuda_space() {
                    super::$name(space);
                }
            }

            #[cfg(feature = "cuda")]
            #[test]
            fn device_cuda() {
                if let Some(space) = $crate::cuda_space() {
                    super::$name(::rokkos::Device::from(space));
                }
            }
        }
    };
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

/// A rank-1 View in `space`'s memory holding `data`.
pub fn dev_from_slice<T: Pod, E: ExecutionSpace>(
    space: &E,
    label: &str,
    data: &[T],
) -> rokkos::Result<DevView<E, T>> {
    dev_from_vec(space, label, [data.len()], data.to_vec())
}

/// A View in `space`'s memory holding `data`, read in the layout's memory order (as
/// `View::from_vec`).
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

/// The elements of a View in any memory space, in row-major index order, through a host mirror.
#[track_caller]
pub fn to_host<T: Pod, const R: usize, L: Layout, S: MemorySpace>(v: &View<T, R, L, S>) -> Vec<T> {
    match create_mirror_view_and_copy(v) {
        Ok(m) => m.to_vec(),
        Err(e) => panic!("copying View `{}` to the host: {e}", v.label()),
    }
}

/// Sizes worth trying: empty, tiny, primes, and both sides of the powers of two where chunked
/// backends change how they split.
pub const EDGE_SIZES: &[usize] = &[0, 1, 2, 3, 7, 13, 31, 97, 255, 256, 257, 1023, 1024, 1025];

/// A 1-D size: mostly the edge sizes, sometimes anything below 3000.
pub fn sizes() -> impl proptest::strategy::Strategy<Value = usize> + Clone {
    proptest::prop_oneof![
        3 => proptest::sample::select(EDGE_SIZES),
        1 => 0usize..3000,
    ]
}

/// `n` pseudo-random 64-bit words from `seed` (splitmix64): reproducible test data without a
/// dependency.
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

/// The CUDA checking space, or `None` (after saying why) where NVRTC or ptxas is not installed; a
/// panic then when `ROKKOS_REQUIRE_NVRTC=1`.
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

/// The wgpu execution space, or `None` (saying why) where no adapter exists; with
/// `ROKKOS_REQUIRE_WGPU=1` (CI) its absence fails the test.
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
/// `ROKKOS_REQUIRE_CUDA=1` its absence fails the test.
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

/// The text of a panic payload.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// Runs `body`; a panic whose message carries the backend's capability refusal (`` `wgpu` cannot
/// do this: ``) is reported as a skip, any other panic propagates.
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
