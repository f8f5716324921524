//! Indices flattened by hand, `a[i * n + j]` and `league_rank * team_size + team_rank`: the
//! kernel-wide 32-bit proof refuses them (a product of two sizes can reach 2^62), the per-launch
//! proof (`rokkos_device::emit::width::launch_proof`) accepts every launch whose own sizes keep
//! the values below 2^32. So they run on a device without SHADER_INT64 (the `wgpu_no_int64`
//! instance) for such sizes, and a launch whose product passes 2^32 gets the right result on
//! every backend with 64-bit integers and `Err(Unsupported)` naming SHADER_INT64 without.

use crate::{dev, to_host, DevView};
use rokkos::prelude::*;
use rokkos::Error;

/// Row `i` of an `n`-column matrix, flattened by hand.
#[kernel]
fn flat_rows(i: usize, a: ViewMut<u32>, n: usize) {
    for j in 0..n {
        // Row `i` owns elements `i * n..(i + 1) * n`: work items write disjoint elements.
        unsafe {
            a[i * n + j] = (i * 7 + j) as u32;
        }
    }
}

#[kernel]
fn flat_md((i, j): (usize, usize), a: ViewMut<u32>, n: usize) {
    // `j < n`: each `(i, j)` owns element `i * n + j`.
    unsafe {
        a[i * n + j] = (i * 7 + j) as u32;
    }
}

#[kernel]
fn flat_team(team: &TeamMember, out: ViewMut<u32>) {
    let g = team.league_rank() * team.team_size() + team.team_rank();
    // `team_rank < team_size`: each thread of each team owns element `g`.
    unsafe {
        out[g] = (team.league_rank() * 1000 + team.team_rank()) as u32;
    }
}

/// `(i * n) % 1000` for a huge `n` that never indexes: the product passes 2^32 from `i = 3`
/// on when `n = 2^31 - 1`.
#[kernel]
fn far_product(i: usize, out: ViewMut<u32>, n: usize) {
    out[i] = ((i * n) % 1000) as u32;
}

fn flattened_rows<E: ExecutionSpace>(space: E) {
    for (rows, n) in [(0, 5), (1, 1), (7, 13), (33, 31), (5, 0)] {
        let want: Vec<u32> = (0..rows)
            .flat_map(|i| (0..n).map(move |j| (i * 7 + j) as u32))
            .collect();
        let a: DevView<E, u32> = dev(&space, "a", [rows * n]).unwrap();
        parallel_for(
            "flat_rows",
            RangePolicy::new(&space, 0..rows),
            flat_rows(&a, n),
        )
        .unwrap();
        assert_eq!(to_host(&a), want, "range {rows} x {n}");
        let b: DevView<E, u32> = dev(&space, "b", [rows * n]).unwrap();
        parallel_for(
            "flat_md",
            MDRangePolicy::new(&space, [0, 0], [rows, n]),
            flat_md(&b, n),
        )
        .unwrap();
        assert_eq!(to_host(&b), want, "MDRange {rows} x {n}");
    }
}
per_backend!(flattened_rows);

fn flattened_team_rows<E: ExecutionSpace>(space: E) {
    for league in [0, 1, 5, 17] {
        let policy = TeamPolicy::new(&space, league, TeamSize::Auto);
        let ts = policy.team_size();
        let out: DevView<E, u32> = dev(&space, "out", [league * ts]).unwrap();
        parallel_for("flat_team", policy, flat_team(&out)).unwrap();
        let want: Vec<u32> = (0..league)
            .flat_map(|l| (0..ts).map(move |t| (l * 1000 + t) as u32))
            .collect();
        assert_eq!(to_host(&out), want, "league {league}, team size {ts}");
    }
}
per_backend!(flattened_team_rows);

/// Launches `far_product` over `0..4` with `n`: `Ok` with the values checked, or the launch's
/// error.
fn far<E: ExecutionSpace>(space: &E, n: usize) -> Result<(), Error> {
    let out: DevView<E, u32> = dev(space, "out", [4]).unwrap();
    parallel_for(
        "far_product",
        RangePolicy::new(space, 0..4),
        far_product(&out, n),
    )?;
    let want: Vec<u32> = (0..4u64).map(|i| ((i * n as u64) % 1000) as u32).collect();
    assert_eq!(to_host(&out), want, "n = {n}");
    Ok(())
}

fn product_past_32_bits<E: ExecutionSpace>(space: E) {
    // Small sizes: the per-launch proof holds on every backend.
    far(&space, 5).unwrap();
    // 3 * (2^31 - 1) passes 2^32: right on a backend with 64-bit integers; without them, the
    // refusal names the feature, the kernel and the value, and says the sizes decide.
    match far(&space, (1 << 31) - 1) {
        Ok(()) => {}
        Err(Error::Unsupported { feature, .. }) => {
            for part in [
                "SHADER_INT64",
                "far_product",
                "this launch's sizes",
                "depends on",
            ] {
                assert!(feature.contains(part), "{part:?} missing in: {feature}");
            }
        }
        Err(e) => panic!("{e}"),
    }
    // The refusal lost nothing: the next small launch of the kernel runs.
    far(&space, 999).unwrap();
}
per_backend!(product_past_32_bits);

/// Without SHADER_INT64 the large launch is refused (the body above accepts either answer). The
/// name says `wgpu` so that the valgrind run skips it with the other wgpu tests (loading the
/// Vulkan driver trips memcheck's known false positive in the dynamic loader).
#[cfg(feature = "wgpu")]
#[test]
fn wgpu_refuses_a_product_past_32_bits_without_int64() {
    if let Some(space) = crate::wgpu_no_int64_space() {
        far(&space, 5).unwrap();
        assert!(matches!(
            far(&space, (1 << 31) - 1),
            Err(Error::Unsupported { .. })
        ));
    }
}
