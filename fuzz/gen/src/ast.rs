//! The generator's model of a kernel: a small typed AST of the `#[kernel]` subset, rendered to Rust
//! source by [`crate::render`], analysed by [`crate::analyze`] and cut down by [`crate::shrink`].
//!
//! Every expression carries its type, so that rendering never needs inference and a shrink step can
//! replace a node by another of the same type.

use crate::ty::{Lit, Ty};

/// A local variable, loop counter, local array or closure parameter (`v{n}` in the source).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub u32);

/// A View the kernel reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewRef {
    /// Read-only input `x{n}` ([`Kernel::inputs`]).
    In(u32),
    /// Output `o{n}` ([`Kernel::outputs`]), written at owned indices.
    Out(u32),
    /// Atomic target `a{n}` ([`Kernel::atomics`]), accessed only through atomics.
    Atomic(u32),
    /// Team or thread scratch `sc{n}` (declared by [`Stmt::Scratch`]).
    Scratch(u32),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Un {
    /// `-x`.
    Neg,
    /// `!x`.
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bin {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&&`.
    LAnd,
    /// `||`.
    LOr,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Bin {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::Rem => "%",
            Bin::And => "&",
            Bin::Or => "|",
            Bin::Xor => "^",
            Bin::Shl => "<<",
            Bin::Shr => ">>",
            Bin::LAnd => "&&",
            Bin::LOr => "||",
            Bin::Eq => "==",
            Bin::Ne => "!=",
            Bin::Lt => "<",
            Bin::Le => "<=",
            Bin::Gt => ">",
            Bin::Ge => ">=",
        }
    }
    /// A comparison (its result is `bool` whatever the operands).
    pub fn is_cmp(self) -> bool {
        matches!(
            self,
            Bin::Eq | Bin::Ne | Bin::Lt | Bin::Le | Bin::Gt | Bin::Ge
        )
    }
    /// `+ - * / %`.
    pub fn is_arith(self) -> bool {
        matches!(self, Bin::Add | Bin::Sub | Bin::Mul | Bin::Div | Bin::Rem)
    }
}

/// A method of the kernel subset on a scalar receiver (math functions, `wrapping_*`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Float functions of one argument that GPUs approximate (`sin`, `exp`, ...): the name.
    Approx1(&'static str),
    /// Float functions of two arguments that GPUs approximate (`atan2`, `powf`, `hypot`).
    Approx2(&'static str),
    /// Exact float functions of one argument (`floor`, `ceil`, `round`, `trunc`, `fract`,
    /// `recip`, `to_radians`, `to_degrees`).
    Exact1(&'static str),
    /// `abs` (floats and signed integers).
    Abs,
    /// `signum`.
    Signum,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `clamp(lo, hi)`.
    Clamp,
    /// `mul_add(a, b)`.
    MulAdd,
    /// `powi(n)` (`n: i32`).
    Powi,
    /// `rem_euclid(y)`.
    RemEuclid,
    /// `wrapping_add(y)`.
    WrappingAdd,
    /// `wrapping_sub(y)`.
    WrappingSub,
    /// `wrapping_mul(y)`.
    WrappingMul,
    /// `is_nan()` (`bool`).
    IsNan,
    /// `is_finite()` (`bool`).
    IsFinite,
    /// A call of the kernel's `#[func]` number `n` ([`Kernel::funcs`]): a free function, not a
    /// method (its arguments are the parameters in order).
    Func(u32),
}

impl Method {
    /// The Rust method name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Approx1(n) | Method::Approx2(n) | Method::Exact1(n) => n,
            Method::Abs => "abs",
            Method::Signum => "signum",
            Method::Min => "min",
            Method::Max => "max",
            Method::Clamp => "clamp",
            Method::MulAdd => "mul_add",
            Method::Powi => "powi",
            Method::RemEuclid => "rem_euclid",
            Method::WrappingAdd => "wrapping_add",
            Method::WrappingSub => "wrapping_sub",
            Method::WrappingMul => "wrapping_mul",
            Method::IsNan => "is_nan",
            Method::IsFinite => "is_finite",
            Method::Func(_) => "func",
        }
    }
}

