use rokkos::prelude::*;

// Blocks of rows that two teams could share: an end past `first + R`, and an end not tied to
// the team's block at all.

#[kernel]
fn one_row_too_many(team: &TeamMember, y: ViewMut<f64>, rows_per_team: usize) {
    let l = team.league_rank();
    let first = l * rows_per_team;
    for r in team.thread_range(first..(first + rows_per_team + 1).min(y.extent(0))) {
        y[r] = 1.0;
    }
}

#[kernel]
fn open_ended(team: &TeamMember, y: ViewMut<f64>, rows_per_team: usize) {
    let l = team.league_rank();
    let first = l * rows_per_team;
    for r in team.thread_range(first..y.extent(0)) {
        y[r] = 1.0;
    }
}

fn main() {}
