//! What every target decides the same way about a team kernel: whether the lanes of a thread run
//! as parallel invocations or one after the other ([`needs_lane_comm`]), which scratch pools it
//! allocates from, how a policy's scratch request is split between the team and its threads
//! ([`pool_split`]), and the `u64` formulas of nested ranges and scratch allocations, spelled
//! through [`TeamOps`]: who shares a nested range ([`participants`]), how a nested scan chunks
//! it ([`scan_chunks`]), how an allocation counts its elements ([`saturating_count`]).

use rokkos_core::ir::valid::KernelInfo;
use rokkos_core::ir::{Kernel, NestedKind, ScratchScope, SingleKind, Stmt};

/// Whether `k` allocates scratch at `level` (its arena is then declared even when the policy
/// reserved nothing there, so that an allocation fails at run time instead of the module at
/// compile time).
pub fn uses_level(k: &Kernel, level: u32) -> bool {
    k.scratch.iter().any(|d| d.level.min(1) == level)
}

/// Whether `k` allocates scratch of `scope` at `level`.
pub fn uses_scratch(k: &Kernel, level: u32, scope: ScratchScope) -> bool {
    k.scratch
        .iter()
        .any(|d| d.level.min(1) == level && d.scope == scope)
}

/// Whether the lanes of a thread of `k` must run one after the other in one invocation (virtual
/// lanes): when they communicate (a `Vector` reduction or scan, a thread `single` with a result),
/// or when running them as parallel invocations could differ from running them in order, as the
/// host backends do (a store or atomic every lane of a thread repeats, such as `out[(l, j)] += x`
/// in a `thread_range` body, or an element two lanes touch in one phase:
/// [`rokkos_core::ir::valid::lanes_independent`], which `info` holds).
pub fn needs_lane_comm(k: &Kernel, info: &KernelInfo) -> bool {
    !info.lanes_independent || lanes_communicate(k)
}

/// Whether the lanes of a thread of `k` exchange values: a `Vector` reduction or scan, or a
/// thread `single` with a result (a target with lane shuffles can keep such lanes physical).
pub fn lanes_communicate(k: &Kernel) -> bool {
    let mut need = false;
    for s in &k.body {
        s.walk(&mut |s| match s {
            Stmt::NestedReduce {
                kind: NestedKind::Vector,
                ..
            }
            | Stmt::NestedScan {
                kind: NestedKind::Vector,
                ..
            } => need = true,
            Stmt::Single {
                kind: SingleKind::Thread,
                result: Some(_),
                ..
            } => need = true,
            _ => {}
        });
    }
    need
}

/// The bytes of scratch `level` a launch of `k` gives the team pool and each thread's pool, from
/// the policy's request (`per_team` bytes for the team, `per_thread` for each of `team`
/// threads): a kernel that allocates from one scope only gets the whole request there (Kokkos
/// reserves one arena per level), one that allocates from both gets each as requested. `None`
/// when the total overflows.
pub fn pool_split(
    k: &Kernel,
    level: u32,
    per_team: u64,
    per_thread: u64,
    team: u64,
) -> Option<(u64, u64)> {
    let cap = per_thread.checked_mul(team)?.checked_add(per_team)?;
    Some(
        match (
            uses_scratch(k, level, ScratchScope::Team),
            uses_scratch(k, level, ScratchScope::Thread),
        ) {
            (true, true) => (per_team, per_thread),
            (true, false) => (cap, 0),
            (false, true) => (0, cap.checked_div(team)?),
            (false, false) => (0, 0),
        },
    )
}

/// [`pool_split`] of level 0 for a team of `team` threads when the kernel is known; without it
/// (a kernel with no IR), the policy's request as it is. What the device backends'
/// `team_size_max_for` size shared or workgroup memory from.
pub fn level0_split(
    k: Option<&Kernel>,
    per_team: u64,
    per_thread: u64,
    team: u64,
) -> Option<(u64, u64)> {
    match k {
        Some(k) => pool_split(k, 0, per_team, per_thread, team),
        None => Some((per_team, per_thread)),
    }
}

/// How a target spells the index arithmetic of the team formulas below ([`participants`],
/// [`scan_chunks`], [`saturating_count`], [`scratch_fits`]), so that the formulas, and the
/// reasoning that they never wrap, exist once. `narrow`: the 32-bit index variant
/// ([`super::width`]), whose index type is `u32`; otherwise it is `u64`.
pub trait TeamOps {
    /// The index literal `x` (in hexadecimal when `hex`: bit limits read better so).
    fn idx_lit(x: u64, hex: bool, narrow: bool) -> String;
    /// `t` when the `bool` `c` holds, else `f` (all three evaluated).
    fn select(c: &str, t: &str, f: &str) -> String;
    /// The smaller of the indices `a` and `b`.
    fn min_idx(a: &str, b: &str, narrow: bool) -> String;
    /// The `u32` value `e` as an index.
    fn widen(e: &str, narrow: bool) -> String;
}

