//! The team rules at compile time: [`rokkos_rules`]' convergence, nesting and ordering checks run
//! on the model of a team kernel's body ([`super::model`]), each violation a compile error at the
//! user's code that says what to write instead.
//!
//! The IR validator runs the same convergence and nesting rules on the recorded IR at launch, so
//! a kernel that compiles is never refused there. The ordering rule (no two threads on one element
//! of shared memory without a barrier between them) is a soundness rule like owner-computes:
//! accesses inside `unsafe { }` are exempt, so it runs here only.

use super::model::{of_kernel, Tag};
use super::signature::{KernelSignature, Work};
use super::{env::BodyEnv, Errors};
use rokkos_rules::converge::{self, Violation};
use rokkos_rules::hazard::{self, Hazard, Why};
use rokkos_rules::model::{Construct, NestedForm, NestedKind, ScratchScope, SingleKind};

/// Checks the team rules of `sig` (a team kernel; other kernels have no team constructs).
pub fn check(sig: &KernelSignature, env: &BodyEnv) -> syn::Result<()> {
    if !matches!(sig.work, Work::Team(_)) {
        return Ok(());
    }
    let body = of_kernel(sig, env);
    let mut errs = Errors::default();
    match converge::check(&body) {
        Ok(()) => {
            for h in hazard::threads(&body) {
                errs.push(hazard_error(&h));
            }
        }
        Err(v) => errs.push(violation_error(&v)),
    }
    errs.finish()
}

/// How the messages name a construct.
fn name(c: Construct) -> String {
    let method = match c {
        Construct::Barrier => return "`team.team_barrier()`".into(),
        Construct::Nested(kind, form) => {
            let k = match kind {
                NestedKind::Thread => "thread",
                NestedKind::Vector => "vector",
                NestedKind::TeamVector => "team_vector",
            };
            let f = match form {
                NestedForm::For => "range",
                NestedForm::Reduce => "reduce",
                NestedForm::Scan => "scan",
            };
            format!("{k}_{f}")
        }
        Construct::Single(SingleKind::Team) => "single_team".into(),
        Construct::Single(SingleKind::Thread) => "single_thread".into(),
        Construct::Broadcast => "team_broadcast".into(),
        Construct::Scratch(ScratchScope::Team) => "team_scratch".into(),
        Construct::Scratch(ScratchScope::Thread) => "thread_scratch".into(),
    };
    format!("`team.{method}(..)`")
}

/// Who runs the body of `c`.
fn runs(c: Construct) -> &'static str {
    match c {
        Construct::Nested(NestedKind::Thread, _) => "each thread runs for its own indices",
        Construct::Nested(NestedKind::Vector, _) => "each vector lane runs for its own indices",
        Construct::Nested(NestedKind::TeamVector, _) => {
            "each thread and lane runs for its own indices"
        }
        Construct::Single(SingleKind::Team) => "one thread of the team runs",
        Construct::Single(SingleKind::Thread) => "one lane of each thread runs",
        _ => "only some threads run",
    }
}

fn violation_error(v: &Violation<Tag>) -> syn::Error {
    match v {
        Violation::Divergent {
            what,
            at,
            cause,
            bounds,
        } => {
            let why = if *bounds {
                "its bounds depend on"
            } else {
                "it runs under control flow (a condition, a loop, an earlier `return`) that depends on"
            };
            let same = match what {
                Construct::Nested(..) => " with the same bounds",
                Construct::Broadcast => " with the same source thread",
                Construct::Scratch(_) => " with the same extents",
                _ => "",
            };
            syn::Error::new_spanned(
                &at.tokens,
                format!(
                    "{} must be reached by every thread of the team together{same} (the team's threads wait for each other there on a GPU), but {why} {}: {}",
                    at.text, cause.text, cause.note
                ),
            )
        }
        Violation::Misplaced { what, inside, at } => {
            let advice = match (what, inside) {
                (
                    Construct::Nested(NestedKind::Thread, _),
                    Construct::Nested(NestedKind::Thread, _),
                ) => "nest a `team.vector_range(..)` instead (the vector lanes of the thread), or make one `team.thread_range(..)` over all the indices",
                (
                    Construct::Nested(NestedKind::Vector, _),
                    Construct::Nested(NestedKind::Vector | NestedKind::TeamVector, _),
                ) => "the vector lanes are already split there: use a plain `for` loop",
                (Construct::Barrier, _) => "end the body first and call `team.team_barrier()` after it",
                _ => "call it outside that body, before or after it",
            };
            let needs = if what_is_team_wide(*what) {
                "it needs every thread of the team"
            } else {
                "it splits the lanes of a thread, which are split there already"
            };
            syn::Error::new_spanned(
                &at.tokens,
                format!(
                    "{} cannot run inside the body of {}, which {}: {needs}; {advice}",
                    at.text,
                    name(*inside),
                    runs(*inside)
                ),
            )
        }
    }
}

