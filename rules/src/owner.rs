//! The owner-computes rule's core: when does an index make a plain access to a writable View the
//! work item's alone.
//!
//! Work items run in parallel, so a plain write (or a read of a View the kernel writes) is
//! race-free when no two work items can reach the same element. The rule proves it by
//! injectivity: every *owned name* (the work index of a range, each work index of an MDRange,
//! the league rank of a team kernel) appears in some component of the index, either
//!
//! * [`Form::Direct`]: as itself (`v[i]`), or
//! * [`Form::Through`]: through an injective map of it (`v[idx[i] as usize]`, `idx` an
//!   `InjectiveView`, whose entries are checked pairwise distinct and non-negative when it is
//!   made and never written afterwards; `as usize` of a non-negative 32-bit integer is the
//!   identity on its value).
//!
//! * [`Form::InRange`]: as a sample of range `name` of a `DisjointRanges` (a value of
//!   `first(name)..=last(name)`): the ranges are pairwise disjoint, so the sample determines the
//!   range it lies in;
//! * [`Form::Offset`]: as the `k` of a sample `first(v) + k` guarded by `<= last(v)` (the same
//!   component holds `v` in [`Form::InRange`]): the sample determines `v`, so `k = s - first(v)`;
//! * [`Form::Split`]: jointly, as `name / x` and `name % x` (each held in some component, and
//!   tracked under its own name) for one launch-constant `x`: `name = (name / x) * x + name % x`.
//!   The macro puts this holding in a pseudo component after the real ones.
//! * [`Form::Affine`]: as `a * name + b` (or `name + b`, `b - name`, `a * name`, ...) for an
//!   integer literal `a != 0` and a launch constant `b` (a literal, a scalar parameter, a View
//!   parameter's extent, or arithmetic on those), named by its text `a*·+b`. The index
//!   arithmetic is modulo 2^64 in release builds, and there `x ↦ x + b` and, for odd `a`,
//!   `x ↦ a·x` are bijections, so the map is injective on every value of `name`. An even `a`
//!   loses that (`2·2^63 = 0`), so the macro replaces the component by `usize::MAX` (out of
//!   bounds of every View, whose extents are below `isize::MAX`) for `name > usize::MAX / |a|`:
//!   on the values left `a·name` is exact, hence injective, and those work items fail instead
//!   of meeting. Two accesses share the form only with the same text, so `v[i]` and `v[i + 1]`
//!   (work items `i + 1` and `i` meet) are refused together.
//! * [`Form::Block`]: as the index of a nested range over `first..end` with `first = name * R`
//!   and `end <= first + R` (`(first + R).min(n)`), `R` a launch constant: the rows of a team in
//!   Kokkos' rows-per-team SpMV. The blocks `[name·R, name·R + R)` are disjoint, so the index
//!   determines `name = index / R`. The macro empties the range where `name * R` or `first + R`
//!   would wrap, and `R == 0` gives empty ranges.
//!
//! * [`Form::Radix`]: as the high digit of `a * name + d` (or `d + a * name`, `name * a + d`) for
//!   a power-of-two literal `a >= 2` and a digit `d` known to lie in `[0, a)` (a literal below
//!   `a`, or the index of a `for` loop or nested range over `0..K` with a literal `K <= a`):
//!   `name = c / a` whatever the digit, so the blocks of `a` values are each one name's. `a` is
//!   even, so the macro guards `a * name` against wrapping as for [`Form::Affine`]; once it does
//!   not wrap, adding `d < a` cannot either (`a` divides 2^64). The form's text is `a`, so `v[a *
//!   i + r]` and `v[a * i + c]` share it (any digit below `a` keeps the blocks apart) and `v[a *
//!   i + b]` with a launch-constant `b` (an affine map) does not. The digit is held too, for the
//!   nested-range rule of team kernels: `a * o + r` with `r` the thread index is distinct for
//!   distinct `r` whatever `o` is (even when `a * o` wraps, its remainder by `a` is `r`).
//!
//! Then the element determines every owned name, so distinct work items reach distinct
//! elements. Compositions the rule does not know (`idx[i] + 1`, `idx[idx2[i]]`, `idx[i + 1]`,
//! `idx[k]` with `k` not owned, a lookup in a View that is not injective) are not owned.
//!
//! Across the accesses of one kernel to one View the argument needs more: `v[i]` in one access
//! and `v[idx[i] as usize]` in another let work item `idx[0]` and work item `0` meet, and so do
//! `v[(i, k)]` and `v[(k, i)]`. So [`Positions`] keeps, per View and owned name, the
//! (position, form) pairs that every access so far holds it at; an access that shares none of
//! them is refused. With one shared pair `(p, f)`, two accesses reaching the same element agree in
//! component `p`, so `f(a) = f(b)` and the owned names `a`, `b` are equal (`f` is injective).
//!
//! `#[kernel]` classifies the components of each index from the syntax (the IR records the same
//! accesses, but not which ones the author took responsibility for in `unsafe`, so the rule is
//! enforced at compile time only).

