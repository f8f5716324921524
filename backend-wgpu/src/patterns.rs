//! The parallel patterns on the device.

use crate::device::Ctx;
use crate::emit::{EmitOptions, Entry};
use crate::launch::{
    addr32_ok, bare_ok, dispatch, pipeline, prepare, read_fields, scratch_buffer, unsupported,
};
use crate::params::storage_type;
use crate::partials::{JoinSpec, Partials};
use crate::WgpuSpace;
use rokkos_core::ir::Value;
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::{describe_reducer, AccValue, JoinKind};
use rokkos_core::space::ResultSlot;
use rokkos_core::{Error, Reducer, Result};
use std::sync::Arc;

/// Invocations per workgroup for range patterns.
pub(crate) fn wg_size(ctx: &Ctx) -> u32 {
    ctx.limits
        .max_compute_invocations_per_workgroup
        .clamp(1, 256)
}
/// Most workgroups of a grid-stride reduction (the host joins this many partials at most).
const REDUCE_GROUPS: u64 = 1024;

fn init_values<V: AccValue, Rd: Reducer<V>>(
    reducer: &Rd,
    fields: &[(rokkos_core::ir::AccField, rokkos_core::ir::ScalarType)],
) -> Result<(Vec<JoinKind>, Vec<Value>)> {
    let joins = describe_reducer::<V, Rd>(reducer)
        .ok_or_else(|| unsupported("user-defined (Custom) reducer: its join is host code"))?;
    let mut init = Vec::new();
    reducer.init().push_values(&mut init);
    if init.len() != fields.len() || init.iter().zip(fields).any(|(v, (_, t))| v.ty() != *t) {
        return Err(Error::InvalidArgument(format!(
            "accumulator values {init:?} do not match the kernel's accumulator fields"
        )));
    }
    Ok((joins, init))
}

fn to_value<V: AccValue>(vals: &[Value]) -> Result<V> {
    V::from_values(&mut vals.iter())
        .ok_or_else(|| Error::InvalidArgument(format!("accumulator values {vals:?}")))
}

/// `parallel_for` over `begin..end`.
pub(crate) fn for_range<K: KernelIr<Space = WgpuSpace>>(
    ctx: &Arc<Ctx>,
    kernel: &K,
    begin: usize,
    end: usize,
) -> Result<()> {
    let p = prepare(ctx, kernel)?;
    let wg = wg_size(ctx);
    let opts = EmitOptions {
        entry: Entry::For,
        wg,
        joins: vec![],
        addr32: addr32_ok(&p),
        bare_in_bounds: bare_ok(&p, end),
    };
    let c = pipeline(ctx, &p, &opts)?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(());
    }
    dispatch(
        ctx,
        &p,
        &c,
        &[],
        n.div_ceil(wg as u64),
        &[],
        false,
        |l, b| {
            l.set_u64(b, "begin", begin as u64);
            l.set_u64(b, "n", n);
        },
    )
}

/// `parallel_reduce` over `begin..end`.
pub(crate) fn reduce_range<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    kernel: &K,
    begin: usize,
    end: usize,
    reducer: &Rd,
) -> Result<Reduction> {
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = init_values(reducer, &fields)?;
    let wg = wg_size(ctx);
    let opts = EmitOptions {
        entry: Entry::Reduce,
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        bare_in_bounds: bare_ok(&p, end),
    };
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = Reduction::new(&p.ir, joins, &init);
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(red);
    }
    let groups = n.div_ceil(wg as u64).min(REDUCE_GROUPS);
    let parts = Partials::new(ctx, &fields, groups);
    dispatch(
        ctx,
        &p,
        &c,
        &red.init,
        groups,
        &parts.refs(),
        true,
        |l, b| {
            l.set_u64(b, "begin", begin as u64);
            l.set_u64(b, "n", n);
            l.set_u64(b, "stride", groups * wg as u64);
        },
    )?;
    red.parts = Some(parts);
    Ok(red)
}

/// A launched reduction: its per-workgroup partials (none when there was no work item) and how
/// they join. [`finish_host`] or [`finish_into`] completes it.
pub(crate) struct Reduction {
    ir: Arc<rokkos_core::ir::Kernel>,
    joins: Vec<JoinKind>,
    init: Vec<Value>,
    parts: Option<Partials>,
}

impl Reduction {
    /// A reduction of `ir`'s accumulators by `joins` from `init`, before its launch.
    fn new(ir: &Arc<rokkos_core::ir::Kernel>, joins: Vec<JoinKind>, init: &[Value]) -> Self {
        Reduction {
            ir: ir.clone(),
            joins,
            init: init.to_vec(),
            parts: None,
        }
    }
    fn spec(&self) -> JoinSpec<'_> {
        JoinSpec {
            ir: &self.ir,
            joins: &self.joins,
            init: &self.init,
        }
    }
}

