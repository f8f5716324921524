//! Choosing the execution space: at compile time through cargo features, at run time through
//! `ROKKOS_BACKEND` or a name ([`crate::Device`], or [`run_on`] for code generic over the space).

use rokkos_core::{Error, ExecutionSpace, Result};

/// The default host execution space: rayon when that feature is on, else serial (Kokkos'
/// `DefaultHostExecutionSpace`).
///
/// It stays a host space when a device backend (`wgpu`) is compiled in: code written against it
/// allocates host Views (`View::new`) and indexes them on the host, which a device memory space
/// does not allow, so switching its type would break that code at compile time. For Kokkos'
/// `DefaultExecutionSpace`, the space that runs on the GPU when there is one, use
/// [`crate::Device`].
#[cfg(feature = "rayon")]
pub type DefaultExecutionSpace = rokkos_rayon::Rayon;
/// The default host execution space: rayon when that feature is on, else serial.
#[cfg(not(feature = "rayon"))]
pub type DefaultExecutionSpace = rokkos_serial::Serial;

/// Names of the backends compiled into this build that can run kernels, in the order
/// [`crate::Device::new`] prefers them: device backends first (CUDA, then wgpu), then rayon,
/// then serial.
pub fn available_backends() -> &'static [&'static str] {
    const ALL: [(&str, bool); 4] = [
        ("cuda", cfg!(feature = "cuda")),
        ("wgpu", cfg!(feature = "wgpu")),
        ("rayon", cfg!(feature = "rayon")),
        ("serial", true),
    ];
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| ALL.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect())
}

/// Every backend name rokkos knows, compiled in or not.
pub const KNOWN_BACKENDS: [&str; 4] = ["serial", "rayon", "cuda", "wgpu"];

/// Code that is generic over the execution space, run on a space picked at run time. Most
/// programs need none of this: write them against [`crate::Device`] instead.
///
/// ```
/// use rokkos::{ExecutionSpace, SpaceVisitor};
/// struct Name;
/// impl SpaceVisitor for Name {
///     type Output = String;
///     fn visit<E: ExecutionSpace>(self, space: E) -> String { space.name().to_string() }
/// }
/// assert_eq!(rokkos::run_on("serial", Name).unwrap(), "serial");
/// assert!(rokkos::run_on("cobol", Name).is_err());
/// ```
pub trait SpaceVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the chosen space.
    fn visit<E: ExecutionSpace>(self, space: E) -> Self::Output;
}

/// `ROKKOS_BACKEND`, trimmed and lower-cased, checked: `None` when unset or blank,
/// `Err(InvalidArgument)` for a name rokkos does not know, `Err(BackendUnavailable)` for one not
/// compiled into this build.
pub(crate) fn env_backend() -> Result<Option<String>> {
    backend_from_env(std::env::var("ROKKOS_BACKEND").ok().as_deref())
}

/// [`env_backend`] for the variable's value `var`. Its errors say that the name came from
/// `ROKKOS_BACKEND`: a program that takes its own `--backend` flag otherwise reports a name the
/// user never typed there.
fn backend_from_env(var: Option<&str>) -> Result<Option<String>> {
    let name = match var {
        Some(v) if !v.trim().is_empty() => v.trim().to_lowercase(),
        _ => return Ok(None),
    };
    if available_backends().contains(&name.as_str()) {
        return Ok(Some(name));
    }
    Err(match not_available(&name) {
        Error::InvalidArgument(m) => Error::InvalidArgument(format!("ROKKOS_BACKEND: {m}")),
        Error::BackendUnavailable { backend, reason } => Error::BackendUnavailable {
            backend,
            reason: format!("{reason} (named by ROKKOS_BACKEND)"),
        },
        other => other,
    })
}

/// The error for a backend name that cannot run here: `Err(BackendUnavailable)` for a known
/// backend not compiled in, `Err(InvalidArgument)` for unknown names.
pub(crate) fn not_available(name: &str) -> Error {
    match name {
        n if KNOWN_BACKENDS.contains(&n) => Error::BackendUnavailable {
            backend: n.to_string(),
            reason: format!("not compiled in; enable the `{n}` cargo feature of rokkos"),
        },
        n => Error::InvalidArgument(format!(
            "unknown backend `{n}`; this build has: {}",
            available_backends().join(", ")
        )),
    }
}

/// The name of the backend [`crate::Device::new`] runs on: the one `ROKKOS_BACKEND` names (checked:
/// `Err` for unknown names or backends not compiled in), else the first of
/// [`available_backends`] that is usable here (wgpu only with an adapter).
pub fn selected_backend() -> Result<String> {
    match env_backend()? {
        Some(name) => Ok(name),
        None => crate::Device::new().map(|d| d.name().to_string()),
    }
}

/// Runs `visitor` on the backend called `name` (`serial`, `rayon`, `wgpu`, `cuda`).
/// `Err(BackendUnavailable)` when it is not compiled in or has no device, `Err(InvalidArgument)`
/// for unknown names.
pub fn run_on<V: SpaceVisitor>(name: &str, visitor: V) -> Result<V::Output> {
    match name {
        "serial" => Ok(visitor.visit(rokkos_serial::Serial)),
        #[cfg(feature = "rayon")]
        "rayon" => Ok(visitor.visit(rokkos_rayon::Rayon::new())),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(visitor.visit(rokkos_wgpu::Wgpu::new()?)),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(visitor.visit(rokkos_cuda::Cuda::new()?)),
        n => Err(not_available(n)),
    }
}

/// Runs `visitor` on the backend [`selected_backend`] names.
pub fn run_on_selected<V: SpaceVisitor>(visitor: V) -> Result<V::Output> {
    run_on(&selected_backend()?, visitor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rokkos_backend_errors_name_the_variable() {
        assert_eq!(backend_from_env(None).unwrap(), None);
        assert_eq!(backend_from_env(Some("  ")).unwrap(), None);
        assert_eq!(
            backend_from_env(Some(" Serial ")).unwrap(),
            Some("serial".to_string())
        );
        match backend_from_env(Some("garbage")) {
            Err(Error::InvalidArgument(m)) => {
                assert!(
                    m.starts_with("ROKKOS_BACKEND: unknown backend `garbage`"),
                    "{m}"
                )
            }
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
        // Known backends this build lacks (wgpu and cuda without their features).
        for b in KNOWN_BACKENDS
            .iter()
            .filter(|b| !available_backends().contains(b))
        {
            match backend_from_env(Some(b)) {
                Err(Error::BackendUnavailable { backend, reason }) => {
                    assert_eq!(&backend, b);
                    assert!(reason.ends_with("(named by ROKKOS_BACKEND)"), "{reason}");
                }
                other => panic!("expected BackendUnavailable for {b}, got {other:?}"),
            }
        }
    }
}
