//! Windowed launches: a launch whose Views are split over more bindings than a device allows
//! (a View larger than one storage binding is bound as chunks of `2^shift` elements) can still
//! run as several dispatches over consecutive sub-ranges of its work ("windows"), each binding
//! only the chunks its work items can reach. This module decides, once per kernel, which Views'
//! reach a window can bound ([`reaches`]), and, per launch, how many chunks each View gets and
//! where the windows are ([`plan`]; [`plan_steps`] for windows of whole tiles), for every device
//! backend alike.
//!
//! A window can bound the elements of a View when every load, store and atomic of it has an
//! index whose every position is a [`Term`]: the work index plus or minus a literal (`x[i]`,
//! `x[i + 2]`, `a[(i - 1, 3)]`) or a literal (`a[(i, 0)]`). The element offset of such an access
//! is then `offset + Σ stride·term`, non-decreasing in every work index, so the elements a
//! window reaches lie between its lowest and its highest work items' ([`span`]). Only indices
//! inside the View's extents count: an index past an extent reaches no memory (the access is
//! an out-of-bounds failure, reported as on any launch), so the span is computed from the
//! extent-clamped indices and a window never needs the chunks an out-of-bounds index would
//! name. Any other index (`x[2 * i]`, `x[idx[i]]`, a local holding `i + 1`) makes the View
//! [`Reach::Other`]: it is bound whole in every window, and a launch that does not fit the
//! binding limit that way is refused, naming that access.

use crate::emit::inbounds::{shifted, Shifted};
use rokkos_core::ir::{Expr, Kernel, Stmt, Value, ViewRef};

/// One index position of an access a window can bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A work index plus a literal ([`crate::emit::inbounds::shifted`]).
    Work(Shifted),
    /// A literal.
    Lit(u64),
}

/// How a kernel's body reaches one View parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reach {
    /// Every access has an index of [`Term`]s: the distinct indices, sorted (empty when the body
    /// never accesses the View's elements).
    Terms(Vec<Vec<Term>>),
    /// Some access does not: the first such access of the body, as the IR printer spells it
    /// (for the message of a launch that cannot be windowed).
    Other(String),
}

fn term(e: &Expr) -> Option<Term> {
    match e {
        Expr::Lit(Value::U64(c)) => Some(Term::Lit(*c)),
        _ => shifted(e).map(Term::Work),
    }
}

/// The [`Reach`] of every View parameter of `k`, in parameter order. (Helper functions cannot
/// reach Views.)
pub fn reaches(k: &Kernel) -> Vec<Reach> {
    let mut out: Vec<Reach> = vec![Reach::Terms(Vec::new()); k.views.len()];
    let mut note = |view: &ViewRef, index: &[Expr]| {
        let ViewRef::Param(v) = view else { return };
        let Some(slot) = out.get_mut(v.0 as usize) else {
            return;
        };
        let Reach::Terms(terms) = slot else { return };
        match index.iter().map(term).collect::<Option<Vec<Term>>>() {
            Some(t) => terms.push(t),
            None => *slot = Reach::Other(rokkos_core::ir::access_text(k, *view, index)),
        }
    };
    for s in &k.body {
        s.walk(&mut |st| {
            match st {
                Stmt::Store { view, index, .. } => note(view, index),
                Stmt::Atomic(a) => note(&a.view, &a.index),
                _ => {}
            }
            for e in st.exprs() {
                e.walk(&mut |x| match x {
                    Expr::Load { view, index } => note(view, index),
                    Expr::Atomic(a) => note(&a.view, &a.index),
                    _ => {}
                });
            }
        });
    }
    for r in &mut out {
        if let Reach::Terms(t) = r {
            t.sort();
            t.dedup();
        }
    }
    out
}

/// Where a View argument's elements lie in its buffer, in elements.
#[derive(Clone, Copy, Debug)]
pub struct Placement<'a> {
    /// Offset of element `[0; R]`.
    pub offset: u64,
    /// Extent of each dimension.
    pub extents: &'a [usize],
    /// Stride of each dimension.
    pub strides: &'a [usize],
}

