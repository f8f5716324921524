//! The index arithmetic of View accesses, for every target: element `idx` of View parameter `k` is
//! element `off_k + Σ idx[d] · stride_k[d]` of its storage, in bounds when `idx[d] < extent_k[d]`
//! for every `d` (indices are unsigned 64-bit: a negative signed index is huge and out of bounds).

use super::names;

/// How a target spells the pieces of an access.
pub struct Spelling<'a> {
    /// The parameter block field `name` (`P.name`).
    pub field: &'a dyn Fn(&str) -> String,
    /// Narrowing of a 64-bit value to the 32-bit address type, when addresses are 32-bit.
    pub narrow: Option<&'a dyn Fn(&str) -> String>,
}

/// `off + Σ i_d · s_d` of View `k` with index variables `i0, i1, ..`, in the address type the
/// spelling says (64-bit, or 32-bit with every term narrowed).
pub fn offset_sum(k: usize, rank: usize, sp: &Spelling<'_>) -> String {
    let f = |n: String| (sp.field)(&n);
    let cast = |e: String| match sp.narrow {
        Some(n) => n(&e),
        None => e,
    };
    let mut s = cast(f(names::offset(k)));
    for d in 0..rank {
        s.push_str(&format!(
            " + {} * {}",
            cast(format!("i{d}")),
            cast(f(names::stride(k, d)))
        ));
    }
    s
}

/// The out-of-bounds conditions `i_d >= e_d` of View `k` (index variables `i0, i1, ..`).
pub fn oob_conditions(k: usize, rank: usize, sp: &Spelling<'_>) -> Vec<String> {
    (0..rank)
        .map(|d| format!("i{d} >= {}", (sp.field)(&names::extent(k, d))))
        .collect()
}

/// The element offset at the bare work index `w0` of a rank-1 View whose range was proven inside
/// its extent: `off + w0 · s0`, narrowed to 32 bits.
pub fn bare_offset(k: usize, sp: &Spelling<'_>) -> String {
    let f = |n: String| (sp.field)(&n);
    let cast = |e: String| match sp.narrow {
        Some(n) => n(&e),
        None => e,
    };
    format!(
        "{} + {} * {}",
        cast(f(names::offset(k))),
        cast(names::work(0)),
        cast(f(names::stride(k, 0)))
    )
}
