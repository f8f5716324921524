//! Recording statements: locals and structured control flow, shared by kernels and helper functions.

use super::expr::{Expr, IntoExpr};
use super::scalar::{IrInt, IrScalar};
use crate::expr::{Expr as IrExpr, LocalId};
use crate::ops::{NestedKind, ReducerKind, SingleKind};
use crate::stmt::{ArrayInit, Block, LocalDecl, Stmt};
use std::marker::PhantomData;

/// A misuse of the builder (a bug in the code that drives it, typically the macro).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// `end()` (or `else_()`) with no open block of the right kind.
    #[error("`{0}` without a matching open block")]
    Unmatched(&'static str),
    /// `finish()` with blocks still open.
    #[error("{0} block(s) still open at finish (missing `end()`)")]
    Unclosed(usize),
    /// Two helper functions of one name with different definitions.
    #[error("helper function `{0}` defined twice differently")]
    DuplicateFunction(String),
    /// The kernel uses something the IR cannot express (a View element type other than the IR's
    /// scalars, a scratch level that is not a constant, a nested reduction with a non-scalar
    /// reducer, ...): host backends run it natively, device backends cannot.
    #[error("not expressible in the kernel IR: {0}")]
    Unsupported(String),
}

/// A scalar local of type `T`.
pub struct Var<T> {
    /// The local.
    pub id: LocalId,
    _ty: PhantomData<fn() -> T>,
}
impl<T> Clone for Var<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Var<T> {}
impl<T> std::fmt::Debug for Var<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Var({})", self.id.0)
    }
}
impl<T> Var<T> {
    /// The handle of local `id` (asserting its type is `T`).
    pub fn from_id(id: LocalId) -> Self {
        Var {
            id,
            _ty: PhantomData,
        }
    }
    /// Its current value.
    pub fn get(self) -> Expr<T> {
        Expr::from_ir(IrExpr::Local(self.id))
    }
}
impl<T> IntoExpr<T> for Var<T> {
    fn into_expr(self) -> Expr<T> {
        self.get()
    }
}

/// A fixed-size local array of `T`.
pub struct ArrayVar<T> {
    /// The local.
    pub id: LocalId,
    _ty: PhantomData<fn() -> T>,
}
impl<T> Clone for ArrayVar<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ArrayVar<T> {}
impl<T> ArrayVar<T> {
    /// `array[index]`.
    pub fn load(self, index: impl IntoExpr<usize>) -> Expr<T> {
        Expr::from_ir(IrExpr::ArrayLoad {
            array: self.id,
            index: Box::new(index.into_expr().into_ir()),
        })
    }
}
impl<T: IrScalar> ArrayVar<T> {
    /// Its first `N` elements, `[array[0], .., array[N - 1]]`: the array passed by value to a
    /// `#[rokkos::func]` parameter `[T; N]` (whose IR function takes `N` scalar parameters). The
    /// native path has checked, as Rust's types, that the array has exactly `N` elements.
    pub fn elements<const N: usize>(self) -> [Expr<T>; N] {
        std::array::from_fn(|k| self.load(Expr::lit(k)))
    }
}

/// Which construct an open block belongs to.
pub(crate) enum Frame {
    Root,
    Then(IrExpr),
    Else(IrExpr, Block),
    For {
        var: LocalId,
        start: IrExpr,
        end: IrExpr,
        step: IrExpr,
        reverse: bool,
        inclusive: bool,
    },
    While(IrExpr),
    Loop,
    NestedFor {
        kind: NestedKind,
        var: LocalId,
        start: IrExpr,
        end: IrExpr,
        inclusive: bool,
    },
    NestedReduce {
        kind: NestedKind,
        var: LocalId,
        start: IrExpr,
        end: IrExpr,
        inclusive: bool,
        reducer: ReducerKind,
        acc: LocalId,
        result: LocalId,
    },
    NestedScan {
        kind: NestedKind,
        var: LocalId,
        start: IrExpr,
        end: IrExpr,
        inclusive: bool,
        partial: LocalId,
        is_final: LocalId,
        total: LocalId,
    },
    Single {
        kind: SingleKind,
        result: Option<LocalId>,
    },
}

/// Records a body: a locals table and a stack of open blocks. Kernel and function builders
/// dereference to it, so these methods are available on both.
pub struct BodyBuilder {
    pub(crate) locals: Vec<LocalDecl>,
    frames: Vec<(Frame, Block)>,
    pub(crate) error: Option<BuildError>,
}

impl Default for BodyBuilder {
    fn default() -> Self {
        BodyBuilder {
            locals: Vec::new(),
            frames: vec![(Frame::Root, Vec::new())],
            error: None,
        }
    }
}

