//! Atomics in CUDA C (`ir::ops::atomic`), relaxed, on every element type: CUDA's own atomic
//! instructions where they compute exactly what the IR does (integer add/sub wrapping, min, max,
//! and, or, xor, exchange and compare-exchange on the bits, f64 add), compare-and-swap loops on the
//! bits otherwise (f32 add, which PTX's `atom.add.f32` would flush to zero on subnormals; float
//! sub, min, max, and every operation CUDA has no instruction for: mul, div, mod, nand, the
//! shifts, inc_mod, dec_mod). Float min/max replace only when the operand compares less/greater,
//! so a NaN operand never replaces, as in the other backends. u8, u16, i8 and i16 elements,
//! narrower than every CUDA atomic, go through the aligned 32-bit word holding them
//! ([`narrow_body`]).
//!
//! The semantics are `rokkos_core::ir::ops::atomic`'s: integers wrap (arithmetic in the unsigned
//! type), shift amounts are masked to the width, an integer div / mod by zero records the
//! failure and leaves the element as it is, `MIN / -1` wraps. An access yielding the new value
//! ([`AtomicResult::New`]) has its own helper (`.._new`), which returns what it stored.

use super::target::{checked_element, cty};
use super::{ops, Helpers};
use rokkos_core::ir::{AtomicOp, AtomicResult, Kernel, ScalarType, Value};

/// The unsigned type of `t`'s bits and the conversions to and from it (templates: `$` is the
/// operand).
fn bits(t: ScalarType) -> (&'static str, String, String) {
    match t {
        ScalarType::F32 => (
            "u32",
            "__float_as_uint($)".into(),
            "__uint_as_float($)".into(),
        ),
        ScalarType::F64 => (
            "u64",
            "(u64)__double_as_longlong($)".into(),
            "__longlong_as_double((long long)$)".into(),
        ),
        ScalarType::I32 | ScalarType::U32 => ("u32", "(u32)$".into(), format!("({})$", cty(t))),
        _ => ("u64", "(u64)$".into(), format!("({})$", cty(t))),
    }
}

/// CUDA's pointer type for the native instruction on `t` (`int*`, `unsigned*`, `long long*`,
/// `unsigned long long*`).
fn native(t: ScalarType) -> &'static str {
    match t {
        ScalarType::I32 => "int",
        ScalarType::U32 => "unsigned int",
        ScalarType::I64 => "long long",
        _ => "unsigned long long",
    }
}

/// A compare-and-swap loop replacing `*p` by `new` (an expression of `old` and `x`), returning
/// the old value (`ret` "old") or the new one ("nw").
fn cas_loop(t: ScalarType, new: &str, ret: &str) -> String {
    let (u, to, from) = bits(t);
    let tn = cty(t);
    let to_b = |e: &str| to.replace('$', &format!("({e})"));
    let from_b = |e: &str| from.replace('$', &format!("({e})"));
    format!(
        "    {u}* q = ({u}*)p;\n    {u} ob = *(volatile {u}*)q;\n    for (;;) {{\n        const {tn} old = {};\n        const {tn} nw = {new};\n        const {u} nb = {};\n        if (nb == ob) {{ return {ret}; }}\n        const {u} r = atomicCAS(({}*)q, ({})ob, ({})nb);\n        if (r == ob) {{ return {ret}; }}\n        ob = r;\n    }}\n",
        from_b("ob"),
        to_b("nw"),
        native_u(u),
        native_u(u),
        native_u(u)
    )
}

fn native_u(u: &str) -> &'static str {
    if u == "u32" {
        "unsigned int"
    } else {
        "unsigned long long"
    }
}

