//! Memory (`ir::ops::memory`): View bindings and bounds-checked accessors.
//!
//! Element `idx` of View parameter `k` is element `P.vk_off + sum(idx[d] * P.vk_sd)` of binding `vk`;
//! indices are converted to `u64` (negative signed indices become huge and fail the check). Every
//! access checks `idx[d] < P.vk_ed` and the offset against `arrayLength`; a violation records the
//! first failing access of the launch in its slot of `ERR` (flag, launch id, View code, rank, index
//! words; see [`ERR_SLOTS`]) and skips the access:
//! loads yield 0, stores and atomics do nothing. The host turns the record into
//! `Err(OutOfBounds)`.

use super::walk::{expr, Cx};
use super::{EmitError, Helpers, Split};
use rokkos_core::ir::{Expr, ScalarType, ViewParam, ViewRef};
use rokkos_device::emit::index::{self, Spelling};

/// `u32` words of one launch's error record: flag, launch number, code, rank, then up to eight
/// 64-bit indices.
pub const SLOT_WORDS: usize = 4 + 16;
/// Error records on the device. Each launch that may record an error has one to itself until the
/// host has read it: the low bits of its launch number pick it, and the host never lets two
/// unread launches share one, so that errors of kernels launched by different threads between
/// two synchronisations are all kept.
pub const ERR_SLOTS: usize = 64;
/// Number of `u32` words of the error records.
pub const ERR_WORDS: usize = SLOT_WORDS * ERR_SLOTS;

/// The access mode and element type of View parameter `v`'s binding. Float elements used
/// atomically live in unsigned atomics of their width (read-modify-writes are compare-exchange
/// loops on the bits); 64-bit ones need `atomic64`.
pub(crate) fn binding_type(
    v: &ViewParam,
    atomic: bool,
    atomic64: bool,
) -> Result<(&'static str, String), EmitError> {
    use rokkos_core::ir::Access;
    let access = match v.access {
        Access::ReadOnly => "read",
        Access::Writable => "read_write",
    };
    if super::packed::is_packed(v.elem) {
        let writable = atomic || v.access == Access::Writable;
        let access = if writable { "read_write" } else { access };
        return Ok((access, super::packed::binding_elem(writable).to_string()));
    }
    if !atomic {
        return Ok((access, v.elem.name().to_string()));
    }
    let elem = match v.elem {
        ScalarType::I32 => "atomic<i32>",
        ScalarType::U32 | ScalarType::F32 => "atomic<u32>",
        ScalarType::I64 if atomic64 => "atomic<i64>",
        ScalarType::U64 | ScalarType::F64 if atomic64 => "atomic<u64>",
        t => {
            return Err(EmitError::Unsupported(format!(
                "64-bit atomics ({t} elements of View `{}`): the adapter lacks SHADER_INT64_ATOMIC_ALL_OPS",
                v.name
            )))
        }
    };
    Ok(("read_write", elem.to_string()))
}

/// `e` (of integer type `t`) as a `u64` index.
pub(crate) fn to_u64(t: ScalarType, e: &str) -> String {
    match t {
        ScalarType::U64 => e.to_string(),
        ScalarType::I32 | ScalarType::I8 | ScalarType::I16 => format!("u64(i64({e}))"),
        _ => format!("u64({e})"),
    }
}

/// `e` (of unsigned type `t`, at most 32 bits) as a `u32` index (the 32-bit variant).
pub(crate) fn to_u32(t: ScalarType, e: &str) -> String {
    match t {
        ScalarType::U32 | ScalarType::U8 | ScalarType::U16 => e.to_string(),
        ScalarType::I32 | ScalarType::I8 | ScalarType::I16 => format!("bitcast<u32>({e})"),
        _ => format!("u32({e})"),
    }
}

/// `e` (of integer type `t`) as the `u32` index of a local array or constant table in a 32-bit
/// kernel, in any of its bodies: its helper functions are full width (the software math library
/// indexes with `i32`, and runs without 64-bit integers in `f32`), but the access helpers take
/// `u32`. A negative `i32` becomes an index above every length; a 64-bit index saturates, so
/// that one at or beyond 2³² stays out of bounds (the lengths are `u32`, the largest one
/// excluded by the check `i >= n`).
pub(crate) fn to_u32_index(t: ScalarType, e: &str) -> String {
    match t {
        ScalarType::U64 => format!("u32(min({e}, 4294967295lu))"),
        ScalarType::I64 => format!("u32(min(bitcast<u64>({e}), 4294967295lu))"),
        _ => to_u32(t, e),
    }
}

