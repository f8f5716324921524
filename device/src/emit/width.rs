//! Index width chosen per launch: the proof that lets a device backend run a kernel's `usize`
//! values (the IR's `u64`) as 32-bit integers.
//!
//! A device kernel has two variants. The 64-bit one spells every IR `u64` as a 64-bit integer.
//! The 32-bit one ([`IndexWidth::W32`]) spells every IR `u64` as `u32`: work indices, extents,
//! strides, offsets, loop counters, `usize` locals and `usize` scalar arguments. [`plan`] decides,
//! once per kernel, whether the 32-bit variant computes exactly what the 64-bit one computes
//! whenever the launch satisfies the [launch facts](#launch-facts); [`launch_fits`] decides, once
//! per launch, whether it does. A backend runs the 32-bit variant when both hold, and the
//! variant is part of its compiled-kernel cache key.
//!
//! Where the kernel-wide plan fails only on magnitudes (`a[i * n + j]`: the product of two atoms
//! can reach `2^62`), the [per-launch proof](#the-per-launch-proof) runs the same analysis with
//! this launch's values of the atoms, and the launch runs 32-bit when every value then fits.
//!
//! # Launch facts
//!
//! The 32-bit variant may run only when, for this launch:
//!
//! - every extent of every View argument, every bound of the policy (begin and end of each
//!   dimension; for a team policy [`team_bounds`]: league size, team size, vector length, their
//!   product, and the bytes of each level's scratch arena) and every `usize` scalar argument is
//!   at most [`ATOM_MAX`] (`2^31 - 1`);
//! - every View argument's addressed elements lie below element `u32::MAX` of its buffer
//!   (`offset + span < u32::MAX`), so that the offset `off + Σ i_d·s_d` of an in-bounds index fits.
//!
//! # Proof obligations
//!
//! Under the launch facts, [`plan`] gives every IR expression of type `u64` an interval
//! `[lo, hi]` of the values it can take (a sound over-approximation), and accepts the kernel only
//! when **every** `u64` expression and local has `hi <= u32::MAX`. Then every `u64` value the
//! 64-bit variant computes fits a `u32` and the 32-bit variant computes the same value, because
//! each rule below holds:
//!
//! 1. **Atoms.** A work index is below its policy end, an extent, a team query and a `usize`
//!    scalar argument are at most [`ATOM_MAX`] (launch facts): `[0, ATOM_MAX]`. A literal `x` is
//!    `[x, x]`. A cast to `usize` from `u32`, `u16`, `u8` or `bool` is bounded by its source
//!    type. Every other source of a `usize` (a load from a `u64` View, an accumulator, a helper
//!    function's result, a cast from a signed or float type, an atomic) is unbounded.
//! 2. **Arithmetic** of two bounded operands is bounded by interval arithmetic (`+`, `*`, `/`,
//!    `%`, `min`, `max`, `clamp`, `&`, `|`, `^`, `>>` and `<<` by a literal below 32). Its result
//!    must be at most `u32::MAX`, so a 32-bit `+`, `*` or `<<` never overflows where the 64-bit
//!    one does not, and never wraps. `a - b` is exact when `lo(a) >= hi(b)`; otherwise it is
//!    accepted only with overflow checks (where both widths fail the work item with the same
//!    message on `a < b`), never for `wrapping_sub` or without checks (the wrapped values differ).
//!    Division and remainder by zero fail in both widths alike.
//! 3. **Locals** (scalars and array elements) are bounded by the hull of every value assigned to
//!    them, found by iterating to a fixed point; a local whose bound still grows after a few
//!    rounds (`j = j + 1` in a `while`) is unbounded. A `for` counter takes values in
//!    `[lo(start), hi(end)]`, and the 32-bit loop never forms a value past its end.
//! 4. **Uses** of a bounded value outside `usize` are width-independent: a comparison compares
//!    the same numbers; a cast to any type converts the same number (an integer truncation keeps
//!    the same low bits, a float conversion rounds the same value); a shift amount is checked
//!    (`>= width` of the shifted type) and masked on the same number.
//! 5. **Indices** of View and local-array accesses must be unsigned (`usize` bounded as above,
//!    `u32`, `u16`, `u8`): a negative signed index is out of bounds in both widths, but its
//!    reported value would differ.
//! 6. **Team constructs.** A team query (league rank and size, team rank and size, vector
//!    length) is an atom: a rank is below its size, and the sizes are launch facts. A nested
//!    thread, vector or team-vector range (for, reduce, scan) must have a start and an end at
//!    most [`NESTED_MAX`] (`2^31`): its index then takes values in `[lo(start), hi(end)]`, and
//!    the emitted counters (the participant's index stepped by the participant count, at most
//!    [`ATOM_MAX`] by the launch facts; a scan's chunk offsets, at most the last offset plus the
//!    participant count) stay below `2^32`. A nested reduction's or scan's `usize` accumulator,
//!    result or total is unbounded (it is a join of values the analysis does not follow). A
//!    broadcast's source must be unsigned. A scratch allocation's extents must be `usize`
//!    values at most [`ATOM_MAX`] (or `u8` / `u16`); a scratch View's extent then takes the
//!    values its allocations' extent expressions take (their hull over every allocation of
//!    that View, joined in the fixed point as a local's values are), so `s.extent(0)` of
//!    `team_scratch(0, [64])` is 64, not any atom; its element count and pool offsets are
//!    computed by the formulas of [`crate::emit::team`], which give the same count (saturated
//!    at `2^32`), the same fits-or-fails decision and the same offsets in both widths when
//!    every pool is at most [`ATOM_MAX`] bytes (a launch fact, [`team_bounds`]).
//! 7. **Kernels outside the proof**: 64-bit bit casts (`f64::to_bits`, `f64::from_bits`: their
//!    `u64` is a value's 64 bits, not a number), `usize` View elements, accumulators or helper functions
//!    that use `usize` (their values cross memory, the host boundary or a call, which the
//!    analysis does not follow), and `usize` scratch elements, always run the 64-bit variant.
//!
//! A kernel whose plan fails runs the 64-bit variant; its result is the same either way, only
//! slower. On a device without 64-bit integers such a kernel cannot run, and neither can one
//! that uses `i64`/`u64` values of its own ([`WidthPlan::int64`]).
//!
//! # The per-launch proof
//!
//! [`launch_proof`] is the analysis above with one change: an atom's interval is its value in
//! this launch ([`LaunchAtoms`]) instead of `[0, ATOM_MAX]`: a work index `[begin, end - 1]` of
//! its dimension, an extent and a `usize` scalar argument `[v, v]`, a league or team rank
//! `[0, size - 1]`, a league size, team size or vector length `[v, v]` (so a scratch View's
//! extent, computed from these, narrows too). Every rule keeps its proof: the launch still
//! satisfies the launch facts (the launcher checks them first), and the atoms' values lie in
//! their new intervals, so every interval still over-approximates the values the 64-bit variant
//! computes in this launch. Narrower atoms can only shrink the intervals, so the proof accepts
//! every launch of a kernel [`plan`] accepts.
//!
//! The proof is tried only for a kernel that [`WidthPlan::per_launch`] marks: one whose types
//! allow the 32-bit variant (rules 5 and 7) and whose analysis, run in an unlimited width
//! (saturating intervals, a subtraction that may wrap taken as `[0, hi]`), bounds every `usize`
//! value: then only magnitudes stand in the way, and the launch's values decide. A growing local,
//! an unbounded source or a literal past 32 bits fail there too, and keep the kernel-wide
//! refusal. [`choose`] takes the decision (the one both device backends take, through
//! `Prepared::index_width`) and caches each launch's answer by kernel hash and atoms, so a time
//! loop of identical launches walks the kernel once.
//!
//! # The device backends
//!
//! Both device targets (WGSL, CUDA C) implement [`crate::emit::walk::Target`] and see the lowered
//! types through [`crate::emit::walk::Cx::ty`] when their walk is made with `narrow` set: each
//! spells a 32-bit parameter block (extents, strides, offsets, `usize` scalars), a 32-bit work
//! index, and overrides [`crate::emit::walk::Target::to_u32`]. Both launchers decide the variant
//! with [`crate::runtime::prepare::Prepared::launch_fits`] and key their compiled-kernel caches on
//! [`IndexWidth`].

