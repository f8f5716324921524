//! Atomics in CUDA C (`ir::ops::atomic`), relaxed, on every element type: CUDA's own atomic
//! instructions where they compute exactly what the IR does (integer add/sub wrapping, min, max,
//! and, or, xor, exchange and compare-exchange on the bits, f64 add), compare-and-swap loops on the
//! bits otherwise (f32 add, which PTX's `atom.add.f32` would flush to zero on subnormals; float
//! sub, min, max). Float min/max replace only when the operand compares less/greater, so a NaN
//! operand never replaces, as in the other backends.

use super::target::{checked_element, cty};
use super::{ops, Helpers};
use rokkos_core::ir::{AtomicOp, Kernel, ScalarType, Value};

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
/// the old value.
fn cas_loop(t: ScalarType, new: &str) -> String {
    let (u, to, from) = bits(t);
    let tn = cty(t);
    let to_b = |e: &str| to.replace('$', &format!("({e})"));
    let from_b = |e: &str| from.replace('$', &format!("({e})"));
    format!(
        "    {u}* q = ({u}*)p;\n    {u} ob = *(volatile {u}*)q;\n    for (;;) {{\n        const {tn} old = {};\n        const {tn} nw = {new};\n        const {u} nb = {};\n        if (nb == ob) {{ return old; }}\n        const {u} r = atomicCAS(({}*)q, ({})ob, ({})nb);\n        if (r == ob) {{ return old; }}\n        ob = r;\n    }}\n",
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

/// The body of `op` on `*p` (of type `t`) with operands `x` (and `y`).
fn body(op: AtomicOp, t: ScalarType) -> String {
    use AtomicOp as A;
    let tn = cty(t);
    let (u, to, from) = bits(t);
    let to_b = |e: &str| to.replace('$', &format!("({e})"));
    let from_b = |e: &str| from.replace('$', &format!("({e})"));
    let nu = native_u(u);
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
        A::Add if t == ScalarType::F64 => "    return atomicAdd(p, x);\n".into(),
        A::Add if t.is_float() => cas_loop(t, "old + x"),
        A::Sub if t.is_float() => cas_loop(t, "old - x"),
        A::Min if t.is_float() => cas_loop(t, "(x < old ? x : old)"),
        A::Max if t.is_float() => cas_loop(t, "(x > old ? x : old)"),
        // Integers: two's complement, so i64 add/sub and the bitwise operations run on the
        // unsigned type's instruction; min/max need the signed one.
        A::Add | A::Sub | A::And | A::Or | A::Xor => {
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
            format!("    return ({tn}){f}(({nu}*)p, ({nu}){x});\n")
        }
        A::Min | A::Max => {
            let f = if op == A::Min {
                "atomicMin"
            } else {
                "atomicMax"
            };
            let n = native(t);
            format!("    return ({tn}){f}(({n}*)p, ({n})x);\n")
        }
    }
}

/// The helper performing `op` on an element of View `k`, bounds-checked like every access;
/// returns its name. Its parameters: the block, the indices, then the operands.
pub(crate) fn helper(k: &Kernel, h: &mut Helpers, view: usize, op: AtomicOp) -> String {
    let v = &k.views[view];
    let (rank, t) = (v.rank as usize, v.elem);
    let name = format!("rk_at{view}_{}", op.name());
    let (checks, it) = (h.bounds_checks, super::target::ix(h.narrow));
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
            body(op, t)
        )
    })
}
