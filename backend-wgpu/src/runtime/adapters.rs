//! Which adapter rokkos takes, and why: every adapter wgpu finds is ranked by its graphics API
//! (Vulkan, Metal and DX12 before OpenGL), its kind of device (discrete before integrated before
//! virtual before CPU) and the shader capabilities rokkos kernels use (64-bit integers, f64,
//! 64-bit atomics); the first one is taken unless `ROKKOS_WGPU_ADAPTER` names another.
//!
//! wgpu's own `request_adapter` ranks by power preference only, so on a machine with Mesa's GL
//! driver and no Vulkan driver it may hand out an adapter that cannot run what another one could,
//! and it says nothing about what it skipped; [`adapters`] lists them all with the reason for
//! the choice.

/// Environment variable naming part of the adapter's name (case-insensitive) to take instead of
/// the best-ranked one.
pub const ADAPTER_ENV: &str = "ROKKOS_WGPU_ADAPTER";

/// Environment variable hiding shader capabilities of the adapter from rokkos, as if the adapter
/// lacked them: a comma-separated list of `int64`, `f64`, `atomic64`. A testing switch: it shows
/// on a machine with a capable adapter what a user of a smaller one gets (the kernels that need a
/// hidden capability answer `Err(Unsupported)` naming it).
pub const HIDE_ENV: &str = "ROKKOS_WGPU_HIDE";

/// What rokkos found about one adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name as the driver reports it.
    pub name: String,
    /// The graphics API it is reached through (`"Vulkan"`, `"Metal"`, `"Dx12"`, `"Gl"`, ...).
    pub api: String,
    /// The kind of device (`"DiscreteGpu"`, `"IntegratedGpu"`, `"VirtualGpu"`, `"Cpu"`, `"Other"`).
    pub device_type: String,
    /// The driver's name and version, when it reports them.
    pub driver: String,
    /// SHADER_INT64: 64-bit integers in shaders. Without them a kernel runs only through its
    /// 32-bit variant (indices proven to fit 32 bits, no 64-bit integer of its own: see
    /// `rokkos_device::emit::width`); the others answer `Err(Unsupported)` naming SHADER_INT64.
    pub int64: bool,
    /// SHADER_F64: `f64` values in kernels.
    pub f64: bool,
    /// SHADER_INT64_ATOMIC_ALL_OPS: atomics on 64-bit Views.
    pub atomic64: bool,
    /// The largest storage binding, in bytes (a View larger than this is refused today).
    pub max_storage_binding: u64,
    /// Whether [`crate::Wgpu::new`] takes (or took) this adapter.
    pub selected: bool,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let yes = |b: bool| if b { "yes" } else { "no" };
        write!(
            f,
            "{}{} ({}, {}; {}): int64 {}, f64 {}, atomic64 {}, storage binding {} MiB{}",
            if self.selected { "* " } else { "  " },
            self.name,
            self.api,
            self.device_type,
            if self.driver.is_empty() {
                "driver unnamed"
            } else {
                &self.driver
            },
            yes(self.int64),
            yes(self.f64),
            yes(self.atomic64),
            self.max_storage_binding >> 20,
            if self.int64 {
                ""
            } else {
                " (no int64: taken only with ROKKOS_WGPU_PARTIAL=1, then runs kernels whose indices fit 32 bits and that use no 64-bit integers)"
            }
        )
    }
}

/// Every adapter wgpu finds on this machine, best first, the one [`crate::Wgpu::new`] takes marked
/// [`AdapterSummary::selected`] (none is when `ROKKOS_WGPU_ADAPTER` matches no name). The
/// capabilities are the adapter's own, before `ROKKOS_WGPU_HIDE`.
///
/// ```no_run
/// for a in rokkos_wgpu::adapters() {
///     println!("{a}");
/// }
/// ```
pub fn adapters() -> Vec<AdapterSummary> {
    let instance = instance();
    let ranked = ranked(&instance);
    let pick = pick(&ranked).ok().map(|(i, _)| i);
    ranked
        .iter()
        .enumerate()
        .map(|(i, a)| summary(a, pick == Some(i)))
        .collect()
}

pub(crate) fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    // A buffer the driver's memory budget cannot hold is refused when it is made
    // (`runtime::budget`).
    desc.memory_budget_thresholds.for_resource_creation =
        Some(super::budget::MEMORY_BUDGET_PERCENT);
    wgpu::Instance::new(desc)
}

/// The adapter to open and a sentence saying why it was taken.
pub(crate) fn choose(instance: &wgpu::Instance) -> Result<(wgpu::Adapter, String), String> {
    let mut ranked = ranked(instance);
    let (i, why) = pick(&ranked)?;
    Ok((ranked.swap_remove(i), why))
}

/// The capabilities hidden by `ROKKOS_WGPU_HIDE`.
pub(crate) fn hidden_features() -> Result<wgpu::Features, String> {
    match std::env::var(HIDE_ENV) {
        Ok(list) => parse_hidden(&list),
        Err(_) => Ok(wgpu::Features::empty()),
    }
}

/// The capabilities a `ROKKOS_WGPU_HIDE`-style list names.
pub(crate) fn parse_hidden(list: &str) -> Result<wgpu::Features, String> {
    let mut hidden = wgpu::Features::empty();
    for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        hidden |= match word {
            // 64-bit atomics need 64-bit integers.
            "int64" => wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
            "f64" => wgpu::Features::SHADER_F64,
            "atomic64" => wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
            other => {
                return Err(format!(
                    "{HIDE_ENV}: unknown capability `{other}` (int64, f64, atomic64)"
                ))
            }
        };
    }
    Ok(hidden)
}