use crate::runtime::fast_map::FastMap;
use rokkos_core::ir::{
    ArithOp, ArrayInit, BinaryOp, BitwiseOp, Block, Expr, Kernel, LocalDecl, LocalId, MathFn,
    ScalarType, ScratchId, Stmt, TeamQuery, Value, ViewRef,
};
use std::sync::{Arc, Mutex, OnceLock};

/// The largest extent, policy bound and `usize` scalar argument the 32-bit variant accepts.
pub const ATOM_MAX: u64 = (1 << 31) - 1;

/// The largest start and end of a nested team range the 32-bit variant accepts (rule 6 of the
/// module docs): with a participant count at most [`ATOM_MAX`], every counter of the nested loop
/// stays below `2^32`.
pub const NESTED_MAX: u64 = 1 << 31;

/// The policy bounds of a team launch that join the launch facts: the league size, the team
/// size, the vector length, the invocations of a team (team size times vector length, the
/// largest participant count of a nested range) and the bytes of one team's scratch arena at
/// levels 0 and 1 (its team pool and every thread's pool: every scratch offset lies below it).
/// Pass them to [`launch_fits`] (or `Prepared::launch_fits`) with the View extents.
pub fn team_bounds(league: u64, team: u64, vlen: u64, arena_bytes: [u64; 2]) -> [u64; 6] {
    [
        league,
        team,
        vlen,
        team.saturating_mul(vlen),
        arena_bytes[0],
        arena_bytes[1],
    ]
}

/// Which variant of a kernel a launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexWidth {
    /// Every IR `u64` spelled as a 32-bit integer.
    W32,
    /// Every IR `u64` spelled as a 64-bit integer.
    W64,
}

/// What [`plan`] found for one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WidthPlan {
    /// `Ok` when the 32-bit variant is exact under the launch facts, whatever the sizes;
    /// otherwise the first value that escapes the proof, described for an error message.
    pub index32: Result<(), String>,
    /// When [`WidthPlan::index32`] fails: whether only the bounds stood in the way, so that a
    /// launch's own bounds may still prove the 32-bit variant ([`launch_proof`]). `false` when
    /// the kernel's types rule it out (rule 5, rule 7) or when `index32` holds.
    pub per_launch: bool,
    /// `Some(reason)` when even the 32-bit variant needs 64-bit integers: a value of type
    /// `i64`/`u64` of the kernel's own, or an escape no launch's bounds can remove.
    pub int64: Option<String>,
}

impl WidthPlan {
    /// The variant a launch runs by the kernel-wide proof alone: the 32-bit one when the plan
    /// and the launch facts allow it ([`choose`] adds the per-launch proof).
    pub fn width(&self, launch_fits: bool) -> IndexWidth {
        if launch_fits && self.index32.is_ok() {
            IndexWidth::W32
        } else {
            IndexWidth::W64
        }
    }

