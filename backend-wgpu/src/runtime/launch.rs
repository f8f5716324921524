//! Compiling (with an in-memory pipeline cache) and dispatching one kernel launch.

use super::ctx::{Ctx, BACKEND};
use super::memory::WgpuSpace;
use super::pipeline::{build_pipeline, Compiled};
use super::pool::{Kind, Pooled};
use crate::emit::{emit, EmitError, EmitOptions, Split};
use crate::params::{ParamField, ParamsLayout};
use rokkos_core::ir::{self, Access, Value};
use rokkos_core::kernel::KernelIr;
use rokkos_core::{Error, Result};
use rokkos_device::emit::width::{IndexWidth, Work};
use rokkos_device::runtime::prepare::DeviceInfo;
use rokkos_device::runtime::reduce::{decode_column, Columns};
use std::sync::Arc;

pub(crate) fn unsupported(feature: impl Into<String>) -> Error {
    Error::Unsupported {
        backend: BACKEND.into(),
        feature: feature.into(),
    }
}

/// Invocations per workgroup for range patterns.
pub(crate) fn wg_size(ctx: &Ctx) -> u32 {
    ctx.limits
        .max_compute_invocations_per_workgroup
        .clamp(1, 256)
}
/// A kernel's IR, validated, with its arguments (see `rokkos_device::runtime::prepare`).
pub(crate) type Prepared<'a> = rokkos_device::runtime::prepare::Prepared<'a, WgpuSpace>;

/// Builds (once per kernel type) and validates the IR and collects the arguments in IR parameter
/// order.
pub(crate) fn prepare<'a, K: KernelIr<Space = WgpuSpace>>(
    ctx: &Arc<Ctx>,
    kernel: &'a K,
) -> Result<Prepared<'a>> {
    let p = ctx
        .kernels
        .prepare(kernel, unsupported, |b| Arc::ptr_eq(&b.ctx, ctx))?;
    let Prepared {
        ir,
        info,
        hash,
        views,
        scalars,
    } = p;
    // Views of one allocation bind one buffer several times; wgpu refuses a buffer bound both
    // read-only and read-write in one dispatch, so such a read-only View is declared read-write
    // for this launch (a variant of the kernel with its own pipeline; it is never written).
    let alias_rw: Vec<usize> = (0..views.len())
        .filter(|&i| {
            ir.views[i].access == Access::ReadOnly
                && views.iter().enumerate().any(|(j, w)| {
                    j != i && w.writable && w.buffer.first() == views[i].buffer.first()
                })
        })
        .collect();
    let (ir, info, hash) = if alias_rw.is_empty() {
        (ir, info, hash)
    } else {
        let mut k = (*ir).clone();
        for &i in &alias_rw {
            k.views[i].access = Access::Writable;
        }
        let info = DeviceInfo::validate(&k)
            .map_err(|e| Error::InvalidArgument(format!("kernel IR rejected: {e}")))?;
        let hash = k.stable_hash();
        (Arc::new(k), Arc::new(info), hash)
    };
    Ok(Prepared {
        ir,
        info,
        hash,
        views,
        scalars,
    })
}

/// Whether every View argument's elements lie below element `u32::MAX` of its buffer, so that
/// the 32-bit address variant ([`EmitOptions::addr32`]) computes the same offsets.
pub(crate) fn addr32_ok(p: &Prepared<'_>) -> bool {
    p.addr32_ok()
}

/// The index width of this launch (`Prepared::index_width`, the decision every device backend
/// shares): the 32-bit variant when the kernel's plan or this launch's own proof allows it.
/// `work` is the policy's work space, `bounds` its bounds (begin and end of each dimension,
/// league and team sizes, scratch arenas). On a device without SHADER_INT64 a launch that needs
/// the 64-bit variant is `Err(Unsupported)` naming the feature, the kernel and why (for a proof
/// that depends on the sizes, the value that escapes for these).
pub(crate) fn index_width(
    ctx: &Ctx,
    p: &Prepared<'_>,
    work: Work,
    bounds: &[u64],
) -> Result<IndexWidth> {
    let c = p.index_width(work, bounds);
    if let Some(why) = &c.why_64 {
        if !ctx.caps.int64 {
            crate::emit::check_caps(&p.ir, &p.info, ctx.caps, Some(why)).map_err(|e| match e {
                EmitError::Unsupported(f) => unsupported(f),
                EmitError::Mismatch(m) => Error::InvalidArgument(m),
            })?;
        }
    }
    Ok(c.width)
}

