//! Launch costs of the CUDA backend against raw cudarc launches, for issue 16's launch bars
//! (`scripts/bench_gpu.sh speed` runs it; needs a GPU).
//!
//! ```text
//! cargo run --release -p rokkos-cuda --example launch_cost -- [--rounds 5] [--batch 10000]
//!     [--reps 2000] [--host-only] [--json]
//! ```
//!
//! In one process, in this order:
//! 1. **first launch**: the first `parallel_for` of a kernel this process has not launched
//!    (emit, NVRTC or the disk cache, module load, launch, fence), with the number of NVRTC
//!    compiles it took (0 when `ROKKOS_CUDA_CACHE_DIR` already held the kernel: run the program
//!    twice with the same cache folder for "first launch in a second process"); then the same for
//!    a raw kernel (NVRTC, module load, launch, synchronize).
//! 2. `--rounds` interleaved rounds of:
//!    - `empty_async`: `--batch` launches of an empty kernel back to back, then one fence; the
//!      figure is the time per launch (rokkos `parallel_for` over `0..1` of a kernel that reads a
//!      one-element View; raw: cudarc's launch builder on a stream of its own, with event tracking
//!      off as rokkos has it, of an empty kernel taking the same pointer and length, grid 1 x 1);
//!    - `empty_sync`: `--reps` times a launch followed by a fence (raw: stream synchronize);
//!    - `reduce_one`: `--reps` times `parallel_reduce` of one element to a host scalar (raw: a
//!      kernel copying the element to a device scalar, then a copy to the host).
//!
//! Every reduction's value is checked (it must be the element, 1.5, exactly); the program exits
//! non-zero on a wrong value or a CUDA error. `--host-only` leaves the values unchecked: it is for
//! the CUDA emulator's no-op driver (`RKEMU_LAUNCH=noop`, `tools/cuda-emu`), whose launches run
//! nothing, so that the figures are the host's own cost per launch, rokkos' next to raw cudarc's,
//! measured without a GPU. Each line of `--json` is one (kernel, side) with its
//! best and median in microseconds (`empty_async`: over rounds; the others: over every sample).

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use rokkos::prelude::*;
use rokkos::{deep_copy, LayoutRight};
use rokkos_cuda::compile::{compile_ptx, nvrtc_compiles, Arch};
use rokkos_cuda::{Cuda, CudaSpace};
use std::process::ExitCode;
use std::time::Instant;

#[kernel]
fn empty(i: usize, x: View<f64>) {
    let _unused = x.extent(0) + i;
}

#[kernel]
fn first(i: usize, x: ViewMut<f64>) {
    x[i] = 2.0;
}

#[kernel]
fn element(i: usize, acc: &mut f64, x: View<f64>) {
    *acc += x[i];
}

/// The raw side's kernels: what the rokkos kernels above do, written by hand.
const RAW_SOURCE: &str = r#"
extern "C" __global__ void raw_empty(const double* x, unsigned long long n) {}
extern "C" __global__ void raw_element(const double* x, double* out) { out[0] = x[0]; }
"#;

/// The element the reductions read.
const ELEMENT: f64 = 1.5;

struct Args {
    rounds: usize,
    batch: usize,
    reps: usize,
    host_only: bool,
    json: bool,
}

const USAGE: &str = "usage: launch_cost [--rounds R] [--batch B] [--reps N] [--host-only] [--json]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        rounds: 5,
        batch: 10_000,
        reps: 2000,
        host_only: false,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let number = |name: &str, v: String| v.parse().map_err(|e| format!("{name}: {e}"));
        match flag.as_str() {
            "--rounds" => a.rounds = number("--rounds", value("--rounds")?)?,
            "--batch" => a.batch = number("--batch", value("--batch")?)?,
            "--reps" => a.reps = number("--reps", value("--reps")?)?,
            "--json" => a.json = true,
            "--host-only" => a.host_only = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    if a.rounds == 0 || a.batch == 0 || a.reps == 0 {
        return Err("--rounds, --batch and --reps must be positive".into());
    }
    Ok(a)
}

/// Samples in seconds per (kernel, side), in the order they were first recorded.
#[derive(Default)]
struct Samples(Vec<(&'static str, &'static str, Vec<f64>)>);

