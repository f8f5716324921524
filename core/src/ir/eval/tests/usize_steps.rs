//! `step_by(k)` takes a `usize` in Rust whatever the counter's type, so `#[kernel]` records a
//! run-time step as a `u64`: a step beyond a 32-bit counter's range visits the first value only,
//! instead of wrapping (2^32 on a `u32` counter once became 0, an error; 2^32 + 1 became 1, every
//! value) or turning negative (2^31 on an `i32` counter, an error). Checked in the evaluator against
//! Rust's own iterators, half-open and inclusive, forward and in both reversed orders.

use crate::ir::build::{IrInt, KernelBuilder};
use crate::ir::eval::{eval_for, ArgValue, Buffer, EvalError, WorkSet};
use crate::ir::{Access, Kernel, WorkKind};

const CAP: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    /// `(a..b).step_by(k)`
    Step,
    /// `(a..b).step_by(k).rev()`
    StepRev,
    /// `(a..b).rev().step_by(k)`, recorded as `#[kernel]` records it: `b - 1 - (j - a)` for `j`
    /// in `(a..b).step_by(k)` (`b - (j - a)` when inclusive).
    RevStep,
}

/// Records up to [`CAP`] visited values into `out` and their count into `cnt`.
fn kernel<T: IrInt>(order: Order, inclusive: bool) -> Kernel {
    let mut kb = KernelBuilder::new("usize_steps", WorkKind::Range);
    let _ = kb.work_index(0);
    let out = kb.view::<T>("out", 1, Access::Writable);
    let cnt = kb.view::<u64>("cnt", 1, Access::Writable);
    let (a, b) = (kb.scalar::<T>("a"), kb.scalar::<T>("b"));
    let k = kb.scalar::<usize>("k");
    let n = kb.let_("n", 0usize);
    let open = |kb: &mut KernelBuilder, name: &str, s, e, rev| {
        if inclusive {
            kb.for_range_step_by_inclusive::<T>(name, s, e, k.get(), rev)
        } else {
            kb.for_range_step_by::<T>(name, s, e, k.get(), rev)
        }
    };
    let v = match order {
        Order::Step => open(&mut kb, "v", a.get(), b.get(), false),
        Order::StepRev => open(&mut kb, "v", a.get(), b.get(), true),
        Order::RevStep => {
            let (lo, hi) = (kb.let_("_lo", a.get()), kb.let_("_hi", b.get()));
            let j = open(&mut kb, "_j", lo.get(), hi.get(), false);
            let one = crate::ir::build::Expr::<u32>::lit(1).cast::<T>();
            let top = if inclusive { hi.get() } else { hi.get() - one };
            kb.let_("v", top - (j.get() - lo.get()))
        }
    };
    kb.store(out, n.get(), v.get());
    kb.assign(n, n.get() + 1);
    kb.if_(n.get().eq_(CAP));
    kb.break_();
    kb.end();
    kb.end();
    kb.store(cnt, 0usize, n.get().cast::<u64>());
    let kernel = kb.finish().unwrap();
    crate::ir::valid::validate(&kernel).unwrap();
    kernel
}

fn run<T>(kernel: &Kernel, a: T, b: T, k: u64) -> Result<Vec<T>, EvalError>
where
    T: IrInt + Default,
    for<'x> &'x mut Vec<T>: Into<Buffer<'x>>,
{
    let mut out = vec![T::default(); CAP];
    let mut cnt = vec![0u64; 1];
    let mut args = [
        ArgValue::view(&mut out, &[CAP]),
        ArgValue::view(&mut cnt, &[1]),
        ArgValue::Scalar(a.to_value()),
        ArgValue::Scalar(b.to_value()),
        ArgValue::Scalar(crate::ir::Value::U64(k)),
    ];
    eval_for(kernel, &WorkSet::Range { begin: 0, end: 1 }, &mut args)?;
    out.truncate(cnt[0] as usize);
    Ok(out)
}