use std::collections::HashMap;
use std::hash::Hash;

/// How a component holds an owned name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form<V> {
    /// The name itself.
    Direct,
    /// The entry of injective index View `V` at the name.
    Through(V),
    /// A sample of the range the name indexes in the disjoint ranges `V`.
    InRange(V),
    /// The offset of a sample from the first index of its range in the disjoint ranges `V`,
    /// guarded to stay in that range.
    Offset(V),
    /// Jointly through its quotient and remainder by `V` (a launch-constant's text).
    Split(V),
    /// Through the affine map `a·name + b` named by `V` (its text, `a` a non-zero literal, `b` a
    /// launch constant), guarded against wrapping when `a` is even.
    Affine(V),
    /// A value of `[name·R, name·R + R)`, `R` the launch constant named by `V`.
    Block(V),
    /// The high digit of `a·name + d`, `a` the power-of-two literal named by `V` and `d` a digit
    /// known to lie in `[0, a)`.
    Radix(V),
}

/// One component of an index, as the rule sees it: the owned names it holds (none: it says
/// nothing about who owns the element), each with its form. A sample `first(v) + k` holds two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part<N, V> {
    /// (owned name, how the component holds it).
    pub holds: Vec<(N, Form<V>)>,
}

impl<N, V> Part<N, V> {
    /// A component that holds no owned name.
    pub fn other() -> Self {
        Part { holds: Vec::new() }
    }

    /// A component that holds `name` in form `form`.
    pub fn owned(name: N, form: Form<V>) -> Self {
        Part {
            holds: vec![(name, form)],
        }
    }

    /// True when the component holds `name` in some form.
    pub fn holds(&self, name: &N) -> bool
    where
        N: PartialEq,
    {
        self.holds.iter().any(|(n, _)| n == name)
    }
}

/// The names of `required` that no component of `parts` holds, in `required`'s order.
pub fn missing<'r, N: PartialEq, V>(parts: &[Part<N, V>], required: &'r [N]) -> Vec<&'r N> {
    required
        .iter()
        .filter(|r| !parts.iter().any(|p| p.holds(r)))
        .collect()
}

/// Where an index holds an owned name: (component position, form).
pub type Holding<V> = (usize, Form<V>);

/// Per (View, owned name): the (position, form) pairs every access so far holds the name at.
#[derive(Clone, Debug)]
pub struct Positions<W, N, V> {
    seen: HashMap<(W, N), Vec<Holding<V>>>,
}

impl<W, N, V> Default for Positions<W, N, V> {
    fn default() -> Self {
        Positions {
            seen: HashMap::new(),
        }
    }
}

