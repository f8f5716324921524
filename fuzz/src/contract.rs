//! The precision contract the comparison holds each backend to: what a backend may return for a
//! value whose reference (serial, the native path) is known. All tolerance rules live in
//! [`check`]; the per-function accuracies come from the math contract itself
//! ([`MathFn::max_ulp_from_std`], through [`gpu_accuracy`]).
//!
//! The rules, as the rokkos documentation states them (the `rokkos-wgpu` crate docs, "Floating
//! point" and "Transcendental functions", and `rokkos_core::ir::ops::math`'s precision
//! contract):
//!
//! - Integers and `bool`: bit-exact on every backend.
//! - Float `Min` / `Max` / `MinMax` reductions: bit-exact, except the sign of a zero extremum
//!   on a backend that partitions the work when the kernel folds otherwise than by the join
//!   (`rokkos::reducer`'s contract: only a fold that orders `-0.0` below `0.0` as the join does
//!   is partition-independent in that last respect).
//! - Floats on the host backends and the IR evaluator: bit-exact (any NaN matches any NaN: Rust
//!   does not specify NaN payloads), except where the backend combines partial results in another
//!   order (reductions and scans of float sums and products on rayon and GPUs, and MDRange
//!   reductions, which serial folds tile by tile): within the reassociation bound of the terms.
//! - Floats on GPUs: on wgpu, not checked when computed by a float `+ - *` with an operand the
//!   compiler can know as a constant, or with identical operands (`rokkos-wgpu`'s float contract:
//!   such arithmetic may be simplified by real-number algebra; [`GPU_RELAXED`]); otherwise bit-exact
//!   for values computed by exact operations (`+ - * /`, conversions,
//!   rounding functions, `min`/`max`, ...); a value that went through a function GPUs
//!   approximate is checked when it is that function's result on exact operands (NaN, infinities
//!   and zero signs exactly as Rust gives them, finite values within [`gpu_accuracy`]) and not
//!   checked after further arithmetic; on wgpu a float multiply feeding an add may be fused, so
//!   such values are not checked either (CUDA compiles with IEEE options and `--fmad=false`: its
//!   arithmetic is Rust's, [`Backend::relaxed_float`]). Values that depend on `team_rank()` / `team_size()` differ by
//!   design between one-thread teams (host) and GPU teams and are not checked on GPUs.

use rokkos::ir::{MathFn, Value};
use rokkos_fuzz_gen::analyze::taint::{
    FLOAT_MINMAX_REDUCE, FUSABLE, GPU_APPROX, GPU_RELAXED, TEAM_SHAPE,
};
use rokkos_fuzz_gen::ty::Ty;

/// A backend the fuzzer runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    /// The serial backend: the reference.
    Serial,
    /// The rayon backend (the global pool).
    Rayon,
    /// The IR evaluator (`rokkos::ir::eval::IrEval`).
    IrEval,
    /// The wgpu backend.
    Wgpu,
    /// The CUDA backend, where `rokkos::run_on("cuda", ..)` finds a device (a GPU, or the host
    /// emulator `tools/cuda-emu`, as in CI).
    Cuda,
}

impl Backend {
    /// Every backend, the reference first.
    pub const ALL: [Backend; 5] = [
        Backend::Serial,
        Backend::Rayon,
        Backend::IrEval,
        Backend::Wgpu,
        Backend::Cuda,
    ];
    /// The name, as `ExecutionSpace::name` says it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Serial => "serial",
            Backend::Rayon => "rayon",
            Backend::IrEval => "ir-eval",
            Backend::Wgpu => "wgpu",
            Backend::Cuda => "cuda",
        }
    }
    /// A GPU: approximate functions and fused multiply-adds allowed, real team threads.
    pub fn is_gpu(self) -> bool {
        matches!(self, Backend::Wgpu | Backend::Cuda)
    }
    /// Whether the backend's shader compiler may treat the kernel's own float arithmetic as
    /// real-number algebra (simplify, reassociate, fuse): wgpu's (rokkos-wgpu's "Floating point"
    /// contract). rokkos-cuda compiles with NVRTC's IEEE options and `--fmad=false`, so CUDA's
    /// arithmetic is Rust's, and checked exactly.
    pub fn relaxed_float(self) -> bool {
        matches!(self, Backend::Wgpu)
    }
    /// The environment variable that makes a missing device an error for a GPU backend
    /// (`ROKKOS_REQUIRE_WGPU=1`, as CI sets it).
    pub fn require_env(self) -> Option<&'static str> {
        match self {
            Backend::Wgpu => Some("ROKKOS_REQUIRE_WGPU"),
            Backend::Cuda => Some("ROKKOS_REQUIRE_CUDA"),
            _ => None,
        }
    }
    /// Whether the backend splits a reduction into partial results (serial and the evaluator
    /// fold every work item into one accumulator, in order).
    pub fn partitions(self) -> bool {
        matches!(self, Backend::Rayon | Backend::Wgpu | Backend::Cuda)
    }
}

