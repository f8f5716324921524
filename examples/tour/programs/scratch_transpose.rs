//! A blocked matrix transpose through team scratch: each team loads a tile into scratch with
//! coalesced reads, waits at a barrier, and writes it out transposed.

use super::{ensure, Outcome};
use rokkos::prelude::*;

const T: usize = 8;

#[kernel]
fn transpose(team: &TeamMember, a: View<f32, 2>, at: ViewMut<f32, 2>) {
    // League rank = tile index: team (ti, tj) reads block (ti, tj) of `a` and writes block
    // (tj, ti) of `at`.
    let tile = team.league_rank();
    let tiles_j = a.extent(1) / 8;
    let (ti, tj) = (tile / tiles_j, tile % tiles_j);
    let s = team.team_scratch::<f32, 2>(0, [8, 8]);
    for r in team.thread_range(8) {
        for c in 0..8 {
            s[(r, c)] = a[(ti * 8 + r, tj * 8 + c)];
        }
    }
    team.team_barrier();
    for r in team.thread_range(8) {
        for c in 0..8 {
            // SAFETY (the kernel author's): the blocks of `at` are disjoint and block (tj, ti)
            // is written by team (ti, tj) alone, row `r` by one thread of it; the macro cannot
            // see that from the index, which is not the league rank.
            unsafe {
                at[(tj * 8 + r, ti * 8 + c)] = s[(c, r)];
            }
        }
    }
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let m = (((n as f64).sqrt() as usize) / T).clamp(1, 32) * T;
    let ha = View::<f32, 2>::from_fn("a", [m, m], |[i, j]| (i * m + j) as f32)?;
    let a = create_mirror_view_and_copy_in(dev, &ha)?;
    let tiles = (m / T) * (m / T);
    let at = DeviceView::<f32, 2>::new_on(dev, "at", [m, m])?;
    let policy =
        TeamPolicy::new(dev, tiles, TeamSize::Auto).scratch(0, scratch_size::<f32>(T * T), 0);
    parallel_for("transpose", policy, transpose(&a, &at))?;
    let h = create_mirror_view_and_copy(&at)?;
    for i in 0..m {
        for j in 0..m {
            let got = h.get((j, i));
            ensure(got == ha.get((i, j)), || format!("({j}, {i}): {got}"))?;
        }
    }
    Ok(format!("{m}x{m} in {tiles} tiles of {T}x{T}"))
}
