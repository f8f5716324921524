//! The software math library of the GPU targets, written once in WGSL: exact building blocks
//! ([`exact`]), the f32 and f64 transcendental functions ([`f32`], [`f64`]) and what the libraries share
//! (templates whose `$NAME`s are a library's named constants, printed through [`lit`] so that
//! nothing is rounded twice, or generated snippets; Horner polynomials; the digits of 2/π).
//!
//! # One source, two targets
//!
//! The WGSL target uses the text as it is. The CUDA target (`rokkos-cuda`) lowers it to CUDA C++
//! (its `emit::wgsl_c`): the library uses a small subset of WGSL (`fn`, `let`, `var`, `loop`,
//! `for`, `if`, `bitcast`, `select`, `vec2`/`vec3`, literal suffixes, a module-scope constant
//! array), each with a direct C++ spelling, and that lowering is tested on its own (host C++
//! compiler against Rust's `std`, NVRTC and ptxas). Keeping the algorithms in one language, rather
//! than in templates spelled through target-neutral macros, keeps their text readable as the
//! algorithms they are, and the WGSL output byte-identical to what `tests/math_f64.rs` checked on
//! lavapipe. Each helper is registered through [`MathHelpers::add_wgsl`], which each target
//! implements: the WGSL one stores the text, the CUDA one stores its lowering.

pub mod exact;
pub mod f32;
pub mod f64;
#[cfg(test)]
mod snapshot;

use crate::ir::Value;

/// A target's accumulator of helper definitions, as the math library sees it.
pub trait MathHelpers {
    /// Registers the helper functions that `wgsl` writes (WGSL text, one or more `fn`s and
    /// module-scope `const`s) under `name`, unless `name` is present; returns `name`.
    fn add_wgsl(&mut self, name: &str, wgsl: impl FnOnce() -> String) -> String;
}

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

/// `src` with every `$NAME` replaced: by the snippet `NAME` of `snippets`, else by the WGSL literal
/// of `constant(NAME)`. A name neither knows is a bug in a template (the templates are constants
/// of the libraries), hence the panic.
pub fn template(
    src: &str,
    snippets: &[(&str, String)],
    constant: impl Fn(&str) -> Option<Value>,
) -> String {
    let mut out = String::with_capacity(src.len() + 256);
    let mut rest = src;
    while let Some(p) = rest.find('$') {
        out.push_str(&rest[..p]);
        let tail = &rest[p + 1..];
        let end = tail
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        match snippets.iter().find(|(n, _)| *n == name) {
            Some((_, s)) => out.push_str(s),
            None => out.push_str(&lit(
                constant(name).unwrap_or_else(|| panic!("unknown constant ${name}"))
            )),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// A Horner evaluation of `Σ c[i]·xⁱ` with `fma` (fused or not: both are accurate enough for the
/// polynomial parts, whose rounding errors the libraries' error budgets include).
pub fn horner(x: &str, c: &[Value]) -> String {
    let mut it = c.iter().rev();
    let mut s = lit(*it.next().expect("a coefficient"));
    for &ci in it {
        s = format!("fma({s}, {x}, {})", lit(ci));
    }
    s
}

/// `1/k!` as `f64` (k! is exact in `f64` up to 22!, so this is rounded once).
pub fn inv_factorial(k: u32) -> f64 {
    1.0 / (1..=k).map(f64::from).product::<f64>()
}

/// The binary digits of 2/π, 32 per word, after the binary point (the Payne–Hanek reductions of
/// both libraries read them).
pub const TWO_OVER_PI: [u32; 37] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];
