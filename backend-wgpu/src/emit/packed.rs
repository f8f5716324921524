//! `u8` and `u16` (the *packed* types): WGSL has no 8- or 16-bit storage or arithmetic.
//!
//! **Values** are WGSL `u32`s that always hold a value in range (`0..=0xff`, `0..=0xffff`): every
//! operation that could leave the range masks its result (`+ - *` wrapping, `<<`, `!`, casts to
//! the type), and with overflow checks `+ - *` fail exactly where Rust's `u8`/`u16` overflow (a
//! product of two in-range values fits a `u32`, so the test is `r > MAX`).
//!
//! **Views** are arrays of `u32` words, `4 / size` elements per word, element `o` in bits
//! `(o % per_word) * bits ..` of word `o / per_word` (little-endian, the host's byte order, so that
//! the buffer is the host's bytes). A writable View is bound as `array<atomic<u32>>` and a store is
//! `atomicAnd(word, !mask)` then `atomicOr(word, value << shift)`: neighbouring elements of one word
//! belong to different work items (ownership), and each of them touches only its own bits with
//! atomic operations that commute, so no store can lose another's (a plain read-modify-write of the
//! word would). Loads of a writable View are `atomicLoad`s of the word. Atomic `|`, `&`, `^` are
//! one word atomic with the operand shifted into place (`&` with ones elsewhere); the other atomics
//! (store, add, sub, min, max, exchange, compare-exchange, mul, div, mod, nand, the shifts, inc,
//! dec, inc_mod, dec_mod) are compare-exchange loops on the word that replace only the element's
//! bits, so an atomic load never sees a value nobody stored.
//!
//! Team scratch of these types is refused (`Unsupported`): its words would need workgroup atomics.
//!
//! A CUDA C writer has native `uint8_t` / `uint16_t` loads, stores and (through 32-bit words)
//! atomics; it needs the value rules (masking, overflow tests) but none of the packing.

use super::{arith, EmitError, Helpers};
use rokkos_core::ir::{ArithOp, AtomicOp, Failure, ScalarType};

/// Whether `t` is stored packed into 32-bit words.
pub(crate) fn is_packed(t: ScalarType) -> bool {
    matches!(t, ScalarType::U8 | ScalarType::U16)
}

/// The largest value of packed type `t`, as a WGSL `u32` literal.
pub(crate) fn max_lit(t: ScalarType) -> &'static str {
    if t == ScalarType::U8 {
        "0xffu"
    } else {
        "0xffffu"
    }
}

/// Elements per 32-bit word and the `log2` of it.
fn per_word(t: ScalarType) -> (u32, u32) {
    if t == ScalarType::U8 {
        (4, 2)
    } else {
        (2, 1)
    }
}

/// `l op r` for packed `t` (`l`, `r` in range); `checks`: the kernel's overflow checks.
pub(crate) fn arith(
    h: &mut Helpers,
    op: ArithOp,
    t: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
) -> String {
    let max = max_lit(t);
    let base = op.base();
    match base {
        // Both stay in range; only a zero divisor fails.
        ArithOp::Div | ArithOp::Rem => {
            let name = format!(
                "rk_{}_{}",
                if base == ArithOp::Div { "div" } else { "rem" },
                t.name()
            );
            let on_zero = arith::fail(
                h,
                if base == ArithOp::Div {
                    Failure::DivByZero
                } else {
                    Failure::RemByZero
                },
            );
            let sym = base.symbol();
            h.add(&name, || {
                format!(
                    "fn {name}(a: u32, b: u32) -> u32 {{\n    if (b == 0u) {{ {on_zero}; return 0u; }}\n    return a {sym} b;\n}}\n"
                )
            });
            format!("{name}({l}, {r})")
        }
        _ if !checks || op.is_wrapping() => format!("(({l} {} {r}) & {max})", base.symbol()),
        _ => {
            let (f, test) = match base {
                ArithOp::Add => (Failure::AddOverflow, format!("r > {max}")),
                ArithOp::Sub => (Failure::SubOverflow, "b > a".to_string()),
                _ => (Failure::MulOverflow, format!("r > {max}")),
            };
            let name = format!("rk_c{}_{}", base_name(base), t.name());
            let on_ovf = arith::fail(h, f);
            let sym = base.symbol();
            h.add(&name, || {
                format!(
                    "fn {name}(a: u32, b: u32) -> u32 {{\n    let r = a {sym} b;\n    if ({test}) {{ {on_ovf}; }}\n    return r & {max};\n}}\n"
                )
            });
            format!("{name}({l}, {r})")
        }
    }
}

fn base_name(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => "add",
        ArithOp::Sub => "sub",
        _ => "mul",
    }
}

/// The binding element of a packed View: atomic words when it is written or used atomically.
pub(crate) fn binding_elem(writable: bool) -> &'static str {
    if writable {
        "atomic<u32>"
    } else {
        "u32"
    }
}