/// The value read-modify-write `op` stores over `old` (of type `t`, 32 or 64 bits) with operand
/// `x`, as a C expression; `Inc` / `Dec` see `x` defined as 1. An integer div / mod reaches it
/// only with `x != 0` ([`helper`] checks first).
fn stored(op: AtomicOp, t: ScalarType) -> String {
    use AtomicOp as A;
    let tn = cty(t);
    let (u, _, _) = bits(t);
    let wrap = |sym: &str| format!("(({tn})(({u})old {sym} ({u})x))");
    let amount = format!("((u32)x & {}u)", t.bits() - 1);
    if t.is_float() {
        return match op {
            A::Add | A::Inc => "old + x".into(),
            A::Sub | A::Dec => "old - x".into(),
            A::Mul => "old * x".into(),
            A::Div => "old / x".into(),
            A::Min => "(x < old ? x : old)".into(),
            A::Max => "(x > old ? x : old)".into(),
            _ => "old".into(),
        };
    }
    let minus_one = format!("x == ({tn})-1");
    match op {
        A::Add | A::Inc => wrap("+"),
        A::Sub | A::Dec => wrap("-"),
        A::Mul => wrap("*"),
        A::Min => "(x < old ? x : old)".into(),
        A::Max => "(x > old ? x : old)".into(),
        A::And => format!("(({tn})(old & x))"),
        A::Or => format!("(({tn})(old | x))"),
        A::Xor => format!("(({tn})(old ^ x))"),
        A::Nand => format!("(({tn})~(old & x))"),
        A::Div if t.is_signed_int() => {
            format!("({minus_one} ? ({tn})(({u})0 - ({u})old) : ({tn})(old / x))")
        }
        A::Mod if t.is_signed_int() => format!("({minus_one} ? ({tn})0 : ({tn})(old % x))"),
        A::Div => format!("(({tn})(old / x))"),
        A::Mod => format!("(({tn})(old % x))"),
        A::Lshift => format!("(({tn})(({u})old << {amount}))"),
        A::Rshift => format!("(({tn})(old >> {amount}))"),
        A::IncMod => format!("(old >= x ? ({tn})0 : ({tn})(old + ({tn})1))"),
        A::DecMod => format!("((old == ({tn})0 || old > x) ? x : ({tn})(old - ({tn})1))"),
        A::Exchange | A::Store => "x".into(),
        A::CompareExchange | A::Load => "old".into(),
    }
}

/// The body of `op` on `*p` (of type `t`) with operands `x` (and `y`); `new`: return the value
/// stored rather than the old one.
fn body(op: AtomicOp, t: ScalarType, new: bool) -> String {
    use AtomicOp as A;
    let tn = cty(t);
    let (u, to, from) = bits(t);
    let to_b = |e: &str| to.replace('$', &format!("({e})"));
    let from_b = |e: &str| from.replace('$', &format!("({e})"));
    let nu = native_u(u);
    // `Inc` / `Dec` are `Add` / `Sub` of 1.
    let (op, one) = match op {
        A::Inc => (A::Add, format!("    const {tn} x = ({tn})1;\n")),
        A::Dec => (A::Sub, format!("    const {tn} x = ({tn})1;\n")),
        _ => (op, String::new()),
    };
    let ret = if new { "nw" } else { "old" };
    // A native instruction yielding the old value: returned, or the stored value computed from it.
    let native_ret = |old: String| {
        if new {
            format!(
                "{one}    const {tn} old = {old};\n    return {};\n",
                stored(op, t)
            )
        } else {
            format!("{one}    return {old};\n")
        }
    };
    match op {
        A::Load => format!("    return *(volatile {tn}*)p;\n"),
        A::Store => format!("    *(volatile {tn}*)p = x;\n"),
        A::Exchange => format!(
            "    return {};\n",
            from_b(&format!("atomicExch(({nu}*)p, ({nu}){})", to_b("x")))
        ),
        A::CompareExchange => format!(
            "    return {};\n",
            from_b(&format!(
                "atomicCAS(({nu}*)p, ({nu}){}, ({nu}){})",
                to_b("x"),
                to_b("y")
            ))
        ),
        A::Add if t == ScalarType::F64 => native_ret("atomicAdd(p, x)".into()),
        // Integers: two's complement, so i64 add/sub and the bitwise operations run on the
        // unsigned type's instruction; min/max need the signed one.
        A::Add | A::Sub | A::And | A::Or | A::Xor if !t.is_float() => {
            let x = if op == A::Sub {
                format!("(({u})0 - ({u})x)")
            } else {
                format!("({u})x")
            };
            let f = match op {
                A::Add | A::Sub => "atomicAdd",
                A::And => "atomicAnd",
                A::Or => "atomicOr",
                _ => "atomicXor",
            };
            native_ret(format!("({tn}){f}(({nu}*)p, ({nu}){x})"))
        }
        A::Min | A::Max if !t.is_float() => {
            let f = if op == A::Min {
                "atomicMin"
            } else {
                "atomicMax"
            };
            let n = native(t);
            native_ret(format!("({tn}){f}(({n}*)p, ({n})x)"))
        }
        // The rest (and every float read-modify-write but f64 add): a compare-and-swap loop.
        _ => format!("{one}{}", cas_loop(t, &stored(op, t), ret)),
    }
}

