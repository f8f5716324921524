//! Emits WGSL for IR kernels and validates it with naga (parse + validate with FLOAT64 and
//! SHADER_INT64, the capabilities lavapipe and NVIDIA adapters have): every operator family.

use super::*;
use rokkos_core::ir::build::KernelBuilder;
use rokkos_core::ir::*;
use rokkos_device::emit::inbounds::Proven;

/// The accesses a launch over `lo..hi` in every work dimension proves when every View has extent
/// `n` in every dimension.
pub(crate) fn proven_over(k: &Kernel, (lo, hi): (u64, u64), n: usize) -> Proven {
    let ext: Vec<Vec<usize>> = k.views.iter().map(|v| vec![n; v.rank as usize]).collect();
    let refs: Vec<&[usize]> = ext.iter().map(|e| &e[..]).collect();
    let bounds = vec![(lo, hi); k.work.index_rank() as usize];
    Proven::prove(&rokkos_device::emit::inbounds::sites(k), &bounds, &refs)
}

pub(crate) fn naga_check(src: &str) {
    naga_check_with(
        src,
        naga::valid::Capabilities::FLOAT64
            | naga::valid::Capabilities::SHADER_INT64
            | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
    )
}

/// Parses and validates `src` with the capabilities `caps` only.
pub(crate) fn naga_check_with(src: &str, caps: naga::valid::Capabilities) {
    let module = match naga::front::wgsl::parse_str(src) {
        Ok(m) => m,
        Err(e) => panic!("parse error: {}\n{src}", e.emit_to_string(src)),
    };
    if let Err(e) =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps).validate(&module)
    {
        panic!("validation error: {}\n{src}", e.emit_to_string(src));
    }
}

/// Emits `k` in both address modes and validates each with naga; returns the 64-bit one.
fn check(k: &Kernel, entry: Entry, joins: Vec<JoinKind>) -> String {
    let info = rokkos_core::ir::valid::validate(k).expect("valid kernel");
    let mut sources = Vec::new();
    for addr32 in [false, true] {
        let opts = EmitOptions {
            entry,
            wg: 64,
            joins: joins.clone(),
            addr32,
            in_bounds: if addr32 {
                proven_over(k, (1, 63), 64)
            } else {
                Proven::NONE
            },
            width: rokkos_device::emit::width::IndexWidth::W64,
            splits: vec![],
        };
        let e = emit(k, &info, &opts, Caps::ALL).expect("emits");
        naga_check(&e.source);
        // Views that each fit one binding emit the module they did before splits existed.
        let whole = EmitOptions {
            splits: vec![Split::NONE; k.views.len()],
            ..opts.clone()
        };
        let same = emit(k, &info, &whole, Caps::ALL).expect("emits");
        assert_eq!(same.source, e.source);
        sources.push(e.source);
        // Every View split over three bindings: each accessor picks its chunk.
        let split = EmitOptions {
            splits: vec![
                Split {
                    chunks: 3,
                    shift: 4
                };
                k.views.len()
            ],
            ..opts
        };
        let e = emit(k, &info, &split, Caps::ALL).expect("emits split");
        naga_check(&e.source);
        let bindings = 2 + 3 * k.views.len() + entry::extra_bindings(k, &split).len();
        assert_eq!(e.read_only.len(), bindings, "{}", e.source);
    }
    check_w32(k, &info, entry, &joins);
    sources.swap_remove(0)
}

/// Panics if `src` compares an operand with itself (`x == x`, `sh0[i] != sh0[i]`): a NaN test
/// spelled that way may be folded away by a Vulkan driver (see `math::nan_bits_test`).
fn assert_no_self_comparison(src: &str) {
    let operand = |c: char| c.is_ascii_alphanumeric() || "_[]".contains(c);
    for op in [" == ", " != "] {
        for (at, _) in src.match_indices(op) {
            let before = &src[..at];
            let left = &before[before.trim_end_matches(operand).len()..];
            let after = &src[at + op.len()..];
            let right = &after[..after.len() - after.trim_start_matches(operand).len()];
            assert!(
                left.is_empty() || left != right,
                "self-comparison `{left}{op}{right}` in:\n{src}"
            );
        }
    }
}

/// Where the width plan accepts `k`, emits its 32-bit variant and validates it; where the kernel
/// also has no 64-bit integer of its own, emits it for a device without SHADER_INT64 (and
/// without SHADER_F64 when it uses no f64) and validates it with naga lacking those
/// capabilities: either it validates, or the emitter refused it naming SHADER_INT64.
fn check_w32(
    k: &Kernel,
    info: &rokkos_core::ir::valid::KernelInfo,
    entry: Entry,
    joins: &[JoinKind],
) {
    let plan = rokkos_device::emit::width::plan(k);
    let opts = EmitOptions {
        entry,
        wg: 64,
        joins: joins.to_vec(),
        addr32: true,
        in_bounds: proven_over(k, (1, 63), 64),
        width: rokkos_device::emit::width::IndexWidth::W32,
        splits: vec![],
    };
    if !plan.may_run_32() {
        let r = emit(k, info, &opts, Caps::ALL);
        assert!(matches!(r, Err(EmitError::Mismatch(_))), "{}", k.name);
        return;
    }
    let e = emit(k, info, &opts, Caps::ALL).expect("emits the 32-bit variant");
    naga_check(&e.source);
    let small = Caps {
        f64: info.uses_f64(),
        int64: false,
        atomic64: false,
    };
    match emit(k, info, &opts, small) {
        Ok(e) => {
            assert!(plan.int64.is_none(), "{}", k.name);
            let caps = if small.f64 {
                naga::valid::Capabilities::FLOAT64
            } else {
                naga::valid::Capabilities::empty()
            };
            naga_check_with(&e.source, caps);
        }
        Err(EmitError::Unsupported(f)) => assert!(f.contains("SHADER_INT64"), "{f}"),
        Err(e) => panic!("{}: {e}", k.name),
    }
}

const NUM: [ScalarType; 10] = [
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F32,
    ScalarType::F64,
    ScalarType::U8,
    ScalarType::U16,
    ScalarType::I8,
    ScalarType::I16,
];

/// A range kernel with one writable View and one scalar per numeric type, plus a bool scalar.
fn skeleton(name: &str) -> Kernel {
    let mut views = Vec::new();
    let mut scalars = Vec::new();
    for t in NUM {
        views.push(ViewParam {
            name: format!("o_{t}"),
            elem: t,
            rank: 1,
            access: Access::Writable,
            used_atomically: false,
        });
        scalars.push(ScalarParam {
            name: format!("s_{t}"),
            ty: t,
        });
    }
    scalars.push(ScalarParam {
        name: "flag".into(),
        ty: ScalarType::Bool,
    });
    Kernel {
        name: name.into(),
        work: WorkKind::Range,
        views,
        scalars,
        accumulators: vec![],
        is_scan: false,
        scratch: vec![],
        locals: vec![],
        body: vec![],
        functions: vec![],
        tables: vec![],
        overflow_checks: false,
    }
}
fn idx(t: ScalarType) -> usize {
    NUM.iter().position(|&u| u == t).unwrap()
}
fn p(t: ScalarType) -> Expr {
    if t == ScalarType::Bool {
        return Expr::Param(ScalarParamId(NUM.len() as u32));
    }
    Expr::Param(ScalarParamId(idx(t) as u32))
}
fn store(t: ScalarType, e: Expr) -> Stmt {
    Stmt::Store {
        view: ViewRef::Param(ViewId(idx(t) as u32)),
        index: vec![Expr::WorkIndex(0)],
        value: e,
    }
}
fn to_value(t: ScalarType, e: Expr) -> Expr {
    // Bring any result to a storable numeric type.
    if t == ScalarType::Bool {
        Expr::Cast {
            ty: ScalarType::I32,
            arg: Box::new(e),
        }
    } else {
        e
    }
}
fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    }
}

