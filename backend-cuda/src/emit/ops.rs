//! The operator families in CUDA C, each with the IR's semantics (`rokkos_core::ir::ops`; the
//! evaluator is the reference): integer arithmetic wraps through the unsigned type, or fails the
//! work item with Rust's words under overflow checks (the same tests as the WGSL target's, named
//! in `rokkos_core::ir::Failure`); division and remainder always check; float arithmetic is IEEE
//! without contraction (NVRTC runs with `--fmad=false`), float `%` is `fmod` (exact in CUDA);
//! casts are Rust's `as` (saturating float to integer, NaN to 0).

use super::Helpers;
use rokkos_core::ir::{ArithOp, BitwiseOp, CmpOp, Failure, LogicOp, MathFn, ScalarType, Value};
use rokkos_device::emit::rules::{self, IntArith};
use rokkos_device::emit::{codes, EmitError};

type R<T> = Result<T, EmitError>;

/// A C literal of `v`'s type.
pub(crate) fn lit(v: Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::I32(x) if x == i32::MIN => "(-2147483647 - 1)".into(),
        Value::I32(x) => format!("{x}"),
        Value::U32(x) => format!("{x}u"),
        Value::I64(x) if x == i64::MIN => "(-9223372036854775807ll - 1ll)".into(),
        Value::I64(x) => format!("{x}ll"),
        Value::U64(x) => format!("{x}ull"),
        // Typed, so that a template deduces the operand's type from a literal too.
        Value::U8(x) => format!("((u8){x}u)"),
        Value::U16(x) => format!("((u16){x}u)"),
        // The cast converts an `int` literal, in range for every value (`MIN` included).
        Value::I8(x) if x < 0 => format!("((i8)({x}))"),
        Value::I8(x) => format!("((i8){x})"),
        Value::I16(x) if x < 0 => format!("((i16)({x}))"),
        Value::I16(x) => format!("((i16){x})"),
        Value::F32(x) if x == 0.0 => if x.is_sign_negative() {
            "(-0.0f)"
        } else {
            "0.0f"
        }
        .into(),
        // Rust's shortest round-trip text, in scientific notation: C reads it back exactly.
        Value::F32(x) if x.is_finite() => format!("({x:e}f)"),
        Value::F32(x) => format!("rk_f32_bits({}u)", x.to_bits()),
        Value::F64(x) if x == 0.0 => if x.is_sign_negative() {
            "(-0.0)"
        } else {
            "0.0"
        }
        .into(),
        Value::F64(x) if x.is_finite() => format!("({x:e})"),
        Value::F64(x) => format!("rk_f64_bits({}ull)", x.to_bits()),
    }
}

/// The statement recording failure `f` (the launch's first failure wins).
pub(crate) fn fail(f: Failure) -> String {
    format!("rk_fail(P, {}u)", codes::failure(f))
}

fn int_lit(t: ScalarType, x: i64) -> String {
    lit(match t {
        ScalarType::I32 => Value::I32(x as i32),
        ScalarType::U32 => Value::U32(x as u32),
        ScalarType::I64 => Value::I64(x),
        ScalarType::U8 => Value::U8(x as u8),
        ScalarType::U16 => Value::U16(x as u16),
        ScalarType::I8 => Value::I8(x as i8),
        ScalarType::I16 => Value::I16(x as i16),
        _ => Value::U64(x as u64),
    })
}

/// `MIN` of signed integer type `t` (what a float-to-integer cast saturates to).
fn signed_min(t: ScalarType) -> String {
    lit(rules::saturation(t).min)
}

