//! The seed corpus: one fixed kernel, with fixed inputs, for each divergence the audit of issue 11
//! reproduced (items 6 to 11). They run with the random kernels; while an item is on the
//! fuzzer's known-divergence list its case is reported under that item instead of failing, and a
//! case that stops diverging says so, so that the list can be emptied as fixes land.

use crate::ast::*;
use crate::gen::{bin, call, cast};
use crate::ty::{Lit, Ty};

/// Fixed inputs of a corpus case: the work extent and the data of each input View (per work
/// item, in order), each a list of constants.
#[derive(Clone, Debug, PartialEq)]
pub struct Fixed {
    /// The work extent (range length).
    pub n: usize,
    /// Per input View, one constant per work item.
    pub inputs: Vec<Vec<Lit>>,
}

/// A corpus case: its name, the audit item it reproduces and what diverges.
pub struct Case {
    /// The name (`c:<name>` spec).
    pub name: &'static str,
    /// The audit item.
    pub item: u32,
    /// What diverges, in the audit's words.
    pub what: &'static str,
}

/// Every corpus case.
pub const CASES: &[Case] = &[
    Case {
        name: "item6_u32_to_i64",
        item: 6,
        what: "`u32 as i64` / `u32 as isize` sign-extend on wgpu",
    },
    Case {
        name: "item7_float_rem",
        item: 7,
        what: "float `%` and `rem_euclid` (1e300 % 709.7, 1e22 % 3, 5 % inf, -0 % y) on wgpu",
    },
    Case {
        name: "item8_f32_math",
        item: 8,
        what: "f32 atan/atan2/hypot of NaN, powf(-inf, 0.5), tanh(1e-40), subnormal ln/log2/cbrt, asin/acos accuracy on wgpu",
    },
    Case {
        name: "item9_reducer_nan",
        item: 9,
        what: "float Max / MinLoc / MinMax reductions over NaNs and both zeros, folded as the contract covers (the join itself, `Fold::Ieee`; MinLoc's ties by location): the same bits on every backend and partition (rayon and wgpu once dropped NaN in their joins)",
    },
    Case {
        name: "item9_fold_limit",
        item: 9,
        what: "the documented limit: Max and MinMax folded with a plain comparison (`if v > *acc`) keep whichever zero came first, so the sign of a zero extremum depends on the partition (not checked on rayon and wgpu)",
    },
    Case {
        name: "item10_min_div_minus_one",
        item: 10,
        what: "`i32::MIN / -1` panics on the host, wraps on the evaluator and wgpu",
    },
    Case {
        name: "item10_add_overflow",
        item: 10,
        what: "`i32::MAX + 1` panics on the host in debug builds, wraps on the evaluator and wgpu",
    },
    Case {
        name: "item11_signed_zero_max_fma_sinh",
        item: 11,
        what: "`0.0.max(-0.0)`, f64 `mul_add` not fused, `sinh(-0.0)` on wgpu",
    },
];

fn x(n: u32, ty: Ty) -> Expr {
    Expr::new(
        ty,
        ExprKind::Load {
            view: ViewRef::In(n),
            idx: vec![Expr::new(Ty::Usize, ExprKind::Work(0))],
        },
    )
}

fn store(out: u32, col: u32, value: Expr) -> Stmt {
    Stmt::Store {
        out,
        col,
        at: None,
        value,
    }
}

fn range_for(name: &str, inputs: &[Ty], outputs: &[(Ty, u32)], body: Vec<Stmt>) -> Kernel {
    Kernel {
        name: name.to_string(),
        family: Family::RangeFor,
        inputs: inputs
            .iter()
            .map(|&ty| InView {
                ty,
                dims: vec![Extent::Work(0)],
                layout: Layout::Right,
            })
            .collect(),
        outputs: outputs
            .iter()
            .map(|&(ty, cols)| OutView {
                ty,
                dims: vec![Extent::Work(0)],
                cols,
                layout: Layout::Right,
            })
            .collect(),
        atomics: Vec::new(),
        scalars: Vec::new(),
        accs: Vec::new(),
        team: None,
        body,
        vars: Vec::new(),
        funcs: Vec::new(),
    }
}

fn f(ty: Ty, v: f64) -> Lit {
    Lit::float(ty, v)
}

