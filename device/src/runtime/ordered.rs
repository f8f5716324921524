//! Ordered partials: how a device backend runs a reduction whose join is host code (a
//! user-defined [`Custom`](rokkos_core::Custom) reducer, or a tuple holding one), which no device can run.
//!
//! No device join at all: the launch's work items, in the policy's iteration order, are cut
//! into `P` contiguous blocks ([`blocks`] chooses `P`, [`block_bounds`] is the cut); device
//! thread `t` folds block `t` sequentially, from the identity, with the kernel's own code, and
//! stores its accumulator fields as partial `t`; the host reads the `P` partials back and joins
//! them onto the identity **in block order** ([`super::reduce::Columns::join`]). That is rayon's
//! semantics exactly (contiguous chunks folded in order, partials joined in order), so a join
//! that is associative but not commutative (the first or last value, a rolling hash) gives the
//! result of the serial fold.
//!
//! The cost, and why the built-in reducers stay the fast path: a thread walks its block's items
//! one after another, so neighbouring threads read elements a block apart (no coalesced loads);
//! at most [`ORDERED_PARTIALS`] threads work; and every launch waits for the device and joins
//! up to that many partials on the host, one by one. `parallel_reduce_into` a device View with
//! such a reducer joins on the host too and then writes the element: it blocks.
//!
//! Every device backend spells [`block_bounds`] in its own language, and must spell exactly it:
//! the emitters' tests compare their generated code's blocks with it.
//!
//! **Team policies** ([`team_blocks`]): the league is cut into `B` contiguous blocks of league
//! ranks; launched team `g` runs the teams of block `g` one after the other, and each of its
//! `W` invocations keeps its accumulators across them (from the identity) and stores them as
//! partial `g * W + i`. The host joins the `B * W` partials in that order: league block by
//! league block, and in a block invocation by invocation. That is the serial result exactly
//! when one invocation per team writes the accumulator (a `single_team` or a `team_rank() ==
//! 0` guard, the usual way a team body adds to its reduction). A kernel whose several threads
//! or lanes write it would have a non-commutative join see their writes thread by thread
//! rather than item by item; [`super::team_order::check`] finds such kernels and the backends
//! refuse them (`Err(Unsupported)`) on teams of more than one invocation.
//!
//! **Scans** ([`scan_prefixes`]): the slow path of `parallel_scan` with a `Custom` reducer.
//! Three steps and no device join: each block folds its items with `final == false` into a
//! partial (the ordered reduction's entry), the host joins the partials in block order into
//! each block's exclusive prefix and the total, and each block replays its items from its
//! prefix with `final == true`, one thread per block, sequentially.

use rokkos_core::error::Result;
use rokkos_core::host_iter::TileGrid;
use rokkos_core::ir::Value;
use rokkos_core::policy::{Iterate, MDRangePolicy};
use rokkos_core::reducer::{AccValue, Reducer};
use std::ops::Range;

use super::reduce::{to_value, Columns};

/// Most partials of an ordered reduction: the threads that work, and the values read back and
/// joined on the host (64 Ki; a few hundred KiB of read-back per accumulator field).
pub const ORDERED_PARTIALS: u64 = 1 << 16;

/// The number of blocks `P` of an ordered reduction over `items` work items on a launch that
/// would run `threads` threads: one block per thread, at most one per item and at most
/// [`ORDERED_PARTIALS`]; 0 exactly when there is no item.
pub fn blocks(items: u64, threads: u64) -> u64 {
    items.min(threads.max(1)).min(ORDERED_PARTIALS)
}

/// The work items (offsets in iteration order, `0..items`) of block `t` of `p` (`t < p`): the
/// first `items % p` blocks hold `items / p + 1` items, the others `items / p`, in order. With
/// `base = items / p` and `rem = items % p`, block `t` starts at `t * base + min(t, rem)`; no
/// intermediate exceeds `items`, so the device computes it in the launch's index width. A block
/// that does not exist (`t >= p`, so also any block of `p == 0`) is empty.
pub fn block_bounds(items: u64, p: u64, t: u64) -> Range<u64> {
    if t >= p {
        return 0..0;
    }
    let (base, rem) = (items / p, items % p);
    let start = t * base + t.min(rem);
    start..start + base + u64::from(t < rem)
}

