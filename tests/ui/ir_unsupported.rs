//! Constructs the native path accepts but the kernel IR (device backends) cannot express.
use rokkos::prelude::*;

#[kernel]
fn outer_local(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    let mut s = 0.0;
    for j in team.thread_range(4) {
        s += j as f64;
    }
    team.single_team(|| {
        out[l] = s;
    });
}

#[kernel]
fn break_nested(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    for j in team.thread_range(4) {
        if j == 2 {
            break;
        }
        out[(l, j)] = 1.0;
    }
}

#[kernel]
fn labelled(i: usize, out: ViewMut<i64>) {
    let mut s = 0;
    'outer: for a in 0..4 {
        for b in 0..4 {
            if a * b > i {
                break 'outer;
            }
            s += 1;
        }
    }
    out[i] = s;
}

#[kernel]
fn return_in_single(team: &TeamMember, out: ViewMut<f64>) {
    let l = team.league_rank();
    team.single_team(|| {
        if l == 0 {
            return;
        }
        out[l] = 1.0;
    });
}

#[kernel]
fn bit_count(i: usize, out: ViewMut<u32>) {
    out[i] = (i as u32).count_ones();
}

fn main() {}