/// `l op r` of type `t` (`checks`: the kernel's overflow checks; `r_lit`: a literal divisor).
pub(crate) fn arith(
    h: &mut Helpers,
    op: ArithOp,
    t: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
    r_lit: Option<Value>,
) -> String {
    let base = op.base();
    let tn = t.name();
    if t.is_float() {
        return match base {
            ArithOp::Rem if t == ScalarType::F32 => format!("fmodf({l}, {r})"),
            ArithOp::Rem => format!("fmod({l}, {r})"),
            _ => format!("({l} {} {r})", base.symbol()),
        };
    }
    match rules::int_arith(op, t, checks, r_lit) {
        // Cast back: C computes narrow types in `int`, and a template deduces from the type.
        IntArith::Plain => format!("(({tn})({l} {} {r}))", base.symbol()),
        IntArith::Wrapping => {
            let w = match base {
                ArithOp::Add => "rk_wadd",
                ArithOp::Sub => "rk_wsub",
                _ => "rk_wmul",
            };
            format!("{w}<{tn}>({l}, {r})")
        }
        IntArith::DivRem { zero, overflow } => {
            format!("{}(P, {l}, {r})", div_rem(h, base, t, zero, overflow))
        }
        IntArith::Checked(f) if base == ArithOp::Mul => format!("{}(P, {l}, {r})", mul(h, t, f)),
        IntArith::Checked(f) => format!("{}(P, {l}, {r})", add_sub(h, base, t, f)),
    }
}

fn div_rem(h: &mut Helpers, op: ArithOp, t: ScalarType, zero_f: Failure, ovf_f: Failure) -> String {
    let (tn, div) = (t.name(), op == ArithOp::Div);
    let name = format!("rk_{}_{tn}", if div { "div" } else { "rem" });
    let zero = int_lit(t, 0);
    let overflow = if t.is_signed_int() {
        let min = signed_min(t);
        format!(
            "    if (b == {} && a == {min}) {{ {}; return {}; }}\n",
            int_lit(t, -1),
            fail(ovf_f),
            if div { "a" } else { zero.as_str() }
        )
    } else {
        String::new()
    };
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}(const rk_P& P, {tn} a, {tn} b) {{\n    if (b == {zero}) {{ {}; return {zero}; }}\n{overflow}    return a {} b;\n}}\n",
            fail(zero_f),
            op.symbol()
        )
    })
}

fn add_sub(h: &mut Helpers, op: ArithOp, t: ScalarType, f: Failure) -> String {
    let (tn, add) = (t.name(), op == ArithOp::Add);
    let name = format!("rk_c{}_{tn}", if add { "add" } else { "sub" });
    let on_ovf = fail(f);
    let test = match (t.is_signed_int(), add) {
        (true, true) => format!("((a ^ r) & (b ^ r)) < {}", int_lit(t, 0)),
        (true, false) => format!("((a ^ b) & (a ^ r)) < {}", int_lit(t, 0)),
        (false, true) => "r < a".to_string(),
        (false, false) => "b > a".to_string(),
    };
    let w = if add { "rk_wadd" } else { "rk_wsub" };
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}(const rk_P& P, {tn} a, {tn} b) {{\n    const {tn} r = {w}<{tn}>(a, b);\n    if ({test}) {{ {on_ovf}; }}\n    return r;\n}}\n"
        )
    })
}

fn mul(h: &mut Helpers, t: ScalarType, f: Failure) -> String {
    let tn = t.name();
    let name = format!("rk_cmul_{tn}");
    let on_ovf = fail(f);
    // The high half of the full product: 32-bit products in 64 bits, 64-bit ones by the
    // hardware's high multiply (the product fits iff the high half is the sign extension of the
    // low half).
    let test = match t {
        ScalarType::I32 => "(i64)a * (i64)b != (i64)r",
        ScalarType::U32 => "(u64)a * (u64)b > 4294967295ull",
        ScalarType::U8 => "(u32)a * (u32)b > 255u",
        ScalarType::U16 => "(u32)a * (u32)b > 65535u",
        // Exact in i32 (|a * b| <= 2^30); the product fits iff its truncation `r` is itself.
        ScalarType::I8 | ScalarType::I16 => "(i32)a * (i32)b != (i32)r",
        ScalarType::I64 => "__mul64hi(a, b) != (r < 0ll ? -1ll : 0ll)",
        _ => "__umul64hi(a, b) != 0ull",
    };
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}(const rk_P& P, {tn} a, {tn} b) {{\n    const {tn} r = rk_wmul<{tn}>(a, b);\n    if ({test}) {{ {on_ovf}; }}\n    return r;\n}}\n"
        )
    })
}