fn what_is_team_wide(c: Construct) -> bool {
    match c {
        Construct::Nested(kind, _) => kind.is_team_wide(),
        Construct::Single(kind) => kind == SingleKind::Team,
        Construct::Scratch(scope) => scope == ScratchScope::Team,
        Construct::Barrier | Construct::Broadcast => true,
    }
}

const UNSAFE_HINT: &str = "or wrap the accesses in `unsafe { }` if you guarantee that the threads touch disjoint elements";

fn hazard_error(h: &Hazard<Tag>) -> syn::Error {
    let msg = match &h.why {
        Why::Replicated => format!(
            "{} runs {}: several threads write the same element at once, a data race on GPU backends. Index it with the index of the enclosing `team.thread_range` / `team.team_vector_range` or with `team.team_rank()`, write it in `team.single_team(|| ..)`, use an atomic, or wrap it in `unsafe {{ }}` if you guarantee that the threads write disjoint elements",
            h.second.text, h.second.note
        ),
        Why::Reentered(frame) => {
            let both = if same_access(h) {
                h.second.text.clone()
            } else {
                format!("{} and {}", h.second.text, h.first.text)
            };
            format!(
                "{both} run in one thread per element only within one run of {}, which can run again (in a loop) with no `team.team_barrier()` in between and then give the index to another thread: a data race on GPU backends. Call `team.team_barrier();` in the loop, between the runs, {UNSAFE_HINT}",
                frame.text
            )
        }
        Why::Unordered => format!(
            "{} can reach the element of {} from another thread of the team, with no `team.team_barrier()` between them: a data race on GPU backends. Call `team.team_barrier();` between the two, or keep the element in one thread (index both accesses with the same nested-range index at the same position), {UNSAFE_HINT}",
            h.second.text, h.first.text
        ),
    };
    syn::Error::new_spanned(&h.second.tokens, msg)
}

