//! Casts (`Expr::Cast`) with Rust `as` semantics.
//!
//! Integer to integer keeps or truncates the two's-complement bits (sign-extending from signed
//! sources); `bool` to integer is 0/1; integer to float rounds to nearest; float to integer truncates
//! toward zero and *saturates*, NaN giving 0 (WGSL's own conversion is undefined out of range, so a
//! helper checks the bounds first).

use super::{packed, EmitError, Helpers};
use rokkos_core::ir::{ScalarType, Value};

/// `a as to`, with `a: from`.
pub(crate) fn cast(
    h: &mut Helpers,
    from: ScalarType,
    to: ScalarType,
    a: &str,
) -> Result<String, EmitError> {
    use ScalarType as T;
    if from == to {
        return Ok(a.to_string());
    }
    Ok(match (from, to) {
        (T::Bool, t) if t.is_int() => format!(
            "select({}, {}, {a})",
            super::lit(Value::from_bits(t, 0)),
            super::lit(Value::from_bits(t, 1))
        ),
        // `i8` / `i16` are `i32`s in range (`emit::packed`): cast as an `i32`, then keep the
        // target's bits, sign-extended.
        (f, t) if f.is_int() && packed::is_signed_packed(t) => {
            packed::wrap_signed(t, &int_to_int(widened(f), T::I32, a))
        }
        // `u8` / `u16` are `u32`s in range: cast as a `u32`, then keep the target's bits.
        (f, t) if f.is_int() && packed::is_packed(t) => {
            format!(
                "({} & {})",
                int_to_int(widened(f), T::U32, a),
                packed::max_lit(t)
            )
        }
        (f, t) if f.is_int() && t.is_int() => int_to_int(widened(f), t, a),
        (f, t) if f.is_int() && t.is_float() => format!("{}({a})", t.name()),
        (f, t) if f.is_float() && t.is_float() => format!("{}({a})", t.name()),
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

/// Integer to integer, every pair spelled out: a widening conversion in WGSL (SPIR-V
/// `OpSConvert` / `OpUConvert`) extends by the sign of the *target* type, so a widening from a
/// signed source first widens within the signed types and one from an unsigned source within the
/// unsigned types; narrowing keeps the low bits; same-width conversions reinterpret the bits.
fn int_to_int(f: ScalarType, t: ScalarType, a: &str) -> String {
    use ScalarType as T;
    match (f, t) {
        // Sign-extend (from a signed source), then reinterpret.
        (T::I32, T::I64) => format!("i64({a})"),
        (T::I32, T::U64) => format!("u64(i64({a}))"),
        // Zero-extend (from an unsigned source), then reinterpret.
        (T::U32, T::U64) => format!("u64({a})"),
        (T::U32, T::I64) => format!("i64(u64({a}))"),
        // Same width: the bits.
        (T::I32, T::U32) => format!("bitcast<u32>({a})"),
        (T::U32, T::I32) => format!("bitcast<i32>({a})"),
        (T::I64, T::U64) => format!("bitcast<u64>({a})"),
        (T::U64, T::I64) => format!("bitcast<i64>({a})"),
        // Truncate in the unsigned type, then reinterpret.
        (T::I64 | T::U64, T::U32) => format!("u32({a})"),
        (T::I64 | T::U64, T::I32) => format!("bitcast<i32>(u32({a}))"),
        _ => format!("{}({a})", t.name()),
    }
}

/// The WGSL type a value of `t` is held in, as a cast source: `u8` / `u16` are in-range `u32`s,
/// `i8` / `i16` in-range `i32`s.
fn widened(t: ScalarType) -> ScalarType {
    if packed::is_signed_packed(t) {
        ScalarType::I32
    } else if packed::is_packed(t) {
        ScalarType::U32
    } else {
        t
    }
}

fn float_lit(t: ScalarType, x: f64) -> String {
    if t == ScalarType::F32 {
        super::lit(Value::F32(x as f32))
    } else {
        super::lit(Value::F64(x))
    }
}

fn float_to_int(name: &str, f: ScalarType, t: ScalarType) -> String {
    let sat = rokkos_device::emit::rules::saturation(t);
    let (max, min, upper) = (super::lit(sat.max), super::lit(sat.min), sat.upper);
    let low_test = if sat.lower_inclusive {
        format!("x <= {}", float_lit(f, sat.lower))
    } else {
        format!("x < {}", float_lit(f, sat.lower))
    };
    format!(
        "fn {name}(x: {ft}) -> {tt} {{\n    if ({nan}) {{ return {zero}; }}\n    if (x >= {up}) {{ return {max}; }}\n    if ({low_test}) {{ return {min}; }}\n    return {tt}(x);\n}}\n",
        ft = f.name(),
        tt = super::wty(t),
        zero = super::lit(Value::from_bits(t, 0)),
        up = float_lit(f, upper),
        nan = super::math::nan_bits_test(f, "x"),
    )
}