/// What the comparison knows about one result besides its reference value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// The analysis' taint bits ([`rokkos_fuzz_gen::analyze::taint`]).
    pub taint: u32,
    /// The value is this approximate function's result on exact operands.
    pub direct: Option<(&'static str, Ty)>,
    /// The value is a float sum or product whose terms this backend may combine in another order.
    pub reassoc: Option<Reassoc>,
}

/// A float sum or product of terms (the reference's terms), combined in an unknown order.
#[derive(Clone, Debug, PartialEq)]
pub struct Reassoc {
    /// A product (else a sum).
    pub product: bool,
    /// The terms.
    pub terms: Vec<f64>,
    /// `f32` (else `f64`).
    pub single: bool,
}

/// The outcome of one comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Within the contract.
    Agree,
    /// Outside it.
    Differ,
    /// The contract says nothing this comparison can check (the reason).
    Unchecked(&'static str),
}

/// Whether backend `b` may return `got` where the reference returned `want`, for a value with
/// `meta`: the one place every tolerance rule of the fuzzer lives.
pub fn check(b: Backend, meta: &Meta, want: Value, got: Value) -> Verdict {
    if want.ty() != got.ty() {
        return Verdict::Differ;
    }
    if b.is_gpu() && meta.taint & TEAM_SHAPE != 0 {
        return Verdict::Unchecked("depends on the team shape");
    }
    if b.relaxed_float() && meta.taint & GPU_RELAXED != 0 {
        // rokkos-wgpu's float contract: the adapter's compiler may apply real-number algebra
        // to arithmetic with constants or identical operands (reassociated constants, `x * 0`
        // as 0, `x - x` as 0), which changes roundings, zero signs, infinities and NaNs.
        return Verdict::Unchecked(
            "float arithmetic with a constant: a GPU compiler may simplify it algebraically",
        );
    }
    if b.relaxed_float() && meta.taint & FUSABLE != 0 {
        return Verdict::Unchecked("a multiply feeding an add, which a GPU compiler may fuse");
    }
    if b.is_gpu() && meta.taint & GPU_APPROX != 0 {
        return match meta.direct {
            Some((f, ty)) => approx(f, ty, as_f64(want), as_f64(got)),
            None => Verdict::Unchecked(
                "computed from an approximate function's result, or a float team reduction",
            ),
        };
    }
    if b.partitions()
        && meta.taint & FLOAT_MINMAX_REDUCE != 0
        && as_f64(want) == 0.0
        && as_f64(got) == 0.0
    {
        // The reducer contract: a fold other than the join keeps whichever zero came first.
        return Verdict::Unchecked("the sign of a zero extremum depends on the partition");
    }
    if let Some(r) = &meta.reassoc {
        return reassociated(r, as_f64(want), as_f64(got));
    }
    exact(want, got)
}

fn as_f64(v: Value) -> f64 {
    match v {
        Value::F32(x) => x as f64,
        Value::F64(x) => x,
        other => other.to_bits() as f64,
    }
}

fn verdict(ok: bool) -> Verdict {
    if ok {
        Verdict::Agree
    } else {
        Verdict::Differ
    }
}

/// Bit-exact, any NaN matching any NaN.
fn exact(want: Value, got: Value) -> Verdict {
    let nan = |v: Value| match v {
        Value::F32(x) => x.is_nan(),
        Value::F64(x) => x.is_nan(),
        _ => false,
    };
    verdict((nan(want) && nan(got)) || want.to_bits() == got.to_bits())
}

/// The accuracy a GPU promises for approximate function `f` (its Rust method name), in ulps of
/// its type from Rust's own result: the math contract's [`MathFn::max_ulp_from_std`], the one
/// source of truth (1 ulp, 2 for `sinh`, `cosh`, `tanh`, `log10`, subnormal results included,
/// on both float types). `None` for a name the IR does not know.
pub fn gpu_accuracy(f: &str) -> Option<u32> {
    MathFn::ALL
        .iter()
        .find(|m| m.name() == f)
        .map(|m| m.max_ulp_from_std())
}

