//! Integer overflow and division failures on every backend, as Rust's native code has them (audit
//! item 10): `MIN / -1`, `MIN % -1` and a zero divisor fail in every build; `+ - *`, negation,
//! `abs` and shifts by the width or more fail when the kernel's crate is built with overflow checks
//! (debug, as this test usually is) and wrap otherwise; `wrapping_*` always wraps. A failure is
//! `Err(KernelFailed)` whose reason is Rust's panic message, from every backend (the host backends
//! catch the native panic at the launch boundary).

use crate::{dev, dev_from_vec, to_host, DevView};
use rokkos::prelude::*;

/// What a launch did: the value it stored, or the failure's message.
#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Value(T),
    Failed(String),
}

/// The outcome of `launch` on `space` (a device reports a failure at the fence after it), whose
/// result is then read by `read`. Every backend reports a failing kernel as `Err(KernelFailed)`.
fn outcome<E: ExecutionSpace, T>(
    space: &E,
    launch: impl FnOnce() -> rokkos::Result<()>,
    read: impl FnOnce() -> T,
) -> Outcome<T> {
    match launch().and_then(|()| space.fence()) {
        Ok(()) => Outcome::Value(read()),
        Err(Error::KernelFailed { kernel, reason }) => {
            assert!(!kernel.is_empty());
            Outcome::Failed(reason)
        }
        Err(e) => panic!("{}: expected KernelFailed, got {e:?}", space.name()),
    }
}

