//! `parallel_scan` over a `RangePolicy`: reduce-then-scan in two device passes, the block prefixes
//! joined on the host in between (no inter-workgroup forward-progress assumption). A block is
//! one workgroup's worth of consecutive items; the blocks are strided over at most
//! `runtime::launch::GRID_INVOCATIONS` invocations, and their totals (one per block) must fit
//! one storage binding (`Err(Unsupported)` beyond: 2^33 `u32` items on lavapipe).
//!
//! A reducer whose join is host code (`Custom`) takes the **slow path** of
//! `rokkos_device::runtime::ordered` instead: no device join at all. The range is cut into at most
//! 64 Ki contiguous blocks; invocation `t` folds block `t` sequentially with `final == false`
//! (the ordered reduction's entry), the host joins the partials in block order into each
//! block's exclusive prefix and the total, uploads the prefixes, and invocation `t` replays block
//! `t` sequentially from its prefix with `final == true` ([`Entry::OrderedScan`]). Each item runs
//! twice, one thread per block (uncoalesced loads), and the launch waits for the device in the
//! middle: a built-in reducer is much faster.
//!
//! A scan whose split Views need more bindings than a shader stage has runs both passes as
//! consecutive windows of its range (`runtime::window`; the windows of the second pass are
//! those of the first, so one plan serves both): the first pass of every window, then the
//! host's join of all their block partials in range order (the prefixes of window `k`'s blocks
//! start from the total of windows `0..k`), then the second pass of every window. Every item
//! is joined in the order of the launch that is not windowed, so the prefixes and the total
//! are the same.

use crate::emit::{EmitOptions, Entry};
use crate::params::{storage_type, ParamsLayout};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::Prepared;
use crate::runtime::launch::{
    addr32_ok, dispatch_window, grid_groups, index_width, pipeline, prepare, scratch_buffer,
    splits, wg_size,
};
use crate::runtime::partials::{read_all, Partials};
use crate::runtime::reduction::plan_values;
use crate::runtime::window::{fit, Windowing};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{RangePolicy, Reducer, Result};
use rokkos_device::emit::width::{IndexWidth, Work};
use rokkos_device::runtime::ordered;
use rokkos_device::runtime::reduce::{decode_column, encode_column, to_value, Columns};
use std::sync::Arc;

/// The runs of a scan: `(begin, end, bases)` of each window, or the whole range with no bases
/// (every chunk bound) when the launch is not windowed.
type Runs = Vec<(u64, u64, Vec<u32>)>;

/// Fits the first pass's bindings (`runtime::window`), giving the second pass (`second`, whose
/// extra bindings are as many: one per accumulator field) the same chunks, and returns the
/// runs both passes take.
fn fit_passes(
    ctx: &Ctx,
    p: &Prepared<'_>,
    first: &mut EmitOptions,
    second: &mut EmitOptions,
    begin: u64,
    end: u64,
) -> Result<Runs> {
    let windows = fit(ctx, p, first, Windowing::Work(vec![(begin, end)]))?;
    second.splits = first.splits.clone();
    Ok(match windows {
        None => vec![(begin, end, Vec::new())],
        Some(ws) => ws.into_iter().map(|w| (w.begin, w.end, w.bases)).collect(),
    })
}

