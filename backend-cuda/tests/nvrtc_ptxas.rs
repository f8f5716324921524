//! CUDA C compiled by NVRTC for sm_90 and sm_80 and assembled by `ptxas -v`, with no GPU: a
//! kernel either refuses is a failure, and so is a spilled register in these kernels. Phase B runs
//! the same check over every generated kernel; today it covers hand-written representatives of the
//! patterns the emitter will write (grid-stride range, block reduction with warp shuffles, a team
//! with shared memory). Without NVRTC or ptxas (a dev machine) the tests say so and pass, unless
//! `ROKKOS_REQUIRE_NVRTC=1` (CI sets it).

use rokkos_cuda::compile::{compile_ptx, cubin, nvrtc_compiles, nvrtc_version, Arch};
use rokkos_cuda::ptxas;

/// Whether NVRTC and ptxas are there; `None` (skip) or a panic under `ROKKOS_REQUIRE_NVRTC=1`.
fn tools() -> Option<std::path::PathBuf> {
    let found = nvrtc_version().and_then(|v| ptxas::find().map(|p| (v, p)));
    match found {
        Ok((v, p)) => {
            eprintln!("NVRTC {}.{}, ptxas {}", v.0, v.1, p.display());
            Some(p)
        }
        Err(e) if std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("ROKKOS_REQUIRE_NVRTC=1 but: {e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// A grid-stride triad over a parameter block (BabelStream's kernel).
const TRIAD: &str = r#"
struct Params { double* a; const double* b; const double* c; double s; unsigned long long n; };
extern "C" __global__ void triad(const Params p) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < p.n; i += stride) {
        p.a[i] = p.b[i] + p.s * p.c[i];
    }
}
"#;

/// A dot product: grid-stride fold, warp shuffles, a shared-memory tree of warp partials, one
/// partial per block (the first pass of a deterministic two-pass reduction).
const DOT: &str = r#"
struct Params { const double* a; const double* b; double* partials; unsigned long long n; };
__device__ double warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void __launch_bounds__(1024) dot(const Params p) {
    __shared__ double warps[32];
    double acc = 0.0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < p.n; i += stride) {
        acc += p.a[i] * p.b[i];
    }
    acc = warp_sum(acc);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warps[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < (blockDim.x + 31) / 32 ? warps[lane] : 0.0;
        acc = warp_sum(acc);
        if (lane == 0) p.partials[blockIdx.x] = acc;
    }
}
"#;

/// A team kernel: league strided over the grid, threads on y and vector lanes on x, dynamic
/// shared scratch, a barrier, a broadcast (yAx's row times vector).
const TEAM: &str = r#"
struct Params { const double* A; const double* x; double* y; unsigned long long rows; unsigned long long cols; };
extern "C" __global__ void yax(const Params p) {
    extern __shared__ double scratch[];
    for (unsigned long long row = blockIdx.x; row < p.rows; row += gridDim.x) {
        double acc = 0.0;
        for (unsigned long long j = threadIdx.y * blockDim.x + threadIdx.x; j < p.cols; j += blockDim.x * blockDim.y) {
            acc += p.A[row * p.cols + j] * p.x[j];
        }
        for (int o = blockDim.x / 2; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o, blockDim.x);
        if (threadIdx.x == 0) scratch[threadIdx.y] = acc;
        __syncthreads();
        if (threadIdx.x == 0 && threadIdx.y == 0) {
            double s = 0.0;
            for (unsigned t = 0; t < blockDim.y; ++t) s += scratch[t];
            p.y[row] = s;
        }
        __syncthreads();
    }
}
"#;

#[test]
fn representative_kernels_compile_and_assemble_without_spills() {
    let Some(ptxas_path) = tools() else { return };
    let mut assembled = 0;
    for arch in [Arch::SM_90, Arch::SM_80] {
        for (name, src) in [("triad", TRIAD), ("dot", DOT), ("yax", TEAM)] {
            let ptx =
                compile_ptx(src, name, arch).unwrap_or_else(|e| panic!("{name} for {arch}: {e}"));
            assert!(ptx.contains(&format!(".entry {name}")), "{ptx}");
            let report = ptxas::assemble(&ptxas_path, &ptx, name, arch)
                .unwrap_or_else(|e| panic!("{name} for {arch}: {e}"));
            let f = report
                .iter()
                .find(|f| f.name == name)
                .unwrap_or_else(|| panic!("no ptxas report for {name}: {report:?}"));
            eprintln!(
                "{arch} {name}: {} registers, {} bytes stack, spills {}/{} bytes, {} bytes shared",
                f.registers, f.stack_frame, f.spill_stores, f.spill_loads, f.shared
            );
            assert!(f.registers > 0 && f.registers <= 255, "{f:?}");
            assert!(!f.spills(), "{name} spills on {arch}: {f:?}");
            assembled += 1;
        }
    }
    // The dot kernel's shared array is static: ptxas reports it.
    println!("NVRTC + ptxas: {assembled} kernels compiled and assembled");
    assert_eq!(assembled, 6);
}