/// The float functions of one argument that GPUs compute to a stated accuracy rather than exactly
/// (those whose `MathFn::max_ulp_from_std` is not 0: the fuzzer's tests hold the two together).
pub const APPROX1: &[&str] = &[
    "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "exp2",
    "ln", "log2", "log10",
];
/// The float functions of two arguments that GPUs compute to a stated accuracy.
pub const APPROX2: &[&str] = &["atan2", "powf", "hypot"];
/// The exact float functions of one argument (`sqrt` is correctly rounded on every backend).
pub const EXACT1: &[&str] = &[
    "sqrt",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "recip",
    "to_radians",
    "to_degrees",
];

/// A team member query (`usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TeamQ {
    /// `team.league_rank()`.
    LeagueRank,
    /// `team.league_size()`.
    LeagueSize,
    /// `team.team_rank()`.
    TeamRank,
    /// `team.team_size()`.
    TeamSize,
    /// `team.vector_length()`.
    VectorLength,
}

impl TeamQ {
    /// The method name.
    pub fn name(self) -> &'static str {
        match self {
            TeamQ::LeagueRank => "league_rank",
            TeamQ::LeagueSize => "league_size",
            TeamQ::TeamRank => "team_rank",
            TeamQ::TeamSize => "team_size",
            TeamQ::VectorLength => "vector_length",
        }
    }
}

/// Atomic operations on a View element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomic_add` / `atomic_fetch_add`.
    Add,
    /// `atomic_sub` / `atomic_fetch_sub`.
    Sub,
    /// `atomic_min` / `atomic_fetch_min`.
    Min,
    /// `atomic_max` / `atomic_fetch_max`.
    Max,
    /// `atomic_and` / `atomic_fetch_and` (integers).
    And,
    /// `atomic_or` / `atomic_fetch_or` (integers).
    Or,
    /// `atomic_xor` / `atomic_fetch_xor` (integers).
    Xor,
    /// `atomic_exchange` (value).
    Exchange,
    /// `atomic_compare_exchange(idx, expected, new)` (value).
    CompareExchange,
    /// `atomic_load` (value).
    Load,
    /// `atomic_store` (statement).
    Store,
}

impl AtomicOp {
    /// The operation's name in `atomic_<name>` / `atomic_fetch_<name>`.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exchange => "exchange",
            AtomicOp::CompareExchange => "compare_exchange",
            AtomicOp::Load => "load",
            AtomicOp::Store => "store",
        }
    }
    /// The method name: `atomic_add` as a statement, `atomic_fetch_add` as a value.
    pub fn method(self, fetch: bool) -> String {
        match self {
            AtomicOp::Exchange | AtomicOp::CompareExchange | AtomicOp::Load | AtomicOp::Store => {
                format!("atomic_{}", self.name())
            }
            _ if fetch => format!("atomic_fetch_{}", self.name()),
            _ => format!("atomic_{}", self.name()),
        }
    }
    /// Whether the final contents do not depend on the order in which work items apply it to one
    /// element (so it may target an element every work item shares).
    pub fn commutes(self) -> bool {
        matches!(
            self,
            AtomicOp::Add
                | AtomicOp::Sub
                | AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
        )
    }
    /// Number of value arguments after the index.
    pub fn arity(self) -> usize {
        match self {
            AtomicOp::Load => 0,
            AtomicOp::CompareExchange => 2,
            _ => 1,
        }
    }
}

