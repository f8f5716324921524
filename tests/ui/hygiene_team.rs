// A `macro_rules!` macro that writes part of a kernel's names itself and takes the others from
// its caller makes two variables of one spelling (macro hygiene), while the kernel's checks know
// variables by spelling.
use rokkos::prelude::*;

// The team rules: the caller's `l` is the league rank, the macro's `l` a scalar.
macro_rules! team {
    ($l:ident) => {
        #[kernel]
        fn per_team(team: &TeamMember, out: ViewMut<u64>, l: usize) {
            let $l = team.league_rank();
            team.single_team(|| out[l] += 1);
        }
    };
}
team!(l);

fn main() {}
