//! Atomics (`ir::ops::atomic`).
//!
//! `i32` / `u32` elements use WGSL's native atomics (compare-exchange made strong by retrying the
//! weak one while it fails spuriously). `f32` elements live in `atomic<u32>` and every
//! read-modify-write is a compare-exchange loop on the bit pattern (min/max replace only when the
//! operand compares less/greater, so a NaN operand never replaces); `f64` elements the same way in
//! `atomic<u64>`. 64-bit elements need SHADER_INT64_ATOMIC_ALL_OPS and are refused without it.
//! The integer operations WGSL has no atomic for (mul, div, mod, nand, the shifts, inc_mod,
//! dec_mod) are compare-exchange loops on the element (on its word for `u8` / `u16`, see
//! `emit::packed`).
//!
//! The semantics are `rokkos_core::ir::ops::atomic`'s: integers wrap, shift amounts are masked
//! to the width, an integer div / mod by zero records the failure and leaves the element as it
//! is, `MIN / -1` wraps (spelled out: the divisor `-1` is never divided by). An access yielding
//! the new value ([`AtomicResult::New`]) has its own helper (`.._new`), returning what it stored.

use super::memory::{index_args, offset_helper, param_id};
use super::walk::{expr, Cx};
use super::{EmitError, Helpers};
use rokkos_core::ir::{AtomicAccess, AtomicOp, AtomicResult, ScalarType, Value};

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
    let new = a.result == AtomicResult::New && a.op.has_new_value();
    let name = format!("rk_at{k}_{}{}", a.op.name(), if new { "_new" } else { "" });
    let tn = super::wty(t);
    let (_, sentinel) = super::memory::offset_kind(h);
    // The body on one binding at one offset; a split View's helper has one per chunk.
    let on = |b: &str, o: &str| {
        if super::packed::is_packed(t) {
            super::packed::atomic_body(t, b, o, a.op, new)
        } else {
            Ok(body(a.op, t, &format!("&{b}[u32({o})]"), new))
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
    let zero_check = match a.op.zero_operand_failure(t) {
        Some(f) => format!(
            "    if (x == {}) {{ {}; return {}; }}\n",
            super::lit(Value::zero(t)),
            super::arith::fail(h, f),
            super::lit(Value::zero(t))
        ),
        None => String::new(),
    };
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
            "fn {name}({}){ret} {{\n    let o = {off}({});\n    if (o == {sentinel}) {{ {bad} }}\n{zero_check}{body}{tail}}}\n",
            params.join(", "),
            call.join(", "),
        )
    });
    Ok((format!("{name}({})", args.join(", ")), a.op.yields_value()))
}

/// The value read-modify-write `op` stores over `old` with operand `x` (of type `t`, not packed),
/// as a WGSL expression; `Inc` / `Dec` see `x` defined as 1. An integer div / mod reaches it only
/// with `x != 0` (the helper checks first).
fn stored(op: AtomicOp, t: ScalarType) -> String {
    use AtomicOp as A;
    let l = |v: i64| super::lit(Value::from_bits(t, v as u64));
    let amount = format!("u32(x & {})", l(i64::from(t.bits()) - 1));
    match op {
        A::Add | A::Inc => "old + x".into(),
        A::Sub | A::Dec => "old - x".into(),
        A::Mul => "old * x".into(),
        A::Div if t.is_signed_int() => format!(
            "select(old / select(x, {}, x == {m}), {} - old, x == {m})",
            l(1),
            l(0),
            m = l(-1)
        ),
        A::Mod if t.is_signed_int() => format!(
            "select(old % select(x, {}, x == {m}), {}, x == {m})",
            l(1),
            l(0),
            m = l(-1)
        ),
        A::Div => "old / x".into(),
        A::Mod => "old % x".into(),
        A::Min if t.is_float() => "select(old, x, x < old)".into(),
        A::Max if t.is_float() => "select(old, x, x > old)".into(),
        A::Min => "min(old, x)".into(),
        A::Max => "max(old, x)".into(),
        A::And => "old & x".into(),
        A::Or => "old | x".into(),
        A::Xor => "old ^ x".into(),
        A::Nand => "~(old & x)".into(),
        A::Lshift => format!("old << {amount}"),
        A::Rshift => format!("old >> {amount}"),
        A::IncMod => format!("select(old + {}, {}, old >= x)", l(1), l(0)),
        A::DecMod => format!("select(old - {}, x, old == {} || old > x)", l(1), l(0)),
        A::Exchange | A::Store => "x".into(),
        A::CompareExchange | A::Load => "old".into(),
    }
}

/// `1` of type `t`.
fn one(t: ScalarType) -> Value {
    match t {
        ScalarType::F32 => Value::F32(1.0),
        ScalarType::F64 => Value::F64(1.0),
        _ => Value::from_bits(t, 1),
    }
}

fn body(op: AtomicOp, t: ScalarType, p: &str, new: bool) -> String {
    use AtomicOp as A;
    // `Inc` / `Dec` are `Add` / `Sub` of 1.
    let (op, pre) = match op {
        A::Inc => (A::Add, format!("    let x = {};\n", super::lit(one(t)))),
        A::Dec => (A::Sub, format!("    let x = {};\n", super::lit(one(t)))),
        _ => (op, String::new()),
    };
    let ret = if new { "nw" } else { "old" };
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
            _ => format!(
                "{pre}    loop {{\n        let ob = atomicLoad({p});\n        let old = bitcast<{f}>(ob);\n        let nw = {};\n        let nb = bitcast<{u}>(nw);\n        if (nb == ob) {{ return {ret}; }}\n        let r = atomicCompareExchangeWeak({p}, ob, nb);\n        if (r.exchanged) {{ return {ret}; }}\n    }}\n",
                stored(op, t)
            ),
        };
    }
    match op {
        A::Load => format!("    return atomicLoad({p});\n"),
        A::Store => format!("    atomicStore({p}, x);\n"),
        A::CompareExchange => format!(
            "    loop {{\n        let r = atomicCompareExchangeWeak({p}, x, y);\n        if (r.exchanged || r.old_value != x) {{ return r.old_value; }}\n    }}\n"
        ),
        A::Add | A::Sub | A::Min | A::Max | A::And | A::Or | A::Xor | A::Exchange => {
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
            if new {
                format!(
                    "{pre}    let old = {f}({p}, x);\n    return {};\n",
                    stored(op, t)
                )
            } else {
                format!("{pre}    return {f}({p}, x);\n")
            }
        }
        // No WGSL atomic: a compare-exchange loop on the element.
        _ => format!(
            "{pre}    loop {{\n        let old = atomicLoad({p});\n        let nw = {};\n        if (nw == old) {{ return {ret}; }}\n        let r = atomicCompareExchangeWeak({p}, old, nw);\n        if (r.exchanged) {{ return {ret}; }}\n    }}\n",
            stored(op, t)
        ),
    }
}
