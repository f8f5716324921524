//! Bit casts (`x.to_bits()`, `f32::from_bits(b)`, `f64::from_bits(b)`, `T::from_bits(b)`) in
//! kernels and `#[func]`s on every backend, bit for bit against Rust's own `to_bits` / `from_bits`
//! in a plain loop: ±0, subnormals of both signs, the extremes, ±∞, quiet and signalling NaNs with
//! payloads and either sign, and random bit patterns; the round trips both ways; and bit
//! manipulation through them (the exponent field, negation and `abs` by the sign bit, the sign
//! smeared by an arithmetic shift of the same-width `as i32`). Every backend keeps every bit,
//! NaN payloads included: the kernels only move the bits and combine them as integers, so no
//! float operation is there to quiet a NaN.

use crate::{check, dev, dev_from_vec, to_host, DevView};
use proptest::prelude::*;
use rokkos::prelude::*;

/// `e` of `x` as the IEEE exponent field minus the bias, from the bits.
#[func]
fn exponent_f32(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32 - 127
}

/// As [`exponent_f32`], for `f64`.
#[func]
fn exponent_f64(x: f64) -> i64 {
    ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023
}

/// The sign bit of `x` flipped, through its bits (the sign mask is itself a float's bits).
#[func]
fn flip<T: rokkos::Float>(x: T) -> T {
    T::from_bits(x.to_bits() ^ (T::from_f32(-1.0).to_bits() ^ T::from_f32(1.0).to_bits()))
}

/// Every bit cast of `x[i]` (a float) and of `b[i]` (bits), with the integer results in `to` and
/// the float ones in `from`, column by column as the expectation in [`f32_rows`] lists them.
#[kernel]
fn bits_f32(
    i: usize,
    to: ViewMut<u32, 2>,
    from: ViewMut<f32, 2>,
    exp: ViewMut<i32>,
    x: View<f32>,
    b: View<u32>,
) {
    let v = x[i];
    let bits = v.to_bits();
    to[(i, 0)] = bits;
    to[(i, 1)] = (bits >> 23) & 0xff;
    to[(i, 2)] = f32::from_bits(b[i]).to_bits();
    to[(i, 3)] = ((bits as i32) >> 31) as u32;
    to[(i, 4)] = f32::to_bits(flip(v));
    from[(i, 0)] = f32::from_bits(b[i]);
    from[(i, 1)] = f32::from_bits(bits ^ 0x8000_0000);
    from[(i, 2)] = f32::from_bits(bits & 0x7fff_ffff);
    from[(i, 3)] = f32::from_bits(v.to_bits());
    exp[i] = exponent_f32(v);
}

/// As [`bits_f32`], for `f64`.
#[kernel]
fn bits_f64(
    i: usize,
    to: ViewMut<u64, 2>,
    from: ViewMut<f64, 2>,
    exp: ViewMut<i64>,
    x: View<f64>,
    b: View<u64>,
) {
    let v = x[i];
    let bits = v.to_bits();
    to[(i, 0)] = bits;
    to[(i, 1)] = (bits >> 52) & 0x7ff;
    to[(i, 2)] = f64::from_bits(b[i]).to_bits();
    to[(i, 3)] = ((bits as i64) >> 63) as u64;
    to[(i, 4)] = f64::to_bits(flip(v));
    from[(i, 0)] = f64::from_bits(b[i]);
    from[(i, 1)] = f64::from_bits(bits ^ 0x8000_0000_0000_0000);
    from[(i, 2)] = f64::from_bits(bits & 0x7fff_ffff_ffff_ffff);
    from[(i, 3)] = f64::from_bits(v.to_bits());
    exp[i] = exponent_f64(v);
}

