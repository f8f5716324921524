//! Subviews of device Views (a row, a column, a block, a single element), kernels on them, and
//! mirrors both ways (Kokkos' `subview`, `create_mirror_view`, `deep_copy`).

use super::{ensure, Outcome};
use rokkos::prelude::*;

#[kernel]
fn scale(i: usize, v: ViewMut<f64, 1>, a: f64) {
    v[i] = a * v[i];
}

#[kernel]
fn add_one((i, j): (usize, usize), b: ViewMut<f64, 2>) {
    b[(i, j)] = b[(i, j)] + 1.0;
}

pub fn run(dev: &Device, n: usize) -> Outcome {
    let r = (n / 64).clamp(4, 64);
    let c = 8;
    let h = View::<f64, 2>::from_fn("m", [r, c], |[i, j]| (10 * i + j) as f64)?;
    let m = create_mirror_view_and_copy_in(dev, &h)?;
    // Row 1 doubled, column 2 negated, the block [2.., 4..] plus one, element (0, 0) set.
    let row = m.subview::<1>((1, ..))?;
    parallel_for("scale_row", RangePolicy::new(dev, 0..c), scale(&row, 2.0))?;
    let col = m.subview::<1>((.., 2))?;
    parallel_for("scale_col", RangePolicy::new(dev, 0..r), scale(&col, -1.0))?;
    let block = m.subview::<2>((2.., 4..))?;
    parallel_for(
        "block",
        MDRangePolicy::new(dev, [0, 0], [r - 2, c - 4]),
        add_one(&block),
    )?;
    m.subview::<0>((0, 0))?.fill(-7.0)?;
    // A host mirror of the block only, copied back from the device.
    let hb = create_mirror_view_and_copy(&block)?;
    ensure(hb.get((0, 0)) == 25.0, || {
        format!("block (0, 0): {}", hb.get((0, 0)))
    })?;
    // Edit on the host, send it back through a mirror (host -> device deep_copy).
    let mirror = create_mirror_view(&m)?;
    deep_copy(&mirror, &m)?;
    mirror.set((r - 1, c - 1), 1234.0);
    deep_copy(&m, &mirror)?;
    let back = create_mirror_view_and_copy(&m)?;
    for i in 0..r {
        for j in 0..c {
            let mut e = (10 * i + j) as f64;
            if i == 1 {
                e *= 2.0;
            }
            if j == 2 {
                e = -e;
            }
            if i >= 2 && j >= 4 {
                e += 1.0;
            }
            if (i, j) == (0, 0) {
                e = -7.0;
            }
            if (i, j) == (r - 1, c - 1) {
                e = 1234.0;
            }
            ensure(back.get((i, j)) == e, || {
                format!("({i}, {j}): {} vs {e}", back.get((i, j)))
            })?;
        }
    }
    Ok(format!("{r}x{c} through four subviews and two mirrors"))
}
