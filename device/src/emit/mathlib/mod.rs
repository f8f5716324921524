//! The software math library of the GPU targets, written once in WGSL: exact building blocks
//! ([`exact`]), the f32 and f64 transcendental functions ([`f32`](mod@f32), [`f64`](mod@f64)) and what the libraries share
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

/// Defines a library's `call`: the transcendental functions both libraries implement, each by the
/// module's function of that name (which registers its helpers and returns the helper's name).
macro_rules! library_call {
    ($t:literal) => {
        #[doc = concat!("A call of the ", $t, " transcendental function `func` on `xs` (receiver ")]
        #[doc = "first), or `None` for a function this library does not implement (every other"]
        #[doc = "function has an exact WGSL spelling)."]
        pub fn call(h: &mut impl MathHelpers, func: MathFn, xs: &[String]) -> Option<String> {
            use MathFn as M;
            let name = match func {
                M::Cbrt => cbrt(h),
                M::Sin => sin(h),
                M::Cos => cos(h),
                M::Tan => tan(h),
                M::Asin => asin(h),
                M::Acos => acos(h),
                M::Atan => atan(h),
                M::Atan2 => atan2(h),
                M::Sinh => sinh(h),
                M::Cosh => cosh(h),
                M::Tanh => tanh(h),
                M::Exp => exp(h),
                M::Exp2 => exp2(h),
                M::Ln => ln(h),
                M::Log2 => log2(h),
                M::Log10 => log10(h),
                M::Powf => powf(h),
                M::Hypot => hypot(h),
                _ => return None,
            };
            Some(format!("{name}({})", xs.join(", ")))
        }
    };
}

/// Defines a library's `sin`, `cos` and `tan` (and their shared start, `trig`) on the library's
/// own `rem_pio2`, `sin_kernel`, `cos_kernel` and `div_dd`: the two libraries differ in those
/// cores, not in how the three functions stand on them.
macro_rules! trig_functions {
    ($t:literal) => {
        /// The shared start of sin, cos and tan: `NaN` and `±∞` give NaN.
        fn trig(h: &mut impl MathHelpers, name: &str, tiny: &str, body: &str) -> String {
            rem_pio2(h);
            sin_kernel(h);
            cos_kernel(h);
            def(h, name, &templates::trig(name, tiny, body), &[])
        }

        fn sin(h: &mut impl MathHelpers) -> String {
            let (tiny, body) = templates::SIN;
            trig(h, concat!("rk_", $t, "_sin"), tiny, body)
        }

        fn cos(h: &mut impl MathHelpers) -> String {
            let (tiny, body) = templates::COS;
            trig(h, concat!("rk_", $t, "_cos"), tiny, body)
        }

        fn tan(h: &mut impl MathHelpers) -> String {
            div_dd(h);
            let (tiny, body) = templates::TAN;
            trig(h, concat!("rk_", $t, "_tan"), tiny, body)
        }
    };
}

pub mod exact;
pub mod f32;
pub mod f64;
#[cfg(test)]
mod snapshot;
mod templates;

use rokkos_core::ir::{ScalarType, Value};

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

/// `src` in float type `t` (`f32` or `f64`): the templates both libraries share ([`templates`])
/// write `@T` for the type, `@F` for its literal suffix, `@DD` for the name of its pairs
/// (double-float, double-double), `@ISNAN(v)` and `@SIGNBIT(v)` for the tests of `v`'s bits.
/// Text without `@` is returned as it is.
pub(crate) fn typed(src: &str, t: ScalarType) -> String {
    if !src.contains('@') {
        return src.to_string();
    }
    let f32 = t == ScalarType::F32;
    let mut out = String::with_capacity(src.len() + 64);
    let mut rest = src;
    while let Some(p) = rest.find('@') {
        out.push_str(&rest[..p]);
        let tail = &rest[p + 1..];
        let end = tail
            .find(|c: char| !c.is_ascii_uppercase())
            .unwrap_or(tail.len());
        let (word, after) = tail.split_at(end);
        // `@ISNAN(v)` and `@SIGNBIT(v)` take a plain name as their argument.
        let arg = || {
            let close = after.find(')').expect("a closing parenthesis");
            (&after[1..close], &after[close + 1..])
        };
        rest = match word {
            "T" => {
                out.push_str(if f32 { "f32" } else { "f64" });
                after
            }
            "F" => {
                out.push_str(if f32 { "f" } else { "lf" });
                after
            }
            "DD" => {
                out.push_str(if f32 { "double-float" } else { "double-double" });
                after
            }
            "ISNAN" => {
                let (v, after) = arg();
                out.push_str(&if f32 {
                    format!("((bitcast<u32>({v}) & 0x7fffffffu) > 0x7f800000u)")
                } else {
                    format!("((bitcast<u64>({v}) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu)")
                });
                after
            }
            "SIGNBIT" => {
                let (v, after) = arg();
                out.push_str(&if f32 {
                    format!("(bitcast<u32>({v}) >> 31u) == 1u")
                } else {
                    format!("(bitcast<u64>({v}) >> 63u) == 1lu")
                });
                after
            }
            _ => panic!("unknown template word @{word}"),
        };
    }
    out.push_str(rest);
    out
}

/// A library's helper text: [`template`] of [`typed`]`(src, t)`, the call's own `snippets` first,
/// then the library's textual parameters `params` (thresholds spelled as the library always wrote
/// them, the name of its scaling helper), then its named constants.
pub(crate) fn library_text(
    src: &str,
    t: ScalarType,
    snippets: &[(&str, String)],
    params: &[(&str, &str)],
    constant: impl Fn(&str) -> Option<Value>,
) -> String {
    let all: Vec<(&str, String)> = snippets
        .iter()
        .cloned()
        .chain(params.iter().map(|&(n, v)| (n, v.to_string())))
        .collect();
    template(&typed(src, t), &all, constant)
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