/// The distance in units in the last place of `ty` between two finite values.
pub fn ulps(a: f64, b: f64, ty: Ty) -> f64 {
    let ord32 = |x: f64| {
        let b = (x as f32).to_bits() as i32 as i64;
        if b < 0 {
            i32::MIN as i64 - b
        } else {
            b
        }
    };
    let ord64 = |x: f64| {
        let b = x.to_bits() as i64 as i128;
        if b < 0 {
            i64::MIN as i128 - b
        } else {
            b
        }
    };
    if ty == Ty::F32 {
        ord32(a).abs_diff(ord32(b)) as f64
    } else {
        ord64(a).abs_diff(ord64(b)) as f64
    }
}

/// An approximate function's result: special values (NaN, ±∞, ±0) exactly, finite ones within
/// the accuracy.
fn approx(f: &str, ty: Ty, want: f64, got: f64) -> Verdict {
    let Some(u) = gpu_accuracy(f) else {
        return Verdict::Unchecked("an approximate function the contract does not name");
    };
    if want.is_nan() || got.is_nan() || want.is_infinite() || got.is_infinite() {
        return verdict((want.is_nan() && got.is_nan()) || want.to_bits() == got.to_bits());
    }
    if want == 0.0 {
        // A zero result (and its sign) is a special value: exact.
        return verdict(want.to_bits() == got.to_bits());
    }
    verdict(ulps(want, got, ty) <= u as f64)
}

