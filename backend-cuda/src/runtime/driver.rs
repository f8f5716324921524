//! The two libraries loaded at run time (libcuda, NVRTC): whether they are there, checked before
//! cudarc's first call into them (cudarc panics on a missing library or symbol), and how their
//! errors become rokkos errors.

use cudarc::driver::{sys as cu, DriverError};
use rokkos_core::Error;
use std::sync::OnceLock;

/// Backend name in errors.
pub(crate) const BACKEND: &str = "cuda";

/// The oldest driver this build's entry points exist in (cudarc's `cuda-13000` bindings name
/// CUDA 13.0 symbols, which an older libcuda lacks: cudarc would panic on the first of them).
const DRIVER_MIN: i32 = 13000;

/// `Err(BackendUnavailable)` with `reason`.
pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::BackendUnavailable {
        backend: BACKEND.into(),
        reason: reason.into(),
    }
}

/// libcuda is loadable, new enough, and initialised; else why not. Checked once per process.
pub(crate) fn driver() -> Result<(), Error> {
    static STATE: OnceLock<Result<(), String>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            // SAFETY: loads the shared library by name (its initialisers run, as for any user of
            // the driver) and unloads it again; no symbol is called.
            if !unsafe { cu::is_culib_present() } {
                return Err("libcuda (the NVIDIA driver library) is not installed or not on the loader path".into());
            }
            let mut version = 0;
            // SAFETY: `cuDriverGetVersion` exists in every libcuda and writes one int.
            unsafe { cu::cuDriverGetVersion(&mut version) }
                .result()
                .map_err(|e| format!("cuDriverGetVersion failed: {}", describe(e)))?;
            if version < DRIVER_MIN {
                return Err(format!(
                    "the driver supports CUDA {}.{}; rokkos-cuda needs 13.0 or newer",
                    version / 1000,
                    version % 1000 / 10
                ));
            }
            cudarc::driver::result::init().map_err(|e| match e.0 {
                cu::CUresult::CUDA_ERROR_NO_DEVICE => "no CUDA device".to_string(),
                _ => format!("cuInit failed: {}", describe(e)),
            })
        })
        .clone()
        .map_err(unavailable)
}

/// NVRTC is loadable: its version (major, minor), or why not. Checked once per process.
pub(crate) fn nvrtc() -> Result<(i32, i32), Error> {
    static STATE: OnceLock<Result<(i32, i32), String>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            use cudarc::nvrtc::sys as rtc;
            // SAFETY: as for libcuda above.
            if !unsafe { rtc::is_culib_present() } {
                return Err(
                    "NVRTC (libnvrtc.so.13) is not installed or not on the loader path (LD_LIBRARY_PATH)"
                        .into(),
                );
            }
            let (mut major, mut minor) = (0, 0);
            // SAFETY: `nvrtcVersion` exists in every NVRTC and writes two ints.
            unsafe { rtc::nvrtcVersion(&mut major, &mut minor) }
                .result()
                .map_err(|e| format!("nvrtcVersion failed: {e:?}"))?;
            Ok((major, minor))
        })
        .clone()
        .map_err(unavailable)
}

/// `NAME: description` of a driver error (falling back to the code when the driver cannot name it).
pub(crate) fn describe(e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned());
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(n), Ok(t)) => format!("{n}: {t}"),
        _ => format!("{:?}", e.0),
    }
}

/// A failed driver call `op` as the rokkos error that says what it means to the caller: no device
/// or a broken installation is `BackendUnavailable`, an unsupported request `Unsupported`, a
/// kernel that faulted `KernelFailed` (the context is then unusable, as CUDA makes it), anything
/// else `InvalidArgument` naming the call. Out-of-memory is mapped by the allocating caller, which
/// knows the label and size.
pub(crate) fn error(op: &str, e: DriverError) -> Error {
    use cu::CUresult as R;
    let what = format!("{op}: {}", describe(e));
    match e.0 {
        R::CUDA_ERROR_NO_DEVICE
        | R::CUDA_ERROR_INVALID_DEVICE
        | R::CUDA_ERROR_NOT_INITIALIZED
        | R::CUDA_ERROR_DEINITIALIZED
        | R::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
        | R::CUDA_ERROR_NO_BINARY_FOR_GPU
        | R::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => unavailable(what),
        R::CUDA_ERROR_NOT_SUPPORTED | R::CUDA_ERROR_NOT_PERMITTED => Error::Unsupported {
            backend: BACKEND.into(),
            feature: what,
        },
        R::CUDA_ERROR_ILLEGAL_ADDRESS
        | R::CUDA_ERROR_LAUNCH_FAILED
        | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
        | R::CUDA_ERROR_MISALIGNED_ADDRESS
        | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
        | R::CUDA_ERROR_INVALID_PC
        | R::CUDA_ERROR_HARDWARE_STACK_ERROR
        | R::CUDA_ERROR_ASSERT
        | R::CUDA_ERROR_LAUNCH_TIMEOUT => Error::KernelFailed {
            kernel: "(a kernel of this context)".into(),
            reason: format!("{what} (the CUDA context is unusable from now on)"),
        },
        _ => Error::InvalidArgument(format!("cuda: {what}")),
    }
}

/// Whether `e` is the driver's out-of-memory answer.
pub(crate) fn is_oom(e: &DriverError) -> bool {
    e.0 == cu::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}
