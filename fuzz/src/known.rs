//! The divergences already known, reported separately instead of failing the run.
//!
//! [`KNOWN_DIVERGENCES`] is the one list. Each entry names the issue item, the backends where it
//! shows, the taint a result (or, for failures, the kernel) must carry for a divergence to be
//! attributed to it ([`rokkos_fuzz_gen::analyze::taint`]), and which divergences it covers. When
//! a fix lands, delete its entry: the corpus case of that item and any random kernel that still
//! diverges then fails the run, and a corpus case that no longer diverges while its entry is
//! still here is reported ("remove it from the list").

use crate::rt::{FailKind, Failure};
use rokkos::ir::Value;
use rokkos_fuzz_gen::analyze::taint::*;

/// Which divergences an entry covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Any value that differs.
    Value,
    /// A value that differs only in the sign of a zero, or where either side is NaN.
    ZeroSignOrNaN,
    /// A value that differs only in the sign of a zero.
    ZeroSign,
    /// Serial fails with this kind of failure and the backend succeeds.
    SerialFails(FailKind),
    /// The backend's compiler refuses the generated code with a message containing one of these.
    Compile(&'static [&'static str]),
}

/// One known divergence.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// The item of issue 11 (or a later finding).
    pub item: &'static str,
    /// Backends where it shows.
    pub backends: &'static [&'static str],
    /// Taint bits, any of which attributes a divergence to this entry.
    pub taint: u32,
    /// Which divergences.
    pub when: When,
    /// What it is, and why it is on the list.
    pub why: &'static str,
}

/// The known divergences. Empty it as the fixes of issue 11 land.
pub const KNOWN_DIVERGENCES: &[Known] = &[
    Known {
        item: "11/9",
        backends: &["rayon", "ir-eval", "wgpu"],
        taint: FLOAT_MINMAX_REDUCE,
        when: When::ZeroSignOrNaN,
        why: "float Min/Max/MinMax/MinLoc/MaxLoc reductions: NaN and the sign of zero depend on the order of joins",
    },
    Known {
        item: "fuzz/int-reduce-partition",
        backends: &["rayon"],
        taint: INT_OVERFLOW,
        when: When::SerialFails(FailKind::Overflow),
        why: "found by this fuzzer, part of item 10's rule: an integer reduction folded with \
              `*acc *= v` / `+=` overflows (a panic in debug builds) in serial's one fold but \
              not in rayon's per-chunk folds, whose join wraps: whether a debug build fails \
              depends on the partition",
    },
    Known {
        item: "fuzz/reassociation",
        backends: &["wgpu"],
        taint: FLOAT_ADD_CHAIN,
        when: When::Value,
        why: "found by this fuzzer: `((i as f64) + -52108834423.0) - -3.05209152451236e17` is \
              1 ulp off on wgpu (i = 24): the GPU compiler folds the constants together \
              (`x + (c1 - c2)`), a reassociation IEEE arithmetic (and rokkos' contract, which \
              allows only fused multiply-adds) does not allow",
    },
    Known {
        item: "fuzz/underflow-sign",
        backends: &["wgpu"],
        taint: FLOAT_MUL,
        when: When::ZeroSign,
        why: "found by this fuzzer: `-(-3.26e-233 * (s * -2.2250738585072014e-308))` with \
              `s = -25.5` is +0.0 in Rust and -0.0 on wgpu: a product that underflows below the \
              subnormals loses the sign of its zero",
    },
    Known {
        item: "fuzz/clamp",
        backends: &["wgpu"],
        taint: CLAMP,
        when: When::SerialFails(FailKind::Clamp),
        why: "found by this fuzzer: `x.clamp(lo, hi)` with `lo > hi` (or a NaN bound) panics in \
              Rust and fails on the evaluator, but wgpu's `rk_clamp_*` returns a value",
    },
];

/// What diverged, for the known-list match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Observed<'a> {
    /// A value: reference, backend's, and the value's taint.
    Value {
        /// Serial's value.
        want: Value,
        /// The backend's value.
        got: Value,
        /// The value's taint.
        taint: u32,
    },
    /// Serial failed, the backend succeeded; the kernel's taint.
    SerialFailed {
        /// Serial's failure.
        serial: &'a Failure,
        /// The kernel's taint.
        taint: u32,
    },
    /// The backend failed where serial did not fail the same way.
    Failed(&'a Failure),
    /// The results have other shapes.
    Shape,
}

fn float(v: Value) -> Option<f64> {
    match v {
        Value::F32(x) => Some(x as f64),
        Value::F64(x) => Some(x),
        _ => None,
    }
}

/// The known entry a divergence on `backend` falls under, if any.
pub fn find(backend: &str, seen: &Observed<'_>) -> Option<&'static Known> {
    KNOWN_DIVERGENCES.iter().find(|k| {
        if !k.backends.contains(&backend) {
            return false;
        }
        match (*seen, k.when) {
            (Observed::Value { taint, .. }, _) if taint & k.taint == 0 => false,
            (Observed::Value { .. }, When::Value) => true,
            (Observed::Value { want, got, .. }, When::ZeroSign | When::ZeroSignOrNaN) => {
                match (float(want), float(got)) {
                    (Some(w), Some(g)) => {
                        (w == 0.0 && g == 0.0)
                            || (k.when == When::ZeroSignOrNaN && (w.is_nan() || g.is_nan()))
                    }
                    _ => false,
                }
            }
            (Observed::SerialFailed { serial, taint }, When::SerialFails(kind)) => {
                taint & k.taint != 0
                    && matches!(serial, Failure::Kernel { kind: k2, .. } if *k2 == kind)
            }
            (Observed::Failed(Failure::Compile(msg)), When::Compile(parts)) => {
                parts.iter().any(|p| msg.contains(p))
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divergences_are_attributed_by_taint_backend_and_shape() {
        let v = |want, got, taint| Observed::Value { want, got, taint };
        // The underflow entry covers zero signs of tainted products on wgpu only.
        let zero = v(Value::F64(0.0), Value::F64(-0.0), FLOAT_MUL);
        assert_eq!(
            find("wgpu", &zero).map(|k| k.item),
            Some("fuzz/underflow-sign")
        );
        assert!(find("rayon", &zero).is_none());
        assert!(find("wgpu", &v(Value::F64(0.0), Value::F64(-0.0), 0)).is_none());
        assert!(find("wgpu", &v(Value::F64(1.0), Value::F64(2.0), FLOAT_MUL)).is_none());
        let serial = Failure::Kernel {
            kind: FailKind::Overflow,
            message: "attempt to add with overflow".into(),
        };
        let seen = Observed::SerialFailed {
            serial: &serial,
            taint: INT_OVERFLOW,
        };
        assert_eq!(
            find("rayon", &seen).map(|k| k.item),
            Some("fuzz/int-reduce-partition")
        );
        assert!(find("ir-eval", &seen).is_none());
        // No compile failure is known any more (naga's refusals of constant operations).
        let compile = Failure::Compile("Float literal is infinite".into());
        assert!(find("wgpu", &Observed::Failed(&compile)).is_none());
    }
}
