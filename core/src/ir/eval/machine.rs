//! The interpreter: one frame of locals per work item and per function call, structured control flow
//! by [`Flow`] values.

use super::ops;
use super::{check_work, ArgValue, EvalError, ViewArg, WorkSet};
use crate::host_iter::TileGrid;
use crate::ir::expr::{AccField, AtomicAccess, Expr, FuncId, LocalId};
use crate::ir::ops::{BinaryOp, LogicOp, ScratchScope, TeamQuery, ViewRef};
use crate::ir::stmt::{ArrayInit, Block, LocalDecl, Stmt};
use crate::ir::AtomicResult;
use crate::ir::{Kernel, ScalarType, Value};
use crate::policy::{Iterate, MDRangePolicy};

type R<T> = Result<T, EvalError>;

/// How a statement or block ended.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Option<Value>),
}

struct Frame<'k> {
    decls: &'k [LocalDecl],
    vals: Vec<Option<Value>>,
    arrays: Vec<Vec<Value>>,
}

impl<'k> Frame<'k> {
    fn new(decls: &'k [LocalDecl]) -> Self {
        Frame {
            decls,
            vals: vec![None; decls.len()],
            arrays: vec![Vec::new(); decls.len()],
        }
    }
    fn name(&self, l: LocalId) -> String {
        format!("{}_{}", self.decls[l.0 as usize].name, l.0)
    }
    fn get(&self, l: LocalId) -> R<Value> {
        self.vals[l.0 as usize].ok_or_else(|| EvalError::Uninitialized(self.name(l)))
    }
    fn set(&mut self, l: LocalId, v: Value) {
        self.vals[l.0 as usize] = Some(v);
    }
    fn slot(&self, l: LocalId, index: Value) -> R<usize> {
        let arr = &self.arrays[l.0 as usize];
        match as_i128(index) {
            Some(i) if i >= 0 && (i as usize) < arr.len() => Ok(i as usize),
            i => Err(EvalError::OutOfBounds {
                view: self.name(l),
                index: vec![i.unwrap_or(-1)],
                extents: vec![arr.len()],
            }),
        }
    }
}

struct Scratch {
    data: Vec<Value>,
    extents: Vec<usize>,
    strides: Vec<usize>,
}

struct Machine<'k, 'v, 'a> {
    kernel: &'k Kernel,
    views: Vec<&'v mut ViewArg<'a>>,
    scalars: Vec<Value>,
    accs: Vec<Value>,
    acc_offsets: Vec<usize>,
    work: Vec<u64>,
    league: (u64, u64, u64),
    scratch: Vec<Option<Scratch>>,
    /// Bytes taken from the current team's scratch arena, per level.
    scratch_used: [u64; 2],
    scratch_cap: Option<[u64; 2]>,
}

/// Calls `f` with every point of the box `begin..end` cut into `tile`s (0: the host backends'
/// choice), in the host backends' order (the one [`TileGrid`] walk, whatever the rank); the first
/// error ends the walk and is returned.
fn md_walk(
    begin: &[u64],
    end: &[u64],
    tile: &[u64],
    order: Iterate,
    mut f: impl FnMut(Vec<u64>) -> R<()>,
) -> R<()> {
    fn walk<const N: usize>(
        corners: [[usize; N]; 3],
        order: Iterate,
        f: &mut dyn FnMut(Vec<u64>) -> R<()>,
    ) -> R<()> {
        let [b, e, t] = corners;
        let grid = TileGrid::new(&MDRangePolicy::new(&(), b, e).tile(t).iterate(order));
        let mut out = Ok(());
        for q in 0..grid.len() {
            grid.for_each_in_tile(q, |i| {
                if out.is_ok() {
                    out = f(i.iter().map(|&x| x as u64).collect());
                }
            });
            out.clone()?;
        }
        out
    }
    fn corners<const N: usize>(vs: [&[u64]; 3]) -> R<[[usize; N]; 3]> {
        let mut c = [[0usize; N]; 3];
        for (dst, v) in c.iter_mut().zip(vs) {
            for (d, &x) in dst.iter_mut().zip(v) {
                *d = usize::try_from(x).map_err(|_| {
                    EvalError::BadArguments(format!("MDRange bound {x} past usize"))
                })?;
            }
        }
        Ok(c)
    }
    let vs = [begin, end, tile];
    let f: &mut dyn FnMut(Vec<u64>) -> R<()> = &mut f;
    match begin.len() {
        1 => walk::<1>(corners(vs)?, order, f),
        2 => walk::<2>(corners(vs)?, order, f),
        3 => walk::<3>(corners(vs)?, order, f),
        4 => walk::<4>(corners(vs)?, order, f),
        5 => walk::<5>(corners(vs)?, order, f),
        6 => walk::<6>(corners(vs)?, order, f),
        7 => walk::<7>(corners(vs)?, order, f),
        8 => walk::<8>(corners(vs)?, order, f),
        n => Err(EvalError::BadArguments(format!("an MDRange of rank {n}"))),
    }
}

