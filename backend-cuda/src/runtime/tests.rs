//! The runtime smoke test (allocate, copy, compile a hand-written kernel, launch, read back, two
//! streams sharing buffers) and the answers without CUDA. On a machine without CUDA the device
//! tests print why and pass, unless `ROKKOS_REQUIRE_CUDA=1` (the GPU machine sets it).

use super::cache::cubin;
use super::compile::Arch;
use super::device::parse_ordinal;
use super::launch::{LaunchConfig, ParamBlock};
use crate::{Cuda, CudaSpace};
use rokkos_core::{Error, MemorySpace};

/// The default instance, or `None` (a failure when `ROKKOS_REQUIRE_CUDA=1`).
fn gpu() -> Option<Cuda> {
    match Cuda::new() {
        Ok(c) => Some(c),
        Err(e) if std::env::var("ROKKOS_REQUIRE_CUDA").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_CUDA=1 but: {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// `x[i] += a * y[i]` over a grid-stride loop; the one parameter is the launch's block.
const AXPY: &str = r#"
struct Params { double* x; const double* y; double a; unsigned long long n; };
extern "C" __global__ void axpy(const Params p) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < p.n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        p.x[i] += p.a * p.y[i];
    }
}
"#;

fn f64s(v: &[f64]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn read(space: &CudaSpace, b: &crate::CudaBuffer, n: usize) -> Vec<f64> {
    let mut out = vec![0u8; n * 8];
    // SAFETY: device memory no View or host guard lends out.
    unsafe { space.read_bytes(b, 0, &mut out) }.unwrap();
    bytemuck::cast_slice(&out).to_vec()
}

#[test]
fn runtime_smoke() {
    let Some(gpu) = gpu() else { return };
    let info = gpu.device_info().clone();
    eprintln!("device: {info:?}");
    let dev = &gpu.inst.device;
    let space = gpu.memory_space();
    let n = 1_000_003usize;
    // Allocation is zero-filled.
    let x = space.allocate("x", n * 8, 8).unwrap();
    let y = space.allocate("y", n * 8, 8).unwrap();
    assert!(read(&space, &x, n).iter().all(|&v| v == 0.0));
    let ys: Vec<f64> = (0..n).map(|i| i as f64).collect();
    // SAFETY: fresh device buffers no View or host guard lends out.
    unsafe { space.write_bytes(&y, 0, &f64s(&ys)) }.unwrap();
    // Device-to-device copy, asynchronous on the stream, then read back in order.
    // SAFETY: as above.
    unsafe { space.copy_bytes(&y, 0, &x, 0, n * 8) }
        .unwrap()
        .unwrap();
    assert_eq!(read(&space, &x, n), ys);

    let k = dev
        .modules
        .get_or_load(dev, 1, "axpy", || Ok(AXPY.to_string()))
        .unwrap();
    // A second lookup by key does not ask for the source.
    let again = dev
        .modules
        .get_or_load(dev, 1, "axpy", || panic!("cached"))
        .unwrap();
    assert!(std::sync::Arc::ptr_eq(&k, &again));
    let cfg = LaunchConfig {
        grid: [info.sm_count * 4, 1, 1],
        block: [256, 1, 1],
        shared_bytes: 0,
    };
    let launch = |inst: &super::device::Instance, x, y, a: f64| {
        let mut p = ParamBlock::default();
        p.buffer(x, 0, n * 8, true).unwrap();
        p.buffer(y, 0, n * 8, false).unwrap();
        p.scalar(a);
        p.scalar(n as u64);
        // SAFETY: `AXPY`'s Params matches the block; it writes x and reads y within n elements.
        unsafe { inst.launch(&k, &cfg, p) }.unwrap();
    };
    launch(&gpu.inst, &x, &y, 2.0);
    gpu.fence().unwrap();
    let want: Vec<f64> = ys.iter().map(|v| v + 2.0 * v).collect();
    assert_eq!(read(&space, &x, n), want);

    // Two streams: `a` writes x many times, `b` then reads x into z. The buffer's use is ordered
    // between them on the device, with no host wait in between.
    let parts = gpu.partition(2).unwrap();
    let (a, b) = (&parts[0], &parts[1]);
    assert!(!a.same_instance(b) && !a.same_instance(&gpu));
    let z = space.allocate("z", n * 8, 8).unwrap();
    for _ in 0..20 {
        launch(&a.inst, &x, &y, 1.0);
    }
    launch(&b.inst, &z, &x, 1.0);
    b.fence().unwrap();
    let xs: Vec<f64> = ys.iter().map(|v| v * 23.0).collect();
    assert_eq!(read(&b.memory_space(), &z, n), xs);
    a.fence().unwrap();
    // Dropping a buffer another stream still uses is ordered after that use.
    let w = space.allocate("w", n * 8, 8).unwrap();
    launch(&a.inst, &w, &y, 1.0);
    drop(w);
    a.fence().unwrap();
    gpu.fence().unwrap();

    // A launch beyond the device's block size is an error, not a launch.
    let bad = LaunchConfig {
        block: [info.max_threads_per_block + 1, 1, 1],
        ..cfg
    };
    let mut p = ParamBlock::default();
    p.buffer(&x, 0, 8, true).unwrap();
    // SAFETY: refused before anything is enqueued.
    let r = unsafe { gpu.inst.launch(&k, &bad, p) };
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    gpu.fence().unwrap();
}

#[test]
fn a_refused_source_is_a_compile_error_with_the_log() {
    if super::driver::nvrtc().is_err() {
        eprintln!("skipping: no NVRTC");
        return;
    }
    let src = "extern \"C\" __global__ void broken(int* p) { p[0] = undeclared; }";
    match cubin(src, "broken", Arch::SM_90) {
        Err(Error::Compile {
            backend,
            kernel,
            log,
            source_code,
        }) => {
            assert_eq!((backend.as_str(), kernel.as_str()), ("cuda", "broken"));
            assert!(log.contains("undeclared"), "{log}");
            assert_eq!(source_code, src);
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn bad_device_numbers_are_backend_unavailable() {
    // Without libcuda this names the library; with it, the device count.
    match Cuda::with_device(4096) {
        Err(Error::BackendUnavailable { backend, reason }) => {
            assert_eq!(backend, "cuda");
            assert!(
                reason.contains("libcuda")
                    || reason.contains("device 4096")
                    || reason.contains("NVRTC")
                    || reason.contains("no CUDA device"),
                "{reason}"
            );
        }
        other => panic!("expected BackendUnavailable, got {other:?}"),
    }
    assert_eq!(parse_ordinal(None).unwrap(), 0);
    assert_eq!(parse_ordinal(Some(" 3 ")).unwrap(), 3);
    assert!(matches!(
        parse_ordinal(Some("gpu1")),
        Err(Error::BackendUnavailable { .. })
    ));
}

#[test]
fn without_a_driver_every_entry_point_answers_backend_unavailable() {
    if super::driver::driver().is_ok() {
        eprintln!("skipping: this machine has a CUDA driver");
        return;
    }
    let e = Cuda::new().unwrap_err();
    assert!(
        matches!(&e, Error::BackendUnavailable { reason, .. } if reason.contains("libcuda")),
        "{e}"
    );
    let space = CudaSpace::default();
    assert!(matches!(
        space.allocate("a", 8, 8),
        Err(Error::BackendUnavailable { .. })
    ));
    let v =
        rokkos_core::View::<f32, 1, rokkos_core::LayoutLeft, CudaSpace>::new_in(&space, "v", [4]);
    assert!(matches!(v, Err(Error::BackendUnavailable { .. })));
}

/// The two index variants of one kernel are distinct entries of the module cache (the in-memory
/// key hashes every launch option, the variant included; the on-disk key is the source, which
/// differs).
#[test]
fn the_index_variant_is_part_of_the_module_key() {
    use crate::emit::{CudaOptions, Entry, IndexWidth};
    let opts = |width| CudaOptions {
        entry: Entry::For,
        block: super::run::BLOCK,
        bounds_checks: true,
        joins: Vec::new(),
        in_bounds: Default::default(),
        team: None,
        width,
    };
    let (a, b) = (opts(IndexWidth::W32), opts(IndexWidth::W64));
    assert_ne!(
        super::run::variant_key(7, &a),
        super::run::variant_key(7, &b)
    );
    assert_eq!(
        super::run::variant_key(7, &a),
        super::run::variant_key(7, &a)
    );
}
