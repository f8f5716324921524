//! The stable hash: fixed for a fixed kernel, sensitive to every part.

use super::kernels;
use crate::ir::{Access, ArithOp, BinaryOp, Expr, Kernel, ScalarType, Stmt, Value};

/// The hash of `kernels::triad()`. It changes only when the canonical encoding (or the kernel) does;
/// then bump `ENCODING_VERSION` and update this value.
const TRIAD_HASH: u64 = 0x33f7_7cb1_aff2_a25e;

#[test]
fn hash_is_stable() {
    assert_eq!(
        kernels::triad().stable_hash(),
        TRIAD_HASH,
        "{:#018x}",
        kernels::triad().stable_hash()
    );
    assert_eq!(
        kernels::team_rows().stable_hash(),
        kernels::team_rows().stable_hash()
    );
}

fn first_store_value(k: &mut Kernel) -> &mut Expr {
    match &mut k.body[0] {
        Stmt::Store { value, .. } => value,
        s => panic!("{s:?}"),
    }
}

#[test]
fn every_part_changes_the_hash() {
    let base = kernels::triad();
    let h = base.stable_hash();
    type Mutation = Box<dyn Fn(&mut Kernel)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        ("name", Box::new(|k| k.name.push('2'))),
        ("overflow checks", Box::new(|k| k.overflow_checks = true)),
        ("view name", Box::new(|k| k.views[1].name = "bb".into())),
        (
            "view access",
            Box::new(|k| k.views[1].access = Access::Writable),
        ),
        ("view elem", Box::new(|k| k.views[1].elem = ScalarType::F32)),
        ("view rank", Box::new(|k| k.views[1].rank = 2)),
        (
            "atomic flag",
            Box::new(|k| k.views[0].used_atomically = true),
        ),
        (
            "scalar type",
            Box::new(|k| k.scalars[0].ty = ScalarType::F32),
        ),
        (
            "work",
            Box::new(|k| k.work = crate::ir::WorkKind::MDRange(2)),
        ),
        ("scan flag", Box::new(|k| k.is_scan = true)),
        (
            "operator",
            Box::new(|k| {
                if let Expr::Binary { op, .. } = first_store_value(k) {
                    *op = BinaryOp::Arith(ArithOp::Sub);
                }
            }),
        ),
        (
            "operand order",
            Box::new(|k| {
                if let Expr::Binary { lhs, rhs, .. } = first_store_value(k) {
                    std::mem::swap(lhs, rhs);
                }
            }),
        ),
        (
            "literal",
            Box::new(|k| *first_store_value(k) = Expr::Lit(Value::F64(0.0))),
        ),
        (
            "negative zero",
            Box::new(|k| *first_store_value(k) = Expr::Lit(Value::F64(-0.0))),
        ),
        (
            "extra statement",
            Box::new(|k| k.body.push(Stmt::Return(None))),
        ),
    ];
    let mut seen = vec![h];
    for (what, m) in mutations {
        let mut k = base.clone();
        m(&mut k);
        let h2 = k.stable_hash();
        assert!(!seen.contains(&h2), "{what} did not change the hash");
        seen.push(h2);
    }
}

#[test]
fn different_kernels_hash_differently() {
    let hs = [
        kernels::triad().stable_hash(),
        kernels::dot().stable_hash(),
        kernels::min_max().stable_hash(),
        kernels::min_loc().stable_hash(),
        kernels::prefix_scan().stable_hash(),
        kernels::md_2d().stable_hash(),
        kernels::team_rows().stable_hash(),
        kernels::histogram().stable_hash(),
        kernels::with_helpers().stable_hash(),
        kernels::control().stable_hash(),
    ];
    for (i, a) in hs.iter().enumerate() {
        for b in &hs[i + 1..] {
            assert_ne!(a, b);
        }
    }
}