/// The work indices (one interval per work dimension, `lo..hi`) for which every position of
/// `index` lies inside its extent, within `bounds` (`begin..end` of each work dimension; a
/// dimension past `bounds` ranges over every value), or `None` when there are none (a literal
/// past its extent, an empty range). The positions' literals come back separately.
fn valid_box(index: &[Term], at: &Placement, bounds: &[(u64, u64)]) -> Option<Vec<(i128, i128)>> {
    if index.len() != at.extents.len() {
        return None;
    }
    let dims = index
        .iter()
        .filter_map(|t| match t {
            Term::Work(s) => Some(s.dim as usize + 1),
            Term::Lit(_) => None,
        })
        .max()
        .unwrap_or(0);
    let mut boxed: Vec<(i128, i128)> = (0..dims)
        .map(|d| match bounds.get(d) {
            Some(&(b, e)) => (i128::from(b), i128::from(e)),
            None => (0, i128::from(u64::MAX)),
        })
        .collect();
    for (t, &e) in index.iter().zip(at.extents) {
        let e = e as i128;
        match *t {
            Term::Lit(l) if i128::from(l) >= e => return None,
            Term::Lit(_) => {}
            Term::Work(s) => {
                let c = i128::from(s.offset);
                let (lo, hi) = &mut boxed[s.dim as usize];
                *lo = (*lo).max(-c);
                *hi = (*hi).min(e - c);
            }
        }
    }
    boxed.iter().all(|(lo, hi)| lo < hi).then_some(boxed)
}

/// The element offset of `index` at the work point `w` (one value per dimension).
fn offset_at(index: &[Term], at: &Placement, w: &[i128]) -> i128 {
    index
        .iter()
        .zip(at.strides)
        .map(|(t, &s)| {
            let v = match *t {
                Term::Lit(l) => i128::from(l),
                Term::Work(x) => w[x.dim as usize] + i128::from(x.offset),
            };
            v * s as i128
        })
        .sum::<i128>()
        + i128::from(at.offset)
}

/// The lowest and highest element offset (in the View's buffer) that the accesses `terms`
/// reach from the work items of `bounds` (`begin..end` of each work dimension) with indices
/// inside the View's extents, or `None` when none does. Exact for each access (its in-extent
/// work points form a box, and its offset grows with every work index).
pub fn span(terms: &[Vec<Term>], at: &Placement, bounds: &[(u64, u64)]) -> Option<(u64, u64)> {
    let mut out: Option<(i128, i128)> = None;
    for index in terms {
        let Some(b) = valid_box(index, at, bounds) else {
            continue;
        };
        let lo: Vec<i128> = b.iter().map(|r| r.0).collect();
        let hi: Vec<i128> = b.iter().map(|r| r.1 - 1).collect();
        let (a, z) = (offset_at(index, at, &lo), offset_at(index, at, &hi));
        out = Some(match out {
            None => (a, z),
            Some((x, y)) => (x.min(a), y.max(z)),
        });
    }
    out.map(|(a, z)| (clamp_u64(a), clamp_u64(z)))
}

fn clamp_u64(x: i128) -> u64 {
    x.clamp(0, i128::from(u64::MAX)) as u64
}

