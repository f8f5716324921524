//! Which View accesses of a device launch are proven in bounds before it runs, so that the
//! emitters drop their checks: one analysis of the kernel ([`sites`], once per kernel), one
//! decision per launch ([`Proven::prove`]), one question both emitters ask ([`Proven::index_of`]).
//!
//! An access qualifies when every index is a *shifted work index*, `w_d`, `w_d + c`, `c + w_d`
//! or `w_d - c` with `c` an integer literal (`+`/`-` or their wrapping forms): a range kernel's
//! `u[i - 1]`, an MDRange's `u[(i + 1, j)]` or `t[(j, i)]` (any work dimension at any index
//! position, rank 1 to 6, any layout: the proof is on logical indices, which the strides then
//! place). The work index of dimension `d` takes exactly the values `begin_d .. end_d` of the
//! launch's policy, so the access is in bounds for every work item when, for each index
//! position `p`, `begin_d + c ≥ 0` and `end_d - 1 + c < extent_p` ([`covers`]). The same two
//! facts make the index arithmetic exact: no value in between can wrap, and in particular
//! `i - 1` is never evaluated at `i = 0` (where it is a failure of the work item under overflow
//! checks and a wrapped, out-of-bounds index without). A proven access is emitted with its
//! indices as wrapping arithmetic ([`Proven::index_of`]) and without a check.
//!
//! The proof is unconditional: an access under an `if` or in a loop is proven for every work item,
//! whether or not it runs it, which only keeps checks that could have gone. Reads and writes
//! qualify alike; atomics keep their checks (their accessors are the targets' own).

use rokkos_core::ir::{ArithOp, BinaryOp, Expr, Kernel, Stmt, Value, ViewRef};

/// One index of an access in the form the proof reads: work index `dim` plus `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shifted {
    /// The work dimension (0 for a range kernel).
    pub dim: u32,
    /// The literal added (negative: subtracted).
    pub offset: i64,
}

/// A View access whose every index is [`Shifted`]: View parameter `view`, one entry per index
/// position.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    /// The View parameter.
    pub view: u32,
    /// Its indices, by position.
    pub index: Vec<Shifted>,
}

/// `e` as a shifted work index, when it is one (a literal beyond `i64` never is: no extent
/// reaches it).
pub fn shifted(e: &Expr) -> Option<Shifted> {
    let lit = |e: &Expr| match e {
        Expr::Lit(Value::U64(c)) => i64::try_from(*c).ok(),
        _ => None,
    };
    let work = |e: &Expr| match e {
        Expr::WorkIndex(d) => Some(*d),
        _ => None,
    };
    match e {
        Expr::WorkIndex(d) => Some(Shifted { dim: *d, offset: 0 }),
        Expr::Binary {
            op: BinaryOp::Arith(op),
            lhs,
            rhs,
        } => match op {
            ArithOp::Add | ArithOp::WrappingAdd => {
                let (dim, offset) = match (work(lhs), lit(rhs)) {
                    (Some(d), Some(c)) => (d, c),
                    _ => (work(rhs)?, lit(lhs)?),
                };
                Some(Shifted { dim, offset })
            }
            ArithOp::Sub | ArithOp::WrappingSub => Some(Shifted {
                dim: work(lhs)?,
                offset: lit(rhs)?.checked_neg()?,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// `index` as shifted work indices, when every one is.
pub fn shifted_index(index: &[Expr]) -> Option<Vec<Shifted>> {
    index.iter().map(shifted).collect()
}

/// Every View-parameter load and store of `k`'s body whose every index is shifted, each once, in
/// order. (Helper functions cannot reach Views, and a team kernel has no work index.)
pub fn sites(k: &Kernel) -> Vec<Site> {
    let mut out = Vec::new();
    let mut note = |view: &ViewRef, index: &[Expr]| {
        if let (ViewRef::Param(v), Some(index)) = (view, shifted_index(index)) {
            out.push(Site { view: v.0, index });
        }
    };
    for s in &k.body {
        s.walk(&mut |st| {
            if let Stmt::Store { view, index, .. } = st {
                note(view, index);
            }
            for e in st.exprs() {
                e.walk(&mut |x| {
                    if let Expr::Load { view, index } = x {
                        note(view, index);
                    }
                });
            }
        });
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `w + offset` lies in `0..extent` for every `w` in `begin..end` (true for an empty
/// range: no work item runs).
pub fn covers(begin: u64, end: u64, offset: i64, extent: u64) -> bool {
    if begin >= end {
        return true;
    }
    let (lo, hi) = (
        i128::from(begin) + i128::from(offset),
        i128::from(end) - 1 + i128::from(offset),
    );
    lo >= 0 && hi < i128::from(extent)
}

/// The accesses of one launch proven in bounds: part of the compiled module's key (a different
/// set is a different module).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Proven {
    sites: Vec<Site>,
}

impl Proven {
    /// None proven: every access checked.
    pub const NONE: Proven = Proven { sites: Vec::new() };

    /// The `sites` (of [`sites`]) in bounds for a launch over `bounds` (`begin..end` of each work
    /// dimension) with View parameter `v`'s extents `extents[v]`.
    /// A launch with an empty dimension runs no work item and proves every access.
    pub fn prove(sites: &[Site], bounds: &[(u64, u64)], extents: &[&[usize]]) -> Proven {
        let empty = bounds.iter().any(|&(b, e)| b >= e);
        let ok = |s: &Site| {
            let Some(ext) = extents.get(s.view as usize) else {
                return false;
            };
            ext.len() == s.index.len()
                && (empty
                    || s.index.iter().zip(ext.iter()).all(|(x, &e)| {
                        bounds
                            .get(x.dim as usize)
                            .is_some_and(|&(b, n)| covers(b, n, x.offset, e as u64))
                    }))
        };
        let mut sites: Vec<Site> = sites.iter().filter(|s| ok(s)).cloned().collect();
        // Sorted, so that equal sets key one module and `index_of` can search.
        sites.sort();
        sites.dedup();
        Proven { sites }
    }

    /// Whether nothing is proven.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// The proven accesses.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// The indices to emit unchecked for the access `view[index]`, when it is proven: each
    /// shifted work index as wrapping arithmetic (`u64`, exact: the proof excludes a wrap), so
    /// that a kernel's overflow checks add nothing to it either.
    pub fn index_of(&self, view: ViewRef, index: &[Expr]) -> Option<Vec<Expr>> {
        let ViewRef::Param(v) = view else { return None };
        let index = shifted_index(index)?;
        let site = Site { view: v.0, index };
        self.sites.binary_search(&site).ok()?;
        Some(site.index.iter().map(|x| unchecked(*x)).collect())
    }
}

/// `w_dim + offset` as wrapping `u64` arithmetic.
fn unchecked(x: Shifted) -> Expr {
    let w = Expr::WorkIndex(x.dim);
    if x.offset == 0 {
        return w;
    }
    let op = if x.offset > 0 {
        ArithOp::WrappingAdd
    } else {
        ArithOp::WrappingSub
    };
    Expr::Binary {
        op: BinaryOp::Arith(op),
        lhs: Box::new(w),
        rhs: Box::new(Expr::Lit(Value::U64(x.offset.unsigned_abs()))),
    }
}

#[cfg(test)]
mod tests;