/// The number of league blocks `B` of an ordered team reduction over `league` teams on a launch
/// of up to `teams` teams in flight with `invocations` invocations each: one block per launched
/// team, at most one per league rank, and at most [`ORDERED_PARTIALS`] partials (`B *
/// invocations`, at least one block); 0 exactly when the league is empty. Team `g`'s league
/// ranks are [`block_bounds`]`(league, B, g)`.
pub fn team_blocks(league: u64, teams: u64, invocations: u64) -> u64 {
    let fit = (ORDERED_PARTIALS / invocations.max(1)).max(1);
    blocks(league, teams).min(fit)
}

/// The exclusive prefix of each of the scan's block partials and the total, joined by
/// `reducer` in block order from its identity: prefix `b` is the join of partials `0..b`. Each
/// prefix comes as its accumulator field values, one `Vec` per field (column `f` holds field
/// `f` of every prefix, as the device reads them), and the total as the Rust value.
pub fn scan_prefixes<V: AccValue, Rd: Reducer<V>>(
    parts: &Columns,
    reducer: &Rd,
) -> Result<(Vec<Vec<Value>>, V)> {
    scan_prefixes_from(parts, reducer, reducer.init())
}

/// [`scan_prefixes`] from `acc` instead of the identity: prefix `b` is `acc` joined with
/// partials `0..b`, and the total `acc` joined with them all. A scan run as several launches
/// over consecutive parts of its range (windows) passes each the total of those before it, so
/// that every prefix is the join of all the items before it, in order.
pub fn scan_prefixes_from<V: AccValue, Rd: Reducer<V>>(
    parts: &Columns,
    reducer: &Rd,
    mut acc: V,
) -> Result<(Vec<Vec<Value>>, V)> {
    let mut cols: Vec<Vec<Value>> = Vec::new();
    let mut vals = Vec::new();
    parts.for_each(|_, part| {
        vals.clear();
        acc.push_values(&mut vals);
        cols.resize_with(vals.len(), Vec::new);
        for (col, v) in cols.iter_mut().zip(&vals) {
            col.push(*v);
        }
        reducer.join(&mut acc, to_value::<V>(part)?);
        Ok(())
    })?;
    Ok((cols, acc))
}

/// The tiles of an ordered MDRange reduction: the host backends' tiles ([`TileGrid`]), so that
/// the device visits the points in their order: tiles numbered with the fastest dimension's tile
/// coordinate least significant, each tile's points in the policy's order. The blocks are runs
/// of whole tiles ([`block_bounds`] over `ntiles`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderedTiles<const N: usize> {
    /// A tile's extent per dimension (the last tile of a dimension ends at the box's end).
    pub tile: [usize; N],
    /// Tiles per dimension.
    pub count: [usize; N],
    /// Tiles in all (0 for an empty box).
    pub ntiles: usize,
    /// [`Iterate::Left`]: the first index moves fastest.
    pub left: bool,
}

