//! Helper functions (`#[rokkos::func]`): defined once per kernel, called by handle.

use super::body::{BodyBuilder, BuildError, Var};
use super::expr::Expr;
use super::scalar::IrScalar;
use super::table::{define_table, Table};
use crate::expr::{Expr as IrExpr, FuncId, LocalId};
use crate::{ConstTable, Function};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// A defined helper function returning `R`.
pub struct Func<R> {
    /// The function.
    pub id: FuncId,
    _ty: PhantomData<fn() -> R>,
}
impl<R> Clone for Func<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for Func<R> {}

impl<R> Func<R> {
    /// `f(args..)`; the arguments are the IR of typed expressions, one per parameter.
    pub fn call(self, args: Vec<IrExpr>) -> Expr<R> {
        Expr::from_ir(IrExpr::Call {
            func: self.id,
            args,
        })
    }
}

/// Records the body of a helper function; dereferences to [`BodyBuilder`].
pub struct FunctionBuilder<'k> {
    functions: &'k mut Vec<Function>,
    tables: &'k mut Vec<ConstTable>,
    body: BodyBuilder,
    params: Vec<LocalId>,
    error: &'k mut Option<BuildError>,
}

impl Deref for FunctionBuilder<'_> {
    type Target = BodyBuilder;
    fn deref(&self) -> &BodyBuilder {
        &self.body
    }
}
impl DerefMut for FunctionBuilder<'_> {
    fn deref_mut(&mut self) -> &mut BodyBuilder {
        &mut self.body
    }
}

impl FunctionBuilder<'_> {
    /// Declares the next parameter.
    pub fn param<T: IrScalar>(&mut self, name: &str) -> Var<T> {
        let v = self.body.var::<T>(name);
        self.params.push(v.id);
        v
    }
    /// Defines (or finds) another helper function this one calls.
    pub fn func<R: IrScalar>(
        &mut self,
        name: &str,
        define: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Func<R> {
        define_function(self.functions, self.tables, self.error, name, define)
    }
    /// Defines (or finds) constant table `name` (see [`FuncScope::table`]).
    pub fn table<T: IrScalar>(&mut self, name: &str, values: &[T]) -> Table<T> {
        define_table(self.tables, name, values)
    }
}

/// Where a helper function can be defined and called: a kernel body ([`super::KernelBuilder`]) or
/// another helper function's body ([`FunctionBuilder`]). The IR builder `#[rokkos::func]` generates
/// for `fn f(..)` takes `&mut impl FuncScope`, so that kernels and functions call it alike.
pub trait FuncScope {
    /// Defines (or finds) helper function `name` returning `R` (see [`super::KernelBuilder::func`]).
    fn func<R: IrScalar>(
        &mut self,
        name: &str,
        define: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Func<R>;
    /// Defines constant table `name` holding `values`, or finds an equal table defined before
    /// (by this body or any other of the kernel: tables belong to the kernel, so a helper
    /// function's table is recorded once however often the function is defined or called).
    fn table<T: IrScalar>(&mut self, name: &str, values: &[T]) -> Table<T>;
    /// Records that the calling code cannot be expressed in the IR: the kernel's `finish` returns
    /// [`BuildError::Unsupported`] with `what`.
    fn unsupported(&mut self, what: &str);
}

impl FuncScope for FunctionBuilder<'_> {
    fn func<R: IrScalar>(
        &mut self,
        name: &str,
        define: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Func<R> {
        FunctionBuilder::func(self, name, define)
    }
    fn table<T: IrScalar>(&mut self, name: &str, values: &[T]) -> Table<T> {
        FunctionBuilder::table(self, name, values)
    }
    fn unsupported(&mut self, what: &str) {
        self.error
            .get_or_insert(BuildError::Unsupported(what.to_string()));
    }
}

/// Helper functions and constant tables defined outside any kernel: a library of functions that
/// an IR pass adds to kernels (the device backends' software math library is one). Define functions with [`FuncScope::func`], then take them with
/// [`FunctionSet::finish`].
///
/// ```
/// use rokkos_ir::build::{FuncScope, FunctionSet, Expr};
///
/// let mut lib = FunctionSet::default();
/// let sq = lib.func::<f64>("square", |f| {
///     let x = f.param::<f64>("x");
///     f.return_value(x.get() * x.get());
/// });
/// let (functions, tables) = lib.finish().unwrap();
/// assert_eq!(functions[sq.id.0 as usize].name, "square");
/// assert!(tables.is_empty());
/// ```
#[derive(Debug, Default)]
pub struct FunctionSet {
    functions: Vec<Function>,
    tables: Vec<ConstTable>,
    error: Option<BuildError>,
}

impl FunctionSet {
    /// The functions defined (each calling only those before it) and the tables they read, or
    /// the first error of a definition.
    pub fn finish(self) -> Result<(Vec<Function>, Vec<ConstTable>), BuildError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok((self.functions, self.tables)),
        }
    }
}

