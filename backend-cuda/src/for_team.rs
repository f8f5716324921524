//! `parallel_for` over a `TeamPolicy`: one block per team in flight (`blockDim = (lanes, team)`,
//! the league strided over the grid), level-0 scratch in dynamic shared memory and level-1 from
//! a pooled device buffer of one slot per block (`emit::team`, whose [`TeamLaunch`] says what a
//! launch passes). [`launch`] also serves `reduce_team` (one partial per block, then the second
//! pass of the range reductions; with a reducer whose join is host code, the ordered-partials
//! mode of `rokkos_device::runtime::ordered`: one contiguous league block per block, one partial
//! per thread, every partial joined on the host).

use crate::emit::{entry::ENTRY, reduce::FINAL, CudaOptions, Entry, TeamLaunch, TeamShape};
use crate::runtime::args::{set_buffer, set_u64};
use crate::runtime::device::Instance;
use crate::runtime::reduction::{plan_values, take, Buffers};
use crate::runtime::run::{enqueue_steps, index_width, params, prepare, variant, Step, BLOCK};
use crate::{Cuda, CudaBuffer, CudaSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{Error, Reducer, Result, Sum, TeamPolicy};
use rokkos_device::emit::team::pool_split;
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::{limits, ordered};
use std::sync::Arc;

/// Most blocks of a team reduction (the second pass joins this many partials at most).
const TEAM_REDUCE_BLOCKS: u64 = 1024;
/// Bytes of level-1 scratch one launch may hold (blocks in flight x bytes per team).
const LEVEL1_BUDGET: u64 = 256 << 20;

/// `parallel_for` over `policy`.
pub(crate) fn run<K: KernelIr<Space = CudaSpace>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &TeamPolicy<Cuda>,
    kernel: &K,
) -> Result<()> {
    launch::<K, i32, Sum>(inst, label, policy, kernel, None, None).map(|_| ())
}