#[test]
fn triad_for() {
    let mut kb = KernelBuilder::new("triad", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f64>("a", 1, Access::Writable);
    let b = kb.view::<f64>("b", 1, Access::ReadOnly);
    let s = kb.scalar::<f64>("s");
    kb.store(a, i.clone(), b.load(i.clone()) * s.get() + 1.5);
    check(&kb.finish().unwrap(), Entry::For, vec![]);
}

#[test]
fn arith_bitwise_cmp_logic_unary_all_types() {
    for checks in [false, true] {
        arith_bitwise_cmp_logic_unary(checks);
    }
}

/// Every operator on every type it takes, in a kernel with or without overflow checks.
fn arith_bitwise_cmp_logic_unary(checks: bool) {
    let mut k = skeleton("ops");
    k.overflow_checks = checks;
    let ar = [
        ArithOp::Add,
        ArithOp::Sub,
        ArithOp::Mul,
        ArithOp::Div,
        ArithOp::Rem,
        ArithOp::WrappingAdd,
        ArithOp::WrappingSub,
        ArithOp::WrappingMul,
    ];
    let bw = [
        BitwiseOp::And,
        BitwiseOp::Or,
        BitwiseOp::Xor,
        BitwiseOp::Shl,
        BitwiseOp::Shr,
    ];
    let cm = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];
    for t in NUM {
        for op in ar {
            k.body.push(store(t, bin(BinaryOp::Arith(op), p(t), p(t))));
        }
        if t.is_int() {
            for op in bw {
                for rt in NUM.iter().filter(|u| u.is_int()) {
                    let r = if matches!(op, BitwiseOp::Shl | BitwiseOp::Shr) {
                        p(*rt)
                    } else {
                        p(t)
                    };
                    k.body.push(store(t, bin(BinaryOp::Bitwise(op), p(t), r)));
                }
            }
            k.body.push(store(
                t,
                Expr::Unary {
                    op: UnaryOp::Not,
                    arg: Box::new(p(t)),
                },
            ));
        }
        if t.is_signed() {
            k.body.push(store(
                t,
                Expr::Unary {
                    op: UnaryOp::Neg,
                    arg: Box::new(p(t)),
                },
            ));
        }
        for op in cm {
            k.body.push(store(
                ScalarType::I32,
                to_value(ScalarType::Bool, bin(BinaryOp::Cmp(op), p(t), p(t))),
            ));
        }
    }
    let b = ScalarType::Bool;
    for op in cm {
        k.body.push(store(
            ScalarType::I32,
            to_value(b, bin(BinaryOp::Cmp(op), p(b), p(b))),
        ));
    }
    for op in [BitwiseOp::And, BitwiseOp::Or, BitwiseOp::Xor] {
        k.body.push(store(
            ScalarType::I32,
            to_value(b, bin(BinaryOp::Bitwise(op), p(b), p(b))),
        ));
    }
    for op in [LogicOp::And, LogicOp::Or] {
        k.body.push(store(
            ScalarType::I32,
            to_value(b, bin(BinaryOp::Logic(op), p(b), p(b))),
        ));
    }
    k.body.push(store(
        ScalarType::I32,
        to_value(
            b,
            Expr::Unary {
                op: UnaryOp::Not,
                arg: Box::new(p(b)),
            },
        ),
    ));
    k.body.push(store(
        ScalarType::F64,
        Expr::Select {
            cond: Box::new(p(b)),
            on_true: Box::new(p(ScalarType::F64)),
            on_false: Box::new(Expr::Lit(Value::F64(f64::NEG_INFINITY))),
        },
    ));
    check(&k, Entry::For, vec![]);
}

/// Signed `%` never reaches WGSL's `%` on signed operands (naga writes it as GLSL's `%`, undefined
/// for negative operands, and Mesa's GL gives `1 % -1 == 1`): every `%` of a kernel of signed
/// remainders (divisor a parameter or a literal, checked or not) is the unsigned one of the
/// `rk_srem` helper.
#[test]
fn signed_remainders_go_through_unsigned_ones() {
    for checks in [false, true] {
        for t in [ScalarType::I32, ScalarType::I64] {
            let mut k = skeleton("srem");
            k.overflow_checks = checks;
            let rem = BinaryOp::Arith(ArithOp::Rem);
            k.body.push(store(t, bin(rem, p(t), p(t))));
            let lit = if t == ScalarType::I32 {
                Value::I32(-3)
            } else {
                Value::I64(-3)
            };
            k.body.push(store(t, bin(rem, p(t), Expr::Lit(lit))));
            let src = check(&k, Entry::For, vec![]);
            assert!(src.contains(&format!("fn rk_srem_{t}(")), "{src}");
            // Apart from the helper's, the only `%`s are the launch bookkeeping's by unsigned
            // literals (`P.launch % 64u`).
            for (at, _) in src.match_indices(" % ") {
                let rhs = src[at + 3..]
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .next();
                let unsigned_lit = rhs.is_some_and(|r| {
                    r.ends_with('u') && r[..r.len() - 1].chars().all(|c| c.is_ascii_digit())
                });
                assert!(
                    unsigned_lit || src[at - 2..].starts_with("ua % ub"),
                    "signed `%` at {}\n{src}",
                    &src[at - 10..at + 10]
                );
            }
        }
    }
}

/// f32 `%` (the exact `fmod` helper) needs no 64-bit integer: its 32-bit variant emits on an
/// adapter with neither SHADER_INT64 nor SHADER_F64.
#[test]
fn f32_rem_runs_without_int64() {
    let mut kb = KernelBuilder::new("frem", WorkKind::Range);
    kb.view::<f32>("out", 1, Access::Writable);
    kb.scalar::<f32>("x");
    kb.scalar::<f32>("y");
    let mut k = kb.finish().unwrap();
    let (x, y) = (Expr::Param(ScalarParamId(0)), Expr::Param(ScalarParamId(1)));
    k.body.push(Stmt::Store {
        view: ViewRef::Param(ViewId(0)),
        index: vec![Expr::WorkIndex(0)],
        value: bin(BinaryOp::Arith(ArithOp::Rem), x, y),
    });
    let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
    let opts = EmitOptions {
        entry: Entry::For,
        wg: 64,
        joins: vec![],
        addr32: true,
        in_bounds: proven_over(&k, (0, 64), 64),
        width: rokkos_device::emit::width::IndexWidth::W32,
        splits: vec![],
    };
    let none = Caps {
        f64: false,
        int64: false,
        atomic64: false,
    };
    let e = emit(&k, &info, &opts, none).expect("f32 % emits without SHADER_INT64");
    assert!(e.source.contains("fn rk_frem_f32("), "{}", e.source);
    naga_check_with(&e.source, naga::valid::Capabilities::empty());
}

/// A NaN clamped stays NaN, tested on its bits before the comparisons (Mesa's GL driver turns
/// them into `min`/`max`, which give a bound).
#[test]
fn float_clamp_returns_nan_before_comparing() {
    for t in [ScalarType::F32, ScalarType::F64] {
        let mut k = skeleton("clamp");
        let e = Expr::Math {
            func: MathFn::Clamp,
            args: vec![p(t), p(t), p(t)],
        };
        k.body.push(store(t, e));
        let src = check(&k, Entry::For, vec![]);
        let body = &src[src
            .find(&format!("fn rk_clamp_{t}("))
            .expect("a clamp helper")..];
        let nan = body
            .find(&super::math::nan_bits_test(t, "x"))
            .expect("a NaN test");
        assert!(
            nan < body.find("if (x < lo)").expect("the comparison"),
            "{body}"
        );
    }
}

#[test]
fn every_cast_and_literal() {
    let mut k = skeleton("casts");
    for from in ScalarType::ALL {
        for to in NUM {
            if to.can_cast_from(from) {
                k.body.push(store(
                    to,
                    Expr::Cast {
                        ty: to,
                        arg: Box::new(p(from)),
                    },
                ));
            }
        }
    }
    let lits = [
        Value::I32(i32::MIN),
        Value::I32(-5),
        Value::U32(u32::MAX),
        Value::I64(i64::MIN),
        Value::I64(i64::MAX),
        Value::U64(u64::MAX),
        Value::F32(f32::NAN),
        Value::F32(-0.0),
        Value::F32(1e-45),
        Value::F32(f32::MAX),
        Value::F32(f32::NEG_INFINITY),
        Value::F64(f64::MAX),
        Value::F64(5e-324),
        Value::F64(f64::NAN),
        Value::F64(f64::INFINITY),
        Value::F64(0.1),
    ];
    for v in lits {
        k.body.push(store(v.ty(), Expr::Lit(v)));
    }
    assert_no_self_comparison(&check(&k, Entry::For, vec![]));
}

