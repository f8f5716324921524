//! Atomics (`ir::ops::atomic`).
//!
//! `i32` / `u32` elements use WGSL's native atomics (compare-exchange made strong by retrying the
//! weak one while it fails spuriously). `f32` elements live in `atomic<u32>` and every
//! read-modify-write is a compare-exchange loop on the bit pattern (min/max replace only when the
//! operand compares less/greater, so a NaN operand never replaces); `f64` elements the same way in
//! `atomic<u64>`. 64-bit elements need SHADER_INT64_ATOMIC_ALL_OPS and are refused without it.

use super::memory::{index_args, offset_helper, param_id};
use super::walk::{expr, Cx};
use super::{EmitError, Helpers};
use rokkos_core::ir::{AtomicAccess, AtomicOp, ScalarType};

/// The call of atomic `a`; the flag says whether it yields a value.
pub(crate) fn call(
    cx: &Cx<'_>,
    h: &mut Helpers,
    a: &AtomicAccess,
) -> Result<(String, bool), EmitError> {
    let k = param_id(a.view)?;
    let t = cx.k.views[k].elem;
    if t.bits() == 64 && !h.atomic64 {
        return Err(EmitError::Unsupported(format!(
            "64-bit atomics ({t} elements of View `{}`): the adapter lacks SHADER_INT64_ATOMIC_ALL_OPS",
            cx.k.views[k].name
        )));
    }
    let mut args = index_args(cx, h, &a.index)?;
    for e in &a.args {
        args.push(expr(cx, h, e)?);
    }
    let off = offset_helper(cx, h, k);
    let rank = cx.k.views[k].rank as usize;
    let name = format!("rk_at{k}_{}", a.op.name());
    let tn = super::wty(t);
    let (_, sentinel) = super::memory::offset_kind(h);
    // The body on one binding at one offset; a split View's helper has one per chunk.
    let on = |b: &str, o: &str| {
        if super::packed::is_packed(t) {
            super::packed::atomic_body(t, b, o, a.op)
        } else {
            Ok(body(a.op, t, &format!("&{b}[u32({o})]")))
        }
    };
    // A packed op the word atomics cannot do is refused before anything is emitted.
    let access = on(&format!("v{k}"), "o")?;
    let access = if super::split_of(&h.splits, k).is_some() {
        super::memory::chunked(h, k, |b, o| on(b, o).unwrap_or_default())
    } else {
        access
    };
    let ity = super::memory::index_ty(h);
    h.add(&name, || {
        let mut params: Vec<String> = (0..rank).map(|d| format!("i{d}: {ity}")).collect();
        let call: Vec<String> = (0..rank).map(|d| format!("i{d}")).collect();
        match a.op.arg_count() {
            1 => params.push(format!("x: {tn}")),
            2 => {
                params.push(format!("x: {tn}"));
                params.push(format!("y: {tn}"));
            }
            _ => {}
        }
        let zero = super::lit(rokkos_core::ir::Value::zero(t));
        let body = access;
        let ret = if a.op.yields_value() {
            format!(" -> {tn}")
        } else {
            String::new()
        };
        let bad = if a.op.yields_value() {
            format!("return {zero};")
        } else {
            "return;".to_string()
        };
        // The compare-exchange loops only leave through `return`; WGSL still wants a final one.
        let tail = if a.op.yields_value() {
            format!("    return {zero};\n")
        } else {
            String::new()
        };
        format!(
            "fn {name}({}){ret} {{\n    let o = {off}({});\n    if (o == {sentinel}) {{ {bad} }}\n{body}{tail}}}\n",
            params.join(", "),
            call.join(", "),
        )
    });
    Ok((format!("{name}({})", args.join(", ")), a.op.yields_value()))
}

fn body(op: AtomicOp, t: ScalarType, p: &str) -> String {
    use AtomicOp as A;
    let bits = match t {
        ScalarType::F32 => Some("u32"),
        ScalarType::F64 => Some("u64"),
        _ => None,
    };
    if let Some(u) = bits {
        let f = t.name();
        return match op {
            A::Load => format!("    return bitcast<{f}>(atomicLoad({p}));\n"),
            A::Store => format!("    atomicStore({p}, bitcast<{u}>(x));\n"),
            A::Exchange => {
                format!("    return bitcast<{f}>(atomicExchange({p}, bitcast<{u}>(x)));\n")
            }
            A::CompareExchange => format!(
                "    loop {{\n        let r = atomicCompareExchangeWeak({p}, bitcast<{u}>(x), bitcast<{u}>(y));\n        if (r.exchanged || r.old_value != bitcast<{u}>(x)) {{ return bitcast<{f}>(r.old_value); }}\n    }}\n"
            ),
            _ => {
                let new = match op {
                    A::Add => "old + x".to_string(),
                    A::Sub => "old - x".to_string(),
                    A::Min => "select(old, x, x < old)".to_string(),
                    A::Max => "select(old, x, x > old)".to_string(),
                    _ => "old".to_string(),
                };
                format!(
                    "    loop {{\n        let ob = atomicLoad({p});\n        let old = bitcast<{f}>(ob);\n        let nb = bitcast<{u}>({new});\n        if (nb == ob) {{ return old; }}\n        let r = atomicCompareExchangeWeak({p}, ob, nb);\n        if (r.exchanged) {{ return old; }}\n    }}\n"
                )
            }
        };
    }
    match op {
        A::Load => format!("    return atomicLoad({p});\n"),
        A::Store => format!("    atomicStore({p}, x);\n"),
        A::CompareExchange => format!(
            "    loop {{\n        let r = atomicCompareExchangeWeak({p}, x, y);\n        if (r.exchanged || r.old_value != x) {{ return r.old_value; }}\n    }}\n"
        ),
        _ => {
            let f = match op {
                A::Add => "atomicAdd",
                A::Sub => "atomicSub",
                A::Min => "atomicMin",
                A::Max => "atomicMax",
                A::And => "atomicAnd",
                A::Or => "atomicOr",
                A::Xor => "atomicXor",
                _ => "atomicExchange",
            };
            format!("    return {f}({p}, x);\n")
        }
    }
}
