//! The builder records what Rust's type checker accepted, with literals adopting their operand's type.

use crate::ir::build::{BuildError, Expr, KernelBuilder};
use crate::ir::{Access, ArithOp, BinaryOp, Expr as IrExpr, ScalarType, Stmt, Value, WorkKind};

fn rhs_lit(e: &IrExpr) -> Value {
    match e {
        IrExpr::Binary { rhs, .. } => match **rhs {
            IrExpr::Lit(v) => v,
            ref other => panic!("not a literal: {other:?}"),
        },
        other => panic!("not binary: {other:?}"),
    }
}

#[test]
fn unsuffixed_literals_adopt_the_operand_type() {
    let x = Expr::<f32>::from_ir(IrExpr::Lit(Value::F32(1.0)));
    // `0.1` parses as f32 directly, exactly as the native path parses it.
    assert_eq!(rhs_lit((x.clone() * 0.1).ir()), Value::F32(0.1f32));
    let y = Expr::<f64>::lit(1.0);
    assert_eq!(rhs_lit((y * 0.1).ir()), Value::F64(0.1f64));
    let i = Expr::<usize>::lit(3);
    assert_eq!(rhs_lit((i.clone() + 1).ir()), Value::U64(1));
    let n = Expr::<i32>::lit(3);
    assert_eq!(rhs_lit((n.clone() << 2).ir()), Value::I32(2));
    assert_eq!(rhs_lit(n.lt(7).ir()), Value::I32(7));
    // Host value on the left.
    match (2.0 * x).into_ir() {
        IrExpr::Binary { op, lhs, .. } => {
            assert_eq!(op, BinaryOp::Arith(ArithOp::Mul));
            assert_eq!(*lhs, IrExpr::Lit(Value::F32(2.0)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn typed_expressions_know_their_ir_type() {
    let k = super::kernels::histogram();
    let Stmt::Let {
        init: Some(init), ..
    } = &k.body[0]
    else {
        panic!("{:?}", k.body[0])
    };
    assert_eq!(init.ty(&k, &k.locals), Some(ScalarType::U64));
    assert!(k.views[1].used_atomically, "atomics mark their View");
    assert!(!k.views[0].used_atomically);
}

#[test]
fn unbalanced_blocks_are_build_errors() {
    let mut k = KernelBuilder::new("k", WorkKind::Range);
    let i = k.work_index(0);
    k.if_(i.lt(3));
    assert_eq!(k.finish().unwrap_err(), BuildError::Unclosed(1));

    let mut k = KernelBuilder::new("k", WorkKind::Range);
    k.end();
    assert_eq!(k.finish().unwrap_err(), BuildError::Unmatched("end"));

    let mut k = KernelBuilder::new("k", WorkKind::Range);
    k.loop_();
    k.else_();
    k.end();
    assert_eq!(k.finish().unwrap_err(), BuildError::Unmatched("else_"));
}

#[test]
fn helper_functions_are_defined_once() {
    let k = super::kernels::with_helpers();
    let names: Vec<&str> = k.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["sq", "norm"]);

    let mut k = KernelBuilder::new("k", WorkKind::Range);
    let out = k.view::<f64>("out", 1, Access::Writable);
    let f1 = k.func::<f64>("one", |f| f.return_value(1.0));
    let f2 = k.func::<f64>("one", |f| f.return_value(1.0));
    assert_eq!(f1.id, f2.id);
    k.store(out, 0, f1.call(vec![]));
    k.func::<f64>("one", |f| f.return_value(2.0));
    assert_eq!(
        k.finish().unwrap_err(),
        BuildError::DuplicateFunction("one".into())
    );
}