/// The kernel of corpus case `name`.
pub fn kernel(name: &str) -> Option<Kernel> {
    use Ty::*;
    Some(match name {
        "item6_u32_to_i64" => range_for(
            name,
            &[U32],
            &[(I64, 2)],
            vec![
                store(0, 0, cast(x(0, U32), I64)),
                store(0, 1, cast(cast(x(0, U32), Isize), I64)),
            ],
        ),
        "item7_float_rem" => range_for(
            name,
            &[F64, F64, F32, F32],
            &[(F64, 2), (F32, 2)],
            vec![
                store(0, 0, bin(Bin::Rem, x(0, F64), x(1, F64))),
                store(0, 1, call(Method::RemEuclid, vec![x(0, F64), x(1, F64)])),
                store(1, 0, bin(Bin::Rem, x(2, F32), x(3, F32))),
                store(1, 1, call(Method::RemEuclid, vec![x(2, F32), x(3, F32)])),
            ],
        ),
        "item8_f32_math" => {
            let one = ["atan", "tanh", "ln", "log2", "cbrt", "asin", "acos"];
            let two = ["atan2", "hypot", "powf"];
            let mut body = Vec::new();
            for (c, fname) in one.iter().enumerate() {
                body.push(store(
                    0,
                    c as u32,
                    call(Method::Approx1(fname), vec![x(0, F32)]),
                ));
            }
            for (c, fname) in two.iter().enumerate() {
                body.push(store(
                    0,
                    (one.len() + c) as u32,
                    call(Method::Approx2(fname), vec![x(0, F32), x(1, F32)]),
                ));
            }
            range_for(name, &[F32, F32], &[(F32, 10)], body)
        }
        "item9_reducer_nan" | "item9_fold_limit" => {
            let limit = name == "item9_fold_limit";
            let mut k = range_for(name, &[F64, F64], &[], Vec::new());
            k.family = Family::RangeReduce;
            let acc = |reducer| Acc { reducer, ty: F64 };
            let fold = if limit { Fold::Compare } else { Fold::Ieee };
            let contribute = |acc, fold, value, loc| Stmt::Contribute {
                acc,
                term: None,
                fold,
                value,
                loc,
            };
            let work = Expr::new(Usize, ExprKind::Work(0));
            if limit {
                k.accs = vec![acc(Reducer::Max), acc(Reducer::MinMax)];
                k.body = vec![
                    contribute(0, fold, x(1, F64), None),
                    contribute(1, fold, x(1, F64), None),
                ];
            } else {
                k.accs = vec![
                    acc(Reducer::Max),
                    acc(Reducer::MinLoc),
                    acc(Reducer::MinMax),
                    acc(Reducer::MinMax),
                ];
                k.body = vec![
                    contribute(0, fold, x(0, F64), None),
                    contribute(1, Fold::Compare, x(0, F64), Some(work)),
                    contribute(2, fold, x(0, F64), None),
                    contribute(3, fold, x(1, F64), None),
                ];
            }
            k
        }
        "item10_min_div_minus_one" => range_for(
            name,
            &[I32, I32],
            &[(I32, 1)],
            vec![store(0, 0, bin(Bin::Div, x(0, I32), x(1, I32)))],
        ),
        "item10_add_overflow" => range_for(
            name,
            &[I32, I32],
            &[(I32, 1)],
            vec![store(0, 0, bin(Bin::Add, x(0, I32), x(1, I32)))],
        ),
        "item11_signed_zero_max_fma_sinh" => range_for(
            name,
            &[F64, F64, F64],
            &[(F64, 4)],
            vec![
                store(0, 0, call(Method::Max, vec![x(0, F64), x(1, F64)])),
                store(0, 1, call(Method::Min, vec![x(1, F64), x(0, F64)])),
                store(
                    0,
                    2,
                    call(Method::MulAdd, vec![x(0, F64), x(1, F64), x(2, F64)]),
                ),
                store(0, 3, call(Method::Approx1("sinh"), vec![x(1, F64)])),
            ],
        ),
        _ => return None,
    })
}

/// The fixed inputs of corpus case `name`.
pub fn fixed(name: &str) -> Option<Fixed> {
    use Ty::*;
    let ints = |ty: Ty, v: &[i128]| v.iter().map(|&x| Lit::int(ty, x)).collect::<Vec<_>>();
    let floats = |ty: Ty, v: &[f64]| v.iter().map(|&x| f(ty, x)).collect::<Vec<_>>();
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    Some(match name {
        "item6_u32_to_i64" => Fixed {
            n: 3,
            inputs: vec![ints(U32, &[3_000_000_000, u32::MAX as i128, 7])],
        },
        "item7_float_rem" => Fixed {
            n: 4,
            inputs: vec![
                floats(F64, &[1e300, 1e22, 5.0, -0.0]),
                floats(F64, &[709.7, 3.0, inf, 2.0]),
                floats(F32, &[1e30, 1e10, 5.0, -0.0]),
                floats(F32, &[7.1, 3.0, inf, 2.0]),
            ],
        },
        "item8_f32_math" => Fixed {
            n: 5,
            inputs: vec![
                floats(F32, &[nan, -inf, 1e-40, 1e-45, 0.9999]),
                floats(F32, &[1.0, 0.5, 1.0, 1.0, 1.0]),
            ],
        },
        "item9_reducer_nan" | "item9_fold_limit" => Fixed {
            n: 8,
            inputs: vec![
                floats(F64, &[1.0, nan, 0.0, -0.0, nan, -0.0, 0.0, 2.0]),
                floats(F64, &[-0.0, 0.0, -1.0, -0.0, 0.0, -0.0, 0.0, -0.0]),
            ],
        },
        "item10_min_div_minus_one" => Fixed {
            n: 1,
            inputs: vec![ints(I32, &[i32::MIN as i128]), ints(I32, &[-1])],
        },
        "item10_add_overflow" => Fixed {
            n: 1,
            inputs: vec![ints(I32, &[i32::MAX as i128]), ints(I32, &[1])],
        },
        "item11_signed_zero_max_fma_sinh" => Fixed {
            n: 2,
            inputs: vec![
                floats(F64, &[0.0, 0.1]),
                floats(F64, &[-0.0, 10.0]),
                floats(F64, &[-1.0, -1.0]),
            ],
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_has_a_valid_kernel_and_inputs() {
        for c in CASES {
            let k = kernel(c.name).unwrap();
            assert!(crate::shrink::valid(&k));
            let inp = fixed(c.name).unwrap();
            assert_eq!(inp.inputs.len(), k.inputs.len(), "{}", c.name);
            for (v, x) in inp.inputs.iter().zip(&k.inputs) {
                assert_eq!(v.len(), inp.n);
                assert!(v.iter().all(|l| l.ty == x.ty));
            }
        }
    }
}