/// The type of index arguments of the access helpers: `u32` in the 32-bit variant.
pub(crate) fn index_ty(h: &Helpers) -> &'static str {
    if h.w32 {
        "u32"
    } else {
        "u64"
    }
}

/// The module-level error helpers: `rk_oob_w` records one index as two words; `rk_oob_idx`
/// (a `u64` index) exists where the device has 64-bit integers; the local-array checks take
/// indices of the variant's width. `rk_stopped` says whether this launch has recorded a
/// failure: the entry's loops test it between trips and leave (`entry::Stop`), so that a
/// launch failing at its first item does not run the rest (`rokkos_device::runtime::limits`).
pub(crate) fn error_helpers(h: &Helpers) -> String {
    let mut s = String::from(
        "fn rk_f32_bits(b: u32) -> f32 { return bitcast<f32>(b); }
fn rk_slot() -> u32 { return (P.launch % SLOTSu) * WORDSu; }
fn rk_oob_begin(code: u32, rank: u32) -> bool {
    let s = rk_slot();
    if (atomicMax(&ERR[s], 1u) == 0u) {
        atomicStore(&ERR[s + 1u], P.launch);
        atomicStore(&ERR[s + 2u], code);
        atomicStore(&ERR[s + 3u], rank);
        return true;
    }
    return false;
}
fn rk_stopped() -> bool { return atomicLoad(&ERR[rk_slot()]) != 0u; }
fn rk_oob_w(d: u32, lo: u32, hi: u32) {
    let s = rk_slot();
    atomicStore(&ERR[s + 4u + 2u * d], lo);
    atomicStore(&ERR[s + 5u + 2u * d], hi);
}
",
    );
    if h.int64 {
        s.push_str(
            "fn rk_oob_idx(d: u32, i: u64) { rk_oob_w(d, u32(i & 0xfffffffflu), u32(i >> 32u)); }\n",
        );
    }
    if h.w32 {
        s.push_str(
            "fn rk_aix(i: u32, n: u32, code: u32) -> u32 {
    if (i >= n) {
        if (rk_oob_begin(code, 1u)) { rk_oob_w(0u, i, 0u); }
        return 0u;
    }
    return i;
}
fn rk_aok(i: u32, n: u32, code: u32) -> bool {
    if (i >= n) {
        if (rk_oob_begin(code, 1u)) { rk_oob_w(0u, i, 0u); }
        return false;
    }
    return true;
}
",
        );
    } else {
        s.push_str(
            "fn rk_aix(i: u64, n: u64, code: u32) -> u32 {
    if (i >= n) {
        if (rk_oob_begin(code, 1u)) { rk_oob_idx(0u, i); }
        return 0u;
    }
    return u32(i);
}
fn rk_aok(i: u64, n: u64, code: u32) -> bool {
    if (i >= n) {
        if (rk_oob_begin(code, 1u)) { rk_oob_idx(0u, i); }
        return false;
    }
    return true;
}
",
        );
    }
    s.replace("SLOTSu", &format!("{ERR_SLOTS}u"))
        .replace("WORDSu", &format!("{SLOT_WORDS}u"))
}

pub(crate) fn param_id(v: ViewRef) -> Result<usize, EmitError> {
    match v {
        ViewRef::Param(p) => Ok(p.0 as usize),
        ViewRef::Scratch(_) => Err(EmitError::Unsupported(
            "atomics on team scratch Views".into(),
        )),
    }
}

/// Whether View `k` is bound as an atomic array.
pub(crate) fn is_atomic(cx: &Cx<'_>, k: usize) -> bool {
    cx.k.views[k].used_atomically
}

/// The offset helpers' result type and the sentinel they return for an out-of-bounds index.
pub(crate) fn offset_kind(h: &Helpers) -> (&'static str, &'static str) {
    if h.addr32 {
        ("u32", "0xffffffffu")
    } else {
        ("u64", "0xfffffffffffffffflu")
    }
}

