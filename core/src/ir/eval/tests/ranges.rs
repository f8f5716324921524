//! Inclusive `for` ranges (`a..=b` with `.step_by(k)` and `.rev()` in both orders) visit in the
//! evaluator exactly the values Rust's iterators visit, up to the extremes of the counter's type,
//! with `continue` and `break` in the body.

use crate::ir::build::{IrInt, KernelBuilder};
use crate::ir::eval::{eval_for, ArgValue, Buffer, EvalError, WorkSet};
use crate::ir::{Access, Kernel, WorkKind};
use std::fmt::Debug;
use std::ops::RangeInclusive;

/// The loop shapes: Rust's `(a..=b).step_by(k)`, `(a..=b).rev()`, `(a..=b).step_by(k).rev()` and
/// `(a..=b).rev().step_by(k)`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    Step,
    Rev,
    StepRev,
    RevStep,
}
const ORDERS: [Order; 4] = [Order::Step, Order::Rev, Order::StepRev, Order::RevStep];

/// The most values a kernel records before it `break`s (the native loops stop there too), so that
/// ranges spanning a whole 64-bit type end quickly.
const CAP: usize = 24;

/// ```ignore
/// fn visit(i: usize, out: ViewMut<T>, cnt: ViewMut<u64>, a: T, b: T, k: T, skip: T) {
///     let mut n = 0usize;
///     for v in <order applied to a..=b, k> {
///         if v == skip { continue; }
///         out[n] = v;
///         n += 1;
///         if n == CAP { break; }
///     }
///     cnt[0] = n as u64;
/// }
/// ```
/// `(a..=b).rev().step_by(k)` is recorded as `#[kernel]` records it: `b - (j - a)` for `j` in
/// `(a..=b).step_by(k)`.
fn visit_kernel<T: IrInt>(order: Order) -> Kernel {
    let mut kb = KernelBuilder::new("visit", WorkKind::Range);
    let _ = kb.work_index(0);
    let out = kb.view::<T>("out", 1, Access::Writable);
    let cnt = kb.view::<u64>("cnt", 1, Access::Writable);
    let (a, b) = (kb.scalar::<T>("a"), kb.scalar::<T>("b"));
    let (k, skip) = (kb.scalar::<T>("k"), kb.scalar::<T>("skip"));
    let n = kb.let_("n", 0usize);
    let v = match order {
        Order::Step => kb.for_range_step_inclusive("v", a.get(), b.get(), k.get(), false),
        // `.rev()` alone is `.step_by(1).rev()`: the sweep passes `k = 1`.
        Order::Rev | Order::StepRev => {
            kb.for_range_step_inclusive("v", a.get(), b.get(), k.get(), true)
        }
        Order::RevStep => {
            let (lo, hi) = (kb.let_("_lo", a.get()), kb.let_("_hi", b.get()));
            let j = kb.for_range_step_inclusive("_j", lo.get(), hi.get(), k.get(), false);
            kb.let_("v", hi.get() - (j.get() - lo.get()))
        }
    };
    kb.if_(v.get().eq_(skip.get()));
    kb.continue_();
    kb.end();
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

/// Runs `kernel` on one work item; the values it recorded.
fn run<T>(kernel: &Kernel, a: T, b: T, k: T, skip: T) -> Result<Vec<T>, EvalError>
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
        ArgValue::Scalar(k.to_value()),
        ArgValue::Scalar(skip.to_value()),
    ];
    eval_for(kernel, &WorkSet::Range { begin: 0, end: 1 }, &mut args)?;
    out.truncate(cnt[0] as usize);
    Ok(out)
}

