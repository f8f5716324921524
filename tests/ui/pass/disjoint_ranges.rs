//! The forms of a sample of a `DisjointRanges` range that own a write without `unsafe`.
use rokkos::prelude::*;
// `DisjointRanges` comes with the prelude.

// A team per (row, range): the league rank split by the number of ranges, a thread range over
// the range's samples.
#[kernel]
fn team_design(team: &TeamMember, iv: DisjointRanges<u32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let n = iv.extent(0);
    let d = l / n;
    let v = l % n;
    let first = iv[(v, 0)];
    let last = iv[(v, 1)];
    for s in team.thread_range(first as usize..=last as usize) {
        let r = rows[d] as usize;
        out[(r, s)] += 1.0;
    }
}

// An MDRange over (row, range, offset) returning past the range.
#[kernel]
fn mdrange_design((d, v, k): (usize, usize, usize), iv: DisjointRanges<i32>, rows: InjectiveView<i32>, out: ViewMut<f64, 2>) {
    let s = iv[(v, 0)] as usize + k;
    if s > iv[(v, 1)] as usize {
        return;
    }
    out[(rows[d] as usize, s)] = out[(rows[d] as usize, s)] * 2.0;
}

// A range's own first and last index lie in it.
#[kernel]
fn range_design(i: usize, iv: DisjointRanges<u32>, out: ViewMut<f64>) {
    out[iv[(i, 0)] as usize] = 1.0;
    let last = iv[(i, 1)];
    out[last as usize] += 1.0;
}

fn main() {
    let iv = DisjointRanges::new("iv", &[(0u32, 2), (5, 5)]).unwrap();
    let rows = InjectiveView::new("rows", &[1i32, 0]).unwrap();
    let out = View::<f64, 2>::new("out", [2, 6]).unwrap();
    parallel_for("team", TeamPolicy::new(&Serial, 4, TeamSize::Auto), team_design(&iv, &rows, &out)).unwrap();
    let out1 = View::<f64>::new("out1", [6]).unwrap();
    parallel_for("range", RangePolicy::new(&Serial, 0..2), range_design(&iv, &out1)).unwrap();
    assert_eq!(out1.to_vec(), vec![1.0, 0.0, 1.0, 0.0, 0.0, 2.0]);
}