/// Whether `t` is narrower than CUDA's atomics (32 and 64 bits), so that its atomics go through
/// the enclosing word ([`narrow_helper`]).
fn is_narrow(t: ScalarType) -> bool {
    t.is_narrow_int()
}

/// The mask of a narrow type's bits within its word.
fn narrow_mask(t: ScalarType) -> &'static str {
    if t.bits() == 8 {
        "0xffu"
    } else {
        "0xffffu"
    }
}

/// The body of `op` on the narrow element at `p`, through the aligned 32-bit word holding it
/// (the way libcu++ implements `cuda::atomic_ref` on 8 and 16-bit types): every access, the load
/// and the store included, is on that word, so the element is never accessed in two sizes at
/// once. And, or and xor are CUDA's word instructions with the other elements' bits left as
/// they are (all ones for and, zeros for or and xor); the others are a compare-and-swap loop
/// that replaces only the element's bits, its new value computed in `u32` and masked, which is
/// Rust's wrapping arithmetic of the narrow type. CUDA is little-endian: the element at byte
/// `a & 3` of the word occupies bits `8 * (a & 3)` and up.
///
/// The element's value is its bits zero-extended (`old`), and so are the operands of i8 and i16
/// (`(u32)(u8)x`: C's `(u32)x` would sign-extend a negative one into the neighbours' bits).
/// Where the sign matters, i.e. min, max, div, mod and the arithmetic right shift, those two
/// compute on the values sign-extended to `i32` and keep the low bits of the result, which is
/// Rust's wrapping result (`MIN / -1` is `MIN` again, `MIN % -1` is 0).
fn narrow_body(op: AtomicOp, t: ScalarType, new: bool) -> String {
    use AtomicOp as A;
    let (tn, m) = (cty(t), narrow_mask(t));
    let head = "    unsigned int* w = (unsigned int*)((u64)p & ~3ull);\n    const u32 sh = (u32)(((u64)p & 3ull) * 8ull);\n";
    let old = format!("((ob >> sh) & {m})");
    let amount = format!("((u32)x & {}u)", t.bits() - 1);
    let signed = t.is_signed_int();
    // The operands' bits, zero-extended.
    let (xu, yu) = if signed {
        let u = if t.bits() == 8 { "u8" } else { "u16" };
        (format!("(u32)({u})x"), format!("(u32)({u})y"))
    } else {
        ("(u32)x".to_string(), "(u32)y".to_string())
    };
    // Signed values of the element and the operand, and a signed result's bits.
    let so = format!("(i32)({tn})old");
    let sx = "(i32)x";
    let bits_of = |e: String| format!("(u32)({e}) & {m}");
    let word_op = |f: &str, operand: &str, sym: &str| {
        let ret = if new {
            format!("(old {sym} {xu})")
        } else {
            "old".to_string()
        };
        format!("{head}    const u32 ob = {f}(w, {operand});\n    const u32 old = {old};\n    return ({tn}){ret};\n")
    };
    let nw = match op {
        A::Load => {
            return format!(
                "{head}    const u32 ob = *(volatile u32*)w;\n    return ({tn}){old};\n"
            )
        }
        A::Or => return word_op("atomicOr", &format!("{xu} << sh"), "|"),
        A::Xor => return word_op("atomicXor", &format!("{xu} << sh"), "^"),
        A::And => return word_op("atomicAnd", &format!("({xu} << sh) | ~({m} << sh)"), "&"),
        A::Add => format!("(old + {xu}) & {m}"),
        A::Sub => format!("(old - {xu}) & {m}"),
        A::Mul => format!("(old * {xu}) & {m}"),
        // Reached only with `x != 0` (the View helper checks first).
        A::Div if signed => bits_of(format!("{so} / {sx}")),
        A::Mod if signed => bits_of(format!("{so} % {sx}")),
        A::Div => "old / (u32)x".to_string(),
        A::Mod => "old % (u32)x".to_string(),
        A::Nand => format!("~(old & {xu}) & {m}"),
        A::Lshift => format!("(old << {amount}) & {m}"),
        // An `i32` `>>` is arithmetic in NVCC (and in the host compilers the test uses).
        A::Rshift if signed => bits_of(format!("{so} >> {amount}")),
        A::Rshift => format!("old >> {amount}"),
        A::Inc => format!("(old + 1u) & {m}"),
        A::Dec => format!("(old - 1u) & {m}"),
        A::IncMod => "(old >= (u32)x ? 0u : old + 1u)".to_string(),
        A::DecMod => "((old == 0u || old > (u32)x) ? (u32)x : old - 1u)".to_string(),
        A::Min if signed => format!("({sx} < {so} ? {xu} : old)"),
        A::Max if signed => format!("({sx} > {so} ? {xu} : old)"),
        A::Min => "((u32)x < old ? (u32)x : old)".to_string(),
        A::Max => "((u32)x > old ? (u32)x : old)".to_string(),
        A::Exchange | A::Store => xu.clone(),
        A::CompareExchange => format!("(old == {xu} ? {yu} : old)"),
    };
    let ret = match (op.yields_value(), new) {
        (false, _) => String::new(),
        (true, false) => format!(" ({tn})old"),
        (true, true) => format!(" ({tn})nw"),
    };
    format!(
        "{head}    u32 ob = *(volatile u32*)w;\n    for (;;) {{\n        const u32 old = {old};\n        const u32 nw = {nw};\n        if (nw == old) {{ return{ret}; }}\n        const u32 r = atomicCAS(w, ob, (ob & ~({m} << sh)) | (nw << sh));\n        if (r == ob) {{ return{ret}; }}\n        ob = r;\n    }}\n"
    )
}

