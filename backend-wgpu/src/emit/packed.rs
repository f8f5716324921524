//! `u8`, `u16`, `i8` and `i16` (the *packed* types): WGSL has no 8- or 16-bit storage or
//! arithmetic.
//!
//! **Values** of `u8` / `u16` are WGSL `u32`s that always hold a value in range (`0..=0xff`,
//! `0..=0xffff`): every operation that could leave the range masks its result (`+ - *` wrapping,
//! `<<`, `!`, casts to the type), and with overflow checks `+ - *` fail exactly where Rust's
//! `u8`/`u16` overflow (a product of two in-range values fits a `u32`, so the test is `r > MAX`).
//! Values of `i8` / `i16` are `i32`s in range (`-128..=127`, `-32768..=32767`): a result that
//! could leave it (`+ - *`, `/` of `MIN` by `-1`, `-x`, `abs`, `<<`, casts to the type) keeps its
//! low bits sign-extended (`extractBits`, which sign-extends an `i32`), and the overflow tests are
//! on the exact `i32` result (`r < MIN || r > MAX`). `& | ^ !`, `>>`, comparisons, `min` / `max`
//! and `%` of in-range values stay in range, as they are.
//!
//! **Views** of all four are arrays of `u32` words, `4 / size` elements per word, element `o` in bits
//! `(o % per_word) * bits ..` of word `o / per_word` (little-endian, the host's byte order, so that
//! the buffer is the host's bytes); a signed element is loaded sign-extended and stored as its low
//! bits. A writable View is bound as `array<atomic<u32>>` and a store is
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
use rokkos_core::ir::{ArithOp, AtomicOp, Failure, ScalarType, Value};
use rokkos_device::emit::rules::{self, IntArith};

/// Whether `t` is stored packed into 32-bit words.
pub(crate) fn is_packed(t: ScalarType) -> bool {
    t.is_narrow_int()
}

/// Whether `t` is `i8` or `i16`: packed, and held in an `i32`.
pub(crate) fn is_signed_packed(t: ScalarType) -> bool {
    matches!(t, ScalarType::I8 | ScalarType::I16)
}

/// The mask of an element's bits (the largest `u8` / `u16` value), as a WGSL `u32` literal.
pub(crate) fn max_lit(t: ScalarType) -> &'static str {
    if t.bits() == 8 {
        "0xffu"
    } else {
        "0xffffu"
    }
}

/// Elements per 32-bit word and the `log2` of it.
fn per_word(t: ScalarType) -> (u32, u32) {
    if t.bits() == 8 {
        (4, 2)
    } else {
        (2, 1)
    }
}

/// `x` (an `i32` expression) wrapped into the range of `i8` / `i16` `t`: its low bits,
/// sign-extended, as Rust's wrapping arithmetic leaves them.
pub(crate) fn wrap_signed(t: ScalarType, x: &str) -> String {
    format!("extractBits({x}, 0u, {}u)", t.bits())
}

/// `MIN` and `MAX` of `i8` / `i16` `t`, as WGSL `i32` literals.
fn signed_bounds(t: ScalarType) -> (String, String) {
    let bits = rules::saturation(t);
    (super::lit(bits.min), super::lit(bits.max))
}

/// The bits of the `i8` / `i16` value `x` (an in-range `i32`) in place in a word, at `sh`.
fn signed_bits(t: ScalarType, x: &str, sh: &str) -> String {
    format!("((bitcast<u32>({x}) & {}) << {sh})", max_lit(t))
}

/// `l op r` for `i8` / `i16` `t` (`l`, `r` in range): computed in `i32`, where no operation of
/// in-range operands overflows, then wrapped or tested against the type's range.
fn signed_arith(
    h: &mut Helpers,
    op: ArithOp,
    t: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
    r_lit: Option<Value>,
) -> String {
    let base = op.base();
    let (tn, sym) = (t.name(), base.symbol());
    let (min, max) = signed_bounds(t);
    match rules::int_arith(op, t, checks, r_lit) {
        IntArith::Plain | IntArith::Wrapping if base == ArithOp::Rem => {
            format!("{}({l}, {r})", arith::signed_rem(h, ScalarType::I32))
        }
        IntArith::Plain | IntArith::Wrapping => wrap_signed(t, &format!("({l} {sym} {r})")),
        IntArith::DivRem { zero, overflow } => {
            let div = base == ArithOp::Div;
            let name = format!("rk_{}_{tn}", if div { "div" } else { "rem" });
            let (on_zero, on_ovf) = (arith::fail(h, zero), arith::fail(h, overflow));
            let result = if div {
                "a / b".to_string()
            } else {
                format!("{}(a, b)", arith::signed_rem(h, ScalarType::I32))
            };
            // `MIN / -1` fails, returning what wrapping gives (`MIN`, and 0 for `%`).
            let wrapped = if div { "a" } else { "0i" };
            h.add(&name, || {
                format!(
                    "fn {name}(a: i32, b: i32) -> i32 {{\n    if (b == 0i) {{ {on_zero}; return 0i; }}\n    if (b == -1i && a == {min}) {{ {on_ovf}; return {wrapped}; }}\n    return {result};\n}}\n"
                )
            });
            format!("{name}({l}, {r})")
        }
        IntArith::Checked(f) => {
            let name = format!("rk_c{}_{tn}", base_name(base));
            let on_ovf = arith::fail(h, f);
            let wrapped = wrap_signed(t, "r");
            h.add(&name, || {
                format!(
                    "fn {name}(a: i32, b: i32) -> i32 {{\n    let r = a {sym} b;\n    if (r < {min} || r > {max}) {{ {on_ovf}; }}\n    return {wrapped};\n}}\n"
                )
            });
            format!("{name}({l}, {r})")
        }
    }
}

