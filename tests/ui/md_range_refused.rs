use rokkos::prelude::*;

// Nested MD ranges keep the ownership rule of the ranges they are written as: a write indexed by
// the second index alone is made by every thread (each runs the whole second extent), a race.

#[kernel]
fn racy_column(team: &TeamMember, y: ViewMut<f64, 2>) {
    let l = team.league_rank();
    for [i, j] in team.thread_md_range([4, y.extent(1)]) {
        y[(l, j)] = i as f64;
    }
}

// The indices are bound as an array of one name per extent.
#[kernel]
fn tuple_pattern(team: &TeamMember, y: ViewMut<f64, 3>) {
    let l = team.league_rank();
    for (i, j) in team.thread_md_range([y.extent(1), y.extent(2)]) {
        y[(l, i, j)] = 1.0;
    }
}

// `TeamVectorMDRange` reductions are sums, as in Kokkos.
#[kernel]
fn team_vector_max(team: &TeamMember, a: View<f64, 3>, out: ViewMut<f64>) {
    let l = team.league_rank();
    let m = team.team_vector_md_reduce([a.extent(1), a.extent(2)], Max, |[i, j], m: &mut f64| {
        *m = m.max(a[(l, i, j)]);
    });
    team.single_team(|| {
        out[l] = m;
    });
}

fn main() {}