/// Runs every work item of `work`; returns the accumulator fields.
pub(super) fn run(
    kernel: &Kernel,
    work: &WorkSet,
    args: &mut [ArgValue<'_>],
    accs: Vec<Value>,
) -> R<Vec<Value>> {
    check_work(kernel, work)?;
    let bad = |m: String| Err(EvalError::BadArguments(m));
    let (nv, ns) = (kernel.views.len(), kernel.scalars.len());
    if args.len() != nv + ns {
        return bad(format!(
            "{} arguments for {nv} Views and {ns} scalars",
            args.len()
        ));
    }
    let fields = kernel.acc_fields();
    if accs.len() != fields.len() || accs.iter().zip(&fields).any(|(v, (_, t))| v.ty() != *t) {
        let want: Vec<&str> = fields.iter().map(|(_, t)| t.name()).collect();
        return bad(format!(
            "initial accumulator values {accs:?}, expected types ({})",
            want.join(", ")
        ));
    }
    let (view_args, scalar_args) = args.split_at_mut(nv);
    let mut views = Vec::new();
    for (p, a) in kernel.views.iter().zip(view_args.iter_mut()) {
        match a {
            ArgValue::View(v)
                if v.data.elem() == p.elem
                    && v.extents.len() == p.rank as usize
                    && v.strides.len() == v.extents.len() =>
            {
                views.push(v)
            }
            _ => {
                return bad(format!(
                    "argument for View `{}` is not a rank-{} {} View",
                    p.name, p.rank, p.elem
                ))
            }
        }
    }
    let mut scalars = Vec::new();
    for (p, a) in kernel.scalars.iter().zip(scalar_args.iter()) {
        match a {
            ArgValue::Scalar(v) if v.ty() == p.ty => scalars.push(*v),
            _ => {
                return bad(format!(
                    "argument for scalar `{}` is not a {}",
                    p.name, p.ty
                ))
            }
        }
    }
    let mut acc_offsets = Vec::new();
    let mut off = 0;
    for a in &kernel.accumulators {
        acc_offsets.push(off);
        off += a.shape.fields().len();
    }
    let mut m = Machine {
        kernel,
        views,
        scalars,
        accs,
        acc_offsets,
        work: Vec::new(),
        league: (0, 1, 1),
        scratch: (0..kernel.scratch.len()).map(|_| None).collect(),
        scratch_used: [0; 2],
        scratch_cap: None,
    };
    match work {
        WorkSet::Range { begin, end } => {
            for i in *begin..*end {
                m.work = vec![i];
                m.item()?;
            }
        }
        WorkSet::MDRange { begin, end } => {
            let tile = vec![0; begin.len()];
            md_walk(begin, end, &tile, Iterate::Right, |idx| {
                m.work = idx;
                m.item()
            })?;
        }
        WorkSet::TiledMDRange {
            begin,
            end,
            tile,
            order,
        } => {
            md_walk(begin, end, tile, *order, |idx| {
                m.work = idx;
                m.item()
            })?;
        }
        WorkSet::League {
            league_size,
            vector_length,
            scratch_bytes,
        } => {
            m.scratch_cap = *scratch_bytes;
            for r in 0..*league_size {
                m.league = (r, *league_size, *vector_length);
                m.scratch_used = [0; 2];
                m.item()?;
            }
        }
    }
    Ok(m.accs)
}

impl Machine<'_, '_, '_> {
    /// Takes `len` elements from the team's arena at `level`, as `ScratchArena::take` does.
    fn take_scratch(
        &mut self,
        level: u32,
        scope: ScratchScope,
        elem: ScalarType,
        len: usize,
    ) -> R<()> {
        let Some(cap) = self.scratch_cap else {
            return Ok(());
        };
        let l = (level as usize).min(1);
        let size = elem.size() as u64;
        let align = size.max(8);
        let start = self.scratch_used[l].div_ceil(align) * align;
        let end = (len as u64)
            .checked_mul(size)
            .and_then(|b| b.checked_add(start));
        match end {
            Some(end) if end <= cap[l] => {
                self.scratch_used[l] = end;
                Ok(())
            }
            _ => Err(EvalError::Failed(format!(
                "{} scratch of {len} elements of {size} bytes at level {level} exceeds the {} bytes the TeamPolicy reserved \
                 (request it with TeamPolicy::scratch)",
                match scope {
                    ScratchScope::Team => "team",
                    ScratchScope::Thread => "thread",
                },
                cap[l]
            ))),
        }
    }
}

