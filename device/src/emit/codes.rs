//! The codes a generated kernel writes into its error record (`crate::runtime::errors`) and what
//! each stands for, the same for every target. A View access that fails records the View
//! parameter's position; every other failure one of the codes here, with up to eight 64-bit words
//! of detail.

use crate::runtime::errors::ErrorCodes;
use rokkos_core::error::Error;
use rokkos_core::ir::{Failure, ScalarType, Value};

/// Codes of local arrays start here (`ARRAY_CODE + local index`).
pub const ARRAY_CODE: u32 = 1000;
/// Scratch allocations that exceed their pool: `SCRATCH_CODE + 2 * level + scope` (scope 0 team,
/// 1 thread); the index words hold the element count, the element size and the pool.
pub const SCRATCH_CODE: u32 = 2000;
/// Out-of-bounds accesses to scratch View `id`: `SCRATCH_VIEW_CODE + id`.
pub const SCRATCH_VIEW_CODE: u32 = 3000;
/// A `for` loop whose step is not positive (the index word holds the step's bits).
pub const STEP_CODE: u32 = 4000;
/// The first [`Failure`]; each one is `FAIL_CODE + its position in Failure::ALL`.
pub const FAIL_CODE: u32 = 4100;
/// A `clamp` with `min > max` (or a NaN bound): `CLAMP_CODE + ScalarType as u32`, with the
/// bounds' bits as the two index words.
pub const CLAMP_CODE: u32 = 4200;

/// Out-of-bounds reads of constant table `id`: `TABLE_CODE + id`.
pub const TABLE_CODE: u32 = 5000;

/// What device backends hand the error book.
pub const ERROR_CODES: ErrorCodes = ErrorCodes {
    array_code: ARRAY_CODE,
    table_code: TABLE_CODE,
    decode,
};

/// The code of failure `f`.
pub fn failure(f: Failure) -> u32 {
    FAIL_CODE + Failure::ALL.iter().position(|&g| g == f).unwrap_or(0) as u32
}

/// The error a recorded code other than a View's or a local array's stands for, for `kernel`,
/// with Rust's words (the evaluator's), or `None`.
pub fn decode(kernel: &str, code: u32, index: &[u64]) -> Option<Error> {
    let at = |k: usize| index.get(k).copied().unwrap_or(0);
    let failed = |reason: String| Error::KernelFailed {
        kernel: kernel.to_string(),
        reason,
    };
    if (SCRATCH_CODE..SCRATCH_CODE + 4).contains(&code) {
        let level = (code - SCRATCH_CODE) / 2;
        let scope = if (code - SCRATCH_CODE) % 2 == 0 {
            "team"
        } else {
            "thread"
        };
        return Some(failed(format!(
            "{scope} scratch of {} elements of {} bytes at level {level} exceeds the {} bytes the TeamPolicy reserved \
             (request it with TeamPolicy::scratch)",
            at(0),
            at(1),
            at(2)
        )));
    }
    if (SCRATCH_VIEW_CODE..SCRATCH_VIEW_CODE + 1000).contains(&code) {
        let parts: Vec<String> = index.iter().map(|x| x.to_string()).collect();
        return Some(Error::OutOfBounds {
            kernel: kernel.to_string(),
            view: format!("scratch{}", code - SCRATCH_VIEW_CODE),
            index: format!("({})", parts.join(", ")),
            extents: "(the scratch View's extents)".into(),
        });
    }
    if code == STEP_CODE {
        let step = at(0) as i64;
        return Some(failed(if step == 0 {
            "assertion failed: step != 0".to_string()
        } else {
            format!("for loop with step {step}")
        }));
    }
    if let Some(f) = code
        .checked_sub(FAIL_CODE)
        .and_then(|c| Failure::ALL.get(c as usize))
    {
        return Some(failed(f.message().to_string()));
    }
    let t = *ScalarType::ALL.get(code.checked_sub(CLAMP_CODE)? as usize)?;
    let bound = |k: usize| Value::from_bits(t, at(k));
    let (lo, hi) = (bound(0), bound(1));
    Some(failed(match (lo, hi) {
        (Value::F32(lo), Value::F32(hi)) => {
            format!("min > max, or either was NaN. min = {lo:?}, max = {hi:?}")
        }
        (Value::F64(lo), Value::F64(hi)) => {
            format!("min > max, or either was NaN. min = {lo:?}, max = {hi:?}")
        }
        _ => format!("min > max. min = {}, max = {}", int_text(lo), int_text(hi)),
    }))
}

/// An integer value as Rust's `Display` prints it (no type suffix).
fn int_text(v: Value) -> String {
    match v {
        Value::I32(x) => x.to_string(),
        Value::U32(x) => x.to_string(),
        Value::I64(x) => x.to_string(),
        Value::U64(x) => x.to_string(),
        other => other.to_string(),
    }
}