#[test]
fn every_math_function() {
    for checks in [false, true] {
        every_math_function_in(checks);
    }
}

fn every_math_function_in(checks: bool) {
    let mut k = skeleton("math");
    k.overflow_checks = checks;
    for f in MathFn::ALL {
        for t in NUM {
            let args: Vec<Expr> = (0..f.arity())
                .map(|i| {
                    if f == MathFn::Powi && i == 1 {
                        p(ScalarType::I32)
                    } else {
                        p(t)
                    }
                })
                .collect();
            let tys: Vec<ScalarType> = args.iter().map(|a| a.ty(&k, &[]).unwrap()).collect();
            let Some(rt) = f.result_type(&tys) else {
                continue;
            };
            let mut e = Expr::Math { func: f, args };
            if rt != t && rt != ScalarType::Bool {
                // Bit casts change the type: store the result as the operand type.
                e = Expr::Cast {
                    ty: t,
                    arg: Box::new(e),
                };
            }
            if rt == ScalarType::Bool {
                // Predicates (`is_nan`) store 1 or 0 of the operand type.
                e = Expr::Select {
                    cond: Box::new(e),
                    on_true: Box::new(Expr::Lit(Value::from_bits(t, 0))),
                    on_false: Box::new(Expr::Lit(Value::zero(t))),
                };
            }
            let info_k = {
                let mut k2 = skeleton("one");
                k2.body.push(store(t, e.clone()));
                k2
            };
            let info = rokkos_core::ir::valid::validate(&info_k).unwrap();
            let opts = EmitOptions {
                entry: Entry::For,
                wg: 64,
                joins: vec![],
                addr32: false,
                in_bounds: Proven::NONE,
                width: rokkos_device::emit::width::IndexWidth::W64,
                splits: vec![],
            };
            match emit(&info_k, &info, &opts, Caps::ALL) {
                Ok(_) => k.body.push(store(t, e)),
                Err(EmitError::Unsupported(_)) => assert_eq!(t, ScalarType::F64, "{f:?} on {t}"),
                Err(e) => panic!("{e:?}"),
            }
        }
    }
    assert_no_self_comparison(&check(&k, Entry::For, vec![]));
}

/// A module can record an error only when it has a checked access: `y[i] = x[i]` with the range
/// proven inside the extents cannot; `y[i] = x[i + 1]` can, and so can any module without the proof.
#[test]
fn may_fail_only_with_checked_accesses() {
    fn copy(shift: bool) -> Kernel {
        let mut kb = KernelBuilder::new("cp", WorkKind::Range);
        let i = kb.work_index(0);
        let y = kb.view::<f32>("y", 1, Access::Writable);
        let x = kb.view::<f32>("x", 1, Access::ReadOnly);
        let src = if shift { i.clone() + 1usize } else { i.clone() };
        kb.store(y, i, x.load(src));
        kb.finish().expect("records")
    }
    let emit_with = |k: &Kernel, proven: bool| {
        let info = rokkos_core::ir::valid::validate(k).expect("valid");
        let opts = EmitOptions {
            entry: Entry::For,
            wg: 64,
            joins: vec![],
            addr32: true,
            in_bounds: if proven {
                proven_over(k, (0, 64), 64)
            } else {
                Proven::NONE
            },
            width: rokkos_device::emit::width::IndexWidth::W64,
            splits: vec![],
        };
        let e = emit(k, &info, &opts, Caps::ALL).expect("emits");
        naga_check(&e.source);
        e.may_fail
    };
    assert!(!emit_with(&copy(false), true));
    assert!(emit_with(&copy(false), false));
    assert!(emit_with(&copy(true), true));
}

/// Every atomic operation on every element type (bitwise ones on integers), emitted and validated
/// with naga: native 32- and 64-bit integer atomics, compare-exchange loops for `f32` and `f64`.
#[test]
fn every_atomic_on_every_type() {
    let mut k = skeleton("atomics");
    for v in &mut k.views {
        v.used_atomically = true;
    }
    for t in NUM {
        for op in AtomicOp::ALL {
            if !op.supports(t) {
                continue;
            }
            for result in [AtomicResult::Old, AtomicResult::New] {
                if result == AtomicResult::New && !op.has_new_value() {
                    continue;
                }
                k.body.push(Stmt::Atomic(AtomicAccess {
                    op,
                    view: ViewRef::Param(ViewId(idx(t) as u32)),
                    index: vec![Expr::WorkIndex(0)],
                    args: (0..op.arg_count()).map(|_| p(t)).collect(),
                    result,
                }));
            }
        }
    }
    let src = check(&k, Entry::For, vec![]);
    // WGSL has no atomic mul, div, ...: compare-exchange loops; the `_new` helpers return the
    // value stored; an integer div / mod by zero records its failure; a signed div never divides
    // by -1.
    let helper = |t: ScalarType, name: &str| {
        let head = format!("fn rk_at{}_{name}(", idx(t));
        let start = src
            .find(&head)
            .unwrap_or_else(|| panic!("no helper `{head}`:\n{src}"));
        let len = src[start..].find("\n}\n").expect("the helper's end");
        src[start..start + len].to_string()
    };
    for t in [ScalarType::I32, ScalarType::U64, ScalarType::U8] {
        for op in [
            "mul", "div", "mod", "nand", "lshift", "rshift", "inc_mod", "dec_mod",
        ] {
            if t.is_signed_int() && op.contains("_mod") {
                continue;
            }
            let h = helper(t, op);
            assert!(
                h.contains("atomicCompareExchangeWeak") && h.contains("return old;"),
                "{h}"
            );
            let new = helper(t, &format!("{op}_new"));
            assert!(
                new.contains("return nv;") || new.contains("return nw;"),
                "{new}"
            );
        }
    }
    assert!(
        helper(ScalarType::I32, "div").contains("if (x == 0i) { rk_fail("),
        "{src}"
    );
    assert!(
        helper(ScalarType::I32, "div").contains("select(old / select(x, 1i, x == -1i)"),
        "{src}"
    );
    assert!(
        helper(ScalarType::F32, "mul_new").contains("return nw;"),
        "{src}"
    );
    assert!(
        helper(ScalarType::I32, "add_new").contains("atomicAdd"),
        "{src}"
    );
    assert!(
        src.contains("atomic<u64>") && src.contains("atomic<i64>"),
        "{src}"
    );
    assert!(src.contains("bitcast<f64>(atomicLoad"), "{src}");
    // Without the capability, 64-bit atomics are refused by name.
    let info = rokkos_core::ir::valid::validate(&k).expect("valid");
    let opts = EmitOptions {
        entry: Entry::For,
        wg: 64,
        joins: vec![],
        addr32: true,
        in_bounds: Proven::NONE,
        width: rokkos_device::emit::width::IndexWidth::W64,
        splits: vec![],
    };
    let caps = Caps {
        atomic64: false,
        ..Caps::ALL
    };
    match emit(&k, &info, &opts, caps) {
        Err(EmitError::Unsupported(m)) => assert!(m.contains("SHADER_INT64_ATOMIC_ALL_OPS"), "{m}"),
        other => panic!("{other:?}"),
    }
}

// ---- team policies ----

type BE<T> = rokkos_core::ir::build::Expr<T>;
use rokkos_core::ir::{NestedKind, ReducerKind, ScratchScope, SingleKind, TeamQuery};