/// `parallel_scan` over `begin..end`: reduce-then-scan in two device passes with the block prefixes
/// joined on the host in between (no inter-workgroup forward-progress assumption).
pub(crate) fn run<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    kernel: &K,
    reducer: &Rd,
) -> Result<V> {
    let (begin, end) = (policy.begin(), policy.end());
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = plan_values(reducer, &fields)?;
    let wg = wg_size(ctx);
    let width = index_width(
        ctx,
        &p,
        Work::range(begin, end),
        &[begin as u64, end as u64],
    )?;
    let Some(joins) = joins else {
        return ordered_scan(ctx, policy, &p, wg, width, &init, reducer);
    };
    let mut o1 = EmitOptions {
        entry: Entry::ScanTotals,
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        in_bounds: p.proven(&[(begin, end)]),
        width,
        splits: splits(ctx, &p)?,
    };
    let mut o2 = EmitOptions {
        entry: Entry::ScanFinal,
        ..o1.clone()
    };
    let runs = fit_passes(ctx, &p, &mut o1, &mut o2, begin as u64, end as u64)?;
    let c1 = pipeline(ctx, &p, &o1)?;
    let c2 = pipeline(ctx, &p, &o2)?;
    let t = fields[0].1;
    let sz = storage_type(t).size();
    // Per run with work: its bounds, blocks, the blocks' totals (one per block, each run's in
    // one binding) and bases. Blocks are strided over a bounded grid of workgroups
    // (`emit::entry`), so the totals, not the grid, size the buffers.
    let passes: Vec<(u64, u64, u64, usize, &[u32])> = runs
        .iter()
        .filter(|(lo, hi, _)| hi > lo)
        .map(|(lo, hi, bases)| {
            let n = hi - lo;
            let blocks = n.div_ceil(wg as u64);
            let bytes = blocks.saturating_mul(sz as u64);
            if bytes > ctx.binding_max {
                return Err(crate::runtime::launch::unsupported(format!(
                    "a scan of {n} items: its {blocks} block totals of {sz} bytes pass the \
                     storage binding limit of {} bytes",
                    ctx.binding_max
                )));
            }
            Ok((*lo, n, blocks, blocks as usize, &bases[..]))
        })
        .collect::<Result<_>>()?;
    if passes.is_empty() {
        return Ok(reducer.init());
    }
    let set = |lo: u64, n: u64| {
        move |l: &ParamsLayout, b: &mut [u8]| {
            l.set_u64(b, "begin", lo);
            l.set_u64(b, "n", n);
        }
    };
    // Pass 1 of every run, then one read of all their block totals.
    let mut totals = Vec::with_capacity(passes.len());
    for &(lo, n, blocks, slots, bases) in &passes {
        let buf = scratch_buffer(ctx, slots * sz);
        dispatch_window(
            ctx,
            &p,
            &c1,
            &init,
            grid_groups(blocks, wg),
            &[&buf],
            true,
            bases,
            set(lo, n),
        )?;
        totals.push(buf);
    }
    let regions: Vec<(&wgpu::Buffer, u64, u64)> = passes
        .iter()
        .zip(&totals)
        .map(|(&(_, _, blocks, ..), buf)| {
            (&**buf, 0, (blocks as usize * sz).div_ceil(4) as u64 * 4)
        })
        .collect();
    let read = ctx.read_regions(&regions)?;
    // Each block's exclusive prefix, joined in range order across the runs.
    let mut acc = reducer.init();
    let mut vals = Vec::with_capacity(1);
    let mut prefixes = Vec::with_capacity(passes.len());
    for (&(_, _, blocks, slots, _), bytes) in passes.iter().zip(&read) {
        let tot = Columns::new(
            blocks as usize,
            vec![decode_column(t, sz, bytes, blocks as usize)],
        );
        let mut pre = vec![0u8; slots * sz];
        tot.for_each(|b, part| {
            vals.clear();
            acc.push_values(&mut vals);
            let bits = rokkos_device::runtime::reduce::storage_bits(vals[0]).to_le_bytes();
            pre[b * sz..(b + 1) * sz].copy_from_slice(&bits[..sz]);
            reducer.join(&mut acc, to_value::<V>(part)?);
            Ok(())
        })?;
        prefixes.push(pre);
    }
    // Every prefix buffer is written before any second pass is encoded (see `ordered_scan`).
    ctx.submit();
    let bufs: Vec<_> = prefixes
        .iter()
        .map(|pre| {
            let buf = scratch_buffer(ctx, pre.len());
            ctx.queue.write_buffer(&buf, 0, pre);
            buf
        })
        .collect();
    for (&(lo, n, blocks, _, bases), buf) in passes.iter().zip(&bufs) {
        dispatch_window(
            ctx,
            &p,
            &c2,
            &init,
            grid_groups(blocks, wg),
            &[buf],
            false,
            bases,
            set(lo, n),
        )?;
    }
    Ok(acc)
}