/// `l op r` for packed `t` (`l`, `r` in range); `checks`: the kernel's overflow checks, `r_lit`:
/// the right operand when it is a literal.
pub(crate) fn arith(
    h: &mut Helpers,
    op: ArithOp,
    t: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
    r_lit: Option<Value>,
) -> String {
    if is_signed_packed(t) {
        return signed_arith(h, op, t, l, r, checks, r_lit);
    }
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
    if is_signed_packed(t) {
        // `extractBits` of an `i32` sign-extends.
        return format!("extractBits(bitcast<i32>({word}), {sh}, {}u)", t.bits());
    }
    format!("(({word} >> {sh}) & {})", max_lit(t))
}

/// Stores `x` (in range) at element offset `o` of the atomic binding `b`: clears the element's
/// bits, then sets them, each with one atomic on the word (see the module docs).
pub(crate) fn store(t: ScalarType, b: &str, o: &str, x: &str) -> String {
    let (w, sh) = place(t, o);
    let bits = if is_signed_packed(t) {
        signed_bits(t, x, "sh")
    } else {
        format!("{x} << sh")
    };
    format!(
        "let w = {w}; let sh = {sh}; atomicAnd(&{b}[w], ~({} << sh)); atomicOr(&{b}[w], {bits})",
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
    if is_signed_packed(t) {
        return signed_atomic_body(t, b, o, op, new);
    }
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

/// [`atomic_body`] for `i8` / `i16` `t`: the element is read sign-extended into an `i32`, the
/// stored value computed in `i32` and wrapped into range, and its low bits replace the element's.
fn signed_atomic_body(
    t: ScalarType,
    b: &str,
    o: &str,
    op: AtomicOp,
    new: bool,
) -> Result<String, EmitError> {
    use AtomicOp as A;
    let max = max_lit(t);
    let (w, sh) = place(t, o);
    let head = format!("    let w = {w}; let sh = {sh}; let p = &{b}[w];\n");
    let old = format!("extractBits(bitcast<i32>(ob), sh, {}u)", t.bits());
    let ret = if new { "nv" } else { "old" };
    let xb = signed_bits(t, "x", "sh");
    let word_op = |f: &str, operand: &str, sym: &str| {
        let result = if new {
            format!("{old} {sym} x")
        } else {
            old.clone()
        };
        format!("{head}    let ob = {f}(p, {operand});\n    return {result};\n")
    };
    let amount = format!("(bitcast<u32>(x) & {}u)", t.bits() - 1);
    let wrap = |e: &str| wrap_signed(t, e);
    Ok(match op {
        A::Load => format!("{head}    let ob = atomicLoad(p);\n    return {old};\n"),
        // Sign-extended values stay sign-extended under `| ^ &`.
        A::Or => word_op("atomicOr", &xb, "|"),
        A::Xor => word_op("atomicXor", &xb, "^"),
        A::And => word_op("atomicAnd", &format!("{xb} | ~({max} << sh)"), "&"),
        A::Store => format!(
            "{head}    loop {{\n        let ob = atomicLoad(p);\n        let r = atomicCompareExchangeWeak(p, ob, (ob & ~({max} << sh)) | {xb});\n        if (r.exchanged) {{ return; }}\n    }}\n"
        ),
        _ => {
            let stored = match op {
                A::Add => wrap("old + x"),
                A::Sub => wrap("old - x"),
                A::Min => "min(old, x)".to_string(),
                A::Max => "max(old, x)".to_string(),
                A::Exchange => "x".to_string(),
                A::CompareExchange => "select(old, y, old == x)".to_string(),
                A::Mul => wrap("old * x"),
                // `MIN / -1` wraps to `MIN`, as the host's `wrapping_div`.
                A::Div => wrap("old / x"),
                // On the magnitudes, with the dividend's sign (see `arith::signed_rem`).
                A::Mod => "select(i32(u32(abs(old)) % u32(abs(x))), -i32(u32(abs(old)) % u32(abs(x))), old < 0i)".to_string(),
                A::Nand => "~(old & x)".to_string(),
                A::Lshift => wrap(&format!("old << {amount}")),
                A::Rshift => format!("old >> {amount}"),
                A::Inc => wrap("old + 1i"),
                A::Dec => wrap("old - 1i"),
                _ => return Err(EmitError::Mismatch(format!("atomic {} on {t}", op.name()))),
            };
            let nb = signed_bits(t, "nv", "sh");
            format!(
                "{head}    loop {{\n        let ob = atomicLoad(p);\n        let old = {old};\n        let nv = {stored};\n        if (nv == old) {{ return {ret}; }}\n        let r = atomicCompareExchangeWeak(p, ob, (ob & ~({max} << sh)) | {nb});\n        if (r.exchanged) {{ return {ret}; }}\n    }}\n"
            )
        }
    })
}