/// Ensures the offset helper of View `k` exists; returns its name.
///
/// The helper checks every index against its extent (64-bit, exact) and returns the element
/// offset in the binding, or the sentinel after recording the violation. In 32-bit address mode
/// ([`super::EmitOptions::addr32`]) the launcher has proven that every in-bounds offset fits a `u32`
/// below the sentinel and inside the buffer, so the sum is computed in 32 bits and the buffer
/// length check is not needed.
pub(crate) fn offset_helper(cx: &Cx<'_>, h: &mut Helpers, k: usize) -> String {
    let rank = cx.k.views[k].rank as usize;
    let name = format!("rk_off{k}");
    let (oty, sentinel) = offset_kind(h);
    let addr32 = h.addr32;
    let ity = index_ty(h);
    let w32 = h.w32;
    let split = super::split_of(&h.splits, k);
    h.add(&name, || {
        let params: Vec<String> = (0..rank).map(|d| format!("i{d}: {ity}")).collect();
        let field = |n: &str| format!("P.{n}");
        let narrow = |e: &str| format!("u32({e})");
        let same = |e: &str| e.to_string();
        let sp = Spelling {
            field: &field,
            // The 32-bit variant's fields and indices are `u32` already.
            narrow: match (addr32, w32) {
                (_, true) => Some(&same),
                (true, false) => Some(&narrow),
                (false, false) => None,
            },
        };
        let mut oob = index::oob_conditions(k, rank, &sp);
        let rec: String = (0..rank)
            .map(|d| {
                if w32 {
                    format!(" rk_oob_w({d}u, i{d}, 0u);")
                } else {
                    format!(" rk_oob_idx({d}u, i{d});")
                }
            })
            .collect();
        let sum = index::offset_sum(k, rank, &sp);
        match split {
            // Checked in 32-bit address mode too: an offset inside the View may still lie
            // outside the chunks this window binds.
            Some(sp) => oob.push(outside_chunks(cx.k.views[k].elem, k, sp, addr32)),
            None if !addr32 => oob.push(format!("o >= {}", view_elems(cx.k.views[k].elem, k))),
            None => {}
        }
        let cond = if oob.is_empty() {
            "false".to_string()
        } else {
            oob.join(" || ")
        };
        format!(
            "fn {name}({}) -> {oty} {{\n    let o = {sum};\n    if ({cond}) {{\n        if (rk_oob_begin({k}u, {rank}u)) {{{rec} }}\n        return {sentinel};\n    }}\n    return o;\n}}\n",
            params.join(", ")
        )
    });
    name
}

/// The number of elements View `k`'s one binding holds, as a `u64` expression.
fn view_elems(t: ScalarType, k: usize) -> String {
    let b = format!("v{k}");
    if super::packed::is_packed(t) {
        super::packed::array_elems(t, &b)
    } else {
        format!("u64(arrayLength(&{b}))")
    }
}

/// The condition (on the offset helper's `o`) under which element offset `o` of the split View
/// `k` lies outside the chunks bound: chunks `P.v{k}_base ..` (the launch's first bound chunk,
/// 0 when every chunk is bound) up to the last binding's length. A windowed launch
/// ([`rokkos_device::emit::window`]) binds only the chunks its work items can reach with
/// in-extent indices, so this never holds for one; it keeps any other offset away from memory
/// (an out-of-bounds record instead). The chunk number is compared in the offset's width, so
/// that an offset below the first bound chunk wraps to a huge difference.
fn outside_chunks(t: ScalarType, k: usize, sp: Split, addr32: bool) -> String {
    let (suffix, base) = if addr32 {
        ("u", format!("P.v{k}_base"))
    } else {
        ("lu", format!("u64(P.v{k}_base)"))
    };
    let rel = format!("((o >> {}u) - {base})", sp.shift);
    let q = format!("u32(o & {}{suffix})", (1u64 << sp.shift) - 1);
    let last = format!("v{k}_{}", sp.chunks - 1);
    let past = if super::packed::is_packed(t) {
        format!(
            "{} >= arrayLength(&{last})",
            super::packed::word_index(t, &q)
        )
    } else {
        format!("{q} >= arrayLength(&{last})")
    };
    format!(
        "{rel} >= {}{suffix} || ({rel} == {}{suffix} && {past})",
        sp.chunks,
        sp.chunks - 1
    )
}

