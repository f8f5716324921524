use rokkos::prelude::*;
// `DisjointRanges` comes with the prelude.

// `first + k` may run past the range into the next one: work items (v, k) and (v + 1, 0) can
// meet. The message says which guard to write.
#[kernel]
fn unguarded((d, v, k): (usize, usize, usize), iv: DisjointRanges<u32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    let s = iv[(v, 0)] as usize + k;
    out[(rows[d] as usize, s)] = 1.0;
}

// A guard inside a condition holds only where the condition does.
#[kernel]
fn conditional_guard((d, v, k): (usize, usize, usize), iv: DisjointRanges<u32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    let s = iv[(v, 0)] as usize + k;
    if d > 0 {
        if s > iv[(v, 1)] as usize {
            return;
        }
    }
    out[(rows[d] as usize, s)] = 1.0;
}

// Bounds read from a plain View: nothing says the ranges are disjoint.
#[kernel]
fn plain_bounds((d, v, k): (usize, usize, usize), iv: View<u32, 2>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    let s = iv[(v, 0)] as usize + k;
    if s > iv[(v, 1)] as usize {
        return;
    }
    out[(rows[d] as usize, s)] = 1.0;
}

// A half-open thread range stops one short of the range; the rule knows only `first..=last`.
#[kernel]
fn half_open(team: &TeamMember, iv: DisjointRanges<u32>, out: ViewMut<f64>) {
    let l = team.league_rank();
    for s in team.thread_range(iv[(l, 0)] as usize..iv[(l, 1)] as usize) {
        out[s] = 1.0;
    }
}

// The quotient and the remainder by different divisors do not determine the league rank.
#[kernel]
fn other_divisor(team: &TeamMember, iv: DisjointRanges<u32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let d = l / iv.extent(0);
    let v = l % 4;
    for s in team.thread_range(iv[(v, 0)] as usize..=iv[(v, 1)] as usize) {
        out[(rows[d] as usize, s)] = 1.0;
    }
}

// The ranges are read-only.
#[kernel]
fn write_ranges(i: usize, iv: DisjointRanges<u32>) {
    iv[(i, 0)] = 0;
}

fn main() {}
