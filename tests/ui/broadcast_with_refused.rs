use rokkos::prelude::*;

// `team_broadcast_with` takes the value, the source thread and a closure of one parameter.

#[kernel]
fn no_closure(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    let v = team.team_broadcast_with(1.0, 0);
    team.single_team(|| {
        out[l] = v;
    });
}

#[kernel]
fn two_parameters(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    let v = team.team_broadcast_with(1.0, 0, |a: f64, b: f64| a + b);
    team.single_team(|| {
        out[l] = v;
    });
}

fn main() {}
