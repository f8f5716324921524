//! Whether a device's ordered team reduction ([`super::ordered`]) gives the host's result for a
//! join that does not commute.
//!
//! The host backends run a team as one thread: every write to the accumulator happens in league
//! order, and within a team in program order. A device runs a team as `team × vector`
//! invocations, each with its own accumulator, and the host joins them league block by league
//! block, invocation by invocation. The two agree for every associative join when, in each
//! team, **at most one invocation writes the accumulator** (and in program order): the writes
//! are inside `team.single_team(..)`, or under `if team.team_rank() == 0`, or the team has one
//! thread of one lane. Otherwise a non-commutative join (a rolling hash, "the last value")
//! would see the writes thread by thread instead of item by item, and differ from the host in
//! silence, so [`check`] refuses such a launch instead.
//!
//! The rule is syntactic and conservative: it recognises the guards above (a `team_rank()`
//! held in an immutable local, `&&` of a guard with anything, and the statements after `if
//! team.team_rank() != 0 { return; }` in its block, included) and refuses any other write, even
//! one whose condition happens to single out one thread.

use rokkos_core::ir::{
    BinaryOp, Block, CmpOp, Expr, Kernel, LocalId, LogicOp, NestedKind, SingleKind, Stmt,
    TeamQuery, Value,
};

/// `Ok` when an ordered (host-joined) reduction of team kernel `ir` with `team` threads of
/// `vector` lanes joins its contributions in the host backends' order; otherwise the reason, to
/// be reported as the backend's `Err(Unsupported)`.
///
/// ```
/// use rokkos_device::runtime::team_order::check;
/// use rokkos_core::ir::build::KernelBuilder;
/// use rokkos_core::ir::WorkKind;
///
/// // A kernel that writes no accumulator is always in order.
/// let ir = KernelBuilder::new("nothing", WorkKind::Team).finish().unwrap();
/// assert!(check(&ir, 32, 4).is_ok());
/// ```
pub fn check(ir: &Kernel, team: u64, vector: u64) -> Result<(), String> {
    if team.saturating_mul(vector) <= 1 {
        return Ok(());
    }
    let walk = Walk {
        team,
        vector,
        rank_locals: rank_locals(ir),
    };
    let at = Place {
        one_thread: team == 1,
        one_lane: true,
    };
    if walk.block(&ir.body, at) {
        Ok(())
    } else {
        Err(format!(
            "kernel `{}`: a reducer whose join runs on the host (a `Custom` reducer) over a team \
             policy of {team} thread(s) x {vector} lane(s), whose accumulator is written by more \
             than one thread or lane of a team; the device would join those writes in another \
             order than the host backends. Write the accumulator inside `team.single_team(..)` \
             or under `if team.team_rank() == 0`, or use team size 1 and vector length 1",
            ir.name
        ))
    }
}

/// How many invocations of a team can reach a point of the body.
#[derive(Clone, Copy)]
struct Place {
    /// At most one thread of the team.
    one_thread: bool,
    /// At most one lane of that thread. Code outside vector ranges runs once per thread: a
    /// kernel that writes its accumulator there runs virtual lanes (`hazard::lanes_independent`).
    one_lane: bool,
}

struct Walk {
    team: u64,
    vector: u64,
    /// Immutable locals that hold `team.team_rank()`.
    rank_locals: Vec<LocalId>,
}

impl Walk {
    /// True when every accumulator write in `b` is made by one invocation per team.
    fn block(&self, b: &Block, mut at: Place) -> bool {
        for s in b {
            if !self.stmt(s, at) {
                return false;
            }
            // `if team.team_rank() != 0 { return; }`: only thread 0 runs the rest of the block
            // (the other threads left the work item at the `return`).
            if self.others_leave(s) {
                at.one_thread = true;
            }
        }
        true
    }

