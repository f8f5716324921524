//! [`KernelBuilder`]: the signature, kernel-only expressions and statements, and `finish`.

use super::body::{BodyBuilder, BuildError, Frame, Var};
use super::expr::{Expr, IntoExpr};
use super::func::{define_function, Func, FuncScope, FunctionBuilder};
use super::scalar::{IrNum, IrScalar};
use super::table::{define_table, Table};
use super::view::{IntoIndex, ViewVar};
use crate::expr::{AccField, AtomicAccess, Expr as IrExpr, ScalarParamId};
use crate::ops::{
    Access, AtomicOp, AtomicResult, NestedKind, ReducerKind, ScratchDecl, ScratchId, ScratchScope,
    SingleKind, TeamQuery, ViewId, ViewParam, ViewRef,
};
use crate::stmt::Stmt;
use crate::{AccShape, Accumulator, Kernel, ScalarParam, WorkKind};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// A scalar parameter of type `T`.
pub struct Param<T> {
    /// The parameter.
    pub id: ScalarParamId,
    _ty: PhantomData<fn() -> T>,
}
impl<T> Clone for Param<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Param<T> {}
impl<T> Param<T> {
    /// Its value.
    pub fn get(self) -> Expr<T> {
        Expr::from_ir(IrExpr::Param(self.id))
    }
}
impl<T> IntoExpr<T> for Param<T> {
    fn into_expr(self) -> Expr<T> {
        self.get()
    }
}

/// One accumulator field of type `T` (`*acc` of a reduction or scan, or `acc.val`, `acc.loc`, ...).
pub struct Acc<T> {
    /// The field.
    pub field: AccField,
    _ty: PhantomData<fn() -> T>,
}
impl<T> Clone for Acc<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Acc<T> {}
impl<T> Acc<T> {
    fn new(acc: usize, field: u32) -> Self {
        Acc {
            field: AccField {
                acc: acc as u32,
                field,
            },
            _ty: PhantomData,
        }
    }
    /// Its current value.
    pub fn get(self) -> Expr<T> {
        Expr::from_ir(IrExpr::AccRead(self.field))
    }
}
impl<T> IntoExpr<T> for Acc<T> {
    fn into_expr(self) -> Expr<T> {
        self.get()
    }
}

/// The team member of a team kernel, as the IR sees it: `team.league_rank()` records a query.
#[derive(Clone, Copy, Debug)]
pub struct Team(());

impl Team {
    /// `team.league_rank()`.
    pub fn league_rank(self) -> Expr<usize> {
        Expr::from_ir(IrExpr::Team(TeamQuery::LeagueRank))
    }
    /// `team.league_size()`.
    pub fn league_size(self) -> Expr<usize> {
        Expr::from_ir(IrExpr::Team(TeamQuery::LeagueSize))
    }
    /// `team.team_rank()`.
    pub fn team_rank(self) -> Expr<usize> {
        Expr::from_ir(IrExpr::Team(TeamQuery::TeamRank))
    }
    /// `team.team_size()`.
    pub fn team_size(self) -> Expr<usize> {
        Expr::from_ir(IrExpr::Team(TeamQuery::TeamSize))
    }
    /// `team.vector_length()`.
    pub fn vector_length(self) -> Expr<usize> {
        Expr::from_ir(IrExpr::Team(TeamQuery::VectorLength))
    }
}

/// The variables of a nested reduction body and its result.
#[derive(Clone, Copy, Debug)]
pub struct NestedReduceVars<T> {
    /// The index.
    pub index: Var<usize>,
    /// The body's accumulator.
    pub acc: Var<T>,
    /// The reduced value, usable after `end()`.
    pub result: Var<T>,
}

/// The variables of a nested scan body and its total.
#[derive(Clone, Copy, Debug)]
pub struct NestedScanVars<T> {
    /// The index.
    pub index: Var<usize>,
    /// The running partial sum.
    pub partial: Var<T>,
    /// The `is_final` flag.
    pub is_final: Var<bool>,
    /// The sum of all contributions, usable after `end()`.
    pub total: Var<T>,
}