fn as_i128(v: Value) -> Option<i128> {
    match v {
        Value::I32(x) => Some(x as i128),
        Value::U32(x) => Some(x as i128),
        Value::I64(x) => Some(x as i128),
        Value::U64(x) => Some(x as i128),
        _ => None,
    }
}

fn as_bool(v: Value) -> R<bool> {
    match v {
        Value::Bool(b) => Ok(b),
        _ => Err(EvalError::Internal(format!("{v:?} used as a condition"))),
    }
}

fn as_u64(v: Value) -> R<u64> {
    match v {
        Value::U64(x) => Ok(x),
        _ => Err(EvalError::Internal(format!("{v:?} used as a usize"))),
    }
}

impl Machine<'_, '_, '_> {
    fn item(&mut self) -> R<()> {
        let kernel = self.kernel;
        let mut frame = Frame::new(&kernel.locals);
        for s in &mut self.scratch {
            *s = None;
        }
        match self.block(&mut frame, &kernel.body)? {
            Flow::Next | Flow::Return(None) => Ok(()),
            _ => Err(EvalError::Internal(
                "the kernel body ended with break, continue or a value".into(),
            )),
        }
    }

    /// The kernel's overflow checks ([`Kernel::overflow_checks`]).
    fn checks(&self) -> bool {
        self.kernel.overflow_checks
    }

    fn acc_slot(&self, f: AccField) -> usize {
        self.acc_offsets[f.acc as usize] + f.field as usize
    }

    /// The element offset of `index` in `view`, bounds checked.
    fn offset(&self, view: ViewRef, index: &[Value]) -> R<usize> {
        let (name, extents, strides, len) = match view {
            ViewRef::Param(v) => {
                let a = &self.views[v.0 as usize];
                (
                    self.kernel.views[v.0 as usize].name.clone(),
                    &a.extents,
                    &a.strides,
                    a.data.len(),
                )
            }
            ViewRef::Scratch(s) => match &self.scratch[s.0 as usize] {
                Some(sc) => (
                    format!("scratch{}", s.0),
                    &sc.extents,
                    &sc.strides,
                    sc.data.len(),
                ),
                None => {
                    return Err(EvalError::Internal(format!(
                        "scratch{} used before allocation",
                        s.0
                    )))
                }
            },
        };
        let idx: Vec<i128> = index.iter().map(|v| as_i128(*v).unwrap_or(-1)).collect();
        let oob = || EvalError::OutOfBounds {
            view: name.clone(),
            index: idx.clone(),
            extents: extents.clone(),
        };
        let mut off: usize = 0;
        for (k, &i) in idx.iter().enumerate() {
            if i < 0 || i >= extents[k] as i128 {
                return Err(oob());
            }
            off += i as usize * strides[k];
        }
        if off >= len {
            return Err(oob());
        }
        Ok(off)
    }
    fn read(&self, view: ViewRef, off: usize) -> Value {
        match view {
            ViewRef::Param(v) => self.views[v.0 as usize].data.get(off),
            ViewRef::Scratch(s) => {
                self.scratch[s.0 as usize].as_ref().expect("allocated").data[off]
            }
        }
    }
    fn write(&mut self, view: ViewRef, off: usize, value: Value) {
        match view {
            ViewRef::Param(v) => self.views[v.0 as usize].data.set(off, value),
            ViewRef::Scratch(s) => {
                self.scratch[s.0 as usize].as_mut().expect("allocated").data[off] = value
            }
        }
    }
    fn exprs(&mut self, f: &mut Frame<'_>, es: &[Expr]) -> R<Vec<Value>> {
        es.iter().map(|e| self.expr(f, e)).collect()
    }
    fn atomic(&mut self, f: &mut Frame<'_>, a: &AtomicAccess) -> R<Value> {
        let index = self.exprs(f, &a.index)?;
        let args = self.exprs(f, &a.args)?;
        let off = self.offset(a.view, &index)?;
        let old = self.read(a.view, off);
        let new = ops::atomic(a.op, old, &args)?;
        if let Some(new) = new {
            self.write(a.view, off, new);
        }
        Ok(match (a.result, new) {
            (AtomicResult::New, Some(new)) => new,
            _ => old,
        })
    }
    fn call(&mut self, func: FuncId, args: Vec<Value>) -> R<Value> {
        let kernel = self.kernel;
        let f = &kernel.functions[func.0 as usize];
        let mut frame = Frame::new(&f.locals);
        for (&p, v) in f.params.iter().zip(args) {
            frame.set(p, v);
        }
        match self.block(&mut frame, &f.body)? {
            Flow::Return(Some(v)) => Ok(v),
            _ => Err(EvalError::Internal(format!(
                "function `{}` ended without a value",
                f.name
            ))),
        }
    }

    fn expr(&mut self, f: &mut Frame<'_>, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Lit(v) => *v,
            Expr::Local(l) => f.get(*l)?,
            Expr::Param(p) => self.scalars[p.0 as usize],
            Expr::WorkIndex(k) => Value::U64(self.work[*k as usize]),
            Expr::AccRead(a) => self.accs[self.acc_slot(*a)],
            Expr::Binary { op, lhs, rhs } => {
                let l = self.expr(f, lhs)?;
                match op {
                    BinaryOp::Logic(LogicOp::And) if !as_bool(l)? => l,
                    BinaryOp::Logic(LogicOp::Or) if as_bool(l)? => l,
                    BinaryOp::Logic(_) => Value::Bool(as_bool(self.expr(f, rhs)?)?),
                    BinaryOp::Arith(o) => ops::arith(*o, l, self.expr(f, rhs)?, self.checks())?,
                    BinaryOp::Bitwise(o) => ops::bitwise(*o, l, self.expr(f, rhs)?, self.checks())?,
                    BinaryOp::Cmp(o) => ops::cmp(*o, l, self.expr(f, rhs)?)?,
                }
            }
            Expr::Unary { op, arg } => ops::unary(*op, self.expr(f, arg)?, self.checks())?,
            Expr::Cast { ty, arg } => ops::cast(self.expr(f, arg)?, *ty)?,
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                let c = as_bool(self.expr(f, cond)?)?;
                let (t, e) = (self.expr(f, on_true)?, self.expr(f, on_false)?);
                if c {
                    t
                } else {
                    e
                }
            }
            Expr::Math { func, args } => {
                let args = self.exprs(f, args)?;
                ops::math(*func, &args, self.checks())?
            }
            Expr::Load { view, index } => {
                let index = self.exprs(f, index)?;
                let off = self.offset(*view, &index)?;
                self.read(*view, off)
            }
            Expr::Extent { view, dim } => {
                let extents = match view {
                    ViewRef::Param(v) => &self.views[v.0 as usize].extents,
                    ViewRef::Scratch(s) => match &self.scratch[s.0 as usize] {
                        Some(sc) => &sc.extents,
                        None => {
                            return Err(EvalError::Internal(format!(
                                "scratch{} used before allocation",
                                s.0
                            )))
                        }
                    },
                };
                Value::U64(extents.get(*dim as usize).copied().unwrap_or(0) as u64)
            }
            Expr::ArrayLoad { array, index } => {
                let i = self.expr(f, index)?;
                let slot = f.slot(*array, i)?;
                f.arrays[array.0 as usize][slot]
            }
            Expr::TableLoad { table, index } => {
                let i = self.expr(f, index)?;
                let t = self.kernel.tables.get(table.0 as usize).ok_or_else(|| {
                    EvalError::Internal(format!("unknown constant table {}", table.0))
                })?;
                match as_i128(i) {
                    Some(k) if k >= 0 && (k as usize) < t.values.len() => t.values[k as usize],
                    k => {
                        return Err(EvalError::OutOfBounds {
                            view: format!("constant table `{}`", t.name),
                            index: vec![k.unwrap_or(-1)],
                            extents: vec![t.values.len()],
                        })
                    }
                }
            }
            Expr::Call { func, args } => {
                let args = self.exprs(f, args)?;
                self.call(*func, args)?
            }
            Expr::Team(q) => Value::U64(match q {
                TeamQuery::LeagueRank => self.league.0,
                TeamQuery::LeagueSize => self.league.1,
                TeamQuery::TeamRank => 0,
                TeamQuery::TeamSize => 1,
                TeamQuery::VectorLength => self.league.2,
            }),
            Expr::IsFinal => Value::Bool(true),
            Expr::Atomic(a) => self.atomic(f, a)?,
        })
    }

    fn block(&mut self, f: &mut Frame<'_>, b: &Block) -> R<Flow> {
        for s in b {
            match self.stmt(f, s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    /// Runs `body` once per index of `start..end` with `var` set; the body cannot break out.
    fn nested(
        &mut self,
        f: &mut Frame<'_>,
        var: LocalId,
        (start, end, inclusive): (&Expr, &Expr, bool),
        body: &Block,
    ) -> R<()> {
        let (s, e) = (as_u64(self.expr(f, start)?)?, as_u64(self.expr(f, end)?)?);
        // An inclusive range ending at `u64::MAX` runs its last index without forming `e + 1`.
        let indices = match inclusive {
            true => s..=e,
            false if s < e => s..=e - 1,
            // Exhausted from the start: no index.
            false => {
                let mut none = s..=s;
                none.next();
                none
            }
        };
        for j in indices {
            f.set(var, Value::U64(j));
            self.block(f, body)?;
        }
        Ok(())
    }

    fn stmt(&mut self, f: &mut Frame<'_>, s: &Stmt) -> R<Flow> {
        match s {
            Stmt::Let { local, init } => {
                f.vals[local.0 as usize] = match init {
                    Some(e) => Some(self.expr(f, e)?),
                    None => None,
                };
            }
            Stmt::LetArray { local, init } => {
                let len = f.decls[local.0 as usize].array_len.unwrap_or(0) as usize;
                let vals = match init {
                    ArrayInit::Fill(e) => vec![self.expr(f, e)?; len],
                    ArrayInit::Elems(es) => self.exprs(f, es)?,
                };
                f.arrays[local.0 as usize] = vals;
            }
            Stmt::Assign { local, value } => {
                let v = self.expr(f, value)?;
                f.set(*local, v);
            }
            Stmt::ArrayStore {
                array,
                index,
                value,
            } => {
                let i = self.expr(f, index)?;
                let v = self.expr(f, value)?;
                let slot = f.slot(*array, i)?;
                f.arrays[array.0 as usize][slot] = v;
            }
            Stmt::AccStore { field, value } => {
                let v = self.expr(f, value)?;
                let slot = self.acc_slot(*field);
                self.accs[slot] = v;
            }
            Stmt::Store { view, index, value } => {
                let index = self.exprs(f, index)?;
                let v = self.expr(f, value)?;
                let off = self.offset(*view, &index)?;
                self.write(*view, off, v);
            }
            Stmt::Atomic(a) => {
                self.atomic(f, a)?;
            }
            Stmt::If { cond, then, else_ } => {
                let b = if as_bool(self.expr(f, cond)?)? {
                    then
                } else {
                    else_
                };
                return self.block(f, b);
            }
            Stmt::For {
                var,
                start,
                end,
                step,
                reverse,
                inclusive,
                body,
            } => {
                let ty = f.decls[var.0 as usize].ty;
                let num = |v: Value| {
                    as_i128(v).ok_or_else(|| EvalError::Internal("non-integer for bound".into()))
                };
                let s = num(self.expr(f, start)?)?;
                let e = num(self.expr(f, end)?)?;
                let st = num(self.expr(f, step)?)?;
                // `step_by(0)` panics in Rust; the IR's signed counters could also carry a
                // negative step, which no Rust iterator takes.
                if st == 0 {
                    return Err(EvalError::Failed("assertion failed: step != 0".into()));
                }
                if st < 0 {
                    return Err(EvalError::Failed(format!("for loop with step {st}")));
                }
                // Bounds are 64-bit values widened to i128, so neither count overflows, and
                // an inclusive `end` at its type's maximum is reached without computing `end + 1`.
                let count = match inclusive {
                    false if e > s => (e - s + st - 1) / st,
                    true if e >= s => (e - s) / st + 1,
                    _ => 0,
                };
                for k in 0..count {
                    let k = if *reverse { count - 1 - k } else { k };
                    f.set(*var, Value::from_bits(ty, (s + k * st) as u64));
                    match self.block(f, body)? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                        r @ Flow::Return(_) => return Ok(r),
                    }
                }
            }
            Stmt::While { cond, body } => {
                while as_bool(self.expr(f, cond)?)? {
                    match self.block(f, body)? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                        r @ Flow::Return(_) => return Ok(r),
                    }
                }
            }
            Stmt::Loop { body } => loop {
                match self.block(f, body)? {
                    Flow::Break => break,
                    Flow::Next | Flow::Continue => {}
                    r @ Flow::Return(_) => return Ok(r),
                }
            },
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => Some(self.expr(f, e)?),
                    None => None,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Barrier => {}
            Stmt::NestedFor {
                var,
                start,
                end,
                inclusive,
                body,
                ..
            } => self.nested(f, *var, (start, end, *inclusive), body)?,
            Stmt::NestedReduce {
                var,
                start,
                end,
                inclusive,
                reducer,
                acc,
                body,
                result,
                ..
            } => {
                let ty = f.decls[acc.0 as usize].ty;
                let id = reducer.identity(ty).ok_or_else(|| {
                    EvalError::Internal(format!("reducer {} on {ty}", reducer.name()))
                })?;
                f.set(*acc, id);
                self.nested(f, *var, (start, end, *inclusive), body)?;
                let v = f.get(*acc)?;
                f.set(*result, v);
            }
            Stmt::NestedScan {
                var,
                start,
                end,
                inclusive,
                partial,
                is_final,
                body,
                total,
                ..
            } => {
                let ty = f.decls[partial.0 as usize].ty;
                f.set(*partial, Value::zero(ty));
                f.set(*is_final, Value::Bool(true));
                self.nested(f, *var, (start, end, *inclusive), body)?;
                let v = f.get(*partial)?;
                f.set(*total, v);
            }
            Stmt::Single { body, .. } => {
                self.block(f, body)?;
            }
            Stmt::Broadcast { local, value, src } => {
                let v = self.expr(f, value)?;
                self.expr(f, src)?;
                f.set(*local, v);
            }
            Stmt::Scratch { id, extents } => {
                let extents: Vec<usize> = self
                    .exprs(f, extents)?
                    .into_iter()
                    .map(|v| match as_i128(v) {
                        Some(x) if x >= 0 => Ok(x as usize),
                        _ => Err(EvalError::Failed(format!("scratch extent {v:?}"))),
                    })
                    .collect::<R<_>>()?;
                let mut strides = vec![0; extents.len()];
                let mut acc = 1usize;
                for k in (0..extents.len()).rev() {
                    strides[k] = acc;
                    acc = acc.saturating_mul(extents[k].max(1));
                }
                let decl = &self.kernel.scratch[id.0 as usize];
                let elem: ScalarType = decl.elem;
                // An element count past `usize::MAX` fits no reservation: `take_scratch` refuses
                // `usize::MAX` elements (every scalar type has a non-zero size).
                let len = crate::layout::element_count(&extents).unwrap_or(usize::MAX);
                self.take_scratch(decl.level, decl.scope, elem, len)?;
                self.scratch[id.0 as usize] = Some(Scratch {
                    data: vec![Value::zero(elem); len],
                    extents,
                    strides,
                });
            }
        }
        Ok(Flow::Next)
    }
}
