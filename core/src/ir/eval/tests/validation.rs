//! The validator accepts the sample kernels, describes them, and rejects what no backend can run alike.

use super::kernels;
use crate::ir::build::{Expr, KernelBuilder, Var};
use crate::ir::valid::{validate, ErrorKind};
use crate::ir::{
    Access, AtomicOp, Expr as IrExpr, LocalId, MathFn, NestedKind, ReducerKind, ScalarType,
    SingleKind, Stmt, Value, ViewId, ViewRef, WorkKind,
};

#[test]
fn sample_kernels_are_valid() {
    for k in [
        kernels::triad(),
        kernels::dot(),
        kernels::min_max(),
        kernels::min_loc(),
        kernels::prefix_scan(),
        kernels::md_2d(),
        kernels::team_rows(),
        kernels::histogram(),
        kernels::with_helpers(),
        kernels::control(),
    ] {
        if let Err(e) = validate(&k) {
            panic!("{e}\n{k}");
        }
    }
}

#[test]
fn kernel_info() {
    let info = validate(&kernels::team_rows()).unwrap();
    assert!(info.uses_barrier && info.uses_team_constructs);
    assert!(info.uses_f64() && info.uses_u64() && !info.uses_i64());
    assert_eq!(info.scratch.len(), 1);
    assert_eq!(info.max_nesting, 1);

    let info = validate(&kernels::histogram()).unwrap();
    let h = &info.atomics[&ViewRef::Param(ViewId(1))];
    assert_eq!(h.elem, ScalarType::U32);
    assert_eq!(h.ops.iter().copied().collect::<Vec<_>>(), [AtomicOp::Add]);
    assert!(!info.uses_64bit_atomics());
    assert!(info.math_fns.contains(&MathFn::Min));

    let info = validate(&kernels::with_helpers()).unwrap();
    assert_eq!(
        info.math_fns.iter().copied().collect::<Vec<_>>(),
        [MathFn::Sqrt]
    );
    assert_eq!(info.calls.len(), 2);

    let info = validate(&kernels::control()).unwrap();
    assert_eq!(info.max_nesting, 2);
    assert!(!info.uses_barrier);
}

fn kind(k: &crate::ir::Kernel) -> ErrorKind {
    validate(k).expect_err("must be rejected").kind
}

#[test]
fn rejects_type_mismatch() {
    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let a = k.view::<f64>("a", 1, Access::Writable);
    // An i32 recorded where an f64 is stored (a recording bug the macro could make).
    k.store(a, i, Expr::<f64>::from_ir(IrExpr::Lit(Value::I32(1))));
    let k = k.finish().unwrap();
    let e = validate(&k).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::TypeMismatch {
            context: "stored value".into(),
            expected: ScalarType::F64,
            found: ScalarType::I32
        }
    );
    assert_eq!(
        e.to_string(),
        "kernel `bad`, body: stored value: expected f64, found i32"
    );

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let a = k.view::<f64>("a", 1, Access::Writable);
    let x = Expr::<f64>::from_ir(IrExpr::Lit(Value::F64(1.0)));
    let y = Expr::<f64>::from_ir(IrExpr::Lit(Value::F32(1.0)));
    k.store(a, i.clone(), x + y);
    let k2 = k.finish().unwrap();
    assert!(matches!(kind(&k2), ErrorKind::BadOperands { op: "+", .. }));

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let a = k.view::<f64>("a", 1, Access::Writable);
    k.store(
        a,
        i.cast::<f64>().cast::<usize>(),
        Expr::<bool>::lit(true).cast::<f64>(),
    );
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::IllegalCast {
            from: ScalarType::Bool,
            to: ScalarType::F64
        }
    );
}

