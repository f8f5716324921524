//! Assembling NVRTC's PTX with NVIDIA's `ptxas -v`, to check generated kernels on a machine
//! without a GPU: a kernel ptxas refuses is a rokkos bug, and its register count and spills say
//! whether it will run at speed. CI gets `ptxas` from the `nvidia-cuda-nvcc` wheel and names it in
//! [`PTXAS_ENV`]; without it, [`find`] says so and the checks are skipped.

use crate::compile::Arch;
use rokkos_core::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment variable naming the `ptxas` executable (else it is looked up on `PATH`).
pub const PTXAS_ENV: &str = "ROKKOS_PTXAS";

/// What ptxas reports for one entry function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionReport {
    /// The entry point's name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of stack frame per thread.
    pub stack_frame: u32,
    /// Bytes stored to local memory because registers ran out.
    pub spill_stores: u32,
    /// Bytes loaded back from local memory because registers ran out.
    pub spill_loads: u32,
    /// Bytes of static shared memory.
    pub shared: u32,
}

impl FunctionReport {
    /// Whether registers spilled to local memory.
    pub fn spills(&self) -> bool {
        self.spill_stores > 0 || self.spill_loads > 0
    }
}

/// The `ptxas` executable: [`PTXAS_ENV`], else `ptxas` on `PATH`; `Err(BackendUnavailable)`
/// when neither exists.
pub fn find() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(PTXAS_ENV).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(unavailable(format!(
                "{PTXAS_ENV}={} is not a file",
                p.display()
            )))
        };
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("ptxas"))
        .find(|p| p.is_file())
        .ok_or_else(|| unavailable(format!("ptxas not found on PATH and {PTXAS_ENV} is unset")))
}

/// Assembles `ptx` for `arch` with `ptxas -v` and returns its report per entry function.
/// `kernel` names the program in errors; a refusal is `Err(Compile)` with ptxas's output.
pub fn assemble(ptxas: &Path, ptx: &str, kernel: &str, arch: Arch) -> Result<Vec<FunctionReport>> {
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("rokkos-ptxas-{}-{seq}", std::process::id()));
    let (input, output) = (base.with_extension("ptx"), base.with_extension("cubin"));
    let io = |e: std::io::Error| unavailable(format!("running {}: {e}", ptxas.display()));
    std::fs::write(&input, ptx).map_err(io)?;
    let run = Command::new(ptxas)
        .arg("-v")
        .arg(format!("--gpu-name={arch}"))
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .output();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let out = run.map_err(io)?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(Error::Compile {
            backend: "cuda".into(),
            kernel: kernel.to_string(),
            log: format!("ptxas --gpu-name={arch}: {}\n{text}", out.status),
            source_code: ptx.to_string(),
        });
    }
    Ok(parse(&text))
}

/// The per-function figures in ptxas's `-v` output.
///
/// ```
/// let r = rokkos_cuda::ptxas::parse("ptxas info    : Compiling entry function 'triad' for 'sm_90'
/// ptxas info    : Function properties for triad
///     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
/// ptxas info    : Used 10 registers, used 0 barriers, 1024 bytes smem, 384 bytes cmem[0]
/// ");
/// assert_eq!(r.len(), 1);
/// assert_eq!((r[0].name.as_str(), r[0].registers, r[0].spill_loads, r[0].shared), ("triad", 10, 12, 1024));
/// assert!(r[0].spills());
/// ```
pub fn parse(text: &str) -> Vec<FunctionReport> {
    let mut out: Vec<FunctionReport> = Vec::new();
    // The figure before `unit` in `line` ("8 bytes stack frame" -> 8).
    let before = |line: &str, unit: &str| -> Option<u32> {
        let at = line.find(unit)?;
        line[..at]
            .split([',', ':'])
            .next_back()?
            .trim()
            .parse()
            .ok()
    };
    for line in text.lines() {
        let named = line
            .split_once("Compiling entry function '")
            .or_else(|| line.split_once("Function properties for "))
            .map(|(_, rest)| {
                rest.split(['\'', ' '])
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            });
        if let Some(name) = named {
            if out.last().is_none_or(|f| f.name != name) {
                out.push(FunctionReport {
                    name,
                    ..Default::default()
                });
            }
            continue;
        }
        let Some(f) = out.last_mut() else { continue };
        if line.contains("stack frame") {
            f.stack_frame = before(line, " bytes stack frame").unwrap_or(0);
            f.spill_stores = before(line, " bytes spill stores").unwrap_or(0);
            f.spill_loads = before(line, " bytes spill loads").unwrap_or(0);
        }
        if line.contains("Used ") && line.contains(" registers") {
            f.registers = line
                .split_once("Used ")
                .and_then(|(_, r)| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            f.shared = before(line, " bytes smem").unwrap_or(0);
        }
    }
    out
}

fn unavailable(reason: String) -> Error {
    Error::BackendUnavailable {
        backend: "cuda (ptxas)".into(),
        reason,
    }
}