/// A team kernel using every team construct; `vector_comm` adds the vector reductions, scans and
/// thread `single` results that need virtual lanes.
fn team_kernel(vector_comm: bool, reduce: bool) -> Kernel {
    let mut k = KernelBuilder::new("team_all", WorkKind::Team);
    let out = k.view::<i64>("out", 1, Access::Writable);
    let outf = k.view::<f64>("outf", 1, Access::Writable);
    let lr = k.team_query(TeamQuery::LeagueRank);
    let tr = k.team_query(TeamQuery::TeamRank);
    let qe = k.team_query(TeamQuery::LeagueSize)
        + k.team_query(TeamQuery::TeamSize)
        + k.team_query(TeamQuery::VectorLength);
    let q = k.let_::<usize>("q", qe);
    // Scratch of every numeric type, both scopes and levels.
    let s0 = k.scratch::<i64>(0, ScratchScope::Team, vec![BE::lit(8usize)]);
    let s1 = k.scratch::<f32>(
        1,
        ScratchScope::Team,
        vec![BE::lit(2usize), BE::lit(3usize)],
    );
    let s2 = k.scratch::<u32>(0, ScratchScope::Thread, vec![BE::lit(4usize)]);
    let s3 = k.scratch::<f64>(1, ScratchScope::Thread, vec![BE::lit(4usize)]);
    let s4 = k.scratch::<i32>(0, ScratchScope::Team, vec![BE::lit(4usize)]);
    let s5 = k.scratch::<u64>(1, ScratchScope::Team, vec![BE::lit(4usize)]);
    k.store(s0, tr.clone() % BE::lit(8usize), lr.clone().cast::<i64>());
    k.store(s1, vec![BE::lit(1usize), BE::lit(2usize)], BE::lit(1.5f32));
    k.store(s2, BE::lit(0usize), BE::lit(3u32));
    k.store(s3, BE::lit(3usize), BE::lit(2.5f64));
    k.store(s4, BE::lit(1usize), BE::lit(-2i32));
    k.store(s5, BE::lit(2usize), s0.extent(0).cast::<u64>());
    k.barrier();
    let x = k.let_::<i64>(
        "x",
        s0.load(BE::lit(0usize))
            + s4.load(BE::lit(1usize)).cast::<i64>()
            + s2.load(BE::lit(0usize)).cast::<i64>()
            + s5.load(BE::lit(2usize)).cast::<i64>()
            + s1.load(vec![BE::lit(1usize), BE::lit(2usize)])
                .cast::<i64>()
            + s3.load(BE::lit(3usize)).cast::<i64>(),
    );
    // Nested for of every kind.
    for kind in [
        NestedKind::Thread,
        NestedKind::Vector,
        NestedKind::TeamVector,
    ] {
        let j = k.nested_for(kind, "j", BE::lit(0usize), q.get());
        k.store(out, j.get(), x.get());
        k.if_(j.get().gt(BE::lit(5usize)));
        k.store(out, BE::lit(0usize), BE::lit(1i64));
        k.end();
        k.end();
    }
    // Team-wide reductions with every reducer, on every type it supports.
    let mut kinds = vec![NestedKind::Thread, NestedKind::TeamVector];
    if vector_comm {
        kinds.push(NestedKind::Vector);
    }
    let rs = [
        ReducerKind::Sum,
        ReducerKind::Prod,
        ReducerKind::Min,
        ReducerKind::Max,
        ReducerKind::BAnd,
        ReducerKind::BOr,
    ];
    for kind in kinds.clone() {
        for r in rs {
            let v = k.nested_reduce::<i64>(kind, "r", BE::lit(0usize), BE::lit(10usize), r);
            k.assign(v.acc, v.acc.get() + v.index.get().cast::<i64>());
            k.end();
            k.store(out, BE::lit(0usize), v.result.get());
            let v = k.nested_reduce::<u32>(kind, "r", BE::lit(0usize), BE::lit(10usize), r);
            k.assign(v.acc, v.acc.get() | v.index.get().cast::<u32>());
            k.end();
            k.store(out, BE::lit(1usize), v.result.get().cast::<i64>());
        }
        for r in [ReducerKind::Sum, ReducerKind::Min, ReducerKind::Max] {
            let v = k.nested_reduce::<f64>(kind, "r", BE::lit(0usize), BE::lit(10usize), r);
            k.assign(v.acc, v.acc.get() + v.index.get().cast::<f64>());
            k.end();
            k.store(outf, BE::lit(0usize), v.result.get());
            let v = k.nested_reduce::<f32>(kind, "r", BE::lit(0usize), BE::lit(10usize), r);
            k.assign(v.acc, v.acc.get() + v.index.get().cast::<f32>());
            k.end();
            k.store(outf, BE::lit(1usize), v.result.get().cast::<f64>());
        }
        for r in [ReducerKind::LAnd, ReducerKind::LOr] {
            let v = k.nested_reduce::<bool>(kind, "r", BE::lit(0usize), BE::lit(10usize), r);
            k.assign(v.acc, v.acc.get().and(v.index.get().lt(BE::lit(3usize))));
            k.end();
            k.store(
                out,
                BE::lit(2usize),
                v.result.get().select(BE::lit(1i64), BE::lit(0i64)),
            );
        }
        // Scans.
        let v = k.nested_scan::<i64>(kind, "s", BE::lit(0usize), q.get());
        k.if_(v.is_final.get());
        k.store(out, v.index.get(), v.partial.get());
        k.end();
        k.assign(v.partial, v.partial.get() + BE::lit(1i64));
        k.end();
        k.store(out, BE::lit(3usize), v.total.get());
        let v = k.nested_scan::<f32>(kind, "s", BE::lit(0usize), q.get());
        k.assign(v.partial, v.partial.get() + BE::lit(0.5f32));
        k.end();
        k.store(outf, BE::lit(3usize), v.total.get().cast::<f64>());
    }
    // Singles and broadcasts.
    let w = k.single_with::<i64>(SingleKind::Team, "w");
    k.assign(w, x.get() + BE::lit(1i64));
    k.end();
    k.single(SingleKind::Thread);
    k.store(out, tr.clone(), w.get());
    k.end();
    if vector_comm {
        let u = k.single_with::<f64>(SingleKind::Thread, "u");
        k.assign(u, BE::lit(2.0f64));
        k.end();
        k.store(outf, BE::lit(5usize), u.get());
    }
    let b = k.broadcast::<f64>("b", tr.clone().cast::<f64>(), BE::lit(1usize));
    let c = k.broadcast::<bool>("c", tr.clone().lt(BE::lit(2usize)), BE::lit(0usize));
    let d = k.broadcast::<u32>("d", tr.clone().cast::<u32>(), BE::lit(0usize));
    k.store(outf, BE::lit(6usize), b.get());
    k.store(
        out,
        BE::lit(7usize),
        c.get().select(d.get().cast::<i64>(), BE::lit(0i64)),
    );
    if reduce {
        let acc = k.acc::<i64>("acc");
        k.single(SingleKind::Team);
        k.acc_set(acc, acc.get() + x.get());
        k.end();
    }
    k.finish().expect("builds")
}

fn team_shape(team: u32, vlen: u32, lanes: bool) -> team::TeamShape {
    team::TeamShape {
        team,
        vlen,
        lanes,
        pools: [(128, 64), (96, 64)],
    }
}

#[test]
fn team_constructs_validate() {
    for (vector_comm, lanes) in [(false, true), (false, false), (true, false)] {
        for reduce in [false, true] {
            let k = team_kernel(vector_comm, reduce);
            let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
            for (t, v) in [(1, 1), (4, 1), (3, 4), (32, 8)] {
                let shape = team_shape(t, v, lanes);
                let opts = EmitOptions {
                    entry: Entry::Team {
                        reduce,
                        ordered: false,
                        shape,
                    },
                    wg: shape.wg(),
                    joins: if reduce {
                        vec![JoinKind::Op(ReducerKind::Sum)]
                    } else {
                        vec![]
                    },
                    addr32: t == 4,
                    in_bounds: Proven::NONE,
                    width: rokkos_device::emit::width::IndexWidth::W64,
                    splits: vec![],
                };
                let e = emit(&k, &info, &opts, Caps::ALL).expect("emits");
                naga_check(&e.source);
                assert!(e.source.contains("workgroupBarrier()"));
                assert!(e.may_fail);
            }
        }
    }
}