/// A kernel generic over the float type: `T::from_bits`, `<T>::from_bits` and `x.to_bits()` on a
/// `T`, whose bits type is `T`'s (`u32` or `u64`).
#[kernel]
fn generic_round_trip<T: rokkos::Float>(i: usize, y: ViewMut<T>, z: ViewMut<T>, x: View<T>) {
    let b = x[i].to_bits();
    y[i] = T::from_bits(b);
    z[i] = <T>::from_bits(b ^ (T::to_bits(T::from_f32(-2.0)) ^ T::from_f32(2.0).to_bits()));
}

/// The f32 values whose bits every backend must keep: zeros, subnormals, normal extremes,
/// infinities, and NaNs (quiet, signalling, with payloads, of either sign).
fn f32_specials() -> Vec<u32> {
    vec![
        0x0000_0000, // 0.0
        0x8000_0000, // -0.0
        0x3f80_0000, // 1.0
        0xbfc0_0000, // -1.5
        0x0000_0001, // the smallest subnormal
        0x8000_0001,
        0x007f_ffff, // the largest subnormal
        0x807f_ffff,
        0x0080_0000, // MIN_POSITIVE
        0x7f7f_ffff, // MAX
        0xff7f_ffff, // MIN
        0x7f80_0000, // +inf
        0xff80_0000, // -inf
        0x7fc0_0000, // the quiet NaN
        0xffc0_0000, // with the sign set
        0x7fc0_1234, // quiet with a payload
        0xffe5_4321,
        0x7f80_0001, // signalling
        0xff81_2345,
        0x7fbf_ffff,
    ]
}

/// As [`f32_specials`], for `f64`.
fn f64_specials() -> Vec<u64> {
    vec![
        0,
        1 << 63,
        0x3ff0_0000_0000_0000,
        0xbff8_0000_0000_0000,
        1,
        0x8000_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
        0x800f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0xffef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0xfff8_0000_0000_0000,
        0x7ff8_0000_dead_beef,
        0xfffc_1234_5678_9abc,
        0x7ff0_0000_0000_0001,
        0xfff0_0000_0001_2345,
        0x7ff7_ffff_ffff_ffff,
    ]
}

/// What the kernels must give for input bits `b` (and `x = from_bits(b)`), per column.
fn f32_rows(b: u32) -> ([u32; 5], [u32; 4], i32) {
    let x = f32::from_bits(b);
    let bits = x.to_bits();
    let to = [
        bits,
        (bits >> 23) & 0xff,
        f32::from_bits(b).to_bits(),
        ((bits as i32) >> 31) as u32,
        bits ^ 0x8000_0000,
    ];
    let from = [b, bits ^ 0x8000_0000, bits & 0x7fff_ffff, bits];
    (to, from, ((bits >> 23) & 0xff) as i32 - 127)
}

/// As [`f32_rows`], for `f64`.
fn f64_rows(b: u64) -> ([u64; 5], [u64; 4], i64) {
    let x = f64::from_bits(b);
    let bits = x.to_bits();
    let sign = 1u64 << 63;
    let to = [
        bits,
        (bits >> 52) & 0x7ff,
        f64::from_bits(b).to_bits(),
        ((bits as i64) >> 63) as u64,
        bits ^ sign,
    ];
    let from = [b, bits ^ sign, bits & !sign, bits];
    (to, from, ((bits >> 52) & 0x7ff) as i64 - 1023)
}

/// The bits of every input, a special value or a random pattern, in the order given.
fn f32_inputs() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 0..300).prop_map(|mut v| {
        v.extend(f32_specials());
        v
    })
}