/// Records one kernel. Dereferences to [`BodyBuilder`] for locals and control flow.
///
/// ```
/// use rokkos_ir::{build::KernelBuilder, Access, WorkKind};
/// // #[rokkos::kernel] fn triad(i: usize, a: ViewMut<f64>, b: View<f64>, c: View<f64>, s: f64) {
/// //     a[i] = b[i] + s * c[i];
/// // }
/// let mut k = KernelBuilder::new("triad", WorkKind::Range);
/// let i = k.work_index(0);
/// let a = k.view::<f64>("a", 1, Access::Writable);
/// let b = k.view::<f64>("b", 1, Access::ReadOnly);
/// let c = k.view::<f64>("c", 1, Access::ReadOnly);
/// let s = k.scalar::<f64>("s");
/// k.store(a, i.clone(), b.load(i.clone()) + s.get() * c.load(i));
/// let kernel = k.finish().unwrap();
/// assert!(rokkos_ir::valid::validate(&kernel).is_ok());
/// ```
pub struct KernelBuilder {
    kernel: Kernel,
    body: BodyBuilder,
}

impl Deref for KernelBuilder {
    type Target = BodyBuilder;
    fn deref(&self) -> &BodyBuilder {
        &self.body
    }
}
impl DerefMut for KernelBuilder {
    fn deref_mut(&mut self) -> &mut BodyBuilder {
        &mut self.body
    }
}

impl KernelBuilder {
    /// A kernel named `name` for policies of kind `work`.
    pub fn new(name: &str, work: WorkKind) -> Self {
        KernelBuilder {
            kernel: Kernel {
                name: name.to_string(),
                work,
                views: Vec::new(),
                scalars: Vec::new(),
                accumulators: Vec::new(),
                is_scan: false,
                scratch: Vec::new(),
                locals: Vec::new(),
                body: Vec::new(),
                functions: Vec::new(),
                tables: Vec::new(),
                overflow_checks: false,
            },
            body: BodyBuilder::default(),
        }
    }

    /// Records whether integer overflow makes the work item fail ([`Kernel::overflow_checks`];
    /// off unless set): `#[rokkos::kernel]` passes `cfg!(debug_assertions)` of the kernel's crate.
    pub fn overflow_checks(&mut self, on: bool) {
        self.kernel.overflow_checks = on;
    }

    /// The recorded kernel (no validation: see [`crate::valid::validate`]).
    pub fn finish(self) -> Result<Kernel, BuildError> {
        let mut kernel = self.kernel;
        let (locals, body) = self.body.finish()?;
        kernel.locals = locals;
        kernel.body = body;
        Ok(kernel)
    }

    // ---- signature ----

    /// Declares the next View parameter.
    pub fn view<T: IrNum>(&mut self, name: &str, rank: u32, access: Access) -> ViewVar<T> {
        self.kernel.views.push(ViewParam {
            name: name.to_string(),
            elem: T::TYPE,
            rank,
            access,
            used_atomically: false,
        });
        ViewVar::from_ref(ViewRef::Param(ViewId(self.kernel.views.len() as u32 - 1)))
    }
    /// Declares the next scalar parameter.
    pub fn scalar<T: IrScalar>(&mut self, name: &str) -> Param<T> {
        self.kernel.scalars.push(ScalarParam {
            name: name.to_string(),
            ty: T::TYPE,
        });
        Param {
            id: ScalarParamId(self.kernel.scalars.len() as u32 - 1),
            _ty: PhantomData,
        }
    }
    fn accumulator(&mut self, name: &str, shape: AccShape) -> usize {
        self.kernel.accumulators.push(Accumulator {
            name: name.to_string(),
            shape,
        });
        self.kernel.accumulators.len() - 1
    }
    /// Declares a scalar reduction accumulator (`acc: &mut T`).
    pub fn acc<T: IrScalar>(&mut self, name: &str) -> Acc<T> {
        Acc::new(self.accumulator(name, AccShape::Scalar(T::TYPE)), 0)
    }
    /// Declares a `ValLoc<T>` accumulator; returns its `val` and `loc` fields.
    pub fn acc_valloc<T: IrNum>(&mut self, name: &str) -> (Acc<T>, Acc<usize>) {
        let a = self.accumulator(name, AccShape::ValLoc(T::TYPE));
        (Acc::new(a, 0), Acc::new(a, 1))
    }
    /// Declares a `MinMaxVal<T>` accumulator; returns its `min` and `max` fields.
    pub fn acc_minmax<T: IrNum>(&mut self, name: &str) -> (Acc<T>, Acc<T>) {
        let a = self.accumulator(name, AccShape::MinMaxVal(T::TYPE));
        (Acc::new(a, 0), Acc::new(a, 1))
    }
    /// Makes this a scan kernel and declares its partial value (`partial: &mut T`).
    pub fn scan_partial<T: IrScalar>(&mut self, name: &str) -> Acc<T> {
        self.kernel.is_scan = true;
        self.acc::<T>(name)
    }
    /// `*field = value;`
    pub fn acc_set<T>(&mut self, field: Acc<T>, value: impl IntoExpr<T>) {
        self.push(Stmt::AccStore {
            field: field.field,
            value: value.into_expr().into_ir(),
        });
    }

