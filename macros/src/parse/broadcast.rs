//! Kokkos' functor form of `team_broadcast`, `team.team_broadcast_with(value, src, |v| f(v))`:
//! thread `src` applies the closure to its value and the team receives the result. It is
//! written here in the constructs the rest of the macro knows, before any check reads the body,
//! so that the native path, the IR and every rule see the same code:
//!
//! ```text
//! {
//!     let __rk_bcast_v = value;
//!     let __rk_bcast_s = src;
//!     let __rk_bcast_f = if team.team_rank() == __rk_bcast_s { let v = __rk_bcast_v; f(v) } else { __rk_bcast_v };
//!     team.team_broadcast(__rk_bcast_f, __rk_bcast_s)
//! }
//! ```
//!
//! Only thread `src` runs the closure (as in Kokkos); the others keep their value, which the
//! broadcast replaces. A call of another shape is left as written, for the subset check's message.

use syn::visit_mut::VisitMut;
use syn::{parse_quote, Expr};

/// Rewrites every well-formed `team_broadcast_with` call in `body`.
pub fn desugar(body: &mut syn::Block) {
    Desugar.visit_block_mut(body);
}

struct Desugar;

impl VisitMut for Desugar {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // Inner calls first: a closure body may broadcast too.
        syn::visit_mut::visit_expr_mut(self, e);
        let Expr::MethodCall(m) = e else {
            return;
        };
        if m.method != "team_broadcast_with" || m.args.len() != 3 {
            return;
        }
        let Expr::Closure(c) = &m.args[2] else {
            return;
        };
        if c.inputs.len() != 1 || c.asyncness.is_some() || c.capture.is_some() {
            return;
        }
        let team = &m.receiver;
        let (value, src) = (&m.args[0], &m.args[1]);
        let pat = &c.inputs[0];
        let f = &c.body;
        *e = parse_quote!({
            let __rk_bcast_v = #value;
            let __rk_bcast_s: usize = #src;
            let __rk_bcast_f = if #team.team_rank() == __rk_bcast_s {
                let #pat = __rk_bcast_v;
                #f
            } else {
                __rk_bcast_v
            };
            #team.team_broadcast(__rk_bcast_f, __rk_bcast_s)
        });
    }
}
