//! The CUDA C emitter on IR kernels built here: every operator on every type, casts, loops,
//! MDRange; each module compiled by NVRTC when it is installed (the whole equivalence suite is
//! compiled by the checking space, `crate::check`).

use super::*;
use rokkos_core::ir::build::KernelBuilder;
use rokkos_core::ir::*;

const NUM: [ScalarType; 10] = [
    ScalarType::U8,
    ScalarType::U16,
    ScalarType::I8,
    ScalarType::I16,
    ScalarType::I32,
    ScalarType::U32,
    ScalarType::I64,
    ScalarType::U64,
    ScalarType::F32,
    ScalarType::F64,
];

fn opts() -> CudaOptions {
    CudaOptions {
        entry: Entry::For,
        block: 256,
        bounds_checks: true,
        joins: Vec::new(),
        in_bounds: Default::default(),
        team: None,
        width: IndexWidth::W64,
    }
}

/// Emits `k` and, where NVRTC is installed, compiles it for sm_90.
fn check(k: &Kernel) -> String {
    let info = rokkos_core::ir::valid::validate(k).expect("valid kernel");
    let e = emit(k, &info, &opts()).expect("emits");
    if crate::compile::nvrtc_version().is_ok() {
        if let Err(err) =
            crate::compile::compile_ptx(&e.source, &k.name, crate::compile::Arch::SM_90)
        {
            panic!("{err}");
        }
    }
    e.source
}

fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    }
}

/// A range kernel with one writable View and one scalar per numeric type.
fn per_type(name: &str, checks: bool) -> Kernel {
    Kernel {
        name: name.into(),
        work: WorkKind::Range,
        views: NUM
            .iter()
            .map(|t| ViewParam {
                name: format!("o_{t}"),
                elem: *t,
                rank: 1,
                access: Access::Writable,
                used_atomically: false,
            })
            .collect(),
        scalars: NUM
            .iter()
            .map(|t| ScalarParam {
                name: format!("s_{t}"),
                ty: *t,
            })
            .collect(),
        accumulators: vec![],
        is_scan: false,
        scratch: vec![],
        locals: vec![],
        body: vec![],
        functions: vec![],
        tables: vec![],
        overflow_checks: checks,
    }
}

fn at(t: ScalarType) -> u32 {
    NUM.iter().position(|&u| u == t).unwrap() as u32
}

fn put(t: ScalarType, e: Expr) -> Stmt {
    Stmt::Store {
        view: ViewRef::Param(ViewId(at(t))),
        index: vec![Expr::WorkIndex(0)],
        value: e,
    }
}

#[test]
fn operators_casts_and_math_compile() {
    for checks in [false, true] {
        let mut k = per_type("ops", checks);
        let s = |t: ScalarType| Expr::Param(ScalarParamId(at(t)));
        for t in NUM {
            for op in [
                ArithOp::Add,
                ArithOp::Sub,
                ArithOp::Mul,
                ArithOp::Div,
                ArithOp::Rem,
                ArithOp::WrappingAdd,
                ArithOp::WrappingMul,
            ] {
                k.body.push(put(t, bin(BinaryOp::Arith(op), s(t), s(t))));
            }
            if t.is_int() {
                for op in [
                    BitwiseOp::And,
                    BitwiseOp::Xor,
                    BitwiseOp::Shl,
                    BitwiseOp::Shr,
                ] {
                    for rt in NUM.iter().filter(|u| u.is_int()) {
                        let r = if matches!(op, BitwiseOp::Shl | BitwiseOp::Shr) {
                            s(*rt)
                        } else {
                            s(t)
                        };
                        k.body.push(put(t, bin(BinaryOp::Bitwise(op), s(t), r)));
                    }
                }
            }
            for to in NUM {
                k.body.push(put(
                    to,
                    Expr::Cast {
                        ty: to,
                        arg: Box::new(s(t)),
                    },
                ));
            }
            if t.is_int() {
                // The edges as literals (`MIN` of a signed type is no C literal), and as
                // divisors: -1 keeps the overflow test of a signed division, 2 needs none.
                let bits = u64::MAX >> (64 - t.bits());
                let edges = [0, 1, bits, bits >> 1, (bits >> 1) + 1];
                for v in edges.map(|b| Value::from_bits(t, b)) {
                    k.body.push(put(t, Expr::Lit(v)));
                    for op in [ArithOp::Div, ArithOp::Rem] {
                        let e = bin(BinaryOp::Arith(op), s(t), Expr::Lit(v));
                        k.body.push(put(t, e));
                    }
                }
            }
            if t.is_signed_int() || t.is_float() {
                let arg = Box::new(s(t));
                k.body.push(put(
                    t,
                    Expr::Unary {
                        op: UnaryOp::Neg,
                        arg,
                    },
                ));
            }
            if t.is_int() {
                let arg = Box::new(s(t));
                k.body.push(put(
                    t,
                    Expr::Unary {
                        op: UnaryOp::Not,
                        arg,
                    },
                ));
            }
            let cmp = bin(BinaryOp::Cmp(CmpOp::Ne), s(t), s(t));
            k.body.push(put(
                ScalarType::I32,
                Expr::Cast {
                    ty: ScalarType::I32,
                    arg: Box::new(cmp),
                },
            ));
            for f in [
                MathFn::Min,
                MathFn::Max,
                MathFn::Clamp,
                MathFn::Abs,
                MathFn::Signum,
            ] {
                let tys = vec![t; f.arity()];
                if f.result_type(&tys).is_some() {
                    let args = (0..f.arity()).map(|_| s(t)).collect();
                    k.body.push(put(t, Expr::Math { func: f, args }));
                }
            }
            if t.is_float() {
                for f in [
                    MathFn::Sqrt,
                    MathFn::Floor,
                    MathFn::Round,
                    MathFn::Fract,
                    MathFn::MulAdd,
                    MathFn::Ln,
                    MathFn::Log2,
                ] {
                    let args = (0..f.arity()).map(|_| s(t)).collect();
                    k.body.push(put(t, Expr::Math { func: f, args }));
                }
                for v in [f64::NAN, f64::INFINITY, -0.0, 1e-310, 0.1] {
                    let l = if t == ScalarType::F32 {
                        Value::F32(v as f32)
                    } else {
                        Value::F64(v)
                    };
                    k.body.push(put(t, Expr::Lit(l)));
                }
            }
        }
        let src = check(&k);
        assert!(
            src.contains("rk_div_i64") && src.contains("rk_cvt_f32_u64"),
            "{src}"
        );
        assert_eq!(src.contains("rk_cadd_i32"), checks);
        for t in ["i8", "i16"] {
            assert_eq!(src.contains(&format!("rk_cmul_{t}")), checks, "{src}");
            assert!(src.contains(&format!("rk_div_{t}")), "{src}");
            assert!(src.contains(&format!("rk_cvt_f64_{t}")), "{src}");
        }
        assert!(
            src.contains("if (b == ((i8)(-1)) && a == ((i8)(-128)))"),
            "{src}"
        );
        assert!(
            src.contains("if (x < (-1.28e2)) { return ((i8)(-128)); }"),
            "{src}"
        );
        assert!(
            src.contains("if (x >= (3.2768e4)) { return ((i16)32767); }"),
            "{src}"
        );
    }
}