/// An upper bound of how far apart (in elements) the lowest and highest elements one slab of
/// the work (`step` consecutive indices of dimension `dim` from `begin + k * step`, the last
/// slab ending at `end`, every index of the others in `bounds`) reaches can be, over every
/// slab of `bounds[dim]`, or `None` when it has no bound (an index of a work dimension past
/// `bounds`). Extents are ignored (they only narrow the span), except that an access with a
/// literal past its extent reaches nothing.
fn slab_width(
    terms: &[Vec<Term>],
    at: &Placement,
    bounds: &[(u64, u64)],
    dim: usize,
    step: u64,
) -> Option<u128> {
    let (b, e) = bounds[dim];
    let slabs = (e - b).div_ceil(step);
    let last = b + (slabs - 1) * step;
    // Each access's offset is linear in the slab's first index, so over the full slabs the
    // spread (a maximum minus a minimum of linear functions) is convex in it: largest at the
    // first or the last full one. The last slab, shorter when `step` does not divide the
    // range, is measured on its own.
    let mut starts = vec![b, last];
    if (e - b) % step != 0 && slabs >= 2 {
        starts.push(last - step);
    }
    let mut widest = 0u128;
    for i in starts {
        let top = (i + step).min(e) - 1;
        let corner = |high: bool| -> Vec<i128> {
            bounds
                .iter()
                .enumerate()
                .map(|(d, &(lo, hi))| match (d == dim, high) {
                    (true, false) => i128::from(i),
                    (true, true) => i128::from(top),
                    (false, false) => i128::from(lo),
                    (false, true) => i128::from(hi) - 1,
                })
                .collect()
        };
        let (low, high) = (corner(false), corner(true));
        let mut range: Option<(i128, i128)> = None;
        for index in terms {
            if index.len() != at.extents.len() {
                continue;
            }
            let mut dead = false;
            for (t, &ext) in index.iter().zip(at.extents) {
                match *t {
                    Term::Lit(l) if l as u128 >= ext as u128 => dead = true,
                    Term::Work(x) if x.dim as usize >= bounds.len() => return None,
                    _ => {}
                }
            }
            if dead {
                continue;
            }
            let (a, z) = (offset_at(index, at, &low), offset_at(index, at, &high));
            range = Some(match range {
                None => (a, z),
                Some((x, y)) => (x.min(a), y.max(z)),
            });
        }
        if let Some((a, z)) = range {
            widest = widest.max((z - a).max(0) as u128);
        }
    }
    Some(widest)
}

/// A View split into chunks, as the planner sees it.
#[derive(Clone, Copy, Debug)]
pub struct Chunked<'a> {
    /// The View parameter's name (for messages).
    pub name: &'a str,
    /// Its accesses ([`Reach::Terms`]).
    pub terms: &'a [Vec<Term>],
    /// Where its elements lie.
    pub at: Placement<'a>,
    /// `log2` of the elements per chunk: element offset `o` is in chunk `o >> shift`.
    pub shift: u32,
    /// Chunks of its buffer.
    pub chunks: u32,
}

/// One dispatch of a windowed launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The windowed dimension's work indices `begin..end` (the other dimensions keep the
    /// launch's bounds).
    pub begin: u64,
    /// End (exclusive).
    pub end: u64,
    /// Per View (in the order given to [`plan`]) the first chunk bound: the window binds chunks
    /// `bases[k] .. bases[k] + bound[k]`.
    pub bases: Vec<u32>,
}

/// How a windowed launch binds its split Views and where its windows are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Chunks bound per View in every window (the same in all, so that one compiled kernel
    /// serves every window).
    pub bound: Vec<u32>,
    /// The windows, consecutive and in order, covering the windowed dimension's range (none
    /// for an empty launch).
    pub windows: Vec<Window>,
}

/// The windows of a launch over `bounds` (`begin..end` of each work dimension), windowed along
/// dimension `dim`, whose split Views `views` may take `budget` bindings in all: each View gets
/// a fixed number of chunks (at least what one slice of the work can reach, and two of a View
/// of several; the rest of the budget shared in proportion to the chunks left), and each
/// window is the longest run of
/// slices, from where the last one ended, whose every View's [`span`] lies within that many
/// consecutive chunks. `Err` says why no such plan exists. ([`plan_steps`] with steps of one
/// index.)
pub fn plan(
    views: &[Chunked],
    budget: u64,
    bounds: &[(u64, u64)],
    dim: usize,
) -> Result<Plan, String> {
    plan_steps(views, budget, bounds, dim, 1)
}