fn ranked(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    let mut all: Vec<wgpu::Adapter> =
        pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    // A stable sort keeps wgpu's own order among equals.
    all.sort_by_key(|a| rank(&a.get_info(), a.features()));
    all
}

/// Smaller is better: the graphics API first (a GL adapter is a last resort among real ones: no
/// 64-bit integers, smaller limits), then the kind of device, then the capabilities kernels may
/// need.
fn rank(info: &wgpu::AdapterInfo, features: wgpu::Features) -> (u8, u8, u8) {
    let api = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::BrowserWebGpu => 1,
        wgpu::Backend::Gl => 2,
        // wgpu's no-op backend (feature `noop`, measurement only) runs nothing: only when asked
        // for alone (`WGPU_BACKEND=noop`, as scripts/host_overhead.sh does).
        _ => 3,
    };
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let missing = [
        wgpu::Features::SHADER_INT64,
        wgpu::Features::SHADER_F64,
        wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
    ]
    .iter()
    .filter(|f| !features.contains(**f))
    .count() as u8;
    (api, kind, missing)
}

/// The index of the adapter to take in `ranked`, and why.
fn pick(ranked: &[wgpu::Adapter]) -> Result<(usize, String), String> {
    let names = || ranked.iter().map(|a| a.get_info().name).collect::<Vec<_>>();
    match std::env::var(ADAPTER_ENV) {
        Ok(want) if !want.is_empty() => {
            let w = want.to_lowercase();
            ranked
                .iter()
                .position(|a| a.get_info().name.to_lowercase().contains(&w))
                .map(|i| (i, format!("its name contains {ADAPTER_ENV}=`{want}`")))
                .ok_or_else(|| {
                    format!(
                        "no adapter name contains {ADAPTER_ENV}=`{want}` (adapters: {:?})",
                        names()
                    )
                })
        }
        _ if ranked.is_empty() => Err("no wgpu adapter on this machine".into()),
        _ => {
            let why = if ranked.len() == 1 {
                "the only adapter found".to_string()
            } else {
                format!(
                    "best of {} adapters {:?} by graphics API, device type and capabilities",
                    ranked.len(),
                    names()
                )
            };
            Ok((0, why))
        }
    }
}

fn summary(a: &wgpu::Adapter, selected: bool) -> AdapterSummary {
    let info = a.get_info();
    let f = a.features();
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    AdapterSummary {
        name: info.name,
        api: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        driver,
        int64: f.contains(wgpu::Features::SHADER_INT64),
        f64: f.contains(wgpu::Features::SHADER_F64),
        atomic64: f.contains(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS),
        max_storage_binding: a.limits().max_storage_buffer_binding_size,
        selected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(backend: wgpu::Backend, device_type: wgpu::DeviceType) -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: "a".into(),
            vendor: 0,
            device: 0,
            device_type,
            device_pci_bus_id: String::new(),
            driver: String::new(),
            driver_info: String::new(),
            backend,
            subgroup_min_size: 4,
            subgroup_max_size: 64,
            transient_saves_memory: None,
            limit_bucket: None,
        }
    }

    #[test]
    fn ranking_prefers_api_then_device_then_capabilities() {
        use wgpu::{Backend as B, DeviceType as D, Features as F};
        let all = F::SHADER_INT64 | F::SHADER_F64 | F::SHADER_INT64_ATOMIC_ALL_OPS;
        let mut v = [
            (
                "gl discrete",
                rank(&info(B::Gl, D::DiscreteGpu), F::empty()),
            ),
            ("vulkan cpu, all", rank(&info(B::Vulkan, D::Cpu), all)),
            (
                "vulkan discrete, no f64",
                rank(&info(B::Vulkan, D::DiscreteGpu), F::SHADER_INT64),
            ),
            (
                "metal integrated, all",
                rank(&info(B::Metal, D::IntegratedGpu), all),
            ),
            (
                "vulkan discrete, all",
                rank(&info(B::Vulkan, D::DiscreteGpu), all),
            ),
            ("noop", rank(&info(B::Noop, D::Other), all)),
        ];
        v.sort_by_key(|(_, r)| *r);
        let order: Vec<&str> = v.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            order,
            [
                "vulkan discrete, all",
                "vulkan discrete, no f64",
                "metal integrated, all",
                "vulkan cpu, all",
                "gl discrete",
                "noop"
            ]
        );
    }

    #[test]
    fn hide_list_parses_and_refuses_unknown_words() {
        use wgpu::Features as F;
        assert_eq!(parse_hidden(""), Ok(F::empty()));
        assert_eq!(parse_hidden(" f64 "), Ok(F::SHADER_F64));
        assert_eq!(
            parse_hidden("int64,f64"),
            Ok(F::SHADER_INT64 | F::SHADER_INT64_ATOMIC_ALL_OPS | F::SHADER_F64)
        );
        assert_eq!(
            parse_hidden("atomic64,"),
            Ok(F::SHADER_INT64_ATOMIC_ALL_OPS)
        );
        let e = parse_hidden("f64,fp16").unwrap_err();
        assert!(e.contains("`fp16`") && e.contains(HIDE_ENV), "{e}");
    }
}