/// The name of a team body's vector lane (`0 .. lanes`) in every target.
pub const LANE: &str = "rk_lane";
/// The name of a team body's invocation index in its block (`0 .. team * lanes`).
pub const INVOCATION: &str = "rk_li";

/// Who shares the indices of a nested range of `kind` in a team of `team` threads of `lanes`
/// lanes each (`block` invocations): `(this invocation's participant index, the participant
/// count)` as index expressions (`u32` ones when `narrow`). A thread range is shared by the team's threads (every lane of a
/// thread runs the thread's indices), a vector range by a thread's lanes, a team-vector range by
/// every invocation of the block.
pub fn participants<O: TeamOps>(
    kind: NestedKind,
    team: u32,
    lanes: u32,
    block: u32,
    narrow: bool,
) -> (String, String) {
    let lit = |x: u32| O::idx_lit(x as u64, false, narrow);
    match kind {
        NestedKind::Thread => (
            super::walk::team_query(rokkos_core::ir::TeamQuery::TeamRank).into(),
            lit(team),
        ),
        NestedKind::Vector => (O::widen(LANE, narrow), lit(lanes)),
        NestedKind::TeamVector => (O::widen(INVOCATION, narrow), lit(block)),
    }
}

/// The names of a nested scan's chunking temporaries (fresh names of the target's walk).
pub struct Chunk<'a> {
    /// The range's start.
    pub s0: &'a str,
    /// Its end (inclusive or not).
    pub e0: &'a str,
    /// Whether the range is not empty.
    pub ne: &'a str,
    /// The last offset from the start (0 for an empty range).
    pub lo: &'a str,
    /// Offsets per participant.
    pub ch: &'a str,
    /// This participant's first offset.
    pub off: &'a str,
    /// This participant's number of indices.
    pub n: &'a str,
}

/// One binding of [`scan_chunks`]: name, type, value.
pub type Binding = (String, rokkos_core::ir::ScalarType, String);

/// How a nested scan over `start..end` (`..=end` when `inclusive`) splits its indices between
/// participant `p` of `c` ([`participants`]): contiguous chunks, so that one sequential pass per
/// chunk follows the index order. The chunks are offsets from the start up to the last offset
/// `lo` (`ch = lo / c + 1` offsets each), and each pass counts its `n` indices from
/// `start + off`, so that no form computes `end + 1` (which wraps for an inclusive range ending
/// at `u64::MAX`), and `off = p * ch <= lo + c` cannot wrap either. In the 32-bit variant
/// (`narrow`) start and end are at most 2^31 and `c` at most 2^31 - 1 (the width proof's rule
/// for nested ranges), so `lo + c`, `start + off` where `n > 0`, and the pass's counter stay
/// below 2^32. The bindings come line by line, in the order the target declares them
/// ([`render_bindings`]).
#[allow(clippy::too_many_arguments)]
pub fn scan_chunks<O: TeamOps>(
    t: &Chunk<'_>,
    start: &str,
    end: &str,
    inclusive: bool,
    p: &str,
    c: &str,
    narrow: bool,
) -> [Vec<Binding>; 3] {
    use rokkos_core::ir::ScalarType::Bool;
    // The index type of the variant.
    let ix = super::walk::lower(narrow, rokkos_core::ir::ScalarType::U64);
    let Chunk {
        s0,
        e0,
        ne,
        lo,
        ch,
        off,
        n,
    } = *t;
    let (zero, one) = (O::idx_lit(0, false, narrow), O::idx_lit(1, false, narrow));
    let (nonempty, last) = if inclusive {
        (format!("{e0} >= {s0}"), format!("{e0} - {s0}"))
    } else {
        (format!("{e0} > {s0}"), format!("{e0} - {s0} - {one}"))
    };
    let b = |name: &str, ty, value: String| (name.to_string(), ty, value);
    [
        vec![
            b(s0, ix, start.to_string()),
            b(e0, ix, end.to_string()),
            b(ne, Bool, nonempty),
            b(lo, ix, O::select(ne, &last, &zero)),
        ],
        vec![
            b(ch, ix, O::select(ne, &format!("{lo} / {c} + {one}"), &zero)),
            b(off, ix, format!("{p} * {ch}")),
        ],
        vec![b(
            n,
            ix,
            O::select(
                &format!("{ne} && {off} <= {lo}"),
                &format!(
                    "{} + {one}",
                    O::min_idx(&format!("{ch} - {one}"), &format!("{lo} - {off}"), narrow)
                ),
                &zero,
            ),
        )],
    ]
}

