//! What becomes of a reduction's per-workgroup partials: joined on the device (down to a few for
//! the host, or to one written into the result View of `parallel_reduce_into`), read back, and
//! joined on the host in partial order.

use super::ctx::Ctx;
use super::launch::{read_fields, unsupported, wg_size};
use super::pipeline::{build_pipeline, JoinPipeline};
use super::pool::{Kind, Pooled};
use crate::emit::join::join_module;
use crate::params::storage_type;
use rokkos_core::ir::{AccField, Kernel, ScalarType, Value};
use rokkos_core::reducer::JoinKind;
use rokkos_core::{Error, Result};
use rokkos_device::runtime::reduce::{Columns, HOST_PARTIALS};
use std::sync::Arc;

/// The per-workgroup results of one reduction launch: one buffer per accumulator field, `count`
/// elements each (in the field's storage type).
pub(crate) struct Partials {
    pub bufs: Vec<Pooled>,
    pub count: u64,
}

impl Partials {
    /// Buffers for `count` partials of each of `fields`.
    pub(crate) fn new(ctx: &Ctx, fields: &[(AccField, ScalarType)], count: u64) -> Partials {
        let bufs = fields
            .iter()
            .map(|(_, t)| {
                let bytes = count as usize * storage_type(*t).size();
                super::pool::take(&ctx.pool, &ctx.device, Kind::Storage, bytes)
            })
            .collect();
        Partials { bufs, count }
    }
    /// The buffers, for binding.
    pub(crate) fn refs(&self) -> Vec<&Pooled> {
        self.bufs.iter().collect()
    }
}

/// How the partials of a kernel's accumulators are joined.
pub(crate) struct JoinSpec<'a> {
    /// The kernel (its accumulators' shapes).
    pub ir: &'a Kernel,
    /// The reducer's join per accumulator.
    pub joins: &'a [JoinKind],
    /// The reducer's identity, one value per accumulator field.
    pub init: &'a [Value],
}

/// The join pipeline for `spec`, compiled once per accumulator shape, reducer and workgroup size.
fn join_pipeline(ctx: &Ctx, spec: &JoinSpec<'_>) -> Result<Arc<JoinPipeline>> {
    // Two workgroup arrays' halves per field; fit the device's workgroup memory.
    let per_inv: u64 = spec
        .ir
        .acc_fields()
        .iter()
        .map(|(_, t)| 2 * t.size().max(4) as u64)
        .sum::<u64>()
        .max(1);
    let mem = ctx.limits.max_compute_workgroup_storage_size as u64;
    let mut wg = wg_size(ctx).next_power_of_two();
    while wg > 1 && wg as u64 * per_inv > mem {
        wg /= 2;
    }
    let module = join_module(spec.ir, spec.joins, wg).map_err(|e| match e {
        crate::emit::EmitError::Unsupported(f) => unsupported(f),
        crate::emit::EmitError::Mismatch(m) => Error::InvalidArgument(m),
    })?;
    if let Some(p) = ctx
        .join_pipelines
        .lock()
        .ok()
        .and_then(|m| m.get(&module.source).cloned())
    {
        return Ok(p);
    }
    let read_only: Vec<bool> = std::iter::once(true)
        .chain((0..module.fields).map(|_| true))
        .chain((0..module.fields).map(|_| false))
        .collect();
    let (pipeline, bind_layout) = build_pipeline(
        &ctx.device,
        ctx.pipeline_cache.as_ref().map(|(c, _)| c),
        "rokkos partials join",
        module.source.clone(),
        &read_only,
    )?;
    let jp = Arc::new(JoinPipeline {
        pipeline,
        bind_layout,
        module,
        wg,
    });
    // The first of two concurrent compilations stays (see `launch::pipeline`).
    let jp = match ctx.join_pipelines.lock() {
        Ok(mut m) => m.entry(jp.module.source.clone()).or_insert(jp).clone(),
        Err(_) => jp,
    };
    Ok(jp)
}