    /// Whether some launch may run the kernel's 32-bit variant: the kernel-wide proof holds or
    /// a per-launch proof may. An emitter refuses the 32-bit variant of any other kernel.
    pub fn may_run_32(&self) -> bool {
        self.index32.is_ok() || self.per_launch
    }
}

/// The values a launch's policy gives the work index and the team queries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Work {
    /// `(begin, end)` of each work dimension: one for a range, `N` for an MDRange.
    Ranges(Vec<(u64, u64)>),
    /// A team launch: league size, team size, vector length.
    Team([u64; 3]),
}

impl Work {
    /// The work space of a range `begin..end`.
    pub fn range(begin: usize, end: usize) -> Work {
        Work::Ranges(vec![(begin as u64, end as u64)])
    }

    /// The work space of an MDRange from `begin` to `end` (one pair per dimension).
    pub fn md(begin: &[usize], end: &[usize]) -> Work {
        Work::Ranges(
            begin
                .iter()
                .zip(end)
                .map(|(&b, &e)| (b as u64, e as u64))
                .collect(),
        )
    }

    /// The work space of a team launch.
    pub fn team(league: u64, team: u64, vlen: u64) -> Work {
        Work::Team([league, team, vlen])
    }
}

/// One launch's concrete atoms, the input of [`launch_proof`]: the work space, each View
/// argument's extents and each `usize` scalar argument's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaunchAtoms {
    /// The policy's work space.
    pub work: Work,
    /// The extents of each View argument, in IR parameter order.
    pub extents: Vec<Vec<u64>>,
    /// Each scalar argument, in IR parameter order: its value when it is a `usize`, else `None`.
    pub scalars: Vec<Option<u64>>,
}

/// The variant a launch runs, and why not the 32-bit one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The variant.
    pub width: IndexWidth,
    /// `None` for [`IndexWidth::W32`]; else why this launch needs 64-bit indices (for the
    /// error of a device without 64-bit integers).
    pub why_64: Option<String>,
}

/// A per-launch answer's key: the kernel's stable hash and the launch's atoms.
type ProofKey = (u64, LaunchAtoms);

/// Most kernels whose plan [`cached_plan`] keeps, and most launches whose answer [`choose`]
/// keeps: past it the cache starts over (a bound on memory, never on correctness).
const CACHE_MAX: usize = 1024;

fn bounded_get<K: std::hash::Hash + Eq, V: Clone>(
    cache: &'static OnceLock<Mutex<FastMap<K, V>>>,
    key: K,
    make: impl FnOnce() -> V,
) -> V {
    let map = cache.get_or_init(Default::default);
    if let Some(v) = map.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return v.clone();
    }
    // Computed outside the lock: two threads may both compute one answer, which is the same.
    let v = make();
    let mut m = map.lock().unwrap_or_else(|e| e.into_inner());
    if m.len() >= CACHE_MAX {
        m.clear();
    }
    m.entry(key).or_insert(v).clone()
}

/// [`plan`] of the kernel `k` whose stable hash is `hash`, computed on its first launch in this
/// process and kept (every device backend shares this cache).
pub fn cached_plan(hash: u64, k: &Kernel) -> Arc<WidthPlan> {
    static PLANS: OnceLock<Mutex<FastMap<u64, Arc<WidthPlan>>>> = OnceLock::new();
    bounded_get(&PLANS, hash, || Arc::new(plan(k)))
}

/// The variant of one launch of kernel `k` (stable hash `hash`): the 32-bit one when the launch
/// satisfies the launch facts (`fits`, [`launch_fits`]) and the kernel-wide plan or, failing
/// it, the per-launch proof over `atoms` holds. The per-launch answers are cached by kernel hash
/// and atoms, so a time loop of identical launches walks the kernel once.
pub fn choose(hash: u64, k: &Kernel, fits: bool, atoms: impl FnOnce() -> LaunchAtoms) -> Choice {
    let plan = cached_plan(hash, k);
    let w64 = |why: String| Choice {
        width: IndexWidth::W64,
        why_64: Some(why),
    };
    let w32 = Choice {
        width: IndexWidth::W32,
        why_64: None,
    };
    match &plan.index32 {
        Err(why) if !plan.per_launch => return w64(why.clone()),
        _ if !fits => {
            return w64(
                "this launch's sizes or addresses do not fit 32 bits (an extent, a policy bound \
                 or a usize argument past 2^31 - 1, or a View reaching element 2^32 - 1)"
                    .into(),
            )
        }
        Ok(()) => return w32,
        Err(_) => {}
    }
    static PROOFS: OnceLock<Mutex<FastMap<ProofKey, Result<(), String>>>> = OnceLock::new();
    let atoms = atoms();
    let proof = bounded_get(&PROOFS, (hash, atoms.clone()), || launch_proof(k, &atoms));
    match proof {
        Ok(()) => w32,
        Err(why) => w64(format!(
            "{why} for this launch's sizes (the 32-bit index proof depends on the sizes and \
             bounds: smaller sizes, or bounds under which a subtraction cannot go below zero, \
             may pass it)"
        )),
    }
}

/// Whether a launch satisfies the launch facts: `sizes` are the extents of every View argument,
/// the policy's bounds and the `usize` scalar arguments; `addr32` says whether every View
/// argument's elements lie below element `u32::MAX` of its buffer.
pub fn launch_fits(sizes: impl IntoIterator<Item = u64>, addr32: bool) -> bool {
    addr32 && sizes.into_iter().all(|s| s <= ATOM_MAX)
}

