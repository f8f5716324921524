//! `parallel_for` over a `TeamPolicy`: one workgroup per team of `team_size x vector_length`
//! invocations, the league looped over the dispatched workgroups (see `emit::team`). [`launch`]
//! also serves `reduce_team` (with a reducer: one partial per workgroup; with a reducer whose
//! join is host code, the ordered-partials mode of `rokkos_device::runtime::ordered`: one
//! contiguous league block per workgroup, one partial per invocation, joined on the host).

use crate::emit::{EmitOptions, Entry};
use crate::runtime::ctx::Ctx;
use crate::runtime::launch::{
    addr32_ok, dispatch, fold, grid_groups, index_width, pipeline, prepare, scratch_buffer, splits,
};
use crate::runtime::partials::Partials;
use crate::runtime::reduction::{plan_values, Reduction};
use crate::{Wgpu, WgpuSpace};
use rokkos_core::kernel::KernelIr;
use rokkos_core::reducer::AccValue;
use rokkos_core::{Error, Reducer, Result, Sum, TeamPolicy};
use rokkos_device::emit::width::Work;
use rokkos_device::runtime::{limits, ordered};
use std::sync::Arc;

/// `parallel_for` over `policy`.
pub(crate) fn run<K: KernelIr<Space = WgpuSpace>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &TeamPolicy<Wgpu>,
    kernel: &K,
) -> Result<()> {
    launch::<K, i32, Sum>(ctx, label, policy, kernel, None).map(|_| ())
}

/// Most workgroups of a team reduction (the host joins this many partials at most).
const TEAM_REDUCE_GROUPS: u64 = 1024;
/// Most workgroups of a team launch without level-1 scratch (teams beyond loop over them).
const TEAM_GROUPS: u64 = 1 << 22;
/// Bytes of level-1 scratch one launch may hold (teams in flight × bytes per team).
const LEVEL1_BUDGET: u64 = 256 << 20;

/// A team launch: league size, team size, vector length, scratch requests.
struct TeamLaunch {
    league: usize,
    team: usize,
    vlen: usize,
    scratch: [rokkos_core::ScratchRequest; 2],
}

impl TeamLaunch {
    fn of(policy: &TeamPolicy<Wgpu>) -> Self {
        TeamLaunch {
            league: policy.league_size(),
            team: policy.team_size(),
            vlen: policy.vector_len(),
            scratch: policy.scratch_requests(),
        }
    }
}

/// `parallel_for` (no reducer) or `parallel_reduce` over a league of teams.
pub(crate) fn launch<K: KernelIr<Space = WgpuSpace>, V: AccValue, Rd: Reducer<V>>(
    ctx: &Arc<Ctx>,
    label: &str,
    policy: &TeamPolicy<Wgpu>,
    kernel: &K,
    reducer: Option<&Rd>,
) -> Result<Option<Reduction>> {
    let tl = &TeamLaunch::of(policy);
    use crate::emit::team::{needs_lane_comm, TeamShape};
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
        let split = rokkos_device::emit::team::pool_split(
            &p.ir,
            l as u32,
            r.per_team as u64,
            r.per_thread as u64,
            tl.team as u64,
        );
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
        lanes: !needs_lane_comm(&p.ir, &p.info),
        pools,
    };
    let fields = p.ir.acc_fields();
    let (joins, init) = match reducer {
        Some(r) => plan_values(r, &fields)?,
        None => (Some(vec![]), vec![]),
    };
    // A reducer whose join is host code: the ordered-partials mode.
    let ordered = joins.is_none();
    if ordered {
        rokkos_device::runtime::team_order::check(&p.ir, tl.team as u64, tl.vlen as u64)
            .map_err(crate::runtime::launch::unsupported)?;
    }
    let joins = joins.unwrap_or_default();
    let wg = shape.wg();
    // Workgroup memory: level-0 scratch, the exchange buffers, the accumulators' tree.
    let mut wmem = shape.arena_words(0) as u64 * 4 + 12 * wg as u64;
    if reducer.is_some() && !ordered {
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
            ordered,
            shape,
        },
        wg,
        joins: joins.clone(),
        addr32: addr32_ok(&p),
        in_bounds: Default::default(),
        width: index_width(
            ctx,
            &p,
            Work::team(tl.league as u64, tl.team as u64, tl.vlen as u64),
            &rokkos_device::emit::width::team_bounds(
                tl.league as u64,
                tl.team as u64,
                tl.vlen as u64,
                [shape.arena(0), shape.arena(1)],
            ),
        )?,
        splits: splits(ctx, &p)?,
    };
    let c = pipeline(ctx, &p, &opts)?;
    let mut red = reducer.map(|_| {
        if ordered {
            Reduction::ordered(&p.ir, &init)
        } else {
            Reduction::new(&p.ir, joins, &init)
        }
    });
    if tl.league == 0 {
        return Ok(red);
    }
    let l1 = shape.arena_words(1) as u64 * 4;
    let league = tl.league as u64;
    // At most `GRID_INVOCATIONS` invocations, so that a launch stopping early leaves few
    // workgroups to start.
    let mut groups = grid_groups(league, wg).min(if reducer.is_some() {
        TEAM_REDUCE_GROUPS
    } else {
        TEAM_GROUPS
    });
    let mut why = "the teams a launch keeps in flight".to_string();
    let budget = LEVEL1_BUDGET.min(ctx.limits.max_storage_buffer_binding_size);
    if let Some(fit) = budget.checked_div(l1) {
        if fit < groups {
            why = format!("level-1 scratch of {l1} bytes per team in a pool of {budget} bytes");
        }
        groups = groups.min(fit.max(1));
    }
    // The ordered mode: one league block per workgroup, one partial per invocation.
    let (groups, nparts) = if ordered {
        let b = ordered::team_blocks(league, groups, wg as u64);
        if b < groups {
            why = "a Custom reducer's ordered partials: 64 Ki invocations in all".to_string();
        }
        (b, b * wg as u64)
    } else {
        (groups, 0)
    };
    limits::check_trips(label, league, groups, 1, &why)?;
    let (gx, gy) = fold(ctx, groups)?;
    let slots = gx as u64 * gy as u64;
    let parts = red
        .is_some()
        .then(|| Partials::new(ctx, &fields, if ordered { nparts } else { slots }));
    let mut refs = parts.as_ref().map_or_else(Vec::new, Partials::refs);
    let level1 = (l1 > 0 || crate::emit::team::uses_level(&p.ir, 1))
        .then(|| scratch_buffer(ctx, (slots * l1) as usize));
    refs.extend(level1.as_ref());
    dispatch(ctx, &p, &c, &init, groups, &refs, red.is_some(), |l, b| {
        l.set_u64(b, "league", tl.league as u64);
        l.set_u64(b, "tsize", tl.team as u64);
        l.set_u64(b, "vlen", tl.vlen as u64);
        l.set_u64(b, "l1_bytes", l1);
        if ordered {
            l.set_u64(b, "parts", groups);
        }
    })?;
    if let Some(r) = red.as_mut() {
        r.parts = parts;
    }
    Ok(red)
}