/// The tiles of `policy` as the host backends walk them (see [`OrderedTiles`]).
pub fn md_tiles<E: Clone, const N: usize>(policy: &MDRangePolicy<E, N>) -> OrderedTiles<N> {
    let grid = TileGrid::new(policy);
    OrderedTiles {
        tile: grid.tile_extents(),
        count: grid.tile_counts(),
        ntiles: grid.len(),
        left: grid.order() == Iterate::Left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_counts() {
        assert_eq!(blocks(0, 1024), 0);
        assert_eq!(blocks(1, 1024), 1);
        assert_eq!(blocks(1000, 256), 256);
        assert_eq!(blocks(u64::MAX, u64::MAX), ORDERED_PARTIALS);
        assert_eq!(blocks(5, 0), 1);
        // Blocks that do not exist are empty rather than a division by zero or an overflow.
        assert_eq!(block_bounds(10, 0, 0), 0..0);
        assert_eq!(block_bounds(u64::MAX, 3, u64::MAX), 0..0);
    }

    /// The blocks tile `0..items` in order, without gap or overlap, and differ in size by at
    /// most one item (every small case, and a few large ones).
    #[test]
    fn blocks_tile_the_items_in_order() {
        let small = (0u64..300).flat_map(|i| [1u64, 2, 7, 256, 299].map(move |t| (i, t)));
        let large = [
            (100_003u64, 70_000u64),
            (1 << 20, 1 << 18),
            (65_537, 65_536),
        ];
        for (items, threads) in small.chain(large) {
            let p = blocks(items, threads);
            let mut next = 0;
            for t in 0..p {
                let r = block_bounds(items, p, t);
                assert_eq!(r.start, next, "{items} items, {p} blocks, block {t}");
                let len = r.end - r.start;
                assert!(len == items / p || len == items / p + 1);
                next = r.end;
            }
            assert_eq!(next, items, "{items} items, {p} blocks");
        }
    }

    /// Walking the tiles as the emitters do (a tile number's digits in the tile counts, the
    /// fastest dimension least significant; the tile's points in the policy's order) visits the
    /// points in the host backends' order, for explicit tiles and both orders.
    #[test]
    fn tile_walk_is_the_host_order() {
        for left in [false, true] {
            for tiles in [[0, 0, 0], [2, 3, 2], [1, 4, 5]] {
                let order = if left { Iterate::Left } else { Iterate::Right };
                let p = MDRangePolicy::new(&(), [1, 0, 2], [4, 7, 5])
                    .tile(tiles)
                    .iterate(order);
                let grid = TileGrid::new(&p);
                let mut host = Vec::new();
                for t in 0..grid.len() {
                    grid.for_each_in_tile(t, |i| host.push(i));
                }
                let ot = md_tiles(&p);
                assert_eq!(ot.left, left);
                let dims: Vec<usize> = if left { vec![2, 1, 0] } else { vec![0, 1, 2] };
                let (b, e) = ([1, 0, 2], [4, 7, 5]);
                let mut walked = Vec::new();
                for q in 0..ot.ntiles {
                    let (mut rest, mut lo, mut hi) = (q, [0; 3], [0; 3]);
                    for &d in dims.iter().rev() {
                        let c = rest % ot.count[d];
                        rest /= ot.count[d];
                        lo[d] = b[d] + c * ot.tile[d];
                        hi[d] = lo[d] + ot.tile[d].min(e[d] - lo[d]);
                    }
                    let mut x = lo;
                    'walk: loop {
                        walked.push(x);
                        for &d in dims.iter().rev() {
                            x[d] += 1;
                            if x[d] < hi[d] {
                                continue 'walk;
                            }
                            x[d] = lo[d];
                        }
                        break;
                    }
                }
                assert_eq!(walked, host, "tiles {tiles:?}, left {left}");
            }
        }
    }

    #[test]
    fn team_blocks_fit_the_partials() {
        assert_eq!(team_blocks(0, 64, 256), 0);
        assert_eq!(team_blocks(1, 64, 256), 1);
        assert_eq!(team_blocks(1000, 64, 256), 64);
        assert_eq!(team_blocks(1000, 1024, 256), ORDERED_PARTIALS / 256);
        // A team wider than the partials' cap still gets one block.
        assert_eq!(team_blocks(7, 4, ORDERED_PARTIALS * 2), 1);
        assert_eq!(team_blocks(7, 4, 0), 4);
    }

    /// Prefix `b` is the in-order join of partials before `b` (a non-commutative join: the
    /// concatenation of decimal digits), and the total joins them all.
    #[test]
    fn scan_prefixes_are_exclusive_and_in_order() {
        let digits = rokkos_core::Custom::new(0u64, |a: &mut u64, b: u64| {
            let mut m = 1;
            while m <= b {
                m *= 10;
            }
            *a = *a * m.max(10) + b;
        });
        let parts = Columns::new(4, vec![[3u64, 1, 4, 1].map(Value::U64).to_vec()]);
        let (cols, total) = scan_prefixes(&parts, &digits).unwrap();
        assert_eq!(cols, vec![[0u64, 3, 31, 314].map(Value::U64).to_vec()]);
        assert_eq!(total, 3141);
        let (cols, total) = scan_prefixes(&Columns::new(0, vec![vec![]]), &digits).unwrap();
        assert!(cols.iter().all(Vec::is_empty));
        assert_eq!(total, 0);
        // Two windows' partials, the second from the first's total: the prefixes and total of
        // the whole.
        let first = Columns::new(2, vec![[3u64, 1].map(Value::U64).to_vec()]);
        let second = Columns::new(2, vec![[4u64, 1].map(Value::U64).to_vec()]);
        let (a, mid) = scan_prefixes(&first, &digits).unwrap();
        let (b, total) = scan_prefixes_from(&second, &digits, mid).unwrap();
        assert_eq!(a, vec![[0u64, 3].map(Value::U64).to_vec()]);
        assert_eq!(b, vec![[31u64, 314].map(Value::U64).to_vec()]);
        assert_eq!(total, 3141);
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let p = blocks(u64::MAX, u64::MAX);
        assert_eq!(block_bounds(u64::MAX, p, p - 1).end, u64::MAX);
    }
}