/// A closed interval of `u64` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Iv {
    lo: u64,
    hi: u64,
}

impl Iv {
    const ATOM: Iv = Iv {
        lo: 0,
        hi: ATOM_MAX,
    };
    fn hull(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }
    fn fits(self) -> bool {
        self.hi <= u32::MAX as u64
    }
}

/// What is known of a `u64` local.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    /// Nothing assigned yet.
    Bottom,
    /// Every value assigned lies here.
    In(Iv),
    /// Unbounded.
    Wide,
}

/// Fixed-point rounds after which a still growing local is unbounded.
const ROUNDS: usize = 4;

struct Analysis<'a> {
    k: &'a Kernel,
    atoms: Atoms<'a>,
    /// Whether magnitudes are ignored (an unlimited width): then the analysis fails only on
    /// what no bounds can fix, an unbounded source or a growing local, which tells a kernel
    /// that a launch's own bounds may prove from one they cannot ([`WidthPlan::per_launch`]).
    unlimited: bool,
    locals: Vec<Bound>,
    /// Per scratch View and dimension, every extent value its allocations may take (rule 6
    /// bounds them; the fixed point joins them as it joins locals).
    scratch: Vec<Vec<Bound>>,
}

/// The bounds the analysis gives its atoms: the launch facts' (every atom in `[0, ATOM_MAX]`,
/// the kernel-wide [`plan`]) or one launch's concrete values ([`launch_proof`]).
#[derive(Clone, Copy)]
enum Atoms<'a> {
    Facts,
    Launch(&'a LaunchAtoms),
}

impl Atoms<'_> {
    /// The interval of an atom expression (a work index, an extent, a team query, a `usize`
    /// scalar argument).
    fn of(self, e: &Expr) -> Iv {
        let Atoms::Launch(l) = self else {
            return Iv::ATOM;
        };
        let point = |x: u64| Iv { lo: x, hi: x };
        // Values `0..n`: an empty range runs no work item, so any interval is sound there.
        let below = |lo: u64, end: u64| Iv {
            lo: lo.min(end),
            hi: end.saturating_sub(1).max(lo.min(end)),
        };
        let ranged = match (e, &l.work) {
            (Expr::WorkIndex(d), Work::Ranges(r)) => r.get(*d as usize).map(|&(b, e)| below(b, e)),
            (Expr::Team(q), Work::Team([league, team, vlen])) => Some(match q {
                TeamQuery::LeagueRank => below(0, *league),
                TeamQuery::LeagueSize => point(*league),
                TeamQuery::TeamRank => below(0, *team),
                TeamQuery::TeamSize => point(*team),
                TeamQuery::VectorLength => point(*vlen),
            }),
            (
                Expr::Extent {
                    view: ViewRef::Param(v),
                    dim,
                },
                _,
            ) => l
                .extents
                .get(v.0 as usize)
                // Past the rank an extent is 0.
                .map(|x| point(x.get(*dim as usize).copied().unwrap_or(0))),
            (Expr::Param(p), _) => l.scalars.get(p.0 as usize).copied().flatten().map(point),
            _ => None,
        };
        // An atom the launch does not describe keeps the launch facts' bound. (A scratch
        // View's extent is not an atom: `Analysis::scratch_extent`.)
        ranged.unwrap_or(Iv::ATOM)
    }
}

fn is_u64(k: &Kernel, locals: &[LocalDecl], e: &Expr) -> bool {
    e.ty(k, locals) == Some(ScalarType::U64)
}