/// The statements that access element offset `o` (the variable of the accessor helpers) of View
/// `k`: `body(binding, offset)` once, on `v{k}` at `o`, or, for a split View, once per bound
/// chunk in a `switch` on the binding number `(o >> shift) - P.v{k}_base` (the offset helper
/// checked that `o` lies in a bound chunk: [`outside_chunks`]), at the offset `o & mask` in
/// that chunk (the last binding is the `default`, so that every path has a body).
pub(crate) fn chunked(h: &Helpers, k: usize, body: impl Fn(&str, &str) -> String) -> String {
    let Some(sp) = super::split_of(&h.splits, k) else {
        return body(&format!("v{k}"), "o");
    };
    let suffix = if h.addr32 { "u" } else { "lu" };
    let mut s = format!(
        "    let j = u32(o >> {}u) - P.v{k}_base;\n    let q = o & {}{suffix};\n    switch (j) {{\n",
        sp.shift,
        (1u64 << sp.shift) - 1
    );
    for c in 0..sp.chunks {
        let label = if c + 1 == sp.chunks {
            "default".to_string()
        } else {
            format!("case {c}u")
        };
        let stmts: String = body(&format!("v{k}_{c}"), "q")
            .lines()
            .map(|l| format!("        {l}\n"))
            .collect();
        s.push_str(&format!("        {label}: {{\n{stmts}        }}\n"));
    }
    s.push_str("    }\n");
    s
}

/// The index arguments of an access, as `u64` expressions.
pub(crate) fn index_args(
    cx: &Cx<'_>,
    h: &mut Helpers,
    index: &[Expr],
) -> Result<Vec<String>, EmitError> {
    index
        .iter()
        .map(|e| Ok(cx.index(cx.ty(e)?, &expr(cx, h, e)?)))
        .collect()
}

/// The unchecked element reference of `view[index]` when the launcher proved the access in
/// bounds ([`super::EmitOptions::in_bounds`]; addresses are then 32-bit) and the View is bound
/// whole as a plain array; else `None` (the checked accessor).
fn proven_access(
    cx: &Cx<'_>,
    h: &mut Helpers,
    view: ViewRef,
    index: &[Expr],
) -> Result<Option<String>, EmitError> {
    let ViewRef::Param(p) = view else {
        return Ok(None);
    };
    let k = p.0 as usize;
    let plain = super::split_of(&h.splits, k).is_none()
        && !is_atomic(cx, k)
        && !super::packed::is_packed(cx.k.views[k].elem);
    let Some(idx) = h.proven.index_of(view, index).filter(|_| plain) else {
        return Ok(None);
    };
    let args = index_args(cx, h, &idx)?;
    let field = |n: &str| format!("P.{n}");
    let narrow = |e: &str| format!("u32({e})");
    let sp = Spelling {
        field: &field,
        narrow: Some(&narrow),
    };
    Ok(Some(format!("v{k}[{}]", index::offset_at(k, &args, &sp))))
}