/// A float sum or product combined in another order than the reference's.
fn reassociated(r: &Reassoc, want: f64, got: f64) -> Verdict {
    let (eps, max, min_normal) = if r.single {
        (
            f32::EPSILON as f64,
            f32::MAX as f64,
            f32::MIN_POSITIVE as f64,
        )
    } else {
        (f64::EPSILON, f64::MAX, f64::MIN_POSITIVE)
    };
    let n = r.terms.len().max(1) as f64;
    let nan = r.terms.iter().any(|t| t.is_nan());
    let pinf = r.terms.contains(&f64::INFINITY);
    let ninf = r.terms.contains(&f64::NEG_INFINITY);
    if nan || (!r.product && pinf && ninf) {
        return verdict(got.is_nan());
    }
    if !r.product {
        let s: f64 = r
            .terms
            .iter()
            .filter(|t| t.is_finite())
            .map(|t| t.abs())
            .sum();
        if s >= max / 2.0 {
            return Verdict::Unchecked("a partial sum may overflow in another order");
        }
        if pinf || ninf {
            return verdict(
                got == if pinf {
                    f64::INFINITY
                } else {
                    f64::NEG_INFINITY
                },
            );
        }
        let tol = 2.0 * n * eps * s;
        return verdict((got - want).abs() <= tol);
    }
    let zero = r.terms.contains(&0.0);
    let inf = pinf || ninf;
    let negative = r.terms.iter().filter(|t| t.is_sign_negative()).count() % 2 == 1;
    if zero && inf {
        return verdict(got.is_nan());
    }
    let (mut up, mut down) = (0.0f64, 0.0f64);
    for t in r.terms.iter().filter(|t| t.is_finite() && **t != 0.0) {
        let l = t.abs().log2();
        if l > 0.0 {
            up += l;
        } else {
            down += l;
        }
    }
    if up >= max.log2() - 1.0 || down <= min_normal.log2() + 1.0 {
        return Verdict::Unchecked("a partial product may overflow or underflow in another order");
    }
    if zero || inf {
        let mag = if zero { 0.0 } else { f64::INFINITY };
        let v = if negative { -mag } else { mag };
        return verdict(got.to_bits() == v.to_bits());
    }
    verdict((got - want).abs() <= 2.0 * n * eps * want.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_match_bit_for_bit() {
        let m = Meta::default();
        assert_eq!(
            check(Backend::Wgpu, &m, Value::I32(3), Value::I32(3)),
            Verdict::Agree
        );
        assert_eq!(
            check(Backend::Wgpu, &m, Value::I32(3), Value::I32(4)),
            Verdict::Differ
        );
        assert_eq!(
            check(Backend::IrEval, &m, Value::F64(0.0), Value::F64(-0.0)),
            Verdict::Differ
        );
        assert_eq!(
            check(
                Backend::Rayon,
                &m,
                Value::F64(f64::NAN),
                Value::F64(-f64::NAN)
            ),
            Verdict::Agree
        );
        assert_eq!(
            check(Backend::Rayon, &m, Value::F64(1.0), Value::F32(1.0)),
            Verdict::Differ
        );
    }

    /// The generator's approximate and exact function lists are the math contract's.
    #[test]
    fn function_lists_follow_the_math_contract() {
        use rokkos_fuzz_gen::ast::{APPROX1, APPROX2, EXACT1};
        for f in APPROX1.iter().chain(APPROX2) {
            assert!(
                gpu_accuracy(f).is_some_and(|u| u > 0),
                "{f} is not approximate"
            );
        }
        for f in EXACT1 {
            assert!(gpu_accuracy(f).is_none_or(|u| u == 0), "{f} is not exact");
        }
        for m in MathFn::ALL.iter().filter(|m| m.max_ulp_from_std() > 0) {
            assert!(
                APPROX1.contains(&m.name()) || APPROX2.contains(&m.name()),
                "{} is approximate but not generated as such",
                m.name()
            );
        }
    }

    #[test]
    fn approximate_values_follow_the_function_contract() {
        let m = Meta {
            taint: GPU_APPROX,
            direct: Some(("atan", Ty::F32)),
            reassoc: None,
        };
        // `atan`'s contract: 1 ulp from Rust's result (`MathFn::max_ulp_from_std`).
        let w = 0.5f32;
        let near = f32::from_bits(w.to_bits() + 1);
        let far = f32::from_bits(w.to_bits() + 2);
        assert_eq!(
            check(Backend::Wgpu, &m, Value::F32(w), Value::F32(near)),
            Verdict::Agree
        );
        assert_eq!(
            check(Backend::Wgpu, &m, Value::F32(w), Value::F32(far)),
            Verdict::Differ
        );
        assert_eq!(
            check(Backend::Wgpu, &m, Value::F32(f32::NAN), Value::F32(0.0)),
            Verdict::Differ
        );
        let sinh = Meta {
            direct: Some(("sinh", Ty::F64)),
            ..m.clone()
        };
        let v = 1.5f64;
        let two = f64::from_bits(v.to_bits() + 2);
        let three = f64::from_bits(v.to_bits() + 3);
        assert_eq!(
            check(Backend::Wgpu, &sinh, Value::F64(v), Value::F64(two)),
            Verdict::Agree
        );
        assert_eq!(
            check(Backend::Wgpu, &sinh, Value::F64(v), Value::F64(three)),
            Verdict::Differ
        );
        // Host backends are exact even for approximate functions.
        assert_eq!(
            check(Backend::IrEval, &m, Value::F32(w), Value::F32(near)),
            Verdict::Differ
        );
        let m = Meta {
            taint: GPU_APPROX,
            direct: None,
            reassoc: None,
        };
        assert!(matches!(
            check(Backend::Wgpu, &m, Value::F32(w), Value::F32(far)),
            Verdict::Unchecked(_)
        ));
    }

    #[test]
    fn reassociated_sums_and_products_are_bounded() {
        let sum = |terms: Vec<f64>| Meta {
            reassoc: Some(Reassoc {
                product: false,
                terms,
                single: false,
            }),
            ..Meta::default()
        };
        let m = sum(vec![0.1, 0.2, 0.3]);
        let (a, b) = ((0.1 + 0.2) + 0.3, 0.1 + (0.2 + 0.3));
        assert_ne!(a, b);
        assert_eq!(
            check(Backend::Rayon, &m, Value::F64(a), Value::F64(b)),
            Verdict::Agree
        );
        assert_eq!(
            check(Backend::Rayon, &m, Value::F64(a), Value::F64(0.7)),
            Verdict::Differ
        );
        let m = sum(vec![1.0, f64::NAN]);
        assert_eq!(
            check(Backend::Rayon, &m, Value::F64(f64::NAN), Value::F64(1.0)),
            Verdict::Differ
        );
        let m = sum(vec![f64::MAX, f64::MAX, f64::INFINITY]);
        assert!(matches!(
            check(
                Backend::Rayon,
                &m,
                Value::F64(f64::INFINITY),
                Value::F64(f64::NAN)
            ),
            Verdict::Unchecked(_)
        ));
        let prod = Meta {
            reassoc: Some(Reassoc {
                product: true,
                terms: vec![-2.0, 0.0, 3.0],
                single: true,
            }),
            ..Meta::default()
        };
        assert_eq!(
            check(Backend::Wgpu, &prod, Value::F32(-0.0), Value::F32(-0.0)),
            Verdict::Agree
        );
        assert_eq!(
            check(Backend::Wgpu, &prod, Value::F32(-0.0), Value::F32(0.0)),
            Verdict::Differ
        );
    }
}
