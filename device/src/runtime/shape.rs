//! Launch shapes every device backend computes the same way: how an MDRange is cut into tiles
//! (one tile per workgroup or block) and how many groups a grid-stride launch takes.

use super::limits;
use rokkos_core::error::{Error, Result};

/// Threads of a tile filled in when the policy leaves tile sizes open.
pub const TILE_THREADS: usize = 256;

/// The tiles of an MDRange launch over `begin..end`: the requested ones (`req`, all non-zero),
/// or up to `min(TILE_THREADS, max_threads)` points filled from the last dimension (a zero in
/// `req` leaves that dimension open). A tile larger than a group is walked by the group in
/// strides; more than 2^32 points in one tile is `Err(InvalidPolicy)` naming `label`.
pub fn mdrange_tiles<const N: usize>(
    label: &str,
    begin: [usize; N],
    end: [usize; N],
    req: [usize; N],
    max_threads: usize,
) -> Result<[usize; N]> {
    let mut t = [1usize; N];
    if req.iter().all(|&x| x > 0) {
        t = req;
    } else {
        let mut budget = TILE_THREADS.min(max_threads).max(1);
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
    let prod = t.iter().try_fold(1usize, |a, &x| a.checked_mul(x));
    match prod {
        Some(p) if p <= u32::MAX as usize => Ok(t),
        _ => Err(Error::InvalidPolicy {
            label: label.to_string(),
            reason: format!("MDRange tile {t:?} has more than 2^32 points"),
        }),
    }
}

/// Tiles per dimension (`ceil(extent / tile)`) and their product, for `tiles` over
/// `begin..end`.
pub fn tile_counts<const N: usize>(
    begin: [usize; N],
    end: [usize; N],
    tiles: [usize; N],
) -> ([u64; N], u64) {
    let mut nt = [0u64; N];
    for k in 0..N {
        nt[k] = (end[k].saturating_sub(begin[k]) as u64).div_ceil(tiles[k].max(1) as u64);
    }
    (nt, nt.iter().product())
}

/// Groups of `per_group` work items that a grid-stride launch over `n` items takes: enough for
/// one item each, but no more than `cap` (the groups the device keeps resident, or the most
/// partials a reduction wants) unless that would leave a thread more than
/// [`limits::TRIPS_MAX`] items ([`limits::min_groups`] then), and at least one.
pub fn grid_stride_groups(n: u64, per_group: u64, cap: u64) -> u64 {
    let cap = cap.max(limits::min_groups(n, per_group));
    n.div_ceil(per_group.max(1)).min(cap).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_tiles_fill_the_last_dimension_first_within_the_thread_budget() {
        assert_eq!(
            mdrange_tiles("t", [0, 0], [100, 1000], [0, 0], 1024).unwrap(),
            [1, 256]
        );
        assert_eq!(
            mdrange_tiles("t", [0, 0], [100, 10], [0, 0], 1024).unwrap(),
            [16, 16]
        );
        // A device allowing fewer threads shrinks the budget.
        assert_eq!(
            mdrange_tiles("t", [0, 0, 0], [9, 9, 9], [0, 0, 0], 64).unwrap(),
            [1, 4, 16]
        );
        // Requested tiles are kept, even past the budget (the group strides over them).
        assert_eq!(
            mdrange_tiles("t", [0, 0], [9, 9], [32, 32], 256).unwrap(),
            [32, 32]
        );
        // One requested, one open.
        assert_eq!(
            mdrange_tiles("t", [0, 0], [9, 90], [2, 0], 256).unwrap(),
            [2, 128]
        );
        assert!(matches!(
            mdrange_tiles("big", [0, 0], [1, 1], [1 << 20, 1 << 20], 256),
            Err(Error::InvalidPolicy { label, .. }) if label == "big"
        ));
    }

    #[test]
    fn tile_counts_round_up_and_empty_ranges_have_none() {
        assert_eq!(tile_counts([0, 3], [10, 3 + 17], [4, 8]), ([3, 3], 9));
        assert_eq!(tile_counts([5, 0], [5, 10], [4, 8]), ([0, 2], 0));
    }

    #[test]
    fn grid_stride_groups_cover_the_range_up_to_the_cap() {
        assert_eq!(grid_stride_groups(1, 256, 1000), 1);
        assert_eq!(grid_stride_groups(256, 256, 1000), 1);
        assert_eq!(grid_stride_groups(257, 256, 1000), 2);
        assert_eq!(grid_stride_groups(1 << 30, 256, 1000), 1000);
        assert_eq!(grid_stride_groups(0, 256, 1000), 1);
        assert_eq!(grid_stride_groups(10, 0, 0), 1);
        // A small device still keeps each thread within TRIPS_MAX items.
        assert_eq!(grid_stride_groups(1 << 40, 256, 16), 256);
        assert_eq!(grid_stride_groups(1 << 40, 256, 1000), 1000);
    }
}
