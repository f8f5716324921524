//! CUDA C → NVRTC: PTX (what CI checks with `ptxas` for every kernel, no GPU needed) or a CUBIN
//! for the device's exact architecture (what launches load: the driver then JIT-compiles nothing).
//!
//! The options hold Rust's floating-point semantics: no fast math, IEEE division and square root,
//! denormals kept, and **no contraction** of `a * b + c` into a fused multiply-add (`--fmad=false`):
//! Rust never fuses, so CUDA results match the host backends bit for bit, and `mul_add` is the
//! explicit `fma`. For speed: `-default-device` (every helper a device function without
//! annotations), C++17, and code for the device's own `sm_XX`.

use super::driver::{self, BACKEND};
use cudarc::nvrtc::sys as rtc;
use rokkos_core::{Error, Result};
use std::ffi::{c_char, CStr, CString};

/// A GPU architecture, `sm_{major}{minor}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    /// Compute capability major version (9 for `sm_90`).
    pub major: u32,
    /// Compute capability minor version (0 for `sm_90`).
    pub minor: u32,
}

impl Arch {
    /// `sm_{major}{minor}`.
    pub const fn new(major: u32, minor: u32) -> Arch {
        Arch { major, minor }
    }
    /// `sm_90`: the H100.
    pub const SM_90: Arch = Arch::new(9, 0);
    /// `sm_80`: the A100.
    pub const SM_80: Arch = Arch::new(8, 0);
    /// Parses `"sm_90"` (or `"90"`).
    pub fn parse(s: &str) -> Option<Arch> {
        let d = s.strip_prefix("sm_").unwrap_or(s);
        let n: u32 = d.parse().ok()?;
        (d.len() >= 2).then(|| Arch::new(n / 10, n % 10))
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sm_{}{}", self.major, self.minor)
    }
}

/// The NVRTC options besides the architecture (see the module docs for why each).
pub const NVRTC_OPTIONS: &[&str] = &[
    "-default-device",
    "--std=c++17",
    "--fmad=false",
    "--ftz=false",
    "--prec-div=true",
    "--prec-sqrt=true",
];

/// The version of the NVRTC library found, `(major, minor)`, or `Err(BackendUnavailable)` naming
/// what is missing. Needs no GPU.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    driver::nvrtc()
}

/// What to take out of a compiled program.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Ptx,
    Cubin,
}

/// Compiles CUDA C `source` to PTX for `arch` (needs NVRTC, no GPU). `kernel` names the program
/// in errors. A refused source is `Err(Compile)` with NVRTC's log and the source.
///
/// ```no_run
/// use rokkos_cuda::compile::{compile_ptx, Arch};
/// let ptx = compile_ptx(r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }"#, "k", Arch::SM_90)?;
/// assert!(ptx.contains(".entry k"));
/// # Ok::<(), rokkos_core::Error>(())
/// ```
pub fn compile_ptx(source: &str, kernel: &str, arch: Arch) -> Result<String> {
    let bytes = compile(source, kernel, arch, Output::Ptx)?;
    String::from_utf8(bytes).map_err(|_| {
        compile_error(
            kernel,
            source,
            "NVRTC returned PTX that is not UTF-8".into(),
        )
    })
}

/// Compiles `source` for `arch` and returns the requested output (without its trailing NUL).
pub(crate) fn compile(source: &str, kernel: &str, arch: Arch, out: Output) -> Result<Vec<u8>> {
    driver::nvrtc()?;
    super::cache::count_compile();
    let c_source = CString::new(source)
        .map_err(|_| compile_error(kernel, source, "the source contains a NUL byte".into()))?;
    let c_name = CString::new(format!("{}.cu", kernel.replace('\0', "")))
        .map_err(|_| compile_error(kernel, source, "bad kernel name".into()))?;
    let fail =
        |what: &str, e: rtc::nvrtcResult| compile_error(kernel, source, format!("{what}: {e:?}"));
    let mut prog: rtc::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: both strings are NUL-terminated and outlive the call; no headers are passed.
    unsafe {
        rtc::nvrtcCreateProgram(
            &mut prog,
            c_source.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    }
    .result()
    .map_err(|e| fail("nvrtcCreateProgram", e.0))?;
    let program = Program(prog);
    let mut options: Vec<CString> =
        vec![CString::new(format!("--gpu-architecture={arch}")).expect("no NUL")];
    options.extend(
        NVRTC_OPTIONS
            .iter()
            .map(|o| CString::new(*o).expect("no NUL")),
    );
    let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: `program.0` is a live program; `ptrs` holds `ptrs.len()` NUL-terminated options that
    // outlive the call.
    let compiled = unsafe { rtc::nvrtcCompileProgram(program.0, ptrs.len() as i32, ptrs.as_ptr()) };
    if compiled != rtc::nvrtcResult::NVRTC_SUCCESS {
        let log = program.log().unwrap_or_default();
        return Err(compile_error(
            kernel,
            source,
            format!("{compiled:?}\n{log}"),
        ));
    }
    let (size_fn, get_fn): (SizeFn, GetFn) = match out {
        Output::Ptx => (rtc::nvrtcGetPTXSize, rtc::nvrtcGetPTX),
        Output::Cubin => (rtc::nvrtcGetCUBINSize, rtc::nvrtcGetCUBIN),
    };
    let mut size = 0usize;
    // SAFETY: a live, compiled program; `size` is written.
    unsafe { size_fn(program.0, &mut size) }
        .result()
        .map_err(|e| fail("getting the output size", e.0))?;
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds the `size` bytes NVRTC said it writes.
    unsafe { get_fn(program.0, buf.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| fail("getting the output", e.0))?;
    if out == Output::Ptx && buf.last() == Some(&0) {
        buf.pop();
    }
    Ok(buf)
}

/// `nvrtcGetPTXSize` / `nvrtcGetCUBINSize`.
type SizeFn = unsafe fn(rtc::nvrtcProgram, *mut usize) -> rtc::nvrtcResult;
/// `nvrtcGetPTX` / `nvrtcGetCUBIN`.
type GetFn = unsafe fn(rtc::nvrtcProgram, *mut c_char) -> rtc::nvrtcResult;

/// An NVRTC program, destroyed on drop.
struct Program(rtc::nvrtcProgram);

impl Program {
    /// The compilation log.
    fn log(&self) -> Option<String> {
        let mut size = 0usize;
        // SAFETY: a live program; `size` is written.
        unsafe { rtc::nvrtcGetProgramLogSize(self.0, &mut size) }
            .result()
            .ok()?;
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: `buf` holds the `size` bytes NVRTC writes (a NUL-terminated string).
        unsafe { rtc::nvrtcGetProgramLog(self.0, buf.as_mut_ptr() as *mut c_char) }
            .result()
            .ok()?;
        let text = CStr::from_bytes_until_nul(&buf).ok()?;
        Some(text.to_string_lossy().into_owned())
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `nvrtcCreateProgram`, destroyed once. A failure leaks the program.
        let _ = unsafe { rtc::nvrtcDestroyProgram(&mut self.0) };
    }
}

fn compile_error(kernel: &str, source: &str, log: String) -> Error {
    Error::Compile {
        backend: BACKEND.into(),
        kernel: kernel.to_string(),
        log,
        source_code: source.to_string(),
    }
}