/// What native Rust visits, with the kernel's `continue` on `skip` and `break` at [`CAP`].
fn native<T>(order: Order, a: T, b: T, k: T, skip: T) -> Vec<T>
where
    T: Copy + PartialEq + Into<i128> + TryFrom<i128>,
    <T as TryFrom<i128>>::Error: Debug,
    RangeInclusive<T>: DoubleEndedIterator<Item = T>,
{
    let step = usize::try_from(k.into()).unwrap_or(usize::MAX);
    let it: Box<dyn Iterator<Item = T>> = match order {
        Order::Step => Box::new((a..=b).step_by(step)),
        Order::Rev => Box::new((a..=b).rev()),
        Order::RevStep => Box::new((a..=b).rev().step_by(step)),
        // `StepBy<RangeInclusive<T>>` is not double-ended for 32- and 64-bit `T` (no
        // `ExactSizeIterator`); its `rev()` (as for `i8`/`i16`) is the forward sequence backwards.
        Order::StepRev => {
            let (a, b, k) = (a.into(), b.into(), k.into());
            if a > b {
                Box::new(std::iter::empty())
            } else if (b - a) / k < 4096 {
                let fwd: Vec<T> = (a..=b)
                    .step_by(step)
                    .map(|x| T::try_from(x).unwrap())
                    .collect();
                // The descent below starts where Rust's does.
                assert_eq!(fwd.last().map(|&x| x.into()), Some(a + (b - a) / k * k));
                Box::new(fwd.into_iter().rev())
            } else {
                // Too long to collect: descend from the forward sequence's last element.
                let last = a + (b - a) / k * k;
                Box::new(
                    std::iter::successors(Some(last), move |x| Some(x - k))
                        .take_while(move |x| *x >= a)
                        .map(|x| T::try_from(x).unwrap()),
                )
            }
        }
    };
    let mut seen = Vec::new();
    for v in it {
        if v == skip {
            continue;
        }
        seen.push(v);
        if seen.len() == CAP {
            break;
        }
    }
    seen
}