macro_rules! int_ops {
    ($m:ident, $t:ident) => {
        mod $m {
            use super::*;

            #[kernel]
            pub fn add(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] + b[i];
            }
            #[kernel]
            pub fn sub(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] - b[i];
            }
            #[kernel]
            pub fn mul(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] * b[i];
            }
            #[kernel]
            pub fn div(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] / b[i];
            }
            #[kernel]
            pub fn rem(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] % b[i];
            }
            #[kernel]
            pub fn add_assign(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                let mut x = a[i];
                x += b[i];
                out[i] = x;
            }
            #[kernel]
            pub fn shl(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] << b[i];
            }
            #[kernel]
            pub fn shr(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i] >> b[i];
            }
            #[kernel]
            pub fn wrapping(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i]
                    .wrapping_mul(b[i])
                    .wrapping_add(a[i])
                    .wrapping_sub(b[i]);
            }
            #[kernel]
            pub fn rem_euclid(i: usize, out: ViewMut<$t>, a: View<$t>, b: View<$t>) {
                out[i] = a[i].rem_euclid(b[i]);
            }

            /// Each operator of this type on edge operands, against Rust's checked arithmetic.
            pub fn check_all<E: ExecutionSpace>(space: &E) {
                let ones =
                    |v: $t| -> DevView<E, $t> { dev_from_vec(space, "x", [1], vec![v]).unwrap() };
                let debug = cfg!(debug_assertions);
                type Op = fn($t, $t) -> (Option<$t>, $t, &'static str, bool);
                // (name, Rust's checked result, the wrapped value, the panic message, whether it
                // fails in release builds too)
                let ops: [(&str, Op); 9] = [
                    ("add", |a, b| {
                        (
                            a.checked_add(b),
                            a.wrapping_add(b),
                            "attempt to add with overflow",
                            false,
                        )
                    }),
                    ("sub", |a, b| {
                        (
                            a.checked_sub(b),
                            a.wrapping_sub(b),
                            "attempt to subtract with overflow",
                            false,
                        )
                    }),
                    ("mul", |a, b| {
                        (
                            a.checked_mul(b),
                            a.wrapping_mul(b),
                            "attempt to multiply with overflow",
                            false,
                        )
                    }),
                    ("div", |a, b| {
                        let m = if b == 0 {
                            "attempt to divide by zero"
                        } else {
                            "attempt to divide with overflow"
                        };
                        (a.checked_div(b), 0, m, true)
                    }),
                    ("rem", |a, b| {
                        let m = if b == 0 {
                            "attempt to calculate the remainder with a divisor of zero"
                        } else {
                            "attempt to calculate the remainder with overflow"
                        };
                        (a.checked_rem(b), 0, m, true)
                    }),
                    ("add_assign", |a, b| {
                        (
                            a.checked_add(b),
                            a.wrapping_add(b),
                            "attempt to add with overflow",
                            false,
                        )
                    }),
                    ("shl", |a, b| {
                        (
                            a.checked_shl(b as u32)
                                .filter(|_| (b as u64) < <$t>::BITS as u64),
                            a.wrapping_shl(b as u32),
                            "attempt to shift left with overflow",
                            false,
                        )
                    }),
                    ("shr", |a, b| {
                        (
                            a.checked_shr(b as u32)
                                .filter(|_| (b as u64) < <$t>::BITS as u64),
                            a.wrapping_shr(b as u32),
                            "attempt to shift right with overflow",
                            false,
                        )
                    }),
                    ("wrapping", |a, b| {
                        let w = a.wrapping_mul(b).wrapping_add(a).wrapping_sub(b);
                        (Some(w), w, "", false)
                    }),
                ];
                let (lo, hi) = (<$t>::MIN, <$t>::MAX);
                let neg1 = (0 as $t).wrapping_sub(1);
                let operands: [($t, $t); 12] = [
                    (hi, 1),
                    (lo, 1),
                    (lo, neg1),
                    (hi, hi),
                    (lo, lo),
                    (7, 0),
                    (hi / 2 + 1, 2),
                    (3, 4),
                    (1, <$t>::BITS as $t),
                    (1, neg1),
                    (5, <$t>::BITS as $t - 1),
                    (neg1, 3),
                ];
                for (name, op) in ops {
                    for (a, b) in operands {
                        let out: DevView<E, $t> = dev(space, "out", [1]).unwrap();
                        let (x, y) = (ones(a), ones(b));
                        let p = RangePolicy::new(space, 0..1);
                        let launch = || match name {
                            "add" => parallel_for(name, p, add(&out, &x, &y)),
                            "sub" => parallel_for(name, p, sub(&out, &x, &y)),
                            "mul" => parallel_for(name, p, mul(&out, &x, &y)),
                            "div" => parallel_for(name, p, div(&out, &x, &y)),
                            "rem" => parallel_for(name, p, rem(&out, &x, &y)),
                            "add_assign" => parallel_for(name, p, add_assign(&out, &x, &y)),
                            "shl" => parallel_for(name, p, shl(&out, &x, &y)),
                            "shr" => parallel_for(name, p, shr(&out, &x, &y)),
                            _ => parallel_for(name, p, wrapping(&out, &x, &y)),
                        };
                        let got = outcome(space, launch, || to_host(&out)[0]);
                        let (checked, wrapped, message, always) = op(a, b);
                        let want = match checked {
                            Some(v) => Outcome::Value(v),
                            None if always || debug => Outcome::Failed(message.to_string()),
                            None => Outcome::Value(wrapped),
                        };
                        assert_eq!(
                            got,
                            want,
                            "{} on {}: {a} {name} {b} ({})",
                            stringify!($t),
                            space.name(),
                            if debug {
                                "overflow checks"
                            } else {
                                "no overflow checks"
                            }
                        );
                    }
                }
                // rem_euclid never overflows where `%` does not: `wrapping_abs` inside.
                for (a, b) in [(neg1, lo), (lo, 3), (3, neg1), (lo + 1, lo)] {
                    if b == 0 {
                        continue;
                    }
                    let out: DevView<E, $t> = dev(space, "out", [1]).unwrap();
                    let (x, y) = (ones(a), ones(b));
                    let got = outcome(
                        space,
                        || {
                            parallel_for(
                                "rem_euclid",
                                RangePolicy::new(space, 0..1),
                                rem_euclid(&out, &x, &y),
                            )
                        },
                        || to_host(&out)[0],
                    );
                    assert_eq!(got, Outcome::Value(a.rem_euclid(b)), "{a}.rem_euclid({b})");
                }
            }
        }
    };
}
int_ops!(ops_i32, i32);
int_ops!(ops_u32, u32);
int_ops!(ops_i64, i64);
int_ops!(ops_u64, u64);
int_ops!(ops_u8, u8);
int_ops!(ops_u16, u16);
int_ops!(ops_i8, i8);
int_ops!(ops_i16, i16);

#[kernel]
fn neg_abs(i: usize, out: ViewMut<i64, 2>, a: View<i32>, b: View<i64>) {
    out[(i, 0)] = (-a[i]) as i64;
    out[(i, 1)] = b[i].abs();
}

