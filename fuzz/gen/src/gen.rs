//! Random kernels: a [`Kernel`] from a seed, well typed and inside the subset `#[kernel]` accepts.
//!
//! The generator keeps a scope of the locals each point can read and assign, and only builds what
//! the macro accepts there: owned stores (`o[(i, c)]`), atomics on Views used only atomically,
//! `break` / `continue` inside loops, bounded loops (every loop's trip count is at most a small
//! constant, whatever the inputs), no `unsafe`. What it cannot rule out it leaves to the inputs
//! on purpose: an integer overflow, a zero divisor or shift amounts past the width fail (or wrap)
//! the same way on every backend, and that is compared too.

use crate::ast::*;
use crate::rng::Rng;
use crate::ty::{Lit, Ty};
use crate::values::random_lit;

/// The salt of kernel streams (input streams use another).
pub const KERNEL_SALT: u64 = 1;

/// Kernel `index` of the run with `seed`.
pub fn kernel(seed: u64, index: u64) -> Kernel {
    let mut k = kernel_without_funcs(seed, index);
    crate::funcs::outline(
        &mut k,
        &mut Rng::derive(seed, crate::funcs::FUNC_SALT, index),
    );
    k
}

/// Kernel `index` of seed `seed` as the generator builds it, before [`crate::funcs::outline`].
pub fn kernel_without_funcs(seed: u64, index: u64) -> Kernel {
    let mut rng = Rng::derive(seed, KERNEL_SALT, index);
    let family = match rng.weighted(&[34, 16, 8, 8, 5, 18, 11]) {
        0 => Family::RangeFor,
        1 => Family::RangeReduce,
        2 => Family::RangeScan,
        3 => Family::MdFor(2 + rng.below(2) as u8),
        4 => Family::MdReduce(2 + rng.below(2) as u8),
        5 => Family::TeamFor,
        _ => Family::TeamReduce,
    };
    Gen::new(rng, format!("fz{index}"), family).build()
}

/// A local in scope.
#[derive(Clone, Debug)]
struct Local {
    var: VarId,
    ty: Ty,
    mutable: bool,
    /// `Some(len)` for a local array.
    array: Option<u32>,
}

/// Where the statement being generated sits.
#[derive(Clone, Debug)]
struct Ctx {
    /// Loops enclosing it inside the current closure body (`break` / `continue` allowed).
    loops: u32,
    /// Statement nesting depth.
    depth: u32,
    /// Locals of scopes below this index may not be assigned (a team construct's body).
    frozen_below: usize,
    /// `return` allowed (range and MDRange bodies outside team constructs).
    can_return: bool,
    /// Atomics allowed (not in scan bodies, which run more than once per index).
    atomics: bool,
    /// Team kernels: the owned nested index for thread-level stores (inside a thread or
    /// team-vector range), and whether team-level stores are allowed (inside `single_team`).
    team_at: Option<VarId>,
    /// Inside `single_team` (team-level outputs may be written).
    team_single: bool,
    /// Inside any team construct body (no barriers, no nested team-wide constructs).
    in_team_construct: bool,
    /// Scratch Views readable here: (id, element type, team scope).
    scratch: Vec<(u32, Ty, bool)>,
}

struct Gen {
    rng: Rng,
    k: Kernel,
    scopes: Vec<Vec<Local>>,
    ctx: Ctx,
    budget: i32,
    /// This kernel uses the operations that panic on overflow (`+ - *`, `-x`, `abs`, unmasked
    /// shifts) freely; other kernels rarely, so that most inputs run to completion.
    risky: bool,
    /// This kernel keeps subexpressions whose operands are all constants; other kernels mostly
    /// replace one operand by a parameter (device compilers fold constants themselves).
    constants: bool,
}

impl Gen {
    fn new(rng: Rng, name: String, family: Family) -> Gen {
        let team = family.is_team();
        Gen {
            rng,
            k: Kernel {
                name,
                family,
                inputs: Vec::new(),
                outputs: Vec::new(),
                atomics: Vec::new(),
                scalars: Vec::new(),
                accs: Vec::new(),
                team: None,
                body: Vec::new(),
                vars: Vec::new(),
                funcs: Vec::new(),
            },
            scopes: vec![Vec::new()],
            ctx: Ctx {
                loops: 0,
                depth: 0,
                frozen_below: 0,
                can_return: !team,
                atomics: family != Family::RangeScan,
                team_at: None,
                team_single: false,
                in_team_construct: false,
                scratch: Vec::new(),
            },
            budget: 0,
            risky: false,
            constants: false,
        }
    }

    fn build(mut self) -> Kernel {
        self.budget = self.rng.range(4, 16) as i32;
        self.risky = self.rng.chance(30);
        self.constants = self.rng.chance(30);
        match self.k.family {
            Family::RangeFor | Family::MdFor(_) => {
                let body = self.block_items();
                self.k.body = body;
            }
            Family::RangeReduce | Family::MdReduce(_) => {
                self.choose_accs();
                let mut body = self.block_items();
                body.extend(self.contributions());
                self.k.body = body;
            }
            Family::RangeScan => {
                let ty = *self.rng.pick(&Ty::ELEMS);
                self.k.accs.push(Acc {
                    reducer: Reducer::Sum,
                    ty,
                });
                let mut body = self.block_items();
                let value = self.expr(ty, 3);
                let (out, col) = self.out_col(ty, false);
                let term_col = self.k.outputs[out as usize].cols;
                self.k.outputs[out as usize].cols += 1;
                body.push(Stmt::ScanStep {
                    out,
                    col,
                    term_col,
                    value,
                });
                self.k.body = body;
            }
            Family::TeamFor | Family::TeamReduce => self.team_kernel(),
        }
        self.k
    }

    // ---------------------------------------------------------------------------------------
    // Scopes and names

    fn new_var(&mut self, ty: Ty) -> VarId {
        self.k.vars.push(ty);
        VarId(self.k.vars.len() as u32 - 1)
    }

    fn declare(&mut self, var: VarId, ty: Ty, mutable: bool, array: Option<u32>) {
        self.scopes.last_mut().expect("a scope").push(Local {
            var,
            ty,
            mutable,
            array,
        });
    }

    fn scoped<T>(&mut self, f: impl FnOnce(&mut Gen) -> T) -> T {
        self.scopes.push(Vec::new());
        self.ctx.depth += 1;
        let r = f(self);
        self.ctx.depth -= 1;
        self.scopes.pop();
        r
    }

    fn locals(&self, pred: impl Fn(&Local) -> bool) -> Vec<Local> {
        self.scopes
            .iter()
            .flatten()
            .filter(|l| pred(l))
            .cloned()
            .collect()
    }

