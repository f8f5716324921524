//! The names the generated source declares. Every one is a short prefix and a number, so no name
//! of one kind can be another kind's, nor a keyword of a target ([`collides`] checks the prefixes
//! against a target's reserved words).

use rokkos_core::ir::{AccField, Kernel};

/// Local variable `i` of the body or of a function.
pub fn local(i: u32) -> String {
    format!("l{i}")
}
/// Parameter `i` of a kernel function.
pub fn fn_param(i: u32) -> String {
    format!("p{i}")
}
/// Kernel function `n`.
pub fn function(n: usize) -> String {
    format!("uf{n}")
}
/// Constant table `i`.
pub fn table(i: u32) -> String {
    format!("ct{i}")
}
/// Component `k` of the work index.
pub fn work(k: u32) -> String {
    format!("w{k}")
}
/// Accumulator slot `i` (see [`acc_slot`]).
pub fn acc(i: usize) -> String {
    format!("a{i}")
}
/// Temporary `n` of a body.
pub fn tmp(n: u32) -> String {
    format!("t{n}")
}
/// View parameter `k`'s storage.
pub fn view(k: usize) -> String {
    format!("v{k}")
}
/// The field of the parameter block with scalar parameter `p`.
pub fn scalar(p: u32) -> String {
    format!("s{p}")
}
/// The field of the parameter block with extent `d` of View `k`.
pub fn extent(k: usize, d: usize) -> String {
    format!("v{k}_e{d}")
}
/// The field of the parameter block with stride `d` of View `k`.
pub fn stride(k: usize, d: usize) -> String {
    format!("v{k}_s{d}")
}
/// The field of the parameter block with the element offset of View `k`.
pub fn offset(k: usize) -> String {
    format!("v{k}_off")
}

/// The private slot of an accumulator field: its position among the kernel's fields.
pub fn acc_slot(k: &Kernel, f: AccField) -> usize {
    k.acc_fields()
        .iter()
        .position(|(g, _)| *g == f)
        .unwrap_or(0)
}

/// Whether a generated name (a prefix of letters then digits) can equal one of `keywords`: a
/// keyword that is letters then digits with one of the prefixes above.
pub fn collides(keywords: &[&str]) -> Option<String> {
    const PREFIXES: [&str; 7] = ["l", "p", "uf", "w", "a", "t", "ct"];
    keywords
        .iter()
        .find(|kw| {
            let digits = kw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let prefix = &kw[..kw.len() - digits.len()];
            !digits.is_empty()
                && digits.chars().all(|c| c.is_ascii_digit())
                && (PREFIXES.contains(&prefix) || prefix == "v" || prefix == "s")
        })
        .map(|s| s.to_string())
}
