//! Statements: structured control flow over blocks.
//!
//! There is no `goto`: control leaves a block only by falling off its end, `break` / `continue` (to the
//! innermost enclosing [`Stmt::For`], [`Stmt::While`] or [`Stmt::Loop`]) or `return` (ending the work
//! item, or the helper function with its value). A local is visible from its declaring statement to the
//! end of the enclosing block; the variables a construct declares (a loop counter, a nested reduction's
//! accumulator, ...) are visible in its body only.

use crate::expr::{AccField, AtomicAccess, Expr, LocalId};
use crate::ops::{NestedKind, ReducerKind, ScratchId, SingleKind, ViewRef};
use crate::types::ScalarType;

/// A sequence of statements run in order.
pub type Block = Vec<Stmt>;

/// A local variable or local array declaration: its entry in a locals table.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalDecl {
    /// A name for printing and for the emitted source (the Rust name, or a generated one).
    pub name: String,
    /// The type (of each element, for an array).
    pub ty: ScalarType,
    /// `Some(n)` for a fixed-size local array of `n` elements.
    pub array_len: Option<u32>,
}

/// How a local array starts out.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayInit {
    /// `[value; n]`.
    Fill(Expr),
    /// `[e0, e1, ..]`: exactly `n` elements.
    Elems(Vec<Expr>),
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let local = init;` or `let local;` (a scalar local declared here).
    Let {
        /// The local (its [`LocalDecl`] is not an array).
        local: LocalId,
        /// Initial value, of the local's type.
        init: Option<Expr>,
    },
    /// `let local = [..];` (a local array declared here).
    LetArray {
        /// The local array.
        local: LocalId,
        /// Its elements.
        init: ArrayInit,
    },
    /// `local = value;`
    Assign {
        /// The local.
        local: LocalId,
        /// The new value.
        value: Expr,
    },
    /// `array[index] = value;`
    ArrayStore {
        /// The local array.
        array: LocalId,
        /// An integer index.
        index: Expr,
        /// The new value.
        value: Expr,
    },
    /// `acc.field = value;` (a reduction's `*acc = ..`, a scan's `*partial = ..`).
    AccStore {
        /// The accumulator field.
        field: AccField,
        /// The new value.
        value: Expr,
    },
    /// `view[index] = value;`
    Store {
        /// A writable View parameter or a scratch View.
        view: ViewRef,
        /// One integer per dimension.
        index: Vec<Expr>,
        /// The new value, of the element type.
        value: Expr,
    },
    /// An atomic whose result is discarded.
    Atomic(AtomicAccess),
    /// `if cond { then } else { else_ }`.
    If {
        /// A `bool`.
        cond: Expr,
        /// Run when `cond` holds.
        then: Block,
        /// Run otherwise (empty when there is no `else`).
        else_: Block,
    },
    /// `for var in (start..end).step_by(step)` (`start..=end` when `inclusive`), or its `.rev()` when
    /// `reverse`: `var` takes the values `start + k * step` below `end` (up to and including `end`
    /// when `inclusive`), ascending (or descending, from the last such value, as Rust's
    /// `StepBy::rev`). Bounds and step are evaluated once.
    For {
        /// The counter, declared by the loop (an integer local).
        var: LocalId,
        /// First value, of the counter's type.
        start: Expr,
        /// Last bound, of the counter's type: exclusive, or inclusive when `inclusive`.
        end: Expr,
        /// Positive step (`1` without `step_by`; 0 is an error of the work item): of the counter's
        /// type, or `u64`, the type of Rust's `step_by` argument (`usize`), which can exceed the
        /// counter's range; a step beyond the range visits the first value only, as in Rust.
        step: Expr,
        /// Visit the values in descending order.
        reverse: bool,
        /// `end` is part of the range (`start..=end`). A first-class flag rather than `end + 1`,
        /// which wraps when `end` is the maximum of its type and would make the loop empty.
        inclusive: bool,
        /// The loop body.
        body: Block,
    },
    /// `while cond { body }`.
    While {
        /// A `bool`, evaluated before each iteration.
        cond: Expr,
        /// The loop body.
        body: Block,
    },
    /// `loop { body }`.
    Loop {
        /// The loop body.
        body: Block,
    },
    /// `break` out of the innermost loop.
    Break,
    /// `continue` with the next iteration of the innermost loop.
    Continue,
    /// `return` from the work item (`None`), or `return value` from a helper function.
    Return(Option<Expr>),
    /// `team.team_barrier()`: waits for every thread of the team; orders scratch accesses.
    Barrier,
    /// `for var in team.<kind>_range(start..end) { body }`.
    NestedFor {
        /// How the range is split.
        kind: NestedKind,
        /// The index (`u64`), declared for the body.
        var: LocalId,
        /// First index (`u64`).
        start: Expr,
        /// Exclusive bound (`u64`), or the last index when `inclusive`.
        end: Expr,
        /// `start..=end`: `end` is the last index (reaching `u64::MAX` without forming `end + 1`).
        inclusive: bool,
        /// Run for each index.
        body: Block,
    },
    /// `result = team.<kind>_reduce(start..end, reducer, |var, acc| body)`.
    NestedReduce {
        /// How the range is split.
        kind: NestedKind,
        /// The index (`u64`), declared for the body.
        var: LocalId,
        /// First index (`u64`).
        start: Expr,
        /// Exclusive bound (`u64`), or the last index when `inclusive`.
        end: Expr,
        /// `start..=end`: `end` is the last index.
        inclusive: bool,
        /// The built-in reducer.
        reducer: ReducerKind,
        /// The body's accumulator, declared for the body (starts at the reducer's identity in each
        /// thread; the body folds into it).
        acc: LocalId,
        /// Run for each index.
        body: Block,
        /// A local declared before the construct that receives the reduced value.
        result: LocalId,
    },
    /// `total = team.<kind>_scan(start..end, |var, partial, is_final| body)`: an exclusive sum scan.
    NestedScan {
        /// How the range is split.
        kind: NestedKind,
        /// The index (`u64`), declared for the body.
        var: LocalId,
        /// First index (`u64`).
        start: Expr,
        /// Exclusive bound (`u64`), or the last index when `inclusive`.
        end: Expr,
        /// `start..=end`: `end` is the last index.
        inclusive: bool,
        /// Declared for the body: the sum of the contributions of the indices before `var` when
        /// `is_final`; the body adds its contribution.
        partial: LocalId,
        /// Declared for the body: a `bool`, true in the pass where `partial` holds the prefix.
        is_final: LocalId,
        /// Run for each index (possibly more than once, with `is_final` false in earlier passes).
        body: Block,
        /// A local declared before the construct that receives the sum of all contributions.
        total: LocalId,
    },
    /// `team.single_<kind>(|| body)`: the body runs once per team (or per thread).
    Single {
        /// Once per team or per thread.
        kind: SingleKind,
        /// The body; it may assign only `result` among the locals declared outside it.
        body: Block,
        /// A local declared before the construct that the body assigns and that afterwards holds, in
        /// every thread (or lane), the value the one running instance gave it.
        result: Option<LocalId>,
    },
    /// `local = team.team_broadcast(value, src)`: every thread gets thread `src`'s `value`.
    Broadcast {
        /// A local declared before the statement.
        local: LocalId,
        /// The value, evaluated in every thread.
        value: Expr,
        /// The source thread (`u64`).
        src: Expr,
    },
    /// Allocates scratch View `id` (see [`crate::Kernel::scratch`]) with these extents (`u64`),
    /// in LayoutRight; its contents are unspecified until written.
    Scratch {
        /// The scratch View.
        id: ScratchId,
        /// One extent per dimension.
        extents: Vec<Expr>,
    },
}

/// The match of [`Stmt::blocks`] / [`Stmt::blocks_mut`] and [`Stmt::exprs`] / [`Stmt::exprs_mut`]:
/// one text for shared and exclusive borrows (`iter` / `iter_mut`, `&` / `&mut`), so that the two
/// cannot list different parts.
macro_rules! stmt_parts {
    (blocks $s:expr) => {
        match $s {
            Stmt::If { then, else_, .. } => vec![then, else_],
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body }
            | Stmt::NestedFor { body, .. }
            | Stmt::NestedReduce { body, .. }
            | Stmt::NestedScan { body, .. }
            | Stmt::Single { body, .. } => vec![body],
            _ => Vec::new(),
        }
    };
    (exprs $s:expr, $iter:ident, $($r:tt)+) => {
        match $s {
            Stmt::Let { init, .. } => init.$iter().collect(),
            Stmt::LetArray { init, .. } => match init {
                ArrayInit::Fill(e) => vec![e],
                ArrayInit::Elems(es) => es.$iter().collect(),
            },
            Stmt::Assign { value, .. } | Stmt::AccStore { value, .. } => vec![value],
            Stmt::ArrayStore { index, value, .. } => vec![index, value],
            Stmt::Store { index, value, .. } => {
                index.$iter().chain(std::iter::once(value)).collect()
            }
            Stmt::Atomic(a) => a.index.$iter().chain($($r)+ a.args).collect(),
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => vec![cond],
            Stmt::For {
                start, end, step, ..
            } => vec![start, end, step],
            Stmt::NestedFor { start, end, .. }
            | Stmt::NestedReduce { start, end, .. }
            | Stmt::NestedScan { start, end, .. } => vec![start, end],
            Stmt::Return(e) => e.$iter().collect(),
            Stmt::Broadcast { value, src, .. } => vec![value, src],
            Stmt::Scratch { extents, .. } => extents.$iter().collect(),
            Stmt::Loop { .. }
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Barrier
            | Stmt::Single { .. } => Vec::new(),
        }
    };
}

impl Stmt {
    /// The nested blocks of this statement, in order.
    pub fn blocks(&self) -> Vec<&Block> {
        stmt_parts!(blocks self)
    }

    /// [`Stmt::blocks`], for rewriting them (an IR pass).
    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        stmt_parts!(blocks self)
    }

    /// The expressions this statement evaluates directly (not those in nested blocks), in order.
    pub fn exprs(&self) -> Vec<&Expr> {
        stmt_parts!(exprs self, iter, &)
    }

    /// [`Stmt::exprs`], for rewriting them (an IR pass).
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        stmt_parts!(exprs self, iter_mut, &mut)
    }

    /// Calls `f` on this statement and every statement nested in it, parents first.
    pub fn walk(&self, f: &mut impl FnMut(&Stmt)) {
        f(self);
        for b in self.blocks() {
            for s in b {
                s.walk(f);
            }
        }
    }
}