/// `parallel_for` (no reducer) or the passes of `parallel_reduce` over a league of teams, the
/// result to `into` or to the returned buffers (`None` for an empty league).
pub(crate) fn launch<K: KernelIr<Space = CudaSpace>, V: AccValue, Rd: Reducer<V>>(
    inst: &Arc<Instance>,
    label: &str,
    policy: &TeamPolicy<Cuda>,
    kernel: &K,
    reducer: Option<&Rd>,
    into: Option<(&CudaBuffer, usize)>,
) -> Result<Option<Buffers>> {
    let policy_err = |reason: String| Error::InvalidPolicy {
        label: label.to_string(),
        reason,
    };
    let (league, team, vlen) = (
        policy.league_size() as u64,
        policy.team_size() as u64,
        policy.vector_len() as u64,
    );
    let shape = match (u32::try_from(team), u32::try_from(vlen)) {
        (Ok(t), Ok(v)) if t > 0 && v > 0 => TeamShape { team: t, vlen: v },
        _ => {
            return Err(policy_err(format!(
                "team size {team} and vector length {vlen} (positive, 32-bit)"
            )))
        }
    };
    // A team's threads and lanes share one block, as in Kokkos (and on wgpu): checked here
    // whether its lanes end up physical or virtual, so that a policy is valid or not on every
    // kernel alike.
    let max = inst.device.info.max_threads_per_block as u64;
    if team.checked_mul(vlen).is_none_or(|n| n > max) {
        return Err(policy_err(format!(
            "team size {team} x vector length {vlen} exceeds the device's {max} threads per block"
        )));
    }
    let p = prepare(inst, kernel)?;
    let mut pools = [(0u64, 0u64); 2];
    for (l, pool) in pools.iter_mut().enumerate() {
        let r = policy.scratch_requests()[l];
        *pool = pool_split(
            &p.ir,
            l as u32,
            r.per_team as u64,
            r.per_thread as u64,
            team,
        )
        .ok_or_else(|| policy_err(format!("scratch level {l} request overflows")))?;
    }
    let fields = p.ir.acc_fields();
    let (joins, init) = match reducer {
        Some(r) => plan_values(r, &fields)?,
        None => (Some(Vec::new()), Vec::new()),
    };
    // A reducer whose join is host code: the ordered-partials mode (no second pass).
    let ordered = joins.is_none();
    if ordered {
        rokkos_device::runtime::team_order::check(&p.ir, team, vlen)
            .map_err(crate::runtime::run::unsupported)?;
    }
    let joins = joins.unwrap_or_default();
    let opts = CudaOptions {
        entry: match reducer {
            None => Entry::For,
            Some(_) if ordered => Entry::Ordered { left: false },
            Some(_) => Entry::Reduce,
        },
        block: BLOCK,
        bounds_checks: true,
        joins,
        in_bounds: Default::default(),
        team: Some(shape),
        width: index_width(
            &p,
            Work::team(league, team, vlen),
            &rokkos_device::emit::width::team_bounds(
                league,
                team,
                vlen,
                pools.map(|(tp, tq)| tq.saturating_mul(team).saturating_add(tp)),
            ),
        ),
    };
    let entries: &[&str] = if reducer.is_some() && !ordered {
        &[ENTRY, FINAL]
    } else {
        &[ENTRY]
    };
    // Compiled even for an empty league, so that a kernel CUDA refuses fails at every launch.
    let v = variant(inst, &p, &opts, entries)?;
    let tl = v.team.ok_or_else(|| {
        Error::InvalidArgument("the team kernel's variant has no team launch data".into())
    })?;
    let info = &inst.device.info;
    let dynamic = TeamLaunch::dynamic_shared_bytes(pools[0].0, pools[0].1, team)
        .ok_or_else(|| policy_err("level-0 scratch past 4 GiB".into()))?;
    let shared = dynamic as u64 + tl.static_shared_bytes as u64;
    if shared > info.shared_per_block_optin as u64 {
        return Err(policy_err(format!(
            "the team needs {shared} bytes of shared memory (level-0 scratch {dynamic}, exchange \
             and reduction buffers {}); the device allows {} per block",
            tl.static_shared_bytes, info.shared_per_block_optin
        )));
    }
    if league == 0 {
        return Ok(None);
    }
    let l1s = TeamLaunch::level1_slot_bytes(pools[1].0, pools[1].1, team)
        .ok_or_else(|| policy_err("level-1 scratch overflows".into()))?;
    let threads = tl.block.0 * tl.block.1;
    let resident =
        info.sm_count.max(1) as u64 * (info.max_threads_per_sm / threads.max(1)).max(1) as u64;
    // The resident blocks, or more where a block would otherwise run more than `TRIPS_MAX`
    // teams one after another.
    let resident = resident.max(limits::min_groups(league, 1));
    let mut blocks = league.min(resident).min(info.max_grid[0].max(1) as u64);
    let mut why = "the blocks a launch keeps in flight".to_string();
    if reducer.is_some() {
        blocks = blocks.min(TEAM_REDUCE_BLOCKS);
    }
    if let Some(fit) = LEVEL1_BUDGET.checked_div(l1s) {
        if fit < blocks {
            why = format!(
                "level-1 scratch of {l1s} bytes per team in a pool of {LEVEL1_BUDGET} bytes"
            );
        }
        blocks = blocks.min(fit.max(1));
    }
    // The ordered mode: one league block per block, one partial per thread.
    if ordered {
        let b = ordered::team_blocks(league, blocks, threads as u64);
        if b < blocks {
            why = "a Custom reducer's ordered partials: 64 Ki threads in all".to_string();
        }
        blocks = b;
    }
    limits::check_trips(label, league, blocks, 1, &why)?;
    let pool_bytes = usize::try_from(blocks * l1s)
        .map_err(|_| policy_err("level-1 scratch past the address space".into()))?;
    let pool = (tl.level1 && pool_bytes > 0)
        .then(|| take(inst, pool_bytes))
        .transpose()?;
    let bufs = match reducer {
        None => None,
        Some(_) if ordered => Some(Buffers::ordered(inst, &fields, blocks * threads as u64)?),
        Some(_) => Some(Buffers::new(inst, &fields, blocks)?),
    };
    let mut b = params(&v, &p, &init)?;
    for (name, x) in [
        ("league", league),
        ("tp0", pools[0].0),
        ("tq0", pools[0].1),
        ("tp1", pools[1].0),
        ("tq1", pools[1].1),
        ("l1s", l1s),
    ] {
        set_u64(&mut b, &v.layout, name, x)?;
    }
    if let Some(pool) = pool.as_ref() {
        let buf: &CudaBuffer = pool;
        set_buffer(
            &mut b,
            &v.layout,
            "scr1",
            buf,
            buf.len_bytes(),
            0,
            pool_bytes,
            true,
        )?;
    }
    if let Some(bufs) = bufs.as_ref() {
        bufs.bind(&mut b, &v.layout, into)?;
    }
    let mut steps = vec![Step {
        entry: 0,
        blocks,
        block: [tl.block.0, tl.block.1, 1],
        shared_bytes: dynamic,
    }];
    if reducer.is_some() && !ordered {
        steps.push(Step {
            entry: 1,
            blocks: 1,
            block: [BLOCK, 1, 1],
            shared_bytes: 0,
        });
    }
    enqueue_steps(inst, &p, &v, b, &steps)?;
    Ok(bufs)
}
