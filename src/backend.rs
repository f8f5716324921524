//! Choosing the execution space: at compile time through cargo features, at run time through
//! `ROKKOS_BACKEND` or a name.

use rokkos_core::{Error, ExecutionSpace, Result};

/// The default host execution space: rayon when that feature is on, else serial.
///
/// It stays a host space when a device backend (`wgpu`) is compiled in: code written against it
/// allocates host Views (`View::new`) and indexes them on the host, which a device memory space
/// does not allow, so switching its type would break that code at compile time. Device backends
/// are chosen at run time ([`run_on`], `ROKKOS_BACKEND`) by code generic over the execution space.
#[cfg(feature = "rayon")]
pub type DefaultExecutionSpace = rokkos_rayon::Rayon;
/// The default host execution space: rayon when that feature is on, else serial.
#[cfg(not(feature = "rayon"))]
pub type DefaultExecutionSpace = rokkos_serial::Serial;

/// Names of the backends compiled into this build, in the order [`selected_backend`] prefers
/// them: device backends (wgpu) first, then rayon, then serial.
pub fn available_backends() -> &'static [&'static str] {
    match (cfg!(feature = "wgpu"), cfg!(feature = "rayon")) {
        (true, true) => &["wgpu", "rayon", "serial"],
        (true, false) => &["wgpu", "serial"],
        (false, true) => &["rayon", "serial"],
        (false, false) => &["serial"],
    }
}

/// Every backend name rokkos knows, compiled in or not.
pub const KNOWN_BACKENDS: [&str; 4] = ["serial", "rayon", "cuda", "wgpu"];

/// Code that is generic over the execution space, run on a space picked at run time.
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

/// The backend named by `ROKKOS_BACKEND`, or the default one.
pub fn selected_backend() -> Result<String> {
    match std::env::var("ROKKOS_BACKEND") {
        Ok(name) if !name.trim().is_empty() => Ok(name.trim().to_lowercase()),
        _ => Ok(available_backends()[0].to_string()),
    }
}

/// Runs `visitor` on the backend called `name` (`serial`, `rayon`, `cuda`, `wgpu`).
/// `Err(BackendUnavailable)` when it is not compiled in, `Err(InvalidArgument)` for unknown names.
pub fn run_on<V: SpaceVisitor>(name: &str, visitor: V) -> Result<V::Output> {
    match name {
        "serial" => Ok(visitor.visit(rokkos_serial::Serial)),
        #[cfg(feature = "rayon")]
        "rayon" => Ok(visitor.visit(rokkos_rayon::Rayon::new())),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(visitor.visit(rokkos_wgpu::Wgpu::new()?)),
        n if KNOWN_BACKENDS.contains(&n) => Err(Error::BackendUnavailable {
            backend: n.to_string(),
            reason: format!("not compiled in; enable the `{n}` cargo feature of rokkos"),
        }),
        n => Err(Error::InvalidArgument(format!(
            "unknown backend `{n}`; this build has: {}",
            available_backends().join(", ")
        ))),
    }
}

/// Runs `visitor` on the backend [`selected_backend`] names.
pub fn run_on_selected<V: SpaceVisitor>(visitor: V) -> Result<V::Output> {
    run_on(&selected_backend()?, visitor)
}