/// Every operator on every integer type, edge operands, against Rust.
fn integer_arithmetic_fails_as_rust<E: ExecutionSpace>(space: E) {
    ops_i32::check_all(&space);
    ops_u32::check_all(&space);
    ops_i64::check_all(&space);
    ops_u64::check_all(&space);
    ops_u8::check_all(&space);
    ops_u16::check_all(&space);
    ops_i8::check_all(&space);
    ops_i16::check_all(&space);
    for (a, b) in [(5, -7), (i32::MIN, 3), (4, i64::MIN)] {
        let out: DevView<E, i64, 2> = dev(&space, "out", [1, 2]).unwrap();
        let x: DevView<E, i32> = dev_from_vec(&space, "a", [1], vec![a]).unwrap();
        let y: DevView<E, i64> = dev_from_vec(&space, "b", [1], vec![b]).unwrap();
        let got = outcome(
            &space,
            || {
                parallel_for(
                    "neg_abs",
                    RangePolicy::new(&space, 0..1),
                    neg_abs(&out, &x, &y),
                )
            },
            || to_host(&out),
        );
        let overflow = a == i32::MIN || b == i64::MIN;
        let want = if overflow && cfg!(debug_assertions) {
            Outcome::Failed("attempt to negate with overflow".into())
        } else {
            Outcome::Value(vec![a.wrapping_neg() as i64, b.wrapping_abs()])
        };
        assert_eq!(got, want, "-{a}, {b}.abs() on {}", space.name());
    }
}
per_backend!(integer_arithmetic_fails_as_rust);

#[kernel]
fn neg_abs_small(i: usize, out: ViewMut<i32, 2>, a: View<i8>, b: View<i16>) {
    out[(i, 0)] = (-a[i]) as i32;
    out[(i, 1)] = b[i].abs() as i32;
}

/// `-x` and `abs` of `i8` / `i16`: `MIN` fails with overflow checks and wraps to `MIN` without
/// (wgpu holds these types in `i32`s, where `-MIN` is `MAX + 1`).
fn small_neg_abs_fail_as_rust<E: ExecutionSpace>(space: E) {
    for (a, b) in [
        (5i8, -7i16),
        (i8::MIN, 3),
        (4, i16::MIN),
        (i8::MAX, i16::MAX),
    ] {
        let out: DevView<E, i32, 2> = dev(&space, "out", [1, 2]).unwrap();
        let x: DevView<E, i8> = dev_from_vec(&space, "a", [1], vec![a]).unwrap();
        let y: DevView<E, i16> = dev_from_vec(&space, "b", [1], vec![b]).unwrap();
        let got = outcome(
            &space,
            || {
                parallel_for(
                    "neg_abs_small",
                    RangePolicy::new(&space, 0..1),
                    neg_abs_small(&out, &x, &y),
                )
            },
            || to_host(&out),
        );
        let overflow = a == i8::MIN || b == i16::MIN;
        let want = if overflow && cfg!(debug_assertions) {
            Outcome::Failed("attempt to negate with overflow".into())
        } else {
            Outcome::Value(vec![a.wrapping_neg() as i32, b.wrapping_abs() as i32])
        };
        assert_eq!(got, want, "-{a}, {b}.abs() on {}", space.name());
    }
}
per_backend!(small_neg_abs_fail_as_rust);

#[kernel]
fn div_min(i: usize, out: ViewMut<i32>, a: View<i32>) {
    out[i] = a[i] / -1;
}

/// The audit's case: `i32::MIN / -1` fails on every backend in every build, also with a literal
/// divisor, and work items before it keep what they stored.
fn min_div_minus_one_fails<E: ExecutionSpace>(space: E) {
    let x: DevView<E, i32> = dev_from_vec(&space, "a", [3], vec![6, i32::MIN, 9]).unwrap();
    let out: DevView<E, i32> = dev(&space, "out", [3]).unwrap();
    let got = outcome(
        &space,
        || parallel_for("div_min", RangePolicy::new(&space, 0..3), div_min(&out, &x)),
        || to_host(&out),
    );
    assert_eq!(
        got,
        Outcome::Failed("attempt to divide with overflow".into()),
        "{}",
        space.name()
    );
    assert_eq!(to_host(&out)[0], -6, "an earlier work item's store");
}
per_backend!(min_div_minus_one_fails);