/// How each View argument is bound ([`EmitOptions::splits`]): empty when every View's buffer fits
/// one storage binding (`Ctx::binding_max`), else per View one [`Split`], a larger one as
/// chunks of `2^shift` elements, the largest power of two whose bytes fit the limit. Such a chunk
/// is a whole number of 32-bit words and of the storage offset alignment (both powers of two
/// no larger than it), so each chunk's binding offset is valid and a packed `u8`/`u16` word never
/// straddles two chunks. A limit too small for one aligned chunk is `Err(Unsupported)`.
/// A View held in several buffers is always split (each is larger than a binding), and its
/// chunks divide its segments (`runtime::segments`), so each chunk is bound from one of them.
pub(crate) fn splits(ctx: &Ctx, p: &Prepared<'_>) -> Result<Vec<Split>> {
    let max = ctx.binding_max;
    if p.views.iter().all(|v| v.buffer.size() <= max) {
        return Ok(Vec::new());
    }
    let align = u64::from(ctx.limits.min_storage_buffer_offset_alignment).max(4);
    p.views
        .iter()
        .zip(&p.ir.views)
        .map(|(v, param)| {
            let size = v.buffer.size();
            if size <= max {
                return Ok(Split::NONE);
            }
            let esize = param.elem.size() as u64;
            let elems = max / esize;
            let shift = elems.checked_ilog2().unwrap_or(0);
            let chunk = esize << shift;
            let chunks = u32::try_from(size.div_ceil(chunk)).ok();
            // Guaranteed by `Ctx::binding_max <= Ctx::buffer_max` for the power-of-two element
            // sizes; checked so that no chunk could ever be bound across two segments.
            let fits_segments = v.buffer.segs.len() == 1 || v.buffer.layout.seg % chunk == 0;
            match chunks {
                Some(chunks) if elems > 0 && chunk >= align && fits_segments => {
                    Ok(Split { chunks, shift })
                }
                _ => Err(unsupported(format!(
                    "View `{}` of kernel `{}` ({size} bytes): a storage binding of at most {max} \
                     bytes cannot hold one chunk of whole elements aligned to the device's \
                     {align}-byte min_storage_buffer_offset_alignment",
                    param.name, p.ir.name
                ))),
            }
        })
        .collect()
}

/// `(offset, size)` in bytes of each chunk binding of a buffer of `buf_size` bytes split as
/// `split` (elements of `esize` bytes) from chunk `base` on: full chunks, the buffer's last one
/// shorter (a windowed launch binds `split.chunks` of them from its window's first,
/// `runtime::window`; every other launch binds them all from 0).
pub(crate) fn chunk_ranges(buf_size: u64, esize: u64, split: Split, base: u32) -> Vec<(u64, u64)> {
    let chunk = esize << split.shift;
    let base = u64::from(base);
    (base..base + u64::from(split.chunks))
        .map(|j| (j * chunk, chunk.min(buf_size.saturating_sub(j * chunk))))
        .collect()
}

/// Environment variable naming a folder into which every newly compiled kernel's WGSL is written
/// (`<kernel>-<IR hash>.wgsl`), for debugging and reading what the emitter made.
pub const DUMP_ENV: &str = "ROKKOS_WGPU_DUMP";

fn dump(dir: &std::path::Path, ir: &ir::Kernel, source: &str) {
    let path = dir.join(format!("{}-{:016x}.wgsl", ir.name, ir.stable_hash()));
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, source));
    if let Err(e) = written {
        eprintln!("rokkos-wgpu: cannot write {}: {e}", path.display());
    }
}

/// The parameter-block field of each argument, in the order [`fill_args`] writes them: per View
/// its offset, then extent and stride per dimension; then the scalars; then the initial
/// accumulator values. Computed once per compiled kernel, so a launch looks up no field by name.
fn arg_slots(k: &ir::Kernel, layout: &ParamsLayout) -> Vec<Option<ParamField>> {
    let mut names = Vec::new();
    for (i, v) in k.views.iter().enumerate() {
        names.push(format!("v{i}_off"));
        for d in 0..v.rank {
            names.push(format!("v{i}_e{d}"));
            names.push(format!("v{i}_s{d}"));
        }
    }
    names.extend((0..k.scalars.len()).map(|i| format!("s{i}")));
    names.extend((0..k.acc_fields().len()).map(|i| format!("init{i}")));
    names
        .iter()
        .map(|n| layout.fields.iter().find(|f| &f.name == n).cloned())
        .collect()
}