#[test]
fn rejects_store_to_read_only() {
    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let b = k.view::<f64>("b", 1, Access::ReadOnly);
    k.store(b, i, 1.0);
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::StoreToReadOnly("b".into())
    );

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let b = k.view::<f64>("b", 1, Access::ReadOnly);
    k.atomic_add(b, i, 1.0);
    assert!(matches!(
        kind(&k.finish().unwrap()),
        ErrorKind::AtomicOnReadOnly { .. }
    ));

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let h = k.view::<f32>("h", 1, Access::Writable);
    k.atomic(AtomicOp::Xor, h, i, vec![Expr::lit(1.0)]);
    assert!(matches!(
        kind(&k.finish().unwrap()),
        ErrorKind::AtomicUnsupported {
            op: AtomicOp::Xor,
            elem: ScalarType::F32,
            ..
        }
    ));

    // The integer-only operations on floats, inc_mod / dec_mod on signed integers.
    for (op, elem) in [
        (AtomicOp::Mod, ScalarType::F64),
        (AtomicOp::Nand, ScalarType::F32),
        (AtomicOp::Lshift, ScalarType::F32),
        (AtomicOp::Rshift, ScalarType::F64),
        (AtomicOp::IncMod, ScalarType::I32),
        (AtomicOp::DecMod, ScalarType::F32),
    ] {
        let mut k = KernelBuilder::new("bad", WorkKind::Range);
        let i = k.work_index(0);
        match elem {
            ScalarType::F32 => {
                let h = k.view::<f32>("h", 1, Access::Writable);
                k.atomic(op, h, i, vec![Expr::lit(1.0)]);
            }
            ScalarType::F64 => {
                let h = k.view::<f64>("h", 1, Access::Writable);
                k.atomic(op, h, i, vec![Expr::lit(1.0)]);
            }
            _ => {
                let h = k.view::<i32>("h", 1, Access::Writable);
                k.atomic(op, h, i, vec![Expr::lit(1)]);
            }
        }
        let got = kind(&k.finish().unwrap());
        assert_eq!(
            got,
            ErrorKind::AtomicUnsupported {
                view: "h".into(),
                op,
                elem
            },
            "{op:?} on {elem}"
        );
    }
    // mul, div, inc and dec are fine on floats.
    for op in [AtomicOp::Mul, AtomicOp::Div, AtomicOp::Inc, AtomicOp::Dec] {
        assert!(op.supports(ScalarType::F32) && op.supports(ScalarType::F64));
    }

    // Only a read-modify-write yields the value it stored.
    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let h = k.view::<u32>("h", 1, Access::Writable);
    let o = k.view::<u32>("o", 1, Access::Writable);
    let e = k.atomic_new_fetch(AtomicOp::Exchange, h, i, vec![Expr::lit(1u32)]);
    let i = k.work_index(0);
    k.store(o, i, e);
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::AtomicNoNewValue {
            view: "h".into(),
            op: AtomicOp::Exchange
        }
    );
}

#[test]
fn rejects_barrier_in_divergent_branch() {
    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    let team = k.team();
    k.if_(team.team_rank().eq_(0));
    k.barrier();
    k.end();
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::DivergentTeamOp("team_barrier")
    );

    // Through a local assigned from a load of a writable View (threads may see it change).
    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    let a = k.view::<i32>("a", 1, Access::Writable);
    let team = k.team();
    let n = k.let_("n", 0);
    k.if_(team.league_rank().lt(2));
    k.assign(n, a.load(0));
    k.end();
    let c = k.for_range::<i32>("c", 0, n);
    k.barrier();
    k.end();
    let _ = c;
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::DivergentTeamOp("team_barrier")
    );

    // After an early return taken by some threads only.
    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    let team = k.team();
    k.if_(team.team_rank().gt(3));
    k.return_();
    k.end();
    k.barrier();
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::DivergentTeamOp("team_barrier")
    );

    // Uniform control is fine: league rank, parameters, team-wide reduction results.
    let mut k = KernelBuilder::new("ok", WorkKind::Team);
    let team = k.team();
    let s = k.scalar::<usize>("s");
    let red = k.nested_reduce::<usize>(NestedKind::Thread, "r", 0, s, ReducerKind::Max);
    k.assign(red.acc, red.acc.get().max(red.index));
    k.end();
    k.if_(team.league_rank().lt(s).and(red.result.get().gt(2)));
    k.barrier();
    k.end();
    validate(&k.finish().unwrap()).unwrap();
}

/// A read-only View cannot change during a launch, so its element at a uniform index is the same
/// in every thread: a team range may take its bounds from it (irregular intervals, as in TOAST).
/// The same load of a writable View, or at a thread-varying index, is not uniform.
#[test]
fn loads_of_read_only_views_at_uniform_indices_are_uniform() {
    let build = |access: Access, at_rank: bool| {
        let mut k = KernelBuilder::new("intervals", WorkKind::Team);
        let iv = k.view::<usize>("iv", 2, access);
        let out = k.view::<f64>("out", 2, Access::Writable);
        let team = k.team();
        let l = k.let_("l", team.league_rank());
        let row = if at_rank { team.team_rank() } else { l.get() };
        let first = k.let_("first", iv.load((row.clone(), 0usize)));
        let last = k.let_("last", iv.load((row, 1usize)));
        let s = k.nested_for(NestedKind::Thread, "s", first.get(), last.get());
        k.store(out, (l.get(), s), 1.0);
        k.end();
        k.barrier();
        k.finish().unwrap()
    };
    validate(&build(Access::ReadOnly, false)).unwrap();
    for (access, at_rank) in [(Access::Writable, false), (Access::ReadOnly, true)] {
        assert_eq!(
            kind(&build(access, at_rank)),
            ErrorKind::DivergentTeamOp("TeamThreadRange")
        );
    }
}