/// An expression of a known type.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Its type.
    pub ty: Ty,
    /// What it is.
    pub kind: ExprKind,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant.
    Lit(Lit),
    /// A local.
    Var(VarId),
    /// Scalar parameter `s{n}`.
    Param(u32),
    /// Work index component `k` (`i`, `j`, `k`, ...; `usize`).
    Work(u8),
    /// `view[(idx..)]`.
    Load {
        /// The View.
        view: ViewRef,
        /// One `usize` per dimension.
        idx: Vec<Expr>,
    },
    /// `view.extent(dim)` (`usize`).
    Extent {
        /// The View.
        view: ViewRef,
        /// The dimension.
        dim: u8,
    },
    /// `arr[idx]` of a local array.
    ArrLoad {
        /// The array.
        arr: VarId,
        /// A `usize`.
        idx: Box<Expr>,
    },
    /// `op x`.
    Unary(Un, Box<Expr>),
    /// `a op b`.
    Binary(Bin, Box<Expr>, Box<Expr>),
    /// `x as ty` (the target is the node's type).
    Cast(Box<Expr>),
    /// `recv.method(args..)`: the receiver first.
    Call(Method, Vec<Expr>),
    /// `if c { a } else { b }`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A team member query.
    Team(TeamQ),
    /// A value-returning atomic on an element of an atomic View.
    Atomic {
        /// The atomic View ([`ViewRef::Atomic`]).
        view: u32,
        /// The index (`usize`).
        idx: Box<Expr>,
        /// The operation.
        op: AtomicOp,
        /// Its value arguments.
        args: Vec<Expr>,
    },
}

impl Expr {
    /// A constant.
    pub fn lit(l: Lit) -> Expr {
        Expr {
            ty: l.ty,
            kind: ExprKind::Lit(l),
        }
    }
    /// A node of type `ty`.
    pub fn new(ty: Ty, kind: ExprKind) -> Expr {
        Expr { ty, kind }
    }
    /// The direct sub-expressions, in evaluation order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::Param(_)
            | ExprKind::Work(_)
            | ExprKind::Extent { .. }
            | ExprKind::Team(_) => Vec::new(),
            ExprKind::Load { idx, .. } => idx.iter().collect(),
            ExprKind::ArrLoad { idx, .. } => vec![idx],
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => vec![a],
            ExprKind::Binary(_, a, b) => vec![a, b],
            ExprKind::Call(_, args) => args.iter().collect(),
            ExprKind::If(c, a, b) => vec![c, a, b],
            ExprKind::Atomic { idx, args, .. } => {
                std::iter::once(&**idx).chain(args.iter()).collect()
            }
        }
    }
    /// The direct sub-expressions, mutably.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match &mut self.kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::Param(_)
            | ExprKind::Work(_)
            | ExprKind::Extent { .. }
            | ExprKind::Team(_) => Vec::new(),
            ExprKind::Load { idx, .. } => idx.iter_mut().collect(),
            ExprKind::ArrLoad { idx, .. } => vec![&mut **idx],
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => vec![&mut **a],
            ExprKind::Binary(_, a, b) => vec![&mut **a, &mut **b],
            ExprKind::Call(_, args) => args.iter_mut().collect(),
            ExprKind::If(c, a, b) => vec![&mut **c, &mut **a, &mut **b],
            ExprKind::Atomic { idx, args, .. } => {
                std::iter::once(&mut **idx).chain(args.iter_mut()).collect()
            }
        }
    }
    /// Calls `f` on this node and every node below it, parents first.
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }
    /// Whether evaluating it can change memory (an atomic anywhere inside).
    pub fn has_effects(&self) -> bool {
        let mut e = false;
        self.walk(&mut |x| e |= matches!(x.kind, ExprKind::Atomic { .. }));
        e
    }
}

/// How a local array starts.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrInit {
    /// `[value; len]`.
    Fill(Expr),
    /// `[e0, e1, ..]`.
    Elems(Vec<Expr>),
}

/// Adapters of a counted `for` loop's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeShape {
    /// `lo..hi` / `lo..=hi`.
    Plain,
    /// `(lo..hi).rev()`.
    Rev,
    /// `(lo..hi).step_by(k)`.
    Step,
    /// `(lo..hi).rev().step_by(k)`.
    RevStep,
    /// `(lo..hi).step_by(k).rev()` (exclusive ranges of `i32`, `u32`, `usize`, `isize` only, where
    /// Rust's `StepBy` is double-ended).
    StepRev,
}