/// The reduction's value on the host (waits for the device).
pub(crate) fn finish_host<V: AccValue, Rd: Reducer<V>>(
    ctx: &Ctx,
    mut red: Reduction,
    reducer: &Rd,
) -> Result<V> {
    let mut acc = reducer.init();
    let Some(parts) = red.parts.take() else {
        return Ok(acc);
    };
    crate::partials::to_host(ctx, &red.spec(), parts)?.for_each(|_, part| {
        reducer.join(&mut acc, to_value::<V>(part)?);
        Ok(())
    })?;
    Ok(acc)
}

/// Stores the reduction's value into `slot`. A single scalar accumulator whose Rust value is its
/// device representation is joined into the slot on the device, without waiting; anything else
/// (several fields, `bool`, an element the device cannot address) goes through the host.
pub(crate) fn finish_into<V: AccValue + bytemuck::Pod, Rd: Reducer<V>>(
    ctx: &Ctx,
    mut red: Reduction,
    reducer: &Rd,
    slot: ResultSlot<'_, WgpuSpace>,
) -> Result<()> {
    let fields = red.ir.acc_fields();
    let size = std::mem::size_of::<V>();
    let elem = match fields.as_slice() {
        [(_, t)] if *t != rokkos_core::ir::ScalarType::Bool && t.size() == size => {
            (slot.byte_offset() % size == 0)
                .then(|| u32::try_from(slot.byte_offset() / size).ok())
                .flatten()
        }
        _ => None,
    };
    let same_device = std::ptr::eq(&*slot.buffer().ctx, ctx);
    match (elem, red.parts.take()) {
        (Some(elem), Some(parts)) if same_device => {
            rokkos_core::space::check_byte_range(slot.buffer().bytes, slot.byte_offset(), size)?;
            crate::partials::into_element(ctx, &red.spec(), parts, &slot.buffer().buf, elem)
        }
        (_, parts) => {
            red.parts = parts;
            slot.write(finish_host::<V, Rd>(ctx, red, reducer)?)
        }
    }
}

