//! Constant tables (`const NAME: [T; N] = ..;` in a kernel or `#[func]` body) on every backend,
//! against the same lookups in a plain loop: integer tables of every width and sign, f32 tables
//! whose NaN payloads, signed zeros, infinities and subnormals survive bit for bit, f64 tables,
//! a table in a helper function called by the kernel, a scalar `const`, a table indexed by data, and a read past a
//! table's end, which fails the launch as an out-of-bounds read on every backend.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// `c0 + c1 x + c2 x² + c3 x³` by Horner's rule, from a table of its coefficients.
#[func]
fn cubic(x: f32) -> f32 {
    const C: [f32; 4] = [1.0, -0.5, 0.25, -0.125];
    let mut s = 0.0f32;
    for k in 0..4 {
        s = s * x + C[3 - k];
    }
    s
}

/// Lookups in tables of the integer types and of f32 specials.
#[kernel]
fn lookups(
    i: usize,
    prod: ViewMut<u32>,
    signed: ViewMut<i32>,
    small: ViewMut<u32>,
    wide: ViewMut<i64>,
    specials: ViewMut<u32>,
    poly: ViewMut<f32>,
    x: View<f32>,
) {
    const PRIMES: [u32; 8] = [2, 3, 5, 7, 11, 13, 17, 19];
    const SIGNED: [i32; 3] = [i32::MIN, -1, i32::MAX];
    const BYTES: [u8; 4] = [0, 1, 127, 255];
    const SHORTS: [u16; 2] = [65535, 4660];
    const WIDE: [i64; 3] = [i64::MIN, -3, 1 << 40];
    const SPECIAL: [f32; 7] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xff81_2345),
        f32::from_bits(1),
    ];
    prod[i] = PRIMES[i % 8] * PRIMES[(i / 8) % 8];
    signed[i] = SIGNED[i % 3];
    const OFFSET: u32 = 7;
    small[i] = BYTES[i % 4] as u32 + SHORTS[i % 2] as u32 + OFFSET;
    wide[i] = WIDE[i % 3];
    specials[i] = SPECIAL[i % 7].to_bits();
    poly[i] = cubic(x[i]);
}

/// A table indexed by data: `out[i] = SQUARES[idx[i]]`, and an f64 table.
#[kernel]
fn gather_table(i: usize, out: ViewMut<u32>, scaled: ViewMut<f64>, idx: View<u32>) {
    const SQUARES: [u32; 10] = [0, 1, 4, 9, 16, 25, 36, 49, 64, 81];
    const THIRDS: [f64; 3] = [0.0, 1.0 / 3.0, 2.0 / 3.0];
    out[i] = SQUARES[idx[i] as usize];
    scaled[i] = THIRDS[idx[i] as usize % 3] * idx[i] as f64;
}

/// What [`cubic`] computes, in the same order.
fn cubic_host(x: f32) -> f32 {
    let c = [1.0f32, -0.5, 0.25, -0.125];
    let mut s = 0.0f32;
    for k in 0..4 {
        s = s * x + c[3 - k];
    }
    s
}