/// `(word index, shift)` of element offset `o` (a `u64` or `u32` expression).
fn place(t: ScalarType, o: &str) -> (String, String) {
    let (n, log) = per_word(t);
    (
        format!("u32({o} >> {log}u)"),
        // `u32(o)` keeps the low bits of a 64-bit offset (and is the offset itself in 32-bit mode).
        format!("((u32({o}) & {}u) * {}u)", n - 1, t.bits()),
    )
}

/// The word holding element offset `q` (a `u32` expression).
pub(crate) fn word_index(t: ScalarType, q: &str) -> String {
    format!("({q} >> {}u)", per_word(t).1)
}

/// The number of elements binding `b` holds (its words times elements per word), as `u64`.
pub(crate) fn array_elems(t: ScalarType, b: &str) -> String {
    format!("(u64(arrayLength(&{b})) * {}lu)", per_word(t).0)
}

/// The value of element offset `o` of View binding `b`.
pub(crate) fn load(t: ScalarType, b: &str, o: &str, atomic: bool) -> String {
    let (w, sh) = place(t, o);
    let word = if atomic {
        format!("atomicLoad(&{b}[{w}])")
    } else {
        format!("{b}[{w}]")
    };
    format!("(({word} >> {sh}) & {})", max_lit(t))
}

/// Stores `x` (in range) at element offset `o` of the atomic binding `b`: clears the element's
/// bits, then sets them, each with one atomic on the word (see the module docs).
pub(crate) fn store(t: ScalarType, b: &str, o: &str, x: &str) -> String {
    let (w, sh) = place(t, o);
    format!(
        "let w = {w}; let sh = {sh}; atomicAnd(&{b}[w], ~({} << sh)); atomicOr(&{b}[w], {x} << sh)",
        max_lit(t)
    )
}

/// The body of atomic `op` on element offset `o` of binding `b` (inside a helper whose
/// arguments are `x` and `y`), returning the old value when `op` yields one (`new`: the value
/// stored). A div / mod is reached only with `x != 0` (the helper checks first).
pub(crate) fn atomic_body(
    t: ScalarType,
    b: &str,
    o: &str,
    op: AtomicOp,
    new: bool,
) -> Result<String, EmitError> {
    use AtomicOp as A;
    let max = max_lit(t);
    let amount = format!("(x & {}u)", t.bits() - 1);
    let ret = if new { "nv" } else { "old" };
    let head = format!(
        "    let w = {0}; let sh = {1}; let p = &{b}[w];\n",
        place(t, o).0,
        place(t, o).1
    );
    let old = format!("((ob >> sh) & {max})");
    let word_op = |f: &str, operand: &str, sym: &str| {
        if new {
            format!("{head}    let ob = {f}(p, {operand});\n    return {old} {sym} x;\n")
        } else {
            format!("{head}    let ob = {f}(p, {operand});\n    return {old};\n")
        }
    };
    Ok(match op {
        A::Load => format!("{head}    let ob = atomicLoad(p);\n    return {old};\n"),
        A::Or => word_op("atomicOr", "x << sh", "|"),
        A::Xor => word_op("atomicXor", "x << sh", "^"),
        A::And => word_op("atomicAnd", &format!("(x << sh) | ~({max} << sh)"), "&"),
        // One compare-exchange, not a clear then a set: an atomic load between those two would
        // see 0, a value nobody stored.
        A::Store => format!(
            "{head}    loop {{\n        let ob = atomicLoad(p);\n        let r = atomicCompareExchangeWeak(p, ob, (ob & ~({max} << sh)) | (x << sh));\n        if (r.exchanged) {{ return; }}\n    }}\n"
        ),
        _ => {
            // A compare-exchange loop on the word that replaces only this element's bits.
            let stored = match op {
                A::Add => format!("(old + x) & {max}"),
                A::Sub => format!("(old - x) & {max}"),
                A::Min => "min(old, x)".to_string(),
                A::Max => "max(old, x)".to_string(),
                A::Exchange => "x".to_string(),
                A::CompareExchange => "select(old, y, old == x)".to_string(),
                A::Mul => format!("(old * x) & {max}"),
                A::Div => "old / x".to_string(),
                A::Mod => "old % x".to_string(),
                A::Nand => format!("~(old & x) & {max}"),
                A::Lshift => format!("(old << {amount}) & {max}"),
                A::Rshift => format!("old >> {amount}"),
                A::Inc => format!("(old + 1u) & {max}"),
                A::Dec => format!("(old - 1u) & {max}"),
                A::IncMod => "select(old + 1u, 0u, old >= x)".to_string(),
                A::DecMod => "select(old - 1u, x, old == 0u || old > x)".to_string(),
                _ => return Err(EmitError::Mismatch(format!("atomic {} on {t}", op.name()))),
            };
            format!(
                "{head}    loop {{\n        let ob = atomicLoad(p);\n        let old = {old};\n        let nv = {stored};\n        if (nv == old) {{ return {ret}; }}\n        let r = atomicCompareExchangeWeak(p, ob, (ob & ~({max} << sh)) | (nv << sh));\n        if (r.exchanged) {{ return {ret}; }}\n    }}\n"
            )
        }
    })
}