/// Every f64 transcendental function is emitted: CUDA's own where it is documented within the
/// contract, the software library's IR functions for the others, and the module compiles.
#[test]
fn f64_transcendental_functions_are_emitted() {
    let mut k = per_type("f64_math", false);
    let x = || Expr::Param(ScalarParamId(at(ScalarType::F64)));
    for f in MathFn::ALL.iter().filter(|f| f.is_transcendental()) {
        let args = (0..f.arity()).map(|_| x()).collect();
        k.body
            .push(put(ScalarType::F64, Expr::Math { func: *f, args }));
    }
    let src = check(&k);
    let lowered = rokkos_device::emit::softmath::lower_math(&k, super::ops::software).unwrap();
    for lib in [
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "powf", "hypot",
    ] {
        // From the IR library: one of the kernel's functions after the pass, emitted under the
        // kernel's function names (`uf<N>`).
        let name = format!("rk_f64_{lib}");
        assert!(
            lowered.functions.iter().any(|g| g.name == name),
            "{lib}: not added by the pass"
        );
        assert!(!src.contains(&format!("{name}(")), "{lib}: named in {src}");
    }
    for own in [
        "exp(", "exp2(", "log(", "log2(", "log10(", "cbrt(", "cosh(", "tanh(",
    ] {
        assert!(src.contains(own), "{own}");
    }
    // The prototypes come before the definitions, the built-ins before both.
    let order = |head: &str, support: &str| {
        let line = |want: &dyn Fn(&str) -> bool| {
            src.lines()
                .position(want)
                .unwrap_or_else(|| panic!("{head} ({support}) in {src}"))
        };
        let support = line(&|l| l.contains(support));
        let proto = line(&|l| l.starts_with(head) && l.ends_with(");"));
        let def = line(&|l| l.starts_with(head) && l.ends_with('{'));
        assert!(support < proto && proto < def, "{head}");
    };
    order("__device__ __forceinline__ f64 uf0(", "rk_f64_bits(");
}

/// Every f32 transcendental function is emitted: CUDA's f32 function where it meets the
/// contract, else the f64 function rounded once (its arguments widened), and the module compiles.
#[test]
fn f32_transcendental_functions_are_emitted() {
    let mut k = per_type("f32_math", false);
    let x = || Expr::Param(ScalarParamId(at(ScalarType::F32)));
    let mut n = 0;
    for f in MathFn::ALL.iter().filter(|f| f.is_transcendental()) {
        let args = (0..f.arity()).map(|_| x()).collect();
        k.body
            .push(put(ScalarType::F32, Expr::Math { func: *f, args }));
        n += 1;
    }
    assert_eq!(n, 18);
    let src = check(&k);
    assert!(src.contains("((f32)sin((f64)("), "{src}");
    assert!(src.contains("((f32)atan2((f64)("), "{src}");
    assert!(src.contains("logf("), "{src}");
}

