//! What a reducer's joins must fit, for every target: one [`JoinKind`] per accumulator, of the
//! accumulator's shape.

use super::EmitError;
use rokkos_core::ir::{AccShape, Kernel};
use rokkos_core::reducer::JoinKind;

/// Checks that the reducer's joins fit the kernel's accumulators.
pub fn check_joins(k: &Kernel, joins: &[JoinKind]) -> Result<(), EmitError> {
    if joins.len() != k.accumulators.len() {
        return Err(EmitError::Mismatch(format!(
            "kernel `{}` has {} accumulators, the reducer describes {}",
            k.name,
            k.accumulators.len(),
            joins.len()
        )));
    }
    for (a, j) in k.accumulators.iter().zip(joins) {
        let ok = match (a.shape, j) {
            (AccShape::Scalar(t), JoinKind::Op(r)) => r.supports(t),
            (AccShape::ValLoc(_), JoinKind::MinLoc | JoinKind::MaxLoc) => true,
            (AccShape::MinMaxVal(_), JoinKind::MinMax) => true,
            _ => false,
        };
        if !ok {
            return Err(EmitError::Mismatch(format!(
                "accumulator `{}` ({:?}) cannot be joined by {j:?}",
                a.name, a.shape
            )));
        }
    }
    Ok(())
}