#[test]
fn team_vector_comm_with_physical_lanes_is_refused() {
    let k = team_kernel(true, false);
    let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
    let shape = team_shape(2, 4, true);
    let opts = EmitOptions {
        entry: Entry::Team {
            reduce: false,
            ordered: false,
            shape,
        },
        wg: shape.wg(),
        joins: vec![],
        addr32: false,
        in_bounds: Proven::NONE,
        width: rokkos_device::emit::width::IndexWidth::W64,
        splits: vec![],
    };
    assert!(emit(&k, &info, &opts, Caps::ALL).is_err());
    assert!(team::needs_lane_comm(&k, &info));
}

/// Physical lanes only where running them in parallel is running them in order: each lane writes
/// its own elements. Stores every lane of a thread repeats (outside vector ranges), such as the
/// top-level scratch stores of `team_kernel`, make them virtual.
#[test]
fn lanes_are_physical_only_when_independent() {
    let lanes = |k: &Kernel| {
        let info = rokkos_core::ir::valid::validate(k).expect("valid kernel");
        team::needs_lane_comm(k, &info)
    };
    assert!(lanes(&team_kernel(false, false)));
    let own = |repeat_outside: bool| {
        let mut k = KernelBuilder::new("lanes", WorkKind::Team);
        let out = k.view::<f64>("out", 2, Access::Writable);
        let j = k.nested_for(NestedKind::Thread, "j", 0usize, 8usize);
        let l = k.nested_for(NestedKind::Vector, "l", 0usize, 4usize);
        let v = out.load((j, l)) + BE::lit(1.0);
        k.store(out, (j, l), v);
        k.end();
        if repeat_outside {
            let v = out.load((j, 0usize)) * BE::lit(2.0);
            k.store(out, (j, 0usize), v);
        }
        k.end();
        k.finish().unwrap()
    };
    assert!(!lanes(&own(false)));
    assert!(lanes(&own(true)));
}

#[test]
fn partials_join_validates_for_every_accumulator_shape() {
    use rokkos_core::ir::ReducerKind as RK;
    let mut cases: Vec<(Vec<AccShape>, Vec<JoinKind>)> = Vec::new();
    for t in NUM {
        cases.push((vec![AccShape::Scalar(t)], vec![JoinKind::Op(RK::Sum)]));
        cases.push((vec![AccShape::Scalar(t)], vec![JoinKind::Op(RK::Max)]));
        cases.push((vec![AccShape::ValLoc(t)], vec![JoinKind::MinLoc]));
        cases.push((vec![AccShape::MinMaxVal(t)], vec![JoinKind::MinMax]));
    }
    cases.push((
        vec![AccShape::Scalar(ScalarType::Bool)],
        vec![JoinKind::Op(RK::LAnd)],
    ));
    // Several accumulators in one kernel: one pair of arrays per field.
    cases.push((
        vec![
            AccShape::Scalar(ScalarType::I64),
            AccShape::ValLoc(ScalarType::F64),
            AccShape::Scalar(ScalarType::Bool),
        ],
        vec![
            JoinKind::Op(RK::Sum),
            JoinKind::MaxLoc,
            JoinKind::Op(RK::LOr),
        ],
    ));
    for (shapes, joins) in cases {
        let mut k = skeleton("join");
        k.accumulators = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| Accumulator {
                name: format!("acc{i}"),
                shape: *s,
            })
            .collect();
        for wg in [1, 64, 256] {
            let m = join::join_module(&k, &joins, wg).expect("join module");
            naga_check(&m.source);
            assert_no_self_comparison(&m.source);
            assert_eq!(m.fields, k.acc_fields().len());
        }
    }
    // A reducer that does not fit the accumulators is refused, not emitted.
    let mut k = skeleton("join");
    k.accumulators = vec![Accumulator {
        name: "acc".into(),
        shape: AccShape::ValLoc(ScalarType::F32),
    }];
    assert!(join::join_module(&k, &[JoinKind::Op(RK::Sum)], 64).is_err());
}

