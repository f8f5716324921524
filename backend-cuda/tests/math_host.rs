//! The software f64 math library as the CUDA target emits it (`rokkos_device::emit::softmath`'s
//! IR functions through the CUDA walk, `rokkos_cuda::emit::f64_math_library`), tested without a
//! GPU:
//! - compiled by the host C++ compiler (`c++`, or `ROKKOS_CXX`) with `-O2 -ffp-contract=off
//!   -fno-fast-math` (IEEE arithmetic without contraction, as NVRTC compiles it), `__device__`
//!   defined empty and CUDA's bit-cast intrinsics defined for the host, then run on the inputs of
//!   the wgpu backend's `tests/math_f64.rs` (the same cases, bounds and check:
//!   `backend-wgpu/tests/support/math_f64_cases.rs`) against Rust's `std`;
//! - compiled by NVRTC for sm_90 and sm_80 and assembled by ptxas, one kernel per function.
//!
//! Without a host compiler, or without NVRTC and ptxas, the tests say so and pass, unless
//! `ROKKOS_REQUIRE_NVRTC=1` (CI sets it; `.ci/run` installs both).

use rokkos_core::ir::MathFn;
use rokkos_cuda::compile::{compile_ptx, nvrtc_version};
use rokkos_cuda::emit::f64_math_library;
use rokkos_cuda::ptxas;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

#[path = "../../backend-wgpu/tests/support/math_f64_cases.rs"]
mod cases;

/// The functions of the cases, by their number there.
const FUNCS: [MathFn; 18] = [
    MathFn::Sin,
    MathFn::Cos,
    MathFn::Tan,
    MathFn::Asin,
    MathFn::Acos,
    MathFn::Atan,
    MathFn::Sinh,
    MathFn::Cosh,
    MathFn::Tanh,
    MathFn::Exp,
    MathFn::Exp2,
    MathFn::Ln,
    MathFn::Log2,
    MathFn::Log10,
    MathFn::Cbrt,
    MathFn::Atan2,
    MathFn::Powf,
    MathFn::Hypot,
];

fn required() -> bool {
    std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1")
}

/// What the CUDA headers give the library and the module's fixed helpers, for the host (the
/// error record's atomics are plain operations: the host program is one thread).
const HOST_SHIMS: &str = "#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
static inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
static inline double __longlong_as_double(long long b) { double r; memcpy(&r, &b, 8); return r; }
static inline unsigned __float_as_uint(float x) { unsigned r; memcpy(&r, &x, 4); return r; }
static inline float __uint_as_float(unsigned b) { float r; memcpy(&r, &b, 4); return r; }
static inline unsigned atomicMax(unsigned* a, unsigned v) { unsigned o = *a; if (v > o) { *a = v; } return o; }
static inline unsigned atomicExch(unsigned* a, unsigned v) { unsigned o = *a; *a = v; return o; }
";

/// The host program: `prog F` reads lines `x y` (the bits, in hex) and writes `F(x, y)`'s bits.
fn program() -> String {
    let (lib, calls) = f64_math_library(&FUNCS).expect("the library lowers");
    let cases: String = calls
        .iter()
        .enumerate()
        .map(|(i, c)| format!("        case {i}: r = {c}; break;\n"))
        .collect();
    format!(
        "{HOST_SHIMS}{lib}
int main(int argc, char** argv) {{
    if (argc != 2) {{ return 2; }}
    const int f = atoi(argv[1]);
    unsigned long long a, b;
    while (scanf(\"%llx %llx\", &a, &b) == 2) {{
        const f64 x = __longlong_as_double((long long)a), y = __longlong_as_double((long long)b);
        f64 r = 0.0;
        switch (f) {{
{cases}        default: return 2;
        }}
        printf(\"%llx\\n\", (unsigned long long)__double_as_longlong(r));
    }}
    return 0;
}}
"
    )
}

/// The compiled host program, once per process; `None` (skip) without a compiler.
fn binary() -> Option<&'static PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let cxx = std::env::var("ROKKOS_CXX").unwrap_or_else(|_| "c++".into());
        let dir = std::env::temp_dir().join(format!("rokkos-math-host-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("math.cpp");
        std::fs::write(&src, program()).unwrap();
        let bin = dir.join("math");
        let out = Command::new(&cxx)
            .args([
                "-std=c++17",
                "-O2",
                "-ffp-contract=off",
                "-fno-fast-math",
                "-o",
            ])
            .arg(&bin)
            .arg(&src)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(bin),
            Ok(o) => panic!(
                "{cxx} refused the lowered library ({}):\n{}",
                src.display(),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) if required() => {
                panic!("ROKKOS_REQUIRE_NVRTC=1 but no host compiler `{cxx}`: {e}")
            }
            Err(e) => {
                eprintln!("skipping: no host compiler `{cxx}`: {e}");
                None
            }
        }
    })
    .as_ref()
}

/// Function `f` of the host program on `inputs`.
fn run(bin: &PathBuf, f: u8, inputs: &[(f64, f64)]) -> Vec<f64> {
    let mut child = Command::new(bin)
        .arg(f.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text: String = inputs
        .iter()
        .map(|(x, y)| format!("{:x} {:x}\n", x.to_bits(), y.to_bits()))
        .collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "host program failed for function {f}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| f64::from_bits(u64::from_str_radix(l, 16).unwrap()))
        .collect()
}

fn check_all(group: Vec<cases::Case>) {
    let Some(bin) = binary() else { return };
    for c in group {
        let got = run(bin, c.f, &c.inputs());
        cases::check(&c, &got, "cuda-c host");
    }
}

#[test]
fn trig() {
    check_all(cases::trig());
}
#[test]
fn inverse_trig() {
    check_all(cases::inverse_trig());
}
#[test]
fn atan2() {
    check_all(cases::atan2());
}
#[test]
fn hyperbolic() {
    check_all(cases::hyperbolic());
}
#[test]
fn exponentials() {
    check_all(cases::exponentials());
}
#[test]
fn logarithms() {
    check_all(cases::logarithms());
}
#[test]
fn cbrt() {
    check_all(cases::cbrt());
}
#[test]
fn hypot() {
    check_all(cases::hypot());
}
#[test]
fn powf() {
    check_all(cases::powf());
}

/// Each function's helpers, in one kernel, compiled by NVRTC for sm_90 and sm_80 and assembled by
/// ptxas.
#[test]
fn nvrtc_and_ptxas_compile_every_function() {
    let tools = nvrtc_version().and_then(|v| ptxas::find().map(|p| (v, p)));
    let ptxas_path = match tools {
        Ok((_, p)) => p,
        Err(e) if required() => panic!("ROKKOS_REQUIRE_NVRTC=1 but: {e}"),
        Err(e) => {
            eprintln!("skipping: {e}");
            return;
        }
    };
    for f in FUNCS {
        let (lib, calls) = f64_math_library(&[f]).expect("the library lowers");
        let src = format!(
            "{lib}\nextern \"C\" __global__ void rk_math(const f64* xs, const f64* ys, f64* out) {{\n    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n    const f64 x = xs[i], y = ys[i];\n    out[i] = {};\n}}\n",
            calls[0]
        );
        for arch in rokkos_cuda::check::ARCHS {
            let ptx = compile_ptx(&src, "rk_math", arch)
                .unwrap_or_else(|e| panic!("NVRTC refused `{}` for {arch:?}: {e}", f.name()));
            ptxas::assemble(&ptxas_path, &ptx, "rk_math", arch)
                .unwrap_or_else(|e| panic!("ptxas refused `{}` for {arch:?}: {e}", f.name()));
        }
    }
}