/// How a nested team range splits its indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Nested {
    /// `thread_range` / `thread_reduce` / `thread_scan`.
    Thread,
    /// `vector_range` / ...
    Vector,
    /// `team_vector_range` / ...
    TeamVector,
}

impl Nested {
    /// The method prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Nested::Thread => "thread",
            Nested::Vector => "vector",
            Nested::TeamVector => "team_vector",
        }
    }
}

/// The reducers of `rokkos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reducer {
    /// `Sum`.
    Sum,
    /// `Prod`.
    Prod,
    /// `Min`.
    Min,
    /// `Max`.
    Max,
    /// `MinLoc` (`ValLoc { val, loc }`).
    MinLoc,
    /// `MaxLoc`.
    MaxLoc,
    /// `MinMax` (`MinMaxVal { min, max }`).
    MinMax,
    /// `LAnd` (`bool`).
    LAnd,
    /// `LOr` (`bool`).
    LOr,
    /// `BAnd` (integers).
    BAnd,
    /// `BOr` (integers).
    BOr,
}

impl Reducer {
    /// Every reducer.
    pub const ALL: [Reducer; 11] = [
        Reducer::Sum,
        Reducer::Prod,
        Reducer::Min,
        Reducer::Max,
        Reducer::MinLoc,
        Reducer::MaxLoc,
        Reducer::MinMax,
        Reducer::LAnd,
        Reducer::LOr,
        Reducer::BAnd,
        Reducer::BOr,
    ];
    /// The reducer's name in `rokkos`.
    pub fn name(self) -> &'static str {
        match self {
            Reducer::Sum => "Sum",
            Reducer::Prod => "Prod",
            Reducer::Min => "Min",
            Reducer::Max => "Max",
            Reducer::MinLoc => "MinLoc",
            Reducer::MaxLoc => "MaxLoc",
            Reducer::MinMax => "MinMax",
            Reducer::LAnd => "LAnd",
            Reducer::LOr => "LOr",
            Reducer::BAnd => "BAnd",
            Reducer::BOr => "BOr",
        }
    }
    /// Whether it reduces values of type `ty`.
    pub fn supports(self, ty: Ty) -> bool {
        match self {
            Reducer::LAnd | Reducer::LOr => ty == Ty::Bool,
            Reducer::BAnd | Reducer::BOr => ty.is_int(),
            _ => ty.is_numeric(),
        }
    }
    /// Whether the nested team reductions have it (the scalar reducers).
    pub fn nested_ok(self) -> bool {
        !matches!(self, Reducer::MinLoc | Reducer::MaxLoc | Reducer::MinMax)
    }
    /// The accumulator's fields: `value` for scalars, `val`/`loc`, `min`/`max`.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Reducer::MinLoc | Reducer::MaxLoc => &["val", "loc"],
            Reducer::MinMax => &["min", "max"],
            _ => &["value"],
        }
    }
}

/// An accumulator of a reduction kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Acc {
    /// Its reducer.
    pub reducer: Reducer,
    /// The value type (`T` of `ValLoc<T>` / `MinMaxVal<T>`).
    pub ty: Ty,
}

