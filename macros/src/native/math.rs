//! Scalar math calls in native code, bound to rokkos' own functions.
//!
//! The IR builder gives `x.max(y)` one meaning, the IR's `Max`. Natively, rustc resolves the name:
//! on a type parameter it reaches any trait of the bounds that has a `max`, and on a scalar type
//! any trait in scope that gives it a method it lacks (`f64` has no `wrapping_add`). A user trait
//! answering `max` with `self + o` then ran on the host while the devices computed `max`. So every
//! math method call `x.name(..)` of a kernel or `#[func]` body becomes `x.__rokkos_name(..)`, a
//! method of `kernel_math`'s traits (method syntax, so the receiver still auto-dereferences), and
//! every associated math call (`T::name(..)`, `f64::name(..)`, `<T>::name(..)`) a call of
//! `::rokkos::__private::kernel_math::name`; both hold `std`'s meaning for exactly the types the IR
//! builder accepts, through its sealed traits; `T::from(x)` becomes `<T as ::core::convert::From<_>>::from(x)`.

use crate::parse::{MATH_METHODS, SCALAR_TYPES};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Expr;

/// The number of arguments, receiver included, of each math function `kernel_math` defines;
/// `None` for a name it does not define (the bit counts, which the IR refuses anyway).
fn arity(name: &str) -> Option<usize> {
    Some(match name {
        "clamp" | "mul_add" => 3,
        "atan2" | "powf" | "powi" | "hypot" | "min" | "max" | "wrapping_add" | "wrapping_sub"
        | "wrapping_mul" | "rem_euclid" => 2,
        "count_ones" | "leading_zeros" | "trailing_zeros" => return None,
        n if MATH_METHODS.contains(&n) => 1,
        _ => return None,
    })
}

/// The associated conversions of one argument: the value casts, and `from_bits` (a bit cast; its
/// method counterpart `x.to_bits()` is one of `MATH_METHODS`).
const CONVERSIONS: &[&str] = &["from_f64", "from_f32", "to_f64", "to_f32", "from_bits"];

/// Rewrites every math call in `body`, and brings `kernel_math`'s method traits into its scope.
pub fn route_block(body: &mut syn::Block, type_params: &HashSet<String>) {
    Router { type_params }.visit_block_mut(body);
    body.stmts.insert(
        0,
        syn::parse_quote!(
            #[allow(unused_imports)]
            use ::rokkos::__private::kernel_math::{
                FloatMethods as _, NumMethods as _, SignedMethods as _,
            };
        ),
    );
}

/// `max` → `__rokkos_max`, at `m`'s place but resolved where the traits are imported.
fn method_ident(m: &syn::Ident) -> syn::Ident {
    let span = m.span().resolved_at(proc_macro2::Span::call_site());
    syn::Ident::new(&format!("__rokkos_{m}"), span)
}

struct Router<'a> {
    type_params: &'a HashSet<String>,
}