impl Analysis<'_> {
    /// The interval of a `u64` expression (`None`: unbounded, not representable, or past
    /// `u32::MAX`).
    fn iv(&self, e: &Expr) -> Option<Iv> {
        self.reach(e).filter(|&v| self.fits(v))
    }

    /// Whether `v` is within the width the analysis checks.
    fn fits(&self, v: Iv) -> bool {
        self.unlimited || v.fits()
    }

    /// [`Analysis::iv`] before the final 32-bit check of `e` itself (its operands are
    /// checked): how far a value reaches, for an error message.
    fn reach(&self, e: &Expr) -> Option<Iv> {
        let k = self.k;
        let iv = |x: &Expr| self.iv(x);
        match e {
            // A literal is no size: past 32 bits, no launch brings it back.
            Expr::Lit(Value::U64(x)) if *x <= u32::MAX as u64 => Some(Iv { lo: *x, hi: *x }),
            Expr::Lit(_) => None,
            Expr::Extent {
                view: ViewRef::Scratch(s),
                dim,
            } => Some(self.scratch_extent(*s, *dim)),
            Expr::WorkIndex(_) | Expr::Extent { .. } | Expr::Team(_) | Expr::Param(_) => {
                Some(self.atoms.of(e))
            }
            Expr::Local(l) | Expr::ArrayLoad { array: l, .. } => match self.locals[l.0 as usize] {
                Bound::In(b) => Some(b),
                // An unassigned local is never read (the validator requires an assignment
                // first); during the fixed point it contributes nothing yet.
                Bound::Bottom => Some(Iv { lo: 0, hi: 0 }),
                Bound::Wide => None,
            },
            Expr::Cast { arg, .. } => match arg.ty(k, &k.locals)? {
                ScalarType::U64 => iv(arg),
                ScalarType::Bool => Some(Iv { lo: 0, hi: 1 }),
                t @ (ScalarType::U32 | ScalarType::U16 | ScalarType::U8) => Some(Iv {
                    lo: 0,
                    hi: u64::MAX >> (64 - t.bits()),
                }),
                _ => None,
            },
            Expr::Select {
                on_true, on_false, ..
            } => Some(iv(on_true)?.hull(iv(on_false)?)),
            Expr::Binary { op, lhs, rhs } => {
                let a = iv(lhs)?;
                let r = match op {
                    BinaryOp::Bitwise(o @ (BitwiseOp::Shl | BitwiseOp::Shr)) => shift(*o, a, rhs)?,
                    BinaryOp::Arith(o) => {
                        arith(*o, a, iv(rhs)?, k.overflow_checks, self.unlimited)?
                    }
                    BinaryOp::Bitwise(o) => bitwise(*o, a, iv(rhs)?),
                    _ => return None,
                };
                Some(r)
            }
            Expr::Math { func, args } => {
                let ivs = args.iter().map(iv).collect::<Option<Vec<_>>>()?;
                match (func, ivs.as_slice()) {
                    (MathFn::Min, [a, b]) => Some(Iv {
                        lo: a.lo.min(b.lo),
                        hi: a.hi.min(b.hi),
                    }),
                    (MathFn::Max, [a, b]) => Some(Iv {
                        lo: a.lo.max(b.lo),
                        hi: a.hi.max(b.hi),
                    }),
                    (MathFn::Clamp, [a, b, c]) => Some(a.hull(*b).hull(*c)),
                    _ => None,
                }
            }
            Expr::AccRead(_)
            | Expr::Unary { .. }
            | Expr::Load { .. }
            | Expr::Call { .. }
            | Expr::Atomic(_)
            | Expr::TableLoad { .. }
            | Expr::IsFinal => None,
        }
    }

    /// The values extent `dim` of scratch View `s` takes: those of its allocations' extent
    /// expressions, or, where the analysis bounds none, the launch facts' `[0, ATOM_MAX]` (rule
    /// 6 refuses a kernel whose scratch extent is not proven below it).
    fn scratch_extent(&self, s: ScratchId, dim: u32) -> Iv {
        match self.scratch.get(s.0 as usize).map(|d| d.get(dim as usize)) {
            // Past the rank an extent is 0.
            Some(None) => Iv { lo: 0, hi: 0 },
            Some(Some(Bound::In(v))) => *v,
            // Not allocated yet: as an unassigned local, it contributes nothing during the
            // fixed point (a scratch View is used only after its allocation, which every round
            // visits first).
            Some(Some(Bound::Bottom)) => Iv { lo: 0, hi: 0 },
            Some(Some(Bound::Wide)) | None => Iv::ATOM,
        }
    }

    /// The bound of one allocation's extent `e`: a `usize` expression's interval, a `u8`/`u16`
    /// one's type range.
    fn extent_value(&self, e: &Expr) -> Option<Iv> {
        match e.ty(self.k, &self.k.locals)? {
            ScalarType::U64 => self.iv(e),
            t @ (ScalarType::U8 | ScalarType::U16) => Some(Iv {
                lo: 0,
                hi: u64::MAX >> (64 - t.bits()),
            }),
            _ => None,
        }
    }

    /// Joins `value` into `slot` (widening a still growing bound after enough rounds); returns
    /// whether it changed.
    fn join(&self, slot: &mut Bound, value: Option<Iv>, widen: bool) -> bool {
        let old = *slot;
        let new = match (old, value) {
            (Bound::Wide, _) | (_, None) => Bound::Wide,
            (Bound::Bottom, Some(v)) => Bound::In(v),
            (Bound::In(o), Some(v)) => Bound::In(o.hull(v)),
        };
        let new = match new {
            Bound::In(v) if !self.fits(v) => Bound::Wide,
            Bound::In(_) if widen && new != old => Bound::Wide,
            b => b,
        };
        *slot = new;
        new != old
    }

    /// Joins `value`'s bound into local `l` (a `u64` local); returns whether it changed.
    fn assign(&mut self, l: LocalId, value: Option<Iv>, widen: bool) -> bool {
        let mut slot = self.locals[l.0 as usize];
        let changed = self.join(&mut slot, value, widen);
        self.locals[l.0 as usize] = slot;
        changed
    }

    /// One round over `b`; returns whether any local's bound changed.
    fn round(&mut self, b: &Block, widen: bool) -> bool {
        let mut changed = false;
        for s in b {
            let k = self.k;
            let u64_local = |l: &LocalId| k.locals[l.0 as usize].ty == ScalarType::U64;
            match s {
                Stmt::Let {
                    local,
                    init: Some(e),
                }
                | Stmt::Assign { local, value: e }
                | Stmt::ArrayStore {
                    array: local,
                    value: e,
                    ..
                }
                | Stmt::Broadcast {
                    local, value: e, ..
                } if u64_local(local) => {
                    let v = self.iv(e);
                    changed |= self.assign(*local, v, widen);
                }
                Stmt::LetArray { local, init } if u64_local(local) => {
                    let es: Vec<&Expr> = match init {
                        ArrayInit::Fill(e) => vec![e],
                        ArrayInit::Elems(es) => es.iter().collect(),
                    };
                    for e in es {
                        let v = self.iv(e);
                        changed |= self.assign(*local, v, widen);
                    }
                }
                Stmt::For {
                    var, start, end, ..
                } if u64_local(var) => {
                    let v = match (self.iv(start), self.iv(end)) {
                        (Some(s), Some(e)) => Some(Iv { lo: s.lo, hi: e.hi }),
                        _ => None,
                    };
                    changed |= self.assign(*var, v, widen);
                }
                // A nested range's index lies in `[start, end]` (its loop never assigns a value
                // past the end); the bounds of start and end are checked in `check_team`.
                Stmt::NestedFor {
                    var, start, end, ..
                }
                | Stmt::NestedReduce {
                    var, start, end, ..
                }
                | Stmt::NestedScan {
                    var, start, end, ..
                } if u64_local(var) => {
                    let v = match (self.iv(start), self.iv(end)) {
                        (Some(s), Some(e)) => Some(Iv { lo: s.lo, hi: e.hi }),
                        _ => None,
                    };
                    changed |= self.assign(*var, v, widen);
                }
                Stmt::Scratch { id, extents } => {
                    for (d, e) in extents.iter().enumerate() {
                        let v = self.extent_value(e);
                        let i = id.0 as usize;
                        let Some(mut slot) = self.scratch.get(i).and_then(|x| x.get(d)).copied()
                        else {
                            continue;
                        };
                        changed |= self.join(&mut slot, v, widen);
                        self.scratch[i][d] = slot;
                    }
                }
                _ => {}
            }
            // Every other local a team construct declares or assigns (accumulators, results,
            // totals) is unbounded when it is a `usize`.
            if let Stmt::NestedReduce { acc, result, .. } = s {
                for l in [acc, result] {
                    if u64_local(l) {
                        changed |= self.assign(*l, None, widen);
                    }
                }
            }
            if let Stmt::NestedScan { partial, total, .. } = s {
                for l in [partial, total] {
                    if u64_local(l) {
                        changed |= self.assign(*l, None, widen);
                    }
                }
            }
            for inner in s.blocks() {
                changed |= self.round(inner, widen);
            }
        }
        changed
    }
}