/// How a contribution folds into an accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fold {
    /// Operator form: `*acc += v`, `*acc *= v`, `*acc &= v`, `*acc = *acc && v`, ...
    Op,
    /// Kokkos' comparison form: `if v < *acc { *acc = v; }` (and `loc` with it).
    Compare,
    /// Method form: `*acc = (*acc).min(v)`, `(*acc).wrapping_add(v)`.
    Method,
    /// NaN-propagating comparison form (`Min` / `Max` of floats): `if v > *acc || v != v { *acc
    /// = v; }`, IEEE 754-2019 `maximum`'s treatment of NaN.
    NanWins,
    /// The reducer's own join (`Min`, `Max`, `MinMax` of floats): IEEE 754-2019 `minimum` /
    /// `maximum`, NaN winning and `-0.0` below `0.0` (`v.signum()` tells the zeros apart). The
    /// only float fold whose result the reducer contract makes partition-independent bit for
    /// bit, the sign of a zero extremum included.
    Ieee,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let [mut] var: ty = init;`
    Let {
        /// The local.
        var: VarId,
        /// Declared `mut`.
        mutable: bool,
        /// Its value (its type is the local's).
        init: Expr,
    },
    /// `var = value;` or `var op= value;`
    Assign {
        /// A mutable local.
        var: VarId,
        /// `Some(op)` for a compound assignment.
        op: Option<Bin>,
        /// The value.
        value: Expr,
    },
    /// `let mut arr = [..];`
    ArrLet {
        /// The array.
        arr: VarId,
        /// Element type.
        ty: Ty,
        /// Number of elements.
        len: u32,
        /// Contents.
        init: ArrInit,
    },
    /// `arr[idx] = value;`
    ArrStore {
        /// The array.
        arr: VarId,
        /// A `usize`.
        idx: Expr,
        /// The value.
        value: Expr,
    },
    /// `o{out}[(owner.., col)] = value;` at the work item's own element (owner-computes): the
    /// owner indices are the work index (range, MDRange), or the league rank and, for a View with
    /// a second owned dimension, the enclosing nested range's index `at` (team kernels).
    Store {
        /// The output View.
        out: u32,
        /// The column.
        col: u32,
        /// The nested range index owning the second dimension (team thread-level outputs).
        at: Option<VarId>,
        /// The value (of the View's element type).
        value: Expr,
    },
    /// `a{view}.atomic_<op>(idx, args..);`
    Atomic {
        /// The atomic View.
        view: u32,
        /// The index (`usize`).
        idx: Expr,
        /// The operation.
        op: AtomicOp,
        /// Value arguments.
        args: Vec<Expr>,
    },
    /// `if cond { then } else { els }`.
    If {
        /// A `bool`.
        cond: Expr,
        /// Taken branch.
        then: Vec<Stmt>,
        /// Other branch (may be empty).
        els: Vec<Stmt>,
    },
    /// `for var in <range> { body }` over `lo..hi` / `lo..=hi` with adapters.
    For {
        /// The counter (of `lo`'s type).
        var: VarId,
        /// First bound.
        lo: Expr,
        /// Last bound.
        hi: Expr,
        /// `lo..=hi`.
        inclusive: bool,
        /// Adapters.
        shape: RangeShape,
        /// `step_by` argument (`usize`) for the stepping shapes.
        step: Option<Expr>,
        /// Loop body.
        body: Vec<Stmt>,
    },
    /// `let mut c = 0u32; while c < limit && cond { c += 1; body }` (bounded).
    While {
        /// The iteration counter.
        counter: VarId,
        /// Most iterations.
        limit: u32,
        /// The condition.
        cond: Expr,
        /// Loop body.
        body: Vec<Stmt>,
    },
    /// `let mut c = 0u32; loop { c += 1; if c > limit { break; } body }` (bounded).
    Loop {
        /// The iteration counter.
        counter: VarId,
        /// Most iterations.
        limit: u32,
        /// Loop body.
        body: Vec<Stmt>,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` (ends the work item).
    Return,
    /// Folds `value` into accumulator `acc` (the work item's contribution to a reduction), after
    /// storing it at `term` (so that a float sum or product can be bounded under reassociation).
    Contribute {
        /// The accumulator (index into [`Kernel::accs`]).
        acc: u32,
        /// Output View and column receiving the value first.
        term: Option<(u32, u32)>,
        /// The form.
        fold: Fold,
        /// The value.
        value: Expr,
        /// For `MinLoc` / `MaxLoc`: the location (`usize`).
        loc: Option<Expr>,
    },
    /// A scan kernel's step: `if is_final { o..[(i, col)] = *partial; } *partial += value;`
    ScanStep {
        /// The output View and column receiving the exclusive prefix.
        out: u32,
        /// The column.
        col: u32,
        /// Column of the same output View receiving this work item's term.
        term_col: u32,
        /// The term.
        value: Expr,
    },
    /// `team.team_barrier();`
    Barrier,
    /// `for var in team.<kind>_range(n) { body }`.
    NestedFor {
        /// Split.
        kind: Nested,
        /// Index (`usize`).
        var: VarId,
        /// Bound (`usize`).
        n: Expr,
        /// Body.
        body: Vec<Stmt>,
    },
    /// `let result = team.<kind>_reduce(n, R, |var, acc: &mut ty| { body; *acc op= value });`
    NestedReduce {
        /// Split.
        kind: Nested,
        /// Index (`usize`).
        var: VarId,
        /// Bound (`usize`).
        n: Expr,
        /// A scalar reducer.
        reducer: Reducer,
        /// The closure's accumulator.
        acc: VarId,
        /// Statements before the fold.
        body: Vec<Stmt>,
        /// The contribution.
        value: Expr,
        /// How it folds.
        fold: Fold,
        /// The local receiving the result (of `value`'s type).
        result: VarId,
    },
    /// `let total = team.<kind>_scan(n, |var, partial: &mut ty, fin: bool| { body;
    /// if fin { o[(.., var, col)] = *partial; } *partial += value; });`
    NestedScan {
        /// Split.
        kind: Nested,
        /// Index (`usize`).
        var: VarId,
        /// Bound (`usize`).
        n: Expr,
        /// The closure's partial sum.
        partial: VarId,
        /// The closure's final flag.
        fin: VarId,
        /// Statements before the step (no side effects).
        body: Vec<Stmt>,
        /// The term.
        value: Expr,
        /// Output View receiving each index's exclusive prefix when final.
        out: u32,
        /// Its column.
        col: u32,
        /// The local receiving the total.
        total: VarId,
    },
    /// `team.single_team(|| { body })` / `single_thread`, or with a value:
    /// `let result = team.single_team(|| value);`
    Single {
        /// Once per team (`true`) or per thread.
        team: bool,
        /// Statements (stores at team-owned indices).
        body: Vec<Stmt>,
        /// `Some((local, value))`: the closure's value, bound to `local` in every thread.
        result: Option<(VarId, Expr)>,
    },
    /// `let var = team.team_broadcast(value, src);`
    Broadcast {
        /// The new local.
        var: VarId,
        /// The value (every thread evaluates it).
        value: Expr,
        /// Source thread (`usize`).
        src: Expr,
    },
    /// `let sc{id} = team.<team|thread>_scratch::<ty, 1>(level, [len]);`
    Scratch {
        /// Its number.
        id: u32,
        /// Per team (`true`) or per thread.
        team: bool,
        /// Level 0 or 1.
        level: u32,
        /// Element type.
        ty: Ty,
        /// Number of elements (`usize`).
        len: Expr,
    },
    /// `sc{id}[idx] = value;` (scratch store at an owned index).
    ScratchStore {
        /// The scratch View.
        id: u32,
        /// The index (`usize`): the enclosing nested range's index.
        idx: Expr,
        /// The value.
        value: Expr,
    },
}

