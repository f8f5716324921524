//! Launches whose split Views need more storage bindings than a shader stage has
//! (`max_storage_buffers_per_shader_stage`): a `RangePolicy` `parallel_for`, `parallel_reduce`
//! or `parallel_scan`, or an `MDRangePolicy` `parallel_for` or `parallel_reduce`, runs as
//! several dispatches over consecutive sub-ranges ("windows") of one work dimension, each
//! binding only the chunks of each split View its work items can reach
//! ([`rokkos_device::emit::window`] decides which Views can be bounded so and plans the
//! windows); every other launch that does not fit (a team policy's) is refused, saying why.

use super::ctx::Ctx;
use super::launch::{unsupported, Prepared};
use crate::emit::{entry::extra_bindings, split_of, EmitOptions};
use rokkos_core::ir::{Kernel, WorkKind};
use rokkos_core::Result;
use rokkos_device::emit::window::{self, Chunked, Placement, Reach};

/// Why a team policy's launch is not windowed: its windows would be runs of the league, and a
/// team reaches a View through its nested ranges' indices and its team and lane ranks as well
/// as through its league rank, none of which a window of the league bounds.
const TEAM_WHY: &str = "a TeamPolicy (its windows would be runs of league ranks, but a team \
     reaches its Views through the indices of its nested thread and vector ranges and its team \
     and lane ranks, which a run of league ranks does not bound)";

/// What a launch may do when its bindings do not fit.
#[derive(Clone, Debug)]
pub(crate) enum Windowing {
    /// Run as windows of its work, `begin..end` per dimension (one for a range), along the
    /// dimension that takes the fewest.
    Work(Vec<(u64, u64)>),
    /// Run as windows of dimension `dim` only, each a whole number of `step` indices from its
    /// begin (the last one ending at its end): an MDRange reduction whose join is host code,
    /// windowed in whole tiles along its slowest tile dimension, so that the windows, in
    /// order, visit its tiles in the order the host backends do.
    Steps {
        /// `begin..end` per dimension.
        bounds: Vec<(u64, u64)>,
        /// The dimension windowed.
        dim: usize,
        /// Its tile extent.
        step: u64,
    },
    /// Nothing: the pattern (for the message) cannot be windowed.
    No(&'static str),
}

/// [`Windowing::No`] for a launch of `k` that is not windowed, naming its pattern. (Range and
/// MDRange launches are fitted before they compile, so their launches fit by the time this is
/// asked.)
pub(crate) fn not_windowed(k: &Kernel) -> Windowing {
    Windowing::No(match k.work {
        WorkKind::Team => TEAM_WHY,
        _ => "this launch",
    })
}

/// One dispatch of a windowed launch.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    /// The dimension windowed (0 for a range).
    pub dim: usize,
    /// Its work indices `begin..end` (the other dimensions keep the launch's bounds).
    pub begin: u64,
    /// End (exclusive).
    pub end: u64,
    /// Per View parameter, the first chunk bound (0 for a View bound whole or in every chunk).
    pub bases: Vec<u32>,
}