impl<W: Hash + Eq, N: Hash + Eq + Clone, V: Clone + PartialEq> Positions<W, N, V> {
    /// Records an access to `view` whose index holds `name` somewhere in `parts`. `Ok(true)` when
    /// it shares a (position, form) with every earlier access to `view` holding `name` (or is the
    /// first), `Ok(false)` when `parts` does not hold `name` (nothing recorded), and `Err` with the
    /// pairs the earlier accesses shared when it shares none: two work items could meet.
    pub fn record(
        &mut self,
        view: W,
        name: &N,
        parts: &[Part<N, V>],
    ) -> Result<bool, Vec<Holding<V>>> {
        let here: Vec<Holding<V>> = parts
            .iter()
            .enumerate()
            .flat_map(|(p, part)| {
                part.holds
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(move |(_, form)| (p, form.clone()))
            })
            .collect();
        if here.is_empty() {
            return Ok(false);
        }
        match self.seen.entry((view, name.clone())) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(here);
                Ok(true)
            }
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let prev = e.get_mut();
                let common: Vec<_> = prev.iter().filter(|x| here.contains(x)).cloned().collect();
                if common.is_empty() {
                    return Err(prev.clone());
                }
                *prev = common;
                Ok(true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type P = Part<&'static str, &'static str>;

    fn direct(n: &'static str) -> P {
        Part::owned(n, Form::Direct)
    }

    fn through(v: &'static str, n: &'static str) -> P {
        Part::owned(n, Form::Through(v))
    }

    fn sample(r: &'static str, v: &'static str, k: &'static str) -> P {
        Part {
            holds: vec![(v, Form::InRange(r)), (k, Form::Offset(r))],
        }
    }

    #[test]
    fn every_owned_name_must_appear_in_some_form() {
        let req = ["d", "s"];
        assert!(missing(&[through("idx", "d"), direct("s")], &req).is_empty());
        assert_eq!(
            missing(&[through("idx", "d"), P::other()], &req),
            vec![&"s"]
        );
        assert_eq!(missing::<_, &str>(&[P::other()], &req), vec![&"d", &"s"]);
    }

    #[test]
    fn accesses_to_one_view_share_a_position_and_form() {
        let mut p = Positions::default();
        let a = [through("idx", "d"), direct("s")];
        assert_eq!(p.record("out", &"d", &a), Ok(true));
        assert_eq!(p.record("out", &"d", &a), Ok(true));
        // The same name directly: work item idx[0] and work item 0 could meet.
        assert!(p.record("out", &"d", &[direct("d"), direct("s")]).is_err());
        // Another injective View: idx[0] == idx2[1] is possible.
        assert!(p
            .record("out", &"d", &[through("idx2", "d"), direct("s")])
            .is_err());
        // Another position.
        assert!(p
            .record("out", &"d", &[direct("s"), through("idx", "d")])
            .is_err());
        // Other Views are independent; an index without the name records nothing.
        assert_eq!(p.record("other", &"d", &[direct("d")]), Ok(true));
        assert_eq!(p.record("out", &"d", &[P::other()]), Ok(false));
    }

    #[test]
    fn shared_pairs_narrow() {
        let mut p = Positions::default();
        let both = [through("idx", "d"), through("idx", "d")];
        assert_eq!(p.record("m", &"d", &both), Ok(true));
        assert_eq!(
            p.record("m", &"d", &[through("idx", "d"), P::other()]),
            Ok(true)
        );
        // Only position 0 is shared by every access now.
        assert_eq!(
            p.record("m", &"d", &[P::other(), through("idx", "d")]),
            Err(vec![(0, Form::Through("idx"))])
        );
    }

    #[test]
    fn affine_maps_share_a_form_only_with_the_same_coefficients() {
        let affine = |t: &'static str| Part::owned("i", Form::Affine(t));
        let mut p = Positions::default();
        assert_eq!(p.record("y", &"i", &[affine("2*i+(1)")]), Ok(true));
        assert_eq!(p.record("y", &"i", &[affine("2*i+(1)")]), Ok(true));
        // `y[i]` and `y[2 * i + 1]`: work items 1 and 0 meet at element 1.
        assert!(p.record("y", &"i", &[direct("i")]).is_err());
        // `y[2 * i]` and `y[2 * i + 1]` never meet, but the rule does not compare maps: one
        // shared form per View is the whole argument.
        assert!(p.record("y", &"i", &[affine("2*i+(0)")]).is_err());
        assert!(missing(&[affine("1*i-(off)")], &["i"]).is_empty());
    }

    #[test]
    fn a_sample_holds_its_range_and_offset() {
        let req = ["d", "v", "k"];
        let a = [through("rows", "d"), sample("iv", "v", "k")];
        assert!(missing(&a, &req).is_empty());
        assert_eq!(missing(&a[1..], &req), vec![&"d"]);
        let mut p = Positions::default();
        for n in &req {
            assert_eq!(p.record("out", n, &a), Ok(true));
        }
        // The same range index directly at the sample's position: sample 3 of range 0 and
        // range index 3 could meet.
        assert!(p
            .record("out", &"v", &[through("rows", "d"), direct("v")])
            .is_err());
        // Samples of other ranges.
        assert!(p
            .record(
                "out",
                &"k",
                &[through("rows", "d"), sample("iv2", "v", "k")]
            )
            .is_err());
    }
}