impl Stmt {
    /// The nested statement lists.
    pub fn blocks(&self) -> Vec<&Vec<Stmt>> {
        match self {
            Stmt::If { then, els, .. } => vec![then, els],
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::NestedFor { body, .. }
            | Stmt::NestedReduce { body, .. }
            | Stmt::NestedScan { body, .. }
            | Stmt::Single { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }
    /// The nested statement lists, mutably.
    pub fn blocks_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            Stmt::If { then, els, .. } => vec![then, els],
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body, .. }
            | Stmt::NestedFor { body, .. }
            | Stmt::NestedReduce { body, .. }
            | Stmt::NestedScan { body, .. }
            | Stmt::Single { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }
    /// The expressions the statement evaluates itself (not those of nested statements).
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            Stmt::Let { init, .. } => vec![init],
            Stmt::Assign { value, .. } | Stmt::Store { value, .. } => vec![value],
            Stmt::ArrLet { init, .. } => match init {
                ArrInit::Fill(e) => vec![e],
                ArrInit::Elems(es) => es.iter().collect(),
            },
            Stmt::ArrStore { idx, value, .. } | Stmt::ScratchStore { idx, value, .. } => {
                vec![idx, value]
            }
            Stmt::Atomic { idx, args, .. } => std::iter::once(idx).chain(args.iter()).collect(),
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => vec![cond],
            Stmt::For { lo, hi, step, .. } => {
                let mut v = vec![lo, hi];
                v.extend(step.iter());
                v
            }
            Stmt::Contribute { value, loc, .. } => {
                std::iter::once(value).chain(loc.iter()).collect()
            }
            Stmt::ScanStep { value, .. } => vec![value],
            Stmt::NestedFor { n, .. } => vec![n],
            Stmt::NestedReduce { n, value, .. } | Stmt::NestedScan { n, value, .. } => {
                vec![n, value]
            }
            Stmt::Single { result, .. } => result.iter().map(|(_, e)| e).collect(),
            Stmt::Broadcast { value, src, .. } => vec![value, src],
            Stmt::Scratch { len, .. } => vec![len],
            Stmt::Loop { .. } | Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Barrier => {
                Vec::new()
            }
        }
    }
    /// The expressions the statement evaluates itself, mutably.
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Stmt::Let { init, .. } => vec![init],
            Stmt::Assign { value, .. } | Stmt::Store { value, .. } => vec![value],
            Stmt::ArrLet { init, .. } => match init {
                ArrInit::Fill(e) => vec![e],
                ArrInit::Elems(es) => es.iter_mut().collect(),
            },
            Stmt::ArrStore { idx, value, .. } | Stmt::ScratchStore { idx, value, .. } => {
                vec![idx, value]
            }
            Stmt::Atomic { idx, args, .. } => std::iter::once(idx).chain(args.iter_mut()).collect(),
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => vec![cond],
            Stmt::For { lo, hi, step, .. } => {
                let mut v = vec![lo, hi];
                v.extend(step.iter_mut());
                v
            }
            Stmt::Contribute { value, loc, .. } => {
                std::iter::once(value).chain(loc.iter_mut()).collect()
            }
            Stmt::ScanStep { value, .. } => vec![value],
            Stmt::NestedFor { n, .. } => vec![n],
            Stmt::NestedReduce { n, value, .. } | Stmt::NestedScan { n, value, .. } => {
                vec![n, value]
            }
            Stmt::Single { result, .. } => result.iter_mut().map(|(_, e)| e).collect(),
            Stmt::Broadcast { value, src, .. } => vec![value, src],
            Stmt::Scratch { len, .. } => vec![len],
            Stmt::Loop { .. } | Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Barrier => {
                Vec::new()
            }
        }
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