/// What Rust visits (the first [`CAP`] values).
macro_rules! native {
    ($t:ty, $order:expr, $inclusive:expr, $a:expr, $b:expr, $k:expr) => {{
        let (a, b, k): ($t, $t, usize) = ($a, $b, $k as usize);
        let it: Box<dyn Iterator<Item = $t>> = match ($order, $inclusive) {
            (Order::Step, false) => Box::new((a..b).step_by(k)),
            (Order::Step, true) => Box::new((a..=b).step_by(k)),
            // `StepBy` of a 64-bit or inclusive range is not double-ended (no exact size): the
            // forward sequence backwards, from its last value `a + (span / k) * k`.
            (Order::StepRev, inclusive) => {
                let (a, b, k) = (a as i128, b as i128, k as i128);
                let span = if inclusive { b - a } else { b - 1 - a };
                let from = (span >= 0).then(|| a + span / k * k);
                Box::new(
                    std::iter::successors(from, move |x| Some(x - k))
                        .take_while(move |x| *x >= a)
                        .map(|x| x as $t),
                )
            }
            (Order::RevStep, false) => Box::new((a..b).rev().step_by(k)),
            (Order::RevStep, true) => Box::new((a..=b).rev().step_by(k)),
        };
        it.take(CAP).collect::<Vec<$t>>()
    }};
}

/// Steps around the 32-bit limits and beyond.
const STEPS: [u64; 10] = [
    1,
    3,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    1 << 32,
    (1 << 32) + 1,
    1 << 40,
    1 << 63,
    u64::MAX,
];

macro_rules! sweep {
    ($t:ty, $bounds:expr) => {{
        let mut cases = 0;
        for order in [Order::Step, Order::StepRev, Order::RevStep] {
            for inclusive in [false, true] {
                let kernel = kernel::<$t>(order, inclusive);
                for &(a, b) in $bounds {
                    for &k in &STEPS {
                        let want = native!($t, order, inclusive, a, b, k);
                        let got = run::<$t>(&kernel, a, b, k).unwrap_or_else(|e| {
                            panic!("{order:?} inclusive={inclusive} ({a}, {b}) k={k}: {e}")
                        });
                        assert_eq!(
                            got, want,
                            "{order:?} inclusive={inclusive} ({a}, {b}) k={k}"
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 100, "only {cases} cases");
    }};
}

#[test]
fn usize_steps_on_u32_counters_match_rust() {
    sweep!(
        u32,
        &[
            (0u32, u32::MAX),
            (0, 10),
            (5, 5),
            (7, 3),
            (u32::MAX - 4, u32::MAX),
            (1, u32::MAX - 1)
        ]
    );
}

#[test]
fn usize_steps_on_i32_counters_match_rust() {
    sweep!(
        i32,
        &[
            (i32::MIN, i32::MAX),
            (-10i32, 10),
            (i32::MIN, 0),
            (0, i32::MAX),
            (3, -3),
            (-1, -1)
        ]
    );
}

#[test]
fn usize_steps_on_64_bit_counters_match_rust() {
    sweep!(u64, &[(0u64, u64::MAX), (0, 10), (u64::MAX - 9, u64::MAX)]);
    sweep!(i64, &[(i64::MIN, i64::MAX), (-10i64, 10), (i64::MIN, 0)]);
}

/// A `usize` step of zero is still an error of the work item (Rust's `step_by(0)` panics).
#[test]
fn zero_usize_step_is_an_error() {
    let k = kernel::<u32>(Order::Step, false);
    let r = run::<u32>(&k, 0, 5, 0);
    assert_eq!(
        r,
        Err(EvalError::Failed("assertion failed: step != 0".into()))
    );
}

/// A step of another type than the counter's or `u64` is a validation error.
#[test]
fn step_of_another_type_is_rejected() {
    let mut kb = KernelBuilder::new("bad_step", WorkKind::Range);
    let _ = kb.work_index(0);
    let k = kb.scalar::<i64>("k");
    let v = kb.for_range_step::<u32>("v", 0u32, 4u32, k.get().cast::<u32>(), false);
    kb.end();
    let _ = v;
    let mut kernel = kb.finish().unwrap();
    // Swap the step for the raw `i64` parameter.
    if let Some(crate::ir::Stmt::For { step, .. }) = kernel.body.first_mut() {
        *step = crate::ir::Expr::Param(crate::ir::ScalarParamId(0));
    } else {
        panic!("expected a for loop first: {kernel}");
    }
    let e = crate::ir::valid::validate(&kernel).unwrap_err().to_string();
    assert!(e.contains("`for` step"), "{e}");
}
