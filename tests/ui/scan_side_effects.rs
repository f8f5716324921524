// Writes that outlive the work item in a scan body must sit under `if is_final { .. }`: a
// parallel scan runs the body more than once per index (rayon twice, wgpu up to three times),
// the serial loop once.
use rokkos::prelude::*;

#[kernel(scan)]
fn bump(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>, hits: ViewMut<i32>) {
    out[i] += 1;
    if !is_final {
        hits.atomic_add(i, 1);
    }
    if is_final {
        out[i] += *partial;
    }
    *partial += x[i];
}

#[kernel]
fn nested(team: &TeamMember, acc: &mut i32, a: View<i32, 2>) {
    let l = team.league_rank();
    let t = team.thread_scan(a.extent(1), |j, p: &mut i32, fin: bool| {
        *acc += a[(l, j)];
        *p += a[(l, j)];
    });
    team.single_team(|| *acc += t);
}

// The partial folded only in the final pass: the earlier passes' block totals miss it (rayon and
// wgpu gave 0 for the total and wrong prefixes).
#[kernel(scan)]
fn partial_in_final(i: usize, partial: &mut i32, is_final: bool, x: View<i32>, out: ViewMut<i32>) {
    if is_final {
        out[i] = *partial;
        *partial += x[i];
    }
}

// The partial reads what the final pass wrote: the earlier passes read it unwritten.
#[kernel(scan)]
fn reads_final_write(i: usize, partial: &mut i32, is_final: bool, out: ViewMut<i32>) {
    if is_final {
        out[i] = 1;
    }
    *partial += out[i];
}

// In a loop the read comes after the final write from the second iteration on.
#[kernel(scan)]
fn reads_final_write_in_loop(i: usize, partial: &mut i32, is_final: bool, out: ViewMut<i32>) {
    for _k in 0..2 {
        *partial += out[i];
        if is_final {
            out[i] = *partial;
        }
    }
}

fn main() {}
