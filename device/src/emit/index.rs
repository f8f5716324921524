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
    let vars: Vec<String> = (0..rank).map(|d| format!("i{d}")).collect();
    offset_at(k, &vars, sp)
}

/// `off + Σ idx[d] · s_d` of View `k` at the index expressions `idx` (one per dimension), in the
/// address type the spelling says: the offset helpers' sum, and the element of an access the
/// launcher proved in bounds ([`super::inbounds`]), which is emitted without a helper.
pub fn offset_at(k: usize, idx: &[String], sp: &Spelling<'_>) -> String {
    let f = |n: String| (sp.field)(&n);
    let cast = |e: String| match sp.narrow {
        Some(n) => n(&e),
        None => e,
    };
    let mut s = cast(f(names::offset(k)));
    for (d, i) in idx.iter().enumerate() {
        s.push_str(&format!(
            " + {} * {}",
            cast(i.clone()),
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