/// `parallel_scan` over `begin..end`: reduce-then-scan in two device passes with the block prefixes
/// joined on the host in between (no inter-workgroup forward-progress assumption).
pub(crate) fn scan_range<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    kernel: &K,
    begin: usize,
    end: usize,
    reducer: &Rd,
) -> Result<V> {
    let p = prepare(ctx, kernel)?;
    let fields = p.ir.acc_fields();
    let (joins, init) = init_values(reducer, &fields)?;
    let wg = wg_size(ctx);
    let o1 = EmitOptions {
        entry: Entry::ScanTotals,
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        bare_in_bounds: bare_ok(&p, end),
    };
    let o2 = EmitOptions {
        entry: Entry::ScanFinal,
        wg,
        joins,
        addr32: addr32_ok(&p),
        bare_in_bounds: bare_ok(&p, end),
    };
    let c1 = pipeline(ctx, &p, &o1)?;
    let c2 = pipeline(ctx, &p, &o2)?;
    let n = end.saturating_sub(begin) as u64;
    if n == 0 {
        return Ok(reducer.init());
    }
    let blocks = n.div_ceil(wg as u64);
    let (gx, gy) = crate::launch::fold(ctx, blocks)?;
    let slots = gx as usize * gy as usize;
    let t = fields[0].1;
    let sz = storage_type(t).size();
    let totals = scratch_buffer(ctx, slots * sz);
    let set = |l: &crate::params::ParamsLayout, b: &mut [u8]| {
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

/// Tiles of an MDRange launch: the requested ones, or up to 256 invocations filled from the last
/// dimension.
fn tiles<const N: usize>(
    ctx: &Ctx,
    label: &str,
    begin: [usize; N],
    end: [usize; N],
    req: [usize; N],
) -> Result<[usize; N]> {
    let max = ctx.limits.max_compute_invocations_per_workgroup as usize;
    let mut t = [1usize; N];
    if req.iter().all(|&x| x > 0) {
        t = req;
    } else {
        let mut budget = 256usize.min(max);
        for k in (0..N).rev() {
            let ext = end[k].saturating_sub(begin[k]).max(1);
            let want = if req[k] > 0 {
                req[k]
            } else {
                ext.next_power_of_two().min(budget)
            };
            t[k] = want.max(1);
            budget = (budget / t[k]).max(1);
        }
    }
    // A tile larger than a workgroup is walked by the workgroup in strides (see the emitter).
    let prod = t.iter().try_fold(1usize, |a, &x| a.checked_mul(x));
    match prod {
        Some(p) if p <= u32::MAX as usize => Ok(t),
        _ => Err(Error::InvalidPolicy {
            label: label.to_string(),
            reason: format!("MDRange tile {t:?} has more than 2^32 points"),
        }),
    }
}

/// `parallel_for` / `parallel_reduce` over an MDRange (one tile per workgroup).
#[allow(clippy::too_many_arguments)]
pub(crate) fn mdrange<
    const N: usize,
    K: KernelIr<Space = WgpuSpace>,
    V: AccValue,
    Rd: Reducer<V>,
>(
    ctx: &Arc<Ctx>,
    label: &str,
    kernel: &K,
    begin: [usize; N],
    end: [usize; N],
    req: [usize; N],
    reducer: Option<&Rd>,
) -> Result<Option<Reduction>> {
    let p = prepare(ctx, kernel)?;
    let t = tiles(ctx, label, begin, end, req)?;
    let max = ctx.limits.max_compute_invocations_per_workgroup.min(256);
    let wg = (t.iter().product::<usize>() as u32).clamp(1, max);
    let fields = p.ir.acc_fields();
    let (entry, joins, init) = match reducer {
        Some(r) => {
            let (j, i) = init_values(r, &fields)?;
            (Entry::Reduce, j, i)
        }
        None => (Entry::For, vec![], vec![]),
    };
    if entry == Entry::Reduce {
        let bytes: usize = fields.iter().map(|(_, t)| t.size().max(4)).sum::<usize>()
            * wg.next_power_of_two() as usize;
        if bytes > ctx.limits.max_compute_workgroup_storage_size as usize {
            return Err(Error::InvalidPolicy {
                label: label.into(),
                reason: format!(
                    "tile {t:?} needs {bytes} bytes of workgroup memory for the reduction; max_compute_workgroup_storage_size is {}",
                    ctx.limits.max_compute_workgroup_storage_size
                ),
            });
        }
    }
    let opts = EmitOptions {
        entry,
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        bare_in_bounds: false,
    };
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = reducer.map(|_| Reduction::new(&p.ir, joins, &init));
    let nt: Vec<u64> = (0..N)
        .map(|k| (end[k].saturating_sub(begin[k]) as u64).div_ceil(t[k] as u64))
        .collect();
    let ntiles: u64 = nt.iter().product();
    if ntiles == 0 {
        return Ok(red);
    }
    if ntiles > u32::MAX as u64 {
        return Err(unsupported(format!(
            "{ntiles} MDRange tiles (more than 2^32)"
        )));
    }
    let (gx, gy) = crate::launch::fold(ctx, ntiles)?;
    let slots = gx as usize * gy as usize;
    let parts = red
        .is_some()
        .then(|| Partials::new(ctx, &fields, slots as u64));
    let refs = parts.as_ref().map_or_else(Vec::new, Partials::refs);
    dispatch(ctx, &p, &c, &init, ntiles, &refs, red.is_some(), |l, b| {
        for k in 0..N {
            l.set_u64(b, &format!("b{k}"), begin[k] as u64);
            l.set_u64(b, &format!("e{k}"), end[k] as u64);
            l.set_u32(b, &format!("t{k}"), t[k] as u32);
            l.set_u32(b, &format!("nt{k}"), nt[k] as u32);
        }
        l.set_u32(b, "ntiles", ntiles as u32);
    })?;
    if let (Some(r), Some(mut parts)) = (red.as_mut(), parts) {
        // Slots past the last tile (the folded grid's tail) hold nothing.
        parts.count = ntiles;
        r.parts = Some(parts);
    }
    Ok(red)
}

/// Most workgroups of a team reduction (the host joins this many partials at most).
const TEAM_REDUCE_GROUPS: u64 = 1024;
/// Most workgroups of a team launch without level-1 scratch (teams beyond loop over them).
const TEAM_GROUPS: u64 = 1 << 22;
/// Bytes of level-1 scratch one launch may hold (teams in flight × bytes per team).
const LEVEL1_BUDGET: u64 = 256 << 20;

/// A team launch: league size, team size, vector length, scratch requests.
pub(crate) struct TeamLaunch {
    pub league: usize,
    pub team: usize,
    pub vlen: usize,
    pub scratch: [rokkos_core::ScratchRequest; 2],
}

/// `parallel_for` (no reducer) or `parallel_reduce` over a league of teams.
pub(crate) fn team<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    kernel: &K,
    tl: &TeamLaunch,
    reducer: Option<&Rd>,
) -> Result<Option<Reduction>> {
    use crate::emit::team::{needs_lane_comm, uses_scratch, TeamShape};
    use rokkos_core::ir::ScratchScope;
    let policy_err = |reason: String| Error::InvalidPolicy {
        label: label.to_string(),
        reason,
    };
    // Core validates every policy before a launch token exists; this guard only keeps a bad
    // shape from reaching WGSL (a zero-sized workgroup) or `c / tl.team` below.
    if tl.team == 0 || tl.vlen == 0 {
        return Err(policy_err(format!(
            "team size {} and vector length {} must be positive",
            tl.team, tl.vlen
        )));
    }
    let p = prepare(ctx, kernel)?;
    let max = ctx.limits.max_compute_invocations_per_workgroup as usize;
    if tl.team.checked_mul(tl.vlen).is_none_or(|n| n > max) {
        return Err(policy_err(format!(
            "team size {} x vector length {} exceeds max_compute_invocations_per_workgroup = {max}",
            tl.team, tl.vlen
        )));
    }
    let mut pools = [(0u32, 0u32); 2];
    for (l, pool) in pools.iter_mut().enumerate() {
        let r = tl.scratch[l];
        let cap = r
            .per_thread
            .checked_mul(tl.team)
            .and_then(|b| b.checked_add(r.per_team));
        let (team_s, thread_s) = (
            uses_scratch(&p.ir, l as u32, ScratchScope::Team),
            uses_scratch(&p.ir, l as u32, ScratchScope::Thread),
        );
        let split = match (team_s, thread_s, cap) {
            (_, _, None) => None,
            (true, true, _) => Some((r.per_team, r.per_thread)),
            (true, false, Some(c)) => Some((c, 0)),
            (false, true, Some(c)) => Some((0, c / tl.team)),
            (false, false, _) => Some((0, 0)),
        };
        let fits = split.and_then(|(a, b)| Some((u32::try_from(a).ok()?, u32::try_from(b).ok()?)));
        *pool = fits.ok_or_else(|| {
            policy_err(format!(
                "scratch level {l} request does not fit 32-bit offsets"
            ))
        })?;
    }
    let shape = TeamShape {
        team: tl.team as u32,
        vlen: tl.vlen as u32,
        lanes: !needs_lane_comm(&p.ir),
        pools,
    };
    let fields = p.ir.acc_fields();
    let (joins, init) = match reducer {
        Some(r) => init_values(r, &fields)?,
        None => (vec![], vec![]),
    };
    let wg = shape.wg();
    // Workgroup memory: level-0 scratch, the exchange buffers, the accumulators' tree.
    let mut wmem = shape.arena_words(0) as u64 * 4 + 12 * wg as u64;
    if reducer.is_some() {
        wmem += fields
            .iter()
            .map(|(_, t)| t.size().max(4) as u64)
            .sum::<u64>()
            * wg.next_power_of_two() as u64;
    }
    let wlim = ctx.limits.max_compute_workgroup_storage_size as u64;
    if wmem > wlim {
        return Err(policy_err(format!(
            "the team needs {wmem} bytes of workgroup memory (level-0 scratch {} + reduction buffers); max_compute_workgroup_storage_size is {wlim}",
            shape.arena(0)
        )));
    }
    let opts = EmitOptions {
        entry: Entry::Team {
            reduce: reducer.is_some(),
            shape,
        },
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        bare_in_bounds: false,
    };
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = reducer.map(|_| Reduction::new(&p.ir, joins, &init));
    if tl.league == 0 {
        return Ok(red);
    }
    let l1 = shape.arena_words(1) as u64 * 4;
    let mut groups = (tl.league as u64).min(if reducer.is_some() {
        TEAM_REDUCE_GROUPS
    } else {
        TEAM_GROUPS
    });
    let budget = LEVEL1_BUDGET.min(ctx.limits.max_storage_buffer_binding_size);
    if let Some(fit) = budget.checked_div(l1) {
        groups = groups.min(fit.max(1));
    }
    let (gx, gy) = crate::launch::fold(ctx, groups)?;
    let slots = gx as u64 * gy as u64;
    let parts = red.is_some().then(|| Partials::new(ctx, &fields, slots));
    let mut refs = parts.as_ref().map_or_else(Vec::new, Partials::refs);
    let level1 = (l1 > 0 || crate::emit::team::uses_level(&p.ir, 1))
        .then(|| scratch_buffer(ctx, (slots * l1) as usize));
    refs.extend(level1.as_ref());
    dispatch(ctx, &p, &c, &init, groups, &refs, red.is_some(), |l, b| {
        l.set_u64(b, "league", tl.league as u64);
        l.set_u64(b, "tsize", tl.team as u64);
        l.set_u64(b, "vlen", tl.vlen as u64);
        l.set_u64(b, "l1_bytes", l1);
    })?;
    if let Some(r) = red.as_mut() {
        r.parts = parts;
    }
    Ok(red)
}
