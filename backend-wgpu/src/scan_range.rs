//! `parallel_scan` over a `RangePolicy`: reduce-then-scan in two device passes, the block prefixes
//! joined on the host in between (no inter-workgroup forward-progress assumption).
//!
//! A reducer whose join is host code (`Custom`) takes the **slow path** of
//! `rokkos_core::device::ordered` instead: no device join at all. The range is cut into at most
//! 64 Ki contiguous blocks; invocation `t` folds block `t` sequentially with `final == false`
//! (the ordered reduction's entry), the host joins the partials in block order into each
//! block's exclusive prefix and the total, uploads the prefixes, and invocation `t` replays block
//! `t` sequentially from its prefix with `final == true` ([`Entry::OrderedScan`]). Each item runs
//! twice, one thread per block (uncoalesced loads), and the launch waits for the device in the
//! middle: a built-in reducer is much faster.

use crate::emit::{EmitOptions, Entry};
use crate::params::{storage_type, ParamsLayout};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::Prepared;
use crate::runtime::launch::{
    addr32_ok, dispatch, fold, index_width, pipeline, prepare, read_fields, scratch_buffer, splits,
    wg_size,
};
use crate::runtime::partials::{read_all, Partials};
use crate::runtime::reduction::plan_values;
use crate::{Wgpu, WgpuSpace};
use rokkos_core::device::ordered;
use rokkos_core::device::reduce::{encode_column, to_value};
use rokkos_core::emit::width::{IndexWidth, Work};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{RangePolicy, Reducer, Result};
use std::sync::Arc;

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
    let o1 = EmitOptions {
        entry: Entry::ScanTotals,
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        in_bounds: p.proven(&[(begin, end)]),
        width,
        splits: splits(ctx, &p)?,
    };
    let o2 = EmitOptions {
        entry: Entry::ScanFinal,
        wg,
        joins,
        addr32: addr32_ok(&p),
        in_bounds: p.proven(&[(begin, end)]),
        width,
        splits: splits(ctx, &p)?,
    };
    let c1 = pipeline(ctx, &p, &o1)?;
    let c2 = pipeline(ctx, &p, &o2)?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(reducer.init());
    }
    let blocks = n.div_ceil(wg as u64);
    let (gx, gy) = fold(ctx, blocks)?;
    let slots = gx as usize * gy as usize;
    let t = fields[0].1;
    let sz = storage_type(t).size();
    let totals = scratch_buffer(ctx, slots * sz);
    let set = |l: &ParamsLayout, b: &mut [u8]| {
        l.set_u64(b, "begin", begin as u64);
        l.set_u64(b, "n", n);
    };
    dispatch(ctx, &p, &c1, &init, blocks, &[&totals], true, set)?;
    let tot = read_fields(ctx, &fields, &[&*totals], blocks as usize)?;
    let mut acc = reducer.init();
    let mut pre = vec![0u8; slots * sz];
    let mut vals = Vec::with_capacity(1);
    tot.for_each(|b, part| {
        vals.clear();
        acc.push_values(&mut vals);
        let bits = vals[0].to_bits().to_le_bytes();
        pre[b * sz..(b + 1) * sz].copy_from_slice(&bits[..sz]);
        reducer.join(&mut acc, to_value::<V>(part)?);
        Ok(())
    })?;
    let prefix = scratch_buffer(ctx, slots * sz);
    ctx.submit();
    ctx.queue.write_buffer(&prefix, 0, &pre);
    dispatch(ctx, &p, &c2, &init, blocks, &[&prefix], false, set)?;
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
    let opts = |entry| -> Result<EmitOptions> {
        Ok(EmitOptions {
            entry,
            wg,
            joins: Vec::new(),
            addr32: addr32_ok(p),
            in_bounds: p.proven(&[(begin, end)]),
            width,
            splits: splits(ctx, p)?,
        })
    };
    let fold = pipeline(ctx, p, &opts(Entry::Ordered { left: false })?)?;
    let replay = pipeline(ctx, p, &opts(Entry::OrderedScan)?)?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(reducer.init());
    }
    let fields = p.ir.acc_fields();
    let parts = ordered::blocks(n, ordered::ORDERED_PARTIALS);
    let groups = parts.div_ceil(wg as u64);
    let set = |l: &ParamsLayout, b: &mut [u8]| {
        l.set_u64(b, "begin", begin as u64);
        l.set_u64(b, "n", n);
        l.set_u64(b, "stride", groups * wg as u64);
        l.set_u64(b, "parts", parts);
    };
    let bufs = Partials::new(ctx, &fields, parts);
    dispatch(ctx, p, &fold, init, groups, &bufs.refs(), true, set)?;
    let (prefixes, total) = ordered::scan_prefixes(&read_all(ctx, &p.ir, &bufs)?, reducer)?;
    ctx.submit();
    let mut pre = Vec::with_capacity(fields.len());
    for ((_, t), col) in fields.iter().zip(&prefixes) {
        let buf = scratch_buffer(ctx, parts as usize * storage_type(*t).size());
        ctx.queue
            .write_buffer(&buf, 0, &encode_column(col, storage_type(*t).size()));
        pre.push(buf);
    }
    let refs: Vec<_> = pre.iter().collect();
    dispatch(ctx, p, &replay, init, groups, &refs, false, set)?;
    Ok(total)
}