fn f32_bit_casts_match_rust<E: ExecutionSpace>(space: E) {
    check(3, f32_inputs(), |bs| {
        let n = bs.len();
        let xs: Vec<f32> = bs.iter().map(|&b| f32::from_bits(b)).collect();
        let x: DevView<E, f32> = dev_from_vec(&space, "x", [n], xs).unwrap();
        let b: DevView<E, u32> = dev_from_vec(&space, "b", [n], bs.clone()).unwrap();
        let to: DevView<E, u32, 2> = dev(&space, "to", [n, 5]).unwrap();
        let from: DevView<E, f32, 2> = dev(&space, "from", [n, 4]).unwrap();
        let exp: DevView<E, i32> = dev(&space, "exp", [n]).unwrap();
        parallel_for(
            "bits_f32",
            RangePolicy::new(&space, 0..n),
            bits_f32(&to, &from, &exp, &x, &b),
        )
        .unwrap();
        let (got_to, got_from, got_exp) = (to_host(&to), to_host(&from), to_host(&exp));
        for (i, &bi) in bs.iter().enumerate() {
            let (want_to, want_from, want_exp) = f32_rows(bi);
            let got_from: Vec<u32> = got_from[i * 4..i * 4 + 4]
                .iter()
                .map(|f| f.to_bits())
                .collect();
            prop_assert_eq!(
                &got_to[i * 5..i * 5 + 5],
                &want_to,
                "to_bits of {:#010x} on {}",
                bi,
                space.name()
            );
            prop_assert_eq!(
                &got_from,
                &want_from,
                "from_bits of {:#010x} on {}",
                bi,
                space.name()
            );
            prop_assert_eq!(got_exp[i], want_exp, "exponent of {:#010x}", bi);
        }
        Ok(())
    });
}
per_backend!(f32_bit_casts_match_rust);

fn f64_bit_casts_match_rust<E: ExecutionSpace>(space: E) {
    let inputs = prop::collection::vec(any::<u64>(), 0..300).prop_map(|mut v| {
        v.extend(f64_specials());
        v
    });
    check(3, inputs, |bs| {
        let n = bs.len();
        let xs: Vec<f64> = bs.iter().map(|&b| f64::from_bits(b)).collect();
        let x: DevView<E, f64> = dev_from_vec(&space, "x", [n], xs).unwrap();
        let b: DevView<E, u64> = dev_from_vec(&space, "b", [n], bs.clone()).unwrap();
        let to: DevView<E, u64, 2> = dev(&space, "to", [n, 5]).unwrap();
        let from: DevView<E, f64, 2> = dev(&space, "from", [n, 4]).unwrap();
        let exp: DevView<E, i64> = dev(&space, "exp", [n]).unwrap();
        let r = parallel_for(
            "bits_f64",
            RangePolicy::new(&space, 0..n),
            bits_f64(&to, &from, &exp, &x, &b),
        );
        // A device without 64-bit types refuses here, naming the feature: NO_INT64_GATED
        // lists this body, so that refusal is checked rather than skipped.
        r.unwrap();
        let (got_to, got_from, got_exp) = (to_host(&to), to_host(&from), to_host(&exp));
        for (i, &bi) in bs.iter().enumerate() {
            let (want_to, want_from, want_exp) = f64_rows(bi);
            let got_from: Vec<u64> = got_from[i * 4..i * 4 + 4]
                .iter()
                .map(|f| f.to_bits())
                .collect();
            prop_assert_eq!(
                &got_to[i * 5..i * 5 + 5],
                &want_to,
                "to_bits of {:#018x} on {}",
                bi,
                space.name()
            );
            prop_assert_eq!(
                &got_from,
                &want_from,
                "from_bits of {:#018x} on {}",
                bi,
                space.name()
            );
            prop_assert_eq!(got_exp[i], want_exp, "exponent of {:#018x}", bi);
        }
        Ok(())
    });
}
per_backend!(f64_bit_casts_match_rust);