    // ---- kernel-only expressions ----

    /// Component `k` of the work index.
    pub fn work_index(&self, k: u32) -> Expr<usize> {
        Expr::from_ir(IrExpr::WorkIndex(k))
    }
    /// The scan kernel's `final` flag.
    pub fn is_final(&self) -> Expr<bool> {
        Expr::from_ir(IrExpr::IsFinal)
    }
    /// A team member query.
    pub fn team_query(&self, q: TeamQuery) -> Expr<usize> {
        Expr::from_ir(IrExpr::Team(q))
    }
    /// The team member handle of a team kernel (its queries are expressions).
    pub fn team(&self) -> Team {
        Team(())
    }

    // ---- memory ----

    /// `view[index] = value;`
    pub fn store<T>(&mut self, view: ViewVar<T>, index: impl IntoIndex, value: impl IntoExpr<T>) {
        self.push(Stmt::Store {
            view: view.view,
            index: index.into_index(),
            value: value.into_expr().into_ir(),
        });
    }
    fn atomic_access<T>(
        &mut self,
        op: AtomicOp,
        view: ViewVar<T>,
        index: impl IntoIndex,
        args: Vec<Expr<T>>,
    ) -> AtomicAccess {
        if let ViewRef::Param(v) = view.view {
            if let Some(p) = self.kernel.views.get_mut(v.0 as usize) {
                p.used_atomically = true;
            }
        }
        AtomicAccess {
            op,
            view: view.view,
            index: index.into_index(),
            args: args.into_iter().map(Expr::into_ir).collect(),
            result: AtomicResult::Old,
        }
    }
    /// An atomic whose result is discarded (`view.atomic_add(i, x)`, `atomic_store`, ...).
    pub fn atomic<T>(
        &mut self,
        op: AtomicOp,
        view: ViewVar<T>,
        index: impl IntoIndex,
        args: Vec<Expr<T>>,
    ) {
        let a = self.atomic_access(op, view, index, args);
        self.push(Stmt::Atomic(a));
    }
    /// An atomic yielding the previous value (`view.atomic_fetch_add(i, x)`, `atomic_load`, ...).
    pub fn atomic_fetch<T>(
        &mut self,
        op: AtomicOp,
        view: ViewVar<T>,
        index: impl IntoIndex,
        args: Vec<Expr<T>>,
    ) -> Expr<T> {
        Expr::from_ir(IrExpr::Atomic(Box::new(
            self.atomic_access(op, view, index, args),
        )))
    }
    /// An atomic yielding the value it stored (`view.atomic_add_fetch(i, x)`, Kokkos'
    /// `atomic_<op>_fetch`); only for operations with [`AtomicOp::has_new_value`].
    pub fn atomic_new_fetch<T>(
        &mut self,
        op: AtomicOp,
        view: ViewVar<T>,
        index: impl IntoIndex,
        args: Vec<Expr<T>>,
    ) -> Expr<T> {
        let mut a = self.atomic_access(op, view, index, args);
        a.result = AtomicResult::New;
        Expr::from_ir(IrExpr::Atomic(Box::new(a)))
    }
    /// `view.atomic_add(index, value)`.
    pub fn atomic_add<T: IrNum>(
        &mut self,
        view: ViewVar<T>,
        index: impl IntoIndex,
        value: impl IntoExpr<T>,
    ) {
        self.atomic(AtomicOp::Add, view, index, vec![value.into_expr()]);
    }
    /// Allocates a scratch View (`team.team_scratch` / `team.thread_scratch`).
    pub fn scratch<T: IrNum>(
        &mut self,
        level: u32,
        scope: ScratchScope,
        extents: impl IntoIndex,
    ) -> ViewVar<T> {
        let extents = extents.into_index();
        self.kernel.scratch.push(ScratchDecl {
            elem: T::TYPE,
            rank: extents.len() as u32,
            level,
            scope,
        });
        let id = ScratchId(self.kernel.scratch.len() as u32 - 1);
        self.push(Stmt::Scratch { id, extents });
        ViewVar::from_ref(ViewRef::Scratch(id))
    }