    fn assignable(&self, pred: impl Fn(&Local) -> bool) -> Vec<Local> {
        self.scopes[self.ctx.frozen_below.min(self.scopes.len())..]
            .iter()
            .flatten()
            .filter(|l| l.mutable && pred(l))
            .cloned()
            .collect()
    }

    /// Scalar parameter of type `ty` (an existing one or a new one).
    fn param(&mut self, ty: Ty) -> Expr {
        let have: Vec<usize> = (0..self.k.scalars.len())
            .filter(|&p| self.k.scalars[p] == ty)
            .collect();
        let p = if !have.is_empty() && (self.k.scalars.len() >= 6 || self.rng.chance(60)) {
            *self.rng.pick(&have)
        } else {
            self.k.scalars.push(ty);
            self.k.scalars.len() - 1
        };
        Expr::new(ty, ExprKind::Param(p as u32))
    }

    /// The extents of the work item's own elements (range index, MDRange box, league / inner).
    fn owned_dims(&self, thread_level: bool) -> Vec<Extent> {
        match self.k.family {
            Family::TeamFor | Family::TeamReduce => {
                if thread_level {
                    vec![Extent::Work(0), Extent::Work(1)]
                } else {
                    vec![Extent::Work(0)]
                }
            }
            f => (0..f.rank() as u8).map(Extent::Work).collect(),
        }
    }

    /// A new column of the output View of stored type `ty` (thread level: indexed by the nested
    /// range too, in team kernels).
    fn out_col(&mut self, ty: Ty, thread_level: bool) -> (u32, u32) {
        let ty = ty.stored();
        let dims = self.owned_dims(thread_level);
        let out = match self
            .k
            .outputs
            .iter()
            .position(|o| o.ty == ty && o.dims == dims)
        {
            Some(o) => o,
            None => {
                let layout = self.layout();
                self.k.outputs.push(OutView {
                    ty,
                    dims,
                    cols: 0,
                    layout,
                });
                self.k.outputs.len() - 1
            }
        };
        let col = self.k.outputs[out].cols;
        self.k.outputs[out].cols += 1;
        (out as u32, col)
    }

    fn layout(&mut self) -> Layout {
        *self
            .rng
            .pick(&[Layout::Right, Layout::Right, Layout::Left, Layout::Stride])
    }

    /// An input View of element type `ty`: per work item (`x[i]`) or a small table.
    fn input(&mut self, ty: Ty, per_item: bool) -> u32 {
        let dims = if per_item {
            self.owned_dims(false)
        } else {
            vec![Extent::Fixed(self.rng.range(1, 9) as u32)]
        };
        if let Some(x) = self
            .k
            .inputs
            .iter()
            .position(|x| x.ty == ty && x.dims == dims)
        {
            if self.k.inputs.len() >= 5 || self.rng.chance(60) {
                return x as u32;
            }
        }
        let layout = self.layout();
        self.k.inputs.push(InView { ty, dims, layout });
        self.k.inputs.len() as u32 - 1
    }

    /// Stores `value` into a new column, converting `bool`/`usize`/`isize` to a View type.
    fn observe(&mut self, value: Expr) -> Option<Stmt> {
        let thread_level = self.k.family.is_team();
        if thread_level && self.ctx.team_at.is_none() && !self.ctx.team_single {
            return None;
        }
        let at = if self.ctx.team_single {
            None
        } else {
            self.ctx.team_at
        };
        let stored = value.ty.stored();
        let value = if stored == value.ty {
            value
        } else {
            cast(value, stored)
        };
        let (out, col) = self.out_col(stored, at.is_some());
        Some(Stmt::Store {
            out,
            col,
            at,
            value,
        })
    }

    // ---------------------------------------------------------------------------------------
    // Statements

    /// Statements of one block (in a new scope), ending with stores of some of its locals.
    fn block_items(&mut self) -> Vec<Stmt> {
        self.scoped(|g| {
            let mut out = Vec::new();
            let n = if g.ctx.depth <= 1 {
                g.rng.range(2, 6)
            } else {
                g.rng.range(1, 3)
            };
            for _ in 0..n {
                if g.budget <= 0 {
                    break;
                }
                g.budget -= 1;
                out.extend(g.stmt());
            }
            let mine: Vec<Local> = g.scopes.last().expect("scope").clone();
            for l in mine {
                if l.array.is_none() && g.rng.chance(70) {
                    let v = Expr::new(l.ty, ExprKind::Var(l.var));
                    out.extend(g.observe(v));
                }
            }
            out
        })
    }

    fn stmt(&mut self) -> Vec<Stmt> {
        let deep = self.ctx.depth >= 3;
        let has_mut = !self.assignable(|l| l.array.is_none()).is_empty();
        let has_arr = !self.assignable(|l| l.array.is_some()).is_empty();
        let team = self.k.family.is_team();
        let w = [
            30,                                      // let
            if has_mut { 15 } else { 0 },            // assign
            8,                                       // store
            if deep { 0 } else { 10 },               // if
            if deep { 0 } else { 7 },                // for
            if deep { 0 } else { 3 },                // while
            if deep { 0 } else { 3 },                // loop
            4,                                       // array let
            if has_arr { 4 } else { 0 },             // array store
            if self.ctx.loops > 0 { 4 } else { 0 },  // break / continue
            if self.ctx.can_return { 2 } else { 0 }, // return
            if self.ctx.atomics { 5 } else { 0 },    // atomic
            if team && !self.ctx.in_team_construct && !deep {
                14
            } else {
                0
            }, // team construct
        ];
        match self.rng.weighted(&w) {
            0 => {
                let ty = self.any_ty();
                let init = self.expr(ty, 3);
                let var = self.new_var(ty);
                let mutable = self.rng.chance(50);
                self.declare(var, ty, mutable, None);
                vec![Stmt::Let { var, mutable, init }]
            }
            1 => {
                let l = self.pick_local(|l| l.array.is_none());
                let value = self.expr(l.ty, 3);
                let op = if self.rng.chance(30) {
                    self.compound_op(l.ty)
                } else {
                    None
                };
                let value = match op {
                    Some(Bin::Shl | Bin::Shr) => self.shift_amount(l.ty, value),
                    _ => value,
                };
                vec![Stmt::Assign {
                    var: l.var,
                    op,
                    value,
                }]
            }
            2 => {
                let ty = self.any_ty();
                let e = self.expr(ty, 3);
                self.observe(e).into_iter().collect()
            }
            3 => {
                let cond = self.expr(Ty::Bool, 3);
                let then = self.block_items();
                let els = if self.rng.chance(50) {
                    self.block_items()
                } else {
                    Vec::new()
                };
                vec![Stmt::If { cond, then, els }]
            }
            4 => self.for_loop(),
            5 | 6 => {
                let counter = self.new_var(Ty::U32);
                let limit = self.rng.range(0, 6) as u32;
                let cond = if w[5] > 0 && self.rng.chance(50) {
                    Some(self.expr(Ty::Bool, 2))
                } else {
                    None
                };
                self.ctx.loops += 1;
                let body = self.block_items();
                self.ctx.loops -= 1;
                vec![match cond {
                    Some(cond) => Stmt::While {
                        counter,
                        limit,
                        cond,
                        body,
                    },
                    None => Stmt::Loop {
                        counter,
                        limit,
                        body,
                    },
                }]
            }
            7 => {
                let ty = self.any_ty();
                let len = self.rng.range(1, 5) as u32;
                let init = if self.rng.chance(50) {
                    ArrInit::Fill(self.expr(ty, 2))
                } else {
                    ArrInit::Elems((0..len).map(|_| self.expr(ty, 2)).collect())
                };
                let arr = self.new_var(ty);
                self.declare(arr, ty, true, Some(len));
                vec![Stmt::ArrLet { arr, ty, len, init }]
            }
            8 => {
                let l = self.pick_local(|l| l.array.is_some());
                let idx = self.index_into(l.array.expect("array"), None);
                let value = self.expr(l.ty, 3);
                vec![Stmt::ArrStore {
                    arr: l.var,
                    idx,
                    value,
                }]
            }
            9 => {
                let cond = self.expr(Ty::Bool, 2);
                let s = if self.rng.chance(50) {
                    Stmt::Break
                } else {
                    Stmt::Continue
                };
                vec![Stmt::If {
                    cond,
                    then: vec![s],
                    els: Vec::new(),
                }]
            }
            10 => {
                let cond = self.expr(Ty::Bool, 2);
                vec![Stmt::If {
                    cond,
                    then: vec![Stmt::Return],
                    els: Vec::new(),
                }]
            }
            11 => self.atomic_stmt(),
            _ => self.team_construct(),
        }
    }

