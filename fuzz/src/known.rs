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

/// The known divergences: only behaviour the contract documents as partition- or
/// adapter-dependent stays here (each entry says where it is documented).
pub const KNOWN_DIVERGENCES: &[Known] = &[Known {
    item: "fuzz/int-reduce-partition",
    backends: &["rayon", "wgpu", "cuda"],
    taint: INT_OVERFLOW,
    when: When::SerialFails(FailKind::Overflow),
    why: "inherent, and part of the contract (`rokkos::reducer`, docs/guide.md \"What is there\"): an \
              integer reduction folded with `*acc *= v` / `+=` overflows (a failure in debug \
              builds) in serial's one fold but not in the per-chunk (rayon) or per-thread (wgpu, \
              CUDA) folds of a partitioning backend, whose join wraps: whether a build with \
              overflow checks fails depends on the partition",
}];

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
        // Values are never attributed: every value rule is the contract's (`contract::check`).
        let v = |want, got, taint| Observed::Value { want, got, taint };
        assert!(find("wgpu", &v(Value::F64(0.0), Value::F64(-0.0), GPU_RELAXED)).is_none());
        assert!(find("rayon", &v(Value::I32(1), Value::I32(2), INT_OVERFLOW)).is_none());
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
