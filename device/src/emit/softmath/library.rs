//! The library's entry points: which [`MathFn`] of which float type each function implements.

use super::trig::{self, TrigFloat};
use super::{exact, exp, inverse, log, roots};
use rokkos_core::ir::build::{Func, FunctionSet};
use rokkos_core::ir::{FuncId, MathFn, ScalarType};

/// Defines, in `lib`, the library function that computes `func` on `ty` (and the functions it
/// calls), returning its id there; `None` when the library has no implementation of it.
pub fn define(lib: &mut FunctionSet, func: MathFn, ty: ScalarType) -> Option<FuncId> {
    match ty {
        ScalarType::F32 => entry::<f32>(lib, func).map(|f| f.id),
        ScalarType::F64 => entry::<f64>(lib, func).map(|f| f.id),
        _ => None,
    }
}

/// Whether the library implements `func` on `ty` (without building it).
pub fn implements(func: MathFn, ty: ScalarType) -> bool {
    ty.is_float() && IMPLEMENTED.contains(&func)
}

/// The functions [`define`] implements, for both float types.
const IMPLEMENTED: &[MathFn] = &[
    MathFn::MulAdd,
    MathFn::Exp,
    MathFn::Exp2,
    MathFn::Ln,
    MathFn::Log2,
    MathFn::Log10,
    MathFn::Sinh,
    MathFn::Cosh,
    MathFn::Tanh,
    MathFn::Powf,
    MathFn::Cbrt,
    MathFn::Hypot,
    MathFn::Sin,
    MathFn::Cos,
    MathFn::Tan,
    MathFn::Asin,
    MathFn::Acos,
    MathFn::Atan,
    MathFn::Atan2,
];

fn entry<T: TrigFloat>(lib: &mut FunctionSet, func: MathFn) -> Option<Func<T>> {
    Some(match func {
        MathFn::MulAdd => exact::fma::<T>(lib),
        MathFn::Exp => exp::exp::<T>(lib),
        MathFn::Exp2 => exp::exp2::<T>(lib),
        MathFn::Ln => log::ln::<T>(lib),
        MathFn::Log2 => log::log2::<T>(lib),
        MathFn::Log10 => log::log10::<T>(lib),
        MathFn::Sinh => exp::sinh::<T>(lib),
        MathFn::Cosh => exp::cosh::<T>(lib),
        MathFn::Tanh => exp::tanh::<T>(lib),
        MathFn::Powf => log::powf::<T>(lib),
        MathFn::Cbrt => roots::cbrt::<T>(lib),
        MathFn::Hypot => roots::hypot::<T>(lib),
        MathFn::Sin => trig::sin::<T>(lib),
        MathFn::Cos => trig::cos::<T>(lib),
        MathFn::Tan => trig::tan::<T>(lib),
        MathFn::Asin => inverse::asin::<T>(lib),
        MathFn::Acos => inverse::acos::<T>(lib),
        MathFn::Atan => inverse::atan::<T>(lib),
        MathFn::Atan2 => inverse::atan2::<T>(lib),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implements_says_what_define_builds() {
        for f in MathFn::ALL {
            for t in [ScalarType::F32, ScalarType::F64] {
                let built = define(&mut FunctionSet::default(), f, t).is_some();
                assert_eq!(built, implements(f, t), "{t} {}", f.name());
            }
        }
    }
}
