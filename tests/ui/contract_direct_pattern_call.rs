// Calling an execution space's pattern methods directly, with a policy nobody validated (`10..5`
// used to panic in rayon and wgpu, a team size of 0 made invalid WGSL), is impossible: the methods
// take a launch token only.
use rokkos::prelude::*;

#[kernel]
fn axpy(i: usize, y: ViewMut<f64>, x: View<f64>) {
    y[i] += x[i];
}

fn main() {
    let x = View::<f64>::new("x", [4]).unwrap();
    let y = View::<f64>::new("y", [4]).unwrap();
    let space = Rayon::new();
    #[allow(clippy::reversed_empty_ranges)]
    let policy = RangePolicy::new(&space, 10..5);
    let _ = space.for_range("axpy", &policy, axpy(&y, &x));
    let team = TeamPolicy::new(&space, 4, TeamSize::Exactly(0));
    let _ = space.for_team("axpy", &team, axpy(&y, &x));
}