impl BodyBuilder {
    pub(crate) fn fail(&mut self, e: BuildError) {
        self.error.get_or_insert(e);
    }
    /// Appends a statement to the innermost open block.
    pub fn push(&mut self, stmt: Stmt) {
        self.frames.last_mut().expect("root frame").1.push(stmt);
    }
    pub(crate) fn open(&mut self, frame: Frame) {
        self.frames.push((frame, Vec::new()));
    }
    /// A new entry in the locals table (no statement recorded).
    pub fn new_local(
        &mut self,
        name: &str,
        ty: crate::ScalarType,
        array_len: Option<u32>,
    ) -> LocalId {
        self.locals.push(LocalDecl {
            name: name.to_string(),
            ty,
            array_len,
        });
        LocalId(self.locals.len() as u32 - 1)
    }
    pub(crate) fn var<T: IrScalar>(&mut self, name: &str) -> Var<T> {
        Var::from_id(self.new_local(name, T::TYPE, None))
    }

    /// `let name = init;`
    pub fn let_<T: IrScalar>(&mut self, name: &str, init: impl IntoExpr<T>) -> Var<T> {
        let v = self.var::<T>(name);
        self.push(Stmt::Let {
            local: v.id,
            init: Some(init.into_expr().into_ir()),
        });
        v
    }
    /// `let name: T;` (assigned later).
    pub fn declare<T: IrScalar>(&mut self, name: &str) -> Var<T> {
        let v = self.var::<T>(name);
        self.push(Stmt::Let {
            local: v.id,
            init: None,
        });
        v
    }
    /// `var = value;` (compound assignments are `var = var op value`).
    pub fn assign<T>(&mut self, var: Var<T>, value: impl IntoExpr<T>) {
        self.push(Stmt::Assign {
            local: var.id,
            value: value.into_expr().into_ir(),
        });
    }
    /// `let name = [value; len];`
    pub fn array_fill<T: IrScalar>(
        &mut self,
        name: &str,
        len: u32,
        value: impl IntoExpr<T>,
    ) -> ArrayVar<T> {
        self.array(name, len, ArrayInit::Fill(value.into_expr().into_ir()))
    }
    /// `let name = [e0, e1, ..];`
    pub fn array_from<T: IrScalar>(&mut self, name: &str, elems: Vec<Expr<T>>) -> ArrayVar<T> {
        let len = elems.len() as u32;
        self.array(
            name,
            len,
            ArrayInit::Elems(elems.into_iter().map(Expr::into_ir).collect()),
        )
    }
    /// `let name = src;`: a copy of local array `src` (an argument of a `#[rokkos::func]` call,
    /// taken at its place in the argument list before a later argument could write to `src`).
    pub fn array_copy<T: IrScalar>(&mut self, name: &str, src: ArrayVar<T>) -> ArrayVar<T> {
        let len = self.locals[src.id.0 as usize].array_len.unwrap_or(0);
        let elems = (0..len as usize).map(|k| src.load(Expr::lit(k))).collect();
        self.array_from(name, elems)
    }
    fn array<T: IrScalar>(&mut self, name: &str, len: u32, init: ArrayInit) -> ArrayVar<T> {
        let id = self.new_local(name, T::TYPE, Some(len));
        self.push(Stmt::LetArray { local: id, init });
        ArrayVar {
            id,
            _ty: PhantomData,
        }
    }
    /// `array[index] = value;`
    pub fn array_store<T>(
        &mut self,
        array: ArrayVar<T>,
        index: impl IntoExpr<usize>,
        value: impl IntoExpr<T>,
    ) {
        self.push(Stmt::ArrayStore {
            array: array.id,
            index: index.into_expr().into_ir(),
            value: value.into_expr().into_ir(),
        });
    }

