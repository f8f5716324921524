use rokkos::prelude::*;

// Maps of the work index the owner-computes rule cannot prove injective, or two different maps
// of it in one kernel: each could let two work items reach one element.

#[kernel]
fn next_too(i: usize, y: ViewMut<u32>) {
    y[i] = 1;
    y[i + 1] = 2;
}

#[kernel]
fn run_time_multiplier(i: usize, y: ViewMut<u32>, k: usize) {
    y[k * i] = 1;
}

#[kernel]
fn zero_multiplier(i: usize, y: ViewMut<u32>) {
    y[0 * i] = 1;
}

#[kernel]
fn loop_offset(i: usize, y: ViewMut<u32>) {
    for k in 0..2 {
        y[i + k] = 1;
    }
}

#[kernel]
fn two_constants_one_name(i: usize, y: ViewMut<u32>) {
    {
        let k = 1;
        y[i + k] = 1;
    }
    {
        let k = 2;
        y[i + k] = 2;
    }
}

#[kernel]
fn shadowed_parameter(i: usize, y: ViewMut<u32>, off: usize) {
    let off = i / 2 + off;
    y[i + off] = 1;
}

#[kernel]
fn mutable_parameter(i: usize, y: ViewMut<u32>, mut off: usize) {
    off += i % 3;
    y[i + off] = 1;
}

#[kernel]
fn square(i: usize, y: ViewMut<u32>) {
    y[i * i] = 1;
}

fn main() {}
