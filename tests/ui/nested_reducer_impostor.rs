// A nested team reduction records its join by the reducer's name in the IR: a user type named
// `Sum` whose join is something else would join one way on the host and another on the devices.
use rokkos::prelude::*;

mod mine {
    /// Named like rokkos' `Sum`, joins as a maximum.
    #[derive(Clone, Copy)]
    pub struct Sum;
    impl<T: rokkos::Scalar> rokkos::Reducer<T> for Sum {
        fn init(&self) -> T {
            T::LOWEST
        }
        fn join(&self, dst: &mut T, src: T) {
            *dst = dst.maximum(src);
        }
    }
}

#[kernel]
fn row_sums(team: &TeamMember, out: ViewMut<f64>, a: View<f64, 2>) {
    let l = team.league_rank();
    let s = team.thread_reduce(a.extent(1), mine::Sum, |j, acc: &mut f64| *acc += a[(l, j)]);
    team.single_team(|| out[l] = s);
}

fn main() {}
