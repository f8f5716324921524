//! Compiled pipelines: the kernels' and the partials joins', and how a WGSL module becomes one.
//! Plain data and one constructor, below the device context that caches them.

use crate::emit::join::JoinModule;
use crate::params::{ParamField, ParamsLayout};
use rokkos_core::{Error, Result};

/// A compiled kernel: pipeline, the layout of its bind group, and its parameter block layout.
pub(crate) struct Compiled {
    pub pipeline: wgpu::ComputePipeline,
    pub bind_layout: wgpu::BindGroupLayout,
    pub params: ParamsLayout,
    /// [`crate::emit::Emitted::may_fail`].
    pub may_fail: bool,
    /// Where `launch::fill_args` writes each argument (see `launch::arg_slots`).
    pub args: Vec<Option<ParamField>>,
    /// How the View arguments are bound ([`crate::emit::EmitOptions::splits`]).
    pub splits: Vec<crate::emit::Split>,
}

/// A compiled partials join.
pub(crate) struct JoinPipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub bind_layout: wgpu::BindGroupLayout,
    pub module: JoinModule,
    pub wg: u32,
}

/// Compiles `source` (entry point `main`) with an explicit bind group layout: binding 0 a uniform
/// parameter block bound at a dynamic offset, then storage buffers, read-only as `read_only[b]`
/// says. A WGSL or driver error is `Error::Compile` naming `name`.
pub(crate) fn build_pipeline(
    device: &wgpu::Device,
    cache: Option<&wgpu::PipelineCache>,
    name: &str,
    source: String,
    read_only: &[bool],
) -> Result<(wgpu::ComputePipeline, wgpu::BindGroupLayout)> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(name),
        source: wgpu::ShaderSource::Wgsl(source.clone().into()),
    });
    // An explicit layout: every declared binding is in it, used by the shader or not.
    let entries: Vec<wgpu::BindGroupLayoutEntry> = read_only
        .iter()
        .enumerate()
        .map(|(b, &read_only)| wgpu::BindGroupLayoutEntry {
            binding: b as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: if b == 0 {
                    wgpu::BufferBindingType::Uniform
                } else {
                    wgpu::BufferBindingType::Storage { read_only }
                },
                // The parameter block sits at a different offset of an arena for each launch.
                has_dynamic_offset: b == 0,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(name),
        entries: &entries,
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(name),
        bind_group_layouts: &[Some(&bind_layout)],
        immediate_size: 0,
    });
    let pl = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(name),
        layout: Some(&layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::Compile {
            backend: super::ctx::BACKEND.into(),
            kernel: name.to_string(),
            log: e.to_string(),
            source_code: source,
        });
    }
    Ok((pl, bind_layout))
}