fn table_lookups_match_a_loop<E: ExecutionSpace>(space: E) {
    check(
        3,
        (1usize..400, prop::collection::vec(-4.0f32..4.0, 1..400)),
        |(n, xs)| {
            let n = n.min(xs.len());
            let x: DevView<E, f32> = dev_from_vec(&space, "x", [n], xs[..n].to_vec()).unwrap();
            let prod: DevView<E, u32> = dev(&space, "prod", [n]).unwrap();
            let signed: DevView<E, i32> = dev(&space, "signed", [n]).unwrap();
            let small: DevView<E, u32> = dev(&space, "small", [n]).unwrap();
            let wide: DevView<E, i64> = dev(&space, "wide", [n]).unwrap();
            let specials: DevView<E, u32> = dev(&space, "specials", [n]).unwrap();
            let poly: DevView<E, f32> = dev(&space, "poly", [n]).unwrap();
            parallel_for(
                "lookups",
                RangePolicy::new(&space, 0..n),
                lookups(&prod, &signed, &small, &wide, &specials, &poly, &x),
            )
            .unwrap();
            let primes = [2u32, 3, 5, 7, 11, 13, 17, 19];
            let special_bits = [
                0u32,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_1234,
                0xff81_2345,
                1,
            ];
            let (p, s, sm, w, sp, po) = (
                to_host(&prod),
                to_host(&signed),
                to_host(&small),
                to_host(&wide),
                to_host(&specials),
                to_host(&poly),
            );
            for i in 0..n {
                assert_eq!(p[i], primes[i % 8] * primes[(i / 8) % 8], "prod[{i}]");
                assert_eq!(s[i], [i32::MIN, -1, i32::MAX][i % 3], "signed[{i}]");
                assert_eq!(
                    sm[i],
                    [0u32, 1, 127, 255][i % 4] + [65535u32, 4660][i % 2] + 7,
                    "small[{i}]"
                );
                assert_eq!(w[i], [i64::MIN, -3, 1 << 40][i % 3], "wide[{i}]");
                assert_eq!(sp[i], special_bits[i % 7], "specials[{i}]: {:#x}", sp[i]);
                let want = cubic_host(xs[i]);
                assert!(
                    (po[i] - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "poly[{i}]: {} against {want}",
                    po[i]
                );
            }
            Ok(())
        },
    );
}
per_backend!(table_lookups_match_a_loop);

fn table_indexed_by_data<E: ExecutionSpace>(space: E) {
    check(3, prop::collection::vec(0u32..10, 1..500), |idx| {
        let n = idx.len();
        let ix: DevView<E, u32> = dev_from_vec(&space, "idx", [n], idx.clone()).unwrap();
        let out: DevView<E, u32> = dev(&space, "out", [n]).unwrap();
        let scaled: DevView<E, f64> = dev(&space, "scaled", [n]).unwrap();
        parallel_for(
            "gather_table",
            RangePolicy::new(&space, 0..n),
            gather_table(&out, &scaled, &ix),
        )
        .unwrap();
        let thirds = [0.0, 1.0 / 3.0, 2.0 / 3.0];
        let (o, sc) = (to_host(&out), to_host(&scaled));
        for (i, &k) in idx.iter().enumerate() {
            assert_eq!(o[i], k * k, "out[{i}]");
            assert_eq!(
                sc[i].to_bits(),
                (thirds[k as usize % 3] * k as f64).to_bits(),
                "scaled[{i}]"
            );
        }
        Ok(())
    });
}
per_backend!(table_indexed_by_data);

fn table_read_past_its_end_fails<E: ExecutionSpace>(space: E) {
    let n = 64;
    // Index 10 (the table's length) at item 37 only: every other item reads in bounds.
    let idx: Vec<u32> = (0..n as u32)
        .map(|i| if i == 37 { 10 } else { i % 10 })
        .collect();
    let ix: DevView<E, u32> = dev_from_vec(&space, "idx", [n], idx).unwrap();
    let out: DevView<E, u32> = dev(&space, "out", [n]).unwrap();
    let scaled: DevView<E, f64> = dev(&space, "scaled", [n]).unwrap();
    match parallel_for(
        "gather_table",
        RangePolicy::new(&space, 0..n),
        gather_table(&out, &scaled, &ix),
    )
    .and_then(|()| space.fence())
    {
        Err(Error::OutOfBounds {
            kernel,
            view,
            index,
            extents,
        }) => {
            assert_eq!(kernel, "gather_table");
            assert_eq!(view, "constant table `SQUARES`");
            assert_eq!((index.as_str(), extents.as_str()), ("(10)", "(10)"));
        }
        Err(Error::KernelFailed { kernel, reason }) => {
            assert_eq!(kernel, "gather_table");
            assert!(reason.contains("out of bounds"), "{reason}");
        }
        other => panic!("expected an out-of-bounds failure, got {other:?}"),
    }
}
per_backend!(table_read_past_its_end_fails);
