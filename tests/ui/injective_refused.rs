use rokkos::prelude::*;

// A lookup in a View that is not an `InjectiveView` owns nothing: two entries may be equal.
#[kernel]
fn plain_source(i: usize, rows: View<i32>, out: ViewMut<f64>) {
    out[rows[i] as usize] = 1.0;
}

// `idx[i] + 1` is injective too, but the rule knows only the lookup itself.
#[kernel]
fn offset_lookup(i: usize, idx: InjectiveView<i32>, out: ViewMut<f64>) {
    out[idx[i] as usize + 1] = 1.0;
}

// The lookup owns `d`, nothing owns `s`: work items `(d, 0)` and `(d, 1)` write one element.
#[kernel]
fn half_owned((d, s): (usize, usize), idx: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    out[(idx[d] as usize, 0)] = s as f64;
}

// A lookup at an index that is not owned.
#[kernel]
fn unowned_key(i: usize, idx: InjectiveView<u32>, out: ViewMut<f64>, k: usize) {
    out[idx[k] as usize] = i as f64;
}

// One View written directly and through the map: work items `idx[0]` and `0` meet.
#[kernel]
fn mixed_forms(i: usize, idx: InjectiveView<i32>, out: ViewMut<f64>) {
    out[idx[i] as usize] = 1.0;
    out[i] = 2.0;
}

// A local holding the lookup cannot be rebound.
#[kernel]
fn rebound(i: usize, idx: InjectiveView<i32>, out: ViewMut<f64>) {
    let r = idx[i] as usize;
    let r = r + 1;
    out[r] = 1.0;
}

// In a team kernel, a lookup of a thread range index does not own the team's rows.
#[kernel]
fn team_thread_lookup(team: &TeamMember, idx: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    for j in team.thread_range(4) {
        out[(idx[j] as usize, j)] = 1.0;
    }
}

// The index View is read-only.
#[kernel]
fn write_index(i: usize, idx: InjectiveView<i32>) {
    idx[i] = 0;
}

fn main() {}