/// The suffix of the helpers of an access yielding `result`.
fn suffix(result: AtomicResult) -> &'static str {
    match result {
        AtomicResult::Old => "",
        AtomicResult::New => "_new",
    }
}

/// The helper performing `op` on the narrow element at `p` (of type `t`), once per module for
/// every View of the type; returns its name. Its parameters: the element's address, then the
/// operands. Declared ahead of the definitions, as the View helpers that call it sort first.
fn narrow_helper(h: &mut Helpers, t: ScalarType, op: AtomicOp, result: AtomicResult) -> String {
    let tn = cty(t);
    let name = format!("rk_nat_{tn}_{}{}", op.name(), suffix(result));
    let mut params = vec![format!("{tn}* p")];
    for x in ["x", "y"].iter().take(op.arg_count()) {
        params.push(format!("{tn} {x}"));
    }
    let ret = if op.yields_value() { tn } else { "void" };
    let head = format!(
        "__device__ __forceinline__ {ret} {name}({})",
        params.join(", ")
    );
    h.declare(&name, format!("{head};"));
    let new = result == AtomicResult::New;
    h.add(&name, || {
        format!("{head} {{\n{}}}\n", narrow_body(op, t, new))
    })
}

/// Every atomic operation the IR has on the elements of narrow type `t` (u8, u16, i8, i16, each
/// operation the type [`AtomicOp::supports`]), as a kernel module defines them, standalone: the
/// scalar type names, the prototypes, then the helpers, each named `rk_nat_<t>_<op>` (and
/// `rk_nat_<t>_<op>_new`, returning the value stored, for the operations with
/// [`AtomicOp::has_new_value`]) and taking the element's address then the operands (as
/// [`AtomicOp::arg_count`]; a div / mod helper expects a non-zero operand). For checking them
/// without a GPU: compiled by a host C++ compiler with `__device__` and CUDA's `atomicCAS`,
/// `atomicAnd`, `atomicOr` and `atomicXor` defined for one thread. `None` for a type whose
/// atomics are not emitted this way.
pub fn narrow_atomic_library(t: ScalarType) -> Option<String> {
    if !is_narrow(t) {
        return None;
    }
    let mut h = Helpers::default();
    for op in AtomicOp::ALL.into_iter().filter(|op| op.supports(t)) {
        narrow_helper(&mut h, t, op, AtomicResult::Old);
        if op.has_new_value() {
            narrow_helper(&mut h, t, op, AtomicResult::New);
        }
    }
    Some(format!("{}{}", super::prelude::TYPES, h.set.render()))
}