    fn pick_local(&mut self, pred: impl Fn(&Local) -> bool) -> Local {
        let ls = self.assignable(pred);
        self.rng.pick(&ls).clone()
    }

    fn compound_op(&mut self, ty: Ty) -> Option<Bin> {
        Some(match ty {
            Ty::Bool => *self.rng.pick(&[Bin::And, Bin::Or, Bin::Xor]),
            Ty::F32 | Ty::F64 => *self.rng.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Div]),
            _ if self.risky || self.rng.chance(25) => {
                *self
                    .rng
                    .pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Shl, Bin::Shr])
            }
            _ => *self.rng.pick(&[Bin::And, Bin::Or, Bin::Xor]),
        })
    }

    /// Any scalar type, integers and floats favoured.
    fn any_ty(&mut self) -> Ty {
        Ty::ALL[self.rng.weighted(&[8, 14, 12, 12, 10, 10, 6, 14, 14])]
    }

    fn for_loop(&mut self) -> Vec<Stmt> {
        let ty = *self.rng.pick(&Ty::INTS);
        let mut pre = Vec::new();
        let k = self.rng.range(0, 6) as i128;
        let (lo, hi) = if self.rng.chance(20) {
            // At the top of the type: inclusive ranges that end at MAX must still stop.
            let (_, max) = crate::ty::int_range(ty);
            (
                Expr::lit(Lit::int(ty, max - k)),
                Expr::lit(Lit::int(ty, max)),
            )
        } else {
            let start = self.expr(ty, 2);
            let v = self.new_var(ty);
            self.declare(v, ty, false, None);
            pre.push(Stmt::Let {
                var: v,
                mutable: false,
                init: start,
            });
            let var = Expr::new(ty, ExprKind::Var(v));
            let hi = call(
                Method::WrappingAdd,
                vec![var.clone(), Expr::lit(Lit::int(ty, k))],
            );
            (var, hi)
        };
        let inclusive = self.rng.chance(40);
        let double_ended_step =
            !inclusive && matches!(ty, Ty::I32 | Ty::U32 | Ty::Usize | Ty::Isize);
        let shape =
            match self
                .rng
                .weighted(&[40, 20, 20, 10, if double_ended_step { 10 } else { 0 }])
            {
                0 => RangeShape::Plain,
                1 => RangeShape::Rev,
                2 => RangeShape::Step,
                3 => RangeShape::RevStep,
                _ => RangeShape::StepRev,
            };
        let step = match shape {
            RangeShape::Plain | RangeShape::Rev => None,
            _ => Some(if self.rng.chance(80) {
                Expr::lit(Lit::int(Ty::Usize, self.rng.range(1, 4) as i128))
            } else {
                // A run-time step, possibly zero (which must fail everywhere) or huge.
                self.expr(Ty::Usize, 1)
            }),
        };
        let var = self.new_var(ty);
        self.ctx.loops += 1;
        let body = self.scoped(|g| {
            g.declare(var, ty, false, None);
            g.block_items()
        });
        self.ctx.loops -= 1;
        pre.push(Stmt::For {
            var,
            lo,
            hi,
            inclusive,
            shape,
            step,
            body,
        });
        pre
    }

    /// A `usize` index into something of `len` elements: usually in range (`e % len`), rarely
    /// not (which must fail on every backend).
    fn index_into(&mut self, len: u32, extent_of: Option<ViewRef>) -> Expr {
        let e = self.expr(Ty::Usize, 2);
        if self.rng.chance(3) {
            return bin(Bin::And, e, Expr::lit(Lit::int(Ty::Usize, 15)));
        }
        let bound = match extent_of {
            Some(view) if self.rng.chance(50) => {
                Expr::new(Ty::Usize, ExprKind::Extent { view, dim: 0 })
            }
            _ => Expr::lit(Lit::int(Ty::Usize, len as i128)),
        };
        bin(Bin::Rem, e, bound)
    }

    fn atomic_stmt(&mut self) -> Vec<Stmt> {
        let ty = *self.rng.pick(&Ty::ELEMS);
        let owned = self.k.family.rank() == 1 && self.rng.chance(40);
        let view = self.atomic_view(ty, owned);
        if owned {
            // Any operation at the work item's own element, also the value-returning ones.
            let op = self.atomic_op(ty, true);
            let idx = Expr::new(Ty::Usize, ExprKind::Work(0));
            let args: Vec<Expr> = (0..op.arity()).map(|_| self.expr(ty, 2)).collect();
            if op == AtomicOp::Store || self.rng.chance(40) {
                return vec![Stmt::Atomic {
                    view,
                    idx,
                    op,
                    args,
                }];
            }
            let var = self.new_var(ty);
            self.declare(var, ty, false, None);
            let init = Expr::new(
                ty,
                ExprKind::Atomic {
                    view,
                    idx: Box::new(idx),
                    op,
                    args,
                },
            );
            return vec![Stmt::Let {
                var,
                mutable: false,
                init,
            }];
        }
        // A shared element: only operations whose result does not depend on the order.
        let op = self.atomic_op(ty, false);
        let len = match self.k.atomics[view as usize].len {
            Extent::Fixed(n) => n,
            Extent::Work(_) => unreachable!("shared atomic Views are fixed"),
        };
        let idx = self.index_into(len, Some(ViewRef::Atomic(view)));
        let mut v = self.expr(ty, 2);
        if ty.is_float() {
            v = match op {
                // Float sums are exact in any order only for small integers.
                AtomicOp::Add | AtomicOp::Sub => cast(
                    bin(
                        Bin::Rem,
                        cast(v, Ty::I32),
                        Expr::lit(Lit::int(Ty::I32, 1024)),
                    ),
                    ty,
                ),
                // `-0.0 + 0.0` is `+0.0`: a signed zero would make min/max order-dependent.
                _ => bin(Bin::Add, v, Expr::lit(Lit::zero(ty))),
            };
        }
        vec![Stmt::Atomic {
            view,
            idx,
            op,
            args: vec![v],
        }]
    }

    fn atomic_view(&mut self, ty: Ty, owned: bool) -> u32 {
        let len = if owned {
            Extent::Work(0)
        } else {
            Extent::Fixed(self.rng.range(1, 5) as u32)
        };
        if let Some(a) = self.k.atomics.iter().position(|a| {
            a.ty == ty && (a.len == len || (!owned && matches!(a.len, Extent::Fixed(_))))
        }) {
            return a as u32;
        }
        self.k.atomics.push(AtomicView { ty, len });
        self.k.atomics.len() as u32 - 1
    }

    fn atomic_op(&mut self, ty: Ty, owned: bool) -> AtomicOp {
        let mut ops = vec![AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max];
        if ty.is_int() {
            ops.extend([AtomicOp::And, AtomicOp::Or, AtomicOp::Xor]);
        }
        if owned {
            ops.extend([
                AtomicOp::Exchange,
                AtomicOp::CompareExchange,
                AtomicOp::Load,
                AtomicOp::Store,
            ]);
        }
        *self.rng.pick(&ops)
    }

    // ---------------------------------------------------------------------------------------
    // Reductions

    fn choose_accs(&mut self) {
        let n = self.rng.weighted(&[0, 60, 30, 10]);
        for _ in 0..n {
            let reducer = *self.rng.pick(&Reducer::ALL);
            let ty = match reducer {
                Reducer::LAnd | Reducer::LOr => Ty::Bool,
                Reducer::BAnd | Reducer::BOr => *self.rng.pick(&Ty::INTS),
                _ => *self.rng.pick(&Ty::NUMS),
            };
            self.k.accs.push(Acc { reducer, ty });
        }
    }

    /// One contribution per accumulator (at the top level of the body, so that a work item
    /// contributes at most once and its term can be stored beside it).
    fn contributions(&mut self) -> Vec<Stmt> {
        let mut out = Vec::new();
        for a in 0..self.k.accs.len() {
            let acc = self.k.accs[a].clone();
            let value = self.expr(acc.ty, 3);
            out.push(self.contribution(a as u32, &acc, value));
        }
        out
    }

    fn contribution(&mut self, a: u32, acc: &Acc, value: Expr) -> Stmt {
        let fold = match acc.reducer {
            Reducer::Sum | Reducer::Prod if acc.ty.is_int() => {
                // `+=` overflows (a failure in debug builds); the wrapping method does not.
                if self.rng.chance(if self.risky { 40 } else { 5 }) {
                    Fold::Op
                } else {
                    Fold::Method
                }
            }
            Reducer::Sum | Reducer::Prod | Reducer::BAnd | Reducer::BOr => Fold::Op,
            Reducer::Min | Reducer::Max => match self.rng.weighted(&[35, 35, 10, 20]) {
                0 => Fold::Compare,
                1 => Fold::Method,
                2 if acc.ty.is_float() => Fold::NanWins,
                3 if acc.ty.is_float() => Fold::Ieee,
                _ => Fold::Compare,
            },
            Reducer::MinMax if acc.ty.is_float() && self.rng.chance(50) => Fold::Ieee,
            Reducer::LAnd | Reducer::LOr => {
                if self.rng.chance(50) {
                    Fold::Compare
                } else {
                    Fold::Op
                }
            }
            Reducer::MinLoc | Reducer::MaxLoc | Reducer::MinMax => Fold::Compare,
        };
        // A location unique to the work item (ties are broken by it).
        let loc = matches!(acc.reducer, Reducer::MinLoc | Reducer::MaxLoc).then(|| {
            if self.k.family.is_team() {
                return Expr::new(Ty::Usize, ExprKind::Var(self.league_var()));
            }
            let mut e = Expr::new(Ty::Usize, ExprKind::Work(0));
            for d in 1..self.k.family.rank() as u8 {
                let scaled = call(
                    Method::WrappingMul,
                    vec![e, Expr::lit(Lit::int(Ty::Usize, 4096))],
                );
                e = call(
                    Method::WrappingAdd,
                    vec![scaled, Expr::new(Ty::Usize, ExprKind::Work(d))],
                );
            }
            e
        });
        let term = (acc.ty.is_float() && matches!(acc.reducer, Reducer::Sum | Reducer::Prod))
            .then(|| self.out_col(acc.ty, false));
        Stmt::Contribute {
            acc: a,
            term,
            fold,
            value,
            loc,
        }
    }

    // ---------------------------------------------------------------------------------------
    // Team kernels

    fn league_var(&self) -> VarId {
        VarId(0)
    }

    fn team_kernel(&mut self) {
        // `let l = team.league_rank();` is local 0 (the owner name of team-level outputs).
        let l = self.new_var(Ty::Usize);
        debug_assert_eq!(l, self.league_var());
        self.declare(l, Ty::Usize, false, None);
        let vector = *self.rng.pick(&[1u32, 1, 2, 4, 8]);
        self.k.team = Some(TeamShape {
            team_size: if self.rng.chance(80) { None } else { Some(1) },
            vector,
            scratch_team: [0, 0],
            scratch_thread: [0, 0],
        });
        if self.k.family == Family::TeamReduce {
            self.choose_accs();
        }
        let mut body = vec![Stmt::Let {
            var: l,
            mutable: false,
            init: Expr::new(Ty::Usize, ExprKind::Team(TeamQ::LeagueRank)),
        }];
        let n = self.rng.range(2, 5);
        self.budget = 40;
        for _ in 0..n {
            body.extend(self.team_construct());
            if self.rng.chance(50) {
                body.extend(self.stmt_outside());
            }
        }
        // Team-level locals are observed from one `single_team` at the end.
        let team_level: Vec<Local> = self.scopes[0]
            .iter()
            .filter(|l| l.array.is_none() && l.var != self.league_var())
            .cloned()
            .collect();
        if !team_level.is_empty() {
            let saved = self.ctx.clone();
            self.ctx.team_single = true;
            let stores: Vec<Stmt> = team_level
                .into_iter()
                .filter_map(|l| self.observe(Expr::new(l.ty, ExprKind::Var(l.var))))
                .collect();
            self.ctx = saved;
            body.push(Stmt::Single {
                team: true,
                body: stores,
                result: None,
            });
        }
        if self.k.family == Family::TeamReduce {
            // Contributions once per team, from `single_team`.
            let saved = self.ctx.clone();
            self.ctx.team_single = true;
            self.ctx.in_team_construct = true;
            self.ctx.frozen_below = self.scopes.len();
            self.ctx.atomics = false;
            let mut inner = Vec::new();
            for a in 0..self.k.accs.len() {
                let acc = self.k.accs[a].clone();
                let value = self.expr(acc.ty, 3);
                inner.push(self.contribution(a as u32, &acc, value));
            }
            self.ctx = saved;
            body.push(Stmt::Single {
                team: true,
                body: inner,
                result: None,
            });
        }
        self.k.body = body;
    }

    /// A plain statement at team level (every thread runs it: no stores, no atomics, no loops
    /// that hold team constructs).
    fn stmt_outside(&mut self) -> Vec<Stmt> {
        let ty = self.any_ty();
        let init = self.expr(ty, 3);
        let var = self.new_var(ty);
        self.declare(var, ty, false, None);
        vec![Stmt::Let {
            var,
            mutable: false,
            init,
        }]
    }

    fn team_construct(&mut self) -> Vec<Stmt> {
        match self.rng.weighted(&[30, 20, 10, 15, 8, 8, 9]) {
            0 => self.nested_for(),
            1 => self.nested_reduce(),
            2 => self.nested_scan(),
            3 => self.single(),
            4 => self.broadcast(),
            5 => vec![Stmt::Barrier],
            _ => self.scratch_round_trip(),
        }
    }

    fn enter_construct(&mut self) -> Ctx {
        let saved = self.ctx.clone();
        self.ctx.in_team_construct = true;
        self.ctx.frozen_below = self.scopes.len();
        self.ctx.loops = 0;
        self.ctx.can_return = false;
        saved
    }

    /// The bound of a nested range: at most the inner extent of the per-team Views (so that
    /// thread-level stores at `(l, j)` stay in bounds), from an input's extent, a constant or a
    /// scalar capped by it; rarely an uncapped constant, whose out-of-bounds stores must fail on
    /// every backend.
    fn inner_extent(&mut self) -> Expr {
        let ty = *self.rng.pick(&Ty::ELEMS);
        let x = self.input_team(ty);
        let ext = Expr::new(
            Ty::Usize,
            ExprKind::Extent {
                view: ViewRef::In(x),
                dim: 1,
            },
        );
        match self.rng.weighted(&[50, 25, 20, 5]) {
            0 => ext,
            1 => {
                let k = Expr::lit(Lit::int(Ty::Usize, self.rng.range(0, 9) as i128));
                call(Method::Min, vec![k, ext])
            }
            2 => {
                let p = self.param(Ty::Usize);
                let p = bin(Bin::Rem, p, Expr::lit(Lit::int(Ty::Usize, 9)));
                call(Method::Min, vec![p, ext])
            }
            _ => Expr::lit(Lit::int(Ty::Usize, self.rng.range(0, 9) as i128)),
        }
    }

    fn input_team(&mut self, ty: Ty) -> u32 {
        let dims = vec![Extent::Work(0), Extent::Work(1)];
        if let Some(x) = self
            .k
            .inputs
            .iter()
            .position(|x| x.ty == ty && x.dims == dims)
        {
            return x as u32;
        }
        let layout = self.layout();
        self.k.inputs.push(InView { ty, dims, layout });
        self.k.inputs.len() as u32 - 1
    }

    fn nested_kind(&mut self) -> Nested {
        *self.rng.pick(&[
            Nested::Thread,
            Nested::Thread,
            Nested::TeamVector,
            Nested::Vector,
        ])
    }

    fn nested_for(&mut self) -> Vec<Stmt> {
        let kind = self.nested_kind();
        let n = self.inner_extent();
        let var = self.new_var(Ty::Usize);
        let saved = self.enter_construct();
        // Thread-level outputs are owned through a thread or team-vector index; a vector range
        // at team level splits one thread's work across its lanes, whose owner is the league.
        self.ctx.team_at = (kind != Nested::Vector).then_some(var);
        let body = self.scoped(|g| {
            g.declare(var, Ty::Usize, false, None);
            let mut b = g.block_items();
            if kind == Nested::Thread && g.rng.chance(40) {
                b.extend(g.vector_inside(var));
            }
            b
        });
        self.ctx = saved;
        vec![Stmt::NestedFor { kind, var, n, body }]
    }

    /// A vector reduction nested in a thread range (index `j`), its result stored at `(l, j)`.
    fn vector_inside(&mut self, j: VarId) -> Vec<Stmt> {
        let saved = self.ctx.clone();
        self.ctx.frozen_below = self.scopes.len();
        let r = self.nested_reduce_of(Nested::Vector);
        self.ctx = saved;
        let mut out = r;
        if let Some(Stmt::NestedReduce { result, .. }) = out.last() {
            let ty = self.k.vars[result.0 as usize];
            let v = Expr::new(ty, ExprKind::Var(*result));
            let saved = self.ctx.clone();
            self.ctx.team_at = Some(j);
            let store = self.observe(v);
            self.ctx = saved;
            // Written by one lane of the thread that owns `j`.
            out.push(Stmt::Single {
                team: false,
                body: store.into_iter().collect(),
                result: None,
            });
        }
        out
    }

    fn nested_reduce(&mut self) -> Vec<Stmt> {
        let kind = self.nested_kind();
        self.nested_reduce_of(kind)
    }

    fn nested_reduce_of(&mut self, kind: Nested) -> Vec<Stmt> {
        let reducer = *self.rng.pick(&[
            Reducer::Sum,
            Reducer::Sum,
            Reducer::Prod,
            Reducer::Min,
            Reducer::Max,
            Reducer::LAnd,
            Reducer::LOr,
            Reducer::BAnd,
            Reducer::BOr,
        ]);
        let ty = match reducer {
            Reducer::LAnd | Reducer::LOr => Ty::Bool,
            Reducer::BAnd | Reducer::BOr => *self.rng.pick(&Ty::INTS),
            _ => *self.rng.pick(&Ty::NUMS),
        };
        let n = self.inner_extent();
        let var = self.new_var(Ty::Usize);
        let acc = self.new_var(ty);
        let result = self.new_var(ty);
        let saved = self.enter_construct();
        self.ctx.atomics = false;
        self.ctx.team_at = None;
        let (body, value) = self.scoped(|g| {
            g.declare(var, Ty::Usize, false, None);
            g.budget = g.budget.min(3);
            let b = g.block_items();
            let v = g.expr(ty, 3);
            (b, v)
        });
        self.ctx = saved;
        let fold = match (reducer, ty.is_int()) {
            (Reducer::Sum | Reducer::Prod, true) => Fold::Method,
            (Reducer::Min | Reducer::Max | Reducer::LAnd | Reducer::LOr, _) => {
                if self.rng.chance(50) {
                    Fold::Compare
                } else if reducer == Reducer::LAnd || reducer == Reducer::LOr {
                    Fold::Op
                } else {
                    Fold::Method
                }
            }
            _ => Fold::Op,
        };
        self.declare(result, ty, false, None);
        vec![Stmt::NestedReduce {
            kind,
            var,
            n,
            reducer,
            acc,
            body,
            value,
            fold,
            result,
        }]
    }

    fn nested_scan(&mut self) -> Vec<Stmt> {
        let kind = *self.rng.pick(&[Nested::Thread, Nested::TeamVector]);
        let ty = *self.rng.pick(&Ty::ELEMS);
        let n = self.inner_extent();
        let var = self.new_var(Ty::Usize);
        let partial = self.new_var(ty);
        let fin = self.new_var(Ty::Bool);
        let total = self.new_var(ty);
        let (out, col) = self.out_col(ty, true);
        let saved = self.enter_construct();
        self.ctx.atomics = false;
        self.ctx.team_at = None;
        let (body, value) = self.scoped(|g| {
            g.declare(var, Ty::Usize, false, None);
            g.budget = g.budget.min(3);
            let b = g.block_items();
            let v = g.expr(ty, 3);
            (b, v)
        });
        self.ctx = saved;
        self.declare(total, ty, false, None);
        vec![Stmt::NestedScan {
            kind,
            var,
            n,
            partial,
            fin,
            body,
            value,
            out,
            col,
            total,
        }]
    }

    fn single(&mut self) -> Vec<Stmt> {
        let team = self.rng.chance(70);
        let saved = self.enter_construct();
        self.ctx.team_single = team;
        self.ctx.team_at = None;
        self.ctx.atomics = team;
        let with_value = self.rng.chance(40);
        let (body, result) = self.scoped(|g| {
            let b = if team { g.block_items() } else { Vec::new() };
            let r = if with_value || !team {
                let ty = g.any_ty();
                Some((ty, g.expr(ty, 3)))
            } else {
                None
            };
            (b, r)
        });
        self.ctx = saved;
        let result = result.map(|(ty, e)| {
            let v = self.new_var(ty);
            self.declare(v, ty, false, None);
            (v, e)
        });
        vec![Stmt::Single { team, body, result }]
    }

    fn broadcast(&mut self) -> Vec<Stmt> {
        let ty = self.any_ty();
        let value = self.expr(ty, 3);
        let src = Expr::lit(Lit::int(Ty::Usize, 0));
        let var = self.new_var(ty);
        self.declare(var, ty, false, None);
        vec![Stmt::Broadcast { var, value, src }]
    }

    /// Scratch written at owned indices (team scratch from a thread range, thread scratch from
    /// a vector range), a barrier, then read at any index by the constructs after it.
    fn scratch_round_trip(&mut self) -> Vec<Stmt> {
        let ty = *self.rng.pick(&Ty::ELEMS);
        let id = self.ctx.scratch.len() as u32;
        let level = self.rng.below(2) as u32;
        let len = self.rng.range(1, 8) as u32;
        let team = self.rng.chance(70);
        if let Some(t) = self.k.team.as_mut() {
            // Each scratch View starts at a multiple of 8 bytes of its arena.
            let bytes = len * ty.bits() / 8 + 8;
            if team {
                t.scratch_team[level as usize] += bytes;
            } else {
                t.scratch_thread[level as usize] += bytes;
            }
        }
        let mut out = vec![Stmt::Scratch {
            id,
            team,
            level,
            ty,
            len: Expr::lit(Lit::int(Ty::Usize, len as i128)),
        }];
        let var = self.new_var(Ty::Usize);
        let saved = self.enter_construct();
        let value = self.scoped(|g| {
            g.declare(var, Ty::Usize, false, None);
            g.expr(ty, 3)
        });
        self.ctx = saved;
        out.push(Stmt::NestedFor {
            kind: if team { Nested::Thread } else { Nested::Vector },
            var,
            n: Expr::lit(Lit::int(Ty::Usize, len as i128)),
            body: vec![Stmt::ScratchStore {
                id,
                idx: Expr::new(Ty::Usize, ExprKind::Var(var)),
                value,
            }],
        });
        out.push(Stmt::Barrier);
        self.ctx.scratch.push((id, ty, team));
        out.extend(self.nested_for());
        out
    }

    // ---------------------------------------------------------------------------------------
    // Expressions

    /// An expression of type `ty`, at most `depth` operators deep.
    fn expr(&mut self, ty: Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(22) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        let mut e = match ty {
            Ty::Bool => self.bool_expr(d),
            Ty::F32 | Ty::F64 => self.float_expr(ty, d),
            _ => self.int_expr(ty, d),
        };
        let kids = e.children();
        let all_const = !kids.is_empty()
            && kids.iter().all(|c| matches!(c.kind, ExprKind::Lit(_)))
            && !matches!(e.kind, ExprKind::If(..));
        if all_const && !self.constants && self.rng.chance(80) {
            let t = kids[0].ty;
            let p = self.param(t);
            *e.children_mut()[0] = p;
        }
        e
    }

    fn leaf(&mut self, ty: Ty) -> Expr {
        let vars = self.locals(|l| l.ty == ty && l.array.is_none());
        let arrays = self.locals(|l| l.ty == ty && l.array.is_some());
        let elem = Ty::ELEMS.contains(&ty);
        let scratch: Vec<(u32, Ty, bool)> = self
            .ctx
            .scratch
            .iter()
            .copied()
            .filter(|s| s.1 == ty)
            .collect();
        let w = [
            30,
            if vars.is_empty() { 0 } else { 30 },
            12,
            if elem { 20 } else { 0 },
            if ty == Ty::Usize && self.k.family.rank() > 0 {
                15
            } else {
                0
            },
            if arrays.is_empty() { 0 } else { 8 },
            if ty == Ty::Usize { 4 } else { 0 },
            if ty == Ty::Usize && self.k.family.is_team() {
                6
            } else {
                0
            },
            if scratch.is_empty() { 0 } else { 10 },
        ];
        match self.rng.weighted(&w) {
            0 => Expr::lit(random_lit(&mut self.rng, ty)),
            1 => {
                let l = self.rng.pick(&vars).clone();
                Expr::new(ty, ExprKind::Var(l.var))
            }
            2 => self.param(ty),
            3 => self.load(ty),
            4 => {
                let k = self.rng.below(self.k.family.rank()) as u8;
                Expr::new(Ty::Usize, ExprKind::Work(k))
            }
            5 => {
                let a = self.rng.pick(&arrays).clone();
                let idx = self.index_into(a.array.expect("array"), None);
                Expr::new(
                    ty,
                    ExprKind::ArrLoad {
                        arr: a.var,
                        idx: Box::new(idx),
                    },
                )
            }
            6 => {
                let t = *self.rng.pick(&Ty::ELEMS);
                let x = self.input(t, false);
                Expr::new(
                    Ty::Usize,
                    ExprKind::Extent {
                        view: ViewRef::In(x),
                        dim: 0,
                    },
                )
            }
            7 => {
                let q = *self.rng.pick(&[
                    TeamQ::LeagueRank,
                    TeamQ::LeagueSize,
                    TeamQ::TeamRank,
                    TeamQ::TeamSize,
                    TeamQ::VectorLength,
                ]);
                Expr::new(Ty::Usize, ExprKind::Team(q))
            }
            _ => {
                let (id, _, _) = *self.rng.pick(&scratch);
                let idx = self.expr(Ty::Usize, 1);
                let idx = bin(
                    Bin::Rem,
                    idx,
                    Expr::new(
                        Ty::Usize,
                        ExprKind::Extent {
                            view: ViewRef::Scratch(id),
                            dim: 0,
                        },
                    ),
                );
                Expr::new(
                    ty,
                    ExprKind::Load {
                        view: ViewRef::Scratch(id),
                        idx: vec![idx],
                    },
                )
            }
        }
    }

    /// A read of an input View: the work item's own element, or any element of a table.
    fn load(&mut self, ty: Ty) -> Expr {
        let fam = self.k.family;
        if fam.is_team() {
            // `x[(l, j)]` with `j` the enclosing nested index, else a table.
            if let Some(j) = self.ctx.team_at.filter(|_| self.rng.chance(70)) {
                let x = self.input_team(ty);
                let n = Expr::new(
                    Ty::Usize,
                    ExprKind::Extent {
                        view: ViewRef::In(x),
                        dim: 1,
                    },
                );
                // The nested range may run past the input's inner extent: index modulo it.
                let jj = Expr::new(Ty::Usize, ExprKind::Var(j));
                let idx = vec![
                    Expr::new(Ty::Usize, ExprKind::Var(self.league_var())),
                    bin(
                        Bin::Rem,
                        jj,
                        call(Method::Max, vec![n, Expr::lit(Lit::one(Ty::Usize))]),
                    ),
                ];
                return Expr::new(
                    ty,
                    ExprKind::Load {
                        view: ViewRef::In(x),
                        idx,
                    },
                );
            }
        } else if self.rng.chance(60) {
            let x = self.input(ty, true);
            let idx = (0..fam.rank() as u8)
                .map(|k| Expr::new(Ty::Usize, ExprKind::Work(k)))
                .collect();
            return Expr::new(
                ty,
                ExprKind::Load {
                    view: ViewRef::In(x),
                    idx,
                },
            );
        }
        let x = self.input(ty, false);
        let len = match self.k.inputs[x as usize].dims[0] {
            Extent::Fixed(n) => n,
            Extent::Work(_) => unreachable!("tables are fixed"),
        };
        let idx = self.index_into(len, Some(ViewRef::In(x)));
        Expr::new(
            ty,
            ExprKind::Load {
                view: ViewRef::In(x),
                idx: vec![idx],
            },
        )
    }

    fn bool_expr(&mut self, d: u32) -> Expr {
        match self.rng.weighted(&[12, 5, 2, 2, 4, 1, 1]) {
            0 => {
                let t = Ty::ALL[self.rng.weighted(&[1, 3, 3, 3, 3, 3, 2, 4, 4])];
                let op = *self
                    .rng
                    .pick(&[Bin::Eq, Bin::Ne, Bin::Lt, Bin::Le, Bin::Gt, Bin::Ge]);
                let a = self.expr(t, d);
                let b = self.expr(t, d);
                bin(op, a, b)
            }
            1 => {
                let op = *self.rng.pick(&[Bin::LAnd, Bin::LOr]);
                let a = self.expr(Ty::Bool, d);
                let b = self.expr(Ty::Bool, d);
                bin(op, a, b)
            }
            2 => {
                let op = *self.rng.pick(&[Bin::And, Bin::Or, Bin::Xor]);
                let a = self.expr(Ty::Bool, d);
                let b = self.expr(Ty::Bool, d);
                bin(op, a, b)
            }
            3 => un(Un::Not, self.expr(Ty::Bool, d)),
            4 => {
                let t = *self.rng.pick(&[Ty::F32, Ty::F64]);
                let m = *self.rng.pick(&[Method::IsNan, Method::IsFinite]);
                let x = self.expr(t, d);
                Expr::new(Ty::Bool, ExprKind::Call(m, vec![x]))
            }
            5 => self.if_expr(Ty::Bool, d),
            _ => self.leaf(Ty::Bool),
        }
    }

    fn if_expr(&mut self, ty: Ty, d: u32) -> Expr {
        let c = self.expr(Ty::Bool, d);
        let a = self.expr(ty, d);
        let b = self.expr(ty, d);
        Expr::new(ty, ExprKind::If(Box::new(c), Box::new(a), Box::new(b)))
    }

    fn int_expr(&mut self, ty: Ty, d: u32) -> Expr {
        let signed = ty.is_signed_int();
        let r = if self.risky { 3 } else { 0 };
        let w = [
            3 * r,                          // + - * (overflow panics in debug builds)
            12,                             // wrapping_*
            6,                              // / %
            8,                              // & | ^
            6,                              // << >>
            if signed { r } else { 0 },     // -x
            3,                              // !x
            if signed { 1 + r } else { 0 }, // abs, signum
            5,                              // min, max
            2,                              // clamp
            2,                              // rem_euclid
            10,                             // cast
            4,                              // if
        ];
        match self.rng.weighted(&w) {
            0 => {
                let op = *self.rng.pick(&[Bin::Add, Bin::Sub, Bin::Mul]);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                bin(op, a, b)
            }
            1 => {
                let m = *self.rng.pick(&[
                    Method::WrappingAdd,
                    Method::WrappingSub,
                    Method::WrappingMul,
                ]);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                call(m, vec![a, b])
            }
            2 => {
                let op = *self.rng.pick(&[Bin::Div, Bin::Rem]);
                self.division(ty, d, |a, b| bin(op, a, b))
            }
            3 => {
                let op = *self.rng.pick(&[Bin::And, Bin::Or, Bin::Xor]);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                bin(op, a, b)
            }
            4 => {
                let op = *self.rng.pick(&[Bin::Shl, Bin::Shr]);
                let a = self.expr(ty, d);
                let at = *self.rng.pick(&Ty::INTS);
                let b = self.expr(at, d);
                let b = self.shift_amount(ty, b);
                bin(op, a, b)
            }
            5 => un(Un::Neg, self.expr(ty, d)),
            6 => un(Un::Not, self.expr(ty, d)),
            7 => {
                let m = *self.rng.pick(&[Method::Abs, Method::Signum]);
                call(m, vec![self.expr(ty, d)])
            }
            8 => {
                let m = *self.rng.pick(&[Method::Min, Method::Max]);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                call(m, vec![a, b])
            }
            9 => self.clamp(ty, d),
            10 => self.division(ty, d, |a, b| call(Method::RemEuclid, vec![a, b])),
            11 => self.cast_to(ty, d),
            _ => self.if_expr(ty, d),
        }
    }

    /// `a / b`-like: raw (a zero divisor fails everywhere), or with a divisor that is never zero.
    fn division(&mut self, ty: Ty, d: u32, op: impl Fn(Expr, Expr) -> Expr) -> Expr {
        let a = self.expr(ty, d);
        let b = self.expr(ty, d);
        if let ExprKind::Lit(l) = b.kind {
            if l.is_zero() {
                // A literal zero divisor is a compile error (`unconditional_panic`).
                return op(a, Expr::lit(Lit::one(ty)));
            }
        }
        match self.rng.weighted(&[35, 35, 30]) {
            0 => op(a, b),
            1 => op(a, bin(Bin::Or, b, Expr::lit(Lit::one(ty)))),
            _ => {
                let cond = bin(Bin::Ne, b.clone(), Expr::lit(Lit::zero(ty)));
                let q = op(a.clone(), b);
                Expr::new(ty, ExprKind::If(Box::new(cond), Box::new(q), Box::new(a)))
            }
        }
    }

    /// A shift amount for a value of type `ty`: raw (possibly past the width) or masked.
    fn shift_amount(&mut self, ty: Ty, b: Expr) -> Expr {
        if self.rng.chance(if self.risky { 30 } else { 3 }) {
            b
        } else {
            let bt = b.ty;
            bin(Bin::And, b, Expr::lit(Lit::int(bt, ty.bits() as i128 - 1)))
        }
    }

    fn clamp(&mut self, ty: Ty, d: u32) -> Expr {
        let x = self.expr(ty, d);
        let (lo, hi) = if self.rng.chance(if self.risky { 85 } else { 97 }) {
            let mut a = random_lit(&mut self.rng, ty);
            let mut b = random_lit(&mut self.rng, ty);
            if ty.is_float() {
                while a.as_f64().is_nan() {
                    a = random_lit(&mut self.rng, ty);
                }
                while b.as_f64().is_nan() {
                    b = random_lit(&mut self.rng, ty);
                }
                if a.as_f64() > b.as_f64() {
                    std::mem::swap(&mut a, &mut b);
                }
            } else if a.as_i128() > b.as_i128() {
                std::mem::swap(&mut a, &mut b);
            }
            (Expr::lit(a), Expr::lit(b))
        } else {
            // Bounds from the data: `lo > hi` (or a NaN bound) must fail everywhere.
            (self.expr(ty, d), self.expr(ty, d))
        };
        call(Method::Clamp, vec![x, lo, hi])
    }

    fn cast_to(&mut self, ty: Ty, d: u32) -> Expr {
        let from = if ty.is_int() && self.rng.chance(10) {
            Ty::Bool
        } else {
            *self.rng.pick(&Ty::NUMS)
        };
        cast(self.expr(from, d), ty)
    }

    fn float_expr(&mut self, ty: Ty, d: u32) -> Expr {
        let w = [14, 3, 2, 8, 3, 5, 2, 3, 2, 2, 2, 1, 8, 3];
        match self.rng.weighted(&w) {
            0 => {
                let op = *self.rng.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Div]);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                bin(op, a, b)
            }
            1 => {
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                bin(Bin::Rem, a, b)
            }
            2 => un(Un::Neg, self.expr(ty, d)),
            3 => {
                let f = *self.rng.pick(APPROX1);
                call(Method::Approx1(f), vec![self.expr(ty, d)])
            }
            4 => {
                let f = *self.rng.pick(APPROX2);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                call(Method::Approx2(f), vec![a, b])
            }
            5 => {
                let f = *self.rng.pick(EXACT1);
                call(Method::Exact1(f), vec![self.expr(ty, d)])
            }
            6 => {
                let m = *self.rng.pick(&[Method::Abs, Method::Signum]);
                call(m, vec![self.expr(ty, d)])
            }
            7 => {
                let m = *self.rng.pick(&[Method::Min, Method::Max]);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                call(m, vec![a, b])
            }
            8 => self.clamp(ty, d),
            9 => {
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                let c = self.expr(ty, d);
                call(Method::MulAdd, vec![a, b, c])
            }
            10 => {
                let x = self.expr(ty, d);
                let n = if self.rng.chance(70) {
                    Expr::lit(Lit::int(Ty::I32, self.rng.range(0, 12) as i128 - 4))
                } else {
                    self.expr(Ty::I32, d)
                };
                call(Method::Powi, vec![x, n])
            }
            11 => {
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                call(Method::RemEuclid, vec![a, b])
            }
            12 => self.cast_to(ty, d),
            _ => self.if_expr(ty, d),
        }
    }
}

/// `a op b` (comparisons are `bool`).
pub fn bin(op: Bin, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_cmp() { Ty::Bool } else { a.ty };
    Expr::new(ty, ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// `op a`.
pub fn un(op: Un, a: Expr) -> Expr {
    Expr::new(a.ty, ExprKind::Unary(op, Box::new(a)))
}

/// `a as ty`.
pub fn cast(a: Expr, ty: Ty) -> Expr {
    Expr::new(ty, ExprKind::Cast(Box::new(a)))
}

/// `args[0].m(args[1..])`.
pub fn call(m: Method, args: Vec<Expr>) -> Expr {
    let ty = match m {
        Method::IsNan | Method::IsFinite => Ty::Bool,
        _ => args[0].ty,
    };
    Expr::new(ty, ExprKind::Call(m, args))
}