/// The iteration space and pattern of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// `parallel_for` over a `RangePolicy`.
    RangeFor,
    /// `parallel_reduce` over a `RangePolicy`.
    RangeReduce,
    /// `parallel_scan` over a `RangePolicy`.
    RangeScan,
    /// `parallel_for` over a rank-`N` `MDRangePolicy`.
    MdFor(u8),
    /// `parallel_reduce` over a rank-`N` `MDRangePolicy`.
    MdReduce(u8),
    /// `parallel_for` over a `TeamPolicy`.
    TeamFor,
    /// `parallel_reduce` over a `TeamPolicy`.
    TeamReduce,
}

impl Family {
    /// Number of work-index components (0 for teams).
    pub fn rank(self) -> usize {
        match self {
            Family::RangeFor | Family::RangeReduce | Family::RangeScan => 1,
            Family::MdFor(n) | Family::MdReduce(n) => n as usize,
            Family::TeamFor | Family::TeamReduce => 0,
        }
    }
    /// A team kernel.
    pub fn is_team(self) -> bool {
        matches!(self, Family::TeamFor | Family::TeamReduce)
    }
    /// A reduction kernel.
    pub fn is_reduce(self) -> bool {
        matches!(
            self,
            Family::RangeReduce | Family::MdReduce(_) | Family::TeamReduce
        )
    }
}