/// The lines of `lines` at indentation `i`, the first opening a block (`{`): each binding
/// spelled by `decl(name, type, value)`, a line's bindings separated by spaces.
pub fn render_bindings(
    lines: &[Vec<Binding>],
    i: &str,
    decl: impl Fn(&str, rokkos_core::ir::ScalarType, &str) -> String,
) -> String {
    let mut s = String::new();
    for (k, line) in lines.iter().enumerate() {
        s.push_str(i);
        s.push_str(if k == 0 { "{ " } else { "  " });
        let ds: Vec<String> = line.iter().map(|(n, t, v)| decl(n, *t, v)).collect();
        s.push_str(&ds.join(" "));
        s.push('\n');
    }
    s
}

/// The largest element count a scratch allocation's count reaches: 2^32, more than any pool holds.
pub const SCRATCH_COUNT_CAP: u64 = 1 << 32;

/// The element count `p` of a scratch allocation (a `u64`, starting at 1) times the next extent
/// `e`, saturating at [`SCRATCH_COUNT_CAP`] instead of wrapping: `p` stays at most 2^32 and the
/// factor is clamped to 2^32, so `p * e` stays below 2^64 unless `p` has already saturated, and
/// then the count is 0 (a zero extent) or saturated again.
pub fn saturating_count<O: TeamOps>(p: &str, e: &str) -> String {
    let cap = O::idx_lit(SCRATCH_COUNT_CAP, true, false);
    O::select(
        &format!("{p} == {cap} && {e} != {}", O::idx_lit(0, false, false)),
        &cap,
        &O::min_idx(
            &format!("{p} * {}", O::min_idx(e, &cap, false)),
            &cap,
            false,
        ),
    )
}

/// [`saturating_count`] in the 32-bit variant, where 2^32 is not a `u32`: the count `p` (a
/// `u32`, starting at 1) and the flag `sat` (starting `false`) that says the true count is at
/// least 2^32, times the next extent `e` (a `u32`): `(p', sat')`, to be assigned together. While
/// `sat` is false `p` is the exact count; once the product passes `u32::MAX` (`p > u32::MAX / e`)
/// `p` holds `u32::MAX` and `sat` is set, and a zero extent clears both, as the 64-bit count
/// saturates and drops to 0. The record of a failed allocation spells the count as the 64-bit
/// variant does with [`count64_words`]. The division is only evaluated for `e != 0` (`&&` and
/// `||` short-circuit in both targets).
pub fn saturating_count32<O: TeamOps>(p: &str, sat: &str, e: &str) -> (String, String) {
    let max = O::idx_lit(u32::MAX as u64, true, true);
    let big = format!(
        "({e} != {} && ({sat} || {p} > {max} / {e}))",
        O::idx_lit(0, false, true)
    );
    (O::select(&big, &max, &format!("{p} * {e}")), big)
}

/// The two 32-bit words (low, high) of the 64-bit count [`saturating_count`] gives, from the
/// 32-bit variant's `p` and `sat` ([`saturating_count32`]).
pub fn count64_words<O: TeamOps>(p: &str, sat: &str) -> (String, String) {
    let (zero, one) = (O::idx_lit(0, false, true), O::idx_lit(1, false, true));
    (O::select(sat, &zero, p), O::select(sat, &one, &zero))
}

/// Whether `count` elements of `size` bytes fit a pool between the 8-byte aligned `start` and
/// `end` (pools are below 2^32 bytes, so a count below 2^32 keeps the product exact in 64 bits).
/// In the 32-bit variant (`narrow`: pools at most 2^31 - 1 bytes, a launch fact) the same
/// decision is `start <= end && count <= (end - start) / size`: a saturated count (`u32::MAX`)
/// exceeds every pool there too, and nothing wraps.
pub fn scratch_fits<O: TeamOps>(
    count: &str,
    start: &str,
    size: u64,
    end: &str,
    narrow: bool,
) -> String {
    let sz = O::idx_lit(size, false, narrow);
    if narrow {
        format!("{start} <= {end} && {count} <= ({end} - {start}) / {sz}")
    } else {
        format!(
            "{count} <= {} && {start} + {count} * {sz} <= {end}",
            O::idx_lit(u32::MAX as u64, true, false),
        )
    }
}

/// The pool position `ptr` rounded up to 8 bytes, where a scratch View starts (below 2^32 in the
/// 32-bit variant, whose pools are at most 2^31 - 1 bytes).
pub fn aligned8<O: TeamOps>(ptr: &str, narrow: bool) -> String {
    let (seven, eight) = (O::idx_lit(7, false, narrow), O::idx_lit(8, false, narrow));
    format!("({ptr} + {seven}) / {eight} * {eight}")
}