/// The helper performing `op` on an element of View `k`, bounds-checked like every access,
/// yielding `result`; returns its name. Its parameters: the block, the indices, then the
/// operands. An integer div / mod by zero records the failure and returns 0 untouched.
pub(crate) fn helper(
    k: &Kernel,
    h: &mut Helpers,
    view: usize,
    op: AtomicOp,
    result: AtomicResult,
) -> String {
    let v = &k.views[view];
    let (rank, t) = (v.rank as usize, v.elem);
    let result = if op.has_new_value() {
        result
    } else {
        AtomicResult::Old
    };
    let name = format!("rk_at{view}_{}{}", op.name(), suffix(result));
    let (checks, it) = (h.bounds_checks, super::target::ix(h.narrow));
    let new = result == AtomicResult::New;
    let op_body = if is_narrow(t) {
        let f = narrow_helper(h, t, op, result);
        let args: String = ["x", "y"]
            .iter()
            .take(op.arg_count())
            .map(|a| format!(", {a}"))
            .collect();
        let ret = if op.yields_value() { "return " } else { "" };
        format!("    {ret}{f}(p{args});\n")
    } else {
        body(op, t, new)
    };
    let zero_check = match op.zero_operand_failure(t) {
        Some(f) => format!(
            "    if (x == ({})0) {{ {}; return {}; }}\n",
            cty(t),
            ops::fail(f),
            ops::lit(Value::zero(t))
        ),
        None => String::new(),
    };
    let op_body = format!("{zero_check}{op_body}");
    h.add(&name, || {
        let tn = cty(t);
        let mut params: Vec<String> = vec!["const rk_P& P".into()];
        params.extend((0..rank).map(|d| format!("{it} i{d}")));
        for x in ["x", "y"].iter().take(op.arg_count()) {
            params.push(format!("{tn} {x}"));
        }
        let ret = if op.yields_value() { tn } else { "void" };
        let fail = if op.yields_value() {
            format!(" {}", ops::lit(Value::zero(t)))
        } else {
            String::new()
        };
        let (check, at) = checked_element(view, rank, checks, &fail);
        format!(
            "__device__ __forceinline__ {ret} {name}({}) {{\n{check}    {tn}* p = &{at};\n{}}}\n",
            params.join(", "),
            op_body
        )
    })
}