impl Router<'_> {
    /// The type of an associated call `T::f(..)`, `f64::f(..)` or `<T>::f(..)`, and `f`.
    fn assoc<'p>(&self, p: &'p syn::ExprPath) -> Option<(TokenStream, &'p syn::Ident)> {
        let last = &p.path.segments.last()?.ident;
        match &p.qself {
            Some(q) if q.position == 0 && p.path.segments.len() == 1 => {
                Some((q.ty.to_token_stream(), last))
            }
            Some(_) => None,
            None if p.path.segments.len() == 2 && p.path.leading_colon.is_none() => {
                let first = &p.path.segments[0];
                let f = first.ident.to_string();
                ((SCALAR_TYPES.contains(&f.as_str()) || self.type_params.contains(&f))
                    && first.arguments.is_none()
                    && p.path.segments[1].arguments.is_none())
                .then(|| (quote!(#first), last))
            }
            None => None,
        }
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

impl VisitMut for Router<'_> {
    // A constant table's value is evaluated by `rustc` at compile time, where the routed
    // (non-`const`) kernel math functions cannot run; its `f32::from_bits(..)` means std's.
    fn visit_item_const_mut(&mut self, _: &mut syn::ItemConst) {}
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Arguments first, so that a routed call is not visited again.
        syn::visit_mut::visit_expr_mut(self, e);
        let span = e.span();
        let routed = match e {
            Expr::MethodCall(m) if m.turbofish.is_none() => {
                let name = m.method.to_string();
                match arity(&name) {
                    Some(n) if n == m.args.len() + 1 => {
                        let (recv, args) = (&m.receiver, m.args.iter());
                        let f = method_ident(&m.method);
                        Some(quote_spanned!(span=> #recv.#f(#(#args),*)))
                    }
                    _ => None,
                }
            }
            Expr::Call(c) => match strip(&c.func) {
                Expr::Path(p) => match self.assoc(p) {
                    Some((ty, f)) => {
                        let name = f.to_string();
                        let args = c.args.iter();
                        if name == "from" && c.args.len() == 1 {
                            Some(quote_spanned!(span=>
                                <#ty as ::core::convert::From<_>>::from(#(#args),*)))
                        } else if (CONVERSIONS.contains(&name.as_str()) && c.args.len() == 1)
                            || arity(&name) == Some(c.args.len())
                        {
                            // The conversions to a float and `T::to_bits(x)` name the source type
                            // (`T::to_f64(x)`: `x` is a `T`); `from_*` the result's.
                            Some(quote_spanned!(span=>
                                ::rokkos::__private::kernel_math::#f::<#ty>(#(#args),*)))
                        } else {
                            None
                        }
                    }
                    None => None,
                },
                _ => None,
            },
            _ => None,
        };
        if let Some(ts) = routed {
            *e = Expr::Verbatim(ts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routed(src: &str, tps: &[&str]) -> String {
        let tps: HashSet<String> = tps.iter().map(|s| s.to_string()).collect();
        let mut b: syn::Block = syn::parse_str(src).unwrap();
        route_block(&mut b, &tps);
        b.to_token_stream().to_string()
    }

    #[test]
    fn math_methods_and_associated_calls_go_through_kernel_math() {
        let s = routed(
            "{ let a = x.max(y).sqrt() + T::hypot(a, b) + f64::mul_add(a, b, c) + <T>::abs(z)
                 + T::from_f64(w) + T::to_f64(v) + i64::from(u) + x.clamp(lo, hi); }",
            &["T"],
        );
        let km = ":: rokkos :: __private :: kernel_math ::";
        assert!(s.contains("x . __rokkos_max (y) . __rokkos_sqrt ()"), "{s}");
        assert!(s.contains(&format!("{km} hypot :: < T > (a , b)")), "{s}");
        assert!(
            s.contains(&format!("{km} mul_add :: < f64 > (a , b , c)")),
            "{s}"
        );
        assert!(s.contains(&format!("{km} abs :: < T > (z)")), "{s}");
        assert!(s.contains(&format!("{km} from_f64 :: < T > (w)")), "{s}");
        assert!(s.contains(&format!("{km} to_f64 :: < T > (v)")), "{s}");
        assert!(
            s.contains("< i64 as :: core :: convert :: From < _ >> :: from (u)"),
            "{s}"
        );
        assert!(s.contains("x . __rokkos_clamp (lo , hi)"), "{s}");
    }

    #[test]
    fn bit_casts_go_through_kernel_math() {
        let s = routed(
            "{ let a = f32::from_bits(x.to_bits() ^ m) + T::from_bits(b) + <T>::from_bits(c)
                 + f64::to_bits(y) + T::to_bits(z) + (w).to_bits(); }",
            &["T"],
        );
        let km = ":: rokkos :: __private :: kernel_math ::";
        assert!(
            s.contains(&format!(
                "{km} from_bits :: < f32 > (x . __rokkos_to_bits () ^ m)"
            )),
            "{s}"
        );
        assert!(s.contains(&format!("{km} from_bits :: < T > (b)")), "{s}");
        assert!(s.contains(&format!("{km} from_bits :: < T > (c)")), "{s}");
        assert!(s.contains(&format!("{km} to_bits :: < f64 > (y)")), "{s}");
        assert!(s.contains(&format!("{km} to_bits :: < T > (z)")), "{s}");
        assert!(s.contains("(w) . __rokkos_to_bits ()"), "{s}");
        // Not the bit casts: a `from_bits` method and `to_bits` with arguments are no std calls
        // (rustc reports them as written).
        let s = routed(
            "{ let a = b.from_bits() + x.to_bits(1) + f32::from_bits(a, b); }",
            &[],
        );
        let calls = s.split(';').nth(1).unwrap();
        assert!(
            !calls.contains("kernel_math") && !calls.contains("__rokkos_"),
            "{s}"
        );
    }

    #[test]
    fn other_calls_stay() {
        let s = routed(
            "{ let a = y.atomic_add(i, 1) + x.count_ones() + it.max() + foo::max(a, b)
                 + x.max::<u8>(y) + team.league_rank(); }",
            &["T"],
        );
        let calls = s.split(';').nth(1).unwrap();
        assert!(
            !calls.contains("kernel_math") && !calls.contains("__rokkos_"),
            "{s}"
        );
    }
}