#[test]
fn triad_and_mdrange_compile() {
    let mut kb = KernelBuilder::new("triad", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f64>("a", 1, Access::Writable);
    let b = kb.view::<f64>("b", 1, Access::ReadOnly);
    let s = kb.scalar::<f64>("s");
    kb.store(a, i.clone(), b.load(i.clone()) * s.get() + 1.5);
    let src = check(&kb.finish().unwrap());
    assert!(src.contains("i < P.n; i += stride"), "{src}");

    let mut kb = KernelBuilder::new("md", WorkKind::MDRange(3));
    let (i, j, l) = (kb.work_index(0), kb.work_index(1), kb.work_index(2));
    let a = kb.view::<f32>("a", 3, Access::Writable);
    kb.store(a, vec![i, j, l], 2.0f32);
    let src = check(&kb.finish().unwrap());
    assert!(src.contains("tile < P.ntiles"), "{src}");
}

#[test]
fn atomics_on_every_type_compile() {
    let mut k = per_type("atomics", true);
    for v in &mut k.views {
        v.used_atomically = true;
    }
    for t in NUM.into_iter().filter(|t| !narrow(*t)) {
        for op in AtomicOp::ALL {
            if !op.supports(t) || op == AtomicOp::Store {
                continue;
            }
            for result in [AtomicResult::Old, AtomicResult::New] {
                if result == AtomicResult::New && !op.has_new_value() {
                    continue;
                }
                let a = AtomicAccess {
                    op,
                    view: ViewRef::Param(ViewId(at(t))),
                    index: vec![Expr::WorkIndex(0)],
                    args: (0..op.arg_count())
                        .map(|_| Expr::Param(ScalarParamId(at(t))))
                        .collect(),
                    result,
                };
                k.body.push(Stmt::Atomic(a));
            }
        }
    }
    let src = check(&k);
    // The operations CUDA has no instruction for are compare-and-swap loops; the `_new` helpers
    // return the value stored; an integer div / mod by zero records its failure.
    let helper = |name: &str| {
        // inc_mod / dec_mod on the u32 View, the others on the i32 one.
        let t = if name.contains("_mod") {
            ScalarType::U32
        } else {
            ScalarType::I32
        };
        let head = format!("rk_at{}_{name}(", at(t));
        let start = src
            .find(&head)
            .unwrap_or_else(|| panic!("no helper `{head}`:\n{src}"));
        let len = src[start..].find("\n}\n").expect("the helper's end");
        src[start..start + len].to_string()
    };
    for op in [
        "mul", "div", "mod", "nand", "lshift", "rshift", "inc_mod", "dec_mod",
    ] {
        assert!(helper(op).contains("atomicCAS"), "{op}: {}", helper(op));
        assert!(helper(op).contains("return old;"), "{op}: {}", helper(op));
        let new = helper(&format!("{op}_new"));
        assert!(
            new.contains("return nw;") && !new.contains("return old;"),
            "{new}"
        );
    }
    let code = rokkos_device::emit::codes::failure(rokkos_core::ir::Failure::DivByZero);
    assert!(
        helper("div").contains(&format!("if (x == (i32)0) {{ rk_fail(P, {code}u)")),
        "{}",
        helper("div")
    );
    assert!(
        helper("inc").contains("const i32 x = (i32)1;"),
        "{}",
        helper("inc")
    );
    assert!(
        helper("add_new").contains("atomicAdd"),
        "{}",
        helper("add_new")
    );
    // f32 add is a compare-and-swap loop (PTX's atom.add.f32 flushes subnormals), f64 add native.
    assert!(
        src.contains("rk_at4_add") && src.contains("atomicCAS((unsigned int*)q"),
        "{src}"
    );
    assert!(src.contains("return atomicAdd(p, x);"), "{src}");
}

fn narrow(t: ScalarType) -> bool {
    t.is_narrow_int()
}

/// Atomics on u8 / u16 / i8 / i16 Views, every operation each supports (the store too), in both
/// index variants: each
/// View helper checks its indices and calls the type's word-wide helper, declared ahead of the
/// definitions; NVRTC compiles the module for sm_90 and sm_80 and ptxas assembles it (where they
/// are installed; `ROKKOS_REQUIRE_NVRTC=1` makes their absence a failure).
#[test]
fn atomics_on_narrow_views_compile() {
    let mut k = per_type("narrow_atomic", true);
    // Only the narrow Views and scalars (first in `NUM`): a u64 View refuses the 32-bit plan.
    k.views.truncate(4);
    k.scalars.truncate(4);
    for t in NUM.into_iter().filter(|t| narrow(*t)) {
        k.views[at(t) as usize].used_atomically = true;
        for op in AtomicOp::ALL.into_iter().filter(|op| op.supports(t)) {
            for result in [AtomicResult::Old, AtomicResult::New] {
                if result == AtomicResult::New && !op.has_new_value() {
                    continue;
                }
                k.body.push(Stmt::Atomic(AtomicAccess {
                    op,
                    view: ViewRef::Param(ViewId(at(t))),
                    index: vec![Expr::WorkIndex(0)],
                    args: (0..op.arg_count())
                        .map(|_| Expr::Param(ScalarParamId(at(t))))
                        .collect(),
                    result,
                }));
            }
        }
    }
    let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
    for o in [opts(), w32()] {
        let src = emit(&k, &info, &o).expect("emits").source;
        for ty in NUM.into_iter().filter(|t| narrow(*t)) {
            let t = ty.name();
            let ops = || AtomicOp::ALL.into_iter().filter(|op| op.supports(ty));
            let news = ops()
                .filter(|op| op.has_new_value())
                .map(|op| format!("{}_new", op.name()));
            for op in ops().map(|op| op.name().to_string()).chain(news) {
                let f = format!("rk_nat_{t}_{op}");
                let head = format!("{f}({t}* p");
                let line = |end: char| {
                    src.lines()
                        .position(|l| l.contains(&head) && l.ends_with(end))
                        .unwrap_or_else(|| panic!("no `{head}` ending in {end}:\n{src}"))
                };
                let (decl, _def) = (line(';'), line('{'));
                let caller = src
                    .lines()
                    .position(|l| l.contains("rk_at0_") && l.ends_with('{'))
                    .expect("a View helper");
                assert!(decl < caller, "{src}");
                assert!(src.contains(&format!("{f}(p")), "{src}");
            }
        }
        // The word holding the element, and the compare-and-swap on it.
        assert!(src.contains("(unsigned int*)((u64)p & ~3ull)"), "{src}");
        assert!(
            src.contains("atomicCAS(w, ob, (ob & ~(0xffu << sh))"),
            "{src}"
        );
        assert!(
            src.contains("atomicCAS(w, ob, (ob & ~(0xffffu << sh))"),
            "{src}"
        );
        // The signed types' operands enter the word as their bits, compare sign-extended.
        assert!(src.contains("atomicOr(w, (u32)(u8)x << sh)"), "{src}");
        assert!(
            src.contains("((i32)x < (i32)(i16)old ? (u32)(u16)x : old)"),
            "{src}"
        );
        assert!(!src.contains("rk_nat_i8_inc_mod"), "{src}");
        compile_all_archs(&src, &k.name);
    }
}

/// Compiles `src` with NVRTC for every checked architecture and assembles it with ptxas, where
/// they are installed; with `ROKKOS_REQUIRE_NVRTC=1` their absence fails.
fn compile_all_archs(src: &str, name: &str) {
    let required = std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1");
    if let Err(e) = crate::compile::nvrtc_version() {
        assert!(!required, "ROKKOS_REQUIRE_NVRTC=1 but {e}");
        return;
    }
    let ptxas = crate::ptxas::find();
    if let Err(e) = &ptxas {
        assert!(!required, "ROKKOS_REQUIRE_NVRTC=1 but {e}");
    }
    for arch in crate::check::ARCHS {
        let ptx = crate::compile::compile_ptx(src, name, arch).unwrap_or_else(|e| panic!("{e}"));
        if let Ok(p) = &ptxas {
            crate::ptxas::assemble(p, &ptx, name, arch).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

fn team_kernel(body: Vec<Stmt>) -> Kernel {
    Kernel {
        name: "team".into(),
        work: WorkKind::Team,
        body,
        ..per_type("team", true)
    }
}

/// A team kernel is emitted for its team shape only, with the block the launcher must use, and
/// a team that no CUDA block holds is refused (counted as not emitted, never compiled wrong).
#[test]
fn team_kernels_take_their_shape_and_fit_a_block() {
    let k = team_kernel(vec![Stmt::Barrier]);
    let info = rokkos_core::ir::valid::validate(&k).expect("valid kernel");
    assert!(matches!(
        emit(&k, &info, &opts()),
        Err(EmitError::Mismatch(_))
    ));
    let o = CudaOptions {
        team: Some(TeamShape { team: 8, vlen: 4 }),
        ..opts()
    };
    let e = emit(&k, &info, &o).expect("emits");
    let t = e.team.expect("team launch data");
    assert_eq!(t.block, (4, 8));
    assert!(!t.level0 && !t.level1);
    assert!(e.source.contains("__launch_bounds__(32)"), "{}", e.source);
    if crate::compile::nvrtc_version().is_ok() {
        crate::compile::compile_ptx(&e.source, &k.name, crate::compile::Arch::SM_90)
            .unwrap_or_else(|err| panic!("{err}"));
    }
    let big = CudaOptions {
        team: Some(TeamShape { team: 512, vlen: 4 }),
        ..opts()
    };
    assert!(matches!(
        emit(&k, &info, &big),
        Err(EmitError::Unsupported(_))
    ));
}

/// The sizes a team launch derives from its pools: 8-byte multiples, `None` on overflow.
#[test]
fn team_launch_sizes_round_to_eight_bytes() {
    assert_eq!(TeamLaunch::dynamic_shared_bytes(3, 5, 2), Some(16));
    assert_eq!(TeamLaunch::dynamic_shared_bytes(0, 0, 7), Some(0));
    assert_eq!(TeamLaunch::dynamic_shared_bytes(0, u64::MAX, 2), None);
    assert_eq!(TeamLaunch::dynamic_shared_bytes(1 << 32, 0, 1), None);
    assert_eq!(TeamLaunch::level1_slot_bytes(8, 4, 3), Some(24));
    assert_eq!(TeamLaunch::level1_slot_bytes(u64::MAX, 0, 1), None);
}

/// Emits `k` with `opts` and, where NVRTC is installed, compiles it for sm_90.
fn check_with(k: &Kernel, opts: &CudaOptions) -> String {
    let info = rokkos_core::ir::valid::validate(k).expect("valid kernel");
    let e = emit(k, &info, opts).expect("emits");
    if crate::compile::nvrtc_version().is_ok() {
        if let Err(err) =
            crate::compile::compile_ptx(&e.source, &k.name, crate::compile::Arch::SM_90)
        {
            panic!("{err}");
        }
    }
    e.source
}

fn w32() -> CudaOptions {
    CudaOptions {
        width: IndexWidth::W32,
        ..opts()
    }
}

/// A triad whose `usize` scalar `n` bounds a loop of `usize` counters: everything the width plan
/// narrows (work index, View index arithmetic, a `usize` scalar, a loop counter).
fn narrow_triad() -> Kernel {
    let mut kb = KernelBuilder::new("triad32", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f32>("a", 1, Access::Writable);
    let b = kb.view::<f32>("b", 1, Access::ReadOnly);
    let c = kb.view::<f32>("c", 1, Access::ReadOnly);
    let n = kb.scalar::<usize>("n");
    let acc = kb.let_::<f32>("acc", 0.0f32);
    let j = kb.for_range::<usize>("j", 0usize, n.get());
    kb.assign(acc, acc.get() + c.load(j.get()));
    kb.end();
    kb.store(a, i.clone(), b.load(i) + acc.get());
    kb.finish().unwrap()
}

/// The 32-bit variant spells every index as `u32`: the parameter block's offsets, extents,
/// strides, `usize` scalars and range bounds, the work index, the accessors' indices and the
/// loop counter; the 64-bit variant of the same kernel keeps them `u64`. Both compile.
#[test]
fn the_32_bit_variant_spells_indices_as_u32() {
    let k = narrow_triad();
    assert!(rokkos_device::emit::width::plan(&k).index32.is_ok());
    let src = check_with(&k, &w32());
    for want in [
        "    u32 v0_off;\n",
        "    u32 v2_e0;\n",
        "    u32 v2_s0;\n",
        "    u32 s0;\n",
        "    u32 begin;\n",
        "    u32 n;\n",
        "const u32 w0",
        "rk_ld2(const rk_P& P, u32 i0)",
        "for (u32 i = g0 < P.n ? (u32)g0 : P.n; i < P.n; i += stride)",
    ] {
        assert!(src.contains(want), "no `{want}` in\n{src}");
    }
    // No 64-bit value is left in the body: its locals, counters and indices are all `u32`.
    let body = &src[src.find("void rk_work(").unwrap()..src.find("extern \"C\"").unwrap()];
    assert!(!body.contains("u64"), "{body}");
    let wide = check_with(&k, &opts());
    for want in [
        "    u64 v0_off;\n",
        "    u64 s0;\n",
        "const u64 w0",
        "u64 i0)",
    ] {
        assert!(wide.contains(want), "no `{want}` in\n{wide}");
    }
}

/// MDRange and range reductions have 32-bit variants too (tile arithmetic in `u32`), and they
/// compile.
#[test]
fn mdrange_and_reductions_have_32_bit_variants() {
    let mut kb = KernelBuilder::new("stencil32", WorkKind::MDRange(2));
    let (i, j) = (kb.work_index(0), kb.work_index(1));
    let a = kb.view::<f32>("a", 2, Access::Writable);
    let b = kb.view::<f32>("b", 2, Access::ReadOnly);
    let up = b.load(vec![i.clone() + 1usize, j.clone()]);
    let right = b.load(vec![i.clone(), j.clone() + 1usize]);
    kb.store(a, vec![i, j], up + right);
    let src = check_with(&kb.finish().unwrap(), &w32());
    assert!(
        src.contains("for (u32 tile = blockIdx.x; tile < P.ntiles"),
        "{src}"
    );
    assert!(src.contains("const u32 x1 = c1 * P.t1 + q % P.t1"), "{src}");
    assert!(src.contains("    u32 ntiles;\n"), "{src}");

    let mut kb = KernelBuilder::new("dot32", WorkKind::Range);
    let i = kb.work_index(0);
    let x = kb.view::<f64>("x", 1, Access::ReadOnly);
    let acc = kb.acc::<f64>("sum");
    kb.acc_set(acc, acc.get() + x.load(i));
    let reduce = CudaOptions {
        entry: Entry::Reduce,
        joins: vec![rokkos_core::reducer::JoinKind::Op(ReducerKind::Sum)],
        ..w32()
    };
    let src = check_with(&kb.finish().unwrap(), &reduce);
    assert!(src.contains("const u32 w0"), "{src}");
    // The partials' count stays 64-bit: only the second pass reads it.
    assert!(src.contains("    u64 nparts;\n"), "{src}");
}

/// Asking for the 32-bit variant of a kernel its width plan refuses (here a View of `usize`
/// elements, whose values are not indices the analysis bounds, in a range and in a team
/// kernel) is a mismatch, not a kernel that computes something else.
#[test]
fn the_32_bit_variant_of_a_kernel_outside_the_plan_is_refused() {
    let mut kb = KernelBuilder::new("wide", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<usize>("a", 1, Access::Writable);
    kb.store(a, i.clone(), i);
    let k = kb.finish().unwrap();
    let info = rokkos_core::ir::valid::validate(&k).unwrap();
    match emit(&k, &info, &w32()) {
        Err(EmitError::Mismatch(m)) => assert!(m.contains("usize elements"), "{m}"),
        other => panic!("{:?}", other.map(|s| s.source)),
    }
    assert!(emit(&k, &info, &opts()).is_ok());
    let k = team_kernel(vec![]);
    let info = rokkos_core::ir::valid::validate(&k).unwrap();
    let team = CudaOptions {
        team: Some(TeamShape { team: 4, vlen: 2 }),
        ..w32()
    };
    assert!(matches!(
        emit(&k, &info, &team),
        Err(EmitError::Mismatch(_))
    ));
}

/// The two device bounds-check settings (`rokkos_device::runtime::bounds`): with the proven checks
/// dropped (the launcher proved the range inside every rank-1 View, `in_bounds`) the
/// triad's accesses at the bare work index index the View directly; with every check kept, each
/// access goes through its checked accessor. Accesses the launcher did not prove (here `b[i + 1]`)
/// are checked in both, and so they are in the 32-bit variant.
#[test]
fn proven_checks_are_dropped_only_where_the_setting_allows() {
    let mut kb = KernelBuilder::new("shifted", WorkKind::Range);
    let i = kb.work_index(0);
    let a = kb.view::<f32>("a", 1, Access::Writable);
    let b = kb.view::<f32>("b", 1, Access::ReadOnly);
    kb.store(a, i.clone(), b.load(i.clone()) + b.load(i + 1usize));
    let k = kb.finish().unwrap();
    // A launch over 0..64 with both Views of extent 64 proves `a[i]` and `b[i]`, not `b[i + 1]`.
    let info = rokkos_device::runtime::prepare::DeviceInfo::validate(&k).unwrap();
    let proven =
        rokkos_device::emit::inbounds::Proven::prove(&info.shifted, &[(0, 64)], &[&[64], &[64]]);
    for width in [IndexWidth::W64, IndexWidth::W32] {
        let dropped = check_with(
            &k,
            &CudaOptions {
                in_bounds: proven.clone(),
                width,
                ..opts()
            },
        );
        let body = &dropped[dropped.find("void rk_work(").unwrap()..];
        assert!(body.contains("P.v0[P.v0_off + w0 * P.v0_s0] = "), "{body}");
        assert!(body.contains("P.v1[P.v1_off + w0 * P.v1_s0]"), "{body}");
        assert!(body.contains("rk_ld1(P, "), "b[i + 1] is checked: {body}");
        assert!(dropped.contains("if (i0 >= P.v1_e0)"), "{dropped}");
        let all = check_with(&k, &CudaOptions { width, ..opts() });
        let body = &all[all.find("void rk_work(").unwrap()..];
        assert!(!body.contains("P.v0["), "{body}");
        assert!(body.contains("rk_st0(P, w0, "), "{body}");
        assert!(all.contains("if (i0 >= P.v0_e0)"), "{all}");
    }
}

/// The 2-D five-point stencil over the interior `[1, n-1)²` of `n × n` Views: every access is
/// proven and indexes its View directly; over `[0, n)` in dimension 0 (the policy reaches the
/// edge) `u[(i-1, j)]` and `u[(i+1, j)]` go through the checked accessor, the rest stay direct.
/// Each index variant the kernel has, compiled by NVRTC where it is installed.
#[test]
fn stencil_checks_go_exactly_where_the_launch_proves_them() {
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
    let k = kb.finish().unwrap();
    let info = rokkos_device::runtime::prepare::DeviceInfo::validate(&k).unwrap();
    let ext: &[usize] = &[34, 34];
    let prove = |b| rokkos_device::emit::inbounds::Proven::prove(&info.shifted, b, &[ext, ext]);
    let (interior, edge) = (prove(&[(1, 33), (1, 33)]), prove(&[(0, 34), (1, 33)]));
    // `i - 1` keeps the kernel out of the 32-bit variant (its width plan's decision).
    let exact32 = rokkos_device::emit::width::plan(&k).index32.is_ok();
    let widths = [IndexWidth::W64, IndexWidth::W32];
    for width in widths.into_iter().filter(|&w| exact32 || w == widths[0]) {
        let body = |in_bounds: &rokkos_device::emit::inbounds::Proven| {
            let opts = CudaOptions {
                in_bounds: in_bounds.clone(),
                width,
                ..opts()
            };
            let src = check_with(&k, &opts);
            src[src.find("void rk_work(").unwrap()..].to_string()
        };
        let b = body(&interior);
        assert!(!b.contains("rk_ld") && !b.contains("rk_st"), "{b}");
        assert_eq!(b.matches("P.v1[").count(), 5, "{b}");
        assert!(
            b.contains("P.v0[P.v0_off + w0 * P.v0_s0 + w1 * P.v0_s1] = "),
            "{b}"
        );
        let b = body(&edge);
        assert_eq!(b.matches("rk_ld1(P, ").count(), 2, "{b}");
        assert_eq!(b.matches("P.v1[").count(), 3, "{b}");
        let b = body(&Default::default());
        assert_eq!(b.matches("rk_ld1(P, ").count(), 5, "{b}");
        assert!(b.contains("rk_st0(P, "), "{b}");
    }
}

/// A team kernel whose `usize` values the width proof bounds, with every team construct:
/// nested ranges of each kind over an extent, team and thread scratch at both levels, nested
/// reductions and scans (vector ones through warp shuffles), singles and a `usize` broadcast.
fn team32() -> Kernel {
    use rokkos_core::ir::build::Expr as BE;
    use rokkos_core::ir::{NestedKind, ReducerKind, ScratchScope, SingleKind, TeamQuery};
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
    for kind in [
        NestedKind::Thread,
        NestedKind::Vector,
        NestedKind::TeamVector,
    ] {
        let j = k.nested_for(kind, "j", BE::lit(0usize), m.get());
        k.store(s0, j.get(), a.load((lr.clone(), j.get())));
        k.end();
    }
    k.store(s1, (tr.clone(), BE::lit(1usize)), BE::lit(7u32));
    k.barrier();
    for kind in [
        NestedKind::Thread,
        NestedKind::Vector,
        NestedKind::TeamVector,
    ] {
        let v = k.nested_reduce::<f32>(kind, "r", BE::lit(0usize), m.get(), ReducerKind::Max);
        k.assign(v.acc, v.acc.get().max(s0.load(v.index.get())));
        k.end();
        k.store(out, lr.clone(), v.result.get().cast::<u32>());
        let v = k.nested_scan::<u32>(kind, "s", BE::lit(0usize), m.get());
        k.assign(v.partial, v.partial.get() + v.index.get().cast::<u32>());
        k.end();
        k.store(out, BE::lit(1usize), v.total.get());
    }
    let w = k.single_with::<u32>(SingleKind::Team, "w");
    k.assign(w, s1.load((tr.clone(), BE::lit(1usize))));
    k.end();
    let row = k.broadcast::<usize>("row", tr * BE::lit(2usize), BE::lit(0usize));
    k.single(SingleKind::Thread);
    k.store(out, row.get(), w.get());
    k.end();
    k.finish().unwrap()
}

/// The 32-bit team variant: the parameter block's league and pool fields, the team queries,
/// the nested ranges' counters, the scratch pools, counts and extents are `u32`, and no `u64`
/// local or temporary is declared in the body; the 64-bit variant keeps them `u64`. Both
/// compile (where NVRTC is installed).
#[test]
fn the_32_bit_team_variant_spells_indices_as_u32() {
    let k = team32();
    assert_eq!(rokkos_device::emit::width::plan(&k).index32, Ok(()));
    let team = |width| CudaOptions {
        team: Some(TeamShape { team: 4, vlen: 8 }),
        width,
        ..opts()
    };
    let src = check_with(&k, &team(IndexWidth::W32));
    for want in [
        "    u32 league;\n",
        "    u32 tq1;\n",
        "const u32 t_lr",
        "const u32 t_tr = threadIdx.y; const u32 t_ts = 4u;",
        "for (u32 lr = rk_late ? P.league : blockIdx.x; lr < P.league; lr += gridDim.x)",
        "u32 e[R > 0 ? R : 1]",
    ] {
        assert!(src.contains(want), "no `{want}` in\n{src}");
    }
    let body = &src[src.find("void rk_work(").unwrap()..src.find("extern \"C\"").unwrap()];
    for wide in ["u64 ", "0ull;", "1ull;"] {
        assert!(!body.contains(wide), "`{wide}` in\n{body}");
    }
    let src = check_with(&k, &team(IndexWidth::W64));
    for want in [
        "    u64 league;\n",
        "const u64 t_lr",
        "u64 e[R > 0 ? R : 1]",
    ] {
        assert!(src.contains(want), "no `{want}` in\n{src}");
    }
}

/// The ordered-partials entry (a reducer whose join is host code): thread `t` folds block `t`
/// of `rokkos_device::runtime::ordered::block_bounds` and stores partial `t`, with no device join
/// (no block join, no second pass); an MDRange walks whole tiles, its digits fastest dimension
/// first and its loops slowest dimension outermost, in the policy's order; a team kernel runs a
/// contiguous league block per block and stores a partial per thread. Every variant compiles for
/// every architecture.
#[test]
fn ordered_entries_fold_contiguous_blocks_without_a_device_join() {
    let mut kb = KernelBuilder::new("first_any", WorkKind::Range);
    let i = kb.work_index(0);
    let x = kb.view::<i64>("x", 1, Access::ReadOnly);
    let first = kb.acc::<i64>("first");
    let any = kb.acc::<bool>("any");
    kb.acc_set(first, x.load(i.clone()));
    kb.acc_set(any, x.load(i).gt(0i64));
    let k = kb.finish().unwrap();
    for width in [IndexWidth::W64, IndexWidth::W32] {
        let o = CudaOptions {
            entry: Entry::Ordered { left: false },
            width,
            ..opts()
        };
        let src = check_with(&k, &o);
        for want in [
            "if (t >= P.nparts) { return; }",
            "const u64 n = P.n, base = n / P.nparts, rem = n % P.nparts;",
            "const u64 lo = t * base + (t < rem ? t : rem);",
            "const u64 hi = lo + base + (t < rem ? 1u : 0u);",
            "    P.out0[t] = a0;\n",
            "    P.out1[t] = (u32)(a1);\n",
        ] {
            assert!(src.contains(want), "no `{want}` in\n{src}");
        }
        let call = if width == IndexWidth::W32 {
            "rk_work(P, (u32)(P.begin + i), a0, a1);"
        } else {
            "rk_work(P, P.begin + i, a0, a1);"
        };
        assert!(src.contains(call), "no `{call}` in\n{src}");
        assert!(!src.contains(reduce::FINAL), "{src}");
        assert!(!src.contains("rk_block_join"), "{src}");
        compile_all_archs(&src, "first_any");
    }

    let mut kb = KernelBuilder::new("last3", WorkKind::MDRange(3));
    let (i, j, l) = (kb.work_index(0), kb.work_index(1), kb.work_index(2));
    let a = kb.view::<u32>("a", 3, Access::ReadOnly);
    let last = kb.acc::<u32>("last");
    kb.acc_set(last, a.load(vec![i, j, l]));
    let k = kb.finish().unwrap();
    for left in [false, true] {
        let o = CudaOptions {
            entry: Entry::Ordered { left },
            ..opts()
        };
        let src = check_with(&k, &o);
        let (fast, slow) = if left { (0, 2) } else { (2, 0) };
        let digit = |d: u32| src.find(&format!("const u64 c{d} = rest % P.nt{d};"));
        let lp = |d: u32| src.find(&format!("for (u64 x{d} = lo{d}; x{d} < hi{d}; ++x{d})"));
        assert!(digit(fast).unwrap() < digit(1).unwrap(), "{src}");
        assert!(digit(1).unwrap() < digit(slow).unwrap(), "{src}");
        assert!(lp(slow).unwrap() < lp(1).unwrap(), "{src}");
        assert!(lp(1).unwrap() < lp(fast).unwrap(), "{src}");
        assert!(src.contains("const u64 n = P.ntiles,"), "{src}");
        assert!(
            src.contains("rk_work(P, P.b0 + x0, P.b1 + x1, P.b2 + x2, a0);"),
            "{src}"
        );
        compile_all_archs(&src, "last3");
    }

    // A team kernel: a league block per block, one partial per invocation, no second pass. Its
    // contribution runs at thread level, which every lane would repeat, so its lanes are
    // virtual (`lanes_independent`): one invocation per thread, 4 per team.
    let mut kb = KernelBuilder::new("team_count", WorkKind::Team);
    let n = kb.acc::<i32>("n");
    kb.acc_set(n, n.get() + 1i32);
    let k = kb.finish().unwrap();
    for width in [IndexWidth::W64, IndexWidth::W32] {
        let o = CudaOptions {
            entry: Entry::Ordered { left: false },
            team: Some(TeamShape { team: 4, vlen: 2 }),
            width,
            ..opts()
        };
        let src = check_with(&k, &o);
        for want in [
            "const u64 nb = P.nparts / 4u, g = blockIdx.x;",
            "if (g >= nb) { return; }",
            "const u64 n = P.league, base = n / nb, rem = n % nb;",
            "const u64 lo = g * base + (g < rem ? g : rem);",
            "for (u64 l = lo; l < hi; ++l) {",
            "    P.out0[g * 4u + li] = a0;\n",
        ] {
            assert!(src.contains(want), "no `{want}` in\n{src}");
        }
        assert!(!src.contains(reduce::FINAL), "{src}");
        assert!(!src.contains("__shared__ i32 sh0"), "{src}");
        compile_all_archs(&src, "team_count");
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

/// The kernel-wide proof refuses `i * n + j` and a launch of 1000 rows of 1000 proves it; the
/// 32-bit variant that launch runs multiplies in 32 bits: no `u64` in its body, and in the PTX
/// no 64-bit multiply, where the 64-bit variant has one.
#[test]
fn a_launch_proven_flat_index_multiplies_in_32_bits() {
    use rokkos_device::emit::width::{launch_proof, plan, LaunchAtoms, Work};
    let k = flat_rows();
    let p = plan(&k);
    assert!(p.index32.is_err() && p.may_run_32());
    let atoms = LaunchAtoms {
        work: Work::range(0, 1000),
        extents: vec![vec![1_000_000]],
        scalars: vec![Some(1000)],
    };
    assert_eq!(launch_proof(&k, &atoms), Ok(()));
    let src = check_with(&k, &w32());
    let body = &src[src.find("void rk_work(").unwrap()..src.find("extern \"C\"").unwrap()];
    assert!(!body.contains("u64"), "{body}");
    let wide = check_with(&k, &opts());
    let required = std::env::var("ROKKOS_REQUIRE_NVRTC").as_deref() == Ok("1");
    if let Err(e) = crate::compile::nvrtc_version() {
        assert!(!required, "ROKKOS_REQUIRE_NVRTC=1 but {e}");
        return;
    }
    let ptx = |s: &str| {
        crate::compile::compile_ptx(s, &k.name, crate::compile::Arch::SM_90)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let mul64 = |p: &str| {
        p.lines()
            .find(|l| {
                let l = l.trim_start();
                l.starts_with("mul.lo.s64")
                    || l.starts_with("mul.lo.u64")
                    || l.starts_with("mad.lo.s64")
                    || l.starts_with("mad.lo.u64")
            })
            .map(str::to_string)
    };
    assert_eq!(mul64(&ptx(&src)), None);
    assert!(
        mul64(&ptx(&wide)).is_some(),
        "the 64-bit variant multiplies in 64 bits"
    );
}

/// A scan whose join is host code (the ordered scan's slow path): [`entry::ENTRY`] folds block
/// `t` with `final == false` into partial `t`, [`entry::ORDERED_REPLAY`] starts from partial `t`
/// (the prefix the host wrote there) and runs the body with `final == true`, storing nothing.
#[test]
fn ordered_scan_folds_then_replays_each_block() {
    let mut kb = KernelBuilder::new("prefix", WorkKind::Range);
    let i = kb.work_index(0);
    let partial = kb.scan_partial::<u64>("partial");
    let a = kb.view::<u32>("a", 1, Access::ReadOnly);
    let out = kb.view::<u64>("out", 1, Access::Writable);
    let x = kb.let_("x", a.load(i.clone()).cast::<u64>());
    let fin = kb.is_final();
    kb.if_(fin);
    kb.store(out, i, partial);
    kb.end();
    kb.acc_set(partial, partial.get() + x);
    let k = kb.finish().unwrap();
    let o = CudaOptions {
        entry: Entry::OrderedScan,
        ..opts()
    };
    let src = check_with(&k, &o);
    let replay = src
        .find(&format!("{}(const rk_P P)", entry::ORDERED_REPLAY))
        .expect("the replay entry");
    let (fold, rest) = src.split_at(replay);
    for want in [
        "rk_work(P, P.begin + i, a0, false);",
        "    P.out0[t] = a0;\n",
        "const u64 lo = t * base + (t < rem ? t : rem);",
    ] {
        assert!(fold.contains(want), "no `{want}` in\n{src}");
    }
    for want in [
        "    a0 = P.out0[t];\n",
        "rk_work(P, P.begin + i, a0, true);",
    ] {
        assert!(rest.contains(want), "no `{want}` in\n{src}");
    }
    assert!(!rest.contains("P.out0[t] = a0"), "{src}");
    assert!(!src.contains("rk_block_join"), "{src}");
    compile_all_archs(&src, "prefix");
    // Only a scan kernel takes the scan entries.
    let mut kb = KernelBuilder::new("not_scan", WorkKind::Range);
    let n = kb.acc::<i32>("n");
    kb.acc_set(n, n.get() + 1i32);
    let k = kb.finish().unwrap();
    let info = rokkos_core::ir::valid::validate(&k).unwrap();
    assert!(matches!(emit(&k, &info, &o), Err(EmitError::Mismatch(_))));
}