/// `view[index]`.
pub(crate) fn load(
    cx: &Cx<'_>,
    h: &mut Helpers,
    view: ViewRef,
    index: &[Expr],
) -> Result<String, EmitError> {
    if let Some(r) = proven_access(cx, h, view, index)? {
        return Ok(r);
    }
    if let ViewRef::Scratch(id) = view {
        return super::team::load(cx, h, id, index);
    }
    let k = param_id(view)?;
    let args = index_args(cx, h, index)?;
    let off = offset_helper(cx, h, k);
    let t = cx.k.views[k].elem;
    let rank = cx.k.views[k].rank as usize;
    let name = format!("rk_ld{k}");
    let atomic = is_atomic(cx, k);
    let packed_words = super::packed::is_packed(t)
        && (atomic || cx.k.views[k].access == rokkos_core::ir::Access::Writable);
    let (_, sentinel) = offset_kind(h);
    let ity = index_ty(h);
    let zero = super::lit(rokkos_core::ir::Value::zero(t));
    let access = chunked(h, k, |b, o| {
        let read = match (atomic, t) {
            _ if super::packed::is_packed(t) => super::packed::load(t, b, o, packed_words),
            (false, _) => format!("{b}[u32({o})]"),
            (true, ScalarType::F32) => format!("bitcast<f32>(atomicLoad(&{b}[u32({o})]))"),
            (true, ScalarType::F64) => format!("bitcast<f64>(atomicLoad(&{b}[u32({o})]))"),
            (true, _) => format!("atomicLoad(&{b}[u32({o})])"),
        };
        format!("    return {read};\n")
    });
    // After a split View's `switch`, whose every case returns, WGSL still wants a final return.
    let tail = if super::split_of(&h.splits, k).is_some() {
        format!("    return {zero};\n")
    } else {
        String::new()
    };
    h.add(&name, || {
        let params: Vec<String> = (0..rank).map(|d| format!("i{d}: {ity}")).collect();
        let call: Vec<String> = (0..rank).map(|d| format!("i{d}")).collect();
        format!(
            "fn {name}({}) -> {tn} {{\n    let o = {off}({});\n    if (o == {sentinel}) {{ return {zero}; }}\n{access}{tail}}}\n",
            params.join(", "),
            call.join(", "),
            tn = super::wty(t),
        )
    });
    Ok(format!("{name}({})", args.join(", ")))
}

/// `view[index] = value` (a call statement).
pub(crate) fn store(
    cx: &Cx<'_>,
    h: &mut Helpers,
    view: ViewRef,
    index: &[Expr],
    value: &Expr,
) -> Result<String, EmitError> {
    if let Some(r) = proven_access(cx, h, view, index)? {
        return Ok(format!("{r} = {}", expr(cx, h, value)?));
    }
    if let ViewRef::Scratch(id) = view {
        return super::team::store(cx, h, id, index, value);
    }
    let k = param_id(view)?;
    let mut args = index_args(cx, h, index)?;
    args.push(expr(cx, h, value)?);
    let off = offset_helper(cx, h, k);
    let t = cx.k.views[k].elem;
    let rank = cx.k.views[k].rank as usize;
    let name = format!("rk_st{k}");
    let atomic = is_atomic(cx, k);
    let (_, sentinel) = offset_kind(h);
    let ity = index_ty(h);
    let write = |b: &str, o: &str| match (atomic, t) {
        _ if super::packed::is_packed(t) => super::packed::store(t, b, o, "x"),
        (false, _) => format!("{b}[u32({o})] = x"),
        (true, ScalarType::F32) => format!("atomicStore(&{b}[u32({o})], bitcast<u32>(x))"),
        (true, ScalarType::F64) => format!("atomicStore(&{b}[u32({o})], bitcast<u64>(x))"),
        (true, _) => format!("atomicStore(&{b}[u32({o})], x)"),
    };
    let access = if super::split_of(&h.splits, k).is_some() {
        format!(
            "    if (o == {sentinel}) {{ return; }}\n{}",
            chunked(h, k, |b, o| format!("    {};\n", write(b, o)))
        )
    } else {
        format!(
            "    if (o != {sentinel}) {{ {}; }}\n",
            write(&format!("v{k}"), "o")
        )
    };
    h.add(&name, || {
        let mut params: Vec<String> = (0..rank).map(|d| format!("i{d}: {ity}")).collect();
        params.push(format!("x: {}", super::wty(t)));
        let call: Vec<String> = (0..rank).map(|d| format!("i{d}")).collect();
        format!(
            "fn {name}({}) {{\n    let o = {off}({});\n{access}}}\n",
            params.join(", "),
            call.join(", "),
        )
    });
    Ok(format!("{name}({})", args.join(", ")))
}

/// `view.extent(dim)`.
pub(crate) fn extent(cx: &Cx<'_>, view: ViewRef, dim: u32) -> Result<String, EmitError> {
    if let ViewRef::Scratch(id) = view {
        return Ok(super::team::extent(cx, id, dim));
    }
    let k = param_id(view)?;
    Ok(if dim < cx.k.views[k].rank {
        format!("P.v{k}_e{dim}")
    } else if cx.narrow {
        "0u".to_string()
    } else {
        "0lu".to_string()
    })
}