/// [`plan`] whose windows are whole numbers of `step` consecutive indices of dimension `dim`,
/// counted from its begin (the last window ends at its end): an MDRange's tiles of that
/// dimension, so that no tile straddles two windows and the windows, in order, visit the
/// tiles in the policy's order when `dim` is its slowest (a reduction whose join is
/// order-sensitive needs that). Each View gets at least what one such step can reach. A
/// `step` of 0 counts as 1.
pub fn plan_steps(
    views: &[Chunked],
    budget: u64,
    bounds: &[(u64, u64)],
    dim: usize,
    step: u64,
) -> Result<Plan, String> {
    let step = step.max(1);
    let Some(&(begin, end)) = bounds.get(dim) else {
        return Err(format!("no work dimension {dim} to window"));
    };
    let empty = bounds.iter().any(|&(b, e)| b >= e);
    // What one step of the work can reach, per View.
    let mut need = Vec::with_capacity(views.len());
    for v in views {
        let n = if empty || v.terms.is_empty() {
            1
        } else {
            match slab_width(v.terms, &v.at, bounds, dim, step) {
                Some(w) => ((w >> v.shift) + 2).min(u128::from(v.chunks)) as u32,
                None => v.chunks,
            }
        };
        // Two at least of a View of several chunks, so that a target tells a View bound in
        // chunks from one bound whole by its number of bindings.
        need.push(n.max(v.chunks.min(2)).max(1));
    }
    let needed: u64 = need.iter().map(|&n| u64::from(n)).sum();
    if needed > budget {
        let each: Vec<String> = views
            .iter()
            .zip(&need)
            .map(|(v, n)| format!("`{}` {n} of its {}", v.name, v.chunks))
            .collect();
        return Err(format!(
            "one step of the work can reach {needed} chunks in all ({}), more than the {budget} \
             bindings left for them",
            each.join(", ")
        ));
    }
    let room: Vec<u64> = views
        .iter()
        .zip(&need)
        .map(|(v, &n)| u64::from(v.chunks - n))
        .collect();
    let total_room: u64 = room.iter().sum();
    let extra = budget - needed;
    let bound: Vec<u32> = need
        .iter()
        .zip(&room)
        .map(|(&n, &r)| {
            let share = if total_room <= extra {
                r
            } else {
                (u128::from(extra) * u128::from(r) / u128::from(total_room)) as u64
            };
            n + share as u32
        })
        .collect();
    let mut windows = Vec::new();
    if empty {
        return Ok(Plan { bound, windows });
    }
    let at = |lo: u64, hi: u64| -> Vec<(u64, u64)> {
        let mut b = bounds.to_vec();
        b[dim] = (lo, hi);
        b
    };
    // The first chunk each View binds for the work `lo..hi`, when all it reaches fits.
    let bases = |lo: u64, hi: u64| -> Option<Vec<u32>> {
        let w = at(lo, hi);
        views
            .iter()
            .zip(&bound)
            .map(|(v, &k)| {
                let Some((a, z)) = span(v.terms, &v.at, &w) else {
                    return Some(0);
                };
                let last = u64::from(v.chunks - k);
                let base = (a >> v.shift).min(last);
                ((z >> v.shift) < base + u64::from(k)).then_some(base as u32)
            })
            .collect()
    };
    // The end of the window of `k` steps from `lo`.
    let stop = |lo: u64, k: u64| lo.saturating_add(k.saturating_mul(step)).min(end);
    let mut lo = begin;
    while lo < end {
        // The reach grows with the window, so the longest window that fits is found by
        // bisection over its number of steps; one step always fits (each View's bound is at
        // least its `need`).
        let steps = (end - lo).div_ceil(step);
        let mut ok = steps;
        if bases(lo, end).is_none() {
            let mut bad = steps;
            ok = 1;
            while bad - ok > 1 {
                let mid = ok + (bad - ok) / 2;
                if bases(lo, stop(lo, mid)).is_some() {
                    ok = mid;
                } else {
                    bad = mid;
                }
            }
        }
        let hi = stop(lo, ok);
        let Some(b) = bases(lo, hi) else {
            return Err(format!(
                "work item {lo} reaches more chunks than one step of the work may"
            ));
        };
        windows.push(Window {
            begin: lo,
            end: hi,
            bases: b,
        });
        lo = hi;
    }
    Ok(Plan { bound, windows })
}

#[cfg(test)]
mod tests;