/// Whether a hazard's two tags are one access (a write meeting itself in another run).
fn same_access(h: &Hazard<Tag>) -> bool {
    h.first.text == h.second.text && h.first.tokens.to_string() == h.second.tokens.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::signature::{parse_kernel, KernelOptions};

    fn check_src(body: &str) -> Result<(), String> {
        let src = format!(
            "fn k(team: &TeamMember, out: ViewMut<f64, 2>, o1: ViewMut<f64>, iv: View<usize, 2>, w: ViewMut<usize, 2>) {{ {body} }}"
        );
        let sig = parse_kernel(KernelOptions::default(), syn::parse_str(&src).unwrap()).unwrap();
        let env = BodyEnv::for_kernel(&sig);
        check(&sig, &env).map_err(|e| {
            e.into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn err(body: &str, msgs: &[&str]) {
        match check_src(body) {
            Ok(()) => panic!("accepted `{body}`"),
            Err(e) => {
                for m in msgs {
                    assert!(e.contains(m), "expected `{m}` in: {e}");
                }
            }
        }
    }

    #[test]
    fn writes_need_a_thread_of_their_own() {
        err(
            "let l = team.league_rank(); team.single_thread(|| { o1[l] = 1.0; });",
            &[
                "the write to `o1` at `o1[l]` runs in a `single_thread` body, which every thread",
                "`team.team_rank()`",
            ],
        );
        err(
            "let l = team.league_rank(); o1[l] = 1.0;",
            &["outside nested ranges and `single_team`"],
        );
        err(
            "let l = team.league_rank(); for k in team.vector_range(4) { out[(l, k)] = 1.0; }",
            &["which every thread of the team runs in full"],
        );
        check_src(
            "let l = team.league_rank(); let r = team.team_rank();
             team.single_thread(|| { out[(l, r)] = 1.0; });
             team.single_team(|| { o1[l] = 2.0; });
             team.team_barrier();
             for j in team.thread_range(4) { team.single_thread(|| { out[(l, j)] += 1.0; }); }",
        )
        .unwrap();
        // A mutable local may hold anything later: not a thread's own index.
        err(
            "let l = team.league_rank(); let mut r = team.team_rank(); r = 0;
             team.single_thread(|| { out[(l, r)] = 1.0; });",
            &["several threads write the same element"],
        );
    }

    #[test]
    fn scratch_of_another_thread_needs_a_barrier() {
        let body = |between: &str| {
            format!(
                "let l = team.league_rank(); let n = out.extent(1);
                 let s = team.team_scratch::<f64, 1>(0, [n]);
                 for j in team.thread_range(n) {{ s[j] = j as f64; let same = s[j]; }}
                 {between}
                 for j in team.thread_range(n) {{ out[(l, j)] = s[n - 1 - j]; }}"
            )
        };
        err(
            &body(""),
            &[
                "the read of team scratch `s` at `s[n - 1 - j]` can reach the element of the write to team scratch `s` at `s[j]`",
                "`team.team_barrier();`",
            ],
        );
        check_src(&body("team.team_barrier();")).unwrap();
        // The author's promise.
        check_src(&body("").replace(
            "out[(l, j)] = s[n - 1 - j];",
            "out[(l, j)] = unsafe { s[n - 1 - j] };",
        ))
        .unwrap();
        // A loop runs the range again before the barrier.
        err(
            "let l = team.league_rank(); let s = team.team_scratch::<f64, 1>(0, [8]);
             for it in 0..3 { for j in team.thread_range(8) { s[j] += 1.0; } }",
            &["within one run of `team.thread_range(..)`", "in the loop"],
        );
        check_src(
            "let l = team.league_rank(); let s = team.team_scratch::<f64, 1>(0, [8]);
             for it in 0..3 { for j in team.thread_range(8) { s[j] += 1.0; } team.team_barrier(); }",
        )
        .unwrap();
    }

    #[test]
    fn team_constructs_converge() {
        // Bounds read from a read-only View at the league rank are the same in every thread.
        check_src(
            "let l = team.league_rank(); let first = iv[(l, 0)]; let last = iv[(l, 1)];
             for s in team.thread_range(first..last) { out[(l, s)] = 1.0; }",
        )
        .unwrap();
        err(
            "let l = team.league_rank(); let first = w[(l, 0)];
             for s in team.thread_range(first..8) { out[(l, s)] = 1.0; }",
            &[
                "`team.thread_range(..)` must be reached by every thread",
                "its bounds depend on the load `w[(l, 0)]` of writable View `w`",
                "read-only `View<..>`",
            ],
        );
        err(
            "if team.team_rank() == 0 { team.team_barrier(); }",
            &["under control flow", "`team.team_rank()`"],
        );
        err(
            "let l = team.league_rank(); for j in team.thread_range(4) { for k in team.thread_range(4) { out[(l, j)] = 0.0; } }",
            &["cannot run inside the body of `team.thread_range(..)`", "`team.vector_range(..)`"],
        );
        err(
            "team.single_team(|| { for j in team.thread_range(4) { } });",
            &["inside the body of `team.single_team(..)`, which one thread of the team runs"],
        );
    }
}