    /// `s` is a rank guard whose branch for the threads other than 0 always returns.
    fn others_leave(&self, s: &Stmt) -> bool {
        let returns = |b: &Block| b.iter().any(|s| matches!(s, Stmt::Return(_)));
        match s {
            Stmt::If { cond, then, else_ } => {
                (self.rank_is_nonzero(cond) && returns(then))
                    || (self.rank_is_zero(cond) && returns(else_))
            }
            _ => false,
        }
    }

    fn stmt(&self, s: &Stmt, at: Place) -> bool {
        match s {
            Stmt::AccStore { .. } => at.one_thread && at.one_lane,
            Stmt::Single { kind, body, .. } => {
                let inner = match kind {
                    SingleKind::Team => Place {
                        one_thread: true,
                        one_lane: true,
                    },
                    SingleKind::Thread => Place {
                        one_lane: true,
                        ..at
                    },
                };
                self.block(body, inner)
            }
            Stmt::If { cond, then, else_ } => {
                let (t, e) = (self.rank_is_zero(cond), self.rank_is_nonzero(cond));
                self.block(
                    then,
                    if t {
                        Place {
                            one_thread: true,
                            ..at
                        }
                    } else {
                        at
                    },
                ) && self.block(
                    else_,
                    if e {
                        Place {
                            one_thread: true,
                            ..at
                        }
                    } else {
                        at
                    },
                )
            }
            Stmt::NestedFor { kind, body, .. }
            | Stmt::NestedReduce { kind, body, .. }
            | Stmt::NestedScan { kind, body, .. } => {
                let inner = match kind {
                    // Only the threads that reach the range run its items: one thread stays one.
                    NestedKind::Thread => at,
                    NestedKind::Vector | NestedKind::TeamVector => Place {
                        one_lane: at.one_lane && self.vector == 1,
                        one_thread: at.one_thread
                            && (*kind == NestedKind::Vector || self.team == 1),
                    },
                };
                self.block(body, inner)
            }
            _ => s.blocks().into_iter().all(|b| self.block(b, at)),
        }
    }

    /// `cond` holds only in thread 0 of a team.
    fn rank_is_zero(&self, cond: &Expr) -> bool {
        match cond {
            Expr::Binary {
                op: BinaryOp::Cmp(CmpOp::Eq),
                lhs,
                rhs,
            } => self.rank_vs_zero(lhs, rhs),
            Expr::Binary {
                op: BinaryOp::Logic(LogicOp::And),
                lhs,
                rhs,
            } => self.rank_is_zero(lhs) || self.rank_is_zero(rhs),
            _ => false,
        }
    }

    /// `cond` fails only in thread 0 of a team (`team_rank() != 0`: its `else` is thread 0's).
    fn rank_is_nonzero(&self, cond: &Expr) -> bool {
        match cond {
            Expr::Binary {
                op: BinaryOp::Cmp(CmpOp::Ne),
                lhs,
                rhs,
            } => self.rank_vs_zero(lhs, rhs),
            Expr::Binary {
                op: BinaryOp::Logic(LogicOp::Or),
                lhs,
                rhs,
            } => self.rank_is_nonzero(lhs) || self.rank_is_nonzero(rhs),
            _ => false,
        }
    }

    /// One side is the team rank and the other the literal zero.
    fn rank_vs_zero(&self, a: &Expr, b: &Expr) -> bool {
        (self.is_rank(a) && is_zero(b)) || (is_zero(a) && self.is_rank(b))
    }

    fn is_rank(&self, e: &Expr) -> bool {
        match e {
            Expr::Team(TeamQuery::TeamRank) => true,
            Expr::Local(l) => self.rank_locals.contains(l),
            _ => false,
        }
    }
}

fn is_zero(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Lit(Value::U64(0) | Value::U32(0) | Value::I64(0) | Value::I32(0))
    )
}

