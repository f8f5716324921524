use rokkos::prelude::*;

// Constant tables are read-only scalar arrays, indexed: a store into one, a table of a
// non-scalar element type, a table used whole, and a `const` of neither a scalar nor an array
// type are refused.

#[kernel]
fn store_into_table(i: usize, y: ViewMut<u32>) {
    const T: [u32; 2] = [1, 2];
    T[i % 2] = 3;
    y[i] = T[0];
}

#[kernel]
fn tuple_elements(i: usize, y: ViewMut<u32>) {
    const T: [(u32, u32); 1] = [(1, 2)];
    y[i] = T[0].0;
}

#[kernel]
fn table_as_value(i: usize, y: ViewMut<u32>) {
    const T: [u32; 2] = [1, 2];
    let t = T;
    y[i] = t[0];
}

#[kernel]
fn string_const(i: usize, y: ViewMut<u32>) {
    const NAME: &str = "y";
    y[i] = NAME.len() as u32;
}

fn main() {}