/// The compiled kernel for `opts`, from the cache (keyed by IR hash and options) or compiled now.
/// A cache hit costs no WGSL emission.
pub(crate) fn pipeline(ctx: &Ctx, p: &Prepared<'_>, opts: &EmitOptions) -> Result<Arc<Compiled>> {
    let key = (p.hash, opts.clone());
    if let Some(c) = ctx.pipelines.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(c);
    }
    // A launch that can run as windows has been fitted already (`window::fit`); this refuses
    // any other whose bindings exceed the device's, saying why it cannot.
    super::window::fit(
        ctx,
        p,
        &mut opts.clone(),
        super::window::not_windowed(&p.ir),
    )?;
    let emitted = emit(&p.ir, &p.info, opts, ctx.caps).map_err(|e| match e {
        EmitError::Unsupported(f) => unsupported(f),
        EmitError::Mismatch(m) => Error::InvalidArgument(m),
    })?;
    if let Some(dir) = std::env::var_os(DUMP_ENV) {
        dump(std::path::Path::new(&dir), &p.ir, &emitted.source);
    }
    let (pl, bind_layout) = build_pipeline(
        &ctx.device,
        ctx.pipeline_cache.as_ref().map(|(c, _)| c),
        &p.ir.name,
        emitted.source,
        &emitted.read_only,
    )?;
    let compiled = Arc::new(Compiled {
        pipeline: pl,
        bind_layout,
        args: arg_slots(&p.ir, &emitted.params),
        params: emitted.params,
        may_fail: emitted.may_fail,
        splits: opts.splits.clone(),
    });
    // Two threads may compile the same kernel at once: the first entry stays, so that every
    // launch uses one `Compiled`, whose address keys its cached bind groups (a dropped duplicate's
    // address could be reused by another kernel and find bind groups made for this one's layout).
    let compiled = match ctx.pipelines.lock() {
        Ok(mut m) => m.entry(key).or_insert(compiled).clone(),
        Err(_) => compiled,
    };
    ctx.save_pipeline_cache();
    Ok(compiled)
}

/// Fills the View and scalar fields of a parameter block, and the initial accumulator values.
pub(crate) fn fill_args(c: &Compiled, block: &mut [u8], p: &Prepared<'_>, init: &[Value]) {
    let mut slots = c.args.iter();
    let mut put = |v: Value| {
        if let Some(Some(f)) = slots.next() {
            ParamsLayout::put(block, f, v);
        }
    };
    for v in p.views.iter() {
        put(Value::U64(v.offset as u64));
        for d in 0..v.extents.len() {
            put(Value::U64(v.extents[d] as u64));
            put(Value::U64(v.strides[d] as u64));
        }
    }
    for s in p.scalars.iter().chain(init) {
        put(*s);
    }
}

/// Encodes one dispatch of `groups` workgroups (folded into a 2-D grid past the per-dimension
/// limit); `set` fills the work fields of the parameter block. `defer`: see
/// [`Ctx::encode_with_params`]. Split Views are bound in all their chunks.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dispatch(
    ctx: &Ctx,
    p: &Prepared<'_>,
    c: &Compiled,
    init: &[Value],
    groups: u64,
    extra: &[&Pooled],
    defer: bool,
    set: impl FnOnce(&ParamsLayout, &mut [u8]),
) -> Result<()> {
    dispatch_window(ctx, p, c, init, groups, extra, defer, &[], set)
}