#[test]
fn ptxas_refusing_ptx_is_a_compile_error() {
    let Some(ptxas_path) = tools() else { return };
    let e = ptxas::assemble(
        &ptxas_path,
        ".version 8.0\n.target sm_90\nnot ptx",
        "junk",
        Arch::SM_90,
    )
    .unwrap_err();
    assert!(matches!(e, rokkos_core::Error::Compile { .. }), "{e}");
}

/// The second of two processes compiling the same kernel finds it on disk and runs no NVRTC.
#[test]
fn a_second_process_compiles_nothing() {
    if std::env::var_os("ROKKOS_CUDA_CACHE_CHILD").is_some() {
        let image = cubin(TRIAD, "triad", Arch::SM_90).unwrap();
        println!(
            "child: {} bytes, {} NVRTC compiles",
            image.len(),
            nvrtc_compiles()
        );
        return;
    }
    if tools().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("rokkos-cuda-disk-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = || {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "a_second_process_compiles_nothing",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ROKKOS_CUDA_CACHE_CHILD", "1")
            .env(rokkos_cuda::compile::CACHE_DIR_ENV, &dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        text.lines()
            .find_map(|l| l.find("child:").map(|at| l[at..].to_string()))
            .unwrap_or_else(|| panic!("{text}"))
    };
    let first = run();
    let second = run();
    assert!(first.ends_with(" 1 NVRTC compiles"), "{first}");
    assert!(second.ends_with(" 0 NVRTC compiles"), "{second}");
    // The same image both times.
    assert_eq!(first.split(',').next(), second.split(',').next());
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(files.len(), 1, "one entry, no temporary files: {files:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The PTX instructions of entry `rk_main` in `ptx`: every statement of its body (directives and
/// labels excluded), and those on 64-bit integers (`.u64`, `.s64`, `.b64` and `mul.wide`, which
/// forms a 64-bit product).
fn entry_instructions(ptx: &str) -> (usize, usize) {
    let body = ptx
        .split(".entry rk_main")
        .nth(1)
        .and_then(|s| s.split(".entry ").next())
        .unwrap_or("");
    let insts: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with("//"))
        .collect();
    let wide = insts
        .iter()
        .filter(|l| {
            [".u64", ".s64", ".b64", "mul.wide"]
                .iter()
                .any(|w| l.contains(w))
        })
        .count();
    (insts.len(), wide)
}

/// BabelStream's f32 triad and a 2-D five-point stencil over an MDRange, emitted in both index
/// variants: each is compiled by NVRTC and assembled by ptxas for sm_90 without spills, and the
/// 32-bit variant needs fewer 64-bit integer instructions than the 64-bit one (it keeps only
/// the pointer arithmetic 64-bit). The registers and instruction counts are printed.
#[test]
fn both_index_variants_of_triad_and_a_stencil_assemble() {
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{Access, Kernel, WorkKind};
    use rokkos_cuda::emit::{emit, CudaOptions, Entry, IndexWidth};
    let Some(ptxas) = tools() else { return };
    let mut kb = KernelBuilder::new("triad", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f32>("a", 1, Access::Writable);
    let b = kb.view::<f32>("b", 1, Access::ReadOnly);
    let c = kb.view::<f32>("c", 1, Access::ReadOnly);
    let s = kb.scalar::<f32>("s");
    kb.store(a, i.clone(), b.load(i.clone()) + s.get() * c.load(i));
    let triad = kb.finish().unwrap();
    // out[i+1][j+1] = (in[i][j+1] + in[i+2][j+1] + in[i+1][j] + in[i+1][j+2]) / 4, over the
    // interior (the launch's MDRange covers 0..n-2 in each dimension).
    let mut kb = KernelBuilder::new("stencil2d", WorkKind::MDRange(2));
    let (i, j) = (kb.work_index(0), kb.work_index(1));
    let out = kb.view::<f64>("out", 2, Access::Writable);
    let inp = kb.view::<f64>("inp", 2, Access::ReadOnly);
    let (i1, j1) = (i.clone() + 1usize, j.clone() + 1usize);
    let sum = inp.load(vec![i.clone(), j1.clone()])
        + inp.load(vec![i + 2usize, j1.clone()])
        + inp.load(vec![i1.clone(), j.clone()])
        + inp.load(vec![i1.clone(), j + 2usize]);
    kb.store(out, vec![i1, j1], sum * 0.25f64);
    let stencil = kb.finish().unwrap();
    let figures = |k: &Kernel, width| {
        let info = rokkos_core::ir::valid::validate(k).unwrap();
        let opts = CudaOptions {
            entry: Entry::For,
            block: 256,
            bounds_checks: true,
            joins: Vec::new(),
            in_bounds: Default::default(),
            team: None,
            width,
        };
        let src = emit(k, &info, &opts).unwrap().source;
        let ptx = compile_ptx(&src, &k.name, Arch::SM_90).unwrap();
        let report = ptxas::assemble(&ptxas, &ptx, &k.name, Arch::SM_90).unwrap();
        let main = report.iter().find(|f| f.name == "rk_main").unwrap().clone();
        assert!(!main.spills(), "{}: {main:?}", k.name);
        let (insts, wide) = entry_instructions(&ptx);
        eprintln!(
            "{} {width:?}: {} registers, {insts} PTX instructions in rk_main, {wide} of them on 64-bit integers",
            k.name, main.registers
        );
        wide
    };
    for k in [&triad, &stencil] {
        let (w32, w64) = (figures(k, IndexWidth::W32), figures(k, IndexWidth::W64));
        assert!(w32 < w64, "{}: {w32} vs {w64} 64-bit instructions", k.name);
    }
}

/// The 2-D five-point stencil over the interior of its Views, with every check (the launch
/// proves nothing, or `ROKKOS_DEVICE_BOUNDS_CHECKS=all`) and with the accesses the interior
/// launch proves in bounds emitted unchecked: both assemble for sm_90 without spills, and the
/// proven variant has fewer PTX instructions (no compare and branch per access, no error record).
/// The registers and instruction counts are printed.
#[test]
fn the_proven_stencil_drops_its_checks() {
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{Access, WorkKind};
    use rokkos_cuda::emit::{emit, CudaOptions, Entry, IndexWidth};
    use rokkos_device::emit::inbounds::Proven;
    let Some(ptxas) = tools() else { return };
    let mut kb = KernelBuilder::new("five_point", WorkKind::MDRange(2));
    let (i, j) = (kb.work_index(0), kb.work_index(1));
    let out = kb.view::<f64>("out", 2, Access::Writable);
    let u = kb.view::<f64>("u", 2, Access::ReadOnly);
    let sum = u.load(vec![i.clone() - 1usize, j.clone()])
        + u.load(vec![i.clone() + 1usize, j.clone()])
        + u.load(vec![i.clone(), j.clone() - 1usize])
        + u.load(vec![i.clone(), j.clone() + 1usize])
        - u.load(vec![i.clone(), j.clone()]) * 4.0f64;
    kb.store(out, vec![i, j], sum);
    let k = kb.finish().unwrap();
    let info = rokkos_device::runtime::prepare::DeviceInfo::validate(&k).unwrap();
    let ext: &[usize] = &[1024, 1024];
    let interior = Proven::prove(&info.shifted, &[(1, 1023), (1, 1023)], &[ext, ext]);
    assert_eq!(interior.sites().len(), 6);
    // `i - 1` keeps the kernel out of the 32-bit variant (its width plan's decision).
    let exact32 = rokkos_device::emit::width::plan(&k).index32.is_ok();
    let widths = [IndexWidth::W64, IndexWidth::W32];
    for width in widths.into_iter().filter(|&w| exact32 || w == widths[0]) {
        let figures = |in_bounds: &Proven| {
            let opts = CudaOptions {
                entry: Entry::For,
                block: 256,
                bounds_checks: true,
                joins: Vec::new(),
                in_bounds: in_bounds.clone(),
                team: None,
                width,
            };
            let e = emit(&k, &info, &opts).unwrap();
            let ptx = compile_ptx(&e.source, &k.name, Arch::SM_90).unwrap();
            let report = ptxas::assemble(&ptxas, &ptx, &k.name, Arch::SM_90).unwrap();
            let main = report.iter().find(|f| f.name == "rk_main").unwrap().clone();
            assert!(!main.spills(), "{main:?}");
            let (insts, _) = entry_instructions(&ptx);
            (main.registers, insts, e.may_fail)
        };
        let (checked, proven) = (figures(&Proven::NONE), figures(&interior));
        eprintln!(
            "five_point {width:?}: checked {} registers, {} PTX instructions; proven {} registers, {} PTX instructions",
            checked.0, checked.1, proven.0, proven.1
        );
        assert!(
            checked.2 && !proven.2,
            "only the checked variant records errors"
        );
        assert!(proven.1 < checked.1, "{proven:?} vs {checked:?}");
    }
}

/// A team kernel emitted in both index variants (row sums of a matrix in level-0 team scratch:
/// a thread range staging the row, a barrier, a team-vector reduction, a team `single`):
/// each is compiled by NVRTC and assembled by ptxas for sm_90 without spills, and the 32-bit
/// variant needs fewer 64-bit integer instructions than the 64-bit one. The registers and
/// instruction counts are printed.
#[test]
fn both_index_variants_of_a_team_kernel_assemble() {
    use rokkos_core::ir::build::{Expr, KernelBuilder};
    use rokkos_core::ir::{
        Access, NestedKind, ReducerKind, ScratchScope, SingleKind, TeamQuery, WorkKind,
    };
    use rokkos_cuda::emit::{emit, CudaOptions, Entry, IndexWidth, TeamShape};
    let Some(ptxas) = tools() else { return };
    let mut kb = KernelBuilder::new("team_row_sums", WorkKind::Team);
    let a = kb.view::<f32>("a", 2, Access::ReadOnly);
    let out = kb.view::<f32>("out", 1, Access::Writable);
    let lr = kb.team_query(TeamQuery::LeagueRank);
    let r = kb.let_::<usize>("r", lr);
    let n = kb.let_::<usize>("n", a.extent(1));
    let row = kb.scratch::<f32>(0, ScratchScope::Team, vec![n.get()]);
    let j = kb.nested_for(NestedKind::Thread, "j", Expr::lit(0usize), n.get());
    kb.store(row, j.get(), a.load((r.get(), j.get())));
    kb.end();
    kb.barrier();
    let s = kb.nested_reduce::<f32>(
        NestedKind::TeamVector,
        "s",
        Expr::lit(0usize),
        n.get(),
        ReducerKind::Sum,
    );
    kb.assign(s.acc, s.acc.get() + row.load(s.index.get()));
    kb.end();
    kb.single(SingleKind::Team);
    kb.store(out, r.get(), s.result.get());
    kb.end();
    let k = kb.finish().unwrap();
    assert_eq!(rokkos_device::emit::width::plan(&k).index32, Ok(()));
    let info = rokkos_core::ir::valid::validate(&k).unwrap();
    let figures = |width| {
        let opts = CudaOptions {
            entry: Entry::For,
            block: 256,
            bounds_checks: true,
            joins: Vec::new(),
            in_bounds: Default::default(),
            team: Some(TeamShape { team: 8, vlen: 32 }),
            width,
        };
        let src = emit(&k, &info, &opts).unwrap().source;
        let ptx = compile_ptx(&src, &k.name, Arch::SM_90).unwrap();
        let report = ptxas::assemble(&ptxas, &ptx, &k.name, Arch::SM_90).unwrap();
        let main = report.iter().find(|f| f.name == "rk_main").unwrap().clone();
        assert!(!main.spills(), "{width:?}: {main:?}");
        let (insts, wide) = entry_instructions(&ptx);
        eprintln!(
            "{} {width:?}: {} registers, {insts} PTX instructions in rk_main, {wide} of them on 64-bit integers",
            k.name, main.registers
        );
        wide
    };
    let (w32, w64) = (figures(IndexWidth::W32), figures(IndexWidth::W64));
    assert!(w32 < w64, "{w32} vs {w64} 64-bit instructions");
}
