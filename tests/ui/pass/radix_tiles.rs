use rokkos::prelude::*;

// Tiles and blocks the radix rule owns without `unsafe`: `a * o + d` with a power-of-two `a`
// and a digit `d` below it (a literal, a literal loop's or a literal nested range's index).

#[kernel]
fn blocks(i: usize, y: ViewMut<u32>, z: ViewMut<u32, 2>) {
    for c in 0..4 {
        y[4 * i + c] = 1;
    }
    for c in 0..=7 {
        z[(c + i * 8, 0)] = 2;
    }
}

/// The GPU transpose: a team per 32 × 32 tile through team scratch.
#[kernel]
fn transpose_team(team: &TeamMember, a: View<f64, 2>, at: ViewMut<f64, 2>) {
    let tiles = a.extent(1) / 32;
    let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
    let s = team.team_scratch::<f64, 2>(0, [32, 32]);
    for r in team.thread_range(32) {
        for c in 0..32 {
            s[(r, c)] = a[(ti * 32 + r, tj * 32 + c)];
        }
    }
    team.team_barrier();
    for r in team.thread_range(32) {
        for c in 0..32 {
            at[(tj * 32 + r, ti * 32 + c)] = s[(c, r)];
        }
    }
}

/// Each thread writes a row block of its team's row.
#[kernel]
fn thread_blocks(team: &TeamMember, out: ViewMut<u32, 2>) {
    let l = team.league_rank();
    for r in team.thread_range(0..16) {
        for c in 0..16 {
            out[(l, 16 * r + c)] = 1;
        }
    }
}

fn main() {}