#[test]
fn rejects_team_constructs_in_nested_bodies() {
    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    let j = k.nested_for(NestedKind::Thread, "j", 0, 4);
    k.barrier();
    k.end();
    let _ = j;
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::NestedTeamOp {
            what: "team_barrier",
            inside: "TeamThreadRange"
        }
    );

    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    k.nested_for(NestedKind::Vector, "j", 0, 4);
    k.nested_for(NestedKind::Vector, "l", 0, 4);
    k.end();
    k.end();
    assert!(matches!(
        kind(&k.finish().unwrap()),
        ErrorKind::NestedTeamOp {
            what: "ThreadVectorRange",
            ..
        }
    ));

    // A vector range inside a thread range is the normal hierarchy.
    let mut k = KernelBuilder::new("ok", WorkKind::Team);
    let out = k.view::<f64>("out", 2, Access::Writable);
    let j = k.nested_for(NestedKind::Thread, "j", 0, 4);
    let l = k.nested_for(NestedKind::Vector, "l", 0, 4);
    k.store(out, (j, l), 1.0);
    k.end();
    k.single(SingleKind::Thread);
    k.end();
    k.end();
    validate(&k.finish().unwrap()).unwrap();

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    k.barrier();
    assert!(matches!(
        kind(&k.finish().unwrap()),
        ErrorKind::NotAvailable {
            what: "team_barrier",
            ..
        }
    ));
}

#[test]
fn rejects_undeclared_local() {
    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<u64>("out", 1, Access::Writable);
    k.if_(i.clone().lt(3));
    let i = i.cast::<u64>();
    let x = k.let_("x", i.clone());
    k.end();
    k.store(out, 0, x); // used after its block ended
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::NotInScope("x_0".into())
    );

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<u64>("out", 1, Access::Writable);
    let y = k.declare::<u64>("y");
    let _ = y;
    k.store(
        out,
        i,
        Var::<u64>::from_id(LocalId(0)).get() + Var::<u64>::from_id(LocalId(7)).get(),
    );
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::Unknown {
            what: "local",
            id: 7
        }
    );

    // Used before declaration: a hand-made id of a later `let`.
    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<u64>("out", 1, Access::Writable);
    k.store(out, i.clone(), Var::<u64>::from_id(LocalId(0)).get());
    k.let_("late", i);
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::NotInScope("late_0".into())
    );
}

#[test]
fn rejects_break_outside_loop() {
    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    k.break_();
    assert_eq!(kind(&k.finish().unwrap()), ErrorKind::OutsideLoop("break"));

    // A loop around a nested range does not make `continue` inside its body legal.
    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    k.loop_();
    k.nested_for(NestedKind::Thread, "j", 0, 2);
    k.continue_();
    k.end();
    k.break_();
    k.end();
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::OutsideLoop("continue")
    );
}

#[test]
fn rejects_outer_assignment_in_nested_body_and_bad_functions() {
    let mut k = KernelBuilder::new("bad", WorkKind::Team);
    let count = k.let_("count", 0usize);
    let j = k.nested_for(NestedKind::Thread, "j", 0, 8);
    k.assign(count, count.get() + j);
    k.end();
    assert_eq!(
        kind(&k.finish().unwrap()),
        ErrorKind::AssignsOuterLocal("count_0".into())
    );

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let out = k.view::<f64>("out", 1, Access::Writable);
    let f = k.func::<f64>("f", |f| {
        let x = f.param::<f64>("x");
        f.if_(x.get().gt(0.0));
        f.return_value(x);
        f.end();
    });
    k.store(out, 0, f.call(vec![Expr::lit(1.0).into_ir()]));
    assert_eq!(kind(&k.finish().unwrap()), ErrorKind::MissingReturn);

    let mut k = KernelBuilder::new("bad", WorkKind::Range);
    let i = k.work_index(0);
    let out = k.view::<f64>("out", 1, Access::Writable);
    let f = k.func::<f64>("f", |f| f.return_value(out.load(0)));
    k.store(out, i, f.call(vec![]));
    assert!(matches!(
        kind(&k.finish().unwrap()),
        ErrorKind::NotAvailable { what: "a View", .. }
    ));
}

#[test]
fn rejects_signature_errors() {
    let mut k = kernels::prefix_scan();
    k.accumulators.push(k.accumulators[0].clone());
    assert_eq!(kind(&k), ErrorKind::ScanShape);

    let mut k = kernels::triad();
    k.work = WorkKind::MDRange(7);
    assert!(matches!(kind(&k), ErrorKind::OutOfRange { .. }));

    let mut k = kernels::triad();
    k.body.push(Stmt::Store {
        view: ViewRef::Param(ViewId(0)),
        index: vec![IrExpr::WorkIndex(1)],
        value: IrExpr::Lit(Value::F64(0.0)),
    });
    assert!(matches!(kind(&k), ErrorKind::OutOfRange { .. }));
}