/// [`dispatch`] binding each split View's chunks from its entry of `bases` on (one window of a
/// windowed launch, `runtime::window`; an empty `bases` binds every chunk from 0). The bases
/// are also the block's `v{k}_base` fields, from which the accessors number the bound chunks.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dispatch_window(
    ctx: &Ctx,
    p: &Prepared<'_>,
    c: &Compiled,
    init: &[Value],
    groups: u64,
    extra: &[&Pooled],
    defer: bool,
    bases: &[u32],
    set: impl FnOnce(&ParamsLayout, &mut [u8]),
) -> Result<()> {
    let (gx, gy) = fold(ctx, groups)?;
    let layout = &c.params;
    let mut block = layout.block();
    let base = |k: usize| bases.get(k).copied().unwrap_or(0);
    // Only a launch that can record an error needs a number (to describe the error, and to pick
    // its error record), given when it is encoded; the block of one that cannot is then the same
    // at every launch with the same arguments, and stays resident on the device (see
    // `Ctx::encode_with_params`).
    let record = c.may_fail.then(|| p.launch_record());
    fill_args(c, &mut block, p, init);
    for k in 0..p.views.len() {
        if crate::emit::split_of(&c.splits, k).is_some() {
            layout.set_u32(&mut block, &format!("v{k}_base"), base(k));
        }
    }
    set(layout, &mut block);
    let set_launch = |b: &mut [u8], id: u32| layout.set_u32(b, "launch", id);
    let len = (block.len() as u64).div_ceil(16) * 16;
    let record = record.map(|r| (r, &set_launch as &dyn Fn(&mut [u8], u32)));
    ctx.encode_with_params(
        &mut block,
        record,
        c.may_fail,
        defer,
        |enc, params, offset, pooled| {
            let make = || {
                let mut entries = vec![
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: params,
                            offset: 0,
                            size: std::num::NonZeroU64::new(len),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: ctx.err_buf.as_entire_binding(),
                    },
                ];
                for (k, v) in p.views.iter().enumerate() {
                    match crate::emit::split_of(&c.splits, k) {
                        // Not split: within one binding, so one buffer (`splits`).
                        None => entries.push(wgpu::BindGroupEntry {
                            binding: entries.len() as u32,
                            resource: v.buffer.first().as_entire_binding(),
                        }),
                        Some(sp) => {
                            let esize = p.ir.views[k].elem.size() as u64;
                            for (at, size) in chunk_ranges(v.buffer.size(), esize, sp, base(k)) {
                                // `splits` checked that chunks divide segments.
                                let (buffer, offset) =
                                    v.buffer.within(at, size).unwrap_or((v.buffer.first(), at));
                                entries.push(wgpu::BindGroupEntry {
                                    binding: entries.len() as u32,
                                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                        buffer,
                                        offset,
                                        size: std::num::NonZeroU64::new(size),
                                    }),
                                });
                            }
                        }
                    }
                }
                for b in extra.iter() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: entries.len() as u32,
                        resource: b.as_entire_binding(),
                    });
                }
                ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &c.bind_layout,
                    entries: &entries,
                })
            };
            // Launches whose buffers live on (Views, pooled parameter arenas and scratch) reuse
            // bind groups; a buffer made for the one launch (a large one) makes a new one. A
            // View's first buffer names its whole allocation (its other segments are fixed);
            // the bases name a window's chunks.
            let key = (
                c as *const Compiled as usize,
                std::iter::once(params.clone())
                    .chain(p.views.iter().map(|v| v.buffer.first().clone()))
                    .chain(extra.iter().map(|b| (***b).clone()))
                    .collect(),
                bases.to_vec(),
            );
            let lasting = extra.iter().all(|b| b.lasting());
            let bg = ctx.bind_group(key, pooled && lasting, make);
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&c.pipeline);
            pass.set_bind_group(0, &bg, &[offset as u32]);
            pass.dispatch_workgroups(gx, gy, 1);
        },
    )
}

/// Invocations a grid-stride dispatch runs at most: 2^24, far more than a GPU keeps resident,
/// and few enough that a launch stopping at its first failure leaves a CPU adapter (lavapipe)
/// little to start; each then runs at most 2^40 / 2^24 work items
/// (`rokkos_device::runtime::limits::ITEMS_MAX`), well inside `TRIPS_MAX`.
pub(crate) const GRID_INVOCATIONS: u64 = 1 << 24;

/// The workgroups of `wg` invocations a grid-stride dispatch takes for work that one workgroup
/// per `groups` would cover: at most [`GRID_INVOCATIONS`] invocations, at least one workgroup.
pub(crate) fn grid_groups(groups: u64, wg: u32) -> u64 {
    groups
        .min((GRID_INVOCATIONS / u64::from(wg.max(1))).max(1))
        .max(1)
}

/// `groups` as a `(x, y)` grid within the per-dimension limit.
pub(crate) fn fold(ctx: &Ctx, groups: u64) -> Result<(u32, u32)> {
    let lim = ctx.limits.max_compute_workgroups_per_dimension.max(1) as u64;
    if groups <= lim {
        return Ok((groups as u32, 1));
    }
    let gy = groups.div_ceil(lim);
    if gy > lim {
        return Err(unsupported(format!(
            "{groups} workgroups (more than {lim} x {lim})"
        )));
    }
    Ok((groups.div_ceil(gy) as u32, gy as u32))
}

/// A scratch buffer of at least `bytes` bytes from the device's pool (contents undefined).
pub(crate) fn scratch_buffer(ctx: &Ctx, bytes: usize) -> Pooled {
    super::pool::take(&ctx.pool, &ctx.device, Kind::Storage, bytes)
}
/// The values of `count` partials held in `bufs` (one buffer per accumulator field). Waits for
/// the device.
pub(crate) fn read_fields(
    ctx: &Ctx,
    fields: &[(ir::AccField, ir::ScalarType)],
    bufs: &[&wgpu::Buffer],
    count: usize,
) -> Result<Columns> {
    let regions: Vec<(&wgpu::Buffer, u64, u64)> = fields
        .iter()
        .zip(bufs)
        .map(|((_, t), b)| {
            (
                *b,
                0,
                (count * crate::params::storage_type(*t).size()).div_ceil(4) as u64 * 4,
            )
        })
        .collect();
    let all = ctx.read_regions(&regions)?;
    let fields = fields
        .iter()
        .zip(&all)
        .map(|((_, t), bytes)| {
            decode_column(*t, crate::params::storage_type(*t).size(), bytes, count)
        })
        .collect();
    Ok(Columns::new(count, fields))
}
