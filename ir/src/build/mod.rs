//! The typed builder API that `#[rokkos::kernel]` expansions call to record a [`crate::Kernel`].
//!
//! Values are [`Expr<T>`] handles whose Rust type `T` mirrors the native expression's type, so
//! `rustc` type-checks the recorded IR exactly as it type-checks the native body: operators are
//! implemented only where Rust implements them, and an unsuffixed literal next to an `Expr<T>` is
//! inferred as `T` (see [`IntoExpr`]). Variables ([`Var`]), parameters ([`Param`]), accumulator
//! fields ([`Acc`]) and Views ([`ViewVar`]) are `Copy` handles; `.get()` reads them.
//!
//! Statements are recorded into the innermost open block of a [`KernelBuilder`]; constructs with a
//! body open a block (`if_`, `for_range`, `nested_for`, ...) that `end()` closes, and `else_()`
//! switches an `if` to its `else` block.
//!
//! How the macro drives it: it declares one handle per signature item in order (the work index with
//! [`KernelBuilder::work_index`], accumulators, Views, scalars), then rewrites each statement. Handles
//! are `Copy` (`.get()` reads them); `Expr`s are trees, so a reused `Expr` is cloned. An argument that
//! itself calls the builder (`kb.let_("r", kb.team_query(..))`) must be bound to a temporary first,
//! because the builder is borrowed mutably for the call.
//!
//! ```
//! use rokkos_ir::{build::KernelBuilder, Access, WorkKind};
//! // fn triad(i: usize, a: ViewMut<f64>, b: View<f64>, c: View<f64>, s: f64) { a[i] = b[i] + s * c[i]; }
//! let mut kb = KernelBuilder::new("triad", WorkKind::Range);
//! let i = kb.work_index(0);
//! let a = kb.view::<f64>("a", 1, Access::Writable);
//! let b = kb.view::<f64>("b", 1, Access::ReadOnly);
//! let c = kb.view::<f64>("c", 1, Access::ReadOnly);
//! let s = kb.scalar::<f64>("s");
//! kb.store(a, i.clone(), b.load(i.clone()) + s.get() * c.load(i.clone()));
//! let triad = kb.finish().unwrap();
//!
//! // fn dot(i: usize, acc: &mut f64, a: View<f64>, b: View<f64>) { *acc += a[i] * b[i]; }
//! let mut kb = KernelBuilder::new("dot", WorkKind::Range);
//! let i = kb.work_index(0);
//! let acc = kb.acc::<f64>("acc");
//! let a = kb.view::<f64>("a", 1, Access::ReadOnly);
//! let b = kb.view::<f64>("b", 1, Access::ReadOnly);
//! kb.acc_set(acc, acc.get() + a.load(i.clone()) * b.load(i.clone())); // `x op= y` is `x = x op y`
//! let dot = kb.finish().unwrap();
//! assert_eq!(
//!     dot.to_string(),
//!     "kernel dot(range) reduce {\n  view a: [f64; 1] read_only\n  view b: [f64; 1] read_only\n  \
//!      acc acc: f64\n  body {\n    acc = (acc + (a[i0] * b[i0]));\n  }\n}\n"
//! );
//! # rokkos_ir::valid::validate(&triad).unwrap();
//! # rokkos_ir::valid::validate(&dot).unwrap();
//! ```
//!
//! Control flow: `kb.if_(c); ..; kb.else_(); ..; kb.end();`, `let k = kb.for_range::<i32>("k", 0, n);
//! ..; kb.end();` (`for_range_step` and `for_range_step_inclusive` for `(a..b)` and `(a..=b)` with
//! `.step_by(k)` and `.rev()`, a step of the counter's type; `for_range_step_by[_inclusive]` with
//! Rust's `usize` step, which may exceed the counter's range), `kb.while_(c)`, `kb.loop_()`, `kb.break_()`, `kb.continue_()`,
//! `kb.return_()`.
//! Team constructs open blocks the same way (`nested_for`, `nested_reduce`, `nested_scan`, `single`).

mod body;
mod expr;
mod func;
mod kernel;
mod scalar;
mod table;
mod view;

pub use body::{ArrayVar, BodyBuilder, BuildError, Var};
pub use expr::{select, Expr, IntoExpr};
pub use func::{Func, Func1, Func2, Func3, FuncScope, FunctionBuilder, FunctionSet};
pub use kernel::{Acc, KernelBuilder, NestedReduceVars, NestedScanVars, Param, Team};
#[doc(hidden)]
pub use scalar::native;
pub use scalar::{IrBits, IrFloat, IrInt, IrNum, IrScalar, IrSigned};
pub use table::Table;
pub use view::{IntoIndex, ViewVar};