    /// Opens `if cond {`; continue with [`BodyBuilder::else_`] or [`BodyBuilder::end`].
    pub fn if_(&mut self, cond: impl IntoExpr<bool>) {
        self.open(Frame::Then(cond.into_expr().into_ir()));
    }
    /// `} else {` of the innermost open `if`.
    pub fn else_(&mut self) {
        match self.frames.pop() {
            Some((Frame::Then(cond), then)) => self.open(Frame::Else(cond, then)),
            Some(other) => {
                self.frames.push(other);
                self.fail(BuildError::Unmatched("else_"));
            }
            None => unreachable!("root frame"),
        }
    }
    /// Opens `for name in start..end {`; returns the counter.
    pub fn for_range<T: IrInt>(
        &mut self,
        name: &str,
        start: impl IntoExpr<T>,
        end: impl IntoExpr<T>,
    ) -> Var<T> {
        let one = Expr::<T>::from_ir(IrExpr::Lit(crate::Value::from_bits(T::TYPE, 1)));
        self.for_range_step(name, start, end, one, false)
    }
    /// Opens `for name in (start..end).step_by(step)` (with `.rev()` when `reverse`).
    pub fn for_range_step<T: IrInt>(
        &mut self,
        name: &str,
        start: impl IntoExpr<T>,
        end: impl IntoExpr<T>,
        step: impl IntoExpr<T>,
        reverse: bool,
    ) -> Var<T> {
        self.open_for(name, start, end, step, reverse, false)
    }
    /// Opens `for name in (start..=end).step_by(step)` (with `.rev()` when `reverse`): `end` is
    /// visited when the steps reach it, even when it is the maximum of `T`.
    pub fn for_range_step_inclusive<T: IrInt>(
        &mut self,
        name: &str,
        start: impl IntoExpr<T>,
        end: impl IntoExpr<T>,
        step: impl IntoExpr<T>,
        reverse: bool,
    ) -> Var<T> {
        self.open_for(name, start, end, step, reverse, true)
    }
    /// Opens `for name in (start..end).step_by(step)` with Rust's `usize` step (with `.rev()`
    /// when `reverse`), which may exceed `T`'s range: such a step visits `start` only.
    ///
    /// ```
    /// # use rokkos_ir::{build::KernelBuilder, WorkKind};
    /// let mut kb = KernelBuilder::new("big_steps", WorkKind::Range);
    /// let k = kb.scalar::<usize>("k");
    /// let v = kb.for_range_step_by::<u32>("v", 0u32, 10u32, k.get(), false);
    /// kb.end();
    /// # let _ = v;
    /// ```
    pub fn for_range_step_by<T: IrInt>(
        &mut self,
        name: &str,
        start: impl IntoExpr<T>,
        end: impl IntoExpr<T>,
        step: impl IntoExpr<usize>,
        reverse: bool,
    ) -> Var<T> {
        self.open_for(name, start, end, step, reverse, false)
    }
    /// [`for_range_step_by`](Self::for_range_step_by) over `start..=end`.
    pub fn for_range_step_by_inclusive<T: IrInt>(
        &mut self,
        name: &str,
        start: impl IntoExpr<T>,
        end: impl IntoExpr<T>,
        step: impl IntoExpr<usize>,
        reverse: bool,
    ) -> Var<T> {
        self.open_for(name, start, end, step, reverse, true)
    }
    fn open_for<T: IrInt, S: IrInt>(
        &mut self,
        name: &str,
        start: impl IntoExpr<T>,
        end: impl IntoExpr<T>,
        step: impl IntoExpr<S>,
        reverse: bool,
        inclusive: bool,
    ) -> Var<T> {
        let var = self.var::<T>(name);
        self.open(Frame::For {
            var: var.id,
            start: start.into_expr().into_ir(),
            end: end.into_expr().into_ir(),
            step: step.into_expr().into_ir(),
            reverse,
            inclusive,
        });
        var
    }
    /// Opens `while cond {`.
    pub fn while_(&mut self, cond: impl IntoExpr<bool>) {
        self.open(Frame::While(cond.into_expr().into_ir()));
    }
    /// Opens `loop {`.
    pub fn loop_(&mut self) {
        self.open(Frame::Loop);
    }
    /// `break;`
    pub fn break_(&mut self) {
        self.push(Stmt::Break);
    }
    /// `continue;`
    pub fn continue_(&mut self) {
        self.push(Stmt::Continue);
    }
    /// `return;` (ends the work item).
    pub fn return_(&mut self) {
        self.push(Stmt::Return(None));
    }
    /// `return value;` (in a helper function).
    pub fn return_value<T>(&mut self, value: impl IntoExpr<T>) {
        self.push(Stmt::Return(Some(value.into_expr().into_ir())));
    }

    /// Closes the innermost open block (`}`), recording its construct.
    pub fn end(&mut self) {
        let (frame, body) = match self.frames.pop() {
            Some((Frame::Root, b)) => {
                self.frames.push((Frame::Root, b));
                self.fail(BuildError::Unmatched("end"));
                return;
            }
            Some(f) => f,
            None => unreachable!("root frame"),
        };
        let stmt = match frame {
            Frame::Root => unreachable!(),
            Frame::Then(cond) => Stmt::If {
                cond,
                then: body,
                else_: Vec::new(),
            },
            Frame::Else(cond, then) => Stmt::If {
                cond,
                then,
                else_: body,
            },
            Frame::For {
                var,
                start,
                end,
                step,
                reverse,
                inclusive,
            } => Stmt::For {
                var,
                start,
                end,
                step,
                reverse,
                inclusive,
                body,
            },
            Frame::While(cond) => Stmt::While { cond, body },
            Frame::Loop => Stmt::Loop { body },
            Frame::NestedFor {
                kind,
                var,
                start,
                end,
                inclusive,
            } => Stmt::NestedFor {
                kind,
                var,
                start,
                end,
                inclusive,
                body,
            },
            Frame::NestedReduce {
                kind,
                var,
                start,
                end,
                inclusive,
                reducer,
                acc,
                result,
            } => Stmt::NestedReduce {
                kind,
                var,
                start,
                end,
                inclusive,
                reducer,
                acc,
                body,
                result,
            },
            Frame::NestedScan {
                kind,
                var,
                start,
                end,
                inclusive,
                partial,
                is_final,
                total,
            } => Stmt::NestedScan {
                kind,
                var,
                start,
                end,
                inclusive,
                partial,
                is_final,
                body,
                total,
            },
            Frame::Single { kind, result } => Stmt::Single { kind, body, result },
        };
        self.push(stmt);
    }

    /// Checks that only the root block is open and returns it with the locals table.
    pub(crate) fn finish(mut self) -> Result<(Vec<LocalDecl>, Block), BuildError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.frames.len() != 1 {
            return Err(BuildError::Unclosed(self.frames.len() - 1));
        }
        let (_, body) = self.frames.pop().expect("root frame");
        Ok((self.locals, body))
    }
}