/// `-a` of type `t`.
pub(crate) fn neg(h: &mut Helpers, t: ScalarType, a: &str, checks: bool) -> String {
    if t.is_float() {
        return format!("(-({a}))");
    }
    if !(checks && t.is_signed_int()) {
        return format!("rk_wneg<{}>({a})", t.name());
    }
    format!("{}(P, {a})", checked_neg(h, t, false))
}

/// `-a` (or `abs(a)`) of signed integer type `t` failing at `MIN`.
fn checked_neg(h: &mut Helpers, t: ScalarType, abs: bool) -> String {
    let tn = t.name();
    let name = format!("rk_c{}_{tn}", if abs { "abs" } else { "neg" });
    let min = signed_min(t);
    let value = if abs {
        format!("(a < 0 ? rk_wneg<{tn}>(a) : a)")
    } else {
        format!("rk_wneg<{tn}>(a)")
    };
    h.add(&name, || {
        format!(
            "__device__ __forceinline__ {tn} {name}(const rk_P& P, {tn} a) {{\n    if (a == {min}) {{ {}; }}\n    return {value};\n}}\n",
            fail(Failure::NegOverflow)
        )
    })
}

/// `l op r` with `l: lt`, `r: rt`.
pub(crate) fn bitwise(
    h: &mut Helpers,
    op: BitwiseOp,
    lt: ScalarType,
    rt: ScalarType,
    l: &str,
    r: &str,
    checks: bool,
) -> String {
    let mask = lit(Value::from_bits(rt, lt.bits() as u64 - 1));
    let shift = |l: &str, n: &str| {
        let f = if op == BitwiseOp::Shl {
            "rk_wshl"
        } else {
            "rk_wshr"
        };
        format!("{f}<{}>({l}, (u32)({n} & {mask}))", lt.name())
    };
    match op {
        BitwiseOp::Xor if lt == ScalarType::Bool => format!("({l} != {r})"),
        BitwiseOp::And | BitwiseOp::Or if lt == ScalarType::Bool => {
            format!("((bool)({l} {} {r}))", op.symbol())
        }
        BitwiseOp::And | BitwiseOp::Or | BitwiseOp::Xor => {
            format!("(({}) ({l} {} {r}))", lt.name(), op.symbol())
        }
        BitwiseOp::Shl | BitwiseOp::Shr if checks => {
            let shl = op == BitwiseOp::Shl;
            let name = format!(
                "rk_c{}_{}_{}",
                if shl { "shl" } else { "shr" },
                lt.name(),
                rt.name()
            );
            // The amount's bits, zero-extended: a negative i32 is 2^32 - |n| as Rust compares it.
            let amount = match rt {
                ScalarType::I32 => "(u64)(u32)n",
                ScalarType::I16 => "(u64)(u16)n",
                ScalarType::I8 => "(u64)(u8)n",
                _ => "(u64)n",
            };
            let on_ovf = fail(rules::shift_failure(op));
            let body = shift("a", "n");
            h.add(&name, || {
                format!(
                    "__device__ __forceinline__ {lt} {name}(const rk_P& P, {lt} a, {rt} n) {{\n    if ({amount} >= {}ull) {{ {on_ovf}; }}\n    return {body};\n}}\n",
                    lt.bits(),
                    lt = lt.name(),
                    rt = rt.name()
                )
            });
            format!("{name}(P, {l}, {r})")
        }
        BitwiseOp::Shl | BitwiseOp::Shr => shift(l, r),
    }
}

/// `!a` of an integer: the complement, in the operand's type.
pub(crate) fn complement(t: ScalarType, a: &str) -> String {
    format!("(({}) ~({a}))", t.name())
}

