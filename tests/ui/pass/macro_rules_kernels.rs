//! Kernels written by a `macro_rules!` macro: the names the macro introduces have its hygiene, and
//! the code `#[kernel]` generates around them (hoisted bounds checks of neighbour accesses, the
//! versioned inner loop of a team kernel) must refer to the same bindings.
use rokkos::prelude::*;

macro_rules! stencil_kernels {
    ($name:ident, $team:ident) => {
        #[kernel]
        fn $name(i: usize, out: ViewMut<f64>, w: View<f64>) {
            out[i] = w[i] + w[i + 1];
        }

        #[kernel]
        fn $team(team: &TeamMember, out: ViewMut<f64, 2>, w: View<f64, 2>) {
            let l = team.league_rank();
            for s in team.thread_range(out.extent(1)) {
                out[(l, s)] = 2.0 * w[(l, s)];
            }
        }
    };
}

stencil_kernels!(pairs, doubled);

// Names the caller gives, used consistently (each spelled in one expansion), element types from
// `ty` fragments, in casts too, and a `#[func]` built the same way.
macro_rules! scale_kernel {
    ($name:ident, $f:ident, $i:ident, $t:ty, $k:expr) => {
        #[func]
        fn $f(x: $t, k: $t) -> $t {
            x * k
        }

        #[kernel]
        fn $name($i: usize, out: ViewMut<$t>, x: View<$t>) {
            let k = $k as $t;
            out[$i] = $f(x[$i], k) + ($i as $t);
        }
    };
}

scale_kernel!(scale3, times, idx, f64, 3);

fn main() -> rokkos::Result<()> {
    let w = View::<f64>::from_fn("w", [5], |[i]| i as f64)?;
    let out = View::<f64>::new("out", [4])?;
    parallel_for("pairs", RangePolicy::new(&Serial, 0..4), pairs(&out, &w))?;
    assert_eq!(out.to_vec(), vec![1.0, 3.0, 5.0, 7.0]);
    let w2 = View::<f64, 2>::from_fn("w2", [2, 3], |[l, s]| (10 * l + s) as f64)?;
    let o2 = View::<f64, 2>::new("o2", [2, 3])?;
    parallel_for("doubled", TeamPolicy::new(&Serial, 2, TeamSize::Auto), doubled(&o2, &w2))?;
    assert_eq!(o2.to_vec(), vec![0.0, 2.0, 4.0, 20.0, 22.0, 24.0]);
    parallel_for("scale3", RangePolicy::new(&Serial, 0..4), scale3(&out, &w))?;
    assert_eq!(out.to_vec(), vec![0.0, 4.0, 8.0, 12.0]);
    Ok(())
}