/// The locals declared as `let r = team.team_rank();` and never assigned again.
fn rank_locals(ir: &Kernel) -> Vec<LocalId> {
    let mut bound = Vec::new();
    let mut assigned = Vec::new();
    for s in &ir.body {
        s.walk(&mut |s| match s {
            Stmt::Let {
                local,
                init: Some(Expr::Team(TeamQuery::TeamRank)),
            } => bound.push(*local),
            Stmt::Let { local, .. } | Stmt::Assign { local, .. } => assigned.push(*local),
            _ => {}
        });
    }
    bound.retain(|l| !assigned.contains(l));
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use rokkos_core::ir::build::KernelBuilder;
    use rokkos_core::ir::{AccField, WorkKind};

    fn kernel(body: Block) -> Kernel {
        let mut k = KernelBuilder::new("k", WorkKind::Team).finish().unwrap();
        k.body = body;
        k
    }

    fn write() -> Stmt {
        Stmt::AccStore {
            field: AccField { acc: 0, field: 0 },
            value: Expr::Lit(Value::I32(1)),
        }
    }

    fn rank() -> Expr {
        Expr::Team(TeamQuery::TeamRank)
    }

    fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary {
            op: BinaryOp::Cmp(op),
            lhs: Box::new(a),
            rhs: Box::new(b),
        }
    }

    fn zero() -> Expr {
        Expr::Lit(Value::U64(0))
    }

    fn iff(cond: Expr, then: Block, else_: Block) -> Stmt {
        Stmt::If { cond, then, else_ }
    }

    fn nested(kind: NestedKind, body: Block) -> Stmt {
        Stmt::NestedFor {
            kind,
            var: LocalId(0),
            start: zero(),
            end: Expr::Lit(Value::U64(8)),
            inclusive: false,
            body,
        }
    }

    fn single(kind: SingleKind, body: Block) -> Stmt {
        Stmt::Single {
            kind,
            body,
            result: None,
        }
    }

    /// Each shape of team: (team, vector).
    const SHAPES: [(u64, u64); 4] = [(1, 1), (1, 4), (8, 1), (8, 4)];

    fn verdicts(body: Block) -> Vec<bool> {
        let k = kernel(body);
        SHAPES
            .iter()
            .map(|&(t, v)| check(&k, t, v).is_ok())
            .collect()
    }

    #[test]
    fn one_invocation_per_team_is_in_order() {
        let all = vec![true; 4];
        assert_eq!(verdicts(vec![]), all);
        assert_eq!(verdicts(vec![single(SingleKind::Team, vec![write()])]), all);
        let guarded = vec![iff(cmp(CmpOp::Eq, rank(), zero()), vec![write()], vec![])];
        assert_eq!(verdicts(guarded), all);
        let swapped = vec![iff(cmp(CmpOp::Eq, zero(), rank()), vec![write()], vec![])];
        assert_eq!(verdicts(swapped), all);
        let not_rank = vec![iff(cmp(CmpOp::Ne, rank(), zero()), vec![], vec![write()])];
        assert_eq!(verdicts(not_rank), all);
        let and = Expr::Binary {
            op: BinaryOp::Logic(LogicOp::And),
            lhs: Box::new(Expr::Lit(Value::Bool(true))),
            rhs: Box::new(cmp(CmpOp::Eq, rank(), zero())),
        };
        assert_eq!(verdicts(vec![iff(and, vec![write()], vec![])]), all);
        // Thread-level code outside vector ranges runs once per thread.
        let thread_single = vec![single(SingleKind::Thread, vec![write()])];
        assert_eq!(verdicts(thread_single), [true, true, false, false]);
    }

    #[test]
    fn several_invocations_per_team_are_refused() {
        // Unguarded: every thread writes.
        assert_eq!(verdicts(vec![write()]), [true, true, false, false]);
        // The guard's other branch, and a guard on another rank.
        let other = vec![iff(cmp(CmpOp::Eq, rank(), zero()), vec![], vec![write()])];
        assert_eq!(verdicts(other), [true, true, false, false]);
        let one = Expr::Lit(Value::U64(1));
        let rank1 = vec![iff(cmp(CmpOp::Eq, rank(), one), vec![write()], vec![])];
        assert_eq!(verdicts(rank1), [true, true, false, false]);
        // A vector range splits its items across lanes, even inside a guard.
        let lanes = vec![single(
            SingleKind::Team,
            vec![nested(NestedKind::Vector, vec![write()])],
        )];
        assert_eq!(verdicts(lanes), [true, false, true, false]);
        let team_vector = vec![nested(NestedKind::TeamVector, vec![write()])];
        assert_eq!(verdicts(team_vector), [true, false, false, false]);
        let threads = vec![nested(NestedKind::Thread, vec![write()])];
        assert_eq!(verdicts(threads), [true, true, false, false]);
    }

    /// The statements after `if rank != 0 { return; }` (or `if rank == 0 {} else { return; }`)
    /// in its block run in thread 0 only; those before it, a guard whose returning branch is
    /// thread 0's, or a return that may not be taken do not count.
    #[test]
    fn an_early_return_of_the_other_threads_leaves_thread_0() {
        let all = vec![true; 4];
        let ret = || Stmt::Return(None);
        let nonzero = || cmp(CmpOp::Ne, rank(), zero());
        let is_zero = || cmp(CmpOp::Eq, rank(), zero());
        assert_eq!(
            verdicts(vec![iff(nonzero(), vec![ret()], vec![]), write()]),
            all
        );
        assert_eq!(
            verdicts(vec![iff(is_zero(), vec![], vec![ret()]), write()]),
            all
        );
        // In a loop body: the rest of that body.
        let looped = Stmt::Loop {
            body: vec![iff(nonzero(), vec![ret()], vec![]), write()],
        };
        assert_eq!(verdicts(vec![looped]), all);
        let refused = [true, true, false, false];
        // The write comes first, while every thread is still there.
        assert_eq!(
            verdicts(vec![write(), iff(nonzero(), vec![ret()], vec![])]),
            refused
        );
        // Thread 0 is the one that returns.
        assert_eq!(
            verdicts(vec![iff(is_zero(), vec![ret()], vec![]), write()]),
            refused
        );
        // The return sits under a further condition, so other threads may go on.
        let maybe = iff(
            nonzero(),
            vec![iff(Expr::Lit(Value::Bool(false)), vec![ret()], vec![])],
            vec![],
        );
        assert_eq!(verdicts(vec![maybe, write()]), refused);
        // Only the rest of the guard's own block: an enclosing block goes on with every thread.
        let inner = iff(
            Expr::Lit(Value::Bool(true)),
            vec![iff(nonzero(), vec![ret()], vec![])],
            vec![],
        );
        assert_eq!(verdicts(vec![inner, write()]), refused);
        // Lanes still count: a vector range after the guard splits thread 0's items.
        let lanes = vec![
            iff(nonzero(), vec![ret()], vec![]),
            nested(NestedKind::Vector, vec![write()]),
        ];
        assert_eq!(verdicts(lanes), [true, false, true, false]);
    }

    #[test]
    fn a_rank_held_in_a_local_counts_while_it_is_not_reassigned() {
        let r = LocalId(3);
        let guard = iff(
            cmp(CmpOp::Eq, Expr::Local(r), zero()),
            vec![write()],
            vec![],
        );
        let bind = Stmt::Let {
            local: r,
            init: Some(rank()),
        };
        assert!(check(&kernel(vec![bind.clone(), guard.clone()]), 8, 1).is_ok());
        let reassigned = Stmt::Assign {
            local: r,
            value: zero(),
        };
        let k = kernel(vec![bind, reassigned, guard]);
        let err = check(&k, 8, 1).unwrap_err();
        assert!(err.contains("`k`") && err.contains("single_team"), "{err}");
    }
}
