//! A kernel the macro rejects gives one error, where the mistake is: the kernel value, its
//! constructor and its traits (the native and the IR side) are still generated, typed as usual,
//! so that launching it adds nothing, whichever check refused it.
use rokkos::prelude::*;

/// Outside the accepted subset.
#[kernel]
fn prints(i: usize, a: ViewMut<f64>) {
    println!("{i}");
    a[i] = 1.0;
}

/// The owner-computes rule.
#[kernel]
fn racy(i: usize, a: ViewMut<f64>) {
    a[i / 2] = 1.0;
}

/// What the kernel IR cannot express.
#[kernel]
fn bits(i: usize, out: ViewMut<u32>) {
    out[i] = (i as u32).count_ones();
}

/// The team rules.
#[kernel]
fn nested_twice(team: &TeamMember, out: ViewMut<f64, 3>) {
    let l = team.league_rank();
    for j in team.thread_range(2) {
        for k in team.thread_range(2) {
            out[(l, j, k)] = 1.0;
        }
    }
}

fn launch_all<E: ExecutionSpace>(space: &E, a: &View<f64, 1, LayoutRight, E::Memory>, u: &View<u32, 1, LayoutRight, E::Memory>, o: &View<f64, 3, LayoutRight, E::Memory>) -> rokkos::Result<()> {
    parallel_for("prints", RangePolicy::new(space, 0..4), prints(a))?;
    parallel_for("racy", RangePolicy::new(space, 0..3), racy(a))?;
    parallel_for("bits", RangePolicy::new(space, 0..4), bits(u))?;
    parallel_for("nested", TeamPolicy::new(space, 2, TeamSize::Auto), nested_twice(o))
}

fn main() -> rokkos::Result<()> {
    let a = View::<f64>::new("a", [4])?;
    let u = View::<u32>::new("u", [4])?;
    let o = View::<f64, 3>::new("o", [2, 2, 2])?;
    launch_all(&Serial, &a, &u, &o)?;
    parallel_for("prints", RangePolicy::new(&Serial, 0..4), prints(&a))
}
