use rokkos::prelude::*;

// `a * o + d` components the radix rule cannot own: a digit that may reach `a`, a radix that is
// not a power of two, a digit rebound, a run-time loop bound, two radices in one kernel, and a
// thread's write whose digit is not the thread's index. Each could let two work items, or two
// threads of a team, reach one element.

#[kernel]
fn digit_reaches_radix(i: usize, y: ViewMut<u32>) {
    for c in 0..9 {
        y[8 * i + c] = 1;
    }
}

#[kernel]
fn not_a_power_of_two(i: usize, y: ViewMut<u32>) {
    for c in 0..6 {
        y[6 * i + c] = 1;
    }
}

#[kernel]
fn run_time_bound(i: usize, y: ViewMut<u32>, n: usize) {
    for c in 0..n {
        y[8 * i + c] = 1;
    }
}

#[kernel]
fn two_radices(i: usize, y: ViewMut<u32>) {
    for c in 0..4 {
        y[8 * i + c] = 1;
        y[4 * i + c] = 2;
    }
}

#[kernel]
fn thread_index_too_wide(team: &TeamMember, y: ViewMut<u32>) {
    let l = team.league_rank();
    for r in team.thread_range(16) {
        y[8 * l + r] = 1;
    }
}

#[kernel]
fn digit_is_not_the_thread(team: &TeamMember, y: ViewMut<u32>) {
    let l = team.league_rank();
    for _r in team.thread_range(8) {
        for c in 0..8 {
            y[8 * l + c] = 1;
        }
    }
}

#[kernel]
fn tile_past_its_width(team: &TeamMember, a: View<u32, 2>, at: ViewMut<u32, 2>) {
    let tiles = a.extent(1) / 8;
    let (ti, tj) = (team.league_rank() / tiles, team.league_rank() % tiles);
    for r in team.thread_range(8) {
        for c in 0..=8 {
            at[(tj * 8 + r, ti * 8 + c)] = a[(ti * 8 + r, tj * 8 + c)];
        }
    }
}

fn main() {}