/// How the elements of a View argument are laid out in memory (chosen at generation time, since a
/// layout is a type parameter of the launch code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `LayoutRight`.
    Right,
    /// `LayoutLeft`.
    Left,
    /// A `LayoutStride` subview: every other element of a twice-as-wide View.
    Stride,
}

/// The extent of one dimension of a View argument, in terms of the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extent {
    /// Work extent `k` of the launch (range length, MDRange box extent `k`, league size for 0 in a
    /// team kernel, the team's inner extent for 1).
    Work(u8),
    /// A fixed number of elements.
    Fixed(u32),
}

/// A read-only input View `x{n}`.
#[derive(Clone, Debug, PartialEq)]
pub struct InView {
    /// Element type.
    pub ty: Ty,
    /// Extents.
    pub dims: Vec<Extent>,
    /// Layout.
    pub layout: Layout,
}

/// An output View `o{n}`: the work items' owned elements, `cols` values each.
#[derive(Clone, Debug, PartialEq)]
pub struct OutView {
    /// Element type.
    pub ty: Ty,
    /// Owned leading dimensions (as [`InView::dims`]), then one dimension of `cols`.
    pub dims: Vec<Extent>,
    /// Number of columns.
    pub cols: u32,
    /// Layout.
    pub layout: Layout,
}

/// An atomic target `a{n}`: rank 1, `len` elements.
#[derive(Clone, Debug, PartialEq)]
pub struct AtomicView {
    /// Element type.
    pub ty: Ty,
    /// Number of elements.
    pub len: Extent,
}

/// The team launch shape of a team kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TeamShape {
    /// `Some(n)`: `TeamSize::Exactly(n)`; `None`: `TeamSize::Auto`.
    pub team_size: Option<u32>,
    /// Vector length (a power of two).
    pub vector: u32,
    /// Scratch bytes per team (level 0, level 1).
    pub scratch_team: [u32; 2],
    /// Scratch bytes per thread (level 0, level 1).
    pub scratch_thread: [u32; 2],
}

/// One generated kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The Rust name.
    pub name: String,
    /// Pattern and policy.
    pub family: Family,
    /// Read-only Views.
    pub inputs: Vec<InView>,
    /// Output Views.
    pub outputs: Vec<OutView>,
    /// Atomic Views.
    pub atomics: Vec<AtomicView>,
    /// Scalar parameter types.
    pub scalars: Vec<Ty>,
    /// Accumulators (reductions), or the scan's partial value (one `Sum` accumulator).
    pub accs: Vec<Acc>,
    /// Team launch shape (team kernels).
    pub team: Option<TeamShape>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Local types, by [`VarId`] (arrays: the element type; a function's parameters too).
    pub vars: Vec<Ty>,
    /// The `#[func]` helpers the body calls ([`Method::Func`]; see [`crate::funcs`]).
    pub funcs: Vec<Func>,
}

/// A `#[func]` helper: a pure expression of its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// Its parameters: the locals its body reads, and their types.
    pub params: Vec<(VarId, Ty)>,
    /// The result type.
    pub ret: Ty,
    /// The body.
    pub body: Expr,
}

impl Kernel {
    /// Calls `f` on every statement, parents first.
    pub fn walk_stmts(&self, f: &mut impl FnMut(&Stmt)) {
        for s in &self.body {
            s.walk(f);
        }
    }
    /// Calls `f` on every expression node, parents first.
    pub fn walk_exprs(&self, f: &mut impl FnMut(&Expr)) {
        self.walk_stmts(&mut |s| {
            for e in s.exprs() {
                e.walk(f);
            }
        });
    }
}