/// `a op b` over intervals; `unlimited`: saturate instead of failing past 64 bits, and take a
/// subtraction that may wrap as `[0, hi]` (the magnitudes a launch's bounds decide).
fn arith(op: ArithOp, a: Iv, b: Iv, checks: bool, unlimited: bool) -> Option<Iv> {
    if unlimited {
        match op {
            ArithOp::Add | ArithOp::WrappingAdd => {
                return Some(Iv {
                    lo: a.lo.saturating_add(b.lo),
                    hi: a.hi.saturating_add(b.hi),
                })
            }
            ArithOp::Mul | ArithOp::WrappingMul => {
                return Some(Iv {
                    lo: a.lo.saturating_mul(b.lo),
                    hi: a.hi.saturating_mul(b.hi),
                })
            }
            ArithOp::Sub | ArithOp::WrappingSub => {
                return Some(Iv {
                    lo: a.lo.saturating_sub(b.hi),
                    hi: a.hi.saturating_sub(b.lo),
                })
            }
            ArithOp::Div | ArithOp::Rem => {}
        }
    }
    Some(match op {
        ArithOp::Add | ArithOp::WrappingAdd => Iv {
            lo: a.lo.checked_add(b.lo)?,
            hi: a.hi.checked_add(b.hi)?,
        },
        ArithOp::Mul | ArithOp::WrappingMul => Iv {
            lo: a.lo.checked_mul(b.lo)?,
            hi: a.hi.checked_mul(b.hi)?,
        },
        ArithOp::Sub | ArithOp::WrappingSub if a.lo >= b.hi => Iv {
            lo: a.lo - b.hi,
            hi: a.hi - b.lo,
        },
        // May underflow: both widths fail the work item alike only with overflow checks.
        ArithOp::Sub if checks => Iv {
            lo: 0,
            hi: a.hi.saturating_sub(b.lo),
        },
        ArithOp::Sub | ArithOp::WrappingSub => return None,
        ArithOp::Div => Iv {
            lo: a.lo / b.hi.max(1),
            hi: a.hi,
        },
        ArithOp::Rem => Iv {
            lo: 0,
            hi: a.hi.min(b.hi.saturating_sub(1)),
        },
    })
}

fn bitwise(op: BitwiseOp, a: Iv, b: Iv) -> Iv {
    let ones = |x: u64| {
        if x == 0 {
            0
        } else {
            u64::MAX >> x.leading_zeros()
        }
    };
    match op {
        BitwiseOp::And => Iv {
            lo: 0,
            hi: a.hi.min(b.hi),
        },
        _ => Iv {
            lo: 0,
            hi: ones(a.hi.max(b.hi)),
        },
    }
}

/// `a << s` / `a >> s` by a literal amount below 32 (a larger or computed amount is checked and
/// masked against the width, which differs between the variants).
fn shift(op: BitwiseOp, a: Iv, rhs: &Expr) -> Option<Iv> {
    let s = match rhs {
        Expr::Lit(v) if v.ty().is_int() && (v.to_bits() as i64) >= 0 => v.to_bits(),
        _ => return None,
    };
    if s >= 32 {
        return None;
    }
    Some(if op == BitwiseOp::Shl {
        Iv {
            lo: a.lo << s,
            hi: a.hi << s,
        }
    } else {
        Iv {
            lo: a.lo >> s,
            hi: a.hi >> s,
        }
    })
}

