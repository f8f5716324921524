//! WGSL's spelling of IR constants.

use rokkos_core::ir::Value;

/// The WGSL literal of `v`: suffixed by type (`1i`, `2u`, `3li`, `4lu`, `1.5f`, `1.5lf`), floats
/// in Rust's shortest round-trip text (scientific notation, so that no huge digit string appears),
/// non-finite ones through their bits.
pub fn lit(v: Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::I32(x) if x == i32::MIN => "(-2147483647i - 1i)".into(),
        Value::I32(x) => format!("{x}i"),
        Value::U32(x) => format!("{x}u"),
        Value::U8(x) => format!("{x}u"),
        Value::U16(x) => format!("{x}u"),
        // `i8` / `i16` are `i32`s in WGSL (`emit::packed`).
        Value::I8(x) => format!("{x}i"),
        Value::I16(x) => format!("{x}i"),
        Value::I64(x) if x == i64::MIN => "(-9223372036854775807li - 1li)".into(),
        Value::I64(x) => format!("{x}li"),
        Value::U64(x) => format!("{x}lu"),
        Value::F32(x) if x.is_finite() => format!(
            "{}f",
            float_text(x == 0.0, x.is_sign_negative(), format!("{x:e}"))
        ),
        Value::F32(x) => format!("rk_f32_bits({}u)", x.to_bits()),
        Value::F64(x) if x.is_finite() => format!(
            "{}lf",
            float_text(x == 0.0, x.is_sign_negative(), format!("{x:e}"))
        ),
        // Non-finite f64 constants: widened from f32 (exact for infinities; NaN stays a NaN).
        Value::F64(x) => format!(
            "f64(rk_f32_bits({}u))",
            if x.is_nan() {
                f32::NAN.to_bits()
            } else if x > 0.0 {
                f32::INFINITY.to_bits()
            } else {
                f32::NEG_INFINITY.to_bits()
            }
        ),
    }
}

/// A decimal text of a finite float that reads back exactly (Rust's shortest round-trip form, in
/// scientific notation so that WGSL never sees a huge digit string).
fn float_text(zero: bool, negative: bool, sci: String) -> String {
    if zero {
        return if negative { "-0.0" } else { "0.0" }.into();
    }
    sci
}