/// The 32-bit variant of an f32 triad and dot: no 64-bit integer anywhere (the work index, the
/// parameter block, the offsets), and it validates without SHADER_INT64; the 64-bit variant of
/// the same kernel is refused on such a device, naming SHADER_INT64.
#[test]
fn f32_stream_kernels_in_32_bits() {
    let mut kb = KernelBuilder::new("triad32", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f32>("a", 1, Access::Writable);
    let b = kb.view::<f32>("b", 1, Access::ReadOnly);
    let c = kb.view::<f32>("c", 1, Access::ReadOnly);
    let s = kb.scalar::<f32>("s");
    kb.store(a, i.clone(), b.load(i.clone()) + s.get() * c.load(i));
    let triad = kb.finish().unwrap();
    let mut kb = KernelBuilder::new("dot32", WorkKind::Range);
    let i = kb.work_index(0);
    let acc = kb.acc::<f32>("acc");
    let a = kb.view::<f32>("a", 1, Access::ReadOnly);
    let b = kb.view::<f32>("b", 1, Access::ReadOnly);
    kb.acc_set(acc, acc.get() + a.load(i.clone()) * b.load(i));
    let dot = kb.finish().unwrap();
    let none = Caps {
        f64: false,
        int64: false,
        atomic64: false,
    };
    for (k, entry, joins) in [
        (triad, Entry::For, vec![]),
        (dot, Entry::Reduce, vec![JoinKind::Op(ReducerKind::Sum)]),
    ] {
        let info = rokkos_core::ir::valid::validate(&k).unwrap();
        let mut opts = EmitOptions {
            entry,
            wg: 256,
            joins,
            addr32: true,
            in_bounds: proven_over(&k, (0, 64), 64),
            width: rokkos_device::emit::width::IndexWidth::W32,
            splits: vec![],
        };
        let e = emit(&k, &info, &opts, none).expect("the 32-bit variant");
        assert!(
            !e.source.contains("u64") && !e.source.contains("i64"),
            "{}",
            e.source
        );
        naga_check_with(&e.source, naga::valid::Capabilities::empty());
        opts.width = rokkos_device::emit::width::IndexWidth::W64;
        match emit(&k, &info, &opts, none) {
            Err(EmitError::Unsupported(f)) => assert!(f.contains("SHADER_INT64"), "{f}"),
            other => panic!("{other:?}"),
        }
    }
}

/// `out[i] = f(x0[i], x1[i], ..)` on `T`.
fn one_math<T: rokkos_core::ir::build::IrFloat>(f: MathFn) -> Kernel {
    let mut kb = KernelBuilder::new("one_math", WorkKind::Range);
    let out = kb.view::<T>("out", 1, Access::Writable);
    let xs: Vec<_> = (0..f.arity())
        .map(|j| kb.view::<T>(&format!("x{j}"), 1, Access::ReadOnly))
        .collect();
    let i = kb.work_index(0);
    let args = xs.iter().map(|x| x.load(i.clone()).into_ir()).collect();
    let v = rokkos_core::ir::build::Expr::<T>::from_ir(Expr::Math { func: f, args });
    kb.store(out, i, v);
    kb.finish().expect("records")
}

/// Every transcendental function and `mul_add`, alone in a kernel (`out[i] = f(x[i], y[i])`),
/// emits a module that naga accepts, in both float types: an f64 one with f64 and 64-bit
/// integers, an f32 one (its 32-bit variant) with neither, and with the software library's
/// functions in it (none of WGSL's own transcendental built-ins).
#[test]
fn every_math_function_alone_validates() {
    for f in MathFn::ALL
        .into_iter()
        .filter(|f| f.is_transcendental() || *f == MathFn::MulAdd)
    {
        for t in [ScalarType::F64, ScalarType::F32] {
            let k = if t == ScalarType::F32 {
                one_math::<f32>(f)
            } else {
                one_math::<f64>(f)
            };
            let info = rokkos_core::ir::valid::validate(&k).unwrap();
            let f32 = t == ScalarType::F32;
            let opts = EmitOptions {
                entry: Entry::For,
                wg: 64,
                joins: vec![],
                addr32: true,
                in_bounds: Proven::NONE,
                width: if f32 {
                    rokkos_device::emit::width::IndexWidth::W32
                } else {
                    rokkos_device::emit::width::IndexWidth::W64
                },
                splits: vec![],
            };
            let caps = if f32 {
                Caps {
                    f64: false,
                    int64: false,
                    atomic64: false,
                }
            } else {
                Caps::ALL
            };
            let e =
                emit(&k, &info, &opts, caps).unwrap_or_else(|e| panic!("{t} {}: {e}", f.name()));
            assert!(
                e.source.contains("fn uf0("),
                "{t} {}: no library function",
                f.name()
            );
            if f32 {
                assert!(
                    !e.source.contains("f64"),
                    "{} uses f64:\n{}",
                    f.name(),
                    e.source
                );
                naga_check_with(&e.source, naga::valid::Capabilities::empty());
            } else {
                naga_check(&e.source);
            }
        }
    }
}

/// `out[(i, j)] = u[(i-1, j)] + u[(i+1, j)] + u[(i, j-1)] + u[(i, j+1)] - 4 u[(i, j)]` over an
/// MDRange.
pub(crate) fn five_point() -> Kernel {
    let mut kb = KernelBuilder::new("five_point", WorkKind::MDRange(2));
    let (i, j) = (kb.work_index(0), kb.work_index(1));
    let out = kb.view::<f32>("out", 2, Access::Writable);
    let u = kb.view::<f32>("u", 2, Access::ReadOnly);
    let sum = u.load(vec![i.clone() - 1usize, j.clone()])
        + u.load(vec![i.clone() + 1usize, j.clone()])
        + u.load(vec![i.clone(), j.clone() - 1usize])
        + u.load(vec![i.clone(), j.clone() + 1usize])
        - u.load(vec![i.clone(), j.clone()]) * 4.0f32;
    kb.store(out, vec![i, j], sum);
    kb.finish().expect("records")
}

/// The 2-D five-point stencil over the interior `[1, n-1)²` of `n × n` Views: every access is
/// proven, so the module has no checked accessor and cannot record an error. Over `[0, n)` in
/// dimension 0 (the policy reaches the edge) `u[(i-1, j)]` and `u[(i+1, j)]` keep their checks,
/// the other accesses stay unchecked; with nothing proven (`ROKKOS_DEVICE_BOUNDS_CHECKS=all`)
/// every access is checked. Each module validates, in each index variant the kernel has.
#[test]
fn stencil_checks_go_exactly_where_the_launch_proves_them() {
    let k = five_point();
    let info = rokkos_device::runtime::prepare::DeviceInfo::validate(&k).unwrap();
    let n = 34usize;
    let ext: &[usize] = &[n, n];
    let interior = Proven::prove(&info.shifted, &[(1, 33), (1, 33)], &[ext, ext]);
    let edge = Proven::prove(&info.shifted, &[(0, 34), (1, 33)], &[ext, ext]);
    assert_eq!(interior.sites().len(), 6);
    assert_eq!(edge.sites().len(), 4);
    // `i - 1` keeps the kernel out of the 32-bit variant (its width plan's decision).
    let widths = [
        rokkos_device::emit::width::IndexWidth::W64,
        rokkos_device::emit::width::IndexWidth::W32,
    ];
    let exact32 = rokkos_device::emit::width::plan(&k).index32.is_ok();
    for width in widths.into_iter().filter(|&w| exact32 || w == widths[0]) {
        let emit_with = |in_bounds: &Proven| {
            let opts = EmitOptions {
                entry: Entry::For,
                wg: 64,
                joins: vec![],
                addr32: true,
                in_bounds: in_bounds.clone(),
                width,
                splits: vec![],
            };
            let e = emit(&k, &info, &opts, Caps::ALL).expect("emits");
            naga_check(&e.source);
            let body = e.source[e.source.find("fn rk_work(").unwrap()..].to_string();
            (body, e.may_fail)
        };
        let (body, may_fail) = emit_with(&interior);
        assert!(
            !may_fail && !body.contains("rk_ld") && !body.contains("rk_st"),
            "{body}"
        );
        assert_eq!(body.matches("v1[").count(), 5, "{body}");
        let (body, may_fail) = emit_with(&edge);
        assert!(may_fail);
        assert_eq!(body.matches("rk_ld1(").count(), 2, "{body}");
        assert_eq!(body.matches("v1[").count(), 3, "{body}");
        assert!(!body.contains("rk_st0("), "{body}");
        let (body, may_fail) = emit_with(&Proven::NONE);
        assert!(may_fail);
        assert_eq!(body.matches("rk_ld1(").count(), 5, "{body}");
        assert!(body.contains("rk_st0("), "{body}");
    }
}

/// Every math function, arithmetic operator and cast on the types of at most 32 bits, in the
/// 32-bit variant of a kernel that has no 64-bit type of its own, emits for a device without
/// SHADER_INT64 and SHADER_F64 and validates without them: none of their helpers (the f32
/// transcendental library, `mul_add`, float `%`, the checked integer operations, `clamp`'s error
/// record, the float-to-integer casts) needs a 64-bit integer.
#[test]
fn operations_on_32_bit_types_need_no_64_bit_integers() {
    const T32: [ScalarType; 7] = [
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::F32,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::I8,
        ScalarType::I16,
    ];
    let pos = |t: ScalarType| T32.iter().position(|&u| u == t).unwrap() as u32;
    let param = |t: ScalarType| {
        Expr::Param(ScalarParamId(if t == ScalarType::Bool {
            T32.len() as u32
        } else {
            pos(t)
        }))
    };
    let st = |t: ScalarType, e: Expr| Stmt::Store {
        view: ViewRef::Param(ViewId(pos(t))),
        index: vec![Expr::WorkIndex(0)],
        value: e,
    };
    for checks in [false, true] {
        let mut k = skeleton("ops32");
        k.views.retain(|v| T32.contains(&v.elem));
        k.scalars
            .retain(|s| T32.contains(&s.ty) || s.ty == ScalarType::Bool);
        k.overflow_checks = checks;
        for t in T32 {
            for f in MathFn::ALL {
                let args: Vec<Expr> = (0..f.arity())
                    .map(|i| {
                        param(if f == MathFn::Powi && i == 1 {
                            ScalarType::I32
                        } else {
                            t
                        })
                    })
                    .collect();
                let tys: Vec<ScalarType> = args.iter().map(|a| a.ty(&k, &[]).unwrap()).collect();
                match f.result_type(&tys) {
                    Some(rt) if rt == t => k.body.push(st(t, Expr::Math { func: f, args })),
                    _ => {}
                }
            }
            for op in [
                ArithOp::Add,
                ArithOp::Sub,
                ArithOp::Mul,
                ArithOp::Div,
                ArithOp::Rem,
            ] {
                if BinaryOp::Arith(op).result_type(t, t) == Some(t) {
                    k.body
                        .push(st(t, bin(BinaryOp::Arith(op), param(t), param(t))));
                }
            }
            for from in T32.into_iter().chain([ScalarType::Bool]) {
                if t.can_cast_from(from) {
                    k.body.push(st(
                        t,
                        Expr::Cast {
                            ty: t,
                            arg: Box::new(param(from)),
                        },
                    ));
                }
            }
        }
        let info = rokkos_core::ir::valid::validate(&k).unwrap();
        let opts = EmitOptions {
            entry: Entry::For,
            wg: 64,
            joins: vec![],
            addr32: true,
            in_bounds: Proven::NONE,
            width: rokkos_device::emit::width::IndexWidth::W32,
            splits: vec![],
        };
        let none = Caps {
            f64: false,
            int64: false,
            atomic64: false,
        };
        let e = emit(&k, &info, &opts, none).expect("emits without 64-bit types");
        // The f32 sin/cos/tan come from the IR library: its Payne–Hanek reduction's table of
        // 2/π (first word 0xa2f9836e), read in 32-bit integers, is in the module.
        assert!(e.source.contains(" 2734261102u,"), "{}", e.source);
        naga_check_with(&e.source, naga::valid::Capabilities::empty());
    }
}

/// A team kernel with every team construct and no 64-bit value of its own, whose `usize` values
/// the width proof bounds: nested ranges over team queries and extents, scratch of both scopes
/// and levels with extents from team queries, nested reductions and scans of every kind
/// (`vector_comm`), singles, broadcasts, and a `usize` computed from the team rank.
fn team_kernel32(vector_comm: bool, reduce: bool) -> Kernel {
    let mut k = KernelBuilder::new("team32", WorkKind::Team);
    k.overflow_checks(true);
    let a = k.view::<f32>("a", 2, Access::ReadOnly);
    let out = k.view::<u32>("out", 1, Access::Writable);
    let lr = k.team_query(TeamQuery::LeagueRank);
    let tr = k.team_query(TeamQuery::TeamRank);
    let ts = k.team_query(TeamQuery::TeamSize);
    let m = k.let_::<usize>("m", a.extent(1).min(BE::lit(64usize)));
    let s0 = k.scratch::<f32>(0, ScratchScope::Team, vec![m.get()]);
    let s1 = k.scratch::<u32>(1, ScratchScope::Thread, vec![ts.clone(), BE::lit(2usize)]);
    let s2 = k.scratch::<i32>(0, ScratchScope::Thread, vec![BE::lit(3usize)]);
    for kind in [
        NestedKind::Thread,
        NestedKind::Vector,
        NestedKind::TeamVector,
    ] {
        let j = k.nested_for(kind, "j", BE::lit(0usize), m.get());
        k.store(s0, j.get(), a.load((lr.clone(), j.get())));
        k.end();
    }
    let j = k.nested_for_inclusive(NestedKind::Thread, "j", BE::lit(1usize), ts.clone());
    k.store(s1, (tr.clone(), BE::lit(1usize)), j.get().cast::<u32>());
    k.store(s2, BE::lit(2usize), BE::lit(-1i32));
    k.end();
    k.barrier();
    let mut kinds = vec![NestedKind::Thread, NestedKind::TeamVector];
    if vector_comm {
        kinds.push(NestedKind::Vector);
    }
    for kind in kinds {
        let v = k.nested_reduce::<f32>(kind, "r", BE::lit(0usize), m.get(), ReducerKind::Max);
        k.assign(v.acc, v.acc.get().max(s0.load(v.index.get())));
        k.end();
        k.store(out, lr.clone(), v.result.get().cast::<u32>());
        let v =
            k.nested_scan_inclusive::<u32>(kind, "s", BE::lit(0usize), m.get() - BE::lit(1usize));
        k.if_(v.is_final.get());
        k.store(out, v.index.get(), v.partial.get());
        k.end();
        k.assign(v.partial, v.partial.get() + v.index.get().cast::<u32>());
        k.end();
        k.store(out, BE::lit(1usize), v.total.get());
    }
    let w = k.single_with::<u32>(SingleKind::Team, "w");
    k.assign(
        w,
        s1.load((tr.clone(), BE::lit(1usize))) + s2.extent(0).cast::<u32>(),
    );
    k.end();
    let row = k.broadcast::<usize>("row", tr.clone() * BE::lit(2usize), BE::lit(0usize));
    k.single(SingleKind::Thread);
    k.store(out, row.get(), w.get());
    k.end();
    if reduce {
        let acc = k.acc::<u32>("acc");
        k.single(SingleKind::Team);
        k.acc_set(acc, acc.get() + w.get());
        k.end();
    }
    k.finish().expect("builds")
}

/// The 32-bit team entry: the width plan accepts `team_kernel32`, and its module spells no
/// 64-bit integer, so it validates without SHADER_INT64 (and is emitted for an adapter without
/// it); the 64-bit variant of the same kernel still uses `u64`.
#[test]
fn team_kernels_emit_a_32_bit_variant_without_int64() {
    use rokkos_device::emit::width::IndexWidth;
    let small = Caps {
        f64: false,
        int64: false,
        atomic64: false,
    };
    for (vector_comm, lanes) in [(false, true), (false, false), (true, false)] {
        for reduce in [false, true] {
            let k = team_kernel32(vector_comm, reduce);
            let plan = rokkos_device::emit::width::plan(&k);
            assert_eq!(plan.index32, Ok(()));
            assert_eq!(plan.int64, None);
            let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
            for (t, v) in [(1, 1), (4, 1), (3, 4), (32, 8)] {
                let shape = team_shape(t, v, lanes);
                let opts = |width| EmitOptions {
                    entry: Entry::Team {
                        reduce,
                        ordered: false,
                        shape,
                    },
                    wg: shape.wg(),
                    joins: if reduce {
                        vec![JoinKind::Op(ReducerKind::Sum)]
                    } else {
                        vec![]
                    },
                    addr32: true,
                    in_bounds: Proven::NONE,
                    width,
                    splits: vec![],
                };
                let e = emit(&k, &info, &opts(IndexWidth::W32), small).expect("emits 32-bit");
                naga_check_with(&e.source, naga::valid::Capabilities::empty());
                // No 64-bit type and no 64-bit literal (`0lu`, `0x10li`).
                let wide = e
                    .source
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .find(|x| {
                        ["u64", "i64"].contains(x)
                            || (x.starts_with(|c: char| c.is_ascii_digit())
                                && (x.ends_with("lu") || x.ends_with("li")))
                    });
                assert_eq!(wide, None, "in the 32-bit team module:\n{}", e.source);
                assert!(e.params.fields.iter().all(|f| f.ty.size() <= 4));
                let e64 = emit(&k, &info, &opts(IndexWidth::W64), Caps::ALL).expect("emits");
                naga_check(&e64.source);
                assert!(e64.source.contains("u64"));
                // Without SHADER_INT64 the 64-bit variant is refused, naming the feature.
                match emit(&k, &info, &opts(IndexWidth::W64), small) {
                    Err(EmitError::Unsupported(m)) => assert!(m.contains("SHADER_INT64"), "{m}"),
                    other => panic!("{other:?}"),
                }
            }
        }
    }
    // A team kernel outside the proof is never emitted 32-bit.
    let k = team_kernel(false, false);
    let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
    let shape = team_shape(4, 1, false);
    check_w32(
        &k,
        &info,
        Entry::Team {
            reduce: false,
            ordered: false,
            shape,
        },
        &[],
    );
}

/// The ordered-partials entries (a reducer whose join is host code) validate in every address
/// mode and width, have no workgroup tree (no barrier, no workgroup memory) and store one partial
/// per invocation; a range invocation folds `rokkos_device::runtime::ordered::block_bounds`, an
/// MDRange one whole tiles, its digits fastest dimension first and its loops slowest dimension
/// outermost, in the policy's order.
#[test]
fn ordered_entries_fold_blocks_without_a_workgroup_tree() {
    let mut kb = KernelBuilder::new("first_any", WorkKind::Range);
    let i = kb.work_index(0);
    let x = kb.view::<u32>("x", 1, Access::ReadOnly);
    let first = kb.acc::<u32>("first");
    let any = kb.acc::<bool>("any");
    kb.acc_set(first, x.load(i.clone()));
    kb.acc_set(any, x.load(i).gt(0u32));
    let k = kb.finish().unwrap();
    let src = check(&k, Entry::Ordered { left: false }, vec![]);
    for want in [
        "let base = P.n / P.parts;",
        "let lo = lin * base + select(rem, lin, lin < rem);",
        "w0 = P.begin + idx; rk_work();",
        "out0[lin] = a0;",
        "out1[lin] = select(0u, 1u, a1);",
    ] {
        assert!(src.contains(want), "no `{want}` in\n{src}");
    }
    assert!(
        !src.contains("workgroupBarrier") && !src.contains("var<workgroup>"),
        "{src}"
    );

    let mut kb = KernelBuilder::new("last3", WorkKind::MDRange(3));
    let (i, j, l) = (kb.work_index(0), kb.work_index(1), kb.work_index(2));
    let a = kb.view::<u32>("a", 3, Access::ReadOnly);
    let last = kb.acc::<u32>("last");
    kb.acc_set(last, a.load(vec![i, j, l]));
    let k = kb.finish().unwrap();
    for left in [false, true] {
        let src = check(&k, Entry::Ordered { left }, vec![]);
        let (fast, slow) = if left { (0, 2) } else { (2, 0) };
        let digit = |d: u32| src.find(&format!("let c{d} = rest % P.nt{d};"));
        let lp = |d: u32| src.find(&format!("for (var x{d} = lo{d}; x{d} < hi{d};"));
        assert!(digit(fast).unwrap() < digit(1).unwrap(), "{src}");
        assert!(digit(1).unwrap() < digit(slow).unwrap(), "{src}");
        assert!(lp(slow).unwrap() < lp(1).unwrap(), "{src}");
        assert!(lp(1).unwrap() < lp(fast).unwrap(), "{src}");
        assert!(src.contains("let base = P.ntiles / P.parts;"), "{src}");
        assert!(src.contains("out0[lin] = a0;"), "{src}");
        assert!(!src.contains("workgroupBarrier"), "{src}");
    }
}

/// `a[i * n + j]` for `j in 0..n`: a 2-D array flattened by hand.
fn flat_rows() -> Kernel {
    let mut kb = KernelBuilder::new("flat_rows", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f32>("a", 1, Access::Writable);
    let n = kb.scalar::<usize>("n");
    let j = kb.for_range::<usize>("j", 0usize, n.get());
    kb.store(a, i * n.get() + j.get(), 1.0f32);
    kb.end();
    kb.finish().unwrap()
}

/// The words of a WGSL module that are 64-bit integer types or literals (`u64`, `0lu`, `2li`).
fn wide_words(src: &str) -> usize {
    src.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|x| {
            ["u64", "i64"].contains(x)
                || (x.starts_with(|c: char| c.is_ascii_digit())
                    && (x.ends_with("lu") || x.ends_with("li")))
        })
        .count()
}

/// A launch-proven `a[i * n + j]`: the kernel-wide proof refuses it, yet its 32-bit variant is
/// emitted (the launcher proves each launch) and spells no 64-bit integer, so it validates
/// without SHADER_INT64; the 64-bit variant, what every launch ran before, is full of them.
#[test]
fn a_launch_proven_flat_index_emits_without_int64() {
    use rokkos_device::emit::width::IndexWidth;
    let k = flat_rows();
    let plan = rokkos_device::emit::width::plan(&k);
    assert!(plan.index32.is_err() && plan.may_run_32() && plan.int64.is_none());
    let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
    let opts = |width| EmitOptions {
        entry: Entry::For,
        wg: 64,
        joins: vec![],
        addr32: true,
        in_bounds: Proven::NONE,
        width,
        splits: vec![],
    };
    let small = Caps {
        f64: false,
        int64: false,
        atomic64: false,
    };
    let e = emit(&k, &info, &opts(IndexWidth::W32), small).expect("emits 32-bit");
    naga_check_with(&e.source, naga::valid::Capabilities::empty());
    assert_eq!(wide_words(&e.source), 0, "{}", e.source);
    let e64 = emit(&k, &info, &opts(IndexWidth::W64), Caps::ALL).expect("emits");
    naga_check(&e64.source);
    assert!(wide_words(&e64.source) > 0);
}

/// The team entry of the ordered-partials mode: workgroup `g` runs league block `g` of
/// `P.parts` (`rokkos_device::runtime::ordered::block_bounds`) with workgroup-uniform bounds, and
/// each invocation stores its accumulator as partial `g * wg + li`, with no workgroup tree; it
/// validates in both widths, the 32-bit one without SHADER_INT64.
#[test]
fn ordered_team_entry_runs_a_league_block_per_workgroup() {
    use rokkos_device::emit::width::IndexWidth;
    for lanes in [false, true] {
        let shape = team_shape(3, 4, lanes);
        let opts = |width| EmitOptions {
            entry: Entry::Team {
                reduce: true,
                ordered: true,
                shape,
            },
            wg: shape.wg(),
            joins: vec![],
            addr32: true,
            in_bounds: Proven::NONE,
            width,
            splits: vec![],
        };
        let k = team_kernel(false, true);
        let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
        let e = emit(&k, &info, &opts(IndexWidth::W64), Caps::ALL).expect("emits");
        naga_check(&e.source);
        let wg = shape.wg();
        for want in [
            "let base = P.league / P.parts;".to_string(),
            "lr = u64(g) * base + select(rem, u64(g), u64(g) < rem);".to_string(),
            "if (lr >= lr_end) { break; }".to_string(),
            format!("out0[g * {wg}u + li] = a0;"),
        ] {
            assert!(e.source.contains(&want), "no `{want}` in\n{}", e.source);
        }
        assert!(!e.source.contains("var<workgroup> sh0"), "{}", e.source);
        assert!(e.params.fields.iter().any(|f| f.name == "parts"));
        let k = team_kernel32(false, true);
        let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
        let small = Caps {
            f64: false,
            int64: false,
            atomic64: false,
        };
        let e = emit(&k, &info, &opts(IndexWidth::W32), small).expect("emits 32-bit");
        naga_check_with(&e.source, naga::valid::Capabilities::empty());
        assert!(
            e.source
                .contains("lr = g * base + select(rem, g, g < rem);"),
            "{}",
            e.source
        );
    }
}

/// The replay step of a scan whose join is host code: invocation `t` starts from its block's
/// prefix `pre0[t]` with `final == true`, folds block `t` in order and stores no partial.
#[test]
fn ordered_scan_replays_a_block_from_its_prefix() {
    let mut kb = KernelBuilder::new("prefix", WorkKind::Range);
    let i = kb.work_index(0);
    let partial = kb.scan_partial::<u32>("partial");
    let a = kb.view::<u32>("a", 1, Access::ReadOnly);
    let out = kb.view::<u32>("out", 1, Access::Writable);
    let x = kb.let_("x", a.load(i.clone()));
    let fin = kb.is_final();
    kb.if_(fin);
    kb.store(out, i, partial);
    kb.end();
    kb.acc_set(partial, partial.get() + x);
    let k = kb.finish().unwrap();
    let src = check(&k, Entry::OrderedScan, vec![]);
    for want in [
        "a0 = pre0[lin];\n        rk_fin = true;",
        "let lo = lin * base + select(rem, lin, lin < rem);",
        "w0 = P.begin + idx; rk_work();",
    ] {
        assert!(src.contains(want), "no `{want}` in\n{src}");
    }
    assert!(!src.contains("out0"), "{src}");
    assert!(!src.contains("workgroupBarrier"), "{src}");
    // The fold step is the ordered reduction's entry, `final == false`.
    let src = check(&k, Entry::Ordered { left: false }, vec![]);
    assert!(src.contains("rk_fin = false;"), "{src}");
    assert!(src.contains("out0[lin] = a0;"), "{src}");
}

/// Constant tables: one module-scope `const` array each, floats and i64 as their bits (naga
/// refuses non-finite constants and cannot evaluate `i64::MIN`'s spelling), every read checked
/// (so the launch reads the error record), in both address modes.
#[test]
fn constant_tables_are_module_constants_read_through_checks() {
    let mut kb = KernelBuilder::new("tables", WorkKind::Range);
    let i = kb.work_index(0);
    let out = kb.view::<f32>("out", 1, Access::Writable);
    let wide = kb.view::<i64>("wide", 1, Access::Writable);
    let idx = kb.view::<u32>("idx", 1, Access::ReadOnly);
    let f = kb.table::<f32>("f", &[0.0, f32::NAN, f32::INFINITY]);
    let w = kb.table::<i64>("w", &[i64::MIN, 7]);
    let k = idx.load(i.clone()).cast::<usize>();
    kb.store(out, i.clone(), f.load(k.clone()));
    kb.store(wide, i, w.load(k));
    let k = kb.finish().unwrap();
    let src = check(&k, Entry::For, vec![]);
    assert!(
        src.contains("const ct0 = array<u32, 3>(0u, 2143289344u, 2139095040u);"),
        "{src}"
    );
    assert!(
        src.contains("const ct1 = array<u64, 2>(9223372036854775808lu, 7lu);"),
        "{src}"
    );
    assert!(src.contains("bitcast<f32>(ct0[rk_aix("), "{src}");
    assert!(src.contains("bitcast<i64>(ct1[rk_aix("), "{src}");
    let info = rokkos_core::ir::valid::validate(&k).unwrap();
    let opts = EmitOptions {
        entry: Entry::For,
        wg: 64,
        joins: vec![],
        addr32: false,
        in_bounds: Proven::NONE,
        width: rokkos_device::emit::width::IndexWidth::W64,
        splits: vec![],
    };
    assert!(emit(&k, &info, &opts, Caps::ALL).unwrap().may_fail);
}