/// `l op r` of type `t`. Float `!=` is `!(a == b)`: true for NaN whatever the compiler picks.
pub(crate) fn cmp(op: CmpOp, t: ScalarType, l: &str, r: &str) -> String {
    if t.is_float() && op == CmpOp::Ne {
        return format!("(!({l} == {r}))");
    }
    format!("({l} {} {r})", op.symbol())
}

/// `l && r` / `l || r` (C's short circuit is the IR's).
pub(crate) fn logic(op: LogicOp, l: &str, r: &str) -> String {
    format!("({l} {} {r})", op.symbol())
}

/// `a as to`, with `a: from`.
pub(crate) fn cast(h: &mut Helpers, from: ScalarType, to: ScalarType, a: &str) -> R<String> {
    use ScalarType as T;
    if from == to {
        return Ok(a.to_string());
    }
    Ok(match (from, to) {
        (T::Bool, t) if t.is_int() => format!("(({})(({a}) ? 1 : 0))", t.name()),
        // C's integer conversions are Rust's `as`: modulo 2^n into unsigned types, and NVCC
        // keeps the two's-complement bits into signed ones; integer to float and float to float
        // round to nearest.
        (f, t) if (f.is_int() || f.is_float()) && t.is_float() => format!("(({})({a}))", t.name()),
        (f, t) if f.is_int() && t.is_int() => format!("(({})({a}))", t.name()),
        (f, t) if f.is_float() && t.is_int() => {
            let name = format!("rk_cvt_{}_{}", f.name(), t.name());
            h.add(&name, || float_to_int(&name, f, t));
            format!("{name}({a})")
        }
        _ => {
            return Err(EmitError::Mismatch(format!(
                "cast from {from} to {to} is not a Rust `as` cast"
            )))
        }
    })
}

fn float_lit(t: ScalarType, x: f64) -> String {
    if t == ScalarType::F32 {
        lit(Value::F32(x as f32))
    } else {
        lit(Value::F64(x))
    }
}

/// Saturating float to integer: C's conversion is undefined out of range, so the bounds are
/// tested first (NaN gives 0).
fn float_to_int(name: &str, f: ScalarType, t: ScalarType) -> String {
    let sat = rules::saturation(t);
    let (max, min, upper) = (lit(sat.max), lit(sat.min), sat.upper);
    let low_test = if sat.lower_inclusive {
        format!("x <= {}", float_lit(f, sat.lower))
    } else {
        format!("x < {}", float_lit(f, sat.lower))
    };
    format!(
        "__device__ __forceinline__ {tt} {name}({ft} x) {{\n    if (!(x == x)) {{ return {zero}; }}\n    if (x >= {up}) {{ return {max}; }}\n    if ({low_test}) {{ return {min}; }}\n    return ({tt})x;\n}}\n",
        ft = f.name(),
        tt = t.name(),
        zero = lit(Value::from_bits(t, 0)),
        up = float_lit(f, upper),
    )
}

/// CUDA's own function for `func` on `t`, where the CUDA Math API's documented maximum error
/// (appendix "Mathematical Functions", full range, without fast-math) is within the contract's
/// 1 ulp of the exact value (`MathFn::max_ulp`): `logf log2f cbrtf` on f32; `exp exp2 log log2
/// log10 cbrt cosh tanh` on f64. The special values of CUDA's functions are C99's, as glibc's.
fn libdevice(func: MathFn, t: ScalarType) -> Option<&'static str> {
    use MathFn as M;
    let f32 = t == ScalarType::F32;
    Some(match func {
        M::Ln if f32 => "logf",
        M::Log2 if f32 => "log2f",
        M::Cbrt if f32 => "cbrtf",
        M::Exp if !f32 => "exp",
        M::Exp2 if !f32 => "exp2",
        M::Ln if !f32 => "log",
        M::Log2 if !f32 => "log2",
        M::Log10 if !f32 => "log10",
        M::Cbrt if !f32 => "cbrt",
        M::Cosh if !f32 => "cosh",
        M::Tanh if !f32 => "tanh",
        _ => return None,
    })
}

