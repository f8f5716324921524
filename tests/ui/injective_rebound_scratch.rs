// An InjectiveView or DisjointRanges parameter rebound to team scratch is scratch: the kernel
// writes it, so a lookup in it owns nothing (audit: every team wrote out[0] through it, lost
// updates on rayon).
use rokkos::prelude::*;

#[kernel]
fn through_injective(team: &TeamMember, out: ViewMut<f64>, idx: InjectiveView<u32>, n: usize) {
    let l = team.league_rank();
    let idx = team.team_scratch::<u32, 1>(1, [n]);
    team.single_team(|| {
        idx[l] = 0;
    });
    team.team_barrier();
    team.single_team(|| {
        out[idx[l] as usize] += 1.0;
    });
}

#[kernel]
fn through_ranges(team: &TeamMember, out: ViewMut<f64>, rg: DisjointRanges<u32>, n: usize) {
    let l = team.league_rank();
    let rg = team.team_scratch::<u32, 2>(1, [n, 2]);
    team.single_team(|| {
        rg[(l, 0)] = 0;
        rg[(l, 1)] = 0;
    });
    team.team_barrier();
    team.single_team(|| {
        for s in rg[(l, 0)] as usize..=rg[(l, 1)] as usize {
            out[s] += 1.0;
        }
    });
}

fn main() {}