/// Decides, once per kernel, whether its 32-bit variant is exact under the launch facts, and
/// whether it needs 64-bit integers at all (see the module docs for the rules).
pub fn plan(k: &Kernel) -> WidthPlan {
    let shape = by_type(k);
    let index32 = shape.clone().and_then(|()| analyse(k, Atoms::Facts, false));
    // Only magnitudes stand in the way when the kernel is bounded in an unlimited width.
    let unlimited = shape.and_then(|()| analyse(k, Atoms::Facts, true));
    let per_launch = index32.is_err() && unlimited.is_ok();
    // A kernel no launch can prove is refused for what no bounds fix (the unlimited analysis's
    // escape), not for a magnitude it may also have, which would suggest smaller sizes help.
    let index32 = match unlimited {
        Err(why) => Err(why),
        Ok(()) => index32,
    };
    let int64 = own_i64(k).or_else(|| (!per_launch).then(|| index32.clone().err()).flatten());
    WidthPlan {
        index32,
        per_launch,
        int64,
    }
}

/// The per-launch proof: whether the 32-bit variant is exact for a launch whose atoms take the
/// values `atoms` and which satisfies the launch facts ([`launch_fits`]). It is [`plan`]'s
/// analysis with the launch's bounds in place of `[0, ATOM_MAX]`, so it accepts every kernel
/// `plan` accepts, and more: `a[i * n + j]` with `i < 1000`, `n = 1000`. `Err` names the first
/// value that escapes for these bounds.
pub fn launch_proof(k: &Kernel, atoms: &LaunchAtoms) -> Result<(), String> {
    by_type(k).and_then(|()| analyse(k, Atoms::Launch(atoms), false))
}

/// What the kernel's types alone rule out, whatever the bounds: `usize` values that cross
/// memory, the host boundary or a call (rule 7), and signed indices (rule 5).
fn by_type(k: &Kernel) -> Result<(), String> {
    if let Some(e) = wide_bit_cast(k) {
        return Err(e);
    }
    if let Some(v) = k.views.iter().find(|v| v.elem == ScalarType::U64) {
        // Its elements are `u64` in memory: a value stored there is not an index.
        return Err(format!("View `{}` has usize elements", v.name));
    }
    if let Some(t) = k.tables.iter().find(|t| t.ty == ScalarType::U64) {
        // As for Views: its elements are 64-bit constants, which no launch bound narrows.
        return Err(format!("constant table `{}` has usize elements", t.name));
    }
    if k.scratch.iter().any(|d| d.elem == ScalarType::U64) {
        // As for Views: a `usize` in scratch memory is a 64-bit value there.
        return Err("a scratch View has usize elements".into());
    }
    for (f, _) in k.acc_fields() {
        if k.acc_field_type(f) == Some(ScalarType::U64) {
            return Err(format!(
                "accumulator `{}` holds a usize",
                k.accumulators[f.acc as usize].name
            ));
        }
    }
    for f in &k.functions {
        if f.ret == ScalarType::U64 || f.locals.iter().any(|l| l.ty == ScalarType::U64) {
            return Err(format!("helper function `{}` uses usize values", f.name));
        }
    }
    let mut err = None;
    for s in &k.body {
        s.walk(&mut |s| {
            for e in s.exprs() {
                e.walk(&mut |x| {
                    let idx: &[Expr] = match x {
                        Expr::Load { index, .. } => index,
                        Expr::Atomic(at) => &at.index,
                        Expr::ArrayLoad { index, .. } | Expr::TableLoad { index, .. } => {
                            std::slice::from_ref(&**index)
                        }
                        _ => &[],
                    };
                    if err.is_none() {
                        err = signed_index(k, idx);
                    }
                });
            }
            if err.is_none() {
                err = check_stmt_indices(k, s).err();
            }
        });
    }
    err.map_or(Ok(()), Err)
}

/// The interval analysis of the module docs with the atoms bounded by `atoms`: every `u64`
/// local and expression within 32 bits, and the team constructs' bounds (rule 6).
fn analyse(k: &Kernel, atoms: Atoms<'_>, unlimited: bool) -> Result<(), String> {
    let mut a = Analysis {
        k,
        atoms,
        unlimited,
        locals: vec![Bound::Bottom; k.locals.len()],
        scratch: k
            .scratch
            .iter()
            .map(|d| vec![Bound::Bottom; d.rank as usize])
            .collect(),
    };
    let mut round = 0;
    while a.round(&k.body, round >= ROUNDS) {
        round += 1;
    }
    if let Some(l) = k
        .locals
        .iter()
        .enumerate()
        .find_map(|(i, d)| (d.ty == ScalarType::U64 && a.locals[i] == Bound::Wide).then_some(d))
    {
        return Err(format!(
            "usize local `{}` is not proven to fit 32 bits",
            l.name
        ));
    }
    let mut err = None;
    for s in &k.body {
        s.walk(&mut |s| {
            for e in s.exprs() {
                if err.is_none() {
                    err = check_expr(&a, e).err();
                }
            }
            if err.is_none() {
                err = check_team(&a, s).err();
            }
        });
    }
    err.map_or(Ok(()), Err)
}

/// Every `u64` sub-expression of `e` is bounded within 32 bits. The error names the innermost
/// value that reaches past `u32::MAX` (an operand of the escape, not the whole index), or else
/// the first one that is unbounded.
fn check_expr(a: &Analysis<'_>, e: &Expr) -> Result<(), String> {
    let k = a.k;
    let (mut past, mut unbounded) = (None, None);
    e.walk(&mut |x| {
        if past.is_some() || !is_u64(k, &k.locals, x) || a.iv(x).is_some() {
            return;
        }
        match a.reach(x) {
            Some(r) => {
                past = Some(format!(
                    "usize value `{}` may reach {} (past u32::MAX)",
                    short(x),
                    r.hi
                ))
            }
            None if unbounded.is_none() => {
                unbounded = Some(format!(
                    "usize value `{}` is not proven to fit 32 bits",
                    short(x)
                ))
            }
            None => {}
        }
    });
    past.or(unbounded).map_or(Ok(()), Err)
}