impl Samples {
    fn push(&mut self, kernel: &'static str, side: &'static str, secs: f64) {
        match self
            .0
            .iter_mut()
            .find(|(k, s, _)| *k == kernel && *s == side)
        {
            Some((_, _, v)) => v.push(secs),
            None => self.0.push((kernel, side, vec![secs])),
        }
    }
}

/// Best and median of `v`.
fn best_median(v: &[f64]) -> (f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[0], s[s.len() / 2])
}

/// A failure of the raw side, as text.
fn raw<T, E: std::fmt::Debug>(what: &str, r: Result<T, E>) -> Result<T, String> {
    r.map_err(|e| format!("raw cudarc: {what}: {e:?}"))
}

/// What one run measured: the first launches (ms, NVRTC compiles) and the rounds' samples.
struct Measured {
    first_rokkos_ms: f64,
    first_rokkos_compiles: usize,
    first_raw_ms: f64,
    samples: Samples,
    device: String,
}

fn measure(a: &Args) -> Result<Measured, String> {
    let gpu = Cuda::new().map_err(|e| e.to_string())?;
    let mem = gpu.memory_space();
    let view = |label: &str| {
        View::<f64, 1, LayoutRight, CudaSpace>::new_in(&mem, label, [1]).map_err(|e| e.to_string())
    };
    let (x, y) = (view("x")?, view("y")?);
    let host = View::<f64, 1>::from_fn("x host", [1], |_| ELEMENT).map_err(|e| e.to_string())?;
    deep_copy(&x, &host).map_err(|e| e.to_string())?;
    gpu.fence().map_err(|e| e.to_string())?;
    let r = |e: rokkos::Error| e.to_string();

    // 1. First launches.
    let compiles = nvrtc_compiles();
    let t0 = Instant::now();
    parallel_for(
        "launch_cost::first",
        RangePolicy::new(&gpu, 0..1),
        first(&y),
    )
    .map_err(r)?;
    gpu.fence().map_err(r)?;
    let first_rokkos_ms = t0.elapsed().as_secs_f64() * 1e3;
    let first_rokkos_compiles = nvrtc_compiles() - compiles;
    let got = rokkos::create_mirror_view_and_copy(&y).map_err(r)?.get([0]);
    if got != 2.0 && !a.host_only {
        return Err(format!("the first kernel wrote {got}, not 2"));
    }

    let (major, minor) = gpu.device_info().compute_capability;
    let ctx = raw(
        "opening the context",
        CudaContext::new(gpu.device_info().ordinal),
    )?;
    // SAFETY: called before this context's first allocation; the raw side orders its own work
    // on its one stream (as rokkos orders its own, which is why it turns tracking off too).
    unsafe { ctx.disable_event_tracking() };
    let stream = raw("cuStreamCreate", ctx.new_stream())?;
    let t0 = Instant::now();
    let ptx = compile_ptx(RAW_SOURCE, "raw_empty", Arch::new(major, minor)).map_err(r)?;
    let module = raw(
        "cuModuleLoadData",
        ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx)),
    )?;
    let raw_empty = raw("cuModuleGetFunction", module.load_function("raw_empty"))?;
    let raw_element = raw("cuModuleGetFunction", module.load_function("raw_element"))?;
    let rx = raw("cuMemAlloc", stream.clone_htod(&[ELEMENT]))?;
    let mut rout = raw("cuMemAlloc", stream.alloc_zeros::<f64>(1))?;
    let n1 = 1u64;
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let launch_empty = || {
        let mut b = stream.launch_builder(&raw_empty);
        b.arg(&rx).arg(&n1);
        // SAFETY: the kernel's parameters are a pointer and a u64, as passed; it touches nothing.
        raw("cuLaunchKernel", unsafe { b.launch(one) }).map(|_| ())
    };
    launch_empty()?;
    raw("cuStreamSynchronize", stream.synchronize())?;
    let first_raw_ms = t0.elapsed().as_secs_f64() * 1e3;

    // 2. Interleaved rounds, after one launch of each kernel, so that no round pays a compile.
    parallel_for(
        "launch_cost::empty",
        RangePolicy::new(&gpu, 0..1),
        empty(&x),
    )
    .map_err(r)?;
    let _: f64 = parallel_reduce(
        "launch_cost::element",
        RangePolicy::new(&gpu, 0..1),
        element(&x),
        Sum,
    )
    .map_err(r)?;
    gpu.fence().map_err(r)?;
    let mut s = Samples::default();
    let mut out = [0.0f64];
    for _ in 0..a.rounds {
        let t0 = Instant::now();
        for _ in 0..a.batch {
            parallel_for(
                "launch_cost::empty",
                RangePolicy::new(&gpu, 0..1),
                empty(&x),
            )
            .map_err(r)?;
        }
        gpu.fence().map_err(r)?;
        s.push(
            "empty_async",
            "rokkos",
            t0.elapsed().as_secs_f64() / a.batch as f64,
        );

        let t0 = Instant::now();
        for _ in 0..a.batch {
            launch_empty()?;
        }
        raw("cuStreamSynchronize", stream.synchronize())?;
        s.push(
            "empty_async",
            "cudarc",
            t0.elapsed().as_secs_f64() / a.batch as f64,
        );

        for _ in 0..a.reps {
            let t0 = Instant::now();
            parallel_for(
                "launch_cost::empty",
                RangePolicy::new(&gpu, 0..1),
                empty(&x),
            )
            .map_err(r)?;
            gpu.fence().map_err(r)?;
            s.push("empty_sync", "rokkos", t0.elapsed().as_secs_f64());
        }
        for _ in 0..a.reps {
            let t0 = Instant::now();
            launch_empty()?;
            raw("cuStreamSynchronize", stream.synchronize())?;
            s.push("empty_sync", "cudarc", t0.elapsed().as_secs_f64());
        }

        for _ in 0..a.reps {
            let t0 = Instant::now();
            let v: f64 = parallel_reduce(
                "launch_cost::element",
                RangePolicy::new(&gpu, 0..1),
                element(&x),
                Sum,
            )
            .map_err(r)?;
            s.push("reduce_one", "rokkos", t0.elapsed().as_secs_f64());
            if v != ELEMENT && !a.host_only {
                return Err(format!(
                    "parallel_reduce of one element gave {v}, not {ELEMENT}"
                ));
            }
        }
        for _ in 0..a.reps {
            let t0 = Instant::now();
            let mut b = stream.launch_builder(&raw_element);
            b.arg(&rx).arg(&mut rout);
            // SAFETY: the kernel reads one double of `rx` and writes one of `rout`, both live
            // one-element allocations of this context.
            raw("cuLaunchKernel", unsafe { b.launch(one) })?;
            raw("cuMemcpyDtoH", stream.memcpy_dtoh(&rout, &mut out))?;
            raw("cuStreamSynchronize", stream.synchronize())?;
            s.push("reduce_one", "cudarc", t0.elapsed().as_secs_f64());
            if out[0] != ELEMENT && !a.host_only {
                return Err(format!(
                    "the raw element copy gave {}, not {ELEMENT}",
                    out[0]
                ));
            }
        }
    }
    Ok(Measured {
        first_rokkos_ms,
        first_rokkos_compiles,
        first_raw_ms,
        samples: s,
        device: gpu.device_info().name.clone(),
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("launch_cost: {e}");
            return ExitCode::from(2);
        }
    };
    let m = match measure(&args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("launch_cost: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (side, ms, compiles) in [
        ("rokkos", m.first_rokkos_ms, Some(m.first_rokkos_compiles)),
        ("cudarc", m.first_raw_ms, None),
    ] {
        if args.json {
            let line = serde_json::json!({
                "bench": "launch_cost", "kernel": "first_launch", "side": side, "device": m.device,
                "ms": ms, "nvrtc_compiles": compiles,
            });
            println!("{line}");
        } else {
            println!(
                "first launch, {side}: {ms:.2} ms{}",
                compiles.map_or(String::new(), |c| format!(" ({c} NVRTC compiles)"))
            );
        }
    }
    for (kernel, side, v) in &m.samples.0 {
        let (best, median) = best_median(v);
        if args.json {
            let line = serde_json::json!({
                "bench": "launch_cost", "kernel": kernel, "side": side, "device": m.device,
                "best_us": best * 1e6, "median_us": median * 1e6, "samples": v.len(),
            });
            println!("{line}");
        } else {
            println!(
                "{kernel:<12} {side:<7} best {:8.2} us  median {:8.2} us  ({} samples)",
                best * 1e6,
                median * 1e6,
                v.len()
            );
        }
    }
    ExitCode::SUCCESS
}