    // ---- team constructs ----

    /// `team.team_barrier()`.
    pub fn barrier(&mut self) {
        self.push(Stmt::Barrier);
    }
    /// Opens `for name in team.<kind>_range(start..end) {`; close with `end()`.
    pub fn nested_for(
        &mut self,
        kind: NestedKind,
        name: &str,
        start: impl IntoExpr<usize>,
        end: impl IntoExpr<usize>,
    ) -> Var<usize> {
        self.open_nested_for(kind, name, start, end, false)
    }
    /// Opens `for name in team.<kind>_range(first..=last) {`; close with `end()`.
    pub fn nested_for_inclusive(
        &mut self,
        kind: NestedKind,
        name: &str,
        first: impl IntoExpr<usize>,
        last: impl IntoExpr<usize>,
    ) -> Var<usize> {
        self.open_nested_for(kind, name, first, last, true)
    }
    fn open_nested_for(
        &mut self,
        kind: NestedKind,
        name: &str,
        start: impl IntoExpr<usize>,
        end: impl IntoExpr<usize>,
        inclusive: bool,
    ) -> Var<usize> {
        let var = self.body.var::<usize>(name);
        self.body.open(Frame::NestedFor {
            kind,
            var: var.id,
            start: start.into_expr().into_ir(),
            end: end.into_expr().into_ir(),
            inclusive,
        });
        var
    }
    /// Opens `let name = team.<kind>_reduce(start..end, reducer, |j, acc| {`; close with `end()`.
    pub fn nested_reduce<T: IrScalar>(
        &mut self,
        kind: NestedKind,
        name: &str,
        start: impl IntoExpr<usize>,
        end: impl IntoExpr<usize>,
        reducer: ReducerKind,
    ) -> NestedReduceVars<T> {
        self.open_nested_reduce(kind, name, (start, end, false), reducer)
    }
    /// Opens `let name = team.<kind>_reduce(first..=last, reducer, |j, acc| {`; close with
    /// `end()`.
    pub fn nested_reduce_inclusive<T: IrScalar>(
        &mut self,
        kind: NestedKind,
        name: &str,
        first: impl IntoExpr<usize>,
        last: impl IntoExpr<usize>,
        reducer: ReducerKind,
    ) -> NestedReduceVars<T> {
        self.open_nested_reduce(kind, name, (first, last, true), reducer)
    }
    fn open_nested_reduce<T: IrScalar>(
        &mut self,
        kind: NestedKind,
        name: &str,
        (start, end, inclusive): (impl IntoExpr<usize>, impl IntoExpr<usize>, bool),
        reducer: ReducerKind,
    ) -> NestedReduceVars<T> {
        let result = self.body.declare::<T>(name);
        let index = self.body.var::<usize>("j");
        let acc = self.body.var::<T>("acc");
        self.body.open(Frame::NestedReduce {
            kind,
            var: index.id,
            start: start.into_expr().into_ir(),
            end: end.into_expr().into_ir(),
            inclusive,
            reducer,
            acc: acc.id,
            result: result.id,
        });
        NestedReduceVars { index, acc, result }
    }
    /// Opens `let name = team.<kind>_scan(start..end, |j, partial, is_final| {`; close with `end()`.
    pub fn nested_scan<T: IrNum>(
        &mut self,
        kind: NestedKind,
        name: &str,
        start: impl IntoExpr<usize>,
        end: impl IntoExpr<usize>,
    ) -> NestedScanVars<T> {
        self.open_nested_scan(kind, name, start, end, false)
    }
    /// Opens `let name = team.<kind>_scan(first..=last, |j, partial, is_final| {`; close with
    /// `end()`.
    pub fn nested_scan_inclusive<T: IrNum>(
        &mut self,
        kind: NestedKind,
        name: &str,
        first: impl IntoExpr<usize>,
        last: impl IntoExpr<usize>,
    ) -> NestedScanVars<T> {
        self.open_nested_scan(kind, name, first, last, true)
    }
    fn open_nested_scan<T: IrNum>(
        &mut self,
        kind: NestedKind,
        name: &str,
        start: impl IntoExpr<usize>,
        end: impl IntoExpr<usize>,
        inclusive: bool,
    ) -> NestedScanVars<T> {
        let total = self.body.declare::<T>(name);
        let index = self.body.var::<usize>("j");
        let partial = self.body.var::<T>("partial");
        let is_final = self.body.var::<bool>("is_final");
        self.body.open(Frame::NestedScan {
            kind,
            var: index.id,
            start: start.into_expr().into_ir(),
            end: end.into_expr().into_ir(),
            inclusive,
            partial: partial.id,
            is_final: is_final.id,
            total: total.id,
        });
        NestedScanVars {
            index,
            partial,
            is_final,
            total,
        }
    }
    /// Opens `team.single_<kind>(|| {` with no result; close with `end()`.
    pub fn single(&mut self, kind: SingleKind) {
        self.body.open(Frame::Single { kind, result: None });
    }
    /// Opens `let name = team.single_<kind>(|| {`: the body assigns the returned local, whose value
    /// every thread (or lane) holds after `end()`.
    pub fn single_with<T: IrScalar>(&mut self, kind: SingleKind, name: &str) -> Var<T> {
        let result = self.body.declare::<T>(name);
        self.body.open(Frame::Single {
            kind,
            result: Some(result.id),
        });
        result
    }
    /// `let name = team.team_broadcast(value, src);`
    pub fn broadcast<T: IrScalar>(
        &mut self,
        name: &str,
        value: impl IntoExpr<T>,
        src: impl IntoExpr<usize>,
    ) -> Var<T> {
        let local = self.body.declare::<T>(name);
        self.push(Stmt::Broadcast {
            local: local.id,
            value: value.into_expr().into_ir(),
            src: src.into_expr().into_ir(),
        });
        local
    }

    // ---- helper functions ----

    /// Defines helper function `name` returning `R` (once: later calls with the same name return the
    /// first definition's handle).
    pub fn func<R: IrScalar>(
        &mut self,
        name: &str,
        define: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Func<R> {
        define_function(
            &mut self.kernel.functions,
            &mut self.kernel.tables,
            &mut self.body.error,
            name,
            define,
        )
    }

    /// Defines (or finds) constant table `name` (see [`FuncScope::table`]).
    pub fn table<T: IrScalar>(&mut self, name: &str, values: &[T]) -> Table<T> {
        define_table(&mut self.kernel.tables, name, values)
    }
}

impl FuncScope for KernelBuilder {
    fn func<R: IrScalar>(
        &mut self,
        name: &str,
        define: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Func<R> {
        KernelBuilder::func(self, name, define)
    }
    fn table<T: IrScalar>(&mut self, name: &str, values: &[T]) -> Table<T> {
        KernelBuilder::table(self, name, values)
    }
    fn unsupported(&mut self, what: &str) {
        self.body.fail(BuildError::Unsupported(what.to_string()));
    }
}