#[kernel]
fn clamp_both(
    i: usize,
    out: ViewMut<f64>,
    iout: ViewMut<i32>,
    x: View<f64>,
    lo: f64,
    hi: f64,
    ilo: i32,
    ihi: i32,
) {
    out[i] = x[i].clamp(lo, hi);
    iout[i] = (x[i] as i32).clamp(ilo, ihi);
}

/// `clamp` with `min > max` (or a NaN bound) fails with Rust's assertion message, bounds included.
fn clamp_with_bad_bounds_fails<E: ExecutionSpace>(space: E) {
    let x: DevView<E, f64> = dev_from_vec(&space, "x", [2], vec![-0.0, 7.5]).unwrap();
    let out: DevView<E, f64> = dev(&space, "out", [2]).unwrap();
    let iout: DevView<E, i32> = dev(&space, "iout", [2]).unwrap();
    let run = |lo: f64, hi: f64, ilo: i32, ihi: i32| {
        outcome(
            &space,
            || {
                parallel_for(
                    "clamp",
                    RangePolicy::new(&space, 0..2),
                    clamp_both(&out, &iout, &x, lo, hi, ilo, ihi),
                )
            },
            || (to_host(&out), to_host(&iout)),
        )
    };
    let got = run(0.0, 1.0, 0, 1);
    let Outcome::Value((f, i)) = got else {
        panic!("{got:?}")
    };
    assert_eq!(
        f[0].to_bits(),
        (-0.0f64).to_bits(),
        "-0.0.clamp(0.0, 1.0) is -0.0"
    );
    assert_eq!((f[1], i.clone()), (1.0, vec![0, 1]));
    assert_eq!(
        run(2.0, 1.0, 0, 1),
        Outcome::Failed("min > max, or either was NaN. min = 2.0, max = 1.0".into())
    );
    assert_eq!(
        run(f64::NAN, 1.0, 0, 1),
        Outcome::Failed("min > max, or either was NaN. min = NaN, max = 1.0".into())
    );
    assert_eq!(
        run(0.0, 1.0, 5, -3),
        Outcome::Failed("min > max. min = 5, max = -3".into())
    );
}
per_backend!(clamp_with_bad_bounds_fails);

#[kernel]
fn stepped(i: usize, out: ViewMut<u64>, k: usize) {
    let mut s = 0u64;
    for j in (i..i + 10).step_by(k) {
        s += j as u64;
    }
    out[i] = s;
}

#[kernel]
fn through_scratch(team: &TeamMember, out: ViewMut<f64, 2>) {
    let l = team.league_rank();
    let n = out.extent(1);
    let s = team.team_scratch::<f64, 1>(0, [n]);
    for j in team.thread_range(n) {
        s[j] = j as f64;
    }
    team.team_barrier();
    for j in team.thread_range(n) {
        out[(l, j)] = s[j];
    }
}

/// The other failures of a work item are `KernelFailed` too, with the native path's words:
/// `step_by(0)` ("assertion failed: step != 0", Rust's) and a scratch request past the policy's
/// reservation (rokkos' message, the same on every backend).
fn other_failures_are_kernel_failed<E: ExecutionSpace>(space: E) {
    let out: DevView<E, u64> = dev(&space, "out", [4]).unwrap();
    let got = outcome(
        &space,
        || parallel_for("stepped", RangePolicy::new(&space, 0..4), stepped(&out, 0)),
        || (),
    );
    assert_eq!(
        got,
        Outcome::Failed("assertion failed: step != 0".into()),
        "{}",
        space.name()
    );
    let out: DevView<E, f64, 2> = dev(&space, "out", [2, 16]).unwrap();
    let p = TeamPolicy::new(&space, 2, TeamSize::Auto).scratch(0, 8 * 15, 0);
    let got = outcome(
        &space,
        || parallel_for("through_scratch", p, through_scratch(&out)),
        || (),
    );
    match got {
        Outcome::Failed(m) => assert!(
            m.contains("scratch of 16 elements of 8 bytes at level 0 exceeds the 120 bytes"),
            "{}: {m}",
            space.name()
        ),
        other => panic!("{}: {other:?}", space.name()),
    }
}
per_backend!(other_failures_are_kernel_failed);