/// Encodes one join pass: `groups` workgroups fold `n` partials of `ins` into elements
/// `off .. off + groups` of `outs` (bound whole, or the `(offset, size)` bytes of `window`).
/// `lasting`: every buffer outlives the launch (its bind group may be cached); `defer`: more
/// work follows at once (see `Ctx::encode_with_params`).
#[allow(clippy::too_many_arguments)]
fn join_pass(
    ctx: &Ctx,
    jp: &JoinPipeline,
    init: &[Value],
    ins: &[&wgpu::Buffer],
    n: u64,
    outs: &[&wgpu::Buffer],
    window: Option<(u64, u64)>,
    off: u32,
    groups: u32,
    lasting: bool,
    defer: bool,
) -> Result<()> {
    let n =
        u32::try_from(n).map_err(|_| unsupported(format!("{n} reduction partials (over 2^32)")))?;
    let layout = &jp.module.params;
    let mut block = layout.block();
    layout.set_u32(&mut block, "n", n);
    layout.set_u32(&mut block, "stride", groups * jp.wg);
    layout.set_u32(&mut block, "off", off);
    for (i, v) in init.iter().enumerate() {
        layout.set(&mut block, &format!("init{i}"), *v);
    }
    let len = (block.len() as u64).div_ceil(16) * 16;
    ctx.encode_with_params(
        &mut block,
        None,
        false,
        defer,
        |enc, params, offset, pooled| {
            let make = || {
                let mut entries = vec![wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: params,
                        offset: 0,
                        size: std::num::NonZeroU64::new(len),
                    }),
                }];
                for (i, b) in ins.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: 1 + i as u32,
                        resource: b.as_entire_binding(),
                    });
                }
                for (i, b) in outs.iter().enumerate() {
                    let resource = match window {
                        None => b.as_entire_binding(),
                        Some((offset, size)) => {
                            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: b,
                                offset,
                                size: std::num::NonZeroU64::new(size),
                            })
                        }
                    };
                    entries.push(wgpu::BindGroupEntry {
                        binding: (1 + ins.len() + i) as u32,
                        resource,
                    });
                }
                ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("rokkos partials join"),
                    layout: &jp.bind_layout,
                    entries: &entries,
                })
            };
            let key = (
                jp as *const JoinPipeline as usize,
                std::iter::once(params.clone())
                    .chain(ins.iter().chain(outs).map(|b| (*b).clone()))
                    .collect(),
                Vec::new(),
            );
            // The key names buffers, not windows: a windowed bind group is not cached.
            let bg = ctx.bind_group(key, pooled && lasting && window.is_none(), make);
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&jp.pipeline);
            pass.set_bind_group(0, &bg, &[offset as u32]);
            pass.dispatch_workgroups(groups, 1, 1);
        },
    )
}

/// Joins `parts` on the device down to `target` partials (at most), returning the new ones, or
/// `parts` itself when it has no more than that already.
fn shrink(ctx: &Ctx, spec: &JoinSpec<'_>, parts: Partials, target: u64) -> Result<Partials> {
    if parts.count <= target {
        return Ok(parts);
    }
    let jp = join_pipeline(ctx, spec)?;
    let groups = parts.count.div_ceil(jp.wg as u64).min(target);
    let fields = spec.ir.acc_fields();
    let out = Partials::new(ctx, &fields, groups);
    let ins: Vec<&wgpu::Buffer> = parts.bufs.iter().map(|b| &**b).collect();
    let outs: Vec<&wgpu::Buffer> = out.bufs.iter().map(|b| &**b).collect();
    let lasting = parts.bufs.iter().chain(&out.bufs).all(Pooled::lasting);
    join_pass(
        ctx,
        &jp,
        spec.init,
        &ins,
        parts.count,
        &outs,
        None,
        0,
        groups as u32,
        lasting,
        true,
    )?;
    Ok(out)
}

/// The partials' values on the host, in order, after joining them on the device down to at most
/// [`HOST_PARTIALS`]. Waits for the device.
pub(crate) fn to_host(ctx: &Ctx, spec: &JoinSpec<'_>, parts: Partials) -> Result<Columns> {
    let parts = shrink(ctx, spec, parts, HOST_PARTIALS)?;
    let fields = spec.ir.acc_fields();
    let bufs: Vec<&wgpu::Buffer> = parts.bufs.iter().map(|b| &**b).collect();
    read_fields(ctx, &fields, &bufs, parts.count as usize)
}

/// Every one of `parts` on the host, in order, with no device join (the ordered-partials mode,
/// whose join is host code). Waits for the device.
pub(crate) fn read_all(ctx: &Ctx, ir: &Kernel, parts: &Partials) -> Result<Columns> {
    let bufs: Vec<&wgpu::Buffer> = parts.bufs.iter().map(|b| &**b).collect();
    read_fields(ctx, &ir.acc_fields(), &bufs, parts.count as usize)
}

/// Joins every partial into element `elem` of `dst` (an array of the single accumulator field's
/// storage type), on the device, without waiting.
pub(crate) fn into_element(
    ctx: &Ctx,
    spec: &JoinSpec<'_>,
    parts: Partials,
    dst: &wgpu::Buffer,
    elem: u32,
) -> Result<()> {
    // More than a workgroup can fold quickly are first joined by many workgroups.
    let parts = shrink(ctx, spec, parts, HOST_PARTIALS)?;
    let jp = join_pipeline(ctx, spec)?;
    let ins: Vec<&wgpu::Buffer> = parts.bufs.iter().map(|b| &**b).collect();
    // A View larger than one storage binding is bound as the aligned window holding the element.
    let (window, elem) = match spec.ir.acc_fields().as_slice() {
        [(_, t)] if dst.size() > ctx.binding_max => {
            let esize = storage_type(*t).size() as u64;
            let unit = u64::from(ctx.limits.min_storage_buffer_offset_alignment).max(esize);
            let start = u64::from(elem) * esize / unit * unit;
            let size = unit.min(dst.size() - start);
            (Some((start, size)), elem - (start / esize) as u32)
        }
        _ => (None, elem),
    };
    // A View's buffer lives on; its bind groups go when it is dropped (`forget_buffer`).
    let lasting = parts.bufs.iter().all(Pooled::lasting);
    join_pass(
        ctx,
        &jp,
        spec.init,
        &ins,
        parts.count,
        &[dst],
        window,
        elem,
        1,
        lasting,
        false,
    )
}
