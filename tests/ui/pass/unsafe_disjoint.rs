use rokkos::prelude::*;

#[rokkos::func]
fn half(x: f64) -> f64 {
    x * 0.5
}

/// Each work item writes element `2 * i` and `2 * i + 1`: disjoint, but not provable by the macro.
#[kernel]
fn pairs(i: usize, a: ViewMut<f64>, b: View<f64>) {
    for k in 0..2 {
        let j = 2 * i + k;
        unsafe {
            a[j] = half(b[j]);
        }
    }
}

fn main() -> rokkos::Result<()> {
    let space = Serial;
    let a = View::<f64>::new("a", [8])?;
    let b = View::<f64>::from_fn("b", [8], |[i]| i as f64)?;
    parallel_for("pairs", RangePolicy::new(&space, 0..4), pairs(&a, &b))?;
    assert_eq!(a.get(7), 3.5);
    Ok(())
}