/// Every combination of bounds near the type's minimum, zero and maximum, steps from 1 to the
/// maximum, and all four orders; `skip` is each case's second native value, so `continue` runs.
fn sweep<T>(name: &str)
where
    T: IrInt + Default + Debug + PartialEq + Into<i128> + TryFrom<i128>,
    <T as TryFrom<i128>>::Error: Debug,
    RangeInclusive<T>: DoubleEndedIterator<Item = T>,
    for<'x> &'x mut Vec<T>: Into<Buffer<'x>>,
{
    let t = |x: i128| T::try_from(x).ok();
    let (min, max) = (min_of::<T>(), max_of::<T>());
    let points: Vec<T> = [
        min,
        min + 1,
        min + 2,
        -1,
        0,
        1,
        2,
        3,
        max - 3,
        max - 2,
        max - 1,
        max,
    ]
    .into_iter()
    .filter_map(t)
    .collect();
    let steps: Vec<T> = [1, 2, 3, 5, max / 2, max / 2 + 1, max]
        .into_iter()
        .filter_map(t)
        .collect();
    let mut cases = 0;
    for order in ORDERS {
        let kernel = visit_kernel::<T>(order);
        for &a in &points {
            for &b in &points {
                let steps = if order == Order::Rev {
                    &steps[..1]
                } else {
                    &steps[..]
                };
                for &k in steps {
                    let plain = native(order, a, b, k, max_of_t::<T>());
                    let skip = plain.get(1).copied().unwrap_or(a);
                    let want = native(order, a, b, k, skip);
                    let got = run(&kernel, a, b, k, skip).unwrap_or_else(|e| {
                        panic!("{name} {order:?} ({a:?}..={b:?}) k={k:?}: {e}")
                    });
                    assert_eq!(got, want, "{name} {order:?} ({a:?}..={b:?}) k={k:?}");
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 300, "{name}: only {cases} cases");
}

fn min_of<T: IrInt>() -> i128 {
    match T::TYPE {
        crate::ir::ScalarType::I32 => i32::MIN.into(),
        crate::ir::ScalarType::I64 => i64::MIN.into(),
        _ => 0,
    }
}

fn max_of<T: IrInt>() -> i128 {
    match T::TYPE {
        crate::ir::ScalarType::I32 => i32::MAX.into(),
        crate::ir::ScalarType::U32 => u32::MAX.into(),
        crate::ir::ScalarType::I64 => i64::MAX.into(),
        _ => u64::MAX.into(),
    }
}

/// `T::MAX` as a `T` (a `skip` value that the plain run need not avoid).
fn max_of_t<T>() -> T
where
    T: IrInt + TryFrom<i128>,
    <T as TryFrom<i128>>::Error: Debug,
{
    T::try_from(max_of::<T>()).unwrap()
}

#[test]
fn inclusive_u32_matches_rust() {
    sweep::<u32>("u32");
}

#[test]
fn inclusive_i32_matches_rust() {
    sweep::<i32>("i32");
}

#[test]
fn inclusive_u64_matches_rust() {
    sweep::<u64>("u64");
}

#[test]
fn inclusive_i64_matches_rust() {
    sweep::<i64>("i64");
}

/// The cases the bug report names, spelled out: a range ending at the maximum is not empty.
#[test]
fn ranges_ending_at_max_are_not_empty() {
    let k = visit_kernel::<u32>(Order::Step);
    let got = run(&k, u32::MAX - 3, u32::MAX, 1, 0).unwrap();
    assert_eq!(got, [u32::MAX - 3, u32::MAX - 2, u32::MAX - 1, u32::MAX]);
    let k = visit_kernel::<i32>(Order::StepRev);
    let got = run(&k, i32::MAX - 7, i32::MAX, 3, 0).unwrap();
    // Rust: the forward sequence MAX-7, MAX-4, MAX-1, backwards.
    assert_eq!(got, [i32::MAX - 1, i32::MAX - 4, i32::MAX - 7]);
    let k = visit_kernel::<u64>(Order::RevStep);
    let got = run(&k, u64::MAX - 7, u64::MAX, 3, 0).unwrap();
    assert_eq!(got, [u64::MAX, u64::MAX - 3, u64::MAX - 6]);
    let k = visit_kernel::<i64>(Order::Step);
    let got = run(&k, i64::MIN, i64::MAX, i64::MAX, 0).unwrap();
    assert_eq!(got, [i64::MIN, -1, i64::MAX - 1]);
    // `0..=MAX` with step 1 runs until the body breaks.
    let k = visit_kernel::<u64>(Order::Rev);
    let got = run(&k, 0, u64::MAX, 1, 0).unwrap();
    assert_eq!(
        got,
        (0..CAP as u64).map(|d| u64::MAX - d).collect::<Vec<_>>()
    );
}

/// A step of zero is an error of the work item (Rust's `step_by(0)` panics), also inclusive.
#[test]
fn inclusive_zero_step_is_an_error() {
    let k = visit_kernel::<u32>(Order::Step);
    let r = run::<u32>(&k, 0, 5, 0, 9);
    assert_eq!(
        r,
        Err(EvalError::Failed("assertion failed: step != 0".into()))
    );
}

#[test]
fn inclusive_loops_print_and_hash_apart_from_half_open() {
    let build = |inclusive: bool| {
        let mut kb = KernelBuilder::new("l", WorkKind::Range);
        let _ = kb.work_index(0);
        let out = kb.view::<u32>("out", 1, Access::Writable);
        let v = if inclusive {
            kb.for_range_step_inclusive::<u32>("v", 1, 4, 1, false)
        } else {
            kb.for_range_step::<u32>("v", 1, 4, 1, false)
        };
        kb.store(out, 0usize, v.get());
        kb.end();
        kb.finish().unwrap()
    };
    let (open, closed) = (build(false), build(true));
    assert!(open.to_string().contains("in (1u32..4u32) {"), "{open}");
    assert!(
        closed.to_string().contains("in (1u32..=4u32) {"),
        "{closed}"
    );
    assert_ne!(open.stable_hash(), closed.stable_hash());
}