/// CUDA's f64 function for transcendental `func`, which an f32 `func` evaluates in f64 and
/// rounds once: the f64 functions are documented at most 2 ulp (of f64) from the exact value
/// (CUDA Math API, double-precision appendix), 2^-28 of an f32 ulp, so the rounded result is
/// within 0.5 + 2^-28 f32 ulp of the exact value, inside the 1-ulp contract. (The one way out
/// of it: an exact value within 2^-51 relative of the f32 overflow threshold, where the rounding
/// may give infinity for `f32::MAX` or the reverse.) Arguments widen exactly, and f64's range
/// keeps every f32 argument's intermediate results finite where the f32 result is.
fn f64_function(func: MathFn) -> Option<&'static str> {
    use MathFn as M;
    Some(match func {
        M::Sin => "sin",
        M::Cos => "cos",
        M::Tan => "tan",
        M::Asin => "asin",
        M::Acos => "acos",
        M::Atan => "atan",
        M::Atan2 => "atan2",
        M::Sinh => "sinh",
        M::Cosh => "cosh",
        M::Tanh => "tanh",
        M::Exp => "exp",
        M::Exp2 => "exp2",
        M::Ln => "log",
        M::Log2 => "log2",
        M::Log10 => "log10",
        M::Powf => "pow",
        M::Hypot => "hypot",
        M::Cbrt => "cbrt",
        _ => return None,
    })
}

/// Whether a kernel's call of `func` on `ty` is the software library's
/// (`rokkos_device::emit::softmath`): the f64 transcendental functions CUDA documents above 1 ulp.
pub(crate) fn software(func: MathFn, ty: ScalarType) -> bool {
    ty == ScalarType::F64 && func.is_transcendental() && libdevice(func, ty).is_none()
}

