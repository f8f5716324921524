//! What the f32 and f64 math libraries ([`super::math_f32`], [`super::math_f64`]) share: WGSL
//! templates whose `$NAME`s are a library's named constants (printed through [`super::lit`], so
//! nothing is rounded twice) or generated snippets, and Horner polynomials.

use super::lit;
use rokkos_core::ir::Value;

/// `src` with every `$NAME` replaced: by the snippet `NAME` of `snippets`, else by the WGSL literal
/// of `constant(NAME)`. A name neither knows is a bug in a template (the templates are constants
/// of this crate), hence the panic.
pub(crate) fn template(
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
pub(crate) fn horner(x: &str, c: &[Value]) -> String {
    let mut it = c.iter().rev();
    let mut s = lit(*it.next().expect("a coefficient"));
    for &ci in it {
        s = format!("fma({s}, {x}, {})", lit(ci));
    }
    s
}

/// `1/k!` as `f64` (k! is exact in `f64` up to 22!, so this is rounded once).
pub(crate) fn inv_factorial(k: u32) -> f64 {
    1.0 / (1..=k).map(f64::from).product::<f64>()
}

/// The binary digits of 2/π, 32 per word, after the binary point (the Payne–Hanek reductions of
/// both libraries read them).
pub(crate) const TWO_OVER_PI: [u32; 37] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046,
];