/// Fits the launch's storage bindings (the error record, one per View or per bound chunk of a
/// split one, the pattern's own buffers) to the device's `max_storage_buffers_per_shader_stage`.
/// `Ok(None)`: every chunk fits, one dispatch binds them all. `Ok(Some(windows))`: the launch
/// runs as these windows, in order, and `opts.splits` now gives each windowed View the
/// chunks every window binds (the same in all, so one compiled kernel serves them). `Err`:
/// `Unsupported` naming the kernel, its split Views, the limit and why windows could not be
/// used (the pattern, an access a window cannot bound, or too many chunks for one step).
pub(crate) fn fit(
    ctx: &Ctx,
    p: &Prepared<'_>,
    opts: &mut EmitOptions,
    how: Windowing,
) -> Result<Option<Vec<Window>>> {
    let lim = u64::from(ctx.limits.max_storage_buffers_per_shader_stage);
    let extras = extra_bindings(&p.ir, opts).len() as u64;
    let split = |k: usize| split_of(&opts.splits, k);
    let views = p.views.len();
    let storage: u64 = 1
        + extras
        + (0..views)
            .map(|k| split(k).map_or(1, |s| u64::from(s.chunks)))
            .sum::<u64>();
    if storage <= lim {
        return Ok(None);
    }
    let refuse = |why: String| {
        let each: Vec<String> = (0..views)
            .filter_map(|k| {
                split(k).map(|s| format!("View `{}` in {} bindings", p.ir.views[k].name, s.chunks))
            })
            .collect();
        unsupported(format!(
            "kernel `{}` needs {storage} storage bindings ({}), above the device's \
             max_storage_buffers_per_shader_stage ({lim}), and windowed launches could not \
             bring it under: {why}",
            p.ir.name,
            if each.is_empty() {
                "no View split".to_string()
            } else {
                each.join(", ")
            }
        ))
    };
    // The bounds, the dimensions that may be windowed and in steps of how many indices.
    let (bounds, dims, step, in_tiles) = match how {
        Windowing::Work(b) => {
            let dims = (0..b.len()).collect::<Vec<_>>();
            (b, dims, 1, false)
        }
        Windowing::Steps { bounds, dim, step } => (bounds, vec![dim], step, true),
        Windowing::No(what) => {
            return Err(refuse(format!(
                "they run only a RangePolicy's parallel_for, parallel_reduce and parallel_scan \
                 and an MDRangePolicy's parallel_for and parallel_reduce, not {what}"
            )))
        }
    };
    // Split Views whose every access a window can bound take part; the others keep all their
    // chunks in every window.
    let mut fixed = 1 + extras;
    let mut cand = Vec::new();
    let mut others = Vec::new();
    for k in 0..views {
        let Some(sp) = split(k) else {
            fixed += 1;
            continue;
        };
        match p.info.reach.get(k) {
            Some(Reach::Terms(terms)) => cand.push((k, terms, sp)),
            other => {
                fixed += u64::from(sp.chunks);
                let at = match other {
                    Some(Reach::Other(a)) => format!("`{a}`"),
                    _ => "an unknown index".to_string(),
                };
                others.push(format!(
                    "View `{}` is accessed at {at}, an index other than the work index plus or \
                     minus a literal (or a literal) in every position",
                    p.ir.views[k].name
                ));
            }
        }
    }
    if cand.is_empty() {
        return Err(refuse(others.join("; ")));
    }
    let chunked: Vec<Chunked> = cand
        .iter()
        .map(|&(k, terms, sp)| {
            let v = &p.views[k];
            Chunked {
                name: &p.ir.views[k].name,
                terms,
                at: Placement {
                    offset: v.offset as u64,
                    extents: v.extents,
                    strides: v.strides,
                },
                shift: sp.shift,
                chunks: sp.chunks,
            }
        })
        .collect();
    let budget = lim.saturating_sub(fixed);
    // Along the dimension that takes the fewest windows (the slowest of the Views' layouts,
    // usually); the first dimension's reason when none can.
    let mut best: Option<(usize, window::Plan)> = None;
    let mut first_why = None;
    for &dim in &dims {
        match window::plan_steps(&chunked, budget, &bounds, dim, step) {
            Ok(plan) => {
                if best
                    .as_ref()
                    .is_none_or(|(_, b)| plan.windows.len() < b.windows.len())
                {
                    best = Some((dim, plan));
                }
            }
            Err(why) => {
                first_why.get_or_insert(why);
            }
        }
    }
    let Some((dim, plan)) = best else {
        let mut why = first_why.unwrap_or_else(|| "the launch has no work dimension".into());
        if in_tiles {
            // Only the one dimension was tried: say why, since another might have fitted.
            why = format!(
                "a reduction whose join is host code is windowed only in whole tiles ({step} \
                 indices) of its slowest tile dimension ({}), so that its windows keep the \
                 policy's order, and there {why}",
                dims.first().copied().unwrap_or(0)
            );
        }
        return Err(refuse(if others.is_empty() {
            why
        } else {
            format!("{}; and for the others {why}", others.join("; "))
        }));
    };
    for (&(k, ..), &b) in cand.iter().zip(&plan.bound) {
        opts.splits[k].chunks = b;
    }
    let windows = plan
        .windows
        .into_iter()
        .map(|w| {
            let mut bases = vec![0; views];
            for (&(k, ..), &b) in cand.iter().zip(&w.bases) {
                bases[k] = b;
            }
            Window {
                dim,
                begin: w.begin,
                end: w.end,
                bases,
            }
        })
        .collect();
    Ok(Some(windows))
}