impl FuncScope for FunctionSet {
    fn func<R: IrScalar>(
        &mut self,
        name: &str,
        define: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Func<R> {
        define_function(
            &mut self.functions,
            &mut self.tables,
            &mut self.error,
            name,
            define,
        )
    }
    fn table<T: IrScalar>(&mut self, name: &str, values: &[T]) -> Table<T> {
        define_table(&mut self.tables, name, values)
    }
    fn unsupported(&mut self, what: &str) {
        self.error
            .get_or_insert(BuildError::Unsupported(what.to_string()));
    }
}

thread_local! {
    /// Names of the helper functions being defined, innermost last.
    static DEFINING: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Defines helper function `name` returning `R` unless one of that name exists (then returns it;
/// a second definition that differs is a [`BuildError::DuplicateFunction`]).
pub(crate) fn define_function<R: IrScalar>(
    functions: &mut Vec<Function>,
    tables: &mut Vec<ConstTable>,
    error: &mut Option<BuildError>,
    name: &str,
    define: impl FnOnce(&mut FunctionBuilder<'_>),
) -> Func<R> {
    let existing = functions.iter().position(|f| f.name == name);
    // A function that (directly or not) calls itself would be defined forever: the IR has no
    // recursion (device backends cannot run it).
    let recursive = DEFINING.with(|d| {
        let mut d = d.borrow_mut();
        let rec = d.iter().any(|n| n == name);
        if !rec {
            d.push(name.to_string());
        }
        rec
    });
    if recursive {
        error.get_or_insert(BuildError::Unsupported(format!(
            "helper function `{name}` is recursive"
        )));
        return Func {
            id: FuncId(u32::MAX),
            _ty: PhantomData,
        };
    }
    let (locals, body, params) = {
        let mut fb = FunctionBuilder {
            functions: &mut *functions,
            tables: &mut *tables,
            body: BodyBuilder::default(),
            params: Vec::new(),
            error: &mut *error,
        };
        define(&mut fb);
        DEFINING.with(|d| d.borrow_mut().pop());
        let params = fb.params;
        match fb.body.finish() {
            Ok((locals, body)) => (locals, body, params),
            Err(e) => {
                error.get_or_insert(e);
                (Vec::new(), Vec::new(), params)
            }
        }
    };
    let f = Function {
        name: name.to_string(),
        params,
        ret: R::TYPE,
        locals,
        body,
    };
    let id = match existing {
        Some(i) => {
            if functions[i] != f {
                error.get_or_insert(BuildError::DuplicateFunction(name.to_string()));
            }
            i
        }
        None => {
            functions.push(f);
            functions.len() - 1
        }
    };
    Func {
        id: FuncId(id as u32),
        _ty: PhantomData,
    }
}

macro_rules! func_value_trait {
    ($(#[$doc:meta])* $tr:ident, $($a:ident $x:ident),+) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `native` and `ir` describe one function: for all arguments, the IR `ir` records
        /// computes what `native` returns (`#[rokkos::func]`'s expansion implements it from one
        /// body, with the function's marker `NAME::native` and `NAME::ir`). An implementation
        /// written by hand that breaks this makes host and device backends disagree.
        pub unsafe trait $tr<$($a: IrScalar),+>: 'static {
            /// The result type.
            type Output: IrScalar;
            /// Calls the function (host backends).
            fn native($($x: $a),+) -> Self::Output;
            /// Records a call of the function into the IR of the kernel (or function) being built.
            fn ir(scope: &mut impl FuncScope, $($x: Expr<$a>),+) -> Expr<Self::Output>;
        }
    };
}
func_value_trait!(
    /// A `#[rokkos::func]` of one scalar parameter as a *value*: what a kernel's type parameter
    /// bounded by it (`pred: Func1<T, Output = bool>`) calls as `pred(x)`, on the host and in the
    /// IR. `#[func]` implements it for the marker type of every function of one scalar parameter
    /// and one scalar result (`#[func] fn is_even(x: i64) -> bool` gives
    /// `is_even: Func1<i64, Output = bool>`), so a call site passes `is_even {}`; a function of
    /// another signature is a compile error there.
    Func1, A a
);
func_value_trait!(
    /// As [`Func1`], for a `#[rokkos::func]` of two scalar parameters.
    Func2, A a, B b
);
func_value_trait!(
    /// As [`Func1`], for a `#[rokkos::func]` of three scalar parameters.
    Func3, A a, B b, C c
);