/// A call of `func` on `xs` (types `tys`, receiver first).
pub(crate) fn math(
    h: &mut Helpers,
    func: MathFn,
    tys: &[ScalarType],
    xs: &[String],
    checks: bool,
) -> R<String> {
    use MathFn as M;
    let t = tys[0];
    let tn = t.name();
    let x = xs[0].as_str();
    let a = |i: usize| xs[i].as_str();
    let f32 = t == ScalarType::F32;
    let cf = |name: &str| {
        if f32 {
            format!("{name}f")
        } else {
            name.to_string()
        }
    };
    let one = if f32 { "1.0f" } else { "1.0" };
    if func.is_transcendental() {
        if let Some(f) = libdevice(func, t) {
            return Ok(format!("{f}({x})"));
        }
        if let (true, Some(f)) = (f32, f64_function(func)) {
            let args: Vec<String> = xs.iter().map(|a| format!("(f64)({a})")).collect();
            return Ok(format!("((f32){f}({}))", args.join(", ")));
        }
        // The f64 functions CUDA documents above 1 ulp are the software library's, which the pass
        // before the walk ([`software`]) put in place of every call.
        return Err(EmitError::Unsupported(format!(
            "{t} `{}` reached the CUDA writer without the software library's pass",
            func.name()
        )));
    }
    Ok(match func {
        M::Sqrt => format!("{}({x})", cf("sqrt")),
        M::Powi => {
            let name = format!("rk_powi_{tn}");
            h.add(&name, || {
                format!(
                    "__device__ __forceinline__ {tn} {name}({tn} a, i32 b) {{\n    const bool recip = b < 0; {tn} r = {one};\n    for (;;) {{\n        if ((b & 1) != 0) {{ r = r * a; }}\n        b = b / 2;\n        if (b == 0) {{ break; }}\n        a = a * a;\n    }}\n    return recip ? {one} / r : r;\n}}\n"
                )
            });
            format!("{name}({x}, {})", a(1))
        }
        M::Abs if t.is_float() => format!("{}({x})", cf("fabs")),
        M::Abs if checks => format!("{}(P, {x})", checked_neg(h, t, true)),
        M::Abs => format!("(({x}) < 0 ? rk_wneg<{tn}>({x}) : ({x}))"),
        M::Min | M::Max if t.is_float() => {
            // A NaN operand gives the other one; of equal operands the receiver.
            let (nm, op) = if func == M::Min {
                ("min", "<")
            } else {
                ("max", ">")
            };
            let name = format!("rk_f{nm}_{tn}");
            h.add(&name, || {
                format!(
                    "__device__ __forceinline__ {tn} {name}({tn} x, {tn} y) {{\n    if (!(x == x) || y {op} x) {{ return y; }}\n    return x;\n}}\n"
                )
            });
            format!("{name}({x}, {})", a(1))
        }
        M::Min => format!("rk_imin<{tn}>({x}, {})", a(1)),
        M::Max => format!("rk_imax<{tn}>({x}, {})", a(1)),
        M::Clamp => {
            let code = codes::CLAMP_CODE + t as u32;
            let bits = |v: &str| match t {
                ScalarType::I32 => format!("(u64)(u32){v}"),
                ScalarType::I16 => format!("(u64)(u16){v}"),
                ScalarType::I8 => format!("(u64)(u8){v}"),
                ScalarType::F32 => format!("(u64)__float_as_uint({v})"),
                ScalarType::F64 => format!("(u64)__double_as_longlong({v})"),
                _ => format!("(u64){v}"),
            };
            let name = format!("rk_clamp_{tn}");
            h.add(&name, || {
                format!(
                    "__device__ __forceinline__ {tn} {name}(const rk_P& P, {tn} x, {tn} lo, {tn} hi) {{\n    if (!(lo <= hi)) {{ if (rk_oob_begin(P, {code}u, 2u)) {{ rk_oob_idx(P, 0u, {}); rk_oob_idx(P, 1u, {}); }} }}\n    if (x < lo) {{ return lo; }}\n    if (x > hi) {{ return hi; }}\n    return x;\n}}\n",
                    bits("lo"),
                    bits("hi")
                )
            });
            format!("{name}(P, {x}, {}, {})", a(1), a(2))
        }
        M::Floor => format!("{}({x})", cf("floor")),
        M::Ceil => format!("{}({x})", cf("ceil")),
        M::Trunc => format!("{}({x})", cf("trunc")),
        // C's round is half away from zero, as Rust's.
        M::Round => format!("{}({x})", cf("round")),
        M::Fract => {
            let name = format!("rk_fract_{tn}");
            h.add(&name, || {
                format!(
                    "__device__ __forceinline__ {tn} {name}({tn} x) {{ return x - {}(x); }}\n",
                    cf("trunc")
                )
            });
            format!("{name}({x})")
        }
        M::MulAdd => format!("{}({x}, {}, {})", cf("fma"), a(1), a(2)),
        M::Signum if t.is_float() => {
            // NaN stays NaN; otherwise 1 with the sign of `x` (zeros included), as Rust.
            let name = format!("rk_signum_{tn}");
            h.add(&name, || {
                format!(
                    "__device__ __forceinline__ {tn} {name}({tn} x) {{\n    if (!(x == x)) {{ return x; }}\n    return {}({one}, x);\n}}\n",
                    cf("copysign")
                )
            });
            format!("{name}({x})")
        }
        M::Signum => format!("(({tn})((({x}) > 0) - (({x}) < 0)))"),
        M::Recip => format!("({one} / {x})"),
        // NVRTC compiles without fast-math (no --use_fast_math), so these test the bits.
        M::IsNan => format!("((bool)isnan({x}))"),
        M::IsFinite => format!("((bool)isfinite({x}))"),
        // CUDA's reinterpreting intrinsics keep every bit (no conversion, no NaN quieting).
        M::ToBits if f32 => format!("((u32)__float_as_uint({x}))"),
        M::ToBits => format!("((u64)__double_as_longlong({x}))"),
        M::FromBits if t == ScalarType::U32 => format!("__uint_as_float({x})"),
        M::FromBits => format!("__longlong_as_double((long long)({x}))"),
        _ => return Err(EmitError::Unsupported(format!("`{}` on CUDA", func.name()))),
    })
}