/// The first 64-bit bit cast (`f64::to_bits`, `f64::from_bits`) of the kernel or its helper
/// functions: its `u64` side is all 64 bits of a value, not a number the analysis can bound, and
/// the 32-bit variant holds only 32 (a helper function's `u64` values too are 64-bit integers).
fn wide_bit_cast(k: &Kernel) -> Option<String> {
    let mut found = None;
    for body in rokkos_core::ir::valid::Body::all(k) {
        for s in body.block {
            s.walk(&mut |s| {
                for e in s.exprs() {
                    e.walk(&mut |x| {
                        if let Expr::Math {
                            func: f @ (MathFn::ToBits | MathFn::FromBits),
                            args,
                        } = x
                        {
                            let wide = args
                                .first()
                                .and_then(|a| a.ty(k, body.locals))
                                .map(|t| t.bits())
                                == Some(64);
                            if wide && found.is_none() {
                                found = Some(format!(
                                    "`{}` reinterprets 64 bits ({})",
                                    short(x),
                                    f.name()
                                ));
                            }
                        }
                    });
                }
            });
        }
    }
    found
}

fn check_stmt_indices(k: &Kernel, s: &Stmt) -> Result<(), String> {
    let idx: &[Expr] = match s {
        Stmt::Store { index, .. } => index,
        Stmt::Atomic(at) => &at.index,
        Stmt::ArrayStore { index, .. } => std::slice::from_ref(index),
        Stmt::Broadcast { src, .. } => std::slice::from_ref(src),
        _ => &[],
    };
    signed_index(k, idx).map_or(Ok(()), Err)
}

/// The bounds rule 6 of the module docs asks of a team construct: a nested range's start and
/// end at most [`NESTED_MAX`], a scratch extent a `usize` at most [`ATOM_MAX`] or a `u8`/`u16`.
fn check_team(a: &Analysis<'_>, s: &Stmt) -> Result<(), String> {
    let k = a.k;
    match s {
        Stmt::NestedFor { start, end, .. }
        | Stmt::NestedReduce { start, end, .. }
        | Stmt::NestedScan { start, end, .. } => {
            for e in [start, end] {
                if a.iv(e).is_none_or(|v| v.hi > NESTED_MAX && !a.unlimited) {
                    return Err(format!(
                        "nested range bound `{}` is not proven to be at most 2^31",
                        short(e)
                    ));
                }
            }
            Ok(())
        }
        Stmt::Scratch { extents, .. } => {
            for e in extents {
                let ok = match e.ty(k, &k.locals) {
                    Some(ScalarType::U64) => {
                        a.iv(e).is_some_and(|v| v.hi <= ATOM_MAX || a.unlimited)
                    }
                    Some(ScalarType::U8 | ScalarType::U16) => true,
                    _ => false,
                };
                if !ok {
                    return Err(format!(
                        "scratch extent `{}` is not a usize proven to be at most 2^31 - 1",
                        short(e)
                    ));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn signed_index(k: &Kernel, idx: &[Expr]) -> Option<String> {
    idx.iter().find_map(|e| {
        e.ty(k, &k.locals)
            .filter(|t| t.is_signed_int())
            .map(|t| format!("an index of type {t} (`{}`)", short(e)))
    })
}

/// The first `i64` / `u64` value of the kernel's own that is not a `usize` index candidate:
/// View elements, scalars, locals, accumulators and expressions of type `i64`, and `u64` View
/// elements.
fn own_i64(k: &Kernel) -> Option<String> {
    if let Some(v) = k
        .views
        .iter()
        .find(|v| matches!(v.elem, ScalarType::I64 | ScalarType::U64))
    {
        return Some(format!("View `{}` has {} elements", v.name, v.elem));
    }
    if let Some(s) = k.scalars.iter().find(|s| s.ty == ScalarType::I64) {
        return Some(format!("scalar `{}` is an i64", s.name));
    }
    let locals = k
        .locals
        .iter()
        .chain(k.functions.iter().flat_map(|f| f.locals.iter()));
    if let Some(l) = locals.clone().find(|l| l.ty == ScalarType::I64) {
        return Some(format!("local `{}` is an i64", l.name));
    }
    for (f, t) in k.acc_fields() {
        if t == ScalarType::I64 {
            return Some(format!(
                "accumulator `{}` holds an i64",
                k.accumulators[f.acc as usize].name
            ));
        }
    }
    let mut found = None;
    let mut look = |locals: &[LocalDecl], b: &Block| {
        for s in b {
            s.walk(&mut |s| {
                for e in s.exprs() {
                    e.walk(&mut |x| {
                        if found.is_none() && x.ty(k, locals) == Some(ScalarType::I64) {
                            found = Some(format!("i64 value `{}`", short(x)));
                        }
                    });
                }
            });
        }
    };
    look(&k.locals, &k.body);
    for f in &k.functions {
        look(&f.locals, &f.body);
    }
    found
}

/// A short description of an expression for an error message.
fn short(e: &Expr) -> String {
    let s = format!("{e:?}");
    if s.len() > 80 {
        format!("{}..", s.chars().take(78).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests;