/// The generic kernel on `f32` (which every device runs) and, where the device has it, `f64`.
fn generic_bit_casts_match_rust<E: ExecutionSpace>(space: E) {
    let bs = f32_specials();
    let n = bs.len();
    let x: DevView<E, f32> = dev_from_vec(
        &space,
        "x",
        [n],
        bs.iter().map(|&b| f32::from_bits(b)).collect(),
    )
    .unwrap();
    let y: DevView<E, f32> = dev(&space, "y", [n]).unwrap();
    let z: DevView<E, f32> = dev(&space, "z", [n]).unwrap();
    parallel_for(
        "generic_round_trip",
        RangePolicy::new(&space, 0..n),
        generic_round_trip::<f32, _, _, _, _>(&y, &z, &x),
    )
    .unwrap();
    let y_bits: Vec<u32> = to_host(&y).iter().map(|f| f.to_bits()).collect();
    let z_bits: Vec<u32> = to_host(&z).iter().map(|f| f.to_bits()).collect();
    let flipped: Vec<u32> = bs.iter().map(|b| b ^ 0x8000_0000).collect();
    assert_eq!(y_bits, bs, "f32 round trip on {}", space.name());
    assert_eq!(z_bits, flipped, "f32 sign flip on {}", space.name());

    let bs = f64_specials();
    let n = bs.len();
    let x: DevView<E, f64> = dev_from_vec(
        &space,
        "x",
        [n],
        bs.iter().map(|&b| f64::from_bits(b)).collect(),
    )
    .unwrap();
    let y: DevView<E, f64> = dev(&space, "y", [n]).unwrap();
    let z: DevView<E, f64> = dev(&space, "z", [n]).unwrap();
    let r = parallel_for(
        "generic_round_trip",
        RangePolicy::new(&space, 0..n),
        generic_round_trip::<f64, _, _, _, _>(&y, &z, &x),
    );
    // Refused without 64-bit types, naming the feature (NO_INT64_GATED lists this body).
    r.unwrap();
    let y_bits: Vec<u64> = to_host(&y).iter().map(|f| f.to_bits()).collect();
    let z_bits: Vec<u64> = to_host(&z).iter().map(|f| f.to_bits()).collect();
    let flipped: Vec<u64> = bs.iter().map(|b| b ^ (1 << 63)).collect();
    assert_eq!(y_bits, bs, "f64 round trip on {}", space.name());
    assert_eq!(z_bits, flipped, "f64 sign flip on {}", space.name());
}
per_backend!(generic_bit_casts_match_rust);

/// A trait that would answer `x.to_bits()` and `T::from_bits(b)` on a type parameter if the
/// kernel's calls were left to rustc: its functions are never called, which is what the kernel
/// below checks (the native path keeps `std`'s meaning, as the IR does).
#[allow(dead_code)]
trait BitsImpostor {
    fn to_bits(self) -> u32;
    fn from_bits(b: u32) -> Self;
}

impl BitsImpostor for f32 {
    fn to_bits(self) -> u32 {
        7
    }
    fn from_bits(_: u32) -> f32 {
        -1.0
    }
}

#[kernel]
fn impostor_k<T: rokkos::Float + BitsImpostor>(i: usize, y: ViewMut<T>, x: View<T>) {
    y[i] = T::from_bits(x[i].to_bits());
}

/// A user trait in scope does not answer the bit casts of a generic kernel.
fn user_traits_do_not_answer_bit_casts<E: ExecutionSpace>(space: E) {
    let xs = vec![1.5f32, -0.0, f32::from_bits(0x7fc0_1234), f32::INFINITY];
    let x: DevView<E, f32> = dev_from_vec(&space, "x", [4], xs.clone()).unwrap();
    let y: DevView<E, f32> = dev(&space, "y", [4]).unwrap();
    parallel_for(
        "impostor",
        RangePolicy::new(&space, 0..4),
        impostor_k::<f32, _, _, _>(&y, &x),
    )
    .unwrap();
    let got: Vec<u32> = to_host(&y).iter().map(|f| f.to_bits()).collect();
    let want: Vec<u32> = xs.iter().map(|f| f.to_bits()).collect();
    assert_eq!(got, want, "on {}", space.name());
}
per_backend!(user_traits_do_not_answer_bit_casts);