/// The slow path of a scan whose join is host code (see the module docs); returns the total.
fn ordered_scan<V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    policy: &RangePolicy<Wgpu>,
    p: &Prepared<'_>,
    wg: u32,
    width: IndexWidth,
    init: &[rokkos_core::ir::Value],
    reducer: &Rd,
) -> Result<V> {
    let (begin, end) = (policy.begin(), policy.end());
    let mut o1 = EmitOptions {
        entry: Entry::Ordered { left: false },
        wg,
        joins: Vec::new(),
        addr32: addr32_ok(p),
        in_bounds: p.proven(&[(begin, end)]),
        width,
        splits: splits(ctx, p)?,
    };
    let mut o2 = EmitOptions {
        entry: Entry::OrderedScan,
        ..o1.clone()
    };
    let runs = fit_passes(ctx, p, &mut o1, &mut o2, begin as u64, end as u64)?;
    let fold = pipeline(ctx, p, &o1)?;
    let replay = pipeline(ctx, p, &o2)?;
    let fields = p.ir.acc_fields();
    // Per run with work: its bounds, blocks, invocations' groups, bases, and the blocks'
    // partials.
    let mut passes = Vec::with_capacity(runs.len());
    for (lo, hi, bases) in &runs {
        let n = hi.saturating_sub(*lo);
        if n == 0 {
            continue;
        }
        let parts = ordered::blocks(n, ordered::ORDERED_PARTIALS);
        let groups = parts.div_ceil(wg as u64);
        let bufs = Partials::new(ctx, &fields, parts);
        let set = set_ordered(*lo, n, groups * wg as u64, parts);
        dispatch_window(ctx, p, &fold, init, groups, &bufs.refs(), true, bases, set)?;
        passes.push((*lo, n, parts, groups, &bases[..], bufs));
    }
    // Every block's exclusive prefix, joined in range order across the runs.
    let mut total = reducer.init();
    let mut prefixes = Vec::with_capacity(passes.len());
    for (.., bufs) in &passes {
        let (pre, acc) = ordered::scan_prefixes_from(&read_all(ctx, &p.ir, bufs)?, reducer, total)?;
        prefixes.push(pre);
        total = acc;
    }
    // Every prefix buffer is written before any replay is encoded: a queue write lands before
    // the commands not yet submitted, so a pooled buffer returned after one window's replay
    // was encoded and taken again for the next would be overwritten before that replay ran.
    ctx.submit();
    let pres: Vec<Vec<_>> = passes
        .iter()
        .zip(&prefixes)
        .map(|((_, _, parts, ..), cols)| {
            fields
                .iter()
                .zip(cols)
                .map(|((_, t), col)| {
                    let size = storage_type(*t).size();
                    let buf = scratch_buffer(ctx, *parts as usize * size);
                    ctx.queue.write_buffer(&buf, 0, &encode_column(col, size));
                    buf
                })
                .collect()
        })
        .collect();
    for ((lo, n, parts, groups, bases, _), pre) in passes.iter().zip(&pres) {
        let refs: Vec<_> = pre.iter().collect();
        let set = set_ordered(*lo, *n, groups * wg as u64, *parts);
        dispatch_window(ctx, p, &replay, init, *groups, &refs, false, bases, set)?;
    }
    Ok(total)
}

/// The work fields of an ordered pass over `n` items from `begin`, `parts` blocks folded by
/// `stride` invocations.
fn set_ordered(begin: u64, n: u64, stride: u64, parts: u64) -> impl Fn(&ParamsLayout, &mut [u8]) {
    move |l: &ParamsLayout, b: &mut [u8]| {
        l.set_u64(b, "begin", begin);
        l.set_u64(b, "n", n);
        l.set_u64(b, "stride", stride);
        l.set_u64(b, "parts", parts);
    }
}
